"""Plugins as a third party ships them: out-of-tree packages with `robodesc` entry points.

Each test builds a plugin distribution in a temporary folder the way an installer lays it out
(the package, and a `NAME-VERSION.dist-info` with METADATA and entry_points.txt) and puts that
folder on `sys.path` (or PYTHONPATH, for the command in a subprocess): robodesc then finds it
through `importlib.metadata`, exactly as after `pip install`.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
import threading
import warnings
from pathlib import Path

import pytest

import robodesc
from robodesc import InvalidArgument, InvalidTree, PluginCrash, PluginError, PluginWarning
from robodesc.plugins import Registry

ROOT = Path(__file__).parents[1]
ARM = ROOT / "examples" / "arm.urdf"

# The toy format every plugin here reads: "TOY" then one "body parent [joint]" per line.
TOY_READER = """
from robodesc import Body, Joint, JointType, Model, FormatSpec, hookimpl

def read_toy(data, context):
    model = Model(name="toy")
    for line in data.decode().splitlines()[1:]:
        parts = line.split()
        if not parts:
            continue
        name, parent, joints = parts[0], (None if parts[1] == "-" else parts[1]), tuple(parts[2:])
        model.bodies[name] = Body(name, parent=parent, joints=joints)
        for joint in joints:
            if not joint.startswith("ghost"):
                model.joints[joint] = Joint(joint, JointType.REVOLUTE, parent, name)
    return model
"""


def make_plugin(site: Path, dist: str, module: str, body: str, entry_points: dict[str, str] | None = None) -> Path:
    """Write package `module` and the dist-info of distribution `dist` (version 1.0) into `site`."""
    (site / module).mkdir(parents=True)
    (site / module / "__init__.py").write_text(TOY_READER + textwrap.dedent(body))
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    points = entry_points or {dist: module}
    (info / "entry_points.txt").write_text("[robodesc]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()))
    return site


@pytest.fixture()
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder on sys.path that plugins are 'installed' into; their modules are forgotten afterwards."""
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    before = set(sys.modules)
    yield folder
    for name in set(sys.modules) - before:
        if name.startswith("toyplug"):
            del sys.modules[name]


def fresh_registry(**kwargs) -> Registry:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PluginWarning)
        registry = Registry(**kwargs)
        registry.formats()
    return registry


def run_command(args: list[str], site: Path, cwd: Path, env: dict[str, str] | None = None):
    environment = {k: v for k, v in os.environ.items() if k != "ROBODESC_DISABLE_PLUGINS"}
    environment.update(PYTHONPATH=str(site), **(env or {}))
    return subprocess.run(args, cwd=cwd, env=environment, capture_output=True, text=True, timeout=120)


GREEDY = """
def read_anything(data, context):
    return Model("greedy", bodies={"g": Body("g")})

@hookimpl
def robodesc_formats():
    return [FormatSpec("greedy", (".URDF", ".toy"), read=read_anything, sniff=lambda head: True)]
"""


# -- which reader reads a file ----------------------------------------------------------------------


def test_a_greedy_plugin_claiming_urdf_never_reads_urdf_files(site: Path):
    make_plugin(site, "toyplug-greedy", "toyplug_greedy", GREEDY)
    registry = Registry()
    with pytest.warns(PluginWarning, match="greedy.*claims .urdf files like format 'urdf'"):
        model = registry.load(ARM)
    assert model.format == "urdf" and model.name == "demo_arm"
    assert registry.loads(ARM.read_bytes()).format == "urdf"  # sniffing asks robodesc's formats first
    assert registry.load(ARM, format="greedy").name == "greedy"  # still reachable by name


