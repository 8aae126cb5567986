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
import threading
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from math import copysign as math_copysign
from math import cos as math_cos
from math import isfinite as math_isfinite
from math import sin as math_sin
from typing import TYPE_CHECKING, Any

import numpy as np

from .arguments import kind, name_argument, names_argument
from .errors import (
    ConfigurationError,
    InvalidArgument,
    InvalidTree,
    MissingDependency,
    UnresolvedReference,
    did_you_mean,
)
from .model import JOINT_DOF, JointType
from .transforms import IDENTITY, skew, stacked

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    from .model import Joint, Mimic, Model

_CHUNK_ELEMENTS = 1 << 14  # bodies x configurations evaluated per pass: keeps work arrays in cache
_THREAD_ELEMENTS = 1 << 14  # bodies x configurations worth a thread of numpy evaluation
_KERNEL_ELEMENTS = 1 << 16  # bodies x configurations worth a thread of the compiled kernel
_KEPT_ELEMENTS = 1 << 10  # bodies x configurations of a batch whose workspace a thread keeps
_COMPILE_CHUNK = 512  # one-joint bodies compiled per batch of numpy calls, for the same reason
_LINEAR_TYPES = (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC, JointType.SCREW)


class Poses(Mapping):
    """Poses by body or frame name: a read-only mapping over one array.

    From `forward_kinematics`, `array` is (K, 4, 4) and `poses[name]` a 4x4 world pose; from
    `forward_kinematics_batch`, `array` is (N, K, 4, 4) and `poses[name]` is (N, 4, 4).
    `names[k]` names `array[..., k, :, :]`: the bodies, then the frames; or, when `bodies=` (and
    `frames=`) chose some, just those, in the order asked.

    Bodies and frames are separate name spaces (an MJCF site may share its body's name):
    `poses[name]` is the body whenever a body has the name, else the frame; `poses.frame(name)` is
    always the frame, so a frame that shares a body's name is never shadowed nor lost. Iterating
    gives each name once.
    """

    __slots__ = ("names", "_index", "_frames", "array")  # (one is made per call: no per-instance dict)

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
    """Rotations (..., 3, 3) of quaternions (..., 4) given w first; normalised here. Each product
    of two components is computed once (the same numbers, fewer numpy calls), and the norm as
    np.linalg.norm computes it, without its wrapper."""
    norm = np.sqrt(np.add.reduce(q * q, axis=-1, keepdims=True))
    if (norm == 0.0).any():
        raise ConfigurationError("a ball or floating joint was given a zero quaternion")
    w, x, y, z = np.moveaxis(q / norm, -1, 0)
    xx, yy, zz, xy, xz, yz, wx, wy, wz = x * x, y * y, z * z, x * y, x * z, y * z, w * x, w * y, w * z
    out = np.empty(q.shape[:-1] + (3, 3))
    out[..., 0, 0] = 1 - 2 * (yy + zz)
    out[..., 0, 1] = 2 * (xy - wz)
    out[..., 0, 2] = 2 * (xz + wy)
    out[..., 1, 0] = 2 * (xy + wz)
    out[..., 1, 1] = 1 - 2 * (xx + zz)
    out[..., 1, 2] = 2 * (yz - wx)
    out[..., 2, 0] = 2 * (xz - wy)
    out[..., 2, 1] = 2 * (yz + wx)
    out[..., 2, 2] = 1 - 2 * (xx + yy)
    return out


def _motions(kind: JointType, joints: Sequence[Joint], values: np.ndarray) -> np.ndarray:
    """Joint motions M(q) as (N, J, 4, 4) for J joints of one type; values is (N, J, dof)."""
    n, count = values.shape[:2]
    out = np.zeros((n, count, 4, 4))
    out[..., 3, 3] = 1.0
    if kind is JointType.BALL:
        out[..., :3, :3] = _quat_rotations(values)
        return out
    if kind is JointType.FLOATING:
        out[..., :3, 3] = values[..., :3]
        out[..., :3, :3] = _quat_rotations(values[..., 3:7])
        return out
    axes = np.array([j.axis for j in joints]).reshape(count, 3)  # (the other types turn or slide along one)
    if kind in (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.SCREW):
        out[..., :3, :3] = _rotations(axes, values[..., 0])
        if kind is JointType.SCREW:
            pitch = np.array([j.pitch for j in joints])
            out[..., :3, 3] = axes * (pitch * values[..., 0])[..., None]
    elif kind is JointType.PRISMATIC:
        out[..., :3, :3] = np.eye(3)
        out[..., :3, 3] = axes * values[..., 0:1]
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


_BACKENDS = ("auto", "numpy", "numba")
_PLAN_CACHE = 32  # sub-plans kept per model, by requested names (least recently used dropped first)
_NUMBERS = (float, int, bool, np.float64)  # joint values taken as they are, without a numpy conversion
_FLOAT = np.dtype(float)  # (native float64: numpy's dtype objects for it are one object)
_CROSS = np.array([6, 5, 1, 2, 6, 3, 4, 0, 6])  # K = [[0, -z, y], [z, 0, -x], [-y, x, 0]] from (x, y, z, -x, -y, -z, 0)
_LAST_ROWS = np.array([[0.0, 0.0, 0.0, 1.0], [0.0] * 4, [0.0] * 4, [0.0] * 4])  # of the four B_k: local poses are rigid


