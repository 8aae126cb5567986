"""Mesh files read the way MuJoCo reads them: binary STL, OBJ (as tinyobjloader triangulates it) and
MuJoCo's own MSH, chosen by the file's extension.

A file MuJoCo cannot read raises a `MeshFileError` (a ``ValueError`` too) whose subclass says why,
so callers decide by type, never by message: the file cannot be opened (`MeshFileUnreadable`),
its type is not one MuJoCo reads (`UnsupportedMeshFileType`), or its content is not a valid file of
its type (`MalformedMeshFile`).
"""

from __future__ import annotations

import struct

import numpy as np

from ...core.resources import ResourceRefused, read_file

__all__ = ["MalformedMeshFile", "MeshFileError", "MeshFileUnreadable", "UnsupportedMeshFileType", "load_mesh_file"]


class MeshFileError(ValueError):
    """A mesh file MuJoCo cannot read (raised by :func:`load_mesh_file`). The subclass says why."""

    def __init__(self, message: str, path: str, file_type: str) -> None:
        super().__init__(message)
        self.path = path
        self.file_type = file_type  # the extension, lower case: "stl", "obj", "msh", or another


class MeshFileUnreadable(MeshFileError):
    """The file cannot be opened or read: it does not exist, is a folder, is not readable, ..."""


class UnsupportedMeshFileType(MeshFileError):
    """The file's extension is not one MuJoCo reads (.stl, .obj, .msh)."""


class MalformedMeshFile(MeshFileError):
    """The file's content is not a valid mesh of its type (an ASCII or truncated STL, a bad OBJ line, ...)."""


