"""Mass properties: libsdformat's validity test and the `<inertial auto="true">` computation (SDF 1.11).

The validity test is gz-math's `MassMatrix3::IsValid`: a non-negative mass, a positive
semi-definite inertia and principal moments obeying the triangle inequality, each within a
tolerance scaled by the size of the moments. Automatic inertia sums the solids of the link's
collisions (box, sphere, cylinder, capsule, ellipsoid, cone) at their density, as libsdformat does,
with the primitive formulas of `core.inertia` (the same closed forms gz-math uses); `solid` states
each formula.
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
    if _clearly_valid(mass, inertia):
        return True
    with np.errstate(all="ignore"):
        try:
            return _is_valid(mass, inertia)
        except (np.linalg.LinAlgError, ValueError, OverflowError):
            return False


#: `_clearly_valid` decides only tensors whose entries lie within these magnitudes, where no step of
#: `_is_valid` (products, the determinant, the eigen-solve) comes near overflow or underflow
_SCALES = (1e-30, 1e30)
#: ... and only with this margin, relative to the largest entry, from every boundary `_is_valid` tests:
#: orders of magnitude wider than the rounding of a 3x3 determinant or eigen-solve (some 1e-15)
_MARGIN = 1e-6


def _clearly_valid(mass: float, inertia: np.ndarray) -> bool:
    """True when `_is_valid` is certain to say True, decided on plain floats without numpy's linear
    algebra (which costs a link some 25 microseconds); False means "not certain": `_is_valid` decides.

    Gershgorin's circles bound the eigenvalues of the symmetric tensor: each lies within
    [d_i - r_i, d_i + r_i] for some row i (d_i the diagonal, r_i the sum of the row's other entries'
    magnitudes). `_is_valid` asks for moments >= -epsilon and the triangle inequality, which for the
    largest moment c reads c <= (trace + epsilon) / 2 (the other two inequalities follow from the
    moments being non-negative). When the lowest bound exceeds zero and the highest stays below half
    the trace, both by `_MARGIN` of the largest entry, every test of `_is_valid` (the 2x2 minor and the
    determinant are then positive too, every principal minor of a positive-definite matrix being so)
    passes whatever its rounding. The zero tensor (of either sign in each entry) is valid there too: its
    tolerance is 0, and its minors, determinant and moments are all zero. Other boundary cases (a flat
    plate's Izz = Ixx + Iyy) fall through to the exact test, so verdicts are the same as `_is_valid` alone."""
    if not isinstance(inertia, np.ndarray) or inertia.shape != (3, 3):
        return False
    (xx, xy, xz), (yx, yy, yz), (zx, zy, zz) = inertia.tolist()
    if xy != yx or xz != zx or yz != zy:
        return False
    return mass >= 0 and clearly_valid_moments(xx, yy, zz, xy, xz, yz)


def clearly_valid_moments(xx: float, yy: float, zz: float, xy: float, xz: float, yz: float) -> bool:
    """`_clearly_valid` of the symmetric tensor of these moments with any mass that is not negative (the one
    test of the mass), for a reader that holds them as floats (an `<inertia>`'s, whose verdict its links share)."""
    if xx == yy == zz == xy == xz == yz == 0.0:  # a massless or point-mass link's zero tensor (common)
        return True  # (every test of `_is_valid` is then 0 >= 0)
    axy, axz, ayz = abs(xy), abs(xz), abs(yz)
    scale = max(abs(xx), abs(yy), abs(zz), axy, axz, ayz)
    if not _SCALES[0] <= scale <= _SCALES[1]:  # also refuses NaN
        return False
    margin = _MARGIN * scale
    low = min(xx - axy - axz, yy - axy - ayz, zz - axz - ayz)
    high = max(xx + axy + axz, yy + axy + ayz, zz + axz + ayz)
    half = (xx + yy + zz) / 2.0
    if low > margin and half - high > margin:
        return True
    # Gershgorin's circles are loose for a tensor with large products of inertia (a part tilted in its
    # frame): then the moments are told exactly, on the same floats. They are all positive when the
    # tensor is positive definite, and the largest is below half the trace when half the trace less the
    # tensor is: two `_clearly_positive_definite` tests, each with `_MARGIN` to spare.
    return _clearly_positive_definite(xx, yy, zz, xy, xz, yz, scale) and _clearly_positive_definite(
        half - xx, half - yy, half - zz, -xy, -xz, -yz, scale
    )


def _clearly_positive_definite(xx: float, yy: float, zz: float, xy: float, xz: float, yz: float, scale: float) -> bool:
    """Whether the symmetric matrix of these entries (of magnitude up to 3 `scale`, within `_SCALES`) is
    positive definite with room to spare: Sylvester's criterion, its leading principal minors positive,
    each by `_MARGIN` times the power of `scale` of its degree.

    Each minor is then positive whatever its rounding (some 1e-15 of that power of `scale`), and the
    least eigenvalue, at least the determinant over the square of the largest (at most 9 `scale`), is
    above `_MARGIN` / 100 of `scale`: millions of times what an eigen-solve or a determinant of
    `_is_valid` can be off by."""
    minor = xx * yy - xy * xy
    determinant = xx * (yy * zz - yz * yz) - xy * (xy * zz - yz * xz) + xz * (xy * yz - yy * xz)
    margin = _MARGIN * scale
    return xx > margin and minor > margin * scale and determinant > margin * scale * scale


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


def solid(kind: str, params: dict, density: float) -> tuple[float, np.ndarray, np.ndarray] | None:
    """(mass, centroid, inertia about the centroid in the shape's axes) of a uniform solid, or None.

    None where libsdformat's shape has no inertial: a size or (except for the capsule and the
    ellipsoid, whose gz-math formulas do not test it) a density that is not positive. The formulas
    are gz-math's, through `core.inertia` for the shapes MuJoCo shares (half sizes as MuJoCo
    gives them):

    * box of sides x, y, z: m = rho x y z, Ixx = m (y^2 + z^2) / 12 (and the same for y, z);
    * sphere of radius r: m = rho 4/3 pi r^3, I = 2/5 m r^2 about every axis;
    * cylinder of radius r and length l along z: m = rho pi r^2 l, Ixx = Iyy = m (3 r^2 + l^2) / 12,
      Izz = m r^2 / 2;
    * capsule: that cylinder plus two solid hemispheres (each of mass rho 2/3 pi r^3, whose centroid
      is 3r/8 from its flat face), summed with the parallel-axis theorem;
    * ellipsoid of semi-axes a, b, c: m = rho 4/3 pi a b c, Ixx = m (b^2 + c^2) / 5, ...;
    * cone of base radius r and length l along z (centred on its origin, apex up, as SDF's
      `<cone>`): m = rho pi r^2 l / 3, its centroid a quarter of the length above the base, that is
      l/4 below the origin, and about it Ixx = Iyy = 3 m (4 r^2 + l^2) / 80, Izz = 3 m r^2 / 10.
    """
    centroid = np.zeros(3)
    if kind == "cone":
        r, length = params["radius"], params["length"]
        if density <= 0 or r <= 0 or length <= 0:
            return None
        mass = density * math.pi * r * r * length / 3.0
        side = 3.0 * mass * (4.0 * r * r + length * length) / 80.0
        return mass, np.array([0.0, 0.0, -0.25 * length]), np.diag([side, side, 0.3 * mass * r * r])
    if kind == "box":
        size = [float(v) for v in params["size"]]
        if density <= 0 or min(size) <= 0:
            return None
        half = [v / 2.0 for v in size]
    elif kind == "sphere":
        if density <= 0 or params["radius"] <= 0:
            return None
        half = [params["radius"]]
    elif kind == "cylinder":
        if density <= 0 or params["radius"] <= 0 or params["length"] <= 0:
            return None
        half = [params["radius"], params["length"] / 2.0]
    elif kind == "capsule":
        if params["radius"] < 0 or params["length"] < 0:
            return None
        half = [params["radius"], params["length"] / 2.0]
    elif kind == "ellipsoid":
        if min(float(v) for v in params["radii"]) <= 0:
            return None
        half = [float(v) for v in params["radii"]]
    else:
        return None
    mass = density * primitive_volume(kind, half)
    inertia = np.diag(primitive_inertia(kind, half, mass))
    if kind == "capsule" and not is_valid_mass_matrix(mass, inertia):
        return None
    return mass, centroid, inertia


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
