"""Forward kinematics of some bodies only (`bodies=`, `frames=`), joint values from a mapping, and the
compiled tree against an independent per-body implementation written here.

The models below are small but cover what the compiled plan treats differently: fixed (folded)
bodies, mimic joints (of mimics), several joints moving one body, ball and free joints, frames
(MJCF sites) on moving and on static bodies, a site sharing its body's name, joint references.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

import robodesc
from robodesc import (
    Body,
    ConfigurationError,
    InvalidArgument,
    Joint,
    JointType,
    Model,
    UnresolvedReference,
)
from robodesc.core.kinematics import joint_motion
from robodesc.core.transforms import make_pose, pose_from_xyz_rpy

URDF = """<robot name="branches">
  <link name="base"/><link name="torso"/><link name="head"/><link name="camera"/>
  <link name="arm1"/><link name="arm2"/><link name="hand"/><link name="finger_l"/><link name="finger_r"/>
  <link name="leg"/><link name="foot"/>
  <joint name="waist" type="continuous"><parent link="base"/><child link="torso"/>
    <origin xyz="0 0 0.8" rpy="0 0 0.3"/><axis xyz="0 0 1"/></joint>
  <joint name="neck" type="revolute"><parent link="torso"/><child link="head"/>
    <origin xyz="0 0 0.5" rpy="0.1 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <joint name="cam" type="fixed"><parent link="head"/><child link="camera"/>
    <origin xyz="0.1 0 0.05" rpy="0 0.4 0"/></joint>
  <joint name="shoulder" type="revolute"><parent link="torso"/><child link="arm1"/>
    <origin xyz="0 0.2 0.4" rpy="1.2 0 0"/><axis xyz="0.6 0 0.8"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="elbow" type="revolute"><parent link="arm1"/><child link="arm2"/>
    <origin xyz="0.3 0 0" rpy="0 0.2 0.1"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="wrist" type="fixed"><parent link="arm2"/><child link="hand"/>
    <origin xyz="0.25 0 0" rpy="0.3 0 0"/></joint>
  <joint name="grip" type="prismatic"><parent link="hand"/><child link="finger_l"/>
    <origin xyz="0.05 0.02 0"/><axis xyz="0 1 0"/><limit lower="0" upper="0.04" effort="1" velocity="1"/></joint>
  <joint name="grip_r" type="prismatic"><parent link="hand"/><child link="finger_r"/>
    <origin xyz="0.05 -0.02 0"/><axis xyz="0 1 0"/><limit lower="-0.04" upper="0" effort="1" velocity="1"/>
    <mimic joint="grip" multiplier="-1" offset="0.001"/></joint>
  <joint name="hip" type="revolute"><parent link="base"/><child link="leg"/>
    <origin xyz="0 -0.1 0.7" rpy="0 0 0"/><axis xyz="1 0 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/>
    <mimic joint="elbow" multiplier="0.5" offset="-0.2"/></joint>
  <joint name="ankle" type="revolute"><parent link="leg"/><child link="foot"/>
    <origin xyz="0 0 -0.6"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/>
    <mimic joint="hip" multiplier="2"/></joint>
</robot>"""

MJCF = """<mujoco model="mixed"><worldbody>
  <body name="floater" pos="0.1 0.2 0.3" quat="0.9 0.1 0.3 0.2"><freejoint name="free"/>
    <geom size="0.1" mass="1"/><site name="floater" pos="0.2 0 0"/>
    <body name="multi" pos="0.3 0 0" euler="10 20 30">
      <joint name="hinge" type="hinge" axis="0 0 1" pos="0.1 0 0" ref="0.4"/>
      <joint name="slide" type="slide" axis="1 1 0" pos="0 0.05 0"/>
      <geom size="0.05" mass="1"/><site name="tool" pos="0 0 0.1" euler="0 90 0"/>
      <body name="static" pos="0 0.2 0" euler="0 0 45"><geom size="0.05" mass="1"/>
        <site name="on_static" pos="0.1 0 0"/>
        <body name="balled" pos="0 0 0.2"><joint name="ball" type="ball" pos="0 0 0.05"/><geom size="0.05" mass="1"/>
          <body name="tip" pos="0.2 0 0"><joint name="tiphinge" axis="0 1 0" ref="-0.3"/><geom size="0.02" mass="1"/>
            <site name="tipsite" pos="0.05 0 0"/></body>
        </body>
      </body>
    </body>
  </body>
  <body name="side" pos="1 0 0"><joint name="side" axis="1 0 0"/><geom size="0.05" mass="1"/></body>
