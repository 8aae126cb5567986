"""The parsed form -> robodesc's `Model`: bodies, joints, frames, extras.

* A root body `world`; every link a body named with its scope (`nested::link`, `model::link`).
* The joint tree: a link's parent body is the link its first parent joint hangs from (the
  world for a joint whose parent is `world`); links without a parent joint hang from `world`
  with no joint, at their resolved world pose (static and free models alike: `body.static`
  and `body.floating` say which). Joints that close a loop are kept and listed after the tree joint of their
  child, where they stand still at zero (see docs/formats/sdf.md).
* `Body.pose` and `Joint.origin` are worked out from the resolved world poses of links and
  joint frames; `Joint.axis` is expressed in the joint frame.
* `<frame>`s become `model.frames`, attached to the body they resolve to.
"""

from __future__ import annotations

import math
from collections import deque
from copy import copy
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np

from ...core.diagnostics import Severity
from ...core.errors import InvalidTree, Location, UnresolvedReference, did_you_mean
from ...core.model import Body, Constraint, Dynamics, Frame, Inertial, Joint, JointType, Limits, Mimic, Model
from ...core.record import unshared_copy
from ...core.transforms import IDENTITY, float_poses_stacked, invert_pose, invert_poses
from .desc import AxisDesc, FileDesc, FrameDesc, JointDesc, LinkDesc, ModelDesc, Node, Where, located
from .graph import Scope, is_identity, scope_of, times, turns_nothing

_ONE_AXIS = (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC, JointType.SCREW)
_TWO_AXES = (JointType.UNIVERSAL, JointType.REVOLUTE2)
_UNBOUNDED = (JointType.CONTINUOUS, JointType.BALL, JointType.FIXED, JointType.GEARBOX)  # no position limits

_D = TypeVar("_D", LinkDesc, JointDesc, FrameDesc)


@dataclass(slots=True)
class _Item(Generic[_D]):
    """A link, joint or frame of some scope, with its full name and where it was found."""

    kind: str
    full: str
    desc: _D
    scope: Scope
    prefix: str
    static: bool
    model: str | None  # the scoped name of the model it belongs to (None: the top model or the world)
    top_level: bool = True  # in the file's top model, a model of the world, or the world itself


def _sdf(extras: dict) -> dict:
    """What the SDF reader keeps in `extras["sdf"]` (empty for a shape of an included URDF file)."""
    return extras.get("sdf") or {}


