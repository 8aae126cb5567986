"""GMSH ``.msh`` files as MuJoCo 4.0's GMSH decoder reads them for ``<flexcomp type="gmsh">``.

MuJoCo does not read GMSH files the way GMSH documents them: it looks for the first ``$Nodes``,
``$EndNodes``, ``$Elements`` and ``$EndElements`` markers anywhere in the bytes, reads one block
of nodes and one block of elements with fixed layouts, and refuses or misreads what does not fit.
A description loader has to agree with it, so this module follows the decoder's reading rather
than the GMSH specification -- the surprising parts are spelled out where they happen and in
docs/formats/mjcf.md ("GMSH files"). Every behaviour here was checked against the ``mujoco`` 4.0.0 package
(tests/test_mjcf_gmsh.py).

Reading is bounded: a count is compared with the bytes or tokens that are actually there before
anything is allocated, and binary blocks are read with ``np.frombuffer``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["GmshError", "GmshMesh", "read_gmsh"]

_INT_MAX = 2**31 - 1
_SIZE_T = 2**64
_DECODER = "GMSH decoder: "


class GmshError(Exception):
    """A malformed GMSH file; str(error) is MuJoCo's message for it (the caller locates it)."""


@dataclass
class GmshMesh:
    """What MuJoCo's flexcomp takes from a GMSH file: its 'point' and 'element' data."""

    dim: int  # 3 for tetrahedra, 2 for triangles (as MuJoCo decides it)
    nodes: np.ndarray  # (n, 3) float64, in the order MuJoCo stores them (flexcomp 'point');
    # for dim 2 rounded to float32 as MuJoCo stores a surface mesh's nodes
    elements: np.ndarray  # (m, dim+1) int64, 0-based indices into nodes (flexcomp 'element')


def _fail(message: str) -> GmshError:
    return GmshError(_DECODER + message)


# ---------------------------------------------------------------------------------------------
# ASCII: the decoder reads sections with C++ stream extraction (libc++), so a number ends where
# its syntax ends, a failed read poisons every later read, and a read that reaches the end of the
# section counts as a failure too (the decoder tests ``good()``, which is false at end of file).

_UINT = rb"[+-]?[0-9]+"
_DOUBLE = rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_INTEGER = re.compile(_UINT)
_DECIMAL = re.compile(_DOUBLE)
_HEX = re.compile(rb"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?")
_FLOAT_CHARS = frozenset(b"0123456789abcdefABCDEFxXpP")
_DBL_MIN = 2.2250738585072014e-308


def _convert(kind: str, text: bytes) -> int | None:
    """The integer stream extraction gives for ``[+-]digits``, or None where it sets failbit."""
    number = int(text)
    if kind == "i":
        return number if -(2**31) <= number <= _INT_MAX else None
    if abs(number) >= _SIZE_T:
        return None
    return number % _SIZE_T  # an unsigned read of "-1" wraps around, as strtoull does


def _strtod(text: bytes) -> float | None:
    """strtod's value when it converts all of ``text`` without ERANGE; None is libc++'s failbit."""
    hexadecimal = _HEX.fullmatch(text) is not None
    if not hexadecimal and _DECIMAL.fullmatch(text) is None:
        return None
    try:
        value = float.fromhex(text.decode()) if hexadecimal else float(text)
    except OverflowError:
        return None
    if math.isinf(value) or abs(value) < _DBL_MIN and value != 0.0:
        return None  # overflow and underflow: ERANGE
    if value == 0.0:
        mantissa = re.split(rb"[pP]" if hexadecimal else rb"[eE]", text)[0]
        digits = mantissa.lstrip(b"+-")[2:] if hexadecimal else mantissa
        if any(c not in b"0.+-" for c in digits):
            return None  # a non-zero number that underflowed to zero
    return value


def _collect_double(token: bytes) -> int:
    """How many bytes of ``token`` libc++ gathers for a floating-point extraction.

    It takes hex digits, x, p and one decimal point (none after an exponent), and a sign
    only first or right after the exponent letter, then hands them all to strtod -- so "5.0abc"
    fails as a whole instead of giving 5.0. ("inf" and "nan" are never numbers here.)
    """
    exponent = ord("E")
    in_units = True
    for n, c in enumerate(token):
        if c == ord("."):
            if not in_units:
                return n
            in_units = False
        elif c in (ord("+"), ord("-")):
            if n and chr(token[n - 1]).upper() != chr(exponent):
                return n
        elif c in _FLOAT_CHARS:
            if c in (ord("x"), ord("X")):
                exponent = ord("P")
            elif chr(c).upper() == chr(exponent):
                in_units = False
        else:
            return n
    return len(token)


