"""The `robodesc` command line: output contents, JSON shapes, exit codes and error lines."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import robodesc
from robodesc.cli import main

ROOT = Path(__file__).parents[1]
ARM = ROOT / "examples" / "arm.urdf"

DIAG_URDF = """<robot name="diag">
  <link name="a"><visual><geometry><box size="1 1 1"/></geometry><material name="nowhere"/></visual></link>
  <link name="b"/>
  <joint name="free" type="floating"><parent link="a"/><child link="b"/></joint>
</robot>
"""


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
        ("diagnostics", 0),
    ]:
        assert re.search(rf"^{key}:\s+{value}$", out, re.M), key
    assert re.search(r"^root body:\s+base$", out, re.M)
    assert re.search(r"^total mass:\s+8\.5$", out, re.M)
    rows = [line.split() for line in out.splitlines() if line.startswith("  ")]
    assert rows[0] == ["name", "type", "lower", "upper", "velocity", "effort"]
    assert rows[1:] == [
        ["base_yaw", "revolute", "-3.14", "3.14", "2", "40"],
        ["shoulder_pitch", "revolute", "-1.57", "1.57", "2", "30"],
        ["elbow", "continuous", "-", "-", "-", "-"],
        ["extend", "prismatic", "0", "0.2", "0.5", "100"],
        ["left_finger_joint", "prismatic", "0", "0.04", "0.1", "10"],
    ]
    assert "diagnostics:\n" not in out


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
        "diagnostics": 0,
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
    assert data["diagnostics"] == []


def test_info_lists_diagnostics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "diag.urdf"
    path.write_text(DIAG_URDF)
    expected = [str(d) for d in robodesc.load(path).diagnostics]
    assert expected, "the fixture should produce a diagnostic"
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


# -- formats -----------------------------------------------------------------------------------
def test_formats(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "formats")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:5] == ["name", "extensions", "read", "write", "plugin"]
    urdf = next(line.split() for line in lines if line.startswith("urdf "))
    assert urdf[:5] == ["urdf", ".urdf", "yes", "no", "urdf"]


def test_formats_lists_broken_plugins(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    registry = robodesc.default_registry()
    registry.formats()
    monkeypatch.setitem(registry.broken, "exploding", "cannot be loaded (exploding:x): ImportError: boom")
    code, out, _ = run(capsys, "formats")
    assert code == 0
    assert "plugins that failed to load:" in out
    assert "exploding: cannot be loaded (exploding:x): ImportError: boom" in out


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


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["info"], ["fk", str(ARM), "--bogus"]])
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "usage:" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv", [["--help"], ["info", "--help"], ["tree", "--help"], ["fk", "-h"], ["formats", "--help"]]
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
