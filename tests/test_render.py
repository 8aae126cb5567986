"""Pictures without a screen: robodesc.core.render (docs/rendering.md).

Every test renders small handwritten descriptions and asserts on pixels: colours, where shapes
land, framing, views, and the PNG bytes.
"""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
import trimesh

import robodesc
from robodesc.core import render as render_module
from robodesc.core.errors import InvalidArgument, InvalidValue, RobodescError
from robodesc.core.render import VIEWS, encode_png, render, render_scene, write_png

SMALL = (160, 120)
WHITE = np.array([255, 255, 255, 255], np.uint8)


def robot(
    tmp_path: Path,
    scale: float = 1.0,
    sphere_alpha: float = 1.0,
    name: str = "pic.urdf",
) -> robodesc.Model:
    """A red box (0.4 x 0.3 x 0.2) on the base, a blue sphere on a link that slides along y 0.4 above
    it, and a grey collision cylinder on the base (the box's collision shape differs from it)."""
    s = scale
    text = f"""<robot name="pic">
  <material name="red"><color rgba="1 0 0 1"/></material>
  <material name="blue"><color rgba="0 0 1 {sphere_alpha}"/></material>
  <link name="base">
    <visual><geometry><box size="{0.4 * s} {0.3 * s} {0.2 * s}"/></geometry><material name="red"/></visual>
    <collision><geometry><cylinder radius="{0.1 * s}" length="{0.6 * s}"/></geometry></collision>
  </link>
  <link name="arm">
    <visual><geometry><sphere radius="{0.1 * s}"/></geometry><material name="blue"/></visual>
  </link>
  <joint name="slide" type="prismatic"><parent link="base"/><child link="arm"/>
    <origin xyz="0 0 {0.4 * s}"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>"""
    path = tmp_path / name
    path.write_text(text)
    return robodesc.load(path)


def one_box(tmp_path: Path, size: str, rgba: str = "1 0 0 1") -> robodesc.Model:
    path = tmp_path / "box.urdf"
    path.write_text(
        f"""<robot name="b"><link name="base"><visual><geometry><box size="{size}"/></geometry>
        <material name="m"><color rgba="{rgba}"/></material></visual></link></robot>"""
    )
    return robodesc.load(path)


def drawn(image: np.ndarray) -> np.ndarray:
    """Mask of pixels that are not the white background."""
    return np.any(image != WHITE, axis=2)


def reddish(image: np.ndarray) -> np.ndarray:
    r, g, b = (image[..., i].astype(int) for i in range(3))
    return (r > g + 60) & (r > b + 60)


def bluish(image: np.ndarray) -> np.ndarray:
    r, g, b = (image[..., i].astype(int) for i in range(3))
    return (b > r + 60) & (b > g + 60)


def centroid(mask: np.ndarray) -> np.ndarray:
    rows, cols = np.nonzero(mask)
    assert len(rows), "no pixels of that colour"
    return np.array([cols.mean(), rows.mean()])


def test_image_shape_dtype_and_not_blank(tmp_path: Path):
    image = render(robot(tmp_path), size=(200, 100))
    assert image.shape == (100, 200, 4)
    assert image.dtype == np.uint8
    assert drawn(image).sum() > 2000
    assert np.all(image[..., 3] == 255)  # opaque background, opaque robot


def test_colours_and_shading_of_a_box_in_iso_view(tmp_path: Path):
    image = render(robot(tmp_path), size=(320, 240), view="iso", antialias=False)
    red = reddish(image)
    assert red.sum() > 3000
    assert bluish(image).sum() > 300
    # three faces of the box are visible, each lit differently: several large areas of distinct red
    shades, counts = np.unique(image[red][:, 0], return_counts=True)
    assert np.sum(counts > 300) >= 2, dict(zip(shades.tolist(), counts.tolist(), strict=True))


def test_a_joint_moves_its_shape_in_the_picture(tmp_path: Path):
    model = robot(tmp_path)
    left = render(model, {"slide": -0.6}, view="front", size=SMALL)
    right = render(model, {"slide": 0.6}, view="front", size=SMALL)
    # front view: the camera looks back at the robot, so its left (+y) is on the picture's right
    assert centroid(bluish(right))[0] > centroid(reddish(right))[0] + 10
    assert centroid(bluish(left))[0] < centroid(reddish(left))[0] - 10
    # the sphere sits above the box
    assert centroid(bluish(right))[1] < centroid(reddish(right))[1]


def test_every_view_gives_a_different_picture(tmp_path: Path):
    model = robot(tmp_path)
    scene = model.scene({"slide": 0.3})
    pictures = {view: render_scene(scene, size=SMALL, view=view) for view in VIEWS}
    names = list(pictures)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            assert not np.array_equal(pictures[a], pictures[b]), (a, b)


