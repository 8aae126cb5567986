"""Draw the pictures the documentation shows, from the example files, with robodesc itself.

    python docs/pictures.py [FOLDER]      # default: docs/images next to this file

Every picture in the docs and the README is made here by `robodesc.render` from a file in
`examples/`, so what the docs show is what robodesc draws today. tests/test_docs_pictures.py runs
this script and fails when a committed picture no longer matches what it draws: rerun the script
and commit the pictures after changing the renderer or an example.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import robodesc

ROOT = Path(__file__).resolve().parents[1]
IMAGES = Path(__file__).resolve().parent / "images"


@dataclass(frozen=True)
class Picture:
    """One picture: which example, at which joint values (a keyframe, then `positions`), how drawn."""

    name: str
    example: str
    positions: dict[str, Any] = field(default_factory=dict)
    keyframe: str | None = None
    kind: str = "visual"
    view: str = "iso"
    size: tuple[int, int] = (640, 480)


PICTURES = (
    Picture("arm.png", "arm.urdf", {"shoulder_pitch": 0.6, "elbow": -1.2, "extend": 0.12, "left_finger_joint": 0.03}),
    Picture("quadruped.png", "quadruped.xml", keyframe="stride"),
    Picture("quadruped-front.png", "quadruped.xml", keyframe="crouch", view="front", size=(480, 360)),
    Picture(
        "pendulum_world.png", "pendulum_world.sdf", {"double_pendulum::shoulder": 0.7, "double_pendulum::elbow": 0.9}
    ),
)


def draw(picture: Picture, folder: Path) -> Path:
    """Render one picture into `folder` and return the file written."""
    model = robodesc.load(ROOT / "examples" / picture.example)
    values = dict(model.configurations[picture.keyframe]) if picture.keyframe else {}
    values.update(picture.positions)
    image = robodesc.render(model, values, kind=picture.kind, size=picture.size, view=picture.view)
    path = folder / picture.name
    robodesc.write_png(image, path)
    return path


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else IMAGES
    folder.mkdir(parents=True, exist_ok=True)
    for picture in PICTURES:
        print(draw(picture, folder))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
