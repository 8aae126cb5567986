"""The pictures in the docs are what robodesc draws from the examples today (docs/pictures.py).

A change to the renderer, the scene or an example that changes a picture fails here until the
pictures are drawn again (`python docs/pictures.py`) and committed, so the docs never show a robot
robodesc no longer draws. Pixels may differ by a little between machines (numpy's float rounding
on edges), so the comparison allows a few edge pixels to differ, not a changed picture.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).parents[1]
Image = pytest.importorskip("PIL.Image", reason="Pillow (the meshes extra) decodes the PNGs to compare")


def load_pictures_script():
    spec = importlib.util.spec_from_file_location("docs_pictures", ROOT / "docs" / "pictures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the script runs
    spec.loader.exec_module(module)
    return module


pictures = load_pictures_script()


def pixels(path: Path) -> np.ndarray:
    with Image.open(path) as image:
        return np.asarray(image.convert("RGBA"), dtype=np.int16)


@pytest.mark.parametrize("picture", pictures.PICTURES, ids=lambda p: p.name)
def test_the_committed_picture_is_what_robodesc_draws(picture, tmp_path):
    drawn = pixels(pictures.draw(picture, tmp_path))
    committed = ROOT / "docs" / "images" / picture.name
    assert committed.exists(), f"run python docs/pictures.py and commit docs/images/{picture.name}"
    shown = pixels(committed)
    assert shown.shape == drawn.shape
    differing = np.mean(np.abs(shown - drawn).max(axis=2) > 24)
    assert differing < 0.002, f"docs/images/{picture.name} is stale: run python docs/pictures.py and commit it"
    background = np.all(drawn == 255, axis=2)
    assert 0.05 < 1 - background.mean() < 0.95  # a robot, not a blank or a filled picture


def test_every_picture_is_shown_and_every_shown_picture_is_drawn():
    texts = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    shown = {m for t in texts for m in re.findall(r"\]\((?:docs/)?images/([\w.-]+\.png)\)", t.read_text())}
    drawn = {p.name for p in pictures.PICTURES}
    assert shown == drawn
    assert "quadruped.png" in re.findall(r"\]\(docs/images/([\w.-]+\.png)\)", (ROOT / "README.md").read_text())