def test_a_plugin_offering_format_urdf_leaves_robodesc_check_working(site: Path, tmp_path: Path):
    make_plugin(
        site,
        "toyplug-urdf",
        "toyplug_urdf",
        """
        @hookimpl
        def robodesc_formats():
            return [FormatSpec("urdf", (".urdf",), read=read_toy)]
        """,
    )
    folder = tmp_path / "descriptions"  # a folder holding one URDF, as examples/ once did
    folder.mkdir()
    (folder / ARM.name).write_bytes(ARM.read_bytes())
    result = run_command([sys.executable, "-m", "robodesc", "check", str(folder)], site, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "1 file checked" in result.stdout
    assert "toyplug-urdf" in result.stderr and "robodesc's is used" in result.stderr


@pytest.mark.parametrize("how", ["python -m robodesc from the checkout", "the console script elsewhere"])
def test_the_reader_does_not_depend_on_how_or_where_robodesc_runs(site: Path, tmp_path: Path, how: str):
    make_plugin(site, "toyplug-greedy", "toyplug_greedy", GREEDY)
    if how.startswith("python"):
        command, cwd = [sys.executable, "-m", "robodesc"], ROOT
    else:
        script = Path(sys.executable).with_name("robodesc")
        if not script.exists():
            pytest.skip("the console script is not installed next to this Python")
        command, cwd = [str(script)], tmp_path
    result = run_command([*command, "info", str(ARM)], site, cwd)
    assert result.returncode == 0, result.stderr
    assert "model:" in result.stdout and "demo_arm" in result.stdout
    assert "format:         urdf" in result.stdout or "format: urdf" in " ".join(result.stdout.split())
    assert "greedy" in result.stderr  # the warning names the plugin that lost


def test_third_party_claimants_are_decided_by_content_in_a_fixed_order(site: Path, tmp_path: Path):
    make_plugin(
        site,
        "toyplug-a",
        "toyplug_a",
        """
        @hookimpl
        def robodesc_formats():
            return [FormatSpec("toy-a", (".toy",), read=read_toy, sniff=lambda head: head.startswith(b"TOY A"))]
        """,
    )
    make_plugin(
        site,
        "toyplug-b",
        "toyplug_b",
        """
        @hookimpl
        def robodesc_formats():
            return [FormatSpec("toy-b", (".toy",), read=read_toy, sniff=lambda head: head.startswith(b"TOY"))]
        """,
    )
    registry = fresh_registry()
    a, b = tmp_path / "a.toy", tmp_path / "b.toy"
    a.write_text("TOY A\nbase -\n")
    b.write_text("TOY B\nbase -\n")
    with pytest.warns(PluginWarning):
        assert registry.load(a).format == "toy-a"  # both sniff it: the first by plugin name wins
    with pytest.warns(PluginWarning, match="toyplug-a"):
        assert registry.load(b).format == "toy-b"
    neither = tmp_path / "c.toy"
    neither.write_text("nothing\n")
    with pytest.raises(robodesc.FormatError, match="several formats claim .toy"):
        registry.load(neither)


def test_a_fragment_test_decides_what_a_folder_walk_checks_and_a_crashing_one_is_reported(site: Path, tmp_path: Path):
    make_plugin(
        site,
        "toyplug-frag",
        "toyplug_frag",
        """
        def fragment(data):
            if b"crash" in data:
                raise KeyError("boom")
            return data.startswith(b"PART")

        @hookimpl
        def robodesc_formats():
            return [FormatSpec("toy-frag", (".toy",), read=read_toy, fragment=fragment)]
        """,
    )
    registry = fresh_registry()
    for name, text in (("whole.toy", "base -\n"), ("part.toy", "PART\n"), ("crash.toy", "crash\n")):
        (tmp_path / name).write_text(text)
    assert not registry.is_fragment(str(tmp_path / "whole.toy"), b"base -\n")
    assert registry.is_fragment(str(tmp_path / "part.toy"), b"PART\n")
    with pytest.warns(PluginWarning, match="fragment test of format 'toy-frag' failed: KeyError"):
        assert not registry.is_fragment(str(tmp_path / "crash.toy"), b"crash\n")  # checked like any file
    assert "toyplug-frag" in str(registry.problems) or "toyplug_frag" in str(registry.problems)
    result = run_command([sys.executable, "-m", "robodesc", "check", "--json", str(tmp_path)], site, tmp_path)
    checked = sorted(Path(entry["file"]).name for entry in json.loads(result.stdout)["files"])
    assert checked == ["crash.toy", "whole.toy"]  # the part is left out; the crash is no reason to skip


# -- hooks through pluggy ---------------------------------------------------------------------------


def test_wrapper_and_ordering_hooks_behave_as_pluggy_documents(site: Path):
    make_plugin(
        site,
        "toyplug-hooks",
        "toyplug_hooks",
        """
        from robodesc import hookimpl
        calls = []

        @hookimpl(wrapper=True)
        def robodesc_model_loaded(model, context):
            calls.append("wrapper before")
            result = yield
            calls.append("wrapper after")
            return result

        class Late:
            @hookimpl(trylast=True)
            def robodesc_model_loaded(self, model, context):
                calls.append("trylast")

        class Early:
            @hookimpl(tryfirst=True)
            def robodesc_model_loaded(self, model, context):
                calls.append("tryfirst")
        """,
    )
    import toyplug_hooks

    registry = fresh_registry()
    registry.register(toyplug_hooks.Late(), "late")
    registry.register(toyplug_hooks.Early(), "early")
    registry.load(ARM)
    assert toyplug_hooks.calls == ["wrapper before", "tryfirst", "trylast", "wrapper after"]


@pytest.mark.plugin_crash
def test_a_failing_wrapper_is_blamed_on_its_plugin(site: Path):
    make_plugin(
        site,
        "toyplug-wrap",
        "toyplug_wrap",
        """
        @hookimpl(wrapper=True)
        def robodesc_model_loaded(model, context):
            result = yield
            raise ZeroDivisionError("after the others")
        """,
    )
    registry = fresh_registry()
    with pytest.raises(PluginCrash) as info:
        registry.load(ARM)
    assert info.value.plugin == "toyplug-wrap" and isinstance(info.value.original, ZeroDivisionError)


# -- what plugins return is checked -----------------------------------------------------------------


@pytest.mark.parametrize(
    "returned, problem",
    [
        ("{'toy': 1}", "returned dict, not a list of FormatSpec"),
        ("None", "returned NoneType, not a list of FormatSpec"),
        ("[FormatSpec('', ('.toy',), read=read_toy)]", "the name '' is empty"),
        ("[FormatSpec('toy', ('toy',), read=read_toy)]", "extension 'toy' must start with a dot"),
        ("[FormatSpec('toy', '.toy', read=read_toy)]", "extensions must be a tuple"),
        ("['toy']", "str is not a FormatSpec"),
    ],
)
def test_an_invalid_formats_result_is_reported_against_its_plugin(site: Path, returned: str, problem: str):
    make_plugin(site, "toyplug-bad", "toyplug_bad", f"\n@hookimpl\ndef robodesc_formats():\n    return {returned}\n")
    registry = Registry()
    with pytest.warns(PluginWarning, match="toyplug-bad"):
        formats = registry.formats()
    assert {"urdf", "sdf", "mjcf"} <= set(formats) and "toy" not in formats
    assert any(problem in p for p in registry.problems["toyplug-bad"]), registry.problems
    assert registry.load(ARM).format == "urdf"


def test_one_bad_spec_leaves_the_plugins_good_ones_working(site: Path, tmp_path: Path):
    make_plugin(
        site,
        "toyplug-mixed",
        "toyplug_mixed",
        """
        @hookimpl
        def robodesc_formats():
            return [FormatSpec("", (".x",), read=read_toy), FormatSpec("toy", (".toy",), read=read_toy)]
        """,
    )
    registry = fresh_registry()
    path = tmp_path / "r.toy"
    path.write_text("TOY\nbase -\narm base j1\n")
    assert list(registry.load(path).bodies) == ["base", "arm"]
    (info,) = [p for p in registry.plugins() if p.name == "toyplug-mixed"]
    assert info.formats == ["toy"] and info.problems and info.distribution == "toyplug-mixed"


def test_checks_returning_something_else_are_reported_and_skipped(site: Path):
    make_plugin(
        site,
        "toyplug-checks",
        "toyplug_checks",
        """
        from robodesc import Diagnostic, Severity

        @hookimpl
        def robodesc_checks(model):
            return [Diagnostic(Severity.INFO, "toy-seen", "seen"), "not a diagnostic"]

        class Worse:
            @hookimpl
            def robodesc_checks(self, model):
                return "everything is fine"
        """,
    )
    import toyplug_checks

    registry = fresh_registry()
    registry.register(toyplug_checks.Worse(), "worse")
    with pytest.warns(PluginWarning) as caught:
        report = registry.check(ARM)
    assert [d.code for d in report.diagnostics if d.code.startswith("toy")] == ["toy-seen"]
    messages = " ".join(str(w.message) for w in caught)
    assert "'toyplug-checks'" in messages and "str where a Diagnostic belongs" in messages
    assert "'worse'" in messages and "returned str, not a list of Diagnostic" in messages


TOY_PLUGIN = """
@hookimpl
def robodesc_formats():
    return [FormatSpec("toy", (".toy",), read=read_toy)]
"""


@pytest.mark.parametrize(
    "text, message",
    [
        ("TOY\nbase -\narm base ghost1\n", "body 'arm' names joint 'ghost1', which does not exist"),
        ("TOY\nbase -\narm nowhere j1\n", "body 'arm' names parent 'nowhere', which does not exist"),
        ("TOY\nbase -\nother -\n", "has 2 roots ('base', 'other')"),
        ("TOY\na b j1\nb a j2\n", "form a loop of parents"),
        ("TOY\n", "has no bodies"),
    ],
)
def test_a_plugin_model_that_is_not_a_tree_is_refused_naming_the_plugin(site, tmp_path, capsys, text, message):
    make_plugin(site, "toyplug-toy", "toyplug_toy", TOY_PLUGIN)
    registry = fresh_registry()
    path = tmp_path / "broken.toy"
    path.write_text(text)
    with pytest.raises(InvalidTree) as info:
        registry.load(path)
    assert message in str(info.value)
    assert "the 'toy' reader of plugin 'toyplug-toy'" in str(info.value)


def test_the_command_line_reports_a_plugin_model_that_is_not_a_tree(site, tmp_path):
    make_plugin(site, "toyplug-toy", "toyplug_toy", TOY_PLUGIN)
    path = tmp_path / "broken.toy"
    path.write_text("TOY\nbase -\narm base ghost1\n")
    for command in ("info", "tree", "fk", "check"):
        result = run_command([sys.executable, "-m", "robodesc", command, str(path)], site, tmp_path)
        assert result.returncode == 1, (command, result.stderr)
        assert "Traceback" not in result.stderr and "KeyError" not in result.stderr
        assert "ghost1" in result.stdout + result.stderr


def test_bodies_out_of_order_are_put_in_order(site: Path, tmp_path: Path):
    make_plugin(site, "toyplug-toy", "toyplug_toy", TOY_PLUGIN)
    path = tmp_path / "shuffled.toy"
    path.write_text("TOY\nhand arm j2\narm base j1\nbase -\nfoot base j3\n")
    model = fresh_registry().load(path)
    assert list(model.bodies) == ["base", "arm", "hand", "foot"]
    assert set(model.forward_kinematics({"j1": 0.5})) >= {"base", "arm", "hand", "foot"}


def test_check_reports_what_kinematics_would_trip_on(site: Path, tmp_path: Path):
    make_plugin(
        site,
        "toyplug-mimic",
        "toyplug_mimic",
        """
        from robodesc import Mimic

        @hookimpl
        def robodesc_formats():
            def read(data, context):
                model = read_toy(data, context)
                model.joints["j1"].mimic = Mimic("j2")
                model.joints["j2"].mimic = Mimic("j1")
                return model
            return [FormatSpec("toy", (".toy",), read=read)]
        """,
    )
    registry = fresh_registry()
    path = tmp_path / "loop.toy"
    path.write_text("TOY\nbase -\narm base j1\nhand arm j2\n")
    with pytest.raises(robodesc.RobodescError):
        registry.load(path).forward_kinematics()
    report = registry.check(path)
    assert report.failed and any("j1" in d.message and d.severity == "error" for d in report.diagnostics)


# -- crashes stay with the plugin that crashed ------------------------------------------------------


@pytest.mark.plugin_crash
def test_a_resolver_that_raises_is_blamed_on_the_resolver(site: Path):
    make_plugin(
        site,
        "toyplug-resolver",
        "toyplug_resolver",
        """
        @hookimpl
        def robodesc_resolve_uri(uri, context):
            raise KeyError(uri)
        """,
    )
    registry = fresh_registry()
    urdf = (
        '<robot name="r"><link name="a"><visual><geometry><mesh filename="m.stl"/></geometry></visual></link></robot>'
    )
    with pytest.raises(PluginCrash) as info:
        registry.loads(urdf, format="urdf")
    crash = info.value
    assert crash.plugin == "toyplug-resolver" and crash.hook == "robodesc_resolve_uri"
    assert not isinstance(crash, robodesc.ReaderCrash) and "reader" not in str(crash)
    assert isinstance(crash.original, KeyError)
    # left out for one load, the built-in resolver answers
    model = registry.loads(urdf, format="urdf", disable_plugins=["toyplug-resolver"])
    assert model.bodies["a"].visuals[0].geometry.uri == "m.stl"


def test_a_resolver_returning_a_non_path_is_a_plugin_error(site: Path):
    make_plugin(
        site, "toyplug-r2", "toyplug_r2", "\n@hookimpl\ndef robodesc_resolve_uri(uri, context):\n    return 42\n"
    )
    urdf = (
        '<robot name="r"><link name="a"><visual><geometry><mesh filename="m.stl"/></geometry></visual></link></robot>'
    )
    with pytest.raises(PluginError, match="'toyplug-r2' returned int from robodesc_resolve_uri"):
        fresh_registry().loads(urdf, format="urdf")


@pytest.mark.plugin_crash
def test_writer_crashes_and_wrong_results_name_the_plugin(site: Path):
    make_plugin(
        site,
        "toyplug-w",
        "toyplug_w",
        """
        @hookimpl
        def robodesc_formats():
            def crash(model, context):
                return model.nothing_here
            return [
                FormatSpec("w-crash", (".wc",), write=crash),
                FormatSpec("w-bytes", (".wb",), write=lambda model, context: b"x"),
            ]
        """,
    )
    registry = fresh_registry()
    model = registry.load(ARM)
    with pytest.raises(PluginCrash) as info:
        registry.dumps(model, "w-crash")
    assert info.value.plugin == "toyplug-w" and isinstance(info.value.original, AttributeError)
    with pytest.raises(PluginError, match="returned bytes, not text"):
        registry.dumps(model, "w-bytes")


# -- seeing and steering plugins --------------------------------------------------------------------


def test_disabled_plugins_are_never_imported(site: Path, monkeypatch: pytest.MonkeyPatch):
    make_plugin(site, "toyplug-greedy", "toyplug_greedy", GREEDY + "\nraise RuntimeError('must not be imported')\n")
    monkeypatch.setenv("ROBODESC_DISABLE_PLUGINS", "someone-else, toyplug-greedy")
    registry = Registry()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PluginWarning)  # nothing to warn about: the plugin is not loaded
        assert registry.load(ARM).format == "urdf"
    assert "toyplug_greedy" not in sys.modules
    assert {p.name: p.status for p in registry.plugins()}["toyplug-greedy"] == "disabled"


