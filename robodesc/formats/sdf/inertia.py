"""Mass properties: libsdformat's validity test and the `<inertial auto="true">` computation (SDF 1.11).

The validity test is gz-math's `MassMatrix3::IsValid`: a non-negative mass, a positive
semi-definite inertia and principal moments obeying the triangle inequality, each within a
tolerance scaled by the size of the moments. Automatic inertia sums the solids of the link's
collisions (box, sphere, cylinder, capsule, ellipsoid, cone) at their density, as libsdformat does.
"""

from __future__ import annotations

import math

import numpy as np

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
    """(mass, inertia about the centroid in the shape's axes) of a uniform solid, or None."""
    if kind == "box":
        x, y, z = params["size"]
        mass = density * x * y * z
        return mass, np.diag([y * y + z * z, x * x + z * z, x * x + y * y]) * mass / 12.0
    if kind == "sphere":
        r = params["radius"]
        mass = density * 4.0 / 3.0 * math.pi * r**3
        return mass, np.eye(3) * 0.4 * mass * r * r
    if kind == "cylinder":
        r, length = params["radius"], params["length"]
        mass = density * math.pi * r * r * length
        side = mass * (3 * r * r + length * length) / 12.0
        return mass, np.diag([side, side, 0.5 * mass * r * r])
    if kind == "cone":
        r, length = params["radius"], params["length"]
        mass = density * math.pi * r * r * length / 3.0
        side = mass * (3.0 / 20.0 * r * r + 3.0 / 80.0 * length * length)
        return mass, np.diag([side, side, 0.3 * mass * r * r])
    if kind == "capsule":
        r, length = params["radius"], params["length"]
        m_cyl = density * math.pi * r * r * length
        m_sph = density * 4.0 / 3.0 * math.pi * r**3
        side = m_cyl * (3 * r * r + length * length) / 12.0 + m_sph * (
            0.4 * r * r + 0.375 * r * length + 0.25 * length**2
        )
        return m_cyl + m_sph, np.diag([side, side, r * r * (0.5 * m_cyl + 0.4 * m_sph)])
    if kind == "ellipsoid":
        a, b, c = params["radii"]
        mass = density * 4.0 / 3.0 * math.pi * a * b * c
        return mass, np.diag([b * b + c * c, a * a + c * c, a * a + b * b]) * mass / 5.0
    return None


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
