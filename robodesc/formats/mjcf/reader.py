"""MJCF → `Model`, compiled the way MuJoCo compiles it.

The reader works in the order MuJoCo's compiler does: splice `<include>`s, merge every
`<compiler>`, resolve `<default>` classes once into plain attribute values, walk `<worldbody>`
(frames vanish into the poses of what they hold, `<replicate>` expands, `<attach>` grafts a
sub-model), then infer inertia from geoms where MuJoCo would. The model a user gets has no
inheritance left in it: every value is the one MuJoCo would use.

What MuJoCo compiles but silently overrides is noted on `model.diagnostics`
(`fromto-overrides-pose`, `class-attribute-ignored`; the rules are in checks.py). A mesh geom's
shape keeps its asset's name and location in `extras["mjcf"]` (`mesh`, `mesh_location`) for the
mesh check of `robodesc check`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from ...core.diagnostics import Severity
from ...core.errors import (
    CyclicInclude,
    DuplicateName,
    InvalidValue,
    Location,
    MalformedValue,
    MissingAttribute,
    MissingRootElement,
    ResourceNotFound,
    RobodescError,
    UnresolvedReference,
    UnsupportedGeometry,
    UnsupportedJointType,
    did_you_mean,
)
from ...core.geometry import (
    Box,
    Capsule,
    Cylinder,
    Ellipsoid,
    Geometry,
    Heightfield,
    Material,
    Mesh,
    Plane,
    Shape,
    Sphere,
)
from ...core.model import (
    Actuator,
    Body,
    Constraint,
    Dynamics,
    Extra,
    Frame,
    Inertial,
    Joint,
    JointType,
    Limits,
    Model,
)
from ...core.resources import LoadContext
from ...core.transforms import (
    axis_angle_to_quat,
    euler_to_quat,
    invert_pose,
    make_pose,
    matrix_to_quat,
    quat_between,
    quat_to_matrix,
)
from ..xml import Document, Element, Values, parse_xml, to_xml
from . import inertia as mass_properties
from .checks import FROMTO_KINDS, ignored_class_attributes, listing
from .schema import check_tree

MINVAL = 1e-15  # MuJoCo's mjMINVAL: smaller masses and inertias of moving bodies are errors
_AXIS_EPS = 1e-6  # MuJoCo's mjEPS: shorter axes (axisangle, xyaxes, zaxis) are errors
#: At most this many elements come out of <replicate>s (counts multiply when replicates nest): a guard
#: against a count that would take minutes and gigabytes to expand.
MAX_REPLICATED = 20_000
_ORIENTATIONS = ("quat", "axisangle", "euler", "xyaxes", "zaxis")
_GEOM_TYPES = ("plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "sdf")
_PRIMITIVES = ("sphere", "capsule", "cylinder", "ellipsoid", "box")
_JOINT_TYPES = ("free", "ball", "slide", "hinge")
_DEFAULTABLE = {
    "joint", "geom", "site", "camera", "light", "mesh", "material", "pair", "equality", "tendon",
    "general", "motor", "position", "velocity", "intvelocity", "damper", "cylinder", "muscle", "adhesion",
}  # fmt: skip
_ACTUATORS = {"general", "motor", "position", "velocity", "intvelocity", "damper", "cylinder", "muscle", "adhesion"}
_TRANSMISSIONS = ("joint", "jointinparent", "tendon", "site", "body", "cranksite", "slidersite")
_MODEL_EXTRAS = {"option", "size", "visual", "statistic", "custom", "contact", "tendon", "sensor", "extension",
                 "deformable"}  # fmt: skip


def read(data: bytes, context: LoadContext) -> Model:
    """Read MJCF text into a `Model` (the reader registered for the `mjcf` format)."""
    return _MjcfReader(context, parse_xml(data, context.source)).read()


@dataclass
class _Compiler:
    """The merged `<compiler>` settings, with MuJoCo's defaults."""

    degree: bool = True
    eulerseq: str = "xyz"
    meshdir: str | None = None
    texturedir: str | None = None
    assetdir: str | None = None
    autolimits: bool = True
    inertiafromgeom: str = "auto"
    inertiagrouprange: tuple[int, int] = (0, 5)
    boundmass: float = 0.0
    boundinertia: float = 0.0
    settotalmass: float = -1.0
    balanceinertia: bool = False
    alignfree: bool = False
    discardvisual: bool = False
    fusestatic: bool = False
    strippath: bool = False
    fitaabb: bool = False

    def angle(self, value: float) -> float:
        return math.radians(value) if self.degree else value


@dataclass
class _GeomInfo:
    """What inertia inference needs of one geom, in body coordinates."""

    kind: str
    size: list[float]
    pose: np.ndarray
    mass: float | None
    density: float
    group: int
    shell: bool
    mesh: dict[str, Any] | None  # the <mesh> asset record (its processed form is cached in it)
    location: Location


