"""robodesc.check and the format-neutral checks: each finding triggered, clean input clean,
broken input reported instead of raised, plugins' checks included, and `robodesc check`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import mimic_chain_urdf

import robodesc
from robodesc import Body, Diagnostic, Frame, Inertial, Joint, JointType, Limits, Mimic, Model, Severity
from robodesc.cli import main
from robodesc.core.geometry import Box, Shape, Sphere

ROOT = Path(__file__).resolve().parents[1]


def urdf(joints: str = "", links: str = '<link name="a"/><link name="b">' + "{inertial}" + "</link>") -> str:
    return f'<robot name="r">{links}{joints}</robot>'


INERTIAL = '<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>'


def model_of(text: str) -> Model:
    return robodesc.loads(text, format="urdf")


def codes(report) -> list[str]:
    return [d.code for d in report.diagnostics]


def clean_model() -> Model:
    return model_of(
        urdf(
            '<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
            '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
        ).format(inertial=INERTIAL)
    )


def test_a_clean_model_has_no_findings():
    report = robodesc.check(clean_model())
    assert report.diagnostics == [] and not report.failed and report.loaded


def test_the_examples_arm_loads_and_reports_only_its_massless_fingers():
    report = robodesc.check(ROOT / "examples" / "arm.urdf")
    assert set(codes(report)) == {"movable-without-inertia"}
    assert not report.failed
    assert report.__class__(report.source, report.diagnostics, report.model, strict=True).failed


def test_a_file_that_cannot_be_loaded_is_a_report_with_its_error(tmp_path):
    path = tmp_path / "bad.urdf"
    path.write_text('<robot name="r"><link name="a"/><joint name="j" type="revolut"/></robot>')
    report = robodesc.check(path)
    assert not report.loaded and report.failed
    (finding,) = report.diagnostics
    assert finding.code == "unsupported-joint-type" and finding.location.line == 1
    assert finding.suggestion and "revolute" in finding.suggestion


def hand_model() -> Model:
    model = Model(name="m")
    model.bodies["a"] = Body("a")
    model.bodies["b"] = Body("b", parent="a", joints=("j",), inertial=Inertial(1.0, np.zeros(3), np.eye(3)))
    model.joints["j"] = Joint(
        "j", JointType.REVOLUTE, "a", "b", axis=np.array([0.0, 0.0, 1.0]), limits=Limits(-1.0, 1.0, 1.0, 1.0)
    )
    return model


@pytest.mark.parametrize(
    ("damage", "code", "severity"),
    [
        (lambda m: setattr(m.bodies["b"].inertial, "mass", float("nan")), "non-finite", Severity.ERROR),
        (lambda m: setattr(m.bodies["b"].inertial, "mass", -1.0), "negative-mass", Severity.ERROR),
        (lambda m: setattr(m.bodies["b"], "inertial", None), "movable-without-inertia", Severity.WARNING),
        (lambda m: setattr(m.bodies["b"].inertial, "mass", 0.0), "movable-without-inertia", Severity.WARNING),
        (
            lambda m: setattr(m.bodies["b"].inertial, "inertia", np.diag([1.0, 1.0, -1.0])),
            "inertia-not-positive",
            Severity.ERROR,
        ),
        (
            lambda m: setattr(m.bodies["b"].inertial, "inertia", np.diag([1.0, 1.0, 3.0])),
            "inertia-triangle",
            Severity.WARNING,
        ),
        (
            lambda m: setattr(m.bodies["b"].inertial, "inertia", np.array([[1, 0.5, 0], [0, 1, 0], [0, 0, 1.0]])),
            "inertia-not-symmetric",
            Severity.ERROR,
        ),
        (lambda m: setattr(m.joints["j"], "axis", np.zeros(3)), "axis-zero", Severity.ERROR),
        (lambda m: setattr(m.joints["j"], "axis", np.array([0.0, 0.0, 2.0])), "axis-not-unit", Severity.WARNING),
        (lambda m: setattr(m.joints["j"], "limits", Limits(1.0, -1.0)), "limits-inverted", Severity.ERROR),
        (lambda m: setattr(m.joints["j"], "limits", Limits(-1.0, 1.0, -2.0, 1.0)), "negative-limit", Severity.WARNING),
        (lambda m: setattr(m.joints["j"], "type", JointType.CONTINUOUS), "continuous-with-limits", Severity.WARNING),
        (lambda m: setattr(m.joints["j"], "mimic", Mimic("j")), "mimic-loop", Severity.ERROR),
        (
            lambda m: m.bodies["b"].collisions.append(Shape(Box(np.array([1.0, 0.0, 1.0])))),
            "shape-size",
            Severity.ERROR,
        ),
        (lambda m: m.bodies["b"].visuals.append(Shape(Sphere(-1.0))), "shape-size", Severity.WARNING),
        (lambda m: m.frames.__setitem__("f", Frame("f", "nowhere")), "invalid-tree", Severity.ERROR),
    ],
)
def test_each_format_neutral_check(damage, code, severity):
    model = hand_model()
    assert robodesc.check(model).diagnostics == []
    damage(model)
    findings = [d for d in robodesc.check(model).diagnostics if d.code == code]
    assert findings and all(d.severity is severity for d in findings)
    assert all(d.message and d.suggestion for d in findings)


def _mimic_model(leaders: dict[str, str | None]) -> Model:
    """A base body and one prismatic joint per name, following the joint named by `leaders`."""
    model = Model(name="m")
    model.bodies["base"] = Body("base")
    for name, leader in leaders.items():
        mimic = Mimic(leader) if leader else None
        model.joints[name] = Joint(name, JointType.PRISMATIC, "base", f"{name}_b", axis=(1, 0, 0), mimic=mimic)
        model.bodies[f"{name}_b"] = Body(f"{name}_b", parent="base", joints=(name,))
    return model


def test_a_loop_of_mimics_is_one_error_at_its_first_joint_and_a_joint_leading_into_it_is_none():
    # tail -> c -> a -> b -> c: the loop is a, b, c (first in the model: a); d mimics itself
    model = _mimic_model({"tail": "c", "a": "b", "b": "c", "c": "a", "d": "d", "free": None, "f": "free"})
    loops = [d for d in robodesc.check(model).diagnostics if d.code == "mimic-loop"]
    assert [(d.message, d.location) for d in loops] == [
        ("mimic joints follow each other in a loop: a -> b -> c -> a", model.joints["a"].location),
        ("joint 'd' mimics itself", model.joints["d"].location),
    ]


def test_a_chain_of_mimics_as_long_as_the_model_loads_and_checks_clean():
    count = 3000
    model = model_of(mimic_chain_urdf(count))
    assert model.kinematics.joint_names == [f"j{count - 1}"]
    assert [d for d in robodesc.check(model).diagnostics if d.code == "mimic-loop"] == []


def test_select_and_ignore_filter_by_code_prefix():
    model = hand_model()
    model.bodies["b"].inertial.mass = -1.0
    model.joints["j"].axis = np.zeros(3)
    report = robodesc.check(model)
    assert set(codes(report.filtered(select=["axis"]))) == {"axis-zero"}
    assert "axis-zero" not in codes(report.filtered(ignore=["axis"]))


@pytest.mark.plugin_crash
def test_plugins_add_checks_and_a_crashing_check_is_a_crash_of_its_plugin():
    class Extra:
        @robodesc.hookimpl
        def robodesc_checks(self, model):
            return [Diagnostic(Severity.INFO, "extra-note", f"{model.name} seen")]

    class Broken:
        @robodesc.hookimpl
        def robodesc_checks(self, model):
            raise KeyError("boom")

    robodesc.register_plugin(Extra(), name="extra-checks")
    try:
        assert "extra-note" in codes(robodesc.check(clean_model()))
        robodesc.register_plugin(Broken(), name="broken-checks")
        with pytest.raises(robodesc.PluginCrash) as info:
            robodesc.check(clean_model())
        assert info.value.plugin == "broken-checks" and info.value.hook == "robodesc_checks"
        assert isinstance(info.value.original, KeyError)
        # left out for one call, the other plugin's checks still run
        report = robodesc.check(clean_model(), disable_plugins=["broken-checks"])
        assert "extra-note" in codes(report)
    finally:
        robodesc.unregister_plugin("extra-checks")
        robodesc.unregister_plugin("broken-checks")


# -- the command ----------------------------------------------------------------------------------


def test_check_command_text_output_and_exit_status(tmp_path, capsys):
    good = tmp_path / "good.urdf"
    good.write_text(
        urdf('<joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint>').format(inertial=INERTIAL)
    )
    assert main(["check", str(good)]) == 0
    bad = tmp_path / "bad.urdf"
    bad.write_text('<robot name="r">\n<link name="a"/>\n<joint name="j" type="hinge"/>\n</robot>\n')
    capsys.readouterr()
    assert main(["check", str(good), str(bad)]) == 1
    out = capsys.readouterr().out
    assert re.search(rf"{re.escape(str(bad))}:3: error unsupported-joint-type: ", out)
    assert "suggestion:" in out
    assert out.strip().splitlines()[-1].startswith("2 files checked: 1 error(s)")


def test_check_command_strict_and_json(tmp_path, capsys):
    arm = str(ROOT / "examples" / "arm.urdf")
    assert main(["check", arm]) == 0
    assert main(["check", "--strict", arm]) == 1
    capsys.readouterr()
    assert main(["check", "--json", "--ignore", "movable", "--strict", arm]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["summary"] == {"files": 1, "failed": 0, "errors": 0, "warnings": 0, "infos": 0}
    assert payload["files"][0]["loaded"] is True


def test_check_command_walks_folders_and_skips_other_xml(tmp_path, capsys):
    (tmp_path / "robots" / "deep").mkdir(parents=True)
    (tmp_path / "robots" / "deep" / "a.urdf").write_text(urdf().format(inertial=""))
    (tmp_path / "robots" / "b.xml").write_text('<robot name="x"><link name="l"/></robot>')
    (tmp_path / "robots" / "package.xml").write_text("<package><name>p</name></package>")
    (tmp_path / "robots" / "notes.txt").write_text("not a robot")
    assert main(["check", "--json", str(tmp_path)]) == 1  # a.urdf has two roots
    payload = json.loads(capsys.readouterr().out)
    assert sorted(Path(f["file"]).name for f in payload["files"]) == ["a.urdf", "b.xml"]


def test_check_command_unreadable_input_is_status_2(tmp_path, capsys):
    assert main(["check", str(tmp_path / "missing.urdf")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["check", str(tmp_path)]) == 2  # an empty folder: nothing to check


# -- documentation --------------------------------------------------------------------------------


def test_every_code_robodesc_can_emit_is_documented():
    documented = set(re.findall(r"`([a-z0-9-]+)`", (ROOT / "docs" / "diagnostics.md").read_text()))
    emitted = set()
    for path in (ROOT / "robodesc").rglob("*.py"):
        text = path.read_text()
        emitted |= set(re.findall(r'code = "([a-z0-9-]+)"', text))
        emitted |= set(re.findall(r'Severity\.(?:ERROR|WARNING|INFO),\s*"([a-z0-9-]+)"', text))
    emitted.discard("error")  # the root class's code; every raised error has its own
    assert sorted(emitted - documented) == []