def test_plugins_can_be_left_out_of_one_call_by_entry_point_or_distribution_name(site: Path, tmp_path: Path):
    make_plugin(site, "toyplug-dist", "toyplug_toy", TOY_PLUGIN, {"toy-entry": "toyplug_toy"})
    registry = fresh_registry()
    path = tmp_path / "r.toy"
    path.write_text("TOY\nbase -\n")
    assert registry.load(path).format == "toy"
    for name in ("toy-entry", "toyplug-dist"):
        with pytest.raises(robodesc.FormatError):
            registry.load(path, disable_plugins=[name])
    with pytest.raises(PluginError, match="no plugin named 'toy-entri'") as info:
        registry.load(path, disable_plugins=["toy-entri"])
    assert "toy-entry" in info.value.suggestion
    assert registry.load(path).format == "toy"  # only that call


def test_plugins_command_lists_every_plugin(site: Path, tmp_path: Path):
    make_plugin(site, "toyplug-toy", "toyplug_toy", TOY_PLUGIN)
    make_plugin(site, "toyplug-broken", "toyplug_broken", "\nraise ImportError('no such thing')\n")
    make_plugin(
        site, "toyplug-resolver", "toyplug_resolver", "\n@hookimpl\ndef robodesc_resolve_uri(uri, context):\n    pass\n"
    )
    result = run_command([sys.executable, "-m", "robodesc", "plugins"], site, tmp_path)
    assert result.returncode == 0, result.stderr
    lines = {line.split()[0]: line for line in result.stdout.splitlines() if line and not line.startswith(" ")}
    assert "robodesc 0.1.0" in lines["urdf"] and "formats: urdf" in lines["urdf"] and "checks" in lines["urdf"]
    assert "toyplug-toy 1.0" in lines["toyplug-toy"] and "formats: toy" in lines["toyplug-toy"]
    assert "resolves URIs" in lines["toyplug-resolver"]
    assert "failed" in lines["toyplug-broken"]
    assert "ImportError: no such thing" in result.stdout
    disabled = run_command(
        [sys.executable, "-m", "robodesc", "--disable-plugin", "toyplug-toy", "plugins"], site, tmp_path
    )
    assert "disabled" in next(line for line in disabled.stdout.splitlines() if line.startswith("toyplug-toy"))


