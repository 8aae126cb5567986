"""The SDF reader's fast paths give what the slower paths they stand in front of give, bit for bit.

* `FileContext.child_doubles` reads several children's numbers in one pass when all are plain, and falls
  back to `child_double` child by child otherwise: the same values, or the same first error;
* `floats_of` (and `plain_floats` in front of it) gives `vector_of`'s numbers, and Python's float
  division (a joint axis normalised on plain floats) is numpy's;
* `_clearly_valid` says a zero inertia tensor (of either sign in each entry) is valid, as `_is_valid` does,
  and a tilted one valid only where `_is_valid` does;
* an attribute-less `<pose>` (read without looking at attributes) is the pose the attribute path gives;
* `_has_negative_zero` (through `math.copysign`) finds exactly the -0.0 entries `repr` shows;
* numbers read once per text in a file (poses, sizes, colors) give each element its own array, bit for bit;
* an inertia tensor without -0.0, turned by a pose that only moves its centre of mass, is the tensor as
  written: what `parse_inertial` keeps instead of turning it.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import robodesc
from robodesc.core.errors import RobodescError
from robodesc.core.resources import LoadContext
from robodesc.core.transforms import pose_from_xyz_rpy
from robodesc.formats.sdf import parse as sdf_parse
from robodesc.formats.sdf.context import FileContext
from robodesc.formats.sdf.elements import _has_negative_zero
from robodesc.formats.sdf.inertia import _clearly_valid, _is_valid
from robodesc.formats.sdf.loader import Loader
from robodesc.formats.sdf.values import plain_floats
from robodesc.formats.xml import parse_xml

TEXTS = [
    "1",
    " 0.5 ",
    "\t-2e-3\n",
    "-0",
    "+.5",
    "1E+2",
    "1e16",
    "",
    "   ",
    "1e999",
    "-1e999",
    "nan",
    "inf",
    "1 2",
    "0.5 extra",
    "abc",
    "0x10",
    "1_0",
    "\u00a01",
    "1e",
    ".",
    "\t3\r",
]
TAGS = ("a", "b", "c")
DEFAULTS = (1.5, -2.5, 0.0)


def _context(xml: str) -> tuple[FileContext, object]:
    document = parse_xml(xml.encode(), "test.sdf")
    loader = Loader(LoadContext(source="test.sdf", base_dir="."), sdf_parse.parse_file)
    return FileContext(loader, document, ["."]), document.root


def _outcome(read):
    """What `read()` gives: its values (as bits), or its error's class, message, construct and location."""
    try:
        return ("values", [np.float64(v).tobytes() for v in read()])
    except RobodescError as error:
        return ("error", type(error).__name__, error.message, error.construct, error.location._key())


@pytest.mark.parametrize("allow_inf", [False, True])
@pytest.mark.parametrize("written", [(0, 1, 2), (0, 2), (1,), ()])
def test_child_doubles_is_child_double_child_by_child(written, allow_inf):
    for texts in itertools.chain(
        ([t] * 3 for t in TEXTS), itertools.product(["1", "2.5", *TEXTS[7:12]], repeat=len(written))
    ):
        children = "".join(f"<{TAGS[i]}>{texts[k % len(texts)]}</{TAGS[i]}>" for k, i in enumerate(written))
        ctx, root = _context(f"<x>{children}</x>")
        fast = _outcome(lambda ctx=ctx, root=root: ctx.child_doubles(root, TAGS, DEFAULTS, allow_inf))
        slow = _outcome(
            lambda ctx=ctx, root=root: [ctx.child_double(root, t, d, allow_inf) for t, d in zip(TAGS, DEFAULTS)]
        )
        assert fast == slow, (children, allow_inf)


@pytest.mark.parametrize("text", ["0 0 1", " 1 -0 0 ", "0.6 0.8 0", "1e-300 1e300 -5", "1 2 3 4", "1e2 2E-3 -.5"])
def test_floats_of_and_float_division_are_numpys(text):
    ctx, root = _context(f"<x><xyz>{text}</xyz></x>")
    values, array = ctx.floats_of(root[0], 3, "xyz"), ctx.vector_of(root[0], 3, "xyz")
    assert np.array(values).tobytes() == array.tobytes()
    if len(text.split()) == 3:  # exactly three numbers: what `plain_floats` reads itself
        assert plain_floats(text, 3) == values
    x, y, z = values
    norm = math.hypot(x, y, z)
    assert np.array([x / norm, y / norm, z / norm]).tobytes() == (array / norm).tobytes()


