"""Conformance against the reference corpus (skipped unless ROBODESC_CORPUS is set).

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


@pytest.mark.parametrize("fmt", ["urdf", "mjcf", "sdf"])
def test_conformance_tool_reports_no_failures(fmt):
    corpus = _corpus()
    tool = corpus.parent / "tools" / "conformance.py"
    assert tool.is_file(), f"ROBODESC_CORPUS is set but the runner {tool} does not exist"
    result = subprocess.run(
        [sys.executable, str(tool), "--corpus", str(corpus), "--format", fmt],
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


_DESCRIPTION_SUFFIXES = {".urdf", ".sdf", ".world", ".xml", ".mjcf"}


def _corpus_files(corpus: Path) -> list[Path]:
    files = sorted(
        p
        for fmt in ("urdf", "mjcf", "sdf")
        for p in (corpus / fmt).rglob("*")
        if p.is_file() and p.suffix.lower() in _DESCRIPTION_SUFFIXES
    )
    if not files:
        pytest.skip(f"no description files under {corpus}")
    return files


def test_every_corpus_file_loads_or_raises_a_robodesc_error():
    corpus = _corpus()
    foreign = []
    for path in _corpus_files(corpus):
        try:
            robodesc.load(path)
        except robodesc.PluginCrash as exc:  # a reader's own exception, wrapped: exactly what we look for
            foreign.append(f"{path.relative_to(corpus)}: crash: {type(exc.original).__name__}: {exc.original}")
        except robodesc.RobodescError:
            pass
        except Exception as exc:  # noqa: BLE001 - exactly what this test looks for
            foreign.append(f"{path.relative_to(corpus)}: {type(exc).__name__}: {exc}")
    assert not foreign, f"{len(foreign)} file(s) raised something other than RobodescError:\n" + "\n".join(foreign[:20])


def test_check_runs_on_every_corpus_file():
    corpus = _corpus()
    for path in _corpus_files(corpus):
        report = robodesc.check(path)  # a broken file is a report with its error; a crash raises
        if not report.loaded:  # the one error that stopped the load, located in a file
            (error,) = report.diagnostics
            assert error.severity is robodesc.Severity.ERROR and error.location.file, (path, error)
        for finding in report.diagnostics:
            assert finding.code and finding.message and finding.severity in robodesc.Severity, (path, finding)