def test_side_view_looks_at_the_left_side_and_top_view_has_x_up(tmp_path: Path):
    path = tmp_path / "marked.urdf"
    # a blue marker in front of (+x) a red box: front is left in "side", up in "top"
    path.write_text(
        """<robot name="m"><link name="base">
        <visual><geometry><box size="0.2 0.2 0.2"/></geometry>
          <material name="r"><color rgba="1 0 0 1"/></material></visual>
        <visual><origin xyz="0.3 0 0"/><geometry><sphere radius="0.05"/></geometry>
          <material name="b"><color rgba="0 0 1 1"/></material></visual></link></robot>"""
    )
    marked = robodesc.load(path)
    side = render(marked, view="side", size=SMALL)
    assert centroid(bluish(side))[0] < centroid(reddish(side))[0] - 10
    top = render(marked, view="top", size=SMALL)
    assert centroid(bluish(top))[1] < centroid(reddish(top))[1] - 10


def test_a_tall_thin_object_is_tall_from_the_front_and_small_from_the_top(tmp_path: Path):
    model = one_box(tmp_path, "0.05 0.05 1.0")
    for view, tall in (("front", True), ("top", False)):
        rows, cols = np.nonzero(drawn(render(model, view=view, size=(200, 200))))
        height, width = np.ptp(rows) + 1, np.ptp(cols) + 1
        if tall:
            assert height > 5 * width, (height, width)
            assert height > 150
        else:
            assert 0.5 < height / width < 2  # its square end
    # the same box lying along x, seen from the top, is tall: x points up in the top view
    lying = one_box(tmp_path, "1.0 0.05 0.05")
    rows, cols = np.nonzero(drawn(render(lying, view="top", size=(200, 200))))
    assert np.ptp(rows) > 5 * np.ptp(cols)


@pytest.mark.parametrize("scale", [0.025, 250.0])  # a 1 cm robot and a 100 m robot
@pytest.mark.parametrize("size", [(160, 120), (60, 200)])
def test_auto_framing_keeps_any_robot_inside_with_a_margin(tmp_path: Path, scale: float, size: tuple[int, int]):
    image = render(robot(tmp_path, scale=scale), {"slide": 0.8}, size=size)
    mask = drawn(image)
    assert not mask[0].any() and not mask[-1].any() and not mask[:, 0].any() and not mask[:, -1].any()
    rows, cols = np.nonzero(mask)
    # and it fills the picture: one of its sides reaches nearly across
    width, height = size
    assert (np.ptp(cols) + 1) / width > 0.8 or (np.ptp(rows) + 1) / height > 0.8


def test_framing_is_the_same_at_any_scale(tmp_path: Path):
    small = render(robot(tmp_path, scale=0.025, name="a.urdf"), size=SMALL)
    large = render(robot(tmp_path, scale=250.0, name="b.urdf"), size=SMALL)
    assert np.mean(small != large) < 0.01


def test_png_bytes_decode_to_the_same_pixels(tmp_path: Path):
    from PIL import Image

    image = render(robot(tmp_path), size=(97, 61), view="iso", background=(0.2, 0.3, 0.4, 0.5))
    data = encode_png(image)
    decoded = np.asarray(Image.open(io.BytesIO(data)))
    assert decoded.shape == image.shape
    assert np.array_equal(decoded, image)
    assert np.array_equal(decode_png(data), image)

    out = tmp_path / "robot.png"
    write_png(image, out)
    assert out.read_bytes() == data
    assert out.stat().st_mode & 0o044  # readable by others, like any new file

    rgb = image[..., :3].copy()
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(encode_png(rgb)))), rgb)