</worldbody></mujoco>"""


def _hand_built() -> Model:
    """Joint types only a hand-built model (or SDF) has: planar, universal, screw; a body with three joints."""

    def j(name, kind, parent, child, origin, axis=(0.0, 0.0, 1.0), axis2=None, pitch=0.0):
        return Joint(
            name,
            kind,
            parent,
            child,
            origin=origin,
            axis=np.array(axis, dtype=float),
            axis2=None if axis2 is None else np.array(axis2, dtype=float),
            pitch=pitch,
        )

    o1, o2, o3 = pose_from_xyz_rpy([0.1, 0, 0.2], [0.1, 0.2, 0.3]), make_pose(translation=[0, 0.3, 0]), np.eye(4)
    joints = {
        "plane": j("plane", JointType.PLANAR, "ground", "sled", o1, axis=(0.0, 0.6, 0.8)),
        "uni": j("uni", JointType.UNIVERSAL, "sled", "cross", o2, axis=(1.0, 0.0, 0.0), axis2=(0.0, 0.0, 1.0)),
        "screw": j("screw", JointType.SCREW, "cross", "nut", o3, axis=(0.0, 0.0, 1.0), pitch=0.01),
        "a": j("a", JointType.REVOLUTE, "nut", "triple", make_pose(translation=[0.1, 0, 0])),
        "b": j("b", JointType.PRISMATIC, "nut", "triple", make_pose(translation=[0, 0.1, 0]), axis=(0.0, 1.0, 0.0)),
        "c": j("c", JointType.CONTINUOUS, "nut", "triple", make_pose(translation=[0, 0, 0.1]), axis=(1.0, 0.0, 0.0)),
    }
    bodies = {
        "ground": Body("ground"),
        "sled": Body("sled", parent="ground", joints=("plane",), pose=o1.copy()),
        "cross": Body("cross", parent="sled", joints=("uni",), pose=o2.copy()),
        "nut": Body("nut", parent="cross", joints=("screw",), pose=o3.copy()),
        "triple": Body("triple", parent="nut", joints=("a", "b", "c"), pose=make_pose(translation=[0.2, 0, 0])),
    }
    return Model(name="exotic", bodies=bodies, joints=joints)


def _random_tree(count: int, seed: int) -> str:
    """A URDF tree of `count` links: random parents, origins, axes and types, some fixed and some mimic."""
    rng = np.random.default_rng(seed)
    parts = ['<robot name="random">', *(f'<link name="l{i}"/>' for i in range(count))]
    for i in range(1, count):
        parent = int(rng.integers(max(0, i - 5), i))
        kind = ["revolute", "continuous", "prismatic", "fixed"][int(rng.integers(4))]
        xyz = " ".join(f"{v:.4f}" for v in rng.uniform(-0.1, 0.1, 3))
        rpy = " ".join(f"{v:.4f}" for v in rng.uniform(-3, 3, 3))
        axis = rng.normal(size=3)
        axis = " ".join(f"{v:.4f}" for v in axis / np.linalg.norm(axis))
        extra = '<limit lower="-5" upper="5" effort="1" velocity="1"/>' if kind in ("revolute", "prismatic") else ""
        if kind != "fixed" and i > 3 and rng.random() < 0.15:
            extra += f'<mimic joint="j{int(rng.integers(1, i))}" multiplier="{rng.uniform(-2, 2):.3f}" offset="0.1"/>'
        parts.append(
            f'<joint name="j{i}" type="{kind}"><parent link="l{parent}"/><child link="l{i}"/>'
            f'<origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="{axis}"/>{extra}</joint>'
        )
    return "".join([*parts, "</robot>"])


def load_models() -> dict[str, Model]:
    return {
        "urdf": robodesc.loads(URDF, format="urdf"),
        "mjcf": robodesc.loads(MJCF, format="mjcf"),
        "hand": _hand_built(),
        "random": robodesc.loads(_random_tree(300, 7), format="urdf"),
    }


@pytest.fixture(scope="module")
def models() -> dict[str, Model]:
    return load_models()


def configurations(model: Model, count: int, seed: int = 0) -> np.ndarray:
    """Random configurations; quaternions drawn at random and left unnormalised (kinematics normalise them)."""
    rng = np.random.default_rng(seed)
    kin = model.kinematics
    q = rng.uniform(-2.0, 2.0, (count, kin.nq))
    for name, sl in kin.layout.items():
        kind = model.joints[name].type
        if kind is JointType.BALL:
            q[:, sl] = rng.normal(size=(count, 4))
        elif kind is JointType.FLOATING:
            q[:, sl.start + 3 : sl.stop] = rng.normal(size=(count, 4))
    return q


def reference_poses(model: Model, q: np.ndarray) -> dict[str, np.ndarray]:
    """World poses by the formula of robodesc.core.model, body by body, with nothing compiled:
    parent @ prod_i(origin_i @ M_i(ref_i)^-1 @ M_i(q_i) @ origin_i^-1) @ body.pose."""
    kin = model.kinematics

    def value(joint: Joint) -> np.ndarray:
        if joint.dof == 0:  # a fixed joint as a mimic leader is held at 0
            return np.zeros(1)
        if joint.mimic is not None:
            leader = model.joints[joint.mimic.joint]
            return joint.mimic.multiplier * value(leader) + joint.mimic.offset
        return q[kin.layout[joint.name]]

    def reference(joint: Joint) -> np.ndarray:
        ref = np.atleast_1d(np.asarray(joint.reference, dtype=float))
        return ref if ref.size == joint.dof else kin.reference[kin.layout[joint.name]]

    world: dict[str, np.ndarray] = {}
    for body in model.bodies.values():  # parents first
        pose = world[body.parent] if body.parent is not None else np.eye(4)
        for name in body.joints:
            joint = model.joints[name]
            if joint.dof == 0:
                continue
            origin = np.asarray(joint.origin, dtype=float)
            at_ref = joint_motion(joint, reference(joint))
            pose = pose @ origin @ np.linalg.inv(at_ref) @ joint_motion(joint, value(joint)) @ np.linalg.inv(origin)
        world[body.name] = pose @ body.pose
    frames = {name: world[f.body] @ f.pose for name, f in model.frames.items()}
    return {"bodies": world, "frames": frames}


# -- the compiled tree against the per-body formula -------------------------------------------------


@pytest.mark.parametrize("name", ["urdf", "mjcf", "hand", "random"])
def test_compiled_poses_equal_the_per_body_formula(models, name):
    model = models[name]
    q = configurations(model, 4, seed=1)
    batch = model.forward_kinematics_batch(q, backend="numpy")
    for row in range(len(q)):
        expected = reference_poses(model, q[row])
        single = model.forward_kinematics(q[row], backend="numpy")
        for body, pose in expected["bodies"].items():
            np.testing.assert_allclose(single[body], pose, rtol=0, atol=1e-12, err_msg=body)
            np.testing.assert_allclose(batch[body][row], pose, rtol=0, atol=1e-12, err_msg=body)
        for frame, pose in expected["frames"].items():
            np.testing.assert_allclose(single.frame(frame), pose, rtol=0, atol=1e-12, err_msg=frame)
            np.testing.assert_allclose(batch.frame(frame)[row], pose, rtol=0, atol=1e-12, err_msg=frame)


def test_compiled_poses_of_a_long_chain_equal_the_per_body_formula():
    """A chain deep enough to be walked by pointer jumps in batches too."""
    count = 1500
    joints = "".join(
        f'<joint name="j{i}" type="{"prismatic" if i % 7 == 0 else "revolute"}"><parent link="l{i}"/>'
        f'<child link="l{i + 1}"/><origin xyz="0 0 .001" rpy="0.01 0 {0.002 * (i % 5)}"/><axis xyz="0 1 0"/>'
        '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
        for i in range(count - 1)
    )
    model = robodesc.loads(
        '<robot name="chain">' + "".join(f'<link name="l{i}"/>' for i in range(count)) + joints + "</robot>",
        format="urdf",
    )
    q = np.random.default_rng(3).uniform(-0.01, 0.01, (2, count - 1))
    batch = model.forward_kinematics_batch(q, backend="numpy")
    assert model.kinematics._batch_jumps
    for row in range(2):
        expected = reference_poses(model, q[row])["bodies"]
        got = np.array([batch[f"l{i}"][row] for i in range(count)])
        np.testing.assert_allclose(got, np.array([expected[f"l{i}"] for i in range(count)]), rtol=0, atol=1e-11)


# -- bodies= and frames= ----------------------------------------------------------------------------

SUBSETS = {
    "urdf": [["camera", "finger_r"], ["foot"], ["base"], ["hand", "head", "hand", "torso"]],
    "mjcf": [["tipsite"], ["tool", "side", "world"], ["on_static", "static"], ["floater"]],
    "hand": [["triple"], ["nut", "ground"]],
    "random": [["l299", "l150"], ["l1"], ["l0", "l42", "l7", "l255"]],
}


@pytest.mark.parametrize("name", ["urdf", "mjcf", "hand", "random"])
@pytest.mark.parametrize("backend", ["numpy", "auto"])
def test_some_bodies_are_exactly_those_of_the_whole_tree(models, name, backend):
    model = models[name]
    q = configurations(model, 5, seed=2)
    full_batch = model.forward_kinematics_batch(q, backend=backend)
    for wanted in SUBSETS[name]:
        batch = model.forward_kinematics_batch(q, bodies=wanted, backend=backend)
        assert batch.names == wanted and batch.array.shape == (5, len(wanted), 4, 4)
        np.testing.assert_allclose(batch.array, np.stack([full_batch[w] for w in wanted], axis=1), rtol=0, atol=1e-12)
        for row in range(len(q)):
            full = model.forward_kinematics(q[row], backend=backend)
            some = model.forward_kinematics(q[row], wanted, backend=backend)
            assert some.names == wanted and some.array.shape == (len(wanted), 4, 4)
            assert list(some) == list(dict.fromkeys(wanted))  # each name once, in the order asked
            for body in wanted:
                np.testing.assert_allclose(some[body], full[body], rtol=0, atol=1e-12)


def test_some_bodies_with_the_numpy_backend_are_bit_for_bit_the_whole_trees(models):
    """The sub-plan computes the very same products as the whole tree, in the same order."""
    model = models["random"]
    q = configurations(model, 3)
    full = model.forward_kinematics_batch(q, backend="numpy")
    some = model.forward_kinematics_batch(q, bodies=["l299", "l3"], backend="numpy")
    np.testing.assert_array_equal(some.array, np.stack([full["l299"], full["l3"]], axis=1))
    single = model.forward_kinematics(q[0], bodies=["l299"], backend="numpy")
    np.testing.assert_array_equal(single["l299"], model.forward_kinematics(q[0], backend="numpy")["l299"])


def test_only_the_chains_to_the_bodies_asked_for_are_walked(models):
    kin = models["urdf"].kinematics
    full = kin._plan_for()[0]
    camera = kin._plan_for(["camera"])[0]
    assert camera.count == 2 < full.count  # waist and neck move the camera; the arm, fingers and leg are left out
    assert kin._plan_for(["base"])[0].count == 0  # the root moves with nothing


def test_out_is_filled_for_some_bodies(models):
    model = models["urdf"]
    q = configurations(model, 4)
    out = np.full((4, 2, 4, 4), np.nan)
    poses = model.forward_kinematics_batch(q, bodies=["foot", "camera"], out=out)
    assert poses.array is out and np.isfinite(out).all()
    np.testing.assert_allclose(out[:, 0], model.forward_kinematics_batch(q)["foot"], rtol=0, atol=1e-12)
    with pytest.raises(ConfigurationError, match=r"shape \(4, 2, 4, 4\)"):
        whole = np.empty((4, len(model.kinematics.names), 4, 4))
        model.forward_kinematics_batch(q, bodies=["foot", "camera"], out=whole)


def test_no_bodies_gives_an_empty_result(models):
    model = models["urdf"]
    assert model.forward_kinematics(None, []).array.shape == (0, 4, 4)
    assert model.forward_kinematics_batch(configurations(model, 3), bodies=[]).array.shape == (3, 0, 4, 4)


def test_a_frame_sharing_a_bodys_name_is_asked_for_with_frames(models):
    """`bodies` resolves a name as poses[name] does (the body first), `frames` as poses.frame(name) does."""
    model = models["mjcf"]
    q = configurations(model, 1)[0]
    full = model.forward_kinematics(q)
    body = model.forward_kinematics(q, ["floater"])
    assert np.array_equal(body["floater"], full["floater"])
    with pytest.raises(UnresolvedReference, match="no frame named 'floater'"):
        body.frame("floater")  # only the body was asked for
    both = model.forward_kinematics(q, ["floater"], frames=["floater"])
    assert both.names == ["floater", "floater"] and both.array.shape == (2, 4, 4)
    assert np.array_equal(both["floater"], full["floater"])
    assert np.array_equal(both.frame("floater"), full.frame("floater"))
    assert not np.allclose(both["floater"], both.frame("floater"))  # the site is 0.2 m out
    # a frame no body shadows can be asked for either way, and is a frame in the result
    site = model.forward_kinematics(q, ["tool"])
    assert np.array_equal(site["tool"], full.frame("tool")) and np.array_equal(site.frame("tool"), site["tool"])
    only_frames = model.forward_kinematics_batch(q[None], frames=["tool", "tipsite"])
    assert only_frames.names == ["tool", "tipsite"]
    assert np.allclose(only_frames["tipsite"][0], full.frame("tipsite"), rtol=0, atol=1e-12)


def test_unknown_names_raise_with_a_suggestion(models):
    model = models["urdf"]
    with pytest.raises(UnresolvedReference, match="no body or frame named 'camra'") as caught:
        model.forward_kinematics(None, ["camera", "camra"])
    assert "did you mean 'camera'" in str(caught.value)
    with pytest.raises(UnresolvedReference, match="no body or frame named 'fot'") as caught:
        model.forward_kinematics_batch(np.zeros((1, model.kinematics.nq)), bodies=["fot"])
    assert "did you mean 'foot'" in str(caught.value)
    with pytest.raises(UnresolvedReference, match="no frame named 'foot'"):  # a body, not a frame
        model.forward_kinematics(None, frames=["foot"])
    mjcf = models["mjcf"]
    with pytest.raises(UnresolvedReference, match="did you mean 'tool'"):
        mjcf.forward_kinematics(None, frames=["toool"])


@pytest.mark.parametrize(
    ("arguments", "argument"),
    [
        ({"bodies": "camera"}, "bodies"),
        ({"bodies": 3}, "bodies"),
        ({"bodies": ["camera", 3]}, r"bodies\[1\]"),
        ({"bodies": [None]}, r"bodies\[0\]"),
        ({"frames": "tool"}, "frames"),
        ({"frames": [b"tool"]}, r"frames\[0\]"),
        ({"backend": "fast"}, "backend"),
        ({"backend": None}, "backend"),
    ],
)
def test_wrong_arguments_are_invalid_arguments_naming_them(models, arguments, argument):
    model = models["urdf"]
    with pytest.raises(InvalidArgument, match=f"^{argument} must be"):
        model.forward_kinematics(None, **arguments)
    with pytest.raises(InvalidArgument, match=f"^{argument} must be"):
        model.forward_kinematics_batch(np.zeros((2, model.kinematics.nq)), **arguments)


def test_an_array_where_bodies_belong_says_to_pass_out_by_keyword(models):
    model = models["urdf"]
    q = np.zeros((2, model.kinematics.nq))
    with pytest.raises(InvalidArgument, match="bodies must be a list of body or frame names") as caught:
        model.forward_kinematics_batch(q, np.empty((2, len(model.kinematics.names), 4, 4)))
    assert "out=" in str(caught.value)


def test_bad_values_are_still_refused_for_some_bodies(models):
    model = models["mjcf"]
    q = configurations(model, 2)
    q[1, 0] = math.nan
    with pytest.raises(ConfigurationError, match="finite"):
        model.forward_kinematics_batch(q, bodies=["side"])
    free = model.kinematics.layout["free"]
    q = configurations(model, 1)[0]
    q[free.start + 3 : free.stop] = 0.0
    with pytest.raises(ConfigurationError, match="zero quaternion"):
        model.forward_kinematics(q, ["tip"])
    with pytest.raises(ConfigurationError, match="length"):
        model.forward_kinematics(q[:-1], ["tip"])


def test_plans_are_kept_per_list_of_names_in_a_bounded_cache(models):
    kin = models["random"].kinematics
    kin._plans.clear()
    first = kin._plan_for(["l10", "l20"])
    assert kin._plan_for(["l10", "l20"]) is first  # the second batch reuses the compiled plan
    assert kin._plan_for(("l10", "l20"))[0] is first[0]  # a tuple names the same plan as a list
    assert kin._plan_for(["l20", "l10"])[0] is not first[0]  # another order is another result
    for i in range(100):
        kin._plan_for([f"l{i}"])
    assert len(kin._plans) <= 32
    assert kin._plan_for(["l99"])[0].count >= 1


# -- joint values from a mapping ----------------------------------------------------------------------


def test_a_mapping_of_plain_numbers_gives_the_vectors_poses(models):
    model = models["urdf"]
    kin = model.kinematics
    q = configurations(model, 1)[0]
    as_floats = {name: float(q[sl.start]) for name, sl in kin.layout.items()}
    as_numpy = {name: np.float64(q[sl.start]) for name, sl in kin.layout.items()}
    as_arrays = {name: np.array([q[sl.start]]) for name, sl in kin.layout.items()}
    expected = model.forward_kinematics(q).array
    for positions in (as_floats, as_numpy, as_arrays):
        assert np.array_equal(kin.vector(positions), q)
        assert np.array_equal(model.forward_kinematics(positions).array, expected)
    assert kin.vector({"elbow": 1, "waist": True}).tolist() == [
        1.0 if n == "waist" else (1.0 if n == "elbow" else 0.0) for n in kin.joint_names
    ]
    assert np.array_equal(kin.vector({"grip_r": 0.3}), kin.reference)  # a mimic follower takes no value


@pytest.mark.parametrize(
    ("positions", "error", "message"),
    [
        ({"elbow": math.nan}, ConfigurationError, "finite"),
        ({"elbow": math.inf, "waist": 0.1}, ConfigurationError, "finite"),
        ({"elbw": 0.1}, ConfigurationError, "no joint named 'elbw'.*did you mean 'elbow'"),
        ({"elbow": "0.1x"}, ConfigurationError, "not made of numbers"),
        ({"elbow": [0.1, 0.2]}, ConfigurationError, "takes 1 value"),
        ({3: 0.1}, InvalidArgument, "each key of positions must be a joint name"),
    ],
)
def test_a_mapping_of_bad_values_is_refused(models, positions, error, message):
    with pytest.raises(error, match=message):
        models["urdf"].forward_kinematics(positions)


def test_compiling_a_model_written_by_hand_with_lists_for_poses():
    """Poses given as nested lists (not arrays) compile as arrays would."""
    model = Model(
        name="lists",
        bodies={
            "a": Body("a"),
            "b": Body("b", parent="a", joints=("j",), pose=[[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]),
        },
        joints={
            "j": Joint(
                "j", JointType.REVOLUTE, "a", "b", origin=[[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
            )
        },
    )
    np.testing.assert_allclose(model.forward_kinematics({"j": 0.0})["b"][:3, 3], [1, 0, 0], atol=1e-15)


@pytest.mark.parametrize("backend", ["numpy", "auto"])
def test_threads_evaluating_one_model_at_once_get_their_own_poses(models, backend):
    """One configuration and batches reuse workspaces per thread: threads sharing a model must not
    see each other's values."""
    from concurrent.futures import ThreadPoolExecutor

    model = models["mjcf"]
    q = configurations(model, 64, seed=11)
    expected = [model.forward_kinematics(row, backend=backend).array for row in q]
    expected_tip = [model.forward_kinematics(row, ["tip"], backend=backend).array for row in q]
    batches = [model.forward_kinematics_batch(q[i : i + 3], backend=backend).array for i in range(len(q))]
    many = configurations(model, 3000, seed=12)  # several chunks
    expected_many = model.forward_kinematics_batch(many, backend=backend).array

    def work(i: int) -> bool:
        for _ in range(20):
            if not np.array_equal(model.forward_kinematics(q[i], backend=backend).array, expected[i]):
                return False
            if not np.array_equal(model.forward_kinematics(q[i], ["tip"], backend=backend).array, expected_tip[i]):
                return False
            if not np.array_equal(model.forward_kinematics_batch(q[i : i + 3], backend=backend).array, batches[i]):
                return False
        if i % 8 == 0:  # some tasks also evaluate a batch of several chunks
            return bool(np.array_equal(model.forward_kinematics_batch(many, backend=backend).array, expected_many))
        return True

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch between nearly every two bytecodes: a shared workspace would show
    try:
        with ThreadPoolExecutor(8) as pool:
            assert all(pool.map(work, range(len(q))))
    finally:
        sys.setswitchinterval(interval)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_large_batches_on_the_kept_threads_in_a_process_and_a_forked_child_then_exit():
    """Large batches are split over threads kept from call to call: several threads asking at once,
    and a forked child (which has none of its parent's threads), must each get the poses of the
    batch evaluated in small pieces, and the process must then exit (no thread left waiting)."""
    import subprocess

    code = f"""
import os, numpy as np, robodesc
from concurrent.futures import ThreadPoolExecutor
from robodesc.core import kinematics
kinematics._THREAD_ELEMENTS = kinematics._KERNEL_ELEMENTS = 64  # a few hundred configurations use threads
kinematics._cpu_count = lambda: 3  # (even on a single core)
model = robodesc.loads({URDF!r}, format="urdf")
q = np.random.default_rng(5).uniform(-1, 1, (600, model.kinematics.nq))
def agrees(backend):
    pieces = [model.forward_kinematics_batch(q[i : i + 7], backend=backend).array for i in range(0, 600, 7)]
    return np.array_equal(model.forward_kinematics_batch(q, backend=backend).array, np.concatenate(pieces))
with ThreadPoolExecutor(4) as callers:
    assert all(callers.map(agrees, ["numpy", "auto"] * 4))
child = os.fork()
if child == 0:
    os._exit(0 if agrees("numpy") and agrees("auto") else 1)
assert os.waitpid(child, 0)[1] == 0
print("ok")
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def test_batches_of_models_of_different_sizes_in_turn_each_get_their_own_poses(models):
    """Batches of several chunks share one scratch buffer per thread, whatever the model: models of
    different sizes evaluated in turn must each get the poses they get one configuration at a time."""
    q = {name: configurations(model, 2500, seed=3) for name, model in models.items()}
    for _ in range(2):
        for name, model in [*models.items(), *reversed(models.items())]:
            for count in (2500, 40, 1700):
                poses = model.forward_kinematics_batch(q[name][:count], backend="numpy").array
                for row in range(0, count, 397):
                    alone = model.forward_kinematics_batch(q[name][row : row + 1], backend="numpy").array[0]
                    assert np.array_equal(poses[row], alone), (name, count, row)


def test_a_model_with_compiled_kinematics_can_be_copied_and_pickled(models):
    """A model keeps its compiled tree (with per-thread workspaces and a lock): deepcopy and pickle
    must still work, and the copy must give the same poses."""
    import copy
    import pickle

    model = load_models()["mjcf"]
    q = configurations(model, 2)
    expected = model.forward_kinematics(q[0]).array
    expected_tip = model.forward_kinematics_batch(q, bodies=["tip"]).array
    for other in (copy.deepcopy(model), pickle.loads(pickle.dumps(model))):
        assert other.kinematics is not model.kinematics
        np.testing.assert_array_equal(other.forward_kinematics(q[0]).array, expected)
        np.testing.assert_array_equal(other.forward_kinematics_batch(q, bodies=["tip"]).array, expected_tip)
