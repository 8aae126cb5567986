"""Forward kinematics against hand-computed poses, on URDF chains and on hand-built models."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_close

import robodesc
from robodesc import Body, ConfigurationError, Frame, Joint, JointType, Mimic, Model, RobodescError, UnresolvedReference
from robodesc.core.transforms import axis_angle_to_matrix, make_pose, pose_from_xyz_rpy, rpy_to_matrix

HALF_PI = math.pi / 2
C45 = math.cos(math.pi / 4)
ARM = Path(__file__).resolve().parents[1] / "examples" / "arm.urdf"


def T(x=0.0, y=0.0, z=0.0):
    return make_pose(translation=[x, y, z])


def urdf(body: str) -> robodesc.Model:
    return robodesc.loads(f'<robot name="t">{body}</robot>', format="urdf")


def links(*names: str) -> str:
    return "".join(f'<link name="{n}"/>' for n in names)


def joint(name, kind, parent, child, xyz="0 0 0", rpy="0 0 0", axis=None, limit=True, extra=""):
    parts = [f'<joint name="{name}" type="{kind}">', f'<parent link="{parent}"/><child link="{child}"/>']
    parts.append(f'<origin xyz="{xyz}" rpy="{rpy}"/>')
    if axis is not None:
        parts.append(f'<axis xyz="{axis}"/>')
    if limit and kind in ("revolute", "prismatic"):
        parts.append('<limit lower="-10" upper="10" effort="1" velocity="1"/>')
    parts.append(extra + "</joint>")
    return "".join(parts)


@pytest.fixture(scope="module")
def arm() -> robodesc.Model:
    return robodesc.load(ARM)


# -- single joints by hand ------------------------------------------------------------------------


def test_revolute_about_z_by_90_degrees():
    model = urdf(
        links("base", "a", "tip")
        + joint("yaw", "revolute", "base", "a", xyz="1 0 0", axis="0 0 1")
        + joint("tool", "fixed", "a", "tip", xyz="1 0 0")
    )
    poses = model.forward_kinematics({"yaw": HALF_PI})
    assert_close(poses["base"], np.eye(4))
    assert_close(poses["a"][:3, 3], [1, 0, 0])
    assert_close(poses["a"][:3, :3], rpy_to_matrix(0, 0, HALF_PI))
    # the tool point 1 m along the link's x now points along world y
    assert_close(poses["tip"][:3, 3], [1, 1, 0])
    # at zero it is straight out along x
    assert_close(model.forward_kinematics({"yaw": 0.0})["tip"][:3, 3], [2, 0, 0])


def test_revolute_axis_is_in_the_joint_frame():
    # joint frame rolled 90 deg about x: its z axis is world -y, so turning about it
    # takes the child's x axis towards world +z... check by hand: Rx(90) Rz(90) x = Rx(90) y = z
    model = urdf(
        links("base", "a", "tip")
        + joint("j", "revolute", "base", "a", rpy=f"{HALF_PI} 0 0", axis="0 0 1")
        + joint("tool", "fixed", "a", "tip", xyz="1 0 0")
    )
    assert_close(model.forward_kinematics({"j": HALF_PI})["tip"][:3, 3], [0, 0, 1])


def test_prismatic_along_x():
    model = urdf(links("base", "s") + joint("slide", "prismatic", "base", "s", xyz="0 0 1", axis="1 0 0"))
    assert_close(model.forward_kinematics({"slide": 0.25})["s"], T(0.25, 0, 1))
    assert_close(model.forward_kinematics({"slide": -0.5})["s"], T(-0.5, 0, 1))


def test_prismatic_axis_is_normalised():
    model = urdf(links("base", "s") + joint("slide", "prismatic", "base", "s", axis="0 3 4"))
    assert_close(model.forward_kinematics({"slide": 1.0})["s"][:3, 3], [0, 0.6, 0.8])


def test_continuous_joint_turns_past_a_full_circle():
    model = urdf(
        links("base", "w", "rim")
        + joint("wheel", "continuous", "base", "w", axis="0 1 0")
        + joint("r", "fixed", "w", "rim", xyz="1 0 0")
    )
    # 2.5 turns = half a turn: rim point at -x
    assert_close(model.forward_kinematics({"wheel": 5 * math.pi})["rim"][:3, 3], [-1, 0, 0])
    # a quarter turn about +y takes +x to -z
    assert_close(model.forward_kinematics({"wheel": HALF_PI})["rim"][:3, 3], [0, 0, -1])


def test_fixed_joint_with_rotated_origin():
    model = urdf(
        links("base", "cam", "pt")
        + joint("mount", "fixed", "base", "cam", xyz="0 0 2", rpy=f"0 0 {HALF_PI}")
        + joint("p", "fixed", "cam", "pt", xyz="1 0 0")
    )
    assert model.kinematics.nq == 0
    poses = model.forward_kinematics()
    assert_close(poses["cam"], pose_from_xyz_rpy([0, 0, 2], [0, 0, HALF_PI]))
    assert_close(poses["pt"][:3, 3], [0, 1, 2])


def test_mimic_follower_multiplier_and_offset():
    model = urdf(
        links("base", "a", "b")
        + joint("lead", "prismatic", "base", "a", axis="1 0 0")
        + joint(
            "follow", "prismatic", "base", "b", axis="0 1 0", extra='<mimic joint="lead" multiplier="2" offset="0.1"/>'
        )
    )
    assert model.kinematics.joint_names == ["lead"]
    assert model.kinematics.nq == 1
    poses = model.forward_kinematics({"lead": 0.3})
    assert_close(poses["a"][:3, 3], [0.3, 0, 0])
    assert_close(poses["b"][:3, 3], [0, 2 * 0.3 + 0.1, 0])
    # left at reference, the follower sits at the offset
    assert_close(model.forward_kinematics()["b"][:3, 3], [0, 0.1, 0])


def test_mimic_of_a_mimic():
    model = urdf(
        links("base", "a", "b", "c")
        + joint("lead", "revolute", "base", "a", axis="0 0 1")
        + joint("f1", "prismatic", "base", "b", axis="1 0 0", extra='<mimic joint="lead" multiplier="2" offset="0.1"/>')
        # declared before nothing special: f2 follows f1, which follows lead
        + joint("f2", "prismatic", "base", "c", axis="0 0 1", extra='<mimic joint="f1" multiplier="-1" offset="0.5"/>')
    )
    q = 0.4
    poses = model.forward_kinematics({"lead": q})
    f1 = 2 * q + 0.1
    assert_close(poses["b"][:3, 3], [f1, 0, 0])
    assert_close(poses["c"][:3, 3], [0, 0, -f1 + 0.5])


def test_mimic_of_a_mimic_declared_before_its_leader():
    model = urdf(
        links("base", "a", "b", "c")
        + joint("f2", "prismatic", "base", "c", axis="0 0 1", extra='<mimic joint="f1" multiplier="3"/>')
        + joint("f1", "prismatic", "base", "b", axis="1 0 0", extra='<mimic joint="lead" offset="1"/>')
        + joint("lead", "prismatic", "base", "a", axis="0 1 0")
    )
    poses = model.forward_kinematics({"lead": 2.0})
    assert_close(poses["b"][:3, 3], [3.0, 0, 0])
    assert_close(poses["c"][:3, 3], [0, 0, 9.0])


def test_mimic_loop_is_rejected_when_loading():
    with pytest.raises(robodesc.InvalidValue, match="loop"):
        urdf(
            links("base", "a", "b")
            + joint("a_j", "prismatic", "base", "a", extra='<mimic joint="b_j"/>')
            + joint("b_j", "prismatic", "base", "b", extra='<mimic joint="a_j"/>')
        )


def test_mimic_loop_in_a_hand_built_model_is_a_configuration_error():
    model = Model(name="m")
    model.bodies["base"] = Body("base")
    for name, leader in (("a", "b_j"), ("b", "a_j")):
        model.joints[f"{name}_j"] = Joint(f"{name}_j", JointType.PRISMATIC, "base", name, mimic=Mimic(leader))
        model.bodies[name] = Body(name, parent="base", joints=(f"{name}_j",))
    with pytest.raises(ConfigurationError, match="loop"):
        model.forward_kinematics()


def test_a_mimic_chain_longer_than_the_recursion_limit_compiles():
    """Each follower's source is worked out by walking up its leaders in a loop: a chain of mimics
    as long as the model does not hit Python's recursion limit."""
    import sys

    count = sys.getrecursionlimit() + 500
    model = Model(name="m")
    model.bodies["base"] = Body("base")
    for k in range(count):  # each joint follows the next one, and the last one leads them all
        mimic = Mimic(f"j{k + 1}", multiplier=1.0, offset=0.001) if k < count - 1 else None
        model.joints[f"j{k}"] = Joint(f"j{k}", JointType.PRISMATIC, "base", f"b{k}", axis=(1, 0, 0), mimic=mimic)
        model.bodies[f"b{k}"] = Body(f"b{k}", parent="base", joints=(f"j{k}",))
    kin = model.kinematics
    assert kin.joint_names == [f"j{count - 1}"]
    poses = model.forward_kinematics({f"j{count - 1}": 0.5})
    assert poses["b0"][0, 3] == pytest.approx(0.5 + 0.001 * (count - 1), rel=1e-12)


