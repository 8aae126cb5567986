"""Meshes as MuJoCo's compiler processes them (``mjCMesh::Process``): the mesh frame (refpos,
refquat, scale), the convex hull where one is needed, volume, centre of mass and principal axes in
the four inertia modes; and what follows from a processed mesh: a mesh geom's mass properties and
pose, and the size of a primitive fitted to it (``mjCMesh::FitGeom``).

Sums run in MuJoCo's order (`seqsum`, not numpy's pairwise sum) and the principal axes come from
MuJoCo's own eigen-solver, so the results match a compiled ``mujoco.MjModel`` to round-off.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...core.inertia import PRIMITIVES
from ...core.transforms import VectorLike
from .hull import convex_hull
from .mujoco_math import MJ_MINVAL, eig3_mesh, frame_accumulate, geom_mass, normvec, quat_to_mat, seqsum

__all__ = [
    "MESH_INERTIA_MODES",
    "MeshData",
    "ProcessedMesh",
    "fit_primitive_to_mesh",
    "mesh_geom_pose",
    "mesh_mass_properties",
    "process_mesh",
]

MESH_INERTIA_MODES = ("legacy", "convex", "exact", "shell")
#: Mesh vertex coordinates beyond this (in either direction, once scaled) are refused: the volume and
#: inertia, which grow with their fifth power, would overflow. (MuJoCo computes infinities and NaNs.)
_MAX_COORDINATE = 1e30
# mjCMesh::Process's tolerance on the triangle inequality of the principal moments
_INEQ_ATOL = 1e-9
_INEQ_RTOL = 1e-6


@dataclass(frozen=True)
class ProcessedMesh:
    """A mesh after MuJoCo's ``mjCMesh::Process``.

    Attributes:
        vertices: (n, 3) vertices in the mesh's final frame: ``refpos``/``refquat``/``scale``
            applied, then moved to the centre of mass and rotated to principal axes.  Same
            order as the input (MuJoCo keeps interior vertices of vertex-only meshes).
            Computed in double precision; MuJoCo stores them as float32 (``mesh_vert``).
        faces: (m, 3) triangles indexing ``vertices`` -- the given faces (with the two last
            columns swapped when ``prod(scale) < 0``, as MuJoCo does), or the convex hull when
            the mesh had no faces (computed on the transformed vertices, wound outward).
        hull_faces: the convex hull's triangles if one was computed (no faces,
            ``inertia_mode == "convex"`` or ``need_hull``), else ``None``.
        volume: the volume, or for ``inertia_mode == "shell"`` the surface area, that
            MuJoCo multiplies by the geom density (``GetVolumeRef``).
        com_offset: (3,) centre of mass in the mesh file frame after refpos/refquat/scale
            (MuJoCo's ``mesh_pos``).
        orientation: (w, x, y, z) principal-axes quaternion in that frame (``mesh_quat``).
            A mesh geom's inertial frame -- and its compiled ``geom_pos``/``geom_quat`` --
            is ``geom_pose @ T(com_offset) @ R(orientation)`` (see :func:`mesh_geom_pose`).
        principal_inertia: (3,) principal moments per unit density, about the centre of
            mass in the ``orientation`` axes; decreasing, except that MuJoCo's mesh
            eigen-solver leaves moments within 1e-7 (relative) of each other unsorted.
        inertia_box: (3,) half-sizes of MuJoCo's equivalent inertia box (``boxsz``), from which
            a mesh geom's inertia is computed.
        aabb: (6,) MuJoCo's ``aamm`` (min xyz, max xyz) of the processed vertices.
        inertia_mode: the mode used.
    """

    vertices: np.ndarray
    faces: np.ndarray
    hull_faces: np.ndarray | None
    volume: float
    com_offset: np.ndarray
    orientation: np.ndarray
    principal_inertia: np.ndarray
    inertia_box: np.ndarray
    aabb: np.ndarray
    inertia_mode: str

    def mass_properties(self, *, density: float | None = None, mass: float | None = None) -> tuple[float, np.ndarray]:
        """Mass and diagonal 3x3 inertia of a mesh geom (see :func:`mesh_mass_properties`)."""
        return mesh_mass_properties(self, density=density, mass=mass)


#: Alias kept for readers that prefer the "data" name.
MeshData = ProcessedMesh


def _triangles(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vectorised ``triangle()`` of user_mesh.cc: (area, unit normal, centroid) per triangle.

    Triangles whose doubled area is below mjMINVAL get area 0 (and an unnormalised normal).
    """
    center = (a + b + c) / 3
    e1 = b - a
    e2 = c - a
    nrm = np.stack(
        [
            e1[:, 1] * e2[:, 2] - e1[:, 2] * e2[:, 1],
            e1[:, 2] * e2[:, 0] - e1[:, 0] * e2[:, 2],
            e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0],
        ],
        axis=1,
    )
    length = np.sqrt(nrm[:, 0] * nrm[:, 0] + nrm[:, 1] * nrm[:, 1] + nrm[:, 2] * nrm[:, 2])
    ok = length >= MJ_MINVAL
    area = np.where(ok, 0.5 * length, 0.0)
    safe = np.where(ok, length, 1.0)
    nrm = np.where(ok[:, None], nrm / safe[:, None], nrm)
    return area, nrm, center


