"""The file context: what every part of the SDF parser needs about the one file it is reading.

Parsing a file is split by concern (`elements`, `geometry`, `includes`, `params`, `names`,
`checks`); each is handed this small object instead of a parser, so none of them depends on
another's code: the document and its declared version, the folders its relative URIs resolve
against, where an element is (for errors that name file, line and element path), what the parse
noticed (diagnostics), and the value readers every element uses (a child's number, a `<pose>`,
an element kept as it is written, with the checks libsdformat makes on it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import partial
from itertools import repeat
from typing import Any, TypeVar

import numpy as np

from ...core.diagnostics import Diagnostic, Severity
from ...core.errors import Location, MalformedPose, did_you_mean, lazy_location
from ...core.model import Limits
from ...core.transforms import IDENTITY, pose_from_xyz_rpy
from ..xml import Document, Element, LocatingValues
from .desc import ModelDesc, Node, PoseRef, WorldDesc
from .loader import Loader
from .names import reference
from .spec import (
    EMPTY_IS_DEFAULT,
    FREE_FORM,
    KNOWN_CHILDREN,
    LATEST_VERSION,
    REQUIRED_ATTRIBUTES,
    TYPED_CHILDREN,
    is_custom,
)
from .values import (
    first_children,
    parse_bool,
    parse_finite,
    parse_floats,
    parse_pose,
    parse_typed,
    plain_color,
    plain_finite,
    plain_finites,
    plain_floats,
    plain_pose_numbers,
    text_of,
    within_a_turn,
)

#: The attribute names of a `<pose>` with a relative_to and nothing else, as `Element.keys` gives them
_RELATIVE_TO_ONLY = ["relative_to"]

#: How many children `check_kept` pushes one by one: zipping an element's children with their parent's tag costs
#: a fixed ~3,500 instructions more than a loop, which costs ~1,000 more per child
_FEW_CHILDREN = 3

_Key = TypeVar("_Key")
_Read = TypeVar("_Read")


def _once(table: dict[_Key, _Read], key: _Key, read: Callable[..., _Read | None], *args: Any) -> _Read | None:
    """`read(*args)`, looked up in `table` by `key` first, and kept there when it reads: plain numbers are read
    once per text in a file. What does not read (None) is not kept: the caller reads and refuses it again at
    each element that has it, located there."""
    found = table.get(key)
    if found is None:
        found = read(*args)
        if found is not None:
            table[key] = found
    return found


class FileContext(LocatingValues):
    """One SDF file being parsed.

    From `Values`: `where(element)`, `error(...)` and `require(...)` for located errors, and
    `required(element, attribute)`. SDF numbers are read by `values.py` (libsdformat's rules),
    through the helpers below, not by `Values.number`. From `LocatingValues`: `detach()`, which
    `parse.parse_file` calls once the file is read, so that the parsed form (and the model built from
    it) keeps the file's bytes for its locations instead of the whole parsed tree.
    """

    def __init__(self, loader: Loader, document: Document, base_dirs: list[str]) -> None:
        super().__init__(document)
        self.loader = loader  # the load's files and URIs
        self.base_dirs = base_dirs  # where the file's relative URIs resolve
        self.version: tuple[int, int] = LATEST_VERSION  # as the file declares it, once its root is read
        self.diagnostics: list[Diagnostic] = []
        self.scopes: dict[int, ModelDesc | WorldDesc] = {}  # id(<model> or <world> element) -> its parsed form
        #: (parent tag, tag) of unknown elements -> [index of the one diagnostic about them, how many there are]
        self._unknown: dict[tuple[str | None, str], list[int]] = {}
        self._resources: dict[str, tuple[str | None, list[str]]] = {}  # URI -> what `resolve_resource` found
        #: <pose>s read as plain `x y z roll pitch yaw` with every angle within a turn, of an owner whose
        #: frames the reader resolves (`pose_value`): the lint, which would read them again, has nothing to
        #: say about them but their attributes' versions (`checks._Lint.run`)
        self.plain_poses: set[Element] = set()
        #: <joint>s of a model or world whose axes the parse read as unit vectors (or as the default 0 0 1), of
        #: a type that uses each axis written and is not continuous (`joints.parse_joint`): the lint has
        #: nothing to say about them but their name (`checks._Lint.run`)
        self.plain_joints: set[Element] = set()
        #: elements the lint looks at (`checks._Lint.linted`) that the parse read and found nothing for the lint to
        #: say about, told from what it read anyway (a name not blank, a plain pose without attributes, a
        #: <geometry> of one shape, ...): the lint's quiet pass, which meets every element, passes over them
        #: with one lookup. Only elements of this file's tree, each for a reason that holds wherever it stands
        self.vetted: set[Element] = set()
        #: plain numbers, read once per text in the file (a robot writes the same poses, sizes, axes and colors
        #: over and over), shared by the elements of that text and not to be changed: a pose's numbers and its
        #: matrix once asked for (copied for each pose), `floats_of`'s by (text, count), `plain_color`'s
        self._plain_numbers: dict[str, list[float]] = {}
        self._plain_matrices: dict[str, np.ndarray] = {}
        self._plain_floats: dict[tuple[str, int], list[float]] = {}
        self._plain_colors: dict[str, list[float]] = {}
        #: `child_double`'s plain numbers by the text as written (untrimmed: a hit costs no `text_of`): a
        #: robot writes the same radii, lengths and masses over and over
        self._plain_doubles: dict[str, float] = {}
        #: an <inertia>'s tensor (read only) and what is told of it, by the (tag, text) of each of its children; None
        #: for no <inertia> (`elements.parse_inertial`)
        self.plain_inertias: dict[tuple[tuple[str, str | None], ...] | None, tuple[np.ndarray, bool, bool]] = {}
        #: a joint axis's limits by the (tag, text) of each child of its <limit> (`joints._limits`; read only)
        self.plain_limits: dict[tuple[tuple[str, str | None], ...], Limits] = {}
        #: a joint axis's direction and whether it is of unit length as written, by its <xyz>'s text as written
        #: (`joints.parse_axis`; read only)
        self.plain_axes: dict[str | None, tuple[np.ndarray, bool]] = {}

    # -- where things are, what was noticed ------------------------------------------------
    def at(self, element: Element) -> Callable[[], Location]:
        """`where(element)`, deferred: the value readers call it only when they fail."""
        return partial(self.where, element)

    def kept_at(self, element: Element) -> Callable[[], Location]:
        """`at(element)` for a parsed record to keep (the location of a pose or a joint's <child>, made only for an
        error about it): it holds the document, not this context, which holds the parsed file in its loader (a
        cycle that only the cyclic collector would free)."""
        return partial(lazy_location, self.source, self.document, element)

    def diagnose(
        self, severity: Severity, code: str, message: str, element: Element, suggestion: str | None = None
    ) -> None:
        self.diagnostics.append(Diagnostic(severity, code, message, self.where(element), suggestion))

    def unknown(self, element: Element, parent: str | None = None) -> None:
        """Note an element robodesc does not read (namespaced custom elements are not noted).

        One diagnostic per file for each (parent tag, tag), located at the first such element and
        counting the others (see `count_unknown`): a million unknown siblings cost a counter, not a
        million diagnostics and spelling suggestions."""
        tag = element.tag
        if is_custom(tag):
            return
        seen = self._unknown.get((parent, tag))
        if seen is not None:
            seen[1] += 1
            return
        self._unknown[(parent, tag)] = [len(self.diagnostics), 1]
        known = KNOWN_CHILDREN.get(parent) if parent is not None else None
        if known is None:
            message, suggestion = f"<{tag}> is not an element robodesc reads here; libsdformat ignores it", None
        else:
            message = (
                f"<{tag}> is not an SDF child of <{parent}>; it is kept as an extra (libsdformat warns and ignores it)"
            )
            suggestion = did_you_mean(tag, known)
        self.diagnose(Severity.INFO, "unknown-element", message, element, suggestion)

    def count_unknown(self) -> None:
        """Say in each unknown-element diagnostic how many such elements the file holds, once it is read."""
        for (parent, tag), (index, count) in self._unknown.items():
            if count > 1:
                diagnostic = self.diagnostics[index]
                where = f"<{parent}> elements" if parent else "this file"
                self.diagnostics[index] = dataclasses.replace(
                    diagnostic, message=f"{diagnostic.message} ({count:,} <{tag}> in {where}; the first is here)"
                )
        self._unknown.clear()

    def resolve_resource(self, uri: str, element: Element) -> tuple[str | None, list[str]]:
        """A mesh or heightmap URI: resolved (existence only); a miss is a warning, as in libsdformat.

        Each URI is resolved once per file (a robot's visuals and collisions name the same few meshes
        over and over); every caller gets a list of the paths tried of its own."""
        found = self._resources.get(uri)
        if found is None:
            # the element's location is said only by a confined load's refusal (raised, so never kept
            # here) and the warning below (which locates it itself): a load that is not confined makes
            # none for every mesh found
            confined = self.loader.context.allowed_roots is not None
            found = self._resources[uri] = self.loader.resolve(
                uri, self.base_dirs, self.where(element) if confined else None
            )
        path, tried = found[0], list(found[1])
        if path is None:
            self.diagnose(
                Severity.WARNING,
                "resource-not-found",
                f"{uri!r} cannot be found",
                element,
                "pass search_paths=[...] or set GZ_SIM_RESOURCE_PATH",
            )
        return path, tried

    # -- values of children ----------------------------------------------------------------
    def child_text(self, element: Element, tag: str) -> str | None:
        child = element.find(tag)
        return None if child is None else text_of(child)

    def child_double(self, element: Element, tag: str, default: float, allow_inf: bool = False) -> float:
        child = element.find(tag)
        if child is None:
            return default
        written = child.text
        value = self._plain_doubles.get(written)  # type: ignore[arg-type]  # (None, no text, is never kept)
        if value is not None:
            return value
        text = text_of(child)
        value = plain_finite(text)  # the common case, without making a locator for an error
        if value is not None:
            self._plain_doubles[written] = value  # type: ignore[index]  # (a plain number has a text)
            return value
        return parse_finite(text, self.at(child), tag, allow_inf)

    def child_doubles(
        self, element: Element, tags: tuple[str, ...], defaults: tuple[float, ...], allow_inf: bool = False
    ) -> list[float]:
        """`[child_double(element, tag, default, allow_inf) for tag, default in zip(tags, defaults)]`, read in
        one pass when every child written holds a plain, finite number (an inertia's moments, a limit's
        bounds); otherwise child by child, so that the first fault is the one reported."""
        if len(element) < len(tags):  # (a limit's two bounds of six: one pass over them costs less than six finds)
            children = list(map(first_children(element).get, tags))
        else:
            children = list(map(element.find, tags))
        values = plain_finites([child.text for child in children if child is not None])
        if values is None:
            return [self.child_double(element, tag, default, allow_inf) for tag, default in zip(tags, defaults)]
        if len(values) == len(tags):
            return values
        result = list(defaults)  # (a limit's bounds: the defaults, the numbers written put in their place)
        read = iter(values)
        for place, child in enumerate(children):
            if child is not None:
                result[place] = next(read)
        return result

    def floats_of(self, element: Element, count: int, construct: str) -> list[float]:
        """`vector_of` as plain floats, for a reader that computes with them before making its array (the list
        may be shared with other elements of the same text: not to be changed)."""
        key = (element.text, count)  # (the text as written, untrimmed: a hit costs no `text_of`)
        values = self._plain_floats.get(key)  # type: ignore[arg-type]  # (None, no text, is never kept)
        if values is not None:
            return values
        text = text_of(element)
        values = plain_floats(text, count)  # (no locator made for it)
        if values is None:
            return parse_floats(text, count, self.at(element), construct)
        self._plain_floats[key] = values  # type: ignore[index]  # (plain numbers have a text)
        return values

    def plain_color(self, text: str) -> list[float] | None:
        """`values.plain_color(text)`, read once per text in the file (the list is shared: not to be changed)."""
        return _once(self._plain_colors, text, plain_color, text)

    def vector_of(self, element: Element, count: int, construct: str) -> np.ndarray:
        """The element's text as a vector of `count` numbers (`values.parse_vector`)."""
        return np.array(self.floats_of(element, count, construct))

    def child_bool(self, element: Element, tag: str, default: bool) -> bool:
        child = element.find(tag)
        if child is None:
            return default
        return parse_bool(text_of(child), self.at(child), tag)

    # -- poses -----------------------------------------------------------------------------
    def pose_element(self, element: Element) -> PoseRef:
        """A `<pose>` as a frame graph places it: its value, the frame it is in, where it is written."""
        matrix, relative_to = self.pose_value(element)
        return PoseRef(matrix, relative_to, self.kept_at(element))

    def pose_value(self, element: Element) -> tuple[np.ndarray, str]:
        """A `<pose>`'s (matrix, relative_to), checked as libsdformat checks it: for a reader that needs
        no location of its own for it (a shape's pose, of which a file has hundreds). See `pose_reading`."""
        value, relative_to, text = self._read_pose(element)
        if isinstance(value, list):  # (`_once`, written out: a call less for each pose)
            matrix = self._plain_matrices.get(text)
            if matrix is None:
                matrix = self._plain_matrices[text] = pose_from_xyz_rpy(value[:3], value[3:])
            return matrix.copy(), relative_to  # (each pose an array of its own)
        return value, relative_to

    def pose_reading(self, element: Element) -> tuple[list[float] | np.ndarray, str]:
        """A `<pose>` as `pose_value` reads it, but a plain one (six plain, finite numbers in radians, the
        usual pose) as its numbers `[x, y, z, roll, pitch, yaw]`, not yet a matrix: an inertial needs only
        the translation of a pose that turns nothing. Its owner is a model, link, joint, frame, visual,
        collision, inertial or include, whose pose frames the reader resolves: a plain pose within a turn
        is noted in `plain_poses` for the lint. The numbers are the file's for that text: not to be changed."""
        value, relative_to, _ = self._read_pose(element)
        return value, relative_to

    def _read_pose(self, element: Element) -> tuple[list[float] | np.ndarray, str, str]:
        """`pose_reading`, and the pose's text (a plain one's as written). A plain pose's numbers are read once
        per text in the file (a robot writes the same few poses over and over: TIAGo's 292 are 97 texts)."""
        relative_to, degrees, rotation_format = "", False, "euler_rpy"
        # attributes through `get`, and only when there are any (most poses have none): `attrib` would
        # give every attribute-less <pose> a dict of its own
        keys = element.keys()
        if keys:
            relative_to = reference(self, element.get("relative_to", ""), element, "//pose/@relative_to")
        if keys and keys != _RELATIVE_TO_ONLY:  # (the usual attribute alone leaves the others at their defaults)
            frame = element.get("frame", "").strip()
            if frame:
                self.diagnose(
                    Severity.WARNING,
                    "pose-frame-ignored",
                    f"//pose/@frame={frame!r} is ignored: libsdformat gives it no meaning (SDF 1.7 replaced it "
                    "by @relative_to)",
                    element,
                    f'write relative_to="{frame}" in SDF 1.7 or later',
                )
            degrees_text = element.get("degrees")
            if degrees_text is not None:
                degrees = parse_bool(degrees_text, self.at(element), "pose/@degrees")
            rotation_format = element.get("rotation_format", "euler_rpy").strip()
            if degrees and rotation_format == "quat_xyzw":
                raise self.error(
                    MalformedPose,
                    element,
                    "//pose/@degrees='true' does not apply to a quaternion",
                    "pose/@degrees",
                    'remove degrees="true" or write the rotation as roll pitch yaw',
                )
        # a plain pose's numbers are looked up by its text as written, untrimmed (they read the same: blanks
        # around them are blanks between them), so that a hit costs no `text_of`
        written = element.text or ""
        values = None
        if rotation_format == "euler_rpy" and not degrees:  # (`_once`, written out: a call less for each pose)
            values = self._plain_numbers.get(written)
            if values is None:
                values = plain_pose_numbers(written)
                if values is not None:
                    self._plain_numbers[written] = values
        if values is None:
            text = text_of(element)
            return parse_pose(text, rotation_format, degrees, self.at(element)), relative_to, text
        if within_a_turn(values[3], values[4], values[5]):
            self.plain_poses.add(element)
            if not keys:  # (the lint looks at a plain pose's attributes' versions in a file older than some)
                self.vetted.add(element)
        return values, relative_to, written

    def pose_of(self, element: Element, where: Location) -> PoseRef:
        """The `<pose>` of an element located at `where` (identity, in its default frame, located there, when it
        has none)."""
        return self.pose_in(element.find("pose"), where)

    def pose_in(self, pose_el: Element | None, where: Location) -> PoseRef:
        """`pose_of`, for a caller that has found the element's `<pose>` (or None) already."""
        if pose_el is None:
            return PoseRef(IDENTITY.copy(), "", where)
        return self.pose_element(pose_el)

    # -- what robodesc keeps without reading -----------------------------------------------
    def keep(self, element: Element, parent: str | None = None) -> Node:
        """`element` kept as written (an `Extra` later), checked as libsdformat checks it."""
        self.check_kept(element, parent)
        if element.tag == "plugin":
            filename, name = element.get("filename"), element.get("name")
            if (filename is None or filename.strip()) and (name is None or name.strip()):
                self.vetted.add(element)  # (an empty filename or name is what the lint says of a plugin)
        known = KNOWN_CHILDREN.get(parent) if parent is not None else None
        if known is not None and element.tag not in known:
            self.unknown(element, parent)
        return Node(element, self.where(element))

    def check_kept(self, element: Element, parent: str | None = None) -> None:
        """Check what libsdformat checks in an element robodesc only keeps: typed values, required names."""
        stack = [(element, parent)]
        while stack:
            node, parent = stack.pop()
            tag = node.tag
            if ":" in tag:  # (`is_custom`, without a call per element)
                continue
            required = REQUIRED_ATTRIBUTES.get(tag)
            if required is not None and (parent in required[0] or not required[0]):
                for attribute in required[1]:
                    self.required(node, attribute)
            kind = TYPED_CHILDREN.get((parent, tag)) if parent is not None else None
            if kind is not None and ((parent, tag) not in EMPTY_IS_DEFAULT or text_of(node)):
                self.check_value(node, kind)
            size = len(node)
            if size and tag not in FREE_FORM:  # (most kept elements are leaves: nothing to push)
                if size <= _FEW_CHILDREN:  # (a zip of an element costs as much as a loop over a few)
                    for child in node:
                        stack.append((child, tag))
                else:
                    stack.extend(zip(node, repeat(tag)))  # (pairs made in C, not by a generator per element)

    def check_value(self, element: Element, kind: str) -> None:
        """The element's text read as a `kind` ("double", "pose", ...): an error unless it reads."""
        where = self.at(element)
        rotation_format, degrees = "euler_rpy", False
        if kind == "pose":
            degrees_text = element.get("degrees")
            degrees = parse_bool(degrees_text, where, "pose/@degrees") if degrees_text is not None else False
            rotation_format = element.get("rotation_format", "euler_rpy").strip()
        parse_typed(kind, text_of(element), where, element.tag, rotation_format, degrees)
