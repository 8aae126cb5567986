"""Seeing a description from the shell: `robodesc tree --dot`, `render`, `export` (and `view`'s wiring).

Each test writes the small description it needs; the files written are read back with trimesh,
Pillow or Graphviz, as the user's own tools would read them.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import trimesh

import robodesc
from robodesc.cli import main
from robodesc.core import export as export_module
from robodesc.core.errors import ExportFailed, InvalidArgument, MissingDependency

ROOT = Path(__file__).parents[1]
ARM = ROOT / "examples" / "arm.urdf"

# Names a Graphviz file must quote and escape, a body moved by two joints, a body without a joint.
MJCF = """<mujoco model='say "hi"'>
  <worldbody>
    <body name='base "one"' pos="0 0 0.1">
      <geom type="box" size="0.1 0.1 0.1" rgba="1 0 0 1"/>
      <body name="arm" pos="0 0 0.2">
        <joint name="slide\\x" type="slide" axis="1 0 0"/>
        <joint name="turn" type="hinge" axis="0 0 1"/>
        <geom type="capsule" size="0.03" fromto="0 0 0 0.3 0 0" rgba="0 0 1 1"/>
        <site name="tip" pos="0.3 0 0"/>
        <body name="welded" pos="0.3 0 0"><geom type="sphere" size="0.05"/></body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def mjcf(tmp_path: Path) -> Path:
    path = tmp_path / "robot.xml"
    path.write_text(MJCF)
    return path


# -- tree --dot ----------------------------------------------------------------------------------
def test_tree_dot_draws_bodies_as_boxes_and_joints_between_them(capsys):
    code, out, _ = run(capsys, "tree", ARM, "--dot")
    assert code == 0
    model = robodesc.load(ARM)
    assert out.startswith('digraph "demo_arm" {') and out.rstrip().endswith("}")
    for body in model.bodies:
        assert f'"body:{body}" [label="{body}"];' in out
    for joint in model.joints.values():
        assert f'"joint:{joint.name}" [shape=ellipse, label="{joint.name}\\n{joint.type}' in out
    # every body but the root is reached by exactly one edge carrying its pose in the parent
    into_bodies = re.findall(r'-> "body:([^"]+)" \[label="xyz: ([^\\]+)\\nrpy: ([^"]+)"\]', out)
    assert sorted(name for name, _, _ in into_bodies) == sorted(b for b in model.bodies if b != model.root.name)
    assert ("camera", "0 0 0.05", "0 0.3 0") in into_bodies
    assert "mimics left_finger_joint" in out


def test_tree_dot_chains_several_joints_and_escapes_names(capsys, mjcf):
    code, out, _ = run(capsys, "tree", mjcf, "--dot", "--frames")
    assert code == 0
    assert out.startswith('digraph "say \\"hi\\"" {')
    assert '"body:base \\"one\\"" -> "joint:slide\\\\x";' in out  # quotes and backslashes escaped
    assert '"joint:slide\\\\x" -> "joint:turn";' in out  # two joints of one body in a row
    assert re.search(r'"joint:turn" -> "body:arm" \[label="xyz: 0 0 0.2', out)
    assert re.search(r'"body:arm" -> "body:welded" \[label="xyz: 0.3 0 0', out)  # no joint: a plain edge
    assert '"frame:tip" [shape=note, style=dashed, label="tip"];' in out


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_graphviz_reads_the_dot_text(capsys, mjcf):
    for path in (ARM, mjcf):
        code, out, _ = run(capsys, "tree", path, "--dot", "--frames")
        assert code == 0
        drawn = subprocess.run(["dot", "-Tsvg"], input=out, capture_output=True, text=True, timeout=60)
        assert drawn.returncode == 0, drawn.stderr
        assert drawn.stderr == ""  # no syntax warnings either
        assert drawn.stdout.count('class="node"') == len(re.findall(r"^  \"[^\"]*(?:\\.[^\"]*)*\" \[", out, re.M))


