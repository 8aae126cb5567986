"""A URDF file included from SDF: the URDF reader's `Model` seen as an SDF model.

Links keep their URDF names and their pose at zero joint values; a joint's pose is given in its
child link frame, as SDF wants it. libsdformat also merges links joined by fixed joints
(URDF "lumping") unless told not to; robodesc keeps every link (see docs/formats/sdf.md).
"""

from __future__ import annotations

import numpy as np

from ...core.errors import Location
from ...core.model import Dynamics, Limits, Model
from ...core.transforms import invert_pose
from .desc import AxisDesc, InertialDesc, JointDesc, LinkDesc, ModelDesc, PoseRef


def model_desc_from_urdf(model: Model, path: str) -> ModelDesc:
    poses = model.forward_kinematics(backend="numpy")  # once: not worth loading numba
    desc = ModelDesc(name=model.name, version=(1, 12), source=path, location=Location(file=path))
    for body in model.bodies.values():
        inertial = body.inertial
        inertial_desc = (
            InertialDesc(
                inertial.mass, np.asarray(inertial.com, dtype=float), np.asarray(inertial.inertia, dtype=float)
            )
            if inertial is not None
            else InertialDesc(1.0, np.zeros(3), np.eye(3))
        )
        desc.links.append(
            LinkDesc(
                name=body.name,
                pose=PoseRef(np.asarray(poses[body.name], dtype=float)),
                inertial=inertial_desc,
                visuals=list(body.visuals),
                collisions=list(body.collisions),
                location=body.location,
            )
        )
    for joint in model.joints.values():
        parent_world = np.asarray(poses[joint.parent], dtype=float)
        child_world = np.asarray(poses[joint.child], dtype=float)
        in_child = invert_pose(child_world) @ parent_world @ np.asarray(joint.origin, dtype=float)
        limits = joint.limits
        desc.joints.append(
            JointDesc(
                name=joint.name,
                type=joint.type,  # URDF floating and planar joints stay what they are
                parent=joint.parent,
                child=joint.child,
                pose=PoseRef(in_child),
                location=joint.location,
                axis=AxisDesc(
                    xyz=np.asarray(joint.axis, dtype=float),
                    expressed_in="",
                    limits=Limits(limits.lower, limits.upper, limits.velocity, limits.effort),
                    dynamics=joint.dynamics or Dynamics(),
                    location=joint.location,
                ),
            )
        )
    return desc
