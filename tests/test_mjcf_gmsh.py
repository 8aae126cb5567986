"""GMSH files read as MuJoCo 4.0's GMSH decoder reads them (robodesc/formats/mjcf/gmsh.py).

Every file is written here, at test time, in the four encodings (v2.2/v4.1, ASCII/binary), and
compared with what the ``mujoco`` package compiles from a ``<flexcomp type="gmsh">`` that loads
it: the flex's vertex positions (its bodies' positions, as MuJoCo keeps only nodes that elements
use) and elements (as sets of nodes, MuJoCo may re-order an element's nodes), or MuJoCo's error.
"""

from __future__ import annotations

import json
import random
import re
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from robodesc.formats.mjcf.gmsh import GmshError, GmshMesh, read_gmsh

TET_NODES = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1), (5, 5, 5)]  # the last is unused
TETS = [(0, 1, 2, 3), (1, 2, 3, 4)]
TRI_NODES = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0.5)]
TRIS = [(0, 1, 2), (1, 3, 2)]
# MuJoCo's v2.2 binary reader wants a count line of two digits or more (see test_v22_binary_short)
_RNG = np.random.default_rng(7)
BIG_NODES = [tuple(p) for p in np.round(_RNG.normal(size=(15, 3)), 3).tolist()]  # the last is unused
BIG_TETS = [(i, i + 1, i + 2, i + 3) for i in range(11)]
BIG_TRIS = [(i, i + 2, i + 1) for i in range(12)]


# --------------------------------------------------------------------------- file writers


def _fmt(values: Any) -> str:
    return " ".join(repr(float(v)) if isinstance(v, float) else str(v) for v in values)


def v41_ascii(nodes: Any, elems: Any, dim: int, *, min_tag: int = 1, etype: int | None = None) -> bytes:
    n, m = len(nodes), len(elems)
    etype = {1: 1, 2: 2, 3: 4}[dim] if etype is None else etype
    lines = ["$MeshFormat", "4.1 0 8", "$EndMeshFormat", "$Nodes"]
    lines += [f"1 {n} {min_tag} {min_tag + n - 1}", f"{dim} 1 0 {n}"]
    lines += [str(min_tag + i) for i in range(n)]
    lines += [_fmt(float(c) for c in p) for p in nodes]
    lines += ["$EndNodes", "$Elements", f"1 {m} 1 {m}", f"{dim} 1 {etype} {m}"]
    lines += [_fmt([i + 1, *(min_tag + k for k in e)]) for i, e in enumerate(elems)]
    lines += ["$EndElements", ""]
    return "\n".join(lines).encode()


def v41_binary(nodes: Any, elems: Any, dim: int, *, min_tag: int = 1, header: bytes = b"4.1 1 8") -> bytes:
    n, m = len(nodes), len(elems)
    etype = {1: 1, 2: 2, 3: 4}[dim]
    out = [b"$MeshFormat\n", header, b"\n", struct.pack("<i", 1), b"\n$EndMeshFormat\n$Nodes\n"]
    out.append(struct.pack("<QQQQiiiQ", 1, n, min_tag, min_tag + n - 1, dim, 1, 0, n))
    out.append(np.arange(min_tag, min_tag + n, dtype="<u8").tobytes())
    out.append(np.asarray(nodes, dtype="<f8").tobytes())
    out.append(b"\n$EndNodes\n$Elements\n")
    out.append(struct.pack("<QQQQiiiQ", 1, m, 1, m, dim, 1, etype, m))
    table = np.hstack([np.arange(1, m + 1)[:, None], np.asarray(elems) + min_tag]) if m else np.zeros((0, dim + 2))
    out.append(table.astype("<u8").tobytes())
    out.append(b"\n$EndElements\n")
    return b"".join(out)


