"""What the URDF reader's per-load caches and folded checks must not change (issue 14).

The reader reads each origin text once (`_pose`), each mesh (filename, scale) once (`_mesh`), poses
bodies once (`_build_tree`) and bounds every world position while it reads origins instead of
composing poses again (`check_finite_poses` runs only when the bound could overflow). These tests
pin what a caller sees: arrays never shared between records, the same resolution and diagnostics for
every mesh element, and the same error for poses that overflow."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import robodesc
from robodesc import InvalidValue
from robodesc.core.transforms import rpy_to_matrix


def _robot(body: str) -> str:
    return f'<robot name="r">{body}</robot>'


def test_meshes_of_one_file_share_no_arrays_and_are_each_reported(tmp_path: Path) -> None:
    (tmp_path / "m.stl").write_bytes(b"solid m\nendsolid m\n")
    mesh = '<mesh filename="m.stl"{}/>'
    link = '<link name="{}"><visual><geometry>{}</geometry></visual><collision><geometry>{}</geometry></collision>'
    link += "</link>"
    text = _robot(
        link.format("a", mesh.format(""), mesh.format(' scale="2 2 2"'))
        + link.format("b", mesh.format(""), '<mesh filename="missing.stl"/>')
        + link.format("c", '<mesh filename="missing.stl"/>', mesh.format(' scale="2 2 2"'))
        + '<joint name="j1" type="fixed"><parent link="a"/><child link="b"/></joint>'
        + '<joint name="j2" type="fixed"><parent link="a"/><child link="c"/></joint>'
    )
    model = robodesc.loads(text, format="urdf", base_dir=tmp_path)
    meshes = [shape.geometry for body in model.bodies.values() for shape in body.visuals + body.collisions]
    assert [m.path is not None for m in meshes] == [True, True, True, False, False, True]
    assert [m.scale.tolist() for m in meshes] == [[1.0] * 3, [2.0] * 3, [1.0] * 3, [1.0] * 3, [1.0] * 3, [2.0] * 3]
    assert all(m.scale.flags.writeable for m in meshes)
    assert len({id(m.scale) for m in meshes}) == len(meshes)
    assert len({id(m.tried) for m in meshes}) == len(meshes)
    meshes[0].scale[0] = 5.0  # a caller changing one mesh changes no other
    assert meshes[2].scale[0] == 1.0
    missing = [d for d in model.diagnostics if d.code == "mesh-not-found"]
    assert [d.location.element for d in missing] == [
        "/robot[@name='r']/link[@name='b']/collision/geometry/mesh",
        "/robot[@name='r']/link[@name='c']/visual/geometry/mesh",
    ]


def test_bodies_are_posed_by_their_joint_and_the_root_by_its_own_identity() -> None:
    text = _robot(
        '<link name="a"/><link name="b"/>'
        '<joint name="j" type="fixed"><parent link="a"/><child link="b"/><origin xyz="1 2 3"/></joint>'
    )
    model = robodesc.loads(text, format="urdf")
    root, child = model.bodies["a"], model.bodies["b"]
    assert np.array_equal(root.pose, np.eye(4)) and root.pose.flags.writeable
    assert child.pose is model.joints["j"].origin
    root.pose[0, 3] = 1.0  # the root's pose is its own, not a shared identity
    assert robodesc.loads(text, format="urdf").bodies["a"].pose[0, 3] == 0.0


@pytest.mark.parametrize(
    ("offsets", "fails"),
    [
        (("1e308 0 0", "1e308 0 0"), True),  # two finite offsets whose sum overflows
        (("1e308 0 0", "-1e308 0 0"), False),  # they cancel: no pose overflows
        (("4e307 0 0", "4e307 0 0"), False),  # within the bound's margin: no check needed
        (("1.7e308 0 0", "0 0 0"), False),  # past the margin, yet every pose is finite
    ],
)
def test_poses_that_overflow_are_refused_as_before(offsets: tuple[str, str], fails: bool) -> None:
    first, second = offsets
    text = _robot(
        '<link name="a"/><link name="b"/><link name="c"/>'
        f'<joint name="j1" type="fixed"><parent link="a"/><child link="b"/><origin xyz="{first}"/></joint>'
        f'<joint name="j2" type="fixed"><parent link="b"/><child link="c"/><origin xyz="{second}"/></joint>'
    )
    if not fails:
        assert np.isfinite(robodesc.loads(text, format="urdf").forward_kinematics()["c"]).all()
        return
    with pytest.raises(InvalidValue, match="world pose of body 'c'") as error:
        robodesc.loads(text, format="urdf")
    assert error.value.location.element == "/robot[@name='r']/joint[@name='j2']"


_JOINT = '<link name="a"/><link name="b"/><joint name="j" type="{}"><parent link="a"/><child link="b"/>{}</joint>'


@pytest.mark.parametrize(
    ("kind", "children", "limits", "dynamics"),
    [
        ("revolute", '<limit effort="2" velocity="3"/><dynamics friction="0.5"/>', (0.0, 0.0, 3.0, 2.0), (0.0, 0.5)),
        ("revolute", '<limit lower="-1" upper="1" effort="2" velocity="3"/>', (-1.0, 1.0, 3.0, 2.0), (0.0, 0.0)),
        ("continuous", '<dynamics damping="0.25"/><limit effort="2" velocity="3"/>', (None, None, 3, 2), (0.25, 0)),
        ("fixed", '<dynamics damping="1e308" friction="1e308"/>', (None, None, None, None), (1e308, 1e308)),
    ],
)
def test_limit_and_dynamics_numbers_read_in_one_pass_keep_their_defaults(
    kind: str, children: str, limits: tuple, dynamics: tuple
) -> None:
    joint = robodesc.loads(_robot(_JOINT.format(kind, children)), format="urdf").joints["j"]
    assert (joint.limits.lower, joint.limits.upper, joint.limits.velocity, joint.limits.effort) == limits
    assert (joint.dynamics.damping, joint.dynamics.friction) == dynamics


@pytest.mark.parametrize(
    ("children", "construct"),
    [
        ('<limit lower="x" effort="1" velocity="1"/><dynamics damping="y"/>', "limit/@lower"),
        ('<limit effort="1"/><dynamics damping="y"/>', "limit/@velocity"),
        ('<limit effort="1" velocity="1"/><dynamics damping="1_0"/>', "dynamics/@damping"),
        ('<limit effort="1" velocity="1"/><dynamics/>', "dynamics"),
    ],
)
def test_a_fault_in_limit_or_dynamics_is_reported_as_before(children: str, construct: str) -> None:
    with pytest.raises(robodesc.RobodescError) as caught:
        robodesc.loads(_robot(_JOINT.format("revolute", children)), format="urdf")
    assert caught.value.construct == construct


def test_inertials_made_together_are_each_their_own() -> None:
    """Every inertial's arrays are made in one batch per load: each is C-ordered, overlaps no other
    inertial's, and a tensor given in a turned <origin> frame is turned, as one made alone."""
    inertial = '<inertial><origin xyz="{0} 0 0" rpy="{1}"/><mass value="{0}"/>'
    inertial += '<inertia ixx="1" ixy="0.1" ixz="0.2" iyy="2" iyz="0.3" izz="3"/></inertial>'
    links = "".join(
        f'<link name="l{n}">{inertial.format(n + 1, "0 0 1" if n == 1 else "0 0 0")}</link>' for n in range(3)
    )
    joints = "".join(
        f'<joint name="j{n}" type="fixed"><parent link="l{n}"/><child link="l{n + 1}"/></joint>' for n in range(2)
    )
    model = robodesc.loads(_robot(links + joints), format="urdf")
    inertials = [model.bodies[f"l{n}"].inertial for n in range(3)]
    arrays = [array for i in inertials for array in (i.com, i.inertia)]
    assert all(a.flags.c_contiguous and a.flags.writeable for a in arrays)
    assert not any(np.shares_memory(a, b) for n, a in enumerate(arrays) for b in arrays[n + 1 :])
    assert [i.mass for i in inertials] == [1.0, 2.0, 3.0] and [i.com[0] for i in inertials] == [1.0, 2.0, 3.0]
    tensor = np.array([[1.0, 0.1, 0.2], [0.1, 2.0, 0.3], [0.2, 0.3, 3.0]])
    rotation = rpy_to_matrix(0.0, 0.0, 1.0)
    assert inertials[0].inertia.tobytes() == tensor.tobytes()
    assert inertials[1].inertia.tobytes() == (rotation @ tensor @ rotation.T).tobytes()
    inertials[0].inertia[0, 0] = 9.0
    inertials[0].com[1] = 9.0
    assert inertials[2].inertia[0, 0] == 1.0 and inertials[2].com[1] == 0.0