def test_a_dropped_model_and_its_compiled_tree_need_no_cyclic_collector():
    """A compiled tree holds no reference cycle (a recursive closure used to keep it, and the joints
    it refers to, alive until the cyclic collector ran)."""
    import gc

    model = urdf(
        links("base", "a", "b")
        + joint("lead", "prismatic", "base", "a", axis="1 0 0")
        + joint("follow", "prismatic", "base", "b", axis="0 1 0", extra='<mimic joint="lead" multiplier="2"/>')
    )
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        assert model.kinematics.joint_names == ["lead"]
        del model
        gc.collect()
        assert [type(thing).__name__ for thing in gc.garbage] == []
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


# -- the demo arm ---------------------------------------------------------------------------------------


def test_arm_layout_is_the_independent_joints_in_tree_order(arm):
    kin = arm.kinematics
    assert kin.joint_names == ["base_yaw", "shoulder_pitch", "elbow", "extend", "left_finger_joint"]
    assert kin.nq == 5
    assert [kin.layout[n] for n in kin.joint_names] == [slice(i, i + 1) for i in range(5)]
    assert arm.movable_joints() == kin.joint_names
    # the mimic follower and the fixed joint take no value
    assert "right_finger_joint" not in kin.layout
    assert "camera_mount" not in kin.layout
    assert_close(kin.reference, np.zeros(5))


