"""The SDF lint's quiet pass (`checks._Lint.quiet`) says a file has nothing to report only when the walk
agrees: it looks at the elements without their owners and models, so it must count as a finding whatever
needs them. Checked on files with findings in every place the pass treats apart, and on the corpus."""

from __future__ import annotations

import os
import textwrap
from functools import partial
from pathlib import Path

import pytest

import robodesc
from robodesc.core.errors import RobodescError
from robodesc.formats.sdf import checks
from robodesc.formats.sdf import parse as sdf_parse

CLEAN = textwrap.dedent(
    """\
    <sdf version="1.12">
      <model name="m">
        <link name="a"><pose>0 0 1 0 0 0.5</pose>
          <visual name="v"><geometry><box><size>1 1 1</size></box></geometry></visual>
          <sensor name="s" type="imu"><update_rate>100</update_rate></sensor>
        </link>
        <link name="b"/>
        <joint name="j" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis></joint>
        <plugin filename="libp.so" name="p"><pose>0 0 0 0 0 0.9</pose></plugin>
      </model>
    </sdf>
    """
)


def _model(inner: str, version: str = "1.12") -> str:
    return f'<sdf version="{version}"><model name="m"><link name="a"/><link name="b"/>{inner}</model></sdf>'


FINDINGS = [
    # a pose whose finding needs its owner and model, inside elements the parse only keeps
    _model('<link name="c"><light name="l" type="point"><pose relative_to="no">0 0 0 0 0 0</pose></light></link>'),
    _model("<link name='c'><sensor name='s' type='imu'><pose>0 0 0 90 0 0</pose></sensor></link>"),
    # a sensor held by a joint, a joint's axes, a continuous joint's limits
    _model("<joint name='j' type='fixed'><parent>a</parent><child>b</child><sensor name='s' type='bad'/></joint>"),
    _model("<joint name='j' type='revolute'><parent>a</parent><child>b</child><axis><xyz>0 0 2</xyz></axis></joint>"),
    _model(
        "<joint name='j' type='continuous'><parent>a</parent><child>b</child>"
        "<axis><xyz>0 0 1</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis></joint>"
    ),
    # geometries of no shape or of several, names, plugins, attributes newer than the file
    _model("<link name='c'><collision name='k'><geometry><box/><sphere/></geometry></collision></link>"),
    _model("<link name='c'><visual name='v'><geometry><!-- none --></geometry></visual></link>"),
    _model("<link name=' '/>"),
    _model("<frame name=''/>"),
    _model("<plugin filename='' name='p'/>"),
    _model('<link name="c"><pose relative_to="a">0 0 0 0 0 0</pose></link>', version="1.6"),
    _model('<link name="c"><pose degrees="true">0 0 0 0.785398 0 0</pose></link>'),
    _model("<link name='c'><inertial><pose>0 0 0 45 0 0</pose></inertial></link>"),
]


def _verdicts(monkeypatch: pytest.MonkeyPatch, load) -> list[tuple[bool, int]]:
    """(what `quiet` says, how many findings the walk makes) for each file the load lints."""
    verdicts = []
    walk_only = checks._Lint.quiet

    def lint_twice(ctx) -> None:
        lint = checks._Lint(ctx)
        lint.document_content(ctx.document.root)  # (`run` asks `quiet` only of a document that is not empty)
        quiet = not lint.found and lint.quiet()
        before = len(ctx.diagnostics)
        monkeypatch.setattr(checks._Lint, "quiet", lambda self: False)
        try:
            checks.lint(ctx)
        finally:
            monkeypatch.setattr(checks._Lint, "quiet", walk_only)
        verdicts.append((quiet, len(ctx.diagnostics) - before))

    monkeypatch.setattr(sdf_parse, "lint", lint_twice)
    try:
        load()
    except RobodescError:
        pass
    return verdicts


def test_quiet_only_when_the_walk_finds_nothing(monkeypatch: pytest.MonkeyPatch):
    assert _verdicts(monkeypatch, lambda: robodesc.loads(CLEAN, format="sdf")) == [(True, 0)]
    for text in FINDINGS:
        verdicts = _verdicts(monkeypatch, partial(robodesc.loads, text, format="sdf"))
        assert len(verdicts) == 1 and not verdicts[0][0] and verdicts[0][1] > 0, text


@pytest.mark.skipif(not os.environ.get("ROBODESC_CORPUS"), reason="ROBODESC_CORPUS is not set")
def test_quiet_agrees_with_the_walk_on_the_corpus(monkeypatch: pytest.MonkeyPatch):
    files = sorted(Path(os.environ["ROBODESC_CORPUS"], "sdf").rglob("*.sdf"))
    quiet_files = 0
    for path in files:
        for quiet, found in _verdicts(monkeypatch, partial(robodesc.load, path)):
            assert not (quiet and found), path
            quiet_files += quiet
    assert quiet_files > len(files) // 4  # the pass does spare most clean files the walk
