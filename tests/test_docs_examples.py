"""The documentation prints what robodesc prints: every example with an output block is run.

The convention (the one docs/plugins.md and tests/test_docs_plugins.py started): a ```python
block directly followed by a ```text block (nothing but blank lines between them) is an example,
and the text block is exactly what it prints. A Python block with no output block right after it
is an illustration and is not run; a text block further away (after prose, under another heading)
is not that block's output.

Each example runs on its own, in a fresh interpreter, in a temporary folder holding a copy of the
repository's `examples/` (the paths the docs use, such as "examples/arm.urdf"), so an example
cannot lean on another's state or on the checkout's other files. The printed text must equal the
block's text, with one normalisation: memory addresses (`0x7f...`) differ from run to run and
are compared as `0x...`. Examples that need the reference corpus (`ROBODESC_CORPUS`) or the
network (they import urllib, requests or httpx) skip, and so does one that stops on robodesc's
`MissingDependency` (an optional extra, such as viser for the viewer, not installed here).

docs/plugins.md's examples need the guide's toy plugin installed first; tests/test_docs_plugins.py
runs them, with the same FENCE (reused from there), so they are left out here.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import test_docs_plugins

ROOT = Path(__file__).parents[1]
DOCS = ROOT / "docs"
CHECKED_ELSEWHERE = {"plugins.md": "tests/test_docs_plugins.py, with the guide's toy plugin installed"}
ADDRESS = re.compile(r"\b0x[0-9a-fA-F]+\b")
NEEDS_CORPUS = re.compile(r"ROBODESC_CORPUS")
NEEDS_NETWORK = re.compile(r"^\s*(?:import|from)\s+(?:urllib|requests|httpx)\b", re.M)


def examples_in(text: str) -> list[tuple[str, str, int]]:
    """(code, printed text, line) of each python block whose output block follows it directly."""
    found = [(m[1], m[2], m.start(), m.end()) for m in test_docs_plugins.FENCE.finditer(text)]
    return [
        (code, out, text.count("\n", 0, start) + 1)
        for (lang, code, start, end), (next_lang, out, next_start, _) in zip(found, found[1:])
        if lang == "python" and next_lang == "text" and not text[end:next_start].strip()
    ]


def pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if p.relative_to(DOCS).as_posix() not in CHECKED_ELSEWHERE)


EXAMPLES = [
    pytest.param(code, out, id=f"{page.relative_to(DOCS).as_posix()}:{line}")
    for page in pages()
    for code, out, line in examples_in(page.read_text())
]


def normalised(text: str) -> str:
    return ADDRESS.sub("0x...", text)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A folder of the example's own, so files one example writes are not there for the next."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    return tmp_path


def test_the_convention_finds_only_adjacent_output_blocks():
    text = (
        "```python\nprint(1)\n```\n\n```text\n1\n```\n"
        "```python\nprint(2)\n```\nProse between.\n```text\nnot its output\n```\n"
        "```python\nx = 3\n```\n```bash\nrobodesc check x\n```\n"
    )
    assert examples_in(text) == [("print(1)\n", "1\n", 1)]


def test_the_plugin_guide_follows_the_same_convention():
    """tests/test_docs_plugins.py runs the guide's examples; by this file's rule they are the same."""
    guide = [(code, out) for code, out, _ in examples_in(test_docs_plugins.GUIDE.read_text())]
    assert guide == test_docs_plugins.examples()


def test_the_getting_started_page_checks_its_main_examples():
    """The page a new user copies from first: its examples must keep their printed output."""
    assert len(examples_in((DOCS / "getting-started.md").read_text())) >= 10


def cited_names() -> list[str]:
    """Every dotted name under robodesc the docs cite in code spans (`robodesc.core.Model`...)."""
    found = set()
    for page in sorted(DOCS.rglob("*.md")):
        found.update(re.findall(r"`(robodesc(?:\.[A-Za-z_]\w*)+)", page.read_text()))
    return sorted(found)


def resolve(dotted: str) -> object:
    """The object a dotted name names: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for attribute in parts[split:]:
            found = getattr(found, attribute)
        return found
    raise ImportError(dotted)


@pytest.mark.parametrize("dotted", cited_names())
def test_every_name_the_docs_cite_exists(dotted: str):
    """A module, class or constant moved or renamed leaves no stale reference in the docs
    (mkdocs checks links, not the names in code spans)."""
    resolve(dotted)


@pytest.mark.parametrize(("code", "expected"), EXAMPLES)
def test_each_example_prints_what_the_docs_show(workspace: Path, code: str, expected: str):
    if NEEDS_CORPUS.search(code):
        if not os.environ.get("ROBODESC_CORPUS"):
            pytest.skip("needs the reference corpus (ROBODESC_CORPUS)")
    if NEEDS_NETWORK.search(code):
        pytest.skip("needs the network")
    result = subprocess.run([sys.executable, "-c", code], cwd=workspace, capture_output=True, text=True, timeout=300)
    if result.returncode != 0 and re.search(r"\bMissingDependency\b", result.stderr):
        pytest.skip(f"needs an optional extra: {result.stderr.strip().splitlines()[-1]}")
    assert result.returncode == 0, result.stderr
    assert normalised(result.stdout) == normalised(expected)
