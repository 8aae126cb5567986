"""The compiled forward-kinematics kernel of the `robodesc[fast]` extra (numba).

It walks the same plan as the numpy evaluation in `kinematics.py` (the same local-pose
coefficients, joint motions, parents and output rows) one configuration and one body at a time,
which for a single configuration or a few end effectors avoids the per-call cost of numpy
altogether. Poses agree with numpy's to rounding (1e-12).

`forward` releases the GIL, so the rows of a large batch are evaluated on threads, as numpy's are.

Importing this module imports numba, so `kinematics.py` imports it only when a kernel is asked
for, never at `import robodesc`. `cache=True` keeps the compiled code on disk next to this file
(or in numba's user cache when that folder is read-only): the JIT is paid once per machine.
"""

from __future__ import annotations

from math import cos, sin, sqrt
from typing import TYPE_CHECKING

import numpy as np
from numba import njit  # type: ignore[import-not-found,import-untyped,unused-ignore]  # an optional extra

from .model import JointType

if TYPE_CHECKING:
    from .kinematics import _Plan

# what `forward` returns
OK, NOT_FINITE, ZERO_QUATERNION, OVERFLOW = range(4)
# joint motion kinds the kernel knows (numbers, as numba compiles branches on integers)
REVOLUTE, SCREW, PRISMATIC, BALL, FLOATING, PLANAR, UNIVERSAL = range(7)
_KINDS = {
    JointType.REVOLUTE: REVOLUTE,
    JointType.CONTINUOUS: REVOLUTE,
    JointType.SCREW: SCREW,
    JointType.PRISMATIC: PRISMATIC,
    JointType.BALL: BALL,
    JointType.FLOATING: FLOATING,
    JointType.PLANAR: PLANAR,
    JointType.UNIVERSAL: UNIVERSAL,
    JointType.REVOLUTE2: UNIVERSAL,
}


_LAST = np.array([0.0, 0.0, 0.0, 1.0])


def rigid_basis(basis: np.ndarray) -> bool:
    """True when every local pose B_0 + s B_1 + c B_2 + q B_3 has the last row (0, 0, 0, 1) exactly."""
    rows = basis.reshape(-1, 4, 4, 4)[:, :, 3]
    return bool((rows[:, 0] == _LAST).all() and not rows[:, 1:].any())


def _last_rows_exact(poses: object) -> bool:
    """True when every 4x4 pose in `poses` has the last row (0, 0, 0, 1) exactly."""
    rows = np.asarray(poses, dtype=float).reshape(-1, 4, 4)[:, 3]
    return bool((rows == _LAST).all())


