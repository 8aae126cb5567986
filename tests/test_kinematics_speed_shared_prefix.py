"""Compiling a model: bodies that share one prefix (the moving children of one static body) have it
stacked once and broadcast; the bases and chain terms are the same bytes as with a copy per body.
A plan's per-thread workspaces are made on first evaluation, and evaluate as before."""

import pickle

import numpy as np

import robodesc
from robodesc.core import kinematics as K
from robodesc.core.model import Body, Joint, JointType
from robodesc.core.transforms import pose_from_xyz_rpy


def _joints_and_bodies(kind: JointType, count: int) -> tuple[list[Joint], list[Body]]:
    rng = np.random.default_rng(7)
    joints, bodies = [], []
    for k in range(count):
        axis = rng.standard_normal(3)
        joints.append(
            Joint(
                name=f"j{k}",
                type=kind,
                parent="base",
                child=f"b{k}",
                origin=pose_from_xyz_rpy(rng.standard_normal(3), rng.standard_normal(3)),
                axis=axis / np.linalg.norm(axis),
                axis2=np.array([0.0, -0.0, 1.0]) if kind is JointType.REVOLUTE2 else None,
            )
        )
        bodies.append(
            Body(
                name=f"b{k}",
                parent="base",
                joints=(f"j{k}",),
                pose=pose_from_xyz_rpy((0.1, -0.2, 0.3), (0.4, -0.5, 0.6)),
            )
        )
    return joints, bodies


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