def test_a_zero_inertia_tensor_is_clearly_valid_as_it_is_valid():
    for signs in itertools.product([0.0, -0.0], repeat=6):
        xx, yy, zz, xy, xz, yz = signs
        tensor = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
        for mass in (0.0, -0.0, 1.0, 1e300):
            assert _clearly_valid(mass, tensor) and _is_valid(mass, tensor)
    assert not _clearly_valid(1.0, np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, np.nan]]))
    assert not _clearly_valid(-1.0, np.zeros((3, 3)))


def test_a_tilted_inertia_tensor_is_clearly_valid_only_where_it_is_valid():
    """Gershgorin's circles leave a tensor with large products of inertia undecided: Sylvester's criterion
    decides it without the eigen-solve, and never where `_is_valid` would not say valid."""
    tilted = pose_from_xyz_rpy((0.0, 0.0, 0.0), (0.7, -0.4, 0.9))[:3, :3]
    tensor = tilted @ np.diag([0.2, 1.0, 1.1]) @ tilted.T
    tensor = (tensor + tensor.T) / 2.0
    assert _clearly_valid(1.0, tensor) and _is_valid(1.0, tensor)
    rng = np.random.default_rng(3)
    decided = 0
    for _ in range(20000):
        rotation = pose_from_xyz_rpy((0.0, 0.0, 0.0), rng.uniform(-np.pi, np.pi, 3))[:3, :3]
        a, b = rng.uniform(0.0, 1.0, 2) * rng.choice([1.0, 1e-9, 1e-3, 0.0], 2)
        c = a + b + rng.choice([0.0, 1e-12, -1e-12, 1e-6, -1e-6, -0.1, -0.5, 0.1]) * max(a + b, 1e-300)
        moments = np.array([a, b, c]) * rng.choice([1.0, -1.0, 1e-25, 1e25], p=[0.7, 0.1, 0.1, 0.1])
        tensor = rotation @ np.diag(moments) @ rotation.T
        tensor = (tensor + tensor.T) / 2.0
        if _clearly_valid(1.0, tensor):
            decided += 1
            assert _is_valid(1.0, tensor), tensor.tolist()
    assert decided > 500


@pytest.mark.parametrize("text", ["0 0 0 0 0 0", "1 -0 2 0 -0 0", "1 2 3 0.1 -0.2 0.3", "", "1 2 3 4 5 6 7"])
def test_an_attribute_less_pose_is_the_pose_the_attribute_path_reads(text):
    ctx, root = _context(f'<x><pose>{text}</pose><pose relative_to="">{text}</pose></x>')
    plain, attributed = root.findall("pose")
    try:
        fast = ctx.pose_element(plain)
    except RobodescError as error:
        with pytest.raises(type(error)):
            ctx.pose_element(attributed)
        return
    slow = ctx.pose_element(attributed)
    assert fast.matrix.tobytes() == slow.matrix.tobytes() and fast.relative_to == slow.relative_to == ""


def test_has_negative_zero_finds_exactly_the_negative_zeros():
    for values in itertools.product([0.0, -0.0, 1.0, -1e-300, -0.01, 5e-324, -5e-324], repeat=3):
        expected = "-0.0" in map(repr, values)  # (an oracle independent of the sign test under test)
        assert _has_negative_zero(values) is expected, values


@pytest.mark.parametrize("rpy", [(0.0, 0.0, 0.0), (-0.0, 0.0, 0.0), (0.0, -0.0, -0.0), (-0.0, -0.0, -0.0)])
def test_a_tensor_turned_by_a_pose_that_does_not_turn_is_the_tensor(rpy):
    rotation = pose_from_xyz_rpy([1.0, -2.0, 3e200], list(rpy))[:3, :3]  # -0.0 angles: -0.0 entries
    assert rotation.tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]  # (the reader's test)
    entries = [0.0, 1.0, -1.0, 0.3, -0.7, 1e-300, -5e-324, 1e300, -1e300, 2.5e-8]
    for xx, yy, zz, xy, xz, yz in itertools.product(
        entries[:4], entries[:4], entries[:2], entries, entries, entries[::3]
    ):
        tensor = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
        assert (rotation @ tensor @ rotation.T).tobytes() == tensor.tobytes()


