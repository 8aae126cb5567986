"""Compare two models as robots, whatever formats they were read from.

A conversion (URDF -> MJCF -> URDF, ...) or a hand edit should leave the robot the same, but two
files cannot be compared as text: formats order, name and nest things differently, and a converter
has to invent what the target needs (a `world` body, a dummy link between two joints that MJCF puts
on one body). So the comparison works on loaded models and asks what a user cares about:

* the same bodies and joints, matched by name, then by place (a body renamed but otherwise
  identical is reported as *renamed*, not as one removed and one added);
* the same joint types, axes, limits and couplings (mimic joints, MJCF joint equalities);
* the same masses, centres of mass and inertias, and the same total mass;
* the same frames (SDF frames, MJCF sites);
* above all the same motion: every common body's and frame's pose relative to the root at the
  reference configuration and at random configurations drawn from a seeded generator.

Differences carry a `code`, the names involved, the value on each side and a message. What
looks different but describes the same robot (a helper body only one side has, a fixed joint the
other side writes as a weld) is not a difference: it is reported as a note.

Everything runs in time linear in the size of the models per configuration: matching uses dicts
built once, trees are walked parents-first with memoised results, and poses are compared as
arrays. Nothing recurses, so a 2,000-body chain is compared like a 2-body one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import ConfigurationError
from .model import JOINT_DOF, Body, Joint, JointType, Limits, Model
from .transforms import axis_angle_to_matrix, invert_pose, matrix_to_rpy

__all__ = ["DiffEntry", "ModelDiff", "compare"]

#: Joint types that differ only in whether their position is limited (the limits are compared apart).
_SAME_TYPE = {JointType.CONTINUOUS: JointType.REVOLUTE}
#: Joint types with a direction (`Joint.axis`); universal and revolute2 also have `axis2`.
_AXIS_TYPES = {
    JointType.REVOLUTE,
    JointType.CONTINUOUS,
    JointType.PRISMATIC,
    JointType.SCREW,
    JointType.PLANAR,
    JointType.UNIVERSAL,
    JointType.REVOLUTE2,
}
_TWO_AXES = {JointType.UNIVERSAL, JointType.REVOLUTE2}
#: Sampling range of a joint value without limits: a turn for angles, a metre for lengths.
_ANGLE_RANGE = math.pi
_LENGTH_RANGE = 1.0
#: Limit fields in length or angle units (compared absolutely, like poses) and in rate or force
#: units (compared relative to their size).
_POSITION_FIELDS = ("lower", "upper")
_RATE_FIELDS = ("velocity", "effort")
#: A position limit this far out (or infinite) is no limit: converters write such a number where the
#: target format requires one (a URDF prismatic joint from an unlimited MJCF slide).
_UNLIMITED = 1e9
_WORLD = "\0world"  # the (unnamed) world above every root, when matching renamed roots


@dataclass(eq=False)
class DiffEntry:
    """One finding: what (`code`), about which bodies/joints/frames (`names`: the name in A, then
    the name in B when it differs), the value in A (`a`) and in B (`b`), and a sentence.

    `details` holds what a program may want beyond the two values (the limit field, the
    configuration a pose was compared at, the errors).
    """

    code: str
    names: tuple[str, ...]
    message: str
    a: Any = None
    b: Any = None
    details: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def __repr__(self) -> str:
        return f"DiffEntry({self.code!r}, {self.names!r})"

    def as_dict(self) -> dict[str, Any]:
        """The entry as plain JSON types (numpy arrays become lists)."""
        return {
            "code": self.code,
            "names": list(self.names),
            "a": _plain(self.a),
            "b": _plain(self.b),
            "message": self.message,
            "details": _plain(self.details),
        }


@dataclass(eq=False)
class ModelDiff:
    """What `compare` found: `differences` (disagreements), `notes` (what looks different but
    describes the same robot), and what was compared.

    `configurations[k]` are the joint values (by name in A) of configuration k: 0 is the
    reference, 1.. the random samples; a pose entry's ``details["configuration"]`` indexes it.
    `root` is the pair of bodies poses are taken relative to.
    """

    a: str
    b: str
    tolerance: float
    seed: int
    differences: list[DiffEntry] = field(default_factory=list)
    notes: list[DiffEntry] = field(default_factory=list)
    configurations: list[dict[str, Any]] = field(default_factory=list)
    root: tuple[str, str] | None = None
    compared: dict[str, int] = field(default_factory=dict)
    total_mass: tuple[float, float] = (0.0, 0.0)

    @property
    def agree(self) -> bool:
        """True when the two models describe the same robot within the tolerance (notes allowed)."""
        return not self.differences

    @property
    def codes(self) -> list[str]:
        """The code of every difference, in report order (handy for tests and scripts)."""
        return [d.code for d in self.differences]

    def summary(self) -> str:
        """One line: agree or differ, and how much was compared."""
        counts = self.compared
        what = ", ".join(_count(counts.get(k, 0), k) for k in ("bodies", "joints", "frames"))
        what += f" compared at {_count(len(self.configurations), 'configurations')}"
        mass = f"total mass {self.total_mass[0]:.6g} / {self.total_mass[1]:.6g} kg"
        notes = f", {len(self.notes)} note{'s' if len(self.notes) != 1 else ''}" if self.notes else ""
        if self.agree:
            verdict = "agree"
        else:
            n = len(self.differences)
            verdict = f"differ: {n} difference{'s' if n != 1 else ''}"
        return f"{self.a} and {self.b} {verdict}{notes} ({what}; {mass}; tolerance {self.tolerance:g})"

    def __str__(self) -> str:
        lines = [f"- {d}" for d in self.differences]
        lines += [f"  note {n}" for n in self.notes]
        lines.append(self.summary())
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"ModelDiff(agree={self.agree}, differences={len(self.differences)}, notes={len(self.notes)})"

    def as_dict(self) -> dict[str, Any]:
        """The whole report as plain JSON types (what ``robodesc diff --json`` prints)."""
        return {
            "a": self.a,
            "b": self.b,
            "agree": self.agree,
            "tolerance": self.tolerance,
            "seed": self.seed,
            "root": list(self.root) if self.root else None,
            "compared": dict(self.compared),
            "total_mass": list(self.total_mass),
            "differences": [d.as_dict() for d in self.differences],
            "notes": [n.as_dict() for n in self.notes],
            "configurations": _plain(self.configurations),
            "summary": self.summary(),
        }


def compare(
    a: Model,
    b: Model,
    *,
    tolerance: float = 1e-6,
    samples: int = 8,
    seed: int = 0,
    labels: tuple[str, str] | None = None,
) -> ModelDiff:
    """Compare model `a` with model `b` as robots and report every difference.

    `tolerance` bounds lengths (metres), angles (radians) and, relative to their size, masses,
    inertias, velocity and effort limits. Poses are compared at the reference and at `samples`
    random configurations drawn with `seed`, so the same call gives the same report. `labels`
    name the two sides in messages (default: each model's source file, else its name).
    """
    if not (isinstance(tolerance, (int, float)) and math.isfinite(tolerance) and tolerance >= 0):
        raise ConfigurationError(f"tolerance must be a finite number >= 0, not {tolerance!r}")
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 0:
        raise ConfigurationError(f"samples must be an integer >= 0, not {samples!r}")
    names = labels or (a.source or a.name or "A", b.source or b.name or "B")
    return _Comparison(a, b, float(tolerance), samples, seed, names).run()


# -- the two sides ------------------------------------------------------------------------------------
class _Side:
    """One model and what the comparison learns about it, by body name."""

    def __init__(self, model: Model, tolerance: float, label: str) -> None:
        self.model = model
        self.label = label
        self.bodies = model.bodies
        self.joints = model.joints
        self.children: dict[str, list[str]] = {name: [] for name in model.bodies}
        for name, body in model.bodies.items():
            if body.parent is not None and body.parent in self.children:
                self.children[body.parent].append(name)
        self.reference = model.forward_kinematics()  # as written: each joint at its own reference
        self.common: tuple[np.ndarray, dict[str, int]] | None = None
        self.common_values: np.ndarray | None = None
        # "Light": no mass to speak of and nothing to see or collide with. A converter gives MuJoCo's
        # dummy bodies a tiny mass (MuJoCo refuses massless moving bodies), hence the tolerance.
        self.light = {
            name
            for name, body in model.bodies.items()
            if _mass(body) <= tolerance and not body.visuals and not body.collisions
        }
        self._frames_on: dict[str, list[str]] | None = None
        self.corr: dict[str, str] = {}  # body here -> body on the other side
        self.as_frame: set[str] = set()  # bodies here that are frames on the other side
        self.helpers: set[str] = set()
        self.lost: set[str] = set()  # bodies only here, reported as removed/added
        self.jcorr: dict[str, str] = {}  # joint here -> joint on the other side
        self.couplings = _couplings(model)
        # Limit fields the model gives for at least one joint: a format without velocity limits (MJCF)
        # says nothing about them, which is not a disagreement.
        self.gives = {
            name: any(_rate(getattr(j.limits, name)) is not None for j in model.joints.values())
            for name in _RATE_FIELDS
        }

    def holds_frames(self, body: str) -> list[str]:
        """The frames attached to `body` (a writer may hang frames the source put on the world on a
        massless link of its own: SDF models cannot attach frames to the world)."""
        if self._frames_on is None:
            self._frames_on = {}
            for frame in self.model.frames.values():
                self._frames_on.setdefault(frame.body, []).append(frame.name)
        return self._frames_on.get(body, [])

    def ancestors_in_corr(self) -> dict[str, str | None]:
        """Every body's nearest strict ancestor that has a counterpart on the other side."""
        out: dict[str, str | None] = {}
        for name, body in self.bodies.items():  # parents first
            p = body.parent
            out[name] = None if p is None or p not in self.bodies else (p if p in self.corr else out.get(p))
        return out

    def through_helpers(self) -> tuple[dict[str, str | None], dict[str, str]]:
        """(up, down): a body, or if it is a helper the first non-helper above it (up) or, through a
        helper with one child, the first non-helper below it (down). A joint connects the bodies
        these give, whatever helpers a converter put in between."""
        up: dict[str, str | None] = {}
        for name, body in self.bodies.items():
            if name in self.helpers:
                p = body.parent
                up[name] = up.get(p) if p is not None else None
            else:
                up[name] = name
        down: dict[str, str] = {}
        for name in reversed(list(self.bodies)):  # children first
            kids = self.children[name]
            down[name] = down[kids[0]] if name in self.helpers and len(kids) == 1 else name
        return up, down

    def set_common(self, array: np.ndarray, names: list[str], row: np.ndarray) -> None:
        """World poses (K, 4, 4) and joint values (nq,) of configuration 0, which both sides share."""
        self.common = (array, {n: i for i, n in enumerate(names)})
        self.common_values = row

    def _pose0(self, name: str) -> np.ndarray:
        if self.common is None:
            return self.reference[name] if name in self.reference else np.eye(4)
        array, index = self.common
        return array[index[name]] if name in index else np.eye(4)

    def _value0(self, joint: Joint) -> float | None:
        """A one-valued joint's value in configuration 0 (None before it is known: the reference)."""
        if self.common_values is None:
            return None
        layout = self.model.kinematics.layout
        if joint.name in layout and layout[joint.name].stop - layout[joint.name].start == 1:
            return float(self.common_values[layout[joint.name].start])
        if joint.mimic is not None and joint.mimic.joint in self.joints:
            leader = self._value0(self.joints[joint.mimic.joint]) if joint.mimic.joint != joint.name else None
            return None if leader is None else joint.mimic.multiplier * leader + joint.mimic.offset
        return None

    def world_axis(self, joint: Joint, axis: np.ndarray, root: str) -> np.ndarray:
        """A joint's direction in the root body's frame, in configuration 0 (each side's own reference
        until that is known).

        Taken in the configuration both sides share, not each side's own reference: a converter may
        move an MJCF `ref` into the joint frame, which turns the frame as written but not the robot
        at given joint values. A joint after others on one body (MJCF) turns with them."""
        frame = self._pose0(joint.parent)
        body = self.bodies.get(joint.child)
        for name in body.joints if body is not None else ():
            if name == joint.name:
                break
            earlier = self.joints.get(name)
            if earlier is not None:
                frame = frame @ _moved(earlier, self._value0(earlier))
        frame = frame @ np.asarray(joint.origin, dtype=float)
        v = self._pose0(root)[:3, :3].T @ frame[:3, :3] @ np.asarray(axis, dtype=float)
        n = np.linalg.norm(v)
        return v / n if n > 0 else v


def _moved(joint: Joint, value: float | None) -> np.ndarray:
    """How a one-valued joint at `value` moves what follows it on its body, in the parent's frame:
    origin @ M(ref)^-1 @ M(value) @ origin^-1 (the identity at the reference or for other types)."""
    if value is None or joint.dof != 1:
        return np.eye(4)
    ref = np.atleast_1d(np.asarray(joint.reference, dtype=float)).reshape(-1)
    delta = value - (float(ref[0]) if ref.size == 1 else 0.0)
    axis = np.asarray(joint.axis, dtype=float)
    n = float(np.linalg.norm(axis))
    if delta == 0.0 or n == 0.0:
        return np.eye(4)
    axis = axis / n
    motion = np.eye(4)
    if joint.type in (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.SCREW):
        motion[:3, :3] = axis_angle_to_matrix(axis, delta)
    if joint.type is JointType.PRISMATIC:
        motion[:3, 3] = axis * delta
    elif joint.type is JointType.SCREW:
        motion[:3, 3] = axis * joint.pitch * delta
    origin = np.asarray(joint.origin, dtype=float)
    return origin @ motion @ invert_pose(origin)


#: How a reader names an element the description left unnamed (MJCF: "<unnamed joint 3>").
_UNNAMED = re.compile(r"<unnamed [\w-]+ \d+>")


def _unnamed(name: str) -> bool:
    """Whether `name` is a reader's placeholder for an element the description did not name: giving
    such an element a name (or another number) on the other side renames nothing a user wrote."""
    return _UNNAMED.fullmatch(name) is not None


def _rate(value: float | None) -> float | None:
    """A velocity or effort limit, None when it states none: URDF requires both attributes, so files
    write 0 (or SDFormat's -1, "unlimited") where they mean "not given"; no joint moves with 0."""
    return None if value is None or not value > 0 else float(value)


def _mass(body: Body) -> float:
    return float(body.inertial.mass) if body.inertial is not None else 0.0


def _couplings(model: Model) -> dict[str, tuple[str | None, tuple[float, ...]]]:
    """follower joint -> (leader or None, polynomial coefficients c0..c4 of the leader's value).

    A URDF/SDF mimic and an MJCF joint equality say the same thing in two ways; both become
    ``follower = c0 + c1 * leader + ...`` here so they compare equal."""
    out: dict[str, tuple[str | None, tuple[float, ...]]] = {}
    for c in model.constraints:
        if c.kind == "joint" and c.elements and c.elements[0] in model.joints:
            coefficients = tuple(float(v) for v in c.coefficients) + (0.0,) * (5 - len(c.coefficients))
            leader = c.elements[1] if len(c.elements) > 1 and c.elements[1] else None
            out[c.elements[0]] = (leader, coefficients[:5])
    for name, joint in model.joints.items():
        if joint.mimic is not None:
            out[name] = (joint.mimic.joint, (float(joint.mimic.offset), float(joint.mimic.multiplier), 0.0, 0.0, 0.0))
    return out


# -- the comparison ---------------------------------------------------------------------------------
class _Comparison:
    def __init__(self, a: Model, b: Model, tolerance: float, samples: int, seed: int, labels: tuple[str, str]) -> None:
        self.tol = tolerance
        self.samples = samples
        self.seed = seed
        self.A = _Side(a, tolerance, "A")
        self.B = _Side(b, tolerance, "B")
        self.result = ModelDiff(a=labels[0], b=labels[1], tolerance=tolerance, seed=seed)
        self.result.compared = {"bodies": 0, "joints": 0, "frames": 0}
        self.root: tuple[str, str] | None = None

    def differ(self, code: str, names: Iterable[str], message: str, a: Any = None, b: Any = None, **details: Any):
        self.result.differences.append(DiffEntry(code, _names(names), message, a, b, details))

    def note(self, code: str, names: Iterable[str], message: str, a: Any = None, b: Any = None, **details: Any):
        self.result.notes.append(DiffEntry(code, _names(names), message, a, b, details))

    def run(self) -> ModelDiff:
        self._match_bodies()
        self._find_root()
        self._compare_bodies()
        self._match_joints()
        self._match_frames()
        self._evaluate()
        self._compare_joints()
        self._compare_poses()
        self._compare_total_mass()
        return self.result

    # -- bodies ---------------------------------------------------------------------------------
    def _match_bodies(self) -> None:
        A, B = self.A, self.B
        for name in A.bodies:
            if name in B.bodies and not _unnamed(name):  # a placeholder names different bodies on each side
                A.corr[name] = B.corr[name] = name
        # A light leaf body the other side writes as a frame (a URDF `tool0` link as an MJCF site).
        for side, other in ((A, B), (B, A)):
            for name in side.bodies:
                if (
                    name not in side.corr
                    and name in other.model.frames
                    and name in side.light
                    and not side.children[name]
                ):
                    side.as_frame.add(name)
                    self.note(
                        "body_is_frame",
                        [name],
                        f"{name!r} is a body without mass or shapes in {side.label} and a frame in {other.label};"
                        " their poses are compared",
                        a="body" if side is A else "frame",
                        b="frame" if side is A else "body",
                    )
        self._match_renamed()
        for side, code in ((A, "body_removed"), (B, "body_added")):
            for name, body in side.bodies.items():
                if name in side.corr or name in side.as_frame:
                    continue
                if name in side.light and (side.children[name] or side.holds_frames(name)):
                    side.helpers.add(name)
                    joints = f" by {', '.join(map(repr, body.joints))}" if body.joints else ""
                    where = f"below {body.parent!r}{joints}" if body.parent else "at the root"
                    above = side.children[name] or side.holds_frames(name)
                    self.note(
                        "helper_body",
                        [name],
                        f"body {name!r} is only in {side.label}, without mass or shapes, {where} and above"
                        f" {', '.join(map(repr, above))}: a helper, poses are compared through it",
                        a=name if side is A else None,
                        b=name if side is B else None,
                    )
                elif self._holds_world_shapes(side, B if side is A else A, body):
                    self.note(
                        "world_shapes",
                        [name],
                        f"body {name!r} is only in {side.label}: a massless link fixed to {body.parent!r} that holds"
                        f" the shapes {(B if side is A else A).label} puts on {body.parent!r} itself",
                        a=name if side is A else None,
                        b=name if side is B else None,
                    )
                else:
                    side.lost.add(name)
                    where = f"under {body.parent!r}" if body.parent else "as a root"
                    joints = f" with joint(s) {', '.join(map(repr, body.joints))}" if body.joints else ""
                    self.differ(
                        code,
                        [name],
                        f"body {name!r} ({_mass(body):.6g} kg) is only in {side.label}, {where}{joints}",
                        a=name if side is A else None,
                        b=name if side is B else None,
                    )

    def _holds_world_shapes(self, side: _Side, other: _Side, body: Body) -> bool:
        """Whether `body`, on one side only, is where that side's format had to put the shapes the
        other side puts on its root (the world) directly: SDF's world cannot hold shapes, so an MJCF
        worldbody's floor goes on a massless link fixed to the world. Such a link is a leaf, fixed
        (no joint that takes a value), and the root above it holds no shapes of its own while the
        other side's root of the same name does."""
        root = side.bodies.get(body.parent) if body.parent is not None else None
        if root is None or root.parent is not None or side.children[body.name] or _mass(body) > self.tol:
            return False
        if any(j in side.joints and side.joints[j].dof > 0 for j in body.joints):
            return False
        theirs = other.bodies.get(root.name)
        return (
            theirs is not None and not (root.visuals or root.collisions) and bool(theirs.visuals or theirs.collisions)
        )

    def _match_renamed(self) -> None:
        """Pair a body only in A with a body only in B at the same place: their parents correspond
        (going up through light bodies, which may be helpers) and their pose in that parent and
        inertial agree. Parents-first, so a renamed parent lets its renamed children match too."""
        A, B = self.A, self.B
        groups: dict[str, _Candidates] = {}
        up: dict[str, str | None] = {}  # A body -> its nearest corresponded body going up through light ones
        for name, body in A.bodies.items():
            parent = body.parent
            if name not in A.corr and name not in A.as_frame:
                anchor = _WORLD if parent is None else up.get(parent)
                if anchor is not None:
                    target = _WORLD if anchor == _WORLD else A.corr[anchor]
                    if target not in groups:
                        groups[target] = _Candidates(B, target)
                    match = groups[target].take(self, name, anchor)
                    if match is not None:
                        A.corr[name], B.corr[match] = match, name
                        helpers = name in A.light and match in B.light and A.children[name] and B.children[match]
                        report = self.note if helpers or _unnamed(name) or _unnamed(match) else self.differ
                        if name != match:  # an unnamed body matched where it stands: nothing renamed
                            report(
                                "body_renamed",
                                [name, match],
                                f"body {name!r} in A is {match!r} in B (same place, same inertia)",
                                a=name,
                                b=match,
                            )
            if name in A.corr:
                up[name] = name
            elif name in A.light and name not in A.as_frame:
                up[name] = _WORLD if parent is None else up.get(parent)
            else:
                up[name] = None

    def _compare_bodies(self) -> None:
        A, B = self.A, self.B
        up_a, up_b = A.ancestors_in_corr(), B.ancestors_in_corr()
        self.ancestors = up_a
        for name_a, name_b in A.corr.items():
            ba, bb = A.bodies[name_a], B.bodies[name_b]
            names = [name_a, name_b]
            label = _label(name_a, name_b, "body")
            pa, pb = up_a[name_a], up_b[name_b]
            expected = A.corr[pa] if pa is not None else None
            if expected != pb:
                self.differ(
                    "body_parent",
                    names,
                    f"{label} hangs from {pa!r} in A but from {pb!r} in B",
                    a=pa,
                    b=pb,
                )
            floating_a = any(A.joints[j].type is JointType.FLOATING for j in ba.joints if j in A.joints)
            floating_b = any(B.joints[j].type is JointType.FLOATING for j in bb.joints if j in B.joints)
            fixed_side = bb if ba.floating else ba
            if not floating_a and not floating_b and ba.floating != bb.floating and fixed_side.parent is None:
                # a root with no parent at all (a URDF root link): URDF does not say whether it is free
                # (Gazebo frees it, MuJoCo's and Pinocchio's imports fix it), so a free root on the
                # other side is the same robot; poses relative to the root do not depend on it
                self.note(
                    "root_floating",
                    names,
                    f"{label} is a free root in {'A' if ba.floating else 'B'}; the other side's format leaves its root"
                    " free or fixed to whoever simulates it",
                    a=ba.floating,
                    b=bb.floating,
                )
            elif not floating_a and not floating_b and ba.floating != bb.floating:
                self.differ(
                    "body_floating",
                    names,
                    f"{label} moves freely (without a joint) in {'A' if ba.floating else 'B'} only",
                    a=ba.floating,
                    b=bb.floating,
                )
            for what, va, vb in _inertial_gaps(ba, bb, self.tol):
                self.differ(what, names, f"{label}: {_describe(what, va, vb)}", a=va, b=vb)

    def _compare_total_mass(self) -> None:
        ma = sum(_mass(b) for b in self.A.bodies.values())
        mb = sum(_mass(b) for b in self.B.bodies.values())
        self.result.total_mass = (ma, mb)
        if not _close_relative(ma, mb, self.tol):
            self.differ("total_mass", [], f"total mass {ma:.9g} kg in A, {mb:.9g} kg in B", a=ma, b=mb)

    # -- joints ---------------------------------------------------------------------------------
    def _match_joints(self) -> None:
        A, B = self.A, self.B
        self.up_a, self.down_a = A.through_helpers()
        self.up_b, self.down_b = B.through_helpers()
        for name in A.joints:
            if name in B.joints and not _unnamed(name):  # a placeholder names different joints on each side
                A.jcorr[name] = B.jcorr[name] = name
        # A joint only in A and one only in B between the same bodies, of the same type: renamed.
        waiting: dict[tuple[str | None, str | None], list[str]] = {}
        for name, joint in B.joints.items():
            if name not in B.jcorr:
                waiting.setdefault(self._ends_b(joint), []).append(name)
        for name, joint in A.joints.items():
            if name in A.jcorr:
                continue
            ends = self._ends_a(joint)
            if ends[1] is None or ends not in waiting:
                continue
            kind = _SAME_TYPE.get(joint.type, joint.type)
            same = [n for n in waiting[ends] if _SAME_TYPE.get(B.joints[n].type, B.joints[n].type) is kind]
            if not same:
                continue
            best = min(same, key=lambda n: self._axis_angle(joint, B.joints[n]))
            waiting[ends].remove(best)
            A.jcorr[name], B.jcorr[best] = best, name
            if name != best:  # an unnamed joint matched where it stands: nothing renamed
                report = self.note if _unnamed(name) or _unnamed(best) else self.differ
                report("joint_renamed", [name, best], f"joint {name!r} in A is {best!r} in B", a=name, b=best)
        self.result.compared["joints"] = len(A.jcorr)
        for side, other, code in ((A, B, "joint_removed"), (B, A, "joint_added")):
            for name, joint in side.joints.items():
                if name not in side.jcorr:
                    self._unmatched_joint(side, other, joint, code)

    def _compare_joints(self) -> None:
        """Joints both sides have, once configuration 0 is known (axes are compared there)."""
        A, B = self.A, self.B
        self._unstated: set[tuple[str, str]] = set()
        for name_a, name_b in A.jcorr.items():
            self._compare_joint(A.joints[name_a], B.joints[name_b])
        for what, label in sorted(self._unstated):
            stating = "B" if label == "A" else "A"
            self.note(
                "limit_not_stated",
                [],
                f"{label} gives no {what} limit on any joint (its format may have none): {stating}'s {what} limits"
                " are not compared",
                field=what,
                side=label,
            )

    def _ends_a(self, joint: Joint) -> tuple[str | None, str | None]:
        """The bodies joint (of A) connects, as names in B (None: no counterpart)."""
        up = self.up_a.get(joint.parent) if joint.parent in self.A.bodies else None
        down = self.down_a.get(joint.child)
        return (self.A.corr.get(up) if up else None, self.A.corr.get(down) if down else None)

    def _ends_b(self, joint: Joint) -> tuple[str | None, str | None]:
        up = self.up_b.get(joint.parent) if joint.parent in self.B.bodies else None
        down = self.down_b.get(joint.child)
        return (up if up in self.B.corr else None, down if down in self.B.corr else None)

    def _axis_angle(self, ja: Joint, jb: Joint) -> float:
        if ja.type not in _AXIS_TYPES or jb.type not in _AXIS_TYPES or self.root is None:
            return 0.0
        ua = self.A.world_axis(ja, ja.axis, self.root[0])
        ub = self.B.world_axis(jb, jb.axis, self.root[1])
        return _vector_angle(ua, ub)

    def _find_root(self) -> None:
        """The pair poses and axes are taken relative to: A's first body (parents first) that B has too.

        Not the models' own roots: a converter may add a `world` body above the robot, and a pose
        relative to the world would then compare the robot's placement, not its shape."""
        self.root = next(((name, self.A.corr[name]) for name in self.A.bodies if name in self.A.corr), None)
        self.result.root = self.root

    def _compare_joint(self, ja: Joint, jb: Joint) -> None:
        names = [ja.name, jb.name]
        label = _label(ja.name, jb.name, "joint")
        ends_a, ends_b = self._ends_a(ja), self._ends_b(jb)
        if ends_a != ends_b:
            self.differ(
                "joint_bodies",
                names,
                f"{label} connects {ja.parent!r} -> {ja.child!r} in A but {jb.parent!r} -> {jb.child!r} in B",
                a=[ja.parent, ja.child],
                b=[jb.parent, jb.child],
            )
        kind_a, kind_b = _SAME_TYPE.get(ja.type, ja.type), _SAME_TYPE.get(jb.type, jb.type)
        if kind_a is not kind_b:
            self.differ(
                "joint_type", names, f"{label} is {ja.type} in A, {jb.type} in B", a=str(ja.type), b=str(jb.type)
            )
            return  # axes and limits mean different things on different types
        if ja.type in _AXIS_TYPES and self.root is not None:
            pairs = [("axis", ja.axis, jb.axis)]
            if ja.type in _TWO_AXES:
                default = np.array([0.0, 1.0, 0.0])
                pairs.append(
                    (
                        "axis2",
                        ja.axis2 if ja.axis2 is not None else default,
                        jb.axis2 if jb.axis2 is not None else default,
                    )
                )
            for which, va, vb in pairs:
                ua = self.A.world_axis(ja, va, self.root[0])
                ub = self.B.world_axis(jb, vb, self.root[1])
                angle = _vector_angle(ua, ub)
                if angle > self.tol:
                    self.differ(
                        "joint_axis",
                        names,
                        f"{label}: {which} {_vec(ua)} in A, {_vec(ub)} in B (relative to the root at the reference),"
                        f" {angle:.3g} rad apart",
                        a=ua,
                        b=ub,
                        axis=which,
                        angle=angle,
                    )
        if ja.type is JointType.SCREW and abs(ja.pitch - jb.pitch) > self.tol:
            self.differ(
                "joint_pitch", names, f"{label}: pitch {ja.pitch:.9g} in A, {jb.pitch:.9g} in B", ja.pitch, jb.pitch
            )
        if ja.type is JointType.FIXED and jb.type is JointType.FIXED:
            return  # a fixed joint's <limit> (URDF allows one) limits nothing; writers leave it out
        self._compare_limits(ja, jb, ja.limits, jb.limits, "")
        if ja.type in _TWO_AXES:
            self._compare_limits(ja, jb, ja.limits2 or Limits(), jb.limits2 or Limits(), "2")
        self._compare_coupling(ja, jb)

    def _compare_limits(self, ja: Joint, jb: Joint, la: Limits, lb: Limits, suffix: str) -> None:
        label = _label(ja.name, jb.name, "joint")
        for what in (*_POSITION_FIELDS, *_RATE_FIELDS):
            va, vb = getattr(la, what), getattr(lb, what)
            if what in _POSITION_FIELDS:
                va, vb = _limit(va), _limit(vb)
            else:
                va, vb = _rate(va), _rate(vb)
            if va is None and vb is None:
                continue
            if va is None or vb is None:
                silent = self.B if vb is None else self.A
                if what in _RATE_FIELDS and not silent.gives[what]:
                    self._unstated.add((what, silent.label))  # its format has no such limit: noted once
                    continue
                ok = False
            elif what in _POSITION_FIELDS:
                ok = va == vb or abs(va - vb) <= self.tol
            else:
                ok = _close_relative(va, vb, self.tol)
            if not ok:
                self.differ(
                    "joint_limit",
                    [ja.name, jb.name],
                    f"{label}: {what}{suffix} limit {_number(va)} in A, {_number(vb)} in B",
                    a=va,
                    b=vb,
                    field=what + suffix,
                )

    def _compare_coupling(self, ja: Joint, jb: Joint) -> None:
        ca, cb = self.A.couplings.get(ja.name), self.B.couplings.get(jb.name)
        if ca is None and cb is None:
            return
        label = _label(ja.name, jb.name, "joint")
        same = False
        if ca is not None and cb is not None:
            leader_a = self.A.jcorr.get(ca[0], ca[0]) if ca[0] is not None else None
            same = leader_a == cb[0] and all(abs(x - y) <= self.tol for x, y in zip(ca[1], cb[1]))
        if not same:
            self.differ(
                "joint_mimic",
                [ja.name, jb.name],
                f"{label} follows {_coupling_text(ca)} in A, {_coupling_text(cb)} in B",
                a=_coupling_value(ca),
                b=_coupling_value(cb),
            )

    def _unmatched_joint(self, side: _Side, other: _Side, joint: Joint, code: str) -> None:
        up, down = (self.up_a, self.down_a) if side is self.A else (self.up_b, self.down_b)
        child = down.get(joint.child)
        if child in side.lost:
            return  # the body it moves is only on this side: said with the body
        counterpart = side.corr.get(child) if child is not None else None
        if joint.dof == 0:
            self.note(
                "fixed_joint",
                [joint.name],
                f"fixed joint {joint.name!r} ({joint.parent!r} -> {joint.child!r}) is only in {side.label};"
                f" {other.label} attaches {counterpart or joint.child!r} rigidly without naming a joint",
                a=joint.name if side is self.A else None,
                b=joint.name if side is self.B else None,
            )
            return
        if joint.type is JointType.FLOATING and counterpart is not None and other.bodies[counterpart].floating:
            self.note(
                "floating_joint",
                [joint.name],
                f"floating joint {joint.name!r} is only in {side.label}; {other.label} lets {counterpart!r} move"
                " freely without a joint",
                a=joint.name if side is self.A else None,
                b=joint.name if side is self.B else None,
            )
            return
        self.differ(
            code,
            [joint.name],
            f"{joint.type} joint {joint.name!r} ({joint.parent!r} -> {joint.child!r}) is only in {side.label}",
            a=joint.name if side is self.A else None,
            b=joint.name if side is self.B else None,
        )

    # -- frames ---------------------------------------------------------------------------------
    def _match_frames(self) -> None:
        A, B = self.A, self.B
        fa, fb = A.model.frames, B.model.frames
        self.frame_pairs = [name for name in fa if name in fb]
        for name, frame in fa.items():
            if name not in fb and name not in B.as_frame:
                self.differ("frame_removed", [name], f"frame {name!r} (on {frame.body!r}) is only in A", a=name)
        for name, frame in fb.items():
            if name not in fa and name not in A.as_frame:
                self.differ("frame_added", [name], f"frame {name!r} (on {frame.body!r}) is only in B", b=name)

    # -- poses ----------------------------------------------------------------------------------
    def _compare_poses(self) -> None:
        A, B = self.A, self.B
        self.result.compared["bodies"] = len(A.corr)
        self.result.compared["frames"] = len(self.frame_pairs) + len(A.as_frame) + len(B.as_frame)
        qa, qb = self.q
        pose_a, pose_b = self.poses
        if self.root is None:
            self.note("no_common_body", [], "the models have no body in common: poses are not compared")
            return
        assert self.root is not None
        # Items: (name in A, name in B, what, index of the item whose pose is its "parent").
        items: list[tuple[str, str, str]] = [(self.root[0], self.root[1], "body")]
        parents: list[int] = [0]
        index = {self.root[0]: 0}

        def parent_of(body: str, itself: bool) -> int:
            """The item of `body` (when `itself` and it has one) or of its nearest corresponded ancestor."""
            if itself and body in index:
                return index[body]
            above = self.ancestors.get(body)
            return index.get(above, 0) if above is not None else 0

        for name in A.bodies:
            if name in A.corr and name != self.root[0]:
                parents.append(parent_of(name, False))
                index[name] = len(items)
                items.append((name, A.corr[name], "body"))
        for name in A.as_frame:
            parents.append(parent_of(name, False))
            items.append((name, name, "body"))
        for name in [*B.as_frame, *self.frame_pairs]:
            parents.append(parent_of(A.model.frames[name].body, True))
            items.append((name, name, "frame"))
        at_a = {n: i for i, n in enumerate(pose_a.names)}
        at_b = {n: i for i, n in enumerate(pose_b.names)}
        wa = pose_a.array[:, [at_a[i[0]] for i in items]]
        wb = pose_b.array[:, [at_b[i[1]] for i in items]]
        par = np.array(parents, dtype=int)
        ra, rb = _inverse(wa[:, :1]) @ wa, _inverse(wb[:, :1]) @ wb  # relative to the root
        la, lb = _inverse(wa[:, par]) @ wa, _inverse(wb[:, par]) @ wb  # relative to the parent item
        t_err, r_err = _pose_errors(ra, rb)
        tl, rl = _pose_errors(la, lb)
        bad: np.ndarray = np.asarray((t_err > self.tol) | (r_err > self.tol))
        bad_local: np.ndarray = np.asarray((tl > self.tol) | (rl > self.tol))
        # A body is reported when its own placement differs, or when its world pose differs and its
        # parent's does not; bodies that only move with a differing parent are counted with it.
        flagged = bad & (bad_local | ~bad[:, par])
        below = np.zeros(len(items), dtype=int)
        moved_with = bad.any(axis=0) & ~flagged.any(axis=0)
        for m in range(len(items) - 1, 0, -1):  # children come after parents: counts go upwards
            if moved_with[m]:
                below[par[m]] += 1 + below[m]
        root_label = _label(*self.root, "body")
        for m in np.nonzero(flagged.any(axis=0))[0].tolist():
            name_a, name_b, what = items[m]
            worst = np.where(flagged[:, m], np.maximum(t_err[:, m], r_err[:, m]), -1.0)
            c = int(np.argmax(worst >= worst.max() - self.tol))  # the first of the worst: the reference if it is
            where = "the reference" if c == 0 else f"sample {c}"
            count = int(flagged[:, m].sum())
            more = ""
            if below[m]:
                them = "body or frame below moves" if below[m] == 1 else "bodies and frames below move"
                more = f", {below[m]} {them} with it"
            self.differ(
                "pose" if what == "body" else "frame_pose",
                [name_a, name_b],
                f"{_label(name_a, name_b, what)}: pose relative to {root_label} differs at {where} by"
                f" {t_err[c, m]:.3g} m and {r_err[c, m]:.3g} rad (at {count} of {len(qa)} configurations){more}",
                a=_pose_value(ra[c, m]),
                b=_pose_value(rb[c, m]),
                configuration=c,
                translation_error=float(t_err[c, m]),
                rotation_error=float(r_err[c, m]),
                configurations_differing=count,
                moved_with_it=int(below[m]),
            )

    def _evaluate(self) -> None:
        """The configurations and every body's and frame's world pose at each, on both sides."""
        self.q = qa, qb = self._configurations()
        self.poses = pose_a, pose_b = (
            self.A.model.forward_kinematics_batch(qa),
            self.B.model.forward_kinematics_batch(qb),
        )
        self.A.set_common(pose_a.array[0], pose_a.names, qa[0])
        self.B.set_common(pose_b.array[0], pose_b.names, qb[0])

    def _configurations(self) -> tuple[np.ndarray, np.ndarray]:
        """Joint values of A and B at the reference (A's reference values, given to B's joints too) and
        at `samples` random configurations; only joints both sides have with as many values are
        sampled, the others stay at their own reference. Followers (mimic, joint equalities) are set
        from their leader on the side where they take a value of their own."""
        A, B = self.A, self.B
        ka, kb = A.model.kinematics, B.model.kinematics
        n = 1 + self.samples
        qa = np.tile(ka.reference, (n, 1))
        qb = np.tile(kb.reference, (n, 1))
        couplings: dict[str, tuple[str | None, tuple[float, ...]]] = dict(A.couplings)
        for follower, (leader, coefficients) in B.couplings.items():
            fa = B.jcorr.get(follower)
            if fa is not None and fa not in couplings:
                couplings[fa] = (B.jcorr.get(leader) if leader is not None else None, coefficients)
        rng = np.random.default_rng(self.seed)
        sampled: list[str] = []
        for name in ka.joint_names:  # A's configuration order: deterministic
            other = A.jcorr.get(name)
            if other is None or other not in kb.layout or name in couplings:
                continue
            sa, sb = ka.layout[name], kb.layout[other]
            if sa.stop - sa.start != sb.stop - sb.start:
                continue
            qb[0, sb] = qa[0, sa]
            if n > 1:
                values = _sample(A.joints[name], B.joints[other], rng, n - 1)
                qa[1:, sa] = values
                qb[1:, sb] = values
            sampled.append(name)
        followers: list[str] = []
        for _ in range(3):  # chains of followers settle in as many passes as they are long
            for follower, (leader, coefficients) in couplings.items():
                source = _column(qa, ka.layout, leader)
                if source is None and leader is not None:
                    continue
                values = np.zeros(n) if source is None else source
                result = sum(c * values**k for k, c in enumerate(coefficients))
                if follower in ka.layout and ka.layout[follower].stop - ka.layout[follower].start == 1:
                    qa[:, ka.layout[follower].start] = result
                other = A.jcorr.get(follower)
                if other in kb.layout and kb.layout[other].stop - kb.layout[other].start == 1:
                    qb[:, kb.layout[other].start] = result
                if follower in ka.layout and follower not in followers:
                    followers.append(follower)
        recorded = sampled + followers
        self.result.configurations = [{name: _value(qa[row, ka.layout[name]]) for name in recorded} for row in range(n)]
        return qa, qb


class _Candidates:
    """The bodies of B that a body only in A may have been renamed to, below one corresponded body
    of B (or the world): B bodies without a counterpart, found going down through light ones.
    Built once per parent and compared as one array, so many renamed siblings stay cheap."""

    def __init__(self, side: _Side, target: str) -> None:
        self.side = side
        self.target = target
        todo = (
            [n for n, b in side.bodies.items() if b.parent is None] if target == _WORLD else list(side.children[target])
        )
        self.names: list[str] = []
        while todo:
            name = todo.pop()
            if name in side.corr or name in side.as_frame:
                continue
            self.names.append(name)
            if name in side.light:
                todo.extend(side.children[name])
        base = np.eye(4) if target == _WORLD else side.reference[target]
        stacked = np.array([side.reference[n] for n in self.names]).reshape(-1, 4, 4)
        self.poses = _inverse(base) @ stacked
        self.free = np.ones(len(self.names), dtype=bool)
        self.floating = np.array([_floats(side, n) for n in self.names], dtype=bool)

    def take(self, comparison: _Comparison, name: str, anchor: str) -> str | None:
        """The best free candidate for A's body `name` (whose corresponded ancestor is `anchor`)."""
        if not self.free.any():
            return None
        A = comparison.A
        base = np.eye(4) if anchor == _WORLD else A.reference[anchor]
        mine = _inverse(base) @ A.reference[name]
        t, r = _pose_errors(np.broadcast_to(mine, self.poses.shape), self.poses)
        if _floats(A, name):
            # a free body's place at the reference is its joint's reference value, which a format
            # may not keep (URDF's floating joint has none): free bodies match free bodies anywhere,
            # and the poses are then compared with A's joint values on both sides
            ok = self.free & self.floating
        else:
            ok = self.free & (t <= comparison.tol) & (r <= comparison.tol)
        for k in np.argsort(np.where(ok, t + r, np.inf))[: int(ok.sum())]:
            candidate = self.names[k]
            if not _inertial_gaps(A.bodies[name], self.side.bodies[candidate], comparison.tol):
                self.free[k] = False
                return candidate
        return None


def _floats(side: _Side, name: str) -> bool:
    """Whether a body hangs from its parent by one floating joint and nothing else."""
    joints = side.bodies[name].joints
    return len(joints) == 1 and joints[0] in side.joints and side.joints[joints[0]].type is JointType.FLOATING


# -- numbers ----------------------------------------------------------------------------------------
def _close_relative(a: float, b: float, tol: float) -> bool:
    """Equal within `tol` relative to the larger size (so a gram and a tonne are held to the same
    number of digits); equal values, zeros included, always are."""
    return a == b or abs(a - b) <= tol * max(abs(a), abs(b))


def _inertial_gaps(a: Body, b: Body, tol: float) -> list[tuple[str, Any, Any]]:
    """(what, value in A, value in B) for mass, centre of mass and inertia that differ.

    Both sides keep each body's frame through a conversion, so the body frame is the common
    frame; the inertia is compared relative to its largest entry, the centre of mass in metres."""
    ma, mb = _mass(a), _mass(b)
    out: list[tuple[str, Any, Any]] = []
    if not _close_relative(ma, mb, tol):
        out.append(("mass", ma, mb))
    if a.inertial is None or b.inertial is None or ma <= 0 or mb <= 0:
        return out
    ca, cb = np.asarray(a.inertial.com, dtype=float), np.asarray(b.inertial.com, dtype=float)
    if np.linalg.norm(ca - cb) > tol:
        out.append(("com", ca, cb))
    ia, ib = np.asarray(a.inertial.inertia, dtype=float), np.asarray(b.inertial.inertia, dtype=float)
    scale = max(np.abs(ia).max(initial=0.0), np.abs(ib).max(initial=0.0))
    if np.abs(ia - ib).max(initial=0.0) > tol * scale:
        out.append(("inertia", ia, ib))
    return out


def _limit(value: float | None) -> float | None:
    """A position limit, or None for no limit (none given, infinite, or beyond ±1e9)."""
    return None if value is None or not abs(value) < _UNLIMITED else value


def _inverse(poses: np.ndarray) -> np.ndarray:
    """Inverses of rigid poses (..., 4, 4)."""
    out = np.zeros_like(poses)
    rt = np.swapaxes(poses[..., :3, :3], -1, -2)
    out[..., :3, :3] = rt
    out[..., :3, 3] = -(rt @ poses[..., :3, 3:4])[..., 0]
    out[..., 3, 3] = 1.0
    return out


def _pose_errors(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Translation distance and rotation angle between poses a and b (..., 4, 4).

    The angle comes from atan2 of the rotation's sine and cosine parts, which stays exact for tiny
    angles where arccos of the trace loses half the digits."""
    t = np.linalg.norm(a[..., :3, 3] - b[..., :3, 3], axis=-1)
    r = np.swapaxes(a[..., :3, :3], -1, -2) @ b[..., :3, :3]
    sine = 0.5 * np.linalg.norm(
        np.stack([r[..., 2, 1] - r[..., 1, 2], r[..., 0, 2] - r[..., 2, 0], r[..., 1, 0] - r[..., 0, 1]], axis=-1),
        axis=-1,
    )
    cosine = 0.5 * (r[..., 0, 0] + r[..., 1, 1] + r[..., 2, 2] - 1.0)
    return t, np.arctan2(sine, cosine)


def _vector_angle(u: np.ndarray, v: np.ndarray) -> float:
    """The angle between two 3-vectors, exact for tiny angles (plain floats: called once per joint)."""
    ux, uy, uz = (float(c) for c in u)
    vx, vy, vz = (float(c) for c in v)
    sine = math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx)
    return math.atan2(sine, ux * vx + uy * vy + uz * vz)


def _sample(ja: Joint, jb: Joint, rng: np.random.Generator, n: int) -> np.ndarray:
    """n random values (n, dof) of a joint both sides have: within the limits both give (A's when
    they do not overlap), a turn or a metre either way where there are none, random unit
    quaternions for ball and floating joints."""
    kind = ja.type
    dof = JOINT_DOF[kind]
    if kind in (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.SCREW):
        return _uniform(rng, n, ja.limits, jb.limits, _ANGLE_RANGE)[:, None]
    if kind is JointType.PRISMATIC:
        return _uniform(rng, n, ja.limits, jb.limits, _LENGTH_RANGE)[:, None]
    if kind in _TWO_AXES:
        first = _uniform(rng, n, ja.limits, jb.limits, _ANGLE_RANGE)
        second = _uniform(rng, n, ja.limits2 or Limits(), jb.limits2 or Limits(), _ANGLE_RANGE)
        return np.stack([first, second], axis=1)
    if kind is JointType.PLANAR:
        return np.stack(
            [
                rng.uniform(-_LENGTH_RANGE, _LENGTH_RANGE, n),
                rng.uniform(-_LENGTH_RANGE, _LENGTH_RANGE, n),
                rng.uniform(-_ANGLE_RANGE, _ANGLE_RANGE, n),
            ],
            axis=1,
        )
    if kind is JointType.BALL:
        return _quaternions(rng, n)
    if kind is JointType.FLOATING:
        return np.concatenate([rng.uniform(-_LENGTH_RANGE, _LENGTH_RANGE, (n, 3)), _quaternions(rng, n)], axis=1)
    return np.zeros((n, dof))


def _uniform(rng: np.random.Generator, n: int, la: Limits, lb: Limits, default: float) -> np.ndarray:
    lowers = [v for v in (_limit(la.lower), _limit(lb.lower)) if v is not None]
    uppers = [v for v in (_limit(la.upper), _limit(lb.upper)) if v is not None]
    lo = max(lowers) if lowers else -default
    hi = min(uppers) if uppers else default
    if lowers and uppers and lo > hi:  # no overlap: A's own range
        own_lo, own_hi = _limit(la.lower), _limit(la.upper)
        lo = own_lo if own_lo is not None else lo
        hi = own_hi if own_hi is not None else hi
    if lo > hi:  # one bound only, beyond the default of the other
        lo, hi = (lo, lo + 2 * default) if lowers else (hi - 2 * default, hi)
    return rng.uniform(lo, hi, n)


def _quaternions(rng: np.random.Generator, n: int) -> np.ndarray:
    """Uniformly random unit quaternions (normalised 4-D Gaussians)."""
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return q


def _column(q: np.ndarray, layout: Mapping[str, slice], name: str | None) -> np.ndarray | None:
    if name is None or name not in layout or layout[name].stop - layout[name].start != 1:
        return None
    return q[:, layout[name].start]


# -- text and JSON ------------------------------------------------------------------------------
def _names(names: Iterable[str]) -> tuple[str, ...]:
    out: list[str] = []
    for n in names:
        if n not in out:
            out.append(n)
    return tuple(out)


def _label(name_a: str, name_b: str, what: str) -> str:
    return f"{what} {name_a!r}" if name_a == name_b else f"{what} {name_a!r} (B: {name_b!r})"


def _count(n: int, plural: str) -> str:
    singular = {"bodies": "body"}.get(plural, plural[:-1])
    return f"{n} {singular if n == 1 else plural}"


def _number(v: float | None) -> str:
    return "none" if v is None else f"{v:.9g}"


def _vec(v: np.ndarray) -> str:
    return "(" + " ".join(f"{x:.6g}" for x in np.asarray(v, dtype=float)) + ")"


def _describe(what: str, va: Any, vb: Any) -> str:
    if what == "mass":
        return f"mass {va:.9g} kg in A, {vb:.9g} kg in B"
    if what == "com":
        return f"centre of mass {_vec(va)} in A, {_vec(vb)} in B (body frame), {np.linalg.norm(va - vb):.3g} m apart"
    gap = float(np.abs(va - vb).max())
    return f"inertia differs by up to {gap:.3g} kg m^2 (diagonal {_vec(np.diag(va))} in A, {_vec(np.diag(vb))} in B)"


def _coupling_text(c: tuple[str | None, tuple[float, ...]] | None) -> str:
    if c is None:
        return "no other joint"
    leader, coefficients = c
    terms = [f"{coefficients[0]:.6g}"] if coefficients[0] or leader is None else []
    var = repr(leader) if leader is not None else "0"
    for k, v in enumerate(coefficients[1:], start=1):
        if v:
            terms.append(f"{v:.6g}*{var}" + (f"^{k}" if k > 1 else ""))
    return " + ".join(terms) or "0"


def _coupling_value(c: tuple[str | None, tuple[float, ...]] | None) -> Any:
    if c is None:
        return None
    return {"joint": c[0], "coefficients": list(c[1])}


def _pose_value(pose: np.ndarray) -> dict[str, list[float]]:
    return {"xyz": [float(v) for v in pose[:3, 3]], "rpy": [float(v) for v in matrix_to_rpy(pose[:3, :3])]}


def _value(v: np.ndarray) -> float | list[float]:
    return float(v[0]) if v.size == 1 else [float(x) for x in v]


def _plain(value: Any) -> Any:
    """`value` with numpy arrays and scalars, tuples and enums turned into JSON types."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, JointType):
        return value.value
    return value
