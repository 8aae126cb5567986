"""``<flexcomp>``: the bodies and joints MuJoCo generates for a soft body, a cloth or a cable.

MuJoCo expands a flexcomp while it reads the model (``mjCFlexcomp::Make``). It lays out points
(a grid, the surface of a box, cylinder or ellipsoid, a square or disc, a circle, the vertices of a
mesh or GMSH file, or points written out), places them with the flexcomp's pose, and gives every
point that is not pinned a body of its own: a child of the flexcomp's body at the point, named
``NAME_i``, with mass ``mass / points``, a small diagonal inertia set by ``inertiabox``, and slide
joints (three; two for ``dof="2d"``; one along the radius for ``dof="radial"``) taking the joint
defaults of the class in force. With ``dof="trilinear"`` or ``"quadratic"`` the points stay in the
parent body and the bodies (``NAME_i_j_k``) sit at the nodes of a grid over the points' bounding
box. A stiff cable also gets a twist body with a hinge per edge, hung from the world body
(``_twist_count``, ``_twist_bodies``). A rigid flexcomp, or one pinned everywhere, adds no body.

robodesc generates the same bodies in the same place in the tree, so forward kinematics, qpos
order, keyframes and masses agree with MuJoCo's, and refuses what MuJoCo refuses here with its
messages. The element itself (its flex: elements, elasticity, contact) is kept as written.

Every rule below was checked against MuJoCo 4.0.0 (tests/test_mjcf_flexcomp.py), which differs in
places from older versions: a two-dimensional box, cylinder or ellipsoid is open at the top, and
interpolated node masses are scaled to add up to ``mass``.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ...core.diagnostics import Severity
from ...core.errors import InvalidValue, MalformedValue, MissingAttribute, ResourceNotFound
from ...core.transforms import IDENTITY, make_pose
from ..xml import Element
from . import meshfiles
from .attributes import Attributes
from .elements import generated_joint
from .mujoco_math import MJ_MINVAL
from .prepare import asset_path
from .records import IDENTITY_ROTATION, BodySpec, JointSpec, Principal

TYPES = ("grid", "box", "cylinder", "ellipsoid", "square", "disc", "circle", "mesh", "gmsh", "direct")
DOFS = ("full", "radial", "trilinear", "quadratic", "2d")
#: Types whose points come from a file or are written out; their unused points are dropped.
_DIRECT = ("mesh", "gmsh", "direct")
_INTERPOLATED = ("trilinear", "quadratic")
_EPS = 1e-6  # MuJoCo's mjEPS
#: At most this many points or nodes per flexcomp: a guard against counts that would take minutes and
#: gigabytes to expand (MuJoCo itself has no limit).
MAX_POINTS = 1_000_000
#: The slide axes MuJoCo gives a vertex body, by dof.
_SLIDES = {"full": ((1, 0, 0), (0, 1, 0), (0, 0, 1)), "2d": ((1, 0, 0), (0, 1, 0))}


@dataclass
class _Flexcomp:
    """The settings of one ``<flexcomp>``, with MuJoCo's defaults."""

    name: str  # the flex's: attach prefix, name, replicate suffix
    stem: str  # attach prefix and name: MuJoCo names the bodies it generates STEM_..., then adds the suffix
    suffix: str  # the indices of the enclosing <replicate>s
    type: str
    dof: str
    dim: int
    has_dim: bool
    count: list[int]
    spacing: list[float]
    scale: list[float]
    mass: float
    inertiabox: float
    radius: float
    margin: float
    rigid: bool
    cellcount: list[int]
    elastic2d: bool  # an <elasticity elastic2d> other than "none": an interpolated flex is a shell
    thickness: float  # of <elasticity>; MuJoCo's default -1
    young: float  # of <elasticity>: a cable with stiffness gets a twist hinge per edge
    section: str  # of <elasticity>: "circle" (MuJoCo's default) or "box"
    sectionsize: list[float]  # of <elasticity>: the two half-widths of a box section
    edge_stiffness: float  # of <edge>
    pins: dict[str, list[int]] = field(default_factory=dict)  # id, range, grid, gridrange: all <pin>s


def flexcomp_bodies(
    read: Attributes, element: Element, parent: BodySpec, frame: np.ndarray, active: str | None
) -> tuple[list[BodySpec], bool, list[BodySpec]]:
    """The bodies MuJoCo adds to `parent` for the ``<flexcomp>`` `element`; whether the flex is
    held by `parent` (a point or node pinned to it, or rigid): MuJoCo refuses a flex that is not when
    a joint moves `parent` (`check_held`); and the twist bodies it adds to the world body, which
    follow the top-level body the flexcomp is in (or its vertex bodies, right in ``<worldbody>``).
    `frame` is the pose of the enclosing ``<frame>``s in the body, `active` the childclass in force."""
    fc = _settings(read, element)
    fail = _failer(read, element)
    if parent.name.startswith("<unnamed ") or _in_replicate(read, element):
        raise fail("Parent body must have name", "give the flexcomp's body a name")
    active = _class_at_body(read, element, active)
    _check_settings(fc, fail)
    points, elements = _layout(read, element, fc, fail)
    _check_pins(fc, fail)
    if not len(points) or elements is not None and not elements.size:
        raise fail("Point and element required")
    if elements is not None:
        _check_elements(elements, len(points), fail)
    if fc.type in _DIRECT:
        points = points * np.array(fc.scale)
    pose = read.placed_pose(element, element.attrib, frame)
    points = points @ pose[:3, :3].T + pose[:3, 3]
    box = points.min(axis=0), points.max(axis=0)  # of every point, used or not (MuJoCo's order)
    fill = _cell_fill(fc, points, elements, box)
    # MuJoCo's node weights are full-cell weights where every cell is full or empty (and for a shell)
    empty = fill <= _EMPTY if fill is not None and ((fill >= _FULL) | (fill <= _EMPTY)).all() else None
    pinned = _pinned(fc, len(points), fail)
    if fc.type in _DIRECT and elements is not None:  # points no element uses are dropped
        used = np.zeros(len(points), dtype=bool)
        used[elements.ravel()] = True
        if not used.all():
            keep = np.flatnonzero(used)
            points = points[keep]
            # MuJoCo compacts the flags in place, then keeps max(points, nodes) of them
            compacted = pinned.copy()
            compacted[: len(keep)] = pinned[keep]
            pinned = compacted[: max(len(keep), _node_count(fc))]
    _check_flex(fc, len(points), elements, fail)
    if fc.rigid:
        return [], True, []
    _check_elasticity(fc, fail)
    twists = _twist_count(read, element, fc, elements, fail)
    if fc.dof in _INTERPOLATED:
        _note_interpolated_mesh(read, element, fc, empty is not None)
        bodies = _node_bodies(read, element, fc, box, pinned, None if fc.elastic2d else empty, active)
        return bodies, bool(pinned[: _node_count(fc)].any()), []
    bodies = _vertex_bodies(read, element, fc, points, pinned, active)
    return bodies, bool(pinned[: len(points)].any()), _twist_bodies(read, element, fc, twists)


