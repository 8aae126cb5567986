"""Hostile files (issue 13): devices, FIFOs, huge files, files outside the model's folder, formats
that hide behind a DOCTYPE, UTF-16 or a namespace, and DTD attribute defaults.

Every hostile file is built here at test time. Whatever could hang or fill memory runs in a forked
child with a time limit and an address-space limit (`bounded`), so a regression fails its test
instead of blocking the suite or the machine.
"""

from __future__ import annotations

import builtins
import multiprocessing
import os
import resource
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

import robodesc
from robodesc.core.errors import MissingRootElement, ResourceNotFound, RobodescError, UnsafeXML, XMLSyntaxError
from robodesc.core.geometry import Heightfield, Mesh
from robodesc.core.resources import (
    LIMIT_VARIABLES,
    LoadContext,
    ResourceRefused,
    confined_path,
    read_file,
    read_head,
    resolve_path,
    size_limit,
)
from robodesc.plugins.manager import default_registry


class Outcome(NamedTuple):
    """What a bounded call did: its result, or the robodesc error it raised (class name, text, line, file)."""

    value: Any = None
    error: str | None = None
    message: str = ""
    line: int | None = None
    file: str | None = None


def bounded(function: Callable[[], Any], seconds: float = 20.0, memory: int = 4 * 2**30) -> Outcome:
    """Run `function` in a forked child under `seconds` and `memory` more bytes of address space than
    the test process has already mapped (late in a long session that is gigabytes): a hang or a
    runaway read fails the test, never the suite. Robodesc errors come back as an `Outcome`; any
    other exception (a stray crash) fails the test with its text."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)

    def child() -> None:
        with open("/proc/self/statm") as statm:
            mapped = int(statm.read().split()[0]) * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (mapped + memory, mapped + memory))
        try:
            outcome = Outcome(value=function())
        except RobodescError as exc:
            outcome = Outcome(error=type(exc).__name__, message=str(exc), line=exc.line, file=exc.file)
        except BaseException as exc:  # noqa: BLE001 - reported to the parent as a crash
            outcome = Outcome(error="crash", message=f"{type(exc).__name__}: {exc}")
        send.send(outcome)

    process = context.Process(target=child, daemon=True)
    process.start()
    try:
        if not receive.poll(seconds):
            pytest.fail(f"still running after {seconds} s (a read that never ends?)")
        outcome = receive.recv()
    finally:
        if process.is_alive():
            process.kill()
        process.join()
    assert outcome.error != "crash", outcome.message
    return outcome


def load_confined(path: Path, search_paths: list[Path] = ()) -> robodesc.Model:  # type: ignore[assignment]
    """Load `path` confined to its folder and `search_paths` (the public `confine=True`)."""
    return robodesc.load(path, search_paths=search_paths, confine=True)


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


@pytest.fixture
def specials(tmp_path: Path) -> dict[str, Path]:
    """A FIFO, and links to /dev/zero and /dev/urandom, in the test's folder."""
    fifo = tmp_path / "pipe.xml"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.xml"
    zero.symlink_to("/dev/zero")
    urandom = tmp_path / "random.xml"
    urandom.symlink_to("/dev/urandom")
    return {"fifo": fifo, "zero": zero, "urandom": urandom, "/dev/zero": Path("/dev/zero")}


SPECIALS = ["fifo", "zero", "urandom", "/dev/zero"]


# -- the bounded reader ----------------------------------------------------------------------------
@pytest.mark.parametrize("which", SPECIALS)
def test_read_file_refuses_devices_and_fifos_at_once(specials, which):
    outcome = bounded(lambda: read_file(str(specials[which])), seconds=5)
    assert outcome.error == "ResourceRefused"
    assert "regular file" in outcome.message
    assert ("FIFO" if which == "fifo" else "character device") in outcome.message


@pytest.mark.parametrize("which", SPECIALS)
def test_read_head_refuses_devices_and_fifos_at_once(specials, which):
    assert bounded(lambda: read_head(str(specials[which])), seconds=5).error == "ResourceRefused"


