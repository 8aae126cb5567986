"""Compiling a model: sliders' rows picked by a slice (a run) or a list (not) give the same bases,
byte for byte, as each joint compiled alone; chained joints all at rest (M(ref) = I, broadcast)
give the same terms as each body's alone."""

import numpy as np

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