def _class_at_body(read: Attributes, element: Element, active: str | None) -> str | None:
    """The childclass in force at the flexcomp's body, which MuJoCo gives the joints it generates:
    the childclass of a ``<frame>`` between the body and the flexcomp does not count (`active`, the
    class in force at the flexcomp, is it unless such a frame has one)."""
    document = read.scope.document
    above = document.parent_of(element)
    overridden = False
    while above is not None and above.tag == "frame":
        overridden = overridden or "childclass" in above.attrib
        above = document.parent_of(above)
    while overridden and above is not None:  # the body's own, or the nearest one above it
        if "childclass" in above.attrib:
            return above.get("childclass")
        above = document.parent_of(above)
    return None if overridden else active


def _in_replicate(read: Attributes, element: Element) -> bool:
    """Whether `element` sits in a ``<replicate>`` with no body in between (frames aside): MuJoCo reads
    a replicate's contents into an unnamed body, so such a flexcomp's parent has no name."""
    document = read.scope.document
    above = document.parent_of(element)
    while above is not None and above.tag == "frame":
        above = document.parent_of(above)
    return above is not None and above.tag == "replicate"


def check_held(world: BodySpec, unheld: list[tuple[str, Callable[[str], Exception]]]) -> None:
    """Refuse, as MuJoCo does, a flex none of whose points or nodes is pinned to its body when that
    body or one above it has joints: MuJoCo names the nearest such body. `unheld` lists the bodies
    of those flexes with an error factory located at their ``<flexcomp>``."""
    if not unheld:
        return
    parents: dict[str, BodySpec | None] = {world.name: None}
    specs = {world.name: world}
    stack = [world]
    while stack:
        body = stack.pop()
        for item in body.items:
            if isinstance(item, BodySpec):
                parents[item.name], specs[item.name] = body, item
                stack.append(item)
    for name, error in unheld:
        above: BodySpec | None = specs[name]
        while above is not None:
            if any(isinstance(item, JointSpec) for item in above.items):
                raise error(f"body {above.name!r} has joints but no flex vertices/nodes are pinned to it")
            above = parents[above.name]


# -- settings -------------------------------------------------------------------------------------
def _failer(read: Attributes, element: Element):  # noqa: ANN202 - a local error factory
    def fail(message: str, suggestion: str | None = None, kind: type = InvalidValue) -> Exception:
        return read.error(kind, element, message, construct="flexcomp", suggestion=suggestion)

    return fail


def _ints(read: Attributes, element: Element, name: str, count: int | None, default: list[int]) -> list[int]:
    """Whole numbers of attribute `name` (MuJoCo reads them with its integer parser)."""
    values = read.floats(element, element.attrib, name, count, None)
    if values is None:
        return default
    if not all(math.isfinite(v) and v == int(v) for v in values):
        raise read.error(
            MalformedValue,
            element,
            f"attribute {name!r} of <{element.tag}> must hold whole numbers",
            construct=f"{element.tag}/@{name}",
        )
    return [int(v) for v in values]


