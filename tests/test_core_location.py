"""`Location` and `Diagnostic` as users (and plugins) rely on them: a location made lazily from a
parsed element reads, compares, hashes, copies and pickles like one given its line and path, and a
diagnostic stays a frozen dataclass."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

import robodesc
from robodesc.core.diagnostics import Diagnostic, Severity
from robodesc.core.errors import Location, lazy_location


class _Document:
    """Answers `line_of` and `path_of` as a parsed document does, counting the questions."""

    def __init__(self) -> None:
        self.asked = 0

    def line_of(self, element: str) -> int:
        self.asked += 1
        return 7

    def path_of(self, element: str) -> str:
        self.asked += 1
        return f"/robot/{element}"


def test_a_lazy_location_reads_compares_and_hashes_like_a_resolved_one() -> None:
    document = _Document()
    lazy = Location("robot.urdf", None, None, None, (document, "link"))
    assert document.asked == 0  # nothing is worked out until someone asks
    resolved = Location(file="robot.urdf", line=7, element="/robot/link")
    assert lazy == resolved and hash(lazy) == hash(resolved)
    assert str(lazy) == "robot.urdf:7: /robot/link"
    assert repr(lazy) == "Location(file='robot.urdf', line=7, column=None, element='/robot/link')"
    assert document.asked == 2  # each worked out once, then kept


def test_lazy_location_is_the_location_given_its_node() -> None:
    """`lazy_location` (what `Values.where` makes, without `__init__`) holds what `Location(file,
    node=...)` holds, slot for slot, and answers the same."""
    document = _Document()
    fast, made = lazy_location("robot.urdf", document, "link"), Location("robot.urdf", node=(document, "link"))
    assert type(fast) is Location
    assert [getattr(fast, slot) for slot in Location.__slots__] == [getattr(made, slot) for slot in Location.__slots__]
    assert fast == made and str(fast) == str(made) and fast._node == (document, "link")


@pytest.mark.parametrize("duplicate", [copy.copy, copy.deepcopy, lambda x: pickle.loads(pickle.dumps(x))])
def test_copies_and_pickles_of_a_lazy_location_carry_its_line_and_path(duplicate) -> None:  # noqa: ANN001
    lazy = Location("robot.urdf", None, 3, None, (_Document(), "joint"))
    twin = duplicate(lazy)
    assert (twin.file, twin.line, twin.column, twin.element) == ("robot.urdf", 7, 3, "/robot/joint")
    assert twin._node is None  # the parsed document does not travel with the copy


def test_a_location_moved_elsewhere_by_a_plugin_answers_from_what_it_was_given() -> None:
    """A plugin that maps a location to another file (the xacro plugin) sets `file`, `_line`,
    `_element` and `_node = None`; the location then never asks its document again."""
    document = _Document()
    location = Location("expanded.urdf", None, None, None, (document, "link"))
    assert location._node == (document, "link")
    location.file, location._line, location._element, location._node = "robot.xacro", 12, "/robot/link", None
    assert (location.line, location.element, location._node) == (12, "/robot/link", None)
    assert document.asked == 0


def test_errors_of_a_loaded_file_name_line_and_element() -> None:
    with pytest.raises(robodesc.RobodescError) as caught:
        robodesc.loads('<robot name="r">\n<link name="a"/>\n<joint name="j" type="bogus"/>\n</robot>', format="urdf")
    assert (caught.value.line, caught.value.element) == (3, "/robot[@name='r']/joint[@name='j']")


def test_a_diagnostic_is_a_frozen_dataclass() -> None:
    where = Location(file="robot.urdf", line=4)
    diagnostic = Diagnostic(Severity.WARNING, "mesh-not-found", "no mesh", where, "check the path")
    assert [f.name for f in dataclasses.fields(diagnostic)] == ["severity", "code", "message", "location", "suggestion"]
    assert diagnostic == Diagnostic(
        severity=Severity.WARNING, code="mesh-not-found", message="no mesh", location=where, suggestion="check the path"
    )
    assert hash(diagnostic) == hash(copy.deepcopy(diagnostic))
    assert pickle.loads(pickle.dumps(diagnostic)) == diagnostic
    assert dataclasses.replace(diagnostic, message="other").message == "other"
    assert Diagnostic(Severity.INFO, "note", "text").location == Location()
    assert str(diagnostic) == "robot.urdf:4: warning mesh-not-found: no mesh (suggestion: check the path)"
    with pytest.raises(dataclasses.FrozenInstanceError):
        diagnostic.message = "changed"  # type: ignore[misc]


@pytest.mark.parametrize("order", ["document", "reversed", "shuffled", "with one spliced in"])
def test_detached_locations_keep_their_lines_and_paths_in_any_order(order: str) -> None:
    # a reader may locate elements in any order, some twice, and some that the parse did not make
    # (spliced in from another file): after `detach`, each answers as it did, from the bytes only
    from xml.etree.ElementTree import Element

    from robodesc.formats.xml import DetachedDocument, LocatingValues, parse_xml

    source = (
        "<robot name='r'>\n" + "".join(f"<link name='l{i}'>\n<visual/>\n</link>\n" for i in range(40)) + "</robot>\n"
    )
    document = parse_xml(source, "r.urdf")
    every = document._elements[1::3]  # 27 elements of the file, the second of them located twice
    elements = {
        "document": every[:2] + every[1:],
        "reversed": every[::-1] + every[1:2],
        "shuffled": every[1::2] + every[::2],
        "with one spliced in": every[:9] + [Element("spliced")] + every[9:],
    }[order]
    values = LocatingValues(document)
    expected = [(document.line_of(element), document.path_of(element)) for element in elements]
    assert len({line for line, _ in expected}) == 27 + (order == "with one spliced in")  # (None: not in the file)
    locations = [values.where(element) for element in elements]
    values.detach()
    assert [isinstance(location._document, DetachedDocument) for location in locations] == [
        element.tag != "spliced" for element in elements
    ]
    assert [(location.line, location.element) for location in locations] == expected
