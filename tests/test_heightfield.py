"""Heightfields in scenes: MJCF <hfield> (inline, PNG, MuJoCo's binary) against MuJoCo, SDF <heightmap>."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

import robodesc
from robodesc import Heightfield
from robodesc.core import errors
from robodesc.core import geometry as geometry_module
from robodesc.core.scene import as_trimesh

trimesh = pytest.importorskip("trimesh")


def hfield_model(asset: str, geom: str = 'pos="0.5 -0.2 0.1" euler="0 0 30"') -> str:
    return (
        f"<mujoco><asset>{asset}</asset><worldbody>"
        f'<body name="b"><geom name="ground" type="hfield" hfield="h" {geom}/></body></worldbody></mujoco>'
    )


def mujoco_grid(xml: str, directory: Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    """MuJoCo's heights (rows x columns, row 0 along -y) and hfield_size of the model's one hfield."""
    mujoco = pytest.importorskip("mujoco")
    if directory is not None:
        (directory / "m.xml").write_text(xml)
        mj = mujoco.MjModel.from_xml_path(str(directory / "m.xml"))
    else:
        mj = mujoco.MjModel.from_xml_string(xml)
    rows, columns = int(mj.hfield_nrow[0]), int(mj.hfield_ncol[0])
    return np.asarray(mj.hfield_data[: rows * columns], dtype=float).reshape(rows, columns), mj.hfield_size[0]


def assert_like_mujoco(model: robodesc.Model, heights: np.ndarray, size: np.ndarray) -> None:
    """The scene's grid has MuJoCo's heights at MuJoCo's sample points, and its base."""
    (shape,) = model.bodies["b"].visuals
    mesh = model.scene().geometry["b/ground"]
    rows, columns = heights.shape
    rx, ry, top, base = size
    xs, ys = np.meshgrid(np.linspace(-rx, rx, columns), np.linspace(-ry, ry, rows))
    expected = np.column_stack([xs.ravel(), ys.ravel(), heights.ravel() * top])
    np.testing.assert_allclose(mesh.vertices[: rows * columns], expected, atol=1e-6)
    np.testing.assert_allclose(mesh.bounds[0], [-rx, -ry, -base], atol=1e-9)
    np.testing.assert_allclose(mesh.bounds[1][:2], [rx, ry], atol=1e-9)
    assert mesh.is_watertight and mesh.volume > 0  # walls and bottom close it, faces wound outward
    assert np.allclose(model.scene().graph["b/ground"][0], model.pose("b") @ shape.pose)


def test_inline_elevation_is_normalised_and_placed_like_mujoco():
    xml = hfield_model('<hfield name="h" nrow="3" ncol="4" elevation="1 2 3 4 5 6 7 8 9 10 11 19" size="2 1 0.5 0.1"/>')
    heights, size = mujoco_grid(xml)
    model = robodesc.loads(xml, format="mjcf")
    assert_like_mujoco(model, heights, size)
    field = model.bodies["b"].visuals[0].geometry
    assert isinstance(field, Heightfield) and field.base == pytest.approx(0.1)
    np.testing.assert_allclose(field.size, [4.0, 2.0, 0.5])


def test_a_grid_without_elevation_is_flat():
    xml = hfield_model('<hfield name="h" nrow="2" ncol="2" size="1 1 1 0.2"/>')
    heights, size = mujoco_grid(xml)
    assert_like_mujoco(robodesc.loads(xml, format="mjcf"), heights, size)


