"""URDF → `Model`, following urdfdom (what ROS loads): the same defaults, the same rejections.

Extension elements (`<gazebo>`, `<transmission>`, `<ros2_control>`) and anything unknown are
kept as `Extra`s with their raw XML and location. Mesh URIs are resolved (existence only) while
loading; an unresolvable one is a diagnostic, not an error.

Unknown child elements of a link, joint, visual or collision are kept as `extras["xml"]` (a list of
`Extra`s, as every XML reader keeps them). Everything else URDF-specific that the model has no field
for is kept under `extras["urdf"]` (a dict), never as a flat key beside other formats' data:
on a joint, `safety_controller` and `calibration` (dicts of floats, for the caller), and, for
`robodesc check` (checks.py), `dropped_limits` (lower, upper as written, where the joint type ignores
them) and `written_axis` (an axis the reader normalised, as written), with the locations of their
elements (`limit_location`, `axis_location`); on a link or joint, `repeated`
(children read once but written several times); on a visual, `material_location` (of a `<material>`
without a name); on the root body, `material_locations` (robot-level `<material>` name -> location).

Model records are made with positional arguments, every field given, in their fields' order (which
tests/test_model_objects.py pins): measured on Python 3.11, a `Body` made with keyword arguments and
the rest left to their defaults takes about twice as long, and a load makes one or more per element.
"""

from __future__ import annotations

import dataclasses
import math
import re
from functools import partial
from typing import Any

import numpy as np

from ...core.diagnostics import Severity
from ...core.errors import (
    DuplicateName,
    InvalidTree,
    InvalidValue,
    Location,
    MalformedPose,
    MalformedValue,
    MissingAttribute,
    MissingRootElement,
    UnresolvedReference,
    UnsupportedGeometry,
    UnsupportedJointType,
    did_you_mean,
    excerpt,
)
from ...core.geometry import Box, Capsule, Cylinder, Geometry, Material, Mesh, Shape, Sphere
from ...core.model import Body, Dynamics, Extra, Inertial, Joint, JointType, Limits, Mimic, Model
from ...core.resources import LoadContext
from ...core.transforms import IDENTITY, pose_from_xyz_rpy, rpy_to_matrix
from ...core.validation import check_finite_poses
from ..xml import Element, LocatingValues, Values, parse_xml, plain_numbers, to_xml

JOINT_TYPES = {
    "fixed": JointType.FIXED,
    "revolute": JointType.REVOLUTE,
    "continuous": JointType.CONTINUOUS,
    "prismatic": JointType.PRISMATIC,
    "floating": JointType.FLOATING,
    "planar": JointType.PLANAR,
}
#: MAJOR.MINOR as urdfdom reads it: ASCII digits only (not "1.²"), never more than an unsigned long holds
_VERSION = re.compile(r"\s*\+?0*([0-9]{1,9})\.0*([0-9]{1,9})")
_ZERO3 = (0.0, 0.0, 0.0)
_X_AXIS = (1.0, 0.0, 0.0)  # a joint's axis when none is written
_ONES3 = np.ones(3)
_ONES3.flags.writeable = False
_MISSING_INERTIAL_FIX = {
    "<mass>": 'add <mass value="..."/>',
    "<inertia>": 'add <inertia ixx="" ixy="" ixz="" iyy="" iyz="" izz=""/>',
}
_INERTIA_KEYS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
#: where each of the six numbers (after the mass) goes in the symmetric 3x3 tensor (`take` along a table's rows
#: gives C-ordered tensors, as indexing one inertial's array did)
_INERTIA_TENSOR = np.array([[1, 2, 3], [2, 4, 5], [3, 5, 6]])
_INERTIA_TENSOR.flags.writeable = False
_LIMIT_KEYS = ("lower", "upper", "effort", "velocity")
_LIMIT_DEFAULTS = (0.0, 0.0, MissingAttribute, MissingAttribute)  # effort and velocity are required
_SAFETY_KEYS = ("k_velocity", "k_position", "soft_lower_limit", "soft_upper_limit")
_SAFETY_DEFAULTS = (MissingAttribute, 0.0, 0.0, 0.0)  # k_velocity is required
_CALIBRATION_KEYS = ("reference_position", "rising", "falling")
EXTENSION_TAGS = {"gazebo", "transmission", "ros2_control"}
_NESTED = ("inertial", "visual", "collision")  # the children of a link that have children of their own
_SHAPE_CHILDREN = {"geometry", "origin", "material"}  # what a <visual> or <collision> may hold without an extra
#: The children of a joint the model has fields for: a joint with only these, each once (most joints), has
#: nothing for `_joint_urdf_only` and `_joint_kept` to read or keep
_JOINT_MODELLED = frozenset({"origin", "parent", "child", "axis", "limit", "dynamics", "mimic"})
#: The children of a joint URDF defines: those and the ones only URDF has (kept under extras["urdf"])
_JOINT_CHILDREN = _JOINT_MODELLED | {"safety_controller", "calibration"}
#: Children urdfdom reads once (the first), per parent element: more of them are ignored.
_READ_ONCE = {
    "link": ("inertial",),
    "inertial": ("origin", "mass", "inertia"),
    "visual": ("origin", "geometry", "material"),
    "collision": ("origin", "geometry"),
    "joint": tuple(sorted(_JOINT_CHILDREN)),
}


def _origin_texts(origin: Element | None) -> tuple[list[str], str] | None:
    """The six number texts of an <origin>'s xyz and rpy ("0 0 0" where not written, as for no origin
    at all) and the text they are cut from, for `plain_numbers`; None when either attribute does not
    have three parts, which the attribute-by-attribute path reads and reports."""
    if origin is None:
        xyz_text = rpy_text = "0 0 0"
    else:  # (`Element.get`: fetching `.attrib` costs more than the lookups themselves)
        xyz_text, rpy_text = origin.get("xyz", "0 0 0"), origin.get("rpy", "0 0 0")
    parts, turns = xyz_text.split(None, 3), rpy_text.split(None, 3)
    if len(parts) == 3 and len(turns) == 3:
        return parts + turns, xyz_text + rpy_text
    return None