@dataclass
@dataclass
class _Principal:
    """Inertia as MuJoCo stores it: mass, frame (ipos, iquat) in the body, principal moments."""

    mass: float
    pos: np.ndarray
    quat: np.ndarray
    moments: np.ndarray

    def part(self, pose: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
        """This inertia as a (mass, pos, quat, moments) part in the frame where the body sits at `pose`."""
        frame = pose @ make_pose(quat_to_matrix(self.quat), self.pos)
        return self.mass, frame[:3, 3], matrix_to_quat(frame[:3, :3]), self.moments


@dataclass
class _BodyInfo:
    body: Body
    explicit: _Principal | None = None
    geoms: list[_GeomInfo] = field(default_factory=list)
    moving: bool = False
    fused: list[tuple[float, np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)  # fusestatic parts
    principal: _Principal | None = None  # the compiled inertia, kept for alignfree
    written: np.ndarray | None = None  # the pose written on the <body> (before enclosing frames)


class _MjcfReader:
    """Reads one MJCF file. A reader for an <attach>ed sub-model shares its parent's model, bodies,
    included-file set and joint order, but has its own compiler settings, defaults and assets."""

    def __init__(self, context: LoadContext, document: Document, parent: _MjcfReader | None = None) -> None:
        self.context = context
        self.document = document  # the file this reader reads (a sub-model's file for an <attach>)
        self.values = Values(document)
        self._prefix = ""  # added before every name read (an <attach> prefix)
        self._suffix = ""  # added after every name read (the indices of enclosing <replicate>s)
        self._copies: int = 1 if parent is None else parent._copies  # product of the counts of enclosing <replicate>s
        self.compiler = _Compiler()
        self.defaults: dict[str, dict[str, dict[str, str]]] = {"main": {}}
        self.meshes: dict[str, dict[str, Any]] = {}
        self.submodels: dict[str, Document] = {}
        if parent is None:
            self.model = Model(name=document.root.get("model", "MuJoCo Model"), format="mjcf", source=context.source)
            self._owners: dict[int, Values] = {}  # element id -> the Values of the file it came from
            self._included: set[str] = set()
            self.bodies: dict[str, _BodyInfo] = {}
            self._joint_order: list[Joint] = []
            self._counter = [0]  # for names of unnamed elements
            self._prepared: dict[int, tuple] = {}  # sub-model documents (by id) already prepared for <attach>
            self._ignored: dict[tuple, list[tuple[str, Location]]] = {}  # class attributes MuJoCo ignores
            self._attaching: list[tuple[str, str | None]] = []  # (sub-model file, body) being grafted, outermost first
        else:
            self.model, self._owners, self._included = parent.model, parent._owners, parent._included
            self.bodies, self._joint_order, self._counter = parent.bodies, parent._joint_order, parent._counter
            self._prepared, self._ignored, self._attaching = parent._prepared, parent._ignored, parent._attaching

    def read(self) -> Model:
        root = self.prepare()
        world = Body(name="world", location=self.where(root))
        self.model.bodies["world"] = world
        self.bodies["world"] = _BodyInfo(world)
        for worldbody in self._top(root, "worldbody"):
            self._children(worldbody, "world", np.eye(4), None, root)
        for child in root:
            tag = child.tag
            if tag == "equality":
                self._equalities(child)
            elif tag == "actuator":
                self._actuators(child)
            elif tag == "keyframe":
                self._keyframes(child)
            elif tag in _MODEL_EXTRAS:
                self.model.extras.append(self._extra(child, None))
        if self.compiler.fusestatic:
            self._fuse_static(root)
        self._inertias()
        if self.compiler.alignfree:
            self._align_free()
        self._check_references()
        self._report_ignored()
        return self.model

    def prepare(self) -> Element:
        """Everything before the body tree: includes, schema, compiler, defaults, assets."""
        document = self.document
        root = document.root
        if root.tag != "mujoco":
            raise MissingRootElement(
                f"an MJCF file has <mujoco> as its top element, not <{root.tag}>",
                location=self.values.where(root),
                construct=root.tag,
                suggestion="is this the right format? pass format=... to choose another",
            )
        if root.find(".//include") is not None:  # element paths as written, not as spliced
            document.pin_parents()
        self._splice_includes(root, [document.source or "<string>"])
        problem = check_tree(root)
        if problem is not None:
            element, message, allowed, name = problem
            raise self._error(
                InvalidValue,
                message,
                element,
                construct=name,
                suggestion=did_you_mean(name, allowed) if allowed else None,
            )
        self.materials: dict[str, Material] = {}
        for compiler in self._top(root, "compiler"):
            self._compiler(compiler)
        for default in self._top(root, "default"):
            self._default_class(default, None)
        for asset in self._top(root, "asset"):
            self._assets(asset)
        return root

    # -- locations and values ---------------------------------------------------------------
    def _v(self, element: Element) -> Values:
        return self._owners.get(id(element), self.values)

    def where(self, element: Element) -> Location:
        return self._v(element).where(element)

    def _name(self, attrs: dict[str, str], kind: str) -> str:
        """The element's name with the current attach prefix and replicate suffix, or a generated one."""
        name = attrs.get("name")
        if not name:
            self._counter[0] += 1
            return f"<unnamed {kind} {self._counter[0]}>"
        return f"{self._prefix}{name}{self._suffix}"

    def _error(self, cls: type[RobodescError], message: str, element: Element, **kwargs: Any) -> RobodescError:
        return cls(message, location=self.where(element), **kwargs)

    def _floats(
        self, element: Element, attrs: dict[str, str], name: str, count: int | None, default: Any = None
    ) -> Any:
        """Numbers of attribute `name` (already merged with defaults), with MuJoCo's count rules.

        An empty attribute counts as not given, as in MuJoCo.
        """
        text = attrs.get(name)
        if text is None or not text.strip():
            return default
        values = self._v(element).parse_vector(text, element, name, None)
        if count is not None and len(values) != count:
            few = len(values) < count
            raise self._error(
                MalformedValue,
                f"attribute {name!r} of <{element.tag}> has {'not enough' if few else 'too much'} data "
                f"({len(values)} value(s), expected {count})",
                element,
                construct=f"{element.tag}/@{name}",
                suggestion=f"give exactly {count} numbers",
            )
        return values

    def _sizes(self, element: Element, attrs: dict[str, str], name: str, most: int) -> list[float]:
        """Up to `most` numbers (MuJoCo keeps its defaults for the rest)."""
        values = list(self._floats(element, attrs, name, None, []))
        if len(values) > most:
            raise self._error(
                MalformedValue,
                f"attribute {name!r} of <{element.tag}> has too much data",
                element,
                construct=f"{element.tag}/@{name}",
                suggestion=f"give at most {most} numbers",
            )
        return values

    def _keyword(
        self, element: Element, attrs: dict[str, str], name: str, allowed: tuple[str, ...], default: str
    ) -> str:
        value = attrs.get(name, default)
        if value not in allowed:
            cls = UnsupportedJointType if name == "type" and element.tag == "joint" else InvalidValue
            raise self._error(
                cls,
                f"invalid keyword {value!r} for {name!r} of <{element.tag}>",
                element,
                construct=f"{element.tag}/@{name}",
                suggestion=did_you_mean(value, allowed) or "use one of " + ", ".join(allowed),
            )
        return value

    def _bool(self, element: Element, attrs: dict[str, str], name: str, default: bool) -> bool:
        value = attrs.get(name)
        if value is None:
            return default
        if value not in ("true", "false"):
            raise self._error(
                InvalidValue,
                f"{name}={value!r} on <{element.tag}> is not true or false",
                element,
                construct=f"{element.tag}/@{name}",
                suggestion='write "true" or "false"',
            )
        return value == "true"

    def _int(self, element: Element, attrs: dict[str, str], name: str, default: int) -> int:
        value = attrs.get(name)
        if value is None:
            return default
        try:
            if value.isascii() and "_" not in value:  # Python-only spellings (1_000, non-ASCII digits) are refused
                return int(value)
        except ValueError:
            pass
        raise self._error(
            MalformedValue,
            f"{name}={value!r} on <{element.tag}> is not a whole number",
            element,
            construct=f"{element.tag}/@{name}",
        )

    def _top(self, root: Element, tag: str) -> Iterator[Element]:
        return (child for child in root if child.tag == tag)

    def _extra(self, element: Element, owner: str | None) -> Extra:
        return Extra(
            tag=element.tag,
            source=partial(to_xml, element),
            location=self.where(element),
            owner=owner,
            attributes=dict(element.attrib),
        )

    # -- includes -----------------------------------------------------------------------------
    def _splice_includes(self, element: Element, chain: list[str]) -> None:
        """Replace every <include file=...> by the children of the included file's <mujoco>.

        MuJoCo resolves every include against the main file's folder and includes a file once.
        """
        included = self._included
        position = 0
        while position < len(element):
            child = element[position]
            if child.tag != "include":
                self._splice_includes(child, chain)
                position += 1
                continue
            name = child.get("file")
            if name is None:
                raise self._error(
                    MissingAttribute,
                    "<include> needs a file attribute",
                    child,
                    construct="include/@file",
                    suggestion='write <include file="other.xml"/>',
                )
            path = name if os.path.isabs(name) else os.path.join(self.context.base_dir, name)
            key = os.path.normpath(os.path.abspath(path))
            if key in included or key in chain:
                cls = CyclicInclude if key in chain else DuplicateName
                raise self._error(
                    cls,
                    f"file {name!r} is already included (include chain: {' -> '.join(chain)})",
                    child,
                    construct=name,
                    suggestion="include each file once",
                )
            included.add(key)
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
            except OSError:
                raise ResourceNotFound(
                    f"included file {name!r} cannot be read (include chain: {' -> '.join(chain)})",
                    tried=[path],
                    location=self.where(child),
                    construct=name,
                    suggestion="paths in <include> are relative to the main model's folder",
                ) from None
            document = parse_xml(data, path)
            if document.root.tag != "mujoco":
                raise MissingRootElement(
                    f"included file {name!r} must have <mujoco> as its top element",
                    location=Values(document).where(document.root),
                    construct=name,
                )
            document.pin_parents()
            values = Values(document)
            for node in document.root.iter():
                self._owners[id(node)] = values
            self._splice_includes(document.root, [*chain, key])
            element.remove(child)
            for offset, grandchild in enumerate(list(document.root)):
                element.insert(position + offset, grandchild)
            position += len(document.root)

    # -- compiler and defaults ---------------------------------------------------------------
    def _compiler(self, element: Element) -> None:
        c, a = self.compiler, element.attrib
        if "angle" in a:
            c.degree = self._keyword(element, a, "angle", ("degree", "radian"), "degree") == "degree"
        if "eulerseq" in a:
            seq = a["eulerseq"]
            if len(seq) != 3 or any(ch not in "xyzXYZ" for ch in seq):
                raise self._error(
                    InvalidValue,
                    f"eulerseq={seq!r} must be three letters from xyzXYZ",
                    element,
                    construct="compiler/@eulerseq",
                    suggestion='for example eulerseq="xyz"',
                )
            c.eulerseq = seq
        for name in ("meshdir", "texturedir", "assetdir"):
            if name in a:
                setattr(c, name, a[name])
        for name in (
            "autolimits",
            "balanceinertia",
            "alignfree",
            "discardvisual",
            "fusestatic",
            "strippath",
            "fitaabb",
        ):
            setattr(c, name, self._bool(element, a, name, getattr(c, name)))
        if "inertiafromgeom" in a:
            c.inertiafromgeom = self._keyword(element, a, "inertiafromgeom", ("false", "true", "auto"), "auto")
        if "inertiagrouprange" in a:
            low, high = self._floats(element, a, "inertiagrouprange", 2)
            c.inertiagrouprange = (int(low), int(high))
        for name in ("boundmass", "boundinertia", "settotalmass"):
            value = self._floats(element, a, name, 1)
            if value is not None:
                setattr(c, name, value[0])

    def _default_class(self, element: Element, parent: str | None) -> None:
        name = element.get("class")
        if parent is None:
            name = name or "main"
        elif name is None:
            raise self._error(
                MissingAttribute,
                "a nested <default> needs a class name",
                element,
                construct="default/@class",
                suggestion='write <default class="...">',
            )
        if parent is not None and name in self.defaults:
            raise self._error(
                DuplicateName,
                f"default class {name!r} is defined twice",
                element,
                construct=name,
                suggestion="give each default class its own name",
            )
        inherited = self.defaults.get(parent or "main", {}) if parent else self.defaults.get(name, {})
        classes = {tag: dict(attrs) for tag, attrs in inherited.items()}
        for child in element:
            if child.tag == "default":
                continue
            tag = "general" if child.tag in _ACTUATORS else child.tag
            merged = classes[tag] = _merged(classes.get(tag, {}), child.attrib)
            if child.tag in _ACTUATORS and child.tag != "general":
                merged["_shortcut"] = child.tag
        self.defaults[name] = classes
        for child in element:
            if child.tag == "default":
                self._default_class(child, name)

    def _attrs(self, element: Element, active: str | None) -> dict[str, str]:
        """The element's attributes with its default class applied (MuJoCo's cascade)."""
        if element.tag not in _DEFAULTABLE:
            return element.attrib
        name = element.get("class") or active or "main"
        classes = self.defaults.get(name)
        if classes is None:
            raise self._error(
                UnresolvedReference,
                f"unknown default class name {name!r}",
                element,
                construct=name,
                suggestion=did_you_mean(name, self.defaults) or "define it in <default>",
            )
        tag = "general" if element.tag in _ACTUATORS else element.tag
        return _merged(classes.get(tag, {}), element.attrib)

    # -- orientation --------------------------------------------------------------------------
    def _pose(self, element: Element, attrs: dict[str, str]) -> np.ndarray:
        """The pose written on an element: pos plus at most one orientation specifier."""
        pos = self._floats(element, attrs, "pos", 3, [0.0, 0.0, 0.0])
        return make_pose(quat_to_matrix(self._quat(element, attrs)), pos)

    def _quat(self, element: Element, attrs: dict[str, str]) -> np.ndarray:
        given = [name for name in _ORIENTATIONS if name in element.attrib]
        if len(given) > 1:
            raise self._error(
                InvalidValue,
                "multiple orientation specifiers are not allowed: " + ", ".join(given),
                element,
                construct=f"{element.tag}/@{given[1]}",
                suggestion="keep one of quat, axisangle, euler, xyaxes, zaxis",
            )
        # an orientation from a default class applies only when the element writes none itself; an empty
        # one (euler="") counts as not written, as in MuJoCo, but still clashes with another one above
        written = [n for n in given if element.attrib[n].strip()]
        if written:
            name: str | None = written[0]
        else:
            name = next((n for n in _ORIENTATIONS if n not in given and attrs.get(n, "").strip()), None)
        if name is None:
            return np.array([1.0, 0.0, 0.0, 0.0])
        values = self._floats(element, attrs, name, {"quat": 4, "axisangle": 4, "euler": 3, "xyaxes": 6}.get(name, 3))
        # MuJoCo's limits (mjuu_frame2quat): a zero quaternion, and axes shorter than mjEPS; norms by
        # hypot, which neither overflows nor underflows on huge or tiny (finite) numbers
        try:
            if name == "quat":
                q = np.array(values)
                norm = math.hypot(*values)
                if norm < MINVAL:
                    raise ValueError("zero quaternion")
                return q / norm
            if name == "axisangle":
                axis = np.array(values[:3])
                norm = math.hypot(*axis)
                if norm < _AXIS_EPS:
                    raise ValueError("axis too small")
                return axis_angle_to_quat(axis / norm, self.compiler.angle(values[3]))
            if name == "euler":
                return euler_to_quat([self.compiler.angle(a) for a in values], self.compiler.eulerseq)
            if name == "xyaxes":
                x, y = np.array(values[:3]), np.array(values[3:])
                norm = math.hypot(*x)
                if norm < _AXIS_EPS:
                    raise ValueError("xaxis too small")
                x /= norm
                y = y - x * (x @ y)
                norm = math.hypot(*y)
                if norm < _AXIS_EPS:
                    raise ValueError("yaxis too small")
                y /= norm
                return matrix_to_quat(np.column_stack([x, y, np.cross(x, y)]))
            norm = math.hypot(*values)
            if norm < _AXIS_EPS:
                raise ValueError("zaxis too small")
            return quat_between((0.0, 0.0, 1.0), np.array(values) / norm)
        except ValueError as exc:
            raise self._error(
                InvalidValue,
                f"the {name} of <{element.tag}> does not define a rotation ({exc})",
                element,
                construct=f"{element.tag}/@{name}",
                suggestion="use non-zero, non-parallel vectors",
            ) from None

    def _refquat(self, element: Element, attrs: dict[str, str]) -> list[float]:
        """A mesh's refquat: a quaternion that is not zero (scaled down when its squares would overflow)."""
        quat = self._floats(element, attrs, "refquat", 4, [1.0, 0.0, 0.0, 0.0])
        norm = math.hypot(*quat)
        if norm < MINVAL:
            raise self._error(
                InvalidValue,
                f"refquat={attrs['refquat']!r} of <{element.tag}> is a zero quaternion",
                element,
                construct=f"{element.tag}/@refquat",
                suggestion='write a unit quaternion such as refquat="1 0 0 0"',
            )
        if not math.isfinite(sum(q * q for q in quat)):
            quat = [q / norm for q in quat]
        return quat

    # -- assets -------------------------------------------------------------------------------
    def _asset_path(self, file: str, kind: str) -> str:
        if self.compiler.strippath:
            file = os.path.basename(file)
        if os.path.isabs(file):
            return file
        folder = getattr(self.compiler, kind) or self.compiler.assetdir or ""
        return os.path.join(self.context.base_dir, folder, file)

    def _assets(self, element: Element) -> None:
        for child in element:
            tag = child.tag
            if tag == "mesh":
                attrs = self._attrs(child, None)
                file = attrs.get("file")
                name = attrs.get("name") or (os.path.splitext(os.path.basename(file))[0] if file else None)
                if name is None:
                    raise self._error(
                        MissingAttribute,
                        "a <mesh> without a file needs a name",
                        child,
                        construct="mesh/@name",
                        suggestion='add name="..."',
                    )
                if name in self.meshes:
                    raise self._error(
                        DuplicateName,
                        f"repeated name {name!r} in mesh",
                        child,
                        construct=name,
                        suggestion="give each mesh its own name",
                    )
                self.meshes[name] = {
                    "name": name,
                    "element": child,
                    "attrs": attrs,
                    "path": self._asset_path(file, "meshdir") if file else None,
                }
            elif tag == "material":
                attrs = self._attrs(child, None)
                rgba = self._floats(child, attrs, "rgba", 4, None)
                name = attrs.get("name")
                material = Material(
                    name=self._prefix + name if name else None,
                    color=np.array(rgba) if rgba else None,
                    texture=attrs.get("texture"),
                )
                if name is not None:  # geoms refer to materials by name: an unnamed one is never used
                    self.materials[name] = material
                if name:
                    self.model.materials[self._prefix + name] = material
            elif tag == "model":
                self._submodel(child)
            else:  # texture, hfield, skin, ...: kept as written
                self.model.extras.append(self._extra(child, None))

    def _submodel(self, element: Element) -> None:
        """<asset><model name file>: a sub-model for <attach>, parsed now and read when attached."""
        name, file = element.get("name"), element.get("file")
        if not file:
            raise self._error(
                MissingAttribute,
                "<model> in <asset> needs a name and a file",
                element,
                construct="model",
                suggestion='write <model name="arm" file="arm.xml"/>',
            )
        path = self._asset_path(file, "assetdir")
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            raise ResourceNotFound(
                f"model file {file!r} cannot be read", tried=[path], location=self.where(element), construct=file
            ) from None
        document = parse_xml(data, path)
        self.submodels[name or document.root.get("model") or ""] = document  # unnamed: the file's own model name

    # -- the body tree ------------------------------------------------------------------------
    def _children(self, element: Element, body: str, frame: np.ndarray, active: str | None, context: Element) -> None:
        """Read the children of a body (or of a <frame> inside it); `frame` places them in the body."""
        for child in list(element):
            tag = child.tag
            if tag == "body":
                self._body(child, body, frame, active)
            elif tag == "frame":
                attrs = child.attrib
                self._children(child, body, frame @ self._pose(child, attrs), attrs.get("childclass", active), context)
            elif tag == "geom":
                self._geom(child, body, frame, active)
            elif tag == "site":
                self._site(child, body, frame, active)
            elif tag in ("joint", "freejoint"):
                if body == "world":
                    raise self._error(
                        InvalidValue,
                        "joints cannot be attached to the world body",
                        child,
                        construct=tag,
                        suggestion="put the joint in a <body>",
                    )
                self._joint(child, body, frame, active)
            elif tag == "inertial":
                if body == "world":
                    continue
                self._inertial(child, body)
            elif tag == "replicate":
                self._replicate(child, body, frame, active)
            elif tag == "attach":
                self._attach(child, body, frame)
            elif tag in ("camera", "light"):
                extra = self._extra(child, body)
                extra.attributes = dict(self._attrs(child, active))
                self.bodies[body].body.extras.setdefault("xml", []).append(extra)
            else:  # composite, flexcomp, plugin, attach, ...
                self.bodies[body].body.extras.setdefault("xml", []).append(self._extra(child, body))
                self.model.diagnose(
                    Severity.WARNING,
                    "not-modelled",
                    f"<{tag}> is kept as written but not compiled into the model",
                    self.where(child),
                )

    def _body(self, element: Element, parent: str, frame: np.ndarray, active: str | None) -> None:
        attrs = element.attrib
        name = self._name(attrs, "body")
        if name in self.bodies:
            raise self._error(
                DuplicateName,
                f"repeated name {name!r} in body",
                element,
                construct=name,
                suggestion="give each body its own name",
            )
        written = self._pose(element, attrs)
        body = Body(name=name, parent=parent, pose=frame @ written, location=self.where(element))
        self.model.bodies[name] = body
        self.bodies[name] = _BodyInfo(body, written=written)
        self._children(element, name, np.eye(4), attrs.get("childclass", active), element)
        joints = [self.model.joints[j] for j in body.joints]
        if any(j.type is JointType.FLOATING for j in joints):
            if parent != "world":
                raise self._error(
                    InvalidValue,
                    "free joint can only be used on top level",
                    element,
                    construct=name,
                    suggestion="make the body a child of <worldbody>",
                )
            if len(joints) > 1:
                raise self._error(
                    InvalidValue, "a free joint must be the only joint of its body", element, construct=name
                )

    def _joint(self, element: Element, body: str, frame: np.ndarray, active: str | None) -> None:
        info = self.bodies[body]
        if element.tag == "freejoint":
            attrs = element.attrib  # <freejoint> takes no defaults
            kind = "free"
        else:
            attrs = self._attrs(element, active)
            kind = self._keyword(element, attrs, "type", _JOINT_TYPES, "hinge")
        name = self._name(attrs, "joint")
        self._note_ignored(element, attrs, active, kind)
        if name in self.model.joints:
            raise self._error(
                DuplicateName,
                f"repeated name {name!r} in joint",
                element,
                construct=name,
                suggestion="give each joint its own name",
            )
        where = self.where(element)
        c = self.compiler
        pos = np.array(self._floats(element, attrs, "pos", 3, [0.0, 0.0, 0.0]))
        axis = np.array(self._floats(element, attrs, "axis", 3, [0.0, 0.0, 1.0]))
        moved = info.body  # the body this joint moves
        parent = moved.parent
        if parent is None:  # the world body (the schema check refuses this first, as MuJoCo does)
            raise self._error(InvalidValue, "the world body cannot have joints", element, construct=element.tag)
        if kind == "free":
            joint = Joint(
                name=name,
                type=JointType.FLOATING,
                parent=parent,
                child=moved.name,
                origin=moved.pose,
                location=where,
            )
            joint.reference = np.concatenate([moved.pose[:3, 3], matrix_to_quat(moved.pose[:3, :3])])
        else:
            norm = math.hypot(*axis)  # neither overflows (1e200) nor underflows as a sum of squares would
            if norm < MINVAL and kind in ("hinge", "slide"):
                raise self._error(
                    InvalidValue,
                    "axis too small in joint",
                    element,
                    construct=f"{element.tag}/@axis",
                    suggestion='give the axis direction, e.g. axis="0 0 1"',
                )
            anchor = frame[:3, :3] @ pos + frame[:3, 3]  # a joint inside a <frame>: into body coordinates
            direction = frame[:3, :3] @ (axis / norm if norm >= MINVAL else np.array([0.0, 0.0, 1.0]))
            joint = Joint(
                name=name,
                type=JointType.BALL,
                parent=parent,
                child=moved.name,
                origin=moved.pose @ make_pose(translation=anchor),
                axis=direction,
                location=where,
            )
            limited = self._limited(element, attrs, kind)
            low, high = self._floats(element, attrs, "range", 2, [0.0, 0.0])
            if kind == "hinge":
                joint.type = JointType.REVOLUTE if limited else JointType.CONTINUOUS
                joint.reference = c.angle(self._floats(element, attrs, "ref", 1, [0.0])[0])
                if limited:
                    joint.limits = Limits(lower=c.angle(low), upper=c.angle(high))
                spring_ref = c.angle(self._floats(element, attrs, "springref", 1, [0.0])[0])
            elif kind == "slide":
                joint.type = JointType.PRISMATIC
                joint.reference = self._floats(element, attrs, "ref", 1, [0.0])[0]
                if limited:
                    joint.limits = Limits(lower=low, upper=high)
                spring_ref = self._floats(element, attrs, "springref", 1, [0.0])[0]
            else:
                joint.reference = np.array([1.0, 0.0, 0.0, 0.0])
                if limited:
                    joint.limits = Limits(lower=0.0, upper=c.angle(high))
                spring_ref = 0.0
            # MuJoCo 4 reads damping and stiffness as polynomials of up to 3 terms; the first is the linear one
            joint.dynamics = Dynamics(
                damping=(self._sizes(element, attrs, "damping", 3) or [0.0])[0],
                friction=self._floats(element, attrs, "frictionloss", 1, [0.0])[0],
                spring_stiffness=(self._sizes(element, attrs, "stiffness", 3) or [0.0])[0],
                spring_reference=spring_ref,
                armature=self._floats(element, attrs, "armature", 1, [0.0])[0],
            )
        joint.extras["mjcf"] = {k: v for k, v in attrs.items() if k not in ("name", "class")}
        self.model.joints[name] = joint
        moved.joints = (*moved.joints, name)
        info.moving = True
        self._joint_order.append(joint)

    def _limited(self, element: Element, attrs: dict[str, str], kind: str) -> bool:
        """MuJoCo's rule: limited="auto" means "has a range (lower < upper)" when autolimits is on,
        and is an error when it is off and a range is written."""
        value = attrs.get("limited", "auto")
        if value not in ("true", "false", "auto"):
            raise self._error(
                InvalidValue,
                f"limited={value!r} must be true, false or auto",
                element,
                construct=f"{element.tag}/@limited",
            )
        rng = self._floats(element, attrs, "range", 2, None)
        if value == "auto":
            if not self.compiler.autolimits and rng is not None:
                raise self._error(
                    InvalidValue,
                    "joint has `range` but not `limited`",
                    element,
                    construct=f"{element.tag}/@range",
                    suggestion='set autolimits="true" in <compiler>, or give limited="true" or "false"',
                )
            limited = rng is not None and rng[0] < rng[1]
        else:
            limited = value == "true"
        if limited and kind == "ball":
            if rng is None or rng[0] != 0:
                raise self._error(
                    InvalidValue,
                    "range[0] should be 0 in ball joint",
                    element,
                    construct=f"{element.tag}/@range",
                    suggestion='write range="0 max-angle"',
                )
        elif limited and (rng is None or rng[0] >= rng[1]):
            raise self._error(
                InvalidValue,
                "range[0] should be smaller than range[1] in joint",
                element,
                construct=f"{element.tag}/@range",
                suggestion='write range="lower upper"',
            )
        return limited

    def _inertial(self, element: Element, body: str) -> None:
        attrs = element.attrib
        info = self.bodies[body]
        mass = self._floats(element, attrs, "mass", 1)
        if mass is None:
            raise self._error(
                MissingAttribute,
                "<inertial> needs a mass",
                element,
                construct="inertial/@mass",
                suggestion='add mass="..."',
            )
        pos = self._floats(element, attrs, "pos", 3)
        if pos is None:
            raise self._error(
                MissingAttribute,
                "<inertial> needs a pos",
                element,
                construct="inertial/@pos",
                suggestion='add pos="x y z" (the centre of mass in the body frame)',
            )
        diag = self._floats(element, attrs, "diaginertia", 3)
        full = self._floats(element, attrs, "fullinertia", 6)
        if (diag is None) == (full is None):
            raise self._error(
                MissingAttribute,
                "<inertial> needs exactly one of diaginertia and fullinertia",
                element,
                construct="inertial",
                suggestion='add diaginertia="ixx iyy izz"',
            )
        if full is not None:
            if any(n in element.attrib for n in _ORIENTATIONS):
                raise self._error(
                    InvalidValue,
                    "fullinertia and an inertial orientation cannot both be given",
                    element,
                    construct="inertial/@fullinertia",
                )
            ixx, iyy, izz, ixy, ixz, iyz = full
            with np.errstate(all="ignore"):  # huge values overflow in the Jacobi rotations: refused below
                moments, quat = mass_properties.principal_axes(
                    np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
                )
            if not (np.isfinite(moments).all() and np.isfinite(quat).all()):
                raise self._error(
                    InvalidValue,
                    "fullinertia has no principal axes: its values are so large that computing them overflows",
                    element,
                    construct="inertial/@fullinertia",
                    suggestion="give the inertia in smaller units",
                )
        else:
            moments, quat = np.array(diag), self._quat(element, attrs)
        info.explicit = _Principal(mass[0], np.array(pos), np.asarray(quat, dtype=float), np.asarray(moments))

    def _geom(self, element: Element, body: str, frame: np.ndarray, active: str | None) -> None:
        attrs = self._attrs(element, active)
        kind = self._keyword(element, attrs, "type", _GEOM_TYPES, "sphere")
        local, size = self._geom_pose(element, attrs, kind, self._sizes(element, attrs, "size", 3))
        self._note_ignored(element, attrs, active, kind)
        pose = frame @ local
        contype = self._int(element, attrs, "contype", 1)
        conaffinity = self._int(element, attrs, "conaffinity", 1)
        group = self._int(element, attrs, "group", 0)
        mesh_name = attrs.get("mesh")
        mesh_asset = None
        if kind in ("mesh", "sdf") or mesh_name:  # a primitive may name a mesh to be fitted to it
            if mesh_name is None:
                raise self._error(
                    MissingAttribute,
                    "a mesh geom needs a mesh attribute",
                    element,
                    construct="geom/@mesh",
                    suggestion='add mesh="<asset mesh name>"',
                )
            mesh_asset = self.meshes.get(mesh_name)
            if mesh_asset is None:
                raise self._error(
                    UnresolvedReference,
                    f"unknown mesh {mesh_name!r}",
                    element,
                    construct=mesh_name,
                    suggestion=did_you_mean(mesh_name, self.meshes) or "declare it in <asset>",
                )
        if mesh_asset is not None and kind in _PRIMITIVES:  # sized and placed to fit the mesh (MuJoCo's fitting)
            try:
                fitted, offset_pos, offset_quat = mass_properties.fit_primitive_to_mesh(
                    kind,
                    self._processed_mesh(mesh_asset),
                    fitaabb=self.compiler.fitaabb,
                    fitscale=self._floats(element, attrs, "fitscale", 1, [1.0])[0],
                )
            except ValueError as exc:
                raise self._error(
                    InvalidValue, f"cannot fit a {kind} to mesh {mesh_name!r}: {exc}", element, construct="geom/@mesh"
                ) from None
            size = list(fitted)
            pose = pose @ make_pose(quat_to_matrix(offset_quat), offset_pos)
            mesh_asset = None
        info = self.bodies[body]
        density = self._floats(element, attrs, "density", 1, [1000.0])[0]
        mass = self._floats(element, attrs, "mass", 1, None)
        info.geoms.append(
            _GeomInfo(
                kind=kind,
                size=size,
                pose=pose,
                mass=mass[0] if mass else None,
                density=density,
                group=group,
                shell=self._bool(element, attrs, "shellinertia", False),
                mesh=mesh_asset,
                location=self.where(element),
            )
        )
        geometry, shape_pose = self._geometry(element, attrs, kind, size, pose, mesh_asset)
        shape = Shape(geometry=geometry, pose=shape_pose, name=self._name(attrs, "geom") if attrs.get("name") else None)
        material = attrs.get("material")
        rgba = self._floats(element, attrs, "rgba", 4, None)
        if material is not None:
            shape.material = self.materials.get(material) or Material(name=material)
        elif rgba is not None:
            shape.material = Material(color=np.array(rgba))
        shape.extras["mjcf"] = {"contype": contype, "conaffinity": conaffinity, "group": group}
        if isinstance(geometry, Mesh) and mesh_asset is not None:
            shape.extras["mjcf"].update(mesh=mesh_asset["name"], mesh_location=self.where(mesh_asset["element"]))
        if contype or conaffinity:
            info.body.collisions.append(shape)
        elif self.compiler.discardvisual:
            return  # MuJoCo drops the geom but, as here, still counts its mass
        if group <= 2 or not (contype or conaffinity):  # shown by default, or drawn and never collides
            info.body.visuals.append(shape)

    def _geom_pose(
        self, element: Element, attrs: dict[str, str], kind: str, size: list[float]
    ) -> tuple[np.ndarray, list[float]]:
        """The pose of a geom or site and its size; `fromto` sets both (z along from -> to)."""
        fromto = self._floats(element, attrs, "fromto", 6, None)
        if fromto is None:
            return self._pose(element, attrs), size
        if kind not in FROMTO_KINDS:
            raise self._error(
                InvalidValue,
                f"fromto is not allowed for {kind} {element.tag}s",
                element,
                construct=f"{element.tag}/@fromto",
                suggestion="use fromto with capsule, cylinder, box or ellipsoid",
            )
        start, end = np.array(fromto[:3]), np.array(fromto[3:])
        with np.errstate(over="ignore"):  # an infinite length is refused below
            direction = end - start
        length = math.hypot(*direction)
        if length < MINVAL:
            raise self._error(InvalidValue, "fromto has zero length", element, construct=f"{element.tag}/@fromto")
        if not math.isfinite(length):
            raise self._error(
                InvalidValue, "fromto is too long (its length overflows)", element, construct=f"{element.tag}/@fromto"
            )
        self._note_fromto(element, attrs)
        radius = size[0] if size else 0.0
        # MuJoCo: the first size is the radius (capsule, cylinder) or both cross half-sizes (box, ellipsoid)
        size = [radius, length / 2] if kind in ("capsule", "cylinder") else [radius, radius, length / 2]
        return make_pose(quat_to_matrix(quat_between((0.0, 0.0, 1.0), direction)), (start + end) / 2), size

    def _geometry(
        self, element: Element, attrs: dict[str, str], kind: str, size: list[float], pose: np.ndarray, mesh: dict | None
    ) -> tuple[Geometry, np.ndarray]:
        def need(count: int) -> list[float]:
            if len(size) < count or any(s <= 0 for s in size[:count]):
                raise self._error(
                    InvalidValue,
                    f"{kind} geom needs {count} positive size value(s)",
                    element,
                    construct="geom/@size",
                    suggestion=f"give size with {count} positive numbers",
                )
            return size

        if kind == "sphere":
            return Sphere(radius=need(1)[0]), pose
        if kind == "capsule":
            r, h = need(2)[:2]
            return Capsule(radius=r, length=2 * h), pose
        if kind == "cylinder":
            r, h = need(2)[:2]
            return Cylinder(radius=r, length=2 * h), pose
        if kind == "ellipsoid":
            return Ellipsoid(radii=np.array(need(3)[:3])), pose
        if kind == "box":  # full sizes from half sizes, doubled as Python floats: 1e308 gives inf, not a warning
            return Box(size=np.array([2 * s for s in need(3)[:3]])), pose
        if kind == "plane":
            extent = size + [0.0] * (2 - len(size))
            return Plane(size=np.array([2 * s for s in extent[:2]]) if all(s > 0 for s in extent[:2]) else None), pose
        if kind == "hfield":
            return Heightfield(uri=attrs.get("hfield")), pose
        if mesh is None:
            raise self._error(UnsupportedGeometry, f"{kind} geom needs a mesh", element, construct="geom/@mesh")
        m_attrs, m_el = mesh["attrs"], mesh["element"]
        scale = self._floats(m_el, m_attrs, "scale", 3, [1.0, 1.0, 1.0])
        refpos = np.array(self._floats(m_el, m_attrs, "refpos", 3, [0.0, 0.0, 0.0]))
        refquat = self._refquat(m_el, m_attrs)
        geometry = Mesh(uri=m_attrs.get("file") or f"mesh:{m_attrs.get('name', '')}", scale=np.array(scale))
        if mesh["path"] is not None:
            geometry.path = mesh["path"] if os.path.isfile(mesh["path"]) else None
            geometry.tried = [mesh["path"]]
            if geometry.path is None:
                self.model.diagnose(
                    Severity.WARNING,
                    "mesh-not-found",
                    f"mesh file {mesh['path']!r} does not exist",
                    self.where(m_el),
                    "check meshdir/assetdir in <compiler>",
                )
        # the file's vertices sit in the frame (refpos, refquat) of the geom's mesh frame
        reference = make_pose(quat_to_matrix(refquat), refpos)
        return geometry, pose @ invert_pose(reference)

    def _label(self, element: Element, attrs: dict[str, str]) -> str:
        name = attrs.get("name")
        return f"{element.tag} {self._prefix + name + self._suffix!r}" if name else f"an unnamed {element.tag}"

    def _note_fromto(self, element: Element, attrs: dict[str, str]) -> None:
        """MuJoCo places a geom or site by fromto alone: a non-zero pos beside it is an error ("both pos
        and fromto defined"), an orientation written beside it is silently replaced (a warning here)."""
        pos = self._floats(element, attrs, "pos", 3, None)
        what = self._label(element, attrs)
        if pos is not None and any(pos):
            source = "" if "pos" in element.attrib else " (from its default class)"
            raise self._error(
                InvalidValue,
                f"{what} has both fromto and pos{source}; MuJoCo refuses this (both pos and fromto defined)",
                element,
                construct=f"{element.tag}/@fromto",
                suggestion="remove pos and put the offset into the fromto end points",
            )
        written = [n for n in _ORIENTATIONS if n in element.attrib]
        if written:
            self.model.diagnose(
                Severity.WARNING,
                "fromto-overrides-pose",
                f"{what} has fromto and {', '.join(written)}: MuJoCo orients it along fromto and ignores "
                f"{', '.join(written)}",
                self.where(element),
                f"remove {', '.join(written)}, or drop fromto and give pos and size",
            )

    def _class_of(self, element: Element, active: str | None = None) -> str:
        return element.get("class") or active or "main"

    def _note_ignored(self, element: Element, attrs: dict[str, str], active: str | None, kind: str) -> None:
        """Remember attributes a default class gave this element that MuJoCo ignores for it."""
        if element.tag == "freejoint":
            return
        inherited = {name for name in attrs if name not in element.attrib}
        if not inherited:
            return
        ignored = ignored_class_attributes(element.tag, kind, attrs, inherited)
        if ignored:
            key = (self._prefix + self._class_of(element, active), element.tag, kind, tuple(ignored.items()))
            name = attrs.get("name")
            label = repr(self._prefix + name + self._suffix) if name else "unnamed"
            self._ignored.setdefault(key, []).append((label, self.where(element)))

    def _report_ignored(self) -> None:
        """One `class-attribute-ignored` per class, element kind and attributes, listing the elements."""
        for (name, tag, kind, ignored), elements in self._ignored.items():
            if len(elements) == 1:
                label = elements[0][0]
                whom = f"{kind} {tag} {label}" if label != "unnamed" else f"an unnamed {kind} {tag}"
            else:
                whom = f"{len(elements)} {kind} {tag}s ({listing([label for label, _ in elements])})"
            names = ", ".join(attribute for attribute, _ in ignored)
            reasons = "; ".join(dict.fromkeys(why for _, why in ignored))
            self.model.diagnose(
                Severity.WARNING,
                "class-attribute-ignored",
                f"default class {name!r} gives {names} to {whom}, which MuJoCo ignores there ({reasons})",
                elements[0][1],
                f"move {names} to a class used only by elements that use it, or give these elements another class",
            )

    def _site(self, element: Element, body: str, frame: np.ndarray, active: str | None) -> None:
        attrs = self._attrs(element, active)
        if not attrs.get("name"):
            self.bodies[body].body.extras.setdefault("xml", []).append(self._extra(element, body))
            return
        name = self._name(attrs, "site")
        if name in self.model.frames:
            raise self._error(
                DuplicateName,
                f"repeated name {name!r} in site",
                element,
                construct=name,
                suggestion="give each site its own name",
            )
        kind = attrs.get("type", "sphere")
        local, _ = self._geom_pose(element, attrs, kind, self._sizes(element, attrs, "size", 3))
        self._note_ignored(element, attrs, active, kind)
        pose = frame @ local
        self.model.frames[name] = Frame(
            name=name,
            body=body,
            pose=pose,
            location=self.where(element),
            extras={"mjcf": {k: v for k, v in attrs.items() if k != "name"}},
        )

    def _replicate(self, element: Element, body: str, frame: np.ndarray, active: str | None) -> None:
        """<replicate count offset euler sep>: copy i is placed by the step composed i times.

        Names inside copy i get sep + i (zero-padded to the digits of count) after any suffix
        an inner replicate added, as MuJoCo names them.
        """
        attrs = element.attrib
        count = self._int(element, attrs, "count", 0)
        if count < 1:
            raise self._error(
                InvalidValue,
                "replicate needs count >= 1",
                element,
                construct="replicate/@count",
                suggestion='write count="2" or more',
            )
        angles = [self.compiler.angle(a) for a in self._floats(element, attrs, "euler", 3, [0.0, 0.0, 0.0])]
        step = make_pose(
            quat_to_matrix(euler_to_quat(angles, self.compiler.eulerseq)),
            self._floats(element, attrs, "offset", 3, [0.0, 0.0, 0.0]),
        )
        sep = attrs.get("sep", "")
        width = len(str(count))
        copies = self._copies * count  # copies of this replicate's contents, counting enclosing replicates
        size = max(1, sum(1 for _ in element.iter()) - 1)  # an empty copy still costs a pass
        if copies * size > MAX_REPLICATED:
            raise self._error(
                InvalidValue,
                f"replicate count={count} would make {copies * size} elements; robodesc reads at most "
                f"{MAX_REPLICATED} replicated elements",
                element,
                construct="replicate/@count",
                suggestion="lower the count (of this replicate or of those around it)",
            )
        outer, outer_copies = self._suffix, self._copies
        placement = np.eye(4)
        try:
            self._copies = copies
            for index in range(count):
                self._suffix = f"{sep}{index:0{width}d}{outer}"
                self._children(element, body, frame @ placement, active, element)
                placement = placement @ step
        finally:
            self._suffix, self._copies = outer, outer_copies

    def _attach(self, element: Element, body: str, frame: np.ndarray) -> None:
        """<attach model body prefix>: graft a body subtree of an <asset><model> file, names prefixed.

        The sub-model is read with its own compiler settings and default classes; the grafted body
        keeps its pose relative to its old parent, now relative to the attachment point.
        """
        attrs = element.attrib
        model_name, body_name = attrs.get("model"), attrs.get("body")
        source = self.submodels.get(model_name) if model_name is not None else None
        if source is None:
            raise self._error(
                UnresolvedReference,
                f"unknown model {model_name!r} in attach",
                element,
                construct=model_name,
                suggestion=did_you_mean(model_name or "", self.submodels)
                or "declare it as <asset><model name=... file=...>",
            )
        key = (source.source or model_name or "", body_name)
        if key in self._attaching:
            chain = " -> ".join(f"{os.path.basename(f)}:{b}" for f, b in [*self._attaching, key])
            raise self._error(
                CyclicInclude,
                f"attaching body {body_name!r} of model {model_name!r} attaches it again, without end: {chain}",
                element,
                construct=model_name,
                suggestion="a sub-model cannot attach a body it is itself attached from",
            )
        child = _MjcfReader(self.context, source, parent=self)
        child._prefix = self._prefix + attrs.get("prefix", "")
        child._suffix = self._suffix
        # keyed by the parsed file, not by the asset name: two files may each name a sub-model "arm"
        prepared = self._prepared.get(id(source))
        if prepared is None:  # compiler, defaults and assets of a sub-model are read once per load
            root = child.prepare()
            prepared = self._prepared[id(source)] = (
                root,
                child.values,
                child.compiler,
                child.defaults,
                child.meshes,
                child.submodels,
                child.materials,
            )
        root, child.values, child.compiler, child.defaults, child.meshes, child.submodels, child.materials = prepared
        target = next((b for b in root.iter("body") if b.get("name") == body_name), None)
        if target is None:
            raise self._error(
                UnresolvedReference, f"model {model_name!r} has no body {body_name!r}", element, construct=body_name
            )
        self._attaching.append(key)
        try:
            child._body(target, body, frame, _childclass_above(root, target))
        finally:
            self._attaching.pop()

    # -- model-level sections ---------------------------------------------------------------
    def _equalities(self, element: Element) -> None:
        for child in element:
            attrs = self._attrs(child, None)
            if child.tag == "joint":
                written = self._sizes(child, attrs, "polycoef", 5)  # MuJoCo keeps its default for the rest
                coefficients = written + [0.0, 1.0, 0.0, 0.0, 0.0][len(written) :]
                joints = tuple(j for j in (attrs.get("joint1"), attrs.get("joint2")) if j)
                self.model.constraints.append(
                    Constraint(
                        kind="joint",
                        elements=joints,
                        name=attrs.get("name"),
                        coefficients=tuple(coefficients),
                        location=self.where(child),
                    )
                )
            else:
                elements = tuple(
                    attrs[k] for k in ("body1", "body2", "site1", "site2", "tendon1", "tendon2", "flex") if k in attrs
                )
                self.model.constraints.append(
                    Constraint(
                        kind=child.tag,
                        elements=elements,
                        name=attrs.get("name"),
                        location=self.where(child),
                        extras={"mjcf": dict(attrs)},
                    )
                )

    def _actuators(self, element: Element) -> None:
        for child in element:
            if child.tag == "plugin":
                self.model.extras.append(self._extra(child, None))
                continue
            attrs = self._attrs(child, None)
            transmission = next((t for t in _TRANSMISSIONS if t in attrs and t != "slidersite"), None)
            gear = self._floats(child, attrs, "gear", None, [1.0])
            target = attrs.get(transmission) if transmission else None
            self.model.actuators.append(
                Actuator(
                    name=attrs.get("name"),
                    kind=child.tag,
                    joint=target if transmission in ("joint", "jointinparent") else None,
                    gear=gear[0] if gear else 1.0,
                    transmission=transmission or "none",
                    target=target,
                    location=self.where(child),
                    extras={"mjcf": dict(attrs)},
                )
            )

    def _keyframes(self, element: Element) -> None:
        """Keyframes become named configurations. As in MuJoCo, a qpos shorter than the model's
        is completed with the joints' reference values (qpos0); a longer one is an error."""
        sizes = [j.dof for j in self._joint_order]
        reference = (
            np.concatenate([np.atleast_1d(np.asarray(j.reference, dtype=float)) for j in self._joint_order])
            if self._joint_order
            else np.zeros(0)
        )
        for index, key in enumerate(element):
            qpos = self._floats(key, key.attrib, "qpos", None, [])
            name = key.get("name") or f"key{index}"
            if len(qpos) > len(reference):
                raise self._error(
                    InvalidValue,
                    f"keyframe {name!r}: invalid qpos size, expected at most {len(reference)}, got {len(qpos)}",
                    key,
                    construct="key/@qpos",
                    suggestion="give one value per joint coordinate, in the order the joints appear",
                )
            full = reference.copy()
            full[: len(qpos)] = qpos
            values: dict[str, Any] = {}
            start = 0
            for joint, size in zip(self._joint_order, sizes):
                chunk = full[start : start + size]
                start += size
                if not joint.name.startswith("<unnamed"):
                    values[joint.name] = float(chunk[0]) if size == 1 else chunk.copy()
            self.model.configurations[name] = values
            self.model.extras.append(self._extra(key, None))

    # -- inertia ------------------------------------------------------------------------------
    def _inertias(self) -> None:
        """Body inertias in MuJoCo's order: explicit or inferred from geoms (inertiafromgeom,
        inertiagrouprange), bounds and balancing, then settotalmass."""
        c = self.compiler
        low, high = c.inertiagrouprange
        for name, info in self.bodies.items():
            if name == "world":
                continue
            use_geoms = c.inertiafromgeom == "true" or (c.inertiafromgeom == "auto" and info.explicit is None)
            if use_geoms:  # meshes are read only here, when a body's inertia comes from them
                parts = [p for g in info.geoms if low <= g.group <= high for p in [self._geom_mass(g)] if p is not None]
            else:
                parts = [info.explicit.part(np.eye(4))] if info.explicit is not None else []
            parts += info.fused
            if not parts:  # MuJoCo bounds every body but the world, even one with nothing that has mass
                if c.boundmass > 0 or c.boundinertia > 0:
                    mass, moments = mass_properties.bound_and_balance(
                        0.0, np.zeros(3), boundmass=c.boundmass, boundinertia=c.boundinertia
                    )
                    # such a body's inertial frame is, in MuJoCo, its pose as written (measured on mujoco 4.0)
                    written = info.written if info.written is not None else np.eye(4)
                    info.principal = _Principal(mass, written[:3, 3].copy(), matrix_to_quat(written[:3, :3]), moments)
                else:
                    info.body.inertial = None
                continue
            try:
                with np.errstate(over="ignore", invalid="ignore"):  # huge parts: refused once all are combined
                    combined = mass_properties.combine_geoms(parts)
                    mass, moments = mass_properties.bound_and_balance(
                        combined.mass,
                        combined.inertia,
                        boundmass=c.boundmass,
                        boundinertia=c.boundinertia,
                        balanceinertia=c.balanceinertia,
                    )
            except ValueError as exc:
                raise InvalidValue(
                    f"the inertia of body {name!r} is not valid: {exc}",
                    location=info.body.location,
                    construct=name,
                    suggestion='set balanceinertia="true" in <compiler>, or fix the inertia values',
                ) from None
            info.principal = _Principal(mass, combined.pos, combined.quat, np.asarray(moments))
        if c.settotalmass > 0:
            total = sum(i.principal.mass for i in self.bodies.values() if i.principal is not None)
            if total > MINVAL:
                for info in self.bodies.values():
                    if info.principal is not None:
                        scale = c.settotalmass / total
                        info.principal.mass *= scale
                        with np.errstate(over="ignore"):  # an overflow is refused just below
                            info.principal.moments = info.principal.moments * scale
        for name, info in self.bodies.items():
            p = info.principal
            if p is not None:
                if not (math.isfinite(p.mass) and np.isfinite(p.pos).all() and np.isfinite(p.moments).all()):
                    raise InvalidValue(  # MuJoCo compiles an infinite inertia; nothing can be computed from it
                        f"the mass or inertia of body {name!r} overflows (it is not a finite number)",
                        location=info.body.location,
                        construct=name,
                        suggestion="check the masses, densities, sizes and positions of the body's geoms",
                    )
                rotation = quat_to_matrix(p.quat)
                info.body.inertial = Inertial(p.mass, p.pos.copy(), rotation @ np.diag(p.moments) @ rotation.T)
        children: dict[str, list[str]] = {}
        for name, info in self.bodies.items():
            if info.body.parent is not None:
                children.setdefault(info.body.parent, []).append(name)
        for name, info in self.bodies.items():
            if info.moving and not self._welded_group_has_mass(name, children):
                raise InvalidValue(
                    "mass and inertia of moving bodies must be larger than mjMINVAL",
                    location=info.body.location,
                    construct=name,
                    suggestion="give the body an <inertial> or a geom with mass",
                )

    def _fuse_static(self, root: Element) -> None:
        """compiler/@fusestatic: a body without joints merges into its parent (the world too), unless
        something refers to it by name; its geoms, sites and children move up, re-expressed."""
        referenced = {
            value
            for section in root
            if section.tag in ("sensor", "equality", "actuator", "contact", "tendon", "keyframe", "custom")
            for element in section.iter()
            for key, value in element.attrib.items()
            if key != "name"
        }
        referenced |= {e.attributes.get("target") for b in self.model.bodies.values() for e in b.extras.get("xml", ())}
        for name in list(self.model.bodies):
            info = self.bodies[name]
            body = info.body
            if body.parent is None or info.moving or name in referenced or body.joints:
                continue
            parent = self.bodies[body.parent]
            pose = body.pose
            for geom in info.geoms:
                geom.pose = pose @ geom.pose
                parent.geoms.append(geom)
            if info.explicit is not None:
                parent.fused.append(info.explicit.part(pose))
            parent.fused.extend(
                (m, pose[:3, :3] @ p + pose[:3, 3], _compose_quat(pose, q), d) for m, p, q, d in info.fused
            )
            for kind in ("visuals", "collisions"):
                for shape in getattr(body, kind):
                    shape.pose = pose @ shape.pose
                    getattr(parent.body, kind).append(shape)
            for extra in body.extras.get("xml", ()):
                parent.body.extras.setdefault("xml", []).append(extra)
            for frame in self.model.frames.values():
                if frame.body == name:
                    frame.body, frame.pose = body.parent, pose @ frame.pose
            for child in self.model.bodies.values():
                if child.parent == name:
                    child.parent, child.pose = body.parent, pose @ child.pose
                    for jname in child.joints:
                        joint = self.model.joints[jname]
                        joint.parent, joint.origin = body.parent, pose @ joint.origin
                        if joint.type is JointType.FLOATING:
                            joint.reference = np.concatenate([child.pose[:3, 3], matrix_to_quat(child.pose[:3, :3])])
            del self.model.bodies[name]
            del self.bodies[name]

    def _align_free(self) -> None:
        """compiler/@alignfree: a free body without child bodies gets its inertial frame as its frame."""
        has_children = {b.parent for b in self.model.bodies.values()}
        for name, info in self.bodies.items():
            body = info.body
            joints = [self.model.joints[j] for j in body.joints]
            if name in has_children or not joints or joints[0].type is not JointType.FLOATING or info.principal is None:
                continue
            shift = make_pose(quat_to_matrix(info.principal.quat), info.principal.pos)
            back = invert_pose(shift)
            body.pose = body.pose @ shift
            for shape in (*body.visuals, *body.collisions):
                shape.pose = back @ shape.pose
            for frame in self.model.frames.values():
                if frame.body == name:
                    frame.pose = back @ frame.pose
            joint = joints[0]
            joint.origin = body.pose
            joint.reference = np.concatenate([body.pose[:3, 3], matrix_to_quat(body.pose[:3, :3])])
            body.inertial = Inertial(info.principal.mass, np.zeros(3), np.diag(info.principal.moments))

    def _welded_group_has_mass(self, name: str, children: dict[str, list[str]]) -> bool:
        """MuJoCo's check: a moving body together with the bodies welded below it (no joint in
        between) must have mass and rotational inertia about every axis."""
        parts = []
        stack = [(name, np.eye(4))]
        while stack:
            current, pose = stack.pop()
            inertial = self.bodies[current].body.inertial
            if inertial is not None and inertial.mass > 0:
                rotation = pose[:3, :3]
                parts.append(
                    (inertial.mass, rotation @ inertial.com + pose[:3, 3], rotation @ inertial.inertia @ rotation.T)
                )
            for child in children.get(current, ()):
                if not self.bodies[child].moving:
                    stack.append((child, pose @ self.bodies[child].body.pose))
        if not parts:
            return False
        with np.errstate(over="ignore", invalid="ignore"):  # huge parts: handled just below
            mass, _, tensor = mass_properties.combine(parts)
        if not np.isfinite(tensor).all():  # the parts are finite: their sum overflows, so it is anything but small
            return True
        return mass >= MINVAL and float(np.linalg.eigvalsh(tensor).min()) >= MINVAL

    def _geom_mass(self, geom: _GeomInfo) -> tuple[float, np.ndarray, np.ndarray, np.ndarray] | None:
        """(mass, pos, quat, principal moments) of one geom's inertia in body coordinates, or None
        for a massless geom (planes, height fields, zero mass)."""
        try:
            if geom.kind in _PRIMITIVES:
                pose = geom.pose
                with np.errstate(over="ignore", invalid="ignore"):  # huge sizes or masses: _inertias refuses them
                    mass, tensor = mass_properties.primitive_mass_properties(
                        geom.kind, geom.size, density=geom.density, mass=geom.mass, shell=geom.shell
                    )
            elif geom.kind in ("mesh", "sdf") and geom.mesh is not None:
                mesh = self._processed_mesh(geom.mesh)
                mass, tensor = mesh.mass_properties(density=geom.density, mass=geom.mass)
                pose = geom.pose @ make_pose(quat_to_matrix(mesh.orientation), mesh.com_offset)
            else:
                return None
        except ValueError as exc:
            raise InvalidValue(
                f"cannot compute the inertia of this geom: {exc}", location=geom.location, construct=geom.kind
            ) from None
        if mass <= 0:
            return None
        return mass, pose[:3, 3].copy(), matrix_to_quat(pose[:3, :3]), np.diag(tensor).copy()

    def _processed_mesh(self, mesh: dict[str, Any]) -> mass_properties.ProcessedMesh:
        """The mesh as MuJoCo processes it (read from its file on first use, then cached).

        A file that cannot be read is `ResourceNotFound`; a file read but not a valid mesh of its
        type is `MalformedValue`; a mesh MuJoCo refuses (degenerate, too few vertices, ...) is
        `InvalidValue`. Each names the mesh, its file and the <mesh> element.
        """
        if "processed" in mesh:
            return mesh["processed"]
        attrs, element = mesh["attrs"], mesh["element"]
        name, path = mesh["name"], mesh["path"]
        vertices = self._floats(element, attrs, "vertex", None, None)
        faces = self._floats(element, attrs, "face", None, None)
        source = f"file {path!r}" if vertices is None and path is not None else "its vertex data"
        try:
            if vertices is not None:  # process_mesh checks the counts, and that face indices are whole numbers
                points = np.array(vertices)
                triangles = np.array(faces) if faces is not None else None
            elif path is not None:
                points, triangles = mass_properties.load_mesh_file(path)
            else:
                raise self._error(
                    MissingAttribute,
                    f"mesh {name!r} has neither a file nor vertices",
                    element,
                    construct="mesh/@file",
                    suggestion='add file="part.stl" or vertex="..." to the <mesh>',
                )
            processed = mass_properties.process_mesh(
                points,
                triangles,
                scale=self._floats(element, attrs, "scale", 3, [1.0, 1.0, 1.0]),
                refpos=self._floats(element, attrs, "refpos", 3, [0.0, 0.0, 0.0]),
                refquat=self._refquat(element, attrs),
                inertia_mode=attrs.get("inertia", "legacy"),
                maxhullvert=self._int(element, attrs, "maxhullvert", -1),
            )
        except mass_properties.MeshFileUnreadable as exc:
            raise ResourceNotFound(
                f"mesh {name!r} cannot be used: {exc}",
                location=self.where(element),
                construct=name,
                tried=[path],
                suggestion="check the file name and meshdir/assetdir in <compiler>",
            ) from None
        except (mass_properties.MalformedMeshFile, mass_properties.UnsupportedMeshFileType) as exc:
            raise self._error(
                MalformedValue,
                f"mesh {name!r} cannot be read from {source}: {exc}",
                element,
                construct=name,
                suggestion="MuJoCo reads binary STL, OBJ and MSH files: re-export the mesh as one of them",
            ) from None
        except ValueError as exc:  # MuJoCo's compiler refuses the mesh itself
            raise self._error(
                InvalidValue, f"mesh {name!r} ({source}) cannot be used: {exc}", element, construct=name
            ) from None
        mesh["processed"] = processed
        return processed

    def _check_references(self) -> None:
        joints = self.model.joints
        for constraint in self.model.constraints:
            if constraint.kind == "joint":
                for name in constraint.elements:
                    if name not in joints:
                        raise UnresolvedReference(
                            f"equality refers to unknown joint {name!r}",
                            location=constraint.location,
                            construct=name,
                            suggestion=did_you_mean(name, joints),
                        )
        for actuator in self.model.actuators:
            if actuator.joint is not None and actuator.joint not in joints:
                raise UnresolvedReference(
                    f"actuator refers to unknown joint {actuator.joint!r}",
                    location=actuator.location,
                    construct=actuator.joint,
                    suggestion=did_you_mean(actuator.joint, joints),
                )


def _merged(inherited: dict[str, str], own: dict[str, str]) -> dict[str, str]:
    """Attributes written on an element (or a default class) over those it inherits. MuJoCo reads a size
    over the inherited values, so size="0.1" under a class with size="1 2 3" is 0.1 2 3."""
    merged = dict(inherited)
    merged.update(own)
    if "size" in own and "size" in inherited:
        written, rest = own["size"].split(), inherited["size"].split()
        if len(written) < len(rest):
            merged["size"] = " ".join(written + rest[len(written) :])
    return merged


def _compose_quat(pose: np.ndarray, quat: np.ndarray) -> np.ndarray:
    return matrix_to_quat(pose[:3, :3] @ quat_to_matrix(quat))


def _childclass_above(root: Element, target: Element) -> str | None:
    """The childclass in force at `target` (a body deep in a sub-model's tree), if any."""

    def walk(node: Element, active: str | None) -> tuple[bool, str | None]:
        """(whether `target` is below `node`, the childclass in force at it)."""
        for child in node:
            if child is target:
                return True, active
            found = walk(child, child.get("childclass", active) if child.tag in ("body", "frame") else active)
            if found[0]:
                return found
        return False, None

    return walk(root, None)[1]
