"""Is a `Model` a tree that kinematics, the command line and the writers can rely on?

Every reader's model passes through `validate_structure` before anyone sees it. The built-in
readers build valid trees by construction; a third-party reader may not, and its mistakes (a
body listed before its parent, a joint naming a body that does not exist, two roots) would
otherwise surface much later as a bare `KeyError` in `robodesc tree` or a numpy shape error in
`forward_kinematics`. Here they become one located `InvalidTree` naming what is wrong.

One pass over bodies, joints and frames (linear in the model); no recursion. Bodies listed
before their parents are put in order rather than refused: the order is a convention of the
model, not something a reader can be expected to know.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .errors import InvalidTree, InvalidValue, Location
from .model import Body, Frame, Joint, JointType, Model
from .transforms import stacked


def validate_structure(model: Model, origin: str | None = None) -> None:
    """Raise `InvalidTree` unless `model` is one well-formed tree; put bodies parents-first.

    `origin` names who built the model (e.g. "the 'links' reader of plugin 'toy'"), so that
    the error points at the code to fix, not only at the file.
    """
    problem = _Problem(model, origin)
    for what, mapping, kind in (
        ("bodies", model.bodies, Body),
        ("joints", model.joints, Joint),
        ("frames", model.frames, Frame),
    ):
        _check_mapping(problem, what, mapping, kind)
    if not model.bodies:
        problem(f"model {model.name!r} has no bodies", None, "every model needs at least a root body")
    in_order = _check_bodies(problem, model)
    _check_joints(problem, model)
    bodies = model.bodies
    for frame in model.frames.values():
        if frame.body not in bodies:
            problem(
                f"frame {frame.name!r} is attached to body {frame.body!r}, which does not exist",
                frame.location,
                "attach it to an existing body",
            )
        pose = frame.pose
        if not (type(pose) is np.ndarray and pose.shape == _POSE) and np.shape(pose) != _POSE:
            _not_a_pose(problem, pose, f"the pose of frame {frame.name!r}", frame.location)
    if not in_order:
        _order_parents_first(problem, model)


class _Problem:
    """Raises the error, with the model and the code that built it named in the message."""

    def __init__(self, model: Model, origin: str | None) -> None:
        self.model, self.origin = model, origin

    def __call__(self, message: str, location: Location | None, suggestion: str | None = None) -> None:
        raise InvalidTree(
            f"{message} (model from {self.origin})" if self.origin else message,
            location=location if isinstance(location, Location) else Location(file=self.model.source),
            suggestion=suggestion
            or f"fix {self.origin or 'the code that built the model'}: a model is one tree of "
            "bodies, joints naming existing bodies, frames on existing bodies",
        )


def _check_mapping(problem: _Problem, what: str, mapping: Any, kind: type) -> None:
    if type(mapping) is not dict and not isinstance(mapping, Mapping):  # (a dict, as always: no ABC check)
        problem(f"model.{what} is a {type(mapping).__name__}, not a mapping of names to {kind.__name__}", None)
    for key, value in mapping.items():
        if not isinstance(value, kind):
            problem(f"model.{what}[{key!r}] is a {type(value).__name__}, not a {kind.__name__}", None)
        if value.name != key:
            problem(f"model.{what}[{key!r}] holds an item named {value.name!r}", value.location)


#: The shapes of a pose and an axis. Callers test an array's own shape inline and ask `np.shape` (which
#: converts its argument first) only of what is not an array: every body, joint and frame of every load is
#: checked, and a call each cost more than the test
_POSE = (4, 4)
_AXIS = (3,)


def _not_a_pose(problem: _Problem, pose: Any, what: str, location: Location) -> None:
    """Refuse `pose`, whose shape is not (4, 4) (the caller checks, so that `what` is worded only then)."""
    problem(f"{what} has shape {np.shape(pose)}, not (4, 4)", location)


def _check_bodies(problem: _Problem, model: Model) -> bool:
    """Check every body and the joints it lists; return whether every parent is listed before its
    children (what a reader almost always gives, and then `_order_parents_first` has nothing to do)."""
    joints, bodies = model.joints, model.bodies
    roots = [body.name for body in bodies.values() if body.parent is None]
    if len(roots) > 1:
        problem(
            f"model {model.name!r} has {len(roots)} roots ({', '.join(map(repr, roots[:5]))}"
            + (", ..." if len(roots) > 5 else "")
            + ")",
            bodies[roots[1]].location,
            "attach every body but one to a parent",
        )
    listed: dict[str, str] = {}
    seen: set[str] = set()
    in_order = True
    for body in bodies.values():
        own, parent, pose = body.name, body.parent, body.pose
        if parent is not None and parent not in seen:
            if parent not in bodies:
                problem(f"body {own!r} names parent {parent!r}, which does not exist", body.location)
            in_order = False
        seen.add(own)
        if parent is None and body.joints:
            problem(f"the root body {own!r} lists joints {list(body.joints)} but has no parent", body.location)
        if not (type(pose) is np.ndarray and pose.shape == _POSE) and np.shape(pose) != _POSE:
            _not_a_pose(problem, pose, f"the pose of body {own!r}", body.location)
        for name in body.joints:
            joint = joints.get(name)
            if joint is None:
                problem(f"body {own!r} names joint {name!r}, which does not exist", body.location)
                continue
            if name in listed:
                problem(f"joint {name!r} is listed by both body {listed[name]!r} and body {own!r}", body.location)
            listed[name] = own
            if joint.child != own or joint.parent != parent:
                problem(
                    f"joint {name!r} connects {joint.parent!r} to {joint.child!r}, but body {own!r} "
                    f"lists it and has parent {parent!r}",
                    joint.location,
                )
    return in_order


def _check_joints(problem: _Problem, model: Model) -> None:
    bodies = model.bodies
    for joint in model.joints.values():  # a mimic of a missing joint is the readers' to judge (urdfdom warns)
        if not isinstance(joint.type, JointType):
            try:
                joint.type = JointType(joint.type)
            except ValueError:
                problem(
                    f"joint {joint.name!r} has type {joint.type!r}, not one of robodesc's joint types",
                    joint.location,
                    "use one of " + ", ".join(t.value for t in JointType),
                )
        if joint.parent not in bodies or joint.child not in bodies:
            end = joint.parent if joint.parent not in bodies else joint.child
            problem(f"joint {joint.name!r} names body {end!r}, which does not exist", joint.location)
        origin, axis, axis2 = joint.origin, joint.axis, joint.axis2
        if not (type(origin) is np.ndarray and origin.shape == _POSE) and np.shape(origin) != _POSE:
            _not_a_pose(problem, origin, f"the origin of joint {joint.name!r}", joint.location)
        if axis is not None and not (type(axis) is np.ndarray and axis.shape == _AXIS) and np.shape(axis) != _AXIS:
            _not_an_axis(problem, joint, "axis", axis)
        if axis2 is not None and not (type(axis2) is np.ndarray and axis2.shape == _AXIS) and np.shape(axis2) != _AXIS:
            _not_an_axis(problem, joint, "axis2", axis2)


def _not_an_axis(problem: _Problem, joint: Joint, label: str, axis: Any) -> None:
    """Refuse `axis`, which is not a 3-vector (checked by the caller, without a loop over both axes:
    every joint of every load passes there)."""
    problem(f"the {label} of joint {joint.name!r} has shape {np.shape(axis)}, not (3,)", joint.location)


def _order_parents_first(problem: _Problem, model: Model) -> None:
    """Reorder `model.bodies` so that every parent comes before its children (stable); refuse loops."""
    bodies = model.bodies
    ordered: list[str] = []
    emitted: set[str] = set()
    waiting: dict[str, list[str]] = {}  # parent -> children met before it
    for body in bodies.values():
        if body.parent is not None and body.parent not in emitted:
            waiting.setdefault(body.parent, []).append(body.name)
            continue
        stack = [body.name]
        while stack:  # the body, then the children that waited for it: an explicit stack, no recursion
            name = stack.pop()
            ordered.append(name)
            emitted.add(name)
            stack.extend(reversed(waiting.pop(name, [])))
    if len(ordered) != len(bodies):
        stuck = [name for name in bodies if name not in emitted]
        problem(
            f"bodies {', '.join(map(repr, stuck[:5]))} form a loop of parents and are not connected to the root",
            bodies[stuck[0]].location,
        )
    if ordered != list(bodies):
        model.bodies = {name: bodies[name] for name in ordered}
        model.rebuild_kinematics()


def check_finite_poses(model: Model) -> None:
    """Raise a located `InvalidValue` unless every body and frame has a finite world pose at the
    reference configuration, and every joint a finite origin and axis.

    Numbers that each read fine (1e308) can overflow once poses are composed, and kinematics would
    then hand out NaN poses. A reader calls this once its model is built. First a cheap bound, all
    arrays at once: rotations keep lengths, so a body's world position is no farther out than the
    sum of the offsets on its way from the root, and when every such sum is finite so is every
    world pose. Only when one is not are the poses composed, parents first (one pass, no
    recursion), to name the first that overflows; numpy's overflow warnings stay inside.
    """
    if _bounded(model):
        return
    world: dict[str, np.ndarray] = {}
    joints = model.joints
    with np.errstate(all="ignore"):
        for body in model.bodies.values():
            pose = np.asarray(body.pose, dtype=float)
            parent = world.get(body.parent) if body.parent is not None else None
            if parent is not None:
                pose = parent @ pose
            if not np.isfinite(pose).all():
                joint = joints.get(body.joints[0]) if body.joints else None
                _not_finite(f"the world pose of body {body.name!r}", joint.location if joint else body.location)
            world[body.name] = pose
        for joint in joints.values():
            for what, value in (("origin", joint.origin), ("axis", joint.axis), ("axis2", joint.axis2)):
                if value is not None and not np.isfinite(np.asarray(value, dtype=float)).all():
                    _not_finite(f"the {what} of joint {joint.name!r}", joint.location)
        for frame in model.frames.values():
            base = world.get(frame.body)
            if base is not None and not np.isfinite(base @ np.asarray(frame.pose, dtype=float)).all():
                _not_finite(f"the world pose of frame {frame.name!r}", frame.location)


def _bounded(model: Model) -> bool:
    """Whether every pose of `model` is finite and every world position provably is (see
    `check_finite_poses`): two numpy arrays (every 4x4 pose, every axis) and one loop of float
    additions. An offset's length is bounded by three times its largest coordinate (a max, which
    unlike a sum cannot overflow, so numpy has nothing to warn of); a bound looser than need be
    only sends a model down the exact path."""
    bodies = list(model.bodies.values())
    frames = list(model.frames.values())
    joints = list(model.joints.values())
    poses = stacked([body.pose for body in bodies] + [frame.pose for frame in frames] + [j.origin for j in joints])
    axes = stacked(
        [j.axis for j in joints if j.axis is not None] + [j.axis2 for j in joints if j.axis2 is not None], (3,)
    )
    if not (np.isfinite(poses).all() and np.isfinite(axes).all()):
        return False
    count = len(bodies)
    # the largest coordinate of each body's and frame's offset
    largest = np.abs(poses[: count + len(frames), :3, 3]).max(axis=1, initial=0.0).tolist()
    reach, frame_reach = largest[:count], largest[count:]
    index = {body.name: i for i, body in enumerate(bodies)}
    for i, body in enumerate(bodies):  # parents first: a body's bound adds its offset to its parent's
        parent = index.get(body.parent) if body.parent is not None else None
        if parent is not None and parent < i:
            reach[i] += reach[parent]
    for frame, offset in zip(frames, frame_reach):
        at = index.get(frame.body)
        if at is not None and not math.isfinite(3.0 * (reach[at] + offset)):
            return False
    return math.isfinite(3.0 * sum(reach))  # each bound is >= 0: their sum is finite only if all are


def _not_finite(what: str, location: Location) -> None:
    raise InvalidValue(
        f"{what} at the reference configuration is not finite: a pose it is composed of is too large to "
        "compute with (numbers near 1e308 overflow once poses are multiplied)",
        location=location,
        construct="pose",
        suggestion="give positions and angles of a physical size",
    )
