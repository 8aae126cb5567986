"""The MJCF reader's fast paths give the same bits as the plain numpy operations they replace.

`Attributes.pose`/`placed_pose`/`poses` build a pose from plain floats in one array instead of
``make_pose(quat_to_matrix(q), pos)`` and ``placed(frame, pose)`` (``pose + 0.0`` right in a body);
the results must be equal bit for bit, signed zeros included, for every way an orientation is written.
A body's first joint at the body's origin takes the body's pose as its origin instead of the product
``body.pose @ make_pose(translation=anchor)``, only where that product has the same bits.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import robodesc
from robodesc.core.resources import LoadContext
from robodesc.core.transforms import IDENTITY, make_pose, quat_to_matrix
from robodesc.formats.mjcf.attributes import Attributes
from robodesc.formats.mjcf.prepare import prepare_file
from robodesc.formats.mjcf.records import placed, plain, pose_array
from robodesc.formats.mjcf.state import LoadState
from robodesc.formats.xml import parse_xml

POSITIONS = [None, "0 0 0", "-0 0 -0", "1 -2 3.5", "-0.0 1e-300 -1e300"]
ORIENTATIONS = [
    None,
    'quat="1 0 0 0"',
    'quat="0 1 0 0"',
    'quat="-0 0 1 -0"',
    'quat="0.7071 0 0.7071 0"',
    'quat="1 1 0 0"',
    'euler="0 0 0"',
    'euler="-0 90 0"',
    'euler="30 -45 60"',
    'axisangle="0 0 1 -90"',
    'axisangle="1 -0 0 180"',
    'xyaxes="0 1 0 -1 0 0"',
    'zaxis="0 -0 -1"',
    'zaxis="1 1 1"',
]


def _read(body_attributes: list[str]) -> tuple[Attributes, list]:
    bodies = "".join(f"<body {a}/>" for a in body_attributes)
    text = f'<mujoco><compiler angle="degree"/><worldbody>{bodies}</worldbody></mujoco>'
    document = parse_xml(text.encode(), None)
    state = LoadState(LoadContext(source=None, base_dir="."))
    read = Attributes(state, prepare_file(state, document))
    return read, list(document.root.find("worldbody"))


def _bits(array: np.ndarray) -> tuple:
    return array.dtype, array.shape, array.flags.c_contiguous, array.tobytes()


@pytest.mark.parametrize("orientation", ORIENTATIONS)
def test_poses_from_floats_are_the_numpy_poses(orientation: str | None) -> None:
    written = [
        " ".join(part for part in (f'pos="{pos}"' if pos else "", orientation or "") if part) for pos in POSITIONS
    ]
    read, elements = _read(written)
    frame = make_pose(quat_to_matrix([0.5, -0.5, 0.5, 0.5]), [0.1, -0.0, 2.0])
    for element in elements:
        attrs = element.attrib
        pos = read.floats(element, attrs, "pos", 3)
        rotation = None
        if orientation is not None:
            rotation = quat_to_matrix(read.quat(element, attrs))
        expected = make_pose(rotation, pos)
        got = read.pose(element, attrs)
        assert _bits(got) == _bits(expected)
        assert got.base is None  # its own data, no view of another array
        for where in (IDENTITY, frame):
            expected_placed = placed(where, expected)
            assert _bits(read.placed_pose(element, attrs, where)) == _bits(expected_placed)
            written, placed_pose = read.poses(element, attrs, where)  # (the written pose as its numbers)
            assert [_bits(pose_array(*written)), _bits(placed_pose)] == [_bits(expected), _bits(expected_placed)]


def test_signed_zeros_are_covered() -> None:
    """The cases above do meet -0 entries in rotations and translations (what +0 turns into +0)."""
    read, elements = _read([" ".join(c) for c in itertools.product(['pos="-0 0 -0"'], ['quat="-0 0 1 -0"'])])
    pose = read.pose(elements[0], elements[0].attrib)
    assert any(np.signbit(v) and v == 0 for v in pose.ravel())
    placed_pose = read.placed_pose(elements[0], elements[0].attrib, IDENTITY)
    assert not any(np.signbit(v) and v == 0 for v in placed_pose.ravel())


JOINTS = """\
<mujoco><worldbody><body name="a"><geom size="0.1"/>
  <body name="b" pos="0 0.01 0.1" euler="0 0 10"><joint name="first"/><joint name="second"/><geom size="0.1"/></body>
  <body name="c" pos="0 0 1"><joint name="anchored" pos="0 0 0.5"/><geom size="0.1"/></body>
  <frame pos="1e308 0 0"><body name="d" pos="1e308 0 0"><joint name="far"/><geom size="0.1"/></body></frame>
</body></worldbody></mujoco>
"""


def test_a_first_joint_at_its_body_origin_has_the_body_pose_itself() -> None:
    """Its origin would be ``body.pose @ make_pose(translation=anchor)``, the same bits: a body's first
    joint anchored at the body's origin holds the body's pose (no array of its own), any other joint
    (a second one, an anchored one, one of a body whose pose is not `plain`: there the product
    differs, an infinity times 0 being NaN) an array of its own with the product's bits."""
    with np.errstate(over="ignore", invalid="ignore"):  # (body d is placed at infinity)
        model = robodesc.loads(JOINTS, format="mjcf")
        joints, bodies = model.joints, model.bodies
        assert not plain(bodies["d"].pose)
        expected = {
            name: bodies[joint.child].pose @ make_pose(translation=[0.0, 0.0, 0.5 if name == "anchored" else 0.0])
            for name, joint in joints.items()
        }
    for name, joint in joints.items():
        pose = bodies[joint.child].pose
        assert _bits(joint.origin) == _bits(expected[name])
        assert (joint.origin is pose) == (name == "first")
