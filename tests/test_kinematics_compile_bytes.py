"""Compiling a model gives the same bytes however the compile gathers its operands: sliders' rows picked by
a slice (a run) or a list (not) give each joint's bases as compiled alone; chained joints all at rest
(M(ref) = I, broadcast) give each body's terms as alone; bodies that share one prefix (the moving children
of one static body) have it stacked once and broadcast, with the bases and chain terms of a copy per body.
A plan's per-thread workspaces are made on first evaluation, and evaluate as before."""

import pickle

import numpy as np

import robodesc
from robodesc.core import kinematics as K
from robodesc.core.model import Body, Joint, JointType
from robodesc.core.transforms import IDENTITY, pose_from_xyz_rpy


def _joint_and_body(k: int, kind: JointType, rng: np.random.Generator) -> tuple[Joint, Body]:
    axis = rng.standard_normal(3)
    joint = Joint(
        name=f"j{k}",
        type=kind,
        parent="base",
        child=f"b{k}",
        origin=pose_from_xyz_rpy(rng.standard_normal(3), rng.standard_normal(3)),
        axis=axis / np.linalg.norm(axis),
        axis2=np.array([0.0, -0.0, 1.0]) if kind is JointType.REVOLUTE2 else None,
    )
    body = Body(
        name=f"b{k}", parent="base", joints=(f"j{k}",), pose=pose_from_xyz_rpy(rng.standard_normal(3), (0.4, -0.5, 0.6))
    )
    return joint, body


def test_slider_rows_in_a_run_or_not_give_each_joints_bases() -> None:
    P, R = JointType.PRISMATIC, JointType.REVOLUTE
    for kinds in ([P, P, R], [R, P, P, R], [P, R, P], [P, R, R, P, P], [R, R]):
        rng = np.random.default_rng(3)
        pairs = [_joint_and_body(k, kind, rng) for k, kind in enumerate(kinds)]
        joints, bodies = [j for j, _ in pairs], [b for _, b in pairs]
        together = K._linear_bases(joints, bodies, [IDENTITY] * len(joints))
        for k in range(len(joints)):
            alone = K._linear_bases(joints[k : k + 1], bodies[k : k + 1], [IDENTITY])
            assert together[k].tobytes() == alone[0].tobytes()


def test_chained_joints_at_rest_give_each_bodys_terms() -> None:
    rng = np.random.default_rng(5)
    pairs = [_joint_and_body(k, JointType.REVOLUTE2, rng) for k in range(4)]
    joints = {j.name: j for j, _ in pairs}
    bodies = [b for _, b in pairs]
    moving = {b.name: [joints[b.joints[0]]] for b in bodies}
    prefix = {b.name: IDENTITY for b in bodies}
    source = {name: slice(2 * k, 2 * k + 2) for k, name in enumerate(joints)}
    together = K._chain_terms(bodies, moving, prefix, source)
    for body, terms in zip(bodies, together):
        (alone,) = K._chain_terms([body], moving, prefix, source)
        for (_, pre, post, _), (_, pre1, post1, _) in zip(terms, alone):
            assert pre.tobytes() == pre1.tobytes() and post.tobytes() == post1.tobytes()


def test_identity_broadcast_is_the_stacked_product() -> None:
    rng = np.random.default_rng(9)
    origins = np.array([pose_from_xyz_rpy(rng.standard_normal(3), rng.standard_normal(3)) for _ in range(5)])
    origins[0, 0, 3] = -0.0  # (a negative zero, which a product with I may not keep: the same either way)
    stacked = np.empty((5, 4, 4))
    stacked[:] = IDENTITY
    assert (origins @ IDENTITY).tobytes() == (origins @ stacked).tobytes()


def _joints_and_bodies(kind: JointType, count: int) -> tuple[list[Joint], list[Body]]:
    rng = np.random.default_rng(7)
    pairs = [_joint_and_body(k, kind, rng) for k in range(count)]
    return [j for j, _ in pairs], [b for _, b in pairs]


def test_a_shared_prefix_gives_the_bases_of_one_copy_per_body() -> None:
    prefix = pose_from_xyz_rpy((1.0, -2.0, 0.5), (0.3, -0.0, 2.0))
    for kind in (JointType.REVOLUTE, JointType.PRISMATIC):
        joints, bodies = _joints_and_bodies(kind, 5)
        shared = K._linear_bases(joints, bodies, [prefix] * 5)
        copies = K._linear_bases(joints, bodies, [prefix.copy() for _ in range(5)])
        assert shared.tobytes() == copies.tobytes()


def test_a_shared_prefix_gives_the_chain_terms_of_one_copy_per_body() -> None:
    prefix = pose_from_xyz_rpy((1.0, -2.0, 0.5), (0.3, -0.0, 2.0))
    joints, bodies = _joints_and_bodies(JointType.REVOLUTE2, 4)
    moving = {b.name: [j] for b, j in zip(bodies, joints)}
    source = {j.name: slice(2 * k, 2 * k + 2) for k, j in enumerate(joints)}
    shared = K._chain_terms(bodies, moving, {b.name: prefix for b in bodies}, source)
    copies = K._chain_terms(bodies, moving, {b.name: prefix.copy() for b in bodies}, source)
    for a, b in zip(shared, copies):
        for (_, pre_a, post_a, _), (_, pre_b, post_b, _) in zip(a, b):
            assert pre_a.tobytes() == pre_b.tobytes() and post_a.tobytes() == post_b.tobytes()


def test_workspaces_are_made_on_first_evaluation_and_left_out_of_copies() -> None:
    model = robodesc.loads(
        '<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="revolute"><parent link="a"/>'
        '<child link="b"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>'
    )
    kin = model.kinematics
    assert kin._plan._single is None
    before = kin.forward([0.5], backend="numpy").array.copy()
    assert kin._plan._single is not None
    copy = pickle.loads(pickle.dumps(kin))
    assert copy._plan._single is None
    assert (
        copy.forward([0.5], backend="numpy").array.tobytes()
        == before.tobytes()
        == kin.forward([0.5], backend="numpy").array.tobytes()
    )