class _Plan:
    """One compiled evaluation: the moving bodies it walks and the rows it writes.

    The moving bodies are closed under ancestors and sorted by depth (parents first), so a batch
    walks them one contiguous level at a time. Row r of the result is either a moving body's world
    pose (`direct`) or a moving anchor's world pose times a constant (`fixed`: static bodies,
    frames). The full model is one plan; `bodies=` compiles a smaller one from it, with the same
    products in the same order, so both give the same poses. `every_value`: the plan reads every
    column of the configuration (the full model's does).
    """

    def __init__(
        self,
        basis: np.ndarray,
        src: np.ndarray,
        mult: np.ndarray,
        off: np.ndarray,
        special: list[tuple[int, list[tuple[Joint, np.ndarray, np.ndarray, Any]]]],
        parents: np.ndarray,
        direct: tuple[Any, Any],
        fixed: tuple[Any, np.ndarray, np.ndarray],
        rows: int,
        batch_jumps: bool | None = None,
        every_value: bool = False,
        lists: tuple[list[int], list[float], list[float], list[int]] | None = None,
    ) -> None:
        self.basis, self.src, self.mult, self.off, self.special = basis, src, mult, off, special
        self.parents = parents
        self.count = len(parents)
        self.direct, self.fixed, self.rows = direct, fixed, rows
        # src, mult, off and parents as lists, when the caller made the arrays from them (a compile
        # already has them: no numpy conversions back)
        src_list, mults, offs, parent_list = lists or (src.tolist(), mult.tolist(), off.tolist(), parents.tolist())
        self._depth = _depths(parent_list)
        self._levels: list[tuple[slice, np.ndarray | slice]] | None = None
        self._jumps: list[tuple[int, np.ndarray]] | None = None
        # A pass over a chunk costs about as much as 64 numpy calls: a deep tree (a long chain) is
        # walked by jumps in batches too, or its cost would grow with its depth squared. A sub-plan
        # walks as the full plan does, so that it computes the very same products.
        deepest = self._depth[-1] if self._depth else 0
        jumps = deepest.bit_length()  # (how many `jumps` makes: one per power of 2 up to the depth)
        self.batch_jumps = deepest + 1 > 64 * max(1, jumps) if batch_jumps is None else batch_jumps
        self._kernel: tuple | None = None
        # one configuration: the columns read as they are when no joint is a mimic or held at 0
        # (list methods: fewer numpy calls, which is what compiling a small model costs)
        self.plain = mults.count(1.0) == len(mults) and not any(offs)
        self.columns = max(src_list, default=-1) + 1  # a vector shorter than this needs the 0 column
        # a workspace per thread, reused call after call: the thread-local made on first use (compiling a
        # model needs none, and making one costs as much as a few numpy calls)
        self._single: threading.local | None = None
        # Every joint value moves some pose through a sine or a product, and nothing refuses a value
        # on the way (as a ball joint's zero quaternion is): a value that is not finite then shows in
        # the poses, and one configuration's values need looking at only when the poses are not finite.
        self.shows_bad_values = every_value and not special

    def __getstate__(self) -> dict[str, Any]:
        """Copies and pickles leave out the per-thread workspaces (a thread-local cannot be copied)."""
        state = self.__dict__.copy()
        del state["_single"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._single = None

    def workspaces(self) -> threading.local:
        """This plan's per-thread workspaces, made on first use. Two threads that both find none may
        each make one and one of them is kept: the other thread's workspace is then made again."""
        single = self._single
        if single is None:
            single = self._single = threading.local()
        return single

    @property
    def levels(self) -> list[tuple[slice, np.ndarray | slice]]:
        """The moving bodies one level (depth) at a time, as batches walk them: each level's rows and
        its parents' rows (a view when consecutive: a chain's parents, or a lone root's "no anchor").
        Worked out on first use: one configuration, and a deep tree's batches, walk by jumps instead."""
        if self._levels is None:
            depth, parents = self._depth, self.parents
            parent_list = parents.tolist()
            levels: list[tuple[slice, np.ndarray | slice]] = []
            first = 0
            while first < self.count:  # levels are contiguous, as moving bodies are sorted by depth
                last = bisect_right(depth, depth[first], first)
                up = parent_list[first:last]
                consecutive = up[-1] - up[0] == last - first - 1 and up == list(range(up[0], up[-1] + 1))
                levels.append((slice(first, last), slice(up[0], up[-1] + 1) if consecutive else parents[first:last]))
                first = last
            self._levels = levels
        return self._levels

    @property
    def jumps(self) -> list[tuple[int, np.ndarray]]:
        """The ancestor-pointer jumps that walk the tree for one configuration (and for a deep tree's
        batches), see `_jumps`. Worked out on first use: a shallow tree's batches walk by levels."""
        if self._jumps is None:
            self._jumps = _jumps(self.parents, self._depth)
        return self._jumps

    def kernel_arrays(self) -> tuple:
        """The plan as the flat arrays the compiled kernel reads (built on first use)."""
        if self._kernel is None:
            from .kernel import pack

            self._kernel = pack(self)
        return self._kernel


def _depths(parents: list[int]) -> list[int]:
    """The depth of each moving body (parents come first, so one pass)."""
    none = len(parents)
    depth: list[int] = []
    for p in parents:
        depth.append(depth[p] + 1 if p != none else 0)
    return depth


def _jumps(parents: np.ndarray, depth: list[int]) -> list[tuple[int, np.ndarray]]:
    """The ancestor-pointer jumps of moving bodies sorted by `depth`: after jump k a body holds the
    product of its 2**(k+1) nearest local poses. Jump k moves the bodies at depth 2**k and more, a
    suffix of the bodies; one numpy call per jump (compiling a small model is mostly the fixed cost
    of such calls)."""
    count = len(parents)
    jumps: list[tuple[int, np.ndarray]] = []
    pointer = np.array([*parents.tolist(), count])
    reach = 1
    while count and reach <= depth[-1]:
        first = bisect_left(depth, reach)
        jumps.append((first, pointer[first:count].copy()))
        pointer = pointer[pointer]
        reach *= 2
    return jumps


class Kinematics:
    """The compiled kinematic tree of one model.

    `joint_names` are the joints that take a value (mimic followers and fixed joints do not),
    `layout[name]` their slice in a configuration vector of length `nq`, `reference` the vector
    at which the model stands as written. `names` lists the bodies, then the frames: the order
    of `Poses.array`.

    Bodies that no joint moves are folded away: each is its nearest moving ancestor (its
    "anchor") times a constant pose, and that constant is also folded into the local pose of
    moving bodies below it. Only the moving bodies form the tree that is walked.

    `backend` says what evaluates poses when asked for "auto": "numba" (the compiled kernel of
    the `robodesc[fast]` extra) when numba can be imported, else "numpy". Both give the same poses.
    """

    # poses too large to compose (a body at 1e308 under another, as MuJoCo loads it) make inf here as they
    # do in `evaluate`, which refuses them by name: no numpy warning from the compile either
    @np.errstate(all="ignore")
    def __init__(self, model: Model) -> None:
        joints = model.joints
        tree = _by_depth(list(model.bodies.values()))
        moving_joints, followers, source = self._lay_out(tree, joints)
        self._resolve_followers(followers, joints, source)
        anchor, prefix, moving, static = _anchors(model, tree, moving_joints)
        self.body_names = [b.name for b in moving + static]
        self.frame_names = list(model.frames)
        self.names = self.body_names + self.frame_names
        # a body keeps its name when a frame shares it; the frame stays reachable through Poses.frame
        self._frames = {name: len(self.body_names) + k for k, name in enumerate(self.frame_names)}
        self._index = {name: k for k, name in enumerate(self.body_names)}
        for name, k in self._frames.items():
            self._index.setdefault(name, k)
        position = self._index  # (a moving body's row is its position among the moving bodies)
        count = none = len(moving)  # index of the identity that stands for "no moving anchor"
        basis, src, mult, off, special = self._compile_moving(moving, moving_joints, prefix, source)

        # Static bodies and frames: world[anchor] @ constant, the constants multiplied out in stacked
        # products (the same products as one by one, without a numpy call for each)
        frames = list(model.frames.values())
        riding = [k for k, f in enumerate(frames) if moving_joints[f.body]]  # frames of moving bodies
        resting = [k for k, f in enumerate(frames) if not moving_joints[f.body]]
        held = static + [model.bodies[frames[k].body] for k in resting]
        fixed_pose = np.empty((len(static) + len(frames), 4, 4))
        if held or riding:  # (a small model often has neither static bodies nor frames: no numpy call then)
            # the prefixes and poses of the held bodies, then the frames' poses, in one numpy call (each part
            # a view of it, laid out as its own array would be: the products are the same)
            h, r = len(held), len(resting)
            stack = stacked(
                [
                    *(prefix[b.name] for b in held),
                    *(b.pose for b in held),
                    *(frames[k].pose for k in resting),
                    *(frames[k].pose for k in riding),
                ]
            )
            if held:
                placed = stack[:h] @ stack[h : 2 * h]
                fixed_pose[: len(static)] = placed[: len(static)]
                if resting:
                    fixed_pose[[len(static) + k for k in resting]] = placed[len(static) :] @ stack[2 * h : 2 * h + r]
            if riding:
                fixed_pose[[len(static) + k for k in riding]] = stack[2 * h + r :]
        # a moving anchor's row, or `none` for the world (None is not a body name: `get` gives `none`)
        anchors = [position.get(anchor[b.name], none) for b in static]
        anchors += [position[f.body] if moving_joints[f.body] else position.get(anchor[f.body], none) for f in frames]
        fixed_anchor = np.array(anchors, dtype=int)
        parents = [position.get(anchor[b.name], none) for b in moving]
        self._plan = _Plan(
            basis,
            np.array(src, dtype=int),
            np.array(mult, dtype=float),
            np.array(off, dtype=float),
            special,
            np.array(parents, dtype=int),
            (slice(0, count), slice(0, count)),
            (slice(count, len(self.names)), fixed_anchor, fixed_pose),
            len(self.names),
            every_value=True,
            lists=(src, mult, off, parents),
        )
        self._plans: OrderedDict[tuple, tuple[_Plan, list[str], dict[str, int], dict[str, int]]] = OrderedDict()
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        """Copies and pickles (a model is deep-copied with its compiled tree) leave out the lock and
        the cache of sub-plans, which are rebuilt on use."""
        state = self.__dict__.copy()
        del state["_lock"]
        state["_plans"] = OrderedDict()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    @property
    def _batch_jumps(self) -> bool:
        return self._plan.batch_jumps

    @property
    def backend(self) -> str:
        """What `backend="auto"` evaluates with: "numba" when the `robodesc[fast]` extra (numba) can
        be imported, else "numpy"."""
        return "numba" if _kernel_module() is not None else "numpy"

    def _lay_out(
        self, tree: list, joints: Mapping[str, Joint]
    ) -> tuple[dict[str, list[Joint]], list[Joint], dict[str, Any]]:
        """The configuration vector: the joints that take a value, in tree order, and their reference.
        Returns, from the same pass over the joints, each body's joints that move it (mimic followers
        included), the mimic followers in tree order, and where the values of the joints that take
        their own come from (see `_resolve_followers`, which adds the followers')."""
        self.joint_names: list[str] = []
        self.layout: dict[str, slice] = {}
        reference: list[float] = []
        sources: dict[str, Any] = {}
        moving_joints: dict[str, list[Joint]] = {}
        followers: list[Joint] = []
        for body in tree:
            moving_joints[body.name] = chain = []
            for jname in body.joints:
                joint = joints[jname]
                dof = JOINT_DOF[joint.type]
                if dof == 0:
                    continue
                chain.append(joint)
                if joint.mimic is not None:
                    followers.append(joint)
                    continue
                start = len(reference)
                self.layout[jname] = columns = slice(start, start + dof)
                if dof == 1:  # nearly all joints: no numpy call per joint
                    reference.append(_reference_scalar(joint))
                    sources[jname] = (start, 1.0, 0.0)
                else:
                    reference.extend(_reference_floats(joint))
                    sources[jname] = columns
                self.joint_names.append(jname)
        self.nq = len(reference)
        self.reference = np.array(reference, dtype=float)
        # for configurations given by joint name: the reference as a list, and the column of each
        # one-value joint, whose plain numbers go straight into that list (no numpy call per joint);
        # made on first such use, as evaluating from vectors, or batches, needs neither
        self._by_name: tuple[list[float], dict[str, int]] | None = None
        # the joints that take no value: fixed ones, mimic followers, and those off the tree (loop closures)
        self._ignored = joints.keys() - self.layout.keys()
        return moving_joints, followers, sources

    def _compile_moving(
        self,
        moving: list,
        moving_joints: Mapping[str, list[Joint]],
        prefix: Mapping[str, np.ndarray],
        source: Mapping[str, Any],
    ) -> tuple[np.ndarray, list[int], list[float], list[float], list]:
        """Moving bodies: four coefficient matrices of their local pose (prefix folded in), or the
        terms of a chain of joints ("special"), and each one's value source (column, multiplier,
        offset), as lists. The one-joint bodies, nearly all, are compiled together in a few batched
        numpy calls (see `_linear_bases`)."""
        count = len(moving)
        src = [self.nq] * count  # column nq of the extended values is always 0
        mult = [0.0] * count
        off = [0.0] * count
        linear: list[int] = []
        chained: list[int] = []
        for m, body in enumerate(moving):
            chain = moving_joints[body.name]
            if len(chain) == 1 and chain[0].type in _LINEAR_TYPES:
                linear.append(m)
                src[m], mult[m], off[m] = source[chain[0].name]
            else:
                chained.append(m)
        special = list(zip(chained, _chain_terms([moving[m] for m in chained], moving_joints, prefix, source)))
        bodies = [moving[m] for m in linear]
        parts = []
        for first in range(0, len(bodies), _COMPILE_CHUNK):  # work arrays that stay in cache
            part = bodies[first : first + _COMPILE_CHUNK]
            chains = [moving_joints[b.name][0] for b in part]
            parts.append(_linear_bases(chains, part, [prefix[b.name] for b in part]))
        if len(parts) > 1:
            bases = np.concatenate(parts)
        else:
            bases = parts[0] if parts else np.zeros((0, 4, 16))
        if len(linear) == count:
            basis = bases
        else:
            basis = np.zeros((count, 4, 16))
            if linear:  # rows in a run (one-joint bodies before or after the others) take a slice's copy
                run = linear[-1] - linear[0] == len(linear) - 1  # (rows increase: a run when they span no more)
                basis[slice(linear[0], linear[-1] + 1) if run else linear] = bases
        return basis, src, mult, off, special

    def _resolve_followers(self, followers: list[Joint], joints: Mapping[str, Joint], source: dict[str, Any]) -> None:
        """Adds to `source`, which says where the value of each joint that takes its own comes from,
        where the `followers` (the mimic followers on the tree, in tree order) take theirs: as for any
        one-valued joint, (column, multiplier, offset); a follower reads its (ultimate) leader's column."""
        zero = self.nq  # a column that always holds 0 (a fixed joint as leader)

        def resolve(joint: Joint) -> None:
            # Up the chain of leaders to a joint whose source is known, then back down: a loop, not
            # a recursion (a chain of mimics may be as long as the model), and no closure that
            # refers to itself (which would keep this compiled tree alive until the cyclic collector).
            chain: list[Joint] = []  # the followers met, each with its mimic
            links: list[Mimic] = []
            named: set[str] = set()
            while True:
                if joint.name in source:
                    base = source[joint.name]
                    break
                if joint.mimic is None:
                    sl = self.layout.get(joint.name)
                    if sl is None:  # a leader off the tree (a loop closure) takes no value: it is held at 0
                        base = (zero, 0.0, 0.0)
                    else:
                        base = (sl.start, 1.0, 0.0) if joint.dof == 1 else sl
                    source[joint.name] = base
                    break
                if joint.name in named:
                    raise ConfigurationError(
                        "mimic joints form a loop: " + " -> ".join([j.name for j in chain] + [joint.name]),
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
                chain.append(joint)
                links.append(joint.mimic)
                named.add(joint.name)
                if leader is None or leader.dof == 0:
                    base = (zero, 0.0, 0.0)
                    break
                joint = leader
            for follower, mimic in zip(reversed(chain), reversed(links)):
                column, mult, off = base
                m, o = mimic.multiplier, mimic.offset
                base = (column, m * mult, m * off + o)
                source[follower.name] = base

        for joint in followers:
            if joint.name not in source:  # (unless met as the leader of one resolved before)
                resolve(joint)

    # -- configuration handling ----------------------------------------------------------------
    def vector(self, positions: Mapping[str, Any] | Sequence[float] | np.ndarray | None) -> np.ndarray:
        """A configuration vector (nq,) from a mapping of joint values, a vector, or None."""
        if positions is None:
            return self.reference.copy()
        if type(positions) is np.ndarray and positions.dtype is _FLOAT and positions.shape == (self.nq,):
            return positions  # (as the conversion below would return it, without its cost)
        if not isinstance(positions, Mapping):
            q = _floats(positions, "the configuration vector")
            if q.shape != (self.nq,):
                raise ConfigurationError(f"expected a configuration vector of length {self.nq}, got shape {q.shape}")
            return q
        if self._by_name is None:
            starts = {name: sl.start for name, sl in self.layout.items() if sl.stop - sl.start == 1}
            self._by_name = (self.reference.tolist(), starts)
        reference, scalar = self._by_name
        values = reference.copy()
        for name, value in positions.items():
            # a plain number for a one-value joint goes straight in: np.asarray per joint cost more
            # than the whole evaluation; anything else (lists, arrays, bad keys) takes the checks below
            start = scalar.get(name)  # only str keys are in it: any other key takes the checks below
            if start is not None and type(value) in _NUMBERS:
                values[start] = value
                continue
            sl = self._slice(name)
            if sl is None:
                continue
            v = _floats(value, f"joint {name!r}").reshape(-1)
            if v.size != sl.stop - sl.start:
                raise ConfigurationError(f"joint {name!r} takes {sl.stop - sl.start} value(s), got {v.size}")
            values[sl] = v.tolist()
        return np.array(values, dtype=float)

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

    # -- what to compute -----------------------------------------------------------------------
    def _plan_for(
        self, bodies: Sequence[str] | None = None, frames: Sequence[str] | None = None
    ) -> tuple[_Plan, list[str], dict[str, int], dict[str, int]]:
        """The plan computing `bodies` (each resolved as `Poses[name]`: the body of that name, else the
        frame) and `frames` (each resolved as `Poses.frame(name)`), in that order; the whole model
        when both are None. Sub-plans are kept, by the names asked, in a small cache."""
        if bodies is None and frames is None:
            return self._plan, self.names, self._index, self._frames
        key = (_names_key(bodies), _names_key(frames))  # a list of str, as nearly always: no checks needed
        found = self._plans.get(key) if None not in key else None
        if found is not None:
            with self._lock:
                if key in self._plans:
                    self._plans.move_to_end(key)
            return found
        if isinstance(bodies, np.ndarray) and bodies.dtype.kind not in "US":
            raise InvalidArgument(
                f"bodies must be a list of body or frame names (str), not a {bodies.dtype} array",
                construct="bodies",
                suggestion="pass the array to fill by keyword: out=...",
            )
        wanted = () if bodies is None else tuple(names_argument(bodies, "bodies", "body or frame names"))
        wanted_frames = () if frames is None else tuple(names_argument(frames, "frames", "frame names"))
        key = (wanted, wanted_frames)
        with self._lock:
            found = self._plans.get(key)
            if found is not None:
                self._plans.move_to_end(key)
                return found
        rows = _rows_of(wanted, self._index, "body or frame") + _rows_of(wanted_frames, self._frames, "frame")
        found = (self._subplan(rows), [*wanted, *wanted_frames], {}, {})
        first_frame = len(self.body_names)
        for r, name in enumerate(wanted):
            found[2].setdefault(name, r)
            if rows[r] >= first_frame:  # no body has this name: it is the frame's
                found[3].setdefault(name, r)
        for r, name in enumerate(wanted_frames, start=len(wanted)):
            found[3].setdefault(name, r)
            found[2].setdefault(name, r)
        with self._lock:
            self._plans[key] = found
            while len(self._plans) > _PLAN_CACHE:
                self._plans.popitem(last=False)
        return found

    def _subplan(self, rows: list[int]) -> _Plan:
        """The plan that writes the full plan's `rows`, in that order, walking only their moving
        ancestors."""
        full = self._plan
        none = full.count
        parents = full.parents.tolist()
        fixed_anchor = full.fixed[1]
        needed: set[int] = set()
        for k in rows:
            m = k if k < none else int(fixed_anchor[k - none])
            while m != none and m not in needed:
                needed.add(m)
                m = parents[m]
        keep = np.array(sorted(needed), dtype=int)  # sorted: parents first, levels contiguous
        remap = np.full(none + 1, len(keep))
        remap[keep] = np.arange(len(keep))
        direct = [(r, k) for r, k in enumerate(rows) if k < none]
        fixed = [(r, k - none) for r, k in enumerate(rows) if k >= none]
        return _Plan(
            full.basis[keep],
            full.src[keep],
            full.mult[keep],
            full.off[keep],
            [(int(remap[m]), terms) for m, terms in full.special if m in needed],
            remap[full.parents[keep]],
            (np.array([r for r, _ in direct], dtype=int), remap[np.array([k for _, k in direct], dtype=int)]),
            (
                np.array([r for r, _ in fixed], dtype=int),
                remap[fixed_anchor[np.array([f for _, f in fixed], dtype=int)]],
                full.fixed[2][np.array([f for _, f in fixed], dtype=int)].reshape(-1, 4, 4),
            ),
            len(rows),
            batch_jumps=full.batch_jumps,
        )

    # -- evaluation -----------------------------------------------------------------------------
    def forward(
        self,
        positions: Mapping[str, Any] | Sequence[float] | np.ndarray | None = None,
        bodies: Sequence[str] | None = None,
        frames: Sequence[str] | None = None,
        backend: str = "auto",
    ) -> Poses:
        """Poses at one configuration: of every body and frame, or of `bodies` and `frames` only."""
        kernel = _kernel_for(backend)
        plan, names, index, frame_rows = self._plan_for(bodies, frames)
        q = self.vector(positions)
        if kernel is not None:
            out = np.empty((1, plan.rows, 4, 4))
            self._run_kernel(kernel, plan, q[None, :], out, names)
            return Poses(names, index, out[0], frame_rows)
        out = np.empty((plan.rows, 4, 4))
        if not _evaluate_single(plan, q, out):
            _check_values(q)
            self._check_finite(out[None], names)
        return Poses(names, index, out, frame_rows)

    def forward_batch(
        self,
        positions: Mapping[str, Any] | np.ndarray,
        out: np.ndarray | None = None,
        bodies: Sequence[str] | None = None,
        frames: Sequence[str] | None = None,
        backend: str = "auto",
    ) -> Poses:
        """Poses at N configurations. `out`, an (N, K, 4, 4) float array, is filled if given."""
        kernel = _kernel_for(backend)
        if out is not None and not isinstance(out, np.ndarray):
            raise InvalidArgument(f"out must be a numpy array (float64) or None, not {kind(out)}", construct="out")
        if out is not None and not out.flags.writeable:
            raise InvalidArgument("out must be a writeable array; this one is read-only", construct="out")
        plan, names, index, frame_rows = self._plan_for(bodies, frames)
        q = self.matrix(positions)
        shape = (q.shape[0], plan.rows, 4, 4)
        if out is None:
            self._check_batch_size(q.shape[0], plan.rows)
            out = np.empty(shape)
        elif out.shape != shape or out.dtype != np.float64:
            raise ConfigurationError(f"out must be a float64 array of shape {shape}, not {out.dtype} {out.shape}")
        if kernel is not None:
            # the kernel is compiled for C-ordered arrays: another `out` (a view) is filled by a copy
            target = out if out.flags.c_contiguous and out.flags.aligned else np.empty(shape)
            self._run_kernel(kernel, plan, q, target, names)
            if target is not out:
                out[...] = target
            return Poses(names, index, out, frame_rows)
        _check_values(q)
        count = q.shape[0]
        # no more workers than configurations, nor than chunks (a small batch asks nothing of the system)
        work = count * max(plan.rows, plan.count) // _THREAD_ELEMENTS
        workers = min(_cpu_count(), count, work) if work > 1 else 1
        if workers > 1:  # numpy releases the GIL in its loops, so the parts run on all cores
            bounds = [count * k // workers for k in range(workers + 1)]
            list(_pool().map(lambda k: _evaluate_rows(plan, q, out, bounds[k], bounds[k + 1]), range(workers)))
        elif count:
            _evaluate_rows(plan, q, out, 0, count)
        self._check_finite(out, names)
        return Poses(names, index, out, frame_rows)

    def _run_kernel(self, kernel: Any, plan: _Plan, q: np.ndarray, out: np.ndarray, names: list[str]) -> None:
        """Evaluate with the compiled kernel, which checks values and poses as it goes and reports
        what it found rather than raising: the errors are the numpy path's, word for word. A large
        batch is split over threads (the kernel releases the GIL)."""
        if not (q.flags.c_contiguous and q.flags.writeable and q.flags.aligned):
            q = np.array(q, order="C")  # the one layout the kernel is compiled for: no JIT for another
        arrays = plan.kernel_arrays()
        count = q.shape[0]
        work = count * max(plan.rows, plan.count) // _KERNEL_ELEMENTS
        workers = min(_cpu_count(), count, work) if work > 1 else 1  # no system call for small work
        if workers > 1:
            bounds = np.linspace(0, count, workers + 1).astype(int).tolist()
            found = set(
                _pool().map(
                    lambda k: kernel.forward(q[bounds[k] : bounds[k + 1]], out[bounds[k] : bounds[k + 1]], *arrays),
                    range(workers),
                )
            )
        else:
            found = {kernel.forward(q, out, *arrays)}
        # reported in the order the numpy path finds them: values first, then quaternions, then poses
        if kernel.NOT_FINITE in found:
            raise ConfigurationError("joint values must be finite numbers")
        if kernel.ZERO_QUATERNION in found:
            raise ConfigurationError("a ball or floating joint was given a zero quaternion")
        if kernel.OVERFLOW in found:  # rows up to the first overflow in each part are written: that is enough
            self._check_finite(out, names)

    def _check_finite(self, out: np.ndarray, names: list[str]) -> None:
        """Refuse poses that overflowed (joint values or offsets near 1e308). Finite joint values give
        finite rotations, so only the positions need looking at."""
        positions = out[..., :3, 3]
        if np.isfinite(positions).all():
            return
        bad = ~np.isfinite(positions).all(axis=-1)
        if bad.any():
            row, body = (int(i[0]) for i in np.nonzero(bad))
            where = f"configuration {row}: " if out.shape[0] > 1 else ""
            raise ConfigurationError(
                f"{where}the pose of {names[body]!r} is not finite: these joint values (with the "
                "model's offsets) are too large to compose",
                construct=names[body],
                suggestion="give joint values of a physical size",
            )

    def _check_batch_size(self, count: int, rows: int | None = None) -> None:
        """Refuse, before allocating anything, a batch whose poses and configurations would not fit
        in this machine's memory: numpy would fail late with a bare MemoryError, or the system would
        start swapping or kill the process part-way through."""
        rows = len(self.names) if rows is None else rows
        needed = count * (rows * 16 + self.nq + 1) * 8  # poses, configurations (float64)
        available = _memory_bytes()
        if available is not None and needed > available:
            raise ConfigurationError(
                f"a batch of {count:,} configurations needs {needed / 2**30:,.1f} GiB for its configurations and "
                f"poses ({rows} bodies and frames, 4x4 float64 each), more than this machine's "
                f"{available / 2**30:,.1f} GiB of memory",
                construct="positions",
                suggestion="evaluate the configurations in smaller batches, reusing one array with out=",
            )


def _evaluate_rows(plan: _Plan, q: np.ndarray, out: np.ndarray, start: int, stop: int) -> None:
    """Rows start:stop of a batch, in chunks small enough to stay in cache, reusing one workspace."""
    step = max(1, _CHUNK_ELEMENTS // max(1, plan.rows, plan.count))
    workspace = None
    with np.errstate(all="ignore"):  # an overflow is refused by the caller, by name
        for first in range(start, stop, step):
            last = min(stop, first + step)
            if workspace is None or len(workspace.values) != last - first:
                workspace = _workspace(plan, last - first, q.shape[1])
            _evaluate(plan, q[first:last], out[first:last], workspace)


def _rows_of(names: Sequence[str], table: Mapping[str, int], what: str) -> list[int]:
    """The rows of `names` in `table`; an unknown name is refused, with the nearest known ones."""
    rows = []
    for name in names:
        k = table.get(name)
        if k is None:
            raise UnresolvedReference(f"no {what} named {name!r}", construct=name, suggestion=did_you_mean(name, table))
        rows.append(k)
    return rows


def _names_key(names: Any) -> tuple[str, ...] | None:
    """`names` as a cache key when it is None, or a list or tuple of str; None when it needs checking."""
    if names is None:
        return ()
    if type(names) in (list, tuple) and all(type(n) is str for n in names):
        return tuple(names)
    return None


def _workspace(plan: _Plan, n: int, nq: int) -> _BatchWorkspace:
    """The workspace for n configurations, reused chunk after chunk and kept per thread from call
    to call: fresh arrays each call cost a page fault per 4 KiB, as much as the evaluation itself
    for a few hundred configurations. A small batch's is the plan's own, set up once (as one
    configuration's is); a larger one's arrays are carved from one buffer per thread, whatever the
    plan, so that what is kept is at most one chunk's worth."""
    kept = n * max(1, plan.count) <= _KEPT_ELEMENTS
    if kept:
        work = getattr(plan.workspaces(), "batch", None)
        if work is not None and work.values.shape == (n, nq + 1):
            return work
    work = _BatchWorkspace(plan, n, nq, kept)
    if kept:
        plan.workspaces().batch = work
    return work


class _BatchWorkspace:
    """Arrays for n configurations of a plan, and the views of them each step reads and writes,
    made once (making a view costs as much as a few products): their own arrays when `own`, else
    views of this thread's scratch buffer."""

    def __init__(self, plan: _Plan, n: int, nq: int, own: bool) -> None:
        count = plan.count
        sizes = [n * (nq + 1), n * count * 4, n * count * 16, n * (count + 1) * 16]
        buffer = np.empty(sum(sizes)) if own else _scratch(sum(sizes))
        values, coef, local, world = np.split(buffer, np.cumsum(sizes[:-1]).tolist())
        self.values = values.reshape(n, nq + 1)
        self.values[:, nq] = 0.0  # the value of "no joint"
        self.coef = coef.reshape(n, count, 1, 4)
        self.coef[..., 0, 0] = 1.0
        self.sin, self.cos, self.value = self.coef[..., 0, 1], self.coef[..., 0, 2], self.coef[..., 0, 3]
        self.local_flat, self.local = local.reshape(n, count, 1, 16), local.reshape(n, count, 4, 4)
        self.world = world.reshape(n, count + 1, 4, 4)
        self.world[:, count] = IDENTITY  # index `count` stands for "no moving anchor"
        # per level: the parents' rows to take from the world poses, or None for consecutive rows
        # read as a view (which then stands for the world poses), and the level's local and world poses;
        # none for a plan whose batches walk by jumps (a deep tree), which never reads them
        self.levels = [
            (None, self.world[:, parents], self.local[:, run], self.world[:, run])
            if isinstance(parents, slice)
            else (parents, self.world, self.local[:, run], self.world[:, run])
            for run, parents in ([] if plan.batch_jumps else plan.levels)
        ]


_SCRATCH = threading.local()  # per thread: the buffer that batch workspaces are carved from


def _scratch(size: int) -> np.ndarray:
    """`size` floats of this thread's scratch buffer, kept from call to call (grown when a plan needs more)."""
    buffer = getattr(_SCRATCH, "buffer", None)
    if buffer is None or len(buffer) < size:
        buffer = _SCRATCH.buffer = np.empty(size)
    return buffer[:size]


def _pick(array: np.ndarray, index: np.ndarray | slice, axis: int = 0) -> np.ndarray:
    """`array`'s entries `index` along `axis`: a view for a slice, else a copy by `take`, which
    costs a third of what indexing with an array does (as much as the products, for a few poses)."""
    if isinstance(index, slice):
        return array[(slice(None),) * axis + (index,)]
    return array.take(index, axis=axis)


class _OneWorkspace:
    """One thread's arrays for one configuration of a plan, and the views and row numbers that each
    step reads and writes, made once (making a view costs as much as a small product).

    The pointer jumps write into two world arrays in turn (a product written over its own operand
    costs numpy a copy). A jump writes only the bodies it moves; the others keep their pose in the
    array last written for them, and every read (a jump's ancestors, the output rows, the anchors of
    fixed rows) takes each row from that array, through the two arrays seen as one: no copy carries
    the finished rows over from one array to the other."""

    def __init__(self, plan: _Plan, nq: int) -> None:
        count = plan.count
        self.values = np.zeros(nq + 1)  # the last entry stays 0: the value of "no joint"
        self.coef = np.empty((count, 1, 4))
        self.coef[:, 0, 0] = 1.0
        self.sin, self.cos, self.value = self.coef[:, 0, 1], self.coef[:, 0, 2], self.coef[:, 0, 3]
        worlds = np.empty((2, count + 1, 4, 4))
        worlds[:, count] = IDENTITY  # index `count` stands for "no moving anchor"
        self.local, self.local_flat = worlds[0], worlds[0, :count].reshape(count, 1, 16)  # local poses, jumped in turn
        self.both = worlds.reshape(2 * (count + 1), 4, 4)
        latest = np.arange(count + 1)  # each row's place in `both`: where its pose was last written
        self.jumps = []
        for k, (first, pointer) in enumerate(plan.jumps):
            read, write = worlds[k % 2], worlds[1 - k % 2]  # the moved bodies were last written in `read`
            self.jumps.append((latest[pointer], read[first:count], write[first:count]))
            latest[first:count] += (count + 1) * (1 - 2 * (k % 2))
        self.direct = latest[plan.direct[1]]  # the output rows' and fixed rows' anchors' places in `both`
        self.anchors = latest[plan.fixed[1]]


@np.errstate(all="ignore")  # an overflow is refused by the caller, by name, not as a numpy warning
def _evaluate_single(plan: _Plan, q: np.ndarray, out: np.ndarray) -> bool:
    """World poses of the plan's rows for one configuration q (nq,), written into out (rows, 4, 4);
    True when they are finite.

    `_evaluate` for one configuration, in as few numpy calls as it can be (their fixed cost is
    nearly all of the time): a workspace kept per thread, the joint values gathered straight into
    the coefficients and the local poses written straight into the world array, the columns read
    as they are when no mimic needs scaling. The poses are those of the pointer jumps `_evaluate`
    makes in a deep tree. One sum each for the values and the poses tells whether they are finite
    (they are unless something is not, or they are huge), and the caller makes the exact checks
    only when not. (errstate as a decorator costs half what a `with` block does.)"""
    if not plan.shows_bad_values and not math_isfinite(np.add.reduce(q, None)):
        _check_values(q)
    single = plan._single or plan.workspaces()  # (the call only the first time)
    work = getattr(single, "workspace", None)
    if work is None or len(work.values) != len(q) + 1:
        work = single.workspace = _OneWorkspace(plan, len(q))
    value = work.value
    if plan.plain and plan.columns <= len(q):
        q.take(plan.src, out=value, mode="clip")  # (every column is in range: no check needed)
    else:
        work.values[:-1] = q
        np.multiply(work.values.take(plan.src), plan.mult, out=value)
        np.add(value, plan.off, out=value)
    np.sin(value, out=work.sin)
    np.cos(value, out=work.cos)
    np.subtract(1.0, work.cos, out=work.cos)
    np.matmul(work.coef, plan.basis, out=work.local_flat)
    if plan.special:
        qext = work.values
        qext[:-1] = q
        for m, terms in plan.special:
            acc = None
            for joint, pre, post, src in terms:
                if isinstance(src, slice):
                    values = qext[None, src]
                else:
                    values = np.array([[qext[src[0]] * src[1] + src[2]]])
                term = pre @ _motions(joint.type, [joint], values[:, None, :])[0, 0] @ post
                acc = term if acc is None else acc @ term
            work.local[m] = acc
    both = work.both
    for ancestors, tail, written in work.jumps:
        np.matmul(both.take(ancestors, axis=0), tail, out=written)
    rows, _ = plan.direct
    if isinstance(rows, slice):
        both.take(work.direct, axis=0, out=out[rows], mode="clip")  # (unbuffered: rows in range)
    else:
        out[rows] = both.take(work.direct, axis=0)
    rows, anchors, poses = plan.fixed
    if len(anchors):
        if isinstance(rows, slice):
            np.matmul(both.take(work.anchors, axis=0), poses, out=out[rows])
        else:
            out[rows] = both.take(work.anchors, axis=0) @ poses
    # the poses' squares summed (by a dot product, a third cheaper than a sum): finite unless a pose
    # is not, or a position is beyond 1e150, when the caller makes the exact checks
    return math_isfinite(np.vdot(out, out))


def _evaluate(plan: _Plan, q: np.ndarray, out: np.ndarray, work: _BatchWorkspace) -> None:
    """World poses of the plan's rows for configurations q (n, nq), written into out."""
    count = plan.count
    qext, world = work.values, work.world
    if plan.special or not plan.plain or plan.columns > q.shape[1]:
        qext[:, : q.shape[1]] = q
    if plan.plain and plan.columns <= q.shape[1]:  # the columns as they are, as for one configuration
        qb = q[:, plan.src]
    else:
        qb = qext[:, plan.src] * plan.mult + plan.off
    np.sin(qb, out=work.sin)
    np.cos(qb, out=work.cos)
    np.subtract(1.0, work.cos, out=work.cos)
    np.copyto(work.value, qb)
    np.matmul(work.coef, plan.basis, out=work.local_flat)
    for m, terms in plan.special:
        acc = None
        for joint, pre, post, src in terms:
            if isinstance(src, slice):
                values = qext[:, src]
            else:
                values = (qext[:, src[0]] * src[1] + src[2])[:, None]
            term = pre @ _motions(joint.type, [joint], values[:, None, :])[:, 0] @ post
            acc = term if acc is None else acc @ term
        work.local[:, m] = acc
    if plan.batch_jumps:
        world[:, :count] = work.local
        for first, pointer in plan.jumps:
            world[:, first:count] = world.take(pointer, axis=1) @ world[:, first:count]
    else:
        for parents, source, local, written in work.levels:
            np.matmul(source if parents is None else source.take(parents, axis=1), local, out=written)
    rows, sources = plan.direct
    out[:, rows] = _pick(world, sources, axis=1)
    rows, anchors, poses = plan.fixed
    if len(anchors):
        if isinstance(rows, slice):
            np.matmul(world.take(anchors, axis=1), poses, out=out[:, rows])
        else:
            out[:, rows] = world.take(anchors, axis=1) @ poses


_KERNEL: list[Any] = []  # the compiled kernel's module once looked for, or None when numba is missing
_KERNEL_PROBLEM: list[str] = []  # why numba could not be used, when it could not


def _kernel_module() -> Any:
    """robodesc.core.kernel (which imports numba) when numba can be imported, else None; looked for
    once, on first use, never at `import robodesc`."""
    if not _KERNEL:
        try:
            from . import kernel
        except Exception as error:  # numba missing, or installed but unusable (built for another numpy, ...)
            _KERNEL.append(None)
            _KERNEL_PROBLEM.append(f"{type(error).__name__}: {error}")
        else:
            _KERNEL.append(kernel)
    return _KERNEL[0]


def _kernel_for(backend: Any) -> Any:
    """The kernel module for `backend`, None for numpy; "numba" without numba is an error saying how to get it."""
    if not isinstance(backend, str) or backend not in _BACKENDS:
        raise InvalidArgument(f"backend must be 'auto', 'numpy' or 'numba', not {kind(backend)}", construct="backend")
    if backend == "numpy":
        return None
    kernel = _kernel_module()
    if kernel is None and backend == "numba":
        why = f" ({_KERNEL_PROBLEM[0][:200]})" if _KERNEL_PROBLEM else ""
        raise MissingDependency(
            f"backend='numba' needs numba, which cannot be imported here{why}",
            package="numba",
            extra="fast",
            construct="backend",
            suggestion='pip install "robodesc[fast]"',
        )
    return kernel


def _check_values(q: np.ndarray) -> None:
    """Refuse joint values that are not finite."""
    if not np.isfinite(q).all():
        raise ConfigurationError("joint values must be finite numbers")


def _floats(value: Any, what: str) -> np.ndarray:
    """`value` as a float array, or a ConfigurationError naming `what`."""
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ConfigurationError(f"{what} was given {value!r}, which is not made of numbers") from None


@cache
def _memory_bytes() -> int | None:
    """The machine's physical memory in bytes, None where the system cannot say (looked up once:
    two system calls cost as much as evaluating a small batch)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # not a POSIX system
        return None


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


_POOL: list[ThreadPoolExecutor] = []  # the threads that large batches are split over, once made
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    """The threads that large batches are split over, one per core: made on first need (a process
    that evaluates no large batch starts none) and kept, as starting threads for every call cost
    about 0.2 ms. Batches asked for at once from several threads queue their parts on it; each of
    its threads keeps its scratch buffer (at most one chunk's worth) from call to call, as the
    caller's thread does. Its threads are joined at exit, as every ThreadPoolExecutor's are.
    (concurrent.futures, and the logging it imports, are imported only then, not with robodesc.)"""
    if not _POOL:
        with _POOL_LOCK:
            if not _POOL:
                from concurrent.futures import ThreadPoolExecutor

                _POOL.append(ThreadPoolExecutor(_cpu_count(), thread_name_prefix="robodesc-kinematics"))
    return _POOL[0]


def _forget_pool() -> None:
    """In a forked child, which has none of its parent's threads: the next large batch makes a pool of its own."""
    global _POOL_LOCK
    _POOL.clear()
    _POOL_LOCK = threading.Lock()  # (the parent's may have been held by another thread at the fork)


if hasattr(os, "register_at_fork"):  # (POSIX)
    os.register_at_fork(after_in_child=_forget_pool)


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
    return _in_depth_order(bodies, depth)


def _in_depth_order(bodies: list, depth: Mapping[str, int]) -> list:
    """`bodies` by `depth[name]`, stable: one bucket per depth, a pass each way (linear, where a sort
    is not, and cheaper than a sort's key calls). A body is at most one deeper than those before it."""
    levels: list[list] = []
    for body in bodies:
        d = depth[body.name]
        if d == len(levels):
            levels.append([])
        levels[d].append(body)
    return levels[0] if len(levels) == 1 else [body for level in levels for body in level]


def _anchors(
    model: Model, tree: list, moving_joints: Mapping[str, list[Joint]]
) -> tuple[dict[str, str | None], dict[str, np.ndarray], list, list]:
    """Every body's nearest moving ancestor (its "anchor", None for the world) and the constant product
    from the anchor to the body's parent frame: pose = world[anchor] @ prefix @ local. Children of one
    static body share their prefix, made once (a fixed link often carries several). Also, from the
    same pass, the moving bodies sorted by depth in the tree of moving bodies only (stable), and the
    static bodies in tree order."""
    anchor: dict[str, str | None] = {}
    prefix: dict[str, np.ndarray] = {}
    below: dict[str, np.ndarray] = {}  # prefix[P] @ P.pose, for each static body P with children
    depth: dict[str, int] = {}  # of moving bodies, among moving bodies
    moving: list = []
    static: list = []
    for body in tree:
        name, parent = body.name, body.parent
        if parent is None:
            up, prefix[name] = None, IDENTITY  # read-only, shared: prefixes are only multiplied
        elif moving_joints[parent]:
            up, prefix[name] = parent, IDENTITY
        else:
            up = anchor[parent]
            shared = below.get(parent)
            if shared is None:
                shared = below[parent] = prefix[parent] @ np.asarray(model.bodies[parent].pose, dtype=float)
            prefix[name] = shared
        anchor[name] = up
        if moving_joints[name]:
            depth[name] = depth[up] + 1 if up is not None else 0
            moving.append(body)
        else:
            static.append(body)
    return anchor, prefix, _in_depth_order(moving, depth), static


def _chain_terms(
    bodies: Sequence[Any],
    moving_joints: Mapping[str, list[Joint]],
    prefix: Mapping[str, np.ndarray],
    source: Mapping[str, Any],
) -> list[list[tuple[Joint, np.ndarray, np.ndarray, Any]]]:
    """The terms (joint, pre, post, value source) of bodies whose local pose is a chain of joint
    motions, pre M(q) post per joint: pre = origin M(ref)^-1 (the body's prefix folded into its
    first), post = origin^-1 (the body's pose folded into its last).

    The motions at the reference, their inverses and the products with the origins are made for
    all such joints at once (one batch per joint type): a car's four wheel joints cost a few numpy
    calls together, not a few dozen each. Each matrix is the product it was one by one."""
    joints = [joint for body in bodies for joint in moving_joints[body.name]]
    if not joints:
        return []
    of_type: dict[JointType, list[int]] = {}
    for k, joint in enumerate(joints):
        of_type.setdefault(joint.type, []).append(k)

    def at_reference(joint_type: JointType, typed: list[Joint]) -> np.ndarray:
        values = np.array([reference_value(j) for j in typed]).reshape(1, len(typed), -1)
        return _motions(joint_type, typed, values)[0]

    undone: np.ndarray  # M(ref)^-1
    shifts = [_rest_shift(joint) for joint in joints]
    if None not in shifts:  # as usual: M(ref) is a translation (or I), bit for bit, and so is its inverse
        if any(shift is not _UNMOVED for shift in shifts):
            undone = np.empty((len(joints), 4, 4))
            undone[:] = IDENTITY
            undone[:, :3, 3] = [[0.0 - v for v in shift] for shift in shifts if shift is not None]
        else:  # all I (a car's wheels): one, broadcast in the product, which numpy makes matrix by matrix as before
            undone = IDENTITY
    elif len(of_type) == 1:  # joints of one type: their motions as they come
        undone = np.linalg.inv(at_reference(joints[0].type, joints))
    else:
        motions = np.empty((len(joints), 4, 4))
        for joint_type, group in of_type.items():
            motions[group] = at_reference(joint_type, [joints[k] for k in group])
        undone = np.linalg.inv(motions)
    # the origins, the bodies' prefixes and their poses in one numpy call (each a view of it, laid out as
    # its own array would be: the products are the same)
    count = len(joints)
    ahead = [prefix[body.name] for body in bodies]
    one = _shared(ahead)
    ahead = ahead if one is None else [one]
    stack = stacked([*(j.origin for j in joints), *(body.pose for body in bodies), *ahead])
    origins, poses = stack[:count], stack[count : count + len(bodies)]
    prefixes = stack[count + len(bodies) :] if one is None else stack[count + len(bodies)]
    pres = origins @ undone
    posts = np.empty_like(origins)  # origin^-1, rigid: (R^T, -R^T t), as `invert_pose` makes it
    turned = origins[:, :3, :3].transpose(0, 2, 1)
    posts[:, :3, :3] = turned
    posts[:, :3, 3:4] = -turned @ origins[:, :3, 3:4]
    firsts = [0] * len(bodies)  # each body's first term
    for b in range(1, len(bodies)):
        firsts[b] = firsts[b - 1] + len(moving_joints[bodies[b - 1].name])
    if count == len(bodies):  # a joint per body, as usual: no rows to pick
        pres = prefixes @ pres
        posts = posts @ poses
    else:
        lasts = [first - 1 for first in firsts[1:]] + [count - 1]
        pres[firsts] = prefixes @ pres[firsts]
        posts[lasts] = posts[lasts] @ poses
    pres[:, 3] = posts[:, 3] = _LAST_ROWS[0]  # rigid: last rows exactly so, as in `_linear_bases`
    return [
        [(joint, pres[k], posts[k], source[joint.name]) for k, joint in enumerate(moving_joints[body.name], first)]
        for body, first in zip(bodies, firsts)
    ]


#: Joint types whose motion is rotations only: I + sin q K + (1 - cos q) K^2 per axis
_TURNING = (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.UNIVERSAL, JointType.REVOLUTE2)
_MODEST = 1e100  # an axis entry below this keeps K^2 finite


def _rest_shift(joint: Joint) -> list[float] | None:
    """The translation t when `_motions` gives exactly [[I, t], [0, 1]] (every bit) for `joint` at its
    reference, so that its LAPACK inverse is [[I, 0.0 - t], [0, 1]] and neither needs computing (a
    car's wheels, a ball joint, a free body's floating joint); None when it may not.

    A turning joint at +0.0 (not -0.0) about axes whose K and K^2 are finite gives I (the sine and
    1 - cos of +0.0 are +0.0, and I + 0 K + 0 K^2 is I whatever the zeros' signs); a ball or floating
    joint at the unit quaternion (1, +0, +0, +0) gives I, and a floating joint's finite position
    without a -0.0 moves it by t. Then the LU factors are the matrix and I, every step of the solve
    is exact, and no zero is negated on the way. A slider's translation, axis times 0, may hold -0.0:
    not here.
    """
    kind = joint.type
    if kind in _TURNING:
        if not _modest(joint.axis) or (joint.axis2 is not None and not _modest(joint.axis2)):
            return None
    elif kind is not JointType.BALL and kind is not JointType.FLOATING:
        return None
    ref = joint.reference
    if type(ref) in _NUMBERS:  # (a plain number: the joint's value, or for a joint of more values its identity)
        return _UNMOVED if JOINT_DOF[kind] != 1 or (ref == 0 and math_copysign(1.0, ref) > 0) else None
    values = _reference_floats(joint)
    shift = _UNMOVED
    if kind is JointType.FLOATING:
        shift, values = values[:3], values[3:]
        if not all(math_isfinite(v) and (v < 0 or math_copysign(1.0, v) > 0) for v in shift):
            return None
    rest = _UNIT_QUATERNION if kind is JointType.BALL or kind is JointType.FLOATING else [0.0] * len(values)
    return shift if values == rest and all(math_copysign(1.0, v) > 0 for v in values) else None


_UNMOVED = [0.0, 0.0, 0.0]
_UNIT_QUATERNION = [1.0, 0.0, 0.0, 0.0]


def _shared(prefixes: Sequence[np.ndarray]) -> np.ndarray | None:
    """The one prefix of all `prefixes` when they are one object, else None. Children of one static
    body share its prefix (a car's wheels on its chassis): stacked once and broadcast, which
    multiplies each matrix as the stacked copies did (numpy multiplies matrix by matrix either way),
    without converting the same 4x4 again for each body."""
    first = prefixes[0] if prefixes else None
    for p in prefixes:
        if p is not first:
            return None
    return first


def _modest(axis: Any) -> bool:
    """Whether `axis` is a float 3-vector of finite entries small enough for K^2 to be finite."""
    if type(axis) is not np.ndarray or axis.dtype is not _FLOAT or axis.shape != (3,):
        return False
    x, y, z = axis.tolist()  # (unrolled: a generator costs more than the comparisons, per joint of every load)
    return -_MODEST < x < _MODEST and -_MODEST < y < _MODEST and -_MODEST < z < _MODEST  # (NaN fails both)


def _linear_bases(joints: Sequence[Joint], bodies: Sequence[Any], prefixes: Sequence[np.ndarray]) -> np.ndarray:
    """The (L, 4, 16) matrices B_k of L one-joint bodies at once, with local(q) = B_0 + sin q B_1 +
    (1 - cos q) B_2 + q B_3 and each body's constant prefix folded in.

    The joint motion is M(q) = I + sin q K + (1 - cos q) K^2 + q T (Rodrigues' formula for the
    rotation, T the translation per unit value); local = prefix origin M(ref)^-1 M(q) origin^-1 pose.
    Compiled for all bodies together in a handful of batched numpy calls (a loop over bodies
    spent ~150 us on each), with E_K's zero rows and columns left out of the products and no
    prefix product where every prefix is the identity.
    """
    count = len(joints)
    if not count:
        return np.zeros((0, 4, 16))
    axes = stacked([j.axis for j in joints], (3,))
    kinds = [j.type for j in joints]
    signed = np.zeros((count, 7))  # the axis, its negation and a zero: what K's entries are picked from
    signed[:, :3] = axes
    np.negative(axes, out=signed[:, 3:6])
    t = np.zeros((count, 3))  # T: the translation per unit value
    # sliders and screws are rare: most models skip their numpy calls
    if JointType.PRISMATIC in kinds:
        rows = [m for m, kind in enumerate(kinds) if kind is JointType.PRISMATIC]
        # a run of rows (a model's sliders listed together) as a slice: a view, where a mask or a list copies
        prismatic = slice(rows[0], rows[-1] + 1) if rows[-1] - rows[0] == len(rows) - 1 else rows
        signed[prismatic] = 0.0  # (a slider turns nothing: K = 0)
        t[prismatic] = axes[prismatic]
    if JointType.SCREW in kinds:
        screw = np.array([kind is JointType.SCREW for kind in kinds], dtype=bool)
        t[screw] = axes[screw] * np.array([j.pitch for j in joints], dtype=float)[screw, None]
    flat = np.empty((count, 2, 9))  # K, the cross-product matrix of the axis, and K^2
    signed.take(_CROSS, axis=1, out=flat[:, 0], mode="clip")
    powers = flat.reshape(count, 2, 3, 3)
    k = powers[:, 0]
    kk = np.matmul(k, k, out=powers[:, 1])
    # the origins, the bodies' poses and, unless all are the identity, their prefixes, in one numpy call
    # (each a view of it, laid out as its own array would be: the products are the same); one prefix
    # when all are one (those of the moving children of one static body: see `_shared`)
    prefix = _shared(prefixes)
    prefixed = prefix is not IDENTITY  # (URDF bodies below a moving one have none)
    stack = stacked(
        [
            *(j.origin for j in joints),
            *(b.pose for b in bodies),
            *(prefixes if prefix is None else (prefix,) * prefixed),
        ]
    )
    origins, poses = stack[:count], stack[count : 2 * count]
    refs = [_reference_scalar(j) for j in joints]
    if any(refs):  # M(ref)^-1 is the identity for every joint at 0, as nearly all are: no inverse then
        weights = np.array([[math_sin(r), 1.0 - math_cos(r), r] for r in refs]).reshape(count, 3, 1, 1)
        at_ref = np.zeros((count, 4, 4))  # M(ref)
        at_ref[:, :3, :3] = np.eye(3) + weights[:, 0] * k + weights[:, 1] * kk
        at_ref[:, :3, 3] = weights[:, 2, 0] * t
        at_ref[:, 3, 3] = 1.0
        pre = origins @ np.linalg.inv(at_ref)
    else:
        pre = origins
    if prefixed:
        pre = (stack[2 * count :] if prefix is None else stack[2 * count]) @ pre
    undo = np.zeros((count, 4, 4))  # origin^-1, rigid: (R^T, -R^T t)
    undo[:, :3, :3] = origins[:, :3, :3].transpose(0, 2, 1)
    np.negative((undo[:, :3, :3] @ origins[:, :3, 3:4])[..., 0], out=undo[:, :3, 3])
    undo[:, 3, 3] = 1.0
    post = undo @ poses
    # B_k = pre E_k post, E_k = I, K, K^2 (in the rotation block) and T (in the translation column),
    # each product written straight into place, K's and K^2's in the same calls
    terms = np.empty((count, 4, 4, 4))
    np.matmul(pre, post, out=terms[:, 0])
    left, right = pre[:, None, :, :3], post[:, None, :3, :]
    np.matmul(left @ powers, right, out=terms[:, 1:3])
    np.multiply(left[:, 0] @ t[:, :, None], post[:, 3:4, :], out=terms[:, 3])
    bases = terms.reshape(count, 4, 16)
    # local poses are rigid: their last row is (0, 0, 0, 1) exactly, not to within an inverse's rounding
    bases[:, :, 12:] = _LAST_ROWS
    return bases


def _reference_scalar(joint: Joint) -> float:
    """The reference of a one-value joint as a float (0 when unset or mis-sized), without numpy for a plain number."""
    ref = joint.reference
    if type(ref) in _NUMBERS:
        return float(ref)
    return float(reference_value(joint)[0])


def joint_motion(joint: Joint, value: Any) -> np.ndarray:
    """M(q): the 4x4 motion of `joint` at `value`, in its joint frame, exactly as forward kinematics
    applies it (see robodesc.core.model). Writers use it to place joints and helper links, so every
    joint type's motion has one definition."""
    return _motions(joint.type, [joint], np.asarray(value, dtype=float).reshape(1, 1, -1))[0, 0]


def reference_value(joint: Joint) -> np.ndarray:
    """The joint's reference as a flat vector of its value size (identity value if unset or mis-sized)."""
    ref = np.atleast_1d(np.asarray(joint.reference, dtype=float)).reshape(-1)
    return ref if ref.size == joint.dof else default_value(joint)


def _reference_floats(joint: Joint) -> list[float]:
    """`reference_value(joint).tolist()`, without numpy's conversions when the reference is a plain
    number or a float vector (as readers set it): compiling a small model is mostly the fixed cost
    of such calls."""
    ref = joint.reference
    if type(ref) in _NUMBERS:
        return [float(ref)] if JOINT_DOF[joint.type] == 1 else _identity_floats(joint)
    if type(ref) is np.ndarray and ref.dtype is _FLOAT and ref.ndim == 1:  # (a free joint's, as readers make it)
        return ref.tolist() if len(ref) == JOINT_DOF[joint.type] else _identity_floats(joint)
    return reference_value(joint).tolist()


def default_value(joint: Joint) -> np.ndarray:
    """The identity value of a joint: zeros, or a unit quaternion for ball/floating joints."""
    return np.array(_identity_floats(joint), dtype=float)


def _identity_floats(joint: Joint) -> list[float]:
    """The identity value of a joint, as a list (see `default_value`)."""
    if joint.type is JointType.BALL:
        return [1.0, 0.0, 0.0, 0.0]
    if joint.type is JointType.FLOATING:
        return [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    return [0.0] * JOINT_DOF[joint.type]