# -- export --------------------------------------------------------------------------------------
def test_export_glb_holds_every_shape_at_its_posed_world_pose(capsys, tmp_path):
    out_file = tmp_path / "arm.glb"
    code, out, err = run(capsys, "export", ARM, "-o", out_file, "--set", "shoulder_pitch=0.7", "--set", "extend=0.1")
    assert (code, err) == (0, "")
    assert out.strip() == f"wrote {out_file}"
    model = robodesc.load(ARM)
    expected = model.scene({"shoulder_pitch": 0.7, "extend": 0.1})
    read = trimesh.load(out_file)
    assert sorted(read.graph.nodes_geometry) == sorted(expected.graph.nodes_geometry)
    assert np.allclose(read.bounds, expected.bounds, atol=1e-5)
    at_rest = model.scene()
    assert not np.allclose(read.bounds, at_rest.bounds, atol=1e-3)  # the configuration was applied


def test_export_uses_the_keyframe_and_the_collision_shapes(capsys, mjcf, tmp_path):
    mjcf.write_text(MJCF.replace("</worldbody>", "</worldbody><keyframe><key name='out' qpos='0.2 1.0'/></keyframe>"))
    out_file = tmp_path / "robot.glb"
    assert run(capsys, "export", mjcf, "-o", out_file, "--keyframe", "out", "--kind", "collision")[0] == 0
    expected = robodesc.load(mjcf).scene({"slide\\x": 0.2, "turn": 1.0}, kind="collision")
    assert np.allclose(trimesh.load(out_file).bounds, expected.bounds, atol=1e-5)


@pytest.mark.parametrize("extension", [".obj", ".stl", ".ply", ".dae"])
def test_export_writes_every_type_trimesh_reads_back(capsys, tmp_path, extension):
    out_file = tmp_path / f"arm{extension}"
    assert run(capsys, "export", ARM, "-o", out_file, "--set", "elbow=1")[0] == 0
    expected = robodesc.load(ARM).scene({"elbow": 1.0})
    read = trimesh.load(out_file, force="scene")
    assert np.allclose(read.bounds, expected.bounds, atol=1e-4)
    faces = sum(len(g.faces) for g in read.dump())
    assert faces == sum(len(g.faces) for g in expected.dump())


def test_an_unknown_extension_is_refused_and_the_file_there_kept(capsys, tmp_path):
    out_file = tmp_path / "arm.fbx"
    out_file.write_text("mine")
    code, out, err = run(capsys, "export", ARM, "-o", out_file)
    assert code == 1 and out == ""
    assert ".glb, .obj, .stl, .ply, .dae" in err and err.count("\n") == 1
    assert out_file.read_text() == "mine"


def test_a_failed_export_leaves_the_existing_file_and_no_debris(tmp_path, monkeypatch):
    out_file = tmp_path / "arm.glb"
    out_file.write_bytes(b"the user's file")
    scene = robodesc.load(ARM).scene()

    def broken(*args, **kwargs):
        raise RuntimeError("encoder failed half way")

    monkeypatch.setattr(trimesh.Scene, "export", broken)
    with pytest.raises(ExportFailed, match="encoder failed half way"):
        export_module.export_scene(scene, out_file)
    assert out_file.read_bytes() == b"the user's file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["arm.glb"]


def test_a_missing_folder_or_extension_is_a_robodesc_error(tmp_path):
    scene = robodesc.load(ARM).scene()
    with pytest.raises(ExportFailed, match="does not exist"):
        export_module.export_scene(scene, tmp_path / "nowhere" / "arm.glb")
    with pytest.raises(InvalidArgument, match="robot.glb"):
        export_module.export_scene(scene, tmp_path / "arm")


def test_dae_export_without_pycollada_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "collada", None)
    with pytest.raises(MissingDependency, match=r"robodesc\[meshes\]"):
        export_module.export_scene(robodesc.load(ARM).scene(), tmp_path / "arm.dae")
    assert list(tmp_path.iterdir()) == []