def v22_ascii(nodes: Any, elems: Any, etype: int, *, tags: int = 2, node_tags: Any = None) -> bytes:
    node_tags = range(1, len(nodes) + 1) if node_tags is None else node_tags
    lines = ["$MeshFormat", "2.2 0 8", "$EndMeshFormat", "$Nodes", str(len(nodes))]
    lines += [_fmt([t, *(float(c) for c in p)]) for t, p in zip(node_tags, nodes)]
    lines += ["$EndNodes", "$Elements", str(len(elems))]
    for i, e in enumerate(elems):
        lines.append(_fmt([i + 1, etype, tags, *([7, 1, 9][:tags]), *(k + 1 for k in e)]))
    lines += ["$EndElements", ""]
    return "\n".join(lines).encode()


def v22_binary(
    nodes: Any, elems: Any, etype: int, *, layout: str = "gmsh", count: int | None = None, tail: bytes = b""
) -> bytes:
    out = [b"$MeshFormat\n2.2 1 8\n", struct.pack("<i", 1), b"\n$EndMeshFormat\n$Nodes\n"]
    out.append(f"{len(nodes)}\n".encode())
    records = np.zeros(len(nodes), dtype=[("tag", "<i4"), ("xyz", "<f8", (3,))])
    records["tag"] = np.arange(1, len(nodes) + 1)
    records["xyz"] = nodes
    out.append(records.tobytes())
    out.append(f"\n$EndNodes\n$Elements\n{len(elems) if count is None else count}\n".encode())
    conn = np.asarray(elems, dtype=np.int64).reshape(len(elems), -1) + 1
    ids = np.arange(1, len(elems) + 1)[:, None]
    if layout == "gmsh":  # every element in a block of its own, with two tags
        head = np.array([etype, 1, 2])[None, :].repeat(len(elems), axis=0)
        out.append(np.hstack([head, ids, np.zeros_like(ids), np.ones_like(ids), conn]).astype("<i4").tobytes())
    else:  # fTetWild: one block without tags
        out.append(struct.pack("<3i", etype, len(elems), 0))
        out.append(np.hstack([ids, conn]).astype("<i4").tobytes())
    out.append(tail + b"\n$EndElements\n")
    return b"".join(out)


# --------------------------------------------------------------------------- MuJoCo as referee


@pytest.fixture
def mujoco() -> Any:
    return pytest.importorskip("mujoco")


def _compile(mujoco: Any, tmp_path: Path, data: bytes, name: str = "mesh.msh") -> Any:
    """The compiled model, or MuJoCo's error text."""
    path = tmp_path / name
    path.write_bytes(data)
    xml = (
        f'<mujoco><worldbody><body name="b"><flexcomp name="F" type="gmsh" file="{path}"/></body></worldbody></mujoco>'
    )
    try:
        return mujoco.MjModel.from_xml_string(xml)
    except ValueError as error:
        return str(error)


def _assert_same(mujoco: Any, tmp_path: Path, data: bytes) -> GmshMesh:
    """read_gmsh and MuJoCo agree on dimension, used node positions and elements."""
    model = _compile(mujoco, tmp_path, data)
    assert not isinstance(model, str), model
    mesh = read_gmsh(data)
    assert mesh.nodes.dtype == np.float64 and mesh.nodes.shape[1] == 3
    assert mesh.elements.dtype == np.int64 and mesh.elements.shape[1] == mesh.dim + 1
    assert mesh.dim == int(model.flex_dim[0])
    # MuJoCo keeps the nodes that elements use, in node order, one body (F_i) per kept node
    used = np.unique(mesh.elements)
    assert [model.body(int(b)).name for b in model.flex_vertbodyid] == [f"F_{i}" for i in range(len(used))]
    np.testing.assert_array_equal(model.body_pos[model.flex_vertbodyid], mesh.nodes[used])
    theirs = sorted(tuple(sorted(used[e])) for e in model.flex_elem.reshape(-1, mesh.dim + 1))
    ours = sorted(tuple(sorted(e)) for e in mesh.elements.tolist())
    assert theirs == ours
    return mesh


