"""The plugin system: format registry, detection, third-party plugins, hooks and broken plugins."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import warnings

import pytest

import robodesc
import robodesc.plugins.manager as manager
from robodesc import (
    Body,
    FormatError,
    FormatSpec,
    Model,
    PluginError,
    PluginWarning,
    RobodescError,
    hookimpl,
)
from robodesc.plugins import Registry, default_registry

URDF = '<robot name="r"><link name="a"/></robot>'
URDF_WITH_MESH = (
    '<robot name="r"><link name="a"><visual><geometry><mesh filename="{uri}"/></geometry></visual></link></robot>'
)


@pytest.fixture()
def register():
    """Register plugins on the default registry for one test; always unregistered afterwards."""
    names: list[str] = []

    def _register(plugin, name):
        names.append(robodesc.register_plugin(plugin, name=name))
        return names[-1]

    yield _register
    for name in reversed(names):
        robodesc.unregister_plugin(name)


def format_names(registry=None) -> set[str]:
    return set((registry or default_registry()).formats())


# -- the built-in format -------------------------------------------------------------------------------


def test_urdf_format_is_listed_with_its_plugin_and_extension():
    formats = {f.name: f for f in robodesc.formats()}
    assert "urdf" in formats
    spec = formats["urdf"]
    assert spec.plugin == "urdf"
    assert ".urdf" in spec.extensions
    assert spec.can_read


def test_urdf_comes_from_the_robodesc_entry_point_group():
    eps = importlib.metadata.entry_points(group="robodesc")
    by_name = {ep.name: ep for ep in eps}
    assert "urdf" in by_name
    assert by_name["urdf"].value == "robodesc.formats.urdf"


def test_public_formats_function_still_works_after_a_load():
    # regression: importing robodesc.formats.urdf (which any load does) used to rebind
    # robodesc.formats from the function to the subpackage
    import robodesc.formats.urdf  # noqa: F401

    robodesc.loads(URDF, format="urdf")
    assert callable(robodesc.formats)
    specs = robodesc.formats()
    assert "urdf" in {f.name for f in specs}


# -- format detection -------------------------------------------------------------------------------


def test_detect_by_extension(tmp_path):
    path = tmp_path / "robot.URDF"  # extension matching ignores case
    path.write_text(URDF)
    model = robodesc.load(path)
    assert model.format == "urdf"
    assert model.source == str(path)


def test_detect_by_sniffing_an_xml_file(tmp_path):
    path = tmp_path / "robot.xml"
    path.write_text('<?xml version="1.0"?>\n<!-- generated -->\n<robot name="sniffed"><link name="a"/></robot>')
    model = robodesc.load(path)
    assert model.name == "sniffed"
    assert model.format == "urdf"


def test_loads_without_format_sniffs():
    assert robodesc.loads(URDF).format == "urdf"


def test_undetectable_xml_raises_format_error(tmp_path):
    path = tmp_path / "thing.xml"
    path.write_text('<?xml version="1.0"?>\n<notarobot/>\n')
    with pytest.raises(FormatError) as info:
        robodesc.load(path)
    assert "thing.xml" in str(info.value)
    assert "urdf" in info.value.suggestion


def test_unknown_format_name_suggests_a_close_one():
    with pytest.raises(FormatError) as info:
        robodesc.loads(URDF, format="urfd")
    assert "'urfd'" in str(info.value)
    assert "did you mean" in info.value.suggestion
    assert "'urdf'" in info.value.suggestion


def test_unknown_format_name_without_close_match_lists_formats():
    with pytest.raises(FormatError) as info:
        robodesc.loads(URDF, format="collada-zzz")
    assert "urdf" in info.value.suggestion


def test_missing_file_is_resource_not_found(tmp_path):
    with pytest.raises(robodesc.ResourceNotFound) as info:
        robodesc.load(tmp_path / "nope.urdf")
    assert "nope.urdf" in str(info.value)


# -- a third-party plugin registered at run time -----------------------------------------------------

LINKS_MAGIC = b"LINKS-V1"


def _read_links(data: bytes, context) -> Model:
    """A toy format: 'LINKS-V1' then one link name per line, each the child of the previous."""
    lines = data.decode().split("\n")[1:]
    names = [n.strip() for n in lines if n.strip()]
    model = Model(name="chain")
    parent = None
    for name in names:
        model.bodies[name] = Body(name, parent=parent)
        parent = name
    return model


class LinksPlugin:
    def __init__(self):
        self.loaded: list[tuple[Model, object]] = []

    @hookimpl
    def robodesc_formats(self):
        return [
            FormatSpec(
                name="links",
                extensions=(".links",),
                read=_read_links,
                sniff=lambda head: head.startswith(LINKS_MAGIC),
                description="test format",
            )
        ]

    @hookimpl
    def robodesc_model_loaded(self, model, context):
        self.loaded.append((model, context))


def test_third_party_format_end_to_end(register, tmp_path):
    plugin = LinksPlugin()
    assert "links" not in format_names()
    name = register(plugin, "links-plugin")
    assert name == "links-plugin"

    spec = default_registry().formats()["links"]
    assert spec.plugin == "links-plugin"
    assert spec.extensions == (".links",)

    # by extension
    path = tmp_path / "arm.links"
    path.write_bytes(LINKS_MAGIC + b"\nbase\nupper\nlower\n")
    model = robodesc.load(path)
    assert list(model.bodies) == ["base", "upper", "lower"]
    assert model.format == "links"
    assert model.source == str(path)
    assert model.parent("lower") == "upper"
    # by sniffing, with a file name nobody claims
    other = tmp_path / "arm.txt"
    other.write_bytes(LINKS_MAGIC + b"\nx\ny\n")
    assert list(robodesc.load(other).bodies) == ["x", "y"]
    # from text
    assert list(robodesc.loads(LINKS_MAGIC + b"\nq\n").bodies) == ["q"]
    assert list(robodesc.loads(LINKS_MAGIC + b"\nq\n", format="links").bodies) == ["q"]
    # urdf still works alongside
    assert robodesc.loads(URDF).format == "urdf"


def test_unregister_removes_the_format(tmp_path):
    plugin = LinksPlugin()
    robodesc.register_plugin(plugin, name="links-temp")
    try:
        assert "links" in format_names()
    finally:
        robodesc.unregister_plugin("links-temp")
    assert "links" not in format_names()
    with pytest.raises(FormatError):
        robodesc.loads(LINKS_MAGIC + b"\na\n", format="links")
    path = tmp_path / "a.links"
    path.write_bytes(LINKS_MAGIC + b"\na\n")
    with pytest.raises(FormatError):
        robodesc.load(path)


def test_model_loaded_hook_sees_every_model(register):
    plugin = LinksPlugin()
    register(plugin, "watcher")
    model = robodesc.loads(URDF, format="urdf")
    assert len(plugin.loaded) == 1
    seen, context = plugin.loaded[0]
    assert seen is model
    assert context.format == "urdf"


def test_model_loaded_hook_can_add_diagnostics(register):
    class Checker:
        @hookimpl
        def robodesc_model_loaded(self, model, context):
            model.diagnose(robodesc.Severity.INFO, "checked", f"{len(model.bodies)} bodies")

    register(Checker(), "checker")
    model = robodesc.loads(URDF, format="urdf")
    assert [d.code for d in model.diagnostics] == ["checked"]


def test_registering_the_same_name_twice_is_a_plugin_error(register):
    register(LinksPlugin(), "twice")
    with pytest.raises(PluginError):
        robodesc.register_plugin(LinksPlugin(), name="twice")


# -- conflicts and broken plugins ----------------------------------------------------------------------


def _format_plugin(format_name: str, read=_read_links, fail: Exception | None = None):
    class P:
        @hookimpl
        def robodesc_formats(self):
            if fail is not None:
                raise fail
            return [FormatSpec(name=format_name, extensions=(f".{format_name}",), read=read)]

    return P()


def test_loading_by_extension_names_the_conflicting_plugins(register, tmp_path):
    register(_format_plugin("clash"), "clash-one")
    register(_format_plugin("clash"), "clash-two")
    path = tmp_path / "robot.clash"
    path.write_text("<links/>")
    with pytest.raises(PluginError) as info, pytest.warns(PluginWarning, match="clash-one.*unusable"):
        robodesc.load(path)
    assert "clash-one" in str(info.value) and "clash-two" in str(info.value)


def test_two_plugins_claiming_one_format(register):
    register(_format_plugin("dupfmt"), "first-dup")
    register(_format_plugin("dupfmt"), "second-dup")
    with pytest.raises(PluginError) as info, pytest.warns(PluginWarning, match="second-dup.*unusable"):
        robodesc.loads(b"whatever", format="dupfmt")
    message = str(info.value)
    assert "first-dup" in message and "second-dup" in message
    assert info.value.suggestion
    assert "dupfmt" not in format_names()
    # every other format keeps working
    assert robodesc.loads(URDF, format="urdf").name == "r"


def test_a_plugin_offering_format_urdf_cannot_take_it_from_robodesc(register):
    with pytest.warns(PluginWarning, match="impostor.*'urdf'"):
        register(_format_plugin("urdf"), "impostor")
        register(_format_plugin("solo"), "solo-plugin")
        model = robodesc.loads(URDF, format="urdf")
    assert model.name == "r" and model.format == "urdf"
    assert default_registry().formats()["urdf"].plugin == "urdf"
    assert default_registry().table().conflicts["urdf"] == ["urdf", "impostor"]
    assert robodesc.loads(LINKS_MAGIC + b"\nz\n", format="solo").name == "chain"


def test_a_plugin_whose_formats_hook_raises_does_not_break_the_others():
    registry = Registry()
    registry.register(_format_plugin("never", fail=RuntimeError("plugin bug")), name="crashy")
    with pytest.warns(PluginWarning, match="crashy"):
        formats = registry.formats()
    assert "urdf" in formats
    assert "never" not in formats
    assert "RuntimeError: plugin bug" in registry.problems["crashy"][0]
    assert registry.loads(URDF, format="urdf").name == "r"
    with pytest.raises(FormatError) as info:
        registry.loads(b"x", format="never")
    assert "crashy" in str(info.value)  # the error names the plugin that failed to load


@pytest.mark.plugin_crash
def test_reader_raising_a_foreign_exception_is_a_reader_crash(register):
    def bad_read(data, context):
        raise ValueError("cannot parse that")

    register(_format_plugin("badread", read=bad_read), "bad-reader")
    with pytest.raises(robodesc.ReaderCrash) as info:
        robodesc.loads(b"x", format="badread")
    message = str(info.value)
    assert "bad-reader" in message
    assert "ValueError" in message and "cannot parse that" in message
    assert isinstance(info.value.original, ValueError) and info.value.__cause__ is info.value.original
    assert info.value.plugin == "bad-reader"


def test_reader_raising_a_robodesc_error_passes_it_through(register):
    def strict_read(data, context):
        raise robodesc.MalformedValue("bad number", construct="x")

    register(_format_plugin("strict", read=strict_read), "strict-reader")
    with pytest.raises(robodesc.MalformedValue, match="bad number"):
        robodesc.loads(b"x", format="strict")


def test_reader_returning_none_is_a_plugin_error(register):
    register(_format_plugin("nonefmt", read=lambda data, context: None), "none-reader")
    with pytest.raises(PluginError):
        robodesc.loads(b"x", format="nonefmt")


@pytest.mark.plugin_crash
def test_model_loaded_hook_failure_is_a_crash_of_that_plugin(register):
    class Broken:
        @hookimpl
        def robodesc_model_loaded(self, model, context):
            raise KeyError("oops")

    register(Broken(), "broken-post")
    with pytest.raises(robodesc.PluginCrash) as info:
        robodesc.loads(URDF, format="urdf")
    assert info.value.plugin == "broken-post" and info.value.hook == "robodesc_model_loaded"
    assert not isinstance(info.value, robodesc.ReaderCrash)


def test_broken_entry_point_is_reported_and_the_others_load(monkeypatch):
    real = list(importlib.metadata.entry_points(group=manager.ENTRY_POINT_GROUP))
    assert {ep.name for ep in real} >= {"urdf"}

    class BrokenEntryPoint:
        name = "broken_plugin"
        value = "robodesc_no_such_module_xyz:plugin"
        group = manager.ENTRY_POINT_GROUP

        def load(self):
            raise ImportError("No module named 'robodesc_no_such_module_xyz'")

    def fake_entry_points(**kwargs):
        assert kwargs.get("group") == manager.ENTRY_POINT_GROUP
        return [*real, BrokenEntryPoint()]

    monkeypatch.setattr(manager, "entry_points", fake_entry_points)
    registry = Registry()
    with pytest.warns(PluginWarning, match="broken_plugin"):
        formats = registry.formats()
    (problem,) = registry.problems["broken_plugin"]
    assert "ImportError" in problem
    assert {p.name: p.status for p in registry.plugins()}["broken_plugin"] == "failed"
    assert "urdf" in formats
    assert registry.loads(URDF, format="urdf").name == "r"
    # the failure is named when a user asks for a format that is not there
    with pytest.raises(FormatError) as info:
        registry.loads(b"x", format="nosuchformat")
    assert "broken_plugin" in str(info.value)


def test_registry_without_entry_points_has_no_formats():
    registry = Registry(load_entry_points=False)
    assert registry.formats() == {}
    with pytest.raises(FormatError):
        registry.loads(URDF, format="urdf")


# -- URI resolution hook -------------------------------------------------------------------------------


def test_resolve_uri_hook_takes_precedence_over_the_built_in_resolver(register, tmp_path):
    builtin_target = tmp_path / "mesh.stl"
    builtin_target.write_text("x")
    plugin_target = tmp_path / "elsewhere" / "from_plugin.stl"
    plugin_target.parent.mkdir()
    plugin_target.write_text("y")
    asked: list[str] = []

    class Resolver:
        @hookimpl
        def robodesc_resolve_uri(self, uri, context):
            asked.append(uri)
            if uri in ("mesh.stl", "custom://thing"):
                return str(plugin_target)
            return None

    # without the plugin the relative path resolves next to base_dir
    model = robodesc.loads(URDF_WITH_MESH.format(uri="mesh.stl"), format="urdf", base_dir=tmp_path)
    assert model.bodies["a"].visuals[0].geometry.resolved_path() == os.path.normpath(builtin_target)

    register(Resolver(), "resolver-plugin")
    model = robodesc.loads(URDF_WITH_MESH.format(uri="mesh.stl"), format="urdf", base_dir=tmp_path)
    assert model.bodies["a"].visuals[0].geometry.resolved_path() == str(plugin_target)
    # a scheme only the plugin knows
    model = robodesc.loads(URDF_WITH_MESH.format(uri="custom://thing"), format="urdf", base_dir=tmp_path)
    assert model.bodies["a"].visuals[0].geometry.resolved_path() == str(plugin_target)
    assert not model.diagnostics
    # when the plugin answers None, the built-in resolver still runs
    other = tmp_path / "other.stl"
    other.write_text("z")
    model = robodesc.loads(URDF_WITH_MESH.format(uri="other.stl"), format="urdf", base_dir=tmp_path)
    assert model.bodies["a"].visuals[0].geometry.resolved_path() == os.path.normpath(other)
    assert asked.count("other.stl") == 1


# -- error hierarchy ------------------------------------------------------------------------------------


def test_every_public_error_is_a_robodesc_error():
    for name in robodesc.__all__:
        obj = getattr(robodesc, name)
        if isinstance(obj, type) and issubclass(obj, Exception) and not issubclass(obj, Warning):
            assert issubclass(obj, RobodescError), name


def test_plugin_warning_is_a_user_warning():
    assert issubclass(PluginWarning, UserWarning)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("x", PluginWarning)
    assert caught and issubclass(caught[0].category, PluginWarning)


# -- first use from many threads, in a fresh process ----------------------------------------------------

_FIRST_USE = """
import json, sys, threading
import robodesc

