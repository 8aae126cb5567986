"""Failures keep their real name.

A crash of robodesc's own code stays a crash (the plugin manager reports it as a reader crash), a
mesh that is found but cannot be used is not "not found", and the mesh-file errors of the MJCF
inertia code are told apart by their type, never by searching their message.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

import robodesc
from robodesc import InvalidValue, MalformedValue, MissingAttribute, MissingRootElement, ResourceNotFound, Severity
from robodesc.core.errors import ReaderCrash, RobodescError
from robodesc.formats import xml as xml_helpers
from robodesc.formats.mjcf import checks as mjcf_checks
from robodesc.formats.mjcf import inertia, meshfiles
from robodesc.formats.sdf import checks as sdf_checks


def binary_stl(path: Path, points: list[tuple[float, float, float]], faces: list[tuple[int, int, int]]) -> None:
    data = b"\0" * 80 + struct.pack("<I", len(faces))
    for face in faces:
        data += struct.pack("<3f", 0, 0, 0) + b"".join(struct.pack("<3f", *points[i]) for i in face) + b"\0\0"
    path.write_bytes(data)


TETRAHEDRON = (
    [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)],
    [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)],
)
#: Four points in one plane: MuJoCo refuses it ("mesh volume is too small").
FLAT = (
    [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (1.0, 1.0, 0.0)],
    [(0, 1, 2), (1, 3, 2), (0, 2, 1), (1, 2, 3)],
)
ASCII_STL = (
    "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n"
)


def weighed(mesh_attrs: str, geom: str = 'type="mesh" mesh="part"') -> str:
    """A body whose inertia comes from a geom using mesh `part` (so loading processes the mesh)."""
    return (
        f'<mujoco>\n<asset>\n<mesh name="part" {mesh_attrs}/>\n</asset>\n'
        f'<worldbody><body name="b"><joint name="j"/><geom {geom}/></body></worldbody>\n</mujoco>\n'
    )


def load_mjcf(text: str, folder: Path) -> robodesc.Model:
    return robodesc.loads(text, format="mjcf", base_dir=str(folder))


def assert_located_at_the_mesh(error: RobodescError, construct: str = "part") -> None:
    assert error.location.line == 3  # the <mesh> element, not the geom or the file's top
    assert error.location.element is not None and "mesh[@name='part']" in error.location.element
    assert error.construct == construct


# =====================================================================================================
# MJCF: a mesh that is found but bad is not ResourceNotFound
# =====================================================================================================


def test_a_degenerate_mesh_file_is_an_invalid_value_naming_mesh_and_file(tmp_path):
    binary_stl(tmp_path / "flat.stl", *FLAT)
    with pytest.raises(InvalidValue) as info:
        load_mjcf(weighed('file="flat.stl"'), tmp_path)
    error = info.value
    assert not isinstance(error, ResourceNotFound)
    assert "'part'" in error.message and "flat.stl" in error.message and "too small" in error.message
    assert_located_at_the_mesh(error)


def test_an_ascii_stl_is_a_malformed_value_not_a_missing_file(tmp_path):
    (tmp_path / "text.stl").write_text(ASCII_STL)
    with pytest.raises(MalformedValue) as info:
        load_mjcf(weighed('file="text.stl"'), tmp_path)
    error = info.value
    assert not isinstance(error, ResourceNotFound)
    assert "'part'" in error.message and "text.stl" in error.message and "ASCII" in error.message
    assert_located_at_the_mesh(error)


def test_a_mesh_file_type_mujoco_does_not_read_is_a_malformed_value(tmp_path):
    (tmp_path / "scene.dae").write_text("<COLLADA/>")
    with pytest.raises(MalformedValue) as info:
        load_mjcf(weighed('file="scene.dae"'), tmp_path)
    assert not isinstance(info.value, ResourceNotFound)
    assert "scene.dae" in info.value.message and "unsupported mesh file type" in info.value.message
    assert_located_at_the_mesh(info.value)


def test_a_bad_obj_line_is_a_malformed_value(tmp_path):
    (tmp_path / "bad.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 zero\nv 0 0 1\nf 1 2 3\n")
    with pytest.raises(MalformedValue, match="bad vertex on line 3") as info:
        load_mjcf(weighed('file="bad.obj"'), tmp_path)
    assert not isinstance(info.value, ResourceNotFound)


def test_degenerate_inline_vertices_are_an_invalid_value(tmp_path):
    with pytest.raises(InvalidValue) as info:
        load_mjcf(weighed('vertex="0 0 0 1 0 0 0 1 0 1 1 0"'), tmp_path)
    assert not isinstance(info.value, ResourceNotFound)
    assert "vertex data" in info.value.message
    assert_located_at_the_mesh(info.value)


def test_fitting_a_primitive_to_a_degenerate_mesh_is_an_invalid_value(tmp_path):
    binary_stl(tmp_path / "flat.stl", *FLAT)
    with pytest.raises(InvalidValue) as info:
        load_mjcf(weighed('file="flat.stl"', geom='type="box" mesh="part"'), tmp_path)
    assert not isinstance(info.value, ResourceNotFound)
    assert "flat.stl" in info.value.message


def test_a_mesh_with_neither_file_nor_vertices_is_a_missing_attribute(tmp_path):
    with pytest.raises(MissingAttribute) as info:
        load_mjcf(weighed(""), tmp_path)
    assert not isinstance(info.value, ResourceNotFound)
    assert_located_at_the_mesh(info.value, construct="mesh/@file")


def test_a_mesh_file_that_does_not_exist_is_still_resource_not_found(tmp_path):
    with pytest.raises(ResourceNotFound) as info:
        load_mjcf(weighed('file="nowhere.stl"'), tmp_path)
    assert info.value.tried == [str(tmp_path / "nowhere.stl")]
    assert_located_at_the_mesh(info.value)


def test_a_good_mesh_file_loads(tmp_path):
    binary_stl(tmp_path / "tetra.stl", *TETRAHEDRON)
    model = load_mjcf(weighed('file="tetra.stl"'), tmp_path)
    assert model.bodies["b"].inertial is not None and model.bodies["b"].inertial.mass > 0


# =====================================================================================================
# MJCF: mesh-file errors are typed, and checks.py dispatches on the type
# =====================================================================================================


@pytest.mark.parametrize(
    ("name", "content", "error", "file_type"),
    [
        ("missing.stl", None, inertia.MeshFileUnreadable, "stl"),
        ("scene.dae", "<COLLADA/>", inertia.UnsupportedMeshFileType, "dae"),
        ("text.stl", ASCII_STL, inertia.MalformedMeshFile, "stl"),
        ("empty.msh", "", inertia.MalformedMeshFile, "msh"),
        ("bad.obj", "v 0 0 0\nf 1 0 2\n", inertia.MalformedMeshFile, "obj"),
    ],
)
def test_load_mesh_file_raises_a_typed_error(tmp_path, name, content, error, file_type):
    path = tmp_path / name
    if content is not None:
        path.write_text(content)
    with pytest.raises(inertia.MeshFileError) as info:
        inertia.load_mesh_file(str(path))
    assert type(info.value) is error
    assert isinstance(info.value, ValueError)  # still what MuJoCo's compiler code raises
    assert info.value.path == str(path) and info.value.file_type == file_type


def test_an_obj_file_with_undecodable_bytes_still_loads(tmp_path):
    path = tmp_path / "latin1.obj"
    path.write_bytes(b"# caf\xe9\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    vertices, faces = inertia.load_mesh_file(str(path))
    assert vertices.shape == (4, 3) and faces is not None and faces.shape == (4, 3)


def drawn_only(tmp_path: Path, file: str) -> robodesc.Model:
    text = (
        f'<mujoco>\n<asset><mesh name="shown" file="{file}"/></asset>\n<worldbody>\n'
        '<body name="b"><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
        '<geom type="mesh" mesh="shown" contype="0" conaffinity="0" group="2"/></body>\n</worldbody>\n</mujoco>\n'
    )
    return load_mjcf(text, tmp_path)


def unreadable_findings(model: robodesc.Model) -> list[robodesc.Diagnostic]:
    return [d for d in robodesc.check(model).diagnostics if d.code == "mesh-unreadable"]


def test_check_picks_its_suggestion_by_error_type_not_by_message_text(tmp_path, monkeypatch):
    (tmp_path / "part.xyz").write_text("anything")
    mjcf_checks._unreadable.cache_clear()

    def refuse(path: str):  # a message that mentions STL, for an error that is about the file type
        raise inertia.UnsupportedMeshFileType(f"no STL reader wanted for {path!r}", path, "xyz")

    monkeypatch.setattr(meshfiles, "load_mesh_file", refuse)
    try:
        (finding,) = unreadable_findings(drawn_only(tmp_path, "part.xyz"))
    finally:
        mjcf_checks._unreadable.cache_clear()
    assert finding.severity is Severity.ERROR
    assert ".obj" in finding.suggestion and "binary STL only" not in finding.suggestion


def test_an_obj_in_a_folder_named_stl_is_not_given_the_stl_advice(tmp_path):
    folder = tmp_path / "STL"
    folder.mkdir()
    (folder / "part.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 9 2\n")
    mjcf_checks._unreadable.cache_clear()
    (finding,) = unreadable_findings(drawn_only(tmp_path, "STL/part.obj"))
    assert "OBJ" in finding.message
    assert "binary STL only" not in finding.suggestion


def test_check_still_gives_the_stl_advice_for_an_ascii_stl(tmp_path):
    (tmp_path / "text.stl").write_text(ASCII_STL)
    mjcf_checks._unreadable.cache_clear()
    (finding,) = unreadable_findings(drawn_only(tmp_path, "text.stl"))
    assert "binary STL only" in finding.suggestion


# =====================================================================================================
# SDF: a crash of robodesc's own checks is a crash, not a diagnostic
# =====================================================================================================

SDF = '<sdf version="1.10"><model name="m"><link name="a"/></model></sdf>'


@pytest.mark.plugin_crash
def test_a_crash_in_the_sdf_checks_is_not_turned_into_a_diagnostic(monkeypatch):
    class Boom(Exception):
        pass

    def crash(self):
        raise Boom("a bug in the SDF checks")

    monkeypatch.setattr(sdf_checks._Lint, "run", crash)
    with pytest.raises(ReaderCrash) as info:  # how the plugin manager reports a reader's crash
        robodesc.loads(SDF, format="sdf")
    assert isinstance(info.value.original, Boom)
    assert info.value.plugin == "sdf"


def test_the_sdf_checks_still_run(monkeypatch):
    calls = []
    original = sdf_checks._Lint.run

    def counting(self):
        calls.append(self)
        return original(self)

    monkeypatch.setattr(sdf_checks._Lint, "run", counting)
    model = robodesc.loads(SDF, format="sdf")
    assert calls and all(d.code != "sdf-check-failed" for d in model.diagnostics)


# =====================================================================================================
# XML: only what TreeBuilder.close() really raises is read as "no root element"
# =====================================================================================================


def builder_closing_with(error: BaseException) -> type:
    class Builder(xml_helpers.TreeBuilder):
        def close(self):
            raise error

    return Builder


def test_a_bug_while_building_the_tree_is_not_called_a_missing_root(monkeypatch):
    monkeypatch.setattr(xml_helpers, "TreeBuilder", builder_closing_with(RuntimeError("a bug")))
    with pytest.raises(RuntimeError, match="a bug"):
        xml_helpers.parse_xml(b"<robot/>", "x.urdf")


def test_the_pure_python_builder_without_a_root_is_a_missing_root(monkeypatch):
    monkeypatch.setattr(xml_helpers, "TreeBuilder", builder_closing_with(AssertionError("missing toplevel element")))
    with pytest.raises(MissingRootElement):
        xml_helpers.parse_xml(b"<robot/>", "x.urdf")
