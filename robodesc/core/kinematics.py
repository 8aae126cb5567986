"""Forward kinematics, compiled once per model into flat numpy arrays.

Every body's pose in its parent is a product of per-joint terms (see `model.py`). Compiling
turns the model into index arrays so that one configuration or a batch of N configurations is
evaluated with a fixed number of numpy calls: all joint motions of one type at once, then one
batched matrix product per tree depth — never a Python loop over configurations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import ConfigurationError, InvalidTree, UnresolvedReference, did_you_mean
from .model import JOINT_DOF, JointType
from .transforms import invert_pose, skew

if TYPE_CHECKING:
    from .model import Joint, Model

_CHUNK_ELEMENTS = 1 << 16  # bodies x configurations evaluated per pass: keeps work arrays in cache
_ONE_AXIS = (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC, JointType.SCREW)


@dataclass
class PoseBatch:
    """World poses at N configurations: `array[n, k]` is the 4x4 pose of `names[k]`."""

    names: list[str]
    array: np.ndarray  # (N, len(names), 4, 4)

    def __post_init__(self) -> None:
        self._index = {name: k for k, name in enumerate(self.names)}

    def __getitem__(self, name: str) -> np.ndarray:
        """The (N, 4, 4) poses of one body or frame."""
        try:
            return self.array[:, self._index[name]]
        except KeyError:
            raise UnresolvedReference(
                f"no body or frame named {name!r}", construct=name, suggestion=did_you_mean(name, self.names)
            ) from None

    def __len__(self) -> int:
        return self.array.shape[0]


def _motion_matrix(joint: Joint, value: np.ndarray) -> np.ndarray:
    """M(value) for one joint, used only while compiling (to fold in M(reference)^-1)."""
    return _motions(joint.type, [joint], value.reshape(1, 1, -1))[0, 0]


def _planar_basis(axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
        bases = [_planar_basis(a) for a in axes]
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
    at which the model stands as written.
    """

    def __init__(self, model: Model) -> None:
        bodies = list(model.bodies.values())
        self.body_names = [b.name for b in bodies]
        self.frame_names = list(model.frames)
        self.names = self.body_names + self.frame_names
        body_index = {name: i for i, name in enumerate(self.body_names)}

        # Configuration layout: independent joints in tree order.
        self.joint_names: list[str] = []
        self.layout: dict[str, slice] = {}
        reference: list[float] = []
        followers: list[Joint] = []
        self._ignored = set()
        for body in bodies:
            for jname in body.joints:
                joint = model.joints[jname]
                if joint.dof == 0:
                    self._ignored.add(jname)
                elif joint.mimic is not None:
                    followers.append(joint)
                    self._ignored.add(jname)
                else:
                    start = len(reference)
                    ref = np.atleast_1d(np.asarray(joint.reference, dtype=float))
                    if ref.size != joint.dof:
                        ref = _default_value(joint)
                    reference.extend(ref.tolist())
                    self.layout[jname] = slice(start, start + joint.dof)
                    self.joint_names.append(jname)
        self.nq = len(reference)
        self.reference = np.array(reference)

        # Mimic followers get a column after the independent values, computed leader first.
        value_column = {name: sl.start for name, sl in self.layout.items()}
        self._mimic: list[tuple[int, int, float, float]] = []  # (column, leader column, mult, offset)
        pending = list(followers)
        while pending:
            progressed = False
            for joint in list(pending):
                leader = model.joints.get(joint.mimic.joint)
                if leader is None:
                    raise UnresolvedReference(
                        f"joint {joint.name!r} mimics unknown joint {joint.mimic.joint!r}",
                        location=joint.location,
                        construct=joint.mimic.joint,
                        suggestion=did_you_mean(joint.mimic.joint, model.joints),
                    )
                if joint.dof != 1 or leader.dof > 1:
                    raise ConfigurationError(
                        f"mimic joint {joint.name!r} and its leader must have one value each", location=joint.location
                    )
                if leader.dof == 0:
                    lead_col = -1
                elif leader.name in value_column:
                    lead_col = value_column[leader.name]
                else:
                    continue
                column = self.nq + len(self._mimic)
                value_column[joint.name] = column
                self._mimic.append((column, lead_col, joint.mimic.multiplier, joint.mimic.offset))
                pending.remove(joint)
                progressed = True
            if not progressed:
                raise ConfigurationError(
                    "mimic joints form a loop: " + ", ".join(j.name for j in pending), location=pending[0].location
                )
        self._nv = self.nq + len(self._mimic)

        # Per body: its constant local pose, or the moving joint terms that make it.
        self._local0 = np.array([b.pose for b in bodies]).reshape(len(bodies), 4, 4)
        self._parent = np.full(len(bodies), -1)
        depth = np.zeros(len(bodies), dtype=int)
        slots: list[tuple[Joint, np.ndarray, int]] = []  # (joint, pre-matrix, value column)
        single: list[tuple[int, int]] = []  # (body, slot) where local = G[slot]
        single_post: list[tuple[int, int, np.ndarray]] = []  # local = G[slot] @ post
        chains: list[tuple[int, list[tuple[int, np.ndarray]]]] = []  # local = prod(G @ post)
        for i, body in enumerate(bodies):
            if body.parent is not None:
                if body.parent not in body_index or body_index[body.parent] >= i:
                    raise InvalidTree(
                        f"body {body.name!r} comes before its parent {body.parent!r}", location=body.location
                    )
                self._parent[i] = body_index[body.parent]
                depth[i] = depth[self._parent[i]] + 1
            terms = []
            for jname in body.joints:
                joint = model.joints[jname]
                if joint.dof == 0:
                    continue
                origin = np.asarray(joint.origin, dtype=float)
                ref = np.atleast_1d(np.asarray(joint.reference, dtype=float))
                if ref.size != joint.dof:
                    ref = _default_value(joint)
                pre = origin @ invert_pose(_motion_matrix(joint, ref))
                slots.append((joint, pre, value_column[jname]))
                terms.append((len(slots) - 1, invert_pose(origin)))
            if not terms:
                continue
            if len(terms) == 1:
                post = terms[0][1] @ body.pose
                if np.allclose(post, np.eye(4), rtol=0.0, atol=1e-15):
                    single.append((i, terms[0][0]))
                else:
                    single_post.append((i, terms[0][0], post))
            else:
                terms[-1] = (terms[-1][0], terms[-1][1] @ body.pose)
                chains.append((i, terms))

        self._single_body = np.array([b for b, _ in single], dtype=int)
        self._single_slot = np.array([s for _, s in single], dtype=int)
        self._single_post = single_post
        self._chains = chains
        self._pre = np.array([p for _, p, _ in slots]).reshape(len(slots), 4, 4)
        self._groups = []  # per joint type: (type, slot indices, joints, value columns (J, dof))
        by_type: dict[JointType, list[int]] = {}
        for s, (joint, _, _) in enumerate(slots):
            by_type.setdefault(joint.type, []).append(s)
        for kind, idx in by_type.items():
            joints = [slots[s][0] for s in idx]
            cols = np.array([[slots[s][2] + k for k in range(JOINT_DOF[kind])] for s in idx], dtype=int)
            self._groups.append((kind, np.array(idx), joints, cols))
        self._levels = []
        for d in range(1, int(depth.max(initial=0)) + 1):
            idx = np.nonzero(depth == d)[0]
            self._levels.append((idx, self._parent[idx]))
        self._roots = np.nonzero(self._parent < 0)[0]
        self._frame_body = np.array([body_index[f.body] for f in model.frames.values()], dtype=int)
        self._frame_pose = np.array([f.pose for f in model.frames.values()]).reshape(len(self._frame_body), 4, 4)

    # -- configuration handling ----------------------------------------------------------------
    def vector(self, positions: Mapping[str, Any] | Sequence[float] | np.ndarray | None) -> np.ndarray:
        """A configuration vector (nq,) from a mapping of joint values, a vector, or None."""
        if positions is None:
            return self.reference.copy()
        if not isinstance(positions, Mapping):
            q = np.asarray(positions, dtype=float)
            if q.shape != (self.nq,):
                raise ConfigurationError(f"expected a configuration vector of length {self.nq}, got shape {q.shape}")
            return q
        q = self.reference.copy()
        for name, value in positions.items():
            sl = self._slice(name)
            if sl is None:
                continue
            try:
                v = np.asarray(value, dtype=float).reshape(-1)
            except (TypeError, ValueError):
                raise ConfigurationError(f"joint {name!r} was given {value!r}, which is not a number") from None
            if v.size != sl.stop - sl.start:
                raise ConfigurationError(f"joint {name!r} takes {sl.stop - sl.start} value(s), got {v.size}")
            q[sl] = v
        return q

    def _slice(self, name: str) -> slice | None:
        sl = self.layout.get(name)
        if sl is None and name not in self._ignored:
            known = list(self.layout) + list(self._ignored)
            raise ConfigurationError(f"no joint named {name!r}", construct=name, suggestion=did_you_mean(name, known))
        return sl

    def matrix(self, positions: Mapping[str, Any] | np.ndarray) -> np.ndarray:
        """An (N, nq) configuration matrix from an array or a mapping of per-joint (N, ...) arrays."""
        if not isinstance(positions, Mapping):
            q = np.asarray(positions, dtype=float)
            if q.ndim != 2 or q.shape[1] != self.nq:
                raise ConfigurationError(f"expected an array of shape (N, {self.nq}), got {q.shape}")
            return q
        arrays = {}
        count = None
        for name, value in positions.items():
            sl = self._slice(name)
            if sl is None:
                continue
            v = np.asarray(value, dtype=float)
            width = sl.stop - sl.start
            v = v.reshape(v.shape[0], width) if v.ndim >= 1 and v.size == v.shape[0] * width else None
            if v is None or (count is not None and v.shape[0] != count):
                raise ConfigurationError(
                    f"joint {name!r} needs an array of shape (N,) or (N, {width}) with the same N as the other joints"
                )
            count = v.shape[0]
            arrays[sl] = v
        q = np.tile(self.reference, (count or 1, 1))
        for sl, v in arrays.items():
            q[:, sl] = v
        return q

    # -- evaluation -----------------------------------------------------------------------------
    def forward(
        self, positions: Mapping[str, Any] | Sequence[float] | np.ndarray | None = None
    ) -> dict[str, np.ndarray]:
        poses = self._evaluate(self.vector(positions)[None, :])[0]
        return dict(zip(self.names, poses))

    def forward_batch(self, positions: Mapping[str, Any] | np.ndarray) -> PoseBatch:
        q = self.matrix(positions)
        out = np.empty((q.shape[0], len(self.names), 4, 4))
        step = max(1, _CHUNK_ELEMENTS // max(1, len(self.names)))
        for start in range(0, q.shape[0], step):
            out[start : start + step] = self._evaluate(q[start : start + step])
        return PoseBatch(list(self.names), out)

    def _evaluate(self, q: np.ndarray) -> np.ndarray:
        n = q.shape[0]
        if not np.all(np.isfinite(q)):
            raise ConfigurationError("joint values must be finite numbers")
        values = np.empty((n, self._nv))
        values[:, : self.nq] = q
        for column, lead, mult, offset in self._mimic:
            values[:, column] = mult * (values[:, lead] if lead >= 0 else 0.0) + offset
        g = np.empty((n, len(self._pre), 4, 4))
        for kind, idx, joints, cols in self._groups:
            g[:, idx] = self._pre[idx] @ _motions(kind, joints, values[:, cols])
        nb = len(self.body_names)
        out = np.empty((n, len(self.names), 4, 4))
        local = np.broadcast_to(self._local0, (n, nb, 4, 4)).copy()
        if len(self._single_body):
            local[:, self._single_body] = g[:, self._single_slot]
        for body, slot, post in self._single_post:
            local[:, body] = g[:, slot] @ post
        for body, terms in self._chains:
            acc = g[:, terms[0][0]] @ terms[0][1]
            for slot, post in terms[1:]:
                acc = acc @ g[:, slot] @ post
            local[:, body] = acc
        world = out[:, :nb]
        world[:, self._roots] = local[:, self._roots]
        for idx, parent in self._levels:
            world[:, idx] = world[:, parent] @ local[:, idx]
        if len(self._frame_body):
            out[:, nb:] = world[:, self._frame_body] @ self._frame_pose
        return out


def _default_value(joint: Joint) -> np.ndarray:
    """The identity value of a joint: zeros, or a unit quaternion for ball/floating joints."""
    if joint.type is JointType.BALL:
        return np.array([1.0, 0.0, 0.0, 0.0])
    if joint.type is JointType.FLOATING:
        return np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    return np.zeros(joint.dof)