class Builder:
    def __init__(self, file_desc: FileDesc) -> None:
        self.file = file_desc
        self.links: list[_Item[LinkDesc]] = []
        self.joints: list[_Item[JointDesc]] = []
        self.frames: list[_Item[FrameDesc]] = []
        self.kept: list[tuple[Node, str | None]] = []
        self.mimic_locations: dict[str, Location] = {}  # follower -> its <mimic>, for the mimic-ignored warning
        self.top: Scope | None = None  # set by `build` (None only for a file without a model or world)
        self.top_pose = IDENTITY  # a world's (read only: replaced, never changed in place)
        self._world_poses: dict[str, np.ndarray] = {}
        #: (record, field, body, world pose): the poses in bodies `in_body` is asked for, made by `_express`
        self._wanted: list[tuple[Body | Joint | Frame, str, str, np.ndarray]] = []
        #: full name -> (the full name of the model it is declared in (None: the top), its scope, its name there)
        self._homes: dict[str, tuple[str | None, Scope, str]] = {}
        #: ids of the parsed records the model already holds. A model included several times is parsed once, so
        #: its links' shapes and inertials and its joints' dynamics are placed once per instance. The first
        #: instance may take them (the parsed records belong to no model); every later one takes a copy that
        #: shares nothing changeable (`unshared_copy`), so that a caller changing one instance's record in place
        #: changes no other instance's. (Tested inline where a record is placed: a call per record cost as much.)
        self._placed: set[int] = set()
        #: whether every pose and axis the model holds is finite and no world pose can overflow (`_express`):
        #: the reader composes the poses to find the one that does (`check_finite_poses`) only when False
        self.poses_bounded = True
        self._finite_axes = True  # every axis `_axis` turned into the joint frame came out finite
        #: (scope, prefix, expressed_in) -> (the rotation of that frame's world pose, None if it turns nothing):
        #: most axes of a pre-1.7 file name the same frame (`__model__`), looked up and checked once
        self._expressed_in: dict[tuple[Scope, str, str], tuple[np.ndarray | None]] = {}
        #: (joint frame pose, expressed_in entry, rotation) of the last axis turned: an `<axis2>` turns by the same
        self._last_turn: tuple[np.ndarray | None, tuple | None, np.ndarray | None] = (None, None, None)

    # -- walking the scopes -----------------------------------------------------------------
    def _walk_model(self, desc: ModelDesc, prefix: str, static: bool, owner: str | None, top: bool = True) -> None:
        """Collect the links, joints, frames and extras of a model and of every model placed in it, in
        the order a depth-first walk meets them; with a stack, as models nest as deep as includes go."""
        stack: list[tuple[ModelDesc, str, bool, str | None, bool, list[Node]]]
        stack = [(desc, prefix, static, owner, top, [])]
        while stack:
            desc, prefix, static, owner, top, instance_kept = stack.pop()
            self.kept.extend((node, owner) for node in instance_kept)  # given on the <include> that placed it
            scope = scope_of(desc)
            model = prefix[:-2] if prefix else None  # the full name of the model they are declared in
            for name in scope.local:
                self._homes[prefix + name] = (model, scope, name)
            for link in desc.links:
                self.links.append(_Item("link", prefix + link.name, link, scope, prefix, static, owner, top))
            for joint in desc.joints:
                self.joints.append(_Item("joint", prefix + joint.name, joint, scope, prefix, static, owner, top))
            for frame in desc.frames:
                self.frames.append(_Item("frame", prefix + frame.name, frame, scope, prefix, static, owner, top))
            self.kept.extend((node, owner) for node in desc.kept)
            for instance in reversed(desc.models):
                name = prefix + instance.name
                stack.append((instance.desc, name + "::", static or instance.static, name, False, instance.kept))

    def _top(self) -> Scope:
        """The top scope: every link, joint and frame belongs to a model or world, which sets it."""
        assert self.top is not None, "a link, joint or frame without a top model or world"
        return self.top

    def pose(self, full: str) -> np.ndarray:
        """World pose of a frame named with its full path in the top scope.

        A frame of a nested model is placed through the models it is declared in, each model's pose
        worked out once from its parent's: linear in the number of frames however deep models nest."""
        found = self._world_poses.get(full)
        if found is not None:
            return found
        home = self._homes.get(full)
        if home is not None and home[0] is None:  # declared in the top model or world (most frames)
            found = home[1].local_pose(home[2])
            if self.top_pose is not IDENTITY:  # (most top models sit at the origin: `times` would give `found`)
                found = times(self.top_pose, found)
            self._world_poses[full] = found
            return found
        chain = []
        name: str | None = full
        while name is not None and name not in self._world_poses and name in self._homes:
            model, scope, local = self._homes[name]
            chain.append((name, scope, local))
            name = model
        base: np.ndarray = self.top_pose
        if name is not None:
            known = self._world_poses.get(name)
            base = known if known is not None else times(self.top_pose, self._top().pose(name))
            self._world_poses[name] = base
        for name, scope, local in reversed(chain):
            base = self._world_poses[name] = times(base, scope.local_pose(local))
        return base

    def in_body(self, record: Body | Joint | Frame, field: str, body: str, pose: np.ndarray) -> None:
        """Set `record.field` to world pose `pose` expressed in the frame of `body` (a link, or "world"),
        once every such pose is asked for (`_express`). The body's world pose is resolved now, so that
        what is wrong with it is found in the order the elements are met."""
        if body != "world" and body not in self._world_poses:  # (most bodies are parents of several)
            self.pose(body)
        self._wanted.append((record, field, body, pose))

    def _express(self) -> None:
        """Every pose `in_body` was asked for, each made afresh: every pose the model holds is made here,
        by a product (see `graph.times`).

        With two stacked numpy products, not one (and an inversion) per pose, which cost far more
        than their arithmetic: each body's world pose is inverted once, and a world pose is expressed in
        a body once (a joint at its child link's origin, as most are, has the link's world pose, and its
        origin is the link's pose in the same parent). Stacked, each pose is the same product as on its
        own, bit for bit (tests/test_sdf_build_poses.py)."""
        wanted = self._wanted
        if not wanted:
            return
        rows: dict[str, int] = {}  # body -> its row in the stack of world poses
        products: dict[tuple[str, int], int] = {}  # (body, id of a world pose) -> its row in the stack of products
        inverse_rows: list[int] = []
        poses: list[np.ndarray] = []
        made: list[int] = []
        for _, _, body, pose in wanted:
            key = (body, id(pose))  # (the pose is held in `wanted`: its id is its own)
            row = products.get(key)
            if row is None:
                row = products[key] = len(poses)
                inverse_rows.append(rows.setdefault(body, len(rows)))
                poses.append(pose)
            made.append(row)
        # The finite-pose check's bound (`check_finite_poses`), on this stack rather than on a new one: every
        # body, joint and frame pose is a row, and a chain of bodies from the root takes each row once at most
        # (a row is a pose in one body, the parent of one link of the chain). Rotations keep lengths, so when
        # the sum of every entry's magnitude keeps a margin from overflowing (4: rounding), so does every
        # world position; a NaN or infinite entry makes the sum so too.
        total = math.inf
        if len(rows) == 1 and "world" in rows:  # every pose in the world (a model of free or static links)
            # The world's inverse is the identity, and a product by it is the pose with each -0.0 made +0.0
            # (see `graph.times`), as adding +0.0 makes it, when the pose is finite (inf * 0 is NaN): else
            # the products are made after all.
            expressed = np.array(poses)
            expressed += 0.0
            total = float(np.abs(expressed).sum())
        if not math.isfinite(total):
            world_poses = self._world_poses  # (every body `in_body` was asked for is resolved and kept there)
            worlds = float_poses_stacked([world_poses[body] if body != "world" else IDENTITY for body in rows])
            # (`take`: the rows a fancy index picks, which reads the list of rows at half the cost)
            expressed = invert_poses(worlds).take(inverse_rows, 0) @ float_poses_stacked(poses)
            total = float(np.abs(expressed).sum()) if self._finite_axes else math.inf
        self.poses_bounded = self._finite_axes and math.isfinite(4.0 * total)
        for (record, field, _, _), row in zip(wanted, made):
            setattr(record, field, expressed[row].copy())  # an array of its own, not a view of the stack
        wanted.clear()

    def attached_body(self, full: str) -> str:
        result = self._top().attached(full)
        return result[1] if result[0] == "link" else "world"

    def full_path(self, item: _Item[JointDesc], ref: str, what: str, location: Location | Where) -> str:
        """The full path of frame `ref` named by an element of `item`'s scope (`location`: where the reference
        is written, or where to find that out, for the error when it names nothing)."""
        local = item.scope.lookup(ref)
        if local is None:
            raise UnresolvedReference(
                f"{what} {ref!r} of {item.kind} {item.desc.name!r} is not a frame of {item.scope.what}",
                location=located(location),
                construct=ref,
                suggestion=did_you_mean(ref, item.scope.names()) or "name a link, joint, frame or nested model",
            )
        if local == "__model__":
            return item.prefix[:-2] if item.prefix else "__model__"
        return item.prefix + local

    # -- the model ------------------------------------------------------------------------------
    def build(self) -> Model:
        file = self.file
        if file.worlds:
            world = file.worlds[0]
            model = self._start(world.name)
            model.bodies["world"].extras["sdf"] = {"world": True}  # the file is a world (the SDF writer asks)
            self.top = scope = scope_of(world)
            for instance in world.models:
                for node in instance.kept:
                    self.kept.append((node, instance.name))
                self._walk_model(instance.desc, instance.name + "::", instance.static, instance.name)
            for joint in world.joints:
                self.joints.append(_Item("joint", joint.name, joint, scope, "", False, None))
            for frame in world.frames:
                self.frames.append(_Item("frame", frame.name, frame, scope, "", False, None))
            for node in world.kept:
                self.kept.append((node, None))
            for extra_world in file.worlds[1:]:
                model.diagnose(
                    Severity.WARNING,
                    "extra-world",
                    f"the file holds several worlds; robodesc loads the first, {world.name!r}, and keeps "
                    f"{extra_world.name!r} as an extra",
                    extra_world.location,
                )
                if extra_world.node is not None:  # always set by the parser
                    self.kept.append((extra_world.node, None))
        elif file.model is not None:
            desc = file.model
            model = self._start(desc.name)
            self.top = scope_of(desc)
            # (the model's pose as it is when it is placed by its own frame, as most are: a product by the identity
            # would only make its -0.0 +0.0, which no later product's bits depend on, see `graph.times`)
            # (the shared IDENTITY when the pose is one: later products skip it at once, see `graph.times`)
            self.top_pose = IDENTITY if is_identity(desc.pose.matrix) else desc.pose.matrix
            if desc.placement_frame:
                self.top_pose = desc.pose.matrix @ invert_pose(self._placement(desc))
            self._walk_model(desc, "", desc.static, None)
        else:
            nodes = file.lights + file.actors
            name = nodes[0].element.get("name", "sdf") if nodes else "sdf"
            model = self._start(name)
            for node in nodes:
                self.kept.append((node, None))
        self._bodies_and_joints(model)
        self.kept.extend((node, None) for node in file.kept)
        for node, owner in self.kept:
            model.extras.append(node.extra(owner))
        return model

    def _placement(self, desc: ModelDesc) -> np.ndarray:
        """The pose of the top model's placement frame in its own frame (it has one)."""
        top = self._top()
        path = top.lookup(desc.placement_frame)
        if path is None:
            raise UnresolvedReference(
                f"placement_frame {desc.placement_frame!r} is not a frame of model {desc.name!r}",
                location=desc.location,
                construct=desc.placement_frame,
                suggestion=did_you_mean(desc.placement_frame, top.names()) or "name a link or frame",
            )
        return top.pose(path)

    def _start(self, name: str) -> Model:
        model = Model(name=name, format="sdf", source=self.file.source)
        model.bodies["world"] = Body(name="world")
        model.extras = []
        return model

    # -- links, joints, frames -----------------------------------------------------------------
    def _bodies_and_joints(self, model: Model) -> None:
        bodies: dict[str, Body] = {}
        for link in self.links:
            bodies[link.full] = self._body(link, model)
        built: dict[str, Joint] = {}
        for item in self.joints:
            joint = self._joint(item, model)
            built[joint.name] = joint
        self._check_mimics(model, built, self.mimic_locations)
        self._tree(model, bodies, built, self.links)
        for frame in self.frames:
            self._frame(model, frame)
        self._express()

    def _body(self, item: _Item[LinkDesc], model: Model) -> Body:
        link = item.desc
        inertial = link.inertial
        com, inertia = inertial.com, inertial.inertia
        placed = self._placed  # (see `_placed`)
        if id(inertial) in placed:
            com, inertia = com.copy(), inertia.copy()
        else:
            placed.add(id(inertial))
        sdf: dict = {"model": item.model}
        # (positional: a record's keywords are matched one by one, which cost a large model's build more than
        # the records' own work) the pose is IDENTITY (read only) until `_tree` places every body
        body = Body(
            item.full,
            None,  # parent: set by `_tree`, with the joints and the pose
            (),
            IDENTITY,
            Inertial(inertial.mass, com, inertia),
            self._placed_shapes(link.visuals) if link.visuals else [],
            self._placed_shapes(link.collisions) if link.collisions else [],
            item.static,
            False,  # floating: set by `_tree`
            link.location,
            {"sdf": sdf},
        )
        properties = link.properties
        if properties:  # (most links note none)
            if properties.get("inertial_defaults"):  # mass and/or inertia not given: libsdformat's defaults
                sdf["inertial_defaults"] = properties["inertial_defaults"]
            if properties.get("inertial_kept"):  # <auto_inertia_params>, <fluid_added_mass>, ... of the inertial
                sdf["inertial_xml"] = [node.extra(item.full) for node in properties["inertial_kept"]]
        if link.kept:
            body.extras["xml"] = [node.extra(item.full) for node in link.kept]
        if link.shape_frames:
            self._shape_poses(item, body, model)
        return body

    def _placed_shapes(self, shapes: list) -> list:
        """A link's visuals or collisions as a body holds them: each taken or copied (see `_placed`)."""
        placed = self._placed
        taken = []
        for shape in shapes:
            if id(shape) in placed:
                shape = unshared_copy(shape)
            else:
                placed.add(id(shape))
            taken.append(shape)
        return taken

    def _shape_poses(self, item: _Item[LinkDesc], body: Body, model: Model) -> None:
        """Visuals and collisions whose pose names a frame (SDF 1.7+): re-expressed in the link frame.

        libsdformat resolves these only on request, so a name that matches nothing is a warning.
        """
        link_pose = self.pose(item.full)
        for shapes in (body.visuals, body.collisions):
            for index, shape in enumerate(shapes):
                ref = _sdf(shape.extras).get("pose_relative_to")
                if not ref:
                    continue
                local = item.scope.lookup(ref)
                if local is None:
                    model.diagnose(
                        Severity.WARNING,
                        "unresolved-shape-frame",
                        f"shape {shape.name!r} of link {item.full!r} is placed relative_to {ref!r}, which is not a "
                        "frame of the model; its pose is taken in the link frame",
                        item.desc.location,
                        did_you_mean(ref, item.scope.names()) or "name a link, joint or frame of the model",
                    )
                    continue
                full = item.prefix + local
                if local == "__model__":
                    full = item.prefix[:-2] if item.prefix else "__model__"
                # re-placed in a copy: the first instance took the parsed shape, which later instances copy
                shapes[index] = placed = copy(shape)
                placed.pose = invert_pose(link_pose) @ self.pose(full) @ shape.pose

    def _joint(self, item: _Item[JointDesc], model: Model) -> Joint:
        """The joint between the links its ends resolve to."""
        desc = item.desc
        parent, child = self._joint_ends(item)
        frame_pose = self.pose(item.full)
        origin = IDENTITY  # (read only) replaced by the joint origin `_express` works out
        extras = {"sdf": dict(desc.properties)} if desc.properties else {}
        axis = desc.axis
        if axis is None:  # the model's default axis, limits and dynamics
            joint = Joint(
                item.full, desc.type, parent, child, origin, pitch=desc.pitch, location=desc.location, extras=extras
            )
        else:  # given to the joint as it is made (positionally, see `_body`), not made as defaults and replaced
            direction, limits, dynamics = self._axis(item, axis, frame_pose)
            joint = Joint(
                item.full,
                desc.type,
                parent,
                child,
                origin,
                direction,
                None,  # axis2: set by `_axes`
                limits,
                None,  # limits2: set by `_axes` or `_default_axes`
                dynamics,
                None,  # mimic: set by `_axes`
                0.0,  # reference
                desc.pitch,
                desc.location,
                extras,
            )
        # `in_body(joint, "origin", parent, frame_pose)`, inline (a call per joint)
        if parent != "world" and parent not in self._world_poses:
            self.pose(parent)
        self._wanted.append((joint, "origin", parent, frame_pose))
        if desc.kept:
            joint.extras["xml"] = [node.extra(item.full) for node in desc.kept]
        if desc.axis2 is not None or (axis is not None and axis.mimic is not None):  # (few joints)
            self._axes(item, joint, frame_pose)
        if axis is None or desc.type in _TWO_AXES:  # (most joints are given every axis their type needs)
            self._default_axes(item, joint, model)
        if desc.gearbox is not None:
            ratio, reference_body = desc.gearbox
            model.constraints.append(
                Constraint(
                    kind="gearbox",
                    elements=(item.full, item.prefix + reference_body if reference_body else ""),
                    name=item.full,
                    coefficients=(ratio,),
                    location=desc.location,
                )
            )
        return joint

    def _joint_ends(self, item: _Item[JointDesc]) -> tuple[str, str]:
        """(parent body, child body): the links the joint's `<parent>` and `<child>` are attached to.

        A link of the top model or world (most joints' ends) is its own body: what `attached_body(full_path(...))`
        finds, without the lookups."""
        desc = item.desc
        where = desc.location
        local = item.scope.local if not item.prefix else None  # (the item's scope is then the top scope)
        parent = desc.parent
        if parent != "world":
            vertex = local.get(parent) if local is not None else None
            if vertex is None or vertex.kind != "link":
                parent = self.attached_body(self.full_path(item, parent, "parent", desc.parent_at or where))
        child = desc.child
        vertex = local.get(child) if local is not None else None
        if vertex is None or vertex.kind != "link":
            child = self.attached_body(self.full_path(item, child, "child", desc.child_at or where))
        if child == "world":
            raise InvalidTree(
                f"the child {desc.child!r} of joint {item.full!r} resolves to the world",
                location=located(desc.child_at or where),
                construct=desc.child,
                suggestion="a joint's child must be (or be attached to) a link that is not static",
            )
        if parent == child and item.top_level:  # libsdformat checks the joints of top-level models only
            raise InvalidTree(
                f"joint {item.full!r} has parent {desc.parent!r} and child {desc.child!r}, which both resolve to "
                f"link {child!r}",
                location=where,
                construct=desc.child,
                suggestion="connect two different links",
            )
        return parent, child

    def _axis(
        self, item: _Item[JointDesc], axis: AxisDesc, frame_pose: np.ndarray
    ) -> tuple[np.ndarray, Limits, Dynamics]:
        """An `<axis>` or `<axis2>`: its direction in the joint frame, its limits and its dynamics."""
        if axis.expressed_in:
            key = (item.scope, item.prefix, axis.expressed_in)
            turn = self._expressed_in.get(key)
            if turn is None:  # (`pose` keeps every world pose it works out: the same array each time)
                frame = self.pose(self.full_path(item, axis.expressed_in, "expressed_in", axis.xyz_at or axis.location))
                turn = self._expressed_in[key] = (None if turns_nothing(frame) else frame[:3, :3],)
            last_pose, last_turn, rotation = self._last_turn
            if last_pose is not frame_pose or last_turn is not turn:
                rotation = frame_pose[:3, :3].T
                # a frame that turns nothing (the model frame of most pre-1.7 axes) leaves the product what it
                # multiplies, laid out as a product is: a copy, which the product below reads with the same kernel
                rotation = rotation.copy() if turn[0] is None else rotation @ turn[0]
                self._last_turn = (frame_pose, turn, rotation)
            assert rotation is not None
            direction = rotation @ axis.xyz
            # np.linalg.norm of a 1-D float array, bit for bit, without its overhead
            squared = float(direction.dot(direction))
            if squared != 1.0:  # (a division by 1.0 gives every float back as it is, -0.0 and NaN too)
                direction = direction / math.sqrt(squared)
            # (each coordinate is at most the length: finite when the squared length is, unless it is 0)
            self._finite_axes = self._finite_axes and 0.0 < squared < math.inf
        else:
            direction = axis.xyz.copy()  # an array of the joint's own
        given = axis.limits
        if item.desc.type in _UNBOUNDED:
            limits = Limits(None, None, given.velocity, given.effort)
        else:
            limits = Limits(given.lower, given.upper, given.velocity, given.effort)
        dynamics = axis.dynamics
        if id(dynamics) in self._placed:  # (see `_placed`)
            dynamics = copy(dynamics)
        else:
            self._placed.add(id(dynamics))
        return direction, limits, dynamics

    def _axes(self, item: _Item[JointDesc], joint: Joint, frame_pose: np.ndarray) -> None:
        """The mimics of `<axis>` (made with the joint) and `<axis2>`, and `<axis2>`."""
        desc = item.desc
        if desc.axis is not None and desc.axis.mimic is not None:
            self._mimic(item, joint, desc.axis, 0)
        if desc.axis2 is not None:
            joint.axis2, joint.limits2, dynamics = self._axis(item, desc.axis2, frame_pose)
            joint.extras.setdefault("sdf", {})["dynamics2"] = dynamics
            if desc.axis2.mimic is not None:
                self._mimic(item, joint, desc.axis2, 1)

    def _mimic(self, item: _Item[JointDesc], joint: Joint, axis: AxisDesc, index: int) -> None:
        assert axis.mimic is not None
        leader, leader_axis, multiplier, offset, reference = axis.mimic
        if index == 0:
            joint.mimic = Mimic(item.prefix + leader, multiplier, offset - multiplier * reference)
            self.mimic_locations[item.full] = axis.mimic_location or located(axis.location)
        joint.extras.setdefault("sdf", {}).setdefault("mimic", []).append(
            {
                "axis": ("axis", "axis2")[index],
                "joint": item.prefix + leader,
                "leader_axis": leader_axis,
                "multiplier": multiplier,
                "offset": offset,
                "reference": reference,
            }
        )

    @staticmethod
    def _default_axes(item: _Item[JointDesc], joint: Joint, model: Model) -> None:
        """The axes a joint type needs but the joint does not give: 0 0 1 (and 0 1 0), with a warning."""
        desc = item.desc
        if desc.axis is not None and desc.type not in _TWO_AXES:  # (most joints) every axis it needs is given
            return
        needs = 1 if desc.type in _ONE_AXIS else 2 if desc.type in _TWO_AXES else 0
        missing = [tag for tag, axis in (("axis", desc.axis), ("axis2", desc.axis2))[:needs] if axis is None]
        if missing:
            model.diagnose(
                Severity.WARNING,
                "missing-axis",
                f"{desc.type.value} joint {item.full!r} has no <{missing[0]}>; robodesc uses "
                + ("0 0 1" if missing[0] == "axis" else "0 1 0"),
                desc.location,
                f"add <{missing[0]}><xyz>0 0 1</xyz></{missing[0]}>",
            )
            if desc.axis is None:
                joint.axis = np.array([0.0, 0.0, 1.0])
            if needs == 2 and desc.axis2 is None:
                joint.axis2 = np.array([0.0, 1.0, 0.0])
        if desc.type in _TWO_AXES and joint.limits2 is None:
            joint.limits2 = Limits()

    @staticmethod
    def _check_mimics(model: Model, joints: dict[str, Joint], locations: dict) -> None:
        """A mimic needs a leader that exists and, like its follower, takes one value."""
        for joint in joints.values():
            mimic = joint.mimic
            if mimic is None:
                continue
            leader = joints.get(mimic.joint)
            problem = None
            if leader is None:
                problem = f"mimics {mimic.joint!r}, which is not a joint of the model"
            elif joint.dof != 1 or leader.dof != 1:
                problem = f"mimics {mimic.joint!r}, but only joints with one value can mimic each other"
            if problem:
                joint.mimic = None  # kept in joint.extras["sdf"]["mimic"]
                model.diagnose(
                    Severity.WARNING,
                    "mimic-ignored",
                    f"joint {joint.name!r} {problem}; it moves on its own",
                    locations.get(joint.name, joint.location),
                    did_you_mean(mimic.joint, joints) or "name a revolute, prismatic or continuous joint",
                )

    def _tree(
        self,
        model: Model,
        bodies: dict[str, Body],
        joints: dict[str, Joint],
        links: list[_Item[LinkDesc]],
    ) -> None:
        """Parents before children, the first parent joint of each link (gearboxes last) in the tree."""
        incoming: dict[str, list[str]] = {}
        outgoing: dict[str, list[Joint]] = {}
        gearboxes = [joint for joint in joints.values() if joint.type is JointType.GEARBOX]
        order = [joint for joint in joints.values() if joint.type is not JointType.GEARBOX] + gearboxes
        for joint in order:
            incoming.setdefault(joint.child, []).append(joint.name)
            outgoing.setdefault(joint.parent, []).append(joint)
        assigned: dict[str, Joint | None] = {}  # link -> tree joint (None: hangs from the world)
        queue: deque[str] = deque(["world"])
        sequence: list[str] = []

        def visit(start: deque[str]) -> None:
            while start:
                node = start.popleft()
                for joint in outgoing.get(node, ()):
                    child = joint.child
                    if child not in assigned:
                        assigned[child] = joint
                        sequence.append(child)
                        start.append(child)

        for item in links:
            if item.full not in incoming:
                assigned[item.full] = None
                sequence.append(item.full)
                queue.append(item.full)
        visit(queue)
        for item in links:  # links on a loop of joints that never reaches the world
            if item.full not in assigned:
                assigned[item.full] = None
                sequence.append(item.full)
                visit(deque([item.full]))
                model.diagnose(
                    Severity.WARNING,
                    "kinematic-loop",
                    f"link {item.full!r} is only reached through a loop of joints; it hangs from the world",
                    item.desc.location,
                    "give the model a link that no joint moves",
                )
        world_poses = self._world_poses
        wanted = self._wanted
        for name in sequence:
            body = bodies[name]
            tree_joint = assigned[name]
            if tree_joint is not None:
                jname = tree_joint.name
                body.parent = parent = tree_joint.parent
                body.joints = (jname,)
            else:
                jname = None
                body.parent = parent = "world"
                body.floating = not body.static
            # `in_body(body, "pose", parent, self.pose(name))`, inline (every link is in `sequence`: every link
            # resolves; its parent, a link of the tree already placed here, was resolved with its joint)
            pose = world_poses.get(name)
            if pose is None:
                pose = self.pose(name)
            if parent != "world" and parent not in world_poses:
                self.pose(parent)
            wanted.append((body, "pose", parent, pose))
            parents = incoming.get(name, ())
            if len(parents) > 1 or (parents and parents[0] != jname):  # a joint closes a loop here (few links)
                loops = [j for j in parents if j != jname]
                for loop in loops:  # kept as joints, off the tree: kinematics accepts and ignores their values
                    joints[loop].extras.setdefault("sdf", {})["loop"] = True
                    model.constraints.append(Constraint(kind="loop", elements=(loop,), location=joints[loop].location))
                model.diagnose(
                    Severity.WARNING,
                    "kinematic-loop",
                    f"link {name!r} is the child of several joints ({', '.join(incoming[name])}); "
                    f"{jname or 'none'} is its tree joint, the others close loops (kept as constraints)",
                    body.location,
                    "robodesc keeps a tree; use loop joints as constraints",
                )
            model.bodies[name] = body
        model.joints.update(joints)

    def _frame(self, model: Model, item: _Item[FrameDesc]) -> None:
        desc = item.desc
        body = self.attached_body(item.full)
        pose = self.pose(item.full)
        if body != "world":
            self.pose(body)  # (resolved here, as `in_body` does)
        if item.full in model.bodies or item.full in model.frames:
            model.diagnose(
                Severity.WARNING,
                "frame-name-taken",
                f"frame {item.full!r} has the name of a body or another frame; it is left out of model.frames",
                desc.location,
                "rename the frame",
            )
            return
        frame = model.frames[item.full] = Frame(name=item.full, body=body, pose=IDENTITY, location=desc.location)
        self.in_body(frame, "pose", body, pose)
