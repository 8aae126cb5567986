"""Round trips A -> B -> A through every pair of formats, compared as robots with `robodesc diff`.

A conversion may lose what the middle format cannot hold (each loss is reported), but what comes
back must be the same robot: the same bodies and joints, masses and inertias, and poses at sampled
configurations. The examples are converted always; a sample of the reference corpus when
`ROBODESC_CORPUS` is set.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import robodesc
from robodesc import Loss
from robodesc.core.diff import DiffEntry, compare

ROOT = Path(__file__).parents[1]
EXAMPLES = [ROOT / "examples" / name for name in ("arm.urdf", "quadruped.xml", "pendulum_world.sdf")]
SUFFIX = {"urdf": ".urdf", "sdf": ".sdf", "mjcf": ".xml"}
def round_trip(source: Path, middle: str, tmp_path: Path) -> tuple[robodesc.Model, robodesc.Model, list[Loss]]:
    first = robodesc.load(source)
    there = tmp_path / f"there{SUFFIX[middle]}"
    losses = list(robodesc.dump(first, there, format=middle))
    back = tmp_path / f"back{SUFFIX[first.format or 'urdf']}"
    losses += robodesc.dump(robodesc.load(there), back, format=first.format)
    return first, robodesc.load(back), losses


def explained(entry: DiffEntry, losses: list[Loss], differences: list[DiffEntry]) -> bool:
    """Whether a conversion reported the loss behind a difference: a loss names one of the entry's
    bodies or joints as its construct, or as the stem of a joint a writer split it into
    (`ball__x`, `hinge2_axis2`), or quotes it in its message. The total mass differs only through
    body masses, so it is explained when those are."""
    if entry.code == "total_mass":
        masses = [d for d in differences if d.code == "mass"]
        return bool(masses) and all(explained(d, losses, differences) for d in masses)
    return any(
        name == loss.construct
        or (loss.construct and name.startswith(loss.construct + "_"))
        or f"'{name}'" in loss.message
        for name in entry.names
        for loss in losses
    )


def assert_same_robot(first: robodesc.Model, second: robodesc.Model, losses: list[Loss]) -> None:
    """The same robot, but for differences a reported loss explains."""
    result = compare(first, second, samples=4)
    unexplained = [d for d in result.differences if not explained(d, losses, result.differences)]
    assert not unexplained, "\n".join(str(d) for d in unexplained)


@pytest.mark.parametrize("middle", ["urdf", "sdf", "mjcf"])
@pytest.mark.parametrize("source", EXAMPLES, ids=lambda p: p.name)
def test_the_examples_come_back_as_the_same_robot(source, middle, tmp_path):
    first, second, losses = round_trip(source, middle, tmp_path)
    assert_same_robot(first, second, losses)


def corpus_sample() -> list[Path]:
    """Every fifth golden file of each format (a spread over collections), sources robodesc reads."""
    root = os.environ.get("ROBODESC_CORPUS")
    if not root:
        return []
    picked = []
    for fmt in ("urdf", "sdf", "mjcf"):
        goldens = sorted(Path(root, "golden", fmt).rglob("*.json"))
        for golden in goldens[::5]:
            meta = json.loads(golden.read_text())
            picked.append(Path(root, fmt, meta["file"]))
    return picked


@pytest.mark.skipif(not os.environ.get("ROBODESC_CORPUS"), reason="ROBODESC_CORPUS is not set")
@pytest.mark.parametrize("middle", ["urdf", "sdf", "mjcf"])
def test_corpus_files_come_back_as_the_same_robot(middle, tmp_path):
    failures = []
    for source in corpus_sample():
        try:
            first = robodesc.load(source)
        except robodesc.RobodescError:
            continue  # a file robodesc refuses, as its reference does
        work = tmp_path / source.stem
        work.mkdir(exist_ok=True)
        try:
            first, second, losses = round_trip(source, middle, work)
            assert_same_robot(first, second, losses)
        except (AssertionError, robodesc.RobodescError) as failure:
            failures.append(f"{source}: {str(failure).splitlines()[0][:300]}")
    assert not failures, "\n".join(failures)
