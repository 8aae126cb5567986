"""A loaded MJCF model lets go of the parsed XML documents of its files (the main file, the files it
includes and the sub-models it attaches), yet every location in it still names the file, line and
element path it named while they were there, also in a file that had another spliced into it; and its
bodies' shape lists keep no room to grow."""

from __future__ import annotations

import sys
from pathlib import Path

from conftest import documents_alive

import robodesc

MAIN = """\
<mujoco model="main">
  <asset>
    <model name="arm" file="arm.xml"/>
  </asset>
  <worldbody>
    <include file="part.xml"/>
    <body pos="0 0 1">
      <freejoint/>
      <geom type="sphere" size="0.1"/>
      <light/>
    </body>
    <attach model="arm" body="link" prefix="arm_"/>
  </worldbody>
</mujoco>
"""

PART = """\
<mujoco>
  <body name="part" pos="1 0 0">
    <joint name="hinge" range="-1 1"/>
    <geom type="capsule" size="0.1" fromto="0 0 0 1 0 0" euler="0 0 1"/>
  </body>
</mujoco>
"""

ARM = """\
<mujoco model="arm">
  <worldbody>
    <body name="link">
      <joint name="slide" type="slide" range="0 1"/>
      <geom type="box" size="0.1 0.1 0.1"/>
    </body>
  </worldbody>
</mujoco>
"""


def _write(folder: Path) -> Path:
    (folder / "part.xml").write_text(PART)
    (folder / "arm.xml").write_text(ARM)
    main = folder / "main.xml"
    main.write_text(MAIN)
    return main


def _where(location: robodesc.Location) -> tuple[str, int | None, str | None]:
    return Path(location.file or "").name, location.line, location.element


def test_a_loaded_model_keeps_no_parsed_document_and_its_locations_still_say_where(tmp_path):
    model = robodesc.load(_write(tmp_path))
    assert documents_alive(tmp_path) == []  # the trees are gone: the model keeps the files' bytes

    assert _where(model.bodies["part"].location) == ("part.xml", 2, "/mujoco/body[@name='part']")
    assert _where(model.joints["hinge"].location) == ("part.xml", 3, "/mujoco/body[@name='part']/joint[@name='hinge']")
    assert _where(model.bodies["arm_link"].location) == ("arm.xml", 3, "/mujoco/worldbody/body[@name='link']")
    assert _where(model.joints["arm_slide"].location) == (
        "arm.xml",
        4,
        "/mujoco/worldbody/body[@name='link']/joint[@name='slide']",
    )
    (fromto,) = [d for d in model.diagnostics if d.code == "fromto-overrides-pose"]
    assert _where(fromto.location) == ("part.xml", 4, "/mujoco/body[@name='part']/geom")
    # the main file had part.xml spliced into its <worldbody>: its unnamed body is counted among
    # the bodies there, as while the tree was loaded
    free = next(body for body in model.bodies.values() if body.parent == "world" and body.name.startswith("<"))
    assert _where(free.location) == ("main.xml", 7, "/mujoco/worldbody/body[2]")
    (light,) = free.extras["xml"]
    assert _where(light.location) == ("main.xml", 10, "/mujoco/worldbody/body[2]/light")
    assert light.xml == "<light />"


def test_shape_lists_hold_no_spare_room() -> None:
    """A body's shape lists are grown by one append per geom while the model is built, which leaves
    room for up to three more shapes in each; the loaded model's lists are the size of their shapes."""
    geoms = "".join('<geom type="sphere" size="0.1"/>' for _ in range(3))
    model = robodesc.loads(
        f'<mujoco><worldbody><body name="one"><geom size="0.1"/><body name="three">{geoms}</body>'
        '<body name="none"/></body></worldbody></mujoco>',
        format="mjcf",
    )
    for body in model.bodies.values():
        for shapes in (body.visuals, body.collisions):
            assert sys.getsizeof(shapes) == sys.getsizeof(shapes[:])  # (a slice is made to its length)
    assert [len(b.visuals) for b in model.bodies.values()] == [0, 1, 3, 0]