def test_a_png_file_is_read_like_mujoco(tmp_path):
    image = pytest.importorskip("PIL.Image")
    pixels = np.array([[10, 20, 30], [40, 50, 90], [0, 255, 7]], dtype=np.uint8)
    image.fromarray(np.stack([pixels, pixels // 3, 255 - pixels], axis=-1), "RGB").save(tmp_path / "t.png")
    xml = hfield_model('<hfield name="h" file="t.png" size="1 2 3 0.5"/>')
    heights, size = mujoco_grid(xml, tmp_path)
    assert_like_mujoco(robodesc.load(tmp_path / "m.xml"), heights, size)


def test_mujocos_binary_file_is_read_like_mujoco(tmp_path):
    data = np.array([[1, 2, 3], [4, 5, 9]], dtype="<f4")
    (tmp_path / "t.bin").write_bytes(struct.pack("<ii", 2, 3) + data.tobytes())
    xml = hfield_model('<hfield name="h" file="t.bin" size="1 2 3 0.5"/>')
    heights, size = mujoco_grid(xml, tmp_path)
    assert_like_mujoco(robodesc.load(tmp_path / "m.xml"), heights, size)


def test_a_binary_file_whose_header_lies_is_refused_before_allocating(tmp_path):
    (tmp_path / "t.bin").write_bytes(struct.pack("<ii", 100000, 100000) + b"\0" * 16)
    field = Heightfield(uri="t.bin", size=np.ones(3), path=str(tmp_path / "t.bin"), file_format="mujoco")
    with pytest.raises(errors.InvalidValue, match="more than robodesc draws"):
        as_trimesh(field)
    (tmp_path / "t.bin").write_bytes(struct.pack("<ii", 2, 2) + b"\0" * 12)
    with pytest.raises(errors.InvalidValue, match="header promises"):
        as_trimesh(field)


@pytest.mark.parametrize(
    "asset, message",
    [
        ('<hfield name="h" nrow="2" ncol="2" elevation="1 2 3" size="1 1 1 1"/>', "elevation values"),
        ('<hfield name="h" nrow="1" ncol="2" size="1 1 1 1"/>', "at least 2"),
        ('<hfield name="h" nrow="2" ncol="2" size="1 1 0 1"/>', "positive"),
        ('<hfield name="h" elevation="1 2 3 4" size="1 1 1 1"/>', "needs a file"),
        ('<hfield name="h" nrow="100000" ncol="100000" size="1 1 1 1"/>', "more than robodesc"),
    ],
)
def test_height_fields_mujoco_refuses_are_refused(asset, message):
    with pytest.raises(errors.RobodescError, match=message) as caught:
        robodesc.loads(hfield_model(asset), format="mjcf")
    assert caught.value.location is not None and caught.value.location.line == 1


def test_an_unknown_hfield_is_an_error():
    with pytest.raises(errors.UnresolvedReference, match="hfield"):
        robodesc.loads(hfield_model('<hfield name="g" nrow="2" ncol="2" size="1 1 1 1"/>'), format="mjcf")


def test_a_missing_file_is_resource_not_found_or_skipped(tmp_path):
    (tmp_path / "m.xml").write_text(hfield_model('<hfield name="h" file="nowhere.png" size="1 1 1 1"/>'))
    model = robodesc.load(tmp_path / "m.xml")
    with pytest.raises(errors.ResourceNotFound, match="nowhere.png"):
        model.scene()
    (skipped,) = model.scene(skip_missing=True).metadata["robodesc"]["skipped"]
    assert skipped["node"] == "b/ground" and skipped["code"] == errors.ResourceNotFound.code


def test_an_image_without_pillow_names_the_extra(tmp_path, monkeypatch):
    import sys

    (tmp_path / "t.png").write_bytes(b"\x89PNG")
    monkeypatch.setitem(sys.modules, "PIL", None)
    field = Heightfield(uri="t.png", size=np.ones(3), path=str(tmp_path / "t.png"))
    with pytest.raises(errors.MissingDependency, match=r"robodesc\[meshes\]"):
        as_trimesh(field)


def test_a_heightfield_without_data_is_resource_not_found():
    with pytest.raises(errors.ResourceNotFound, match="no height data"):
        as_trimesh(Heightfield(uri="terrain.png"))


def test_too_large_an_elevation_is_refused(monkeypatch):
    monkeypatch.setattr(geometry_module, "MAX_HEIGHTFIELD_SAMPLES", 8)
    with pytest.raises(errors.InvalidValue, match="more than robodesc draws"):
        as_trimesh(Heightfield(size=np.ones(3), elevation=np.zeros((3, 3))))


SDF = """<sdf version="1.9"><model name="m"><static>true</static><link name="b">
  <visual name="ground"><geometry><heightmap><uri>t.png</uri><size>4 2 3</size><pos>1 0.5 -0.2</pos></heightmap>
  </geometry></visual></link></model></sdf>"""


def test_an_sdf_heightmap_spans_its_size_around_pos_heights_over_the_brightest_pixel(tmp_path):
    image = pytest.importorskip("PIL.Image")
    pixels = np.array([[0, 50, 100], [25, 200, 100], [100, 100, 100]], dtype=np.uint8)
    image.fromarray(pixels, "L").save(tmp_path / "t.png")
    (tmp_path / "m.sdf").write_text(SDF)
    model = robodesc.load(tmp_path / "m.sdf")
    mesh = model.scene().geometry["b/ground"]
    np.testing.assert_allclose(mesh.bounds, [[-1.0, -0.5, -0.2], [3.0, 1.5, 2.8]], atol=1e-9)
    # the picture's top row lies along +y, seen from above; heights are pixel / brightest * size z
    corner = mesh.vertices[np.argmin(np.abs(mesh.vertices[:, 0] - 3.0) + np.abs(mesh.vertices[:, 1] - 1.5))]
    assert corner[2] == pytest.approx(100 / 200 * 3 - 0.2)
    centre = mesh.vertices[np.argmin(np.abs(mesh.vertices[:, 0] - 1.0) + np.abs(mesh.vertices[:, 1] - 0.5))]
    assert centre[2] == pytest.approx(2.8)


def test_a_heightfield_is_read_once_per_model(tmp_path, monkeypatch):
    calls = []
    original = geometry_module.Heightfield.heights
    monkeypatch.setattr(geometry_module.Heightfield, "heights", lambda self: calls.append(1) or original(self))
    model = robodesc.loads(hfield_model('<hfield name="h" nrow="2" ncol="2" size="1 1 1 1"/>'), format="mjcf")
    model.scene()
    model.scene(kind="collision")
    assert calls == [1]