def test_arm_at_zero(arm):
    poses = arm.forward_kinematics()
    assert "camera" in poses and "nope" not in poses
    assert len(poses) == len(arm.bodies)
    assert set(poses) == set(arm.bodies)
    assert_close(poses["shoulder"], T(0, 0, 0.1))
    assert_close(poses["upper_arm"], T(0, 0, 0.4))
    assert_close(poses["forearm"], T(0.3, 0, 0.4))
    assert_close(poses["slider"], T(0.35, 0, 0.4))
    assert_close(poses["left_finger"], T(0.37, 0.01, 0.4))
    assert_close(poses["right_finger"], T(0.37, -0.01, 0.4))
    assert_close(poses["camera"], pose_from_xyz_rpy([0.3, 0, 0.45], [0, 0.3, 0]))


def test_arm_joints_left_out_sit_at_reference(arm):
    poses = arm.forward_kinematics({"base_yaw": HALF_PI})
    # forearm swung from +x to +y, everything else at zero
    assert_close(poses["forearm"][:3, 3], [0, 0.3, 0.4])
    assert_close(poses["forearm"][:3, :3], rpy_to_matrix(0, 0, HALF_PI))
    assert_close(arm.forward_kinematics({})["forearm"], arm.forward_kinematics(None)["forearm"])


def test_arm_shoulder_pitch_points_the_arm_down(arm):
    poses = arm.forward_kinematics({"shoulder_pitch": HALF_PI})
    # +90 deg about y takes +x to -z
    assert_close(poses["forearm"][:3, 3], [0, 0, 0.1])


def test_arm_mimic_fingers_open_symmetrically(arm):
    poses = arm.forward_kinematics({"left_finger_joint": 0.02})
    assert_close(poses["left_finger"][:3, 3], [0.37, 0.03, 0.4])
    assert_close(poses["right_finger"][:3, 3], [0.37, -0.03, 0.4])


def test_positions_as_a_vector_in_layout_order(arm):
    kin = arm.kinematics
    values = {"base_yaw": 0.3, "shoulder_pitch": -0.2, "elbow": 0.7, "extend": 0.1, "left_finger_joint": 0.01}
    q = np.zeros(kin.nq)
    for name, v in values.items():
        q[kin.layout[name]] = v
    by_vector = arm.forward_kinematics(q)
    by_list = arm.forward_kinematics(list(q))
    by_name = arm.forward_kinematics(values)
    for body in arm.bodies:
        assert_close(by_vector[body], by_name[body])
        assert_close(by_list[body], by_name[body])
    # the vector really is used: a different vector gives a different pose
    assert not np.allclose(arm.forward_kinematics(np.zeros(kin.nq))["slider"], by_vector["slider"])


