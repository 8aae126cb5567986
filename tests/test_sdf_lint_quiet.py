"""The SDF lint's quiet pass (`checks._Lint.quiet`) says a file has nothing to report only when the walk
agrees: it looks at the elements without their owners and models, so it must count as a finding whatever
needs them. Checked on files with findings in every place the pass treats apart, and on the corpus.

The pass also passes over the elements the parse vetted for it (`FileContext.vetted`): each must be one it
would find nothing in, whatever else the file holds. Checked on files where the parse reads an element the lint
has something to say about (an attribute newer than an old file, a blank name, an empty plugin filename), and on
files where what the lint reports hides inside elements the parse reads (a <pose> in a <cylinder>, in an unknown
child of a link, in a <material>): the pass says the same with and without the vetting, and the walk still
reports it."""

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


def _verdicts(monkeypatch: pytest.MonkeyPatch, load) -> list[tuple[bool, bool, int]]:
    """(what `quiet` says, what it says without the parse's vetting, how many findings the walk makes) for each
    file the load lints."""
    verdicts = []
    walk_only = checks._Lint.quiet

    def lint_three_ways(ctx) -> None:
        lint = checks._Lint(ctx)
        lint.document_content(ctx.document.root)  # (`run` asks `quiet` only of a document that is not empty)
        quiet = not lint.found and lint.quiet()
        lint.found.clear()
        kept, ctx.vetted = ctx.vetted, set()
        unvetted = not lint.found and lint.quiet()
        ctx.vetted = kept
        before = len(ctx.diagnostics)
        monkeypatch.setattr(checks._Lint, "quiet", lambda self: False)
        try:
            checks.lint(ctx)
        finally:
            monkeypatch.setattr(checks._Lint, "quiet", walk_only)
        verdicts.append((quiet, unvetted, len(ctx.diagnostics) - before))

    monkeypatch.setattr(sdf_parse, "lint", lint_three_ways)
    try:
        load()
    except RobodescError:
        pass
    return verdicts


def test_quiet_only_when_the_walk_finds_nothing(monkeypatch: pytest.MonkeyPatch):
    assert _verdicts(monkeypatch, lambda: robodesc.loads(CLEAN, format="sdf")) == [(True, True, 0)]
    for text in FINDINGS:
        verdicts = _verdicts(monkeypatch, partial(robodesc.loads, text, format="sdf"))
        assert len(verdicts) == 1 and not verdicts[0][0] and verdicts[0][2] > 0, text


@pytest.mark.skipif(not os.environ.get("ROBODESC_CORPUS"), reason="ROBODESC_CORPUS is not set")
def test_quiet_agrees_with_the_walk_on_the_corpus(monkeypatch: pytest.MonkeyPatch):
    files = sorted(Path(os.environ["ROBODESC_CORPUS"], "sdf").rglob("*.sdf"))
    quiet_files = 0
    for path in files:
        for quiet, _, found in _verdicts(monkeypatch, partial(robodesc.load, path)):
            assert not (quiet and found), path
            quiet_files += quiet
    assert quiet_files > len(files) // 4  # the pass does spare most clean files the walk


def _old(inner: str, version: str = "1.5") -> str:
    """A model of an old file by default: the parse reads (and vets) more of its attributes' versions."""
    return _model(inner, version)


_BOX = "<geometry><box><size>1 1 1</size></box></geometry>"