def _dot3(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a[:, 0] * b[:, 0] + a[:, 1] * b[:, 1] + a[:, 2] * b[:, 2]


def process_mesh(
    vertices: np.ndarray,
    faces: np.ndarray | None = None,
    *,
    scale: VectorLike = (1.0, 1.0, 1.0),
    refpos: VectorLike = (0.0, 0.0, 0.0),
    refquat: VectorLike = (1.0, 0.0, 0.0, 0.0),
    inertia_mode: str = "legacy",
    maxhullvert: int = -1,
    need_hull: bool = False,
) -> ProcessedMesh:
    """Process a mesh exactly like MuJoCo's compiler (``mjCMesh::Process``).

    What MuJoCo does, in order:

    1. vertices are stored as float32 (as parsed from XML or read from a file) and
       processed in double; at least 4 are required, all finite; face indices in range;
    2. ``inertia="exact"`` rejects meshes whose faces have inconsistent orientation (a
       directed edge used twice);
    3. a mesh without faces gets the faces of its convex hull (qhull; interior vertices stay
       in the vertex list); ``inertia="convex"`` uses the hull's faces for mass properties;
    4. if ``scale[0]*scale[1]*scale[2] < 0`` the faces are re-wound (columns 1 and 2 swapped);
    5. ``v = scale * (R(refquat)^T (v - refpos))`` (refquat normalised);
    6. the area-weighted face centroid is the apex of the tetrahedra used for the volume
       and the centre of mass; ``legacy`` (MuJoCo's default) takes the absolute volume of
       every tetrahedron, ``exact``/``convex`` signed volumes, ``shell`` triangle areas;
    7. the inertia about the centre of mass (tetrahedra now with apex at the centre of mass;
       the volume or area is recomputed from them) is diagonalised with MuJoCo's Jacobi
       solver; the vertices are moved to the centre of mass and rotated to principal axes.

    ``maxhullvert`` (-1 or >= 4) limits the number of hull vertices.  ``need_hull=True``
    asks for the convex hull even when it is not needed for the mass properties: MuJoCo
    builds it whenever a collidable geom (``contype`` or ``conaffinity`` non-zero) uses the
    mesh, and then rejects meshes whose vertices are co-located, collinear or coplanar
    (e.g. a flat ``inertia="shell"`` mesh is only accepted on visual-only geoms).  Raises
    :class:`ValueError` for invalid or degenerate meshes (too few vertices, surface area or
    volume too small, negative volume from misoriented faces, non-physical inertia...).
    """
    if inertia_mode not in MESH_INERTIA_MODES:
        raise ValueError(f"unknown mesh inertia mode {inertia_mode!r}; expected one of {', '.join(MESH_INERTIA_MODES)}")
    vert = _checked_vertices(vertices)
    face = _checked_faces(faces, vert.shape[0])
    sc = np.asarray(scale, dtype=float).reshape(3)
    rp = np.asarray(refpos, dtype=float).reshape(3)
    rq = np.asarray(refquat, dtype=float).reshape(4)
    if face is not None and inertia_mode == "exact":
        _refuse_inconsistent_orientation(vert, face)
    vert = _transformed(vert, sc, rp, rq)

    hull: np.ndarray | None = None
    if face is None:
        face = hull = convex_hull(vert, max_vertices=maxhullvert)
    else:
        if inertia_mode == "convex" or need_hull:
            hull = convex_hull(vert, max_vertices=maxhullvert)
        if float(sc[0]) * float(sc[1]) * float(sc[2]) < 0:  # Python floats: an overflow is inf, not a warning
            face = face[:, [0, 2, 1]]
    # the faces the mass properties are computed from: the hull's for inertia="convex"
    mass_faces = hull if inertia_mode == "convex" and hull is not None else face

    com = _centre_of_mass(vert, face, mass_faces, inertia_mode)
    total, full = _inertia_about(vert, com, mass_faces, inertia_mode)
    eigval, quat = eig3_mesh(full)
    _refuse_unphysical(eigval)
    out = _in_principal_frame(vert, com, quat)
    return ProcessedMesh(
        vertices=out,
        faces=face.copy(),
        hull_faces=None if hull is None else hull.copy(),
        volume=total,
        com_offset=np.asarray(com, dtype=float).copy(),
        orientation=np.asarray(quat, dtype=float).copy(),
        principal_inertia=np.asarray(eigval, dtype=float).copy(),
        inertia_box=_inertia_box(eigval, total),
        aabb=np.concatenate([out.min(axis=0), out.max(axis=0)]),
        inertia_mode=inertia_mode,
    )


def _checked_vertices(vertices: np.ndarray) -> np.ndarray:
    """The vertices as MuJoCo stores them (float32), in double; at least 4, all finite."""
    v32 = np.asarray(vertices)
    if v32.ndim == 1 and v32.size % 3 == 0:
        v32 = v32.reshape(-1, 3)
    if v32.ndim != 2 or v32.shape[1] != 3:
        raise ValueError(f"mesh vertex data must be a multiple of 3 (got array of shape {np.shape(vertices)})")
    with np.errstate(over="ignore", invalid="ignore"):
        v32 = v32.astype(np.float32)
    if v32.shape[0] < 4:
        raise ValueError("at least 4 vertices required in mesh")
    if not np.all(np.isfinite(v32)):
        bad = int(np.nonzero(~np.all(np.isfinite(v32), axis=1))[0][0])
        raise ValueError(f"mesh vertex coordinate {bad} is not finite")
    return v32.astype(np.float64)


def _checked_faces(faces: np.ndarray | None, nvert: int) -> np.ndarray | None:
    """The faces as whole-number indices of existing vertices, or None when there are none."""
    if faces is None:
        return None
    face = np.asarray(faces)
    if face.size == 0:
        return None
    if face.ndim == 1 and face.size % 3 == 0:
        face = face.reshape(-1, 3)
    if face.ndim != 2 or face.shape[1] != 3:
        raise ValueError(f"mesh face data must be a multiple of 3 (got array of shape {np.shape(faces)})")
    if not np.issubdtype(face.dtype, np.integer):
        if not np.all(np.equal(np.mod(face, 1), 0)):
            raise ValueError("mesh face indices must be integers")
    if face.min() < 0 or face.max() >= nvert:  # checked before the cast, which garbles huge values
        idx = int(np.nonzero((face < 0) | (face >= nvert))[0][0])
        raise ValueError(f"in mesh face {idx}, a vertex index does not exist (mesh has {nvert} vertices)")
    return face.astype(np.int64)


def _refuse_inconsistent_orientation(vert: np.ndarray, face: np.ndarray) -> None:
    """``inertia="exact"``: no directed edge may appear twice (ignoring degenerate faces)."""
    area0, _, _ = _triangles(vert[face[:, 0]], vert[face[:, 1]], vert[face[:, 2]])
    good = face[area0 > math.sqrt(MJ_MINVAL)]
    if good.shape[0]:
        edges = np.concatenate([good[:, [0, 1]], good[:, [1, 2]], good[:, [2, 0]]])
        uniq, counts = np.unique(edges, axis=0, return_counts=True)
        if np.any(counts > 1):
            e = uniq[int(np.argmax(counts > 1))]
            raise ValueError(
                "faces of mesh have inconsistent orientation; please check the faces containing "
                f"the vertices {int(e[0]) + 1} and {int(e[1]) + 1}"
            )


def _transformed(vert: np.ndarray, sc: np.ndarray, rp: np.ndarray, rq: np.ndarray) -> np.ndarray:
    """``v = scale * (R(refquat)^T (v - refpos))``, done before the hull (which it leaves alone)."""
    if np.any(rp != 0):
        vert = vert - rp
    if not (rq[0] == 1 and rq[1] == 0 and rq[2] == 0 and rq[3] == 0):
        mat = quat_to_mat(normvec(rq))
        vert = np.stack(
            [
                mat[0, 0] * vert[:, 0] + mat[1, 0] * vert[:, 1] + mat[2, 0] * vert[:, 2],
                mat[0, 1] * vert[:, 0] + mat[1, 1] * vert[:, 1] + mat[2, 1] * vert[:, 2],
                mat[0, 2] * vert[:, 0] + mat[1, 2] * vert[:, 1] + mat[2, 2] * vert[:, 2],
            ],
            axis=1,
        )
    if np.any(sc != 1):
        with np.errstate(over="ignore"):
            vert = vert * sc
    # volumes and inertias go with the fifth power of the coordinates: beyond this, they overflow
    if np.max(np.abs(vert)) > _MAX_COORDINATE:
        raise ValueError(f"mesh vertex coordinates (once scaled) beyond {_MAX_COORDINATE:g} are too large to use")
    return vert


def _centre_of_mass(vert: np.ndarray, face: np.ndarray, mass_faces: np.ndarray, inertia_mode: str) -> np.ndarray:
    """The centre of mass, from tetrahedra (triangles for a shell) with their apex at the area-weighted
    centroid of the faces; refuses meshes without area or volume."""
    area, _, center = _triangles(vert[face[:, 0]], vert[face[:, 1]], vert[face[:, 2]])
    total_area = float(seqsum(area))
    facecen = seqsum(area[:, None] * center)
    if total_area < MJ_MINVAL:
        raise ValueError("mesh surface area is too small")
    facecen = facecen / total_area
    if inertia_mode == "shell":
        pyr = area
        com_sum = seqsum(pyr[:, None] * (center * 3.0 / 4.0 + facecen / 4.0))
        measure = float(seqsum(pyr))
        if measure < MJ_MINVAL:
            raise ValueError("mesh surface area is too small")
    else:
        vf = mass_faces
        va, vn, vc = _triangles(vert[vf[:, 0]], vert[vf[:, 1]], vert[vf[:, 2]])
        pyr = _dot3(vc - facecen, vn) * va / 3
        if inertia_mode == "legacy":
            pyr = np.abs(pyr)
        measure = float(seqsum(pyr))
        com_sum = seqsum(pyr[:, None] * (vc * 3.0 / 4.0 + facecen / 4.0))
        if measure < MJ_MINVAL:
            if measure < 0:
                raise ValueError("mesh volume is negative (misoriented triangles)")
            raise ValueError("mesh volume is too small; try setting inertia to shell")
    return com_sum / measure if measure >= MJ_MINVAL else com_sum


def _inertia_about(vert: np.ndarray, com: np.ndarray, ifaces: np.ndarray, mode: str) -> tuple[float, np.ndarray]:
    """The volume (area for a shell) recomputed from tetrahedra with their apex at the centre of mass,
    and the 3x3 inertia per unit density about it."""
    cen = vert - com
    d, e, f = cen[ifaces[:, 0]], cen[ifaces[:, 1]], cen[ifaces[:, 2]]
    ia, inrm, icen = _triangles(d, e, f)
    if mode == "shell":
        vol = ia
        cdiv = 12
    else:
        vol = _dot3(icen, inrm) * ia / 3
        cdiv = 20
    if mode == "legacy":
        vol = np.abs(vol)
    total = float(seqsum(vol))
    prods = []
    for j, k in ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)):
        term = (
            2 * (d[:, j] * d[:, k] + e[:, j] * e[:, k] + f[:, j] * f[:, k])
            + d[:, j] * e[:, k]
            + d[:, k] * e[:, j]
            + d[:, j] * f[:, k]
            + d[:, k] * f[:, j]
            + e[:, j] * f[:, k]
            + e[:, k] * f[:, j]
        )
        prods.append(vol / cdiv * term)
    p = seqsum(np.stack(prods, axis=1))
    full = np.array(
        [
            [p[1] + p[2], -p[3], -p[4]],
            [-p[3], p[0] + p[2], -p[5]],
            [-p[4], -p[5], p[0] + p[1]],
        ]
    )
    return total, full


