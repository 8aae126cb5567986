"""A sweep over the corpus: `model.scene(skip_missing=True)` draws every visual shape of every format.

Samples files so that each geometry kind robodesc reads appears (Menagerie's mesh-heavy Panda,
DAE meshes of several parts from example-robot-data's Panda, MJCF inline-vertex meshes from
MuJoCo's car, SDF cones, heightmaps and polylines from libsdformat's shapes test), and checks that every visual shape
has a node (or one per part), and that a shape is left out only when its mesh file truly is not on
disk, or it is of a kind robodesc cannot draw (an SDF polyline). Skipped without ROBODESC_CORPUS.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

import robodesc
from robodesc.core import errors

pytest.importorskip("trimesh")

CORPUS = os.environ.get("ROBODESC_CORPUS")

SAMPLE = [
    "mjcf/mujoco_menagerie/franka_emika_panda/panda.xml",  # OBJ meshes, many materials
    "mjcf/mujoco_menagerie/shadow_hand/right_hand.xml",
    "mjcf/mujoco/model/car/car.xml",  # a mesh given by vertices alone
    "mjcf/mujoco/model/cube/cube_3x3x3.xml",
    "mjcf/mujoco/model/humanoid/humanoid.xml",
    "sdf/sdformat/test/sdf/shapes.sdf",  # cone, ellipsoid, capsule, heightmap, polyline, plane
    "sdf/gazebo_models/simple_gripper/model.sdf",
    "sdf/gazebo_models/wooden_peg/model.sdf",
    "urdf/example-robot-data/robots/panda_description/urdf/panda.urdf",  # DAE meshes
    "urdf/example-robot-data/robots/kinova_description/robots/kinova.urdf",
    "urdf/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf",
    "urdf/example-robot-data/robots/anymal_b_simple_description/robots/anymal.urdf",
]

#: Mesh files on disk that trimesh reads as empty, with why (robodesc lists them as InvalidValue).
UNREADABLE = {
    # its <effect> samples a <surface> the file never declares: trimesh drops the whole node
    "anymal_foot.dae": "broken COLLADA texture reference",
}

#: Geometry kinds robodesc has no mesh for: left out with a reason naming what the file wrote.
UNDRAWABLE = ("polyline", "image", "empty")


@pytest.fixture(scope="module")
def corpus() -> Path:
    if not CORPUS or not Path(CORPUS).is_dir():
        pytest.skip("needs ROBODESC_CORPUS")
    return Path(CORPUS)


def sweep(path: Path) -> Counter:
    """Check one file's visual scene; returns the geometry kinds it has."""
    model = robodesc.load(path)
    scene = model.scene(skip_missing=True)
    meta = scene.metadata["robodesc"]
    drawn = Counter((where["body"], where["index"]) for where in meta["nodes"].values())
    left_out = {(s["body"], s["index"]): s for s in meta["skipped"]}
    kinds: Counter = Counter()
    for body in model.bodies.values():
        for index, shape in enumerate(body.visuals):
            kinds[type(shape.geometry).__name__] += 1
            key = (body.name, index)
            assert (key in drawn) != (key in left_out), f"{path}: {key} drawn {drawn.get(key)} and left out"
            if key in drawn:
                continue
            skipped, geometry = left_out[key], shape.geometry
            file = getattr(geometry, "path", None)
            if skipped["code"] == errors.UnsupportedGeometry.code:
                assert any(f"sdf {kind} geometry" in skipped["reason"] for kind in UNDRAWABLE), skipped
            elif file is not None and os.path.basename(file) in UNREADABLE:
                assert skipped["code"] == errors.InvalidValue.code, skipped
            else:  # the only other reason to leave a shape out: its file is not on disk
                assert skipped["code"] == errors.ResourceNotFound.code, skipped
                assert file is None or not os.path.exists(file), skipped
    for name in meta["nodes"]:
        assert scene.graph[name][1] == name
    return kinds


def test_every_visual_shape_of_the_sample_has_a_node(corpus):
    kinds: Counter = Counter()
    for relative in SAMPLE:
        path = corpus / relative
        if path.is_file():
            kinds += sweep(path)
    if not kinds:
        pytest.skip("none of the sampled corpus files is present")
    if all((corpus / relative).is_file() for relative in SAMPLE):
        for kind in ("Mesh", "Box", "Sphere", "Cylinder", "Capsule", "Ellipsoid", "Plane", "Cone", "Heightfield"):
            assert kinds[kind], f"the sample has no {kind}"


def test_a_urdf_with_dae_meshes_of_several_parts_draws_each_part_where_the_whole_mesh_is(corpus):
    import numpy as np
    import trimesh

    path = corpus / "urdf/example-robot-data/robots/panda_description/urdf/panda.urdf"
    if not path.is_file():
        pytest.skip("needs example-robot-data's Panda")
    model = robodesc.load(path)
    scene = model.scene()
    nodes = scene.metadata["robodesc"]["nodes"]
    parts = [name for name, where in nodes.items() if "part" in where]
    assert parts and not scene.metadata["robodesc"]["skipped"]
    by_shape: dict[tuple[str, int], list[str]] = {}
    for name in parts:
        by_shape.setdefault((nodes[name]["body"], nodes[name]["index"]), []).append(name)
    assert any(len(names) > 1 for names in by_shape.values())  # several parts per shape
    for (body, index), names in by_shape.items():  # together, the parts are the whole mesh
        shape = model.bodies[body].visuals[index]
        whole = trimesh.transform_points(shape.geometry.load().vertices, model.pose(body) @ shape.pose)
        ours = np.concatenate([trimesh.transform_points(scene.geometry[n].vertices, scene.graph[n][0]) for n in names])
        np.testing.assert_allclose([ours.min(0), ours.max(0)], [whole.min(0), whole.max(0)], atol=1e-9)