class _Stream:
    """istream-like extraction of numbers from one ASCII section, by whitespace-separated tokens.

    A token that only starts with a number gives that number and leaves the rest as the next
    token (glued text is read the way ``operator>>`` reads it). Long runs of well-formed tokens
    are converted in bulk so big ASCII files stay fast.
    """

    def __init__(self, section: bytes) -> None:
        self.tokens = section.split()
        self.index = 0
        self.good = True
        # the stream hits end of file when it consumes the last character of the section
        self.trailing_space = section[-1:].isspace()
        # numpy's fixed-width strings drop trailing NULs, so such a section is read token by token
        self.fast = b"\0" not in section

    def read(self, kind: str, *, end_ok: bool = False) -> int | float | None:
        """One extraction; None when it leaves the stream no longer good.

        A read that ends exactly at the end of the section gives its value only with ``end_ok``
        (where the decoder tests ``fail()`` rather than ``good()``).
        """
        if not self.good:
            return None
        if self.index >= len(self.tokens):
            self.good = False
            return None
        token = self.tokens[self.index]
        if kind == "d":
            used = _collect_double(token)
            value = _strtod(token[:used]) if used else None
        else:
            match = _INTEGER.match(token)
            used = match.end() if match else 0
            value = _convert(kind, token[:used]) if used else None
        if value is None:
            self.good = False
            return None
        if used < len(token):
            self.tokens[self.index] = token[used:]
        else:
            self.index += 1
            if self.index == len(self.tokens) and not self.trailing_space:
                self.good = False  # value read, but eofbit set
                return value if end_ok else None
        return value

    def read_many(self, kinds: str, count: int, dtype: Any = None) -> np.ndarray:
        """Up to ``count`` records of ``kinds``, flattened; fewer when a read fails (then not good).

        The values come as uint64 for ``u`` only, int64 for ``i`` only, float64 for ``d`` only,
        exact Python numbers for a mix, unless ``dtype`` says otherwise.
        """
        width = len(kinds)
        total = width * count
        end = self.index + total
        if dtype is None:
            dtype = _DTYPES[kinds[0]] if len(set(kinds)) == 1 else object
        if self.good and self.fast and total and end <= len(self.tokens):
            bulk = _bulk(kinds, self.tokens[self.index : end], dtype)
            if bulk is not None:
                self.index = end
                if end == len(self.tokens) and not self.trailing_space:
                    self.good = False
                    return bulk[:-1]
                return bulk
        values: list[int | float] = []
        for n in range(total):  # bounded by the tokens present: each read consumes or fails
            value = self.read(kinds[n % width])
            if value is None:
                break
            values.append(value)
        return np.array(values, dtype=dtype)


_DTYPES: dict[str, type] = {"u": np.uint64, "i": np.int64, "d": np.float64}
# bytes a token may hold to be converted in bulk: anything else goes the exact, slow way
_BULK_BYTES = {
    "u": np.isin(np.arange(256), list(b"0123456789")),
    "i": np.isin(np.arange(256), list(b"0123456789")),
    "d": np.isin(np.arange(256), list(b"0123456789.eE+-")),
}
_BULK_DIGITS = {"u": 18, "i": 9, "d": 10**9}  # short enough to never overflow


