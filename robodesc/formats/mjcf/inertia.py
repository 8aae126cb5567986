"""Mass, centre of mass and inertia computed the way MuJoCo's compiler computes them.

A clean re-implementation (pure numpy, no MuJoCo dependency) of the parts of MuJoCo's model
compiler (``src/user/user_objects.cc``, ``user_mesh.cc``, ``user_util.cc``) that turn geoms into
body inertias. This module holds the mass properties of geoms and bodies and is the one import
for all of it; the pieces live in their own modules:

* here: :func:`primitive_mass_properties` (``mjCGeom::Compile`` for sphere, capsule, cylinder,
  ellipsoid and box, solid or shell, on the formulas of `robodesc.core.inertia`);
  :func:`combine` / :func:`combine_geoms` / :func:`principal_axes` (``mjCBody::InertiaFromGeom``,
  ``mjuu_fullInertia``); :func:`bound_and_balance` / :func:`set_total_mass` (``boundmass``,
  ``boundinertia``, ``balanceinertia``, ``settotalmass``);
* `mesh_processing`: :func:`process_mesh` (``mjCMesh::Process``), :func:`mesh_mass_properties`,
  :func:`mesh_geom_pose` and :func:`fit_primitive_to_mesh` (``mjCMesh::FitGeom``);
* `hull`: :func:`convex_hull`, qhull through SciPy with MuJoCo's options (a numpy quickhull without SciPy);
* `meshfiles`: :func:`load_mesh_file`, MuJoCo's STL / OBJ / MSH readers, and the typed
  :class:`MeshFileError` family;
* `mujoco_math`: the replicas of MuJoCo's numerical helpers (:func:`quat_to_mat`,
  :func:`frame_accumulate`, the Jacobi eigen-solver, ...).

Arithmetic follows MuJoCo's operation order (sequential sums, the same Jacobi eigen-solver
producing the same principal-axes quaternion), so results agree with a compiled
``mujoco.MjModel`` to round-off -- usually bit for bit.  Where MuJoCo 4.0 behaves differently
from its older published sources (the eigen-solver's tolerances and rotation formula,
``fitaabb``, the explicit-mass volume threshold, re-winding of mirrored meshes) the behaviour of
the ``mujoco`` 4.0 package was measured and is what is implemented.  Errors that MuJoCo's compiler
reports for a mesh or an inertia are raised as :class:`ValueError` with a similar message; a mesh
file MuJoCo cannot read raises a :class:`MeshFileError` (a ``ValueError`` too).

The MJCF reader and ``robodesc check`` read mesh files through ``meshfiles.load_mesh_file``,
looked up there on each call, so one patch of that name sees every mesh file a load or a check reads.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...core.inertia import PRIMITIVE_SIZES, primitive_inertia
from ...core.inertia import PRIMITIVES as PRIMITIVE_KINDS
from ...core.inertia import primitive_volume as _volume
from ...core.transforms import VectorLike
from .hull import convex_hull
from .mesh_processing import (
    MESH_INERTIA_MODES,
    MeshData,
    ProcessedMesh,
    fit_primitive_to_mesh,
    mesh_geom_pose,
    mesh_mass_properties,
    process_mesh,
)
from .meshfiles import MalformedMeshFile, MeshFileError, MeshFileUnreadable, UnsupportedMeshFileType, load_mesh_file
from .mujoco_math import (
    DEFAULT_DENSITY,
    GEOM_MIN_MASS,
    MJ_EPS,
    MJ_MINVAL,
    eig3_body,
    frame_accumulate,
    geom_mass,
    global_inertia,
    mat_to_sym6,
    offcenter,
    quat_to_mat,
    sym6_to_mat,
)

__all__ = [
    "MJ_MINVAL",
    "MJ_EPS",
    "DEFAULT_DENSITY",
    "EIGEN_MIN",
    "GEOM_MIN_MASS",
    "PRIMITIVE_KINDS",
    "MESH_INERTIA_MODES",
    "ProcessedMesh",
    "MeshData",
    "GeomInertial",
    "primitive_volume",
    "primitive_mass_properties",
    "process_mesh",
    "mesh_mass_properties",
    "mesh_geom_pose",
    "fit_primitive_to_mesh",
    "convex_hull",
    "load_mesh_file",
    "combine",
    "combine_geoms",
    "check_principal_moments",
    "principal_axes",
    "bound_and_balance",
    "set_total_mass",
    "quat_to_mat",
    "frame_accumulate",
    "MeshFileError",
    "MeshFileUnreadable",
    "UnsupportedMeshFileType",
    "MalformedMeshFile",
]


#: The smallest principal moment MuJoCo 4.0 accepts from a full inertia (see `check_principal_moments`).
EIGEN_MIN = 1e-14


def _check_kind_size(kind: str, size: VectorLike) -> np.ndarray:
    if kind not in PRIMITIVE_KINDS:
        raise ValueError(f"unsupported primitive geom type {kind!r}; expected one of {', '.join(PRIMITIVE_KINDS)}")
    need = PRIMITIVE_SIZES[kind]
    s = np.asarray(size, dtype=float).reshape(-1)
    if s.size < need:
        raise ValueError(f"{kind} geom needs {need} size value(s), got {s.size}")
    if not np.all(np.isfinite(s[:need])):
        raise ValueError(f"{kind} geom size must be finite, got {s[:need].tolist()}")
    for i in range(need):
        if s[i] <= 0:
            raise ValueError(f"size {i} must be positive in {kind} geom (got {s[i]!r})")
    return s


def primitive_volume(kind: str, size: VectorLike, *, shell: bool = False) -> float:
    """Volume -- or, with ``shell=True``, surface area -- of a primitive (``mjCGeom::GetVolume``).

    ``size`` is MuJoCo's geom ``size``: sphere (r), capsule (r, half-length of the
    cylinder part), cylinder (r, half-height), ellipsoid (three semi-axes), box (three
    half-sizes).  A shell ellipsoid's area uses Thomsen's approximation (p = 1.6075),
    exactly as MuJoCo does.
    """
    return _volume(kind, _check_kind_size(kind, size), shell=shell)


def primitive_mass_properties(
    kind: str,
    size: VectorLike,
    *,
    density: float | None,
    mass: float | None,
    shell: bool = False,
) -> tuple[float, np.ndarray]:
    """Mass and 3x3 inertia (about the geom centre, in geom axes) of a primitive geom.

    What MuJoCo does (``mjCGeom::Compile``/``GetVolume``/``SetInertia``):

    * ``mass`` given: the geom gets exactly that mass (``mass=0`` gives a massless geom);
      if the volume is not above 1e-14 the geom ends up massless (MuJoCo 4.0 behaviour);
    * otherwise ``mass = density * volume`` (``density=None`` means MuJoCo's default
      1000); with ``shell=True`` (``shellinertia="true"``) the "volume" is the surface
      area, so ``density`` is a surface density;
    * the inertia is the closed-form one for the solid or the thin shell; the capsule is
      a cylinder plus two hemispheres whose mass split is by volume (area for shells) and
      whose hemisphere offset term is MuJoCo's ``m_s * h * (3 r + 2 h) / 8``; the shell
      ellipsoid is the difference of two solid ellipsoids 1e-6 apart.

    The capsule/cylinder axis is the geom z axis.  Returns ``(mass, diag(Ixx, Iyy, Izz))``.
    """
    s = _check_kind_size(kind, size)
    volume = _volume(kind, s, shell=shell)
    m = geom_mass(volume, density, mass)
    if m is None:
        return 0.0, np.zeros((3, 3))
    return float(m), np.diag(primitive_inertia(kind, s, m, shell=shell))


def principal_axes(inertia: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Principal moments (decreasing) and frame quaternion of a symmetric 3x3 inertia.

    Uses MuJoCo's own Jacobi solver with the tolerances of ``mjuu_fullInertia`` (see
    `mujoco_math._jacobi_eig3`), so the quaternion is the one MuJoCo reports as ``body_iquat``
    (not merely an equivalent one): ``inertia == R(q) @ diag(moments) @ R(q).T``.  Moments
    closer than 1e-12 relative are left in their original order, as MuJoCo does.
    """
    a = np.asarray(inertia, dtype=float)
    if a.shape != (3, 3):
        raise ValueError(f"inertia must be a 3x3 matrix, got shape {a.shape}")
    return eig3_body(a)


