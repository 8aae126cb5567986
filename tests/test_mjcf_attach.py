"""``<attach>`` in MuJoCo 4.0's forms, and joint rules as MuJoCo applies them to values that arrive
through default classes; MuJoCo (the `mujoco` package) is the judge of every case."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

import robodesc
from robodesc.core.transforms import matrix_to_quat

mujoco = pytest.importorskip("mujoco")


def _mujoco_error(text: str) -> str | None:
    try:
        mujoco.MjModel.from_xml_string(text)
    except Exception as exc:  # mujoco raises ValueError with its message
        return str(exc)
    return None


def _robodesc_error(text: str) -> str | None:
    try:
        robodesc.loads(text, format="mjcf")
    except robodesc.RobodescError as exc:
        return str(exc)
    return None


# -- joint rules ------------------------------------------------------------------------------------
def _joint_cases():
    for autolimits, kind, limited, span, where in itertools.product(
        ("true", "false"),
        ("hinge", "slide", "ball", "free"),
        (None, "true", "false", "auto"),
        (None, "0 0", "-1 1", "0 1", "1 -1", "0 -1", "1 1"),
        ("class", "own", "mixed"),
    ):
        given = {"limited": limited, "range": span}
        given = {k: v for k, v in given.items() if v is not None}
        if where == "class":
            inherited, own = given, {}
        elif where == "own":
            inherited, own = {}, given
        else:  # the range from the class, limited on the joint
            inherited = {k: v for k, v in given.items() if k == "range"}
            own = {k: v for k, v in given.items() if k == "limited"}
        yield autolimits, kind, inherited, own


def _attrs(values: dict[str, str]) -> str:
    return " ".join(f'{k}="{v}"' for k, v in values.items())


def test_joint_limits_through_default_classes_are_judged_as_mujoco_judges_them():
    """limited / autolimits / range / type, given by a class, by the joint, or split between them:
    672 combinations, each accepted or refused by both."""
    disagreements = []
    for autolimits, kind, inherited, own in _joint_cases():
        text = (
            f'<mujoco><compiler autolimits="{autolimits}"/>'
            f'<default><default class="c"><joint {_attrs(inherited)}/></default></default>'
            f'<worldbody><body><joint class="c" type="{kind}" {_attrs(own)}/><geom size="1"/></body></worldbody>'
            "</mujoco>"
        )
        theirs, ours = _mujoco_error(text), _robodesc_error(text)
        if (theirs is None) != (ours is None):
            disagreements.append((autolimits, kind, inherited, own, theirs, ours))
    assert not disagreements


def test_a_ball_joint_inheriting_a_hinge_range_loads_when_not_limited():
    text = """<mujoco><compiler angle="radian"/>
      <default><joint range="-1 1"/><default class="ball"><joint type="ball" limited="false"/></default></default>
      <worldbody><body><joint name="b" class="ball"/><geom size="1"/></body></worldbody></mujoco>"""
    assert _mujoco_error(text) is None
    model = robodesc.loads(text, format="mjcf")
    assert model.joints["b"].type == "ball" and model.joints["b"].limits.lower is None


@pytest.mark.parametrize("count", (1, 2, 3))
def test_several_joints_in_one_body_as_mujoco_allows_them(count):
    """At most 6 dofs in a body, and no hinge or ball after a ball joint."""
    for kinds in itertools.product(("hinge", "slide", "ball", "free"), repeat=count):
        joints = "".join(f'<joint type="{kind}"/>' for kind in kinds)
        text = f'<mujoco><worldbody><body>{joints}<geom size="1"/></body></worldbody></mujoco>'
        theirs, ours = _mujoco_error(text), _robodesc_error(text)
        assert (theirs is None) == (ours is None), (kinds, theirs, ours)
        if theirs and ("dofs" in theirs or "ball followed" in theirs):
            assert theirs.split("in body")[0].split("Error: ")[-1] in ours


# -- attach ---------------------------------------------------------------------------------------
CHILD = """<mujoco model="child">
  <compiler angle="radian"/>
  <option timestep="0.001"/>
  <default><joint damping="2"/></default>
  <worldbody>
    <site name="origin"/>
    <body name="base" pos="0 0 0.3">
      <frame name="mount" pos="0 1 0" euler="0 0 1.5707963267948966">
        <body name="b1" pos="1 0 0"><joint name="j1" range="0 2"/><geom size="0.1" mass="1"/></body>
        <geom name="g" size="0.1" pos="0 0 1" mass="1"/>
        <site name="s" pos="0 0 2"/>
        <frame name="inner" pos="0 0 1"><body name="b2"><joint name="j2" type="slide"/><geom size="0.1"/></body></frame>
      </frame>
    </body>
  </worldbody>
  <keyframe><key name="k" qpos="0.5 0.25"/></keyframe>