def test_pose_relative_to(arm):
    q = {"base_yaw": 0.5, "elbow": -0.4, "extend": 0.1}
    poses = arm.forward_kinematics(q)
    rel = arm.pose("slider", q, relative_to="forearm")
    assert_close(rel, np.linalg.inv(poses["forearm"]) @ poses["slider"])
    assert_close(rel, T(0.15, 0, 0))
    assert_close(arm.pose("slider", q), poses["slider"])
    assert_close(arm.pose("left_finger", relative_to="right_finger"), T(0, 0.02, 0))


def test_pose_of_unknown_body_raises_with_suggestion(arm):
    with pytest.raises(UnresolvedReference) as info:
        arm.pose("forarm")
    assert "forearm" in (info.value.suggestion or "")
    with pytest.raises(UnresolvedReference):
        arm.pose("forearm", relative_to="nope")


# -- structure queries ---------------------------------------------------------------------------------


def test_children_and_parent(arm):
    assert sorted(arm.children("forearm")) == ["camera", "slider"]
    assert sorted(arm.children("slider")) == ["left_finger", "right_finger"]
    assert arm.children("camera") == []
    assert arm.parent("shoulder") == "base"
    assert arm.parent("base") is None
    assert arm.root.name == "base"
    with pytest.raises(UnresolvedReference) as info:
        arm.children("forarm")
    assert "forearm" in info.value.suggestion


def test_ancestors(arm):
    assert arm.ancestors("left_finger") == ["slider", "forearm", "upper_arm", "shoulder", "base"]
    assert arm.ancestors("base") == []


def test_chain(arm):
    assert arm.chain("base", "left_finger") == [
        "base_yaw",
        "shoulder_pitch",
        "elbow",
        "extend",
        "left_finger_joint",
    ]
    assert arm.chain("left_finger", "base") == [
        "left_finger_joint",
        "extend",
        "elbow",
        "shoulder_pitch",
        "base_yaw",
    ]
    assert arm.chain("left_finger", "right_finger") == ["left_finger_joint", "right_finger_joint"]
    assert arm.chain("camera", "slider") == ["camera_mount", "extend"]
    assert arm.chain("forearm", "forearm") == []


# -- bad configurations ------------------------------------------------------------------------------------


def test_unknown_joint_name_raises_with_suggestion(arm):
    with pytest.raises(ConfigurationError) as info:
        arm.forward_kinematics({"elbw": 0.1})
    assert isinstance(info.value, RobodescError)
    assert "elbw" in str(info.value)
    assert "elbow" in info.value.suggestion


def test_unknown_joint_name_in_a_batch_raises(arm):
    with pytest.raises(ConfigurationError) as info:
        arm.forward_kinematics_batch({"base_yw": np.zeros(3)})
    assert "base_yaw" in info.value.suggestion


@pytest.mark.parametrize("length", [0, 4, 6])
def test_wrong_vector_length_raises(arm, length):
    with pytest.raises(ConfigurationError):
        arm.forward_kinematics(np.zeros(length))


def test_wrong_value_count_for_one_joint_raises(arm):
    with pytest.raises(ConfigurationError, match="elbow"):
        arm.forward_kinematics({"elbow": [0.1, 0.2]})


def test_non_numeric_value_raises(arm):
    with pytest.raises(ConfigurationError):
        arm.forward_kinematics({"elbow": "abc"})


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_values_raise(arm, bad):
    with pytest.raises(ConfigurationError):
        arm.forward_kinematics({"elbow": bad})
    q = np.zeros(arm.kinematics.nq)
    q[2] = bad
    with pytest.raises(ConfigurationError):
        arm.forward_kinematics(q)
    batch = np.zeros((3, arm.kinematics.nq))
    batch[1, 0] = bad
    with pytest.raises(ConfigurationError):
        arm.forward_kinematics_batch(batch)


# -- batches ------------------------------------------------------------------------------------------------


def test_batch_from_matrix_equals_single_calls(arm):
    rng = np.random.default_rng(0)
    n = 17
    q = rng.uniform(-1, 1, size=(n, arm.kinematics.nq))
    batch = arm.forward_kinematics_batch(q)
    names = list(arm.bodies)
    for name in names:
        assert batch[name].shape == (n, 4, 4)
    for i in range(n):
        single = arm.forward_kinematics(q[i])
        for name in names:
            assert_close(batch[name][i], single[name])


