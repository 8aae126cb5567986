"""Mass, centre of mass and inertia computed the way MuJoCo's compiler computes them.

This module is a clean re-implementation (pure numpy, no MuJoCo dependency) of the parts
of MuJoCo's model compiler (``src/user/user_objects.cc``, ``user_mesh.cc``,
``user_util.cc``) that turn geoms into body inertias:

* :func:`primitive_mass_properties` -- ``mjCGeom::GetVolume`` / ``mjCGeom::SetInertia``
  for sphere, capsule, cylinder, ellipsoid and box, solid or shell (``shellinertia``);
* :func:`process_mesh` -- ``mjCMesh::Process``: ``refpos``/``refquat``/``scale``, the
  convex hull for vertex-only meshes and ``inertia="convex"``, the four mesh inertia
  modes (``legacy``, ``convex``, ``exact``, ``shell``), the re-centring of the mesh at
  its centre of mass and its rotation to principal axes;
* :func:`mesh_geom_pose` / :func:`fit_primitive_to_mesh` -- the compiled pose of a mesh
  geom and ``mjCMesh::FitGeom`` for primitives that reference a mesh;
* :func:`load_mesh_file` -- MuJoCo's STL / OBJ / MSH readers;
* :func:`combine` / :func:`combine_geoms` / :func:`principal_axes` --
  ``mjCBody::InertiaFromGeom`` and ``mjuu_fullInertia``;
* :func:`bound_and_balance` / :func:`set_total_mass` -- ``boundmass``,
  ``boundinertia``, ``balanceinertia`` and ``settotalmass``.

Arithmetic follows MuJoCo's operation order (sequential sums, the same Jacobi
eigen-solver producing the same principal-axes quaternion), so results agree with a
compiled ``mujoco.MjModel`` to round-off -- usually bit for bit.  Where MuJoCo 4.0
behaves differently from its older published sources (the eigen-solver's tolerances and
rotation formula, ``fitaabb``, the explicit-mass volume threshold, re-winding of mirrored
meshes) the behaviour of the ``mujoco`` 4.0 package was measured and is what is
implemented.  Errors that MuJoCo's compiler reports for a mesh or an inertia are raised as
:class:`ValueError` with a similar message; a mesh file MuJoCo cannot read raises a
:class:`MeshFileError` (a ``ValueError`` too), whose subclass says why: the file cannot be
opened (:class:`MeshFileUnreadable`), its type is not one MuJoCo reads
(:class:`UnsupportedMeshFileType`), or its content is not a valid file of its type
(:class:`MalformedMeshFile`).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...core.transforms import VectorLike

__all__ = [
    "MJ_MINVAL",
    "MJ_EPS",
    "DEFAULT_DENSITY",
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

#: MuJoCo's ``mjMINVAL``.
MJ_MINVAL = 1e-15
#: MuJoCo's ``mjEPS``.
MJ_EPS = 1e-6
#: Default geom density in MuJoCo (kg/m^3).
DEFAULT_DENSITY = 1000.0
#: A geom given an explicit ``mass`` only gets it when its volume (or area) exceeds this;
#: otherwise MuJoCo 4.0 compiles it with zero mass (measured against the ``mujoco``
#: package: the test is a strict ``volume > 1e-14``).
_EXPLICIT_MASS_MIN_VOLUME = 1e-14

#: Mesh vertex coordinates beyond this (in either direction, once scaled) are refused: the volume and
#: inertia, which grow with their fifth power, would overflow. (MuJoCo computes infinities and NaNs.)
_MAX_COORDINATE = 1e30

PRIMITIVE_KINDS = ("sphere", "capsule", "cylinder", "ellipsoid", "box")
MESH_INERTIA_MODES = ("legacy", "convex", "exact", "shell")

# thresholds of MuJoCo's Jacobi eigen-solver (relative to max|A_ij|) and of mjCMesh::Process
_EIG_STOP_BODY = 4e-15
_EIG_SORT_BODY = 1e-12
_EIG_TOL_MESH = 1e-7
_INEQ_ATOL = 1e-9
_INEQ_RTOL = 1e-6


# --------------------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------------------


class MeshFileError(ValueError):
    """A mesh file MuJoCo cannot read (raised by :func:`load_mesh_file`). The subclass says why."""

    def __init__(self, message: str, path: str, file_type: str) -> None:
        super().__init__(message)
        self.path = path
        self.file_type = file_type  # the extension, lower case: "stl", "obj", "msh", or another


class MeshFileUnreadable(MeshFileError):
    """The file cannot be opened or read: it does not exist, is a folder, is not readable, ..."""


class UnsupportedMeshFileType(MeshFileError):
    """The file's extension is not one MuJoCo reads (.stl, .obj, .msh)."""


class MalformedMeshFile(MeshFileError):
    """The file's content is not a valid mesh of its type (an ASCII or truncated STL, a bad OBJ line, ...)."""


# --------------------------------------------------------------------------------------
# small spatial helpers mirroring user_util.cc
# --------------------------------------------------------------------------------------


def _normvec(vec: np.ndarray) -> np.ndarray:
    """``mjuu_normvec``: unit length unless the norm is tiny or already within mjEPS of 1."""
    vec = np.asarray(vec, dtype=float).copy()
    nrm2 = 0.0
    for x in vec:
        nrm2 += float(x) * float(x)
    if nrm2 < MJ_EPS:
        return vec
    nrm = math.sqrt(nrm2)
    if abs(nrm - 1.0) > MJ_EPS:
        vec = vec / nrm
    return vec


def quat_to_mat(quat: VectorLike) -> np.ndarray:
    """Rotation matrix of a (w, x, y, z) quaternion, as ``mjuu_quat2mat`` (no normalisation)."""
    q = [float(v) for v in quat]
    if q == [1.0, 0.0, 0.0, 0.0]:
        return np.eye(3)
    q00, q01, q02, q03 = q[0] * q[0], q[0] * q[1], q[0] * q[2], q[0] * q[3]
    q11, q12, q13 = q[1] * q[1], q[1] * q[2], q[1] * q[3]
    q22, q23, q33 = q[2] * q[2], q[2] * q[3], q[3] * q[3]
    return np.array(
        [
            [q00 + q11 - q22 - q33, 2 * (q12 - q03), 2 * (q13 + q02)],
            [2 * (q12 + q03), q00 - q11 + q22 - q33, 2 * (q23 - q01)],
            [2 * (q13 - q02), 2 * (q23 + q01), q00 - q11 - q22 + q33],
        ]
    )


def _mulquat(qa: VectorLike, qb: VectorLike) -> np.ndarray:
    """``mjuu_mulquat``: Hamilton product followed by ``mjuu_normvec``."""
    a0, a1, a2, a3 = (float(v) for v in qa)
    b0, b1, b2, b3 = (float(v) for v in qb)
    res = np.array(
        [
            a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3,
            a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2,
            a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1,
            a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0,
        ]
    )
    return _normvec(res)


def frame_accumulate(
    pos: VectorLike, quat: VectorLike, child_pos: VectorLike, child_quat: VectorLike
) -> tuple[np.ndarray, np.ndarray]:
    """``mjuu_frameaccum``: pose of a child frame given in a parent frame.

    Returns ``(pos + R(quat) @ child_pos, normalise(quat * child_quat))``.
    """
    mat = quat_to_mat(quat)
    c = np.asarray(child_pos, dtype=float)
    vec = np.array([mat[i, 0] * c[0] + mat[i, 1] * c[1] + mat[i, 2] * c[2] for i in range(3)])
    return np.asarray(pos, dtype=float) + vec, _mulquat(quat, child_quat)


def _normvec4(q: list[float]) -> list[float]:
    """``mjuu_normvec`` on a quaternion given as a list (unchanged when within mjEPS of unit)."""
    n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]
    if n2 < MJ_EPS:
        return q
    n = math.sqrt(n2)
    if abs(n - 1.0) > MJ_EPS:
        return [q[0] / n, q[1] / n, q[2] / n, q[3] / n]
    return q


def _quatmul4(a: list[float], b: list[float]) -> list[float]:
    return [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]