@dataclass(frozen=True)
class GeomInertial:
    """Inertial frame of a body as MuJoCo stores it.

    ``mass``; ``pos`` (``body_ipos``) and ``quat`` (``body_iquat``) of the inertial frame in
    the body frame; ``inertia`` (``body_inertia``): principal moments in that frame.
    """

    mass: float
    pos: np.ndarray
    quat: np.ndarray
    inertia: np.ndarray


def combine_geoms(
    parts: Sequence[tuple[float, VectorLike, VectorLike, VectorLike]],
    *,
    boundinertia: float = 0.0,
) -> GeomInertial:
    """Body inertial frame inferred from its geoms, exactly as ``mjCBody::InertiaFromGeom``.

    Each part is ``(mass, pos, quat, diag_inertia)``: the geom's mass, the pose of its
    inertial frame in the body frame (for a mesh geom the pose from :func:`mesh_geom_pose`)
    and its principal moments (from :func:`primitive_mass_properties` /
    :func:`mesh_mass_properties`).  As MuJoCo: a single geom is copied verbatim (its
    quaternion becomes ``body_iquat``, no check); several geoms are combined with the
    parallel-axis theorem, re-diagonalised with MuJoCo's Jacobi solver and the result must pass
    :func:`check_principal_moments` (with the compiler's ``boundinertia``), else
    :class:`ValueError`; an empty list gives a massless frame at the origin.
    """
    if len(parts) == 0:
        return GeomInertial(0.0, np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0]), np.zeros(3))
    if len(parts) == 1:
        m, pos, quat, inert = parts[0]
        return GeomInertial(
            float(m), np.asarray(pos, dtype=float).copy(), np.asarray(quat, dtype=float).copy(),
            np.asarray(inert, dtype=float).copy(),
        )  # fmt: skip
    mass = 0.0
    com = np.zeros(3)
    for m, pos, _, _ in parts:
        mass += float(m)
        com = com + float(m) * np.asarray(pos, dtype=float)
    if not mass > 0:  # geoms count only with a mass above GEOM_MIN_MASS: only reached by direct callers
        raise ValueError("body mass is too small, cannot compute center of mass")
    ipos = com / mass
    toti = np.zeros(6)
    for m, pos, quat, inert in parts:
        dpos = np.asarray(pos, dtype=float) - ipos
        toti = toti + global_inertia(inert, quat) + offcenter(float(m), dpos)
    eigval, iquat = eig3_body(sym6_to_mat(toti))
    check_principal_moments(eigval, boundinertia=boundinertia)
    return GeomInertial(mass, ipos, iquat, eigval)


