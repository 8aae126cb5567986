"""SDF values read the way libsdformat reads them, with errors that say where.

libsdformat converts element text with the C++ standard library, and its leniencies are part of
what files in the wild rely on, so they are kept:

* a `double` is read like `std::stod`: leading blanks are skipped and the longest number at the
  start is taken (``"0.5 extra"`` reads 0.5); ``inf`` and ``nan`` are numbers;
* an `int` or `unsigned int` likewise takes the leading integer;
* a `bool` is ``true``/``false``/``1``/``0`` in any letter case, nothing else;
* a vector (`vector3`, `vector2d`) is read like a stream: the first N blank-separated tokens
  must be plain decimal numbers, the rest is ignored;
* a `color` has 3 or 4 numbers, each in [0, 1];
* a `pose` has exactly 6 numbers (``x y z roll pitch yaw``) or, with
  ``rotation_format="quat_xyzw"``, exactly 7 (``x y z qx qy qz qw``); an empty pose is the
  identity; ``degrees="true"`` gives the angles in degrees.

robodesc parts from libsdformat in one place: a pose or vector holding ``inf``/``nan`` is refused
(libsdformat's stream reading refuses them too, except through `std::stod`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from operator import attrgetter

import numpy as np

from ...core.errors import Location, MalformedPose, MalformedValue, excerpt
from ...core.transforms import IDENTITY, make_pose, pose_from_xyz_rpy, quat_to_matrix
from ..xml import plain_numbers

__all__ = [
    "A_TURN",
    "UNIT_TOLERANCE",
    "of_unit_length",
    "within_a_turn",
    "parse_bool",
    "parse_color",
    "parse_double",
    "parse_finite",
    "plain_color",
    "plain_finite",
    "plain_finites",
    "plain_pose_numbers",
    "parse_int",
    "parse_pose",
    "parse_floats",
    "parse_typed",
    "parse_vector",
    "plain_floats",
    "text_of",
]

_DOUBLE_PREFIX = re.compile(
    r"""[+-]?(?:
        0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?
      | (?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?
      | [iI][nN][fF](?:[iI][nN][iI][tT][yY])?
      | [nN][aA][nN](?:\([0-9A-Za-z_]*\))?
    )""",
    re.X,
)
_INT_PREFIX = re.compile(r"[+-]?(?:0[xX][0-9a-fA-F]+|[0-9]+)")
_STREAM_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_BLANKS = " \t\n\r\f\v"
#: The characters of plain decimal numbers. On text made only of these, Python's `float` accepts
#: exactly what `_STREAM_NUMBER` (and `_DOUBLE_PREFIX`'s decimal branch, taking it whole) accepts:
#: the fast paths below try `float` first and leave everything else to the patterns.
_DECIMAL_CHARACTERS = "0123456789+-.eE"
#: Whether a text is made only of `_DECIMAL_CHARACTERS` (the empty text too): one pass of a compiled
#: character class, where `str.strip(characters)` searches the set again for every character of the text
_ALL_DECIMAL = re.compile(f"[{re.escape(_DECIMAL_CHARACTERS)}]*").fullmatch
_INT_DIGITS = 20  # digits of the largest integer libsdformat reads (2**64 - 1); hexadecimal ones have fewer

Where = Callable[[], Location]


def text_of(element) -> str:
    """The element's text with surrounding blanks removed (libsdformat trims every value)."""
    text = element.text
    return text.strip(_BLANKS) if text else ""


#: The (tag, text) of an element: of its children, the key of a reader's table of what it read once per such
#: texts in a file (an inertia's moments, a joint's limits)
TAG_AND_TEXT = attrgetter("tag", "text")


def first_children(element) -> dict:
    """The first child of each tag, by tag, in one pass over the children: what `find` gives per tag, for a
    reader that asks of several tags (most elements have fewer children than the tags looked for)."""
    first: dict = {}
    for child in element:
        first.setdefault(child.tag, child)
    return first


def _fail(kind: type, message: str, where: Where, construct: str, suggestion: str):
    return kind(message, location=where(), construct=construct, suggestion=suggestion)


def parse_double(text: str, where: Where, construct: str) -> float:
    """A double read like `std::stod` (the leading number; inf and nan included)."""
    value = plain_finite(text)  # a plain decimal number and nothing else
    if value is not None:
        return value
    match = _DOUBLE_PREFIX.match(text.lstrip(_BLANKS))
    if match is not None:
        token = match.group(0)
        try:
            if token[:3].lower() in ("inf", "+in", "-in", "nan", "+na", "-na"):
                return float(token.split("(")[0])
            if "x" in token.lower():
                return float.fromhex(token)
            value = float(token)
            if not math.isinf(value):  # std::stod throws out_of_range on overflow
                return value
        except (ValueError, OverflowError):
            pass
    raise _fail(
        MalformedValue,
        f"<{construct}> holds {excerpt(text)}, which is not a number",
        where,
        construct,
        "write a plain decimal number such as 0.5",
    )


def plain_finite(text: str) -> float | None:
    """`text` as a number when it is a plain, finite decimal number (what `parse_finite` then returns,
    with or without `allow_inf`); None for anything else, which `parse_finite` decides."""
    if text and _ALL_DECIMAL(text):
        try:
            value = float(text)
        except ValueError:
            return None
        if math.isfinite(value):
            return value
    return None


#: What `plain_finites` lets through to `float`: plain decimal numbers and the blanks around them (as
#: `_ALL_DECIMAL` tests them).
_ALL_PLAIN_OR_BLANK = re.compile(f"[{re.escape(_DECIMAL_CHARACTERS + _BLANKS)}]*").fullmatch


def _plain_parts(text: str, parts: list[str]) -> list[float] | None:
    """`parts` (`text` cut at its blanks, all of it) as numbers when `text` holds nothing but plain decimal
    numbers and blanks, and every number is finite (their sum is); None for anything else. The fast path
    of every reader of numbers here, in one test of the characters and one `float` per number; what it
    refuses (another spelling, another blank, a number past float, or a sum past it) the caller's
    number-by-number path decides, and gives the same numbers for what this would have read."""
    if not _ALL_PLAIN_OR_BLANK(text):
        return None
    try:
        values = list(map(float, parts))
    except ValueError:  # ("1-2", "e", "."; a blank inside a part: an element's text in `plain_finites`)
        return None
    return values if math.isfinite(sum(values)) else None


def plain_finites(texts: list[str | None]) -> list[float] | None:
    """The element texts `texts` (as written, not trimmed) as numbers when each is a plain, finite decimal
    number: `plain_finite(text_of(child))` of each, in one pass instead of three calls per number. None
    when one is not (empty, another spelling, past float), which the caller then reads one by one."""
    if None in texts:
        return None
    # (float trims the blanks itself; blanks inside a number, or an empty text, make it None)
    return _plain_parts("".join(texts), texts)  # type: ignore[arg-type]  # (no None, tested just above)


def parse_finite(text: str, where: Where, construct: str, allow_inf: bool = False) -> float:
    """A double that robodesc can compute with: NaN is refused, and infinity unless `allow_inf`.

    libsdformat reads both (through `std::stod`); robodesc refuses them where they would poison
    poses and masses (joint limits may be infinite: that means no limit).
    """
    value = parse_double(text, where, construct)
    if math.isnan(value) or (math.isinf(value) and not allow_inf):
        raise _fail(
            MalformedValue,
            f"<{construct}> holds {excerpt(text.strip())}, which is not a finite number",
            where,
            construct,
            "write a plain decimal number such as 0.5",
        )
    return value


def parse_int(text: str, where: Where, construct: str, unsigned: bool = False) -> int:
    """An integer read like `std::stoi` / `std::stoul` (the leading integer)."""
    match = _INT_PREFIX.match(text.lstrip(_BLANKS))
    if match is not None:
        token = match.group(0)
        hexadecimal = "x" in token.lower()
        digits = token.lstrip("+-")[2 if hexadecimal else 0 :].lstrip("0")
        if len(digits) <= _INT_DIGITS:  # longer is out of range anyway: never handed to int() (its digit limit)
            value = int(digits or "0", 16 if hexadecimal else 10) * (-1 if token.startswith("-") else 1)
            limit = 2**64 if unsigned else 2**31
            if -limit <= value < limit:
                return value
    raise _fail(
        MalformedValue,
        f"<{construct}> holds {excerpt(text)}, which is not an integer",
        where,
        construct,
        "write a whole number such as 3",
    )


def parse_bool(text: str, where: Where, construct: str) -> bool:
    lowered = text.strip(_BLANKS).lower()
    if lowered in ("true", "1"):
        return True
    if lowered in ("false", "0"):
        return False
    raise _fail(
        MalformedValue,
        f"<{construct}> holds {excerpt(text)}, which is not a boolean",
        where,
        construct,
        "write true, false, 1 or 0",
    )


def _tokens(text: str, count: int) -> list[str]:
    """The first `count` blank-separated tokens of `text`, and one more (the rest of the text) if there
    is more: a value of a million numbers where a few are expected is never split into a million strings."""
    return text.split(None, count)


def _plain_tokens(tokens: list[str]) -> list[float] | None:
    """`tokens` as numbers in one pass when each is a plain decimal number (what `_STREAM_NUMBER` matches)
    and all are finite; None for anything else, which the caller reads token by token with the pattern.
    (`xml.plain_numbers`, whose ASCII and `_` tests the plain characters always pass.)"""
    joined = "".join(tokens)
    return plain_numbers(tokens, joined) if _ALL_DECIMAL(joined) else None


def _stream_numbers(text: str, count: int, where: Where, construct: str, kind: type = MalformedValue) -> list[float]:
    """The first `count` tokens of `text` as numbers, as `operator>>` reads them."""
    return _token_numbers(_tokens(text, count)[:count], text, count, where, construct, kind)


def _token_numbers(
    tokens: list[str], text: str, count: int, where: Where, construct: str, kind: type = MalformedValue
) -> list[float]:
    """`_stream_numbers` of `text`, given its first `count` tokens (at most)."""
    if len(tokens) == count:
        plain = _plain_tokens(tokens)
        if plain is not None:
            return plain
    values = []
    for token in tokens:
        if _STREAM_NUMBER.fullmatch(token) is None:
            break
        value = float(token)
        if not math.isfinite(value):
            break
        values.append(value)
    if len(values) < count:
        raise _fail(
            kind,
            f"<{construct}> holds {excerpt(text)}; expected {count} numbers",
            where,
            construct,
            f"write {count} numbers separated by spaces",
        )
    return values


def plain_floats(text: str, count: int) -> list[float] | None:
    """`text` as numbers when it is exactly `count` plain, finite decimal numbers (what `parse_floats`
    then returns); None for anything else, which `parse_floats` decides. Callers try it first so that
    the common value costs no locator for an error that cannot happen."""
    tokens = text.split(None, count)
    return _plain_parts(text, tokens) if len(tokens) == count else None


def parse_floats(text: str, count: int, where: Where, construct: str) -> list[float]:
    """The first `count` numbers of `text`, read as a stream (see the module docstring)."""
    return _stream_numbers(text, count, where, construct)


def parse_vector(text: str, count: int, where: Where, construct: str) -> np.ndarray:
    return np.array(_stream_numbers(text, count, where, construct))


def _rgba(values: list[float] | None) -> list[float] | None:
    """3 or 4 numbers (a list of its own) as the numbers of an RGBA color (alpha defaults to 1) when each
    is in [0, 1]; else None."""
    if values is not None and 0.0 <= min(values) and max(values) <= 1.0:  # (3 or 4 numbers, none NaN)
        if len(values) == 3:
            values.append(1.0)
        return values
    return None


def plain_color(text: str) -> list[float] | None:
    """`text` as the numbers of a color when it is 3 or 4 plain decimal numbers in [0, 1] (`parse_color`
    then returns them as an array: a reader checks every color it reads, and makes an array only of the
    one it keeps); None for anything else, which `parse_color` decides."""
    tokens = _tokens(text, 4)
    return _rgba(_plain_parts(text, tokens)) if len(tokens) in (3, 4) else None


def parse_color(text: str, where: Where, construct: str) -> np.ndarray:
    """An RGBA color: 3 or 4 numbers in [0, 1] (alpha defaults to 1)."""
    tokens = _tokens(text, 4)
    if len(tokens) in (3, 4):
        values = _plain_tokens(tokens)
        if values is None and all(_STREAM_NUMBER.fullmatch(t) for t in tokens):
            values = [float(t) for t in tokens]
        color = _rgba(values)
        if color is not None:
            return np.array(color)
    raise _fail(
        MalformedValue,
        f"<{construct}> holds {excerpt(text)}; a color is 3 or 4 numbers between 0 and 1",
        where,
        construct,
        'write "r g b" or "r g b a", e.g. "0.8 0.1 0.1 1"',
    )


def plain_pose_numbers(text: str) -> list[float] | None:
    """`x y z roll pitch yaw` when `text` is exactly six plain, finite decimal numbers (then `parse_pose`
    returns the pose of these numbers, roll, pitch and yaw in radians); None for anything else, which
    `parse_pose` decides."""
    tokens = text.split(None, 6)
    return _plain_parts(text, tokens) if len(tokens) == 6 else None


#: An angle up to this (in radians) is no more than a turn: a pose whose angles are all within it is one
#: the lint has nothing to say about (`checks._Lint.angles`).
A_TURN = 2.0 * math.pi + 1e-9


def within_a_turn(roll: float, pitch: float, yaw: float) -> bool:
    """Whether no angle (in radians) is beyond a turn (`A_TURN`)."""
    return abs(roll) <= A_TURN and abs(pitch) <= A_TURN and abs(yaw) <= A_TURN


#: How far from 1 the length of a unit vector or quaternion written with a few decimals may be: beyond it,
#: the lint warns (`checks._Lint.joint`, `checks._Lint.pose`).
UNIT_TOLERANCE = 1e-3


def of_unit_length(x: float, y: float, z: float) -> bool:
    """Whether the vector (x, y, z) is of unit length, within `UNIT_TOLERANCE`."""
    return abs(math.sqrt(x * x + y * y + z * z) - 1.0) <= UNIT_TOLERANCE


def parse_pose(text: str, rotation_format: str, degrees: bool, where: Where) -> np.ndarray:
    """A 4x4 pose from `<pose>` text (see the module docstring for the rules)."""
    tokens = _tokens(text, 7)
    if not tokens:
        return IDENTITY.copy()
    if rotation_format not in ("euler_rpy", "quat_xyzw"):
        raise _fail(
            MalformedPose,
            f"//pose/@rotation_format is {excerpt(rotation_format)}",
            where,
            "pose/@rotation_format",
            'use rotation_format="euler_rpy" (6 values) or "quat_xyzw" (7 values)',
        )
    count = 7 if rotation_format == "quat_xyzw" else 6
    if len(tokens) != count:
        found = str(len(tokens)) if len(tokens) <= 7 else "more than 7"
        raise _fail(
            MalformedPose,
            f"a pose with rotation_format {excerpt(rotation_format)} has {count} values, but {found} were found "
            f"in {excerpt(text.strip())}",
            where,
            "pose",
            "write x y z roll pitch yaw" if count == 6 else "write x y z qx qy qz qw",
        )
    values = _token_numbers(tokens, text, count, where, "pose", MalformedPose)  # exactly `count` tokens
    if count == 6:
        rpy = values[3:]
        if degrees:
            rpy = [math.radians(a) for a in rpy]
        return pose_from_xyz_rpy(values[:3], rpy)
    qx, qy, qz, qw = values[3:]
    if qx == qy == qz == qw == 0.0:
        raise _fail(
            MalformedPose,
            "the quaternion of this pose is zero",
            where,
            "pose",
            "give a unit quaternion qx qy qz qw, e.g. 0 0 0 1",
        )
    return make_pose(quat_to_matrix((qw, qx, qy, qz)), values[:3])


def parse_typed(
    kind: str, text: str, where: Where, construct: str, rotation_format: str = "euler_rpy", degrees: bool = False
) -> object:
    """`text` read as a value of the SDF type `kind` (double, int, bool, vector3, color, pose).

    Raises what that type's reader raises; another `kind` is not checked (None).
    """
    if kind == "double":
        return parse_double(text, where, construct)
    if kind == "int":
        return parse_int(text, where, construct)
    if kind == "unsigned int":
        return parse_int(text, where, construct, unsigned=True)
    if kind == "bool":
        return parse_bool(text, where, construct)
    if kind == "vector3":
        return parse_vector(text, 3, where, construct)
    if kind == "color":
        return parse_color(text, where, construct)
    if kind == "pose":
        return parse_pose(text, rotation_format, degrees, where)
    return None