VETTED_FINDINGS = [
    # attributes newer than an old file, on elements the parse reads
    _old("", version="1.5").replace('<model name="m">', '<model name="m" canonical_link="a">'),
    _old("", version="1.7").replace('<model name="m">', '<model name="m" placement_frame="a">'),
    _old('<frame name="f" attached_to="a"/>', version="1.6"),
    _old(
        "<joint name='j' type='revolute'><parent>a</parent><child>b</child>"
        "<axis><xyz expressed_in='a'>0 0 1</xyz></axis></joint>",
        version="1.6",
    ),
    _old('<link name="c"><pose relative_to="a">0 0 0 0 0 0</pose></link>', version="1.5"),
    _old(
        f'<link name="c"><inertial auto="true"/><collision name="k">{_BOX}</collision></link>',
        version="1.9",
    ),
    # blank names on elements the parse reads
    _old(f"<link name='c'><visual name=' '>{_BOX}</visual></link>"),
    _old(f"<link name='c'><collision name=' '>{_BOX}</collision></link>"),
    _old("<link name='c'><light name=' ' type='point'/></link>", version="1.12"),
    _old("<joint name=' ' type='revolute'><parent>a</parent><child>b</child></joint>"),
    '<sdf version="1.5"><model name=" "><link name="a"/></model></sdf>',
    # plugins kept where the parse reads their owner
    _old("<plugin filename='' name='p'/>"),
    _old("<link name='c'><plugin filename='libp.so' name=' '/></link>"),
    # what the lint reports, inside elements the parse reads (or keeps) without looking for it
    _old("<link name='c'><unknown_child><pose>0 0 0 0 0 90</pose></unknown_child></link>"),
    _old(
        "<link name='c'><visual name='v'><geometry><cylinder><radius>1</radius><length>1</length>"
        "<pose>0 0 0 0 0 90</pose></cylinder></geometry></visual></link>"
    ),
    _old(
        f"<link name='c'><visual name='v'>{_BOX}<material><script><uri>file://media/x.material</uri><name>x</name>"
        "<pose>0 0 0 45 0 0</pose></script></material></visual></link>"
    ),
    _old(f"<link name='c'><collision name='k'>{_BOX}<surface><pose>0 0 0 0 0 180</pose></surface></collision></link>"),
    _old("<link name='c'><visual name='v'><geometry><box><size>1 1 1</size></box><sphere/></geometry></visual></link>"),
    _old(
        "<joint name='j' type='revolute'><parent>a</parent><child>b</child>"
        "<axis><xyz>0 0 1</xyz><limit><lower>-1</lower><pose>0 0 0 0 0 90</pose></limit></axis></joint>"
    ),
    _old(
        "<joint name='j' type='revolute'><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis>"
        "<axis2><xyz>0 0 1</xyz></axis2></joint>"
    ),
    _old(
        "<link name='c'><inertial><mass>1</mass>"
        "<inertia><ixx>1</ixx><pose>0 0 0 0 0 90</pose></inertia></inertial></link>"
    ),
]

#: An old file every linted element of which the parse reads and vets: the quiet pass looks at none of them.
CLEAN_OLD = textwrap.dedent(
    """\
    <sdf version="1.5">
      <model name="m">
        <pose>0 0 1 0 0 0.5</pose>
        <link name="a"><pose>0 0 1 0 0 0.5</pose>
          <inertial><mass>1</mass><inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial>
          <visual name="v"><geometry><box><size>1 1 1</size></box></geometry></visual>
          <collision name="k"><geometry><cylinder><radius>1</radius><length>1</length></cylinder></geometry></collision>
        </link>
        <link name="b"/>
        <joint name="j" type="revolute"><parent>a</parent><child>b</child>
          <axis><xyz>0 0 1</xyz><use_parent_model_frame>true</use_parent_model_frame>
            <limit><lower>-1</lower><upper>1</upper></limit></axis></joint>
        <plugin filename="libp.so" name="p"><front_left>x</front_left></plugin>
      </model>
    </sdf>
    """
)


@pytest.mark.parametrize("text", VETTED_FINDINGS)
def test_vetting_hides_no_finding(monkeypatch: pytest.MonkeyPatch, text: str):
    verdicts = _verdicts(monkeypatch, partial(robodesc.loads, text, format="sdf"))
    assert len(verdicts) == 1
    vetted, unvetted, found = verdicts[0]
    assert found > 0 and not vetted and not unvetted


@pytest.mark.parametrize("text", VETTED_FINDINGS)
def test_diagnostics_as_without_vetting(monkeypatch: pytest.MonkeyPatch, text: str):
    def load() -> list:
        try:
            return [
                (d.code, d.message, d.location.line, d.location.element)
                for d in robodesc.loads(text, format="sdf").diagnostics
            ]
        except RobodescError as error:
            return [str(error)]

    with_vetting = load()
    monkeypatch.setattr(checks._Lint, "quiet", lambda self: False)  # (the walk alone, which no vetting touches)
    assert load() == with_vetting


def test_a_clean_old_file_is_vetted_whole(monkeypatch: pytest.MonkeyPatch):
    assert _verdicts(monkeypatch, partial(robodesc.loads, CLEAN_OLD, format="sdf")) == [(True, True, 0)]
    seen = []
    monkeypatch.setattr(sdf_parse, "lint", lambda ctx: seen.append(ctx))
    robodesc.loads(CLEAN_OLD, format="sdf")
    (ctx,) = seen
    linted = checks._Lint(ctx).linted
    assert [e.tag for e in ctx.document.root.iter() if e.tag in linted and e not in ctx.vetted] == []
