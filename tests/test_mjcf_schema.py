"""The MJCF schema table and checker (robodesc.formats.mjcf.schema) against MuJoCo 4.0 itself.

Where the `mujoco` package is installed, every verdict of the checker is compared with what
MuJoCo does with the same text: MuJoCo's schema check runs over the whole tree before anything is
read, so a "Schema violation" (or its absence) can be compared whatever the attribute values.
"""

from __future__ import annotations

import os
import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from robodesc.formats.mjcf import schema
from robodesc.formats.mjcf.schema import ANY, ROOT, SCHEMA, STRICT_SCHEMA, check_element, check_tree, validate

# -- helpers --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mj():
    mujoco = pytest.importorskip("mujoco")
    if not mujoco.__version__.startswith(schema.MUJOCO_VERSION.rsplit(".", 1)[0]):
        pytest.skip(f"the table is MuJoCo {schema.MUJOCO_VERSION}'s; mujoco {mujoco.__version__} is installed")
    return mujoco


def mujoco_error(mj, text: str) -> str:
    """MuJoCo's error for an MJCF string, or '' when it loads."""
    try:
        mj.MjModel.from_xml_string(text)
    except ValueError as exc:
        return str(exc)
    return ""


# MuJoCo 4.0.0 throws an untyped exception for an <asset><model> without a file and may hang on
# later loads in the same process, so generated documents never hold one.
_AVOID = {"model"}


def mujoco_file_error(mj, path: Path) -> str:
    try:
        mj.MjModel.from_xml_path(str(path))
    except ValueError as exc:
        return str(exc)
    return ""


_SCHEMA_ERROR = re.compile(r"Schema violation: (.*)\nElement '([^']*)', line (\d+)")


def schema_violation(error: str) -> tuple[str, str, int] | None:
    """(what, element tag, line) of a MuJoCo "Schema violation" error, else None."""
    match = _SCHEMA_ERROR.search(error)
    return (match.group(1), match.group(2), int(match.group(3))) if match else None


def doc_for(path: str, attrs: dict[str, str], extra: str = "") -> str:
    """An MJCF document with the element at `path` carrying `attrs` (and `extra` inside it)."""
    tags = path.split("/")
    assert tags[0] == "mujoco"
    if len(tags) == 1:
        return f"<mujoco{_attrs(attrs)}>{extra}</mujoco>"
    inner = f"<{tags[-1]}{_attrs(attrs)}>{extra}</{tags[-1]}>"
    for tag in reversed(tags[1:-1]):
        inner = f"<{tag}>{inner}</{tag}>"
    return f"<mujoco>{inner}</mujoco>"


def _attrs(attrs: dict[str, str]) -> str:
    return "".join(f' {name}="{value}"' for name, value in attrs.items())


def problems_of(text: str, strict: bool = False) -> list[schema.SchemaProblem]:
    return validate(ET.fromstring(text), strict)


def checked_paths() -> list[str]:
    """Every path whose attributes MuJoCo checks (the world body has none to try)."""
    return [path for path, node in SCHEMA.items() if node.attributes and node.tag == path.rsplit("/", 1)[-1]]


def misspell(name: str, taken: frozenset[str]) -> str:
    for candidate in (name[:-1], name + name[-1], name[1:] + name[0], name.upper(), name + "x"):
        if candidate and candidate not in taken:
            return candidate
    raise AssertionError(name)


# -- the table ------------------------------------------------------------------------------------


