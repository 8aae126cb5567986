"""Format-neutral checks of a loaded model, and the report `robodesc.check` returns.

Readers reject what cannot be loaded and note what they noticed while loading
(`model.diagnostics`). These checks look at the loaded model itself, whatever format it came
from, for values that load but are doubtful: physics engines reject or misbehave on them.
Every finding is a `Diagnostic` with a stable code (see docs/diagnostics.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from .diagnostics import Diagnostic, Severity
from .errors import Location, RobodescError
from .geometry import Box, Capsule, Cylinder, Ellipsoid, Mesh, Sphere
from .model import JOINT_DOF, Joint, JointType, Model

#: Relative tolerance of the inertia checks (positive semi-definite, triangle inequality).
INERTIA_TOLERANCE = 1e-6


def _finite(value: object) -> bool:
    try:
        return bool(np.all(np.isfinite(np.asarray(value, dtype=float))))
    except (TypeError, ValueError):
        return False


def _non_finite(model: Model) -> Iterator[Diagnostic]:
    def bad(what: str, where: Location) -> Diagnostic:
        return Diagnostic(
            Severity.ERROR,
            "non-finite",
            f"{what} is not a finite number",
            where,
            "replace NaN or infinite values by numbers",
        )

    for body in model.bodies.values():
        if not _finite(body.pose):
            yield bad(f"the pose of body {body.name!r}", body.location)
        inertial = body.inertial
        if inertial is not None and not (
            _finite(inertial.mass) and _finite(inertial.com) and _finite(inertial.inertia)
        ):
            yield bad(f"the inertial of body {body.name!r}", body.location)
        for shape in (*body.visuals, *body.collisions):
            if not _finite(shape.pose):
                yield bad(f"the pose of a shape of body {body.name!r}", body.location)
    for joint in model.joints.values():
        if not (_finite(joint.origin) and _finite(joint.axis)):
            yield bad(f"the origin or axis of joint {joint.name!r}", joint.location)
        for value in (joint.limits.lower, joint.limits.upper, joint.limits.velocity, joint.limits.effort):
            if value is not None and math.isnan(value):
                yield bad(f"a limit of joint {joint.name!r}", joint.location)
                break
    for frame in model.frames.values():
        if not _finite(frame.pose):
            yield bad(f"the pose of frame {frame.name!r}", frame.location)


def moving_bodies(model: Model, carried: bool = False) -> set[str]:
    """The names of the bodies a simulator must integrate.

    By default, the bodies a joint that takes a value moves directly. With `carried`, also what
    moves with them, as a simulator sees a whole model: every body below a moving one, every
    floating body (`Body.floating`), and the child of any joint that is not fixed (a gearbox's
    child turns with the joints it couples); never a static body (`Body.static`) nor the root.
    """
    moving: set[str] = set()
    for body in model.bodies.values():  # parents before children
        if carried and (body.parent is None or body.static):
            continue
        joints = [model.joints[j] for j in body.joints if j in model.joints]
        if carried:
            if body.floating or body.parent in moving or any(j.type is not JointType.FIXED for j in joints):
                moving.add(body.name)
        elif any(JOINT_DOF[j.type] > 0 for j in joints):
            moving.add(body.name)
    return moving


def _inertials(model: Model) -> Iterator[Diagnostic]:
    moving = moving_bodies(model)
    for body in model.bodies.values():
        inertial = body.inertial
        if inertial is None or not (_finite(inertial.mass) and _finite(inertial.inertia)):
            if inertial is None and body.name in moving:
                yield Diagnostic(
                    Severity.WARNING,
                    "movable-without-inertia",
                    f"body {body.name!r} is moved by a joint but has no inertial",
                    body.location,
                    "give it a mass and an inertia, or simulators may drop or reject it",
                )
            continue
        if inertial.mass < 0:
            yield Diagnostic(
                Severity.ERROR,
                "negative-mass",
                f"body {body.name!r} has mass {inertial.mass:g}",
                body.location,
                "masses must be positive",
            )
        elif inertial.mass == 0 and body.name in moving:
            yield Diagnostic(
                Severity.WARNING,
                "movable-without-inertia",
                f"body {body.name!r} is moved by a joint but has zero mass",
                body.location,
                "give it a positive mass and inertia",
            )
        tensor = np.asarray(inertial.inertia, dtype=float)
        if not np.allclose(tensor, tensor.T, rtol=0, atol=INERTIA_TOLERANCE * max(1e-12, np.abs(tensor).max())):
            yield Diagnostic(
                Severity.ERROR,
                "inertia-not-symmetric",
                f"the inertia of body {body.name!r} is not symmetric",
                body.location,
                "an inertia tensor has ixy = iyx, ixz = izx, iyz = izy",
            )
            continue
        # scaled to at most 1 first: huge (finite) entries would overflow in the sum or in LAPACK
        largest = float(np.abs(tensor).max())
        unit = tensor / largest if largest > 0 else tensor
        with np.errstate(over="ignore"):  # scaled back: a moment may be infinite, which the tests below take
            moments = np.linalg.eigvalsh(unit / 2 + unit.T / 2) * largest
        scale = max(1e-12, float(np.abs(moments).max()))
        if moments.min() < -INERTIA_TOLERANCE * scale:
            yield Diagnostic(
                Severity.ERROR,
                "inertia-not-positive",
                f"the inertia of body {body.name!r} has a negative principal moment ({moments.min():.3g})",
                body.location,
                "principal moments of inertia must be >= 0; check the signs of the products",
            )
        elif moments[0] + moments[1] < moments[2] * (1 - INERTIA_TOLERANCE) - INERTIA_TOLERANCE * scale:
            yield Diagnostic(
                Severity.WARNING,
                "inertia-triangle",
                f"the principal moments of body {body.name!r} ({', '.join(f'{m:.3g}' for m in moments)}) "
                "violate the triangle inequality",
                body.location,
                "no rigid body has such an inertia: A + B >= C must hold for its principal moments",
            )


def _joints(model: Model) -> Iterator[Diagnostic]:
    for joint in model.joints.values():
        if joint.type in (JointType.FIXED, JointType.FLOATING, JointType.BALL, JointType.GEARBOX):
            pass
        else:
            norm = float(np.linalg.norm(joint.axis))
            if norm < 1e-12:
                yield Diagnostic(
                    Severity.ERROR,
                    "axis-zero",
                    f"joint {joint.name!r} has a zero axis",
                    joint.location,
                    "give the joint axis a direction",
                )
            elif abs(norm - 1.0) > 1e-6:
                yield Diagnostic(
                    Severity.WARNING,
                    "axis-not-unit",
                    f"the axis of joint {joint.name!r} has length {norm:.6g}",
                    joint.location,
                    "normalise the axis",
                )
        yield from _limits(joint)
    yield from _mimics(model)


def _limits(joint: Joint) -> Iterator[Diagnostic]:
    for limits in (joint.limits, joint.limits2):
        if limits is None:
            continue
        if limits.lower is not None and limits.upper is not None and limits.lower > limits.upper:
            yield Diagnostic(
                Severity.ERROR,
                "limits-inverted",
                f"joint {joint.name!r} has lower limit {limits.lower:g} above its upper limit {limits.upper:g}",
                joint.location,
                "swap lower and upper",
            )
        negative = [
            f"{name} {getattr(limits, name):g}"
            for name in ("velocity", "effort")
            if getattr(limits, name) is not None and getattr(limits, name) < 0
        ]
        if negative:
            yield Diagnostic(
                Severity.WARNING,
                "negative-limit",
                f"joint {joint.name!r} has negative limits (" + ", ".join(negative) + ")",
                joint.location,
                "velocity and effort limits are magnitudes; a negative value does not mean unlimited",
            )
    if joint.type is JointType.CONTINUOUS and (joint.limits.lower is not None or joint.limits.upper is not None):
        yield Diagnostic(
            Severity.WARNING,
            "continuous-with-limits",
            f"continuous joint {joint.name!r} has position limits",
            joint.location,
            "make it revolute, or drop lower and upper",
        )


def _mimics(model: Model) -> Iterator[Diagnostic]:
    """Joints that follow themselves: one error per loop of mimics, at the loop's first joint in the
    model's order. A walk up a joint's leaders stops where an earlier walk went (each joint is
    walked through once), so a chain of mimics as long as the model costs its length."""
    joints = model.joints
    order = {name: k for k, name in enumerate(joints)}
    walked: set[str] = set()
    loops: list[list[str]] = []
    for joint in joints.values():
        path: dict[str, int] = {}  # this walk's joints, in the order met
        here: Joint | None = joint
        while here is not None and here.name not in walked and here.name not in path:
            path[here.name] = len(path)
            here = joints.get(here.mimic.joint) if here.mimic is not None else None
        if here is not None and here.name in path:  # a loop this walk closed
            loop = list(path)[path[here.name] :]
            first = min(range(len(loop)), key=lambda k: order[loop[k]])
            loops.append(loop[first:] + loop[:first])
        walked.update(path)
    for loop in sorted(loops, key=lambda names: order[names[0]]):
        joint = joints[loop[0]]
        if len(loop) == 1:
            yield Diagnostic(
                Severity.ERROR,
                "mimic-loop",
                f"joint {joint.name!r} mimics itself",
                joint.location,
                "remove the mimic, or name another joint",
            )
        else:
            yield Diagnostic(
                Severity.ERROR,
                "mimic-loop",
                "mimic joints follow each other in a loop: " + " -> ".join([*loop, joint.name]),
                joint.location,
                "let one joint of the loop move on its own",
            )


def _sizes(shape_geometry: object) -> Iterable[float]:
    if isinstance(shape_geometry, Box):
        return list(np.asarray(shape_geometry.size, dtype=float))
    if isinstance(shape_geometry, Sphere):
        return [shape_geometry.radius]
    if isinstance(shape_geometry, Cylinder):
        return [shape_geometry.radius, shape_geometry.length]
    if isinstance(shape_geometry, Capsule):
        return [shape_geometry.radius]  # a capsule of length 0 is a sphere
    if isinstance(shape_geometry, Ellipsoid):
        return list(np.asarray(shape_geometry.radii, dtype=float))
    if isinstance(shape_geometry, Mesh):
        return [abs(s) for s in np.asarray(shape_geometry.scale, dtype=float)]
    return []


def _shapes(model: Model) -> Iterator[Diagnostic]:
    for body in model.bodies.values():
        for kind, shapes in (("visual", body.visuals), ("collision", body.collisions)):
            for shape in shapes:
                sizes = list(_sizes(shape.geometry))
                if any(not (s > 0) for s in sizes):
                    label = f" {shape.name!r}" if shape.name else ""
                    yield Diagnostic(
                        Severity.ERROR if kind == "collision" else Severity.WARNING,
                        "shape-size",
                        f"{kind}{label} of body {body.name!r} is a "
                        f"{type(shape.geometry).__name__.lower()} with a size that is not positive "
                        f"({', '.join(f'{s:g}' for s in sizes)})",
                        body.location,
                        "sizes, radii, lengths and mesh scales must be positive",
                    )


#: The format-neutral checks, in the order they run.
CHECKS: tuple[Callable[[Model], Iterable[Diagnostic]], ...] = (_non_finite, _inertials, _joints, _shapes)


def check_model(model: Model) -> list[Diagnostic]:
    """Every format-neutral finding on a loaded model."""
    return [d for check in CHECKS for d in check(model)]


@dataclass
class CheckReport:
    """What `robodesc.check` found in one file or model.

    `diagnostics` holds the reader's notes, the checks' findings and, when the file could not be
    loaded, the error that stopped it (as an error diagnostic); `model` is None in that case.
    """

    source: str | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    model: Model | None = None
    strict: bool = False

    def count(self, severity: Severity) -> int:
        return sum(d.severity is severity for d in self.diagnostics)

    @property
    def failed(self) -> bool:
        """True when something is wrong: an error, or (strict) a warning."""
        return self.count(Severity.ERROR) > 0 or (self.strict and self.count(Severity.WARNING) > 0)

    @property
    def loaded(self) -> bool:
        return self.model is not None

    def filtered(self, select: Iterable[str] = (), ignore: Iterable[str] = ()) -> CheckReport:
        """A copy keeping only codes that start with one of `select` (all if empty), minus `ignore`."""
        select, ignore = tuple(select), tuple(ignore)
        kept = [
            d
            for d in self.diagnostics
            if (not select or d.code.startswith(select)) and not (ignore and d.code.startswith(ignore))
        ]
        return CheckReport(self.source, kept, self.model, self.strict)


def error_diagnostic(error: RobodescError) -> Diagnostic:
    """The error that stopped a load, as a diagnostic (errors and findings read alike)."""
    return Diagnostic(Severity.ERROR, error.code, error.message, error.location, error.suggestion)


def deduplicated(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Diagnostics without repeats, ordered by file and line (unknown lines last, stable)."""
    seen = set()
    unique = []
    for d in diagnostics:
        key = (d.severity, d.code, d.message, d.location.file, d.location.line)
        if key not in seen:
            seen.add(key)
            unique.append(d)
    return sorted(unique, key=lambda d: (d.location.file or "", d.location.line is None, d.location.line or 0))


__all__ = ["CHECKS", "CheckReport", "check_model", "deduplicated", "error_diagnostic", "moving_bodies"]
