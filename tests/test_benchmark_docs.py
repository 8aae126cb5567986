"""docs/benchmarks.md's tables are the ones benchmarks/run.py renders from the saved figures.

The page promises that no number in it is typed by hand: every generated block must be exactly
what `python benchmarks/run.py --from-json benchmarks/results/after.json --before
benchmarks/results/before.json --write-docs` writes. This catches a table edited by hand, a
figure file not committed with its tables, and a renderer that no longer runs on saved figures.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _harness():
    spec = importlib.util.spec_from_file_location("robodesc_benchmarks_run", ROOT / "benchmarks" / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(spec.name, None)
    return module


def test_every_generated_table_is_rendered_from_the_saved_figures(tmp_path: Path) -> None:
    harness = _harness()
    results = ROOT / "benchmarks" / "results"
    after = json.loads((results / "after.json").read_text())
    before = json.loads((results / "before.json").read_text())
    doc = tmp_path / "benchmarks.md"
    shutil.copy(ROOT / "docs" / "benchmarks.md", doc)

    replaced = harness.write_docs(after, before, doc=doc)

    assert set(replaced) == {*harness.SECTIONS, "meta", "before-after"}
    assert doc.read_text() == (ROOT / "docs" / "benchmarks.md").read_text()
