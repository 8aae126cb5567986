"""The elements the SDF parse vets for the lint (`FileContext.vetted`), which the lint's quiet pass passes over:
each must be one the pass would find nothing in, whatever else the file holds. Checked on files where the parse
reads an element the lint has something to say about (an attribute newer than an old file, a blank name, an
empty plugin filename), and on files where what the lint reports hides inside elements the parse reads (a
<pose> in a <cylinder>, in an unknown child of a link, in a <material>): the pass says the same with and
without the vetting, and the walk still reports it."""

from __future__ import annotations

import textwrap

import pytest

import robodesc
from robodesc.core.errors import RobodescError
from robodesc.formats.sdf import checks
from robodesc.formats.sdf import parse as sdf_parse


def _model(inner: str, version: str = "1.5") -> str:
    return f'<sdf version="{version}"><model name="m"><link name="a"/><link name="b"/>{inner}</model></sdf>'


_BOX = "<geometry><box><size>1 1 1</size></box></geometry>"

FINDINGS = [
    # attributes newer than an old file, on elements the parse reads
    _model("", version="1.5").replace('<model name="m">', '<model name="m" canonical_link="a">'),
    _model("", version="1.7").replace('<model name="m">', '<model name="m" placement_frame="a">'),
    _model('<frame name="f" attached_to="a"/>', version="1.6"),
    _model(
        "<joint name='j' type='revolute'><parent>a</parent><child>b</child>"
        "<axis><xyz expressed_in='a'>0 0 1</xyz></axis></joint>",
        version="1.6",
    ),
    _model('<link name="c"><pose relative_to="a">0 0 0 0 0 0</pose></link>', version="1.5"),
    _model(
        f'<link name="c"><inertial auto="true"/><collision name="k">{_BOX}</collision></link>',
        version="1.9",
    ),
    # blank names on elements the parse reads
    _model(f"<link name='c'><visual name=' '>{_BOX}</visual></link>"),
    _model(f"<link name='c'><collision name=' '>{_BOX}</collision></link>"),
    _model("<link name='c'><light name=' ' type='point'/></link>", version="1.12"),
    _model("<joint name=' ' type='revolute'><parent>a</parent><child>b</child></joint>"),
    '<sdf version="1.5"><model name=" "><link name="a"/></model></sdf>',
    # plugins kept where the parse reads their owner
    _model("<plugin filename='' name='p'/>"),
    _model("<link name='c'><plugin filename='libp.so' name=' '/></link>"),
    # what the lint reports, inside elements the parse reads (or keeps) without looking for it
    _model("<link name='c'><unknown_child><pose>0 0 0 0 0 90</pose></unknown_child></link>"),
    _model(
        "<link name='c'><visual name='v'><geometry><cylinder><radius>1</radius><length>1</length>"
        "<pose>0 0 0 0 0 90</pose></cylinder></geometry></visual></link>"
    ),
    _model(
        f"<link name='c'><visual name='v'>{_BOX}<material><script><uri>file://media/x.material</uri><name>x</name>"
        "<pose>0 0 0 45 0 0</pose></script></material></visual></link>"
    ),
    _model(
        f"<link name='c'><collision name='k'>{_BOX}<surface><pose>0 0 0 0 0 180</pose></surface></collision></link>"
    ),
    _model(
        "<link name='c'><visual name='v'><geometry><box><size>1 1 1</size></box><sphere/></geometry></visual></link>"
    ),
    _model(
        "<joint name='j' type='revolute'><parent>a</parent><child>b</child>"
        "<axis><xyz>0 0 1</xyz><limit><lower>-1</lower><pose>0 0 0 0 0 90</pose></limit></axis></joint>"
    ),
    _model(
        "<joint name='j' type='revolute'><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis>"
        "<axis2><xyz>0 0 1</xyz></axis2></joint>"
    ),
    _model(
        "<link name='c'><inertial><mass>1</mass>"
        "<inertia><ixx>1</ixx><pose>0 0 0 0 0 90</pose></inertia></inertial></link>"
    ),
]

#: An old file every linted element of which the parse reads and vets: the quiet pass looks at none of them.
CLEAN = textwrap.dedent(
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


def _verdicts(monkeypatch: pytest.MonkeyPatch, text: str) -> list[tuple[bool, bool, int]]:
    """(what `quiet` says, what it says without the vetting, how many findings the walk makes) per linted file."""
    verdicts = []
    quiet = checks._Lint.quiet

    def lint_three_ways(ctx) -> None:
        lint = checks._Lint(ctx)
        lint.document_content(ctx.document.root)
        vetted = not lint.found and lint.quiet()
        lint.found.clear()
        kept, ctx.vetted = ctx.vetted, set()
        unvetted = not lint.found and lint.quiet()
        ctx.vetted = kept
        before = len(ctx.diagnostics)
        monkeypatch.setattr(checks._Lint, "quiet", lambda self: False)
        try:
            checks.lint(ctx)
        finally:
            monkeypatch.setattr(checks._Lint, "quiet", quiet)
        verdicts.append((vetted, unvetted, len(ctx.diagnostics) - before))

    monkeypatch.setattr(sdf_parse, "lint", lint_three_ways)
    try:
        robodesc.loads(text, format="sdf")
    except RobodescError:
        pass
    return verdicts


@pytest.mark.parametrize("text", FINDINGS)
def test_vetting_hides_no_finding(monkeypatch: pytest.MonkeyPatch, text: str):
    verdicts = _verdicts(monkeypatch, text)
    assert len(verdicts) == 1
    vetted, unvetted, found = verdicts[0]
    assert found > 0 and not vetted and not unvetted


@pytest.mark.parametrize("text", FINDINGS)
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
    assert _verdicts(monkeypatch, CLEAN) == [(True, True, 0)]
    seen = []
    monkeypatch.setattr(sdf_parse, "lint", lambda ctx: seen.append(ctx))
    robodesc.loads(CLEAN, format="sdf")
    (ctx,) = seen
    linted = checks._Lint(ctx).linted
    assert [e.tag for e in ctx.document.root.iter() if e.tag in linted and e not in ctx.vetted] == []