def _settings(read: Attributes, element: Element) -> _Flexcomp:
    attrs = element.attrib
    name = attrs.get("name")
    if not name:
        raise read.error(
            MissingAttribute,
            element,
            "required attribute missing: 'name'",
            construct="flexcomp/@name",
            suggestion='name the flexcomp: its bodies are named after it (name="cloth" gives cloth_0, ...)',
        )

    def number(key: str, default: float) -> float:
        return read.floats(element, attrs, key, 1, [default])[0]

    fc = _Flexcomp(
        name=read.prefix + name + read.suffix,
        stem=read.prefix + name,
        suffix=read.suffix,
        type=read.keyword(element, attrs, "type", TYPES, "mesh" if attrs.get("mesh") else "grid"),  # as MuJoCo
        dof=read.keyword(element, attrs, "dof", DOFS, "full"),
        dim=_ints(read, element, "dim", 1, [2])[0],
        has_dim="dim" in attrs,
        count=_ints(read, element, "count", 3, [10, 10, 10]),
        spacing=read.floats(element, attrs, "spacing", 3, [0.02, 0.02, 0.02]),
        scale=read.floats(element, attrs, "scale", 3, [1.0, 1.0, 1.0]),
        mass=number("mass", 1.0),
        inertiabox=number("inertiabox", 0.005),
        radius=number("radius", 0.005),
        margin=0.0,
        rigid=read.boolean(element, attrs, "rigid", False),
        cellcount=_ints(read, element, "cellcount", 3, [-1, -1, -1]),
        elastic2d=False,
        thickness=-1.0,
        young=0.0,
        section="circle",
        sectionsize=[0.0, 0.0],
        edge_stiffness=0.0,
    )
    for child in element:
        if child.tag == "contact":
            fc.margin = read.floats(child, child.attrib, "margin", 1, [0.0])[0]
        elif child.tag == "elasticity":
            keyword = read.keyword(child, child.attrib, "elastic2d", ("none", "bend", "stretch", "both"), "none")
            fc.elastic2d = keyword != "none"
            fc.thickness = read.floats(child, child.attrib, "thickness", 1, [-1.0])[0]
            fc.young = read.floats(child, child.attrib, "young", 1, [0.0])[0]
            fc.section = child.get("section", "circle")
            fc.sectionsize = read.floats(child, child.attrib, "sectionsize", 2, [0.0, 0.0])
        elif child.tag == "edge":
            fc.edge_stiffness = read.floats(child, child.attrib, "stiffness", 1, [0.0])[0]
        elif child.tag == "pin":
            for key in ("id", "range", "grid", "gridrange"):
                fc.pins.setdefault(key, []).extend(_ints(read, child, key, None, []))
    return fc


def _check_settings(fc: _Flexcomp, fail) -> None:  # noqa: ANN001
    """MuJoCo's checks before it lays out the points, in its order."""
    if not 1 <= fc.dim <= 3:
        raise fail("Invalid dim, must be between 1 and 3")
    if any(c < 1 or (fc.dof == "radial" and c < 2 and fc.dim == 3) for c in fc.count):
        raise fail("Count too small", "give count at least 1 in each direction (2 for a radial 3D flexcomp)")
    if fc.type not in _DIRECT and min(fc.spacing) < 2 * fc.radius + fc.margin:
        raise fail("Spacing must be larger than geometry size", "make spacing at least 2 * radius + margin")
    if min(fc.scale) < MJ_MINVAL:
        raise fail("Scale must be larger than mjMINVAL")
    if fc.mass < MJ_MINVAL or fc.inertiabox < MJ_MINVAL:
        raise fail("Mass and inertiabox must be larger than mjMINVAL")
    if fc.type not in _DIRECT and math.prod(fc.count) > MAX_POINTS:
        raise fail(
            f"count {' '.join(map(str, fc.count))} makes more than {MAX_POINTS:,} points",
            "robodesc expands at most a million points per flexcomp; use a coarser count",
        )


def _check_pins(fc: _Flexcomp, fail) -> None:  # noqa: ANN001
    pins, dim = fc.pins, fc.dim
    grid, gridrange = pins.get("grid", []), pins.get("gridrange", [])
    if len(pins.get("range", [])) % 2:
        raise fail("Pin range number must be multiple of 2")
    if len(grid) % dim:
        raise fail("Pin grid number must be multiple of dim")
    if len(gridrange) % (2 * dim):
        raise fail("Pin grid range number of must be multiple of 2*dim")
    if fc.type != "grid" and (grid or gridrange) and fc.dof not in _INTERPOLATED:
        raise fail("Pin grid(range) can only be used with grid or interpolated")
    if dim == 1 and (grid or gridrange):
        raise fail("Pin grid(range) cannot be used with dim=1")


def _check_flex(fc: _Flexcomp, npoints: int, elements: np.ndarray | None, fail) -> None:  # noqa: ANN001
    """MuJoCo's checks of the flex it makes (after unused points are dropped), rigid or not."""
    if npoints < fc.dim + 1:
        raise fail("not enough vertices", f"a {fc.dim}D flex needs at least {fc.dim + 1} points its elements use")
    if elements is not None and elements.shape[1] > 1:
        ordered = np.sort(elements, axis=1)
        if (ordered[:, 1:] == ordered[:, :-1]).any():
            raise fail("repeated vertex in element", "name each point of an element once")


def _check_elasticity(fc: _Flexcomp, fail) -> None:  # noqa: ANN001
    """MuJoCo's checks of a flex's stiffness, once its dimension is known (a file's, or forced)."""
    if fc.edge_stiffness and fc.dim != 1:
        raise fail("edge stiffness only available for dim=1, please use <elasticity>")
    if fc.elastic2d and fc.thickness <= 0:
        raise fail("2d elasticity requires positive thickness", 'add thickness="..." to <elasticity>')
    if fc.elastic2d and fc.dim != 2 and fc.dof not in _INTERPOLATED:
        raise fail("2d elasticity requires 2d flex", 'remove elastic2d, or use dim="2"')


def _check_elements(elements: np.ndarray, npoints: int, fail) -> None:  # noqa: ANN001
    flat = elements.ravel()
    bad = np.flatnonzero((flat < 0) | (flat >= npoints))
    if bad.size:
        i = int(bad[0])
        raise fail(f"element {i} has point id {int(flat[i])}, number of points is {npoints}")


