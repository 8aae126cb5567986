"""mkdocs hooks for the documentation site (mkdocs.yml lists this file under `hooks`).

The pages are read in two places: on the site, and as Markdown on GitHub (the README links to
them). A link to a heading must work in both, so headings get GitHub's anchors rather than
Python-Markdown's: GitHub keeps every hyphen ("A picture of the tree: `--dot`" is
`a-picture-of-the-tree---dot`), Python-Markdown collapses runs of them (`...-tree-dot`).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any


def github_slug(text: str, separator: str = "-") -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, each space a hyphen."""
    text = unicodedata.normalize("NFKC", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", separator)


def on_config(config: Any) -> Any:
    """Give the table-of-contents extension GitHub's anchors."""
    config["mdx_configs"].setdefault("toc", {})["slugify"] = github_slug
    return config
