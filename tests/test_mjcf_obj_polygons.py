"""OBJ polygons (faces of five or more corners) triangulated as MuJoCo 4.0 does, checked against MuJoCo.

MuJoCo reads OBJ files with tinyobjloader, which drops every face of more than 100 corners and
ear-clips the others in float32 (giving up on what it cannot clip).  Each case below writes a
pyramid whose base is one such polygon (plus side triangles to an apex) and compares robodesc's
body mass and principal moments with MuJoCo's: vertices are float32 on both sides, so the
numbers agree to rounding.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path

import numpy as np
import pytest

import robodesc
from robodesc.formats.mjcf import meshfiles

try:
    import mujoco
except ImportError:  # pragma: no cover - the differential tests need it
    mujoco = None

needs_mujoco = pytest.mark.skipif(mujoco is None, reason="needs the mujoco package")

REL = 1e-12
XML = (
    '<mujoco><asset><mesh name="m" file="{file}"/></asset><worldbody><body name="b"><joint/>'
    '<geom type="mesh" mesh="m"/></body></worldbody></mujoco>'
)

Point = tuple[float, float, float]


def _star(n: int, center: tuple[float, float] = (0.0, 0.0)) -> list[Point]:
    """n corners in the z=0 plane, alternately at radius 1 and 0.6 (concave for n >= 6)."""
    cx, cy = center
    out = []
    for i in range(n):
        r = 1.0 if i % 2 == 0 else 0.6
        a = 2 * math.pi * i / n
        out.append((cx + r * math.cos(a), cy + r * math.sin(a), 0.0))
    return out


def _regular(n: int) -> list[Point]:
    return [(math.cos(2 * math.pi * i / n), math.sin(2 * math.pi * i / n), 0.0) for i in range(n)]


def _comb(teeth: int) -> list[Point]:
    """A concave comb (counter-clockwise): a base 1 high with `teeth` teeth 1 wide reaching up to 2."""
    out: list[Point] = [(0.0, 0.0, 0.0), (2.0 * teeth - 1.0, 0.0, 0.0)]
    for t in reversed(range(teeth)):
        out += [(2.0 * t + 1.0, 2.0, 0.0), (2.0 * t, 2.0, 0.0)]
        if t:
            out += [(2.0 * t, 1.0, 0.0), (2.0 * t - 1.0, 1.0, 0.0)]
    return out


def _zigzag(n: int) -> list[Point]:
    """A self-intersecting polygon: corners alternate between two far apart arcs."""
    return [((-1.0) ** i * (1.0 + 0.01 * i), 0.3 * math.sin(i), 0.0) for i in range(n)]


def _rotate(points: list[Point], axes: str) -> list[Point]:
    """The same polygon in another coordinate plane (so another projection is chosen)."""
    if axes == "yz":
        return [(z, x, y) for x, y, z in points]
    return [(x, z, y) for x, y, z in points]  # "xz"


def _pyramid_obj(ring: list[Point], apex: Point, *, reverse: bool = False, wavy: float = 0.0) -> str:
    """An OBJ file: the ring as one polygon face plus a triangle from each edge to the apex."""
    n = len(ring)
    lines = []
    for i, (x, y, z) in enumerate(ring):
        lines.append(f"v {x:.9g} {y:.9g} {z + wavy * math.sin(3 * i):.9g}")
    lines.append("v {:.9g} {:.9g} {:.9g}".format(*apex))
    order = list(range(1, n + 1))
    lines.append("f " + " ".join(map(str, order[::-1] if reverse else order)))
    lines += [f"f {i + 1} {(i + 1) % n + 1} {n + 1}" for i in range(n)]
    return "\n".join(lines) + "\n"


def _write(tmp_path: Path, obj: str) -> Path:
    (tmp_path / "poly.obj").write_text(obj)
    xml = tmp_path / "model.xml"
    xml.write_text(XML.format(file="poly.obj"))
    return xml


def _assert_same_as_mujoco(xml: Path) -> int:
    """Compare mass, principal moments and the triangle count with MuJoCo's; return the count."""
    expected = mujoco.MjModel.from_xml_path(str(xml))
    inertial = robodesc.load(str(xml)).bodies["b"].inertial
    assert inertial.mass == pytest.approx(float(expected.body_mass[1]), rel=REL)
    moments = np.sort(np.linalg.eigvalsh(np.asarray(inertial.inertia, dtype=float)))
    np.testing.assert_allclose(moments, np.sort(expected.body_inertia[1]), rtol=REL, atol=0)
    _, faces = meshfiles.load_mesh_file(str(xml.parent / "poly.obj"))
    assert faces is not None
    assert faces.shape[0] == int(expected.mesh_facenum[0])
    return int(faces.shape[0])


