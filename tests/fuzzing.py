"""The shared loop of the fuzz tests: mutate a seed document many times with a fixed random seed and
require that every mutant either loads (and its kinematics run) or raises a located RobodescError."""

from __future__ import annotations

import copy
import random
import xml.etree.ElementTree as ET
from collections.abc import Callable

import robodesc
from robodesc import PluginCrash, RobodescError


def assert_mutants_load_or_raise_robodesc_errors(
    seed_text: str, mutate: Callable[[ET.Element, random.Random], str | None], fmt: str, seed: int, count: int = 200
) -> None:
    """`mutate` changes the tree in place (returning None) or returns replacement text (a truncation)."""
    rng = random.Random(seed)
    mutants = []
    for _ in range(count):
        root = ET.fromstring(seed_text)
        text = None
        for _ in range(rng.choice((1, 1, 2, 3))):
            text = mutate(root, rng)
            if text is not None:
                break
        mutants.append(text if text is not None else ET.tostring(root, encoding="unicode"))
    assert len(set(mutants)) > count * 3 // 4  # the mutations really differ
    loaded = rejected = 0
    foreign = []
    for i, text in enumerate(mutants):
        try:
            robodesc.loads(text, format=fmt).forward_kinematics()
            loaded += 1
        except PluginCrash as exc:  # a reader's own exception, wrapped by the plugin manager: a bug
            foreign.append((i, f"{type(exc.original).__name__}: {exc.original}"))
        except RobodescError as exc:
            assert exc.line is not None or exc.code in ("xml-syntax", "missing-root"), (i, str(exc))
            rejected += 1
        except Exception as exc:  # noqa: BLE001 - this is what the test looks for
            foreign.append((i, f"{type(exc).__name__}: {exc}"))
    assert not foreign, f"non-robodesc exceptions escaped: {foreign[:5]}"
    assert loaded > 10 and rejected > 10


def mutate_structure(root: ET.Element, rng: random.Random) -> tuple[ET.Element, ET.Element, int]:
    """Pick an element and a roll in 0..8; rolls 0-2 delete, duplicate or move the element here and
    now, higher rolls are left to the format's own mutations. Returns (element, its parent, roll)."""
    elements = list(root.iter())
    parents = {child: p for p in elements for child in p}
    element = rng.choice(elements[1:])
    parent = parents[element]
    roll = rng.randrange(9)
    if roll == 0:  # delete
        parent.remove(element)
    elif roll == 1:  # duplicate
        parent.insert(list(parent).index(element), copy.deepcopy(element))
    elif roll == 2:  # move under another element, not one that holds it
        above, up = {element}, element  # found walking up: linear however deep the tree nests
        while up in parents:
            up = parents[up]
            above.add(up)
        target = rng.choice([e for e in elements if e not in above])
        parent.remove(element)
        target.append(element)
    return element, parent, roll