def test_read_file_reads_a_regular_file_whole_and_refuses_one_past_the_limit(tmp_path):
    path = tmp_path / "a.urdf"
    path.write_bytes(b"x" * 1000)
    assert read_file(str(path)) == b"x" * 1000
    assert read_file(str(path), limit=1000) == b"x" * 1000
    with pytest.raises(ResourceRefused) as info:
        read_file(str(path), limit=999)
    assert "1000 bytes" in str(info.value) and LIMIT_VARIABLES["file"] in info.value.suggestion


def test_missing_files_and_folders_stay_oserrors_for_their_callers(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_file(str(tmp_path / "missing.xml"))
    with pytest.raises(IsADirectoryError):
        read_file(str(tmp_path))


def test_the_limits_come_from_the_environment_with_units(monkeypatch):
    assert size_limit("file") == 256 * 2**20
    monkeypatch.setenv("ROBODESC_MAX_FILE_BYTES", "512M")
    monkeypatch.setenv("ROBODESC_MAX_MESH_BYTES", "3GiB")
    assert size_limit("file") == 512 * 2**20
    assert size_limit("mesh") == 3 * 2**30
    assert size_limit("file", 10) == 10  # an explicit limit wins
    monkeypatch.setenv("ROBODESC_MAX_FILE_BYTES", "lots")
    with pytest.raises(ResourceRefused, match="ROBODESC_MAX_FILE_BYTES"):
        size_limit("file")


# -- special files named by a description ----------------------------------------------------------
def mjcf_including(tmp_path: Path, target: str) -> tuple[Path, str]:
    text = f'<mujoco>\n  <include file="{target}"/>\n</mujoco>\n'
    path = tmp_path / "main.xml"
    path.write_text(text)
    return path, text


@pytest.mark.parametrize("which", SPECIALS)
def test_an_mjcf_include_of_a_device_or_fifo_is_refused_at_the_include(specials, tmp_path, which):
    path, text = mjcf_including(tmp_path, str(specials[which]))
    outcome = bounded(lambda: robodesc.load(path))
    assert outcome.error == "ResourceRefused", outcome
    assert (outcome.file, outcome.line) == (str(path), line_of(text, "<include"))


@pytest.mark.parametrize("which", ["fifo", "zero"])
def test_an_mjcf_asset_model_of_a_device_or_fifo_is_refused_at_its_element(specials, tmp_path, which):
    text = f'<mujoco>\n  <asset>\n    <model name="arm" file="{specials[which]}"/>\n  </asset>\n</mujoco>\n'
    path = tmp_path / "main.xml"
    path.write_text(text)
    outcome = bounded(lambda: robodesc.load(path))
    assert outcome.error == "ResourceRefused", outcome
    assert outcome.line == line_of(text, "<model")


@pytest.mark.parametrize("which", ["fifo", "zero"])
def test_an_mjcf_mesh_file_that_is_a_device_or_fifo_is_refused_at_the_mesh(specials, tmp_path, which):
    mesh = tmp_path / "part.stl"
    os.replace(specials[which], mesh)  # MuJoCo picks the reader by extension: make it an .stl
    text = (
        '<mujoco>\n  <asset>\n    <mesh name="part" file="part.stl"/>\n  </asset>\n'
        '  <worldbody>\n    <body>\n      <freejoint/>\n      <geom type="mesh" mesh="part"/>\n'
        "    </body>\n  </worldbody>\n</mujoco>\n"
    )
    path = tmp_path / "main.xml"
    path.write_text(text)
    outcome = bounded(lambda: robodesc.load(path))
    assert outcome.error == "ResourceRefused", outcome
    assert outcome.line == line_of(text, "<mesh")
    assert "regular file" in outcome.message


@pytest.mark.parametrize("mass", ["", ' mass="1"'])
def test_a_fifo_mesh_is_reported_by_check_not_waited_for(tmp_path, mass):
    """A mesh with inertia to compute is read when loading; one only drawn is read by the check."""
    os.mkfifo(tmp_path / "part.stl")
    inertial = "" if mass else '<inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
    text = (
        f'<mujoco><asset><mesh name="part" file="part.stl"/></asset><worldbody><body>{inertial}'
        f'<geom type="mesh" mesh="part" contype="0" conaffinity="0" group="2"{mass}/></body></worldbody></mujoco>'
    )
    path = tmp_path / "main.xml"
    path.write_text(text)
    outcome = bounded(lambda: [d.message for d in robodesc.check(path).diagnostics])
    assert any("FIFO" in message for message in outcome.value), outcome


@pytest.mark.parametrize("which", ["fifo", "zero"])
def test_an_sdf_include_of_a_device_or_fifo_is_refused_at_the_include(specials, tmp_path, which):
    target = tmp_path / "other.sdf"
    os.replace(specials[which], target)
    text = '<sdf version="1.9">\n  <world name="w">\n    <include><uri>other.sdf</uri></include>\n  </world>\n</sdf>\n'
    path = tmp_path / "world.sdf"
    path.write_text(text)
    outcome = bounded(lambda: robodesc.load(path))
    assert outcome.error == "ResourceRefused", outcome
    assert (outcome.file, outcome.line) == (str(path), line_of(text, "<include"))


@pytest.mark.parametrize("which", ["fifo", "zero"])
def test_a_model_config_that_is_or_names_a_device_or_fifo_is_refused(specials, tmp_path, which):
    folder = tmp_path / "models" / "arm"
    folder.mkdir(parents=True)
    os.replace(specials[which], folder / "model.sdf")
    (folder / "model.config").write_text('<model><sdf version="1.9">model.sdf</sdf></model>')
    text = (
        '<sdf version="1.9">\n  <world name="w">\n    <include><uri>model://arm</uri></include>\n  </world>\n</sdf>\n'
    )
    path = tmp_path / "world.sdf"
    path.write_text(text)
    outcome = bounded(lambda: robodesc.load(path, search_paths=[tmp_path / "models"]))
    assert outcome.error == "ResourceRefused", outcome
    assert outcome.line == line_of(text, "<include")
    # model.config itself a FIFO
    (folder / "model.config").unlink()
    os.mkfifo(folder / "model.config")
    outcome = bounded(lambda: robodesc.load(path, search_paths=[tmp_path / "models"]))
    assert outcome.error == "ResourceRefused", outcome


@pytest.mark.parametrize("which", ["fifo", "zero"])
def test_drawing_a_mesh_or_heightfield_that_is_a_device_or_fifo_is_refused(specials, tmp_path, which):
    target = tmp_path / "part.stl"
    os.replace(specials[which], target)
    mesh = Mesh(uri="part.stl", path=str(target))
    assert bounded(mesh.load).error == "ResourceRefused"
    field = Heightfield(uri="terrain.bin", path=str(target), file_format="mujoco", size=None)
    assert bounded(field.heights).error == "ResourceRefused"
    picture = Heightfield(uri="terrain.png", path=str(target), size=None)
    assert bounded(picture.heights).error in ("ResourceRefused", "MissingDependency")


def test_a_material_library_naming_a_fifo_does_not_hang_drawing(tmp_path):
    pytest.importorskip("trimesh")
    os.mkfifo(tmp_path / "part.mtl")
    (tmp_path / "part.obj").write_text("mtllib part.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\n")
    mesh = Mesh(uri="part.obj", path=str(tmp_path / "part.obj"))
    outcome = bounded(lambda: len(mesh.load().faces))
    assert outcome.value == 2 or outcome.error == "InvalidValue", outcome


def test_a_description_over_the_limit_is_refused_naming_the_variable(tmp_path, monkeypatch):
    included = tmp_path / "big.xml"
    included.write_text("<mujoco>" + " " * 2000 + "</mujoco>")
    path, text = mjcf_including(tmp_path, "big.xml")
    monkeypatch.setenv("ROBODESC_MAX_FILE_BYTES", "1000")
    with pytest.raises(ResourceRefused) as info:
        robodesc.load(path)
    assert info.value.line == line_of(text, "<include") and "ROBODESC_MAX_FILE_BYTES" in info.value.suggestion
    monkeypatch.setenv("ROBODESC_MAX_FILE_BYTES", "1M")
    assert robodesc.load(path).name


@pytest.mark.parametrize("as_bytes", [False, True])
def test_text_over_the_limit_is_refused_as_a_file_would_be(monkeypatch, as_bytes):
    """A service handing on the text it was sent gets the same bound as for a file (found by the
    fuzz run: 2 GB of text reached the parser). Counted in UTF-8 bytes: 40 "é" are 80 bytes."""
    text = '<robot name="r"><link name="a"/>' + "é" * 40 + "</robot>"
    monkeypatch.setenv("ROBODESC_MAX_FILE_BYTES", "100")
    with pytest.raises(ResourceRefused) as info:
        robodesc.loads(text.encode() if as_bytes else text, format="urdf")
    assert "limit of 100 bytes" in str(info.value) and "ROBODESC_MAX_FILE_BYTES" in info.value.suggestion
    monkeypatch.setenv("ROBODESC_MAX_FILE_BYTES", "1K")
    assert robodesc.loads(text.encode() if as_bytes else text, format="urdf").name == "r"


def test_a_load_context_raises_the_limit_for_its_load_only(tmp_path, monkeypatch):
    included = tmp_path / "big.xml"
    included.write_text("<mujoco>" + " " * 2000 + "</mujoco>")
    path, _ = mjcf_including(tmp_path, "big.xml")
    monkeypatch.setenv("ROBODESC_MAX_FILE_BYTES", "1000")
    registry = default_registry()
    context = registry.new_context(str(path), str(tmp_path), [])
    context.max_file_bytes = 10_000
    assert registry.load(path, context=context).name


@pytest.mark.parametrize("which", ["fifo", "zero"])
def test_the_file_given_to_load_is_read_bounded(specials, which):
    """The top-level file is read by the plugin manager; it must refuse as the readers do."""
    outcome = bounded(lambda: robodesc.load(specials[which]), seconds=10, memory=2 * 2**30)
    assert outcome.error == "ResourceRefused", outcome


# -- confinement ---------------------------------------------------------------------------------
@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A readable MJCF file outside the model's folder, and the model's folder `tmp_path/robot`."""
    (tmp_path / "robot").mkdir()
    secret = tmp_path / "secret.xml"
    secret.write_text('<mujoco><worldbody><body name="secret"><geom size="1"/></body></worldbody></mujoco>')
    return secret


@pytest.mark.parametrize("name", ["../secret.xml", "ABSOLUTE", "link.xml"])
def test_a_confined_mjcf_include_outside_the_folder_is_refused_at_the_include(tmp_path, outside, name):
    robot = tmp_path / "robot"
    (robot / "link.xml").symlink_to(outside)
    path, text = mjcf_including(robot, str(outside) if name == "ABSOLUTE" else name)
    assert "secret" in robodesc.load(path).bodies  # the default reads it, as MuJoCo does
    with pytest.raises(ResourceRefused) as info:
        load_confined(path)
    assert (info.value.file, info.value.line) == (str(path), line_of(text, "<include"))
    assert "outside" in str(info.value)


def test_a_confined_meshdir_outside_the_folder_is_refused_at_the_mesh(tmp_path):
    text = (
        '<mujoco>\n  <compiler meshdir="/etc"/>\n  <asset>\n    <mesh name="p" file="passwd"/>\n  </asset>\n</mujoco>\n'
    )
    path = tmp_path / "main.xml"
    path.write_text(text)
    with pytest.raises(ResourceRefused) as info:
        load_confined(path)
    assert info.value.line == line_of(text, "<mesh")


def test_a_confined_include_from_a_search_path_is_allowed(tmp_path, outside):
    robot = tmp_path / "robot"
    path, _ = mjcf_including(robot, str(outside))
    assert "secret" in load_confined(path, search_paths=[tmp_path]).bodies


@pytest.mark.parametrize(
    "uri", ["../../../../../../../etc/hostname", "/etc/hostname", "file:///etc/hostname", "model://x/../../../etc"]
)
def test_a_confined_sdf_include_outside_the_roots_is_refused_at_the_include(tmp_path, uri):
    (tmp_path / "models").mkdir()
    text = f'<sdf version="1.9">\n  <world name="w">\n    <include><uri>{uri}</uri></include>\n  </world>\n</sdf>\n'
    path = tmp_path / "world.sdf"
    path.write_text(text)
    with pytest.raises(ResourceRefused) as info:
        load_confined(path, search_paths=[tmp_path / "models"])
    assert info.value.line == line_of(text, "<include")


@pytest.mark.parametrize("uri", ["../../../../../../etc/hostname", "/etc/hostname", "file:///etc/hostname"])
def test_a_confined_urdf_mesh_outside_the_folder_is_refused_at_the_mesh(tmp_path, uri):
    text = (
        '<robot name="r">\n  <link name="a">\n    <visual>\n      <geometry>\n'
        f'        <mesh filename="{uri}"/>\n      </geometry>\n    </visual>\n  </link>\n</robot>\n'
    )
    path = tmp_path / "r.urdf"
    path.write_text(text)
    robodesc.load(path)  # not confined: loads (the mesh is looked for wherever it is)
    with pytest.raises(ResourceRefused) as info:
        load_confined(path)
    assert info.value.line == line_of(text, "<mesh")


def test_nothing_outside_the_roots_is_even_stated(tmp_path, outside, monkeypatch):
    robot = tmp_path / "robot"
    (robot / "link.xml").symlink_to(outside)
    path, _ = mjcf_including(robot, "link.xml")
    assert touched_outside(tmp_path, robot, monkeypatch, lambda: load_confined(path)) == []
    path.write_text('<mujoco>\n  <compiler meshdir=".."/>\n  <asset><mesh file="secret.stl"/></asset>\n</mujoco>\n')
    assert touched_outside(tmp_path, robot, monkeypatch, lambda: load_confined(path)) == []


def touched_outside(
    tmp_path: Path, inside: Path, monkeypatch: pytest.MonkeyPatch, load: Callable[[], Any]
) -> list[str]:
    """The paths below `tmp_path` but outside `inside` that `load` stats, lstats or opens (the
    folders above `inside` excepted: realpath looks at them once to learn the root's real name)."""
    touched: list[str] = []
    for module, name in ((os, "stat"), (os, "lstat"), (os, "open"), (builtins, "open")):
        real = getattr(module, name)

        def spy(target: Any, *args: Any, _real: Any = real, **kwargs: Any) -> Any:
            if isinstance(target, (str, os.PathLike)):
                touched.append(os.path.normpath(os.fspath(target)))
            return _real(target, *args, **kwargs)

        monkeypatch.setattr(module, name, spy)
    try:
        load()
    except ResourceRefused:
        pass
    finally:
        monkeypatch.undo()
    return [
        p
        for p in touched
        if p.startswith(str(tmp_path)) and not str(inside).startswith(p) and not p.startswith(str(inside))
    ]


def test_the_built_in_resolver_looks_at_nothing_outside_the_roots(tmp_path, monkeypatch):
    robot = tmp_path / "robot"
    robot.mkdir()
    (tmp_path / "secret.stl").write_bytes(b"x")
    (tmp_path / "arm.sdf").write_text('<sdf version="1.9"><model name="arm"><link name="a"/></model></sdf>')
    urdf = robot / "r.urdf"
    urdf.write_text(
        '<robot name="r"><link name="a"><visual><geometry><mesh filename="../secret.stl"/></geometry></visual>'
        "</link></robot>"
    )
    world = robot / "w.sdf"
    world.write_text('<sdf version="1.9"><world name="w"><include><uri>../arm.sdf</uri></include></world></sdf>')
    assert touched_outside(tmp_path, robot, monkeypatch, lambda: load_confined(urdf)) == []
    assert touched_outside(tmp_path, robot, monkeypatch, lambda: load_confined(world)) == []


def test_resolution_never_looks_outside_the_roots(tmp_path):
    roots = [str(tmp_path)]
    path, tried = resolve_path("package://nowhere/mesh.stl", str(tmp_path), [], roots=roots)
    assert path is None and tried
    assert confined_path(str(tmp_path / ".." / "x"), roots) is None
    (tmp_path / "up").symlink_to("..")
    assert confined_path(str(tmp_path / "up" / "x"), roots) is None
    (tmp_path / "in").symlink_to(tmp_path)
    assert confined_path(str(tmp_path / "in" / "a.xml"), roots) == str(tmp_path / "a.xml")


def test_a_context_confines_to_its_folder_and_search_paths(tmp_path):
    context = LoadContext(source=None, base_dir=str(tmp_path / "a"), search_paths=[str(tmp_path / "b")])
    context.confine()
    assert context.permitted(str(tmp_path / "b" / "x.stl")) == str(tmp_path / "b" / "x.stl")
    with pytest.raises(ResourceRefused):
        context.permitted(str(tmp_path / "c" / "x.stl"))
    assert not context.exists("/etc/hostname")


# -- a file that fails to parse, named by another -------------------------------------------------
def test_an_mjcf_include_that_is_not_xml_names_both_lines(tmp_path):
    (tmp_path / "part.xml").write_text("<mujoco>\n  <body>\n</mujoco>\n")
    path, text = mjcf_including(tmp_path, "part.xml")
    with pytest.raises(XMLSyntaxError) as info:
        robodesc.load(path)
    assert (info.value.file, info.value.line) == (str(tmp_path / "part.xml"), 3)
    assert f"{path}:{line_of(text, '<include')}" in str(info.value)


def test_an_sdf_include_that_is_not_xml_names_both_lines(tmp_path):
    (tmp_path / "arm.sdf").write_text('<sdf version="1.9">\n<model name="arm">\n</sdf>\n')
    text = '<sdf version="1.9">\n  <world name="w">\n    <include><uri>arm.sdf</uri></include>\n  </world>\n</sdf>\n'
    path = tmp_path / "world.sdf"
    path.write_text(text)
    with pytest.raises(XMLSyntaxError) as info:
        robodesc.load(path)
    assert (info.value.file, info.value.line) == (str(tmp_path / "arm.sdf"), 3)
    assert f"{path}:{line_of(text, '<include')}" in str(info.value)


def test_an_sdf_include_of_a_urdf_that_is_not_xml_names_both_lines(tmp_path):
    (tmp_path / "arm.urdf").write_text('<robot name="arm">\n  <link name="a">\n</robot>\n')
    text = '<sdf version="1.9">\n  <world name="w">\n    <include><uri>arm.urdf</uri></include>\n  </world>\n</sdf>\n'
    path = tmp_path / "world.sdf"
    path.write_text(text)
    with pytest.raises(XMLSyntaxError) as info:
        robodesc.load(path)
    assert (info.value.file, info.value.line) == (str(tmp_path / "arm.urdf"), 3)
    assert f"{path}:{line_of(text, '<include')}" in str(info.value)


def test_an_entity_in_an_included_file_is_unsafe_and_names_the_include(tmp_path):
    (tmp_path / "part.xml").write_text('<!DOCTYPE mujoco [<!ENTITY a "b">]>\n<mujoco/>')
    path, text = mjcf_including(tmp_path, "part.xml")
    with pytest.raises(UnsafeXML) as info:
        robodesc.load(path)
    assert info.value.file == str(tmp_path / "part.xml")
    assert f"{path}:{line_of(text, '<include')}" in str(info.value)


# -- knowing the format --------------------------------------------------------------------------
MJCF = '<mujoco model="m"><worldbody><body name="b"><geom size="1"/></body></worldbody></mujoco>'
URDF = '<robot name="r"><link name="a"/></robot>'
SDF = '<sdf version="1.9"><model name="m"><link name="a"/></model></sdf>'


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_utf16_xml_file_is_read_as_mjcf(tmp_path, encoding):
    path = tmp_path / "robot.xml"
    path.write_bytes(MJCF.encode(encoding))
    assert "b" in robodesc.load(path).bodies


@pytest.mark.parametrize(("text", "format"), [(MJCF, "mjcf"), (URDF, "urdf"), (SDF, "sdf")])
@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_loads_of_utf16_text_knows_every_format(text, format, encoding):
    assert robodesc.loads(text.encode(encoding)).format == format


@pytest.mark.parametrize("subset", ["", "<!-- a comment with > in it -->", "<!ELEMENT mujoco ANY>" * 500])
def test_a_doctype_with_an_internal_subset_does_not_hide_the_format(tmp_path, subset):
    path = tmp_path / "robot.xml"
    path.write_text(f"<?xml version='1.0'?>\n<!DOCTYPE mujoco [{subset}]>\n{MJCF}")
    assert "b" in robodesc.load(path).bodies


@pytest.mark.parametrize("padding", [0, 10_000])
def test_an_entity_attack_in_an_xml_file_is_refused_as_unsafe(tmp_path, padding):
    bomb = "".join(f'<!ENTITY e{i} "&e{i - 1};&e{i - 1};">' for i in range(1, 30))
    path = tmp_path / "robot.xml"
    path.write_text(f'<!DOCTYPE mujoco [<!--{" " * padding}--><!ENTITY e0 "boom">{bomb}]>\n<mujoco>&e29;</mujoco>')
    assert bounded(lambda: robodesc.load(path), seconds=10).error == "UnsafeXML"


def test_an_empty_xml_file_is_reported_empty(tmp_path):
    path = tmp_path / "robot.xml"
    for content in (b"", b"  \n", "\n".encode("utf-16")):
        path.write_bytes(content)
        with pytest.raises((MissingRootElement, XMLSyntaxError)) as info:
            robodesc.load(path)
        assert info.value.file == str(path)


def test_a_namespaced_root_reaches_its_reader_which_says_what_is_wrong(tmp_path):
    path = tmp_path / "robot.xml"
    path.write_text('<mj:mujoco xmlns:mj="urn:x">\n  <worldbody/>\n</mj:mujoco>')
    with pytest.raises(MissingRootElement) as info:
        robodesc.load(path)
    assert info.value.line == 1 and "<mujoco>" in str(info.value)


# -- DTDs -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "format", "element"),
    [
        ('<!DOCTYPE robot [<!ATTLIST link name CDATA "injected">]><robot name="r"><link/></robot>', "urdf", "link"),
        (
            '<!DOCTYPE sdf [<!ATTLIST link name CDATA "injected">]>'
            '<sdf version="1.9"><model name="m"><link/></model></sdf>',
            "sdf",
            "link",
        ),
        (
            '<!DOCTYPE mujoco [<!ATTLIST body name CDATA "injected">]>'
            '<mujoco><worldbody><body><geom size="1"/></body></worldbody></mujoco>',
            "mjcf",
            "body",
        ),
    ],
)
def test_dtd_attribute_defaults_are_never_applied(text, format, element):
    try:
        model = robodesc.loads(text)
    except RobodescError as error:  # an element without its name is refused, as TinyXML2's readers refuse it
        assert "injected" not in str(error)
        assert error.construct is None or "injected" not in error.construct
        return
    assert model.format == format
    assert "injected" not in model.bodies


def test_a_dtd_default_in_utf16_is_not_applied_either():
    text = '<!DOCTYPE robot [<!ATTLIST link name CDATA "injected">]><robot name="r"><link name="a"/></robot>'
    model = robodesc.loads(text.encode("utf-16"))
    assert list(model.bodies) == ["a"]


def test_resource_refused_is_a_resource_not_found_for_existing_handlers():
    assert issubclass(ResourceRefused, ResourceNotFound)


def test_a_confined_conversion_refuses_what_lies_outside(tmp_path, outside):
    """`robodesc convert --confine` (and `convert(confine=True)`) reads as a confined load reads."""
    from robodesc.cli import main

    model = tmp_path / "robot" / "robot.xml"
    model.write_text(f'<mujoco><include file="{outside}"/><worldbody/></mujoco>')
    output = tmp_path / "robot" / "robot.urdf"
    with pytest.raises(ResourceNotFound, match="outside"):
        robodesc.convert(model, output, confine=True)
    assert main(["convert", "--confine", str(model), "-o", str(output)]) != 0
    assert not output.exists()
    assert robodesc.convert(model, output).written  # not confined: the include is read