@needs_mujoco
@pytest.mark.parametrize("n", [6, 7, 50, 99, 100, 101, 150, 300, 1000])
def test_star_polygons_match_mujoco(tmp_path, n):
    triangles = _assert_same_as_mujoco(_write(tmp_path, _pyramid_obj(_star(n), (0.0, 0.0, 1.0))))
    # up to 100 corners the star is clipped whole; beyond, the face is dropped (sides only)
    assert triangles == (2 * n - 2 if n <= 100 else n)


@needs_mujoco
@pytest.mark.parametrize("n", [12, 100, 101])
def test_convex_polygons_match_mujoco(tmp_path, n):
    triangles = _assert_same_as_mujoco(_write(tmp_path, _pyramid_obj(_regular(n), (0.0, 0.0, 1.0))))
    assert triangles == (2 * n - 2 if n <= 100 else n)


@needs_mujoco
@pytest.mark.parametrize(
    ("case", "obj"),
    [
        ("yz plane", _pyramid_obj(_rotate(_star(40), "yz"), (1.0, 0.0, 0.0))),
        ("xz plane", _pyramid_obj(_rotate(_star(40), "xz"), (0.0, 1.0, 0.0))),
        ("clockwise", _pyramid_obj(_star(40), (0.0, 0.0, 1.0), reverse=True)),
        ("non-planar", _pyramid_obj(_star(40), (0.0, 0.0, 1.0), wavy=0.05)),
        ("tilted non-planar", _pyramid_obj(_rotate(_star(30), "yz"), (1.5, 0.0, 0.0), wavy=0.2)),
        ("concave comb", _pyramid_obj(_comb(6), (5.0, 1.0, 3.0))),
        ("concave comb, clockwise", _pyramid_obj(_comb(6), (5.0, 1.0, 3.0), reverse=True)),
    ],
)
def test_other_polygons_match_mujoco(tmp_path, case, obj):
    _assert_same_as_mujoco(_write(tmp_path, obj))


@needs_mujoco
@pytest.mark.parametrize(
    ("case", "ring", "apex"),
    [
        # tinyobjloader's convexity test measures area from the origin: off-centre it refuses ears
        ("star away from the origin", _star(24, center=(3.0, 2.0)), (3.0, 2.0, 1.0)),
        ("self-intersecting", _zigzag(30), (0.0, 0.0, 1.0)),
    ],
)
def test_polygons_that_cannot_be_fully_clipped_match_mujoco(tmp_path, case, ring, apex):
    triangles = _assert_same_as_mujoco(_write(tmp_path, _pyramid_obj(ring, apex)))
    n = len(ring)
    assert n < triangles < 2 * n - 2, "the case should clip part of the polygon, not all of it"


@needs_mujoco
@pytest.mark.parametrize(
    ("case", "corners", "clipped"),
    [
        # the first ear is the candidate starting at the last corner: tinyobjloader's budget for
        # its first round runs out on that very try, so it cuts that one triangle and stops
        ("first round ends on its last try", [(3, 3), (-1, -3), (3, 1), (1, -2), (0, 2), (2, 0)], 1),
        # after a cut, every remaining candidate is tried before giving up (here the last one)
        ("a round tries every candidate", [(-3, 1), (-2, -4), (3, 1), (0, -1), (4, 3), (1, -3)], 4),
    ],
)
def test_the_clipping_budget_matches_mujoco(tmp_path, case, corners, clipped):
    ring = [(float(x), float(y), 0.0) for x, y in corners]
    triangles = _assert_same_as_mujoco(_write(tmp_path, _pyramid_obj(ring, (0.0, 0.0, 1.0))))
    assert triangles == len(ring) + clipped


@needs_mujoco
def test_float32_rounding_decides_as_in_mujoco(tmp_path):
    # a small polygon far from the origin: tinyobjloader's origin-based area test cancels
    # catastrophically: in float32 the polygon is clipped whole, in float64 it would stop after two
    corners = [
        (1305.439453125, 2336.517333984375),
        (1305.435546875, 2336.517822265625),
        (1305.43115234375, 2336.5205078125),
        (1305.4271240234375, 2336.5126953125),
        (1305.4342041015625, 2336.511962890625),
        (1305.434326171875, 2336.5126953125),
        (1305.4361572265625, 2336.51025390625),
    ]
    ring = [(x, y, 0.0) for x, y in corners]
    triangles = _assert_same_as_mujoco(_write(tmp_path, _pyramid_obj(ring, (1305.434, 2336.515, 0.01))))
    assert triangles == len(ring) + 5