def _bulk(kinds: str, chunk: list[bytes], dtype: Any) -> np.ndarray | None:
    """All values of ``chunk`` (records of ``kinds``) when every token is exactly one plain
    number of its kind, converted at C speed; None sends the caller to the token-by-token path.

    A token of digits (and, for doubles, of ``.eE+-``) that numpy converts is exactly one number
    to libc++ too: the float grammar over those characters is the same, and short digit runs
    cannot overflow. Values strtod would flag with ERANGE are left to the slow path.
    """
    width = len(kinds)
    out = np.empty(len(chunk), dtype=dtype)
    for column, kind in enumerate(kinds):
        text = np.array(chunk[column::width])
        size = text.dtype.itemsize
        if size > _BULK_DIGITS[kind]:
            return None
        chars = text.view(np.uint8).reshape(len(text), size)
        if not np.all(_BULK_BYTES[kind][chars] | (chars == 0)):
            return None
        try:
            values = text.astype(np.float64 if kind == "d" else np.int64)
        except ValueError:
            return None
        if kind == "d":
            magnitude = np.abs(values)
            if np.any(np.isinf(magnitude) | ((magnitude < _DBL_MIN) & (magnitude != 0.0))):
                return None
            zeros = chars[magnitude == 0.0]
            before_exponent = np.cumsum((zeros == ord("e")) | (zeros == ord("E")), axis=1) == 0
            if np.any(before_exponent & (zeros >= ord("1")) & (zeros <= ord("9"))):
                return None  # a non-zero decimal that underflowed to zero: ERANGE
        out[column::width] = values
    return out


def _ascii_header_line_ok(section: bytes) -> bool:
    """v2.2 ASCII: the line after ``$Nodes``/``$Elements`` must hold only digits (may be empty)."""
    line = section.split(b"\n", 1)[0]
    return all(48 <= c <= 57 for c in line)


# ---------------------------------------------------------------------------------------------
# Binary: MuJoCo reads little-endian, 8-byte sizes in v4.1 and 4-byte ints in v2.2, whatever the
# $MeshFormat line's data-size field says, and never looks at the endianness marker.


def _bytes_at(data: bytes, offset: int, size: int) -> bytes:
    """``size`` bytes at ``offset``, zero-filled past the end (MuJoCo's buffer ends in a NUL)."""
    piece = data[offset : offset + size]
    return piece + bytes(size - len(piece))


def _u64(data: bytes, offset: int) -> int:
    return int.from_bytes(_bytes_at(data, offset, 8), "little")


def _i32(data: bytes, offset: int) -> int:
    return int.from_bytes(_bytes_at(data, offset, 4), "little", signed=True)


def _c_string_head(data: bytes, begin: int, end: int) -> bytes:
    """The count line of a binary v2.2 section as the decoder sees it: at most 10 bytes, up to NUL."""
    head = data[begin : begin + min(10, end - begin)]
    return head.split(b"\0", 1)[0]


# ---------------------------------------------------------------------------------------------


def read_gmsh(data: bytes, filename: str | None = None) -> GmshMesh:
    """Nodes and elements of a GMSH file, or :class:`GmshError` with MuJoCo's message.

    ``filename`` only completes the message for a file MuJoCo finds no decoder for (one that does
    not start with ``$MeshFormat``), where MuJoCo names the file.
    """
    if not data.startswith(b"$MeshFormat"):
        # MuJoCo picks its GMSH decoder by these first 11 bytes; without them no decoder applies
        suffix = f" '{filename}'" if filename is not None else ""
        raise GmshError("no decoder found for mesh file" + suffix)
    header = _Stream(data[11 : 11 + 64])
    version = header.read("d", end_ok=True)
    binary = header.read("i", end_ok=True)  # nothing once the version failed or ended the header
    # a plain ``if (!(ss >> version >> binary))``: a header that ends right after them is fine
    if version is None or binary is None:
        raise _fail("Could not read GMSH file header")
    scaled = 100 * float(version)
    rounded = math.floor(scaled + 0.5) if math.isfinite(scaled) else None
    if rounded not in (220, 410):
        raise _fail("Only GMSH file format versions 4.1 and 2.2 are supported")

    node_begin = data.find(b"$Nodes")
    node_end = data.find(b"$EndNodes")
    elem_begin = data.find(b"$Elements")
    elem_end = data.find(b"$EndElements")
    if node_begin < 0:
        raise _fail("GMSH file missing $Nodes")
    if elem_begin < 0:
        raise _fail("GMSH file missing $Elements")
    # the decoder skips the marker and exactly one byte after it (the newline, or the '\r' of CRLF)
    node_begin += len(b"$Nodes") + 1
    elem_begin += len(b"$Elements") + 1
    if node_end < node_begin:
        raise _fail("GMSH file missing $EndNodes after $Nodes")
    if elem_end < elem_begin:
        raise _fail("GMSH file missing $EndElements after $Elements")

    sections = (node_begin, node_end, elem_begin, elem_end)
    if rounded == 410:
        dim, nodes, elements = _read_v41(data, binary != 0, *sections)
    else:
        dim, nodes, elements = _read_v22(data, binary != 0, *sections)
    if dim == 1:
        raise _fail("1D meshes are not supported")
    # the flexcomp, not the decoder, checks what it got back
    if len(elements) == 0:
        raise GmshError("unsupported GMSH mesh dimensionality")
    if len(nodes) == 0:
        raise GmshError("GMSH mesh has no nodes")
    if dim == 2:
        # MuJoCo keeps a surface mesh's nodes in single precision (too large ones become infinite)
        with np.errstate(over="ignore", invalid="ignore"):
            nodes = nodes.astype(np.float32).astype(np.float64)
    return GmshMesh(dim=dim, nodes=nodes, elements=elements.astype(np.int64).reshape(-1, dim + 1))