def _assert_refused(mujoco: Any, tmp_path: Path, data: bytes, message: str) -> None:
    """read_gmsh raises exactly ``message``, and MuJoCo's error says the same."""
    with pytest.raises(GmshError) as caught:
        read_gmsh(data)
    assert str(caught.value) == message
    error = _compile(mujoco, tmp_path, data)
    assert isinstance(error, str), "MuJoCo accepted the file"
    assert f"Error: {message}\n" in error, error


# --------------------------------------------------------------------------- well-formed files

WELL_FORMED = {
    "v41 ascii tets": v41_ascii(TET_NODES, TETS, 3),
    "v41 ascii triangles": v41_ascii(TRI_NODES, TRIS, 2),
    "v41 binary tets": v41_binary(TET_NODES, TETS, 3),
    "v41 binary triangles": v41_binary(TRI_NODES, TRIS, 2, min_tag=0),
    # the data-size field and the file type's value are not looked at beyond zero / non-zero
    "v41 binary, data-size 4 ignored": v41_binary(TET_NODES, TETS, 3, header=b"4.1 2 4"),
    "v22 ascii tets": v22_ascii(TET_NODES, TETS, 4),
    "v22 ascii triangles without tags": v22_ascii(TRI_NODES, TRIS, 2, tags=0),
    # v2.2 node tags are not looked at: nodes are numbered by their position
    "v22 ascii tags ignored": v22_ascii(TET_NODES, TETS, 4, node_tags=[50, 9, 3, 3, 0, 1]),
    "v41 binary tags from 7": v41_binary(TET_NODES, TETS, 3, min_tag=7),
    "v22 binary tets": v22_binary(BIG_NODES, BIG_TETS, 4),
    "v22 binary triangles": v22_binary(BIG_NODES, BIG_TRIS, 2),
    # the size check of this layout wants two more bytes than a count line of 2 digits gives
    "v22 binary ftetwild": v22_binary(BIG_NODES, BIG_TETS, 4, layout="ftetwild", tail=b"\n\n"),
    # any positive tag count means the two-tag layout; only the first element's count is read
    "v22 binary one tag": v22_binary(BIG_NODES, BIG_TETS, 4).replace(
        b"$Elements\n11\n" + struct.pack("<3i", 4, 1, 2), b"$Elements\n11\n" + struct.pack("<3i", 4, 1, 1)
    ),
    "v41 ascii, bigger": v41_ascii(BIG_NODES, BIG_TETS, 3),
    "v22 ascii, bigger": v22_ascii(BIG_NODES, BIG_TRIS, 2),
    "v41 crlf": v41_ascii(TET_NODES, TETS, 3).replace(b"\n", b"\r\n"),
    "v22 crlf": v22_ascii(TET_NODES, TETS, 4).replace(b"\n", b"\r\n"),
    "version 4.104 counts as 4.1": v41_ascii(TET_NODES, TETS, 3).replace(b"4.1 0 8", b"4.104 0 8"),
    # a sign ends a number unless it follows an exponent: "1.0-1.0" is two numbers
    "glued numbers": v41_ascii(TET_NODES, TETS, 3).replace(b"1.0 1.0 1.0", b"1.0-1.0 1.0"),
    "glued exponent": v41_ascii(TET_NODES, TETS, 3).replace(b"1.0 1.0 1.0", b"1.0 1e+0 1.0"),
    # strtod's hexadecimal floats and a second decimal point starting the next number
    "hex float and 1.5.5": v41_ascii(TET_NODES, TETS, 3).replace(b"1.0 1.0 1.0\n", b"0x1p1 1.5.5\n"),
    "underflow to zero of a zero": v41_ascii(TET_NODES, TETS, 3).replace(b"1.0 1.0 1.0", b"1.0 0e-400 1.0"),
}


@pytest.mark.parametrize("name", list(WELL_FORMED))
def test_well_formed_files_read_as_mujoco_reads_them(mujoco: Any, tmp_path: Path, name: str) -> None:
    _assert_same(mujoco, tmp_path, WELL_FORMED[name])


