"""XML as the reference parsers read it (docs/getting-started.md#xml-as-the-reference-parsers-read-it).

urdfdom, libsdformat and MuJoCo parse with TinyXML2, which reads two things a strict XML parser
refuses: white space before the `<?xml ...?>` declaration, and `--` inside a comment (a comment ends
at the first `-->`). robodesc reads both, in every XML format, with the same model as the clean
file, lines and columns exact, and every defence (entities, external references) as strict as ever.
Nothing else TinyXML2 lets through is tolerated. MJCF is checked against the `mujoco` package too.
"""

from __future__ import annotations

import re
import time

import pytest

import robodesc
from robodesc import MalformedValue, RobodescError, UnsafeXML, XMLSyntaxError
from robodesc.formats import xml as xml_module
from robodesc.formats.xml import _as_tinyxml2_reads, parse_xml, to_xml

DECLARATION = '<?xml version="1.0"?>'

URDF = """{lead}{declaration}
<robot name="r">
  {comment}
  <link name="base">
    <inertial><mass value="2"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  {comment}
  <link name="arm"><visual><geometry><box size="1 2 3"/></geometry></visual></link>
  <joint name="j" type="revolute">
    <parent link="base"/><child link="arm"/><origin xyz="0 0 1"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
</robot>
"""

SDF = """{lead}{declaration}
<sdf version="1.9">
  {comment}
  <model name="m">
    <link name="base"><inertial><mass>2</mass></inertial></link>
    {comment}
    <link name="arm"><pose>0 0 1 0 0 0</pose>
      <visual name="v"><geometry><box><size>1 2 3</size></box></geometry></visual>
    </link>
    <joint name="j" type="revolute"><parent>base</parent><child>arm</child>
      <axis><xyz>0 1 0</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis>
    </joint>
  </model>
</sdf>
"""

