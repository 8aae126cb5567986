"""Conformance against an external corpus of URDF files (skipped unless ROBODESC_CORPUS is set).

ROBODESC_CORPUS names the corpus folder; its sibling `tools/conformance.py` is the runner.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import robodesc


def _corpus() -> Path:
    value = os.environ.get("ROBODESC_CORPUS")
    if not value:
        pytest.skip("ROBODESC_CORPUS is not set: no conformance corpus to run against")
    corpus = Path(value)
    if not corpus.is_dir():
        pytest.skip(f"ROBODESC_CORPUS={value!r} is not an existing folder")
    return corpus


def test_conformance_tool_reports_no_failures():
    corpus = _corpus()
    tool = corpus.parent / "tools" / "conformance.py"
    assert tool.is_file(), f"ROBODESC_CORPUS is set but the runner {tool} does not exist"
    result = subprocess.run(
        [sys.executable, str(tool), "--corpus", str(corpus), "--format", "urdf"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"conformance.py exited with {result.returncode}:\n{output[-4000:]}"
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert lines, "conformance.py printed nothing"
    last = lines[-1]
    match = re.search(r"(\d+)\s+failed", last)
    assert match, f"the last line does not report a failure count: {last!r}"
    assert int(match.group(1)) == 0, f"conformance failures: {last!r}\n{output[-4000:]}"


def test_every_corpus_urdf_loads_or_raises_a_robodesc_error():
    corpus = _corpus()
    folder = corpus / "urdf"
    if not folder.is_dir():
        pytest.skip(f"{folder} does not exist")
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() == ".urdf")
    if not files:
        pytest.skip(f"no .urdf files under {folder}")
    foreign = []
    for path in files:
        try:
            robodesc.load(path, format="urdf")
        except robodesc.RobodescError:
            pass
        except Exception as exc:  # noqa: BLE001 - exactly what this test looks for
            foreign.append(f"{path.relative_to(corpus)}: {type(exc).__name__}: {exc}")
    assert not foreign, f"{len(foreign)} file(s) raised something other than RobodescError:\n" + "\n".join(foreign[:20])
