"""``<flexcomp>`` against MuJoCo: the bodies it generates (names, order, parents, masses, inertias,
joints, limits from the class in force) and where they are at qpos0 and at a random keyframe, for
every type and dof; and MuJoCo's refusals with its messages."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from test_mjcf_keyframes import compare_keyframes

import robodesc
from robodesc.core.errors import InvalidValue, MissingAttribute, RobodescError

mujoco = pytest.importorskip("mujoco")

OBJ_TETRAHEDRON = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 5 5 5\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"


#: Two tetrahedra sharing a face, and a node no element uses, as GMSH 4.1 writes them (ASCII).
GMSH_TETRAHEDRA = """$MeshFormat
4.1 0 8
$EndMeshFormat
$Nodes
1 6 1 6
3 1 0 6
1
2
3
4
5
6
0 0 0
1 0 0
0 1 0
0 0 1
1 1 1
7 7 7
$EndNodes
$Elements
1 2 1 2
3 1 4 2
1 1 2 3 4
2 2 3 4 5
$EndElements
"""


@pytest.fixture(autouse=True)
def _tetrahedron(tmp_path: Path) -> None:
    """The mesh files the models of this module use."""
    (tmp_path / "tetra.obj").write_text(OBJ_TETRAHEDRON)
    (tmp_path / "tetra.msh").write_text(GMSH_TETRAHEDRA)


def _model(body: str, defaults: str = "", compiler: str = "") -> str:
    return f"""<mujoco>
  <compiler {compiler}/>
  <default>{defaults}</default>
  <asset><mesh name="tetra" file="tetra.obj"/></asset>
  <worldbody>
    <body name="before" pos="0 0 -1"><joint type="hinge"/><geom size="0.1"/></body>
    <body name="b" pos="0.1 0.2 1" euler="10 20 30">
      <geom size="0.1"/>
      {body}
      <body name="after" pos="0 0 0.3"><joint type="hinge" axis="1 0 0"/><geom size="0.05"/></body>
    </body>
  </worldbody>
