"""Conversion as a user drives it (`robodesc.convert`, `robodesc convert`), whatever the writer.

A toy writer registered at run time stands in for a format, so these tests pin what conversion
itself promises: the target chosen from the output's extension, mesh references relative to the
output (or meshes copied beside it), losses reported with their source location, strict mode
writing nothing, and an existing output left whole when conversion fails.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import robodesc
from robodesc import FormatSpec, Loss, LossyConversion, WriteContext, hookimpl
from robodesc.cli import main

URDF = """<robot name="r">
  <link name="base">
    <visual><geometry><mesh filename="meshes/base.stl"/></geometry></visual>
  </link>
  <link name="arm"/>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <transmission name="t"><type>x</type></transmission>
</robot>
"""

STL = """solid t
facet normal 0 0 1
 outer loop
  vertex 0 0 0
  vertex 1 0 0
  vertex 0 1 0
 endloop
endfacet
endsolid t
"""


class ToyWriter:
    """A format that lists bodies and mesh references, and loses every kept extra."""

    @hookimpl
    def robodesc_formats(self) -> list[FormatSpec]:
        return [FormatSpec("toy", (".toy",), write=self.write)]

    @staticmethod
    def write(model: robodesc.Model, context: WriteContext) -> str:
        lines = [f"model {model.name}"]
        for body in model.bodies.values():
            lines.append(f"body {body.name}")
            for shape in body.visuals:
                if isinstance(shape.geometry, robodesc.Mesh):
                    lines.append("mesh " + context.file_reference(shape.geometry.path, shape.geometry.uri))
        for extra in model.extras:
            context.lose(
                "extension", f"<{extra.tag}> has no place in toy", location=extra.location, construct=extra.tag
            )
        return "\n".join(lines) + "\n"


@pytest.fixture
def toy():
    name = robodesc.register_plugin(ToyWriter(), name="toy-writer")
    try:
        yield
    finally:
        robodesc.unregister_plugin(name)


@pytest.fixture
def source(tmp_path: Path) -> Path:
    (tmp_path / "src" / "meshes").mkdir(parents=True)
    (tmp_path / "src" / "meshes" / "base.stl").write_text(STL)
    path = tmp_path / "src" / "r.urdf"
    path.write_text(URDF)
    return path


def test_the_output_names_meshes_relative_to_its_own_folder(toy, source, tmp_path):
    out = tmp_path / "elsewhere" / "deep" / "r.toy"
    out.parent.mkdir(parents=True)
    done = robodesc.convert(source, out)
    assert done.format == "toy" and done.written == [str(out)]
    mesh_line = [line for line in out.read_text().splitlines() if line.startswith("mesh ")][0]
    reference = mesh_line.split(" ", 1)[1]
    assert reference == "../../src/meshes/base.stl"
    assert (out.parent / reference).resolve() == (source.parent / "meshes" / "base.stl").resolve()


def test_copy_assets_puts_meshes_beside_the_output(toy, source, tmp_path):
    out = tmp_path / "out" / "r.toy"
    out.parent.mkdir()
    done = robodesc.convert(source, out, copy_assets=True)
    copied = out.parent / "r_assets" / "base.stl"
    assert done.written == [str(out), str(copied)]
    assert copied.read_text() == STL
    assert "mesh r_assets/base.stl" in out.read_text()


def test_losses_name_the_construct_and_where_the_source_has_it(toy, source, tmp_path):
    done = robodesc.convert(source, tmp_path / "r.toy")
    assert [(loss.code, loss.construct) for loss in done.losses] == [("extension", "transmission")]
    loss = done.losses[0]
    assert isinstance(loss, Loss) and loss.location.file == str(source) and loss.location.line == 8
    assert str(loss).startswith(f"{source}:8: extension: <transmission> has no place in toy")


def test_strict_refuses_and_writes_nothing(toy, source, tmp_path):
    out = tmp_path / "r.toy"
    out.write_text("mine")
    with pytest.raises(LossyConversion) as refused:
        robodesc.convert(source, out, strict=True, copy_assets=True)
    assert [loss.code for loss in refused.value.losses] == ["extension"]
    assert out.read_text() == "mine" and not (tmp_path / "r_assets").exists()


def test_the_target_comes_from_to_or_the_extension(toy, source, tmp_path):
    with pytest.raises(robodesc.FormatError, match="cannot tell which format"):
        robodesc.convert(source, tmp_path / "r.unknown")
    with pytest.raises(robodesc.FormatError, match="'nope'"):
        robodesc.convert(source, tmp_path / "r.toy", to="nope")
    done = robodesc.convert(source, tmp_path / "r.txt", to="toy")
    assert done.format == "toy" and (tmp_path / "r.txt").read_text().startswith("model r")


def test_a_missing_mesh_keeps_its_reference_as_written(toy, tmp_path):
    path = tmp_path / "r.urdf"
    path.write_text(URDF.replace("meshes/base.stl", "package://gone/base.stl"))
    robodesc.convert(path, tmp_path / "r.toy", copy_assets=True)
    assert "mesh package://gone/base.stl" in (tmp_path / "r.toy").read_text()


def test_the_command_prints_each_loss_and_a_summary(toy, source, tmp_path, capsys):
    out = tmp_path / "r.toy"
    assert main(["convert", str(source), "-o", str(out)]) == 0
    printed, err = capsys.readouterr()
    assert err == ""
    assert printed.splitlines() == [
        f"{source}:8: extension: <transmission> has no place in toy; written instead: nothing",
        f"wrote {out} (toy); 1 loss",
    ]
    assert main(["convert", str(source), "-o", str(out), "--json", "--copy-assets"]) == 0
    report = json.loads(capsys.readouterr()[0])
    assert report["format"] == "toy" and report["written"][1].endswith(os.path.join("r_assets", "base.stl"))
    assert report["losses"][0] == {
        "code": "extension",
        "message": "<transmission> has no place in toy",
        "construct": "transmission",
        "instead": "nothing",
        "file": str(source),
        "line": 8,
        "element": "/robot[@name='r']/transmission[@name='t']",
    }


def test_the_command_in_strict_mode_fails_and_lists_the_losses(toy, source, tmp_path, capsys):
    out = tmp_path / "r.toy"
    assert main(["convert", str(source), "-o", str(out), "--strict"]) == 1
    printed, err = capsys.readouterr()
    assert printed == "" and not out.exists()
    lines = err.splitlines()
    assert lines[0] == f"robodesc: {source}:8: extension: <transmission> has no place in toy; written instead: nothing"
    assert lines[1].startswith("robodesc: error: ") and "nothing was written" in lines[1]


# -- robodesc diff -------------------------------------------------------------------------------
ARM = Path(__file__).parents[1] / "examples" / "arm.urdf"


def test_diff_exits_0_when_two_files_agree_and_1_when_they_differ(tmp_path, capsys):
    assert main(["diff", str(ARM), str(ARM)]) == 0
    out, err = capsys.readouterr()
    assert err == "" and out.strip().endswith("tolerance 1e-06)") and " agree " in out
    moved = tmp_path / "moved.urdf"
    moved.write_text(ARM.read_text().replace('<origin xyz="0 0 0.3"/>', '<origin xyz="0 0 0.31"/>', 1))
    assert moved.read_text() != ARM.read_text()
    assert main(["diff", str(ARM), str(moved), "--samples", "2"]) == 1
    out, _ = capsys.readouterr()
    assert "pose" in out and " differ: " in out
    assert main(["diff", str(ARM), str(moved), "--tolerance", "0.02"]) == 0
    assert " agree" in capsys.readouterr()[0]
    assert main(["diff", str(ARM), str(moved), "--json"]) == 1
    report = json.loads(capsys.readouterr()[0])
    assert report["agree"] is False and report["differences"]


def test_diff_of_a_file_that_cannot_be_loaded_exits_2(tmp_path, capsys):
    assert main(["diff", str(ARM), str(tmp_path / "missing.urdf")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("robodesc: error: ") and "missing.urdf" in err and err.count("\n") == 1


def test_diff_refuses_a_negative_tolerance(capsys):
    assert main(["diff", str(ARM), str(ARM), "--tolerance", "-1"]) == 1
    assert "--tolerance" in capsys.readouterr()[1]
