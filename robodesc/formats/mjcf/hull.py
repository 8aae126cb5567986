"""The convex hull of a point set, as MuJoCo's qhull makes it.

MuJoCo computes a mesh's convex hull with qhull (``mjCMesh::MakeGraph``) for meshes given without
faces, for ``inertia="convex"`` and for collisions. Where SciPy is installed (the ``meshes`` extra)
`convex_hull` runs SciPy's qhull with MuJoCo's options (`qhull_options`), so a ``maxhullvert`` limit
keeps the very vertices MuJoCo keeps (tests/test_mjcf_hull.py). Without SciPy, a numpy quickhull
stands in: the same hull without a limit and with a limit of 4 (the same enclosed volume and inertia
to round-off, a triangulation that may differ where points lie on a facet), only an approximation of
qhull's choice of points for larger limits. Both refuse the degenerate point sets MuJoCo refuses.
"""

from __future__ import annotations

import math

import numpy as np

from .mujoco_math import MJ_MINVAL

__all__ = ["convex_hull", "qhull_options"]


def convex_hull(points: np.ndarray, *, max_vertices: int = -1) -> np.ndarray:
    """Triangulated convex hull of a 3-D point set, faces wound counter-clockwise outward.

    Returned faces index ``points`` (for duplicated points the first occurrence is used).
    Points on a hull facet that are not corners of it are not hull vertices, so the
    triangulation can differ from qhull's, but the enclosed volume and inertia agree to
    round-off.

    ``max_vertices`` (MuJoCo's ``maxhullvert``; ``-1`` = unlimited, otherwise at least 4) is
    qhull's ``Q9 TA<n>`` when SciPy is installed. Without SciPy the numpy quickhull mimics it:
    starting from qhull's initial simplex, repeatedly add the point farthest outside any facet,
    and stop once the hull has that many vertices -- only an approximation of qhull's choice of
    points, so the truncated hull can differ from MuJoCo's when ``max_vertices`` is above 4.

    Raises :class:`ValueError` for fewer than 4 points, non-finite coordinates, or
    co-located, collinear or coplanar point sets (MuJoCo refuses these before calling qhull).
    """
    pts = _checked_points(points, max_vertices)
    # unique points, remembering the first occurrence of each
    _, first = np.unique(pts, axis=0, return_index=True)
    first = np.sort(first)
    upts = pts[first]
    tol = _refuse_degenerate(upts)
    faces = _qhull_faces(upts, max_vertices)
    if faces is None:  # SciPy is not installed: the numpy quickhull
        hull = _Quickhull(upts, tol)
        hull.start(_initial_simplex(upts, tol))
        hull.grow(max_vertices)
        faces = hull.faces_alive()
    return first[faces]


def qhull_options(max_vertices: int) -> str:
    """The qhull options MuJoCo gives (``mjCMesh::MakeGraph``): triangulated output (``Qt``) and,
    with ``maxhullvert`` set, ``Q9 TA<n>``: always add the furthest of the furthest points, and stop
    after adding n = maxhullvert - 4 points to the initial simplex. (MuJoCo's published sources show
    ``Qt TA<n>``; the ``mujoco`` 4.0 package picks the points of ``Q9``, measured.)"""
    return "Qt" if max_vertices == -1 else f"Qt Q9 TA{max_vertices - 4}"


def _qhull_faces(upts: np.ndarray, max_vertices: int) -> np.ndarray | None:
    """The hull qhull makes (SciPy's ``ConvexHull`` with MuJoCo's options, replacing SciPy's
    defaults), its triangles wound outward; None when SciPy is not installed or qhull fails."""
    try:
        from scipy.spatial import ConvexHull  # type: ignore[import-untyped]
    except ImportError:
        return None
    try:
        hull = ConvexHull(upts, qhull_options=qhull_options(max_vertices))
    except Exception:  # a QhullError (precision trouble): the numpy hull decides  # noqa: BLE001
        return None
    faces = np.asarray(hull.simplices, dtype=np.int64).copy()
    a, b, c = upts[faces[:, 0]], upts[faces[:, 1]], upts[faces[:, 2]]
    inward = np.einsum("ij,ij->i", np.cross(b - a, c - a), hull.equations[:, :3]) < 0
    faces[inward] = faces[inward][:, [0, 2, 1]]
    return faces


def _checked_points(points: np.ndarray, max_vertices: int) -> np.ndarray:
    pts = np.asarray(points, dtype=float)
    if pts.ndim != 2 or pts.shape[1] != 3:
        raise ValueError(f"points must have shape (n, 3), got {pts.shape}")
    if pts.shape[0] < 4:
        raise ValueError("at least 4 vertices are required to compute a convex hull")
    if not np.all(np.isfinite(pts)):
        raise ValueError("vertex coordinates must be finite")
    if max_vertices != -1 and max_vertices < 4:
        raise ValueError(f"maxhullvert must be -1 or at least 4, got {max_vertices}")
    return pts