def test_batch_from_mapping_equals_single_calls(arm):
    rng = np.random.default_rng(1)
    n = 9
    yaw = rng.uniform(-3, 3, n)
    fingers = rng.uniform(0, 0.04, n)
    batch = arm.forward_kinematics_batch({"base_yaw": yaw, "left_finger_joint": fingers})
    assert batch["right_finger"].shape == (n, 4, 4)
    for i in range(n):
        single = arm.forward_kinematics({"base_yaw": yaw[i], "left_finger_joint": fingers[i]})
        for name in ("forearm", "left_finger", "right_finger", "camera"):
            assert_close(batch[name][i], single[name])


def test_batch_larger_than_one_chunk(arm):
    # more configurations than one internal pass evaluates: results must still line up
    n = 20000
    yaw = np.linspace(-3, 3, n)
    q = np.zeros((n, arm.kinematics.nq))
    q[:, arm.kinematics.layout["base_yaw"]] = yaw[:, None]
    batch = arm.forward_kinematics_batch(q)
    assert batch["forearm"].shape == (n, 4, 4)
    pos = batch["forearm"][:, :3, 3]
    assert_close(pos[:, 0], 0.3 * np.cos(yaw))
    assert_close(pos[:, 1], 0.3 * np.sin(yaw))


def test_batch_unknown_body_raises(arm):
    batch = arm.forward_kinematics_batch(np.zeros((2, arm.kinematics.nq)))
    with pytest.raises(UnresolvedReference) as info:
        batch["forarm"]
    assert "forearm" in info.value.suggestion


def test_batch_wrong_shapes_raise(arm):
    nq = arm.kinematics.nq
    with pytest.raises(ConfigurationError):
        arm.forward_kinematics_batch(np.zeros(nq))  # 1-D
    with pytest.raises(ConfigurationError):
        arm.forward_kinematics_batch(np.zeros((3, nq + 1)))


def test_batch_mapping_with_different_lengths_raises(arm):
    # regression: the mapping path once keyed a dict by slices (unhashable before Python 3.12)
    with pytest.raises(ConfigurationError):
        arm.forward_kinematics_batch({"base_yaw": np.zeros(3), "elbow": np.zeros(4)})


def test_batch_non_numeric_value_is_a_configuration_error(arm):
    with pytest.raises(ConfigurationError):
        arm.forward_kinematics_batch({"elbow": ["a", "b"]})


# -- rebuilding after edits -----------------------------------------------------------------------------------


def test_rebuild_kinematics_after_editing_a_joint():
    model = urdf(links("base", "s") + joint("slide", "prismatic", "base", "s", axis="1 0 0"))
    assert_close(model.forward_kinematics({"slide": 1.0})["s"][:3, 3], [1, 0, 0])
    model.joints["slide"].axis = np.array([0.0, 0.0, 1.0])
    model.rebuild_kinematics()
    assert_close(model.forward_kinematics({"slide": 1.0})["s"][:3, 3], [0, 0, 1])


# -- models built by hand from core types ------------------------------------------------------------------


def hand_model(kind: JointType, *, origin=None, axis=(0.0, 0.0, 1.0), axis2=None) -> Model:
    """base -> (joint) -> body -> (fixed 1 m along x) -> tip, plus a frame on the body."""
    origin = T(0, 0, 1) if origin is None else origin
    j = Joint(
        name="j",
        type=kind,
        parent="base",
        child="body",
        origin=origin.copy(),
        axis=np.array(axis, dtype=float),
        axis2=None if axis2 is None else np.array(axis2, dtype=float),
    )
    fixed = Joint(name="tool", type=JointType.FIXED, parent="body", child="tip", origin=T(1, 0, 0))
    bodies = {
        "base": Body("base"),
        "body": Body("body", parent="base", joints=("j",), pose=origin.copy()),
        "tip": Body("tip", parent="body", joints=("tool",), pose=T(1, 0, 0)),
    }
    frames = {"marker": Frame("marker", body="body", pose=T(0, 2, 0))}
    return Model(name="hand", bodies=bodies, joints={"j": j, "tool": fixed}, frames=frames)


def test_hand_built_ball_joint():
    model = hand_model(JointType.BALL)
    kin = model.kinematics
    assert kin.nq == 4
    assert_close(kin.reference, [1, 0, 0, 0])  # identity quaternion, w first
    poses = model.forward_kinematics({"j": [C45, 0, 0, C45]})  # 90 deg about z
    assert_close(poses["body"][:3, 3], [0, 0, 1])
    assert_close(poses["tip"][:3, 3], [0, 1, 1])
    assert_close(poses["marker"][:3, 3], [-2, 0, 1])
    # quaternions are normalised
    assert_close(model.forward_kinematics({"j": [2 * C45, 0, 0, 2 * C45]})["tip"], poses["tip"])
    # reference stands as written
    assert_close(model.forward_kinematics()["tip"], T(1, 0, 1))