def _jacobi_eig3(mat: np.ndarray, stop_rel: float, sort_rel: float) -> tuple[np.ndarray, np.ndarray]:
    """MuJoCo 4's Jacobi eigen-decomposition of a symmetric 3x3 matrix (``mjuu_eig3``).

    The frame is accumulated as a quaternion.  Each step annihilates the largest
    off-diagonal entry of ``R(q)^T A R(q)`` with a rotation built from the half-angle tangent
    (accurate even for tiny angles); iteration stops once that entry is below
    ``stop_rel * max|A_ij|``.  Eigenvalues are then sorted in decreasing order by three
    adjacent swaps (0-1, 1-2, 0-1), each rotating the frame by 90 degrees, skipping pairs
    closer than ``sort_rel * max|A_ij|``.  Quaternions are normalised with
    ``mjuu_normvec``.  MuJoCo uses ``stop_rel=4e-15, sort_rel=1e-12`` for body inertias
    (``fullinertia`` and inertia inferred from geoms) and ``1e-7, 1e-7`` for meshes.

    These constants and formulas were measured against the ``mujoco`` 4.0 package (which
    differs from the older ``user_util.cc``: absolute 1e-12 thresholds and a stop when the
    rotation cosine is within 1e-12 of one); with them the quaternions MuJoCo reports as
    ``body_iquat`` and ``mesh_quat`` are reproduced bit for bit in randomised tests.

    Returns eigenvalues (decreasing) and the quaternion whose rotation matrix has the
    corresponding eigenvectors as columns.
    """
    m = [float(x) for x in np.asarray(mat, dtype=float).reshape(9)]
    scale = max(abs(x) for x in m)
    quat = [1.0, 0.0, 0.0, 0.0]
    ev = [m[0], m[4], m[8]]
    for _ in range(500):
        e = quat_to_mat(quat).reshape(9)
        tmp = [e[r] * m[c] + e[3 + r] * m[3 + c] + e[6 + r] * m[6 + c] for r in range(3) for c in range(3)]
        d = [
            tmp[3 * r] * e[c] + tmp[3 * r + 1] * e[3 + c] + tmp[3 * r + 2] * e[6 + c]
            for r in range(3)
            for c in range(3)
        ]
        ev = [d[0], d[4], d[8]]
        if abs(d[1]) > abs(d[2]) and abs(d[1]) > abs(d[5]):
            rk, ck, rotk = 0, 1, 2
        elif abs(d[2]) > abs(d[5]):
            rk, ck, rotk = 0, 2, 1
        else:
            rk, ck, rotk = 1, 2, 0
        off = d[3 * rk + ck]
        if not abs(off) >= stop_rel * scale or off == 0:
            break
        tau = (d[4 * ck] - d[4 * rk]) / (2 * off)
        if tau >= 0:
            t = 1.0 / (tau + math.sqrt(1 + tau * tau))
        else:
            t = -1.0 / (-tau + math.sqrt(1 + tau * tau))
        th = t / (1 + math.sqrt(1 + t * t))  # tan(theta / 2)
        ch = 1.0 / math.sqrt(1 + th * th)
        rot = [ch, 0.0, 0.0, 0.0]
        rot[rotk + 1] = -th * ch
        if rotk == 1:
            rot[rotk + 1] = -rot[rotk + 1]
        quat = _normvec4(_quatmul4(quat, _normvec4(rot)))
    for j in range(3):
        j1 = j % 2
        if ev[j1] + sort_rel * scale < ev[j1 + 1]:
            ev[j1], ev[j1 + 1] = ev[j1 + 1], ev[j1]
            rot = [0.707106781186548, 0.0, 0.0, 0.0]
            rot[(j1 + 2) % 3 + 1] = rot[0]
            quat = _normvec4(_quatmul4(quat, rot))
    return np.array(ev), np.array(quat)