def _printed_rows(text: str) -> list[tuple[int, str, str, list[str]]]:
    rows: list[tuple[int, str, str, list[str]]] = []
    for line in text.splitlines():
        match = re.match(r"^( *)(\S+) \((.)\)(.*)$", line)
        if match:
            rows.append((len(match.group(1)) // 3, match.group(2), match.group(3), match.group(4).split()))
        elif line.strip():
            rows[-1][3].extend(line.split())
    return rows


def test_table_is_mujocos_own(mj):
    """Row by row, the table is the one MuJoCo's library prints (mj_printSchema)."""
    rows = _printed_rows(mj.mj_printSchema(False, False))
    stack: list[schema.ElementSchema] = []
    seen = 0
    for level, name, occurs, attrs in rows:
        del stack[level:]
        if level == 0:
            node = ROOT
        elif name == "(world)body":
            node = stack[-1].children["body"]
            assert SCHEMA["mujoco/worldbody"].reader_attributes == frozenset(attrs)
            assert SCHEMA["mujoco/worldbody"].attributes == frozenset()
        else:
            node = stack[-1].children[name]
        assert node.occurs == occurs, node.path
        assert node.attributes == frozenset(attrs), node.path
        stack.append(node)
        seen += 1
    # children: exactly the printed ones, plus the self-nesting ones MuJoCo adds for "R" rows
    printed: dict[str, set[str]] = {}
    stack_names: list[str] = []
    for level, name, _occurs, _attrs in rows:
        del stack_names[level:]
        tag = "body" if name == "(world)body" else name
        if stack_names:
            printed.setdefault("/".join(stack_names), set()).add(tag)
        stack_names.append(tag)
    assert set(ROOT.children) == printed["mujoco"] | {"worldbody", "frame", "replicate"}
    assert set(SCHEMA["mujoco/default"].children) == printed["mujoco/default"] | {"default"}
    body = SCHEMA["mujoco/worldbody/body"]
    assert set(body.children) == printed["mujoco/body"] | {"body", "frame", "replicate"}
    assert set(SCHEMA["mujoco/worldbody"].children) == set(body.children)
    assert set(SCHEMA["mujoco/worldbody"].forbidden) == {"inertial", "joint", "freejoint"}
    assert seen == len(rows) == 171


def test_table_size():
    rows = [node for path, node in SCHEMA.items() if node.attributes is not None and path != "mujoco/worldbody"]
    assert len(rows) == 171  # MuJoCo 4.0.0's table has 171 rows
    assert sum(len(node.attributes) for node in rows) == 1894
    assert len(set().union(*(node.attributes for node in rows))) == 432  # distinct names


# -- every element with every attribute -----------------------------------------------------------


@pytest.mark.parametrize("path", checked_paths())
def test_every_attribute_is_accepted(path):
    node = SCHEMA[path]
    text = doc_for(path, dict.fromkeys(sorted(node.attributes), "x"))
    # all names are fine; only presence constraints (fovy with sensorsize, ...) can complain
    assert {p.kind for p in problems_of(text)} <= {"constraint"}
    bogus = doc_for(path, {**dict.fromkeys(sorted(node.attributes), "x"), "zzbogus": "1"})
    problem = problems_of(bogus)[0]
    assert (problem.kind, problem.name, problem.stage) == ("attribute", "zzbogus", "schema")
    assert check_tree(ET.fromstring(bogus)).name == "zzbogus"  # reported before any presence constraint
    assert problem.allowed == tuple(sorted(node.attributes))


@pytest.mark.parametrize("path", checked_paths())
def test_mujoco_accepts_every_attribute_name(mj, path):
    node = SCHEMA[path]
    text = doc_for(path, dict.fromkeys(sorted(node.attributes), "x"))
    violation = schema_violation(mujoco_error(mj, text))  # values may be bad, names are not
    mine = problems_of(text)
    if mine:  # a presence constraint, the same as MuJoCo's
        assert violation == (mine[0].message.rsplit(" on <", 1)[0], node.tag, 1)
    else:
        assert violation is None
    bogus = doc_for(path, {**dict.fromkeys(sorted(node.attributes), "x"), "zzbogus": "1"})
    assert schema_violation(mujoco_error(mj, bogus)) == ("unrecognized attribute: 'zzbogus'", node.tag, 1)


@pytest.mark.parametrize("path", checked_paths())
def test_misspelt_and_misplaced_attributes(mj, path):
    """A misspelt attribute, and every attribute the same tag takes in another context, is refused
    here by both MuJoCo and the checker."""
    node = SCHEMA[path]
    names = {misspell(sorted(node.attributes)[0], node.attributes)}
    for other in SCHEMA.values():
        if other.tag == node.tag and other.attributes is not None:
            names |= other.attributes - node.attributes
    for name in sorted(names):
        text = doc_for(path, {name: "x"})
        problem = check_tree(ET.fromstring(text))  # (presence constraints may complain too)
        assert problem.name == name and problem.kind == "attribute"
        assert f"unknown attribute '{name}' on <{node.tag}>" in problem.message
        assert schema_violation(mujoco_error(mj, text)) == (f"unrecognized attribute: '{name}'", node.tag, 1)


def test_default_templates_have_no_name_or_class(mj):
    for tag in ("geom", "joint", "site", "camera", "light", "motor", "position", "tendon", "pair"):
        for name in ("name", "class"):
            text = f'<mujoco><default><default class="a"><{tag} {name}="x"/></default></default></mujoco>'
            assert [p.name for p in problems_of(text)] == [name]
            assert schema_violation(mujoco_error(mj, text))[0] == f"unrecognized attribute: '{name}'"
    text = '<mujoco><default><motor joint="j"/></default></mujoco>'  # no transmission in a template
    assert [p.name for p in problems_of(text)] == ["joint"]
    assert schema_violation(mujoco_error(mj, text))[0] == "unrecognized attribute: 'joint'"


_CONSTRAINT_CASES = [
    ('<size memory="1M" nstack="10"/>', "at most one of 'memory', 'nstack' can be specified"),
    ('<size memory="1M" njmax="10"/>', "at most one of 'memory', 'njmax' can be specified"),
    ('<default><camera fovy="45" sensorsize="1 1"/></default>', "at most one of 'fovy', 'sensorsize' can be specified"),
    (
        '<default><light directional="true" type="spot"/></default>',
        "at most one of 'directional', 'type' can be specified",
    ),
    (
        '<asset><mesh name="m" builtin="sphere" file="a.obj"/></asset>',
        "at most one of 'builtin', 'file' can be specified",
    ),
    (
        '<asset><mesh name="m" builtin="sphere" vertex="0 0 0"/></asset>',
        "at most one of 'builtin', 'vertex' can be specified",
    ),
    (
        '<worldbody><body><inertial pos="0 0 0" mass="1" fullinertia="1 1 1 0 0 0" euler="0 0 1"/></body></worldbody>',
        "at most one of 'fullinertia', 'quat', 'axisangle', 'xyaxes', 'zaxis', 'euler' can be specified",
    ),
    (
        '<worldbody><attach model="m" body="b" frame="f" prefix="p"/></worldbody>',
        "at most one of 'body', 'frame' can be specified",
    ),
    (
        '<worldbody><camera fovy="45" sensorsize="1 1"/></worldbody>',
        "at most one of 'fovy', 'sensorsize' can be specified",
    ),
    (
        '<worldbody><light directional="true" type="spot"/></worldbody>',
        "at most one of 'directional', 'type' can be specified",
    ),
    (
        '<equality><connect site1="a" body1="b" anchor="0 0 0"/></equality>',
        "at most one of ('site1', 'site2'), ('body1', 'body2', 'anchor') can be specified",
    ),
    ('<equality><connect body1="b"/></equality>', "one of ('site1', 'site2'), ('body1', 'anchor') must be specified"),
    ('<equality><connect site1="a"/></equality>', "one of ('site1', 'site2'), ('body1', 'anchor') must be specified"),
    ('<equality><weld body2="b"/></equality>', "one of ('site1', 'site2'), 'body1' must be specified"),
    (
        '<equality><weld site1="a" site2="b" relpose="0 0 0 1 0 0 0"/></equality>',
        "at most one of ('site1', 'site2'), ('body1', 'body2', 'anchor', 'relpose') can be specified",
    ),
    ("<sensor><rangefinder/></sensor>", "one of 'site', 'camera' must be specified"),
    ('<sensor><rangefinder site="s" camera="c"/></sensor>', "at most one of 'site', 'camera' can be specified"),
    (
        '<sensor><framepos objtype="site" objname="s" reftype="body"/></sensor>',
        "attributes 'reftype', 'refname' must be specified together",
    ),
    ('<sensor><distance geom1="g"/></sensor>', "one of 'geom2', 'body2' must be specified"),
    ('<sensor><normal geom1="g" body1="b" geom2="g"/></sensor>', "at most one of 'geom1', 'body1' can be specified"),
    (
        '<sensor><contact geom1="g" site="s"/></sensor>',
        "at most one of 'geom1', 'body1', 'subtree1', 'site' can be specified",
    ),
    (
        '<sensor><contact geom2="g" subtree2="b"/></sensor>',
        "at most one of 'geom2', 'body2', 'subtree2' can be specified",
    ),
    (
        '<sensor><user objtype="site" dim="1" needstage="pos" datatype="real"/></sensor>',
        "attributes 'objtype', 'objname' must be specified together",
    ),
]


@pytest.mark.parametrize(("inner", "phrase"), _CONSTRAINT_CASES)
def test_presence_constraints(mj, inner, phrase):
    text = f"<mujoco>{inner}</mujoco>"
    problem = check_tree(ET.fromstring(text))
    assert (problem.kind, problem.stage) == ("constraint", "schema")
    assert problem.message.startswith(phrase + " on <")
    assert schema_violation(mujoco_error(mj, text))[0] == phrase


def test_presence_constraints_satisfied(mj):
    for inner in (
        '<worldbody><body name="b"><geom name="g" size="1"/><site name="s"/><site name="s2"/><camera fovy="30"/></body>'
        '<body name="c2"><geom size="1"/></body></worldbody>'
        '<equality><connect body1="b" anchor="0 0 0"/><connect site1="s" site2="s2"/>'
        '<weld body1="b" body2="c2"/></equality>'
        '<sensor><distance geom1="g" body2="c2"/><rangefinder site="s"/><contact/>'
        '<user dim="1" needstage="pos" datatype="real"/>'
        '<framepos objtype="site" objname="s" reftype="body" refname="b"/></sensor>',
        # a frame is not checked by MuJoCo: not even its presence constraints
        '<worldbody><body><frame><camera fovy="45" sensorsize="1 1" resolution="10 10"/></frame></body></worldbody>',
    ):
        text = f"<mujoco>{inner}</mujoco>"
        assert problems_of(text) == []
        assert mujoco_error(mj, text) == ""


# -- elements -------------------------------------------------------------------------------------


def _element_cases() -> list[tuple[str, str]]:
    cases = []
    for path, node in SCHEMA.items():
        if node.attributes is None or not node.children or node.tag != path.rsplit("/", 1)[-1]:
            continue
        first = sorted(node.children)[0]
        cases.append((path, misspell(first, frozenset(node.children))))
    return cases


@pytest.mark.parametrize(("path", "tag"), _element_cases())
def test_misspelt_elements(mj, path, tag):
    text = doc_for(path, {}, extra=f"<{tag}/>")
    (problem,) = problems_of(text)
    assert (problem.kind, problem.name, problem.stage) == ("element", tag, "schema")
    assert problem.message.startswith(f"unknown element <{tag}> in <")
    assert schema_violation(mujoco_error(mj, text)) == ("unrecognized element", tag, 1)


def test_elements_from_other_contexts_are_refused(mj):
    cases = [
        ("mujoco/worldbody/body", "mesh"),  # an asset in a body
        ("mujoco/worldbody/body", "default"),
        ("mujoco/worldbody/body", "composite"),  # removed in MuJoCo 4.0
        ("mujoco/default", "body"),
        ("mujoco/default", "freejoint"),
        ("mujoco/default", "flexcomp"),
        ("mujoco/actuator", "joint"),
        ("mujoco/tendon/fixed", "site"),
        ("mujoco/asset", "geom"),
        ("mujoco/sensor", "general"),
        ("mujoco", "geom"),
        ("mujoco/worldbody/body", "worldbody"),
    ]
    for path, tag in cases:
        text = doc_for(path, {}, extra=f"<{tag}/>")
        assert [(p.kind, p.name) for p in problems_of(text)] == [("element", tag)], text
        assert schema_violation(mujoco_error(mj, text)) == ("unrecognized element", tag, 1), text


def test_suggestions():
    (problem,) = problems_of('<mujoco><worldbody><body><geom szie="1"/></body></worldbody></mujoco>')
    assert problem.suggestion == "size"
    element, message, allowed, name = problem  # the shape reader.py unpacks
    assert element.tag == "geom" and name == "szie" and "size" in allowed
    assert message == "unknown attribute 'szie' on <geom> in <body>"
    (problem,) = problems_of("<mujoco><worldbody><body><goem/></body></worldbody></mujoco>")
    assert problem.suggestion == "geom" and "include" in problem.allowed


def test_unique_children(mj):
    cases = {
        '<mujoco><worldbody><body><inertial mass="1" diaginertia="1 1 1" pos="0 0 0"/>'
        '<inertial mass="1" diaginertia="1 1 1" pos="0 0 0"/></body></worldbody></mujoco>': ("inertial", "body"),
        "<mujoco><option><flag/><flag/></option></mujoco>": ("flag", "option"),
        "<mujoco><default><geom/><geom/></default></mujoco>": ("geom", "default"),
        '<mujoco><default><default class="a"><joint/><joint/></default></default></mujoco>': ("joint", "default"),
        "<mujoco><visual><global/><global/></visual></mujoco>": ("global", "visual"),
        "<mujoco><compiler><lengthrange/><lengthrange/></compiler></mujoco>": ("lengthrange", "compiler"),
    }
    for text, (tag, parent) in cases.items():
        (problem,) = problems_of(text)
        assert (problem.kind, problem.name, problem.element.tag) == ("multiplicity", tag, parent)
        assert schema_violation(mujoco_error(mj, text)) == (f"unique element '{tag}' found 2 times", parent, 1)
    for text in (
        "<mujoco><compiler/><compiler/><option/><option/><worldbody/><worldbody/></mujoco>",
        '<mujoco><default><default class="a"/><default class="b"/></default></mujoco>',
    ):
        assert problems_of(text) == []
        assert mujoco_error(mj, text) == ""


# -- include, default tree, body family ---------------------------------------------------------


def test_include_is_transparent(mj, tmp_path):
    (tmp_path / "part.xml").write_text('<mujoco><geom size="1"/><site/></mujoco>')
    (tmp_path / "bad.xml").write_text('<mujoco><geom size="1" szie="1"/></mujoco>')
    (tmp_path / "inertial.xml").write_text('<mujoco><inertial mass="1" diaginertia="1 1 1" pos="0 0 0"/></mujoco>')
    main = tmp_path / "main.xml"
    main.write_text('<mujoco><worldbody><body><include file="part.xml"/></body></worldbody></mujoco>')
    assert mujoco_file_error(mj, main) == ""
    # spliced: the included <mujoco>'s children sit under the <include>, checked as the body's
    spliced = (
        '<mujoco><worldbody><body><include file="part.xml"><geom size="1"/><site/></include>'
        "</body></worldbody></mujoco>"
    )
    assert problems_of(spliced) == []
    main.write_text('<mujoco><worldbody><body><include file="bad.xml"/></body></worldbody></mujoco>')
    assert schema_violation(mujoco_file_error(mj, main))[:2] == ("unrecognized attribute: 'szie'", "geom")
    text = (
        '<mujoco><worldbody><body><include file="bad.xml"><geom size="1" szie="1"/></include>'
        "</body></worldbody></mujoco>"
    )
    assert [(p.name, p.parent) for p in problems_of(text)] == [("szie", "body")]
    # a unique child counts across the include
    main.write_text(
        '<mujoco><worldbody><body><inertial mass="1" diaginertia="1 1 1" pos="0 0 0"/>'
        '<include file="inertial.xml"/></body></worldbody></mujoco>'
    )
    assert schema_violation(mujoco_file_error(mj, main))[:2] == ("unique element 'inertial' found 2 times", "body")
    text = (
        '<mujoco><worldbody><body><inertial mass="1"/><include file="inertial.xml"><inertial mass="1"/>'
        "</include></body></worldbody></mujoco>"
    )
    assert [p.kind for p in problems_of(text)] == ["multiplicity"]
    # an <include> (and its attributes) is fine anywhere
    for path in ("mujoco", "mujoco/asset", "mujoco/default", "mujoco/worldbody/body/geom", "mujoco/sensor"):
        assert problems_of(doc_for(path, {}, extra='<include file="x.xml" anything="1"/>')) == []


def test_check_element_walk():
    root = ET.fromstring('<mujoco><include file="a.xml"><worldbody/></include></mujoco>')
    include = root[0]
    node, problems = check_element(ROOT, include)
    assert node is ROOT and problems == ()
    node, problems = check_element(node, include[0])
    assert node is SCHEMA["mujoco/worldbody"] and problems == ()
    geom = ET.fromstring('<geom size="1" type="box"/>')
    assert check_element(node, geom) == (SCHEMA["mujoco/worldbody/body/geom"], ())
    assert check_element(ROOT, ET.Comment("c"))[0] is None
    assert check_tree(root) is None


def test_default_class_tree(mj):
    text = (
        '<mujoco><default class="main"><geom size="1"/><default class="a"><geom rgba="1 0 0 1"/>'
        '<default class="b"><joint damping="1"/><motor gear="2"/></default></default></default>'
        '<worldbody><body childclass="a"><geom class="b"/></body></worldbody></mujoco>'
    )
    assert problems_of(text) == []
    assert schema_violation(mujoco_error(mj, text)) is None
    deep = (
        '<mujoco><default><default class="a"><default class="b"><geom nmae="x"/></default></default></default></mujoco>'
    )
    (problem,) = problems_of(deep)
    assert problem.name == "nmae" and problem.parent == "default"
    assert schema_violation(mujoco_error(mj, deep))[:2] == ("unrecognized attribute: 'nmae'", "geom")


def test_frames_are_not_checked_by_mujoco(mj):
    accepted = [
        '<body><frame pos="0 0 1" bogus="1"><geom size="1"/></frame></body>',
        '<body><frame><body bogus="1"><geom size="1" bogus="1"/></body></frame></body>',
        '<body><frame><geom size="1"><anything/></geom></frame></body>',
        '<replicate count="2" bogus="1"><body><geom size="1" zz="1"/></body></replicate>',
    ]
    for inner in accepted:
        text = f"<mujoco><worldbody>{inner}</worldbody></mujoco>"
        assert problems_of(text) == [], inner
        assert mujoco_error(mj, text) == "", inner
        strict = problems_of(text, strict=True)
        assert strict and {p.stage for p in strict} == {"strict"}, inner
    # ... but MuJoCo's body reader still refuses tags it does not read there
    for tag in ("composite", "mesh", "skin", "default", "worldbody", "bogus"):
        text = f"<mujoco><worldbody><body><frame><body><{tag}/></body></frame></body></worldbody></mujoco>"
        (problem,) = problems_of(text)
        assert (problem.name, problem.stage) == (tag, "reader")
        assert f"unrecognized model element '{tag}'" in mujoco_error(mj, text)
        assert [p.stage for p in problems_of(text, strict=True)] == ["reader"]
    # frame and replicate attributes that MuJoCo reads are fine in strict mode too
    text = (
        '<mujoco><worldbody><body><frame name="f" pos="0 0 1" euler="0 0 1"><geom size="1"/></frame>'
        '<replicate count="2" offset="1 0 0" sep="-" euler="0 0 1"><geom size="1"/></replicate>'
        "</body></worldbody></mujoco>"
    )
    assert problems_of(text, strict=True) == []
    assert mujoco_error(mj, text) == ""


def test_world_body_restrictions(mj):
    cases = {
        '<worldbody name="world"/>': "World body cannot have attributes",
        "<worldbody><joint/></worldbody>": "World body cannot have joints",
        "<worldbody><freejoint/></worldbody>": "World body cannot have joints",
        '<worldbody><inertial mass="1"/></worldbody>': "World body cannot have inertia",
        "<worldbody><frame><joint/></frame></worldbody>": "World body cannot have joints",
        '<worldbody><frame><frame><inertial mass="1"/></frame></frame></worldbody>': "World body cannot have inertia",
        '<worldbody><body><replicate count="2"><joint/></replicate></body></worldbody>': "direct child of replicate",
        '<worldbody><replicate count="2"><frame><joint/></frame></replicate></worldbody>': "direct child of replicate",
    }
    for inner, error in cases.items():
        text = f"<mujoco>{inner}</mujoco>"
        (problem,) = problems_of(text)
        assert problem.stage == "reader", inner
        assert error in mujoco_error(mj, text), inner
    # a joint in a body in a frame of the world body is fine
    text = '<mujoco><worldbody><frame><body><joint/><geom size="1"/></body></frame></worldbody></mujoco>'
    assert problems_of(text) == [] and mujoco_error(mj, text) == ""
    # an unknown attribute on <worldbody> is a schema violation, a body attribute a reader error
    text = '<mujoco><worldbody bogus="1"/></mujoco>'
    assert [p.stage for p in problems_of(text)] == ["schema"]
    assert schema_violation(mujoco_error(mj, text))[:2] == ("unrecognized attribute: 'bogus'", "worldbody")


def test_top_level_body_family(mj):
    """<body>/<frame>/<replicate> right under <mujoco> are checked against the body row, then ignored."""
    for tag in ("body", "frame", "replicate"):
        assert problems_of(f'<mujoco><{tag} name="a" pos="0 0 1"><geom size="1"/></{tag}></mujoco>') == []
        assert mujoco_error(mj, f'<mujoco><{tag} name="a" pos="0 0 1"><geom size="1"/></{tag}></mujoco>') == ""
        text = f'<mujoco><{tag} count="2"/></mujoco>'
        assert [p.name for p in problems_of(text)] == ["count"]
        assert schema_violation(mujoco_error(mj, text))[:2] == ("unrecognized attribute: 'count'", tag)


def test_strict_schema_differs_only_in_frames():
    assert set(STRICT_SCHEMA) - set(SCHEMA) == set()
    differing = {p for p in SCHEMA if SCHEMA[p].attributes != STRICT_SCHEMA.get(p, SCHEMA[p]).attributes}
    assert differing and all(p.endswith(("frame", "replicate")) for p in differing)
    assert SCHEMA["mujoco/worldbody/body/frame"].attributes is None
    assert STRICT_SCHEMA["mujoco/worldbody/body/frame"].attributes == schema.FRAME_ATTRIBUTES


# -- differential fuzzing against MuJoCo ----------------------------------------------------------

_ALL_TAGS = sorted({node.tag for node in SCHEMA.values()} - _AVOID | {"bogus", "composite"})
_ALL_ATTRS = sorted(set().union(*(n.attributes for n in SCHEMA.values() if n.attributes)) | {"bogus"})


def _random_tree(rng: random.Random, node: schema.ElementSchema, element: ET.Element, depth: int) -> None:
    if node.children is None or node.attributes is None or depth > 4:
        return
    tags = sorted(set(node.children) - set(node.forbidden) - _AVOID)
    if not tags:
        return
    for _ in range(rng.randint(0, 3)):
        tag = rng.choice(tags)
        child_node = node.children[tag]
        if child_node.occurs in "?!" and element.find(tag) is not None:
            continue
        attrs = sorted(child_node.attributes or ())
        child = ET.SubElement(element, tag, {a: "x" for a in rng.sample(attrs, min(len(attrs), rng.randint(0, 2)))})
        _random_tree(rng, child_node, child, depth + 1)


def _mutate(rng: random.Random, root: ET.Element) -> None:
    elements = list(root.iter())
    victim = rng.choice(elements)
    choice = rng.randrange(4)
    if choice == 0:
        victim.set(rng.choice(_ALL_ATTRS), "x")
    elif choice == 1 and victim is not root:
        victim.tag = rng.choice(_ALL_TAGS)
    elif choice == 2:
        ET.SubElement(victim, rng.choice(_ALL_TAGS))
    else:
        parent = rng.choice(elements)
        if victim is not root and not any(parent is e for e in victim.iter()):
            for holder in elements:
                if victim in list(holder):
                    holder.remove(victim)
                    break
            parent.append(victim)
            if rng.random() < 0.5:
                parent.append(ET.fromstring(ET.tostring(victim)))


def _serialise(element: ET.Element, lines: list[str], where: dict[int, int]) -> None:
    where[id(element)] = len(lines) + 1
    attrs = "".join(f' {k}="{v}"' for k, v in element.attrib.items())
    lines.append(f"<{element.tag}{attrs}>")
    for child in element:
        _serialise(child, lines, where)
    lines.append(f"</{element.tag}>")


@pytest.mark.parametrize("seed", range(8))
def test_differential_against_mujoco(mj, seed):
    """Random trees built from the schema, then broken at random: MuJoCo reports a schema
    violation exactly when the checker reports a "schema" problem, and the same one."""
    rng = random.Random(seed)
    agreed = flagged = 0
    for _ in range(60):
        root = ET.Element("mujoco")
        _random_tree(rng, ROOT, root, 0)
        for _ in range(rng.randint(0, 2)):
            _mutate(rng, root)
        lines: list[str] = []
        where: dict[int, int] = {}
        _serialise(root, lines, where)
        text = "\n".join(lines)
        violation = schema_violation(mujoco_error(mj, text))
        first = check_tree(root)
        mine = first if first is not None and first.stage == "schema" else None
        assert (violation is None) == (mine is None), (text, violation, first)
        if mine is not None:
            flagged += 1
            what, tag, line = violation
            assert (tag, line) == (mine.element.tag, where[id(mine.element)]), (text, violation, mine)
            if mine.kind == "attribute":
                assert what == f"unrecognized attribute: '{mine.name}'"
            elif mine.kind == "multiplicity":
                assert what.startswith(f"unique element '{mine.name}'")
            elif mine.kind == "constraint":
                assert mine.message == f"{what} on <{tag}>"
            else:
                assert what == "unrecognized element"
        agreed += 1
    assert agreed == 60 and flagged > 10


_FAMILY_TAGS = ["body", "frame", "replicate", "geom", "site", "joint", "freejoint", "camera", "light", "inertial"]
_FAMILY_TAGS += ["bogus", "mesh", "worldbody", "default"]
_FAMILY_ATTRS = {
    "replicate": {"count": "2"},
    "geom": {"size": "1"},
    "inertial": {"pos": "0 0 0", "mass": "1", "diaginertia": "1 1 1"},
}
_READER_ERROR = re.compile(r"unrecognized model element|World body cannot|direct child of replicate")


def _grow_family(rng: random.Random, element: ET.Element, depth: int) -> None:
    for _ in range(rng.randint(0, 3)):
        tag = rng.choice(_FAMILY_TAGS)
        attrs = dict(_FAMILY_ATTRS.get(tag, {}))
        if rng.random() < 0.15:
            attrs["bogus"] = "1"
        child = ET.SubElement(element, tag, attrs)
        if tag in ("body", "frame", "replicate") and depth < 4:
            _grow_family(rng, child, depth + 1)


def test_differential_body_family(mj):
    """Random nests of bodies, frames and replicates in the world body: MuJoCo's schema check and
    its body reader refuse exactly what the checker calls "schema" and "reader" problems, and
    stop at the element the checker names first."""
    rng = random.Random(2024)
    stages_seen = set()
    for _ in range(400):
        root = ET.fromstring("<mujoco><worldbody/></mujoco>")
        _grow_family(rng, root[0], 0)
        text = ET.tostring(root, encoding="unicode")
        error = mujoco_error(mj, text)
        stages = {p.stage for p in validate(root)}
        stages_seen |= stages
        assert ("schema" in stages) == ("Schema violation" in error), (text, error)
        if "schema" not in stages:
            assert ("reader" in stages) == bool(_READER_ERROR.search(error)), (text, error)
        first = check_tree(root)
        if first is not None:
            assert f"Element '{first.element.tag}'" in error, (text, error, first)
    assert stages_seen == {"schema", "reader"}


# -- the corpus -----------------------------------------------------------------------------------


def _corpus_files() -> list[Path]:
    root = os.environ.get("ROBODESC_CORPUS")
    if not root:
        return []
    return sorted((Path(root) / "mjcf").rglob("*.xml"))


@pytest.mark.skipif(not os.environ.get("ROBODESC_CORPUS"), reason="ROBODESC_CORPUS is not set")
def test_corpus_has_no_problems():
    files = _corpus_files()
    assert files, "no MJCF files under $ROBODESC_CORPUS/mjcf"
    checked = 0
    for path in files:
        root = ET.parse(path).getroot()
        if root.tag != "mujoco":
            continue
        assert validate(root) == [], path
        assert validate(root, strict=True) == [], path
        checked += 1
    assert checked > 0


def test_any_node():
    assert ANY.child("whatever") is ANY and ANY.attributes is None
    assert SCHEMA["mujoco/worldbody/body/frame"].child("geom") is ANY
    assert SCHEMA["mujoco/worldbody/body/frame"].child("mesh") is None
