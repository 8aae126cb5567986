"""`<include merge="true">` (SDF 1.9): the included model's content joins the including scope.

As libsdformat does it: a frame `_merged__NAME__model__` stands for the included model's frame
(attached to its canonical link, placed by the include's pose and placement frame), and every
reference to the included model's `__model__` frame, explicit or implied by a default, is
redirected to that frame. Names are not prefixed.
"""

from __future__ import annotations

import dataclasses

from ...core.errors import InvalidValue
from ...core.transforms import invert_pose
from .desc import AxisDesc, FrameDesc, Instance, ModelDesc, PoseRef, WorldDesc
from .graph import scope_of
from .size import check_merged


def _pose(ref: PoseRef, proxy: str, default_is_model: bool) -> PoseRef:
    if ref.relative_to == "__model__" or (default_is_model and not ref.relative_to):
        return dataclasses.replace(ref, relative_to=proxy)
    return ref


def _name(value: str, proxy: str) -> str:
    return proxy if value == "__model__" else value


def _axis(axis: AxisDesc | None, proxy: str) -> AxisDesc | None:
    if axis is not None and axis.expressed_in == "__model__":
        return dataclasses.replace(axis, expressed_in=proxy)
    return axis


def merge_into(instance: Instance, parent: ModelDesc | WorldDesc) -> None:
    """Merge the model `instance` places into `parent`, the model or world that includes it."""
    desc = instance.desc
    scope = scope_of(desc)
    proxy = f"_merged__{instance.name}__model__"
    attached = scope.attached("__model__", False) if scope.canonical is not None else ("static", "")
    attached_to = attached[1] if attached[0] == "link" else ""
    pose = instance.pose.matrix @ invert_pose(scope.placement(instance))
    parent_root = "world" if isinstance(parent, WorldDesc) else "__model__"
    proxy_frame = FrameDesc(
        name=proxy,
        attached_to=attached_to,
        pose=PoseRef(pose, instance.pose.relative_to or parent_root, instance.location),
        location=instance.location,
    )
    frames = [proxy_frame]
    for frame in desc.frames:
        frames.append(
            dataclasses.replace(
                frame,
                attached_to=proxy if frame.attached_to in ("", "__model__") else frame.attached_to,
                pose=_pose(frame.pose, proxy, False),
            )
        )
    joints = [
        dataclasses.replace(
            joint,
            parent=_name(joint.parent, proxy),
            child=_name(joint.child, proxy),
            pose=_pose(joint.pose, proxy, False),
            axis=_axis(joint.axis, proxy),
            axis2=_axis(joint.axis2, proxy),
        )
        for joint in desc.joints
    ]
    models = [dataclasses.replace(m, pose=_pose(m.pose, proxy, True)) for m in desc.models]
    links = [dataclasses.replace(link, pose=_pose(link.pose, proxy, True)) for link in desc.links]
    kept = list(desc.kept) + list(instance.kept)
    if isinstance(parent, WorldDesc):
        if links:
            raise InvalidValue(
                f"the model {desc.name!r} merged into world {parent.name!r} has links; a world holds no links",
                location=instance.location,
                construct="include/@merge",
                suggestion='remove merge="true", or move the links into a nested model',
            )
    else:
        parent.links.extend(links)
    parent.frames.extend(frames)
    parent.joints.extend(joints)
    parent.models.extend(models)
    parent.kept.extend(kept)
    check_merged(parent, instance)
