"""The SDF builder's pose arithmetic: products with the identity are skipped (`graph.times`), and a
world pose is expressed in a body once (`Builder.in_body`), without changing a bit of the model."""

from __future__ import annotations

import itertools

import numpy as np

import robodesc
from robodesc.core.transforms import IDENTITY, invert_pose, invert_poses, pose_from_xyz_rpy
from robodesc.formats.sdf.graph import times, turns_nothing


def _poses() -> list[np.ndarray]:
    """Poses with zeros of both signs, as parsed poses hold them (a turn of +-0.0 or +-pi/2, ...)."""
    angles = (0.0, -0.0, np.pi / 2, -np.pi / 2, np.pi, 0.3)
    rpys = list(itertools.product(angles, repeat=3))[::7]
    return [pose_from_xyz_rpy((x, -0.0, 2.5 * x), rpy) for x, rpy in itertools.product((0.0, -0.0, 1.5), rpys)]


def _flipped_zeros(pose: np.ndarray) -> np.ndarray:
    flipped = pose.copy()
    zeros = flipped == 0.0
    flipped[zeros] = -flipped[zeros]
    return flipped


def test_a_product_does_not_depend_on_the_sign_of_its_factors_zeros():
    """What skipping the identity rests on: numpy's (and BLAS's) sums start at +0.0."""
    poses = _poses()
    for a, b in zip(poses, poses[1:] + poses[:1]):
        product = (a @ b).tobytes()
        assert (_flipped_zeros(a) @ b).tobytes() == product
        assert (a @ _flipped_zeros(b)).tobytes() == product
        assert not np.signbit(a @ b)[(a @ b) == 0.0].any()


def test_times_skips_the_identity_and_gives_what_a_later_product_would():
    written = pose_from_xyz_rpy((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))  # `0 0 0 0 0 0`: a -0.0 in its rotation
    assert np.signbit(written).any()
    for identity in (IDENTITY.copy(), written):
        for pose in _poses()[:40]:
            assert times(identity, pose) is pose
            assert times(pose, identity) is pose
            outer = pose_from_xyz_rpy((0.1, 0.2, 0.3), (0.4, -0.5, 0.6))
            assert (outer @ times(identity, pose)).tobytes() == (outer @ (identity @ pose)).tobytes()
    a, b = _poses()[5], _poses()[9]
    assert times(a, b).tobytes() == (a @ b).tobytes()


def test_stacked_inversions_and_products_are_those_of_each_pose():
    """What `Builder._express` rests on: numpy's stacked products are its products of each pose."""
    rng = np.random.default_rng(7)
    poses = _poses() + [
        pose_from_xyz_rpy(rng.normal(size=3) * scale, rng.normal(size=3) * 3)
        for scale in (1e-3, 1.0, 1e3)
        for _ in range(200)
    ]
    stacked = np.array(poses)
    inverses = invert_poses(stacked)
    for pose, inverse in zip(poses, inverses):
        assert inverse.tobytes() == invert_pose(pose).tobytes()
    products = inverses[::-1] @ stacked
    for a, b, product in zip(inverses[::-1], poses, products):
        assert product.tobytes() == (a @ b).tobytes()


_SDF = """<sdf version="1.9"><model name="m">
  <frame name="at_model"><pose>0 0 0 0 0 0</pose></frame>
  <link name="base"><pose>0 0 0 0 0 0</pose></link>
  <link name="arm"><pose relative_to="base">0.5 0 0.25 0 0 1.5707963267948966</pose></link>
  <link name="hand"><pose relative_to="arm">0.25 0 0 0 1.5707963267948966 0</pose></link>
  <joint name="shoulder" type="revolute"><parent>base</parent><child>arm</child><axis><xyz>0 0 1</xyz></axis></joint>
  <joint name="wrist" type="revolute"><parent>arm</parent><child>hand</child>
    <pose>0 0 0 0 0 0</pose><axis><xyz>1 0 0</xyz></axis></joint>
  <frame name="tip" attached_to="hand"><pose>0 0 0 0 0 0</pose></frame>
</model></sdf>"""


