"""What MuJoCo's engine refuses at compile time about simulation, not description: robodesc loads
the model and notes it as an ``engine-refusal`` warning at the element, where MuJoCo raises."""

from __future__ import annotations

from pathlib import Path

import pytest

import robodesc

mujoco = pytest.importorskip("mujoco")

HINGE = '<worldbody><body name="b"><joint name="j" type="{kind}" {limits}/><geom size=".1"/></body></worldbody>'


def _model(actuator: str, kind: str = "hinge", limits: str = "", compiler: str = "", option: str = "") -> str:
    return f"<mujoco>{compiler}{option}{HINGE.format(kind=kind, limits=limits)}<actuator>{actuator}</actuator></mujoco>"


CASES = {
    # name: (model, MuJoCo's message or None when MuJoCo compiles it)
    "muscle on a free hinge": (_model('<muscle joint="j"/>'), "Lengthrange computation did not converge"),
    "muscle on a ball": (_model('<muscle joint="j"/>', kind="ball"), "Lengthrange computation did not converge"),
    "jointinparent": (_model('<muscle jointinparent="j"/>'), "Lengthrange computation did not converge"),
    "limited=false": (
        _model('<muscle joint="j"/>', limits='limited="false" range="-1 1"'),
        "Lengthrange computation did not converge",
    ),
    "mode all on a motor": (
        _model('<motor joint="j"/>', compiler='<compiler><lengthrange mode="all" useexisting="false"/></compiler>'),
        "Lengthrange computation did not converge",
    ),
    "muscleuser": (
        _model(
            '<general joint="j" gaintype="user"/>', compiler='<compiler><lengthrange mode="muscleuser"/></compiler>'
        ),
        "Lengthrange computation did not converge",
    ),
    "ipc without discrete": (
        '<mujoco><option><flag ipc="enable"/></option><worldbody><body name="b"><joint/><geom size=".1"/>'
        "</body></worldbody></mujoco>",
        "flag ipc requires integrator='discrete'",
    ),
    # compiled by MuJoCo: nothing to note
    "muscle on a limited hinge": (_model('<muscle joint="j"/>', limits='range="-1 1"'), None),
    "range written": (_model('<muscle joint="j" lengthrange="0 1"/>'), None),
    "mode none": (_model('<muscle joint="j"/>', compiler='<compiler><lengthrange mode="none"/></compiler>'), None),
    "motor by default": (_model('<motor joint="j"/>'), None),
    "ipc with discrete": (
        '<mujoco><option integrator="discrete"><flag ipc="enable"/></option><worldbody><body name="b"><joint/>'
        '<geom size=".1"/></body></worldbody></mujoco>',
        None,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_engine_refusals_are_warnings(tmp_path: Path, case: str) -> None:
    xml, refusal = CASES[case]
    path = tmp_path / "model.xml"
    path.write_text(xml)
    if refusal is None:
        mujoco.MjModel.from_xml_path(str(path))
    else:
        with pytest.raises(ValueError, match=refusal.replace("(", r"\(").replace(")", r"\)")):
            mujoco.MjModel.from_xml_path(str(path))
    model = robodesc.load(path)
    notes = [d for d in model.diagnostics if d.code == "engine-refusal"]
    if refusal is None:
        assert notes == []
    else:
        assert len(notes) == 1
        assert refusal in notes[0].message
        assert notes[0].location.line == 1
        assert notes[0].location.element.rsplit("/", 1)[-1].split("[")[0] in ("muscle", "motor", "general", "flag")
