"""Attribute values of one MJCF file's elements, read as MuJoCo reads them.

MuJoCo's rules differ from the plain XML helpers in `..xml`: an empty attribute counts as not
written, a vector has an exact count or an upper bound, keywords and booleans have their own
spellings, angles follow the file's ``<compiler angle eulerseq>``, an element's attributes are
completed from its default class, and an orientation may be written five ways (of which at most
one). Errors name the file each element came from, also for elements spliced in by ``<include>``.

`Attributes` also names elements: an ``<attach>`` prefix before every name read and the indices
of the enclosing ``<replicate>``s after it, as MuJoCo names them.
"""

from __future__ import annotations

import math
from collections.abc import Container, Mapping
from functools import partial
from typing import Any, TypeVar

import numpy as np

from ...core.errors import (
    DuplicateName,
    InvalidValue,
    Location,
    MalformedValue,
    RobodescError,
    UnresolvedReference,
    UnsupportedJointType,
    did_you_mean,
)
from ...core.model import Extra
from ...core.transforms import (
    IDENTITY,
    axis_angle_to_quat,
    cross,
    euler_to_quat,
    matrix_to_quat,
    quat_between,
    quat_to_entries,
)
from ..xml import Element, Values, plain_numbers, to_xml
from .mujoco_math import MJ_MINVAL
from .records import IDENTITY_ROTATION, Rotation, pose_array
from .state import FileScope, LoadState

_AXIS_EPS = 1e-6  # MuJoCo's mjEPS: shorter axes (axisangle, xyaxes, zaxis) are errors
ORIENTATIONS = ("quat", "axisangle", "euler", "xyaxes", "zaxis")
ORIENTATION_NAMES = frozenset(ORIENTATIONS)  # tested against every placed element's attributes
#: How many numbers each orientation specifier takes.
_ORIENTATION_SIZES = {"quat": 4, "axisangle": 4, "euler": 3, "xyaxes": 6, "zaxis": 3}
ACTUATORS = {"general", "motor", "position", "velocity", "intvelocity", "damper", "cylinder", "muscle", "adhesion"}
#: Elements a default class gives attributes to.
_DEFAULTABLE = {"joint", "geom", "site", "camera", "light", "mesh", "material", "pair", "equality", "tendon"}
_DEFAULTABLE |= ACTUATORS
_IDENTITY_QUAT = (1.0, 0.0, 0.0, 0.0)
_NO_ROTATION = (IDENTITY_ROTATION, IDENTITY_ROTATION)  # as computed and +0 added: the same
#: The longest attribute text whose numbers a load keeps (`LoadState.numbers`): a vector, not a mesh's data.
_KEPT_NUMBERS = 200
T = TypeVar("T")