_Result = tuple[int, np.ndarray, np.ndarray]


def _read_v41(data: bytes, binary: bool, nb: int, ne: int, eb: int, ee: int) -> _Result:
    """Version 4.1: exactly one entity block of nodes and one of elements, node tags sequential."""
    if not binary:
        stream = _Stream(data[nb:ne])
        head = stream.read_many("uuuuiiiu", 1)
        if not stream.good:
            raise _fail("Error reading Nodes header")
        blocks, count, min_tag, max_tag, dim, _, _, in_block = (int(v) for v in head)
        if blocks != 1 or count != in_block:
            raise _fail("All nodes must be in single block")
        if max_tag != in_block:
            raise _fail("Maximum number of nodes must be equal to number of nodes in a block")
        if dim < 1 or dim > 3:
            raise _fail("Entity must be 1D, 2D or 3D")
        tags = stream.read_many("u", count)
        expected = np.arange(len(tags), dtype=np.uint64) + np.uint64(min_tag % _SIZE_T)
        wrong = np.flatnonzero(np.array(tags, dtype=np.uint64) != expected)
        if len(wrong):
            raise _fail("Node tags must be sequential")
        if len(tags) < count:
            raise _fail("Error reading node tags")
        if count >= _INT_MAX // 3:
            raise _fail("Invalid number of nodes.")
        coords = stream.read_many("d", 3 * count)
        if len(coords) < 3 * count:
            raise _fail("Error reading node coordinates")
        nodes = np.array(coords, dtype=np.float64).reshape(count, 3)
    else:
        if ne - nb < 52:
            raise _fail("Invalid nodes header")
        blocks, count, min_tag = _u64(data, nb), _u64(data, nb + 8), _u64(data, nb + 16)
        dim, in_block = _i32(data, nb + 32), _u64(data, nb + 44)
        if blocks != 1 or count != in_block:
            raise _fail("All nodes must be in single block")
        if dim < 1 or dim > 3:
            raise _fail("Entity must be 1D, 2D or 3D")
        if ne - nb < 52 + count * 32:
            # MuJoCo's size_t arithmetic can wrap for absurd counts and then read past the buffer;
            # such a file is refused here with the message of the honest comparison
            raise _fail("Insufficient byte size of Nodes")
        tag_block = np.frombuffer(data, dtype="<u8", count=count, offset=nb + 52)
        if np.any(tag_block != np.arange(count, dtype=np.uint64) + np.uint64(min_tag)):
            raise _fail("Node tags must be sequential")
        if count >= _INT_MAX // 3:
            raise _fail("Invalid number of nodes.")
        xyz = np.frombuffer(data, dtype="<f8", count=3 * count, offset=nb + 52 + 8 * count)
        nodes = xyz.astype(np.float64).reshape(count, 3)

    if not binary:
        stream = _Stream(data[eb:ee])
        head = stream.read_many("uuuuiiiu", 1)
        if not stream.good:
            raise _fail("Error reading Elements header")
        blocks, n_elem, _, _, elem_dim, _, elem_type, in_block = (int(v) for v in head)
    else:
        if ee - eb < 52:
            raise _fail("Invalid elements header")
        blocks, n_elem, elem_dim = _u64(data, eb), _u64(data, eb + 8), _i32(data, eb + 32)
        elem_type, in_block = _i32(data, eb + 40), _u64(data, eb + 44)
    if blocks != 1 or n_elem != in_block:
        raise _fail("All elements must be in single block")
    if elem_dim != dim:
        raise _fail("Inconsistent dimensionality in Elements")
    wrong_type = elem_type != (1, 2, 4)[dim - 1]
    too_many = n_elem >= _INT_MAX // 4
    # the ASCII reader checks the count before the element type, the binary one after it
    if too_many and not binary:
        raise _fail("Invalid numElements.")
    if wrong_type:
        raise _fail("Element type inconsistent with dimensionality")
    if too_many:
        raise _fail("Invalid numElements.")

    width = dim + 2  # the element's own tag, then its dim+1 node tags
    if not binary:
        values = stream.read_many("u" * width, n_elem)
        table = np.array(values, dtype=np.uint64)
        full = len(values) // width
        node_part = table[: full * width].reshape(full, width)[:, 1:].ravel()
        if len(values) % width > 1:  # a record cut short inside its node tags
            node_part = np.concatenate([node_part, table[full * width + 1 :]])
        offsets = node_part - np.uint64(min_tag % _SIZE_T)  # wraps below min_tag, like size_t
        if np.any((node_part < np.uint64(min_tag % _SIZE_T)) | (offsets >= np.uint64(count))):
            raise _fail("Invalid node index in element")
        if len(values) < width * n_elem:
            raise _fail("Error reading Elements")
    else:
        if ee - eb < 52 + n_elem * width * 8:
            raise _fail("Insufficient byte size of Elements")
        table = np.frombuffer(data, dtype="<u8", count=n_elem * width, offset=eb + 52)
        node_part = table.reshape(n_elem, width)[:, 1:].ravel()
        offsets = node_part - np.uint64(min_tag)
        if np.any((node_part < np.uint64(min_tag)) | (offsets >= np.uint64(count))):
            raise _fail("Invalid node index in element")
    return dim, nodes, offsets.astype(np.int64)


