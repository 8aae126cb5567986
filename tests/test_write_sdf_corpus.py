"""Every golden file of the shared corpus whose source robodesc loads, written as SDF and read back by
robodesc's SDF reader: each source body's pose relative to the root at the golden configurations
(1e-6) and the total mass must be the source's. Skipped when ROBODESC_CORPUS is unset."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import robodesc
from robodesc.core.model import JointType, Model
from robodesc.core.writing import WriteContext
from robodesc.formats.sdf.write import SdfWriter

CORPUS = os.environ.get("ROBODESC_CORPUS")
pytestmark = pytest.mark.skipif(not CORPUS, reason="ROBODESC_CORPUS is not set")


def _goldens() -> list[Path]:
    if not CORPUS:
        return []
    return sorted((Path(CORPUS) / "golden").rglob("*.json"))


def _source(corpus: Path, golden: dict) -> tuple[Path | None, list[str]]:
    fmt, rel = golden["format"], golden["file"]
    path = next((p for p in (corpus / fmt / rel, corpus / rel) if p.is_file()), None)
    paths = []
    for key in ("search_paths", "model_path_dirs"):
        value = golden.get(key) or []
        for entry in [v for v in value.split(",") if v] if isinstance(value, str) else value:
            for base in (corpus / entry, corpus / fmt / entry):
                if base.is_dir():
                    paths.append(str(base))
                    break
    return path, paths


def source_positions(model: Model, positions: dict) -> dict:
    """The golden values robodesc's model takes, with what SDF writes otherwise made to agree: free
    joints at their reference (SDF's free link has no joint value), and the followers of MJCF joint
    equalities following their leader (SDF writes them as `<mimic>`)."""
    out = {}
    for name, value in positions.items():
        joint = model.joints.get(name)
        if joint is None or joint.mimic is not None or joint.type is JointType.FLOATING:
            continue
        out[name] = value
    for constraint in model.constraints:
        if constraint.kind != "joint" or len(constraint.elements) != 2:
            continue
        follower, leader = (model.joints.get(n) for n in constraint.elements)
        c = [*constraint.coefficients, 0, 0, 0, 0, 0][:5]
        if follower is None or leader is None or any(c[2:]) or follower.dof != 1 or leader.dof != 1:
            continue
        ref1 = float(np.atleast_1d(follower.reference)[0])
        ref2 = float(np.atleast_1d(leader.reference)[0])
        q2 = float(np.atleast_1d(out.get(leader.name, ref2))[0])
        out[follower.name] = ref1 + c[0] + c[1] * (q2 - ref2)
    return out


def write_sdf(source: Model, path: Path) -> tuple[SdfWriter, list]:
    """Write `source` as SDF to `path`; the writer (for its joint renames) and the losses."""
    context = WriteContext(path)
    writer = SdfWriter(source, context)
    path.write_text(writer.text())
    return writer, context.losses


def compare(source: Model, written: Model, samples: list[dict], atol: float, names: dict[str, str]) -> list[str]:
    """What differs between the source and the SDF read back: body poses relative to the root at each
    sample (joint values passed under the names the writer gave the joints), and the total mass."""
    problems = []
    root = source.root.name
    for i, sample in enumerate(samples):
        positions = source_positions(source, sample["positions"])
        a = source.forward_kinematics(positions)
        b = written.forward_kinematics({names[k]: v for k, v in positions.items() if names.get(k) in written.joints})
        inv_a, inv_b = np.linalg.inv(a[root]), np.linalg.inv(b[root])
        for name in source.bodies:
            if name not in b:
                problems.append(f"body {name!r} missing")
                continue
            error = float(np.abs(inv_a @ a[name] - inv_b @ b[name]).max())
            if error > atol:
                problems.append(f"sample {i}: body {name!r} off by {error:.3g}")
        if problems:
            break
    mass_a = sum(b.inertial.mass for b in source.bodies.values() if b.inertial)
    mass_b = sum(b.inertial.mass for b in written.bodies.values() if b.inertial)
    if not np.isclose(mass_a, mass_b, rtol=1e-9, atol=1e-12):
        problems.append(f"total mass {mass_b} != {mass_a}")
    return problems


def test_corpus_written_as_sdf_reads_back_the_same(tmp_path):
    corpus = Path(CORPUS or "")
    results: dict[str, dict[str, list[str]]] = {}
    for index, gpath in enumerate(_goldens()):
        golden = json.loads(gpath.read_text())
        if "error" in golden:
            continue
        path, search = _source(corpus, golden)
        if path is None:
            continue
        try:
            source = robodesc.load(str(path), search_paths=search) if search else robodesc.load(str(path))
        except robodesc.RobodescError:
            continue
        fmt = golden["format"]
        out = tmp_path / f"{index}.sdf"
        try:
            writer, losses = write_sdf(source, out)
            written = robodesc.load(str(out))
            problems = compare(source, written, golden.get("samples", []), 1e-6, writer.joint_names)
        except Exception as exc:  # noqa: BLE001 - every failure is listed
            problems, losses = [f"{type(exc).__name__}: {exc}"], []
        verdict = "failing" if problems else "approximate" if losses else "exact"
        results.setdefault(fmt, {}).setdefault(verdict, []).append(f"{golden['file']}: {problems[:1]}")
    summary = {fmt: {k: len(v) for k, v in r.items()} for fmt, r in results.items()}
    print("SDF writer over the corpus:", summary)
    failing = [line for r in results.values() for line in r.get("failing", [])]
    assert not failing, "\n".join(failing[:20])
