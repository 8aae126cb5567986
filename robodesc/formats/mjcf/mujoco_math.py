"""Replicas of MuJoCo's own numerical helpers (``user_util.cc``), and its rule for a geom's mass.

Why replicas, when `robodesc.core.transforms` has quaternions and rotations: MuJoCo reports a
body's inertial frame (``body_iquat``) and a mesh's frame (``mesh_quat``) as its Jacobi
eigen-solver leaves them, and these helpers decide every bit of that result. `quat_to_mat` does
not normalise and sums in its own order (``mjuu_quat2mat``), `normvec` leaves vectors within
mjEPS of unit length alone (``mjuu_normvec``); `core.transforms.quat_to_matrix` normalises and
rounds differently. Where core gives the same bits (the Hamilton product) it is used here; these
replicas exist only where MuJoCo's exact float order matters, and only once.
"""

from __future__ import annotations

import math

import numpy as np

from ...core.transforms import VectorLike, quat_multiply

__all__ = [
    "DEFAULT_DENSITY",
    "GEOM_MIN_MASS",
    "MJ_EPS",
    "MJ_MINVAL",
    "eig3_body",
    "eig3_mesh",
    "frame_accumulate",
    "geom_mass",
    "global_inertia",
    "mat_to_sym6",
    "mulquat",
    "normvec",
    "offcenter",
    "quat_to_mat",
    "seqsum",
    "sym6_to_mat",
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
#: A geom counts in its body's inertia only when its mass is above this (MuJoCo 4.0, measured: a
#: geom of mass 1e-14, given or from its density, is left out as if massless; 1.0000000000000002e-14 counts).
GEOM_MIN_MASS = 1e-14

# thresholds of MuJoCo's Jacobi eigen-solver (relative to max|A_ij|)
_EIG_STOP_BODY = 4e-15
_EIG_SORT_BODY = 1e-12
_EIG_TOL_MESH = 1e-7


def normvec(vec: VectorLike) -> list[float]:
    """``mjuu_normvec``: unit length unless the norm is tiny or already within mjEPS of 1."""
    values = [float(x) for x in vec]
    nrm2 = 0.0
    for x in values:
        nrm2 += x * x
    if nrm2 < MJ_EPS:
        return values
    nrm = math.sqrt(nrm2)
    if abs(nrm - 1.0) > MJ_EPS:
        return [x / nrm for x in values]
    return values


def _normvec4(w: float, x: float, y: float, z: float) -> tuple[float, float, float, float]:
    """`normvec` of four floats, without the lists (the Jacobi loop of `_jacobi_eig3` calls it twice a step)."""
    nrm2 = w * w + x * x + y * y + z * z  # (as `normvec` sums from 0.0: the same bits, squares being >= 0)
    if nrm2 < MJ_EPS:
        return w, x, y, z
    nrm = math.sqrt(nrm2)
    if abs(nrm - 1.0) > MJ_EPS:
        return w / nrm, x / nrm, y / nrm, z / nrm
    return w, x, y, z


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


def mulquat(qa: VectorLike, qb: VectorLike) -> list[float]:
    """``mjuu_mulquat``: the Hamilton product (core's: the same bits), then `normvec`."""
    return normvec(quat_multiply([float(v) for v in qa], [float(v) for v in qb]).tolist())


def frame_accumulate(
    pos: VectorLike, quat: VectorLike, child_pos: VectorLike, child_quat: VectorLike
) -> tuple[np.ndarray, np.ndarray]:
    """``mjuu_frameaccum``: pose of a child frame given in a parent frame.

    Returns ``(pos + R(quat) @ child_pos, normalise(quat * child_quat))``.
    """
    mat = quat_to_mat(quat)
    c = np.asarray(child_pos, dtype=float)
    vec = np.array([mat[i, 0] * c[0] + mat[i, 1] * c[1] + mat[i, 2] * c[2] for i in range(3)])
    return np.asarray(pos, dtype=float) + vec, np.array(mulquat(quat, child_quat))


def _mulquat_floats(qa: list[float], qb: list[float]) -> list[float]:
    """`mulquat` of plain floats: `quat_multiply`'s Hamilton product term for term, then `normvec`."""
    aw, ax, ay, az = qa
    bw, bx, by, bz = qb
    return normvec(
        [
            aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
        ]
    )


def _jacobi_eig3(mat: np.ndarray, stop_rel: float, sort_rel: float) -> tuple[np.ndarray, np.ndarray]:
    """MuJoCo 4's Jacobi eigen-decomposition of a symmetric 3x3 matrix (``mjuu_eig3``).

    Computed on plain floats throughout (the same IEEE operations, in the same order, as on numpy's
    float64 scalars). The frame is accumulated as a quaternion.  Each step annihilates the largest
    off-diagonal entry of ``R(q)^T A R(q)`` with a rotation built from the half-angle tangent
    (accurate even for tiny angles); iteration stops once that entry is below
    ``stop_rel * max|A_ij|``.  Eigenvalues are then sorted in decreasing order by three
    adjacent swaps (0-1, 1-2, 0-1), each rotating the frame by 90 degrees, skipping pairs
    closer than ``sort_rel * max|A_ij|``.  Quaternions are normalised with `normvec`.
    MuJoCo uses ``stop_rel=4e-15, sort_rel=1e-12`` for body inertias (``fullinertia`` and
    inertia inferred from geoms) and ``1e-7, 1e-7`` for meshes.

    These constants and formulas were measured against the ``mujoco`` 4.0 package (which
    differs from the older ``user_util.cc``: absolute 1e-12 thresholds and a stop when the
    rotation cosine is within 1e-12 of one); with them the quaternions MuJoCo reports as
    ``body_iquat`` and ``mesh_quat`` are reproduced bit for bit in randomised tests.

    Returns eigenvalues (decreasing) and the quaternion whose rotation matrix has the
    corresponding eigenvectors as columns.
    """
    m0, m1, m2, m3, m4, m5, m6, m7, m8 = m = [float(x) for x in np.asarray(mat, dtype=float).reshape(9)]
    scale = max(abs(x) for x in m)
    stop = stop_rel * scale
    # the frame's quaternion, as four floats: `quat_to_mat`, `normvec` and `mulquat` are written out in
    # the loop, the same operations in the same order, without their lists and calls (up to ~40 steps)
    qw, qx, qy, qz = 1.0, 0.0, 0.0, 0.0
    ev = [m0, m4, m8]
    for _ in range(500):
        if qw == 1.0 and qx == 0.0 and qy == 0.0 and qz == 0.0:  # (the identity's entries, whatever its zeros' signs)
            e0, e1, e2, e3, e4, e5, e6, e7, e8 = 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0
        else:  # `quat_to_mat`, row by row
            q00, q01, q02, q03 = qw * qw, qw * qx, qw * qy, qw * qz
            q11, q12, q13 = qx * qx, qx * qy, qx * qz
            q22, q23, q33 = qy * qy, qy * qz, qz * qz
            e0, e1, e2 = q00 + q11 - q22 - q33, 2 * (q12 - q03), 2 * (q13 + q02)
            e3, e4, e5 = 2 * (q12 + q03), q00 - q11 + q22 - q33, 2 * (q23 - q01)
            e6, e7, e8 = 2 * (q13 - q02), 2 * (q23 + q01), q00 - q11 - q22 + q33
        # tmp = R^T A and d = tmp R, written out term by term (each sum in the order MuJoCo adds it); of d
        # only the diagonal and the entries above it are read (MuJoCo picks the pivot among those)
        t0, t1, t2 = e0 * m0 + e3 * m3 + e6 * m6, e0 * m1 + e3 * m4 + e6 * m7, e0 * m2 + e3 * m5 + e6 * m8
        t3, t4, t5 = e1 * m0 + e4 * m3 + e7 * m6, e1 * m1 + e4 * m4 + e7 * m7, e1 * m2 + e4 * m5 + e7 * m8
        t6, t7, t8 = e2 * m0 + e5 * m3 + e8 * m6, e2 * m1 + e5 * m4 + e8 * m7, e2 * m2 + e5 * m5 + e8 * m8
        ev = [t0 * e0 + t1 * e3 + t2 * e6, t3 * e1 + t4 * e4 + t5 * e7, t6 * e2 + t7 * e5 + t8 * e8]
        d1, d2, d5 = t0 * e1 + t1 * e4 + t2 * e7, t0 * e2 + t1 * e5 + t2 * e8, t3 * e2 + t4 * e5 + t5 * e8
        a1, a2, a5 = abs(d1), abs(d2), abs(d5)
        if a1 > a2 and a1 > a5:
            rk, ck, rotk, off = 0, 1, 2, d1
        elif a2 > a5:
            rk, ck, rotk, off = 0, 2, 1, d2
        else:
            rk, ck, rotk, off = 1, 2, 0, d5
        if not abs(off) >= stop or off == 0:
            break
        tau = (ev[ck] - ev[rk]) / (2 * off)
        if tau >= 0:
            t = 1.0 / (tau + math.sqrt(1 + tau * tau))
        else:
            t = -1.0 / (-tau + math.sqrt(1 + tau * tau))
        th = t / (1 + math.sqrt(1 + t * t))  # tan(theta / 2)
        ch = 1.0 / math.sqrt(1 + th * th)
        # the step's rotation (ch and -th ch, negated about y), `normvec`ed
        sh = -th * ch if rotk != 1 else -(-th * ch)
        bw, bx, by, bz = ch, sh if rotk == 0 else 0.0, sh if rotk == 1 else 0.0, sh if rotk == 2 else 0.0
        bw, bx, by, bz = _normvec4(bw, bx, by, bz)
        # the frame's quaternion times it (`quat_multiply`), `normvec`ed
        qw, qx, qy, qz = (
            qw * bw - qx * bx - qy * by - qz * bz,
            qw * bx + qx * bw + qy * bz - qz * by,
            qw * by - qx * bz + qy * bw + qz * bx,
            qw * bz + qx * by - qy * bx + qz * bw,
        )
        qw, qx, qy, qz = _normvec4(qw, qx, qy, qz)
    quat = [qw, qx, qy, qz]
    for j in range(3):
        j1 = j % 2
        if ev[j1] + sort_rel * scale < ev[j1 + 1]:
            ev[j1], ev[j1 + 1] = ev[j1 + 1], ev[j1]
            rot = [0.707106781186548, 0.0, 0.0, 0.0]
            rot[(j1 + 2) % 3 + 1] = rot[0]
            quat = _mulquat_floats(quat, rot)
    return np.array(ev), np.array(quat)


def eig3_body(mat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The eigen-decomposition MuJoCo applies to body inertias (see `_jacobi_eig3`)."""
    return _jacobi_eig3(mat, _EIG_STOP_BODY, _EIG_SORT_BODY)


def eig3_mesh(mat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The eigen-decomposition MuJoCo applies to mesh inertias (see `_jacobi_eig3`)."""
    return _jacobi_eig3(mat, _EIG_TOL_MESH, _EIG_TOL_MESH)


def global_inertia(local: VectorLike, quat: VectorLike) -> np.ndarray:
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


def offcenter(mass: float, vec: VectorLike) -> np.ndarray:
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


def sym6_to_mat(s: np.ndarray) -> np.ndarray:
    """A symmetric 3x3 matrix from (xx, yy, zz, xy, xz, yz)."""
    return np.array([[s[0], s[3], s[4]], [s[3], s[1], s[5]], [s[4], s[5], s[2]]])


def mat_to_sym6(m: np.ndarray) -> np.ndarray:
    """(xx, yy, zz, xy, xz, yz) of a 3x3 matrix, the off-diagonal pairs averaged."""
    m = np.asarray(m, dtype=float)
    return np.array([m[0, 0], m[1, 1], m[2, 2], 0.5 * (m[0, 1] + m[1, 0]), 0.5 * (m[0, 2] + m[2, 0]),
                     0.5 * (m[1, 2] + m[2, 1])])  # fmt: skip


def seqsum(values: np.ndarray) -> np.ndarray:
    """Left-to-right sum along axis 0, like a C accumulation loop (numpy's sum is pairwise)."""
    values = np.asarray(values, dtype=float)
    if values.shape[0] == 0:
        return np.zeros(values.shape[1:])
    return np.add.accumulate(values, axis=0)[-1]


def geom_mass(volume: float, density: float | None, mass: float | None) -> float | None:
    """A geom's mass as ``mjCGeom::Compile`` sets it; ``None`` means "zero mass, zero inertia".

    An explicit ``mass`` wins (massless when the volume is not above 1e-14), otherwise
    ``density * volume`` (``None`` density: MuJoCo's default). Either way a mass not above
    `GEOM_MIN_MASS` leaves the geom out of its body's inertia, as MuJoCo 4.0 does.
    """
    if mass is not None:
        mass = float(mass)
        if not math.isfinite(mass):
            raise ValueError(f"geom mass must be finite, got {mass!r}")
        if mass < 0:
            raise ValueError("mass, inertia or density are negative in geom")
        if not mass > GEOM_MIN_MASS or not volume > _EXPLICIT_MASS_MIN_VOLUME:
            return None
        return mass
    density = DEFAULT_DENSITY if density is None else float(density)
    if not math.isfinite(density):
        raise ValueError(f"geom density must be finite, got {density!r}")
    if density < 0:
        raise ValueError("mass, inertia or density are negative in geom")
    mass = density * volume
    if not mass > GEOM_MIN_MASS:
        return None
    return mass
