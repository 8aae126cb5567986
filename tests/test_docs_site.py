"""The documentation site builds with `mkdocs build --strict`: no broken link, anchor or API name.

Strict mode turns every warning into a failure: a link to a page or heading that no longer
exists, a page left out of the nav, or an API reference (`::: robodesc.Something` in docs/api.md)
naming something robodesc no longer has. Renaming a heading or a public name without updating the
docs fails here, in CI, rather than on the published site.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings") is None,
    reason="mkdocs and mkdocstrings (the docs extra) build the site",
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def test_the_site_builds_strictly(site: Path):
    assert (site / "index.html").is_file()


def test_every_format_has_its_page(site: Path):
    for fmt in ("urdf", "sdf", "mjcf"):
        assert (site / "formats" / fmt / "index.html").is_file()


def test_the_api_reference_documents_the_entry_points(site: Path):
    """The API page is generated from the docstrings: the main names each get an anchor."""
    html = (site / "api" / "index.html").read_text()
    for (
        name
    ) in "load loads check convert dump dumps Model Body Joint Poses Kinematics LoadContext RobodescError".split():
        assert f'id="robodesc.{name}"' in html, name
    # the text comes from the docstrings themselves, not from a hand-written page
    assert "Load a description from a path" in html