def test_exact_contents_of_a_small_file() -> None:
    for data in (
        v41_ascii(BIG_NODES, BIG_TETS, 3),
        v41_binary(BIG_NODES, BIG_TETS, 3),
        v22_binary(BIG_NODES, BIG_TETS, 4),
    ):
        mesh = read_gmsh(data)
        assert mesh.dim == 3
        np.testing.assert_array_equal(mesh.nodes, np.array(BIG_NODES, dtype=float))
        np.testing.assert_array_equal(mesh.elements, np.array(BIG_TETS))


def test_a_file_with_other_sections_and_entities(mujoco: Any, tmp_path: Path) -> None:
    """$PhysicalNames, $Entities and $NodeData are skipped: only the marked sections are read."""
    base = v41_ascii(TET_NODES, TETS, 3).decode()
    extra = '$PhysicalNames\n1\n3 1 "body"\n$EndPhysicalNames\n$Entities\n0 0 0 1\n1 0 0 0 1 1 1 1 1 0\n$EndEntities\n'
    data = base.replace("$EndMeshFormat\n", "$EndMeshFormat\n" + extra) + '$NodeData\n1\n"x"\n$EndNodeData\n'
    _assert_same(mujoco, tmp_path, data.encode())


def test_v22_takes_the_first_element_type_for_all(mujoco: Any, tmp_path: Path) -> None:
    """Later elements of another type are read with the first one's node count: a triangle after
    a tetrahedron swallows the next record's tag as its fourth node."""
    lines = v22_ascii(TET_NODES, TETS, 4).decode().split("\n")
    at = lines.index("$Elements")
    lines[at + 1] = "3"
    lines.insert(at + 3, "9 2 2 7 1 2 3 4")  # a triangle: 2 3 4, then '3' from the next record
    data = "\n".join(lines).encode()
    with pytest.raises(GmshError):
        read_gmsh(data)
    _assert_refused(mujoco, tmp_path, data, "GMSH decoder: Error reading Elements")


def test_v22_starting_with_a_point_element_is_refused(mujoco: Any, tmp_path: Path) -> None:
    lines = v22_ascii(TET_NODES, TETS, 4).decode().split("\n")
    at = lines.index("$Elements")
    lines[at + 1] = "3"
    lines.insert(at + 2, "9 15 2 0 1 1")
    _assert_refused(mujoco, tmp_path, "\n".join(lines).encode(), "GMSH decoder: Invalid number of node tags")


def test_v22_three_tags_shift_the_nodes(mujoco: Any, tmp_path: Path) -> None:
    """Exactly two tags are read whatever the count says; the third one becomes a node."""
    data = v22_ascii(TET_NODES, TETS, 4, tags=3)  # tags 7 1 9: the 9 is read as a node of 6
    _assert_refused(mujoco, tmp_path, data, "GMSH decoder: Invalid node tag")


def test_v22_binary_reads_one_element_even_when_the_count_is_zero(mujoco: Any, tmp_path: Path) -> None:
    data = v22_binary(BIG_NODES, BIG_TETS, 4, layout="ftetwild", count=0)
    mesh = _assert_same(mujoco, tmp_path, data)
    assert mesh.elements.tolist() == [list(BIG_TETS[0])]


def test_v22_binary_ftetwild_triangles(mujoco: Any, tmp_path: Path) -> None:
    """Triangles in fTetWild's layout are read with a tetrahedron's stride of 5 ints: files that
    pack them in 4 are refused, a fifth padding int per triangle makes them readable."""
    tris = [(i, i + 1, i + 2) for i in range(10)]
    packed = v22_binary(BIG_NODES, tris, 2, layout="ftetwild")
    _assert_refused(mujoco, tmp_path, packed, "GMSH decoder: Insufficient byte size of Elements")
    padded = [struct.pack("<3i", 2, len(tris), 0)]
    padded += [struct.pack("<5i", i + 1, *(k + 1 for k in t), 7) for i, t in enumerate(tris)]
    head = packed[: packed.index(b"$Elements\n10\n") + len(b"$Elements\n10\n")]
    data = head + b"".join(padded) + b"\n\n\n$EndElements\n"
    mesh = _assert_same(mujoco, tmp_path, data)
    assert mesh.elements.tolist() == [list(t) for t in tris]