def _all_children(element: Element, *found: Element | None) -> bool:
    """Whether the children `found` (each the first of its tag, or None) are all of `element`'s
    children: then none is written twice and none is unknown (the usual case)."""
    return len(found) - found.count(None) == len(element)


def _first_children(element: Element) -> dict[str, Element]:
    """The first child of each tag, in file order: what urdfdom reads of an element whose children it
    reads once. Made in one pass over the children, so that an element's parts are looked up by tag
    instead of found by a scan each, and so that `len()` tells whether any tag is written twice."""
    first: dict[str, Element] = {}
    for child in element:
        first.setdefault(child.tag, child)
    return first


def read(data: bytes, context: LoadContext) -> Model:
    """Read URDF text into a `Model` (the reader registered for the `urdf` format)."""
    document = parse_xml(data, context.source)
    values = LocatingValues(document)
    model = _UrdfReader(context, values).read(document.root)
    values.detach()  # the model's locations keep the file's bytes, not its parsed tree
    return model


class _UrdfReader:
    """One load of one URDF file. The document is read top to bottom in one pass (links, joints,
    materials and extension elements in file order, as urdfdom does); what needs everything read
    first, links' materials, the tree and mimic chains, is settled after that pass in `read`."""

    def __init__(self, context: LoadContext, values: Values) -> None:
        self.context = context
        self.values = values
        self.model = Model(name="", format="urdf", source=context.source)  # named when <robot> is read
        # visual materials, resolved once all links are read: (body, shape, its inline material, <material>)
        self._visual_materials: list[tuple[Body, Shape, Material, Element]] = []
        self._material_locations: dict[str, Location] = {}  # robot-level materials, for `robodesc check`
        # each joint's element, so that errors about its <parent>, <child> and <mimic> point at them
        self._joint_parts: dict[str, Element] = {}
        #: (parent tag, tag) of unknown elements -> [index of the one diagnostic about them, how many there are]
        self._unknown: dict[tuple[str, str], list[int]] = {}
        #: (xyz, rpy) as written -> the pose they make and the largest of its xyz in magnitude (see `_pose`);
        #: the pose is the first record's, and every later record gets a copy of it (nothing changes a
        #: record's arrays while the load runs, and the cache goes with the reader)
        self._poses: dict[tuple[str | None, str | None], tuple[np.ndarray, float]] = {}
        #: the sum of that largest coordinate over every origin read: no body is farther from the root
        #: than three times this (see `read`)
        self._reach = 0.0
        self._arrays: dict[tuple[str | None, int], np.ndarray] = {}  # the same for other vectors (see `_array`)
        #: an <axis>'s xyz as written -> the axis, for axes of length 1 (nearly all: `0 0 1`, `0 1 0`, ...),
        #: which need neither a diagnostic nor a fact: each text read once per load, copied after
        self._unit_axes: dict[str | None, np.ndarray] = {}
        #: (filename, scale) as written -> (scale, path, tried): robots name each mesh file several times
        #: (visual and collision, left and right), and a mesh's parts depend on nothing else (see `_mesh`)
        self._meshes: dict[tuple[str, str | None], tuple[np.ndarray, str | None, list[str]]] = {}
        #: the links with an inertial, and the inertials' numbers (13 each, see `_mass_numbers`) in one flat list
        #: (no container kept per inertial): their records are made in one batch by `_make_inertials`
        self._inertial_bodies: list[Body] = []
        self._inertial_numbers: list[float] = []

    # -- helpers --------------------------------------------------------------------------
    def _pose(self, element: Element | None) -> np.ndarray:
        """The 4x4 pose of an <origin> element (identity when absent). A pose depends on nothing but
        the two attributes' text, and most files write few origins many times (`0 0 0` on nearly every
        visual and collision), so each text is turned into a pose once per load, handed to the first
        record that has it and copied for the others. Each origin's largest coordinate is added to
        `_reach` (the bound `read` checks poses with)."""
        if element is None:
            return IDENTITY.copy()
        key = (element.get("xyz"), element.get("rpy"))
        found = self._poses.get(key)
        if found is None:
            xyz, rpy = self._xyz_rpy(element)
            largest = max(map(abs, xyz))
            self._reach += largest
            pose = pose_from_xyz_rpy(xyz, rpy)
            self._poses[key] = (pose, largest)
            return pose
        pose, largest = found
        self._reach += largest
        return pose.copy()

    def _array(self, element: Element, name: str, count: int) -> np.ndarray:
        """The required attribute `name` as an array of `count` numbers. Like poses, each text (a mesh's
        `scale="1 1 1"`, a color) is read once per load and copied after."""
        key = (element.get(name), count)
        array = self._arrays.get(key)
        if array is None:  # a missing or malformed attribute raises here, and is never remembered
            array = self._arrays[key] = np.array(self.values.vector(element, name, count))
        return array.copy()

    def _xyz_rpy(self, element: Element) -> tuple[list[float] | tuple, list[float] | tuple]:
        """The xyz and rpy of an <origin> element, each defaulting to zeros. Plain numbers (nearly every
        origin) are read in one pass over both attributes; anything else attribute by attribute, so
        that a fault is reported as `Values.vector` reports it."""
        texts = _origin_texts(element)
        if texts is not None:
            values = plain_numbers(*texts)
            if values is not None:
                return values[:3], values[3:]
        v = self.values
        try:
            xyz = v.vector(element, "xyz", 3, None)
            rpy = v.vector(element, "rpy", 3, None)
        except MalformedValue as exc:
            raise MalformedPose(
                exc.message,
                location=exc.location,
                construct=exc.construct,
                suggestion='write origin as xyz="x y z" rpy="roll pitch yaw"',
            ) from None
        return xyz or _ZERO3, rpy or _ZERO3

    def _keep(self, element: Element, owner: str | None, parent: str) -> Extra:
        """An element URDF does not model, kept as an `Extra` (its XML rendered only when asked for),
        so that nothing written is lost; an element of no known extension is also reported: once per
        (parent tag, tag), counted in `_count_unknown`, so a million unknown siblings cost a counter each."""
        extra = Extra(element.tag, partial(to_xml, element), self.values.where(element), owner, dict(element.attrib))
        if parent == "robot" and element.tag in EXTENSION_TAGS:
            return extra
        seen = self._unknown.get((parent, element.tag))
        if seen is not None:
            seen[1] += 1
            return extra
        self._unknown[(parent, element.tag)] = [len(self.model.diagnostics), 1]
        self.model.diagnose(
            Severity.INFO, "unknown-element", f"<{element.tag}> is not part of URDF; kept as an extra", extra.location
        )
        return extra

    def _count_unknown(self) -> None:
        """Say in each unknown-element diagnostic how many such elements the file holds."""
        diagnostics = self.model.diagnostics
        for (parent, tag), (index, count) in self._unknown.items():
            if count > 1:
                diagnostic = diagnostics[index]
                message = f"{diagnostic.message} ({count:,} <{tag}> in <{parent}> elements; the first is here)"
                diagnostics[index] = dataclasses.replace(diagnostic, message=message)

    def _unique_name(self, element: Element, seen: dict, what: str) -> str:
        """The required name of a link, joint or material; urdfdom refuses a name used twice."""
        v = self.values
        name = element.get("name")
        if name is None:  # `required` says so
            name = v.required(element, "name", f"every {what} needs a name")
        if name in seen:
            rename = f"rename one of the {what}s called {name!r}"
            raise v.error(DuplicateName, element, f"{what} {name!r} is defined twice", name, rename)
        return name

    # -- the document -----------------------------------------------------------------------
    def read(self, root: Element) -> Model:
        """The whole document: the children of <robot> in file order, then what needs all of them."""
        v = self.values
        v.require(
            root.tag == "robot",
            MissingRootElement,
            root,
            f"a URDF file has <robot> as its top element, not <{root.tag}>",
            construct=root.tag,
            suggestion="is this the right format? pass format=... to choose another",
        )
        name = v.required(root, "name", "the robot's name")
        self._check_version(root)
        model = self.model
        model.name = name
        links: dict[str, Body] = {}
        joints: dict[str, Joint] = {}
        for child in root:
            tag = child.tag
            if tag == "link":
                body = self._link(child, links)
                links[body.name] = body
            elif tag == "joint":
                joint = self._joint(child, joints)
                joints[joint.name] = joint
            elif tag == "material":
                self._robot_material(child)
            else:
                extra = self._keep(child, child.get("reference"), "robot")
                model.extras.append(extra)
        self._make_inertials()
        self._count_unknown()
        self._resolve_visual_materials()
        v.require(links, InvalidTree, root, "the robot has no links", suggestion='add at least one <link name="..."/>')
        self._build_tree(root, links, joints)
        self._check_mimics(joints)
        if self._material_locations:
            model.root.extras.setdefault("urdf", {})["material_locations"] = self._material_locations
        # Every number read is finite, so every origin, axis and rotation is; a world position sums rotated
        # offsets along the body's chain, each no longer than three times its largest coordinate. When
        # the sum over every origin read keeps a margin from overflowing (4, not 3: rounding), no pose can
        # overflow, and the check (which composes the poses to say which one does) has nothing to find.
        if not math.isfinite(4.0 * self._reach):
            check_finite_poses(model)
        return model

    def _check_mimics(self, joints: dict[str, Joint]) -> None:
        """A mimic of an unknown joint is kept (urdfdom does not check; yourdfpy holds the follower at
        its offset, and so does robodesc's kinematics) but reported; a mimic loop cannot be evaluated.

        Each joint's walk up its leaders stops at a joint an earlier walk went through without finding
        a loop (what follows it is that walk's loop-free rest), so every joint is walked through once:
        a chain of mimics as long as the robot costs its length, not its length cubed."""
        clear: set[str] = set()  # joints whose leaders lead to no loop
        for joint in joints.values():
            if joint.mimic is None:
                continue
            leader = joints.get(joint.mimic.joint)
            if joint.dof > 1 or (joint.dof == 1 and leader is not None and leader.dof > 1):
                self.model.diagnose(
                    Severity.WARNING,
                    "mimic-ignored",
                    f"<mimic> of joint {joint.name!r} is ignored: only single-valued joints can follow or be followed",
                    self._part(joint, "mimic"),
                    "remove the <mimic> element",
                )
                joint.mimic = None
                continue
            if leader is None:
                self.model.diagnose(
                    Severity.WARNING,
                    "mimic-unknown-joint",
                    f"joint {joint.name!r} mimics {joint.mimic.joint!r}, which is not a joint of this robot; "
                    "it stays at its offset",
                    self._part(joint, "mimic"),
                    did_you_mean(joint.mimic.joint, joints) or "name an existing joint in <mimic joint=...>",
                )
                continue
            seen = [joint.name]
            walked = {joint.name}
            while (
                leader.name not in clear
                and leader.mimic is not None
                and leader.mimic.joint in joints
                and leader.name not in walked
            ):
                seen.append(leader.name)
                walked.add(leader.name)
                leader = joints[leader.mimic.joint]
            if leader.name in walked:
                raise InvalidValue(
                    "mimic joints follow each other in a loop: " + " -> ".join([*seen, leader.name]),
                    location=self._part(joint, "mimic"),
                    construct=joint.name,
                    suggestion="let one joint of the loop move on its own (remove its <mimic>)",
                )
            clear |= walked

    def _part(self, joint: Joint, tag: str) -> Location:
        """Where the joint's `<tag>` (parent, child, mimic) is; the joint's own location without one."""
        element = self._joint_parts.get(joint.name)
        part = element.find(tag) if element is not None else None
        return self.values.where(part) if part is not None else joint.location

    def _check_version(self, root: Element) -> None:
        """urdfdom accepts only version="1.0" (written as major.minor) when the attribute is given."""
        text = root.get("version")
        if text is None:
            return
        match = _VERSION.fullmatch(text)
        if match is None or (int(match.group(1)), int(match.group(2))) != (1, 0):
            raise self.values.error(
                MalformedValue,
                root,
                f"URDF version {excerpt(text)} is not supported; only 1.0 is",
                construct="robot/@version",
                suggestion='write version="1.0" or leave it out',
            )

    # -- materials ----------------------------------------------------------------------------
    def _material(self, element: Element) -> Material:
        """A <material> as written (robot-level or inline); which one a visual ends up with is decided
        in `_resolve_visual_materials`."""
        material = Material(element.get("name"))
        color = element.find("color")
        if color is not None:
            material.color = self._array(color, "rgba", 4)
        texture = element.find("texture")
        if texture is not None:
            material.texture = texture.get("filename")
        return material

    def _robot_material(self, element: Element) -> None:
        """A robot-level <material>, which visuals of any link (before or after it) may name."""
        name = self._unique_name(element, self.model.materials, "material")
        material = self._material(element)
        self._material_locations[name] = self.values.where(element)
        if material.color is None and material.texture is None:
            self.model.diagnose(
                Severity.WARNING,
                "empty-material",
                f"material {name!r} has neither a color nor a texture",
                self.values.where(element),
                'add <color rgba="r g b a"/> or <texture filename="..."/>',
            )
        self.model.materials[name] = material

    def _resolve_visual_materials(self) -> None:
        """Link visual materials to robot-level ones, as urdfdom does after reading all links."""
        materials = self.model.materials
        for body, shape, inline, element in self._visual_materials:
            name = inline.name
            if not name:
                continue
            if name in materials:  # the robot-level material wins, even over an inline definition
                shape.material = materials[name]
            elif inline.color is not None or inline.texture is not None:
                materials[name] = inline
            else:  # urdfdom 3 and later only warn here
                self.model.diagnose(
                    Severity.WARNING,
                    "undefined-material",
                    f"link {body.name!r} uses material {name!r}, which is not defined",
                    self.values.where(element),
                    did_you_mean(name, materials) or f'define <material name="{name}"> with a <color>',
                )

    # -- links ---------------------------------------------------------------------------------
    def _link(self, element: Element, links: dict) -> Body:
        """A <link> as a `Body`, its place in the tree left to `_build_tree`. Visual materials are
        noted for `_resolve_visual_materials`, since a robot-level material may come after the link.

        The parts of an <inertial>, <visual> or <collision> are found with `find` (in C, no dict made):
        when they account for all of its children (nearly always), nothing is written twice and nothing
        unknown is kept, and the child is not walked again for `_note_repeated`."""
        name = self._unique_name(element, links, "link")
        # posed in `_build_tree` (by its parent joint's origin; the root by a copy of IDENTITY), not here;
        # name, parent, joints, pose, inertial, visuals, collisions, static, floating, location, extras
        body = Body(name, None, (), IDENTITY, None, [], [], False, False, self.values.where(element), {})
        first: dict[str, Element] = {}  # the link's first child of each tag, filled in by the loop
        nodes = [(element, first)]  # the link and those of its children that may hold facts for `_note_repeated`
        for child in element:
            tag = child.tag
            first.setdefault(tag, child)
            if tag == "visual" or tag == "collision":
                geometry, origin, material = child.find("geometry"), child.find("origin"), child.find("material")
                plain = _all_children(child, geometry, origin, material)
                shape = self._shape(child, geometry, origin, plain)
                if not plain or (geometry is not None and len(geometry) > 1):  # several shapes: a fact
                    nodes.append((child, _first_children(child)))
                if shape is None:
                    continue
                if tag == "collision":
                    body.collisions.append(shape)
                    continue
                if material is not None:
                    shape.material = inline = self._material(material)
                    self._visual_materials.append((body, shape, inline, material))
                    if material.get("name") is None:  # urdfdom refuses the visual (see checks.py)
                        shape.extras.setdefault("urdf", {})["material_location"] = self.values.where(material)
                body.visuals.append(shape)
            elif tag == "inertial":
                mass, inertia, origin = child.find("mass"), child.find("inertia"), child.find("origin")
                if first[tag] is child:  # urdfdom reads the first <inertial> only
                    self._inertial(body, child, mass, inertia, origin)
                if not _all_children(child, mass, inertia, origin):
                    nodes.append((child, _first_children(child)))
            else:
                body.extras.setdefault("xml", []).append(self._keep(child, name, "link"))
        self._note_repeated(nodes, body.extras)
        return body

    def _note_repeated(self, nodes: list[tuple[Element, dict[str, Element]]], extras: dict) -> None:
        """Record children of a link (and of its inertial, visuals and collisions) or of a joint that are
        read once (the first) but written several times, for checks.py: tag, parent, count and the
        location of the first one ignored. `nodes` are the link or joint and those of its children tagged
        as in `_NESTED` that may hold such children (the others hold none), in file order, each with its
        `_first_children`: the common case (nothing written twice) costs a length comparison per node."""
        repeated = []
        for node, first in nodes:
            geometry = first.get("geometry")
            if geometry is not None and len(geometry) > 1:  # urdfdom reads the first shape only
                repeated.append(self._repeated(geometry[0].tag, "geometry", len(geometry), geometry[1]))
            if len(first) == len(node):  # the common case: nothing written twice
                continue
            once = _READ_ONCE.get(node.tag, ())
            written: dict[str, list[Element]] = {}
            for child in node:
                if child.tag in once:
                    written.setdefault(child.tag, []).append(child)
            for tag, children in written.items():
                if len(children) > 1:
                    repeated.append(self._repeated(tag, node.tag, len(children), children[1]))
        if repeated:
            extras.setdefault("urdf", {})["repeated"] = repeated

    def _repeated(self, tag: str, parent: str, count: int, ignored: Element) -> dict:
        """One fact for checks.py's `repeated-element`: `tag` written `count` times in `parent`."""
        return {"tag": tag, "parent": parent, "count": count, "location": self.values.where(ignored)}

    def _inertial(
        self, body: Body, element: Element, mass_el: Element | None, inertia_el: Element | None, origin: Element | None
    ) -> None:
        """The numbers of the body's mass properties, from the first <mass>, <inertia> and <origin> of
        `element`, noted for `_make_inertials`; an <inertial> without <mass> or <inertia> is dropped, as
        urdfdom drops it, and the link loads without one."""
        if mass_el is None or inertia_el is None:
            missing = "<mass>" if mass_el is None else "<inertia>"
            self.model.diagnose(
                Severity.ERROR,
                "incomplete-inertial",
                f"<inertial> has no {missing}; the link is loaded without an inertial, as urdfdom does",
                self.values.where(element),
                _MISSING_INERTIAL_FIX[missing],
            )
            return
        self._inertial_bodies.append(body)
        self._inertial_numbers += self._mass_numbers(mass_el, inertia_el, origin)

    def _make_inertials(self) -> None:
        """Every body's `Inertial` in body axes, from the numbers `_inertial` noted. The arrays are made
        for all bodies at once: one table of every inertial's numbers and one stack of symmetric tensors
        taken from it, each record holding its own rows of them (views that overlap no other record's,
        so that editing one inertial in place changes that one only). Made one inertial at a time, each
        cost three small arrays (of its numbers, its tensor, its centre), which take longer on the clock
        than their instruction counts say."""
        bodies, numbers = self._inertial_bodies, self._inertial_numbers
        if not bodies:
            return
        # (`fromiter` converts the numbers in fewer steps than `array` does a list)
        table = np.fromiter(numbers, float, len(numbers)).reshape(len(bodies), 13)
        tensors = table.take(_INERTIA_TENSOR, 1)
        for at, body, com, tensor in zip(range(0, len(numbers), 13), bodies, table[:, 7:10], tensors):
            roll, pitch, yaw = numbers[at + 10 : at + 13]
            if roll or pitch or yaw:  # the tensor is given in the <origin> frame: turn it
                rotation = rpy_to_matrix(roll, pitch, yaw)
                tensor = rotation @ tensor.copy() @ rotation.T  # (from an array of its own, as always before)
            body.inertial = Inertial(numbers[at], com, tensor)

    def _mass_numbers(self, mass_el: Element, inertia_el: Element, origin: Element | None) -> list[float]:
        """The mass, the six inertia numbers and the origin's xyz and rpy (zeros where not written), 13
        numbers. When all are plain (nearly always) they are read in one pass (one `plain_numbers`, the
        measured cost of an inertial being mostly its number parsing); otherwise number by number and
        then as `_xyz_rpy` reads an origin, so that a fault is the one, and is reported as, before."""
        texts: list[Any] = [mass_el.get("value"), *map(inertia_el.get, _INERTIA_KEYS)]
        origin_texts = _origin_texts(origin) if None not in texts else None
        if origin_texts is not None:
            parts, text = origin_texts
            numbers = plain_numbers(texts + parts, "".join(texts) + text)
            if numbers is not None:
                return numbers
        numbers = plain_numbers(texts, "".join(texts)) if None not in texts else None
        if numbers is None:  # a fault, found (and reported) number by number
            v = self.values
            numbers = [v.number(mass_el, "value"), *v.numbers_of(inertia_el, _INERTIA_KEYS)]
        xyz, rpy = self._xyz_rpy(origin) if origin is not None else (_ZERO3, _ZERO3)
        return [*numbers, *xyz, *rpy]

    def _shape(
        self, element: Element, geometry_el: Element | None, origin: Element | None, plain: bool
    ) -> Shape | None:
        """A <visual> or <collision> from its first <geometry> and <origin>, or None when its geometry is
        left out (see `_geometry`). Only an element that is not `plain` (that has children other than
        the first <geometry>, <origin> and <material>) is walked for extras."""
        v = self.values
        if geometry_el is None:
            raise v.error(
                MissingAttribute,
                element,
                f"<{element.tag}> needs a <geometry>",
                construct=f"{element.tag}/geometry",
                suggestion='add <geometry><box size="..."/></geometry>',
            )
        geometry = self._geometry(geometry_el)
        if geometry is None:
            return None
        shape = Shape(geometry, self._pose(origin), element.get("name"))
        if not plain:
            for child in element:
                if child.tag not in _SHAPE_CHILDREN:
                    shape.extras.setdefault("xml", []).append(self._keep(child, None, element.tag))
        return shape

    def _geometry(self, element: Element) -> Geometry | None:
        """The first shape of a <geometry> (urdfdom reads only that one). <capsule> is accepted as an
        extension, where urdfdom drops the shape (docs/formats/urdf.md)."""
        v = self.values
        if len(element) == 0:
            raise v.error(
                MissingAttribute,
                element,
                "<geometry> is empty",
                construct="geometry",
                suggestion="put one <box>, <cylinder>, <sphere> or <mesh> inside",
            )
        shape = element[0]
        tag = shape.tag
        if tag == "mesh":  # first: real robots are nearly all meshes
            return self._mesh(shape)
        if tag == "box":
            return Box(self._array(shape, "size", 3))
        if tag == "sphere":
            return Sphere(v.number(shape, "radius"))
        if tag == "cylinder":
            return Cylinder(v.number(shape, "radius"), v.number(shape, "length"))
        if tag == "capsule":
            return Capsule(v.number(shape, "radius"), v.number(shape, "length"))
        raise v.error(
            UnsupportedGeometry,
            shape,
            f"<{tag}> is not a URDF geometry",
            construct=tag,
            suggestion=did_you_mean(tag, ["box", "sphere", "cylinder", "mesh", "capsule"])
            or "use box, sphere, cylinder or mesh",
        )

    def _mesh(self, element: Element) -> Mesh | None:
        """A <mesh>, its URI resolved now (existence only: the file is read when someone asks) so that a
        missing file is reported at load time; a missing file is a diagnostic, not an error, as
        in ROS, and a mesh without a filename is left out, as urdfdom leaves it out."""
        v = self.values
        uri = element.get("filename")
        if uri is None:  # urdfdom drops the shape with an error message; yourdfpy loads the rest
            self.model.diagnose(
                Severity.ERROR,
                "mesh-without-filename",
                "<mesh> has no filename; the shape is left out",
                v.where(element),
                'add filename="package://..."',
            )
            return None
        key = (uri, element.get("scale"))
        found = self._meshes.get(key)
        own = None  # a scale this mesh may keep: the one `_array` made for the first mesh of the key
        if found is None:  # the first <mesh> of this file and scale: its scale read, its file looked for
            own = scale = self._array(element, "scale", 3) if key[1] is not None else None
            # the mesh's location is said only by a confined load's refusal and the diagnostic below: a
            # mesh found in an unconfined load (nearly every one) is never located
            confined = self.context.allowed_roots is not None
            resolved = self.context.resolve(uri, v.where(element) if confined else None)
            found = self._meshes[key] = (_ONES3 if scale is None else scale, *resolved)
        scale, path, tried = found
        if path is None:
            self.model.diagnose(
                Severity.WARNING,
                "mesh-not-found",
                f"mesh {uri!r} cannot be found",
                v.where(element),
                "pass search_paths=[...] or set ROS_PACKAGE_PATH",
            )
        # each mesh its own scale (later meshes of a key copy the first one's: nothing changes it while loading)
        return Mesh(uri, scale.copy() if own is None else own, path, list(tried))

    # -- joints --------------------------------------------------------------------------------
    def _joint(self, element: Element, joints: dict) -> Joint:
        """A <joint>, read in named steps, always in this order (name, type, ends, origin, axis, limits,
        ...), so that a file with several faults always gets the same error, and the diagnostics the
        same order."""
        name = self._unique_name(element, joints, "joint")
        location = self.values.where(element)  # before its children's: `LocatingValues.detach` expects document order
        kind = self._joint_type(element, name)
        parts = _first_children(element)  # urdfdom reads the first of each child
        parent = self._joint_end(element, parts, name, "parent")
        child = self._joint_end(element, parts, name, "child")
        origin = self._pose(parts.get("origin"))
        limit_el, dynamics_el = parts.get("limit"), parts.get("dynamics")
        numbers = self._joint_numbers(limit_el, dynamics_el)
        limit_numbers = numbers[:4] if numbers is not None and limit_el is not None else None
        dynamics_numbers = numbers[-2:] if numbers is not None and dynamics_el is not None else None
        self._joint_parts[name] = element
        extras: dict[str, Any] = {}  # the steps below note what the model has no field for
        axis = self._joint_axis(name, kind, parts.get("axis"), extras)
        limits = self._joint_limits(name, kind, element, limit_el, extras, limit_numbers)
        dynamics, mimic = self._joint_dynamics_and_mimic(name, parts, dynamics_numbers)
        if len(parts) != len(element) or not parts.keys() <= _JOINT_MODELLED:  # more than the model's fields
            self._joint_urdf_only(parts, extras)
            self._joint_kept(name, element, parts, extras)
        # name, type, parent, child, origin, axis, axis2, limits, limits2, dynamics, mimic, reference, pitch,
        # location, extras
        return Joint(
            name, kind, parent, child, origin, axis, None, limits, None, dynamics, mimic, 0.0, 0.0, location, extras
        )

    def _joint_numbers(self, limit: Element | None, dynamics: Element | None) -> list[float] | None:
        """The numbers of the joint's <limit> (lower, upper, effort, velocity) and <dynamics> (damping,
        friction), as far as they are written, in one `plain_numbers` pass instead of one each. None
        when any is not plain or a required attribute is missing: then `_joint_limits` and
        `_joint_dynamics_and_mimic` read their own, in their order, and report the fault as before. An
        attribute with a default (lower, upper, damping, friction) stands as "0" where not written:
        float("0") is that default."""
        texts: list[Any] = []
        if limit is not None:
            texts += [limit.get("lower", "0"), limit.get("upper", "0"), limit.get("effort"), limit.get("velocity")]
        if dynamics is not None:
            damping, friction = dynamics.get("damping"), dynamics.get("friction")
            if damping is None and friction is None:
                return None
            texts += ["0" if damping is None else damping, "0" if friction is None else friction]
        if not texts or None in texts:
            return None
        return plain_numbers(texts, "".join(texts))

    def _joint_type(self, element: Element, name: str) -> JointType:
        """The type decides which of the other children apply, so it is read first; an unknown type
        (the names are case-sensitive, as in urdfdom) is refused with a "did you mean"."""
        v = self.values
        type_text = element.get("type")
        if type_text is None:  # `required` says so
            type_text = v.required(element, "type", "fixed, revolute, continuous, prismatic, floating or planar")
        kind = JOINT_TYPES.get(type_text)
        if kind is None:
            raise v.error(
                UnsupportedJointType,
                element,
                f"joint {name!r} has unknown type {excerpt(type_text)}",
                construct=type_text,
                suggestion=did_you_mean(type_text, JOINT_TYPES) or "use one of " + ", ".join(JOINT_TYPES),
            )
        return kind

    def _joint_end(self, element: Element, parts: dict[str, Element], name: str, end: str) -> str:
        """The link named by <parent> or <child> (`parts` is the joint's `_first_children`): both are
        required here; whether the link exists is checked in `_build_tree`, once all links are read,
        since a joint may come before its links."""
        end_el = parts.get(end)
        if end_el is None:
            raise self.values.error(
                MissingAttribute,
                element,
                f"joint {name!r} has no <{end}>",
                construct=f"joint/{end}",
                suggestion=f'add <{end} link="..."/>',
            )
        link = end_el.get("link")  # (`required` says it when missing)
        return link if link is not None else self.values.required(end_el, "link")

    def _joint_axis(self, name: str, kind: JointType, axis_el: Element | None, extras: dict[str, Any]) -> np.ndarray:
        """The axis of the joint's <axis> as a unit vector, as KDL and pinocchio use it. Without xyz it is
        1 0 0 (yourdfpy; urdfdom reads a zero axis, hence the warning); a zero axis cannot move a joint,
        but fixed and floating joints do not use theirs. A rescaled axis is kept as written for
        `robodesc check`."""
        if axis_el is None:
            return np.array(_X_AXIS)
        text = axis_el.get("xyz")
        unit = self._unit_axes.get(text)  # (a missing xyz is never remembered)
        if unit is not None:
            return unit.copy()
        v = self.values
        uses_axis = kind not in (JointType.FIXED, JointType.FLOATING)
        if uses_axis and "xyz" not in axis_el.attrib:
            self.model.diagnose(
                Severity.WARNING,
                "axis-without-xyz",
                f"<axis> of joint {name!r} has no xyz; robodesc uses 1 0 0 as yourdfpy does "
                "(urdfdom reads a zero axis)",
                v.where(axis_el),
                'write the direction, e.g. <axis xyz="0 0 1"/>',
            )
        xyz = v.vector(axis_el, "xyz", 3, _X_AXIS)
        norm = math.hypot(*xyz)  # neither overflows (1e200) nor underflows (1e-200) as a sum of squares would
        if norm == 0.0 and uses_axis:
            raise v.error(
                InvalidValue,
                axis_el,
                f"joint {name!r} has a zero axis",
                construct="axis/@xyz",
                suggestion='give the axis direction, e.g. xyz="0 0 1"',
            )
        if norm == 0.0:  # where the joint type ignores its axis, a zero one gives way to the default
            return np.array(_X_AXIS)
        if norm == 1.0:
            if text is not None:
                self._unit_axes[text] = np.array(xyz)
            return np.array(xyz)
        facts = extras.setdefault("urdf", {})
        facts["written_axis"], facts["axis_location"] = list(xyz), v.where(axis_el)
        return np.array([x / norm for x in xyz])  # numpy's element-wise division, bit for bit

    def _joint_limits(
        self,
        name: str,
        kind: JointType,
        element: Element,
        limit_el: Element | None,
        extras: dict[str, Any],
        numbers: list[float] | None,
    ) -> Limits:
        """The joint's <limit>, read and checked on every joint type, as urdfdom does, but only revolute
        and prismatic joints need one and keep its lower/upper (ROS ignores them elsewhere); dropped ones
        are kept as written for `robodesc check`. Without <limit>, every field stays None. `numbers` are
        its four numbers when `_joint_numbers` read them."""
        v = self.values
        bounded = kind in (JointType.REVOLUTE, JointType.PRISMATIC)
        if limit_el is None:
            if bounded:
                raise v.error(
                    MissingAttribute,
                    element,
                    f"{kind.value} joint {name!r} has no <limit>",
                    construct="joint/limit",
                    suggestion='add <limit lower="..." upper="..." effort="..." velocity="..."/>',
                )
            return Limits()
        if numbers is None:
            numbers = v.numbers_of(limit_el, _LIMIT_KEYS, _LIMIT_DEFAULTS)
        lower, upper, effort, velocity = numbers
        if bounded:
            return Limits(lower, upper, velocity, effort)
        if "lower" in limit_el.attrib or "upper" in limit_el.attrib:  # reported by checks.py
            facts = extras.setdefault("urdf", {})
            facts["dropped_limits"] = (v.number(limit_el, "lower", None), v.number(limit_el, "upper", None))
            facts["limit_location"] = v.where(limit_el)
        return Limits(None, None, velocity, effort)

    def _joint_dynamics_and_mimic(
        self, name: str, parts: dict[str, Element], numbers: list[float] | None
    ) -> tuple[Dynamics, Mimic | None]:
        """<dynamics> and <mimic> (from the joint's `_first_children`), which the model holds as typed
        fields (`numbers`: the damping and friction when `_joint_numbers` read them). urdfdom refuses a
        <dynamics> with neither damping nor friction; whether a mimic's leader exists is checked in
        `_check_mimics`, once all joints are read."""
        v = self.values
        dynamics_el = parts.get("dynamics")
        if dynamics_el is None:
            dynamics = Dynamics()
        else:
            if "damping" not in dynamics_el.attrib and "friction" not in dynamics_el.attrib:
                raise v.error(
                    MissingAttribute,
                    dynamics_el,
                    f"<dynamics> of joint {name!r} has neither damping nor friction",
                    construct="dynamics",
                    suggestion='add damping="..." or friction="...", or remove <dynamics>',
                )
            if numbers is None:
                numbers = v.numbers_of(dynamics_el, ("damping", "friction"), (0.0, 0.0))
            dynamics = Dynamics(*numbers)
        mimic_el = parts.get("mimic")
        if mimic_el is None:
            return dynamics, None
        mimic = Mimic(
            v.required(mimic_el, "joint", "the joint to follow"),
            v.number(mimic_el, "multiplier", 1.0),
            v.number(mimic_el, "offset", 0.0),
        )
        return dynamics, mimic

    def _joint_urdf_only(self, parts: dict[str, Element], extras: dict[str, Any]) -> None:
        """<safety_controller> and <calibration> (from the joint's `_first_children`): checked as urdfdom
        checks them (k_velocity required) and kept under `extras["urdf"]`, since no other format has them
        and the model has no field for them."""
        v = self.values
        safety_el = parts.get("safety_controller")
        if safety_el is not None:
            numbers = v.numbers_of(safety_el, _SAFETY_KEYS, _SAFETY_DEFAULTS)
            extras.setdefault("urdf", {})["safety_controller"] = dict(zip(_SAFETY_KEYS, numbers))
        calibration_el = parts.get("calibration")
        if calibration_el is not None:
            numbers = v.numbers_of(calibration_el, _CALIBRATION_KEYS, (None, None, None))
            extras.setdefault("urdf", {})["calibration"] = dict(zip(_CALIBRATION_KEYS, numbers))

    def _joint_kept(self, name: str, element: Element, parts: dict[str, Element], extras: dict[str, Any]) -> None:
        """What URDF does not define is kept, not lost: unknown children as `extras["xml"]` (with an
        info diagnostic), and children written more than once (urdfdom reads the first) for checks.py.
        `parts` (the joint's `_first_children`) tells the common case, nothing to keep, without a walk."""
        if len(parts) == len(element) and parts.keys() <= _JOINT_CHILDREN:
            return
        nodes = [(element, parts)]  # the joint and its children that have children a link's children have
        for child in element:
            if child.tag not in _JOINT_CHILDREN:
                extras.setdefault("xml", []).append(self._keep(child, name, "joint"))
                if child.tag in _NESTED:
                    nodes.append((child, _first_children(child)))
        self._note_repeated(nodes, extras)

    # -- the tree ------------------------------------------------------------------------------
    def _build_tree(self, root_el: Element, links: dict[str, Body], joints: dict[str, Joint]) -> None:
        """Links become the model's bodies in tree order (root first, then breadth-first), each posed by
        its parent joint's origin; joints keep file order. Runs once all links and joints are read,
        since a joint may name links written after it."""
        parent_joint, children = self._parent_joints(links, joints)
        model = self.model
        for name in self._tree_order(root_el, links, parent_joint, children):
            body = links[name]
            tree_joint = parent_joint.get(name)
            if tree_joint is not None:
                body.parent = tree_joint.parent
                body.joints = (tree_joint.name,)
                body.pose = tree_joint.origin
            else:  # the root
                body.pose = IDENTITY.copy()
            model.bodies[name] = body
        for joint in joints.values():
            model.joints[joint.name] = joint

    def _parent_joints(
        self, links: dict[str, Body], joints: dict[str, Joint]
    ) -> tuple[dict[str, Joint], dict[str, list[Joint]]]:
        """Each link's parent joint and each link's child joints (in file order). A joint naming a link
        that does not exist, or a link with two parents, is refused: URDF describes a tree."""
        parent_joint: dict[str, Joint] = {}
        children: dict[str, list[Joint]] = {}
        for joint in joints.values():
            if joint.parent not in links or joint.child not in links:
                end, link = ("parent", joint.parent) if joint.parent not in links else ("child", joint.child)
                raise UnresolvedReference(
                    f"{end} link {link!r} of joint {joint.name!r} is not defined",
                    location=self._part(joint, end),
                    construct=link,
                    suggestion=did_you_mean(link, links) or f'add <link name="{link}"/>',
                )
            if joint.child in parent_joint:
                raise InvalidTree(
                    f"link {joint.child!r} is the child of two joints, "
                    f"{parent_joint[joint.child].name!r} and {joint.name!r}",
                    location=self._part(joint, "child"),
                    construct=joint.child,
                    suggestion="a URDF is a tree: give each link at most one parent joint",
                )
            parent_joint[joint.child] = joint
            children.setdefault(joint.parent, []).append(joint)
        return parent_joint, children

    def _tree_order(
        self,
        root_el: Element,
        links: dict[str, Body],
        parent_joint: dict[str, Joint],
        children: dict[str, list[Joint]],
    ) -> list[str]:
        """Link names from the one root link, breadth-first (siblings in joint order). With one parent
        each, links the walk does not reach can only be a loop of joints apart from the root."""
        roots = [name for name in links if name not in parent_joint]
        if not roots:
            raise self.values.error(
                InvalidTree,
                root_el,
                "no root link: every link is the child of a joint, so the joints form a loop",
                suggestion="remove one joint of the loop",
            )
        if len(roots) > 1:
            raise self.values.error(
                InvalidTree,
                root_el,
                f"two root links found: {roots[0]!r} and {roots[1]!r}",
                construct=roots[1],
                suggestion=f"connect {roots[1]!r} to the tree with a joint",
            )
        order = [roots[0]]
        for name in order:  # breadth-first: the list grows while we walk it
            for joint in children.get(name, ()):
                order.append(joint.child)
        if len(order) != len(links):
            reached = set(order)
            stray = next(n for n in links if n not in reached)
            raise InvalidTree(
                f"link {stray!r} is in a loop of joints that is not connected to the root",
                location=links[stray].location,
                construct=stray,
                suggestion="remove one joint of the loop",
            )
        return order