def test_a_missing_mesh_fails_unless_skipped_and_then_is_named(capsys, tmp_path):
    urdf = tmp_path / "r.urdf"
    urdf.write_text(
        '<robot name="r"><link name="a"><visual><geometry><mesh filename="gone.stl"/></geometry></visual>'
        '<visual><geometry><box size="1 1 1"/></geometry></visual></link></robot>'
    )
    code, out, err = run(capsys, "export", urdf, "-o", tmp_path / "r.glb")
    assert code == 1 and "gone.stl" in err and not (tmp_path / "r.glb").exists()
    code, out, err = run(capsys, "export", urdf, "-o", tmp_path / "r.glb", "--skip-missing")
    assert code == 0
    assert "warning: " in err and "a/visual/0 left out" in err and "gone.stl" in err
    assert trimesh.load(tmp_path / "r.glb").graph.nodes_geometry == ["a/visual/1"]


def test_bad_joint_values_are_one_line_errors(capsys, tmp_path):
    for argv in (["--set", "elbo=1"], ["--keyframe", "home"], ["--set", "elbow=x"]):
        code, out, err = run(capsys, "export", ARM, "-o", tmp_path / "a.glb", *argv)
        assert code == 1 and err.startswith("robodesc: error: ") and err.count("\n") == 1, (argv, err)
    assert not (tmp_path / "a.glb").exists()


# -- the examples the docs draw ------------------------------------------------------------------
def test_a_world_joint_named_without_its_model_scope_is_suggested_in_full(capsys):
    code, out, err = run(capsys, "fk", ROOT / "examples" / "pendulum_world.sdf", "--set", "shoulder=0.5")
    assert code == 1
    assert "no joint named 'shoulder'" in err and "did you mean 'double_pendulum::shoulder'?" in err


def test_the_example_files_check_clean(capsys):
    for name in ("quadruped.xml", "pendulum_world.sdf"):
        code, out, err = run(capsys, "check", "--strict", ROOT / "examples" / name)
        assert (code, err) == (0, ""), out


# -- render --------------------------------------------------------------------------------------
def png_pixels(path: Path) -> np.ndarray:
    from PIL import Image  # the meshes extra; the test extra brings it

    with Image.open(path) as image:
        return np.asarray(image.convert("RGBA"))


def test_render_writes_a_png_of_the_posed_robot_in_its_colours(capsys, tmp_path):
    quadruped = ROOT / "examples" / "quadruped.xml"
    out_file = tmp_path / "q.png"
    code, out, err = run(capsys, "render", quadruped, "-o", out_file, "--keyframe", "stride", "--size", "320x240")
    assert (code, err) == (0, "")
    assert out.strip() == f"wrote {out_file} (320x240, iso view, 15 shapes)"
    image = png_pixels(out_file)
    assert image.shape == (240, 320, 4)
    orange = (image[..., 0] > 150) & (image[..., 1] > 60) & (image[..., 1] < 140) & (image[..., 2] < 60)
    blue = (image[..., 2] > 120) & (image[..., 0] < 90)
    assert orange.sum() > 500 and blue.sum() > 300  # the torso and the legs, in the description's colours
    assert len(np.unique(image[orange][:, :3], axis=0)) > 3  # shaded, not a flat silhouette
    same = tmp_path / "same.png"
    assert run(capsys, "render", quadruped, "-o", same, "--keyframe", "stride", "--size", "320x240")[0] == 0
    assert same.read_bytes() == out_file.read_bytes()  # deterministic
    other = tmp_path / "other.png"
    argv = ("--keyframe", "stride", "--set", "front_left_hip=-1", "--size", "320x240")
    assert run(capsys, "render", quadruped, "-o", other, *argv)[0] == 0
    assert not np.array_equal(png_pixels(other), image)  # --set overrides the keyframe