def load_mesh_file(path: str, limit: int | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Vertices (float32 values, (n, 3)) and faces ((m, 3) int or ``None``) of a mesh file.

    Reads the file the way MuJoCo does (the type is taken from the extension):

    * ``.stl``: binary STL only (MuJoCo rejects ASCII STL); 1..200000 triangles and an exact
      file size; coordinates bounded by 2^30; vertices are welded bit-exactly (identical
      float triples, so 0.0 and -0.0 stay distinct) in order of first appearance;
    * ``.obj``: ``v`` lines give the vertices as listed (no welding); faces come from the
      first object/group only (as MuJoCo uses only tinyobjloader's first shape); polygons
      are triangulated like tinyobjloader's built-in (non-earcut) triangulation, in float32:
      quads along their shorter diagonal, larger polygons by its ear clipping (which may
      drop part of a polygon it cannot clip, as MuJoCo does); a face of more than 100
      corners is dropped whole, as tinyobjloader drops it; negative (relative) indices
      are supported; a
      file with only ``l`` line elements gives degenerate triangles ``(i, j, j)``, as in
      MuJoCo (which then rejects the mesh for having no surface area);
    * ``.msh``: MuJoCo's binary format (int32 counts of vertices, normals, texcoords, faces,
      then float32 vertices, normals, texcoords and int32 faces); ``None`` faces if it has
      none.

    The file is read through `read_file` (a regular file of at most `limit` bytes, by default
    robodesc's mesh limit). Raises :class:`MeshFileUnreadable` if the file cannot be read or is
    refused (its cause is then the `ResourceRefused`), :class:`UnsupportedMeshFileType`
    for another extension, :class:`MalformedMeshFile` if its content is malformed.
    """
    ext = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    try:
        data = read_file(path, kind="mesh", limit=limit, what="mesh file")
    except (OSError, ResourceRefused) as exc:
        why = exc.message if isinstance(exc, ResourceRefused) else exc
        raise MeshFileUnreadable(f"could not read mesh file {path!r}: {why}", path, ext) from exc
    if ext == "stl":
        return _load_stl(data, path)
    if ext == "obj":
        return _load_obj(data, path)
    if ext == "msh":
        return _load_msh(data, path)
    raise UnsupportedMeshFileType(
        f"unknown or unsupported mesh file type: {path!r} (expected .stl, .obj or .msh)", path, ext
    )


def _load_stl(data: bytes, path: str) -> tuple[np.ndarray, np.ndarray]:
    if not data:
        raise MalformedMeshFile(f"STL file {path!r} is empty", path, "stl")
    if len(data) < 84:
        raise MalformedMeshFile(f"invalid header in STL file {path!r}", path, "stl")
    (nfaces,) = struct.unpack_from("<i", data, 80)
    if nfaces < 1 or nfaces > 200000:
        raise MalformedMeshFile(
            f"number of faces should be between 1 and 200000 in STL file {path!r}; perhaps this is an ASCII file?",
            path,
            "stl",
        )
    if nfaces * 50 != len(data) - 84:
        raise MalformedMeshFile(f"STL file {path!r} has wrong size; perhaps this is an ASCII file?", path, "stl")
    rec = np.frombuffer(data, dtype=np.uint8, offset=84).reshape(nfaces, 50)
    tri = rec[:, 12:48].copy().view("<f4").reshape(nfaces * 3, 3)
    if np.any(np.abs(tri.astype(np.float64)) > 2.0**30):
        raise MalformedMeshFile(f"vertex in STL file {path!r} exceeds maximum bounds", path, "stl")
    bits = tri.view("<u4")
    # bit-exact weld, vertices in order of first appearance
    _, first, inverse = np.unique(bits, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    verts = tri[first[order]].astype(np.float32)
    faces = rank[np.asarray(inverse).reshape(-1)].reshape(nfaces, 3).astype(np.int64)
    return verts, faces


def _load_msh(data: bytes, path: str) -> tuple[np.ndarray, np.ndarray | None]:
    if not data:
        raise MalformedMeshFile(f"MSH file {path!r} is empty", path, "msh")
    if len(data) < 16:
        raise MalformedMeshFile(f"missing header in MSH file {path!r}", path, "msh")
    nv, nn, nt, nf = struct.unpack_from("<4i", data, 0)
    if nv < 4 or nf < 0 or nn < 0 or nt < 0 or (nn > 0 and nn != nv) or (nt > 0 and nt != nv):
        raise MalformedMeshFile(f"invalid sizes in MSH file {path!r}", path, "msh")
    expected = 16 + 12 * nv + 12 * nn + 8 * nt + 12 * nf
    if len(data) != expected:
        raise MalformedMeshFile(f"unexpected file size in MSH file {path!r}", path, "msh")
    verts = np.frombuffer(data, dtype="<f4", count=3 * nv, offset=16).reshape(nv, 3).astype(np.float32)
    if nf == 0:
        return verts, None
    off = 16 + 12 * nv + 12 * nn + 8 * nt
    faces = np.frombuffer(data, dtype="<i4", count=3 * nf, offset=off).reshape(nf, 3).astype(np.int64)
    return verts, faces


def _parse_obj(
    data: bytes, path: str
) -> tuple[list[tuple[float, float, float]], list[list[int]], list[tuple[int, int, int]]]:
    """The vertices, the polygons of the first object or group (as MuJoCo uses only tinyobjloader's
    first shape) and its line segments (as degenerate triangles) of an OBJ file."""
    text = data.decode("utf-8", errors="replace")  # cannot fail: undecodable bytes become U+FFFD
    verts: list[tuple[float, float, float]] = []
    polygons: list[list[int]] = []
    segments: list[tuple[int, int, int]] = []
    shape_started = False  # the current shape has a triangle or quad: tinyobjloader keeps it
    first_shape_done = False
    for lineno, raw in enumerate(text.replace("\\\r\n", " ").replace("\\\n", " ").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        tok = line.split()
        key = tok[0]
        if key == "v":
            try:
                xyz = [float(t) for t in tok[1:4]] + [0.0, 0.0, 0.0]  # missing coordinates are 0
            except ValueError as exc:
                raise MalformedMeshFile(
                    f"could not parse OBJ file {path!r}: bad vertex on line {lineno}", path, "obj"
                ) from exc
            verts.append((xyz[0], xyz[1], xyz[2]))
        elif key in ("o", "g"):
            if not shape_started and not first_shape_done:
                # only polygons of 5+ corners and lines so far: tinyobjloader keeps the shape if the
                # polygons give a triangle, or if it has lines and an object (not a group) ends;
                # else the next one is the first
                if polygons and _obj_any_triangle(polygons, verts) or key == "o" and segments:
                    shape_started = True
                else:
                    polygons.clear()
                    segments.clear()
            if shape_started:
                first_shape_done = True
        elif key in ("f", "l"):
            idx: list[int] = []
            for t in tok[1:]:
                s = t.split("/")[0]
                try:
                    i = int(s)
                except ValueError as exc:
                    raise MalformedMeshFile(
                        f"could not parse OBJ file {path!r}: bad face on line {lineno}", path, "obj"
                    ) from exc
                if i > 0:
                    idx.append(i - 1)
                elif i < 0:
                    idx.append(len(verts) + i)
                else:
                    raise MalformedMeshFile(
                        f"could not parse OBJ file {path!r}: zero face index on line {lineno}", path, "obj"
                    )
            if key == "l":
                if len(idx) >= 2:
                    if not first_shape_done:
                        # MuJoCo turns line segments into degenerate triangles (i, j, j)
                        segments.extend((idx[k], idx[k + 1], idx[k + 1]) for k in range(len(idx) - 1))
                continue
            if not 3 <= len(idx) <= _OBJ_MAX_FACE_CORNERS:
                # dropped whole, as tinyobjloader does, so it does not start a shape either: a
                # group holding only such faces gives no shape and the next group is the first
                continue
            if len(idx) <= 4:
                shape_started = True  # a triangle or quad always gives triangles
            if not first_shape_done:
                polygons.append(idx)
    return verts, polygons, segments


def _obj_any_triangle(polygons: list[list[int]], verts: list[tuple[float, float, float]]) -> bool:
    """Whether tinyobjloader's ear clipping gives any triangle for these polygons (5+ corners).

    tinyobjloader triangulates a group when the next one starts, with the vertices read so far.
    A polygon that uses a vertex not read yet is counted as giving triangles (the earlier
    behaviour): how tinyobjloader clips around such corners is not reproduced.
    """
    for poly in polygons:
        if any(i < 0 or i >= len(verts) for i in poly):
            return True
        corners = np.asarray([verts[i] for i in poly], dtype=np.float32)
        with np.errstate(all="ignore"):
            if _obj_ear_clip(list(range(len(poly))), corners):
                return True
    return False


def _load_obj(data: bytes, path: str) -> tuple[np.ndarray, np.ndarray | None]:
    verts, polygons, segments = _parse_obj(data, path)
    if not verts:
        raise MalformedMeshFile(f"could not parse OBJ file {path!r}: no vertices", path, "obj")
    v = np.asarray(verts, dtype=np.float32)
    if any(i < 0 or i >= len(verts) for poly in polygons for i in poly):
        raise MalformedMeshFile(
            f"OBJ file {path!r} has a face index that does not exist in its vertex list", path, "obj"
        )
    faces: list[tuple[int, int, int]] = []
    with np.errstate(all="ignore"):
        for poly in polygons:
            if len(poly) == 3:
                faces.append((poly[0], poly[1], poly[2]))
            elif len(poly) == 4:
                faces.extend(_obj_split_quad(poly, v))
            else:
                faces.extend(_obj_ear_clip(poly, v))
    if not faces:
        faces = segments
    if not faces:
        return v, None
    fa = np.asarray(faces, dtype=np.int64)
    if fa.min() < 0 or fa.max() >= v.shape[0]:
        raise MalformedMeshFile(
            f"OBJ file {path!r} has a face index that does not exist in its vertex list", path, "obj"
        )
    return v, fa


# tinyobjloader (the revision MuJoCo 4.0 fetches, built without TINYOBJLOADER_USE_MAPBOX_EARCUT and
# with float ``real_t``) triangulates every polygon with more than three corners itself.  The
# helpers below reproduce its choices step by step, with every product, sum and comparison done in
# float32 (MuJoCo's build contracts nothing into FMAs), so near-degenerate decisions agree as well.
# Before that it drops, with nothing but a warning MuJoCo ignores, every face with fewer than 3 or
# more than 100 corners (seen in MuJoCo 4.0's binary: a check on the corner count ahead of the
# triangulation, and a 101-corner convex face gives no triangle).  The bound also keeps the ear
# clipping, which is at least quadratic, cheap on any file.
_OBJ_MAX_FACE_CORNERS = 100


def _obj_split_quad(q: list[int], v: np.ndarray) -> list[tuple[int, int, int]]:
    """Split a quad along its shorter diagonal (0-2 only if strictly shorter than 1-3)."""
    p0, p1, p2, p3 = (v[i] for i in q)
    d02 = p2 - p0
    d13 = p3 - p1
    len02 = d02[0] * d02[0] + d02[1] * d02[1] + d02[2] * d02[2]
    len13 = d13[0] * d13[0] + d13[1] * d13[1] + d13[2] * d13[2]
    if len02 < len13:
        return [(q[0], q[1], q[2]), (q[0], q[2], q[3])]
    return [(q[0], q[1], q[3]), (q[1], q[2], q[3])]


def _obj_projection_axes(poly: list[int], v: np.ndarray) -> tuple[int, int]:
    """The coordinate plane tinyobjloader projects a polygon onto.

    It walks the corners until one (with its two successors) has an edge cross product with a
    component above FLT_EPSILON in magnitude, then drops the axis of the largest component
    (ties resolved as: x only if strictly largest, else z if strictly largest, else y).  If no
    corner qualifies the default plane (y, z) is used.
    """
    n = len(poly)
    eps = np.float32(np.finfo(np.float32).eps)
    for k in range(n):
        a, b, c = v[poly[k]], v[poly[(k + 1) % n]], v[poly[(k + 2) % n]]
        e0 = b - a
        e1 = c - b
        cx = abs(e0[1] * e1[2] - e0[2] * e1[1])
        cy = abs(e0[2] * e1[0] - e0[0] * e1[2])
        cz = abs(e0[0] * e1[1] - e0[1] * e1[0])
        if cx > eps or cy > eps or cz > eps:
            if cx > cy and cx > cz:
                return 1, 2
            if cz > cx and cz > cy:
                return 0, 1
            return 0, 2
    return 1, 2


def _obj_ears(x: np.ndarray, y: np.ndarray, rest: np.ndarray, cursor: int, offsets: np.ndarray) -> np.ndarray:
    """Which of the candidate triangles at ``cursor + offsets`` (positions in `rest`) are ears.

    Candidate k is the triangle of the remaining corners k, k+1, k+2 (cyclically).  It is refused
    if ``turn * area < 0`` -- ``turn`` is the turn at its middle corner, ``area`` the signed area
    of the triangle spanned by the origin and its first two corners (tinyobjloader's own,
    origin-dependent convexity test) -- or if any other remaining corner lies inside it by
    W. R. Franklin's crossing-number test (``pnpoly``).  All candidates are tested against all
    corners at once with numpy: one call per batch instead of one Python loop per corner is what
    makes a 100-corner face cheap.  Every operation is a float32 operation in the same order as
    the C++ code (numpy does not contract into FMAs either), so the results are bit-identical.
    """
    m = rest.size
    first = cursor + offsets
    tri = rest[(first[:, None] + np.arange(3)) % m]  # (k, 3) corner positions
    tx = x[tri]
    ty = y[tri]
    turn = (tx[:, 1] - tx[:, 0]) * (ty[:, 2] - ty[:, 1]) - (ty[:, 1] - ty[:, 0]) * (tx[:, 2] - tx[:, 1])
    area = (tx[:, 0] * ty[:, 1] - ty[:, 0] * tx[:, 1]) * np.float32(0.5)
    others = rest[(first[:, None] + np.arange(3, m)) % m]  # (k, m-3): every other remaining corner
    px = x[others]
    py = y[others]
    inside = np.zeros(others.shape, dtype=bool)
    for i, j in ((0, 2), (1, 0), (2, 1)):  # pnpoly's edge order
        xi, yi = tx[:, i : i + 1], ty[:, i : i + 1]
        xj, yj = tx[:, j : j + 1], ty[:, j : j + 1]
        # where the straddle test fails the quotient (maybe 0/0) is unused, as C never computes it
        inside ^= ((yi > py) != (yj > py)) & (px < (xj - xi) * (py - yi) / (yj - yi) + xi)
    return ~(turn * area < np.float32(0.0)) & ~inside.any(axis=1)


def _obj_ear_clip(poly: list[int], v: np.ndarray) -> list[tuple[int, int, int]]:
    """tinyobjloader's built-in ear clipping of a polygon with 5 to 100 corners.

    The polygon is projected onto a coordinate plane (:func:`_obj_projection_axes`).  A cursor
    starts at the first corner; the candidate (cursor, cursor+1, cursor+2) of the remaining
    corners is cut off if it is an ear (:func:`_obj_ears`), removing the middle corner and keeping
    the cursor's position in the list (a cursor that was on the last corner wraps to the first);
    otherwise the cursor advances.  The last triangle is emitted only if exactly three corners
    remain, so a polygon that cannot be clipped loses its remaining part.

    tinyobjloader bounds the loop with a budget of tries, checked before each try: it starts at
    n and drops by one on each try, except that the first try after a cut resets it to the
    number m of remaining corners.  So a round (the tries between two cuts) gives up after every
    remaining candidate failed (m + 1 tries; the last repeats the first).  And in the first round
    only n tries fit, so an ear found on the n-th (the candidate starting at the last corner) is
    cut and then the loop stops, leaving n - 1 corners unclipped: a quirk kept here.

    Each round tests its candidates in batches with numpy, in the order tinyobjloader tries
    them, and cuts the first ear: the same triangles in the same order, without a Python step
    per candidate and corner.
    """
    ax, ay = _obj_projection_axes(poly, v)
    corners = np.asarray(poly, dtype=np.int64)
    x = v[corners, ax]
    y = v[corners, ay]
    rest = np.arange(corners.size)  # positions (into poly) of the remaining corners, in order
    out: list[tuple[int, int, int]] = []
    cursor = 0
    first_round = True
    while rest.size > 3:
        m = rest.size
        cut = -1
        start = 0
        batch = 1  # a convex polygon's first candidate is usually an ear: try it alone first
        while start < m and cut < 0:
            stop = min(m, start + batch)
            hits = np.flatnonzero(_obj_ears(x, y, rest, cursor, np.arange(start, stop)))
            if hits.size:
                cut = start + int(hits[0])
            start = stop
            batch *= 4
        if cut < 0:
            break
        first = (cursor + cut) % m
        a, b, c = (int(rest[(first + k) % m]) for k in range(3))
        out.append((poly[a], poly[b], poly[c]))
        rest = np.delete(rest, (first + 1) % m)
        cursor = first  # past the end if it was the last corner: the next modulo wraps it to 0
        if first_round and cut == m - 1:
            break  # the first round's budget ran out on this very try
        first_round = False
    if rest.size == 3:
        out.append((poly[int(rest[0])], poly[int(rest[1])], poly[int(rest[2])]))
    return out