calls = [
    lambda: robodesc.load(sys.argv[1]).format,
    lambda: robodesc.load(sys.argv[2]).format,
    lambda: sorted(f.name for f in robodesc.formats()),
    lambda: robodesc.loads(sys.argv[3]).format,
] * 2
barrier = threading.Barrier(len(calls))
results = [None] * len(calls)

def first_use(i):
    barrier.wait()
    try:
        results[i] = calls[i]()
    except Exception as exc:
        results[i] = f"{type(exc).__name__}: {exc}"

threads = [threading.Thread(target=first_use, args=(i,)) for i in range(len(calls))]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(json.dumps(results))
"""


def test_the_first_use_from_eight_threads_of_a_fresh_process_sees_every_format():
    """The registry is built on first use. Threads arriving together must wait for the whole of it:
    entry points marked loaded before they were registered, or a format table cached while plugins
    were still coming, made 7 of 8 first loads fail with "cannot tell the format". Only a fresh
    process (nothing imported, nothing registered) has a first use, so each run is one."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    arm, quadruped = (os.path.join(root, "examples", name) for name in ("arm.urdf", "quadruped.xml"))
    # every format a fresh process finds, used from one thread (this process may see more: the xacro
    # plugin's tests put a checkout's plugin on this process's path when it is not installed)
    listed = "import json, robodesc; print(json.dumps(sorted(f.name for f in robodesc.formats())))"
    alone = subprocess.run([sys.executable, "-c", listed], capture_output=True, text=True, timeout=120, check=True)
    expected = ["urdf", "mjcf", json.loads(alone.stdout), "urdf"] * 2
    for _ in range(5):
        run = subprocess.run(
            [sys.executable, "-c", _FIRST_USE, arm, quadruped, URDF], capture_output=True, text=True, timeout=120
        )
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout) == expected