def _refuse_unphysical(eigval: np.ndarray) -> None:
    """Principal moments must be positive and obey the triangle inequality (within tolerance)."""
    if eigval[2] <= 0:
        raise ValueError("eigenvalue of mesh inertia must be positive")
    if (
        eigval[0] + eigval[1] < eigval[2] * (1.0 - _INEQ_RTOL) - _INEQ_ATOL
        or eigval[0] + eigval[2] < eigval[1] * (1.0 - _INEQ_RTOL) - _INEQ_ATOL
        or eigval[1] + eigval[2] < eigval[0] * (1.0 - _INEQ_RTOL) - _INEQ_ATOL
    ):
        raise ValueError("eigenvalues of mesh inertia violate A + B >= C")


def _inertia_box(eigval: np.ndarray, total: float) -> np.ndarray:
    """Half-sizes of the box with the mesh's principal moments per unit volume (MuJoCo's ``boxsz``)."""
    with np.errstate(invalid="ignore"):
        return np.array(
            [
                0.5 * math.sqrt(max(6 * (eigval[1] + eigval[2] - eigval[0]) / total, 0.0)),
                0.5 * math.sqrt(max(6 * (eigval[0] + eigval[2] - eigval[1]) / total, 0.0)),
                0.5 * math.sqrt(max(6 * (eigval[0] + eigval[1] - eigval[2]) / total, 0.0)),
            ]
        )