def _read_v22(data: bytes, binary: bool, nb: int, ne: int, eb: int, ee: int) -> _Result:
    """Version 2.2: nodes by position (their tags ignored); the first element fixes the type."""
    if not binary:
        section = data[nb:ne]
        if not _ascii_header_line_ok(section):
            raise _fail("Invalid node header")
        stream = _Stream(section)
        first = stream.read("u")
        if first is None or not stream.good:
            raise _fail("Error reading Nodes header")
        count = int(first)
        if count >= _INT_MAX // 3:
            raise _fail("Invalid number of nodes.")
        values = stream.read_many("uddd", count, np.float64)  # the tags are not used
        if len(values) < 4 * count:
            raise _fail("Error reading node tags" if len(values) % 4 == 0 else "Error reading node coordinates")
        nodes = np.array(values, dtype=np.float64).reshape(count, 4)[:, 1:].copy()
    else:
        if ne - nb < 4:
            raise _fail("Invalid nodes header")
        head = _c_string_head(data, nb, ne)
        match = re.match(rb"[0-9]+", head)
        if match is None:
            raise _fail("Invalid number of nodes")
        count = int(match.group())
        # the binary block starts where the decoder believes the count line ends: one byte before
        # the end of the NUL-terminated head, i.e. it assumes the first node tag is one byte long
        start = nb + len(head) - 1
        if ne - nb < 4 + count * 28:
            raise _fail("Insufficient byte size of Nodes")
        if count >= _INT_MAX // 3:
            raise _fail("Invalid number of nodes.")
        record = np.dtype([("tag", "<i4"), ("xyz", "<f8", (3,))])
        padded = _bytes_at(data, start, count * 28)
        nodes = np.frombuffer(padded, dtype=record, count=count)["xyz"].astype(np.float64)

    if not binary:
        section = data[eb:ee]
        if not _ascii_header_line_ok(section):
            raise _fail("Invalid elements header")
        stream = _Stream(section)
        first = stream.read("u")
        if first is None or not stream.good:
            raise _fail("Error reading Elements header")
        n_elem = int(first)
        if n_elem >= _INT_MAX // 4:
            raise _fail("Invalid number of elements.")
        first_record = stream.read_many("iii", 1)
        if not stream.good:
            raise _fail("Error reading Elements")
        dim, per = _element_kind(int(first_record[1]))
        flat = _ascii_v22_elements(stream, n_elem, per, int(first_record[2]), count)
        return dim, nodes, flat - 1

    if ee - eb < 4:
        raise _fail("Invalid elements header")
    head = _c_string_head(data, eb, ee)
    match = re.match(rb"-?[0-9]+", head)
    if match is None or int(match.group()) > _INT_MAX or int(match.group()) < 0:
        raise _fail("Invalid number of elements")
    n_elem = int(match.group())
    start = eb + len(head) - 1
    dim, per = _element_kind(_i32(data, start))
    n_tags = _i32(data, start + 8)
    if ee - eb < 17 + n_elem * 20:
        # MuJoCo computes these sizes in int and can wrap for absurd counts (then reads past the
        # buffer); refused here with the honest comparison's message
        raise _fail("Insufficient byte size of Elements")
    # the first element is always read, even when the count is 0
    rows = max(n_elem, 1)
    if n_tags > 0:
        # each element as its own block: type, count, tag count, tag, 2 tags, then its nodes
        stride = 6 + per
        if ee - eb < 4 + n_elem * stride * 4:
            raise _fail("Insufficient byte size of Elements")
        words = np.frombuffer(_bytes_at(data, start, rows * stride * 4), dtype="<i4")
        tags = words.reshape(rows, stride)[:, 6:]
    else:
        # one block (fTetWild's layout): a header of 3 ints, then per element its tag and nodes;
        # the stride is 5 ints whatever the element type
        words = np.frombuffer(_bytes_at(data, start + 12, rows * 20), dtype="<i4")
        tags = words.reshape(rows, 5)[:, 1 : 1 + per]
    flat = tags.astype(np.int64).ravel()
    if np.any((flat < 1) | (flat > count)):
        raise _fail("Invalid node tag")
    return dim, nodes, flat - 1