# a hexagon in which tinyobjloader's ear clipping finds no ear at all
_UNCLIPPABLE = [
    (-4.0, -4.0, 0.0),
    (-2.0, 3.0, 0.0),
    (-4.0, -3.0, 0.0),
    (3.0, -2.0, 0.0),
    (-4.0, 2.0, 0.0),
    (-3.0, -1.0, 0.0),
]


@needs_mujoco
@pytest.mark.parametrize("key", ["g", "o"])
@pytest.mark.parametrize(
    ("case", "ring", "tetra_group_first"),
    [
        ("a face of 101 corners (dropped)", _regular(101), True),
        ("a polygon that gives no triangle", _UNCLIPPABLE, True),
        # (not flat, so that alone it still has a volume)
        (
            "a polygon that gives triangles",
            [(x, y, 0.5 * math.sin(3 * i)) for i, (x, y, _) in enumerate(_star(12))],
            False,
        ),
    ],
)
def test_a_group_whose_faces_give_no_triangle_is_not_the_first_shape(tmp_path, key, case, ring, tetra_group_first):
    tetra = [(2.0, 0.0, 0.0), (0.0, 2.0, 0.0), (0.0, 0.0, 2.0), (0.0, 0.0, 0.0)]
    lines = ["v {:.9g} {:.9g} {:.9g}".format(*p) for p in ring + tetra]
    t = [len(ring) + k for k in range(1, 5)]
    lines += [f"{key} polygon", "f " + " ".join(str(i + 1) for i in range(len(ring))), f"{key} tetra"]
    lines += [
        f"f {t[3]} {t[1]} {t[0]}",
        f"f {t[3]} {t[0]} {t[2]}",
        f"f {t[3]} {t[2]} {t[1]}",
        f"f {t[0]} {t[1]} {t[2]}",
    ]
    xml = _write(tmp_path, "\n".join(lines) + "\n")
    expected = mujoco.MjModel.from_xml_path(str(xml))
    # MuJoCo uses tinyobjloader's first shape: the tetrahedron's group when the first gave nothing
    assert (int(expected.mesh_facenum[0]) == 4) == tetra_group_first
    assert robodesc.load(str(xml)).bodies["b"].inertial.mass == pytest.approx(float(expected.body_mass[1]), rel=REL)


def test_a_4000_corner_face_loads_in_bounded_time(tmp_path):
    n = 4000
    path = tmp_path / "big.obj"
    path.write_text(_pyramid_obj(_star(n), (0.0, 0.0, 1.0)))
    result: list[np.ndarray | None] = []
    worker = threading.Thread(target=lambda: result.append(meshfiles.load_mesh_file(str(path))[1]), daemon=True)
    worker.start()
    worker.join(timeout=20.0)
    assert not worker.is_alive(), "a 4,000-corner face took more than 20 s"
    faces = result[0]
    assert faces is not None and faces.shape == (n, 3)  # the side triangles only: the face is dropped


_TETRAHEDRON = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 5 5 5\nv 6 6 6\n"
_TETRAHEDRON_FACES = "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"


@needs_mujoco
@pytest.mark.parametrize(
    ("first", "second", "kept"),
    [("g", "g", False), ("o", "g", False), ("o", "o", True), ("g", "o", True)],
)
def test_a_first_shape_of_lines_only_ends_as_tinyobjloader_ends_it(tmp_path, first, second, kept):
    """Lines alone make a first shape when an object (`o`) follows, not when a group (`g`) does:
    then the next shape's faces are the mesh; else the mesh is the lines, which MuJoCo refuses."""
    obj = f"{_TETRAHEDRON}{first} a\nl 5 6\n{second} b\n{_TETRAHEDRON_FACES}"
    xml = _write(tmp_path, obj)
    if kept:
        with pytest.raises(ValueError, match="surface area is too small"):
            mujoco.MjModel.from_xml_path(str(xml))
        with pytest.raises(robodesc.InvalidValue):
            robodesc.load(str(xml))
    else:
        assert _assert_same_as_mujoco(xml) == 4