def check_principal_moments(moments: VectorLike, *, boundinertia: float = 0.0) -> None:
    """MuJoCo 4.0's test of the principal moments it computes from a full inertia (``fullinertia``,
    several geoms combined, static bodies fused): :class:`ValueError` "inertia must have positive
    eigenvalues" when the smallest moment is below `EIGEN_MIN` (1e-14); when ``boundinertia`` is
    positive (it will raise the moments anyway) only a clearly negative moment is refused, one
    below ``-1e-14 * max(1, largest moment)``.  Measured on the ``mujoco`` 4.0 package (the
    published sources test ``< mjEPS`` = 1e-6, which 4.0 no longer does).

    ``moments`` are in MuJoCo's order (decreasing, as :func:`principal_axes` gives them); a
    diagonal ``diaginertia`` is never tested this way (MuJoCo clamps it with the bounds).
    """
    values = np.asarray(moments, dtype=float).reshape(3)
    smallest = float(values.min())
    if boundinertia > 0:
        refused = smallest < -EIGEN_MIN * max(1.0, float(values.max()))
    else:
        refused = smallest < EIGEN_MIN
    if refused or math.isnan(smallest):
        raise ValueError("inertia must have positive eigenvalues")


def combine(
    parts: Sequence[tuple[float, VectorLike, np.ndarray]],
) -> tuple[float, np.ndarray, np.ndarray]:
    """Total mass, centre of mass and 3x3 inertia about it of several rigid parts.

    Each part is ``(mass, com, inertia)`` with ``com`` (3,) and ``inertia`` (3x3, about the
    part's own centre of mass) expressed in the same (body) axes.  This is the
    parallel-axis accumulation of ``mjCBody::InertiaFromGeom`` (``mjuu_offcenter``):
    ``I = sum(I_i + m_i (|d_i|^2 E - d_i d_i^T))`` with ``d_i = com_i - com``.  Use
    :func:`principal_axes` on the result to get MuJoCo's ``body_inertia``/``body_iquat``
    (or :func:`combine_geoms`, which also reproduces MuJoCo's single-geom shortcut).
    Raises :class:`ValueError` if the total mass is not positive (more than one part).
    """
    if len(parts) == 0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    if len(parts) == 1:
        m, c, i = parts[0]
        return float(m), np.asarray(c, dtype=float).copy(), np.asarray(i, dtype=float).reshape(3, 3).copy()
    mass = 0.0
    com = np.zeros(3)
    for m, c, _ in parts:
        mass += float(m)
        com = com + float(m) * np.asarray(c, dtype=float)
    if not mass > 0:
        raise ValueError("body mass is too small, cannot compute center of mass")
    com = com / mass
    toti = np.zeros(6)
    for m, c, i in parts:
        toti = toti + mat_to_sym6(np.asarray(i, dtype=float).reshape(3, 3))
        toti = toti + offcenter(float(m), np.asarray(c, dtype=float) - com)
    return mass, com, sym6_to_mat(toti)