</mujoco>"""


def _with_random_keyframe(path: Path, seed: int) -> None:
    """Add a keyframe of random joint values (unit quaternions for balls and free joints)."""
    reference = mujoco.MjModel.from_xml_path(str(path))
    rng = np.random.default_rng(seed)
    qpos = rng.uniform(-0.5, 0.5, reference.nq)
    text = path.read_text().replace(
        "</mujoco>", f'<keyframe><key name="random" qpos="{" ".join(f"{q:.17g}" for q in qpos)}"/></keyframe></mujoco>'
    )
    path.write_text(text)


def compare(tmp_path: Path, xml: str, seed: int = 0, atol: float = 1e-12) -> robodesc.Model:
    """robodesc against MuJoCo on `xml`: body names in order, parents, masses, inertias, joints per
    body and their limits, and every body's world pose at qpos0 and at a random keyframe (within
    `atol`)."""
    path = tmp_path / "model.xml"
    path.write_text(xml)
    _with_random_keyframe(path, seed)
    reference = mujoco.MjModel.from_xml_path(str(path))
    model = robodesc.load(path)
    names = [reference.body(i).name for i in range(reference.nbody)]
    assert list(model.bodies) == names
    for index, name in enumerate(names[1:], start=1):
        body = model.bodies[name]
        assert body.parent == names[reference.body_parentid[index]], name
        assert len(body.joints) == reference.body_jntnum[index], name
        if reference.body_mass[index] > 0:
            assert body.inertial is not None
            assert math.isclose(body.inertial.mass, reference.body_mass[index], rel_tol=1e-12), name
            moments = np.sort(np.linalg.eigvalsh(body.inertial.inertia))
            np.testing.assert_allclose(moments, np.sort(reference.body_inertia[index]), rtol=1e-9, err_msg=name)
    joints = list(model.joints.values())
    assert len(joints) == reference.njnt
    for index, joint in enumerate(joints):
        expected = tuple(reference.jnt_range[index]) if reference.jnt_limited[index] else None
        limits = (joint.limits.lower, joint.limits.upper) if joint.limits.lower is not None else None
        assert limits == expected, joint.name
    assert compare_keyframes(path, atol=max(atol, 1e-9)) == 1
    poses = model.forward_kinematics({})
    data = mujoco.MjData(reference)
    mujoco.mj_kinematics(reference, data)
    for index, name in enumerate(names[1:], start=1):
        np.testing.assert_allclose(poses[name][:3, 3], data.xpos[index], atol=atol, err_msg=name)
    return model


#: A unit cube as six tetrahedra, as MuJoCo splits a grid cell; and a shell <elasticity>.
CUBE_POINTS = " ".join(f"{i} {j} {k}" for i in (0, 1) for j in (0, 1) for k in (0, 1))
CUBE_TETRAHEDRA = "0 3 1 7 0 1 4 7 1 3 2 7 1 2 6 7 1 5 4 7 1 6 5 7"
SHELL = '<elasticity young="1e4" elastic2d="bend" thickness=".01"/>'


def _l_shape() -> str:
    """point and element attributes of three unit cubes of a 2 x 2 x 1 block (the fourth left out)."""
    points = " ".join(f"{x} {y} {z}" for x in range(3) for y in range(3) for z in range(2))
    split = [int(i) for i in CUBE_TETRAHEDRA.split()]  # point 4x + 2y + z of the cube is (x, y, z)
    cubes = ((0, 0), (1, 0), (0, 1))
    elements = [6 * (x + i // 4) + 2 * (y + i // 2 % 2) + i % 2 for x, y in cubes for i in split]
    return f'point="{points}" element="{" ".join(map(str, elements))}"'


def _beam(cubes: int, skip: int = 0) -> str:
    """point and element attributes of a row of unit cubes along x, six tetrahedra each (less the
    first `skip` of them)."""
    points = " ".join(f"{x} {y} {z}" for x in range(cubes + 1) for y in (0, 1) for z in (0, 1))
    split = [int(i) for i in CUBE_TETRAHEDRA.split()]
    elements = [4 * x + i for x in range(cubes) for i in split]  # point 4x + 2y + z is (x, y, z)
    return f'point="{points}" element="{" ".join(map(str, elements[4 * skip :]))}"'


CASES = {
    "grid 1D": '<flexcomp name="F" type="grid" count="5 1 1" spacing=".1 .1 .1" dim="1" pos="0 0 .2"/>',
    "grid 2D posed and pinned": (
        '<flexcomp name="F" type="grid" count="4 3 1" spacing=".1 .05 .1" dim="2" pos="0 .1 .5" euler="0 30 45" '
        'mass="2" inertiabox=".01"><pin id="0 2"/><pin range="5 6"/></flexcomp>'
    ),
    "grid 2D pin grid": (
        '<flexcomp name="F" type="grid" count="4 4 1" spacing=".1 .1 .1" dim="2">'
        '<pin grid="0 0 3 3"/><pin gridrange="1 0 2 1"/></flexcomp>'
    ),
    "grid 3D": '<flexcomp name="F" type="grid" count="3 2 2" spacing=".1 .1 .1" dim="3" quat="0 1 0 0"/>',
    "grid 3D pin grid": (
        '<flexcomp name="F" type="grid" count="3 3 3" spacing=".1 .1 .1" dim="3">'
        '<pin gridrange="0 0 0 2 2 0"/></flexcomp>'
    ),
    "circle": '<flexcomp name="F" type="circle" count="7 1 1" spacing=".1 .1 .1" dim="1"/>',
    "box solid": '<flexcomp name="F" type="box" count="3 4 3" spacing=".1 .1 .1" dim="3"/>',
    "box open": '<flexcomp name="F" type="box" count="3 3 4" spacing=".1 .1 .1" dim="2"/>',
    "cylinder": '<flexcomp name="F" type="cylinder" count="4 4 3" spacing=".1 .1 .1" dim="3"/>',
    "cylinder open": '<flexcomp name="F" type="cylinder" count="4 5 3" spacing=".1 .1 .1" dim="2"/>',
    "ellipsoid radial": '<flexcomp name="F" type="ellipsoid" count="4 4 4" spacing=".1 .1 .1" dim="3" dof="radial"/>',
    "ellipsoid open": '<flexcomp name="F" type="ellipsoid" count="3 3 3" spacing=".1 .1 .1" dim="2"/>',
    "square": '<flexcomp name="F" type="square" count="4 3 1" spacing=".1 .1 .1" dim="1"/>',
    "disc": '<flexcomp name="F" type="disc" count="5 5 1" spacing=".1 .1 .1"/>',
    "dof 2d": '<flexcomp name="F" type="grid" count="3 3 1" spacing=".1 .1 .1" dim="2" dof="2d"/>',
    "trilinear": '<flexcomp name="F" type="grid" count="4 3 3" spacing=".1 .1 .1" dim="3" dof="trilinear" mass="3"/>',
    "quadratic": '<flexcomp name="F" type="box" count="3 3 3" spacing=".1 .2 .1" dim="3" dof="quadratic" mass="3"/>',
    "trilinear pinned": (
        '<flexcomp name="F" type="grid" count="3 3 3" spacing=".1 .1 .1" dim="3" dof="trilinear">'
        '<pin id="0 3"/></flexcomp>'
    ),
    "quadratic elastic": (
        '<flexcomp name="F" type="grid" count="3 3 3" spacing=".1 .1 .1" dim="3" dof="quadratic">'
        '<elasticity young="1e4" elastic2d="none"/></flexcomp>'
    ),
    "quadratic shell": (
        '<flexcomp name="F" type="grid" count="3 3 3" spacing=".1 .1 .1" dim="3" dof="quadratic">'
        '<elasticity young="1e4" elastic2d="bend" thickness=".01"/></flexcomp>'
    ),
    "rigid": '<flexcomp name="F" type="grid" count="3 3 1" spacing=".1 .1 .1" rigid="true"/>',
    "all pinned": '<flexcomp name="F" type="grid" count="2 2 1" spacing=".1 .1 .1"><pin range="0 3"/></flexcomp>',
    "direct drops unused points": (
        '<flexcomp name="F" type="direct" point="0 0 0 1 0 0 3 3 3 0 1 0" element="0 1 3" scale="2 1 1" pos="0 0 1"/>'
    ),
    "mesh 2D": '<flexcomp name="F" type="mesh" file="tetra.obj" dim="2" scale="2 2 2" pos="1 0 0"/>',
    "mesh 3D": '<flexcomp name="F" type="mesh" file="tetra.obj" dim="3" origin=".2 .2 .2"/>',
    "mesh asset, type implied": '<flexcomp name="F" mesh="tetra" dim="2" spacing=".1 .1 .1"/>',
    "gmsh": '<flexcomp name="F" type="gmsh" file="tetra.msh" pos="0 0 .5" scale="2 1 1"/>',
    "gmsh trilinear": '<flexcomp name="F" type="gmsh" file="tetra.msh" dim="3" dof="trilinear" mass="2"/>',
    "direct cube filling its cell, quadratic": (
        f'<flexcomp name="F" type="direct" point="{CUBE_POINTS}" element="{CUBE_TETRAHEDRA}" dim="3" '
        'dof="quadratic" scale="1 2 3" pos="1 2 3" mass="2"/>'
    ),
    "direct cube, a tetrahedron twice, trilinear": (
        f'<flexcomp name="F" type="direct" point="{CUBE_POINTS}" element="{CUBE_TETRAHEDRA} 0 3 1 7" dim="3" '
        'dof="trilinear" cellcount="1 1 1"/>'
    ),
    "direct beam filling its cells, trilinear, clipped": (
        f'<flexcomp name="F" type="direct" {_beam(2)} dim="3" dof="trilinear" cellcount="3 2 1" scale="1 .5 2"/>'
    ),
    "direct beam filling its cells, quadratic": (
        f'<flexcomp name="F" type="direct" {_beam(2)} dim="3" dof="quadratic" cellcount="2 1 1" pos=".1 .2 .3"/>'
    ),
    "direct L, trilinear: an empty cell's nodes pinned": (
        f'<flexcomp name="F" type="direct" {_l_shape()} dim="3" dof="trilinear" cellcount="2 2 1" mass="3"/>'
    ),
    "direct L, quadratic: an empty cell's nodes pinned": (
        f'<flexcomp name="F" type="direct" {_l_shape()} dim="3" dof="quadratic" cellcount="2 2 1" euler="0 0 90"/>'
    ),
    "direct shell, trilinear, cells": (
        '<flexcomp name="F" type="direct" point="0 0 0 1 0 0 0 1 0 0 0 1" element="0 1 2 3" dim="3" '
        f'dof="trilinear" cellcount="2 2 1">{SHELL}</flexcomp>'
    ),
    "direct shell, quadratic, cells": (
        '<flexcomp name="F" type="direct" point="0 0 0 1 0 0 0 1 0 0 0 1" element="0 2 1 3" dim="3" '
        f'dof="quadratic" cellcount="2 2 1">{SHELL}</flexcomp>'
    ),
    "mesh 2D shell, quadratic": (
        f'<flexcomp name="F" type="mesh" file="tetra.obj" dim="2" dof="quadratic">{SHELL}</flexcomp>'
    ),
    "mesh 1D": '<flexcomp name="F" type="mesh" file="tetra.obj" dim="1"/>',
    "in a frame": (
        '<frame pos="1 0 0" euler="0 0 90">'
        '<flexcomp name="F" type="grid" count="3 1 1" spacing=".1 .1 .1" dim="1"/></frame>'
    ),
    "in replicated bodies": (
        '<replicate count="2" offset="0 0 .5"><body name="q"><flexcomp name="F" type="grid" count="3 1 1" '
        'spacing=".1 .1 .1" dim="1"/><flexcomp name="G" type="grid" count="2 2 2" spacing=".1 .1 .1" dim="3" '
        'dof="trilinear"/></body></replicate>'
    ),
    "two flexcomps": (
        '<flexcomp name="F" type="grid" count="2 1 1" spacing=".1 .1 .1" dim="1"/>'
        '<flexcomp name="G" type="grid" count="2 2 1" spacing=".1 .1 .1" dim="2" pos="0 0 1"/>'
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_flexcomp_bodies_match_mujoco(tmp_path: Path, case: str) -> None:
    # MuJoCo keeps a mesh asset's vertices in single precision: its flex points are off by up to 1e-8
    compare(tmp_path, _model(CASES[case]), seed=len(case), atol=1e-7 if 'mesh="' in CASES[case] else 1e-12)


def test_generated_joints_take_the_class_in_force(tmp_path: Path) -> None:
    """MuJoCo gives the vertex slides the joint defaults of the childclass in force: a class range
    makes them limited (autolimits), its armature is theirs."""
    flexcomp = '<flexcomp name="F" type="grid" count="3 1 1" spacing=".1 .1 .1" dim="1"/>'
    body = f'<body name="c" childclass="soft">{flexcomp}</body>'
    defaults = '<joint armature="0.1"/><default class="soft"><joint range="-0.2 0.3" armature="0.2"/></default>'
    model = compare(tmp_path, _model(body, defaults))
    slides = [j for j in model.joints.values() if j.child.startswith("F_")]
    assert len(slides) == 9
    assert all((j.limits.lower, j.limits.upper) == (-0.2, 0.3) for j in slides)
    assert {j.dynamics.armature for j in slides} == {0.2}


@pytest.mark.parametrize(
    "layout",
    [
        '<body name="c" childclass="k"><frame childclass="m">{}</frame></body>',
        '<body name="c"><frame childclass="m"><frame>{}</frame></frame></body>',
        '<frame childclass="m"><body name="c">{}</body></frame>',
        '<body name="a" childclass="k"><frame childclass="m"><body name="c"><frame>{}</frame></body></frame></body>',
    ],
)
def test_generated_joints_take_the_class_of_the_body(tmp_path: Path, layout: str) -> None:
    """MuJoCo gives the generated joints the class in force at the flexcomp's body: a <frame>'s
    childclass between the body and the flexcomp does not count, one above the body does."""
    flexcomp = '<flexcomp name="F" type="grid" count="3 1 1" spacing=".1 .1 .1" dim="1"/>'
    defaults = (
        '<joint armature="0.1"/><default class="k"><joint armature="0.2"/></default>'
        '<default class="m"><joint armature="0.3"/></default>'
    )
    path = tmp_path / "model.xml"
    path.write_text(_model(layout.format(flexcomp), defaults))
    reference = mujoco.MjModel.from_xml_path(str(path))
    expected = {
        reference.dof_armature[reference.jnt_dofadr[j]]
        for j in range(reference.njnt)
        if reference.jnt_bodyid[j] > 0 and reference.body(reference.jnt_bodyid[j]).name.startswith("F_")
    }
    model = compare(tmp_path, _model(layout.format(flexcomp), defaults))
    assert {j.dynamics.armature for j in model.joints.values() if j.child.startswith("F_")} == expected


def test_a_flex_pinned_to_a_moving_body(tmp_path: Path) -> None:
    """A cloth pinned to a jointed body moves with it; keyframes place both as MuJoCo does."""
    body = (
        '<body name="hand" pos="0 0 0.2"><joint name="lift" type="slide"/><geom size="0.1"/>'
        f"{CASES['grid 2D posed and pinned']}</body>"
    )
    compare(tmp_path, _model(body), seed=7)


@pytest.mark.parametrize("where", ["own body", "body above"])
def test_a_moving_body_must_hold_its_flex(tmp_path: Path, where: str) -> None:
    """MuJoCo refuses a flex with nothing pinned to its body when a joint moves that body, naming the
    nearest jointed body; robodesc too, at the <flexcomp>."""
    flexcomp = '<flexcomp name="F" count="3 3 1" spacing=".1 .1 .1"/>'
    inner = f'<body name="c">{flexcomp}</body>' if where == "body above" else flexcomp
    body = f'<body name="hand"><joint name="lift" type="slide"/><geom size="0.1"/>{inner}</body>'
    path = tmp_path / "model.xml"
    path.write_text(_model(body))
    line = next(i for i, text in enumerate(_model(body).splitlines(), start=1) if "<flexcomp" in text)
    with pytest.raises(ValueError, match="body 'hand' has joints but no flex vertices/nodes are pinned to it"):
        mujoco.MjModel.from_xml_path(str(path))
    with pytest.raises(
        InvalidValue, match="body 'hand' has joints but no flex vertices/nodes are pinned to it"
    ) as error:
        robodesc.load(path)
    assert error.value.location.line == line


def test_flexcomp_is_kept_as_written(tmp_path: Path) -> None:
    path = tmp_path / "model.xml"
    path.write_text(
        _model(
            '<flexcomp name="F" type="grid" count="2 1 1" spacing=".1 .1 .1" dim="1"><edge stiffness="1"/></flexcomp>'
        )
    )
    model = robodesc.load(path)
    kept = [extra for extra in model.extras if extra.tag == "flexcomp"] + [
        extra for body in model.bodies.values() for extra in body.extras.get("kept", []) if extra.tag == "flexcomp"
    ]
    assert kept or any("flexcomp" in str(value) for body in model.bodies.values() for value in body.extras.values())
    assert not [d for d in model.diagnostics if "flexcomp" in d.message]


REFUSED = {
    "no name": (
        '<flexcomp type="grid" count="2 1 1" dim="1"/>',
        MissingAttribute,
        "required attribute missing: 'name'",
    ),
    "count": ('<flexcomp name="F" count="0 1 1" dim="1"/>', InvalidValue, "Count too small"),
    "dim": ('<flexcomp name="F" count="2 1 1" dim="4"/>', InvalidValue, "Invalid dim, must be between 1 and 3"),
    "spacing": (
        '<flexcomp name="F" count="3 3 1" spacing=".1 .1 .1" radius=".06"/>',
        InvalidValue,
        "Spacing must be larger",
    ),
    "mass": ('<flexcomp name="F" count="3 3 1" spacing=".1 .1 .1" mass="0"/>', InvalidValue, "Mass and inertiabox"),
    "grid without elements": (
        '<flexcomp name="F" count="3 1 1" spacing=".1 .1 .1"/>',
        InvalidValue,
        "No elements were created in grid",
    ),
    "box without elements": (
        '<flexcomp name="F" type="box" count="3 3 1" spacing=".1 .1 .1"/>',
        InvalidValue,
        "No elements were created in box",
    ),
    "element ids": (
        '<flexcomp name="F" count="3 3 2" spacing=".1 .1 .1"/>',
        InvalidValue,
        "element 8 has point id 10, number of points is 9",
    ),
    "pin id": (
        '<flexcomp name="F" count="3 3 1" spacing=".1 .1 .1"><pin id="9"/></flexcomp>',
        InvalidValue,
        "pinid out of range",
    ),
    "pin range": (
        '<flexcomp name="F" count="3 3 1" spacing=".1 .1 .1"><pin range="1"/></flexcomp>',
        InvalidValue,
        "Pin range number must be multiple of 2",
    ),
    "pin grid on a box": (
        '<flexcomp name="F" type="box" count="3 3 3" spacing=".1 .1 .1"><pin grid="0 0"/></flexcomp>',
        InvalidValue,
        "Pin grid(range) can only be used",
    ),
    "radial centre": (
        '<flexcomp name="F" count="3 3 1" spacing=".1 .1 .1" dof="radial"/>',
        InvalidValue,
        "axis too small in joint",
    ),
    "mesh origin": (
        '<flexcomp name="F" type="mesh" file="tetra.obj" dim="3"/>',
        InvalidValue,
        "origin must be specified",
    ),
    "mesh asset on a grid": (
        '<flexcomp name="F" type="grid" mesh="m" count="3 3 1" spacing=".1 .1 .1"/>',
        InvalidValue,
        "mesh asset can only be used",
    ),
    "direct without elements": (
        '<flexcomp name="F" type="direct" point="0 0 0 1 0 0"/>',
        InvalidValue,
        "Point and element required",
    ),
    "edge stiffness in 2D": (
        '<flexcomp name="F" count="3 3 1" spacing=".1 .1 .1"><edge stiffness="1"/></flexcomp>',
        InvalidValue,
        "edge stiffness only available for dim=1, please use <elasticity>",
    ),
    "shell without thickness": (
        '<flexcomp name="F" count="3 3 1" spacing=".1 .1 .1"><elasticity young="1e4" elastic2d="bend"/></flexcomp>',
        InvalidValue,
        "2d elasticity requires positive thickness",
    ),
    "shell of a cable": (
        '<flexcomp name="F" count="3 1 1" dim="1" spacing=".1 .1 .1">'
        '<elasticity young="1e4" elastic2d="bend" thickness=".1"/></flexcomp>',
        InvalidValue,
        "2d elasticity requires 2d flex",
    ),
    "gmsh dim": (
        '<flexcomp name="F" type="gmsh" file="tetra.msh" dim="2"/>',
        InvalidValue,
        "flexcomp dim does not match GMSH mesh dimensionality",
    ),
    "too few points": (
        '<flexcomp name="F" type="direct" point="0 0 0 1 0 0 0 1 0" element="0 1 1"/>',
        InvalidValue,
        "not enough vertices",
    ),
    "repeated vertex": (
        '<flexcomp name="F" type="direct" point="0 0 0 1 0 0 0 1 0" element="0 1 2 0 1 1" rigid="true"/>',
        InvalidValue,
        "repeated vertex in element",
    ),
    "box section, dof": (
        '<flexcomp name="F" count="4 1 1" dim="1" spacing=".1 .1 .1" dof="radial">'
        '<elasticity section="box" sectionsize=".01 .02" young="1"/></flexcomp>',
        InvalidValue,
        "1D flexcomp elasticity with box section requires dof='full' so per-edge twist joints can be created",
    ),
    "box section, sectionsize": (
        '<flexcomp name="F" count="4 1 1" dim="1" spacing=".1 .1 .1"><elasticity section="box" young="1"/></flexcomp>',
        InvalidValue,
        "1D flex elasticity with box section requires positive sectionsize",
    ),
    "box section, one edge": (
        '<flexcomp name="F" count="2 1 1" dim="1" spacing=".1 .1 .1">'
        '<elasticity section="box" sectionsize=".01 .02" young="1"/></flexcomp>',
        InvalidValue,
        "1D flex elasticity with box section requires an open chain",
    ),
    "box section, branching": (
        '<flexcomp name="F" type="direct" point="0 0 0 1 0 0 2 0 0 3 0 0" element="0 1 1 2 1 3" dim="1">'
        '<elasticity section="box" sectionsize=".01 .02" young="1"/></flexcomp>',
        InvalidValue,
        "1D flex elasticity with box section requires an open chain",
    ),
    "in a replicate": (
        '<replicate count="2" offset="0 0 1"><frame><flexcomp name="F" count="3 1 1" dim="1" spacing=".1 .1 .1"/>'
        "</frame></replicate>",
        InvalidValue,
        "Parent body must have name",
    ),
    "damping from the class": (
        '<flexcomp name="F" count="2 1 1" spacing=".1 .1 .1" dim="1"/>',
        InvalidValue,
        "cannot have joint damping",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_mujoco_refusals(tmp_path: Path, case: str) -> None:
    """What MuJoCo refuses, robodesc refuses with MuJoCo's message, at the <flexcomp>'s line."""
    inner, kind, message = REFUSED[case]
    defaults = '<joint damping="1"/>' if case == "damping from the class" else ""
    xml = _model(inner, defaults).replace('name="tetra"', 'name="m"')
    path = tmp_path / "model.xml"
    path.write_text(xml)
    with pytest.raises(ValueError, match=None) as reference_error:
        mujoco.MjModel.from_xml_path(str(path))
    assert message.split("(")[0].strip() in str(reference_error.value)
    with pytest.raises(kind) as error:
        robodesc.load(path)
    assert message in str(error.value)
    assert isinstance(error.value, RobodescError)
    line = next(i for i, text in enumerate(xml.splitlines(), start=1) if "<flexcomp" in text)
    assert error.value.location.line == line


def test_parent_body_must_have_a_name(tmp_path: Path) -> None:
    path = tmp_path / "model.xml"
    path.write_text(
        '<mujoco><worldbody><body><flexcomp name="F" count="2 1 1" spacing=".1 .1 .1" dim="1"/></body></worldbody>'
        "</mujoco>"
    )
    with pytest.raises(ValueError, match="Parent body must have name"):
        mujoco.MjModel.from_xml_path(str(path))
    with pytest.raises(InvalidValue, match="Parent body must have name"):
        robodesc.load(path)


def _world_model(inner: str, defaults: str = "") -> str:
    """`inner` written in <worldbody>, between two jointed bodies."""
    return f"""<mujoco>
  <default>{defaults}</default>
  <worldbody>
    <body name="before" pos="0 0 -1"><joint type="hinge"/><geom size="0.1"/></body>
    {inner}
    <body name="after" pos="0 1 0"><joint type="hinge" axis="1 0 0"/><geom size="0.05"/></body>
  </worldbody>