def test_hand_built_ball_joint_zero_quaternion_raises():
    model = hand_model(JointType.BALL)
    with pytest.raises(ConfigurationError):
        model.forward_kinematics({"j": [0, 0, 0, 0]})


def test_hand_built_floating_joint():
    model = hand_model(JointType.FLOATING, origin=np.eye(4))
    kin = model.kinematics
    assert kin.nq == 7
    assert_close(kin.reference, [0, 0, 0, 1, 0, 0, 0])
    poses = model.forward_kinematics({"j": [1, 2, 3, C45, 0, 0, C45]})  # [x y z w qx qy qz]
    assert_close(poses["body"][:3, 3], [1, 2, 3])
    assert_close(poses["body"][:3, :3], rpy_to_matrix(0, 0, HALF_PI))
    assert_close(poses["tip"][:3, 3], [1, 3, 3])
    with pytest.raises(ConfigurationError):
        model.forward_kinematics({"j": [1, 2, 3]})


def test_hand_built_planar_joint():
    model = hand_model(JointType.PLANAR, origin=np.eye(4), axis=(0, 0, 1))
    assert model.kinematics.nq == 3
    poses = model.forward_kinematics({"j": [0.5, -0.25, HALF_PI]})
    assert_close(poses["body"][:3, 3], [0.5, -0.25, 0])
    assert_close(poses["body"][:3, :3], rpy_to_matrix(0, 0, HALF_PI))
    assert_close(poses["tip"][:3, 3], [0.5, 0.75, 0])


def test_hand_built_planar_translation_stays_in_the_plane():
    model = hand_model(JointType.PLANAR, origin=np.eye(4), axis=(1, 0, 0))
    for values in ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.3, -0.7, 0.0]):
        pos = model.forward_kinematics({"j": values})["body"][:3, 3]
        assert math.isclose(pos[0], 0.0, abs_tol=1e-12)  # no motion along the normal
        assert math.isclose(np.linalg.norm(pos), np.linalg.norm(values[:2]), abs_tol=1e-12)


def test_hand_built_universal_joint():
    model = hand_model(JointType.UNIVERSAL, origin=np.eye(4), axis=(0, 0, 1), axis2=(0, 1, 0))
    assert model.kinematics.nq == 2
    q1, q2 = 0.4, -0.9
    poses = model.forward_kinematics({"j": [q1, q2]})
    expected = axis_angle_to_matrix([0, 0, 1], q1) @ axis_angle_to_matrix([0, 1, 0], q2)
    assert_close(poses["body"][:3, :3], expected)
    # by hand: yaw 90 then pitch 90 about the turned y axis: x -> -z (pitch) -> -z (yaw leaves z)
    tip = model.forward_kinematics({"j": [HALF_PI, HALF_PI]})["tip"][:3, 3]
    assert_close(tip, [0, 0, -1])


def test_hand_built_joint_reference_is_the_pose_as_written():
    model = hand_model(JointType.REVOLUTE, origin=T(0, 0, 1))
    model.joints["j"].reference = 0.5
    kin = model.kinematics
    assert_close(kin.reference, [0.5])
    # at the reference the body sits where it is written
    assert_close(model.forward_kinematics()["tip"], T(1, 0, 1))
    assert_close(model.forward_kinematics({"j": 0.5})["tip"], T(1, 0, 1))
    # turning 90 deg past the reference
    assert_close(model.forward_kinematics({"j": 0.5 + HALF_PI})["tip"][:3, 3], [0, 1, 1])