def test_formats_command_shows_conflicts(site: Path, tmp_path: Path):
    make_plugin(site, "toyplug-greedy", "toyplug_greedy", GREEDY)
    make_plugin(site, "toyplug-toy", "toyplug_toy", TOY_PLUGIN)
    make_plugin(site, "toyplug-toy2", "toyplug_toy2", TOY_PLUGIN)
    result = run_command([sys.executable, "-m", "robodesc", "formats"], site, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "toy: toyplug-toy, toyplug-toy2" in result.stdout  # a name offered twice: unusable
    assert ".urdf: urdf (plugin urdf) reads; also claimed by greedy (plugin toyplug-greedy)" in result.stdout


def test_check_reports_a_format_name_conflict_per_file(site: Path, tmp_path: Path):
    make_plugin(site, "toyplug-toy", "toyplug_toy", TOY_PLUGIN)
    make_plugin(site, "toyplug-toy2", "toyplug_toy2", TOY_PLUGIN)
    folder = tmp_path / "robots"
    folder.mkdir()
    (folder / "r.toy").write_text("TOY\nbase -\n")
    result = run_command([sys.executable, "-m", "robodesc", "check", str(folder)], site, tmp_path)
    assert "no description files found" not in result.stderr
    assert result.returncode == 1
    assert "r.toy" in result.stdout and "toyplug-toy, toyplug-toy2" in result.stdout


# -- first use from many threads ---------------------------------------------------------------------


def _first_loads(registry: Registry, count: int) -> list[object]:
    """`count` threads make the registry's first load at once; what each got."""
    barrier = threading.Barrier(count)
    results: list[object] = []

    def first_load() -> None:
        barrier.wait()
        try:
            results.append(registry.load(ARM).format)
        except Exception as exc:  # noqa: BLE001 - collected and asserted by the caller
            results.append(exc)

    threads = [threading.Thread(target=first_load) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_the_first_load_from_many_threads_sees_every_format():
    for _ in range(5):
        assert _first_loads(Registry(), 8) == ["urdf"] * 8


# -- the Python surface -------------------------------------------------------------------------------


def test_load_takes_a_path_a_pathlib_path_or_a_binary_file():
    assert robodesc.load(str(ARM)).name == robodesc.load(ARM).name == "demo_arm"
    with open(ARM, "rb") as handle:
        model = robodesc.load(handle)
    assert model.name == "demo_arm" and model.source == str(ARM)
    assert robodesc.load(io.BytesIO(ARM.read_bytes()), format="urdf").name == "demo_arm"


@pytest.mark.parametrize("bad", [42, None, ["a.urdf"], io.StringIO("<robot/>")])
def test_load_refuses_anything_else_with_a_robodesc_error(bad):
    with pytest.raises(InvalidArgument) as info:
        robodesc.load(bad)
    assert isinstance(info.value, TypeError) and info.value.suggestion


def test_loads_and_search_paths_refuse_wrong_kinds():
    with pytest.raises(InvalidArgument):
        robodesc.loads(42)
    with pytest.raises(InvalidArgument, match="a list of folders"):
        robodesc.load(ARM, search_paths="meshes")


def test_the_formats_package_imports_and_formats_is_still_callable():
    import robodesc.formats.urdf

    assert callable(robodesc.formats.urdf.robodesc_formats)
    assert {f.name for f in robodesc.formats()} >= {"urdf", "sdf", "mjcf"}
    assert robodesc.CheckReport is type(robodesc.check(ARM))


def test_the_longest_claimed_extension_decides(site: Path, tmp_path: Path):
    make_plugin(
        site,
        "toyplug-ext",
        "toyplug_ext",
        """
        @hookimpl
        def robodesc_formats():
            return [FormatSpec("short", (".toyx",), read=read_toy),
                    FormatSpec("long", (".urdf.toyx",), read=read_toy)]
        """,
    )
    registry = fresh_registry()  # (endings no installed plugin claims: robodesc-xacro claims .xacro)
    for name, expected in (("robot.urdf.toyx", "long"), ("robot.toyx", "short")):
        path = tmp_path / name
        path.write_text("TOY\nbase -\n")
        assert registry.load(path).format == expected


def test_a_plugin_reports_bad_syntax_of_its_own_format_as_a_located_syntax_error(site: Path, tmp_path: Path):
    make_plugin(
        site,
        "toyplug-json",
        "toyplug_json",
        """
        import json
        from robodesc import DescriptionSyntaxError, Location

        def read_json(data, context):
            try:
                json.loads(data)
            except json.JSONDecodeError as exc:
                where = Location(file=context.source, line=exc.lineno, column=exc.colno)
                raise DescriptionSyntaxError(f"not JSON: {exc.msg}", location=where) from None
            return read_toy(b"TOY\\nbase -\\n", context)

        @hookimpl
        def robodesc_formats():
            return [FormatSpec("toyjson", (".tj",), read=read_json)]
        """,
    )
    path = tmp_path / "bad.tj"
    path.write_text('{"links": [\n  "base",\n]}\n')
    registry = fresh_registry()
    with pytest.raises(robodesc.DescriptionSyntaxError) as info:
        registry.load(path)
    assert (info.value.file, info.value.line) == (str(path), 3)
    (finding,) = registry.check(path).diagnostics
    assert finding.code == "syntax-error" and finding.location.line == 3


@pytest.mark.plugin_crash
def test_a_reader_crash_names_plugin_format_and_file(site: Path, tmp_path: Path):
    make_plugin(
        site,
        "toyplug-crash",
        "toyplug_crash",
        """
        @hookimpl
        def robodesc_formats():
            return [FormatSpec("toy", (".toy",), read=lambda data, context: data.split()[99])]
        """,
    )
    path = tmp_path / "short.toy"
    path.write_text("TOY\n")
    with pytest.raises(robodesc.ReaderCrash) as info:
        fresh_registry().load(path)
    crash = info.value
    assert (crash.plugin, crash.hook, crash.file) == ("toyplug-crash", "read", str(path))
    assert isinstance(crash.original, IndexError) and "the 'toy' reader" in str(crash)