def _refuse_degenerate(upts: np.ndarray) -> float:
    """Refuse co-located, collinear and coplanar points (relative to the size of the set); return
    the distance above a facet at which a point counts as outside it."""
    n = upts.shape[0]
    extent = float(np.max(np.ptp(upts, axis=0)))
    if n < 2 or extent <= MJ_MINVAL:
        raise ValueError("mesh has colocated vertices, cannot compute convex hull")
    scale = max(extent, float(np.max(np.abs(upts))))
    flat = 1e-10 * extent
    rel = upts - upts[0]
    far = int(np.argmax(np.einsum("ij,ij->i", rel, rel)))
    axis = rel[far] / np.linalg.norm(rel[far])
    cr = np.cross(rel, axis)
    dline = np.sqrt(np.einsum("ij,ij->i", cr, cr))
    k2 = int(np.argmax(dline))
    if dline[k2] <= flat:
        raise ValueError("mesh has collinear vertices, cannot compute convex hull")
    nrm = np.cross(axis, rel[k2])
    nrm /= np.linalg.norm(nrm)
    if float(np.max(np.abs(rel @ nrm))) <= flat:
        raise ValueError("mesh has coplanar vertices, cannot compute convex hull")
    return 1e-12 * scale


def _initial_simplex(pts: np.ndarray, tol: float) -> list[int]:
    """Initial simplex chosen the way qhull's ``qh_maxsimplex`` does.

    Start from the points of minimum and maximum x; add the point maximising the area of
    the triangle projected onto the xy plane, then the one maximising the tetrahedron
    volume -- first among the extreme points of each coordinate, then among all points if
    those give a degenerate simplex.
    """
    n = pts.shape[0]
    extreme: list[int] = []
    for k in range(3):
        for idx in (int(np.argmin(pts[:, k])), int(np.argmax(pts[:, k]))):
            if idx not in extreme:
                extreme.append(idx)
    simplex = [int(np.argmin(pts[:, 0]))]
    i1 = int(np.argmax(pts[:, 0]))
    if i1 == simplex[0]:
        raise ValueError("mesh has colocated vertices, cannot compute convex hull")
    simplex.append(i1)
    for k in (2, 3):
        base = pts[simplex]

        def dets(idx: np.ndarray, base: np.ndarray = base, k: int = k) -> np.ndarray:
            rows = base[None, :, :k] - pts[idx][:, None, :k]  # (m, k, k)
            return np.abs(np.linalg.det(rows))

        cand = np.array([i for i in extreme if i not in simplex], dtype=np.int64)
        best, bestdet = -1, 0.0
        if cand.size:
            d = dets(cand)
            j = int(np.argmax(d))
            best, bestdet = int(cand[j]), float(d[j])
        # qhull falls back to all points when the extreme points give a (nearly) flat simplex
        ext = float(np.max(np.ptp(pts, axis=0)))
        if best < 0 or bestdet <= 1e-6 * ext**k:
            allidx = np.array([i for i in range(n) if i not in simplex], dtype=np.int64)
            d = dets(allidx)
            j = int(np.argmax(d))
            if float(d[j]) > bestdet:
                best, bestdet = int(allidx[j]), float(d[j])
        simplex.append(best)
    return simplex


