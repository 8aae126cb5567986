"""The `robodesc` command line: output contents, JSON shapes, exit codes and error lines."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

import robodesc
from robodesc.cli import EXIT_BROKEN_PIPE, cli_wording, main

ROOT = Path(__file__).parents[1]
ARM = ROOT / "examples" / "arm.urdf"

DIAG_URDF = """<robot name="diag">
  <link name="a"><visual><geometry><box size="1 1 1"/></geometry><material name="nowhere"/></visual></link>
  <link name="b"/>
  <joint name="free" type="floating"><parent link="a"/><child link="b"/></joint>
</robot>
"""


# An MJCF site may share its body's name: body 'arm' carries a site 'arm' half a metre out.
CLASH_MJCF = """<mujoco model="clash">
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 0 1"/>
      <geom type="sphere" size="0.1" mass="1"/>
      <site name="arm" pos="0.5 0 0"/>
      <site name="tip" pos="1 0 0"/>
    </body>
  </worldbody>
  <keyframe>
    <key name="home" qpos="0.5"/>
    <key name="back" qpos="-1"/>
  </keyframe>
</mujoco>
"""


@pytest.fixture
def clash(tmp_path: Path) -> Path:
    path = tmp_path / "clash.xml"
    path.write_text(CLASH_MJCF)
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(err: str, path: Path | str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("robodesc: error: ")
    assert str(path) in lines[0]
    assert "Traceback" not in err


# -- info --------------------------------------------------------------------------------------
def test_info_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "info", ARM)
    assert code == 0 and err == ""
    assert re.search(r"^model:\s+demo_arm$", out, re.M)
    assert re.search(r"^format:\s+urdf$", out, re.M)
    assert re.search(r"^source:\s+.*arm\.urdf$", out, re.M)
    for key, value in [
        ("bodies", 8),
        ("joints", 7),
        ("movable joints", 5),
        ("frames", 0),
        ("visuals", 4),
        ("collisions", 1),
        ("extras", 2),
        ("diagnostics", 3),  # what `check` finds: three massless moving bodies
    ]:
        assert re.search(rf"^{key}:\s+{value}$", out, re.M), key
    assert re.search(r"^root body:\s+base$", out, re.M)
    assert re.search(r"^total mass:\s+8\.5$", out, re.M)
    table = out.split("movable joints (configuration order):\n")[1].split("\n\n")[0]
    rows = [line.split() for line in table.splitlines()]
    assert rows[0] == ["name", "type", "lower", "upper", "velocity", "effort"]
    assert rows[1:] == [
        ["base_yaw", "revolute", "-3.14", "3.14", "2", "40"],
        ["shoulder_pitch", "revolute", "-1.57", "1.57", "2", "30"],
        ["elbow", "continuous", "-", "-", "-", "-"],
        ["extend", "prismatic", "0", "0.2", "0.5", "100"],
        ["left_finger_joint", "prismatic", "0", "0.04", "0.1", "10"],
    ]
    assert out.count("warning movable-without-inertia") == 3


def test_info_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "info", ARM, "--json")
    assert code == 0
    data = json.loads(out)
    model = robodesc.load(ARM)
    assert data["name"] == "demo_arm"
    assert data["format"] == "urdf"
    assert data["source"].endswith("arm.urdf")
    assert data["root"] == "base"
    assert data["total_mass"] == pytest.approx(8.5)
    assert data["counts"] == {
        "bodies": 8,
        "joints": 7,
        "movable_joints": 5,
        "frames": 0,
        "visuals": 4,
        "collisions": 1,
        "extras": 2,
        "diagnostics": 3,
    }
    assert [j["name"] for j in data["movable_joints"]] == model.movable_joints()
    yaw = data["movable_joints"][0]
    assert yaw == {
        "name": "base_yaw",
        "type": "revolute",
        "lower": -3.14,
        "upper": 3.14,
        "velocity": 2.0,
        "effort": 40.0,
    }
    elbow = data["movable_joints"][2]
    assert elbow["type"] == "continuous" and elbow["lower"] is None and elbow["upper"] is None
    assert [d["code"] for d in data["diagnostics"]] == ["movable-without-inertia"] * 3


def test_info_lists_diagnostics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "diag.urdf"
    path.write_text(DIAG_URDF)
    expected = [str(d) for d in robodesc.check(path).diagnostics]
    assert robodesc.load(path).diagnostics, "the fixture should produce a diagnostic while loading"
    code, out, _ = run(capsys, "info", path)
    assert code == 0
    assert "diagnostics:" in out
    for text in expected:
        assert text in out
    code, out, _ = run(capsys, "info", path, "--json")
    data = json.loads(out)
    assert data["counts"]["diagnostics"] == len(expected)
    assert [d["text"] for d in data["diagnostics"]] == expected
    assert data["diagnostics"][0]["code"] == "undefined-material"


def test_info_reports_what_check_reports(capsys: pytest.CaptureFixture[str]) -> None:
    # Loading the arm notices nothing; the checks find three massless moving bodies.
    assert robodesc.load(ARM).diagnostics == []
    code, out, _ = run(capsys, "check", ARM, "--json")
    assert code == 0
    found = json.loads(out)["files"][0]["diagnostics"]
    assert len(found) == 3
    code, out, _ = run(capsys, "info", ARM, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["counts"]["diagnostics"] == len(found)
    assert [{k: v for k, v in d.items() if k != "text"} for d in data["diagnostics"]] == found
    code, out, _ = run(capsys, "info", ARM)
    assert re.search(r"^diagnostics:\s+3$", out, re.M)
    for d in found:
        assert f"{d['file']}:{d['line']}: {d['element']}: {d['severity']} {d['code']}: {d['message']}" in out


def test_info_format_and_search_path_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # No extension: --format says what it is.
    path = tmp_path / "robot.txt"
    path.write_text(ARM.read_text())
    code, out, _ = run(capsys, "info", path, "--format", "urdf", "--search-path", tmp_path, "--search-path", ROOT)
    assert code == 0
    assert "demo_arm" in out


# -- tree --------------------------------------------------------------------------------------
def test_tree(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "tree", ARM)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "base"
    assert lines[1] == "└── shoulder  [base_yaw: revolute -3.14..3.14]"

    def indent(name: str) -> int:
        line = next(line for line in lines if re.search(rf"── {name}  \[", line))
        return line.index("── ")

    # Each child sits two columns further in than its parent.
    assert indent("upper_arm") == indent("shoulder") + 2
    assert indent("forearm") == indent("upper_arm") + 2
    assert indent("slider") == indent("camera") == indent("forearm") + 2
    assert indent("left_finger") == indent("right_finger") == indent("slider") + 2
    assert "[elbow: continuous]" in out
    assert "[extend: prismatic 0..0.2]" in out
    assert "[camera_mount: fixed]" in out
    assert "right_finger_joint: prismatic -0.04..0 (mimics left_finger_joint)" in out
    # Children in model order, the last one closed with └──.
    assert out.index("slider") < out.index("camera")
    assert re.search(r"├── slider", out) and re.search(r"└── camera", out)


def test_tree_frames(clash: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "tree", clash)
    assert code == 0
    assert out.splitlines() == ["world", "└── arm  [hinge: continuous]"]
    code, out, _ = run(capsys, "tree", clash, "--frames")
    assert code == 0
    # Frames come first below their body, marked; the site sharing the body's name is listed too.
    assert out.splitlines() == [
        "world",
        "└── arm  [hinge: continuous]",
        "  ├── arm  (frame)",
        "  └── tip  (frame)",
    ]


def test_tree_frames_before_child_bodies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sites.xml"
    path.write_text(
        '<mujoco model="m"><worldbody><body name="a"><geom size=".1"/><site name="s"/>'
        '<body name="b"><joint name="j"/><geom size=".1"/></body></body></worldbody></mujoco>'
    )
    code, out, _ = run(capsys, "tree", path, "--frames")
    assert code == 0
    assert out.splitlines() == [
        "world",
        "└── a  [no joint]",
        "  ├── s  (frame)",
        "  └── b  [j: continuous]",
    ]


def test_tree_of_a_deep_chain(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    depth = 1500  # deeper than Python's default recursion limit
    path = tmp_path / "chain.urdf"
    path.write_text(big_urdf(depth, chain=True))
    code, out, err = run(capsys, "tree", path)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == depth
    assert lines[-1] == " " * (2 * (depth - 2)) + f"└── link_{depth - 1}  [joint_{depth - 1}: revolute -1..1]"


# -- fk ----------------------------------------------------------------------------------------
def parse_fk(out: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    poses = {}
    for line in out.splitlines():
        m = re.fullmatch(r"(\S+)\s+xyz=\(([^)]*)\)\s+rpy=\(([^)]*)\)", line)
        assert m, line
        poses[m[1]] = (np.array([float(v) for v in m[2].split(",")]), np.array([float(v) for v in m[3].split(",")]))
    return poses


def test_fk_matches_model(capsys: pytest.CaptureFixture[str]) -> None:
    values = {"base_yaw": 0.4, "shoulder_pitch": -0.3, "elbow": 1.1, "extend": 0.1, "left_finger_joint": 0.02}
    argv = ["fk", ARM]
    for name, value in values.items():
        argv += ["--set", f"{name}={value}"]
    code, out, err = run(capsys, *argv)
    assert code == 0 and err == ""
    expected = robodesc.load(ARM).forward_kinematics(values)
    printed = parse_fk(out)
    assert set(printed) == set(expected)
    for name, (xyz, rpy) in printed.items():
        assert xyz == pytest.approx(expected[name][:3, 3], abs=1e-6)
        rotation = robodesc.core.transforms.rpy_to_matrix(*rpy)
        assert rotation == pytest.approx(expected[name][:3, :3], abs=1e-5)
    assert re.search(r"xyz=\(-?\d+\.\d{6}, -?\d+\.\d{6}, -?\d+\.\d{6}\)", out)


def test_fk_prints_model_order(clash: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for path in (ARM, clash):
        model = robodesc.load(path)
        code, out, _ = run(capsys, "fk", path)
        assert code == 0
        bodies_then_frames = list(model.bodies) + [f"frame:{n}" if n in model.bodies else n for n in model.frames]
        assert list(parse_fk(out)) == bodies_then_frames
        code, out, _ = run(capsys, "fk", path, "--json")
        assert list(json.loads(out)) == bodies_then_frames


def test_fk_frame_sharing_a_body_name(clash: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "fk", clash)
    assert code == 0
    poses = parse_fk(out)
    assert poses["arm"][0] == pytest.approx([0, 0, 1])  # the body
    assert poses["frame:arm"][0] == pytest.approx([0.5, 0, 1])  # the site of the same name
    assert poses["tip"][0] == pytest.approx([1, 0, 1])
    code, out, _ = run(capsys, "fk", clash, "--frame", "frame:arm", "--frame", "arm", "--frame", "frame:tip", "--json")
    assert code == 0
    data = json.loads(out)
    assert list(data) == ["frame:arm", "arm", "tip"]
    assert np.array(data["frame:arm"])[:3, 3] == pytest.approx([0.5, 0, 1])
    assert np.array(data["arm"])[:3, 3] == pytest.approx([0, 0, 1])


def test_fk_relative_to(clash: Path, capsys: pytest.CaptureFixture[str]) -> None:
    values = {"base_yaw": 0.4, "shoulder_pitch": -0.3, "elbow": 1.1}
    sets = [a for name, value in values.items() for a in ("--set", f"{name}={value}")]
    code, out, _ = run(capsys, "fk", ARM, *sets, "--relative-to", "forearm", "--json")
    assert code == 0
    data = json.loads(out)
    world = robodesc.load(ARM).forward_kinematics(values)
    assert np.array(data["forearm"]) == pytest.approx(np.eye(4), abs=1e-12)
    for name in ("base", "camera", "left_finger"):
        assert np.array(data[name]) == pytest.approx(np.linalg.inv(world["forearm"]) @ world[name], abs=1e-9)
    # Relative to a frame, including one that shares a body's name.
    code, out, _ = run(capsys, "fk", clash, "--relative-to", "frame:arm", "--frame", "tip", "--frame", "arm")
    assert code == 0
    poses = parse_fk(out)
    assert poses["tip"][0] == pytest.approx([0.5, 0, 0])
    assert poses["arm"][0] == pytest.approx([-0.5, 0, 0])


def test_fk_relative_to_unknown_name(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "fk", ARM, "--relative-to", "forarm")
    assert code == 1 and out == ""
    assert_one_line_error(err, ARM)
    assert "--relative-to 'forarm'" in err and "did you mean 'forearm'?" in err


def test_fk_keyframe(clash: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "fk", clash, "--keyframe", "home", "--frame", "tip")
    assert code == 0
    xyz, rpy = parse_fk(out)["tip"]
    assert xyz == pytest.approx([np.cos(0.5), np.sin(0.5), 1]) and rpy == pytest.approx([0, 0, 0.5])
    # --set overrides the keyframe, whatever the order on the command line.
    code, out, _ = run(capsys, "fk", clash, "--set", "hinge=0", "--keyframe", "home", "--frame", "tip")
    assert code == 0
    assert parse_fk(out)["tip"][0] == pytest.approx([1, 0, 1])


def test_fk_unknown_keyframe(clash: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "fk", clash, "--keyframe", "hme")
    assert code == 1 and out == ""
    assert_one_line_error(err, clash)
    assert "no keyframe named 'hme'" in err and "did you mean 'home'?" in err
    assert "known keyframes: 'home', 'back'" in err
    code, _, err = run(capsys, "fk", ARM, "--keyframe", "home")
    assert code == 1
    assert_one_line_error(err, ARM)
    assert "no keyframe named 'home'" in err and "has none" in err


def test_fk_default_is_reference(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "fk", ARM)
    assert code == 0
    assert parse_fk(out)["upper_arm"][0] == pytest.approx([0.0, 0.0, 0.4])


def test_fk_frame_filter_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "fk", ARM, "--set", "base_yaw=1.0", "--frame", "camera", "--frame", "shoulder")
    assert code == 0
    assert list(parse_fk(out)) == ["camera", "shoulder"]

    code, out, _ = run(capsys, "fk", ARM, "--set", "base_yaw=1.0", "--frame", "camera", "--json")
    assert code == 0
    data = json.loads(out)
    assert list(data) == ["camera"]
    expected = robodesc.load(ARM).forward_kinematics({"base_yaw": 1.0})["camera"]
    assert np.array(data["camera"]) == pytest.approx(expected)

    code, out, _ = run(capsys, "fk", ARM, "--json")
    data = json.loads(out)
    assert set(data) == set(robodesc.load(ARM).forward_kinematics())
    assert all(np.array(pose).shape == (4, 4) for pose in data.values())


def test_fk_multi_value_joint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "free.urdf"
    path.write_text(DIAG_URDF)
    code, out, _ = run(capsys, "fk", path, "--set", "free=1,2,3,1,0,0,0", "--frame", "b")
    assert code == 0
    xyz, rpy = parse_fk(out)["b"]
    assert xyz == pytest.approx([1, 2, 3]) and rpy == pytest.approx([0, 0, 0])
    code, _, err = run(capsys, "fk", path, "--set", "free=1,2")
    assert code == 1
    assert_one_line_error(err, path)
    assert "7 value(s)" in err


@pytest.mark.parametrize(
    "setting, needle",
    [
        ("elbw=1", "no joint named 'elbw'"),
        ("elbow=abc", "not a number"),
        ("elbow=nan", "not finite"),
        ("elbow", "JOINT=VALUE"),
        ("right_finger_joint=0.01", "mimics 'left_finger_joint'"),
        ("camera_mount=1", "fixed"),
    ],
)
def test_fk_bad_set_is_error(capsys: pytest.CaptureFixture[str], setting: str, needle: str) -> None:
    code, out, err = run(capsys, "fk", ARM, "--set", setting)
    assert code == 1
    assert out == ""
    assert_one_line_error(err, ARM)
    assert needle in err


def test_fk_unknown_frame_is_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "fk", ARM, "--frame", "cam")
    assert code == 1
    assert_one_line_error(err, ARM)
    assert "did you mean 'camera'" in err


# -- check -------------------------------------------------------------------------------------
def test_check_json_and_input_format(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check", ARM, "--format", "urdf", "--json", "--search-path", ROOT)
    assert code == 0 and err == ""
    payload = json.loads(out)
    assert payload["files"][0]["loaded"] is True
    assert payload["summary"] == {"files": 1, "failed": 0, "errors": 0, "warnings": 3, "infos": 0}
    # --format names the input: read as MJCF, the arm is not a valid file.
    code, out, _ = run(capsys, "check", ARM, "--format", "mjcf", "--json")
    assert code == 1
    (found,) = json.loads(out)["files"][0]["diagnostics"]
    assert found["code"] == "missing-root" and "MJCF" in found["message"]
    assert found["suggestion"] == "is this the right format? use --format NAME to choose another"


def test_check_format_names_the_input_only(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check", "--format", "json", ARM)  # no format is called json
    assert code == 1
    assert "unknown format 'json'" in out
    with pytest.raises(SystemExit):
        main(["check", "--input-format", "urdf", str(ARM)])  # one spelling per meaning


# -- broken pipes ------------------------------------------------------------------------------
def big_urdf(count: int, chain: bool = False) -> str:
    """A URDF with `count` links: a chain, or a binary tree (link i hangs below link (i-1)//2)."""
    parts = ['<robot name="big">', '<link name="link_0"/>']
    for i in range(1, count):
        parent = i - 1 if chain else (i - 1) // 2
        parts.append(
            f'<link name="link_{i}"/><joint name="joint_{i}" type="revolute"><parent link="link_{parent}"/>'
            f'<child link="link_{i}"/><origin xyz="0 0 0.1"/><axis xyz="0 0 1"/>'
            '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
        )
    parts.append("</robot>")
    return "\n".join(parts)


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("big") / "big.urdf"
    path.write_text(big_urdf(5000))
    return path


# Python as a shell starts it: buffered output (with PYTHONUNBUFFERED, argparse itself swallows a
# broken pipe while printing --help, and `robodesc --help` into a closed pipe ends with status 0).
BUFFERED = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}