def _eig3(mat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigen-decomposition MuJoCo applies to body inertias (see :func:`_jacobi_eig3`)."""
    return _jacobi_eig3(mat, _EIG_STOP_BODY, _EIG_SORT_BODY)


def _eig3_mesh(mat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigen-decomposition MuJoCo applies to mesh inertias (see :func:`_jacobi_eig3`)."""
    return _jacobi_eig3(mat, _EIG_TOL_MESH, _EIG_TOL_MESH)


def principal_axes(inertia: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Principal moments (decreasing) and frame quaternion of a symmetric 3x3 inertia.

    Uses MuJoCo's own Jacobi solver with the tolerances of ``mjuu_fullInertia`` (see
    :func:`_jacobi_eig3`), so the quaternion is the one MuJoCo reports as ``body_iquat``
    (not merely an equivalent one): ``inertia == R(q) @ diag(moments) @ R(q).T``.  Moments
    closer than 1e-12 relative are left in their original order, as MuJoCo does.
    """
    a = np.asarray(inertia, dtype=float)
    if a.shape != (3, 3):
        raise ValueError(f"inertia must be a 3x3 matrix, got shape {a.shape}")
    return _eig3(a)


def _globalinertia(local: VectorLike, quat: VectorLike) -> np.ndarray:
    """``mjuu_globalinertia``: R diag(local) R^T as (xx, yy, zz, xy, xz, yz)."""
    m = quat_to_mat(quat).reshape(9)
    lo = [float(v) for v in local]
    tmp = [
        m[0] * lo[0], m[3] * lo[0], m[6] * lo[0],
        m[1] * lo[1], m[4] * lo[1], m[7] * lo[1],
        m[2] * lo[2], m[5] * lo[2], m[8] * lo[2],
    ]  # fmt: skip
    return np.array(
        [
            m[0] * tmp[0] + m[1] * tmp[3] + m[2] * tmp[6],
            m[3] * tmp[1] + m[4] * tmp[4] + m[5] * tmp[7],
            m[6] * tmp[2] + m[7] * tmp[5] + m[8] * tmp[8],
            m[0] * tmp[1] + m[1] * tmp[4] + m[2] * tmp[7],
            m[0] * tmp[2] + m[1] * tmp[5] + m[2] * tmp[8],
            m[3] * tmp[2] + m[4] * tmp[5] + m[5] * tmp[8],
        ]
    )


def _offcenter(mass: float, vec: VectorLike) -> np.ndarray:
    """``mjuu_offcenter``: parallel-axis term as (xx, yy, zz, xy, xz, yz)."""
    x, y, z = (float(v) for v in vec)
    return np.array(
        [
            mass * (y * y + z * z),
            mass * (x * x + z * z),
            mass * (x * x + y * y),
            -mass * x * y,
            -mass * x * z,
            -mass * y * z,
        ]
    )


def _sym6_to_mat(s: np.ndarray) -> np.ndarray:
    return np.array([[s[0], s[3], s[4]], [s[3], s[1], s[5]], [s[4], s[5], s[2]]])


def _mat_to_sym6(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=float)
    return np.array([m[0, 0], m[1, 1], m[2, 2], 0.5 * (m[0, 1] + m[1, 0]), 0.5 * (m[0, 2] + m[2, 0]),
                     0.5 * (m[1, 2] + m[2, 1])])  # fmt: skip


def _seqsum(values: np.ndarray) -> np.ndarray:
    """Left-to-right sum along axis 0, like a C accumulation loop (numpy's sum is pairwise)."""
    values = np.asarray(values, dtype=float)
    if values.shape[0] == 0:
        return np.zeros(values.shape[1:])
    return np.add.accumulate(values, axis=0)[-1]


# --------------------------------------------------------------------------------------
# primitives
# --------------------------------------------------------------------------------------


def _check_kind_size(kind: str, size: VectorLike) -> np.ndarray:
    if kind not in PRIMITIVE_KINDS:
        raise ValueError(f"unsupported primitive geom type {kind!r}; expected one of {', '.join(PRIMITIVE_KINDS)}")
    need = {"sphere": 1, "capsule": 2, "cylinder": 2, "ellipsoid": 3, "box": 3}[kind]
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
    s = _check_kind_size(kind, size)
    pi = math.pi
    if kind == "sphere":
        r = s[0]
        return 4 * pi * r * r if shell else 4 * pi * r * r * r / 3
    if kind == "capsule":
        r, h = s[0], 2 * s[1]
        if shell:
            return 4 * pi * r * r + 2 * pi * r * h
        return pi * (r * r * h + 4 * r * r * r / 3)
    if kind == "cylinder":
        r, h = s[0], 2 * s[1]
        if shell:
            return 2 * pi * r * r + 2 * pi * r * h
        return pi * r * r * h
    if kind == "ellipsoid":
        if shell:
            p = 1.6075
            tmp = (s[0] * s[1]) ** p + (s[1] * s[2]) ** p + (s[2] * s[0]) ** p
            return 4 * pi * (tmp / 3) ** (1 / p)
        return 4 * pi * s[0] * s[1] * s[2] / 3
    # box
    if shell:
        return 8 * (s[0] * s[1] + s[1] * s[2] + s[2] * s[0])
    return s[0] * s[1] * s[2] * 8


def _primitive_diag_inertia(kind: str, s: np.ndarray, mass: float, shell: bool) -> np.ndarray:
    """``mjCGeom::SetInertia`` for a primitive of the given mass (principal moments, geom axes)."""
    if kind == "sphere":
        v = 2 * mass * s[0] * s[0] / (3 if shell else 5)
        return np.array([v, v, v])
    if kind == "capsule":
        halfheight, height, r = s[1], 2 * s[1], s[0]
        if not shell:
            sphere_mass = mass * 4 * r / (4 * r + 3 * height)  # mass * sphere_vol / total_vol
            cylinder_mass = mass - sphere_mass
            ixy = cylinder_mass * (3 * r * r + height * height) / 12
            iz = cylinder_mass * r * r / 2
            sphere_inertia = 2 * sphere_mass * r * r / 5
            ixy += sphere_inertia + sphere_mass * height * (3 * r + 2 * height) / 8
            iz += sphere_inertia
            return np.array([ixy, ixy, iz])
        a_sphere = 4 * math.pi * r * r
        a_cylinder = 2 * math.pi * r * height
        sphere_mass = mass * a_sphere / (a_sphere + a_cylinder)
        cylinder_mass = mass - sphere_mass
        ixy = cylinder_mass * (6 * r * r + height * height) / 12
        iz = cylinder_mass * r * r
        sphere_inertia = 2 * sphere_mass * r * r / 3
        hs_com = r / 2
        hs_pos = halfheight + hs_com
        ixy += sphere_inertia + sphere_mass * (hs_pos * hs_pos - hs_com * hs_com)
        iz += sphere_inertia
        return np.array([ixy, ixy, iz])
    if kind == "cylinder":
        halfheight, height, r = s[1], 2 * s[1], s[0]
        if not shell:
            ixy = mass * (3 * r * r + height * height) / 12
            return np.array([ixy, ixy, mass * r * r / 2])
        a_disk = math.pi * r * r
        a_cylinder = 2 * math.pi * r * height
        mass_disk = mass * a_disk / (2 * a_disk + a_cylinder)
        mass_cylinder = mass - 2 * mass_disk
        ixy = mass_cylinder * (6 * r * r + height * height) / 12
        iz = mass_cylinder * r * r
        disk_x = mass_disk * r * r / 4 + mass_disk * halfheight * halfheight
        disk_z = mass_disk * r * r / 2
        return np.array([ixy + 2 * disk_x, ixy + 2 * disk_x, iz + 2 * disk_z])
    s00, s11, s22 = s[0] * s[0], s[1] * s[1], s[2] * s[2]
    if kind == "ellipsoid":
        if not shell:
            return np.array([mass * (s11 + s22) / 5, mass * (s00 + s22) / 5, mass * (s00 + s11) / 5])
        # MuJoCo: difference of a solid ellipsoid and one inflated by 1e-6
        eps = 1e-6
        va = 4 * math.pi * s[0] * s[1] * s[2] / 3
        ae, be, ce = s[0] + eps, s[1] + eps, s[2] + eps
        vb = 4 * math.pi * ae * be * ce / 3
        density = mass / (vb - va)
        ma, mb = va * density, vb * density
        ia = np.array([ma * (s11 + s22) / 5, ma * (s00 + s22) / 5, ma * (s00 + s11) / 5])
        ib = np.array([mb * (be * be + ce * ce) / 5, mb * (ae * ae + ce * ce) / 5, mb * (ae * ae + be * be) / 5])
        return ib - ia
    # box
    if not shell:
        return np.array([mass * (s11 + s22) / 3, mass * (s00 + s22) / 3, mass * (s00 + s11) / 3])
    lx, ly, lz = 2 * s[0], 2 * s[1], 2 * s[2]
    a0, a1, a2 = lx * ly, ly * lz, lz * lx
    atotal = 2 * (a0 + a1 + a2)
    m0, m1, m2 = mass * a0 / atotal, mass * a1 / atotal, mass * a2 / atotal
    ix0, iy0, iz0 = m0 * ly * ly / 12, m0 * lx * lx / 12, m0 * (lx * lx + ly * ly) / 12
    ix1, iy1, iz1 = m1 * (ly * ly + lz * lz) / 12, m1 * lz * lz / 12, m1 * ly * ly / 12
    ix2, iy2, iz2 = m2 * lz * lz / 12, m2 * (lx * lx + lz * lz) / 12, m2 * lx * lx / 12
    return np.array(
        [
            2 * (m0 * s22 + m2 * s11 + ix0 + ix1 + ix2),
            2 * (m0 * s22 + m1 * s00 + iy0 + iy1 + iy2),
            2 * (m1 * s00 + m2 * s11 + iz0 + iz1 + iz2),
        ]
    )


def _geom_mass(volume: float, density: float | None, mass: float | None) -> float | None:
    """Geom mass as in ``mjCGeom::Compile``; ``None`` means "zero mass, zero inertia"."""
    if mass is not None:
        mass = float(mass)
        if not math.isfinite(mass):
            raise ValueError(f"geom mass must be finite, got {mass!r}")
        if mass < 0:
            raise ValueError("mass, inertia or density are negative in geom")
        if mass == 0 or not volume > _EXPLICIT_MASS_MIN_VOLUME:
            return None
        return mass
    density = DEFAULT_DENSITY if density is None else float(density)
    if not math.isfinite(density):
        raise ValueError(f"geom density must be finite, got {density!r}")
    if density < 0:
        raise ValueError("mass, inertia or density are negative in geom")
    if density == 0:
        return None
    return density * volume


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
    volume = primitive_volume(kind, s, shell=shell)
    m = _geom_mass(volume, density, mass)
    if m is None:
        return 0.0, np.zeros((3, 3))
    return float(m), np.diag(_primitive_diag_inertia(kind, s, m, shell))


# --------------------------------------------------------------------------------------
# convex hull (quickhull; replaces qhull, which MuJoCo uses)
# --------------------------------------------------------------------------------------


def _initial_simplex(pts: np.ndarray, tol: float) -> list[int]:
    """Initial simplex chosen the way qhull's ``qh_maxsimplex`` does.

    Start from the points of minimum and maximum x; add the point maximising the area of
    the triangle projected onto the xy plane, then the one maximising the tetrahedron
    volume -- first among the extreme points of each coordinate, then among all points if
    those give a degenerate simplex.
    """
    n = pts.shape[0]
    extreme: list[int] = []
    for k in range(3):
        for idx in (int(np.argmin(pts[:, k])), int(np.argmax(pts[:, k]))):
            if idx not in extreme:
                extreme.append(idx)
    simplex = [int(np.argmin(pts[:, 0]))]
    i1 = int(np.argmax(pts[:, 0]))
    if i1 == simplex[0]:
        raise ValueError("mesh has colocated vertices, cannot compute convex hull")
    simplex.append(i1)
    for k in (2, 3):
        base = pts[simplex]

        def dets(idx: np.ndarray, base: np.ndarray = base, k: int = k) -> np.ndarray:
            rows = base[None, :, :k] - pts[idx][:, None, :k]  # (m, k, k)
            return np.abs(np.linalg.det(rows))

        cand = np.array([i for i in extreme if i not in simplex], dtype=np.int64)
        best, bestdet = -1, 0.0
        if cand.size:
            d = dets(cand)
            j = int(np.argmax(d))
            best, bestdet = int(cand[j]), float(d[j])
        # qhull falls back to all points when the extreme points give a (nearly) flat simplex
        ext = float(np.max(np.ptp(pts, axis=0)))
        if best < 0 or bestdet <= 1e-6 * ext**k:
            allidx = np.array([i for i in range(n) if i not in simplex], dtype=np.int64)
            d = dets(allidx)
            j = int(np.argmax(d))
            if float(d[j]) > bestdet:
                best, bestdet = int(allidx[j]), float(d[j])
        simplex.append(best)
    return simplex


def convex_hull(points: np.ndarray, *, max_vertices: int = -1) -> np.ndarray:
    """Triangulated convex hull of a 3-D point set, faces wound counter-clockwise outward.

    A numpy quickhull standing in for qhull (``qhull Qt``), which MuJoCo uses for meshes
    given without faces and for ``inertia="convex"``.  Returned faces index ``points``
    (for duplicated points the first occurrence is used).  Points on a hull facet that are
    not corners of it are not hull vertices, so the triangulation can differ from qhull's,
    but the enclosed volume and inertia agree to round-off.

    ``max_vertices`` (MuJoCo's ``maxhullvert``; ``-1`` = unlimited, otherwise at least 4)
    mimics qhull's ``Q9 TA<n>``: starting from qhull's initial simplex, repeatedly add the
    point farthest outside any facet, and stop once the hull has that many vertices.  This
    is only an approximation of qhull's choice of points (which depends on its internal
    point-to-facet partitioning): the truncated hull can differ from MuJoCo's when
    ``max_vertices`` is well above 4.

    Raises :class:`ValueError` for fewer than 4 points, non-finite coordinates, or
    co-located, collinear or coplanar point sets (MuJoCo refuses these before calling qhull).
    """
    pts = np.asarray(points, dtype=float)
    if pts.ndim != 2 or pts.shape[1] != 3:
        raise ValueError(f"points must have shape (n, 3), got {pts.shape}")
    if pts.shape[0] < 4:
        raise ValueError("at least 4 vertices are required to compute a convex hull")
    if not np.all(np.isfinite(pts)):
        raise ValueError("vertex coordinates must be finite")
    if max_vertices != -1 and max_vertices < 4:
        raise ValueError(f"maxhullvert must be -1 or at least 4, got {max_vertices}")

    # unique points, remembering the first occurrence of each
    _, first = np.unique(pts, axis=0, return_index=True)
    first = np.sort(first)
    upts = pts[first]
    n = upts.shape[0]

    # degeneracy checks (relative to the size of the point set)
    extent = float(np.max(np.ptp(upts, axis=0)))
    if n < 2 or extent <= MJ_MINVAL:
        raise ValueError("mesh has colocated vertices, cannot compute convex hull")
    scale = max(extent, float(np.max(np.abs(upts))))
    tol = 1e-12 * scale
    flat = 1e-10 * extent
    rel = upts - upts[0]
    far = int(np.argmax(np.einsum("ij,ij->i", rel, rel)))
    axis = rel[far] / np.linalg.norm(rel[far])
    cr = np.cross(rel, axis)
    dline = np.sqrt(np.einsum("ij,ij->i", cr, cr))
    k2 = int(np.argmax(dline))
    if dline[k2] <= flat:
        raise ValueError("mesh has collinear vertices, cannot compute convex hull")
    nrm = np.cross(axis, rel[k2])
    nrm /= np.linalg.norm(nrm)
    if float(np.max(np.abs(rel @ nrm))) <= flat:
        raise ValueError("mesh has coplanar vertices, cannot compute convex hull")

    faces: list[tuple[int, int, int]] = []
    normals: list[np.ndarray] = []
    offsets: list[float] = []
    alive: list[bool] = []
    edge_face: dict[tuple[int, int], int] = {}
    outside: dict[int, np.ndarray] = {}
    furthest: dict[int, tuple[float, int]] = {}
    vert_use: dict[int, int] = {}

    def add_face(a: int, b: int, c: int) -> int:
        nv = np.cross(upts[b] - upts[a], upts[c] - upts[a])
        ln = float(np.linalg.norm(nv))
        nv = nv / ln if ln > 0 else nv
        fid = len(faces)
        faces.append((a, b, c))
        normals.append(nv)
        offsets.append(float(nv @ upts[a]))
        alive.append(True)
        edge_face[(a, b)] = fid
        edge_face[(b, c)] = fid
        edge_face[(c, a)] = fid
        for v in (a, b, c):
            vert_use[v] = vert_use.get(v, 0) + 1
        return fid

    def kill_face(g: int) -> None:
        alive[g] = False
        a, b, c = faces[g]
        for e in ((a, b), (b, c), (c, a)):
            if edge_face.get(e) == g:
                del edge_face[e]
        for v in (a, b, c):
            vert_use[v] -= 1
            if vert_use[v] == 0:
                del vert_use[v]

    def assign(cands: np.ndarray, fids: list[int]) -> None:
        if cands.size == 0 or not fids:
            return
        nmat = np.array([normals[f] for f in fids])
        off = np.array([offsets[f] for f in fids])
        dist = upts[cands] @ nmat.T - off
        best = np.argmax(dist, axis=1)
        bestd = dist[np.arange(cands.size), best]
        keep = bestd > tol
        for k in np.unique(best[keep]):
            sel = keep & (best == k)
            fid = fids[int(k)]
            outside[fid] = cands[sel]
            j = int(np.argmax(bestd[sel]))
            furthest[fid] = (float(bestd[sel][j]), int(cands[sel][j]))

    i0, i1, i2, i3 = _initial_simplex(upts, tol)
    side = float(np.dot(np.cross(upts[i1] - upts[i0], upts[i2] - upts[i0]), upts[i3] - upts[i0]))
    if side > 0:  # make (i0, i1, i2) face away from i3
        tri = [(i0, i2, i1), (i0, i1, i3), (i1, i2, i3), (i2, i0, i3)]
    else:
        tri = [(i0, i1, i2), (i0, i3, i1), (i1, i3, i2), (i2, i3, i0)]
    new_ids = [add_face(*t) for t in tri]
    mask = np.ones(n, dtype=bool)
    mask[[i0, i1, i2, i3]] = False
    assign(np.nonzero(mask)[0], new_ids)
    pending = [f for f in new_ids if f in outside]
    limited = max_vertices > 0

    while outside:
        if limited:
            if len(vert_use) >= max_vertices:
                break
            f = max(outside, key=lambda g: furthest[g][0])  # qhull Q9: furthest of all
        else:
            f = -1
            while pending:
                g = pending.pop()
                if alive[g] and g in outside:
                    f = g
                    break
            if f < 0:
                break
        p = furthest[f][1]
        ptp = upts[p]
        # visible set: faces connected to f that p lies strictly above
        visible = {f}
        stack = [f]
        while stack:
            g = stack.pop()
            a, b, c = faces[g]
            for e0, e1 in ((a, b), (b, c), (c, a)):
                h = edge_face.get((e1, e0))
                if h is None or h in visible:
                    continue
                if float(ptp @ normals[h]) - offsets[h] > tol:
                    visible.add(h)
                    stack.append(h)
        horizon = []
        for g in visible:
            a, b, c = faces[g]
            for e0, e1 in ((a, b), (b, c), (c, a)):
                if edge_face.get((e1, e0)) not in visible:
                    horizon.append((e0, e1))
        cands = []
        for g in visible:
            if g in outside:
                cands.append(outside.pop(g))
                del furthest[g]
        for g in visible:
            kill_face(g)
        new_ids = [add_face(e0, e1, p) for e0, e1 in horizon]
        if cands:
            allc = np.concatenate(cands)
            assign(allc[allc != p], new_ids)
        pending.extend(fid for fid in new_ids if fid in outside)

    result = np.array([faces[i] for i in range(len(faces)) if alive[i]], dtype=np.int64)
    return first[result]


# --------------------------------------------------------------------------------------
# meshes
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProcessedMesh:
    """A mesh after MuJoCo's ``mjCMesh::Process``.

    Attributes:
        vertices: (n, 3) vertices in the mesh's final frame: ``refpos``/``refquat``/``scale``
            applied, then moved to the centre of mass and rotated to principal axes.  Same
            order as the input (MuJoCo keeps interior vertices of vertex-only meshes).
            Computed in double precision; MuJoCo stores them as float32 (``mesh_vert``).
        faces: (m, 3) triangles indexing ``vertices`` -- the given faces (with the two last
            columns swapped when ``prod(scale) < 0``, as MuJoCo does), or the convex hull when
            the mesh had no faces (computed on the transformed vertices, wound outward).
        hull_faces: the convex hull's triangles if one was computed (no faces,
            ``inertia_mode == "convex"`` or ``need_hull``), else ``None``.
        volume: the volume, or for ``inertia_mode == "shell"`` the surface area, that
            MuJoCo multiplies by the geom density (``GetVolumeRef``).
        com_offset: (3,) centre of mass in the mesh file frame after refpos/refquat/scale
            (MuJoCo's ``mesh_pos``).
        orientation: (w, x, y, z) principal-axes quaternion in that frame (``mesh_quat``).
            A mesh geom's inertial frame -- and its compiled ``geom_pos``/``geom_quat`` --
            is ``geom_pose @ T(com_offset) @ R(orientation)`` (see :func:`mesh_geom_pose`).
        principal_inertia: (3,) principal moments per unit density, about the centre of
            mass in the ``orientation`` axes; decreasing, except that MuJoCo's mesh
            eigen-solver leaves moments within 1e-7 (relative) of each other unsorted.
        inertia_box: (3,) half-sizes of MuJoCo's equivalent inertia box (``boxsz``), from which
            a mesh geom's inertia is computed.
        aabb: (6,) MuJoCo's ``aamm`` (min xyz, max xyz) of the processed vertices.
        inertia_mode: the mode used.
    """

    vertices: np.ndarray
    faces: np.ndarray
    hull_faces: np.ndarray | None
    volume: float
    com_offset: np.ndarray
    orientation: np.ndarray
    principal_inertia: np.ndarray
    inertia_box: np.ndarray
    aabb: np.ndarray
    inertia_mode: str

    def mass_properties(self, *, density: float | None = None, mass: float | None = None) -> tuple[float, np.ndarray]:
        """Mass and diagonal 3x3 inertia of a mesh geom (see :func:`mesh_mass_properties`)."""
        return mesh_mass_properties(self, density=density, mass=mass)


#: Alias kept for readers that prefer the "data" name.
MeshData = ProcessedMesh


def _triangles(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vectorised ``triangle()`` of user_mesh.cc: (area, unit normal, centroid) per triangle.

    Triangles whose doubled area is below mjMINVAL get area 0 (and an unnormalised normal).
    """
    center = (a + b + c) / 3
    e1 = b - a
    e2 = c - a
    nrm = np.stack(
        [
            e1[:, 1] * e2[:, 2] - e1[:, 2] * e2[:, 1],
            e1[:, 2] * e2[:, 0] - e1[:, 0] * e2[:, 2],
            e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0],
        ],
        axis=1,
    )
    length = np.sqrt(nrm[:, 0] * nrm[:, 0] + nrm[:, 1] * nrm[:, 1] + nrm[:, 2] * nrm[:, 2])
    ok = length >= MJ_MINVAL
    area = np.where(ok, 0.5 * length, 0.0)
    safe = np.where(ok, length, 1.0)
    nrm = np.where(ok[:, None], nrm / safe[:, None], nrm)
    return area, nrm, center


def _dot3(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a[:, 0] * b[:, 0] + a[:, 1] * b[:, 1] + a[:, 2] * b[:, 2]


def process_mesh(
    vertices: np.ndarray,
    faces: np.ndarray | None = None,
    *,
    scale: VectorLike = (1.0, 1.0, 1.0),
    refpos: VectorLike = (0.0, 0.0, 0.0),
    refquat: VectorLike = (1.0, 0.0, 0.0, 0.0),
    inertia_mode: str = "legacy",
    maxhullvert: int = -1,
    need_hull: bool = False,
) -> ProcessedMesh:
    """Process a mesh exactly like MuJoCo's compiler (``mjCMesh::Process``).

    What MuJoCo does, in order:

    1. vertices are stored as float32 (as parsed from XML or read from a file) and
       processed in double; at least 4 are required, all finite; face indices in range;
    2. ``inertia="exact"`` rejects meshes whose faces have inconsistent orientation (a
       directed edge used twice);
    3. a mesh without faces gets the faces of its convex hull (qhull; interior vertices stay
       in the vertex list); ``inertia="convex"`` uses the hull's faces for mass properties;
    4. if ``scale[0]*scale[1]*scale[2] < 0`` the faces are re-wound (columns 1 and 2 swapped);
    5. ``v = scale * (R(refquat)^T (v - refpos))`` (refquat normalised);
    6. the area-weighted face centroid is the apex of the tetrahedra used for the volume
       and the centre of mass; ``legacy`` (MuJoCo's default) takes the absolute volume of
       every tetrahedron, ``exact``/``convex`` signed volumes, ``shell`` triangle areas;
    7. the inertia about the centre of mass (tetrahedra now with apex at the centre of mass;
       the volume or area is recomputed from them) is diagonalised with MuJoCo's Jacobi
       solver; the vertices are moved to the centre of mass and rotated to principal axes.

    ``maxhullvert`` (-1 or >= 4) limits the number of hull vertices.  ``need_hull=True``
    asks for the convex hull even when it is not needed for the mass properties: MuJoCo
    builds it whenever a collidable geom (``contype`` or ``conaffinity`` non-zero) uses the
    mesh, and then rejects meshes whose vertices are co-located, collinear or coplanar
    (e.g. a flat ``inertia="shell"`` mesh is only accepted on visual-only geoms).  Raises
    :class:`ValueError` for invalid or degenerate meshes (too few vertices, surface area or
    volume too small, negative volume from misoriented faces, non-physical inertia...).
    """
    if inertia_mode not in MESH_INERTIA_MODES:
        raise ValueError(f"unknown mesh inertia mode {inertia_mode!r}; expected one of {', '.join(MESH_INERTIA_MODES)}")
    v32 = np.asarray(vertices)
    if v32.ndim == 1 and v32.size % 3 == 0:
        v32 = v32.reshape(-1, 3)
    if v32.ndim != 2 or v32.shape[1] != 3:
        raise ValueError(f"mesh vertex data must be a multiple of 3 (got array of shape {np.shape(vertices)})")
    with np.errstate(over="ignore", invalid="ignore"):
        v32 = v32.astype(np.float32)
    if v32.shape[0] < 4:
        raise ValueError("at least 4 vertices required in mesh")
    if not np.all(np.isfinite(v32)):
        bad = int(np.nonzero(~np.all(np.isfinite(v32), axis=1))[0][0])
        raise ValueError(f"mesh vertex coordinate {bad} is not finite")
    vert = v32.astype(np.float64)
    nvert = vert.shape[0]

    face: np.ndarray | None = None
    if faces is not None:
        face = np.asarray(faces)
        if face.size == 0:
            face = None
        else:
            if face.ndim == 1 and face.size % 3 == 0:
                face = face.reshape(-1, 3)
            if face.ndim != 2 or face.shape[1] != 3:
                raise ValueError(f"mesh face data must be a multiple of 3 (got array of shape {np.shape(faces)})")
            if not np.issubdtype(face.dtype, np.integer):
                if not np.all(np.equal(np.mod(face, 1), 0)):
                    raise ValueError("mesh face indices must be integers")
            if face.min() < 0 or face.max() >= nvert:  # checked before the cast, which garbles huge values
                idx = int(np.nonzero((face < 0) | (face >= nvert))[0][0])
                raise ValueError(f"in mesh face {idx}, a vertex index does not exist (mesh has {nvert} vertices)")
            face = face.astype(np.int64)

    sc = np.asarray(scale, dtype=float).reshape(3)
    rp = np.asarray(refpos, dtype=float).reshape(3)
    rq = np.asarray(refquat, dtype=float).reshape(4)

    # consistent orientation (exact mode): no directed edge may appear twice
    if face is not None and inertia_mode == "exact":
        area0, _, _ = _triangles(vert[face[:, 0]], vert[face[:, 1]], vert[face[:, 2]])
        good = face[area0 > math.sqrt(MJ_MINVAL)]
        if good.shape[0]:
            edges = np.concatenate([good[:, [0, 1]], good[:, [1, 2]], good[:, [2, 0]]])
            uniq, counts = np.unique(edges, axis=0, return_counts=True)
            if np.any(counts > 1):
                e = uniq[int(np.argmax(counts > 1))]
                raise ValueError(
                    "faces of mesh have inconsistent orientation; please check the faces containing "
                    f"the vertices {int(e[0]) + 1} and {int(e[1]) + 1}"
                )

    # --- transformation: refpos, refquat, scale (done before the hull: affine-invariant) ---
    if np.any(rp != 0):
        vert = vert - rp
    if not (rq[0] == 1 and rq[1] == 0 and rq[2] == 0 and rq[3] == 0):
        mat = quat_to_mat(_normvec(rq))
        vert = np.stack(
            [
                mat[0, 0] * vert[:, 0] + mat[1, 0] * vert[:, 1] + mat[2, 0] * vert[:, 2],
                mat[0, 1] * vert[:, 0] + mat[1, 1] * vert[:, 1] + mat[2, 1] * vert[:, 2],
                mat[0, 2] * vert[:, 0] + mat[1, 2] * vert[:, 1] + mat[2, 2] * vert[:, 2],
            ],
            axis=1,
        )
    if np.any(sc != 1):
        with np.errstate(over="ignore"):
            vert = vert * sc
    # volumes and inertias go with the fifth power of the coordinates: beyond this, they overflow
    if np.max(np.abs(vert)) > _MAX_COORDINATE:
        raise ValueError(f"mesh vertex coordinates (once scaled) beyond {_MAX_COORDINATE:g} are too large to use")

    hull: np.ndarray | None = None
    if face is None:
        face = hull = convex_hull(vert, max_vertices=maxhullvert)
    else:
        if inertia_mode == "convex" or need_hull:
            hull = convex_hull(vert, max_vertices=maxhullvert)
        if float(sc[0]) * float(sc[1]) * float(sc[2]) < 0:  # Python floats: an overflow is inf, not a warning
            face = face[:, [0, 2, 1]]
    # the faces the mass properties are computed from: the hull's for inertia="convex"
    mass_faces = hull if inertia_mode == "convex" and hull is not None else face

    fa, fb, fc = vert[face[:, 0]], vert[face[:, 1]], vert[face[:, 2]]
    area, _, center = _triangles(fa, fb, fc)

    # area-weighted centroid of the faces
    total_area = float(_seqsum(area))
    facecen = _seqsum(area[:, None] * center)
    if total_area < MJ_MINVAL:
        raise ValueError("mesh surface area is too small")
    facecen = facecen / total_area

    # volume (or area) and centre of mass
    if inertia_mode == "shell":
        pyr = area
        com_sum = _seqsum(pyr[:, None] * (center * 3.0 / 4.0 + facecen / 4.0))
        measure = float(_seqsum(pyr))
        if measure < MJ_MINVAL:
            raise ValueError("mesh surface area is too small")
    else:
        vf = mass_faces
        va, vn, vc = _triangles(vert[vf[:, 0]], vert[vf[:, 1]], vert[vf[:, 2]])
        pyr = _dot3(vc - facecen, vn) * va / 3
        if inertia_mode == "legacy":
            pyr = np.abs(pyr)
        measure = float(_seqsum(pyr))
        com_sum = _seqsum(pyr[:, None] * (vc * 3.0 / 4.0 + facecen / 4.0))
        if measure < MJ_MINVAL:
            if measure < 0:
                raise ValueError("mesh volume is negative (misoriented triangles)")
            raise ValueError("mesh volume is too small; try setting inertia to shell")
    com = com_sum / measure if measure >= MJ_MINVAL else com_sum

    # inertia about the centre of mass (and recomputed volume / area)
    ifaces = mass_faces
    cen = vert - com
    d, e, f = cen[ifaces[:, 0]], cen[ifaces[:, 1]], cen[ifaces[:, 2]]
    ia, inrm, icen = _triangles(d, e, f)
    if inertia_mode == "shell":
        vol = ia
        cdiv = 12
    else:
        vol = _dot3(icen, inrm) * ia / 3
        cdiv = 20
    if inertia_mode == "legacy":
        vol = np.abs(vol)
    total = float(_seqsum(vol))
    prods = []
    for j, k in ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)):
        term = (
            2 * (d[:, j] * d[:, k] + e[:, j] * e[:, k] + f[:, j] * f[:, k])
            + d[:, j] * e[:, k]
            + d[:, k] * e[:, j]
            + d[:, j] * f[:, k]
            + d[:, k] * f[:, j]
            + e[:, j] * f[:, k]
            + e[:, k] * f[:, j]
        )
        prods.append(vol / cdiv * term)
    p = _seqsum(np.stack(prods, axis=1))
    full = np.array(
        [
            [p[1] + p[2], -p[3], -p[4]],
            [-p[3], p[0] + p[2], -p[5]],
            [-p[4], -p[5], p[0] + p[1]],
        ]
    )
    eigval, quat = _eig3_mesh(full)
    if eigval[2] <= 0:
        raise ValueError("eigenvalue of mesh inertia must be positive")
    if (
        eigval[0] + eigval[1] < eigval[2] * (1.0 - _INEQ_RTOL) - _INEQ_ATOL
        or eigval[0] + eigval[2] < eigval[1] * (1.0 - _INEQ_RTOL) - _INEQ_ATOL
        or eigval[1] + eigval[2] < eigval[0] * (1.0 - _INEQ_RTOL) - _INEQ_ATOL
    ):
        raise ValueError("eigenvalues of mesh inertia violate A + B >= C")

    with np.errstate(invalid="ignore"):
        boxsz = np.array(
            [
                0.5 * math.sqrt(max(6 * (eigval[1] + eigval[2] - eigval[0]) / total, 0.0)),
                0.5 * math.sqrt(max(6 * (eigval[0] + eigval[2] - eigval[1]) / total, 0.0)),
                0.5 * math.sqrt(max(6 * (eigval[0] + eigval[1] - eigval[2]) / total, 0.0)),
            ]
        )

    # move to the centre of mass and rotate to principal axes
    rot = quat_to_mat(np.array([quat[0], -quat[1], -quat[2], -quat[3]]))
    cen = vert - com
    out = np.stack(
        [
            rot[0, 0] * cen[:, 0] + rot[0, 1] * cen[:, 1] + rot[0, 2] * cen[:, 2],
            rot[1, 0] * cen[:, 0] + rot[1, 1] * cen[:, 1] + rot[1, 2] * cen[:, 2],
            rot[2, 0] * cen[:, 0] + rot[2, 1] * cen[:, 1] + rot[2, 2] * cen[:, 2],
        ],
        axis=1,
    )
    aabb = np.concatenate([out.min(axis=0), out.max(axis=0)])

    return ProcessedMesh(
        vertices=out,
        faces=face.copy(),
        hull_faces=None if hull is None else hull.copy(),
        volume=total,
        com_offset=np.asarray(com, dtype=float).copy(),
        orientation=np.asarray(quat, dtype=float).copy(),
        principal_inertia=np.asarray(eigval, dtype=float).copy(),
        inertia_box=boxsz,
        aabb=aabb,
        inertia_mode=inertia_mode,
    )


def mesh_mass_properties(
    mesh: ProcessedMesh, *, density: float | None = None, mass: float | None = None
) -> tuple[float, np.ndarray]:
    """Mass and diagonal 3x3 inertia of a mesh geom about its centre of mass.

    The axes are the mesh's principal axes, i.e. the frame ``geom_pose @ T(com_offset) @
    R(orientation)``.  As MuJoCo: ``mass`` if given (massless if the volume is not above
    1e-14), else ``density * mesh.volume`` (default density 1000; for a shell mesh the
    volume is the surface area); then ``I_x = mass * (b_y^2 + b_z^2) / 3`` etc. from the
    equivalent inertia box ``b``, which equals ``mass * principal_inertia / volume``.
    """
    m = _geom_mass(mesh.volume, density, mass)
    if m is None:
        return 0.0, np.zeros((3, 3))
    b = mesh.inertia_box
    diag = np.array(
        [
            m * (b[1] * b[1] + b[2] * b[2]) / 3,
            m * (b[0] * b[0] + b[2] * b[2]) / 3,
            m * (b[0] * b[0] + b[1] * b[1]) / 3,
        ]
    )
    return float(m), np.diag(diag)


def mesh_geom_pose(geom_pos: VectorLike, geom_quat: VectorLike, mesh: ProcessedMesh) -> tuple[np.ndarray, np.ndarray]:
    """Compiled pose of a mesh geom: ``geom_pose @ T(mesh.com_offset) @ R(mesh.orientation)``.

    This is MuJoCo's ``geom_pos``/``geom_quat`` for a ``type="mesh"`` geom and the frame in
    which :func:`mesh_mass_properties` is expressed (``mjuu_frameaccum``).
    """
    q = _normvec(np.asarray(geom_quat, dtype=float))
    return frame_accumulate(geom_pos, q, mesh.com_offset, mesh.orientation)


def fit_primitive_to_mesh(
    kind: str, mesh: ProcessedMesh, *, fitaabb: bool = False, fitscale: float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Size of a primitive geom that references a mesh (``<geom type="box" mesh="...">``).

    ``mjCMesh::FitGeom``: by default the primitive matches the mesh's equivalent inertia
    box ``b`` -- sphere ``r = mean(b)``; capsule ``r = (b0 + b1) / 2``, half-length
    ``max(0, b2 - r / 2)``; cylinder ``r = (b0 + b1) / 2``, half-height ``b2``; box and
    ellipsoid ``b``.  With ``fitaabb`` it encloses the processed vertices' bounding box
    instead (capsule caps accounted for), and the box centre is added to the offset --
    component-wise to ``com_offset``, exactly as MuJoCo does.  Sizes are multiplied by
    ``fitscale``.

    Returns ``(size (3,), offset_pos, offset_quat)``; the compiled geom pose (also its
    inertial frame) is ``frame_accumulate(geom_pos, geom_quat, offset_pos, offset_quat)``.
    The mass properties are then those of the primitive (:func:`primitive_mass_properties`).
    """
    if kind not in PRIMITIVE_KINDS:
        raise ValueError(f"invalid geom type {kind!r} in fitting mesh; expected one of {', '.join(PRIMITIVE_KINDS)}")
    size = np.zeros(3)
    pos = np.asarray(mesh.com_offset, dtype=float).copy()
    if not fitaabb:
        b = mesh.inertia_box
        if kind == "sphere":
            size[0] = (b[0] + b[1] + b[2]) / 3
        elif kind == "capsule":
            size[0] = (b[0] + b[1]) / 2
            size[1] = max(0.0, b[2] - size[0] / 2)
        elif kind == "cylinder":
            size[0] = (b[0] + b[1]) / 2
            size[1] = b[2]
        else:
            size[:] = b
    else:
        aamm = mesh.aabb
        cen = np.array([(aamm[0] + aamm[3]) / 2, (aamm[1] + aamm[4]) / 2, (aamm[2] + aamm[5]) / 2])
        half = np.array([aamm[3] - cen[0], aamm[4] - cen[1], aamm[5] - cen[2]])
        pos = pos + quat_to_mat(mesh.orientation) @ cen
        if kind == "sphere":
            size[0] = float(np.max(half))
        elif kind == "capsule":
            size[0] = max(half[0], half[1])
            size[1] = max(0.0, half[2] - size[0])
        elif kind == "cylinder":
            size[0] = max(half[0], half[1])
            size[1] = half[2]
        else:
            size[:] = half
    return size * float(fitscale), pos, np.asarray(mesh.orientation, dtype=float).copy()


# --------------------------------------------------------------------------------------
# mesh files
# --------------------------------------------------------------------------------------


def load_mesh_file(path: str) -> tuple[np.ndarray, np.ndarray | None]:
    """Vertices (float32 values, (n, 3)) and faces ((m, 3) int or ``None``) of a mesh file.

    Reads the file the way MuJoCo does (the type is taken from the extension):

    * ``.stl``: binary STL only (MuJoCo rejects ASCII STL); 1..200000 triangles and an exact
      file size; coordinates bounded by 2^30; vertices are welded bit-exactly (identical
      float triples, so 0.0 and -0.0 stay distinct) in order of first appearance;
    * ``.obj``: ``v`` lines give the vertices as listed (no welding); faces come from the
      first object/group only (as MuJoCo uses only tinyobjloader's first shape); polygons
      are triangulated like tinyobjloader's built-in (non-earcut) triangulation, in float32:
      quads along their shorter diagonal, larger polygons by its ear clipping (which may
      drop part of a polygon it cannot clip, as MuJoCo does); negative (relative) indices
      are supported; a
      file with only ``l`` line elements gives degenerate triangles ``(i, j, j)``, as in
      MuJoCo (which then rejects the mesh for having no surface area);
    * ``.msh``: MuJoCo's binary format (int32 counts of vertices, normals, texcoords, faces,
      then float32 vertices, normals, texcoords and int32 faces); ``None`` faces if it has
      none.

    Raises :class:`MeshFileUnreadable` if the file cannot be read, :class:`UnsupportedMeshFileType`
    for another extension, :class:`MalformedMeshFile` if its content is malformed.
    """
    ext = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise MeshFileUnreadable(f"could not read mesh file {path!r}: {exc}", path, ext) from exc
    if ext == "stl":
        return _load_stl(data, path)
    if ext == "obj":
        return _load_obj(data, path)
    if ext == "msh":
        return _load_msh(data, path)
    raise UnsupportedMeshFileType(
        f"unknown or unsupported mesh file type: {path!r} (expected .stl, .obj or .msh)", path, ext
    )


def _load_stl(data: bytes, path: str) -> tuple[np.ndarray, np.ndarray]:
    if not data:
        raise MalformedMeshFile(f"STL file {path!r} is empty", path, "stl")
    if len(data) < 84:
        raise MalformedMeshFile(f"invalid header in STL file {path!r}", path, "stl")
    (nfaces,) = struct.unpack_from("<i", data, 80)
    if nfaces < 1 or nfaces > 200000:
        raise MalformedMeshFile(
            f"number of faces should be between 1 and 200000 in STL file {path!r}; perhaps this is an ASCII file?",
            path,
            "stl",
        )
    if nfaces * 50 != len(data) - 84:
        raise MalformedMeshFile(f"STL file {path!r} has wrong size; perhaps this is an ASCII file?", path, "stl")
    rec = np.frombuffer(data, dtype=np.uint8, offset=84).reshape(nfaces, 50)
    tri = rec[:, 12:48].copy().view("<f4").reshape(nfaces * 3, 3)
    if np.any(np.abs(tri.astype(np.float64)) > 2.0**30):
        raise MalformedMeshFile(f"vertex in STL file {path!r} exceeds maximum bounds", path, "stl")
    bits = tri.view("<u4")
    # bit-exact weld, vertices in order of first appearance
    _, first, inverse = np.unique(bits, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    verts = tri[first[order]].astype(np.float32)
    faces = rank[np.asarray(inverse).reshape(-1)].reshape(nfaces, 3).astype(np.int64)
    return verts, faces


def _load_msh(data: bytes, path: str) -> tuple[np.ndarray, np.ndarray | None]:
    if not data:
        raise MalformedMeshFile(f"MSH file {path!r} is empty", path, "msh")
    if len(data) < 16:
        raise MalformedMeshFile(f"missing header in MSH file {path!r}", path, "msh")
    nv, nn, nt, nf = struct.unpack_from("<4i", data, 0)
    if nv < 4 or nf < 0 or nn < 0 or nt < 0 or (nn > 0 and nn != nv) or (nt > 0 and nt != nv):
        raise MalformedMeshFile(f"invalid sizes in MSH file {path!r}", path, "msh")
    expected = 16 + 12 * nv + 12 * nn + 8 * nt + 12 * nf
    if len(data) != expected:
        raise MalformedMeshFile(f"unexpected file size in MSH file {path!r}", path, "msh")
    verts = np.frombuffer(data, dtype="<f4", count=3 * nv, offset=16).reshape(nv, 3).astype(np.float32)
    if nf == 0:
        return verts, None
    off = 16 + 12 * nv + 12 * nn + 8 * nt
    faces = np.frombuffer(data, dtype="<i4", count=3 * nf, offset=off).reshape(nf, 3).astype(np.int64)
    return verts, faces


def _load_obj(data: bytes, path: str) -> tuple[np.ndarray, np.ndarray | None]:
    text = data.decode("utf-8", errors="replace")  # cannot fail: undecodable bytes become U+FFFD
    verts: list[tuple[float, float, float]] = []
    polygons: list[list[int]] = []
    segments: list[tuple[int, int, int]] = []
    shape_started = False  # a face or line was seen in the current shape
    first_shape_done = False
    for lineno, raw in enumerate(text.replace("\\\r\n", " ").replace("\\\n", " ").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        tok = line.split()
        key = tok[0]
        if key == "v":
            try:
                xyz = [float(t) for t in tok[1:4]] + [0.0, 0.0, 0.0]  # missing coordinates are 0
            except ValueError as exc:
                raise MalformedMeshFile(
                    f"could not parse OBJ file {path!r}: bad vertex on line {lineno}", path, "obj"
                ) from exc
            verts.append((xyz[0], xyz[1], xyz[2]))
        elif key in ("o", "g"):
            if shape_started:
                first_shape_done = True
        elif key in ("f", "l"):
            idx: list[int] = []
            for t in tok[1:]:
                s = t.split("/")[0]
                try:
                    i = int(s)
                except ValueError as exc:
                    raise MalformedMeshFile(
                        f"could not parse OBJ file {path!r}: bad face on line {lineno}", path, "obj"
                    ) from exc
                if i > 0:
                    idx.append(i - 1)
                elif i < 0:
                    idx.append(len(verts) + i)
                else:
                    raise MalformedMeshFile(
                        f"could not parse OBJ file {path!r}: zero face index on line {lineno}", path, "obj"
                    )
            if key == "l":
                if len(idx) >= 2:
                    shape_started = True
                    if not first_shape_done:
                        # MuJoCo turns line segments into degenerate triangles (i, j, j)
                        segments.extend((idx[k], idx[k + 1], idx[k + 1]) for k in range(len(idx) - 1))
                continue
            if len(idx) < 3:
                continue
            shape_started = True
            if not first_shape_done:
                polygons.append(idx)
    if not verts:
        raise MalformedMeshFile(f"could not parse OBJ file {path!r}: no vertices", path, "obj")
    v = np.asarray(verts, dtype=np.float32)
    if any(i < 0 or i >= len(verts) for poly in polygons for i in poly):
        raise MalformedMeshFile(
            f"OBJ file {path!r} has a face index that does not exist in its vertex list", path, "obj"
        )
    faces: list[tuple[int, int, int]] = []
    with np.errstate(all="ignore"):
        for poly in polygons:
            if len(poly) == 3:
                faces.append((poly[0], poly[1], poly[2]))
            elif len(poly) == 4:
                faces.extend(_obj_split_quad(poly, v))
            else:
                faces.extend(_obj_ear_clip(poly, v))
    if not faces:
        faces = segments
    if not faces:
        return v, None
    fa = np.asarray(faces, dtype=np.int64)
    if fa.min() < 0 or fa.max() >= v.shape[0]:
        raise MalformedMeshFile(
            f"OBJ file {path!r} has a face index that does not exist in its vertex list", path, "obj"
        )
    return v, fa


# tinyobjloader (the revision MuJoCo 4.0 fetches, built without TINYOBJLOADER_USE_MAPBOX_EARCUT and
# with float ``real_t``) triangulates every polygon with more than three corners itself.  The
# helpers below reproduce its choices step by step, with every product, sum and comparison done in
# float32 (MuJoCo's build contracts nothing into FMAs), so near-degenerate decisions agree as well.


def _obj_split_quad(q: list[int], v: np.ndarray) -> list[tuple[int, int, int]]:
    """Split a quad along its shorter diagonal (0-2 only if strictly shorter than 1-3)."""
    p0, p1, p2, p3 = (v[i] for i in q)
    d02 = p2 - p0
    d13 = p3 - p1
    len02 = d02[0] * d02[0] + d02[1] * d02[1] + d02[2] * d02[2]
    len13 = d13[0] * d13[0] + d13[1] * d13[1] + d13[2] * d13[2]
    if len02 < len13:
        return [(q[0], q[1], q[2]), (q[0], q[2], q[3])]
    return [(q[0], q[1], q[3]), (q[1], q[2], q[3])]


def _obj_projection_axes(poly: list[int], v: np.ndarray) -> tuple[int, int]:
    """The coordinate plane tinyobjloader projects a polygon onto.

    It walks the corners until one (with its two successors) has an edge cross product with a
    component above FLT_EPSILON in magnitude, then drops the axis of the largest component
    (ties resolved as: x only if strictly largest, else z if strictly largest, else y).  If no
    corner qualifies the default plane (y, z) is used.
    """
    n = len(poly)
    eps = np.float32(np.finfo(np.float32).eps)
    for k in range(n):
        a, b, c = v[poly[k]], v[poly[(k + 1) % n]], v[poly[(k + 2) % n]]
        e0 = b - a
        e1 = c - b
        cx = abs(e0[1] * e1[2] - e0[2] * e1[1])
        cy = abs(e0[2] * e1[0] - e0[0] * e1[2])
        cz = abs(e0[0] * e1[1] - e0[1] * e1[0])
        if cx > eps or cy > eps or cz > eps:
            if cx > cy and cx > cz:
                return 1, 2
            if cz > cx and cz > cy:
                return 0, 1
            return 0, 2
    return 1, 2


def _obj_point_in_triangle(xs: list, ys: list, px, py) -> bool:
    """W. R. Franklin's crossing-number test (``pnpoly``) for a triangle, in float32."""
    inside = False
    j = 2
    for i in range(3):
        if (ys[i] > py) != (ys[j] > py) and px < (xs[j] - xs[i]) * (py - ys[i]) / (ys[j] - ys[i]) + xs[i]:
            inside = not inside
        j = i
    return inside


def _obj_ear_clip(poly: list[int], v: np.ndarray) -> list[tuple[int, int, int]]:
    """tinyobjloader's built-in ear clipping of a polygon with five or more corners.

    The polygon is projected onto a coordinate plane (:func:`_obj_projection_axes`).  A cursor
    starts at the first corner; the triangle (cursor, cursor+1, cursor+2) of the remaining
    polygon is cut off as an ear unless the sign test ``cross * area < 0`` rejects it -- ``cross``
    is the turn at the middle corner and ``area`` the signed area of the triangle spanned by the
    origin and the first two corners (tinyobjloader's own, origin-dependent convexity test) --
    or another remaining corner lies inside it; a rejected candidate advances the cursor, a cut
    removes the middle corner and keeps the cursor.  After as many consecutive rejections as
    there are remaining corners the loop gives up; the last triangle is emitted only if exactly
    three corners remain, so a polygon that cannot be clipped loses its remaining part.
    """
    ax, ay = _obj_projection_axes(poly, v)
    xs_all = {i: v[i, ax] for i in poly}
    ys_all = {i: v[i, ay] for i in poly}
    half = np.float32(0.5)
    zero = np.float32(0.0)
    rest = list(poly)
    out: list[tuple[int, int, int]] = []
    cursor = 0
    budget = len(rest)
    last_count = len(rest)
    while len(rest) > 3 and budget > 0:
        m = len(rest)
        if cursor >= m:
            cursor -= m
        if last_count != m:
            last_count = m
            budget = m
        else:
            budget -= 1
        tri = [rest[(cursor + k) % m] for k in range(3)]
        xs = [xs_all[i] for i in tri]
        ys = [ys_all[i] for i in tri]
        turn = (xs[1] - xs[0]) * (ys[2] - ys[1]) - (ys[1] - ys[0]) * (xs[2] - xs[1])
        area = (xs[0] * ys[1] - ys[0] * xs[1]) * half
        if turn * area < zero:
            cursor += 1
            continue
        if any(
            _obj_point_in_triangle(xs, ys, xs_all[rest[(cursor + k) % m]], ys_all[rest[(cursor + k) % m]])
            for k in range(3, m)
        ):
            cursor += 1
            continue
        out.append((tri[0], tri[1], tri[2]))
        del rest[(cursor + 1) % m]
    if len(rest) == 3:
        out.append((rest[0], rest[1], rest[2]))
    return out


# --------------------------------------------------------------------------------------
# bodies
# --------------------------------------------------------------------------------------


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
) -> GeomInertial:
    """Body inertial frame inferred from its geoms, exactly as ``mjCBody::InertiaFromGeom``.

    Each part is ``(mass, pos, quat, diag_inertia)``: the geom's mass, the pose of its
    inertial frame in the body frame (for a mesh geom the pose from :func:`mesh_geom_pose`)
    and its principal moments (from :func:`primitive_mass_properties` /
    :func:`mesh_mass_properties`).  As MuJoCo: a single geom is copied verbatim (its
    quaternion becomes ``body_iquat``); several geoms are combined with the parallel-axis
    theorem and re-diagonalised with MuJoCo's Jacobi solver.  Raises :class:`ValueError`
    if the total mass is below 1e-6 or the combined inertia has a principal moment below
    1e-6 (MuJoCo compile errors); an empty list gives a massless frame at the origin.
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
    if mass < MJ_EPS:
        raise ValueError("body mass is too small, cannot compute center of mass")
    ipos = com / mass
    toti = np.zeros(6)
    for m, pos, quat, inert in parts:
        dpos = np.asarray(pos, dtype=float) - ipos
        toti = toti + _globalinertia(inert, quat) + _offcenter(float(m), dpos)
    eigval, iquat = _eig3(_sym6_to_mat(toti))
    if eigval[2] < MJ_EPS:
        raise ValueError("inertia must have positive eigenvalues")
    return GeomInertial(mass, ipos, iquat, eigval)


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
    Raises :class:`ValueError` if the total mass is below 1e-6 (more than one part).
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
    if mass < MJ_EPS:
        raise ValueError("body mass is too small, cannot compute center of mass")
    com = com / mass
    toti = np.zeros(6)
    for m, c, i in parts:
        toti = toti + _mat_to_sym6(np.asarray(i, dtype=float).reshape(3, 3))
        toti = toti + _offcenter(float(m), np.asarray(c, dtype=float) - com)
    return mass, com, _sym6_to_mat(toti)


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
        diag, rot = arr.copy(), None
    elif arr.shape == (3, 3):
        diag, q = _eig3(arr)
        rot = quat_to_mat(q)
    else:
        raise ValueError(f"inertia must have shape (3,) or (3, 3), got {arr.shape}")
    mass = max(float(mass), float(boundmass))
    diag = np.maximum(diag, float(boundinertia))
    if mass < 0 or np.any(diag < 0):
        raise ValueError("mass and inertia cannot be negative")
    a, b, c = diag
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
