"""Hostile and huge SDF and URDF input (issue 13): depth, super-linear work, expansion, odd numbers.

Every file is built here at test time, small enough that the module runs in seconds. Each load runs
in a thread under a generous time limit (`bounded`), so a regression to super-linear work or a
hang fails its test instead of blocking the suite. Linearity is shown by counting the work (calls
of the function that follows one edge) at n and 4n, not by timing.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import robodesc
from robodesc import RobodescError
from robodesc.core.errors import InvalidValue, MalformedPose, MalformedValue, UnsupportedVersion, XMLSyntaxError
from robodesc.core.resources import ELEMENTS_VARIABLE
from robodesc.core.validation import check_finite_poses
from robodesc.formats.sdf import graph
from robodesc.formats.sdf import reader as sdf_reader
from robodesc.formats.xml import MAX_DEPTH


def bounded(function: Callable[[], Any], seconds: float = 30.0) -> Any:
    """`function()` in a thread that must finish within `seconds`; warnings are errors inside it."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                outcome["value"] = function()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def load(path: Path, seconds: float = 30.0) -> robodesc.Model:
    return bounded(lambda: robodesc.load(str(path)), seconds)


def refused(path: Path, kind: type[RobodescError], seconds: float = 30.0) -> RobodescError:
    """The error loading `path` raises: of class `kind`, naming the file and a line, short."""
    with pytest.raises(kind) as caught:
        load(path, seconds)
    error = caught.value
    assert error.file and error.line, f"not located: {error}"
    assert len(str(error)) < 1000, "the message quotes the whole value"
    return error


def sdf(tmp_path: Path, body: str, name: str = "a.sdf", version: str = "1.9") -> Path:
    path = tmp_path / name
    path.write_text(f'<sdf version="{version}">{body}</sdf>')
    return path


def urdf(tmp_path: Path, body: str, attributes: str = "") -> Path:
    path = tmp_path / "a.urdf"
    path.write_text(f'<robot name="r"{attributes}>{body}</robot>')
    return path


# -- depth: as deep as TinyXML2 reads, with no recursion ------------------------------------------
def nested_models(depth: int, start: int = 0) -> str:
    """Models m<start> ... m<depth - 1>, each holding a link `l` and the next model."""
    return "".join(f'<model name="m{i}"><link name="l"/>' for i in range(start, depth)) + "</model>" * (depth - start)


def test_models_nested_as_deep_as_tinyxml2_reads_load(tmp_path):
    depth = MAX_DEPTH - 2  # <sdf>, the models, a link: as many levels as TinyXML2 reads
    model = load(sdf(tmp_path, nested_models(depth)))
    deepest = "::".join(f"m{i}" for i in range(1, depth)) + "::l"
    assert len(model.bodies) == 1 + depth and deepest in model.bodies
    assert model.bodies[deepest].parent == "world"


def test_one_level_deeper_is_refused_at_its_line(tmp_path):
    refused(sdf(tmp_path, nested_models(MAX_DEPTH - 1)), XMLSyntaxError)


def test_scoped_names_as_deep_as_models_nest(tmp_path):
    deep = "::".join(f"m{i}" for i in range(1, 400)) + "::l"
    body = (
        '<model name="top"><link name="base"/>'
        f'<frame name="f" attached_to="x::{deep}"><pose relative_to="x::{deep}">0 0 1 0 0 0</pose></frame>'
        f'<joint name="j" type="fixed"><parent>base</parent><child>x::{deep}</child></joint>'
        f'<model name="x"><link name="l"/>{nested_models(400, start=1)}</model></model>'
    )
    model = load(sdf(tmp_path, body))
    assert model.frames["f"].body == f"x::{deep}"
    assert model.joints["j"].child == f"x::{deep}"


def test_nested_includes_load(tmp_path):
    files = 300
    for i in range(files):
        include = f"<include><uri>f{i + 1}.sdf</uri></include>" if i < files - 1 else ""
        sdf(tmp_path, f'<model name="m{i}"><link name="l"/>{include}</model>', f"f{i}.sdf")
    model = load(tmp_path / "f0.sdf")
    assert len(model.bodies) == 1 + files
    assert "::".join(f"m{i}" for i in range(1, files)) + "::l" in model.bodies


def test_an_error_deep_in_nested_includes_is_raised_where_the_file_is(tmp_path):
    files = 250
    for i in range(files):
        include = (
            f"<include><uri>f{i + 1}.sdf</uri></include>" if i < files - 1 else "<link name='l'><pose>1 2</pose></link>"
        )
        sdf(tmp_path, f'<model name="m{i}"><link name="k"/>{include}</model>', f"f{i}.sdf")
    error = refused(tmp_path / "f0.sdf", MalformedPose)
    assert error.file.endswith(f"f{files - 1}.sdf")