def assert_quiet_end(err: str) -> None:
    assert "Traceback" not in err and "Exception ignored" not in err and "BrokenPipe" not in err, err


@pytest.mark.parametrize(
    "command, first",
    [("tree", "link_0"), ("info", "model:"), ("fk", "link_0"), ("check", str)],
)
def test_output_into_head(big: Path, command: str, first: object) -> None:
    """`robodesc COMMAND big.urdf | head -1`: one line, no traceback, status 141."""
    with tempfile.TemporaryFile() as errors:
        producer = subprocess.Popen(
            [sys.executable, "-m", "robodesc", command, str(big)],
            cwd=ROOT,
            env=BUFFERED,
            stdout=subprocess.PIPE,
            stderr=errors,
        )
        assert producer.stdout is not None
        line = producer.stdout.readline().decode()
        producer.stdout.close()  # the reader goes away with hundreds of kilobytes still to come
        status = producer.wait(timeout=120)
        errors.seek(0)
        err = errors.read().decode()
    assert line.startswith(str(big) if first is str else str(first)), line
    assert_quiet_end(err)
    assert status == EXIT_BROKEN_PIPE == 141


@pytest.mark.parametrize(
    "argv", [["formats"], ["plugins"], ["--help"], ["info", str(ARM)], ["check", str(ARM), "--json"], ["fk", str(ARM)]]
)
def test_output_into_a_closed_pipe(argv: list[str]) -> None:
    """Even a short output meets a closed pipe when its reader is gone before it is written."""
    read, write = os.pipe()
    os.close(read)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "robodesc", *argv],
            cwd=ROOT,
            env=BUFFERED,
            stdout=write,
            stderr=subprocess.PIPE,
            timeout=120,
        )
    finally:
        os.close(write)
    assert_quiet_end(result.stderr.decode())
    assert result.returncode == EXIT_BROKEN_PIPE


