"""The SDF file context reads a plain number's text once per file, looked up by the text as written.

`child_double`, `floats_of` and a plain `<pose>` keep what they read by the element's text untrimmed: the
same text with other blanks around it reads the same numbers, each element gets them (or an array of its
own), and a text that does not read is refused at each element that has it, located there, exactly as
in a file that never read it before. A `use_parent_model_frame` that reads as a boolean is checked
without a locator; anything else is refused as `parse_bool` refuses it.
"""

from __future__ import annotations

import numpy as np
import pytest

import robodesc
from robodesc.core.errors import RobodescError
from robodesc.core.resources import LoadContext
from robodesc.formats.sdf import parse as sdf_parse
from robodesc.formats.sdf.context import FileContext
from robodesc.formats.sdf.loader import Loader
from robodesc.formats.sdf.values import parse_bool
from robodesc.formats.xml import parse_xml

SPELLINGS = ["0.5", " 0.5 ", "\t0.5\n", "5e-1", "bad", "", "  ", "nan", "1e999", "0.5 0.5", "\u00a00.5"]


def _context(xml: str) -> tuple[FileContext, object]:
    document = parse_xml(xml.encode(), "test.sdf")
    loader = Loader(LoadContext(source="test.sdf", base_dir="."), sdf_parse.parse_file)
    return FileContext(loader, document, ["."]), document.root


def _outcome(read, *args):
    """What `read(*args)` gives: its value(s) as bits, or its error's class, message, construct and location."""
    try:
        return ("values", np.asarray(read(*args), dtype=float).tobytes())
    except RobodescError as error:
        return ("error", type(error).__name__, error.message, error.construct, error.location._key())


def _each_alone_and_together(xml_of, *reads):
    """Every element of a file holding all the spellings reads (by each of `reads`, in turn) as in a file
    that read nothing before it, twice over."""
    together, root = _context("<x>" + "".join(xml_of(i, text) for i, text in enumerate(SPELLINGS)) + "</x>")
    for _ in range(2):  # (the second time from what the first kept)
        for i, text in enumerate(SPELLINGS):
            for read in reads:
                alone, alone_root = _context("<x>" + "".join(xml_of(k, SPELLINGS[k]) for k in range(i + 1)) + "</x>")
                fresh = _outcome(read, alone, alone_root[i], alone_root)
                assert _outcome(read, together, root[i], root) == fresh, repr(text)


def test_child_double_reads_a_text_as_written_as_its_trimmed_text():
    _each_alone_and_together(
        lambda i, text: f"<v{i}>{text}</v{i}>", lambda ctx, element, root: ctx.child_double(root, element.tag, 7.0)
    )


@pytest.mark.parametrize("counts", [(1, 2), (2, 1)])
def test_floats_of_reads_a_text_as_written_as_its_trimmed_text(counts):
    _each_alone_and_together(
        lambda i, text: f"<v{i}>{text}</v{i}>",
        *(lambda ctx, element, root, count=count: ctx.floats_of(element, count, "v") for count in counts),
    )


def _pose_matrix(ctx: FileContext, element) -> np.ndarray:
    return ctx.pose_value(element)[0]


def test_a_plain_pose_reads_the_same_whatever_the_blanks_around_it():
    texts = ["1 2 3 0 0.5 0", " 1 2 3 0 0.5 0 ", "\n1 2 3\t0 0.5 0\n", "1 2 3 0 0.5", "1 2 3 0 0.5 x"]
    ctx, root = _context("<x>" + "".join(f"<pose>{t}</pose>" for t in texts) + "</x>")
    matrices = [_outcome(_pose_matrix, ctx, el) for el in root]
    assert matrices[0][0] == "values" and matrices[0] == matrices[1] == matrices[2]
    for i in (3, 4):  # refused at each pose, as in a file without the others
        alone, alone_root = _context(f"<x><pose>{texts[i]}</pose></x>")
        fresh = _outcome(_pose_matrix, alone, alone_root[0])
        assert fresh[0] == "error" and fresh[1:4] == matrices[i][1:4]
    values = [ctx.pose_value(el)[0] for el in root[:3]]
    values[0][0, 3] = 9.0  # each pose an array of its own
    assert values[1][0, 3] == values[2][0, 3] == 1.0


def _axis_model(flag: str) -> str:
    return f"""<sdf version="1.5"><model name="m">
      <link name="a"/><link name="b"><pose>0 0 1 0 0 1.5707963267948966</pose></link>
      <joint name="j" type="revolute"><parent>a</parent><child>b</child>
        <axis><xyz>1 0 0</xyz><use_parent_model_frame>{flag}</use_parent_model_frame></axis></joint>
    </model></sdf>"""


@pytest.mark.parametrize("flag", ["true", "TRUE", " True ", "1", "false", "False", "0", "\t0\n"])
def test_use_parent_model_frame_reads_each_boolean_spelling(flag):
    axis = robodesc.loads(_axis_model(flag), format="sdf").joints["j"].axis
    in_model = flag.strip() in ("true", "True", "TRUE", "1")  # what the 1.6 -> 1.7 converter maps
    assert np.allclose(axis, [0, -1, 0] if in_model else [1, 0, 0])


@pytest.mark.parametrize("flag", ["yes", "", "2", "tru"])
def test_use_parent_model_frame_refuses_what_parse_bool_refuses_located_at_it(flag):
    with pytest.raises(RobodescError) as caught:
        robodesc.loads(_axis_model(flag), format="sdf")
    error = caught.value
    with pytest.raises(RobodescError) as expected:
        parse_bool(flag, lambda: error.location, "use_parent_model_frame")
    assert (type(error), error.message, error.construct) == (
        type(expected.value),
        expected.value.message,
        expected.value.construct,
    )
    assert error.location.element is not None and error.location.element.endswith("use_parent_model_frame")