def test_an_include_loop_deep_in_the_tree_is_still_a_loop(tmp_path):
    for i in range(50):
        sdf(
            tmp_path,
            f'<model name="m{i}"><link name="l"/><include><uri>f{(i + 1) % 50}.sdf</uri></include></model>',
            f"f{i}.sdf",
        )
    with pytest.raises(robodesc.CyclicInclude):
        load(tmp_path / "f0.sdf")


def test_a_2000_link_urdf_chain_prints_as_a_tree(tmp_path):
    links = "".join(f'<link name="l{i}"/>' for i in range(2000))
    joints = "".join(
        f'<joint name="j{i}" type="revolute"><parent link="l{i}"/><child link="l{i + 1}"/>'
        '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
        for i in range(1999)
    )
    path = urdf(tmp_path, links + joints)
    run = subprocess.run(
        [sys.executable, "-m", "robodesc", "tree", str(path)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "l1999" in run.stdout and "Traceback" not in run.stderr


# -- linear time ------------------------------------------------------------------------------------
def count_edge_walks(monkeypatch, path: Path) -> int:
    """How often the SDF frame graph followed a reference while loading `path`."""
    calls = [0]
    original = graph.Scope.resolve_reference

    def counting(self, *args):
        calls[0] += 1
        return original(self, *args)

    monkeypatch.setattr(graph.Scope, "resolve_reference", counting)
    load(path)
    monkeypatch.setattr(graph.Scope, "resolve_reference", original)
    return calls[0]


@pytest.mark.parametrize("order", ["document", "reverse"])
def test_attached_to_chains_are_followed_once(tmp_path, monkeypatch, order):
    def chain(n: int) -> Path:
        if order == "document":  # f0 -> f1 -> ... -> the link
            frames = [f'<frame name="f{i}" attached_to="{f"f{i + 1}" if i < n - 1 else "l"}"/>' for i in range(n)]
        else:  # each frame attached to the one before it
            frames = [f'<frame name="f{i}" attached_to="{f"f{i - 1}" if i else "l"}"/>' for i in range(n)]
        return sdf(tmp_path, f'<model name="m"><link name="l"/>{"".join(frames)}</model>', f"{order}{n}.sdf")

    small, large = count_edge_walks(monkeypatch, chain(500)), count_edge_walks(monkeypatch, chain(2000))
    assert large < 6 * small, (small, large)  # linear: 4x the frames, about 4x the work (cubic before)


def test_a_huge_urdf_attribute_is_refused_without_splitting_it(tmp_path):
    numbers = "1 " * 2_000_000
    path = urdf(
        tmp_path,
        f'<link name="l"><visual><origin xyz="{numbers}"/><geometry><sphere radius="1"/></geometry></visual></link>',
    )
    error = refused(path, MalformedPose)
    assert "more than 3 value" in error.message and "4,000,000 characters" in error.message


@pytest.mark.parametrize(
    "body",
    [
        '<link name="l"><pose>{}</pose></link>',
        '<link name="l"><visual name="v"><geometry><box><size>{}</size></box></geometry>'
        "<material><diffuse>{}</diffuse></material></visual></link>",
        '<link name="l"><collision name="c"><max_contacts>{}</max_contacts></collision></link>',
    ],
)
def test_a_huge_sdf_value_is_refused_quoting_an_excerpt(tmp_path, body):
    numbers = "x " + "1 " * 2_000_000  # SDF reads a number's leading part (std::stod): this has none
    refused(sdf(tmp_path, f'<model name="m">{body.format(numbers, numbers)}</model>'), MalformedValue)


def test_a_million_numbers_in_a_vector3_sdf_reads_the_first_three(tmp_path):
    numbers = "0 0 -9.8 " + "1 " * 2_000_000
    model = load(sdf(tmp_path, f'<world name="w"><gravity>{numbers}</gravity></world>'))
    assert model.name == "w"


@pytest.mark.parametrize("kind", ["sdf", "urdf"])
def test_unknown_siblings_cost_one_diagnostic(tmp_path, kind):
    count = 20_000
    unknown = "<foo/>" * count
    path = (
        sdf(tmp_path, f'<model name="m"><link name="l"/>{unknown}</model>')
        if kind == "sdf"
        else urdf(tmp_path, f'<link name="l"/>{unknown}')
    )
    model = load(path)
    found = [d for d in model.diagnostics if d.code == "unknown-element"]
    assert len(found) == 1 and f"{count:,} <foo>" in found[0].message
    assert found[0].location.line == 1
    assert sum(1 for extra in model.extras if extra.tag == "foo") == count  # every element kept


def test_unknown_elements_under_different_parents_are_reported_apart(tmp_path):
    joint = '<joint name="j" type="fixed"><parent link="l"/><child link="k"/><foo/></joint>'
    model = load(urdf(tmp_path, f'<link name="l"><foo/><foo/></link><foo/>{joint}<link name="k"/>'))
    found = [d.message for d in model.diagnostics if d.code == "unknown-element"]
    assert len(found) == 3 and sum("2 <foo> in <link>" in m for m in found) == 1


# -- expansion: counted and refused before the work --------------------------------------------------
def doubling_includes(tmp_path: Path, files: int) -> Path:
    for i in range(files):
        includes = (
            "".join(f"<include><uri>f{i + 1}.sdf</uri><name>{n}</name></include>" for n in "ab")
            if i < files - 1
            else ""
        )
        sdf(tmp_path, f'<model name="m{i}"><link name="l"/>{includes}</model>', f"f{i}.sdf")
    return tmp_path / "f0.sdf"


def test_exponential_includes_are_refused_before_they_are_built(tmp_path):
    error = refused(doubling_includes(tmp_path, 20), InvalidValue, seconds=20)  # 2^20 links
    assert "more than the limit of 250,000" in error.message and ELEMENTS_VARIABLE in str(error.suggestion)
    assert error.element.endswith("include/uri")


def test_the_limit_can_be_raised_and_lowered(tmp_path, monkeypatch):
    path = doubling_includes(tmp_path, 8)  # 255 links, 254 models
    assert len(load(path).bodies) == 1 + 255
    monkeypatch.setenv(ELEMENTS_VARIABLE, "300")
    refused(path, InvalidValue)
    monkeypatch.setenv(ELEMENTS_VARIABLE, "many")
    with pytest.raises(InvalidValue, match=ELEMENTS_VARIABLE):
        load(path)


def test_a_merge_past_the_limit_is_refused_where_it_is_included(tmp_path, monkeypatch):
    links = "".join(f'<link name="l{i}"/>' for i in range(20))
    sdf(tmp_path, f'<model name="part">{links}</model>', "part.sdf")
    path = sdf(tmp_path, '<model name="m"><include merge="true"><uri>part.sdf</uri></include></model>', version="1.9")
    monkeypatch.setenv(ELEMENTS_VARIABLE, "10")
    error = refused(path, InvalidValue)
    assert "merging" in error.message and error.file == str(path)


# -- numbers as the references read them ---------------------------------------------------------------
@pytest.mark.parametrize("version", ["1." + "1" * 5000, "1" * 5000 + ".0", "1.²", "١.٠"])
def test_odd_versions_are_refused_not_crashed_on(tmp_path, version):
    refused(sdf(tmp_path, '<model name="m"><link name="l"/></model>', version=version), UnsupportedVersion)
    refused(urdf(tmp_path, '<link name="l"/>', f' version="{version}"'), MalformedValue)


def test_a_urdf_version_with_leading_zeros_is_1_0(tmp_path):
    assert load(urdf(tmp_path, '<link name="l"/>', ' version="01.000"')).name == "r"


@pytest.mark.parametrize(("text", "ok"), [("1" * 5000, False), ("0" * 5000 + "10", True), ("²", False)])
def test_integers_of_any_length_are_read_as_std_stoi_reads_them(tmp_path, text, ok):
    path = sdf(
        tmp_path,
        f'<model name="m"><link name="l"><collision name="c"><max_contacts>{text}</max_contacts>'
        "<geometry><sphere><radius>1</radius></sphere></geometry></collision></link></model>",
    )
    if ok:
        assert load(path).bodies["l"].collisions
    else:
        refused(path, MalformedValue)


def test_urdf_offsets_that_overflow_are_refused_at_the_joint(tmp_path):
    path = urdf(
        tmp_path,
        '<link name="a"/><link name="b"/><link name="c"/>'
        '<joint name="j" type="fixed"><parent link="a"/><child link="b"/><origin xyz="1e308 1e308 0"/></joint>'
        '<joint name="k" type="fixed"><parent link="b"/><child link="c"/><origin xyz="1e308 0 0" rpy="1 1 1"/></joint>',
    )
    error = refused(path, InvalidValue)
    assert "not finite" in error.message and "joint[@name='k']" in str(error.element)


def test_sdf_poses_that_overflow_are_refused_without_a_numpy_warning(tmp_path):
    path = sdf(
        tmp_path,
        '<model name="m"><link name="a"><pose>1e308 1e308 0 0 0 0</pose></link>'
        '<link name="b"><pose relative_to="a">1e308 1e308 0 1 1 1</pose></link></model>',
    )
    error = refused(path, InvalidValue)  # `bounded` turns any warning into an error
    assert "body 'b'" in error.message


def test_sdf_poses_are_composed_only_when_the_builders_bound_fails(tmp_path, monkeypatch):
    """The builder bounds the world poses on the poses it made (`Builder._express`): an ordinary model is
    not checked again, poses that overflow once composed are, and so are large ones that cancel (loaded)."""
    checked = []

    def check(model: robodesc.Model) -> None:
        checked.append(model.name)
        check_finite_poses(model)

    monkeypatch.setattr(sdf_reader, "check_finite_poses", check)
    joint = '<joint name="j" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 1 1</xyz></axis></joint>'
    ordinary = '<link name="a"><pose>1 2 3 0 0.5 0</pose></link><link name="b"><pose>0 0 1 1 0 0</pose></link>'
    load(sdf(tmp_path, f'<model name="ordinary">{ordinary}{joint}</model>', "o.sdf"))
    assert checked == []
    large = '<link name="a"><pose>1e308 1e308 0 0 0 0</pose></link><link name="b"><pose>1e308 0 0 0 0 0</pose></link>'
    model = load(sdf(tmp_path, f'<model name="cancel">{large}{joint}</model>', "c.sdf"))
    assert checked == ["cancel"] and model.forward_kinematics()["b"][0, 3] == 1e308
    overflowing = (
        '<link name="a"><pose>1e308 1e308 0 0 0 0</pose></link>'
        '<link name="b"><pose relative_to="a">1e308 1e308 0 1 1 1</pose></link>'
    )
    error = refused(sdf(tmp_path, f'<model name="m">{overflowing}{joint}</model>'), InvalidValue)
    assert checked[-1] == "m" and "body 'b'" in error.message


# -- includes edited with <experimental:params>: expanded with a stack, loops found, copies counted ----
def params_include(tmp_path: Path, uri: str) -> Path:
    path = tmp_path / "top.sdf"
    path.write_text(
        '<sdf version="1.9" xmlns:experimental="http://sdformat.org/schemas/experimental"><world name="w">'
        f"<include><uri>{uri}</uri><name>x</name><experimental:params>"
        '<link element_id="" name="extra" action="add"/></experimental:params></include></world></sdf>'
    )
    return path


def test_params_expand_a_deep_include_chain(tmp_path):
    files = 150
    for i in range(files):
        include = f"<include><uri>f{i + 1}.sdf</uri></include>" if i < files - 1 else ""
        sdf(tmp_path, f'<model name="m{i}"><link name="l"/>{include}</model>', f"f{i}.sdf")
    model = load(params_include(tmp_path, "f0.sdf"))
    assert "x::extra" in model.bodies and len(model.bodies) == 1 + files + 1


def test_params_refuse_exponential_copies(tmp_path, monkeypatch):
    monkeypatch.setenv(ELEMENTS_VARIABLE, "5000")  # the default is refused the same way, in a few seconds
    doubling_includes(tmp_path, 20)
    error = refused(params_include(tmp_path, "f0.sdf"), InvalidValue, seconds=20)
    assert "limit" in error.message


def test_a_pose_loop_through_a_nested_model_is_an_error_not_a_recursion(tmp_path):
    body = (
        '<model name="top"><link name="base"/><frame name="a"><pose relative_to="m::x">0 0 1 0 0 0</pose></frame>'
        '<model name="m"><pose relative_to="a">1 0 0 0 0 0</pose><link name="l"/><frame name="x"/></model></model>'
    )
    error = refused(sdf(tmp_path, body), robodesc.CyclicPoseReference)
    assert "m -> a -> m" in error.message


def test_large_offsets_that_cancel_load(tmp_path):
    """The quick bound (the sum of offsets) overflows here, so the poses are composed: they are finite."""
    path = urdf(
        tmp_path,
        '<link name="a"/><link name="b"/><link name="c"/>'
        '<joint name="j" type="fixed"><parent link="a"/><child link="b"/><origin xyz="1e308 0 0"/></joint>'
        '<joint name="k" type="fixed"><parent link="b"/><child link="c"/><origin xyz="-1e308 0 0"/></joint>',
    )
    assert load(path).forward_kinematics()["c"][0, 3] == 0.0


def test_many_unresolvable_includes_are_reported_in_linear_time():
    """Each unresolvable include builds a located error, whose element path numbers the include
    among its siblings: numbered once per parent, not once per error (20,000 took a minute)."""
    includes = "".join(f"<include><uri>model://nowhere{i}</uri></include>" for i in range(20_000))
    text = f'<sdf version="1.9"><model name="m"><link name="l"/>{includes}</model></sdf>'
    with pytest.raises(robodesc.ResourceNotFound, match="nowhere0"):
        bounded(lambda: robodesc.loads(text, format="sdf"), seconds=20)