def test_errors_into_a_closed_pipe(tmp_path: Path) -> None:
    """`2>&1 | head` with the reader gone: the error line cannot be written either; still no noise."""
    read, write = os.pipe()
    os.close(read)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "robodesc", "info", str(tmp_path / "missing.urdf")],
            cwd=ROOT,
            env=BUFFERED,
            stdout=write,
            stderr=write,
            timeout=120,
        )
    finally:
        os.close(write)
    assert result.returncode == EXIT_BROKEN_PIPE


# -- formats -----------------------------------------------------------------------------------
def test_formats(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "formats")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:5] == ["name", "extensions", "read", "write", "plugin"]
    urdf = next(line.split() for line in lines if line.startswith("urdf "))
    assert urdf[:5] == ["urdf", ".urdf", "yes", "yes", "urdf"]


def test_formats_lists_plugin_problems(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    registry = robodesc.default_registry()
    registry.formats()
    exploding = robodesc.PluginInfo("exploding", status="failed", problems=["cannot be loaded (exploding:x): boom"])
    monkeypatch.setitem(registry._info, "exploding", exploding)
    code, out, _ = run(capsys, "formats")
    assert code == 0
    assert "plugin problems:" in out
    assert "exploding: cannot be loaded (exploding:x): boom" in out
    code, out, _ = run(capsys, "plugins")
    assert code == 0
    assert re.search(r"^exploding\s+-\s+failed\s+-$", out, re.M)
    assert re.search(r"^urdf\s+robodesc \S+\s+active\s+formats: urdf; checks$", out, re.M)
    code, out, _ = run(capsys, "plugins", "--json")
    entries = {e["name"]: e for e in json.loads(out)}
    assert entries["resolver"]["resolves_uris"] and entries["resolver"]["builtin"]
    assert entries["exploding"]["status"] == "failed"


# -- errors and usage --------------------------------------------------------------------------
def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nope.urdf"
    for command in ("info", "tree", "fk"):
        code, out, err = run(capsys, command, path)
        assert code == 1 and out == ""
        assert_one_line_error(err, path)


def test_malformed_urdf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.urdf"
    path.write_text('<robot name="x"><link name="a"></robot>')
    code, out, err = run(capsys, "info", path)
    assert code == 1 and out == ""
    assert_one_line_error(err, path)


def test_invalid_urdf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nolimit.urdf"
    path.write_text(
        '<robot name="x"><link name="a"/><link name="b"/>'
        '<joint name="j" type="revolute"><parent link="a"/><child link="b"/></joint></robot>'
    )
    code, _, err = run(capsys, "tree", path)
    assert code == 1
    assert_one_line_error(err, path)


def test_unknown_format(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "info", ARM, "--format", "nosuch")
    assert code == 1
    assert_one_line_error(err, ARM)
    assert "unknown format 'nosuch'" in err


@pytest.mark.parametrize(
    "library, cli",
    [
        ("pass format=... (one of mjcf, sdf, urdf)", "use --format NAME (one of mjcf, sdf, urdf)"),
        (
            "is this the right format? pass format=... to choose another",
            "is this the right format? use --format NAME to choose another",
        ),
        ("pass format='urdf'", "use --format urdf"),
        ("pass format=NAME (one of mjcf, urdf)", "use --format NAME (one of mjcf, urdf)"),
        ("pass format=<name>", "use --format NAME"),
        ("pass search_paths=DIRS", "use --search-path DIR"),
        ("pass search_paths=[...] or set ROS_PACKAGE_PATH", "use --search-path DIR or set ROS_PACKAGE_PATH"),
        ("give search_paths=['models/'] to load()", "give --search-path DIR to load()"),
        ('use rotation_format="euler_rpy" (6 values)', 'use rotation_format="euler_rpy" (6 values)'),
        ("did you mean 'elbow'?", "did you mean 'elbow'?"),
    ],
)
def test_cli_wording(library: str, cli: str) -> None:
    assert cli_wording(library) == cli


def test_errors_name_cli_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    unknown = tmp_path / "robot.txt"
    unknown.write_text("<robot-ish/>")
    code, _, err = run(capsys, "info", unknown)
    assert code == 1
    assert_one_line_error(err, unknown)
    assert "use --format NAME (one of " in err and "format=" not in err
    world = tmp_path / "world.sdf"
    world.write_text('<sdf version="1.9"><world name="w"><include><uri>model://nowhere</uri></include></world></sdf>')
    code, _, err = run(capsys, "tree", world)
    assert code == 1
    assert_one_line_error(err, world)
    assert "--search-path DIR" in err and "search_paths" not in err


def test_findings_name_cli_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mesh.urdf"
    path.write_text(
        '<robot name="r"><link name="a"><visual><geometry><mesh filename="package://nopkg/m.stl"/></geometry>'
        "</visual></link></robot>"
    )
    assert "search_paths=" in str(robodesc.check(path).diagnostics)
    for argv in (["check", path], ["check", path, "--json"], ["info", path], ["info", path, "--json"]):
        code, out, _ = run(capsys, *argv)
        assert "mesh-not-found" in out
        assert "--search-path DIR" in out and "search_paths" not in out, argv


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["info"], ["fk", str(ARM), "--bogus"]])
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "usage:" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv", [["--help"], ["info", "--help"], ["tree", "--help"], ["fk", "-h"], ["check", "-h"], ["formats", "--help"]]
)
def test_help_exits_0(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 0
    assert "usage: robodesc" in capsys.readouterr().out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"robodesc {robodesc.__version__}"


def test_python_dash_m(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "robodesc", "info", "examples/arm.urdf"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "demo_arm" in result.stdout

    result = subprocess.run(
        [sys.executable, "-m", "robodesc", "info", str(tmp_path / "missing.urdf")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert result.stderr.startswith("robodesc: error: ")
    assert "Traceback" not in result.stderr


# -- check: what cannot be read is reported, never skipped ------------------------------------------
EXIT_UNREADABLE = 2  # docs/cli.md, "Exit status and errors"


def _check_command(folder: Path, *prefix: str) -> subprocess.CompletedProcess[str]:
    """`robodesc check --json folder` in a subprocess, so a read that blocks fails the test by its
    timeout instead of hanging the run."""
    command = [*prefix, sys.executable, "-m", "robodesc", "check", "--json", str(folder)]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_check_reports_links_to_nowhere_fifos_and_devices_in_a_folder(tmp_path: Path) -> None:
    """None of these can be read by anyone (a FIFO would block, /dev/zero never ends): each is
    named with the reason on stderr and in the JSON, the good file is still checked, and the exit
    status is the one for unreadable input."""
    (tmp_path / "good.urdf").write_text(DIAG_URDF)
    (tmp_path / "gone.urdf").symlink_to(tmp_path / "nowhere.urdf")
    os.mkfifo(tmp_path / "pipe.urdf")
    os.mkfifo(tmp_path / "pipe.xml")
    (tmp_path / "zero.sdf").symlink_to("/dev/zero")
    result = _check_command(tmp_path)
    assert result.returncode == EXIT_UNREADABLE, result.stderr
    report = json.loads(result.stdout)
    assert [f["file"] for f in report["files"]] == [str(tmp_path / "good.urdf")]
    reasons = {Path(u["path"]).name: u["reason"] for u in report["unreadable"]}
    assert reasons == {
        "gone.urdf": "a link to a file that does not exist",
        "pipe.urdf": "not a regular file",
        "pipe.xml": "not a regular file",
        "zero.sdf": "not a regular file",
    }
    for name, reason in reasons.items():
        assert f"robodesc: error: cannot read {tmp_path / name}: {reason}" in result.stderr


def _as_nobody() -> list[str]:
    """A command prefix that drops root's right to read anything; [] when not running as root."""
    if os.geteuid() != 0:
        return []
    if not Path("/usr/bin/setpriv").exists():
        pytest.skip("running as root without setpriv: root reads files whatever their mode")
    return ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def test_check_reports_a_file_and_a_folder_it_may_not_read() -> None:
    prefix = _as_nobody()
    with tempfile.TemporaryDirectory() as top:
        folder = Path(top) / "robots"
        (folder / "locked").mkdir(parents=True)
        (folder / "locked" / "hidden.urdf").write_text(DIAG_URDF)
        (folder / "good.urdf").write_text(DIAG_URDF)
        (folder / "secret.urdf").write_text(DIAG_URDF)
        (folder / "secret.xml").write_text(CLASH_MJCF)
        os.chmod(top, 0o755)
        os.chmod(folder, 0o755)
        for private in ("secret.urdf", "secret.xml", "locked"):
            os.chmod(folder / private, 0)
        try:
            result = _check_command(folder, *prefix)
        finally:
            os.chmod(folder / "locked", 0o755)
    assert result.returncode == EXIT_UNREADABLE, result.stderr
    report = json.loads(result.stdout)
    assert [Path(f["file"]).name for f in report["files"]] == ["good.urdf"]
    reasons = {Path(u["path"]).name: u["reason"] for u in report["unreadable"]}
    assert reasons == {
        "locked": "Permission denied",
        "secret.urdf": "permission denied",
        "secret.xml": "permission denied",
    }
    assert f"cannot read {folder / 'locked'}: Permission denied" in result.stderr


def test_one_shot_commands_do_not_load_the_numba_kernel(tmp_path):
    """`robodesc fk`, a conversion and a scene compute one configuration: with robodesc[fast]
    installed they still use numpy, since loading numba and its cached kernel costs about a second."""
    path = tmp_path / "arm.urdf"
    path.write_text(
        '<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="revolute"><parent link="a"/>'
        '<child link="b"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>'
    )
    script = (
        "import sys, robodesc\n"
        "from robodesc.cli import main\n"
        f"assert main(['fk', {str(path)!r}, '--set', 'j=0.5']) == 0\n"
        f"robodesc.dumps(robodesc.load({str(path)!r}), 'mjcf')\n"
        f"robodesc.load({str(path)!r}).scene()\n"
        "print('numba' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False"
