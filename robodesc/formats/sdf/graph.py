"""libsdformat's frame semantics: the pose relative-to graph and the frame attached-to graph.

A `Scope` is one model (or the world) with its implicit and explicit frames:

* `__model__` (or `world`), the scope's own frame and the root of its poses;
* every link, joint and `<frame>`, and every nested model (its `__model__` frame), by name;
* the frames of nested models, reached with scoped names (``nested::link``).

`pose(path)` is a frame's pose in the scope's root frame, following `relative_to` (defaults:
`__model__` for links and nested models, the child frame for joints, the `attached_to` frame for
frames). `attached(path)` follows the attached-to edges (a joint to its child, a frame to its
`attached_to`, `__model__` to the canonical link) down to a link, the world, or a static model.
Loops in either graph and names that match nothing are errors, as in libsdformat.

A model's scope depends only on its parsed form, so it is built once and shared by every
instance of that model (an include repeated a thousand times resolves its frames once).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from ...core.errors import (
    CyclicAttachment,
    CyclicPoseReference,
    InvalidTree,
    Location,
    UnresolvedReference,
    did_you_mean,
)
from ...core.transforms import IDENTITY, invert_pose, pose_from_xyz_rpy
from .desc import Instance, ModelDesc, Where, WorldDesc, located

#: (read only) the identity `times` knows without a look at its bytes: shared with the builder, whose top
#: pose it is when the top model or world sits at the origin (most do)
_I4 = IDENTITY
#: `invert_pose(_I4)`, the placement of every nested model placed by its own frame (most are), inverted once
_I4_INVERTED = invert_pose(_I4)
_I4_INVERTED.flags.writeable = False
#: the identity as poses hold it: left out or made by a product, and written `0 0 0 0 0 0` (whose
#: rotation has a -0.0)
_IDENTITY_POSES = (_I4, pose_from_xyz_rpy((0.0, 0.0, 0.0), (0.0, 0.0, 0.0)))
_IDENTITIES = frozenset(pose.tobytes() for pose in _IDENTITY_POSES)
#: the bytes of their rotation blocks (a frame may be moved but not turned)
_UNTURNED = frozenset(pose[:3, :3].tobytes() for pose in _IDENTITY_POSES)


def times(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`a @ b`, or the other factor itself when one is the identity: most frames sit at their default
    frame's origin (a joint at its child link's, a model at the world's), and a 4x4 product costs
    twenty times the look at its bytes.

    Bit for bit the product the builder hands out is the same: the identity times a finite pose is that
    pose but for the sign of its zeros, and a product's bits never depend on the sign of its factors'
    zeros (numpy's and BLAS's sums start at +0.0). So the builder hands out only poses it multiplies
    itself (`Builder.in_body`, `Builder._shape_poses`), and a factor skipped here is never handed out.
    (A factor that overflowed is non-finite either way, and refused by the reader.)

    The second factor is looked at before the first (unless the first is `_I4` itself): a frame placed on
    another (a joint on its child link) is most often the identity on a pose that is not."""
    if a is _I4:
        return b
    if is_identity(b):
        return a
    if a.tobytes() in _IDENTITIES:
        return b
    return a @ b


def is_identity(pose: np.ndarray) -> bool:
    """Whether `pose` is the identity as poses hold it (see `times`)."""
    return pose is _I4 or pose.tobytes() in _IDENTITIES


def turns_nothing(pose: np.ndarray) -> bool:
    """Whether the rotation of `pose` is the identity as poses hold it (see `times`): a product by it
    is its other factor but for the sign of zeros, which no later product's bits depend on."""
    return pose is _I4 or pose[:3, :3].tobytes() in _UNTURNED


@dataclass(slots=True)
class Vertex:
    kind: str  # "link", "joint", "frame", "model"
    name: str
    pose: np.ndarray
    relative_to: str  # the frame the pose is in, default resolved
    attached_to: str | None  # joints: the child; frames: attached_to; None for links and models
    location: Location
    instance: Instance | None = None
    pose_location: Location | Where | None = None  # its <pose> (relative_to), when written (`desc.located`)
    end_at: Where | None = None  # where a joint's <child> is (made for an error only)


def scope_of(desc: ModelDesc | WorldDesc) -> Scope:
    """The scope of a parsed model or world, built on first use and kept with it."""
    if desc.scope is None:
        desc.scope = Scope(desc)
    return desc.scope