def test_render_views_and_kinds_give_different_pictures(capsys, tmp_path, mjcf):
    pictures = {}
    for view in ("iso", "front", "side", "top"):
        path = tmp_path / f"{view}.png"
        assert run(capsys, "render", ARM, "-o", path, "--view", view, "--size", "64x48")[0] == 0
        pictures[view] = png_pixels(path)
    assert all(not np.array_equal(pictures[a], pictures[b]) for a in pictures for b in pictures if a < b)
    visual, collision = tmp_path / "v.png", tmp_path / "c.png"
    assert run(capsys, "render", ARM, "-o", visual, "--size", "64x48")[0] == 0
    assert run(capsys, "render", ARM, "-o", collision, "--size", "64x48", "--kind", "collision")[0] == 0
    assert not np.array_equal(png_pixels(visual), png_pixels(collision))


def test_render_argument_errors_are_caught_before_loading(capsys, tmp_path):
    for argv, says in (
        (["--size", "10x10"], "16 to 8192"),
        (["--size", "big"], "WIDTHxHEIGHT"),
        (["--view", "up"], "up"),
    ):
        code, out, err = run_usage(capsys, "render", tmp_path / "missing.urdf", "-o", tmp_path / "a.png", *argv)
        assert code == 2 and says in err and "missing.urdf" not in err


def run_usage(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_:
        main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return int(exit_.value.code or 0), out, err


def test_render_of_a_missing_mesh_fails_and_names_it_unless_skipped(capsys, tmp_path):
    urdf = tmp_path / "r.urdf"
    urdf.write_text(
        '<robot name="r"><link name="a"><visual><geometry><mesh filename="gone.stl"/></geometry></visual>'
        '<visual><geometry><box size="1 1 1"/></geometry></visual></link></robot>'
    )
    code, out, err = run(capsys, "render", urdf, "-o", tmp_path / "r.png")
    assert code == 1 and "gone.stl" in err and not (tmp_path / "r.png").exists()
    code, out, err = run(capsys, "render", urdf, "-o", tmp_path / "r.png", "--skip-missing", "--size", "32x32")
    assert code == 0 and "a/visual/0 left out" in err and "32x32, iso view, 1 shape)" in out


def test_view_without_the_viewer_extra_names_it(capsys, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "viser", None)
    code, out, err = run(capsys, "view", ARM, "--port", "0")
    assert code == 1 and err.count("\n") == 1
    assert "robodesc[viewer]" in err


def test_view_serves_the_viewer_until_interrupted(tmp_path):
    pytest.importorskip("viser", reason="the viewer extra is not installed")
    import signal
    import sys
    import urllib.request

    quadruped = ROOT / "examples" / "quadruped.xml"
    argv = [sys.executable, "-m", "robodesc", "view", str(quadruped), "--port", "0", "--keyframe", "crouch"]
    process = subprocess.Popen(
        argv + ["--set", "front_left_hip=0.3"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # printed once the server listens
        match = re.fullmatch(r"viewing 'quadruped' at (http://\S+) \(press Ctrl-C to stop\)\n", line)
        assert match, (line, process.stderr.read() if process.poll() is not None else "")
        with urllib.request.urlopen(match[1], timeout=20) as page:
            assert page.status == 200 and b"<html" in page.read().lower()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert out.strip() == "stopped"


def test_view_refuses_an_unknown_keyframe_before_serving(capsys):
    pytest.importorskip("viser", reason="the viewer extra is not installed")
    code, out, err = run(capsys, "view", ROOT / "examples" / "quadruped.xml", "--port", "0", "--keyframe", "crouh")
    assert code == 1 and "crouch" in err and err.count("\n") == 1


def test_files_written_are_readable_by_others_and_keep_a_replaced_files_mode(tmp_path):
    scene = robodesc.load(ARM).scene()
    fresh = tmp_path / "arm.glb"
    export_module.export_scene(scene, fresh)
    assert fresh.stat().st_mode & 0o777 == 0o644  # not the temporary file's private 0600
    kept = tmp_path / "kept.png"
    kept.write_bytes(b"old")
    kept.chmod(0o600)
    robodesc.write_png(robodesc.render_scene(scene, size=(32, 32)), kept)
    assert kept.stat().st_mode & 0o777 == 0o600 and kept.read_bytes().startswith(b"\x89PNG")
