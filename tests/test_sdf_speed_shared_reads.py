"""The SDF parse reads a joint axis's <limit> and <xyz> once per text in a file and shares the parsed values
between the axes of that text (`FileContext.plain_limits`, `plain_axes`): each joint of the model still holds
limits and an axis of its own, and what fails to read is refused at each element, in the order it was before.
"""

from __future__ import annotations

import pytest

import robodesc
from robodesc.core.errors import RobodescError

LINKS = '<link name="a"/><link name="b"/><link name="c"/>'


def _joint(name: str, child: str, axis: str, kind: str = "revolute") -> str:
    return f'<joint name="{name}" type="{kind}"><parent>a</parent><child>{child}</child><axis>{axis}</axis></joint>'


def _load(tmp_path, body: str, version: str = "1.9"):
    path = tmp_path / "m.sdf"
    path.write_text(f'<sdf version="{version}"><model name="m">{body}</model></sdf>')
    return robodesc.load(str(path))


def _error(tmp_path, body: str) -> tuple[str, str | None, int | None]:
    with pytest.raises(RobodescError) as caught:
        _load(tmp_path, body)
    return type(caught.value).__name__, caught.value.construct, caught.value.location.line


@pytest.mark.parametrize("version", ["1.5", "1.9"])
def test_axes_of_one_text_hold_their_own_values(tmp_path, version):
    axis = "<xyz>0 3 4</xyz><limit><lower>-1</lower><upper>2</upper><velocity>3</velocity></limit>"
    model = _load(tmp_path, LINKS + _joint("j1", "b", axis) + _joint("j2", "c", axis), version)
    one, two = model.joints["j1"], model.joints["j2"]
    assert one.axis is not two.axis and one.limits is not two.limits
    assert one.axis.tolist() == two.axis.tolist() == [0.0, 0.6, 0.8]
    assert (one.limits.lower, one.limits.upper, one.limits.velocity, one.limits.effort) == (-1.0, 2.0, 3.0, None)
    one.axis[0] = 9.0
    one.limits.lower = 7.0
    again = _load(tmp_path, LINKS + _joint("j1", "b", axis) + _joint("j2", "c", axis), version)
    assert two.axis.tolist() == again.joints["j1"].axis.tolist() == [0.0, 0.6, 0.8]
    assert two.limits.lower == again.joints["j1"].limits.lower == -1.0


def test_no_limit_and_no_xyz_are_defaults_of_their_own(tmp_path):
    model = _load(tmp_path, LINKS + _joint("j1", "b", "") + _joint("j2", "c", "", "continuous"))
    one, two = model.joints["j1"], model.joints["j2"]
    assert one.axis.tolist() == two.axis.tolist() == [0.0, 0.0, 1.0]
    assert one.axis.flags.writeable and one.axis is not two.axis and one.limits is not two.limits
    assert (one.limits.lower, one.limits.upper, one.limits.velocity, one.limits.effort) == (None,) * 4


def test_a_fault_is_refused_at_each_element(tmp_path):
    good = _joint("j1", "b", "<xyz>1 0 0</xyz><limit><lower>0</lower></limit>")
    for axis in ("<xyz>1 0 0</xyz><limit><lower>x</lower></limit>", "<xyz>0 0 0</xyz>", "<xyz>1 x 0</xyz>"):
        bad = _joint("j2", "c", axis)
        alone = _error(tmp_path, LINKS + "\n" + bad)
        after_good = _error(tmp_path, LINKS + good + "\n" + good.replace("j1", "j3").replace(">b<", ">c<") + bad)
        assert alone == after_good and alone[2] == 2


def test_a_zero_axis_is_refused_after_its_expressed_in(tmp_path):
    assert _error(tmp_path, LINKS + _joint("j1", "b", '<xyz expressed_in="__root__">0 0 0</xyz>'))[0] == "ReservedName"
    assert _error(tmp_path, LINKS + _joint("j1", "b", '<xyz expressed_in="a">0 0 0</xyz>'))[1] == "axis/xyz"
    turned = _load(tmp_path, LINKS + _joint("j1", "b", '<xyz expressed_in="a">0 0 2</xyz>'))
    assert turned.joints["j1"].axis.tolist() == [0.0, 0.0, 1.0]