class _Quickhull:
    """The hull while it grows: triangles (a face dies when a new point sees it), each face's
    outward plane, the points still outside each face and the farthest of them."""

    def __init__(self, upts: np.ndarray, tol: float) -> None:
        self.upts = upts
        self.coords: list[list[float]] = upts.tolist()  # the same points as plain floats, for add_face
        self.tol = tol
        self.faces: list[tuple[int, int, int]] = []
        self.normals: list[np.ndarray] = []
        self.offsets: list[float] = []
        self.alive: list[bool] = []
        self.edge_face: dict[tuple[int, int], int] = {}  # directed edge -> the live face that has it
        self.outside: dict[int, np.ndarray] = {}  # face -> points above it
        self.furthest: dict[int, tuple[float, int]] = {}  # face -> (distance, point) farthest above it
        self.vert_use: dict[int, int] = {}  # hull vertex -> how many live faces use it
        self.pending: list[int] = []  # faces with outside points, newest last

    def start(self, simplex: list[int]) -> None:
        """The initial tetrahedron, wound outward, with every other point assigned to a face."""
        upts = self.upts
        i0, i1, i2, i3 = simplex
        side = float(np.dot(np.cross(upts[i1] - upts[i0], upts[i2] - upts[i0]), upts[i3] - upts[i0]))
        if side > 0:  # make (i0, i1, i2) face away from i3
            tri = [(i0, i2, i1), (i0, i1, i3), (i1, i2, i3), (i2, i0, i3)]
        else:
            tri = [(i0, i1, i2), (i0, i3, i1), (i1, i3, i2), (i2, i3, i0)]
        new_ids = [self.add_face(*t) for t in tri]
        mask = np.ones(upts.shape[0], dtype=bool)
        mask[[i0, i1, i2, i3]] = False
        self.assign(np.nonzero(mask)[0], new_ids)
        self.pending = [f for f in new_ids if f in self.outside]

    def grow(self, max_vertices: int) -> None:
        """Add the farthest outside point of a face until no point is outside (or, with a vertex
        limit, until the hull has that many vertices)."""
        limited = max_vertices > 0
        while self.outside:
            if limited:
                if len(self.vert_use) >= max_vertices:
                    break
                f = max(self.outside, key=lambda g: self.furthest[g][0])  # qhull Q9: furthest of all
            else:
                f = self._next_pending()
                if f < 0:
                    break
            self.add_point(f, self.furthest[f][1])

    def _next_pending(self) -> int:
        while self.pending:
            g = self.pending.pop()
            if self.alive[g] and g in self.outside:
                return g
        return -1

    def add_point(self, f: int, p: int) -> None:
        """Replace the faces point `p` sees (starting from face `f`) by a cone from `p` to their horizon."""
        visible = self.visible_from(f, p)
        horizon = []
        for g in visible:
            a, b, c = self.faces[g]
            for e0, e1 in ((a, b), (b, c), (c, a)):
                if self.edge_face.get((e1, e0)) not in visible:
                    horizon.append((e0, e1))
        cands = []
        for g in visible:
            if g in self.outside:
                cands.append(self.outside.pop(g))
                del self.furthest[g]
        for g in visible:
            self.kill_face(g)
        new_ids = [self.add_face(e0, e1, p) for e0, e1 in horizon]
        if cands:
            allc = np.concatenate(cands)
            self.assign(allc[allc != p], new_ids)
        self.pending.extend(fid for fid in new_ids if fid in self.outside)

    def visible_from(self, f: int, p: int) -> set[int]:
        """The faces connected to `f` that point `p` lies strictly above."""
        ptp = self.upts[p]
        visible = {f}
        stack = [f]
        while stack:
            g = stack.pop()
            a, b, c = self.faces[g]
            for e0, e1 in ((a, b), (b, c), (c, a)):
                h = self.edge_face.get((e1, e0))
                if h is None or h in visible:
                    continue
                if float(ptp @ self.normals[h]) - self.offsets[h] > self.tol:
                    visible.add(h)
                    stack.append(h)
        return visible

    def add_face(self, a: int, b: int, c: int) -> int:
        upts, coords = self.upts, self.coords
        # the normal in plain floats (np.cross on one pair of 3-vectors costs tens of microseconds)
        (ax, ay, az), (bx, by, bz), (cx, cy, cz) = coords[a], coords[b], coords[c]
        ux, uy, uz, vx, vy, vz = bx - ax, by - ay, bz - az, cx - ax, cy - ay, cz - az
        nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
        ln = math.sqrt(nx * nx + ny * ny + nz * nz)
        nv = np.array((nx / ln, ny / ln, nz / ln) if ln > 0 else (nx, ny, nz))
        fid = len(self.faces)
        self.faces.append((a, b, c))
        self.normals.append(nv)
        self.offsets.append(float(nv @ upts[a]))
        self.alive.append(True)
        self.edge_face[(a, b)] = fid
        self.edge_face[(b, c)] = fid
        self.edge_face[(c, a)] = fid
        for v in (a, b, c):
            self.vert_use[v] = self.vert_use.get(v, 0) + 1
        return fid

    def kill_face(self, g: int) -> None:
        self.alive[g] = False
        a, b, c = self.faces[g]
        for e in ((a, b), (b, c), (c, a)):
            if self.edge_face.get(e) == g:
                del self.edge_face[e]
        for v in (a, b, c):
            self.vert_use[v] -= 1
            if self.vert_use[v] == 0:
                del self.vert_use[v]

    def assign(self, cands: np.ndarray, fids: list[int]) -> None:
        """Give each candidate point to the face it lies farthest above (if above any by more than tol)."""
        if cands.size == 0 or not fids:
            return
        nmat = np.array([self.normals[f] for f in fids])
        off = np.array([self.offsets[f] for f in fids])
        dist = self.upts[cands] @ nmat.T - off
        best = np.argmax(dist, axis=1)
        bestd = dist[np.arange(cands.size), best]
        keep = bestd > self.tol
        for k in np.unique(best[keep]):
            sel = keep & (best == k)
            fid = fids[int(k)]
            self.outside[fid] = cands[sel]
            j = int(np.argmax(bestd[sel]))
            self.furthest[fid] = (float(bestd[sel][j]), int(cands[sel][j]))

    def faces_alive(self) -> np.ndarray:
        return np.array([self.faces[i] for i in range(len(self.faces)) if self.alive[i]], dtype=np.int64)
