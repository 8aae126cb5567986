"""SDF XML -> the parsed form (`desc.py`), file by file, with includes resolved.

This is where libsdformat's parser rules live: the `<sdf>` root and its version, required
attributes and values, reserved and duplicate names, the version converters that matter for
kinematics (1.4 axes in the model frame, `use_parent_model_frame`, pre-1.7 name collisions
renamed), and `<include>` (URI lookup, `model.config`, name/pose/static/placement_frame
overrides, `merge="true"`). Each file is parsed once per load: the result is kept in the SDF
namespace of the load's cache (`context.cache_for("sdf")`), keyed by its absolute path.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import os
from collections.abc import Callable
from functools import partial
from typing import TypeVar

import numpy as np

from ...core.diagnostics import Diagnostic, Severity
from ...core.errors import (
    CyclicInclude,
    DuplicateName,
    InvalidTree,
    InvalidValue,
    Location,
    MalformedPose,
    MissingAttribute,
    MissingRootElement,
    ReservedName,
    ResourceNotFound,
    RobodescError,
    UnsupportedJointType,
    UnsupportedVersion,
    did_you_mean,
)
from ...core.model import Dynamics, JointType, Limits
from ...core.resources import MODEL_PATH_VARIABLES, LoadContext, env_paths
from ..xml import Document, Element, parse_xml, root_tag
from .desc import (
    AxisDesc,
    FileDesc,
    FrameDesc,
    InertialDesc,
    Instance,
    JointDesc,
    LinkDesc,
    ModelDesc,
    Node,
    PoseRef,
    WorldDesc,
)
from .geometry import read_shape
from .inertia import combine, is_valid_mass_matrix, solid
from .spec import (
    FREE_FORM,
    JOINT_TYPE_NAMES,
    KNOWN_CHILDREN,
    LATEST_VERSION,
    REQUIRED_ATTRIBUTES,
    SUPPORTED_VERSIONS,
    TYPED_CHILDREN,
    is_custom,
    is_reserved_name,
    parse_version,
)
from .values import parse_bool, parse_color, parse_double, parse_finite, parse_int, parse_pose, parse_vector, text_of

_Named = TypeVar("_Named", LinkDesc, JointDesc, FrameDesc)  # what a pre-1.7 name collision renames
_JOINT_TYPES = {name: JointType(name) for name in JOINT_TYPE_NAMES}
_TRUE_TEXTS = ("true", "True", "TRUE", "1")  # what the 1.6 -> 1.7 converter maps for use_parent_model_frame
_NO_LIMIT = 1e16
_JOINT_CHILDREN = {
    "pose",
    "parent",
    "child",
    "axis",
    "axis2",
    "thread_pitch",
    "screw_thread_pitch",
    "gearbox_ratio",
    "gearbox_reference_body",
}
_AXIS_CHILDREN = {"xyz", "limit", "dynamics", "use_parent_model_frame", "mimic", "initial_position"}


class Loader:
    """One top-level load: parses each file once, resolves includes, detects include cycles."""

    def __init__(self, context: LoadContext) -> None:
        self.context = context
        self.stack: list[str] = []
        cache = context.cache_for("sdf")  # shared by every SDF file of the load, nested loads too
        #: (absolute path, model folder it was found through) -> the file's parsed form
        self.files: dict[tuple[str, str | None], FileDesc] = cache.setdefault("files", {})
        #: folder -> the load seen from that folder (relative URIs of the files there)
        self.contexts: dict[str, LoadContext] = cache.setdefault("contexts", {})

    # -- files -----------------------------------------------------------------------------
    def parse_text(self, data: bytes, source: str | None, base_dir: str) -> tuple[FileDesc, Document]:
        """The top-level file of the load."""
        document = parse_xml(data, source)
        if source is not None:
            self.stack.append(os.path.abspath(source))
        return FileParser(self, document, source, [base_dir]).parse_root(), document

    def file_desc(self, path: str, where: Location | None, folder: str | None = None) -> FileDesc:
        """The parsed form of the SDF (or URDF) file at `path`, parsed once per load.

        `folder` is the model folder the file was found through, if any: libsdformat then also
        resolves the file's own relative includes against the folder that holds the model folder.
        """
        path = os.path.abspath(path)
        key = (path, folder)
        cached = self.files.get(key)
        if cached is not None:
            return cached
        if path in self.stack:
            chain = " -> ".join(os.path.basename(p) for p in (*self.stack[self.stack.index(path) :], path))
            raise CyclicInclude(
                f"files include each other in a loop: {chain}",
                location=where,
                construct=path,
                suggestion="remove one <include> of the loop",
            )
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            raise ResourceNotFound(
                f"cannot read {path}: {exc.strerror or exc}", location=where, construct=path
            ) from None
        self.stack.append(path)
        try:
            if root_tag(data[:4096]) == "robot":
                desc = self.urdf_desc(path, where)
            else:
                bases = [os.path.dirname(path)]
                if folder is not None and os.path.dirname(os.path.abspath(folder)) not in bases:
                    bases.append(os.path.dirname(os.path.abspath(folder)))
                document = parse_xml(data, path)
                desc = FileParser(self, document, path, bases).parse_root()
        finally:
            self.stack.pop()
        self.files[key] = desc
        return desc

    def urdf_desc(self, path: str, where: Location | None) -> FileDesc:
        """A URDF file included from SDF: loaded by the URDF reader, then seen as an SDF model."""
        if self.context.load_file is None:
            raise ResourceNotFound(
                f"{path} is a URDF file and no URDF reader is available", location=where, construct=path
            )
        model = self.context.load_file(path, format="urdf")
        from .urdf import model_desc_from_urdf

        desc = FileDesc(source=path, version=LATEST_VERSION, model=model_desc_from_urdf(model, path))
        desc.diagnostics = list(model.diagnostics)
        return desc

    # -- URIs ------------------------------------------------------------------------------
    def context_at(self, base_dir: str) -> LoadContext:
        if base_dir == self.context.base_dir:
            return self.context
        found = self.contexts.get(base_dir)
        if found is None:  # the same load (cache, resolver, search paths) seen from another folder
            found = self.contexts[base_dir] = self.context.at(base_dir)
        return found

    def resolve(self, uri: str, base_dirs: list[str]) -> tuple[str | None, list[str]]:
        """A local path for `uri`, as libsdformat finds includes and meshes.

        `model://NAME/rest` through the model paths; `file://` and relative paths against the
        including file's folder, and a relative path that is not there through the model paths
        too (libsdformat's find-file callback does the same).
        """
        tried: list[str] = []
        bare = "://" not in uri and not os.path.isabs(uri)
        for base_dir in base_dirs:
            path, attempts = self.context_at(base_dir).resolve(uri)
            tried.extend(t for t in attempts if t not in tried)
            if path is not None:
                return path, tried
        if bare and uri:
            path, attempts = self.context_at(base_dirs[0]).resolve("model://" + uri)
            tried.extend(t for t in attempts if t not in tried)
            if path is not None:
                return path, tried
        return None, tried

    def model_paths(self) -> list[str]:
        return [*self.context.search_paths, *env_paths(MODEL_PATH_VARIABLES)]

    def resolve_include(self, uri: str, base_dirs: list[str]) -> tuple[str | None, list[str]]:
        """Like `resolve`, for an include URI, which may also name a model folder."""
        path, tried = self.resolve(uri, base_dirs)
        if path is not None:
            return path, tried
        # model folders (and files the resolver did not find): libsdformat's own lookup
        candidates: list[str] = []
        if uri.startswith("model://"):
            rest = uri[len("model://") :]
            candidates = [os.path.join(root, rest) for root in self.model_paths()]
        elif uri.startswith("file://"):
            rest = uri[len("file://") :]
            candidates = [rest] if os.path.isabs(rest) else [os.path.join(b, rest) for b in base_dirs]
        elif "://" not in uri:
            if os.path.isabs(uri):
                candidates = [uri]
            else:
                candidates = [os.path.join(b, uri) for b in base_dirs]
                candidates += [os.path.join(root, uri) for root in self.model_paths()]
        for candidate in candidates:
            if candidate not in tried:
                tried.append(candidate)
            if os.path.exists(candidate):
                return os.path.normpath(candidate), tried
        return None, tried


class FileParser:
    """Parses one SDF document into a `FileDesc`."""

    def __init__(self, loader: Loader, document: Document, source: str | None, base_dirs: list[str]) -> None:
        self.loader = loader
        self.document = document
        self.source = source
        self.base_dirs = base_dirs
        self.version: tuple[int, int] = LATEST_VERSION
        self.desc = FileDesc(source=source, version=LATEST_VERSION)
        self.scopes: dict[int, ModelDesc | WorldDesc] = {}  # id(<model> or <world> element) -> its parsed form

    # -- helpers ---------------------------------------------------------------------------
    def at(self, element) -> Callable[[], Location]:
        return partial(self.where, element)

    def where(self, element) -> Location:
        return Location(file=self.source, node=(self.document, element))

    def diagnose(self, severity: Severity, code: str, message: str, element, suggestion: str | None = None) -> None:
        self.desc.diagnostics.append(Diagnostic(severity, code, message, self.where(element), suggestion))

    def keep(self, element, parent: str | None = None) -> Node:
        self.check_kept(element, parent)
        known = KNOWN_CHILDREN.get(parent) if parent is not None else None
        if known is not None and element.tag not in known and not is_custom(element.tag):
            self.diagnose(
                Severity.INFO,
                "unknown-element",
                f"<{element.tag}> is not an SDF child of <{parent}>; it is kept as an extra (libsdformat warns and "
                "ignores it)",
                element,
                did_you_mean(element.tag, known),
            )
        return Node(element, self.document, self.source)

    def unknown(self, element) -> None:
        if is_custom(element.tag):
            return
        self.diagnose(
            Severity.INFO,
            "unknown-element",
            f"<{element.tag}> is not an element robodesc reads here; libsdformat ignores it",
            element,
        )

    def required(self, element, attribute: str) -> str:
        value = element.get(attribute)
        if value is None:
            raise MissingAttribute(
                f"<{element.tag}> needs the attribute {attribute!r}",
                location=self.where(element),
                construct=f"{element.tag}/@{attribute}",
                suggestion=f'add {attribute}="..." to <{element.tag}>',
            )
        return value

    def name_of(self, element, what: str | None = None) -> str:
        name = self.required(element, "name")
        if is_reserved_name(name):
            raise ReservedName(
                f"the {what or element.tag} name {name!r} is reserved",
                location=self.where(element),
                construct=name,
                suggestion="names 'world' and __anything__ are reserved; rename it",
            )
        return name

    def reference(self, value: str, element, attribute: str) -> str:
        """A frame reference (relative_to, attached_to, ...): '__root__' is reserved."""
        value = value.strip()
        if value == "__root__":
            raise ReservedName(
                f"'__root__' is reserved; it cannot be the value of {attribute}",
                location=self.where(element),
                construct=attribute,
                suggestion="name a frame of this model or world",
            )
        return value

    def child_text(self, element, tag: str) -> str | None:
        child = element.find(tag)
        return None if child is None else text_of(child)

    def child_double(self, element, tag: str, default: float, allow_inf: bool = False) -> float:
        child = element.find(tag)
        if child is None:
            return default
        return parse_finite(text_of(child), self.at(child), tag, allow_inf)

    def child_bool(self, element, tag: str, default: bool) -> bool:
        child = element.find(tag)
        if child is None:
            return default
        return parse_bool(text_of(child), self.at(child), tag)

    def pose_element(self, element) -> PoseRef:
        attributes = element.attrib
        relative_to = self.reference(attributes.get("relative_to", ""), element, "//pose/@relative_to")
        frame = attributes.get("frame", "").strip()
        if frame:
            self.diagnose(
                Severity.WARNING,
                "pose-frame-ignored",
                f"//pose/@frame={frame!r} is ignored: libsdformat gives it no meaning (SDF 1.7 replaced it "
                "by @relative_to)",
                element,
                f'write relative_to="{frame}" in SDF 1.7 or later',
            )
        degrees_text = attributes.get("degrees")
        degrees = parse_bool(degrees_text, self.at(element), "pose/@degrees") if degrees_text is not None else False
        rotation_format = attributes.get("rotation_format", "euler_rpy").strip()
        if degrees and rotation_format == "quat_xyzw":
            raise MalformedPose(
                "//pose/@degrees='true' does not apply to a quaternion",
                location=self.where(element),
                construct="pose/@degrees",
                suggestion='remove degrees="true" or write the rotation as roll pitch yaw',
            )
        matrix = parse_pose(text_of(element), rotation_format, degrees, self.at(element))
        return PoseRef(matrix, relative_to, self.where(element))

    def pose_of(self, element) -> PoseRef:
        pose_el = element.find("pose")
        if pose_el is None:
            return PoseRef(np.eye(4), "", self.where(element))
        return self.pose_element(pose_el)

    def check_kept(self, element, parent: str | None = None) -> None:
        """Check what libsdformat checks in an element robodesc only keeps: typed values, required names."""
        stack = [(element, parent)]
        while stack:
            node, parent = stack.pop()
            tag = node.tag
            if is_custom(tag):
                continue
            required = REQUIRED_ATTRIBUTES.get(tag)
            if required is not None and (parent in required[0] or not required[0]):
                for attribute in required[1]:
                    self.required(node, attribute)
            kind = TYPED_CHILDREN.get((parent, tag)) if parent is not None else None
            if kind is not None:
                self.check_value(node, kind)
            if tag in FREE_FORM:
                continue
            stack.extend((child, tag) for child in node)

    def check_value(self, element, kind: str) -> None:
        text, where = text_of(element), self.at(element)
        if kind == "double":
            parse_double(text, where, element.tag)
        elif kind == "int":
            parse_int(text, where, element.tag)
        elif kind == "bool":
            parse_bool(text, where, element.tag)
        elif kind == "vector3":
            parse_vector(text, 3, where, element.tag)
        elif kind == "color":
            parse_color(text, where, element.tag)
        elif kind == "pose":
            degrees_text = element.get("degrees")
            degrees = parse_bool(degrees_text, where, "pose/@degrees") if degrees_text is not None else False
            parse_pose(text, element.get("rotation_format", "euler_rpy").strip(), degrees, where)

    # -- the root --------------------------------------------------------------------------
    def parse_root(self) -> FileDesc:
        desc = self._parse_root()
        from .checks import lint  # what loads but is doubtful: reader diagnostics on the raw XML

        lint(self, desc)
        return desc

    def _parse_root(self) -> FileDesc:
        root = self.document.root
        if root.tag != "sdf":
            raise MissingRootElement(
                f"an SDF file has <sdf> as its top element, not <{root.tag}>",
                location=self.where(root),
                construct=root.tag,
                suggestion='wrap the content in <sdf version="1.12">...</sdf> (files with a <gazebo> root are '
                "SDF 1.2 or older, which libsdformat no longer reads)",
            )
        text = root.get("version")
        if text is None:
            raise MissingAttribute(
                "<sdf> has no version attribute",
                location=self.where(root),
                construct="sdf/@version",
                suggestion='write <sdf version="1.12">',
            )
        version = parse_version(text)
        if version not in SUPPORTED_VERSIONS:
            raise UnsupportedVersion(
                f"SDF version {text!r} cannot be read (robodesc reads 1.0 to 1.12, as libsdformat 16 does)",
                location=self.where(root),
                construct="sdf/@version",
                suggestion='write a version from 1.4 to 1.12, e.g. version="1.12"',
            )
        self.version = self.desc.version = version
        desc = self.desc
        models: list[Element | Instance] = []  # <model> elements, or a top-level <include>'s instance
        lights: list[Element | Node] = []  # elements, or the nodes of included lights
        actors: list[Element | Node] = []
        for child in root:
            tag = child.tag
            if tag == "world":
                world = self.parse_world(child)
                if any(w.name == world.name for w in desc.worlds):
                    raise DuplicateName(
                        f"there are two worlds named {world.name!r}",
                        location=self.where(child),
                        construct=world.name,
                        suggestion="give each world its own name",
                    )
                desc.worlds.append(world)
            elif tag == "model":
                models.append(child)
            elif tag == "light":
                lights.append(child)
            elif tag == "actor":
                actors.append(child)
            elif tag == "include":
                holder = ModelDesc(name="", version=self.version, source=self.source, location=self.where(child))
                self.include(child, holder)
                for instance in holder.models:
                    models.append(instance)
                for node in holder.kept:
                    (lights if node.element.tag == "light" else actors).append(node)
            else:
                self.unknown(child)
                desc.kept.append(self.keep(child, "sdf"))
        groups = [(n, g) for n, g in (("model", models), ("light", lights), ("actor", actors)) if g]

        def located(item):
            return item.location if isinstance(item, (Instance, Node)) else self.where(item)

        if len(groups) > 1:
            raise InvalidTree(
                "the <sdf> element holds more than one kind of top element: " + ", ".join(n for n, _ in groups),
                location=located(groups[1][1][0]),
                construct=groups[1][0],
                suggestion="a file holds one <model>, one <light> or one <actor> (or worlds)",
            )
        for name, group in groups:
            if len(group) > 1:
                raise InvalidTree(
                    f"the <sdf> element holds more than one <{name}>",
                    location=located(group[1]),
                    construct=name,
                    suggestion=f"keep one <{name}> per file, or put them in a <world>",
                )
        if desc.worlds and (models or lights or actors):
            self.diagnose(
                Severity.WARNING,
                "model-beside-world",
                "the file holds a <world> and a top-level model, light or actor; robodesc loads the world and "
                "keeps the others as extras",
                root,
                "put the model inside the world",
            )
            for item in models + lights + actors:
                if not isinstance(item, Instance):
                    desc.worlds[0].kept.append(item if isinstance(item, Node) else self.keep(item, "sdf"))
            return desc
        if models:
            first = models[0]
            if isinstance(first, Instance):  # a top-level <include>: the included model, overridden
                desc.model = dataclasses.replace(
                    first.desc,
                    name=first.name,
                    pose=first.pose,
                    static=first.static,
                    placement_frame=first.placement_frame,
                    kept=first.desc.kept + first.kept,
                    scope=None,
                )
            else:
                desc.model = self.parse_model(first, top=True)
        desc.lights = [el if isinstance(el, Node) else self.keep(el, "sdf") for el in lights]
        desc.actors = [el if isinstance(el, Node) else self.keep(el, "sdf") for el in actors]
        for node in desc.lights + desc.actors:
            self.name_of(node.element)
        return desc

    # -- worlds ----------------------------------------------------------------------------
    def parse_world(self, element) -> WorldDesc:
        name = self.required(element, "name")
        world = WorldDesc(name=name, version=self.version, source=self.source, location=self.where(element))
        self.scopes[id(element)] = world
        world.node = Node(element, self.document, self.source)
        for child in element:
            tag = child.tag
            if tag == "model":
                world.models.append(self.nested_instance(child, in_world=True))
            elif tag == "include":
                self.include(child, world)
            elif tag == "frame":
                world.frames.append(self.parse_frame(child, "world"))
            elif tag == "joint":
                world.joints.append(self.parse_joint(child, convert14=False))
            else:
                world.kept.append(self.keep(child, "world"))
        self.check_world_names(world, element)
        return world

    def check_world_names(self, world: WorldDesc, element) -> None:
        for tag in ("light", "actor"):
            names: set[str] = set()
            for node in world.kept:
                if node.element.tag == tag:
                    name = node.element.get("name", "")
                    if name in names:
                        raise DuplicateName(
                            f"{tag} with name {name!r} already exists in world {world.name!r}",
                            location=node.location,
                            construct=name,
                            suggestion=f"rename one of the {tag}s called {name!r}",
                        )
                    names.add(name)
        seen: dict[str, str] = {}
        for kind, items in (("model", world.models), ("joint", world.joints)):
            for item in items:
                if item.name in seen and seen[item.name] == kind:
                    raise DuplicateName(
                        f"{kind} with name {item.name!r} already exists in world {world.name!r}",
                        location=item.location,
                        construct=item.name,
                        suggestion=f"rename one of the {kind}s called {item.name!r}",
                    )
                seen.setdefault(item.name, kind)
        frames: list[FrameDesc] = []
        for frame in world.frames:
            if any(f.name == frame.name for f in frames):
                raise DuplicateName(
                    f"frame with name {frame.name!r} already exists in world {world.name!r}",
                    location=frame.location,
                    construct=frame.name,
                    suggestion=f"rename one of the frames called {frame.name!r}",
                )
            if frame.name in seen:
                if self.version < (1, 7):
                    frame = self.renamed(frame, seen, "_frame", "frame", world.name)
                else:
                    raise DuplicateName(
                        f"frame {frame.name!r} in world {world.name!r} has the name of a {seen[frame.name]}",
                        location=frame.location,
                        construct=frame.name,
                        suggestion="since SDF 1.7 models, joints and frames of a world need distinct names",
                    )
            seen[frame.name] = "frame"
            frames.append(frame)
        world.frames = frames
        for joint in world.joints:
            if joint.name in (m.name for m in world.models):
                raise DuplicateName(
                    f"joint {joint.name!r} in world {world.name!r} has the name of a model",
                    location=joint.location,
                    construct=joint.name,
                    suggestion="give models, joints and frames distinct names",
                )

    def renamed(self, item: _Named, seen: dict[str, str], suffix: str, kind: str, owner: str) -> _Named:
        """libsdformat's fix for pre-1.7 name collisions: NAME_link, NAME_joint, NAME_frame (numbered)."""
        new = item.name + suffix
        i = 0
        while new in seen:
            new = f"{item.name}{suffix}{i}"
            i += 1
        self.desc.diagnostics.append(
            Diagnostic(
                Severity.WARNING,
                "name-collision-renamed",
                f"{kind} {item.name!r} in {owner!r} has the name of another element; renamed {new!r}, as "
                "libsdformat does for files older than SDF 1.7",
                item.location,
                "give every link, joint, frame and model of a scope its own name",
            )
        )
        return dataclasses.replace(item, name=new)

    # -- models ----------------------------------------------------------------------------
    def nested_instance(self, element, in_world: bool = False) -> Instance:
        desc = self.parse_model(element, top=False, convert14=in_world)
        return Instance(
            desc=desc,
            name=desc.name,
            pose=desc.pose,
            static=desc.static,
            placement_frame=desc.placement_frame,
            location=desc.location,
        )

    def parse_model(self, element, top: bool, convert14: bool | None = None) -> ModelDesc:
        if convert14 is None:
            convert14 = top
        convert14 = convert14 and self.version <= (1, 4)
        name = self.name_of(element, "model")
        if not name and not top:  # its links would be named '::link', which no reference can reach
            raise InvalidValue(
                "a model inside a world or another model has an empty name",
                location=self.where(element),
                construct="model/@name",
                suggestion='give the model a name="..." (its links and joints are named after it)',
            )
        model = ModelDesc(name=name, version=self.version, source=self.source, location=self.where(element))
        self.scopes[id(element)] = model
        if element.get("canonical_link") is not None:
            model.canonical_link = self.reference(element.get("canonical_link"), element, "canonical_link")
        if element.get("placement_frame") is not None:
            model.placement_frame = self.reference(element.get("placement_frame"), element, "placement_frame")
        model.static = self.child_bool(element, "static", False)
        pose_el = element.find("pose")
        if pose_el is not None:
            model.pose = self.pose_element(pose_el)
            if top and model.pose.relative_to:
                raise InvalidValue(
                    f"the pose of the top model {name!r} is relative_to {model.pose.relative_to!r}; a top-level "
                    "model's pose cannot name a frame",
                    location=self.where(pose_el),
                    construct="pose/@relative_to",
                    suggestion="remove relative_to from the top model's <pose>",
                )
        else:
            model.pose = PoseRef(np.eye(4), "", self.where(element))
        for child in element:
            tag = child.tag
            if tag == "link":
                model.links.append(self.parse_link(child))
            elif tag == "joint":
                model.joints.append(self.parse_joint(child, convert14))
            elif tag == "frame":
                model.frames.append(self.parse_frame(child, "model"))
            elif tag == "model":
                model.models.append(self.nested_instance(child))
            elif tag == "include":
                self.include(child, model)
            elif tag in ("pose", "static"):
                continue
            else:
                model.kept.append(self.keep(child, "model"))
        self.check_model_names(model)
        return model

    def check_model_names(self, model: ModelDesc) -> None:
        """Unique names per kind; across kinds an error from SDF 1.7, a rename before (as libsdformat)."""
        seen: dict[str, str] = {}
        for kind, attr, suffix in (
            ("model", "models", ""),
            ("link", "links", "_link"),
            ("joint", "joints", "_joint"),
            ("frame", "frames", "_frame"),
        ):
            kept = []
            own: set[str] = set()
            for item in getattr(model, attr):
                if item.name in own:
                    raise DuplicateName(
                        f"{kind} with name {item.name!r} already exists in model {model.name!r}",
                        location=item.location,
                        construct=item.name,
                        suggestion=f"rename one of the {kind}s called {item.name!r}",
                    )
                own.add(item.name)
                if item.name in seen:
                    if model.version < (1, 7) and kind != "model":
                        item = self.renamed(item, seen, suffix, kind, model.name)
                    else:
                        raise DuplicateName(
                            f"{kind} {item.name!r} in model {model.name!r} has the name of a {seen[item.name]}",
                            location=item.location,
                            construct=item.name,
                            suggestion="since SDF 1.7 the links, joints, frames and models of a model need "
                            "distinct names",
                        )
                seen[item.name] = kind
                kept.append(item)
            setattr(model, attr, kept)

    # -- links -----------------------------------------------------------------------------
    def parse_link(self, element) -> LinkDesc:
        name = self.name_of(element, "link")
        link = LinkDesc(
            name=name,
            pose=self.pose_of(element),
            inertial=InertialDesc(1.0, np.zeros(3), np.eye(3)),
            visuals=[],
            collisions=[],
            location=self.where(element),
        )
        solids = []
        names: dict[str, set] = {"visual": set(), "collision": set(), "sensor": set(), "light": set()}
        inertial_el = None
        for child in element:
            tag = child.tag
            if tag in names and not is_custom(tag):
                child_name = self.name_of(child, tag)
                if child_name in names[tag]:
                    raise DuplicateName(
                        f"{tag} with name {child_name!r} already exists in link {name!r}",
                        location=self.where(child),
                        construct=child_name,
                        suggestion=f"rename one of the {tag}s called {child_name!r}",
                    )
                names[tag].add(child_name)
            if tag == "inertial":
                inertial_el = child
            elif tag in ("visual", "collision"):
                shape, params = read_shape(self, child, tag)
                (link.visuals if tag == "visual" else link.collisions).append(shape)
                if tag == "collision":
                    solids.append((shape, params))
            elif tag == "pose":
                continue
            else:
                link.kept.append(self.keep(child, "link"))
        if inertial_el is not None:
            link.inertial = self.parse_inertial(inertial_el, name, solids)
        defaults = _inertial_defaults(inertial_el)
        if defaults:
            link.properties["inertial_defaults"] = defaults
        return link

    def parse_inertial(self, element, link_name: str, solids: list) -> InertialDesc:
        auto_text = element.get("auto")
        auto = parse_bool(auto_text, self.at(element), "inertial/@auto") if auto_text is not None else False
        pose_el = element.find("pose")
        pose = np.eye(4)
        if pose_el is not None:
            ref = self.pose_element(pose_el)
            pose = ref.matrix
            if ref.relative_to:
                self.diagnose(
                    Severity.WARNING,
                    "inertial-relative-to",
                    f"the inertial pose of link {link_name!r} names relative_to={ref.relative_to!r}; an inertial "
                    "pose is always in the link frame",
                    pose_el,
                    "remove relative_to",
                )
        mass_el = element.find("mass")
        mass = self.child_double(element, "mass", 1.0)
        if auto:
            density = self.child_double(element, "density", 1000.0)
            computed = self.auto_inertial(element, link_name, solids, density)
            if computed is not None:
                total, com, inertia = computed
                if mass_el is not None and total > 0:
                    inertia = inertia * (mass / total)
                    total = mass
                return InertialDesc(total, com, inertia)
        inertia_el = element.find("inertia")
        values = {"ixx": 1.0, "iyy": 1.0, "izz": 1.0, "ixy": 0.0, "ixz": 0.0, "iyz": 0.0}
        if inertia_el is not None:
            for key in values:
                values[key] = self.child_double(inertia_el, key, values[key])
        tensor = np.array(
            [
                [values["ixx"], values["ixy"], values["ixz"]],
                [values["ixy"], values["iyy"], values["iyz"]],
                [values["ixz"], values["iyz"], values["izz"]],
            ]
        )
        if not (math.isfinite(mass) and np.isfinite(tensor).all() and np.isfinite(pose).all()):
            raise InvalidValue(
                f"link {link_name!r} has an inertial that is not finite",
                location=self.where(element),
                construct="inertial",
                suggestion="give finite numbers for mass and inertia",
            )
        if not is_valid_mass_matrix(mass, tensor):
            raise InvalidValue(
                f"link {link_name!r} has an invalid inertia: the mass must not be negative and the inertia "
                "matrix must be positive semi-definite with principal moments obeying the triangle inequality",
                location=self.where(element),
                construct="inertial",
                suggestion="check <mass> and the signs of <ixy>, <ixz>, <iyz>",
            )
        rotation = pose[:3, :3]
        return InertialDesc(mass, pose[:3, 3].copy(), rotation @ tensor @ rotation.T)

    def auto_inertial(self, element, link_name: str, solids: list, density: float):
        if not solids:
            raise MissingAttribute(
                f'link {link_name!r} has <inertial auto="true"> but no <collision> to compute it from',
                location=self.where(element),
                construct="inertial/@auto",
                suggestion="add a <collision> or give <mass> and <inertia>",
            )
        parts = []
        for shape, params in solids:
            kind = params.get("kind")
            result = solid(kind, params, params.get("density", density)) if kind else None
            if result is None:
                self.diagnose(
                    Severity.WARNING,
                    "auto-inertia-unsupported",
                    f"collision {shape.name!r} of link {link_name!r} is a {kind or 'shape'} whose inertia "
                    "libsdformat cannot compute without a custom calculator; the link keeps the default inertial",
                    element,
                    "give <mass> and <inertia> explicitly",
                )
                return None
            parts.append((result[0], np.asarray(shape.pose, dtype=float), result[1]))
        with np.errstate(all="ignore"):
            mass, com, inertia = combine(parts)
        if not (math.isfinite(mass) and np.isfinite(com).all() and np.isfinite(inertia).all()):
            raise InvalidValue(
                f"the inertia computed for link {link_name!r} from its collisions is not finite",
                location=self.where(element),
                construct="inertial/@auto",
                suggestion="check the sizes and densities of the collisions",
            )
        return mass, com, inertia

    # -- joints ----------------------------------------------------------------------------
    def parse_joint(self, element, convert14: bool) -> JointDesc:
        name = self.name_of(element, "joint")
        where = self.where(element)
        type_text = self.required(element, "type").strip().lower()
        kind = _JOINT_TYPES.get(type_text)
        if kind is None:
            raise UnsupportedJointType(
                f"joint {name!r} has the type {element.get('type')!r}, which SDF does not define",
                location=where,
                construct=element.get("type"),
                suggestion=did_you_mean(type_text, _JOINT_TYPES) or "use one of " + ", ".join(_JOINT_TYPES),
            )
        ends = {}
        for end in ("parent", "child"):
            end_el = element.find(end)
            if end_el is None:
                raise MissingAttribute(
                    f"joint {name!r} has no <{end}>",
                    location=where,
                    construct=f"joint/{end}",
                    suggestion=f"add <{end}>LINK_NAME</{end}>",
                )
            ends[end] = self.reference(text_of(end_el), end_el, f"joint {end}")
        if ends["child"] == "world":
            raise InvalidValue(
                f"joint {name!r} has the world as its child",
                location=where,
                construct="joint/child",
                suggestion="the world can only be a joint's parent; swap <parent> and <child>",
            )
        if ends["child"] == ends["parent"]:
            raise InvalidValue(
                f"joint {name!r} names {ends['child']!r} as both parent and child",
                location=where,
                construct="joint/child",
                suggestion="a joint connects two different links",
            )
        joint = JointDesc(
            name=name,
            type=kind,
            parent=ends["parent"],
            child=ends["child"],
            pose=self.pose_of(element),
            location=where,
        )
        for tag in ("axis", "axis2"):
            axis_el = element.find(tag)
            if axis_el is not None:
                setattr(joint, tag, self.parse_axis(axis_el, convert14))
        if kind is JointType.SCREW:
            pitch = 1.0  # libsdformat's default screw_thread_pitch, in metres per revolution
            if element.find("screw_thread_pitch") is not None:
                pitch = self.child_double(element, "screw_thread_pitch", 1.0)
            elif element.find("thread_pitch") is not None:
                old = self.child_double(element, "thread_pitch", 1.0)
                pitch = -2.0 * math.pi / old if old != 0.0 else 0.0
            joint.pitch = pitch / (2.0 * math.pi)
            joint.properties["screw_thread_pitch"] = pitch
        if kind is JointType.GEARBOX:
            ratio = self.child_double(element, "gearbox_ratio", 1.0)
            reference = self.child_text(element, "gearbox_reference_body") or ""
            joint.gearbox = (ratio, reference)
        sensors: set[str] = set()
        for child in element:
            if child.tag == "sensor" and child.get("name") is not None:
                if child.get("name") in sensors:  # libsdformat's loadUniqueRepeated rejects it, as in links
                    raise DuplicateName(
                        f"sensor with name {child.get('name')!r} already exists in joint {name!r}",
                        location=self.where(child),
                        construct=child.get("name"),
                        suggestion=f"rename one of the sensors called {child.get('name')!r}",
                    )
                sensors.add(child.get("name"))
            if child.tag not in _JOINT_CHILDREN:
                joint.kept.append(self.keep(child, "joint"))
        return joint

    def parse_axis(self, element, convert14: bool) -> AxisDesc:
        xyz_el = element.find("xyz")
        xyz = np.array([0.0, 0.0, 1.0])
        expressed_in = ""
        if xyz_el is not None:
            xyz = parse_vector(text_of(xyz_el), 3, self.at(xyz_el), "xyz")
            expressed_in = self.reference(xyz_el.get("expressed_in", ""), xyz_el, "//axis/xyz/@expressed_in")
        norm = math.hypot(*xyz)  # neither overflows (1e200) nor underflows (1e-200) as a sum of squares would
        if norm == 0.0:
            raise InvalidValue(
                "the norm of the axis xyz vector is zero",
                location=self.where(xyz_el if xyz_el is not None else element),
                construct="axis/xyz",
                suggestion="give the axis direction, e.g. <xyz>0 0 1</xyz>",
            )
        if self.version <= (1, 6):
            flag = element.find("use_parent_model_frame")
            if flag is None and convert14:
                expressed_in = "__model__"  # the 1.4 -> 1.5 converter adds use_parent_model_frame=true
            elif flag is not None:
                parse_bool(text_of(flag), self.at(flag), "use_parent_model_frame")
                if text_of(flag) in _TRUE_TEXTS:
                    expressed_in = "__model__"
        lower, upper, effort, velocity = -_NO_LIMIT, _NO_LIMIT, -1.0, -1.0
        limit_el = element.find("limit")
        if limit_el is not None:
            lower = self.child_double(limit_el, "lower", -_NO_LIMIT, True)
            upper = self.child_double(limit_el, "upper", _NO_LIMIT, True)
            effort = self.child_double(limit_el, "effort", -1.0, True)
            velocity = self.child_double(limit_el, "velocity", -1.0, True)
            for tag in ("stiffness", "dissipation"):
                self.child_double(limit_el, tag, 0.0, True)
        limits = Limits(
            lower=lower if abs(lower) < _NO_LIMIT else None,
            upper=upper if abs(upper) < _NO_LIMIT else None,
            velocity=velocity if 0 <= velocity < math.inf else None,
            effort=effort if 0 <= effort < math.inf else None,
        )
        dynamics = Dynamics()
        dynamics_el = element.find("dynamics")
        if dynamics_el is not None:
            dynamics = Dynamics(
                damping=self.child_double(dynamics_el, "damping", 0.0),
                friction=self.child_double(dynamics_el, "friction", 0.0),
                spring_reference=self.child_double(dynamics_el, "spring_reference", 0.0),
                spring_stiffness=self.child_double(dynamics_el, "spring_stiffness", 0.0),
            )
        axis = AxisDesc(
            xyz=xyz / norm,
            expressed_in=expressed_in,
            limits=limits,
            dynamics=dynamics,
            location=self.where(element),
        )
        mimic_el = element.find("mimic")
        if mimic_el is not None:
            leader = self.required(mimic_el, "joint").strip()
            axis.mimic = (
                leader,
                mimic_el.get("axis", "axis").strip(),
                self.child_double(mimic_el, "multiplier", 1.0),
                self.child_double(mimic_el, "offset", 0.0),
                self.child_double(mimic_el, "reference", 0.0),
            )
        for child in element:
            if child.tag not in _AXIS_CHILDREN:
                self.check_kept(child, element.tag)
        return axis

    # -- frames ----------------------------------------------------------------------------
    def parse_frame(self, element, scope: str) -> FrameDesc:
        name = self.name_of(element, "frame")
        attached_to = self.reference(element.get("attached_to", ""), element, "attached_to")
        for child in element:
            if child.tag != "pose":
                self.check_kept(child)
        return FrameDesc(name=name, attached_to=attached_to, pose=self.pose_of(element), location=self.where(element))

    # -- includes --------------------------------------------------------------------------
    def include(self, element, parent: ModelDesc | WorldDesc) -> None:
        """An `<include>` in `parent` (a model or a world): an instance of the included model, merged or nested."""
        uri_el = element.find("uri")
        uri = text_of(uri_el) if uri_el is not None else ""
        if not uri:
            raise MissingAttribute(
                "<include> has no <uri>",
                location=self.where(element),
                construct="include/uri",
                suggestion="add <uri>model://NAME</uri>",
            )
        where = self.where(uri_el)
        path, folder = self.include_path(uri, where)
        included = self.loader.file_desc(path, where, folder)
        if included.worlds or (included.model is None and not included.lights and not included.actors):
            raise MissingRootElement(
                f"the file included as {uri!r} ({path}) has no top-level <model>, <light> or <actor>",
                location=where,
                construct=uri,
                suggestion="include a file whose top element holds one <model>",
            )
        name_override = self.child_text(element, "name")
        pose_el = element.find("pose")
        placement = self.child_text(element, "placement_frame")
        if placement is not None:
            placement = self.reference(placement, element.find("placement_frame"), "placement_frame")
            if pose_el is None:
                raise MissingAttribute(
                    "<include> gives a <placement_frame> but no <pose>",
                    location=self.where(element),
                    construct="include/pose",
                    suggestion="add the <pose> the placement frame should take",
                )
        kept = [self.keep(c) for c in element if c.tag not in ("uri", "name", "pose", "static", "placement_frame")]
        if included.model is None:  # a light or actor: kept where it is included
            node = (included.lights or included.actors)[0]
            node = self.overridden_node(node, name_override, pose_el, self.where(element))
            parent.kept.append(node)
            return
        desc = included.model
        if any(is_custom(c.tag) and c.tag.endswith(":params") for c in element):
            desc = self.customized(path, folder, element, where)
        merge_text = element.get("merge")
        merge = parse_bool(merge_text, self.at(element), "include/@merge") if merge_text is not None else False
        static_el = element.find("static")
        instance = Instance(
            desc=desc,
            name=name_override if name_override else desc.name,
            pose=self.pose_element(pose_el) if pose_el is not None else desc.pose,
            static=parse_bool(text_of(static_el), self.at(static_el), "static")
            if static_el is not None
            else desc.static,
            placement_frame=placement if placement is not None else desc.placement_frame,
            location=where,
            kept=kept,
            uri=uri,
        )
        if name_override is not None and is_reserved_name(instance.name):
            raise ReservedName(
                f"the model name {instance.name!r} is reserved",
                location=where,
                construct=instance.name,
                suggestion="rename it",
            )
        if merge:
            from .merge import merge_into

            merge_into(instance, parent)
        else:
            parent.models.append(instance)

    def overridden_node(self, node: Node, name: str | None, pose_el, where: Location) -> Node:
        """An included light or actor renamed or moved by its <include>: a copy, located at the include."""
        if name is None and pose_el is None:
            return node
        element = copy.deepcopy(node.element)
        if name:
            element.set("name", name)
        if pose_el is not None:
            old = element.find("pose")
            if old is not None:
                element.remove(old)
            element.insert(0, copy.deepcopy(pose_el))
        return Node(element, node.document, node.source, at=where)

    def include_path(self, uri: str, where: Location, base_dirs: list[str] | None = None) -> tuple[str, str | None]:
        """The SDF file an include URI names: a file, or a model folder's best file by model.config."""
        path, tried = self.loader.resolve_include(uri, base_dirs or self.base_dirs)
        if path is None:
            raise ResourceNotFound(
                f"cannot find the included model {uri!r}",
                tried=tried,
                location=where,
                construct=uri,
                suggestion="pass search_paths=[...] or set GZ_SIM_RESOURCE_PATH to the folder holding the model",
            )
        if os.path.isdir(path):
            return model_file_of(path, where), path
        return path, None

    def customized(self, path: str, folder: str | None, include_el, where: Location) -> ModelDesc:
        """The included model with `<experimental:params>` applied (parsed again, not cached)."""
        from .params import apply_params

        with open(path, "rb") as handle:
            data = handle.read()
        document = parse_xml(data, path)
        bases = [os.path.dirname(path)]
        if folder is not None:
            bases.append(os.path.dirname(os.path.abspath(folder)))
        apply_params(self, document, include_el, bases)
        parser = FileParser(self.loader, document, path, bases)
        desc = parser.parse_root()
        self.desc.diagnostics.extend(desc.diagnostics)
        if desc.model is None:
            raise MissingRootElement(f"{path} has no <model>", location=where, construct=path)
        return desc.model

    def resolve_resource(self, uri: str, element) -> tuple[str | None, list[str]]:
        """A mesh or heightmap URI: resolved (existence only); a miss is a warning, as in libsdformat."""
        path, tried = self.loader.resolve(uri, self.base_dirs)
        if path is None:
            self.diagnose(
                Severity.WARNING,
                "resource-not-found",
                f"{uri!r} cannot be found",
                element,
                "pass search_paths=[...] or set GZ_SIM_RESOURCE_PATH",
            )
        return path, tried


def _inertial_defaults(inertial_el) -> tuple[str, ...]:
    """What of a link's mass properties libsdformat fills in with its defaults (mass 1, inertia identity).

    Nothing for `<inertial auto="true">`: the computed values (or the auto-inertia warning) stand.
    """
    if inertial_el is None:
        return ("mass", "inertia")
    if (inertial_el.get("auto") or "").strip().lower() in ("true", "1"):
        return ()
    return tuple(tag for tag in ("mass", "inertia") if inertial_el.find(tag) is None)


def model_file_of(folder: str, where: Location) -> str:
    """The description file a model folder names in its model.config (libsdformat's choice).

    Among the `<sdf version="...">` entries the highest version libsdformat can read wins; with
    no version at all the first entry is used.
    """
    config = os.path.join(folder, "model.config")
    if not os.path.isfile(config):
        manifest = os.path.join(folder, "manifest.xml")
        if not os.path.isfile(manifest):
            raise ResourceNotFound(
                f"the model folder {folder} has no model.config",
                tried=[config, manifest],
                location=where,
                construct=folder,
                suggestion="add a model.config naming the model's SDF file",
            )
        config = manifest
    try:
        with open(config, "rb") as handle:
            document = parse_xml(handle.read(), config)
    except OSError as exc:
        raise ResourceNotFound(f"cannot read {config}: {exc}", location=where, construct=config) from None
    except RobodescError as exc:
        raise ResourceNotFound(f"cannot read {config}: {exc}", location=where, construct=config) from None
    entries = document.root.findall("sdf")
    best, best_version = None, (0, 0)
    for entry in entries:
        version = parse_version(entry.get("version") or "")
        if version is not None and best_version < version <= LATEST_VERSION:
            best, best_version = entry, version
    if best is None and entries:
        best = entries[0]
    if best is None or not text_of(best):
        raise ResourceNotFound(
            f"{config} names no SDF file (no <sdf> entry)",
            location=where,
            construct=config,
            suggestion='add <sdf version="1.12">model.sdf</sdf> to model.config',
        )
    return os.path.join(folder, text_of(best))