def _in_principal_frame(vert: np.ndarray, com: np.ndarray, quat: np.ndarray) -> np.ndarray:
    """The vertices moved to the centre of mass and rotated to principal axes."""
    rot = quat_to_mat(np.array([quat[0], -quat[1], -quat[2], -quat[3]]))
    cen = vert - com
    return np.stack(
        [
            rot[0, 0] * cen[:, 0] + rot[0, 1] * cen[:, 1] + rot[0, 2] * cen[:, 2],
            rot[1, 0] * cen[:, 0] + rot[1, 1] * cen[:, 1] + rot[1, 2] * cen[:, 2],
            rot[2, 0] * cen[:, 0] + rot[2, 1] * cen[:, 1] + rot[2, 2] * cen[:, 2],
        ],
        axis=1,
    )


def mesh_mass_properties(
    mesh: ProcessedMesh, *, density: float | None = None, mass: float | None = None
) -> tuple[float, np.ndarray]:
    """Mass and diagonal 3x3 inertia of a mesh geom about its centre of mass.

    The axes are the mesh's principal axes, i.e. the frame ``geom_pose @ T(com_offset) @
    R(orientation)``.  As MuJoCo: ``mass`` if given (massless if the volume is not above
    1e-14), else ``density * mesh.volume`` (default density 1000; for a shell mesh the
    volume is the surface area); then ``I_x = mass * (b_y^2 + b_z^2) / 3`` etc. from the
    equivalent inertia box ``b``, which equals ``mass * principal_inertia / volume``.
    """
    m = geom_mass(mesh.volume, density, mass)
    if m is None:
        return 0.0, np.zeros((3, 3))
    b = mesh.inertia_box
    diag = np.array(
        [
            m * (b[1] * b[1] + b[2] * b[2]) / 3,
            m * (b[0] * b[0] + b[2] * b[2]) / 3,
            m * (b[0] * b[0] + b[1] * b[1]) / 3,
        ]
    )
    return float(m), np.diag(diag)


