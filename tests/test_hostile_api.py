"""Wrong arguments to the Python API follow one rule (docs/model.md, "Wrong arguments").

A value of the wrong kind raises `InvalidArgument` (a `TypeError` and a `RobodescError`) whose
message names the argument and what it takes, raised by robodesc itself: the traceback's last
frame is robodesc's code, not difflib, numpy, pluggy or the OS refusing the value later on.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fuzz_descriptions import Runner, fuzz, report

import robodesc
from robodesc import ConfigurationError, InvalidArgument, RobodescError
from robodesc.cli import main

ROOT = Path(__file__).resolve().parent.parent
ARM = ROOT / "examples" / "arm.urdf"
PACKAGE = Path(robodesc.__file__).resolve().parent
URDF = '<robot name="r"><link name="a"/></robot>'


@pytest.fixture(scope="module")
def arm() -> robodesc.Model:
    return robodesc.load(ARM)


def raised_by_robodesc(call: Callable[[], Any], argument: str) -> InvalidArgument:
    """The `InvalidArgument` that `call` raises; it names `argument` and comes from robodesc's code."""
    with pytest.raises(InvalidArgument) as info:
        call()
    error = info.value
    assert isinstance(error, TypeError) and isinstance(error, RobodescError)
    assert argument in str(error), str(error)
    last = traceback.extract_tb(info.tb)[-1].filename
    assert Path(last).resolve().is_relative_to(PACKAGE), f"raised from {last}, not robodesc"
    return error


CASES: dict[str, tuple[Callable[[robodesc.Model], Any], str]] = {
    "load(None)": (lambda m: robodesc.load(None), "path"),
    "load(3)": (lambda m: robodesc.load(3), "path"),
    "load(bytes path)": (lambda m: robodesc.load(os.fsencode(ARM)), "path"),
    "load(NUL in path)": (lambda m: robodesc.load(str(ARM) + "\0.urdf"), "path"),
    "load(search_paths=None)": (lambda m: robodesc.load(ARM, search_paths=None), "search_paths"),
    "load(search_paths=[None])": (lambda m: robodesc.load(ARM, search_paths=[None]), "search_paths[0]"),
    "load(search_paths=[NUL])": (lambda m: robodesc.load(ARM, search_paths=["a\0b"]), "search_paths[0]"),
    "load(search_paths='dir')": (lambda m: robodesc.load(ARM, search_paths="meshes"), "search_paths"),
    "load(format=123)": (lambda m: robodesc.load(ARM, format=123), "format"),
    "load(disable_plugins=None)": (lambda m: robodesc.load(ARM, disable_plugins=None), "disable_plugins"),
    "load(disable_plugins=[3])": (lambda m: robodesc.load(ARM, disable_plugins=[3]), "disable_plugins[0]"),
    "loads(None)": (lambda m: robodesc.loads(None), "text"),
    "loads(lone surrogate)": (lambda m: robodesc.loads('<robot name="\udc80"><link name="a"/></robot>'), "text"),
    "loads(format=123)": (lambda m: robodesc.loads(URDF, format=123), "format"),
    "loads(base_dir=3)": (lambda m: robodesc.loads(URDF, base_dir=3), "base_dir"),
    "check(None)": (lambda m: robodesc.check(None), "target"),
    "check(format=3)": (lambda m: robodesc.check(ARM, format=3), "format"),
    "dumps(None)": (lambda m: robodesc.dumps(None, "urdf"), "model"),
    "dumps(format=3)": (lambda m: robodesc.dumps(m, 3), "format"),
    "dump(path=None)": (lambda m: robodesc.dump(m, None), "path"),
    "forward_kinematics({3: 0.1})": (lambda m: m.forward_kinematics({3: 0.1}), "positions"),
    "forward_kinematics({None: 0.1})": (lambda m: m.forward_kinematics({None: 0.1}), "positions"),
    "forward_kinematics_batch({3: ...})": (lambda m: m.forward_kinematics_batch({3: np.zeros(2)}), "positions"),
    "body(None)": (lambda m: m.body(None), "name"),
    "body(3)": (lambda m: m.body(3), "name"),
    "children(None)": (lambda m: m.children(None), "name"),
    "pose(None)": (lambda m: m.pose(None), "name"),
    "pose(relative_to=3)": (lambda m: m.pose("base", relative_to=3), "relative_to"),
    "forward_kinematics_batch(out=[])": (
        lambda m: m.forward_kinematics_batch(np.zeros((2, m.kinematics.nq)), out=[]),
        "out",
    ),
    "register_plugin(None)": (lambda m: robodesc.register_plugin(None), "plugin"),
    "register_plugin(3)": (lambda m: robodesc.register_plugin(3), "plugin"),
    "register_plugin(no hooks)": (lambda m: robodesc.register_plugin(object(), name="hookless"), "plugin"),
    "register_plugin(name=3)": (lambda m: robodesc.register_plugin(object(), name=3), "name"),
    "unregister_plugin(None)": (lambda m: robodesc.unregister_plugin(None), "name"),
}