def test_body_moved_by_two_joints_in_sequence():
    # MJCF-style: body written at (0,0,1) in its parent; a hinge about z anchored at
    # (1,0,1) (1 m from the body origin along x) then a slider along x at the body origin.
    hinge = Joint("hinge", JointType.REVOLUTE, "base", "b", origin=T(1, 0, 1), axis=np.array([0.0, 0.0, 1.0]))
    slide = Joint("slide", JointType.PRISMATIC, "base", "b", origin=T(0, 0, 1), axis=np.array([1.0, 0.0, 0.0]))
    model = Model(
        name="two",
        bodies={"base": Body("base"), "b": Body("b", parent="base", joints=("hinge", "slide"), pose=T(0, 0, 1))},
        joints={"hinge": hinge, "slide": slide},
    )
    assert model.kinematics.joint_names == ["hinge", "slide"]
    assert_close(model.forward_kinematics()["b"], T(0, 0, 1))
    # slider alone
    assert_close(model.forward_kinematics({"slide": 0.5})["b"], T(0.5, 0, 1))
    # hinge alone: the body swings about the anchor, from (-1,0) relative to it to (0,-1)
    poses = model.forward_kinematics({"hinge": HALF_PI})
    assert_close(poses["b"][:3, 3], [1, -1, 1])
    assert_close(poses["b"][:3, :3], rpy_to_matrix(0, 0, HALF_PI))
    # both: the slide happens after (inside) the hinge, along the turned x axis (world +y)
    poses = model.forward_kinematics({"hinge": HALF_PI, "slide": 0.5})
    assert_close(poses["b"][:3, 3], [1, -0.5, 1])
    # batch agrees with single evaluation for multi-joint bodies too
    q = np.array([[HALF_PI, 0.5], [0.0, 0.0], [-0.3, 0.2]])
    batch = model.forward_kinematics_batch(q)
    for i in range(len(q)):
        assert_close(batch["b"][i], model.forward_kinematics(q[i])["b"])


def test_hand_built_frames_follow_their_body():
    model = hand_model(JointType.PRISMATIC, origin=np.eye(4), axis=(1, 0, 0))
    poses = model.forward_kinematics({"j": 0.5})
    assert "marker" in poses
    assert_close(poses["marker"][:3, 3], [0.5, 2, 0])
    assert_close(model.pose("marker", {"j": 0.5}, relative_to="tip")[:3, 3], [-1, 2, 0])
    batch = model.forward_kinematics_batch(np.array([[0.0], [1.0]]))
    assert_close(batch["marker"][:, :3, 3], [[0, 2, 0], [1, 2, 0]])


def test_hand_built_batch_mapping_with_multi_value_joints():
    model = hand_model(JointType.BALL)
    quats = np.array([[1, 0, 0, 0], [C45, 0, 0, C45], [0, 1, 0, 0]], dtype=float)  # (N, 4)
    batch = model.forward_kinematics_batch({"j": quats})
    assert batch["tip"].shape == (3, 4, 4)
    assert_close(batch["tip"][:, :3, 3], [[1, 0, 1], [0, 1, 1], [1, 0, 1]])
    assert_close(batch["tip"][2, :3, :3], np.diag([1.0, -1.0, -1.0]))
    for i in range(3):
        assert_close(batch["tip"][i], model.forward_kinematics({"j": quats[i]})["tip"])
    with pytest.raises(ConfigurationError):
        model.forward_kinematics_batch({"j": np.zeros((3, 3))})  # 3 numbers for a 4-value joint


def test_a_frame_sharing_a_bodys_name_neither_shadows_it_nor_is_lost():
    # MJCF keeps bodies and sites apart: body 'arm' carries a site 'arm' half a metre out.
    model = robodesc.loads(
        """<mujoco><worldbody><body name="arm" pos="0 0 1"><joint name="j" axis="0 0 1"/>
        <geom size="0.1" mass="1"/><site name="arm" pos="0.5 0 0"/><site name="tip" pos="1 0 0"/>
        </body></worldbody></mujoco>""",
        format="mjcf",
    )
    poses = model.forward_kinematics({"j": np.pi / 2})
    assert np.allclose(poses["arm"][:3, 3], [0, 0, 1])  # the body
    assert np.allclose(poses.frame("arm")[:3, 3], [0, 0.5, 1])  # the site, turned with the body
    assert np.allclose(poses["tip"][:3, 3], [0, 1, 1]) and np.allclose(poses.frame("tip"), poses["tip"])
    assert sorted(poses) == ["arm", "tip", "world"] and len(poses) == 3  # each name once
    batch = model.forward_kinematics_batch(np.array([[0.0], [np.pi / 2]]))
    assert np.allclose(batch["arm"][:, :3, 3], [[0, 0, 1], [0, 0, 1]])
    assert np.allclose(batch.frame("arm")[:, :3, 3], [[0.5, 0, 1], [0, 0.5, 1]])
    with pytest.raises(robodesc.UnresolvedReference, match="no frame named 'world'"):
        poses.frame("world")