</mujoco>
"""


def _main(tmp_path: Path, worldbody: str, head: str = "") -> Path:
    (tmp_path / "child.xml").write_text(CHILD)
    path = tmp_path / "main.xml"
    path.write_text(
        f'<mujoco model="parent">{head}<asset><model name="c" file="child.xml"/></asset>'
        f"<worldbody>{worldbody}</worldbody></mujoco>"
    )
    return path


def _same_poses(path: Path) -> robodesc.Model:
    """Bodies, sites and keyframes of `path` where MuJoCo puts them (bodies at qpos0 and at every
    keyframe), and the same joints."""
    reference = mujoco.MjModel.from_xml_path(str(path))
    model = robodesc.load(path)
    data = mujoco.MjData(reference)
    mujoco.mj_kinematics(reference, data)
    poses = model.forward_kinematics({})
    assert [reference.body(i).name for i in range(reference.nbody)] == list(model.bodies)
    named = sorted(n for n in (reference.joint(i).name for i in range(reference.njnt)) if n)
    assert len(model.joints) == reference.njnt and named == sorted(n for n in model.joints if not n.startswith("<"))
    for i in range(1, reference.nbody):
        pose = poses[reference.body(i).name]
        np.testing.assert_allclose(pose[:3, 3], data.xpos[i], atol=1e-9)
        quat = matrix_to_quat(pose[:3, :3])
        np.testing.assert_allclose(quat * np.sign(quat @ data.xquat[i]), data.xquat[i], atol=1e-9)
    for i in range(reference.nsite):
        name = reference.site(i).name
        if name:
            np.testing.assert_allclose(poses.frame(name)[:3, 3], data.site_xpos[i], atol=1e-9)
    keys = [reference.key(i).name for i in range(reference.nkey)]
    assert list(model.configurations) == keys
    for index, name in enumerate(keys):
        mujoco.mj_resetDataKeyframe(reference, data, index)
        mujoco.mj_kinematics(reference, data)
        poses = model.forward_kinematics(model.configurations[name])
        for i in range(1, reference.nbody):
            np.testing.assert_allclose(poses[reference.body(i).name][:3, 3], data.xpos[i], atol=1e-9)
    return model


FORMS = {
    "a body": '<body name="p" pos="0 0 5"><joint/><geom size="1"/><attach model="c" body="b1" prefix="a_"/></body>',
    "the whole model": '<body name="p" pos="0 0 5"><joint/><geom size="1"/><attach model="c" prefix="a_"/></body>',
    "the whole model into the world": '<frame pos="1 2 3" euler="0 30 0"><attach model="c" prefix="a_"/></frame>',
    "a frame": '<body name="p" pos="0 0 5"><joint/><geom size="1"/>'
    '<attach model="c" frame="mount" prefix="a_"/></body>',
    "a nested frame into the world": '<attach model="c" frame="inner" prefix="a_"/>',
    "twice": '<attach model="c" frame="mount" prefix="x_"/><body name="p"><attach model="c" prefix="y_"/></body>',
    "a body of this file": '<body name="q" pos="1 0 0"><joint name="qj"/><geom size="1"/></body>'
    '<body name="p" pos="0 0 5"><geom size="1"/><attach body="q" prefix="a_"/></body>',
    "a frame of this file": '<frame name="f" pos="1 0 0"><body name="q"><geom size="1"/></body></frame>'
    '<body name="p" pos="0 0 5"><attach frame="f" prefix="a_"/></body>',
    "the body around the attach (what is read before it)": '<body name="q" pos="1 0 0"><joint name="qj"/>'
    '<geom size="1"/><attach body="q" prefix="a_"/><body name="late"><geom size="1"/></body></body>',
}


@pytest.mark.parametrize("worldbody", FORMS.values(), ids=FORMS.keys())
def test_attach_forms_match_mujoco(tmp_path, worldbody):
    _same_poses(_main(tmp_path, worldbody))


def test_the_attached_file_keeps_its_own_compiler_and_classes(tmp_path):
    model = _same_poses(_main(tmp_path, FORMS["the whole model"]))
    joint = model.joints["a_j1"]
    assert (joint.limits.lower, joint.limits.upper) == (0.0, 2.0)  # radians, as the child's compiler says
    assert joint.dynamics.damping == 2.0  # the child's default class


REFUSED = {
    "no prefix": ('<attach model="c" body="b1"/>', "prefix"),
    "unknown frame": ('<attach model="c" frame="nowhere" prefix="a"/>', "could not find frame 'nowhere'"),
    "unknown body": ('<attach model="c" body="nowhere" prefix="a"/>', "could not find body 'nowhere'"),
    "a body of this file written after": (
        '<body name="p"><attach body="q" prefix="a"/></body><body name="q"><geom size="1"/></body>',
        "could not find body 'q' in the current model",
    ),
}


@pytest.mark.parametrize(("worldbody", "message"), REFUSED.values(), ids=REFUSED.keys())
def test_attaches_mujoco_refuses_are_refused(tmp_path, worldbody, message):
    path = _main(tmp_path, worldbody)
    with pytest.raises(ValueError, match="prefix|could not find"):
        mujoco.MjModel.from_xml_path(str(path))
    with pytest.raises(robodesc.RobodescError, match=message) as info:
        robodesc.load(path)
    assert info.value.location.element.endswith("attach")


@pytest.mark.parametrize(
    ("parent", "conflict"),
    [
        ("", "timestep: parent has 0.002 (default), child has 0.001, keeping parent value"),
        ('<option timestep="0.005"/>', "timestep: parent has 0.005, child has 0.001, keeping parent value"),
        ('<option timestep="0.001"/>', None),
    ],
)
def test_an_attached_option_the_parent_sets_otherwise_is_a_warning_keeping_the_parents(
    tmp_path, capfd, parent, conflict
):
    path = _main(tmp_path, FORMS["a body"], parent)
    mujoco.MjModel.from_xml_path(str(path))
    printed = capfd.readouterr().err
    model = robodesc.load(path)
    found = [d for d in model.diagnostics if d.code == "attach-conflict"]
    if conflict is None:
        assert not found and "conflict" not in printed
    else:
        assert conflict in printed
        assert len(found) == 1 and conflict in found[0].message
        assert found[0].location.file.endswith("child.xml")