# -- points ---------------------------------------------------------------------------------------
def _layout(read: Attributes, element: Element, fc: _Flexcomp, fail) -> tuple[np.ndarray, np.ndarray | None]:  # noqa: ANN001
    """The points ((n, 3), before the flexcomp's pose) and, where MuJoCo checks them, the elements
    ((m, dim + 1) point ids); None where the layout makes only valid elements."""
    if "mesh" in element.attrib and fc.type not in ("mesh", "gmsh"):
        raise fail("mesh asset can only be used with flexcomp type mesh or gmsh")
    if fc.type in ("grid", "circle"):
        return _grid(fc, fail)
    if fc.type in ("box", "cylinder", "ellipsoid"):
        return _box(fc, fail), None
    if fc.type in ("square", "disc"):
        fc.dim = 2
        points, elements = _grid(fc, fail)
        if fc.type == "disc":
            size = 0.5 * np.array(fc.spacing[:2]) * (np.array(fc.count[:2]) - 1)
            flat = points[:, :2]
            reach = np.abs(flat).max(axis=1, keepdims=True)
            points[:, :2] = _normalised(flat) * size * reach
        return points, elements
    if fc.type == "direct":
        values = read.floats(element, element.attrib, "point", None, [])
        if len(values) % 3:
            raise fail("Point size must be a multiple of 3")
        ids = _ints(read, element, "element", None, [])
        if ids and len(ids) % (fc.dim + 1):
            raise fail("Element size must be a multiple of dim+1")
        return np.array(values, dtype=float).reshape(-1, 3), np.array(ids, dtype=np.int64).reshape(-1, fc.dim + 1)
    return _from_file(read, element, fc, fail)