def test_poses_of_one_text_are_read_once_each_an_array_of_its_own():
    """`FileContext` reads a plain pose's numbers and matrix once per text in the file: every pose of that text
    gets the matrix a pose read alone gets, bit for bit, in an array of its own; texts that read as equal
    numbers but differ (-0 and 0) are not taken for one another."""
    texts = ["1 2 3 0.1 0.2 0.3", "0 0 0 0 0 0", "0 0 0 0 0 -0", "-0 0 0 -0 0 0", " 1 2 3 0.1 0.2 0.3\n"]
    ctx, root = _context("<x>" + "".join(f"<pose>{t}</pose>" for t in texts * 3) + "</x>")
    matrices = [ctx.pose_value(pose)[0] for pose in root.findall("pose")]
    for text, matrix in zip(texts * 3, matrices):
        values = [float(v) for v in text.split()]
        assert matrix.tobytes() == pose_from_xyz_rpy(values[:3], values[3:]).tobytes(), text
    assert len({id(m) for m in matrices}) == len(matrices) and not any(m.base is not None for m in matrices)
    matrices[0][0, 3] = 99.0
    assert matrices[len(texts)][0, 3] == 1.0


def test_numbers_of_one_text_are_read_once_and_every_element_gets_its_own_array():
    """Sizes, axes and colors are read once per text in the file (`FileContext.floats_of`, `plain_color`): each
    shape still holds arrays of its own, and a text that is not plain is refused at each element that has it."""
    visual = (
        '<visual name="{0}"><geometry><box><size>1 2 3</size></box></geometry>'
        "<material><diffuse>0.5 0.5 0.5 1</diffuse></material></visual>"
    )
    text = '<sdf version="1.12"><model name="m"><link name="a">{}</link></model></sdf>'
    model = robodesc.loads(text.format(visual.format("v1") + visual.format("v2")), format="sdf")
    first, second = model.bodies["a"].visuals
    assert first.geometry.size is not second.geometry.size and first.material.color is not second.material.color
    first.geometry.size[0] = 9.0
    first.material.color[0] = 9.0
    assert second.geometry.size.tolist() == [1.0, 2.0, 3.0] and second.material.color.tolist() == [0.5, 0.5, 0.5, 1.0]
    bad = visual.format("v3").replace("1 2 3", "1 2 x")
    with pytest.raises(RobodescError) as error:
        robodesc.loads(text.format(visual.format("v1") + bad), format="sdf")
    assert error.value.location.line == 1 and "size" in error.value.location.element


def test_inertias_of_one_text_are_read_once_each_link_a_tensor_of_its_own():
    """An <inertia> is read once per (tag, text) of its children in the file (`FileContext.plain_inertias`): each
    link still holds a tensor of its own, the tensor read alone, and a link of that text whose mass is negative
    is refused as it would be alone."""
    inertial = "<inertial><mass>{}</mass><inertia><ixx>0.5</ixx><iyy>0.5</iyy><izz>-0</izz></inertia></inertial>"
    link = '<link name="{}">{}</link>'
    text = '<sdf version="1.12"><model name="m">{}</model></sdf>'
    model = robodesc.loads(text.format(link.format("a", inertial.format(1)) + link.format("b", inertial.format(2))))
    first, second = model.bodies["a"].inertial, model.bodies["b"].inertial
    alone = robodesc.loads(text.format(link.format("a", inertial.format(1)))).bodies["a"].inertial
    assert first.inertia is not second.inertia and first.inertia.flags.writeable
    assert first.inertia.tobytes() == second.inertia.tobytes() == alone.inertia.tobytes()
    first.inertia[0, 0] = 9.0
    assert second.inertia[0, 0] == 0.5
    with pytest.raises(RobodescError, match="invalid inertia"):
        robodesc.loads(text.format(link.format("a", inertial.format(1)) + link.format("b", inertial.format(-1))))