@pytest.mark.parametrize("case", CASES)
def test_a_wrong_argument_raises_a_type_error_naming_it_from_robodesc(arm: robodesc.Model, case: str):
    call, argument = CASES[case]
    raised_by_robodesc(lambda: call(arm), argument)


def test_a_read_only_out_array_is_refused_and_left_untouched(arm: robodesc.Model):
    q = np.zeros((3, arm.kinematics.nq))
    out = np.full((3, len(arm.kinematics.names), 4, 4), 7.0)
    out.flags.writeable = False
    error = raised_by_robodesc(lambda: arm.forward_kinematics_batch(q, out=out), "out")
    assert "read-only" in str(error)
    assert (out == 7.0).all()


def test_a_lone_surrogate_is_located_in_the_text():
    error = raised_by_robodesc(lambda: robodesc.loads('<robot name="r">\n  <link name="\ud800"/></robot>'), "text")
    assert (error.line, error.location.column) == (2, 15)


def test_a_nul_in_a_path_is_refused_before_anything_is_opened(tmp_path: Path):
    (tmp_path / "a").write_text(URDF)  # open() would stop at the NUL on some systems: never get that far
    raised_by_robodesc(lambda: robodesc.load(str(tmp_path / "a") + "\0b.urdf"), "path")


def test_a_refused_plugin_leaves_nothing_registered():
    before = {p.name for p in robodesc.list_plugins()}
    with pytest.raises(InvalidArgument):
        robodesc.register_plugin(object(), name="hookless")
    assert {p.name for p in robodesc.list_plugins()} == before
    assert robodesc.load(ARM).name == "demo_arm"


def test_right_arguments_of_every_accepted_kind_still_work(arm: robodesc.Model, tmp_path: Path):
    assert robodesc.load(ARM, search_paths=(tmp_path,), disable_plugins=[]).name == "demo_arm"
    assert robodesc.load(str(ARM), search_paths=[str(tmp_path)], disable_plugins=("mjcf",)).name == "demo_arm"
    assert robodesc.loads(URDF.encode(), base_dir=tmp_path).name == "r"
    out = np.empty((2, len(arm.kinematics.names), 4, 4))
    poses = arm.forward_kinematics_batch(np.zeros((2, arm.kinematics.nq)), out=out)
    assert poses.array is out and "base" in poses and 3 not in poses
    assert robodesc.check(str(ARM)).loaded


@pytest.mark.parametrize("as_mapping", [False, True])
def test_a_batch_too_big_for_memory_is_refused_before_allocating_naming_its_size(arm: robodesc.Model, as_mapping):
    """10**12 configurations held as a broadcast view (no memory): the result could never fit."""
    nq = arm.kinematics.nq
    count = 10**12
    if as_mapping:
        positions: Any = {"elbow": np.broadcast_to(0.0, (count,))}
    else:
        positions = np.broadcast_to(np.zeros(nq), (count, nq))
    with pytest.raises(ConfigurationError) as info:
        arm.forward_kinematics_batch(positions)
    assert "1,000,000,000,000 configurations" in str(info.value) and "GiB" in str(info.value)
    assert isinstance(info.value, RobodescError) and not isinstance(info.value, MemoryError)