def _element_kind(element_type: int) -> tuple[int, int]:
    """v2.2: the first element's type decides the dimension for all (2: triangle, 4: tetrahedron)."""
    if element_type == 2:
        return 2, 3
    if element_type == 4:
        return 3, 4
    raise _fail("Invalid number of node tags")


def _ascii_v22_elements(stream: _Stream, n_elem: int, per: int, first_tags: int, n_nodes: int) -> np.ndarray:
    """v2.2 ASCII element records, the first one's ``tag type ntags`` already read.

    Each record is ``tag type ntags``, then two tags when ``ntags > 0`` (exactly two, whatever
    ``ntags`` says), then as many node tags as the first element's type has: later records' types
    are never looked at. When every later record has the first one's shape they are read in bulk,
    otherwise record by record.
    """
    if n_elem == 0:
        return np.zeros(0, dtype=np.int64)  # the decoder's loop never runs
    extra = 2 if first_tags > 0 else 0
    pieces = [_v22_record_nodes(stream, extra, per, n_nodes)]
    rest = n_elem - 1
    width = 3 + extra + per
    end = stream.index + width * rest
    at_eof = end == len(stream.tokens) and not stream.trailing_space
    if rest and stream.good and stream.fast and end <= len(stream.tokens) and not at_eof:
        bulk = _bulk("i" * width, stream.tokens[stream.index : end], np.int64)
        if bulk is not None and np.all((bulk[2::width] > 0) == (extra > 0)):
            table = bulk.reshape(rest, width)[:, 3 + extra :]
            if np.any((table < 1) | (table > n_nodes)):
                raise _fail("Invalid node tag")
            stream.index = end
            return np.concatenate([pieces[0], table.ravel()])
    for _ in range(rest):  # bounded: every record consumes tokens or fails
        record = stream.read_many("iii", 1)
        if len(record) < 3:
            raise _fail("Error reading Elements")
        pieces.append(_v22_record_nodes(stream, 2 if record[2] > 0 else 0, per, n_nodes))
    return np.concatenate(pieces)


def _v22_record_nodes(stream: _Stream, extra: int, per: int, n_nodes: int) -> np.ndarray:
    """The rest of one v2.2 ASCII record: its ``extra`` tags, then ``per`` checked node tags."""
    if extra and len(stream.read_many("i" * extra, 1)) < extra:
        raise _fail("Error reading Elements")
    nodes = stream.read_many("i" * per, 1)
    if np.any((nodes > n_nodes) | (nodes < 1)):
        raise _fail("Invalid node tag")
    if len(nodes) < per:
        raise _fail("Error reading Elements")
    return nodes
