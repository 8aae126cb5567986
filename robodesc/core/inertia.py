"""Volumes and moments of inertia of primitive shapes, solid or thin shell: one home for the formulas.

Shapes are given by MuJoCo's geom sizes, the one convention here: sphere (radius), capsule (radius,
half-length of the cylinder part), cylinder (radius, half-height), ellipsoid (three semi-axes), box
(three half-sizes). A capsule's and a cylinder's axis is z. Moments are principal, about the shape's
centre, in the shape's axes.

The arithmetic is written in the order MuJoCo's compiler does it (``mjCGeom::GetVolume`` and
``mjCGeom::SetInertia`` in ``user_objects.cc``), operation for operation, so a model compiled by
robodesc and by MuJoCo agree bit for bit; rearranging a formula, however equivalent on paper,
breaks that. Sizes are taken as valid (positive, finite, enough of them): a reader checks them
first and reports its own error.
"""

from __future__ import annotations

import math

import numpy as np

from .transforms import VectorLike

__all__ = ["PRIMITIVES", "PRIMITIVE_SIZES", "primitive_inertia", "primitive_volume"]

#: The shapes these formulas cover, each with how many sizes it takes.
PRIMITIVE_SIZES = {"sphere": 1, "capsule": 2, "cylinder": 2, "ellipsoid": 3, "box": 3}
PRIMITIVES = tuple(PRIMITIVE_SIZES)

#: Thomsen's exponent for the surface area of an ellipsoid (an approximation, as MuJoCo uses it).
_THOMSEN_P = 1.6075
#: A shell ellipsoid is the difference of a solid one and one inflated by this much (MuJoCo's way).
_SHELL_THICKNESS = 1e-6


def primitive_volume(kind: str, size: VectorLike, *, shell: bool = False) -> float:
    """The volume of a primitive, or with ``shell=True`` its surface area."""
    s = size
    pi = math.pi
    if kind == "sphere":
        r = s[0]
        return 4 * pi * r * r if shell else 4 * pi * r * r * r / 3
    if kind == "capsule":
        r, h = s[0], 2 * s[1]
        if shell:
            return 4 * pi * r * r + 2 * pi * r * h
        return pi * (r * r * h + 4 * r * r * r / 3)
    if kind == "cylinder":
        r, h = s[0], 2 * s[1]
        if shell:
            return 2 * pi * r * r + 2 * pi * r * h
        return pi * r * r * h
    if kind == "ellipsoid":
        if shell:
            p = _THOMSEN_P
            tmp = (s[0] * s[1]) ** p + (s[1] * s[2]) ** p + (s[2] * s[0]) ** p
            return 4 * pi * (tmp / 3) ** (1 / p)
        return 4 * pi * s[0] * s[1] * s[2] / 3
    if kind == "box":
        if shell:
            return 8 * (s[0] * s[1] + s[1] * s[2] + s[2] * s[0])
        return s[0] * s[1] * s[2] * 8
    raise ValueError(f"unknown primitive {kind!r}; expected one of {', '.join(PRIMITIVES)}")


def primitive_inertia(kind: str, size: VectorLike, mass: float, *, shell: bool = False) -> np.ndarray:
    """Principal moments (Ixx, Iyy, Izz) of a primitive of the given mass, solid or shell.

    The capsule is a cylinder and two hemispheres sharing the mass by volume (by area for a shell);
    the shell ellipsoid is the difference of two solid ones `_SHELL_THICKNESS` apart.
    """
    if kind == "sphere":
        v = 2 * mass * size[0] * size[0] / (3 if shell else 5)
        return np.array([v, v, v])
    if kind == "capsule":
        return _shell_capsule(size, mass) if shell else _solid_capsule(size, mass)
    if kind == "cylinder":
        return _shell_cylinder(size, mass) if shell else _solid_cylinder(size, mass)
    if kind == "ellipsoid":
        return _shell_ellipsoid(size, mass) if shell else _solid_ellipsoid(size, mass)
    if kind == "box":
        return _shell_box(size, mass) if shell else _solid_box(size, mass)
    raise ValueError(f"unknown primitive {kind!r}; expected one of {', '.join(PRIMITIVES)}")


def _solid_capsule(s: VectorLike, mass: float) -> np.ndarray:
    height, r = 2 * s[1], s[0]
    sphere_mass = mass * 4 * r / (4 * r + 3 * height)  # mass * sphere_vol / total_vol
    cylinder_mass = mass - sphere_mass
    ixy = cylinder_mass * (3 * r * r + height * height) / 12
    iz = cylinder_mass * r * r / 2
    sphere_inertia = 2 * sphere_mass * r * r / 5
    ixy += sphere_inertia + sphere_mass * height * (3 * r + 2 * height) / 8
    iz += sphere_inertia
    return np.array([ixy, ixy, iz])