@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="per-case peaks need Linux")
def test_the_fuzz_worker_measures_each_cases_own_peak_memory(tmp_path: Path):
    """A spawned worker inherits its parent's ru_maxrss across exec: after the fuzzer had held one
    large mutant, every case was a "memory" finding. The worker measures each case's own peak, so a
    small case after a large one is small again."""
    ballast = np.ones(600 * 2**20 // 8)  # this process's peak passes 600 MiB
    large = URDF.replace("<link", f"<!-- {'x' * 300 * 2**20} --><link")  # 300 MiB held by the worker
    runner = Runner(memory_mib=1024, cap_mib=4096)
    try:
        peaks = [runner.run((text, "urdf", str(tmp_path), []), timeout=120)["rss_mib"] for text in (URDF, large, URDF)]
    finally:
        runner.stop()
        del ballast
    assert peaks[0] < 300 and peaks[1] > 300 and peaks[2] < 300, peaks


@pytest.mark.fuzz
def test_structural_mutants_never_crash_hang_or_run_out_of_memory(tmp_path: Path):
    """The long run (deselected by default): `pytest -m fuzz tests/test_hostile_api.py`, for
    ROBODESC_FUZZ_SECONDS (default 600) over $ROBODESC_CORPUS or the repository's examples; each
    finding's smallest mutant is kept in the test's tmp_path."""
    seconds = float(os.environ.get("ROBODESC_FUZZ_SECONDS", "600"))
    tally = fuzz(seconds, seed=int(os.environ.get("ROBODESC_FUZZ_SEED", "0")), out=tmp_path)
    assert tally.cases
    if tally.findings:
        pytest.fail(report(tally) + f"\nexamples in {tmp_path}", pytrace=False)


# -- confined loads through the public API ---------------------------------------------------------------


def _robot_including_a_file_outside(tmp_path: Path) -> Path:
    (tmp_path / "secret.xml").write_text('<mujoco><worldbody><body name="secret"/></worldbody></mujoco>')
    (tmp_path / "robot").mkdir()
    path = tmp_path / "robot" / "r.xml"
    path.write_text('<mujoco>\n  <include file="../secret.xml"/>\n</mujoco>\n')
    return path


def test_confine_true_reads_nothing_outside_the_folder_and_search_paths(tmp_path: Path):
    path = _robot_including_a_file_outside(tmp_path)
    assert "secret" in robodesc.load(path).bodies  # the default reads it, as MuJoCo does
    with pytest.raises(robodesc.ResourceNotFound, match="outside") as info:
        robodesc.load(path, confine=True)
    assert (info.value.file, info.value.line) == (str(path), 2)
    with pytest.raises(robodesc.ResourceNotFound, match="outside"):
        robodesc.loads(path.read_text(), base_dir=path.parent, confine=True)
    assert "secret" in robodesc.load(path, search_paths=[tmp_path], confine=True).bodies
    report = robodesc.check(path, confine=True)
    assert report.failed and "outside" in report.diagnostics[0].message


def test_the_confine_flag_of_the_command_line(tmp_path: Path):
    path = _robot_including_a_file_outside(tmp_path)
    assert main(["info", str(path)]) == 0
    assert main(["info", str(path), "--confine"]) == 1
    assert main(["check", str(path), "--confine"]) == 1
    assert main(["info", str(path), "--confine", "--search-path", str(tmp_path)]) == 0


def test_confine_takes_true_or_false(tmp_path: Path):
    raised_by_robodesc(lambda: robodesc.load(ARM, confine=str(tmp_path)), "confine")