def pack(plan: _Plan) -> tuple:
    """The plan as two flat arrays, integers and floats, laid out as `forward` unpacks them."""
    from .kinematics import planar_basis

    none = plan.count
    parents = np.where(plan.parents == none, -1, plan.parents).astype(np.int64)
    starts = np.zeros(plan.count + 1, dtype=np.int64)
    kinds, columns, is_slice, mults, offs = [], [], [], [], []
    pres, posts, axes, axes2, pitches, e1s, e2s = [], [], [], [], [], [], []
    by_body = dict(plan.special)
    for m in range(plan.count):
        for joint, pre, post, src in by_body.get(m, ()):
            kinds.append(_KINDS[joint.type])
            column, flag, mult, off = (src.start, 1, 1.0, 0.0) if isinstance(src, slice) else (src[0], 0, *src[1:])
            columns.append(column)
            is_slice.append(flag)
            mults.append(mult)
            offs.append(off)
            pres.append(pre)
            posts.append(post)
            axis = np.asarray(joint.axis, dtype=float).reshape(3)
            axes.append(axis)
            axes2.append(np.asarray(joint.axis2 if joint.axis2 is not None else (0.0, 1.0, 0.0), dtype=float))
            pitches.append(float(joint.pitch))
            e1, e2 = planar_basis(axis) if joint.type is JointType.PLANAR else (np.zeros(3), np.zeros(3))
            e1s.append(e1)
            e2s.append(e2)
        starts[m + 1] = len(kinds)
    terms = len(kinds)

    def rows(index: object, size: int) -> np.ndarray:
        return np.arange(size, dtype=np.int64)[index] if isinstance(index, slice) else np.asarray(index, np.int64)

    direct_rows = rows(plan.direct[0], plan.rows)
    direct_src = rows(plan.direct[1], plan.count)
    fixed_rows = rows(plan.fixed[0], plan.rows)
    fixed_anchor = np.where(plan.fixed[1] == none, -1, plan.fixed[1]).astype(np.int64)
    fixed_pose = np.ascontiguousarray(plan.fixed[2], dtype=np.float64).reshape(-1, 4, 4)
    # poses whose last row is exactly (0, 0, 0, 1), as compiled plans' are (unless a hand-built
    # model gives a frame or body pose that is not rigid): the kernel then skips that row
    linear = starts[1:] == starts[:-1]  # the bodies whose local pose comes from the basis
    rigid = rigid_basis(plan.basis[linear]) and all(_last_rows_exact(poses) for poses in (pres, posts, fixed_pose))
    header = [plan.count, terms, len(direct_rows), len(fixed_rows), int(rigid)]
    ints = [header, parents, plan.src, starts, kinds, columns, is_slice]
    ints += [direct_rows, direct_src, fixed_rows, fixed_anchor]
    reals = [plan.mult, plan.off, plan.basis, mults, offs, pres, posts, axes, axes2, pitches, e1s, e2s, fixed_pose]
    # two arrays, not 23: numba checks the type of every argument of every call, which for one
    # configuration cost more than the evaluation
    return (
        np.concatenate([np.asarray(part, dtype=np.int64).reshape(-1) for part in ints]),
        np.concatenate([np.asarray(part, dtype=np.float64).reshape(-1) for part in reals]),
    )


