"""A loaded model's records never share what a caller may change.

Readers cache what repeats (an origin text, a mesh file, a default class, an included model parsed
once however often it is included), and a cache hands out the same object every time. A caller who
edits one record in place (moves one visual, rescales one mesh, changes one joint's damping) must not
edit another record with it. These tests pin that, for every format: two distinct records of one kind
(bodies, joints, frames, shapes, geometries, inertials) never hold the same array, list, dict or
record, nor arrays that reach the same bytes (a reader may hand out rows of one table of the load's).
Read-only arrays are exempt (nobody can change them in place), and so are named materials (one
material, listed in `model.materials`) and records of different kinds (a URDF or MJCF body's pose is
its joint's origin, by design). MJCF geoms that share a default class are tested in
test_mjcf_shared_classes.py."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
import pytest

import robodesc
from robodesc.core.model import Model
from robodesc.core.record import Record

try:
    from numpy.lib.array_utils import byte_bounds
except ImportError:  # numpy < 2
    byte_bounds = np.byte_bounds


def shared_values(model: Model) -> list[str]:
    """`kind.field` for every value that a record of that kind holds although another already does.

    Changeable: arrays that are writeable, lists, dicts and records (a named material listed in
    `model.materials` excepted: it is one material, named by every shape that uses it)."""
    kinds: dict[str, list] = {
        "body": list(model.bodies.values()),
        "joint": list(model.joints.values()),
        "frame": list(model.frames.values()),
    }
    shapes = {id(s): s for body in kinds["body"] for s in body.visuals + body.collisions}  # one Shape may be in both
    kinds["shape"] = list(shapes.values())
    kinds["geometry"] = [shape.geometry for shape in kinds["shape"]]
    kinds["inertial"] = [body.inertial for body in kinds["body"] if body.inertial is not None]
    named_materials = {id(material) for material in model.materials.values()}
    found = []
    for kind, records in kinds.items():
        holders: dict[int, object] = {}
        spans: list[tuple[int, int, str]] = []  # the bytes each writeable array reaches: (first, past the last, field)
        for record in records:
            for field in dataclasses.fields(record):
                value = getattr(record, field.name)
                if isinstance(value, np.ndarray):
                    changeable = value.flags.writeable
                    if changeable and value.size:
                        spans.append((*byte_bounds(value), field.name))
                else:
                    changeable = isinstance(value, (list, dict, Record)) and id(value) not in named_materials
                if changeable and holders.setdefault(id(value), record) is not record:
                    found.append(f"{kind}.{field.name}")
        # arrays of their own or views into one table of the load's (rows that do not overlap): distinct
        # array objects must not reach the same bytes
        spans.sort()
        found += [f"{kind}.{b[2]} (overlapping {kind}.{a[2]})" for a, b in zip(spans, spans[1:]) if b[0] < a[1]]
    return found


def test_sdf_model_included_twice_gives_each_instance_its_own_shapes(tmp_path: Path) -> None:
    folder = tmp_path / "crate"
    folder.mkdir()
    (folder / "model.config").write_text("<model><name>crate</name><sdf version='1.9'>model.sdf</sdf></model>")
    (folder / "model.sdf").write_text(
        "<sdf version='1.9'><model name='crate'><link name='l'>"
        "<visual name='v'><pose>0 0 1 0 0 0</pose><geometry><box><size>1 1 1</size></box></geometry></visual>"
        "<collision name='c'><geometry><mesh><uri>m.stl</uri><scale>2 2 2</scale></mesh></geometry></collision>"
        "</link><link name='lid'/><joint name='hinge' type='revolute'><parent>l</parent><child>lid</child>"
        "<axis><xyz>0 1 0</xyz><limit><lower>-1</lower><upper>1</upper></limit><dynamics><damping>0.5</damping>"
        "</dynamics></axis></joint></model></sdf>"
    )
    text = (
        "<sdf version='1.9'><world name='w'><include><uri>model://crate</uri></include>"
        "<include><uri>model://crate</uri><name>crate2</name></include></world></sdf>"
    )
    model = robodesc.loads(text, format="sdf", base_dir=tmp_path, search_paths=[tmp_path])
    assert shared_values(model) == []
    one, two = model.bodies["crate::l"], model.bodies["crate2::l"]
    one.visuals[0].pose[2, 3] = 7.0
    one.collisions[0].geometry.scale[0] = 9.0
    assert two.visuals[0].pose[2, 3] == 1.0
    assert two.collisions[0].geometry.scale.tolist() == [2.0, 2.0, 2.0]
    model.joints["crate::hinge"].dynamics.damping = 3.0
    model.joints["crate::hinge"].limits.upper = 2.0
    assert model.joints["crate2::hinge"].dynamics.damping == 0.5
    assert model.joints["crate2::hinge"].limits.upper == 1.0


def test_urdf_repeated_origins_and_meshes_share_nothing(tmp_path: Path) -> None:
    (tmp_path / "m.stl").write_bytes(b"solid m\nendsolid m\n")
    shape = '<origin xyz="0 0 1"/><geometry><mesh filename="m.stl"/></geometry>'
    link = '<link name="{0}"><inertial><origin xyz="0 0 1"/><mass value="1"/>'
    link += '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>'
    link += f"<visual>{shape}</visual><collision>{shape}</collision></link>"
    joint = '<joint name="{0}" type="revolute"><origin xyz="0 0 1"/><parent link="{1}"/><child link="{2}"/>'
    joint += '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
    text = '<robot name="r">' + "".join(link.format(n) for n in "abc")
    text += joint.format("j1", "a", "b") + joint.format("j2", "b", "c") + "</robot>"
    model = robodesc.loads(text, format="urdf", base_dir=tmp_path)
    assert shared_values(model) == []


def _corpus_files() -> list[Path]:
    root = os.environ.get("ROBODESC_CORPUS")
    if not root:
        return []
    return sorted(p for p in Path(root).rglob("*") if p.suffix in (".urdf", ".sdf", ".xml", ".world") and p.is_file())


@pytest.mark.skipif(not os.environ.get("ROBODESC_CORPUS"), reason="ROBODESC_CORPUS is not set")
def test_corpus_models_share_nothing() -> None:
    files = _corpus_files()
    assert files, "ROBODESC_CORPUS holds no description files"
    offenders = {}
    for path in files:
        try:
            model = robodesc.load(path)
        except robodesc.RobodescError:
            continue  # (files the references refuse too; their errors are tested elsewhere)
        found = shared_values(model)
        if found:
            offenders[str(path)] = sorted(set(found))
    assert offenders == {}