class Scope:
    """The frame graph of one parsed model or world, kept on it as `desc.scope` (`scope_of`).

    It refers to its desc weakly: the desc holds the scope, so a strong reference back would make
    every parsed file of a load (its elements, locations and poses) wait for Python's cyclic collector
    after the load; a scope is only ever reached through its desc, which is alive while it is used."""

    def __init__(self, desc: ModelDesc | WorldDesc) -> None:
        self._desc = weakref.ref(desc)
        self.is_world = isinstance(desc, WorldDesc)
        self.root = "world" if self.is_world else "__model__"
        self.what = f"world {desc.name!r}" if self.is_world else f"model {desc.name!r}"
        self.local: dict[str, Vertex] = {}
        self.nested: dict[str, Instance] = {}
        self._poses: dict[str, np.ndarray] = {}
        #: the frames whose poses `local_pose` is working out, in order (a loop may pass through a nested model)
        self._resolving: dict[str, None] = {}
        self._attached: dict[tuple[str, bool | None], tuple] = {}
        default_frame_parent = self.root
        # names are unique per scope (the parser renames or rejects collisions); keep the first
        # (the vertices of links and joints, one per element of a large model, with positional fields: a
        # record's keywords are matched one by one)
        add = self.local.setdefault
        root = self.root
        if isinstance(desc, ModelDesc):
            for link in desc.links:
                pose = link.pose
                vertex = Vertex(
                    "link", link.name, pose.matrix, pose.relative_to or root, None, link.location, None, pose.location
                )
                add(link.name, vertex)
        for joint in desc.joints:
            pose = joint.pose
            child = joint.child
            add(
                joint.name,
                Vertex(
                    "joint",
                    joint.name,
                    pose.matrix,
                    pose.relative_to or child,
                    child,
                    joint.location,
                    None,  # instance
                    pose.location,
                    joint.child_at,
                ),
            )
        for frame in desc.frames:
            attached = frame.attached_to or default_frame_parent
            add(
                frame.name,
                Vertex(
                    "frame",
                    frame.name,
                    frame.pose.matrix,
                    frame.pose.relative_to or attached,
                    attached,
                    frame.location,
                    pose_location=frame.pose.location,
                ),
            )
        for instance in desc.models:
            self.nested[instance.name] = instance
            add(
                instance.name,
                Vertex(
                    "model",
                    instance.name,
                    instance.pose.matrix,
                    instance.pose.relative_to or self.root,
                    None,
                    instance.location,
                    instance,
                    pose_location=instance.pose.location,
                ),
            )
        self.canonical: str | None = None
        if isinstance(desc, ModelDesc):
            self._find_canonical(desc)

    @property
    def desc(self) -> ModelDesc | WorldDesc:
        desc = self._desc()
        assert desc is not None, "a scope is used through its desc"
        return desc

    def _find_canonical(self, desc: ModelDesc) -> None:
        if desc.canonical_link:
            path = self.lookup(desc.canonical_link)
            if path is None or self.kind_of(path) != "link":
                links = [v.name for v in self.local.values() if v.kind == "link"]
                raise UnresolvedReference(
                    f"canonical_link {desc.canonical_link!r} is not a link of model {desc.name!r}",
                    location=desc.location,
                    construct=desc.canonical_link,
                    suggestion=did_you_mean(desc.canonical_link, links) or "name one of the model's links",
                )
            self.canonical = path
        elif desc.links:
            self.canonical = desc.links[0].name
        elif desc.models:
            self.canonical = desc.models[0].name
        elif not desc.static:
            raise InvalidTree(
                f"model {desc.name!r} has no link (a model must have at least one link, or be static)",
                location=desc.location,
                construct=desc.name,
                suggestion="add a <link>, or mark the model <static>true</static>",
            )

    # -- names -----------------------------------------------------------------------------
    def scope(self, name: str) -> Scope:
        return scope_of(self.nested[name].desc)

    def split(self, path: str) -> tuple[str, str]:
        """(nested model name, rest) of a scoped path; names of pre-1.8 flattened models may hold '::'."""
        start = 0
        while True:
            index = path.find("::", start)
            if index < 0:
                return "", path
            head = path[:index]
            if head in self.nested:
                return head, path[index + 2 :]
            start = index + 2

    def lookup(self, ref: str) -> str | None:
        """The path of the frame `ref` names in this scope, or None. `M::__model__` is `M`.

        Scoped names are followed down the nested models with a loop, however deep they nest."""
        if ref in self.local:  # the common case: a frame of this scope
            return ref
        scope, heads = self, []
        while ref != scope.root and ref not in scope.local:
            head, ref = scope.split(ref)
            if not head:
                return None
            heads.append(head)
            scope = scope.scope(head)
        if ref == scope.root and heads:
            return "::".join(heads)
        return "::".join([*heads, ref])

    def kind_of(self, path: str) -> str:
        scope = self
        while True:
            if path == scope.root:
                return "world" if scope.is_world else "model"
            vertex = scope.local.get(path)
            if vertex is not None:
                return vertex.kind
            head, path = scope.split(path)
            scope = scope.scope(head)

    def names(self) -> list[str]:
        return list(self.local)

    def _unresolved(self, ref: str, vertex: Vertex, attribute: str) -> UnresolvedReference:
        what = "a model or frame" if self.is_world else "a nested model, link, joint or frame"
        at = {"relative_to": vertex.pose_location, "child": vertex.end_at}.get(attribute)
        return UnresolvedReference(
            f"{attribute} {ref!r} of {vertex.kind} {vertex.name!r} is not {what} of {self.what}",
            location=located(at) if at is not None else vertex.location,
            construct=ref,
            suggestion=did_you_mean(ref, self.local) or "name a frame declared in the same model (or below it)",
        )

    def resolve_reference(self, ref: str, vertex: Vertex, attribute: str) -> str:
        path = self.lookup(ref)
        if path is None:
            raise self._unresolved(ref, vertex, attribute)
        return path

    # -- poses -----------------------------------------------------------------------------
    def placement(self, instance: Instance) -> np.ndarray:
        """X_M_Pf: the pose of the instance's placement frame in its own model frame (identity if none)."""
        if not instance.placement_frame:
            return _I4
        scope = scope_of(instance.desc)
        path = scope.lookup(instance.placement_frame)
        if path is None:
            raise UnresolvedReference(
                f"placement_frame {instance.placement_frame!r} is not a frame of model {instance.desc.name!r}",
                location=instance.location,
                construct=instance.placement_frame,
                suggestion=did_you_mean(instance.placement_frame, scope.local) or "name a link or frame of the model",
            )
        return scope.pose(path)

    def _local_pose(self, vertex: Vertex) -> np.ndarray:
        if vertex.instance is not None:  # a nested model (the only kind of vertex with an instance)
            placement = self.placement(vertex.instance)
            return times(vertex.pose, _I4_INVERTED if placement is _I4 else invert_pose(placement))
        return vertex.pose

    def pose(self, path: str) -> np.ndarray:
        """The pose of frame `path` in this scope's root frame.

        A scoped path is followed down the nested models with a loop (the pose of each nested model
        in its parent's frame, then the frame's in the innermost model), so it costs one step per level
        and nothing recurses as deep as models nest."""
        found = self._poses.get(path)
        if found is not None:
            return found
        scope, rest, result = self, path, _I4
        while rest != scope.root and rest not in scope.local:
            head, rest = scope.split(rest)
            if not head:
                raise UnresolvedReference(f"no frame {path!r} in {self.what}", construct=path)
            result = times(result, scope.local_pose(head))
            scope = scope.scope(head)
        result = times(result, scope.local_pose(rest))
        self._poses[path] = result
        return result

    def local_pose(self, name: str) -> np.ndarray:
        """The pose of this scope's own frame `name` (its root, or a link, joint, frame or nested model
        declared in it) in the scope's root frame, following relative_to.

        A pose relative to a frame inside a nested model is that model's pose times the frame's, and
        the model's own pose may be relative to a frame still being resolved here: `_resolving` holds
        the frames whose poses are being worked out, so such a loop is an error, not a recursion."""
        found = self._poses.get(name)
        if found is not None:
            return found
        vertex = self.local.get(name)
        if vertex is not None and vertex.instance is None:  # the common cases, where no loop can be:
            relative_to = vertex.relative_to  # relative to the root, or to a frame of this scope already placed
            base = _I4 if relative_to == self.root else None  # ... or to be placed from the root (a joint's child)
            if base is None and relative_to in self.local:
                base = self._poses.get(relative_to)
                other = self.local[relative_to]
                if base is None and other.instance is None and other.relative_to == self.root:
                    base = self._poses[relative_to] = other.pose  # what the general walk below gives it
            if base is not None:
                found = self._poses[name] = times(base, vertex.pose)
                return found
        chain: list[str] = []
        current = name
        try:
            while True:
                if current == self.root:
                    base = _I4
                    break
                found = self._poses.get(current)
                if found is not None:
                    base = found
                    break
                vertex = self.local.get(current)
                if vertex is None:  # relative_to a frame inside a nested model
                    base = self.pose(current)
                    break
                if current in self._resolving:
                    resolving = list(self._resolving)
                    cycle = resolving[resolving.index(current) :]
                    raise CyclicPoseReference(
                        "poses are relative to each other in a loop: "
                        + " -> ".join([*cycle, current])
                        + f" (in {self.what})",
                        location=vertex.location,
                        construct=current,
                        suggestion="express one of these poses relative_to a frame outside the loop",
                    )
                self._resolving[current] = None
                chain.append(current)
                current = self.resolve_reference(vertex.relative_to, vertex, "relative_to")
        finally:
            for done in chain:
                del self._resolving[done]
        for link_name in reversed(chain):
            base = times(base, self._local_pose(self.local[link_name]))
            self._poses[link_name] = base
        return base

    # -- attachment ------------------------------------------------------------------------
    def attached(self, path: str, model_static: bool | None = None) -> tuple:
        """Where frame `path` is rigidly attached: ("link", path), ("world",) or ("static", model path).

        `model_static` overrides the static flag of this scope's model (a nested model's own flag is
        the instance's). Following the edges may lead into a nested model (a scoped name, a nested
        model's frame, a canonical link inside one): each such step is taken in a loop, and the answer
        is prefixed with the models passed on the way back, so nothing recurses as deep as models nest.
        """
        if self._is_link(path):  # the common case: a link (of this scope or a nested one) is where it is
            return ("link", path)
        steps: list[tuple[Scope, str, list[tuple[str, bool | None]]]] = []  # scope, head into the next, keys
        scope, current, static = self, path, model_static
        while True:
            result, keys, descent = scope._attached_here(current, static)
            steps.append((scope, descent[0] if descent else "", keys))
            if descent is None:
                break
            _, scope, current, static = descent
        assert result is not None
        for scope, head, keys in reversed(steps):
            if head:
                result = scope._prefixed(head, result)
            for key in keys:
                scope._attached[key] = result
        return result

    def _is_link(self, path: str) -> bool:
        """Whether `path` names a link, here or down the nested models its scoped name passes through."""
        scope, rest = self, path
        while True:
            vertex = scope.local.get(rest)
            if vertex is not None:
                return vertex.kind == "link"
            head, rest = scope.split(rest)
            if not head:
                return False
            scope = scope.scope(head)

    def _attached_here(
        self, path: str, model_static: bool | None
    ) -> tuple[tuple | None, list[tuple[str, bool | None]], tuple[str, Scope, str, bool | None] | None]:
        """Follow attached-to edges from `path` within this scope: (the answer, None) when it is found
        here, else (None, (the head of the nested model to go on in, its scope, the path there, its static
        flag)). Also the (frame, static) keys whose answer is the one found (to remember)."""
        chain: list[str] = []
        on_chain: set[str] = set()
        keys: list[tuple[str, bool | None]] = []
        current = path
        while True:
            if current == self.root:
                if isinstance(self.desc, WorldDesc):
                    return ("world",), keys, None
                static = self.desc.static if model_static is None else model_static
                if static or self.canonical is None:
                    return ("static", ""), keys, None
                return None, keys, ("", self, self.canonical, None)
            keys.append((current, model_static))
            found = self._attached.get((current, model_static))
            if found is not None:  # resolved before: each edge is followed once
                return found, keys, None
            vertex = self.local.get(current)
            if vertex is None:
                head, rest = self.split(current)
                if not head:
                    raise UnresolvedReference(f"no frame {current!r} in {self.what}", construct=current)
                return None, keys, (head, self.scope(head), rest, self.nested[head].static)
            if vertex.kind == "link":
                return ("link", current), keys, None
            instance = vertex.instance
            if instance is not None:  # a nested model (the only kind of vertex with an instance)
                if instance.static:
                    return self._prefixed(current, ("static", "")), keys, None
                return None, keys, (current, self.scope(current), "__model__", False)
            if current in on_chain:
                cycle = chain[chain.index(current) :] + [current]
                raise CyclicAttachment(
                    "frames are attached to each other in a loop: " + " -> ".join(cycle) + f" (in {self.what})",
                    location=vertex.location,
                    construct=current,
                    suggestion="attach one of these frames to a link",
                )
            chain.append(current)
            on_chain.add(current)
            attribute = "child" if vertex.kind == "joint" else "attached_to"
            if vertex.kind == "joint" and vertex.attached_to == "world":
                raise InvalidTree(
                    f"joint {vertex.name!r} has the world as its child",
                    location=located(vertex.end_at) if vertex.end_at is not None else vertex.location,
                    construct="world",
                    suggestion="the world can only be a parent",
                )
            assert vertex.attached_to is not None  # joints (their child) and frames are attached to something
            current = self.resolve_reference(vertex.attached_to, vertex, attribute)

    @staticmethod
    def _prefixed(head: str, result: tuple) -> tuple:
        if result[0] == "world":
            return result
        kind, path = result
        return (kind, f"{head}::{path}" if path else head)