@njit(cache=True)
def _multiply(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """out = a @ b for 4x4 matrices (out distinct from a and b)."""
    for i in range(4):
        for j in range(4):
            out[i, j] = a[i, 0] * b[0, j] + a[i, 1] * b[1, j] + a[i, 2] * b[2, j] + a[i, 3] * b[3, j]


@njit(cache=True)
def _multiply_rigid(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """out = a @ b for rigid 4x4 poses (last rows (0, 0, 0, 1)): the same numbers as `_multiply`, less work."""
    for i in range(3):
        for j in range(3):
            out[i, j] = a[i, 0] * b[0, j] + a[i, 1] * b[1, j] + a[i, 2] * b[2, j]
        out[i, 3] = a[i, 0] * b[0, 3] + a[i, 1] * b[1, 3] + a[i, 2] * b[2, 3] + a[i, 3]
    out[3, 0], out[3, 1], out[3, 2], out[3, 3] = 0.0, 0.0, 0.0, 1.0


@njit(cache=True)
def _rotation(axis: np.ndarray, angle: float, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """Rodrigues' rotation I + sin K + (1 - cos) K^2 about `axis`, into out[:3, :3], as numpy's `_rotations`."""
    x, y, z = axis[0], axis[1], axis[2]
    s, c = sin(angle), 1.0 - cos(angle)
    k = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    for i in range(3):
        for j in range(3):
            kk = k[i, 0] * k[0, j] + k[i, 1] * k[1, j] + k[i, 2] * k[2, j]
            out[i, j] = (1.0 if i == j else 0.0) + s * k[i, j] + c * kk


@njit(cache=True)
def _quaternion(w: float, x: float, y: float, z: float, out: np.ndarray) -> bool:  # pragma: no cover - compiled
    """The rotation of a quaternion (normalised here) into out[:3, :3]; False for a zero quaternion."""
    norm = sqrt(w * w + x * x + y * y + z * z)
    if norm == 0.0:
        return False
    w, x, y, z = w / norm, x / norm, y / norm, z / norm
    out[0, 0] = 1 - 2 * (y * y + z * z)
    out[0, 1] = 2 * (x * y - w * z)
    out[0, 2] = 2 * (x * z + w * y)
    out[1, 0] = 2 * (x * y + w * z)
    out[1, 1] = 1 - 2 * (x * x + z * z)
    out[1, 2] = 2 * (y * z - w * x)
    out[2, 0] = 2 * (x * z - w * y)
    out[2, 1] = 2 * (y * z + w * x)
    out[2, 2] = 1 - 2 * (x * x + y * y)
    return True


@njit(cache=True)
def _motion(
    kind: int,
    v: np.ndarray,
    axis: np.ndarray,
    axis2: np.ndarray,
    pitch: float,
    e1: np.ndarray,
    e2: np.ndarray,
    out: np.ndarray,
    scratch: np.ndarray,
) -> bool:  # pragma: no cover - compiled
    """The joint motion M(v) into out (4x4), as numpy's `_motions`; False for a zero quaternion."""
    out[:, :] = 0.0
    out[3, 3] = 1.0
    if kind == REVOLUTE or kind == SCREW:
        _rotation(axis, v[0], out)
        if kind == SCREW:
            for i in range(3):
                out[i, 3] = axis[i] * (pitch * v[0])
    elif kind == PRISMATIC:
        for i in range(3):
            out[i, i] = 1.0
            out[i, 3] = axis[i] * v[0]
    elif kind == BALL:
        return _quaternion(v[0], v[1], v[2], v[3], out)
    elif kind == FLOATING:
        for i in range(3):
            out[i, 3] = v[i]
        return _quaternion(v[3], v[4], v[5], v[6], out)
    elif kind == PLANAR:
        for i in range(3):
            out[i, 3] = e1[i] * v[0] + e2[i] * v[1]
        _rotation(axis, v[2], out)
    else:  # UNIVERSAL: a rotation about the first axis, then about the second
        _rotation(axis, v[0], scratch)
        second = np.zeros((4, 4))
        _rotation(axis2, v[1], second)
        for i in range(3):
            for j in range(3):
                out[i, j] = scratch[i, 0] * second[0, j] + scratch[i, 1] * second[1, j] + scratch[i, 2] * second[2, j]
    return True


@njit(cache=True, nogil=True)
def _take(flat: np.ndarray, at: int, shape: tuple) -> tuple:  # pragma: no cover - compiled
    """The next part of a packed array, `shape` read from `flat` at `at`, and the offset after it."""
    size = 1
    for extent in shape:
        size *= extent
    return flat[at : at + size].reshape(shape), at + size


@njit(cache=True, nogil=True)
def forward(q: np.ndarray, out: np.ndarray, ints: np.ndarray, reals: np.ndarray) -> int:  # pragma: no cover - compiled
    """World poses of a plan (packed by `pack`) for configurations q (n, nq), into out (n, rows, 4, 4).

    Returns OK, or what went wrong for the caller to raise: a joint value that is not finite
    (checked before anything is computed), a zero quaternion, a pose that overflowed."""
    count, terms, direct, fixed, rigid = ints[0], ints[1], ints[2], ints[3], ints[4] == 1
    a, b = 5, 0
    parents, a = _take(ints, a, (count,))
    src, a = _take(ints, a, (count,))
    starts, a = _take(ints, a, (count + 1,))
    kinds, a = _take(ints, a, (terms,))
    columns, a = _take(ints, a, (terms,))
    is_slice, a = _take(ints, a, (terms,))
    direct_rows, a = _take(ints, a, (direct,))
    direct_src, a = _take(ints, a, (direct,))
    fixed_rows, a = _take(ints, a, (fixed,))
    fixed_anchor, a = _take(ints, a, (fixed,))
    mult, b = _take(reals, b, (count,))
    off, b = _take(reals, b, (count,))
    basis, b = _take(reals, b, (count, 4, 16))
    tmult, b = _take(reals, b, (terms,))
    toff, b = _take(reals, b, (terms,))
    pres, b = _take(reals, b, (terms, 4, 4))
    posts, b = _take(reals, b, (terms, 4, 4))
    axes, b = _take(reals, b, (terms, 3))
    axes2, b = _take(reals, b, (terms, 3))
    pitches, b = _take(reals, b, (terms,))
    e1s, b = _take(reals, b, (terms, 3))
    e2s, b = _take(reals, b, (terms, 3))
    fixed_pose, b = _take(reals, b, (fixed, 4, 4))
    return _forward(
        q, out, parents, src, mult, off, basis, starts, kinds, columns, is_slice, tmult, toff, pres, posts,
        axes, axes2, pitches, e1s, e2s, direct_rows, direct_src, fixed_rows, fixed_anchor, fixed_pose, rigid,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def _forward(
    q: np.ndarray,
    out: np.ndarray,
    parents: np.ndarray,
    src: np.ndarray,
    mult: np.ndarray,
    off: np.ndarray,
    basis: np.ndarray,
    starts: np.ndarray,
    kinds: np.ndarray,
    columns: np.ndarray,
    is_slice: np.ndarray,
    tmult: np.ndarray,
    toff: np.ndarray,
    pres: np.ndarray,
    posts: np.ndarray,
    axes: np.ndarray,
    axes2: np.ndarray,
    pitches: np.ndarray,
    e1s: np.ndarray,
    e2s: np.ndarray,
    direct_rows: np.ndarray,
    direct_src: np.ndarray,
    fixed_rows: np.ndarray,
    fixed_anchor: np.ndarray,
    fixed_pose: np.ndarray,
    rigid: bool,
) -> int:  # pragma: no cover - compiled
    """`forward` on the unpacked plan. `rigid`: every pose's last row is (0, 0, 0, 1), which is then
    not computed (a quarter of the work)."""
    n, nq = q.shape
    for i in range(n):
        for c in range(nq):
            if not np.isfinite(q[i, c]):
                return NOT_FINITE
    count = parents.shape[0]
    world = np.empty((count, 4, 4))
    local = np.empty((4, 4))
    acc = np.empty((4, 4))
    term = np.empty((4, 4))
    motion = np.empty((4, 4))
    scratch = np.empty((4, 4))
    values = np.zeros(7)
    for i in range(n):
        for m in range(count):
            if starts[m + 1] == starts[m]:  # one single-valued joint: the four coefficient matrices
                c = src[m]
                x = (q[i, c] if c < nq else 0.0) * mult[m] + off[m]
                s, v = sin(x), 1.0 - cos(x)
                for e in range(12 if rigid else 16):
                    local[e // 4, e % 4] = basis[m, 0, e] + s * basis[m, 1, e] + v * basis[m, 2, e] + x * basis[m, 3, e]
                if rigid:
                    local[3, 0], local[3, 1], local[3, 2], local[3, 3] = 0.0, 0.0, 0.0, 1.0
            else:  # a chain of joints: the product of pre @ M(q) @ post per joint
                for t in range(starts[m], starts[m + 1]):
                    c = columns[t]
                    if is_slice[t]:
                        for k in range(7):
                            values[k] = q[i, c + k] if c + k < nq else 0.0
                    else:
                        values[0] = (q[i, c] if c < nq else 0.0) * tmult[t] + toff[t]
                    if not _motion(kinds[t], values, axes[t], axes2[t], pitches[t], e1s[t], e2s[t], motion, scratch):
                        return ZERO_QUATERNION
                    _multiply(pres[t], motion, scratch)
                    if t == starts[m]:
                        _multiply(scratch, posts[t], local)
                    else:
                        _multiply(scratch, posts[t], term)
                        acc[:, :] = local
                        _multiply(acc, term, local)
            p = parents[m]
            if p < 0:
                world[m] = local
            elif rigid:
                _multiply_rigid(world[p], local, world[m])
            else:
                _multiply(world[p], local, world[m])
        for r in range(direct_rows.shape[0]):
            out[i, direct_rows[r]] = world[direct_src[r]]
        for r in range(fixed_rows.shape[0]):
            a = fixed_anchor[r]
            if a < 0:
                out[i, fixed_rows[r]] = fixed_pose[r]
            elif rigid:
                _multiply_rigid(world[a], fixed_pose[r], out[i, fixed_rows[r]])
            else:
                _multiply(world[a], fixed_pose[r], out[i, fixed_rows[r]])
        for r in range(out.shape[1]):
            if not (np.isfinite(out[i, r, 0, 3]) and np.isfinite(out[i, r, 1, 3]) and np.isfinite(out[i, r, 2, 3])):
                return OVERFLOW
    return OK
