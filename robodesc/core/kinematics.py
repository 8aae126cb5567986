"""Forward kinematics, compiled once per model into flat numpy arrays.

Every body's pose in its parent is a product of per-joint terms (see `model.py`). Compiling
turns the model into arrays so that one configuration, or a batch of N configurations, is
evaluated with a fixed number of numpy calls, never a Python loop over configurations:

* A body moved by one single-valued joint (revolute, continuous, prismatic, screw) or by none
  has a local pose that is linear in ``(1, sin q, 1 - cos q, q)``; the four coefficient
  matrices are precomputed, so all such local poses come from one matrix product.
* Bodies moved by several joints or by ball/floating/planar/universal joints are evaluated per
  body, vectorised over configurations.
* World poses: for one configuration, pointer jumping (log2(depth) batched products); for a
  batch, one batched product per tree depth, in chunks that stay in cache and run on threads.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from math import cos as math_cos
from math import sin as math_sin
from typing import TYPE_CHECKING, Any

import numpy as np

from .arguments import kind, name_argument
from .errors import ConfigurationError, InvalidArgument, InvalidTree, UnresolvedReference, did_you_mean
from .model import JointType
from .transforms import invert_pose, skew

if TYPE_CHECKING:
    from .model import Joint, Model

_CHUNK_ELEMENTS = 1 << 14  # bodies x configurations evaluated per pass: keeps work arrays in cache
_LINEAR_TYPES = (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC, JointType.SCREW)


class Poses(Mapping):
    """Poses by body or frame name: a read-only mapping over one array.

    From `forward_kinematics`, `array` is (K, 4, 4) and `poses[name]` a 4x4 world pose; from
    `forward_kinematics_batch`, `array` is (N, K, 4, 4) and `poses[name]` is (N, 4, 4).
    `names[k]` names `array[..., k, :, :]`: the bodies, then the frames.

    Bodies and frames are separate name spaces (an MJCF site may share its body's name):
    `poses[name]` is the body whenever a body has the name, else the frame; `poses.frame(name)` is
    always the frame, so a frame that shares a body's name is never shadowed nor lost. Iterating
    gives each name once.
    """

    def __init__(self, names: list[str], index: dict[str, int], array: np.ndarray, frames: dict[str, int]) -> None:
        self.names = names
        self._index = index
        self._frames = frames
        self.array = array

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self.array[..., self._index[name], :, :]
        except (KeyError, TypeError):
            raise UnresolvedReference(
                f"no body or frame named {name!r}", construct=str(name), suggestion=did_you_mean(str(name), self._index)
            ) from None

    def frame(self, name: str) -> np.ndarray:
        """The pose of the frame `name` (an SDF `<frame>`, an MJCF `<site>`), even when a body has
        the same name."""
        try:
            return self.array[..., self._frames[name], :, :]
        except (KeyError, TypeError):
            raise UnresolvedReference(
                f"no frame named {name!r}", construct=str(name), suggestion=did_you_mean(str(name), self._frames)
            ) from None

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def __repr__(self) -> str:
        return f"Poses({len(self.names)} names, array shape {self.array.shape})"


def planar_basis(axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors spanning the plane normal to `axis` (x and y for a z axis)."""
    helper = np.array([1.0, 0.0, 0.0]) if abs(axis[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    if abs(axis[2]) > 0.9:
        helper = np.array([1.0, 0.0, 0.0])
    e1 = helper - axis * (helper @ axis)
    e1 /= np.linalg.norm(e1)
    return e1, np.cross(axis, e1)


def _rotations(axes: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Rotations (N, J, 3, 3) about unit `axes` (J, 3) by `angles` (N, J) (Rodrigues)."""
    k = np.stack([skew(a) for a in axes]) if len(axes) else np.zeros((0, 3, 3))
    s = np.sin(angles)[..., None, None]
    c = np.cos(angles)[..., None, None]
    return np.eye(3) + s * k + (1.0 - c) * (k @ k)


def _quat_rotations(q: np.ndarray) -> np.ndarray:
    """Rotations (..., 3, 3) of quaternions (..., 4) given w first; normalised here."""
    norm = np.linalg.norm(q, axis=-1, keepdims=True)
    if np.any(norm == 0.0):
        raise ConfigurationError("a ball or floating joint was given a zero quaternion")
    w, x, y, z = np.moveaxis(q / norm, -1, 0)
    out = np.empty(q.shape[:-1] + (3, 3))
    out[..., 0, 0] = 1 - 2 * (y * y + z * z)
    out[..., 0, 1] = 2 * (x * y - w * z)
    out[..., 0, 2] = 2 * (x * z + w * y)
    out[..., 1, 0] = 2 * (x * y + w * z)
    out[..., 1, 1] = 1 - 2 * (x * x + z * z)
    out[..., 1, 2] = 2 * (y * z - w * x)
    out[..., 2, 0] = 2 * (x * z - w * y)
    out[..., 2, 1] = 2 * (y * z + w * x)
    out[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return out


def _motions(kind: JointType, joints: Sequence[Joint], values: np.ndarray) -> np.ndarray:
    """Joint motions M(q) as (N, J, 4, 4) for J joints of one type; values is (N, J, dof)."""
    n, count = values.shape[:2]
    out = np.zeros((n, count, 4, 4))
    out[..., 3, 3] = 1.0
    axes = np.array([j.axis for j in joints]).reshape(count, 3)
    if kind in (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.SCREW):
        out[..., :3, :3] = _rotations(axes, values[..., 0])
        if kind is JointType.SCREW:
            pitch = np.array([j.pitch for j in joints])
            out[..., :3, 3] = axes * (pitch * values[..., 0])[..., None]
    elif kind is JointType.PRISMATIC:
        out[..., :3, :3] = np.eye(3)
        out[..., :3, 3] = axes * values[..., 0:1]
    elif kind is JointType.BALL:
        out[..., :3, :3] = _quat_rotations(values)
    elif kind is JointType.FLOATING:
        out[..., :3, 3] = values[..., :3]
        out[..., :3, :3] = _quat_rotations(values[..., 3:7])
    elif kind is JointType.PLANAR:
        bases = [planar_basis(a) for a in axes]
        e1 = np.array([b[0] for b in bases]).reshape(count, 3)
        e2 = np.array([b[1] for b in bases]).reshape(count, 3)
        out[..., :3, 3] = e1 * values[..., 0:1] + e2 * values[..., 1:2]
        out[..., :3, :3] = _rotations(axes, values[..., 2])
    elif kind in (JointType.UNIVERSAL, JointType.REVOLUTE2):
        axes2 = np.array([j.axis2 if j.axis2 is not None else (0.0, 1.0, 0.0) for j in joints]).reshape(count, 3)
        out[..., :3, :3] = _rotations(axes, values[..., 0]) @ _rotations(axes2, values[..., 1])
    else:  # pragma: no cover - JOINT_DOF keeps zero-dof types out of here
        out[..., :3, :3] = np.eye(3)
    return out


class Kinematics:
    """The compiled kinematic tree of one model.

    `joint_names` are the joints that take a value (mimic followers and fixed joints do not),
    `layout[name]` their slice in a configuration vector of length `nq`, `reference` the vector
    at which the model stands as written. `names` lists the bodies, then the frames: the order
    of `Poses.array`.

    Bodies that no joint moves are folded away: each is its nearest moving ancestor (its
    "anchor") times a constant pose, and that constant is also folded into the local pose of
    moving bodies below it. Only the moving bodies form the tree that is walked.
    """

    def __init__(self, model: Model) -> None:
        joints = model.joints
        tree = _by_depth(list(model.bodies.values()))
        self._lay_out(tree, joints)
        source = self._value_sources(tree, joints)
        moving_joints = {b.name: [joints[j] for j in b.joints if joints[j].dof > 0] for b in tree}
        anchor, prefix = _anchors(model, tree, moving_joints)
        moving = _by_anchor_depth([b for b in tree if moving_joints[b.name]], anchor)
        static = [b for b in tree if not moving_joints[b.name]]
        self.body_names = [b.name for b in moving + static]
        self.frame_names = list(model.frames)
        self.names = self.body_names + self.frame_names
        # a body keeps its name when a frame shares it; the frame stays reachable through Poses.frame
        self._frames = {name: len(self.body_names) + k for k, name in enumerate(self.frame_names)}
        self._index = {name: k for k, name in enumerate(self.body_names)}
        for name, k in self._frames.items():
            self._index.setdefault(name, k)
        position = {b.name: i for i, b in enumerate(moving)}
        none = len(moving)  # index of the identity that stands for "no moving anchor"
        self._compile_moving(moving, moving_joints, prefix, source)

        # Static bodies and frames: world[anchor] @ constant.
        def fixed(body_name: str, pose: np.ndarray) -> tuple[int, np.ndarray]:
            if moving_joints[body_name]:
                return position[body_name], np.asarray(pose, dtype=float)
            constant = prefix[body_name] @ np.asarray(model.bodies[body_name].pose, dtype=float) @ pose
            return (position[anchor[body_name]] if anchor[body_name] else none), constant

        attached = [fixed(b.name, np.eye(4)) for b in static]
        attached += [fixed(f.body, f.pose) for f in model.frames.values()]
        self._fixed_anchor = np.array([a for a, _ in attached], dtype=int)
        self._fixed_pose = np.array([c for _, c in attached], dtype=float).reshape(-1, 4, 4)
        parents = np.array([position[anchor[b.name]] if anchor[b.name] else none for b in moving], dtype=int)
        self._plan_walk(parents)

    def _lay_out(self, tree: list, joints: Mapping[str, Joint]) -> None:
        """The configuration vector: the joints that take a value, in tree order, and their reference."""
        self.joint_names: list[str] = []
        self.layout: dict[str, slice] = {}
        reference: list[float] = []
        self._ignored: set[str] = set()
        for body in tree:
            for jname in body.joints:
                joint = joints[jname]
                if joint.dof == 0 or joint.mimic is not None:
                    self._ignored.add(jname)
                    continue
                start = len(reference)
                reference.extend(reference_value(joint).tolist())
                self.layout[jname] = slice(start, start + joint.dof)
                self.joint_names.append(jname)
        self.nq = len(reference)
        self.reference = np.array(reference)
        self._ignored |= set(joints) - set(self.layout)  # joints off the tree (loop closures) take no value

    def _compile_moving(
        self,
        moving: list,
        moving_joints: Mapping[str, list[Joint]],
        prefix: Mapping[str, np.ndarray],
        source: Mapping[str, Any],
    ) -> None:
        """Moving bodies: four coefficient matrices of their local pose (prefix folded in), or the
        terms of a chain of joints ("special")."""
        count = len(moving)
        self._basis = np.zeros((count, 4, 16))
        self._src = np.full(count, self.nq)  # column nq of the extended values is always 0
        self._mult = np.zeros(count)
        self._off = np.zeros(count)
        self._special: list[tuple[int, list[tuple[Joint, np.ndarray, np.ndarray, Any]]]] = []
        for m, body in enumerate(moving):
            chain, before = moving_joints[body.name], prefix[body.name]
            if len(chain) == 1 and chain[0].type in _LINEAR_TYPES:
                self._src[m], self._mult[m], self._off[m] = source[chain[0].name]
                self._basis[m] = (before @ _linear_basis(chain[0], body.pose).reshape(4, 4, 4)).reshape(4, 16)
                continue
            terms = []
            for joint in chain:
                origin = np.asarray(joint.origin, dtype=float)
                motion = _motions(joint.type, [joint], reference_value(joint).reshape(1, 1, -1))[0, 0]
                terms.append([joint, origin @ np.linalg.inv(motion), invert_pose(origin), source[joint.name]])
            terms[0][1] = before @ terms[0][1]
            terms[-1][2] = terms[-1][2] @ body.pose
            self._special.append((m, [tuple(t) for t in terms]))

    def _plan_walk(self, parents: np.ndarray) -> None:
        """How the moving tree is walked: one product per level for batches (levels are contiguous, as
        moving bodies are sorted by depth), ancestor-pointer jumps for one configuration."""
        count = none = len(parents)
        depth = np.zeros(count, dtype=int)
        for m in range(count):
            depth[m] = depth[parents[m]] + 1 if parents[m] != none else 0
        self._levels = []
        for d in range(int(depth.max(initial=-1)) + 1):
            members = np.nonzero(depth == d)[0]
            self._levels.append((slice(int(members[0]), int(members[-1]) + 1), parents[members]))
        self._jumps: list[np.ndarray] = []
        pointer = np.append(parents, none)
        while np.any(pointer[:count] != none):
            self._jumps.append(pointer[:count].copy())
            pointer = pointer[pointer]
        # A pass over a chunk costs about as much as 64 numpy calls: a deep tree (a long chain) is
        # walked by jumps in batches too, or its cost would grow with its depth squared
        self._batch_jumps = len(self._levels) > 64 * max(1, len(self._jumps))

    def _value_sources(self, bodies: list, joints: Mapping[str, Joint]) -> dict[str, Any]:
        """Where each moving joint's value comes from: (column, multiplier, offset) for one-valued
        joints — a mimic follower reads its (ultimate) leader's column — or a slice otherwise."""
        zero = self.nq  # a column that always holds 0 (a fixed joint as leader)
        source: dict[str, Any] = {}

        def resolve(joint: Joint, seen: tuple[str, ...]) -> Any:
            if joint.name in source:
                return source[joint.name]
            if joint.mimic is None:
                sl = self.layout.get(joint.name)
                result: tuple[int, float, float] | slice
                if sl is None:  # a leader off the tree (a loop closure) takes no value: it is held at 0
                    result = (zero, 0.0, 0.0)
                else:
                    result = (sl.start, 1.0, 0.0) if joint.dof == 1 else sl
            else:
                if joint.name in seen:
                    raise ConfigurationError(
                        "mimic joints form a loop: " + " -> ".join((*seen, joint.name)),
                        location=joint.location,
                        construct=joint.name,
                    )
                leader = joints.get(joint.mimic.joint)  # an unknown leader counts as a joint held at 0
                if joint.dof != 1 or (leader is not None and leader.dof > 1):
                    raise ConfigurationError(
                        f"mimic joint {joint.name!r} and its leader must take one value each",
                        location=joint.location,
                        construct=joint.name,
                    )
                column, mult, off = (
                    (zero, 0.0, 0.0) if leader is None or leader.dof == 0 else resolve(leader, (*seen, joint.name))
                )
                m, o = joint.mimic.multiplier, joint.mimic.offset
                result = (column, m * mult, m * off + o)
            source[joint.name] = result
            return result

        for body in bodies:
            for jname in body.joints:
                if joints[jname].dof > 0:
                    resolve(joints[jname], ())
        return source

    # -- configuration handling ----------------------------------------------------------------
    def vector(self, positions: Mapping[str, Any] | Sequence[float] | np.ndarray | None) -> np.ndarray:
        """A configuration vector (nq,) from a mapping of joint values, a vector, or None."""
        if positions is None:
            return self.reference.copy()
        if not isinstance(positions, Mapping):
            q = _floats(positions, "the configuration vector")
            if q.shape != (self.nq,):
                raise ConfigurationError(f"expected a configuration vector of length {self.nq}, got shape {q.shape}")
            return q
        q = self.reference.copy()
        for name, value in positions.items():
            sl = self._slice(name)
            if sl is None:
                continue
            v = _floats(value, f"joint {name!r}").reshape(-1)
            if v.size != sl.stop - sl.start:
                raise ConfigurationError(f"joint {name!r} takes {sl.stop - sl.start} value(s), got {v.size}")
            q[sl] = v
        return q

    def _slice(self, name: str) -> slice | None:
        """The columns of joint `name`, None for a joint without a value of its own (fixed, mimic)."""
        name_argument(name, "each key of positions", "a joint name")
        sl = self.layout.get(name)
        if sl is None and name not in self._ignored:
            known = list(self.layout) + list(self._ignored)
            raise ConfigurationError(f"no joint named {name!r}", construct=name, suggestion=did_you_mean(name, known))
        return sl

    def matrix(self, positions: Mapping[str, Any] | np.ndarray) -> np.ndarray:
        """An (N, nq) configuration matrix from an array or a mapping of per-joint (N,) or (N, k) arrays."""
        if not isinstance(positions, Mapping):
            if isinstance(positions, np.ndarray) and positions.ndim == 2:
                self._check_batch_size(positions.shape[0])  # before a conversion to float copies it
            q = _floats(positions, "the configuration array")
            if q.ndim != 2 or q.shape[1] != self.nq:
                raise ConfigurationError(f"expected an array of shape (N, {self.nq}), got {q.shape}")
            return q
        columns: list[tuple[slice, np.ndarray]] = []
        count = None
        for name, value in positions.items():
            sl = self._slice(name)
            if sl is None:
                continue
            v = _floats(value, f"joint {name!r}")
            width = sl.stop - sl.start
            if v.ndim == 0 or v.size != v.shape[0] * width or (count is not None and v.shape[0] != count):
                raise ConfigurationError(
                    f"joint {name!r} needs an array of shape (N,) or (N, {width}) with the same N as the other joints"
                )
            count = v.shape[0]
            columns.append((sl, v.reshape(count, width)))
        self._check_batch_size(count or 1)
        q = np.tile(self.reference, (count or 1, 1))
        for sl, v in columns:
            q[:, sl] = v
        return q

    # -- evaluation -----------------------------------------------------------------------------
    # -- evaluation -----------------------------------------------------------------------------
    def forward(self, positions: Mapping[str, Any] | Sequence[float] | np.ndarray | None = None) -> Poses:
        q = self.vector(positions)
        if not np.isfinite(q).all():
            raise ConfigurationError("joint values must be finite numbers")
        out = np.empty((1, len(self.names), 4, 4))
        with np.errstate(all="ignore"):  # an overflow is refused below, by name, not as a numpy warning
            self._evaluate(q[None, :], out, self._workspace(1), single=True)
        self._check_finite(out)
        return Poses(self.names, self._index, out[0], self._frames)

    def forward_batch(self, positions: Mapping[str, Any] | np.ndarray, out: np.ndarray | None = None) -> Poses:
        """Poses at N configurations. `out`, an (N, K, 4, 4) float array, is filled if given."""
        if out is not None and not isinstance(out, np.ndarray):
            raise InvalidArgument(f"out must be a numpy array (float64) or None, not {kind(out)}", construct="out")
        if out is not None and not out.flags.writeable:
            raise InvalidArgument("out must be a writeable array; this one is read-only", construct="out")
        q = self.matrix(positions)
        shape = (q.shape[0], len(self.names), 4, 4)
        if out is None:
            self._check_batch_size(q.shape[0])
            out = np.empty(shape)
        elif out.shape != shape or out.dtype != np.float64:
            raise ConfigurationError(f"out must be a float64 array of shape {shape}, not {out.dtype} {out.shape}")
        if not np.isfinite(q).all():
            raise ConfigurationError("joint values must be finite numbers")
        # no more workers than configurations (an empty group has no rows to hand over)
        workers = max(1, min(_cpu_count(), q.shape[0], q.shape[0] * len(self.names) // _CHUNK_ELEMENTS))
        groups = np.array_split(np.arange(q.shape[0]), workers)
        if workers > 1:  # numpy releases the GIL in its loops, so the groups run on all cores
            with ThreadPoolExecutor(workers) as pool:
                list(pool.map(lambda rows: self._evaluate_rows(q, out, rows[0], rows[-1] + 1), groups))
        elif q.shape[0]:
            self._evaluate_rows(q, out, 0, q.shape[0])
        self._check_finite(out)
        return Poses(self.names, self._index, out, self._frames)

    def _check_finite(self, out: np.ndarray) -> None:
        """Refuse poses that overflowed (joint values or offsets near 1e308). Finite joint values give
        finite rotations, so only the positions need looking at."""
        bad = ~np.isfinite(out[..., :3, 3]).all(axis=-1)
        if bad.any():
            row, body = (int(i[0]) for i in np.nonzero(bad))
            where = f"configuration {row}: " if out.shape[0] > 1 else ""
            raise ConfigurationError(
                f"{where}the pose of {self.names[body]!r} is not finite: these joint values (with the "
                "model's offsets) are too large to compose",
                construct=self.names[body],
                suggestion="give joint values of a physical size",
            )

    def _check_batch_size(self, count: int) -> None:
        """Refuse, before allocating anything, a batch whose poses and configurations would not fit
        in this machine's memory: numpy would fail late with a bare MemoryError, or the system would
        start swapping or kill the process part-way through."""
        needed = count * (len(self.names) * 16 + self.nq + 1) * 8  # poses, configurations (float64)
        available = _memory_bytes()
        if available is not None and needed > available:
            raise ConfigurationError(
                f"a batch of {count:,} configurations needs {needed / 2**30:,.1f} GiB for its configurations and "
                f"poses ({len(self.names)} bodies and frames, 4x4 float64 each), more than this machine's "
                f"{available / 2**30:,.1f} GiB of memory",
                construct="positions",
                suggestion="evaluate the configurations in smaller batches, reusing one array with out=",
            )

    def _evaluate_rows(self, q: np.ndarray, out: np.ndarray, start: int, stop: int) -> None:
        """Rows start:stop of a batch, in chunks small enough to stay in cache, reusing one workspace."""
        step = max(1, _CHUNK_ELEMENTS // max(1, len(self.names)))
        workspace = None
        for first in range(start, stop, step):
            last = min(stop, first + step)
            if workspace is None or len(workspace[0]) != last - first:
                workspace = self._workspace(last - first)
            with np.errstate(all="ignore"):  # an overflow is refused by the caller, by name
                self._evaluate(q[first:last], out[first:last], workspace)

    def _workspace(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Scratch arrays for n configurations, allocated once and reused chunk after chunk
        (fresh large arrays each chunk would cost a page fault per 4 KiB)."""
        count = len(self._basis)
        qext = np.zeros((n, self.nq + 1))  # the last column stays 0: the value of "no joint"
        coef = np.empty((n, count, 1, 4))
        coef[..., 0, 0] = 1.0
        local = np.empty((n, count, 1, 16))
        world = np.empty((n, count + 1, 4, 4))
        world[:, count] = np.eye(4)  # index `count` stands for "no moving anchor"
        return qext, coef, local, world

    def _evaluate(self, q: np.ndarray, out: np.ndarray, workspace: tuple, single: bool = False) -> None:
        """World poses of every body and frame for configurations q (n, nq), written into out."""
        qext, coef, local, world = workspace
        count = len(self._basis)
        qext[:, : self.nq] = q
        qb = qext[:, self._src] * self._mult + self._off
        np.sin(qb, out=coef[..., 0, 1])
        np.cos(qb, out=coef[..., 0, 2])
        np.subtract(1.0, coef[..., 0, 2], out=coef[..., 0, 2])
        coef[..., 0, 3] = qb
        np.matmul(coef, self._basis, out=local)
        local = local.reshape(len(q), count, 4, 4)
        for m, terms in self._special:
            acc = None
            for joint, pre, post, src in terms:
                if isinstance(src, slice):
                    values = qext[:, src]
                else:
                    values = (qext[:, src[0]] * src[1] + src[2])[:, None]
                term = pre @ _motions(joint.type, [joint], values[:, None, :])[:, 0] @ post
                acc = term if acc is None else acc @ term
            local[:, m] = acc
        if single or self._batch_jumps:
            world[:, :count] = local
            for pointer in self._jumps:
                world[:, :count] = world[:, pointer] @ world[:, :count]
        else:
            for run, parents in self._levels:
                np.matmul(world[:, parents], local[:, run], out=world[:, run])
        out[:, :count] = world[:, :count]
        if len(self._fixed_anchor):
            np.matmul(world[:, self._fixed_anchor], self._fixed_pose, out=out[:, count:])


def _floats(value: Any, what: str) -> np.ndarray:
    """`value` as a float array, or a ConfigurationError naming `what`."""
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ConfigurationError(f"{what} was given {value!r}, which is not made of numbers") from None


def _memory_bytes() -> int | None:
    """The machine's physical memory in bytes, None where the system cannot say."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # not a POSIX system
        return None


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _by_depth(bodies: list) -> list:
    """Bodies sorted by tree depth (stable); an error if a body's parent is missing or later."""
    depth: dict[str, int] = {}
    for body in bodies:
        if body.parent is None:
            depth[body.name] = 0
        elif body.parent in depth:
            depth[body.name] = depth[body.parent] + 1
        else:
            raise InvalidTree(
                f"body {body.name!r} comes before its parent {body.parent!r} (or the parent is missing)",
                location=body.location,
                construct=body.name,
            )
    return sorted(bodies, key=lambda b: depth[b.name])


def _anchors(
    model: Model, tree: list, moving_joints: Mapping[str, list[Joint]]
) -> tuple[dict[str, str | None], dict[str, np.ndarray]]:
    """Every body's nearest moving ancestor (its "anchor", None for the world) and the constant product
    from the anchor to the body's parent frame: pose = world[anchor] @ prefix @ local."""
    anchor: dict[str, str | None] = {}
    prefix: dict[str, np.ndarray] = {}
    for body in tree:
        parent = body.parent
        if parent is None:
            anchor[body.name], prefix[body.name] = None, np.eye(4)
        elif moving_joints[parent]:
            anchor[body.name], prefix[body.name] = parent, np.eye(4)
        else:
            anchor[body.name] = anchor[parent]
            prefix[body.name] = prefix[parent] @ np.asarray(model.bodies[parent].pose, dtype=float)
    return anchor, prefix


def _by_anchor_depth(moving: list, anchor: Mapping[str, str | None]) -> list:
    """Moving bodies sorted by depth in the tree of moving bodies only (stable)."""
    depth: dict[str, int] = {}
    for body in moving:  # already parents-first
        up = anchor[body.name]
        depth[body.name] = depth[up] + 1 if up is not None else 0
    return sorted(moving, key=lambda b: depth[b.name])


def _linear_basis(joint: Joint, body_pose: np.ndarray) -> np.ndarray:
    """The (4, 16) matrices B_k with local(q) = B_0 + sin q B_1 + (1 - cos q) B_2 + q B_3.

    The joint motion is M(q) = I + sin q K + (1 - cos q) K^2 + q T (Rodrigues' formula for the
    rotation, T the translation per unit value); local = origin M(ref)^-1 M(q) origin^-1 pose.
    """
    axis = np.asarray(joint.axis, dtype=float)
    e = np.zeros((4, 4, 4))
    e[0] = np.eye(4)
    if joint.type is not JointType.PRISMATIC:
        k = skew(axis)
        e[1, :3, :3] = k
        e[2, :3, :3] = k @ k
    if joint.type is JointType.PRISMATIC:
        e[3, :3, 3] = axis
    elif joint.type is JointType.SCREW:
        e[3, :3, 3] = axis * joint.pitch
    ref = float(reference_value(joint)[0])
    at_ref = e[0] + math_sin(ref) * e[1] + (1.0 - math_cos(ref)) * e[2] + ref * e[3]
    origin = np.asarray(joint.origin, dtype=float)
    pre = origin @ np.linalg.inv(at_ref)
    post = invert_pose(origin) @ np.asarray(body_pose, dtype=float)
    return np.stack([(pre @ e[k] @ post).reshape(16) for k in range(4)])


def joint_motion(joint: Joint, value: Any) -> np.ndarray:
    """M(q): the 4x4 motion of `joint` at `value`, in its joint frame, exactly as forward kinematics
    applies it (see robodesc.core.model). Writers use it to place joints and helper links, so every
    joint type's motion has one definition."""
    return _motions(joint.type, [joint], np.asarray(value, dtype=float).reshape(1, 1, -1))[0, 0]


def reference_value(joint: Joint) -> np.ndarray:
    """The joint's reference as a flat vector of its value size (identity value if unset or mis-sized)."""
    ref = np.atleast_1d(np.asarray(joint.reference, dtype=float)).reshape(-1)
    return ref if ref.size == joint.dof else default_value(joint)


def default_value(joint: Joint) -> np.ndarray:
    """The identity value of a joint: zeros, or a unit quaternion for ball/floating joints."""
    if joint.type is JointType.BALL:
        return np.array([1.0, 0.0, 0.0, 0.0])
    if joint.type is JointType.FLOATING:
        return np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    return np.zeros(joint.dof)