def mesh_geom_pose(geom_pos: VectorLike, geom_quat: VectorLike, mesh: ProcessedMesh) -> tuple[np.ndarray, np.ndarray]:
    """Compiled pose of a mesh geom: ``geom_pose @ T(mesh.com_offset) @ R(mesh.orientation)``.

    This is MuJoCo's ``geom_pos``/``geom_quat`` for a ``type="mesh"`` geom and the frame in
    which :func:`mesh_mass_properties` is expressed (``mjuu_frameaccum``).
    """
    q = normvec(np.asarray(geom_quat, dtype=float))
    return frame_accumulate(geom_pos, q, mesh.com_offset, mesh.orientation)


def fit_primitive_to_mesh(
    kind: str, mesh: ProcessedMesh, *, fitaabb: bool = False, fitscale: float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Size of a primitive geom that references a mesh (``<geom type="box" mesh="...">``).

    ``mjCMesh::FitGeom``: by default the primitive matches the mesh's equivalent inertia
    box ``b`` -- sphere ``r = mean(b)``; capsule ``r = (b0 + b1) / 2``, half-length
    ``max(0, b2 - r / 2)``; cylinder ``r = (b0 + b1) / 2``, half-height ``b2``; box and
    ellipsoid ``b``.  With ``fitaabb`` it encloses the processed vertices' bounding box
    instead (capsule caps accounted for), and the box centre is added to the offset --
    component-wise to ``com_offset``, exactly as MuJoCo does.  Sizes are multiplied by
    ``fitscale``.

    Returns ``(size (3,), offset_pos, offset_quat)``; the compiled geom pose (also its
    inertial frame) is ``frame_accumulate(geom_pos, geom_quat, offset_pos, offset_quat)``.
    The mass properties are then those of the primitive (:func:`primitive_mass_properties`).
    """
    if kind not in PRIMITIVES:
        raise ValueError(f"invalid geom type {kind!r} in fitting mesh; expected one of {', '.join(PRIMITIVES)}")
    size = np.zeros(3)
    pos = np.asarray(mesh.com_offset, dtype=float).copy()
    if not fitaabb:
        b = mesh.inertia_box
        if kind == "sphere":
            size[0] = (b[0] + b[1] + b[2]) / 3
        elif kind == "capsule":
            size[0] = (b[0] + b[1]) / 2
            size[1] = max(0.0, b[2] - size[0] / 2)
        elif kind == "cylinder":
            size[0] = (b[0] + b[1]) / 2
            size[1] = b[2]
        else:
            size[:] = b
    else:
        aamm = mesh.aabb
        cen = np.array([(aamm[0] + aamm[3]) / 2, (aamm[1] + aamm[4]) / 2, (aamm[2] + aamm[5]) / 2])
        half = np.array([aamm[3] - cen[0], aamm[4] - cen[1], aamm[5] - cen[2]])
        pos = pos + quat_to_mat(mesh.orientation) @ cen
        if kind == "sphere":
            size[0] = float(np.max(half))
        elif kind == "capsule":
            size[0] = max(half[0], half[1])
            size[1] = max(0.0, half[2] - size[0])
        elif kind == "cylinder":
            size[0] = max(half[0], half[1])
            size[1] = half[2]
        else:
            size[:] = half
    return size * float(fitscale), pos, np.asarray(mesh.orientation, dtype=float).copy()
