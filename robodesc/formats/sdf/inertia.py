"""Mass properties: libsdformat's validity test and the `<inertial auto="true">` computation (SDF 1.11).

The validity test is gz-math's `MassMatrix3::IsValid`: a non-negative mass, a positive
semi-definite inertia and principal moments obeying the triangle inequality, each within a
tolerance scaled by the size of the moments. Automatic inertia sums the solids of the link's
collisions (box, sphere, cylinder, capsule, ellipsoid, cone) at their density, as libsdformat does,
with the primitive formulas of `core.inertia` (the same closed forms gz-math uses).
"""

from __future__ import annotations

import math

import numpy as np

from ...core.inertia import primitive_inertia, primitive_volume

_TOLERANCE = 10.0  # gz-math's default tolerance factor for mass matrices
_EPS = float(np.finfo(float).eps)


def is_valid_mass_matrix(mass: float, inertia: np.ndarray) -> bool:
    """gz::math::MassMatrix3::IsValid for a mass and an inertia tensor about the COM.

    Values so large that the test overflows are not valid either.
    """
    with np.errstate(all="ignore"):
        try:
            return _is_valid(mass, inertia)
        except (np.linalg.LinAlgError, ValueError, OverflowError):
            return False


def _is_valid(mass: float, inertia: np.ndarray) -> bool:
    if not np.isfinite(np.abs(inertia).sum() * 4.0):
        return False
    diagonal = np.diag(inertia)
    epsilon = _TOLERANCE * _EPS * 0.5 * abs(float(diagonal.sum()))
    ixx, iyy, ixy = inertia[0, 0], inertia[1, 1], inertia[0, 1]
    if mass < 0 or ixx + epsilon < 0 or ixx * iyy - ixy * ixy + epsilon < 0:
        return False
    if float(np.linalg.det(inertia)) + epsilon < 0:
        return False
    moments = np.linalg.eigvalsh((inertia + inertia.T) / 2.0)
    a, b, c = (float(m) for m in moments)
    return (
        a + epsilon >= 0
        and b + epsilon >= 0
        and c + epsilon >= 0
        and a + b + epsilon >= c
        and b + c + epsilon >= a
        and c + a + epsilon >= b
    )


def solid(kind: str, params: dict, density: float) -> tuple[float, np.ndarray] | None:
    """(mass, inertia about the centroid in the shape's axes) of a uniform solid, or None.

    The primitives' formulas are core's (`core.inertia`, half sizes as MuJoCo gives them); the cone,
    which only SDF has, is here.
    """
    if kind == "cone":
        r, length = params["radius"], params["length"]
        mass = density * math.pi * r * r * length / 3.0
        side = mass * (3.0 / 20.0 * r * r + 3.0 / 80.0 * length * length)
        return mass, np.diag([side, side, 0.3 * mass * r * r])
    half_sizes = {
        "box": lambda: [v / 2.0 for v in params["size"]],
        "sphere": lambda: [params["radius"]],
        "cylinder": lambda: [params["radius"], params["length"] / 2.0],
        "capsule": lambda: [params["radius"], params["length"] / 2.0],
        "ellipsoid": lambda: list(params["radii"]),
    }.get(kind)
    if half_sizes is None:
        return None
    size = half_sizes()
    mass = density * primitive_volume(kind, size)
    return mass, np.diag(primitive_inertia(kind, size, mass))


def combine(parts: list[tuple[float, np.ndarray, np.ndarray]]) -> tuple[float, np.ndarray, np.ndarray]:
    """Sum solids given as (mass, pose of the centroid in the link (4x4), inertia in the solid's axes).

    Returns (mass, com, inertia about the com in link axes).
    """
    mass = float(sum(m for m, _, _ in parts))
    if mass <= 0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    moment = np.zeros(3)
    for m, pose, _ in parts:
        moment = moment + m * pose[:3, 3]
    com = moment / mass
    total = np.zeros((3, 3))
    for m, pose, inertia in parts:
        rotation = pose[:3, :3]
        d = pose[:3, 3] - com
        total += rotation @ inertia @ rotation.T + m * (float(d @ d) * np.eye(3) - np.outer(d, d))
    return mass, com, total