def _shell_capsule(s: VectorLike, mass: float) -> np.ndarray:
    halfheight, height, r = s[1], 2 * s[1], s[0]
    a_sphere = 4 * math.pi * r * r
    a_cylinder = 2 * math.pi * r * height
    sphere_mass = mass * a_sphere / (a_sphere + a_cylinder)
    cylinder_mass = mass - sphere_mass
    ixy = cylinder_mass * (6 * r * r + height * height) / 12
    iz = cylinder_mass * r * r
    sphere_inertia = 2 * sphere_mass * r * r / 3
    hs_com = r / 2
    hs_pos = halfheight + hs_com
    ixy += sphere_inertia + sphere_mass * (hs_pos * hs_pos - hs_com * hs_com)
    iz += sphere_inertia
    return np.array([ixy, ixy, iz])


def _solid_cylinder(s: VectorLike, mass: float) -> np.ndarray:
    height, r = 2 * s[1], s[0]
    ixy = mass * (3 * r * r + height * height) / 12
    return np.array([ixy, ixy, mass * r * r / 2])


def _shell_cylinder(s: VectorLike, mass: float) -> np.ndarray:
    halfheight, height, r = s[1], 2 * s[1], s[0]
    a_disk = math.pi * r * r
    a_cylinder = 2 * math.pi * r * height
    mass_disk = mass * a_disk / (2 * a_disk + a_cylinder)
    mass_cylinder = mass - 2 * mass_disk
    ixy = mass_cylinder * (6 * r * r + height * height) / 12
    iz = mass_cylinder * r * r
    disk_x = mass_disk * r * r / 4 + mass_disk * halfheight * halfheight
    disk_z = mass_disk * r * r / 2
    return np.array([ixy + 2 * disk_x, ixy + 2 * disk_x, iz + 2 * disk_z])


def _solid_ellipsoid(s: VectorLike, mass: float) -> np.ndarray:
    s00, s11, s22 = s[0] * s[0], s[1] * s[1], s[2] * s[2]
    return np.array([mass * (s11 + s22) / 5, mass * (s00 + s22) / 5, mass * (s00 + s11) / 5])


def _shell_ellipsoid(s: VectorLike, mass: float) -> np.ndarray:
    s00, s11, s22 = s[0] * s[0], s[1] * s[1], s[2] * s[2]
    eps = _SHELL_THICKNESS
    va = 4 * math.pi * s[0] * s[1] * s[2] / 3
    ae, be, ce = s[0] + eps, s[1] + eps, s[2] + eps
    vb = 4 * math.pi * ae * be * ce / 3
    density = mass / (vb - va)
    ma, mb = va * density, vb * density
    ia = np.array([ma * (s11 + s22) / 5, ma * (s00 + s22) / 5, ma * (s00 + s11) / 5])
    ib = np.array([mb * (be * be + ce * ce) / 5, mb * (ae * ae + ce * ce) / 5, mb * (ae * ae + be * be) / 5])
    return ib - ia


def _solid_box(s: VectorLike, mass: float) -> np.ndarray:
    s00, s11, s22 = s[0] * s[0], s[1] * s[1], s[2] * s[2]
    return np.array([mass * (s11 + s22) / 3, mass * (s00 + s22) / 3, mass * (s00 + s11) / 3])


def _shell_box(s: VectorLike, mass: float) -> np.ndarray:
    """Six plates, each pair sharing the mass by area, moved out by the parallel-axis theorem."""
    s00, s11, s22 = s[0] * s[0], s[1] * s[1], s[2] * s[2]
    lx, ly, lz = 2 * s[0], 2 * s[1], 2 * s[2]
    a0, a1, a2 = lx * ly, ly * lz, lz * lx
    atotal = 2 * (a0 + a1 + a2)
    m0, m1, m2 = mass * a0 / atotal, mass * a1 / atotal, mass * a2 / atotal
    ix0, iy0, iz0 = m0 * ly * ly / 12, m0 * lx * lx / 12, m0 * (lx * lx + ly * ly) / 12
    ix1, iy1, iz1 = m1 * (ly * ly + lz * lz) / 12, m1 * lz * lz / 12, m1 * ly * ly / 12
    ix2, iy2, iz2 = m2 * lz * lz / 12, m2 * (lx * lx + lz * lz) / 12, m2 * lx * lx / 12
    return np.array(
        [
            2 * (m0 * s22 + m2 * s11 + ix0 + ix1 + ix2),
            2 * (m0 * s22 + m1 * s00 + iy0 + iy1 + iy2),
            2 * (m1 * s00 + m2 * s11 + iz0 + iz1 + iz2),
        ]
    )
