"""robodesc.formats.mjcf.inertia (and the modules it gathers) against MuJoCo's own compiler (the ``mujoco`` package)."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from robodesc.formats.mjcf import inertia as mi
from robodesc.formats.mjcf.mujoco_math import sym6_to_mat

mujoco = pytest.importorskip("mujoco")

REL = 1e-9


# ------------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------------


def _fmt(values) -> str:
    return " ".join(repr(float(x)) for x in np.ravel(values))


def _ifmt(values) -> str:
    return " ".join(str(int(x)) for x in np.ravel(values))


def _compile(body: str, asset: str = "", compiler: str = "") -> mujoco.MjModel:
    xml = f"<mujoco>{compiler}<asset>{asset}</asset><worldbody><body>{body}</body></worldbody></mujoco>"
    return mujoco.MjModel.from_xml_string(xml)


def _close(actual, expected, rel: float = REL, what: str = "") -> None:
    a = np.asarray(actual, dtype=float)
    e = np.asarray(expected, dtype=float)
    scale = max(float(np.max(np.abs(e))) if e.size else 0.0, 1e-300)
    err = float(np.max(np.abs(a - e))) / scale if e.size else 0.0
    assert err <= rel, f"{what}: relative error {err:.3g} > {rel:g}\n got {a}\n want {e}"


def _quat_close(actual, expected, tol: float = REL, what: str = "quat") -> None:
    a = np.asarray(actual, dtype=float)
    e = np.asarray(expected, dtype=float)
    err = min(np.max(np.abs(a - e)), np.max(np.abs(a + e)))
    assert err <= tol, f"{what}: {err:.3g} > {tol:g}\n got {a}\n want {e}"


def _box_mesh(hx: float = 0.1, hy: float = 0.2, hz: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    v = np.array([[sx * hx, sy * hy, sz * hz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    faces = []
    for a, b, c, d in quads:
        faces += [(a, b, c), (a, c, d)]
    return v, np.array(faces)


def _l_shape() -> tuple[np.ndarray, np.ndarray]:
    """A non-convex L-shaped prism (legacy and exact inertia differ for it)."""
    poly = np.array([[0, 0], [2, 0], [2, 1], [1, 1], [1, 3], [0, 3]], float) * 0.1
    n, h = len(poly), 0.2
    v = np.vstack([np.c_[poly, np.zeros(n)], np.c_[poly, np.full(n, h)]])
    faces = []
    for a, b, c in [(0, 1, 2), (0, 2, 3), (0, 3, 4), (0, 4, 5)]:
        faces += [(a, c, b), (a + n, b + n, c + n)]
    for i in range(n):
        j = (i + 1) % n
        faces += [(i, j, j + n), (i, j + n, i + n)]
    return v, np.array(faces)


def _mesh_asset(v, f=None, **attrs) -> str:
    s = f'<mesh name="m" vertex="{_fmt(v)}"'
    if f is not None:
        s += f' face="{_ifmt(f)}"'
    for key, val in attrs.items():
        s += f' {key}="{_fmt(val) if not isinstance(val, (str, int)) else val}"'
    return s + "/>"


GEOM_POS = (0.1, -0.2, 0.3)
GEOM_QUAT = (0.9, 0.1, -0.2, 0.3)


def _check_mesh(v, f, *, quat_tol=REL, density=None, mass=None, maxhullvert=-1, **kw):
    """Compile one mesh geom in MuJoCo and compare everything process_mesh predicts."""
    mode = kw.get("inertia_mode", "legacy")
    attrs = {"inertia": mode, "maxhullvert": maxhullvert}
    for key in ("scale", "refpos", "refquat"):
        if key in kw:
            attrs[key] = kw[key]
    geom = f'<geom type="mesh" mesh="m" pos="{_fmt(GEOM_POS)}" quat="{_fmt(GEOM_QUAT)}"'
    geom += f' density="{density!r}"' if density is not None else ""
    geom += f' mass="{mass!r}"' if mass is not None else ""
    m = _compile(geom + "/>", _mesh_asset(v, f, **attrs))

    pm = mi.process_mesh(v, f, maxhullvert=maxhullvert, **kw)
    total, inertia = pm.mass_properties(density=density, mass=mass)
    pos, quat = mi.mesh_geom_pose(GEOM_POS, GEOM_QUAT, pm)

    _close(total, m.body_mass[1], what="mass")
    _close(np.diag(inertia), m.body_inertia[1], what="inertia")
    _close(pos, m.body_ipos[1], what="ipos")
    _close(pos, m.geom_pos[0], what="geom_pos")
    np.testing.assert_allclose(pm.com_offset, m.mesh_pos[0], rtol=REL, atol=1e-12)
    _quat_close(quat, m.body_iquat[1], quat_tol, "iquat")
    _quat_close(quat, m.geom_quat[0], quat_tol, "geom_quat")
    _quat_close(pm.orientation, m.mesh_quat[0], quat_tol, "mesh_quat")
    assert pm.vertices.shape[0] == m.mesh_vertnum[0]
    assert pm.faces.shape[0] == m.mesh_facenum[0]
    if quat_tol <= REL:
        # mesh_vert is stored as float32 by MuJoCo
        _close(pm.vertices, m.mesh_vert, rel=1e-6, what="mesh_vert")
    if f is not None:
        np.testing.assert_array_equal(pm.faces, m.mesh_face)
    return pm, m


# ------------------------------------------------------------------------------------------------
# primitives
# ------------------------------------------------------------------------------------------------

PRIMITIVE_SIZES = {
    "sphere": [[0.1], [1.3], [0.02]],
    "capsule": [[0.1, 0.3], [0.5, 0.05], [0.02, 1.0]],
    "cylinder": [[0.1, 0.3], [0.5, 0.05], [0.03, 0.7]],
    "ellipsoid": [[0.1, 0.2, 0.3], [1.0, 0.5, 0.25]],
    "box": [[0.1, 0.2, 0.3], [1.0, 0.5, 0.25]],
}


@pytest.mark.parametrize("kind", sorted(PRIMITIVE_SIZES))
@pytest.mark.parametrize("shell", [False, True])
def test_primitives_match_mujoco(kind, shell):
    for size in PRIMITIVE_SIZES[kind]:
        for density, mass in [(None, None), (750.0, None), (None, 2.5)]:
            attrs = f'type="{kind}" size="{_fmt(size)}"'
            attrs += ' shellinertia="true"' if shell else ""
            attrs += f' density="{density!r}"' if density is not None else ""
            attrs += f' mass="{mass!r}"' if mass is not None else ""
            m = _compile(f"<geom {attrs}/>")
            total, inertia = mi.primitive_mass_properties(kind, size, density=density, mass=mass, shell=shell)
            what = f"{kind} {size} shell={shell} density={density} mass={mass}"
            _close(total, m.body_mass[1], what=what + " mass")
            _close(np.diag(inertia), m.body_inertia[1], what=what + " inertia")
            assert np.count_nonzero(inertia - np.diag(np.diag(inertia))) == 0


def test_primitive_massless_cases():
    # explicit zero mass, zero density, and an explicit mass on a geom of (almost) no volume
    m = _compile(
        '<geom type="sphere" size="0.1" mass="1" pos="1 0 0"/>'
        '<geom type="box" size="1e-15 1 1" mass="1"/>'
        '<geom type="sphere" size="0.2" mass="0"/><geom type="sphere" size="0.2" density="0"/>'
    )
    assert m.body_mass[1] == pytest.approx(1.0, rel=1e-12)
    assert mi.primitive_mass_properties("box", [1e-15, 1, 1], density=None, mass=1.0)[0] == 0.0
    assert mi.primitive_mass_properties("box", [1e-14, 1, 1], density=None, mass=1.0)[0] == 1.0
    assert mi.primitive_mass_properties("sphere", [0.2], density=None, mass=0.0)[0] == 0.0
    assert mi.primitive_mass_properties("sphere", [0.2], density=0.0, mass=None)[0] == 0.0
    # default density is MuJoCo's 1000
    assert mi.primitive_mass_properties("box", [0.5, 0.5, 0.5], density=None, mass=None)[0] == pytest.approx(1000)


def test_primitive_invalid_input():
    with pytest.raises(ValueError):
        mi.primitive_mass_properties("cone", [1], density=None, mass=None)
    with pytest.raises(ValueError):
        mi.primitive_mass_properties("box", [1, 1], density=None, mass=None)
    with pytest.raises(ValueError):
        mi.primitive_mass_properties("sphere", [-1], density=None, mass=None)
    with pytest.raises(ValueError):
        mi.primitive_mass_properties("sphere", [1], density=-1.0, mass=None)


# ------------------------------------------------------------------------------------------------
# meshes
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", mi.MESH_INERTIA_MODES)
def test_box_mesh_with_faces(mode):
    v, f = _box_mesh()
    pm, _ = _check_mesh(v, f, inertia_mode=mode, density=640.0)
    if mode != "shell":
        assert pm.volume == pytest.approx(0.2 * 0.4 * 0.6, rel=1e-6)  # float32 vertices
        expected = 0.048 * np.array([0.4**2 + 0.6**2, 0.2**2 + 0.6**2, 0.2**2 + 0.4**2]) / 12
        np.testing.assert_allclose(pm.principal_inertia, expected, rtol=1e-6)


@pytest.mark.parametrize("mode", mi.MESH_INERTIA_MODES)
def test_vertex_only_mesh_uses_convex_hull(mode):
    # a box with interior points and points on its faces: faces come from the hull
    v, _ = _box_mesh(0.15, 0.1, 0.05)
    rng = np.random.default_rng(3)
    inner = rng.uniform(-1, 1, size=(20, 3)) * [0.15, 0.1, 0.05] * 0.9
    on_face = np.array([[0.15, 0.02, 0.01], [-0.03, 0.1, 0.0]])
    pts = np.vstack([inner[:5], v, inner[5:], on_face])
    pm, m = _check_mesh(pts, None, inertia_mode=mode, mass=2.0)
    assert pm.hull_faces is not None and len(pm.vertices) == len(pts)  # interior vertices are kept


@pytest.mark.parametrize("mode", ["legacy", "shell"])
def test_vertex_only_random_cloud(mode):
    # a hull in general position (its triangles are listed in a different order than qhull's)
    rng = np.random.default_rng(0)
    pts = rng.normal(size=(200, 3)) * [0.3, 0.2, 0.1]
    pm, m = _check_mesh(pts, None, inertia_mode=mode)
    assert {tuple(sorted(t)) for t in pm.faces} == {tuple(sorted(t)) for t in m.mesh_face}


@pytest.mark.parametrize("maxhullvert", [4, 6])
def test_maxhullvert(maxhullvert):
    # small limits pick the same points as qhull; larger ones may not (see convex_hull)
    rng = np.random.default_rng(0)
    pts = rng.normal(size=(200, 3)) * [0.3, 0.2, 0.1]
    pm, _ = _check_mesh(pts, None, maxhullvert=maxhullvert)
    assert len(np.unique(pm.faces)) <= maxhullvert


@pytest.mark.parametrize("mode", mi.MESH_INERTIA_MODES)
def test_non_convex_mesh_all_modes(mode):
    v, f = _l_shape()
    pm, m = _check_mesh(v, f, inertia_mode=mode)
    if mode == "exact":
        assert pm.volume == pytest.approx(0.04 * 0.2, rel=1e-6)
    if mode == "convex":
        assert pm.volume == pytest.approx(0.05 * 0.2, rel=1e-6)


def test_non_convex_modes_differ():
    v, f = _l_shape()
    vols = {mode: mi.process_mesh(v, f, inertia_mode=mode).volume for mode in ("legacy", "exact", "convex")}
    assert vols["exact"] < vols["legacy"] < vols["convex"]


@pytest.mark.parametrize("mode", mi.MESH_INERTIA_MODES)
def test_scaled_mesh_with_refpos_refquat(mode):
    v, f = _l_shape()
    _check_mesh(
        v, f, inertia_mode=mode, density=300.0,
        scale=(1.5, 0.7, 2.0), refpos=(0.05, -0.1, 0.02), refquat=(0.8, 0.2, 0.3, -0.1),
    )  # fmt: skip


@pytest.mark.parametrize("mode", mi.MESH_INERTIA_MODES)
def test_mirrored_mesh(mode):
    v, f = _l_shape()
    pm, _ = _check_mesh(v, f, inertia_mode=mode, mass=3.0, scale=(-1.5, 0.7, 2.0))
    np.testing.assert_array_equal(pm.faces, f[:, [0, 2, 1]])


def test_mesh_geom_explicit_mass_and_zero_density():
    v, f = _box_mesh()
    _check_mesh(v, f, mass=0.25)
    pm = mi.process_mesh(v, f)
    assert pm.mass_properties(density=0.0)[0] == 0.0
    assert pm.mass_properties(mass=0.0)[0] == 0.0


def test_mesh_errors_match_mujoco():
    v, f = _box_mesh()
    flat = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], float)
    flat_faces = np.array([[0, 1, 2], [1, 3, 2]])
    one_flipped = f.copy()
    one_flipped[0] = one_flipped[0][[0, 2, 1]]
    cases = [
        (dict(vertices=v[:3], faces=None), "at least 4 vertices"),
        (dict(vertices=flat, faces=None), "coplanar"),
        (dict(vertices=np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0.0]]), faces=None), "collinear"),
        (dict(vertices=np.ones((5, 3)), faces=None), "colocated"),
        (dict(vertices=v, faces=f[:, [0, 2, 1]], inertia_mode="exact"), "negative"),
        (dict(vertices=v, faces=one_flipped, inertia_mode="exact"), "inconsistent orientation"),
        (dict(vertices=v, faces=f[:1]), "volume is too small"),
        (dict(vertices=flat, faces=flat_faces, inertia_mode="shell", need_hull=True), "coplanar"),
    ]
    for kwargs, message in cases:
        attrs = {"inertia": kwargs.get("inertia_mode", "legacy")}
        with pytest.raises(ValueError, match=message):
            mi.process_mesh(**kwargs)
        with pytest.raises(ValueError, match=message):
            _compile('<geom type="mesh" mesh="m"/>', _mesh_asset(kwargs["vertices"], kwargs["faces"], **attrs))
    with pytest.raises(ValueError, match="does not exist"):
        mi.process_mesh(v, np.array([[0, 1, 9]]))
    with pytest.raises(ValueError, match="not finite"):
        mi.process_mesh(np.vstack([v, [np.nan, 0, 0]]), None)
    # inverted faces are fine for the default (legacy) inertia, as in MuJoCo
    _check_mesh(v, f[:, [0, 2, 1]])
    # a flat shell mesh is accepted on a visual-only geom
    pm = mi.process_mesh(flat, flat_faces, inertia_mode="shell")
    m = _compile(
        '<geom type="mesh" mesh="m" contype="0" conaffinity="0"/>', _mesh_asset(flat, flat_faces, inertia="shell")
    )
    _close(pm.mass_properties()[0], m.body_mass[1], what="flat shell mass")


# ------------------------------------------------------------------------------------------------
# mesh files
# ------------------------------------------------------------------------------------------------


def _write_stl(path, v, f):
    tri = np.asarray(v, np.float32)[f]
    with open(path, "wb") as fh:
        fh.write(b"\0" * 80 + struct.pack("<i", len(f)))
        for t in tri:
            fh.write(np.cross(t[1] - t[0], t[2] - t[0]).astype("<f4").tobytes() + t.astype("<f4").tobytes() + b"\0\0")


def _compile_file(tmp_path, name, **attrs):
    extra = "".join(f' {k}="{v}"' for k, v in attrs.items())
    asset = f'<mesh name="m" file="{name}"{extra}/>'
    return _compile('<geom type="mesh" mesh="m"/>', asset, f'<compiler meshdir="{tmp_path}"/>')


def _compare_file(tmp_path, name, **kw):
    m = _compile_file(tmp_path, name, **{k: _fmt(v) if k == "scale" else v for k, v in kw.items()})
    vert, faces = mi.load_mesh_file(str(tmp_path / name))
    pm = mi.process_mesh(vert, faces, **{("inertia_mode" if k == "inertia" else k): v for k, v in kw.items()})
    total, inertia = pm.mass_properties()
    _close(total, m.body_mass[1], what=f"{name} mass")
    _close(np.diag(inertia), m.body_inertia[1], what=f"{name} inertia")
    np.testing.assert_allclose(pm.com_offset, m.mesh_pos[0], rtol=REL, atol=1e-12)
    _quat_close(pm.orientation, m.mesh_quat[0], what=f"{name} mesh_quat")
    assert len(pm.vertices) == m.mesh_vertnum[0]
    _close(pm.vertices, m.mesh_vert, rel=1e-6, what=f"{name} mesh_vert")
    if faces is not None:
        np.testing.assert_array_equal(pm.faces, m.mesh_face)
    return vert, faces


def test_stl_file(tmp_path):
    v, f = _l_shape()
    _write_stl(tmp_path / "l.stl", v, f)
    vert, faces = _compare_file(tmp_path, "l.stl")
    assert vert.shape == (12, 3) and vert.dtype == np.float32  # 60 corners welded to 12 vertices
    _compare_file(tmp_path, "l.stl", scale=(-1.0, 1.0, 2.0))
    # 0.0 and -0.0 are different vertices for MuJoCo's bit-exact weld
    tri = np.asarray(v, np.float32)[f]
    tri[0, 0] = [-0.0, 0.0, -0.0]
    with open(tmp_path / "neg0.stl", "wb") as fh:
        fh.write(b"\0" * 80 + struct.pack("<i", len(f)))
        for t in tri:
            fh.write(b"\0" * 12 + t.astype("<f4").tobytes() + b"\0\0")
    vert, _ = _compare_file(tmp_path, "neg0.stl")
    assert len(vert) == 13


def test_ascii_stl_rejected(tmp_path):
    v, f = _box_mesh()
    text = "solid x\n" + "".join(
        " facet normal 0 0 0\n  outer loop\n" + "".join(f"   vertex {p[0]} {p[1]} {p[2]}\n" for p in t)
        + "  endloop\n endfacet\n" for t in v[f]
    ) + "endsolid x\n"  # fmt: skip
    (tmp_path / "a.stl").write_text(text)
    with pytest.raises(ValueError, match="ASCII"):
        mi.load_mesh_file(str(tmp_path / "a.stl"))
    with pytest.raises(ValueError, match="ASCII"):
        _compile_file(tmp_path, "a.stl")


def test_obj_files(tmp_path):
    v, _ = _box_mesh()
    v = v.copy()
    v[7] += [0.03, 0.02, 0.05]  # non-planar quads: the split diagonal matters
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    vs = "".join(f"v {float(a)!r} {float(b)!r} {float(c)!r}\n" for a, b, c in v)
    fs = ["f " + " ".join(str(i + 1) for i in q) + "\n" for q in quads]
    (tmp_path / "q.obj").write_text(vs + "".join(fs))
    (tmp_path / "rel.obj").write_text(vs + "vt 0 0\nvn 0 0 1\n" + "".join(
        "f " + " ".join(f"{i - 8}/1/1" for i in q) + "\n" for q in quads))  # fmt: skip
    (tmp_path / "two.obj").write_text(vs + "o a\n" + "".join(fs[:3]) + "o b\n" + "".join(fs[3:]))
    (tmp_path / "vonly.obj").write_text(vs)
    _, faces = _compare_file(tmp_path, "q.obj")
    assert len(faces) == 12
    _compare_file(tmp_path, "rel.obj")
    _, faces = _compare_file(tmp_path, "two.obj", inertia="shell")  # only the first object's faces
    assert len(faces) == 6
    _, faces = _compare_file(tmp_path, "vonly.obj")
    assert faces is None


def _polygon_prism_obj(start: int) -> tuple[str, list[list[int]]]:
    """OBJ text of an L-shaped prism whose faces are polygons: a non-convex, non-planar hexagon at
    the bottom (listed from corner ``start``), an octagon on top and two pentagons among the sides."""
    outline = [(1, 1), (1, 2), (0, 2), (0, 0), (2, 0), (2, 1)]  # starts at the reflex corner
    bz = [0.0, 0.05, -0.03, 0.02, 0.0, -0.04]
    tz = [1.0, 1.1, 0.95, 1.02, 1.0, 1.07]
    verts = [(0.3 + 0.1 * x, -0.2 + 0.1 * y, 0.1 * z) for (x, y), z in zip(outline, bz)]
    verts += [(0.3 + 0.1 * x, -0.2 + 0.1 * y, 0.1 * z) for (x, y), z in zip(outline, tz)]
    verts += [(0.31, -0.1, 0.104), (0.495, -0.15, 0.099)]  # extra top corners 12 and 13, off the edges
    bottom = [5, 4, 3, 2, 1, 0]
    bottom = bottom[start:] + bottom[:start]
    top = [6, 7, 8, 12, 9, 10, 13, 11]
    sides = []
    for i in range(6):
        j = (i + 1) % 6
        sides.append([i, j, 6 + j] + ([12] if i == 2 else [13] if i == 4 else []) + [6 + i])
    polys = [bottom, top, *sides]
    text = "".join(f"v {x!r} {y!r} {z!r}\n" for x, y, z in verts)
    text += "".join("f " + " ".join(str(i + 1) for i in p) + "\n" for p in polys)
    return text, polys


@pytest.mark.parametrize("start", [0, 1])
def test_obj_polygons_triangulated_like_tinyobjloader(tmp_path, start):
    # tinyobjloader's ear clipping (not a fan; with start=0 it even drops part of the hexagon, as MuJoCo does)
    text, polys = _polygon_prism_obj(start)
    (tmp_path / "poly.obj").write_text(text)
    for kw in ({}, {"inertia": "exact"}, {"inertia": "shell"}, {"scale": (-1.0, 1.0, 1.0)}):
        _, faces = _compare_file(tmp_path, "poly.obj", **kw)  # asserts the same faces as mesh_face
    fan = [(p[0], p[k], p[k + 1]) for p in polys for k in range(1, len(p) - 1)]
    assert sorted(map(tuple, faces.tolist())) != sorted(fan)
    if start == 1:
        assert len(faces) == len(fan)  # every polygon completely triangulated, still not as a fan


def test_msh_file(tmp_path):
    v, f = _l_shape()
    with open(tmp_path / "l.msh", "wb") as fh:
        fh.write(struct.pack("<4i", len(v), 0, 0, len(f)) + v.astype("<f4").tobytes() + f.astype("<i4").tobytes())
    _compare_file(tmp_path, "l.msh", inertia="exact")
    (tmp_path / "bad.msh").write_bytes(struct.pack("<4i", 8, 0, 0, 1))
    with pytest.raises(ValueError, match="MSH"):
        mi.load_mesh_file(str(tmp_path / "bad.msh"))


def test_unreadable_files(tmp_path):
    with pytest.raises(ValueError):
        mi.load_mesh_file(str(tmp_path / "missing.stl"))
    (tmp_path / "x.ply").write_bytes(b"ply")
    with pytest.raises(ValueError):
        mi.load_mesh_file(str(tmp_path / "x.ply"))
    (tmp_path / "short.stl").write_bytes(b"\0" * 20)
    with pytest.raises(ValueError):
        mi.load_mesh_file(str(tmp_path / "short.stl"))


# ------------------------------------------------------------------------------------------------
# bodies
# ------------------------------------------------------------------------------------------------


def test_body_accumulation_of_geoms_at_different_poses():
    v, f = _l_shape()
    geoms = [
        dict(kind="box", size=[0.1, 0.2, 0.05], pos=[0.1, 0, 0], quat=[1, 0, 0, 0]),
        dict(kind="capsule", size=[0.03, 0.2], pos=[0, 0.2, 0.1], quat=[0.7, 0.7, 0, 0.1], density=500.0),
        dict(kind="sphere", size=[0.05], pos=[-0.2, 0.1, 0.0], quat=[1, 0, 0, 0], mass=0.7),
        dict(kind="cylinder", size=[0.04, 0.1], pos=[0.05, -0.1, 0.2], quat=[0.3, 0.1, 0.9, -0.2], shell=True),
        dict(kind="ellipsoid", size=[0.04, 0.05, 0.1], pos=[0.3, 0.1, -0.2], quat=[0.5, -0.5, 0.5, 0.5]),
        dict(kind="mesh", pos=[0.0, 0.05, -0.1], quat=[0.5, 0.5, -0.5, 0.1], density=800.0),
    ]
    pm = mi.process_mesh(v, f)
    xml, parts, parts3 = "", [], []
    for g in geoms:
        attrs = f'type="{g["kind"]}" pos="{_fmt(g["pos"])}" quat="{_fmt(g["quat"])}"'
        attrs += ' mesh="m"' if g["kind"] == "mesh" else f' size="{_fmt(g["size"])}"'
        attrs += ' shellinertia="true"' if g.get("shell") else ""
        attrs += f' density="{g["density"]!r}"' if "density" in g else ""
        attrs += f' mass="{g["mass"]!r}"' if "mass" in g else ""
        xml += f"<geom {attrs}/>"
        if g["kind"] == "mesh":
            mass, inertia = pm.mass_properties(density=g.get("density"))
            pos, quat = mi.mesh_geom_pose(g["pos"], g["quat"], pm)
        else:
            mass, inertia = mi.primitive_mass_properties(
                g["kind"], g["size"], density=g.get("density"), mass=g.get("mass"), shell=g.get("shell", False)
            )
            pos = np.asarray(g["pos"], float)
            quat = np.asarray(g["quat"], float) / np.linalg.norm(g["quat"])
        parts.append((mass, pos, quat, np.diag(inertia)))
        rot = mi.quat_to_mat(quat)
        parts3.append((mass, pos, rot @ inertia @ rot.T))
    m = _compile(xml, _mesh_asset(v, f))

    body = mi.combine_geoms(parts)
    _close(body.mass, m.body_mass[1], what="mass")
    _close(body.pos, m.body_ipos[1], what="ipos")
    _close(body.inertia, m.body_inertia[1], what="inertia")
    _quat_close(body.quat, m.body_iquat[1], what="iquat")

    mass, com, full = mi.combine(parts3)
    moments, iquat = mi.principal_axes(full)
    _close(mass, m.body_mass[1], what="combine mass")
    _close(com, m.body_ipos[1], what="combine com")
    _close(moments, m.body_inertia[1], what="combine moments")
    _quat_close(iquat, m.body_iquat[1], what="combine iquat")
    rot = mi.quat_to_mat(m.body_iquat[1])
    _close(full, rot @ np.diag(m.body_inertia[1]) @ rot.T, what="full inertia")


def test_single_geom_body_is_copied():
    mass, inertia = mi.primitive_mass_properties("box", [0.1, 0.2, 0.3], density=None, mass=None)
    quat = np.array([0.5, 0.5, 0.5, 0.5])
    body = mi.combine_geoms([(mass, [1, 2, 3], quat, np.diag(inertia))])
    m = _compile(f'<geom type="box" size="0.1 0.2 0.3" pos="1 2 3" quat="{_fmt(quat)}"/>')
    _close(body.pos, m.body_ipos[1])
    _quat_close(body.quat, m.body_iquat[1])
    _close(body.inertia, m.body_inertia[1])
    with pytest.raises(ValueError, match="mass is too small"):
        mi.combine_geoms([(0.0, [0, 0, 0], [1, 0, 0, 0], [0, 0, 0])] * 2)


def test_principal_axes_match_fullinertia():
    rng = np.random.default_rng(7)
    fulls, xml = [], ""
    for _ in range(40):
        q = rng.normal(size=4)
        rot = mi.quat_to_mat(q / np.linalg.norm(q))
        s = np.exp(rng.uniform(-2.5, 0, 3))
        a = rot @ np.diag([s[1] ** 2 + s[2] ** 2, s[0] ** 2 + s[2] ** 2, s[0] ** 2 + s[1] ** 2]) @ rot.T
        full = [a[0, 0], a[1, 1], a[2, 2], a[0, 1], a[0, 2], a[1, 2]]
        fulls.append(full)
        xml += f'<body><inertial pos="0 0 0" mass="1" fullinertia="{_fmt(full)}"/></body>'
    m = mujoco.MjModel.from_xml_string(f"<mujoco><worldbody>{xml}</worldbody></mujoco>")
    for i, full in enumerate(fulls):
        moments, quat = mi.principal_axes(sym6_to_mat(np.array(full)))
        _close(moments, m.body_inertia[i + 1], what="moments")
        _quat_close(quat, m.body_iquat[i + 1], tol=1e-12)


def test_bound_balance_and_settotalmass(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo 4 logs a deprecation warning for settotalmass to ./MUJOCO_LOG.TXT
    full = np.array([[0.3, 0.01, 0.02], [0.01, 0.2, 0.03], [0.02, 0.03, 0.1]])
    bodies = [
        '<body><geom type="sphere" size="0.01"/></body>',
        '<body pos="1 0 0"><inertial pos="0 0 0" mass="0.5" diaginertia="1 1 3"/></body>',
        '<body pos="2 0 0"><geom type="capsule" size="0.05 0.3" density="500"/></body>',
        '<body pos="3 0 0"><inertial pos="0 0 0" mass="0.001" fullinertia="0.3 0.2 0.1 0.01 0.02 0.03"/></body>',
    ]
    compiler = '<compiler boundmass="0.01" boundinertia="0.0001" balanceinertia="true" settotalmass="7"/>'
    m = mujoco.MjModel.from_xml_string(f"<mujoco>{compiler}<worldbody>{''.join(bodies)}</worldbody></mujoco>")
    raw = [
        mi.primitive_mass_properties("sphere", [0.01], density=None, mass=None),
        (0.5, np.diag([1.0, 1.0, 3.0])),
        mi.primitive_mass_properties("capsule", [0.05, 0.3], density=500.0, mass=None),
        (0.001, np.diag(mi.principal_axes(full)[0])),
    ]
    masses, moments = [], []
    for mass, inertia in raw:
        mass, diag = mi.bound_and_balance(
            mass, np.diag(inertia), boundmass=0.01, boundinertia=1e-4, balanceinertia=True
        )
        masses.append(mass)
        moments.append(diag)
    masses, moments = mi.set_total_mass(masses, moments, 7.0)
    _close(masses, m.body_mass[1:], what="masses")
    _close(np.array(moments), m.body_inertia[1:], what="moments")
    assert sum(masses) == pytest.approx(7.0)
    # 3x3 input keeps its axes; triangle inequality violations are errors without balanceinertia
    _, bounded = mi.bound_and_balance(0.001, full, boundinertia=0.15)
    assert np.linalg.eigvalsh(bounded).min() == pytest.approx(0.15)
    with pytest.raises(ValueError, match="A \\+ B >= C"):
        mi.bound_and_balance(1.0, np.array([1.0, 1.0, 3.0]))


@pytest.mark.parametrize("fitaabb", [False, True])
def test_primitive_fitted_to_mesh(fitaabb):
    v, f = _l_shape()
    pm = mi.process_mesh(v, f)
    for kind in mi.PRIMITIVE_KINDS:
        geom = f'<geom type="{kind}" mesh="m" fitscale="1.3" pos="{_fmt(GEOM_POS)}" quat="{_fmt(GEOM_QUAT)}"/>'
        m = _compile(geom, _mesh_asset(v, f), f'<compiler fitaabb="{str(fitaabb).lower()}"/>')
        size, off_pos, off_quat = mi.fit_primitive_to_mesh(kind, pm, fitaabb=fitaabb, fitscale=1.3)
        pos, quat = mi.frame_accumulate(GEOM_POS, np.asarray(GEOM_QUAT) / np.linalg.norm(GEOM_QUAT), off_pos, off_quat)
        n = {"sphere": 1, "capsule": 2, "cylinder": 2}.get(kind, 3)
        _close(size[:n], m.geom_size[0][:n], what=f"{kind} size")
        _close(pos, m.geom_pos[0], what=f"{kind} pos")
        _quat_close(quat, m.geom_quat[0])
        mass, inertia = mi.primitive_mass_properties(kind, size, density=None, mass=None)
        _close(mass, m.body_mass[1], what=f"{kind} mass")
        _close(np.diag(inertia), m.body_inertia[1], what=f"{kind} inertia")


def test_convex_hull_basic():
    v, _ = _box_mesh(0.5, 0.5, 0.5)
    pts = np.vstack([v, np.zeros((1, 3)), v[:2]])  # interior point and duplicates
    faces = mi.convex_hull(pts)
    assert faces.shape == (12, 3)
    assert set(np.unique(faces)) == set(range(8))
    # outward orientation: positive signed volume
    a, b, c = pts[faces[:, 0]], pts[faces[:, 1]], pts[faces[:, 2]]
    assert np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6 == pytest.approx(1.0)