def test_v22_binary_short(mujoco: Any, tmp_path: Path) -> None:
    """Nine nodes or fewer make a one-digit count line, one byte short of what MuJoCo asks for."""
    _assert_refused(mujoco, tmp_path, v22_binary(TET_NODES, TETS, 4), "GMSH decoder: Insufficient byte size of Nodes")
    data = v22_binary(BIG_NODES, BIG_TETS[:9], 4)
    _assert_refused(mujoco, tmp_path, data, "GMSH decoder: Insufficient byte size of Elements")


# --------------------------------------------------------------------------- malformed files

TET41 = v41_ascii(TET_NODES, TETS, 3)
TET41B = v41_binary(TET_NODES, TETS, 3)
TET22 = v22_ascii(TET_NODES, TETS, 4)
TET22B = v22_binary(BIG_NODES, BIG_TETS, 4)


def _patch_u64(data: bytes, marker: bytes, offset: int, value: int) -> bytes:
    at = data.index(marker) + len(marker) + 1 + offset
    return data[:at] + struct.pack("<Q", value) + data[at + 8 :]


MALFORMED = {
    "v4.0": (TET41.replace(b"4.1 0 8", b"4.0 0 8"), "Only GMSH file format versions 4.1 and 2.2 are supported"),
    "4.105 rounds to 4.11": (
        TET41.replace(b"4.1 0 8", b"4.105 0 8"),
        "Only GMSH file format versions 4.1 and 2.2 are supported",
    ),
    "no file type": (b"$MeshFormat\n4.1", "Could not read GMSH file header"),
    "no nodes": (b"$MeshFormat\n2.2 0 8\n$EndMeshFormat\n", "GMSH file missing $Nodes"),
    "no elements": (TET41[: TET41.index(b"$Elements")], "GMSH file missing $Elements"),
    "no end of nodes": (TET41.replace(b"$EndNodes", b"$EndNodez"), "GMSH file missing $EndNodes after $Nodes"),
    "no end of elements": (TET41.replace(b"$EndElements", b""), "GMSH file missing $EndElements after $Elements"),
    "v41 two node blocks": (TET41.replace(b"1 6 1 6\n", b"2 6 1 6\n"), "All nodes must be in single block"),
    "v41 max tag": (
        TET41.replace(b"1 6 1 6\n", b"1 6 1 7\n"),
        "Maximum number of nodes must be equal to number of nodes in a block",
    ),
    "v41 1D entity": (TET41.replace(b"\n3 1 0 6\n", b"\n0 1 0 6\n"), "Entity must be 1D, 2D or 3D"),
    "v41 tags not sequential": (TET41.replace(b"\n3\n4\n", b"\n4\n3\n"), "Node tags must be sequential"),
    "v41 short header": (
        TET41.replace(b"1 6 1 6\n3 1 0 6\n", b"1 6 1 6\n3 1 0\n"),
        "All nodes must be in single block",
    ),
    "v41 ascii tags from 7": (
        v41_ascii(TET_NODES, TETS, 3, min_tag=7),
        "Maximum number of nodes must be equal to number of nodes in a block",
    ),
    "glued text after a coordinate": (TET41.replace(b"5.0\n$End", b"5.0abc\n$End"), "Error reading node coordinates"),
    "infinity": (TET41.replace(b"5.0\n$End", b"infinity\n$End"), "Error reading node coordinates"),
    "overflow": (TET41.replace(b"5.0\n$End", b"1e999\n$End"), "Error reading node coordinates"),
    "nan": (TET41.replace(b"5.0\n$End", b"nan\n$End"), "Error reading node coordinates"),
    "underflow": (TET41.replace(b"5.0\n$End", b"1e-310\n$End"), "Error reading node coordinates"),
    "underflow to zero": (TET41.replace(b"5.0\n$End", b"1e-400\n$End"), "Error reading node coordinates"),
    "v22 last coordinate at the end": (
        TET22.replace(b"5.0\n$EndNodes", b"5.0$EndNodes"),
        "Error reading node coordinates",
    ),
    "v22 last coordinate at the end, read token by token": (
        TET22.replace(b"5.0\n$EndNodes", b"5.0$EndNodes").replace(b"2 1.0 0.0 0.0", b"2 1.0-0.0 0.0"),
        "Error reading node coordinates",
    ),
    "no newline before the end": (TET41.replace(b"5\n$EndElements", b"5$EndElements"), "Error reading Elements"),
    "v41 bad coordinate": (TET41.replace(b"1.0 1.0 1.0", b"1.0 x 1.0"), "Error reading node coordinates"),
    "v41 truncated nodes": (TET41.replace(b"5.0 5.0 5.0\n", b""), "Error reading node coordinates"),
    "v41 huge node count": (
        TET41.replace(b"1 6 1 6\n3 1 0 6\n", b"1 1000000000000 1 1000000000000\n3 1 0 1000000000000\n"),
        "Node tags must be sequential",
    ),
    "v41 element dim": (TET41.replace(b"\n3 1 4 2\n", b"\n2 1 4 2\n"), "Inconsistent dimensionality in Elements"),
    "v41 element type": (
        TET41.replace(b"\n3 1 4 2\n", b"\n3 1 5 2\n"),
        "Element type inconsistent with dimensionality",
    ),
    "v41 two element blocks": (TET41.replace(b"\n1 2 1 2\n", b"\n2 2 1 2\n"), "All elements must be in single block"),
    "v41 unknown node": (TET41.replace(b"2 2 3 4 5", b"2 2 3 4 9"), "Invalid node index in element"),
    "v41 truncated elements": (TET41.replace(b"2 2 3 4 5", b"2 2 3 4"), "Error reading Elements"),
    "v41 huge element count": (
        TET41.replace(b"1 2 1 2\n3 1 4 2", b"1 999999999 1 2\n3 1 4 999999999"),
        "Invalid numElements.",
    ),
    "v41 1D mesh": (v41_ascii(TET_NODES, [(0, 1)], 1), "1D meshes are not supported"),
    "v41 binary huge node count": (
        _patch_u64(_patch_u64(TET41B, b"$Nodes", 8, 10**12), b"$Nodes", 44, 10**12),
        "Insufficient byte size of Nodes",
    ),
    "v41 binary unknown node": (_patch_u64(TET41B, b"$Elements", 52 + 8, 99), "Invalid node index in element"),
    "v41 binary tags": (_patch_u64(TET41B, b"$Nodes", 52, 5), "Node tags must be sequential"),
    "v41 binary huge element count": (
        _patch_u64(_patch_u64(TET41B, b"$Elements", 8, 10**8), b"$Elements", 44, 10**8),
        "Insufficient byte size of Elements",
    ),
    "v41 binary short header": (
        TET41B[: TET41B.index(b"$Nodes") + 20] + b"$EndNodes" + TET41B[TET41B.index(b"$EndNodes") + 9 :],
        "Invalid nodes header",
    ),
    "v22 node header": (TET22.replace(b"$Nodes\n6\n", b"$Nodes\n6 \n"), "Invalid node header"),
    "v22 element header": (TET22.replace(b"$Elements\n2\n", b"$Elements\n2x\n"), "Invalid elements header"),
    "v22 truncated node": (TET22.replace(b"6 5.0 5.0 5.0\n", b"6 5.0\n"), "Error reading node coordinates"),
    "v22 unknown node": (TET22.replace(b" 2 3 4 5\n", b" 2 3 4 7\n"), "Invalid node tag"),
    "v22 node zero": (TET22.replace(b" 2 3 4 5\n", b" 2 3 4 0\n"), "Invalid node tag"),
    "v22 no elements": (TET22[: TET22.index(b"$Elements")] + b"$Elements\n0\n$EndElements\n", "Error reading Elements"),
    "v22 huge node count": (TET22.replace(b"$Nodes\n6\n", b"$Nodes\n1000000000000\n"), "Invalid number of nodes."),
    "v22 many nodes": (TET22.replace(b"$Nodes\n6\n", b"$Nodes\n600000\n"), "Error reading node tags"),
    "v22 binary huge node count": (
        TET22B.replace(b"$Nodes\n15\n", b"$Nodes\n9999999999\n"),
        "Insufficient byte size of Nodes",
    ),
    "v22 binary no count": (TET22B.replace(b"$Nodes\n15\n", b"$Nodes\nx\n"), "Invalid number of nodes"),
    "v22 binary huge element count": (
        TET22B.replace(b"$Elements\n11\n", b"$Elements\n99999999\n"),
        "Insufficient byte size of Elements",
    ),
    "v22 binary negative element count": (
        TET22B.replace(b"$Elements\n11\n", b"$Elements\n-2\n"),
        "Invalid number of elements",
    ),
    "v22 binary element type": (
        TET22B.replace(b"$Elements\n11\n\x04", b"$Elements\n11\n\x05"),
        "Invalid number of node tags",
    ),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_files_refused_with_mujocos_message(mujoco: Any, tmp_path: Path, name: str) -> None:
    data, message = MALFORMED[name]
    _assert_refused(mujoco, tmp_path, data, "GMSH decoder: " + message)


def test_empty_element_lists_refused_by_the_flexcomp(mujoco: Any, tmp_path: Path) -> None:
    for data in (v41_ascii(TET_NODES, [], 3), v41_binary(TRI_NODES, [], 2)):
        _assert_refused(mujoco, tmp_path, data, "unsupported GMSH mesh dimensionality")


def test_files_without_mesh_format_find_no_decoder(mujoco: Any, tmp_path: Path) -> None:
    for data in (b"", b" " + TET41, b"hello"):
        with pytest.raises(GmshError, match="^no decoder found for mesh file 'x.msh'$"):
            read_gmsh(data, filename="x.msh")
        error = _compile(mujoco, tmp_path, data)
        assert isinstance(error, str) and "no decoder found for mesh file '" in error


# --------------------------------------------------------------------------- bounded and fast


def test_huge_counts_fail_fast() -> None:
    huge = 10**12
    cases = [
        _patch_u64(_patch_u64(TET41B, b"$Nodes", 8, huge), b"$Nodes", 44, huge),
        TET41.replace(b"1 6 1 6\n3 1 0 6\n", b"1 %d 1 %d\n3 1 0 %d\n" % (huge, huge, huge)),
        TET22.replace(b"$Nodes\n6\n", b"$Nodes\n%d\n" % (2**31 // 3 - 1)),
        TET22B.replace(b"$Nodes\n15\n", b"$Nodes\n%d\n" % (huge // 1000)),
    ]
    for data in cases:
        assert data not in (TET41, TET41B, TET22, TET22B)
        start = time.perf_counter()
        with pytest.raises(GmshError):
            read_gmsh(data)
        assert time.perf_counter() - start < 0.5


def test_a_million_nodes_read_quickly() -> None:
    n = 1_000_000
    rng = np.random.default_rng(0)
    nodes = rng.normal(size=(n, 3))
    tets = rng.integers(0, n, size=(n, 4))
    for data in (v41_binary(nodes, tets, 3), v22_binary(nodes, tets, 4), v22_binary(nodes, tets, 4, layout="ftet")):
        start = time.perf_counter()
        mesh = read_gmsh(data)
        assert time.perf_counter() - start < 1.0
        np.testing.assert_array_equal(mesh.nodes, nodes)
        np.testing.assert_array_equal(mesh.elements, tets)


# --------------------------------------------------------------------------- mutated files

_WORKER = """
import json, sys, mujoco
for path in sys.stdin.read().split():
    xml = ('<mujoco><worldbody><body name="b"><flexcomp name="F" type="gmsh" file="%s"/>'
           '</body></worldbody></mujoco>' % path)
    try:
        m = mujoco.MjModel.from_xml_string(xml)
        v = m.flex_vertbodyid
        r = {"dim": int(m.flex_dim[0]), "pos": m.body_pos[v].tolist(), "elem": m.flex_elem.tolist()}
    except ValueError as e:
        r = {"error": str(e)}
    print(json.dumps([path, r]), flush=True)
"""
# what MuJoCo's flex compiler (not its GMSH decoder) refuses in a file that decodes
_FLEX_ERRORS = ("is not finite", "repeated vertex in element", "not enough vertices")


def _mutate(rng: random.Random, data: bytes) -> bytes:
    """One to three random edits: a token replaced or dropped, or a byte of a binary file set."""
    junk = [b"0", b"1", b"2", b"4", b"-1", b"1.5", b"x", b"1e5", b"+2", b"0x1p1", b"nan", b"1e", b".5", b"1-2", b"\n"]
    for _ in range(rng.randint(1, 3)):
        if b"\0" in data and rng.random() < 0.7:
            at = rng.randrange(len(data))
            data = data[:at] + bytes([rng.choice([0, 1, 2, 3, 4, 9, 255])]) + data[at + 1 :]
        else:
            tokens = re.split(rb"(\s+)", data)
            at = rng.randrange(len(tokens))
            if tokens[at].strip() == tokens[at] and len(tokens[at]) < 12:
                tokens[at] = rng.choice([b"", *junk])
            data = b"".join(tokens)
    return data


def test_mutated_files_read_as_mujoco_reads_them(mujoco: Any, tmp_path: Path) -> None:
    """Seeded random edits of valid files in all four encodings: read_gmsh and MuJoCo agree on
    every one (MuJoCo runs in a child process: it crashes on some files that decode fine, e.g.
    two elements with the same nodes, which is the flex compiler's business, not the reader's)."""
    rng = random.Random(20261201)
    bases = [
        v41_ascii(TET_NODES, TETS, 3),
        v41_ascii(TRI_NODES, TRIS, 2),
        v22_ascii(TET_NODES, TETS, 4),
        v22_ascii(BIG_NODES, BIG_TRIS, 2, tags=0),
        v41_binary(TET_NODES, TETS, 3),
        v22_binary(BIG_NODES, BIG_TETS, 4),
        v22_binary(BIG_NODES, BIG_TETS, 4, layout="ftetwild", tail=b"\n\n"),
    ]
    files: dict[str, bytes] = {}
    for k in range(300):
        data = _mutate(rng, rng.choice(bases))
        path = tmp_path / f"m{k}.msh"
        path.write_bytes(data)
        files[str(path)] = data
    results: dict[str, dict[str, Any]] = {}
    while len(results) < len(files):
        todo = [p for p in files if p not in results]
        run = subprocess.run([sys.executable, "-c", _WORKER], input="\n".join(todo), capture_output=True, text=True)
        for line in run.stdout.splitlines():
            path, result = json.loads(line)
            results[path] = result
        if run.returncode != 0:
            results.setdefault(todo[len(run.stdout.splitlines())], {"crash": True})
    compared = 0
    for path, result in results.items():
        data = files[path]
        try:
            mesh = read_gmsh(data, filename=path)
        except GmshError as error:
            assert "error" in result, (path, str(error))
            assert f"Error: {error}\n" in result["error"], (path, str(error), result["error"])
            compared += 1
            continue
        if "crash" in result or any(text in result.get("error", "") for text in _FLEX_ERRORS):
            continue
        assert "error" not in result, (path, result["error"])
        used = np.unique(mesh.elements)
        assert result["dim"] == mesh.dim, path
        np.testing.assert_array_equal(np.array(result["pos"]), mesh.nodes[used], err_msg=path)
        theirs = sorted(tuple(sorted(used[e])) for e in np.array(result["elem"]).reshape(-1, mesh.dim + 1))
        assert theirs == sorted(tuple(sorted(e)) for e in mesh.elements.tolist()), path
        compared += 1
    assert compared > 250