class Attributes:
    """Reads attribute values of the elements of one file (`scope`) during one load (`state`)."""

    def __init__(self, state: LoadState, scope: FileScope, prefix: str = "", suffix: str = "") -> None:
        self.state = state
        self.scope = scope
        self.prefix = prefix  # added before every name read (an <attach> prefix)
        self.suffix = suffix  # added after every name read (the indices of enclosing <replicate>s)

    # -- where, and errors --------------------------------------------------------------------
    def values_of(self, element: Element) -> Values:
        """The `Values` of the file `element` came from (an included file's, or this file's)."""
        owners = self.state.owners  # empty unless files were included (most loads): no lookup then
        return owners.get(id(element), self.scope.values) if owners else self.scope.values

    def where(self, element: Element) -> Location:
        owners = self.state.owners  # (`values_of`, inline: a location is made for nearly every element)
        return (owners.get(id(element), self.scope.values) if owners else self.scope.values).where(element)

    def error(self, kind: type[RobodescError], element: Element, message: str, **details: str | None) -> RobodescError:
        """An error of class `kind` located at `element` in its own file, to `raise` (`details`:
        construct, suggestion; see `Values.error`)."""
        return self.values_of(element).error(kind, element, message, **details)

    def require(
        self, condition: object, kind: type[RobodescError], element: Element, message: str, **details: str | None
    ) -> None:
        """Raise `error(kind, element, message, ...)` unless `condition` holds. Its arguments (the
        message's f-string, the details) are made even when the condition holds, so a check every
        joint or inertial passes tests its condition itself and raises `error` only when it fails."""
        if not condition:
            raise self.values_of(element).error(kind, element, message, **details)

    # -- names --------------------------------------------------------------------------------
    def name(self, attrs: dict[str, str], kind: str) -> str:
        """The element's name with the current attach prefix and replicate suffix, or a generated one."""
        name = attrs.get("name")
        if not name:
            self.state.unnamed += 1
            return f"<unnamed {kind} {self.state.unnamed}>"
        return f"{self.prefix}{name}{self.suffix}"

    def unique(self, element: Element, name: str, kind: str, taken: Container[str]) -> None:
        """Refuse a name already `taken` by another element of this kind."""
        if name in taken:
            raise self.error(
                DuplicateName,
                element,
                f"repeated name {name!r} in {kind}",
                construct=name,
                suggestion=f"give each {kind} its own name",
            )

    def resolve(self, element: Element, table: Mapping[str, T], name: str, what: str, hint: str) -> T:
        """What `name` refers to in `table`; an unknown name is an error suggesting a known one, or `hint`."""
        found = table.get(name)
        if found is None:
            raise self.error(
                UnresolvedReference,
                element,
                f"unknown {what} {name!r}",
                construct=name,
                suggestion=did_you_mean(name, table) or hint,
            )
        return found

    def label(self, element: Element, attrs: dict[str, str]) -> str:
        """How a message names the element: its tag and full name, or "an unnamed TAG"."""
        name = attrs.get("name")
        return f"{element.tag} {self.prefix + name + self.suffix!r}" if name else f"an unnamed {element.tag}"

    def extra(self, element: Element, owner: str | None) -> Extra:
        """The element kept as written (robodesc does not model it)."""
        return Extra(
            tag=element.tag,
            source=partial(to_xml, element),
            location=self.where(element),
            owner=owner,
            attributes=dict(element.attrib),
        )

    # -- default classes ----------------------------------------------------------------------
    def defaulted(self, element: Element, active: str | None) -> dict[str, str]:
        """The element's attributes with its default class applied (MuJoCo's cascade); `active` is
        the childclass in force."""
        own = element.attrib
        tag = element.tag
        if tag not in _DEFAULTABLE:
            return own
        name = own.get("class") or active or "main"
        classes = self.scope.defaults.get(name)
        if classes is None:  # (`resolve` says what is wrong)
            classes = self.resolve(element, self.scope.defaults, name, "default class name", "define it in <default>")
        inherited = classes.get("general" if tag in ACTUATORS else tag)
        # with nothing to inherit, the element's own attributes as they are (callers only read them, as
        # they read those of elements that take no defaults): one dict less per element
        return merged(inherited, own) if inherited else own

    # -- numbers, keywords, booleans ------------------------------------------------------------
    def floats(self, element: Element, attrs: dict[str, str], name: str, count: int | None, default: Any = None) -> Any:
        """Numbers of attribute `name` (already merged with defaults), with MuJoCo's count rules.

        An empty attribute counts as not given, as in MuJoCo.
        """
        text = attrs.get(name)
        if not text or text.isspace():  # (a test, not a stripped copy of every number's text)
            return default
        known = self.state.numbers
        found = known.get(text)
        if found is not None and (count is None or len(found) == count):
            return list(found)  # (each caller's own list)
        # a vector of N numbers is cut into at most N + 1 pieces before its count is checked (a huge
        # attribute is refused without being cut into millions of strings)
        parts = text.split() if count is None else text.split(None, count)
        if count is not None and len(parts) != count:
            pieces = len(parts)
            few = pieces < count
            raise self.error(
                MalformedValue,
                element,
                f"attribute {name!r} of <{element.tag}> has {'not enough' if few else 'too much'} data "
                f"({pieces if few else f'more than {count}'} value(s), expected {count})",
                construct=f"{element.tag}/@{name}",
                suggestion=f"give exactly {count} numbers",
            )
        values = plain_numbers(parts, text)  # `Values.numbers`' common case, without finding the element's file
        if values is not None:
            if len(text) <= _KEPT_NUMBERS:
                known[text] = tuple(values)
            return values
        return self.values_of(element).numbers(parts, text, element, name)

    def sizes(self, element: Element, attrs: dict[str, str], name: str, most: int) -> list[float]:
        """Up to `most` numbers (MuJoCo keeps its defaults for the rest)."""
        values = list(self.floats(element, attrs, name, None, []))
        if len(values) > most:
            raise self.error(
                MalformedValue,
                element,
                f"attribute {name!r} of <{element.tag}> has too much data",
                construct=f"{element.tag}/@{name}",
                suggestion=f"give at most {most} numbers",
            )
        return values

    def keyword(
        self, element: Element, attrs: dict[str, str], name: str, allowed: tuple[str, ...], default: str
    ) -> str:
        value = attrs.get(name, default)
        if value not in allowed:
            kind = UnsupportedJointType if name == "type" and element.tag == "joint" else InvalidValue
            raise self.error(
                kind,
                element,
                f"invalid keyword {value!r} for {name!r} of <{element.tag}>",
                construct=f"{element.tag}/@{name}",
                suggestion=did_you_mean(value, allowed) or "use one of " + ", ".join(allowed),
            )
        return value

    def boolean(self, element: Element, attrs: dict[str, str], name: str, default: bool) -> bool:
        value = attrs.get(name)
        if value is None:
            return default
        if value not in ("true", "false"):
            raise self.error(
                InvalidValue,
                element,
                f"{name}={value!r} on <{element.tag}> is not true or false",
                construct=f"{element.tag}/@{name}",
                suggestion='write "true" or "false"',
            )
        return value == "true"

    def integer(self, element: Element, attrs: dict[str, str], name: str, default: int) -> int:
        value = attrs.get(name)
        if value is None:
            return default
        try:
            if value.isascii() and "_" not in value:  # Python-only spellings (1_000, non-ASCII digits) are refused
                return int(value)
        except ValueError:
            pass
        raise self.error(
            MalformedValue,
            element,
            f"{name}={value!r} on <{element.tag}> is not a whole number",
            construct=f"{element.tag}/@{name}",
        )

    # -- poses and orientations -----------------------------------------------------------------
    # A pose is built from plain floats in one array (not a copy of the identity written into, then
    # added +0 for its place in the body): the same bits, a third of the numpy calls of every element.
    def pose(self, element: Element, attrs: dict[str, str]) -> np.ndarray:
        """The pose written on an element: pos plus at most one orientation specifier. Without a pos
        the translation is the identity's (+0, as MuJoCo's default 0 0 0 gives), without a rotation
        written or inherited the rotation is too (the identity quaternion's matrix, bit for bit)."""
        pos, rotation = self._pose_numbers(element, attrs)
        return pose_array(rotation[0], pos)

    def placed_pose(self, element: Element, attrs: dict[str, str], frame: np.ndarray) -> np.ndarray:
        """``placed(frame, self.pose(element, attrs))``: the element's pose in its body, where `frame`
        places its element. Right in the body (`frame` IDENTITY, most elements) that is the pose with
        +0 added to every entry (records.placed), done here on the floats."""
        if frame is not IDENTITY:
            return frame @ self.pose(element, attrs)
        pos, rotation = self._pose_numbers(element, attrs)
        return pose_array(rotation[1], None if pos is None else [p + 0.0 for p in pos])

    def poses(
        self, element: Element, attrs: dict[str, str], frame: np.ndarray
    ) -> tuple[tuple[Rotation, list[float] | None], np.ndarray]:
        """The pose written on the element, as the numbers `records.pose_array` takes, and `placed_pose`
        (a body keeps both), from one reading. Right in the body (`frame` IDENTITY) the placed pose is
        `records.plain`: finite numbers (as checked), with +0 added."""
        pos, rotation = self._pose_numbers(element, attrs)
        written = (rotation[0], pos)
        if frame is not IDENTITY:
            return written, frame @ pose_array(*written)
        return written, pose_array(rotation[1], None if pos is None else [p + 0.0 for p in pos])

    def _pose_numbers(
        self, element: Element, attrs: dict[str, str]
    ) -> tuple[list[float] | None, tuple[Rotation, Rotation]]:
        """The element's pos (None when not written) and its rotation's entries (`_rotation_entries`),
        read in MuJoCo's order: a bad pos is reported before a bad orientation."""
        pos = self.floats(element, attrs, "pos", 3)
        if ORIENTATION_NAMES.isdisjoint(attrs):
            return pos, _NO_ROTATION
        return pos, self._rotation_entries(element, attrs)

    def _rotation_entries(self, element: Element, attrs: dict[str, str]) -> tuple[Rotation, Rotation]:
        """The entries of the element's rotation matrix (of `quat`), row by row, as computed and with +0
        added. The same specifier with the same text under the same angle settings gives the same
        matrix: worked out once per load (robots repeat their orientations, turning a cylinder or a
        link by the same quarter turn)."""
        name = self._orientation(element, attrs)
        compiler = self.scope.compiler
        key = (name, attrs.get(name) if name else None, compiler.degree, compiler.eulerseq)
        known = self.state.rotations
        found = known.get(key)
        if found is None:
            quat = np.array(_IDENTITY_QUAT) if name is None else self._parsed_quat(element, attrs, name)
            entries = quat_to_entries(quat)
            found = known[key] = (entries, tuple([v + 0.0 for v in entries]))
        return found

    def quat(self, element: Element, attrs: dict[str, str]) -> np.ndarray:
        """The element's orientation (w, x, y, z), from whichever specifier it writes or inherits."""
        if ORIENTATION_NAMES.isdisjoint(attrs):  # (`attrs` holds the element's own: none written either)
            return np.array(_IDENTITY_QUAT)
        name = self._orientation(element, attrs)
        return np.array(_IDENTITY_QUAT) if name is None else self._parsed_quat(element, attrs, name)

    def _orientation(self, element: Element, attrs: dict[str, str]) -> str | None:
        """The orientation specifier in force on the element (None: the identity); more than one
        written on the element is an error."""
        own = element.attrib
        mine = ORIENTATION_NAMES.intersection(own)
        if len(mine) == 1:  # one written (nearly every element that writes one): it, unless it is empty
            (name,) = mine
            if own[name].strip():
                return name
        given = [name for name in ORIENTATIONS if name in own]
        if len(given) > 1:
            raise self.error(
                InvalidValue,
                element,
                "multiple orientation specifiers are not allowed: " + ", ".join(given),
                construct=f"{element.tag}/@{given[1]}",
                suggestion="keep one of quat, axisangle, euler, xyaxes, zaxis",
            )
        # an orientation from a default class applies only when the element writes none itself; an empty
        # one (euler="") counts as not written, as in MuJoCo, but still clashes with another one above
        written = [n for n in given if element.attrib[n].strip()]
        if written:
            return written[0]
        return next((n for n in ORIENTATIONS if n not in given and attrs.get(n, "").strip()), None)

    def _parsed_quat(self, element: Element, attrs: dict[str, str], name: str) -> np.ndarray:
        """The quaternion of orientation specifier `name` as in force on the element."""
        values = self.floats(element, attrs, name, _ORIENTATION_SIZES[name])
        try:
            return self._rotation(name, values)
        except ValueError as exc:
            raise self.error(
                InvalidValue,
                element,
                f"the {name} of <{element.tag}> does not define a rotation ({exc})",
                construct=f"{element.tag}/@{name}",
                suggestion="use non-zero, non-parallel vectors",
            ) from None

    def _rotation(self, name: str, values: list[float]) -> np.ndarray:
        """The quaternion of orientation specifier `name`. MuJoCo's limits (mjuu_frame2quat): a zero
        quaternion, and axes shorter than mjEPS; norms by hypot, which neither overflows nor
        underflows on huge or tiny (finite) numbers."""
        compiler = self.scope.compiler
        if name == "quat":
            values, norm = _length_kept_finite(values)
            if norm < MJ_MINVAL:
                raise ValueError("zero quaternion")
            return np.array([v / norm for v in values])  # (numpy's division, number by number: one array)
        if name == "axisangle":
            axis = np.array(values[:3])
            norm = math.hypot(*axis)
            if norm < _AXIS_EPS:
                raise ValueError("axis too small")
            return axis_angle_to_quat(axis / norm, compiler.angle(values[3]))
        if name == "euler":
            return euler_to_quat([compiler.angle(a) for a in values], compiler.eulerseq)
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
            return matrix_to_quat(np.column_stack([x, y, cross(x, y)]))
        norm = math.hypot(*values)
        if norm < _AXIS_EPS:
            raise ValueError("zaxis too small")
        return quat_between((0.0, 0.0, 1.0), np.array(values) / norm)

    def refquat(self, element: Element, attrs: dict[str, str]) -> list[float]:
        """A mesh's refquat: a quaternion that is not zero (scaled down when its squares would overflow)."""
        quat, norm = _length_kept_finite(self.floats(element, attrs, "refquat", 4, [1.0, 0.0, 0.0, 0.0]))
        if norm < MJ_MINVAL:
            raise self.error(
                InvalidValue,
                element,
                f"refquat={attrs['refquat']!r} of <{element.tag}> is a zero quaternion",
                construct=f"{element.tag}/@refquat",
                suggestion='write a unit quaternion such as refquat="1 0 0 0"',
            )
        if not math.isfinite(sum(q * q for q in quat)):
            quat = [q / norm for q in quat]
        return quat


def _length_kept_finite(values: list[float]) -> tuple[list[float], float]:
    """(`values`, their length), the values first divided by the largest of them in magnitude when the
    length itself is past the largest float (four components near 1e308): the same direction, and a
    length that normalising can divide by. MuJoCo, which sums the squares, turns a quaternion whose
    squares overflow into all zeros (no rotation at all); robodesc keeps its direction."""
    norm = math.hypot(*values)
    if norm == math.inf:
        largest = max(map(abs, values))
        values = [v / largest for v in values]
        norm = math.hypot(*values)
    return values, norm


def merged(inherited: dict[str, str], own: dict[str, str]) -> dict[str, str]:
    """Attributes written on an element (or a default class) over those it inherits. MuJoCo reads a size
    over the inherited values, so size="0.1" under a class with size="1 2 3" is 0.1 2 3."""
    result = dict(inherited)
    result.update(own)
    if "size" in own and "size" in inherited:
        written, rest = own["size"].split(), inherited["size"].split()
        if len(written) < len(rest):
            result["size"] = " ".join(written + rest[len(written) :])
    return result
