"""docs/plugins.md says what its examples print: each is run and its output compared.

The guide's toy plugin is installed from the guide's own code (package and entry point, as pip
lays them out) into a temporary folder; every Python example followed by a ```text block runs in
a fresh interpreter there, and `robodesc formats` is run as the console example shows it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import other_plugins

GUIDE = Path(__file__).parents[1] / "docs" / "plugins.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)


def blocks() -> list[tuple[str, str, int]]:
    """(language, body, offset) of every fenced block of the guide."""
    text = GUIDE.read_text()
    return [(m[1], m[2], m.start()) for m in FENCE.finditer(text)]


def block_after(marker: str, language: str) -> str:
    text = GUIDE.read_text()
    start = text.index(marker)
    return next(body for lang, body, offset in blocks() if offset > start and lang == language)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("guide")
    site = root / "site"
    (site / "robodesc_toychain").mkdir(parents=True)
    (site / "robodesc_toychain" / "__init__.py").write_text(
        block_after("`src/robodesc_toychain/__init__.py`:", "python")
    )
    info = site / "robodesc_toychain-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: robodesc-toychain\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[robodesc]\ntoychain = robodesc_toychain\n")
    chain = block_after("describes a serial chain, one line per link:", "text")
    (root / "two_link.chain").write_text(chain)
    (root / "two_link.txt").write_text(chain.replace("mesh=meshes/hand.stl", "mesh=toy://meshes/hand.stl"))
    (root / "assets" / "meshes").mkdir(parents=True)
    (root / "assets" / "meshes" / "hand.stl").write_text("solid hand\nendsolid hand\n")
    return root


def run(args: list[str], workspace: Path, installed: bool) -> str:
    env = {k: v for k, v in os.environ.items() if k != "ROBODESC_DISABLE_PLUGINS"}
    # the guide's output shows robodesc's own formats and the toy one: other installed plugins
    # (robodesc-xacro, in this repository's test set-up) are left out
    if others := other_plugins():
        env["ROBODESC_DISABLE_PLUGINS"] = others
    # run-time registration examples import the package without installing its entry point
    env["PYTHONPATH"] = str(workspace / "site") if installed else str(workspace / "module-only")
    if not installed:
        only = workspace / "module-only" / "robodesc_toychain"
        only.mkdir(parents=True, exist_ok=True)
        (only / "__init__.py").write_text((workspace / "site" / "robodesc_toychain" / "__init__.py").read_text())
    result = subprocess.run(args, cwd=workspace, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def examples() -> list[tuple[str, str]]:
    """(code, printed text) for each Python block directly followed by a text block."""
    found = blocks()
    return [
        (code, out)
        for (lang, code, _), (next_lang, out, _) in zip(found, found[1:])
        if lang == "python" and next_lang == "text"
    ]


def test_the_guide_has_examples_with_output():
    assert len(examples()) == 3


@pytest.mark.parametrize("index", range(3))
def test_each_example_prints_what_the_guide_says(workspace: Path, index: int):
    code, expected = examples()[index]
    printed = run([sys.executable, "-c", code], workspace, installed=False)
    assert printed == expected


def test_formats_command_prints_what_the_guide_says(workspace: Path):
    console = block_after("robodesc finds it with no\nfurther step:", "console")
    command, *expected = console.splitlines()
    assert command == "$ robodesc formats"
    printed = run([sys.executable, "-m", "robodesc", "formats"], workspace, installed=True)
    assert printed.splitlines() == expected