def decode_png(data: bytes) -> np.ndarray:
    """Our own reader of the PNGs encode_png writes: checks the signature, every chunk's CRC, and
    undoes each row's filter (None, Sub, Up, Average or Paeth)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, kind
        chunks.append((kind, body))
        pos += 12 + length
    assert [k for k, _ in chunks][0] == b"IHDR" and chunks[-1][0] == b"IEND"
    width, height, depth, color_type, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert depth == 8 and color_type in (2, 6) and interlace == 0
    channels = 4 if color_type == 6 else 3
    raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    stride = width * channels
    assert len(raw) == height * (stride + 1)
    out = np.zeros((height, stride), np.int64)
    for y in range(height):
        kind, row = raw[y * (stride + 1)], np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int64)
        up = out[y - 1] if y else np.zeros(stride, np.int64)
        for x in range(stride):
            a = out[y, x - channels] if x >= channels else 0
            c = up[x - channels] if x >= channels else 0
            b = up[x]
            if kind == 0:
                pred = 0
            elif kind == 1:
                pred = a
            elif kind == 2:
                pred = b
            elif kind == 3:
                pred = (a + b) // 2
            else:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            out[y, x] = (row[x] + pred) % 256
    return out.astype(np.uint8).reshape(height, width, channels)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"view": "isometric"},
        {"view": "fornt"},
        {"view": 3},
        {"size": (10, 10)},
        {"size": (9000, 100)},
        {"size": (800,)},
        {"size": "800x600"},
        {"size": (800.0, 600)},
        {"size": (True, 600)},
        {"background": (1, 1)},
        {"background": (2, 0, 0)},
    ],
)
def test_invalid_arguments_raise_invalid_argument(tmp_path: Path, kwargs: dict):
    model = robot(tmp_path)
    with pytest.raises(InvalidArgument) as caught:
        render(model, **kwargs)
    assert caught.value.suggestion
    with pytest.raises(InvalidArgument):
        render_scene(trimesh.Scene(), **kwargs)


def test_a_misspelt_view_gets_a_did_you_mean(tmp_path: Path):
    with pytest.raises(InvalidArgument, match="did you mean 'front'"):
        render(robot(tmp_path), view="fornt")


def test_not_a_scene_and_not_an_image_are_refused():
    with pytest.raises(InvalidArgument):
        render_scene("robot.urdf")  # type: ignore[arg-type]
    for bad in (np.zeros((4, 4, 4), np.float32), np.zeros((4, 4), np.uint8), [[1, 2]], np.zeros((0, 3, 4), np.uint8)):
        with pytest.raises(InvalidArgument):
            encode_png(bad)  # type: ignore[arg-type]


def test_write_png_into_a_missing_folder_is_a_robodesc_error(tmp_path: Path):
    image = np.zeros((16, 16, 4), np.uint8)
    with pytest.raises(RobodescError, match="cannot write"):
        write_png(image, tmp_path / "missing" / "robot.png")
    assert not (tmp_path / "missing").exists()


def test_collision_render_differs_from_visual(tmp_path: Path):
    model = robot(tmp_path)
    visual = render(model, size=SMALL)
    collision = render(model, kind="collision", size=SMALL)
    assert not np.array_equal(visual, collision)
    assert reddish(visual).sum() > 500
    assert reddish(collision).sum() == 0  # the collision cylinder has no colour: grey


def test_a_fully_transparent_shape_is_not_drawn_nor_framed(tmp_path: Path):
    hidden = render(robot(tmp_path, sphere_alpha=0.0, name="hidden.urdf"), {"slide": 0.9}, size=SMALL)
    assert bluish(hidden).sum() == 0
    # framed on the box alone: the same picture as a box with no sphere at all
    alone = render(one_box(tmp_path, "0.4 0.3 0.2"), size=SMALL)
    assert np.mean(np.any(hidden != alone, axis=2)) < 0.005
    # half-transparent is drawn, opaque
    half = render(robot(tmp_path, sphere_alpha=0.5, name="half.urdf"), {"slide": 0.9}, size=SMALL)
    assert bluish(half).sum() > 100


def test_an_empty_scene_is_the_background_and_an_invisible_one_is_an_error(tmp_path: Path):
    empty = render_scene(trimesh.Scene(), size=(32, 16), background=(0, 0, 0, 0))
    assert empty.shape == (16, 32, 4) and not empty.any()
    with pytest.raises(InvalidValue, match="nothing"):
        render(one_box(tmp_path, "0.1 0.1 0.1", rgba="1 0 0 0"), size=SMALL)
    point = trimesh.Trimesh(vertices=np.zeros((3, 3)), faces=[[0, 1, 2]], process=False)
    with pytest.raises(InvalidValue):
        render_scene(point, size=SMALL)


def test_a_large_face_is_filled_without_holes():
    """A box seen square-on: its face is two triangles crossing many tiles; every pixel inside the
    outline is drawn, none is left between them."""
    box = trimesh.creation.box(extents=[0.1, 1.0, 1.0])
    box.visual.face_colors = [0, 200, 0, 255]
    image = render_scene(box, size=(700, 500), view="front", antialias=False)
    rows, cols = np.nonzero(drawn(image))
    inside = image[rows.min() : rows.max() + 1, cols.min() : cols.max() + 1]
    assert inside.shape[0] > 400
    assert np.all(inside[..., 1] > 100) and np.all(inside[..., 0] < 60)  # all green: no hole
    # the front face, inside the thin rims of the sides that perspective shows, is one flat shade
    face = inside[20:-20, 20:-20]
    assert len(np.unique(face.reshape(-1, 4), axis=0)) == 1


def test_small_chunks_and_tiles_give_the_same_picture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    model = robot(tmp_path)
    scene = model.scene({"slide": 0.2})
    expected = render_scene(scene, size=(200, 150))
    monkeypatch.setattr(render_module, "CHUNK_PIXELS", 64)
    monkeypatch.setattr(render_module, "TILE", 4)
    assert np.array_equal(render_scene(scene, size=(200, 150)), expected)


def test_vertex_and_texture_colours_are_used():
    from PIL import Image

    painted = trimesh.creation.box(extents=[1, 1, 1])
    painted.visual.vertex_colors = np.tile([255, 0, 255, 255], (len(painted.vertices), 1))
    image = render_scene(painted, size=SMALL)
    magenta = (image[..., 0] > 100) & (image[..., 2] > 100) & (image[..., 1] < 80)
    assert magenta.sum() > 2000

    textured = trimesh.creation.box(extents=[1, 1, 1])
    texture = Image.new("RGB", (4, 4), (0, 180, 0))
    uv = np.full((len(textured.vertices), 2), 0.5)
    textured.visual = trimesh.visual.TextureVisuals(uv=uv, image=texture)
    image = render_scene(textured, size=SMALL)
    green = (image[..., 1] > image[..., 0] + 60) & (image[..., 1] > image[..., 2] + 60)
    assert green.sum() > 2000


def test_a_see_through_background_keeps_the_robot_opaque(tmp_path: Path):
    image = render(robot(tmp_path), size=SMALL, background=(1, 1, 1, 0))
    alpha = image[..., 3]
    assert alpha[0, 0] == 0
    assert (alpha == 255).sum() > 2000
    # edge pixels are partly transparent and keep the robot's colour, not white
    edge = (alpha > 0) & (alpha < 255)
    assert edge.any()
    assert np.all(image[edge][:, 1] < 250) or np.mean(image[edge][:, :3]) < 250


def test_the_same_scene_renders_the_same_picture(tmp_path: Path):
    scene = robot(tmp_path).scene()
    assert np.array_equal(render_scene(scene, size=SMALL), render_scene(scene, size=SMALL))


@pytest.mark.parametrize("near_first", [True, False])
def test_the_nearest_surface_hides_what_is_behind_it(near_first: bool):
    """A small red box in front of (+x) a large blue one, seen from the front: red in the middle,
    blue around it, whichever shape the scene lists first."""
    near = trimesh.creation.box(extents=[0.1, 0.3, 0.3])
    near.apply_translation([0.5, 0, 0])
    near.visual.face_colors = [255, 0, 0, 255]
    far = trimesh.creation.box(extents=[0.1, 1.0, 1.0])
    far.visual.face_colors = [0, 0, 255, 255]
    scene = trimesh.Scene()
    for name, mesh in [("near", near), ("far", far)][:: 1 if near_first else -1]:
        scene.add_geometry(mesh, geom_name=name, node_name=name)
    image = render_scene(scene, size=(200, 200), view="front")
    assert reddish(image)[100, 100] and bluish(image)[100, 30] and bluish(image)[30, 100]
    assert bluish(image).sum() > reddish(image).sum()


def test_an_infinite_floor_is_drawn_under_the_robot_not_as_a_10_m_patch(tmp_path: Path):
    path = tmp_path / "scene.xml"
    path.write_text(
        """<mujoco model="s"><worldbody>
        <geom name="floor" type="plane" size="0 0 0.05" rgba="0.2 0.6 0.2 1"/>
        <body name="b" pos="0 0 0.3"><geom type="box" size="0.1 0.1 0.1" rgba="1 0 0 1"/></body>
        </worldbody></mujoco>"""
    )
    model = robodesc.load(path)
    image = render(model, size=SMALL)
    rows, cols = np.nonzero(reddish(image))
    assert np.ptp(cols) > 0.2 * SMALL[0]  # the box is framed, not a speck on a 10 m floor
    floor = (image[..., 1] > image[..., 0] + 30) & (image[..., 1] > image[..., 2] + 30)
    assert floor.sum() > 1000  # and the floor is there, under it, in its colour
    assert centroid(floor)[1] > centroid(reddish(image))[1]
    # render_scene draws the scene as it is: the 10 m patch, the box a few pixels across
    as_is = render_scene(model.scene(), size=SMALL)
    assert 0 < reddish(as_is).sum() < 0.1 * reddish(image).sum()
    # the model's cached floor mesh is untouched
    assert np.allclose(model.scene().geometry["world/floor"].extents[:2], [10, 10])