def test_poses_that_overflow_are_refused_by_name_without_numpy_warnings():
    """Finite joint values whose poses overflow (an offset near 1e308 plus a slide) are a
    ConfigurationError naming the body and, in a batch, the configuration; no numpy warning escapes."""
    import warnings

    import numpy as np

    from robodesc import ConfigurationError

    model = robodesc.loads(
        '<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="prismatic"><parent link="a"/>'
        '<child link="b"/><origin xyz="1e308 0 0"/><axis xyz="1 0 0"/>'
        '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>',
        format="urdf",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert model.forward_kinematics({"j": 1.0})["b"][0, 3] == 1e308
        with pytest.raises(ConfigurationError, match="pose of 'b' is not finite"):
            model.forward_kinematics({"j": 1e308})
        with pytest.raises(ConfigurationError, match="configuration 1: the pose of 'b'"):
            model.forward_kinematics_batch(np.array([[0.0], [1e308]]))
        # numpy's one-configuration check sums the poses' squares (beyond 1e308 here): a finite pose
        # still comes back as it is, and an overflowing one is still refused by name
        assert model.forward_kinematics({"j": 1.0}, backend="numpy")["b"][0, 3] == 1e308
        with pytest.raises(ConfigurationError, match="pose of 'b' is not finite"):
            model.forward_kinematics({"j": 1e308}, backend="numpy")


def test_a_model_whose_offsets_overflow_compiles_quietly_and_is_refused_by_name():
    """MuJoCo loads bodies whose offsets sum past the largest float (a body at 1e308 in another): so does
    robodesc, and compiling its kinematics lets no numpy warning out (one raised with -W error); FK
    refuses the pose that overflows, by name, as it refuses joint values too large to compose."""
    import warnings

    from robodesc import ConfigurationError

    model = robodesc.loads(
        '<mujoco><worldbody><body name="b" pos="1e308 1e308 1e308"><body name="c" pos="1e308 1e308 1e308">'
        '<geom size="1"/></body></body></worldbody></mujoco>',
        format="mjcf",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert model.kinematics is not None
        with pytest.raises(ConfigurationError, match="pose of 'c' is not finite"):
            model.forward_kinematics({})


def test_batches_of_a_deep_chain_cost_in_proportion_and_agree_with_single_poses():
    """A chain of 20,000 links: one configuration on two workers (an empty group raised IndexError),
    an empty batch, and a batch whose poses are those of single calls (walked by pointer jumps,
    not one numpy call per level: the depth-squared cost of a long chain)."""
    import numpy as np

    count = 20_000
    links = "".join(f'<link name="l{i}"/>' for i in range(count))
    joints = "".join(
        f'<joint name="j{i}" type="continuous"><parent link="l{i}"/><child link="l{i + 1}"/>'
        '<origin xyz="0 0 .01"/><axis xyz="0 1 0"/></joint>'
        for i in range(count - 1)
    )
    model = robodesc.loads(f'<robot name="r">{links}{joints}</robot>', format="urdf")
    q = np.random.default_rng(1).uniform(-0.01, 0.01, (3, count - 1))
    assert model.forward_kinematics_batch(q[:0]).array.shape[0] == 0
    assert model.forward_kinematics_batch(q[:1]).array.shape[0] == 1
    batch = model.forward_kinematics_batch(q)
    for row in range(3):
        single = model.forward_kinematics(q[row])
        assert np.allclose(batch.array[row], single.array, atol=1e-9)
    assert model.kinematics._batch_jumps


def test_joints_without_a_value_of_their_own_are_passed_over_by_name():
    """A fixed joint, a mimic follower and a joint off the tree (a loop closure) take no value: naming
    them in a mapping changes nothing, while an unknown name is refused with a suggestion. (The set of
    such joints is the model's joints less the laid-out ones, and the by-name tables are made on first
    use: both are checked here against what the layout says.)"""
    model = hand_model(JointType.REVOLUTE)
    model.joints["follow"] = Joint(
        name="follow", type=JointType.REVOLUTE, parent="body", child="tip2", mimic=Mimic(joint="j", multiplier=2.0)
    )
    model.bodies["tip2"] = Body("tip2", parent="body", joints=("follow",), pose=T(0, 1, 0))
    model.joints["closure"] = Joint(name="closure", type=JointType.REVOLUTE, parent="tip", child="base")
    kin = model.kinematics
    assert kin.joint_names == ["j"] and kin.layout == {"j": slice(0, 1)}
    expected = model.forward_kinematics({"j": 0.25}).array
    named = {"j": 0.25, "tool": 9.0, "follow": 9.0, "closure": 9.0}
    assert np.array_equal(model.forward_kinematics(named).array, expected)
    assert kin.vector(named).tolist() == [0.25]
    with pytest.raises(ConfigurationError, match="no joint named 'folow'") as caught:
        kin.vector({"folow": 1.0})
    assert "follow" in str(caught.value.suggestion)