# -- entry points found without importlib.metadata -----------------------------------------------


def _entry_point_keys(points):
    return [(ep.name, ep.value, ep.group, ep.dist.name, ep.dist.version) for ep in points]


def test_entry_points_are_those_importlib_metadata_finds():
    """A listing of the sys.path folders finds what importlib.metadata finds, in the same order,
    for every group installed here (robodesc's, console scripts, pytest's, ...)."""
    from robodesc.plugins import discovery

    groups = {ep.group for dist in importlib.metadata.distributions() for ep in dist.entry_points}
    assert "robodesc" in groups
    for group in sorted(groups):
        plain = discovery._plain_search(group)
        assert plain is not None  # this environment is a plain one: folders on sys.path only
        assert _entry_point_keys(plain) == _entry_point_keys(importlib.metadata.entry_points(group=group)), group


def _write_distribution(site, folder, name, version, points):
    info = site / folder
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\nA description.\n")
    (info / "entry_points.txt").write_text("[robodesc]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()))


def test_entry_points_follow_importlib_metadata_rules(tmp_path, monkeypatch):
    """sys.path order, names normalised from the folder, the first distribution of a name
    shadowing later ones, comments and other sections left out; and where a plain listing
    cannot see everything (a zip file on the path), importlib.metadata is asked."""
    from robodesc.plugins import discovery

    first, second = tmp_path / "first", tmp_path / "second"
    _write_distribution(first, "My.Plugin-1.0.dist-info", "My.Plugin", "1.0", {"toy": "toy_a:plugin"})
    _write_distribution(second, "my_plugin-2.0.dist-info", "my_plugin", "2.0", {"toy": "toy_b"})  # shadowed
    _write_distribution(second, "other-0.3.egg-info", "other", "0.3", {"other": "other_mod : obj.attr [extra]"})
    (second / "other-0.3.egg-info" / "entry_points.txt").write_text(
        "# a comment\n[console_scripts]\nx = y:z\n\n[robodesc]\nother = other_mod : obj.attr [extra]\n"
    )
    monkeypatch.setattr(sys, "path", [str(first), str(tmp_path / "missing"), str(second), *sys.path])
    expected = _entry_point_keys(importlib.metadata.entry_points(group="robodesc"))
    found = discovery.entry_points(group="robodesc")
    assert _entry_point_keys(found) == expected
    assert expected[:2] == [
        ("toy", "toy_a:plugin", "robodesc", "My.Plugin", "1.0"),
        ("other", "other_mod : obj.attr [extra]", "robodesc", "other", "0.3"),
    ]
    assert discovery.EntryPoint("j", "json:dumps", "robodesc", found[0].dist).load() is json.dumps

    archive = tmp_path / "plugins.zip"
    archive.write_bytes(b"")
    monkeypatch.setattr(sys, "path", [str(archive), *sys.path])
    assert discovery._plain_search("robodesc") is None
    assert _entry_point_keys(discovery.entry_points(group="robodesc")) == expected


def test_an_entry_points_file_too_large_to_read_whole_is_left_to_importlib_metadata(tmp_path, monkeypatch):
    """Each metadata file is read up to a bound; one that does not fit is not cut short (its
    later entry points would be lost): importlib.metadata reads it instead."""
    from robodesc.plugins import discovery

    _write_distribution(tmp_path, "big-1.0.dist-info", "big", "1.0", {"toy": "toy_a"})
    points = tmp_path / "big-1.0.dist-info" / "entry_points.txt"
    points.write_text("[robodesc]\n" + "# padding\n" * (discovery._MAX_READ // 10) + "late = toy_late\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    assert discovery._plain_search("robodesc") is None
    found = _entry_point_keys(discovery.entry_points(group="robodesc"))
    assert ("late", "toy_late", "robodesc", "big", "1.0") in found