def _normalised(vectors: np.ndarray) -> np.ndarray:
    """Each row scaled to unit length; rows shorter than mjMINVAL are left as they are (mjuu_normvec)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.where(norms > MJ_MINVAL, vectors / np.where(norms > MJ_MINVAL, norms, 1.0), vectors)


def _grid(fc: _Flexcomp, fail) -> tuple[np.ndarray, np.ndarray | None]:  # noqa: ANN001
    """A grid of points spaced `spacing` apart and centred (a ring for a one-dimensional circle),
    with its edges, triangles or tetrahedra."""
    c0, c1, c2 = fc.count
    s0, s1, s2 = fc.spacing
    if fc.dim == 1:
        if fc.type == "circle":
            n = max(c0 - 1, 0)
            theta = 2 * math.pi / (c0 - 1) if c0 > 1 else 0.0
            radius = s0 / math.sin(theta / 2) / 2 if n else 0.0
            angles = theta * np.arange(n)
            points = np.stack([radius * np.cos(angles), radius * np.sin(angles), np.zeros(n)], axis=1)
            ends = np.arange(n)
            elements = np.stack([ends, np.where(ends == n - 1, 0, ends + 1)], axis=1)
        else:
            points = np.zeros((c0, 3))
            points[:, 0] = s0 * (np.arange(c0) - 0.5 * (c0 - 1))
            starts = np.arange(c0 - 1)
            elements = np.stack([starts, starts + 1], axis=1)
    elif fc.dim == 2:
        ix, iy = (a.ravel() for a in np.meshgrid(np.arange(c0), np.arange(c1), indexing="ij"))
        points = np.stack([s0 * (ix - 0.5 * (c0 - 1)), s1 * (iy - 0.5 * (c1 - 1)), np.zeros(ix.size)], axis=1)
        cell = (ix < c0 - 1) & (iy < c1 - 1)
        x, y = ix[cell], iy[cell]
        quad = np.stack(
            [
                c2 * c1 * x + c2 * y,
                c2 * c1 * (x + 1) + c2 * y,
                c2 * c1 * (x + 1) + c2 * (y + 1),
                c2 * c1 * x + c2 * (y + 1),
            ],
            axis=1,
        )
        first, second = quad[:, [0, 1, 2]], quad[:, [0, 2, 3]]
        if fc.type == "disc":  # MuJoCo turns the diagonal of the cells in two opposite quadrants
            px, py = points[cell, 0], points[cell, 1]
            turned = ((px < -_EPS) & (py > -_EPS)) | ((px > -_EPS) & (py < -_EPS))
            first = np.where(turned[:, None], quad[:, [0, 1, 3]], first)
            second = np.where(turned[:, None], quad[:, [1, 2, 3]], second)
        elements = np.stack([first, second], axis=1).reshape(-1, 3)
    else:
        ix, iy, iz = (a.ravel() for a in np.meshgrid(np.arange(c0), np.arange(c1), np.arange(c2), indexing="ij"))
        points = np.stack([s0 * (ix - 0.5 * (c0 - 1)), s1 * (iy - 0.5 * (c1 - 1)), s2 * (iz - 0.5 * (c2 - 1))], axis=1)
        elements = None  # six tetrahedra per cell, all of distinct, valid points: nothing to check
    if elements is None and (c0 - 1) * (c1 - 1) * (c2 - 1) == 0 or elements is not None and not elements.size:
        raise fail("No elements were created in grid", "give count at least 2 along each of the first dim directions")
    return points.astype(float), None if elements is None else elements.astype(np.int64)


def _box(fc: _Flexcomp, fail) -> np.ndarray:  # noqa: ANN001
    """Points on the surface of a box (projected onto a cylinder or ellipsoid for those types), with
    a centre point for a solid (dim 3); MuJoCo 4 leaves the top open for a two-dimensional one."""
    c0, c1, c2 = fc.count
    if min(fc.count) < 2:
        raise fail("No elements were created in box", "give count at least 2 in each direction")
    open_top = fc.dim == 2
    grid: list[tuple[int, int, int]] = [(0, 0, 0)] if fc.dim == 3 else []
    indices: list[tuple[int, int, int]] = []
    for iz in (0, c2 - 1):
        if open_top and iz:
            continue
        indices += [(ix, iy, iz) for ix in range(c0) for iy in range(c1)]
    side_z = range(1, c2 if open_top else c2 - 1)
    for iy in (0, c1 - 1):
        indices += [(ix, iy, iz) for ix in range(c0) for iz in side_z]
    for ix in (0, c0 - 1):
        indices += [(ix, iy, iz) for iy in range(1, c1 - 1) for iz in side_z]
    index = np.array(indices, dtype=float).reshape(-1, 3)
    counts = np.array(fc.count, dtype=float)
    unit = 2.0 * index / (counts - 1) - 1.0
    size = 0.5 * np.array(fc.spacing) * (counts - 1)
    if fc.type == "box":
        points = unit * size
    elif fc.type == "cylinder":
        reach = np.abs(unit[:, :2]).max(axis=1, keepdims=True)
        points = np.concatenate([_normalised(unit[:, :2]) * size[:2] * reach, unit[:, 2:] * size[2]], axis=1)
    else:
        points = _normalised(unit) * size
    return np.concatenate([np.zeros((len(grid), 3)), points]) if grid else points


def _from_file(read: Attributes, element: Element, fc: _Flexcomp, fail) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001
    """The points and elements of a mesh or GMSH file (type mesh or gmsh)."""
    attrs = element.attrib
    file = attrs.get("file")
    asset = attrs.get("mesh")
    if asset:
        mesh = read.resolve(element, read.scope.meshes, read.prefix + asset, "mesh", "declare it in <asset>")
        path = mesh.path
    elif file:
        path = asset_path(read, file, "meshdir", element)
    else:
        path = None
    if not path:
        raise fail("File is required", 'name the file: file="body.obj"', MissingAttribute)
    if fc.type == "gmsh":
        return _gmsh(read, element, fc, path, fail)
    if os.path.splitext(path)[1].lower() == ".msh":
        raise fail("legacy MSH files are not supported in flexcomp", 'use an OBJ or STL file, or type="gmsh"')
    if fc.dim == 3 and "origin" not in attrs:
        raise fail("origin must be specified for mesh flexcomps if dim=3", 'add origin="x y z" inside the mesh')
    try:
        vertices, faces = meshfiles.load_mesh_file(path, read.state.context.limit("mesh"))
    except meshfiles.MeshFileUnreadable as exc:
        raise _unreadable(read, element, fc, "its mesh", str(exc), path) from None
    except meshfiles.MeshFileError as exc:
        raise fail(f"flexcomp {fc.name!r} cannot read {path!r}: {exc}", kind=MalformedValue) from None
    if not len(vertices) or faces is None or not len(faces):
        raise fail("Vertex and face data required")
    points = np.asarray(vertices, dtype=float).reshape(-1, 3)
    faces = np.asarray(faces, dtype=np.int64).reshape(-1, 3)
    if fc.dim == 2:
        return points, faces
    if fc.dim == 1:  # a cable written as degenerate triangles (a, b, b)
        return points, faces[:, :2]
    origin = np.array(read.floats(element, attrs, "origin", 3))
    points = np.concatenate([origin[None, :], points])
    corners = faces + 1
    a, b, c = (points[corners[:, k]] - origin for k in range(3))
    keep = np.einsum("ij,ij->i", np.cross(a, b), c) >= MJ_MINVAL  # tetrahedra of positive volume only
    tets = np.concatenate([np.zeros((int(keep.sum()), 1), dtype=np.int64), corners[keep]], axis=1)
    return points, tets


def _unreadable(read: Attributes, element: Element, fc: _Flexcomp, what: str, why: str, path: str) -> ResourceNotFound:
    return ResourceNotFound(
        f"flexcomp {fc.name!r} cannot read {what}: {why}",
        location=read.where(element),
        construct="flexcomp/@file",
        tried=[path],
        suggestion="check the file name and meshdir/assetdir in <compiler>",
    )


def _gmsh(read: Attributes, element: Element, fc: _Flexcomp, path: str, fail) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001
    try:
        where = read.where(element)
        data = read.state.context.read(path, kind="mesh", what="GMSH file", location=where, construct="flexcomp/@file")
    except OSError as exc:
        raise _unreadable(read, element, fc, "its GMSH file", str(exc.strerror or exc), path) from None
    from . import gmsh  # noqa: PLC0415 - read only for type="gmsh"

    try:
        mesh = gmsh.read_gmsh(data, path)
    except gmsh.GmshError as exc:
        raise fail(f"{exc} ({path})", kind=MalformedValue) from None
    if fc.has_dim and fc.dim != mesh.dim:
        raise fail("flexcomp dim does not match GMSH mesh dimensionality", f'write dim="{mesh.dim}" or leave dim out')
    fc.dim = mesh.dim
    return np.asarray(mesh.nodes, dtype=float), np.asarray(mesh.elements, dtype=np.int64)


# -- pins and bodies ------------------------------------------------------------------------------
def _node_count(fc: _Flexcomp) -> int:
    """How many nodes an interpolated flexcomp has (0 for the others)."""
    if fc.dof not in _INTERPOLATED:
        return 0
    order = 1 if fc.dof == "trilinear" else 2
    cells = fc.cellcount if fc.type in _DIRECT and fc.cellcount[0] >= 0 else [1, 1, 1]
    return math.prod(c * order + 1 for c in cells)


def _pinned(fc: _Flexcomp, npoints: int, fail) -> np.ndarray:  # noqa: ANN001
    """Which points (and, for an interpolated flexcomp, which nodes: MuJoCo keeps both in one array)
    are pinned to the parent body. Sets `fc.rigid` when every point is pinned."""
    nodes = _node_count(fc)
    if nodes > MAX_POINTS:
        raise fail(f"cellcount makes more than {MAX_POINTS:,} nodes", "use fewer cells")
    pinned = np.full(max(npoints, nodes), fc.rigid)
    if fc.rigid:
        return pinned
    pins, dim, count = fc.pins, fc.dim, fc.count
    for i in pins.get("id", []):
        if not 0 <= i < npoints:
            raise fail("pinid out of range", f"pin ids go from 0 to {npoints - 1}")
        pinned[i] = True
    ranges = pins.get("range", [])
    for first, last in zip(ranges[::2], ranges[1::2]):
        if not (0 <= first < npoints and 0 <= last < npoints):
            raise fail("pinrange out of range", f"pin ids go from 0 to {npoints - 1}")
        pinned[first : last + 1] = True
    grid = pins.get("grid", [])
    checked: list[int] = count
    if fc.type != "grid" and fc.dof in _INTERPOLATED:
        checked = [2 if fc.dof == "trilinear" else 3] * 3
    for k in range(0, len(grid), dim):
        cell = grid[k : k + dim]
        if any(not 0 <= cell[j] < checked[j] for j in range(dim)):
            raise fail("pingrid out of range")
        pinned[_grid_id(cell, count)] = True
    gridrange = pins.get("gridrange", [])
    for k in range(0, len(gridrange), 2 * dim):
        bounds = gridrange[k : k + 2 * dim]
        if any(not 0 <= bounds[j] < count[j % dim] for j in range(2 * dim)):
            raise fail("pingridrange out of range")
        axes = [range(bounds[j], bounds[j + dim] + 1) for j in range(dim)]
        for corner in itertools.product(*axes):
            pinned[_grid_id(list(corner), count)] = True
    if fc.dof == "radial":
        pinned[0] = True  # the centre of a radial flexcomp never moves
    if pinned[:npoints].all():
        fc.rigid = True
    return pinned


def _grid_id(cell: list[int], count: list[int]) -> int:
    """The index of a grid point from its grid coordinates (two or three of them)."""
    if len(cell) == 2:
        return int(cell[0]) * count[1] + int(cell[1])
    return int(cell[0]) * count[1] * count[2] + int(cell[1]) * count[2] + int(cell[2])


def _vertex_bodies(
    read: Attributes, element: Element, fc: _Flexcomp, points: np.ndarray, pinned: np.ndarray, active: str | None
) -> list[BodySpec]:
    """A body for every point not pinned, with the slides of `dof`."""
    mass = fc.mass / len(points)
    bodies = []
    for i in np.flatnonzero(~pinned[: len(points)]):
        point = points[i]
        if fc.dof == "radial":
            norm = float(np.linalg.norm(point))
            axes = [tuple(point / norm) if norm > MJ_MINVAL else tuple(point)]
        else:
            axes = list(_SLIDES[fc.dof])
        bodies.append(_body(read, element, f"{fc.stem}_{i}{fc.suffix}", point, mass, fc.inertiabox, axes, active))
    return bodies


def _node_bodies(
    read: Attributes,
    element: Element,
    fc: _Flexcomp,
    box: tuple[np.ndarray, np.ndarray],
    pinned: np.ndarray,
    empty: np.ndarray | None,
    active: str | None,
) -> list[BodySpec]:
    """A body for every node not pinned of the grid over the points' bounding `box` (trilinear: 2
    nodes per cell edge, quadratic: 3), with masses that add up to `mass`: as MuJoCo weighs a grid,
    or cells each full or `empty` (flat, in node order), a node's full-cell weights (trilinear:
    equal; quadratic: Simpson's) summed over its cells that are not empty; the nodes of empty cells
    alone are pinned. MuJoCo gives the nodes of a trilinear shell equal weights."""
    order = 1 if fc.dof == "trilinear" else 2
    cells = fc.cellcount if fc.type in _DIRECT and fc.cellcount[0] >= 0 else [1, 1, 1]
    counts = [c * order + 1 for c in cells]
    low, high = box
    if fc.elastic2d:  # a shell moves only its boundary nodes
        for gi, gj, gk in np.ndindex(*counts):
            inside = 0 < gi < counts[0] - 1 and 0 < gj < counts[1] - 1 and 0 < gk < counts[2] - 1
            if inside:
                pinned[(gi * counts[1] + gj) * counts[2] + gk] = True
    hollow = np.zeros(cells, dtype=bool) if empty is None else empty.reshape(cells)
    share = (0.5, 0.5) if order == 1 else (1 / 6, 2 / 3, 1 / 6)  # a cell's weight of a node, along an axis
    placed: list[tuple[str, np.ndarray, float]] = []
    for idx, node in enumerate(np.ndindex(*counts)):
        if pinned[idx]:
            continue
        around = [range(max(0, (g - 1) // order) if g else 0, min(c - 1, g // order) + 1) for g, c in zip(node, cells)]
        weights = [
            share[node[0] - i * order] * share[node[1] - j * order] * share[node[2] - k * order]
            for i, j, k in itertools.product(*around)
            if not hollow[i, j, k]
        ]
        if not weights:  # in empty cells alone: MuJoCo pins it
            pinned[idx] = True
            continue
        grid = np.array(node, dtype=float) / (np.array(cells, dtype=float) * order)
        position = low + grid * (high - low)
        weight = 1.0 if order == 1 and fc.elastic2d else sum(weights)
        placed.append((f"{fc.stem}_{node[0]}_{node[1]}_{node[2]}{fc.suffix}", position, weight))
    total = sum(weight for _, _, weight in placed)
    scale = fc.mass / total if total > 0 else 1.0
    return [
        _body(read, element, name, position, weight * scale, fc.inertiabox, list(_SLIDES["full"]), active)
        for name, position, weight in placed
    ]


def _body(
    read: Attributes,
    element: Element,
    name: str,
    position: np.ndarray,
    mass: float,
    inertiabox: float,
    axes: list[tuple],
    active: str | None,
) -> BodySpec:
    """A generated body at `position` in its parent, with its explicit inertia and slide joints."""
    read.unique(element, name, "body", read.state.body_names)
    read.state.body_names.add(name)
    pose = make_pose(IDENTITY[:3, :3], position)
    body = BodySpec(name, pose, (IDENTITY_ROTATION, pose[:3, 3].tolist()), read.where(element))
    moment = mass * 2.0 * inertiabox * inertiabox / 3.0
    body.inertial = Principal(mass, np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0]), np.full(3, moment))
    for axis in axes:
        joint = generated_joint(read, element, active, {"type": "slide", "axis": " ".join(map(repr, map(float, axis)))})
        if any(read.sizes(element, joint.attributes, "damping", 3)):
            raise read.error(
                InvalidValue,
                element,
                f"flex vertex/node body {name!r} cannot have joint damping; "
                "use flex elasticity or edge damping instead",
                construct="flexcomp",
                suggestion="remove damping from the joint defaults of the class in force",
            )
        body.items.append(joint)
    return body


#: MuJoCo counts a cell its elements fill this much of as full (its nodes get full-cell weights),
#: and one they fill at most _EMPTY of as empty (nodes of empty cells alone are pinned).
_FULL = 0.9999999
_EMPTY = 1e-12


def _cell_fill(
    fc: _Flexcomp, points: np.ndarray, elements: np.ndarray | None, box: tuple[np.ndarray, np.ndarray]
) -> np.ndarray | None:
    """How much of each cell (flat, in node order) of the grid over an interpolated flexcomp's
    bounding box its tetrahedra fill: the volumes of the tetrahedra clipped to the cell, orientation
    aside and overlaps counted twice, over the cell's. MuJoCo counts a cell filled to `_FULL` as full
    and one filled to at most `_EMPTY` as empty. Tetrahedra inside one cell are summed at once, the
    others clipped; None where this does not apply, or where clipping would take more than time
    linear in the tetrahedra and cells (robodesc then does not decide)."""
    if fc.dof not in _INTERPOLATED or fc.type not in _DIRECT or fc.dim != 3 or elements is None:
        return None
    cells = np.array(fc.cellcount if fc.cellcount[0] >= 0 else [1, 1, 1])
    low, size = box[0], box[1] - box[0]
    if (size <= 0).any() or (cells <= 0).any():
        return None
    step = size / cells
    tets = points[elements]
    first = np.clip(np.floor((tets.min(axis=1) - low) / step + _EPS), 0, cells - 1).astype(np.int64)
    last = np.clip(np.ceil((tets.max(axis=1) - low) / step - _EPS) - 1, 0, cells - 1).astype(np.int64)
    filled = np.zeros(int(np.prod(cells)))
    alone = (first == last).all(axis=1)
    if np.prod(last - first + 1, axis=1)[~alone].sum() > 8 * (len(tets) + len(filled)):
        return None  # many large tetrahedra over many cells
    np.add.at(filled, np.ravel_multi_index(first[alone].T, cells), _volumes(tets[alone]))
    for tet, start, stop in zip(tets[~alone], first[~alone], last[~alone]):
        for cell in itertools.product(*(range(a, b + 1) for a, b in zip(start, stop))):
            corner = low + np.array(cell) * step
            pieces = [tet]
            for axis in range(3):
                pieces = _clip(pieces, axis, corner[axis], False)
                pieces = _clip(pieces, axis, corner[axis] + step[axis], True)
            if pieces:
                filled[np.ravel_multi_index(cell, cells)] += _volumes(np.array(pieces)).sum()
    return filled / float(np.prod(step))


def _volumes(tets: np.ndarray) -> np.ndarray:
    """The volumes of tetrahedra ((n, 4, 3) corners), orientation aside."""
    return np.abs(np.linalg.det(tets[:, 1:] - tets[:, :1])) / 6


def _clip(tets: list[np.ndarray], axis: int, value: float, below: bool) -> list[np.ndarray]:
    """The parts of tetrahedra ((4, 3) corners) on one side of the plane ``x[axis] = value`` (below
    it, or above), as tetrahedra: a corner cut off is one; a tetrahedron less a corner, or split
    through two pairs of corners, is a prism of three."""
    kept = []
    for tet in tets:
        side = (tet[:, axis] - value) * (1.0 if below else -1.0)
        inside = side <= 0
        count = int(inside.sum())
        if count == 4:
            kept.append(tet)
            continue
        if count == 0:
            continue
        ins, outs, near, far = tet[inside], tet[~inside], side[inside], side[~inside]
        cuts = [
            ins[a] + (outs[b] - ins[a]) * (near[a] / (near[a] - far[b])) for a in range(count) for b in range(4 - count)
        ]
        if count == 1:
            kept.append(np.array([ins[0], *cuts]))
            continue
        bottom, top = (ins, cuts) if count == 3 else ((ins[0], cuts[0], cuts[1]), (ins[1], cuts[2], cuts[3]))
        p0, p1, p2 = bottom
        q0, q1, q2 = top
        kept.extend(np.array(t) for t in ((p0, p1, p2, q0), (p1, p2, q0, q1), (p2, q0, q1, q2)))
    return kept


def _note_interpolated_mesh(read: Attributes, element: Element, fc: _Flexcomp, decided: bool) -> None:
    """For points from a mesh, a file or written out, MuJoCo 4 weighs an interpolated flexcomp's
    nodes by a finite-cell fit of the elements clipped against each cell (per cell, at least 0.02
    of the node's full-cell weight) and pins the nodes of cells it finds empty. That fit is not
    reproduced (it differs from exact integrals by about 1e-5): where it decides the weights,
    robodesc weighs the nodes as for full cells and says so. It does not decide them for a shell
    (``elastic2d``: no fit at all), nor for tetrahedra that fill each cell or leave it empty
    (`decided`): there robodesc's weights and pins are MuJoCo's, and nothing is noted."""
    if fc.type in _DIRECT and not fc.elastic2d and not decided:
        read.state.diagnose(
            Severity.WARNING,
            "not-modelled",
            f"flexcomp {fc.name!r}: robodesc weighs the nodes of an interpolated {fc.type} flexcomp as for a "
            "full grid (and gives every cell's nodes a body); MuJoCo weighs them by where the elements fill "
            "each cell and pins the nodes of empty cells",
            read.where(element),
        )


def _twist_count(read: Attributes, element: Element, fc: _Flexcomp, edges: np.ndarray | None, fail) -> int:  # noqa: ANN001
    """How many twist hinges MuJoCo 4 gives this flexcomp: one per edge of a stiff cable (dim 1,
    ``young`` > 0, dof full, not rigid) whose edges make one open chain of at least two edges, none
    otherwise. Refuses, with MuJoCo's messages, the box-section cables MuJoCo refuses. For a box,
    cylinder or ellipsoid laid out as a cable MuJoCo reads its triangles as edges, which robodesc
    does not lay out: it says so and counts none."""
    if fc.dim != 1 or fc.young <= 0:
        return 0
    box = fc.section == "box"
    if box and fc.dof != "full":
        raise fail(
            "1D flexcomp elasticity with box section requires dof='full' so per-edge twist joints can be created",
            'use dof="full"',
        )
    if fc.dof != "full":
        return 0
    if box and min(fc.sectionsize) <= 0:
        raise fail("1D flex elasticity with box section requires positive sectionsize", 'give sectionsize="w h"')
    if edges is None:
        read.state.diagnose(
            Severity.WARNING,
            "not-modelled",
            f"flexcomp {fc.name!r}: MuJoCo adds twist bodies and hinges ({fc.stem}_twist_...) to a {fc.type} cable "
            "whose triangles, read as edges, make an open chain; robodesc does not make them",
            read.where(element),
        )
        return 0
    if _open_chain(edges):
        return len(edges)
    if box:
        raise fail("1D flex elasticity with box section requires an open chain", "make the edges one open chain")
    return 0


def _twist_bodies(read: Attributes, element: Element, fc: _Flexcomp, count: int) -> list[BodySpec]:
    """MuJoCo's `count` twist bodies (``NAME_twist_0`` ... ``NAME_twist_{count-2}``, then
    ``NAME_twist``): children of the world body at its origin, each with a hinge of its name about x
    taking the main class's joint defaults, mass 1e-9 and the polar inertia of an edge's share of
    `mass` (section circle: radius^2 / 2; box: (w^2 + h^2) / 3 of the half-widths). MuJoCo adds them
    to the world body when it reads the flexcomp, so they follow its vertex bodies in ``<worldbody>``,
    or the top-level body it is in (spec.py places them). In an attached file the attachment's frame
    places them but not the file's own frames, which robodesc does not tell apart here: it does not
    make them there, and says so."""
    if not count:
        return []
    # made once, as MuJoCo reads the flexcomp before a <replicate> copies it: no replicate suffix
    names = [f"{fc.stem}_twist_{i}" for i in range(count - 1)] + [f"{fc.stem}_twist"]
    if read.scope is not read.state.prepared_main:
        read.state.diagnose(
            Severity.WARNING,
            "not-modelled",
            f"flexcomp {fc.name!r}: MuJoCo adds {count} twist bodies with a hinge each ({names[0]} ... {names[-1]}), "
            "children of the world body; robodesc makes them only for a flexcomp of the main file",
            read.where(element),
        )
        return []
    if fc.section == "box":
        polar = (fc.sectionsize[0] ** 2 + fc.sectionsize[1] ** 2) / 3
    else:
        polar = fc.radius**2 / 2
    moment = fc.mass / count * polar
    bodies = []
    for name in names:
        read.unique(element, name, "body", read.state.body_names)
        read.state.body_names.add(name)
        body = BodySpec(name, IDENTITY.copy(), (IDENTITY_ROTATION, None), read.where(element))
        body.inertial = Principal(1e-9, np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0]), np.full(3, moment))
        body.items.append(generated_joint(read, element, None, {"type": "hinge", "name": name, "axis": "1 0 0"}))
        bodies.append(body)
    return bodies


def _open_chain(edges: np.ndarray) -> bool:
    """Whether `edges` ((m, 2) point ids) make one open chain of at least two edges: every point on
    at most two edges, and a walk from one end covering them all."""
    degree = np.bincount(edges.ravel())
    npoints = len(degree)
    ends = np.flatnonzero(degree == 1)
    if len(edges) < 2 or degree.max() > 2 or len(ends) != 2:
        return False
    # a point's two neighbours (the one of an end twice): the lower and the higher id
    points, others = edges.ravel(), edges[:, ::-1].ravel()
    low, high = np.full(npoints, npoints), np.full(npoints, -1)
    np.minimum.at(low, points, others)
    np.maximum.at(high, points, others)
    lows, highs = low.tolist(), high.tolist()
    previous, current, last, walked = -1, int(ends[0]), int(ends[1]), 0
    while current != last:
        previous, current = current, highs[current] if lows[current] == previous else lows[current]
        walked += 1
    return walked == len(edges)
