"""Convex hulls with ``maxhullvert`` as MuJoCo's qhull makes them: SciPy's qhull with MuJoCo's options
(robodesc/formats/mjcf/hull.py), compared with the ``mujoco`` package on seeded random clouds; and
the numpy quickhull used when SciPy is not installed."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import robodesc
from robodesc.formats.mjcf import hull

mujoco = pytest.importorskip("mujoco")
pytest.importorskip("scipy.spatial")

SEEDS = range(8)
LIMITS = [*range(4, 21), -1]


def _cloud(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(60, 3)) * rng.uniform(0.5, 2.0, size=3)).astype(np.float32).astype(float)


def _xml(points: np.ndarray, limit: int) -> str:
    vertex = " ".join(repr(float(x)) for x in points.ravel())
    return (
        f'<mujoco><asset><mesh name="m" vertex="{vertex}" maxhullvert="{limit}" inertia="convex"/></asset>'
        '<worldbody><body name="b"><joint/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>'
    )


def _mujoco_hull_vertices(model) -> set[int]:
    graph = model.mesh_graph[model.mesh_graphadr[0] :]
    count = int(graph[0])
    return set(graph[2 + count : 2 + 2 * count].tolist())


def _assert_same_mass(xml: str, reference) -> None:
    inertial = robodesc.loads(xml, format="mjcf").bodies["b"].inertial
    assert inertial.mass == pytest.approx(reference.body_mass[1], rel=1e-12)
    moments = np.sort(np.linalg.eigvalsh(inertial.inertia))
    expected = np.sort(reference.body_inertia[1])
    assert np.max(np.abs(moments - expected)) <= 1e-12 * expected.max()


@pytest.mark.parametrize("seed", SEEDS)
def test_hull_vertices_masses_and_inertias_are_mujocos(seed: int) -> None:
    points = _cloud(seed)
    for limit in LIMITS:
        xml = _xml(points, limit)
        reference = mujoco.MjModel.from_xml_string(xml)
        faces = hull.convex_hull(points, max_vertices=limit)
        assert set(np.unique(faces).tolist()) == _mujoco_hull_vertices(reference), limit  # the very same vertices
        _assert_same_mass(xml, reference)


def test_faces_are_wound_outward() -> None:
    points = _cloud(0)
    for limit in LIMITS:
        faces = hull.convex_hull(points, max_vertices=limit)
        a, b, c = (points[faces[:, k]] for k in range(3))
        centre = points[np.unique(faces)].mean(axis=0)
        outward = np.einsum("ij,ij->i", np.cross(b - a, c - a), (a + b + c) / 3 - centre)
        assert np.all(outward > 0)


def test_qhull_options_are_mujocos() -> None:
    assert hull.qhull_options(-1) == "Qt"
    assert hull.qhull_options(4) == "Qt Q9 TA0"
    assert hull.qhull_options(12) == "Qt Q9 TA8"


def test_without_scipy_the_numpy_hull_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "scipy.spatial", None)  # `from scipy.spatial import ...` fails
    assert hull._qhull_faces(_cloud(0), -1) is None
    for seed in SEEDS:  # with no limit (and the smallest) the numpy hull is qhull's too
        points = _cloud(seed)
        for limit in (-1, 4):
            xml = _xml(points, limit)
            reference = mujoco.MjModel.from_xml_string(xml)
            assert set(np.unique(hull.convex_hull(points, max_vertices=limit)).tolist()) == _mujoco_hull_vertices(
                reference
            )
            _assert_same_mass(xml, reference)