</mujoco>"""


#: Stiff cables in <worldbody>: MuJoCo adds a twist body with a hinge per edge after the vertex bodies.
TWIST_CASES = {
    "box section, pinned, posed": (
        '<flexcomp name="R" type="grid" count="4 1 1" spacing=".1 .1 .1" dim="1" pos="0 0 1" euler="0 0 30">'
        '<elasticity young="1e5" section="box" sectionsize=".01 .02"/><pin id="0"/></flexcomp>'
    ),
    "circle section in a frame": (
        '<frame pos="1 0 0" childclass="soft"><flexcomp name="R" type="grid" count="6 1 1" spacing=".1 .1 .1" '
        'dim="1" radius=".01" mass="2"><elasticity young="1e5"/></flexcomp></frame>'
    ),
    "direct chain out of order, unused point": (
        '<flexcomp name="R" type="direct" point="0 0 0 1 0 0 3 0 0 6 0 0 9 9 9" element="2 3 0 1 1 2" dim="1">'
        '<elasticity young="1"/></flexcomp>'
    ),
    "two edges": (
        '<flexcomp name="R" type="grid" count="3 1 1" spacing=".1 .1 .1" dim="1"><elasticity young="1"/></flexcomp>'
    ),
}


@pytest.mark.parametrize("case", sorted(TWIST_CASES))
def test_twist_bodies_match_mujoco(tmp_path: Path, case: str) -> None:
    """Names, world parent, order (after the vertex bodies, before the next body), mass 1e-9, polar
    inertia of an edge's share of the mass, and hinges taking the main class's defaults (not the
    childclass in force)."""
    defaults = '<joint armature=".1" range="-10 20"/><default class="soft"><joint armature=".3"/></default>'
    model = compare(tmp_path, _world_model(TWIST_CASES[case], defaults), seed=len(case))
    twists = [name for name in model.bodies if "_twist" in name]
    assert twists and all(model.bodies[name].parent == "world" for name in twists)
    assert {model.joints[name].dynamics.armature for name in twists} == {0.1}
    assert not [d for d in model.diagnostics if "twist" in d.message]


@pytest.mark.parametrize("inner", ["", "circle"])
def test_no_twist_bodies_without_an_open_stiff_chain(tmp_path: Path, inner: str) -> None:
    """A cable without young, and a closed ring, get no twist bodies in MuJoCo, nor in robodesc."""
    kind = 'type="circle" count="6 1 1"' if inner else 'type="grid" count="4 1 1"'
    young = ' young="1"' if inner else ""
    flexcomp = f'<flexcomp name="R" {kind} spacing=".1 .1 .1" dim="1"><elasticity{young}/></flexcomp>'
    model = compare(tmp_path, _world_model(flexcomp))
    assert not [name for name in model.bodies if "twist" in name]


def test_twist_bodies_of_an_attached_cable_are_noted(tmp_path: Path) -> None:
    """MuJoCo places the twist bodies of an attached file's cable by the attachment's frame (not by
    the frames around the flexcomp in that file); robodesc does not make them there, and says so."""
    (tmp_path / "sub.xml").write_text(
        '<mujoco><worldbody><flexcomp name="R" type="grid" count="4 1 1" spacing=".1 .1 .1" dim="1">'
        '<elasticity young="1"/></flexcomp></worldbody></mujoco>'
    )
    path = tmp_path / "model.xml"
    path.write_text(
        '<mujoco><asset><model name="sub" file="sub.xml"/></asset><worldbody>'
        '<frame pos="0 0 1"><attach model="sub" prefix="s-"/></frame></worldbody></mujoco>'
    )
    reference = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(reference)
    mujoco.mj_kinematics(reference, data)
    twist = mujoco.mj_name2id(reference, mujoco.mjtObj.mjOBJ_BODY, "s-R_twist")
    assert twist > 0 and data.xpos[twist][2] == 1.0
    model = robodesc.load(path)
    assert "s-R_twist" not in model.bodies
    assert [d for d in model.diagnostics if d.code == "not-modelled" and "s-R_twist_0 ... s-R_twist" in d.message]


@pytest.mark.parametrize("depth", [1, 2])
def test_twist_bodies_of_a_cable_in_a_body_follow_its_top_level_body(tmp_path: Path, depth: int) -> None:
    """Inside a body MuJoCo hangs the twist bodies from the world body when it reads the flexcomp:
    after the whole subtree of the top-level body the flexcomp is in, before the next top-level body."""
    cable = (
        '<flexcomp name="R" count="4 1 1" spacing=".1 .1 .1" dim="1">'
        '<elasticity section="box" sectionsize=".01 .02" young="1e5"/></flexcomp>'
    )
    inner = cable if depth == 1 else f'<body name="deeper" pos="0 0 .1"><geom size=".05"/>{cable}</body>'
    xml = _model(inner).replace("</worldbody>", '<body name="next"><joint/><geom size=".1"/></body></worldbody>')
    model = compare(tmp_path, xml, seed=depth)
    names = list(model.bodies)
    assert names.index("R_twist_0") > names.index("after") and names.index("R_twist") < names.index("next")
    assert not [d for d in model.diagnostics if "twist" in d.message]


def test_interpolated_mesh_nodes_are_placed_and_their_weights_noted(tmp_path: Path) -> None:
    """Points written out with dof="quadratic": the nodes are MuJoCo's (names, places, joints); MuJoCo
    weighs them by the elements' volume, which robodesc does not, and says so."""
    flexcomp = (
        '<flexcomp name="F" type="direct" point="0 0 0 1 0 0 0 1 0 0 0 1" element="0 1 2 3" dim="3" dof="quadratic"/>'
    )
    path = tmp_path / "model.xml"
    path.write_text(_model(flexcomp))
    reference = mujoco.MjModel.from_xml_path(str(path))
    model = robodesc.load(path)
    names = [reference.body(i).name for i in range(reference.nbody)]
    assert list(model.bodies) == names
    poses = model.forward_kinematics({})
    data = mujoco.MjData(reference)
    mujoco.mj_kinematics(reference, data)
    for index, name in enumerate(names[1:], start=1):
        np.testing.assert_allclose(poses[name][:3, 3], data.xpos[index], atol=1e-12, err_msg=name)
    assert math.isclose(sum(model.bodies[n].inertial.mass for n in names if n.startswith("F_")), 1.0)
    notes = [d for d in model.diagnostics if d.code == "not-modelled" and "'F'" in d.message]
    assert len(notes) == 1 and notes[0].location.line is not None
    # MuJoCo's weights are not the full grid's there (its far corner is raised to 0.02 of a full cell)
    masses = [reference.body_mass[i] for i in range(reference.nbody) if reference.body(i).name.startswith("F_")]
    assert max(masses) > 10 * min(masses)