def test_poses_at_a_default_frame_are_products_of_their_own():
    """A joint at its child link's origin has the link's pose as its origin, in an array of its own; and
    every pose handed out is a product (no -0.0 of a parsed `0 0 0 0 0 0` in it)."""
    model = robodesc.loads(_SDF, format="sdf")
    for joint in model.joints.values():
        child = model.bodies[joint.child]
        assert joint.origin.tobytes() == child.pose.tobytes()
        assert not np.shares_memory(joint.origin, child.pose)
    poses = [b.pose for b in model.bodies.values() if b.name != "world"]
    poses += [j.origin for j in model.joints.values()] + [f.pose for f in model.frames.values()]
    for pose in poses:
        assert not np.signbit(pose)[pose == 0.0].any()
    for a, b in itertools.combinations(poses, 2):
        assert not np.shares_memory(a, b)


def test_an_axis_in_a_frame_that_turns_nothing_is_the_product_it_skips():
    """`Builder._axis`: an axis expressed in an unturned frame (the model frame of most pre-1.7 axes) is
    turned by a copy of the joint frame's transposed rotation instead of its product with the identity,
    which is the same matrix laid out the same way, so the product with the axis has the same bits."""
    rng = np.random.default_rng(7)
    moved = pose_from_xyz_rpy((1.0, -2.0, 0.5), (0.0, 0.0, 0.0))
    frames = [IDENTITY, pose_from_xyz_rpy((0.0, 0.0, 0.0), (0.0, 0.0, 0.0)), moved]
    assert all(turns_nothing(frame) for frame in frames)
    assert not turns_nothing(pose_from_xyz_rpy((0.0, 0.0, 0.0), (0.0, 0.0, 0.3)))
    joints = _poses() + [pose_from_xyz_rpy((0.0, 0.0, 0.0), tuple(rng.uniform(-4, 4, 3))) for _ in range(300)]
    axes = [np.array(v) for v in ((0.0, 0.0, 1.0), (-0.0, 0.0, -1.0), (1.0, -0.0, 0.0))]
    axes += [v / np.linalg.norm(v) for v in rng.normal(size=(30, 3))]
    for joint, frame, axis in itertools.product(joints, frames, axes):
        product = joint[:3, :3].T @ frame[:3, :3] @ axis
        assert (joint[:3, :3].T.copy() @ axis).tobytes() == product.tobytes()


def test_a_finite_pose_in_the_world_is_its_product_by_the_worlds_inverse_plus_zero():
    """`Builder._express`: poses all wanted in the world are the poses plus +0.0 (each -0.0 made +0.0), not
    products by the world's inverse, when finite; a pose that is not takes the products (inf * 0 is NaN)."""
    world_inverse = invert_poses(np.array([IDENTITY]))
    poses = _poses() + [_flipped_zeros(pose) for pose in _poses()]
    poses += [pose_from_xyz_rpy((1e300, -1e-300, 3.0), (0.1, -0.0, 2.0)), np.diag([1.0, -0.0, 1.0, 1.0])]
    stacked = np.array(poses)
    products = world_inverse[[0] * len(poses)] @ stacked
    stacked += 0.0
    assert stacked.tobytes() == products.tobytes()
    infinite = pose_from_xyz_rpy((np.inf, 0.0, 0.0), (0.0, 0.0, 0.0))
    with np.errstate(all="ignore"):
        assert (infinite + 0.0).tobytes() != (world_inverse[0] @ infinite).tobytes()


def test_a_model_of_links_in_the_world_has_the_poses_of_products():
    """Models of free or static links (every pose in the world, placed by the model's own pose, not its
    product by the identity) come out as the products would make them."""
    text = """<sdf version="1.9"><model name="m"><pose>0 0 0.5 0 0 -0.0</pose>
      <link name="a"><pose>0 -0.0 0 0 0 0</pose></link>
      <link name="b"><pose>1 2 3 0.1 -0.0 0.2</pose></link></model></sdf>"""
    model = robodesc.loads(text, format="sdf")
    placed = pose_from_xyz_rpy((0.0, 0.0, 0.5), (0.0, 0.0, -0.0)) @ invert_pose(IDENTITY.copy())
    world_inverse = invert_pose(IDENTITY)
    a = world_inverse @ (placed @ pose_from_xyz_rpy((0.0, -0.0, 0.0), (0.0, 0.0, 0.0)))
    b = world_inverse @ (placed @ pose_from_xyz_rpy((1.0, 2.0, 3.0), (0.1, -0.0, 0.2)))
    assert model.bodies["a"].pose.tobytes() == a.tobytes()
    assert model.bodies["b"].pose.tobytes() == b.tobytes()
    assert not np.shares_memory(model.bodies["a"].pose, model.bodies["b"].pose)
