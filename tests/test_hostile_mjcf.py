"""Hostile and huge MJCF (and XML) input: refused early, at its line, in bounded time and memory,
never a stray exception. Each load runs in a forked child with a time and memory limit
(`bounded`), so a hang or a runaway fails the test, never the suite."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_hostile_files import bounded

import robodesc

HUGE = "1 " * 20_000_000  # 40 MB: past MAX_ATTRIBUTE_BYTES


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("mjcf", '<mujoco>\n<worldbody><body name="b" pos="{}"><geom size="1"/></body></worldbody></mujoco>'),
        ("urdf", '<robot name="r">\n<link name="a"><visual><origin xyz="{}"/></visual></link></robot>'),
        ("sdf", '<sdf version="1.9">\n<model name="m"><link name="l" x="{}"/></model></sdf>'),
    ],
)
def test_an_attribute_longer_than_robodesc_reads_is_refused_before_parsing(tmp_path: Path, fmt: str, text: str) -> None:
    """expat rescans a long attribute with each 1 MiB piece it is handed (quadratic time): refused first."""
    path = tmp_path / f"huge.{'xml' if fmt == 'mjcf' else fmt}"
    path.write_text(text.format(HUGE))
    outcome = bounded(lambda: robodesc.load(path), seconds=20, memory=2 * 2**30)
    assert outcome.error == "XMLSyntaxError", outcome
    assert "longer than 32 MiB" in outcome.message and outcome.line == 2
    assert len(outcome.message) < 500


def test_a_long_vector_where_three_numbers_go_is_refused_with_an_excerpt(tmp_path: Path) -> None:
    """20 MB of numbers in pos: the count is checked without cutting them all, the message is short."""
    path = tmp_path / "long.xml"
    path.write_text(
        f'<mujoco><worldbody><body name="b" pos="{"1 " * 10_000_000}"><geom size="1"/></body></worldbody></mujoco>'
    )
    outcome = bounded(lambda: robodesc.load(path), seconds=20, memory=2 * 2**30)
    assert outcome.error == "MalformedValue"
    assert "more than 3 value(s), expected 3" in outcome.message and len(outcome.message) < 500