MJCF = """{lead}{declaration}
<mujoco model="m">
  {comment}
  <worldbody>
    <body name="base" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.2 0.3" mass="2"/>
      {comment}
      <body name="arm" pos="0 0 0.5">
        <joint name="j" axis="0 1 0" range="-1 1"/>
        <geom type="capsule" size="0.05" fromto="0 0 0 0 0 0.4"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""

TEMPLATES = {"urdf": URDF, "sdf": SDF, "mjcf": MJCF}

#: white space TinyXML2 skips before the declaration (and blank lines, in every line-break style)
LEADS = [" ", "\n", "\n\n", "  \t\n   \n ", "\r\n\r\n", "\r\r", "\n\t"]

#: comments that TinyXML2 reads and XML forbids, each with a clean comment of the same lines
COMMENTS = {
    "double dash": "<!-- a -- b -->",
    "banner": "<!------ banner ------>",
    "opener inside": "<!-- outer <!-- inner -->",
    "ends in three dashes": "<!-- note --->",
    "only dashes": "<!------------>",
    "dashes across lines": "<!-- first --\n  -- second\n-->",
    "commented-out element with --": '<!-- <link name="x"/> -- disabled -->',
}


def clean(comment: str) -> str:
    """A well-formed comment with the same lines as `comment`."""
    body = comment[4:-3].replace("-", " ").replace("<!", "  ")
    return "<!--" + body + "-->"


def text(format: str, lead: str = "", comment: str = "<!-- fine -->", declaration: str = DECLARATION) -> str:
    return TEMPLATES[format].format(lead=lead, declaration=declaration, comment=comment)


def same_model(a: robodesc.Model, b: robodesc.Model, format: str) -> None:
    assert list(a.bodies) == list(b.bodies)
    assert list(a.joints) == list(b.joints)
    assert robodesc.dumps(a, format) == robodesc.dumps(b, format)
    assert robodesc.diff(a, b).agree


def line_of(source: str, marker: str) -> int:
    """The line (from 1) on which `marker` first appears in `source`."""
    return source[: source.index(marker)].count("\n") + 1


# -------------------------------------------------------------------------------------------------
# Each tolerated construct loads, in every format, with the model of the clean file
# -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("format", TEMPLATES)
@pytest.mark.parametrize("lead", LEADS, ids=repr)
def test_white_space_before_the_declaration(format, lead):
    strict = robodesc.loads(text(format), format=format)
    same_model(robodesc.loads(text(format, lead=lead), format=format), strict, format)


@pytest.mark.parametrize("format", TEMPLATES)
@pytest.mark.parametrize("comment", COMMENTS.values(), ids=list(COMMENTS))
def test_double_dash_in_a_comment(format, comment):
    strict = robodesc.loads(text(format, comment=clean(comment)), format=format)
    same_model(robodesc.loads(text(format, comment=comment), format=format), strict, format)


@pytest.mark.parametrize("format", TEMPLATES)
def test_both_together_from_a_file_sniffed_by_content(format, tmp_path):
    path = tmp_path / "robot.xml"  # .xml: the format is recognised by the first element
    path.write_text(text(format, lead="\n\n  ", comment="<!------ a -- b --->"))
    model = robodesc.load(path)
    assert model.format == format
    same_model(model, robodesc.loads(text(format), format=format), format)


@pytest.mark.parametrize("format", TEMPLATES)
def test_leading_space_without_a_declaration_and_a_comment_in_its_place(format):
    model = robodesc.loads(text(format, lead="\n\n", declaration="<!-- a -- b -->"), format=format)
    same_model(model, robodesc.loads(text(format), format=format), format)


def test_a_byte_order_mark_before_the_white_space():
    data = b"\xef\xbb\xbf\n  " + text("urdf").encode()
    assert robodesc.loads(data, format="urdf").name == "r"


# -------------------------------------------------------------------------------------------------
# Encodings: the declaration is read by expat as written, wherever it stands
# -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["ISO-8859-1", "windows-1252", "ISO-8859-15"])
@pytest.mark.parametrize("lead", ["", "\n\n  "], ids=repr)
def test_declared_single_byte_encoding_after_white_space(encoding, lead, tmp_path):
    declaration = f'<?xml version="1.0" encoding="{encoding}"?>'
    source = text("urdf", lead=lead, declaration=declaration, comment="<!-- d\xe9j\xe0 -- vu -->")
    source = source.replace('<robot name="r">', '<robot name="r\xe9">')
    path = tmp_path / "latin.urdf"
    path.write_bytes(source.encode(encoding))
    assert robodesc.load(path).name == "r\xe9"


def test_utf8_byte_order_mark_keeps_its_meaning():
    # a UTF-8 BOM decides the encoding however the declaration reads; cutting the space keeps the BOM
    declaration = '<?xml version="1.0" encoding="UTF-8"?>'
    source = text("urdf", lead="\n ", declaration=declaration).replace('name="r"', 'name="r\xe9"')
    assert robodesc.loads(b"\xef\xbb\xbf" + source.encode(), format="urdf").name == "r\xe9"


def test_an_unknown_encoding_after_white_space_is_still_refused():
    declaration = '<?xml version="1.0" encoding="no-such-encoding"?>'
    with pytest.raises(XMLSyntaxError):
        robodesc.loads(text("urdf", lead="\n", declaration=declaration), format="urdf")


def test_a_malformed_declaration_after_white_space_is_refused_at_its_line():
    source = text("urdf", lead="\n\n", declaration='<?xml encoding="UTF-8"?>')  # no version
    with pytest.raises(XMLSyntaxError) as info:
        robodesc.loads(source, format="urdf")
    assert info.value.line == 3


# -------------------------------------------------------------------------------------------------
# Lines (and columns) stay exact after the tolerated constructs
# -------------------------------------------------------------------------------------------------

BAD_VALUE = {  # a value error on one element of each format
    "urdf": ('<mass value="2"/>', '<mass value="two"/>'),
    "sdf": ("<pose>0 0 1 0 0 0</pose>", "<pose>0 0 one 0 0 0</pose>"),
    "mjcf": ('size="0.1 0.2 0.3"', 'size="0.1 0.2 x"'),
}
BODY = {"urdf": '<link name="arm"', "sdf": '<link name="arm"', "mjcf": '<body name="arm"'}
LINE_COMMENT = "<!-- first --\n  -- <!-- second\n\n--->"


@pytest.mark.parametrize("format", TEMPLATES)
@pytest.mark.parametrize("lead", ["\n\n\n", "\r\n \r\n", "  "], ids=repr)
def test_element_lines_after_tolerated_constructs(format, lead):
    source = text(format, lead=lead, comment=LINE_COMMENT)
    model = robodesc.loads(source, format=format)
    body = model.bodies["m::arm" if format == "sdf" and "m::arm" in model.bodies else "arm"]
    expected = line_of(source.replace("\r\n", "\n").replace("\r", "\n"), BODY[format])
    assert body.location.line == expected


@pytest.mark.parametrize("format", TEMPLATES)
@pytest.mark.parametrize("lead", ["\n\n\n", "\r\n\t", " "], ids=repr)
def test_error_lines_after_tolerated_constructs(format, lead, tmp_path):
    good, bad = BAD_VALUE[format]
    source = text(format, lead=lead, comment=LINE_COMMENT).replace(good, bad)
    path = tmp_path / ("robot.xml" if format == "mjcf" else f"robot.{format}")
    path.write_bytes(source.encode())
    with pytest.raises(MalformedValue) as info:
        robodesc.load(path)
    expected = line_of(source.replace("\r\n", "\n").replace("\r", "\n"), bad)
    assert info.value.line == expected
    assert f"{path}:{expected}" in str(info.value)


@pytest.mark.parametrize("lead", ["\n\n", "\r\n   ", "\t "], ids=repr)
def test_syntax_error_line_and_column_on_the_declarations_line(lead):
    # the root element on the declaration's own line: its column counts the cut white space
    source = lead + DECLARATION + '<robot name="r" name="s">\n  <link name="a"/>\n</robot>\n'
    strict = " " * len(DECLARATION)  # without a declaration, leading space is plain XML: expat's own answer
    with pytest.raises(XMLSyntaxError) as tolerant:
        parse_xml(source)
    with pytest.raises(XMLSyntaxError) as reference:
        parse_xml(lead + strict + source[len(lead) + len(DECLARATION) :])
    assert (tolerant.value.line, tolerant.value.location.column) == (
        reference.value.line,
        reference.value.location.column,
    )
    normalised = lead.replace("\r\n", "\n").replace("\r", "\n")
    assert tolerant.value.line == normalised.count("\n") + 1


def test_syntax_error_after_mended_comments_is_where_it_was():
    source = "\n  " + DECLARATION + "\n<robot>\n<!-- a -- b\n -- c --->\n  <link name='a' name='b'/>\n</robot>\n"
    with pytest.raises(XMLSyntaxError) as info:
        parse_xml(source)
    assert info.value.line == 6
    assert info.value.location.column == source.splitlines()[5].index("name='b'")


# -------------------------------------------------------------------------------------------------
# What stays refused
# -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("format", TEMPLATES)
def test_a_comment_never_closed_is_an_error_at_its_start(format):
    source = text(format, lead="\n", comment="<!-- never -- closed")
    with pytest.raises(XMLSyntaxError) as info:
        robodesc.loads(source, format=format)
    assert info.value.line == line_of(source, "<!-- never")


@pytest.mark.parametrize(
    "source",
    [
        "<!-- first -->\n" + DECLARATION + "\n<robot name='r'><link name='a'/></robot>",  # not first
        DECLARATION + DECLARATION + "\n<robot name='r'><link name='a'/></robot>",  # twice
        "<robot name='r'>" + DECLARATION + "<link name='a'/></robot>",  # inside the root
        "\v" + DECLARATION + "\n<robot name='r'><link name='a'/></robot>",  # not XML white space
        "<robot name='r'><link name='a' a='<'/></robot>",  # '<' in an attribute value
        "<robot name='r'><link name='a'/><!---></robot>",  # '<!--->' opens a comment it never closes
        "<robot name='r'><link name='a'/></robot><extra/>",  # two roots
    ],
    ids=["comment-first", "twice", "in-root", "vertical-tab", "lt-in-attribute", "arrow", "two-roots"],
)
def test_no_other_leniency(source):
    with pytest.raises(XMLSyntaxError):
        robodesc.loads(source, format="urdf")


def bomb(lead: str, comment: str) -> str:
    source = lead + DECLARATION + f'\n{comment}\n<!DOCTYPE robot [\n  {comment}\n  <!ENTITY lol "lol">\n'
    for i in range(1, 10):
        source += f'  <!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">\n'
    return source + f']>\n{comment}\n<robot name="&lol9;">\n  <link name="a"/>\n</robot>\n'


@pytest.mark.parametrize("lead", ["", "\n\n "], ids=repr)
@pytest.mark.parametrize("comment", ["<!-- fine -->", "<!-- a -- b --->", "<!-- x <!-- y -->"])
def test_billion_laughs_still_refused(lead, comment, tmp_path):
    path = tmp_path / "bomb.urdf"
    path.write_text(bomb(lead, comment))
    with pytest.raises(UnsafeXML) as info:
        robodesc.load(path)
    assert info.value.line == line_of(bomb(lead, comment), "<!ENTITY lol ")


@pytest.mark.parametrize("format", TEMPLATES)
@pytest.mark.parametrize(
    "doctype",
    [
        '<!DOCTYPE x [\n  <!-- a -- b -->\n  <!ENTITY secret SYSTEM "file:///etc/passwd">\n]>',
        '<!DOCTYPE x [ <!-- -- --> <!ENTITY e "inside"> <!-- -- --> ]>',
        '<!DOCTYPE x SYSTEM "http://example.com/<!--x.dtd">',  # an external DTD, its URL holding '<!--'
        '<!DOCTYPE x [ <!ENTITY e "<!-- -- -->"> ]>',  # a comment opener inside an entity value
        '<!DOCTYPE x [ <?pi <!-- ?> <!ENTITY % p SYSTEM "p.dtd"> %p; ]>',
    ],
    ids=["external-entity", "entity-between-comments", "external-dtd", "opener-in-entity", "parameter-entity"],
)
def test_entities_and_external_references_still_refused(format, doctype):
    lead_and_declaration = "\n\n" + DECLARATION + "\n"
    source = text(format, comment="<!-- a -- b -->").replace(DECLARATION + "\n", lead_and_declaration + doctype + "\n")
    with pytest.raises(UnsafeXML):
        robodesc.loads(source, format=format)


def test_external_entity_used_in_an_attribute_leaks_nothing(tmp_path):
    source = (
        "\n  "
        + DECLARATION
        + '\n<!DOCTYPE robot [\n  <!-- a -- b -->\n  <!ENTITY secret SYSTEM "file:///etc/passwd">\n]>\n'
        '<robot name="&secret;">\n  <!-- -- -->\n  <link name="a"/>\n</robot>\n'
    )
    path = tmp_path / "xxe.urdf"
    path.write_text(source)
    with pytest.raises(UnsafeXML) as info:
        robodesc.load(path)
    assert "root:" not in str(info.value)
    assert info.value.line == line_of(source, "<!ENTITY")


def test_a_comment_in_the_internal_subset_is_mended_and_the_rest_unchanged():
    # a DTD without entities was readable before and stays so; its comment may now hold '--'
    source = (
        '<!DOCTYPE robot [ <!-- a -- b --> <!ATTLIST link kind CDATA "x--y"> ]>\n'
        '<robot name="r"><link name="a"/></robot>'
    )
    assert robodesc.loads(source, format="urdf").bodies["a"]
    assert b'"x--y"' in bytes(_as_tinyxml2_reads(source.encode()).data)  # the literal's dashes kept
    assert parse_xml(source).root.find("link").get("kind") is None  # a DTD's defaults are never applied


# -------------------------------------------------------------------------------------------------
# Only comment bodies change: text, CDATA, processing instructions and attributes are read as written
# -------------------------------------------------------------------------------------------------


def test_only_comments_change():
    source = (
        "\n\n" + DECLARATION + "\n<r a='x -- y'>"
        "<t>one -- two --></t>"
        "<c><![CDATA[ <!-- not -- a comment --> ]]></c>"
        "<?pi <!-- not -- a comment either ?>"
        "<!-- a -- comment --->"
        "<u>three -- four</u></r>"
    )
    root = parse_xml(source).root
    assert root.get("a") == "x -- y"
    assert root.find("t").text == "one -- two -->"
    assert root.find("c").text == " <!-- not -- a comment --> "
    assert root.find("u").text == "three -- four"


def test_a_comment_ends_at_the_first_closer():
    # what follows the first '-->' is content again, as in TinyXML2: here an element
    root = parse_xml("<r><!-- a <!-- b --><e/>--></r>").root
    assert [child.tag for child in root] == ["e"]
    assert root.find("e").tail == "-->"


def test_clean_files_are_read_from_the_callers_bytes():
    data = text("urdf").encode()
    assert _as_tinyxml2_reads(data).data is data  # nothing to mend: no copy, no scan beyond a find
    spaced = b"\n\n" + data
    mended = _as_tinyxml2_reads(spaced)
    assert isinstance(mended.data, memoryview) and mended.data.obj is spaced  # leading space: a view
    assert (mended.lines, mended.columns) == (2, 0)


def _parsed_or_refused(source: bytes) -> tuple:
    """What parse_xml makes of `source`: the tree as XML text, or the error with its message and place."""
    try:
        return ("tree", to_xml(parse_xml(source).root))
    except RobodescError as error:
        return (type(error).__name__, error.message, error.line, error.location.column)


def test_a_file_fed_in_pieces_reads_as_when_fed_whole(monkeypatch):
    # a file of up to a megabyte is handed to expat whole, larger ones a piece at a time: cut into pieces
    # of 7 bytes, every cut and corrupted variant of a file gives the same tree or the same error and place
    clean = text("urdf", lead="\n ", comment="<!-- a -- b -->").encode()
    variants = [clean[:cut] for cut in range(0, len(clean), 5)]
    variants += [clean[:at] + bad + clean[at + 1 :] for at in range(0, len(clean), 3) for bad in (b"<", b"&", b'"')]
    whole = [_parsed_or_refused(source) for source in variants]
    monkeypatch.setattr(xml_module, "_PIECE", 7)
    assert [_parsed_or_refused(source) for source in variants] == whole
    assert ("tree", to_xml(parse_xml(clean).root)) in whole and len({kind for kind, *_ in whole}) > 2


def test_utf16_is_left_alone():
    data = text("urdf", comment="<!-- plain -->").encode("utf-16")  # with its byte-order mark
    assert _as_tinyxml2_reads(data).data is data
    assert robodesc.loads(data, format="urdf").name == "r"


def test_many_mended_comments_in_linear_time():
    # every comment needs mending; a rescan per comment would take hours at this size
    links = "".join(f'<!-- link {i} -- spare --->\n<link name="l{i}"/>\n' for i in range(60_000))
    source = "\n" + DECLARATION + '\n<robot name="r">\n' + links + "</robot>\n"
    started = time.perf_counter()
    document = parse_xml(source)
    assert time.perf_counter() - started < 10
    assert len(document.root) == 60_000
    assert document.line_of(document.root[-1]) == 3 + 2 * 60_000


def test_an_unclosed_comment_in_a_big_file_is_found_quickly():
    source = '<robot name="r">\n<!-- open -- \n' + '<link name="a"/>\n' * 200_000 + "</robot>\n"
    started = time.perf_counter()
    with pytest.raises(XMLSyntaxError) as info:
        parse_xml(source)
    assert time.perf_counter() - started < 10
    assert info.value.line == 2


# -------------------------------------------------------------------------------------------------
# MJCF against MuJoCo (TinyXML2 itself)
# -------------------------------------------------------------------------------------------------

mujoco = pytest.importorskip("mujoco")


def mujoco_bodies(source: str) -> list[str]:
    compiled = mujoco.MjModel.from_xml_string(source)
    return [compiled.body(i).name for i in range(1, compiled.nbody)]


@pytest.mark.parametrize("lead", LEADS, ids=repr)
@pytest.mark.parametrize("comment", COMMENTS.values(), ids=list(COMMENTS))
def test_mujoco_reads_the_same_text(lead, comment):
    source = text("mjcf", lead=lead, comment=comment)
    model = robodesc.loads(source, format="mjcf")
    assert list(model.bodies)[1:] == mujoco_bodies(source) == ["base", "arm"]
    poses = model.forward_kinematics({})
    compiled = mujoco.MjModel.from_xml_string(source)
    data = mujoco.MjData(compiled)
    mujoco.mj_forward(compiled, data)
    for name in ("base", "arm"):
        assert poses[name][:3, 3] == pytest.approx(data.body(name).xpos, abs=1e-12)


REFUSED = (
    '<mujoco model="m">\n  <worldbody>\n    {}\n    <body name="b"><geom size="1"/></body>\n  </worldbody>\n</mujoco>'
)
MUJOCO_REFUSES = {
    "comment-before-declaration": "<!-- c -->\n" + DECLARATION + "\n" + REFUSED.format(""),
    "declaration-inside": REFUSED.format(DECLARATION),
    "never-closed": "\n\n" + DECLARATION + "\n" + REFUSED.format("<!-- open -- "),
    "never-closed-across-lines": "\n" + DECLARATION + "\n" + REFUSED.format("<!-- open --\n\n -- "),
    "arrow-never-closed": REFUSED.format("<!--->"),
}


@pytest.mark.parametrize("source", MUJOCO_REFUSES.values(), ids=list(MUJOCO_REFUSES))
def test_mujoco_and_robodesc_refuse_the_same_text_at_the_same_line(source):
    with pytest.raises(ValueError) as reference:
        mujoco.MjModel.from_xml_string(source)
    with pytest.raises(XMLSyntaxError) as info:
        robodesc.loads(source, format="mjcf")
    assert info.value.line == int(re.search(r"Line number=(\d+)", str(reference.value)).group(1))


def test_mujoco_include_with_tolerated_constructs(tmp_path):
    (tmp_path / "part.xml").write_text(
        "\n\n  " + DECLARATION + '\n<mujoco>\n  <!-- part -- one --->\n  <geom name="g" size="x"/>\n</mujoco>\n'
    )
    main = tmp_path / "main.xml"
    main.write_text(
        f"\n{DECLARATION}\n<mujoco>\n<!------ main ------>\n"
        "<worldbody>\n<include file='part.xml'/>\n</worldbody>\n</mujoco>"
    )
    with pytest.raises(RobodescError) as info:
        robodesc.load(main)
    assert info.value.file.endswith("part.xml")
    assert info.value.line == 6
    with pytest.raises(ValueError):  # MuJoCo refuses the same value, reading the same files
        mujoco.MjModel.from_xml_path(str(main))