#: Five sixths of the cube: MuJoCo fits its weights (not the full grid's).
PART_CUBE = (
    f'<flexcomp name="F" type="direct" point="{CUBE_POINTS}" element="{CUBE_TETRAHEDRA[8:]}" dim="3" dof="trilinear"/>'
)


@pytest.mark.parametrize(
    "case",
    [
        "direct cube filling its cell, quadratic",
        "direct beam filling its cells, trilinear, clipped",
        "direct shell, quadratic, cells",
        "gmsh trilinear",
        "part",
        "part beam",
    ],
)
def test_interpolated_weights_noted_only_where_mujoco_fits_them(tmp_path: Path, case: str) -> None:
    """Tetrahedra filling their cells, and shells, get MuJoCo's full-cell weights (the CASES
    comparison checks them): nothing is noted. Five sixths of the cube, or a beam less one
    tetrahedron, are weighed by MuJoCo's fit: noted. The GMSH case's unused node widens the cell so
    that MuJoCo's 0.02 floor makes every weight uniform, but robodesc cannot tell that apart: noted."""
    path = tmp_path / "model.xml"
    part_beam = f'<flexcomp name="F" type="direct" {_beam(2, skip=1)} dim="3" dof="trilinear" cellcount="3 1 1"/>'
    path.write_text(_model({"part": PART_CUBE, "part beam": part_beam}.get(case) or CASES[case]))
    if case.startswith("part"):  # MuJoCo's trilinear weights are not the full cells' there
        reference = mujoco.MjModel.from_xml_path(str(path))
        masses = [reference.body_mass[i] for i in range(reference.nbody) if reference.body(i).name.startswith("F_")]
        assert max(masses) > 2 * min(masses)
    notes = [d for d in robodesc.load(path).diagnostics if d.code == "not-modelled" and "'F'" in d.message]
    assert len(notes) == (case in ("gmsh trilinear", "part", "part beam"))
