"""Python's cyclic garbage collector is paused while loads run and resumed when the last one ends.

A load allocates a parsed tree and a model's records that all live until it ends and leaves no
cycles (tests/test_load_cycles.py), so the collector's passes during a load free nothing. These
tests pin what a program relies on: the collector is back as it was after every load, failed or
nested or run beside another thread's, and a program that disabled it keeps it disabled.
"""

from __future__ import annotations

import gc
import threading

import pytest

from robodesc import Body, FormatSpec, InvalidValue, Model, ReaderCrash, hookimpl
from robodesc.plugins import Registry

URDF = '<robot name="r"><link name="a"/></robot>'


def model(name: str) -> Model:
    result = Model(name=name)
    result.bodies["base"] = Body("base")
    return result


def _registry(read) -> Registry:
    """A registry with the built-in formats and a `probe` format read by `read(data, context)`."""

    class Probe:
        @hookimpl
        def robodesc_formats(self):
            return [FormatSpec(name="probe", extensions=(".probe",), read=read)]

    registry = Registry()
    registry.register(Probe(), name="probe-plugin")
    return registry


@pytest.fixture(autouse=True)
def _collector_enabled_around_each_test():
    assert gc.isenabled()
    yield
    gc.enable()


def test_the_collector_is_paused_during_a_load_and_resumed_after_it():
    seen: list[bool] = []

    def read(data, context):
        seen.append(gc.isenabled())
        return model("m")

    registry = _registry(read)
    assert registry.loads(b"x", format="probe").name == "m"
    assert seen == [False]
    assert gc.isenabled()
    assert registry.loads(URDF, format="urdf").name == "r"
    assert gc.isenabled()


def test_a_failed_load_resumes_the_collector():
    def read(data, context):
        raise InvalidValue("bad", construct="probe")

    with pytest.raises(InvalidValue):
        _registry(read).loads(b"x", format="probe")
    assert gc.isenabled()


@pytest.mark.plugin_crash
def test_a_crashing_reader_resumes_the_collector():
    def read(data, context):
        return {}["missing"]

    with pytest.raises(ReaderCrash, match="probe"):
        _registry(read).loads(b"x", format="probe")
    assert gc.isenabled()


def test_a_program_that_disabled_the_collector_keeps_it_disabled():
    gc.disable()
    assert _registry(lambda data, context: model("m")).loads(URDF, format="urdf").name == "r"
    assert not gc.isenabled()


def test_a_nested_load_keeps_the_collector_paused_until_the_outer_one_ends(tmp_path):
    inner = tmp_path / "inner.urdf"
    inner.write_text(URDF)
    seen: list[bool] = []

    def read(data, context):
        seen.append(gc.isenabled())
        model = context.load_file(str(inner), format="urdf")
        seen.append(gc.isenabled())
        return model

    assert _registry(read).loads(b"x", format="probe", base_dir=tmp_path).name == "r"
    assert seen == [False, False]
    assert gc.isenabled()


def test_loads_in_two_threads_resume_the_collector_when_the_last_one_ends():
    both_reading = threading.Barrier(2, timeout=10)
    first_done = threading.Event()
    seen: dict[str, bool] = {}

    def read(data, context):
        both_reading.wait()
        if data == b"first":
            return model("first")
        first_done.wait(timeout=10)  # the first load has ended: this one still runs paused
        seen["second, after the first ended"] = gc.isenabled()
        return model("second")

    registry = _registry(read)
    names: list[str] = []

    def load(data: bytes) -> None:
        names.append(registry.loads(data, format="probe").name)
        if data == b"first":
            first_done.set()

    threads = [threading.Thread(target=load, args=(data,)) for data in (b"first", b"second")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert sorted(names) == ["first", "second"]
    assert seen == {"second, after the first ended": False}
    assert gc.isenabled()
