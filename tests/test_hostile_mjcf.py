"""Hostile and huge MJCF (and XML) input: refused early, at its line, in bounded time and memory,
never a stray exception. Each load runs in a forked child with a time and memory limit
(`bounded`), so a hang or a runaway fails the test, never the suite."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from test_hostile_files import bounded

import robodesc

HUGE = "1 " * 20_000_000  # 40 MB: past MAX_TOKEN_BYTES


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("mjcf", '<mujoco>\n<worldbody><body name="b" pos="{}"><geom size="1"/></body></worldbody></mujoco>'),
        ("urdf", '<robot name="r">\n<link name="a"><visual><origin xyz="{}"/></visual></link></robot>'),
        ("sdf", '<sdf version="1.9">\n<model name="m"><link name="l" x="{}"/></model></sdf>'),
        ("urdf", '<robot name="r">\n<!-- {} --><link name="a"/></robot>'),  # a comment
        ("urdf", '<robot name="r">\n<?pi {} ?><link name="a"/></robot>'),  # a processing instruction
        ("sdf", '<sdf version="1.9">\n<model{} name="m"><link name="l"/></model></sdf>'),  # spaces in a tag
    ],
)
def test_a_token_longer_than_robodesc_reads_is_refused_while_parsing(tmp_path: Path, fmt: str, text: str) -> None:
    """expat rescans an unfinished token with each 1 MiB piece it is handed (quadratic time): one
    past 32 MiB is refused as soon as it is that long, at the line where it begins."""
    path = tmp_path / f"huge.{'xml' if fmt == 'mjcf' else fmt}"
    path.write_text(text.format(HUGE.replace("1", " ") if "<model{}" in text else HUGE))
    outcome = bounded(lambda: robodesc.load(path), seconds=20, memory=2 * 2**30)
    assert outcome.error == "XMLSyntaxError", outcome
    assert "longer than 32 MiB" in outcome.message and outcome.line == 2
    assert len(outcome.message) < 500


def test_nothing_of_a_load_waits_for_the_cyclic_collector() -> None:
    """The expat parser (holding expat's buffer: 32 MiB and more after a refused token) and the load's
    context are freed when the load ends, not when Python's cyclic collector next runs."""
    robodesc.loads('<robot name="r"><link name="a"/></robot>', format="urdf")  # imports done
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        with pytest.raises(robodesc.XMLSyntaxError):
            robodesc.loads(f'<robot name="r"><!-- {"x" * 40 * 2**20} --><link name="a"/></robot>', format="urdf")
        robodesc.loads('<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="fixed">'
                       '<parent link="a"/><child link="b"/></joint></robot>', format="urdf")
        gc.collect()
        left = sorted({type(thing).__name__ for thing in gc.garbage})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == [], left


def test_a_long_vector_where_three_numbers_go_is_refused_with_an_excerpt(tmp_path: Path) -> None:
    """20 MB of numbers in pos: the count is checked without cutting them all, the message is short."""
    path = tmp_path / "long.xml"
    path.write_text(
        f'<mujoco><worldbody><body name="b" pos="{"1 " * 10_000_000}"><geom size="1"/></body></worldbody></mujoco>'
    )
    outcome = bounded(lambda: robodesc.load(path), seconds=20, memory=2 * 2**30)
    assert outcome.error == "MalformedValue"
    assert "more than 3 value(s), expected 3" in outcome.message and len(outcome.message) < 500


def _doubling_attach_chain(folder: Path, count: int) -> Path:
    """`count` files, each attaching the next one's body twice: 2^count bodies from a few lines."""
    for k in range(count):
        if k < count - 1:
            attaches = '<attach model="m" body="b" prefix="x"/><attach model="m" body="b" prefix="y"/>'
            asset = f'<asset><model name="m" file="f{k + 1}.xml"/></asset>'
        else:
            attaches, asset = "", ""
        (folder / f"f{k}.xml").write_text(
            f'<mujoco>{asset}<worldbody><body name="b"><joint/><geom size=".1"/>{attaches}</body></worldbody></mujoco>'
        )
    return folder / "f0.xml"


def test_attaches_that_double_are_measured_and_refused_before_building(tmp_path: Path) -> None:
    path = _doubling_attach_chain(tmp_path, 20)
    outcome = bounded(lambda: robodesc.load(path), seconds=20, memory=2**30)
    assert outcome.error == "InvalidValue"
    assert "expands to" in outcome.message and "more than the limit of 250,000" in outcome.message
    assert outcome.line == 1 and outcome.file is not None and outcome.file.endswith(".xml")


def test_a_replicate_around_an_attach_is_measured(tmp_path: Path) -> None:
    _doubling_attach_chain(tmp_path, 10)  # f10 is the last; f5 expands to 2^5 bodies
    path = tmp_path / "replicated.xml"
    path.write_text(
        '<mujoco><asset><model name="m" file="f5.xml"/></asset><worldbody>\n'
        '<replicate count="5000"><body name="r"><attach model="m" body="b" prefix="z"/></body></replicate>'
        "</worldbody></mujoco>"
    )
    outcome = bounded(lambda: robodesc.load(path), seconds=20, memory=2**30)
    assert outcome.error == "InvalidValue" and "this <replicate> expands to" in outcome.message
    assert outcome.line == 2


def test_the_limit_is_raised_with_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _doubling_attach_chain(tmp_path, 8)  # 2^8 - 1 bodies, 4 elements each: about a thousand
    assert len(robodesc.load(path).bodies) == 2**8
    monkeypatch.setenv("ROBODESC_MAX_ELEMENTS", "500")
    with pytest.raises(robodesc.RobodescError, match="more than the limit of 500"):
        robodesc.load(path)


def test_a_sub_model_file_named_by_many_assets_is_parsed_once(tmp_path: Path) -> None:
    """20,000 <asset><model>s of one 2,000-body file: read and parsed once (20,000 parses took
    minutes and gigabytes), and each name attaches it."""
    bodies = "".join(f'<body name="b{k}"><geom size=".1"/></body>' for k in range(2_000))
    (tmp_path / "arm.xml").write_text(f"<mujoco><worldbody>{bodies}</worldbody></mujoco>")
    models = "".join(f'<model name="m{k}" file="arm.xml"/>' for k in range(20_000))
    path = tmp_path / "scene.xml"
    path.write_text(
        f"<mujoco><asset>{models}</asset><worldbody>"
        '<frame><attach model="m0" body="b1" prefix="a"/></frame>'
        '<frame><attach model="m19999" body="b2" prefix="z"/></frame></worldbody></mujoco>'
    )
    outcome = bounded(lambda: sorted(robodesc.load(path).bodies), seconds=20, memory=2**30)
    assert outcome.error is None, outcome
    assert outcome.value == ["ab1", "world", "zb2"]