def bound_and_balance(
    mass: float,
    inertia: np.ndarray,
    *,
    boundmass: float = 0.0,
    boundinertia: float = 0.0,
    balanceinertia: bool = False,
) -> tuple[float, np.ndarray]:
    """Apply ``<compiler boundmass boundinertia balanceinertia>`` to one body (``mjCBody::Compile``).

    MuJoCo does this for every body except the world, whether its inertia was given or
    inferred: ``mass = max(mass, boundmass)``; each principal moment
    ``I_k = max(I_k, boundinertia)``; negative values are an error; if the moments violate
    the triangle inequality ``A + B >= C`` they are replaced by their mean when
    ``balanceinertia`` is set, otherwise it is an error.

    ``inertia`` may be the principal moments (3,) or a full 3x3 matrix; for a matrix the
    bounds apply to its principal moments (MuJoCo's eigen-solver) and the result is rebuilt
    in the same axes.  Returns ``(mass, inertia)`` in the input's shape.
    """
    arr = np.asarray(inertia, dtype=float)
    if arr.shape == (3,):
        diag, rot = arr, None  # (np.maximum below makes the array returned)
    elif arr.shape == (3, 3):
        diag, q = eig3_body(arr)
        rot = quat_to_mat(q)
    else:
        raise ValueError(f"inertia must have shape (3,) or (3, 3), got {arr.shape}")
    mass = max(float(mass), float(boundmass))
    diag = np.maximum(diag, float(boundinertia))
    a, b, c = values = diag.tolist()  # plain floats: numpy's float64 arithmetic and comparisons, cheaper
    if mass < 0 or any(value < 0 for value in values):  # np.any(diag < 0) (NaN too: not negative)
        raise ValueError("mass and inertia cannot be negative")
    if a + b < c or a + c < b or b + c < a:
        if not balanceinertia:
            raise ValueError("inertia must satisfy A + B >= C; use 'balanceinertia' to fix")
        mean = (a + b + c) / 3.0
        diag = np.array([mean, mean, mean])
    if rot is None:
        return mass, diag
    return mass, rot @ np.diag(diag) @ rot.T


def set_total_mass(masses: Sequence[float], inertias: Sequence[np.ndarray], settotalmass: float):
    """``<compiler settotalmass>``: scale all body masses and inertias to the given total.

    MuJoCo applies it after :func:`bound_and_balance` (so bounded masses are scaled too) and
    only when ``settotalmass > 0``: with ``s = settotalmass / sum(masses)`` (world body
    excluded) every mass and every inertia is multiplied by ``s``; centres of mass and
    principal axes are unchanged.  Returns ``(masses, inertias)`` as new numpy arrays (the
    inputs unchanged if ``settotalmass <= 0`` or the total mass is not positive).
    """
    m = np.asarray(masses, dtype=float).copy()
    inert = [np.asarray(i, dtype=float).copy() for i in inertias]
    total = float(m.sum())
    if settotalmass <= 0 or total <= 0:
        return m, inert
    s = float(settotalmass) / total
    return m * s, [i * s for i in inert]
