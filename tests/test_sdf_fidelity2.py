"""SDFormat fidelity, round 2 (issue 12): automatic inertia, mimic joints, typed surface values.

Expected values are derived here from libsdformat's / gz-math's formulas (restated in the
docstrings), not from robodesc.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import assert_close

import robodesc
from robodesc import InvalidValue, MalformedValue


def _link(body: str, version: str = "1.11") -> robodesc.Model:
    return robodesc.loads(f'<sdf version="{version}"><model name="m"><link name="a">{body}</link></model></sdf>', "sdf")


def _collision(geometry: str, pose: str = "0 0 0 0 0 0", name: str = "c", density: str = "") -> str:
    extra = f"<density>{density}</density>" if density else ""
    return f'<collision name="{name}"><pose>{pose}</pose>{extra}<geometry>{geometry}</geometry></collision>'


def test_auto_inertia_cone_com_a_quarter_above_the_base():
    """A cone of radius r, length l (centred, apex up): m = rho pi r^2 l / 3; centre of mass at l/4 above
    the base (z = -l/4 from the centre); about it Ixx = Iyy = 3 m (4 r^2 + l^2) / 80, Izz = 3 m r^2 / 10."""
    r, length, rho = 0.5, 2.0, 2.0
    model = _link(
        f"<inertial auto='true'><density>{rho}</density></inertial>"
        + _collision(f"<cone><radius>{r}</radius><length>{length}</length></cone>", pose="1 0 0 0 0 0")
    )
    inertial = model.bodies["a"].inertial
    m = rho * math.pi * r * r * length / 3
    assert_close(inertial.mass, m)
    assert_close(inertial.com, [1.0, 0.0, -length / 4])
    side = 3 * m * (4 * r * r + length * length) / 80
    assert_close(inertial.inertia, np.diag([side, side, 0.3 * m * r * r]))


def test_auto_inertia_rotated_cone_com_follows_its_axis():
    """The collision pose places the centroid: a cone turned by +90 deg about x points its apex to -y,
    so its centre of mass is l/4 towards +y from the collision origin."""
    model = _link(
        "<inertial auto='true'/>"
        + _collision("<cone><radius>1</radius><length>4</length></cone>", "0 0 0 1.5707963267948966 0 0")
    )
    assert_close(model.bodies["a"].inertial.com, [0.0, 1.0, 0.0], atol=1e-12)


def test_auto_inertia_density_precedence_and_sum():
    """Density: the collision's own, else //inertial/density, else 1000. Two boxes a x b x c:
    m = rho a b c, Ixx = m (b^2 + c^2) / 12; summed about the joint centre of mass (parallel axes)."""
    model = _link(
        "<inertial auto='true'><density>2</density></inertial>"
        + _collision("<box><size>1 1 1</size></box>", "0 0 1 0 0 0", "up", density="6")
        + _collision("<box><size>1 1 1</size></box>", "0 0 -1 0 0 0", "down")
    )
    inertial = model.bodies["a"].inertial
    assert_close(inertial.mass, 8.0)
    assert_close(inertial.com, [0.0, 0.0, 0.5])  # (6 * 1 + 2 * -1) / 8
    own = 8.0 / 6.0  # sum of m (1 + 1) / 12
    shift = 6 * 0.5**2 + 2 * 1.5**2  # m d^2 about x and y
    assert_close(inertial.inertia, np.diag([own + shift, own + shift, own]))
    default = _link("<inertial auto='true'/>" + _collision("<sphere><radius>0.1</radius></sphere>"))
    assert_close(default.bodies["a"].inertial.mass, 1000 * 4 / 3 * math.pi * 0.1**3)


@pytest.mark.parametrize(
    ("geometry", "mass", "moments"),
    [
        # cylinder: m = rho pi r^2 l; Ixx = m (3 r^2 + l^2) / 12, Izz = m r^2 / 2
        ("<cylinder><radius>0.5</radius><length>2</length></cylinder>", math.pi * 0.5, None),
        # ellipsoid: m = rho 4/3 pi a b c; Ixx = m (b^2 + c^2) / 5
        ("<ellipsoid><radii>1 2 3</radii></ellipsoid>", 4 / 3 * math.pi * 6, None),
        # capsule: cylinder + two hemispheres of mass rho 2/3 pi r^3, centroids 3r/8 beyond the ends
        ("<capsule><radius>0.5</radius><length>1</length></capsule>", math.pi * 0.25 * (1 + 4 / 3 * 0.5), None),
    ],
)
def test_auto_inertia_other_solids(geometry, mass, moments):
    model = _link("<inertial auto='true'><density>1</density></inertial>" + _collision(geometry))
    inertial = model.bodies["a"].inertial
    assert_close(inertial.mass, mass)
    if "cylinder" in geometry:
        expected = [mass * (3 * 0.25 + 4) / 12] * 2 + [mass * 0.25 / 2]
    elif "ellipsoid" in geometry:
        expected = [mass * (4 + 9) / 5, mass * (1 + 9) / 5, mass * (1 + 4) / 5]
    else:
        r, length = 0.5, 1.0
        m_cyl = math.pi * r * r * length
        m_hemi = 2 / 3 * math.pi * r**3
        dz = length / 2 + 3 * r / 8
        side = m_cyl * (3 * r * r + length * length) / 12 + 2 * (83 / 320 * m_hemi * r * r + m_hemi * dz * dz)
        expected = [side, side, m_cyl * r * r / 2 + 2 * 0.4 * m_hemi * r * r]
    assert_close(np.diag(inertial.inertia), expected, atol=1e-12)


def test_auto_inertia_scaled_to_a_given_mass():
    """libsdformat 15.2+: with //inertial/mass, the computed inertia is scaled so the mass is the given one."""
    model = _link("<inertial auto='true'><mass>6</mass></inertial>" + _collision("<box><size>1 1 1</size></box>"))
    inertial = model.bodies["a"].inertial
    assert_close(inertial.mass, 6.0)
    assert_close(inertial.inertia, np.eye(3))


def test_auto_inertia_mesh_counts_one_kilogram():
    """Without a custom calculator libsdformat gives a mesh collision mass 1 and a unit inertia at its origin."""
    model = _link(
        "<inertial auto='true'/>"
        + _collision("<box><size>1 1 1</size></box>", "0 0 0 0 0 0", "box", density="1")
        + _collision("<mesh><uri>missing.stl</uri></mesh>", "0 0 2 0 0 0", "mesh")
    )
    inertial = model.bodies["a"].inertial
    assert_close(inertial.mass, 2.0)
    assert_close(inertial.com, [0.0, 0.0, 1.0])
    codes = [d.code for d in model.diagnostics]
    assert "auto-inertia-unsupported" in codes


@pytest.mark.parametrize(
    "geometry",
    ["<plane><normal>0 0 1</normal></plane>", "<box><size>0 1 1</size></box>", "<cone><radius>-1</radius></cone>"],
)
def test_auto_inertia_refused_where_libsdformat_reports_an_invalid_inertia(geometry):
    text = (
        '<sdf version="1.11"><model name="m"><link name="a"><inertial auto="true"/>\n'
        f'<collision name="bad"><geometry>{geometry}</geometry></collision></link></model></sdf>'
    )
    with pytest.raises(InvalidValue) as info:
        robodesc.loads(text, "sdf")
    assert info.value.line == 2
    assert "collision[@name='bad']" in str(info.value)


def test_auto_inertia_params_kept():
    model = _link(
        "<inertial auto='true'><auto_inertia_params><voxel_size>0.01</voxel_size></auto_inertia_params></inertial>"
        + _collision("<box/>")
    )
    kept = model.bodies["a"].extras["sdf"]["inertial_xml"]
    assert [extra.tag for extra in kept] == ["auto_inertia_params"]


# -- mimic -------------------------------------------------------------------------------------
MIMIC = """<sdf version="1.11"><model name="top">
  <link name="base"/>
  <model name="a"><model name="b">
    <link name="l1"><pose>1 0 0 0 0 0</pose></link>
    <link name="l2"><pose>2 0 0 0 0 0</pose></link>
    <joint name="lead" type="{leader}"><parent>l1</parent><child>l2</child><axis><xyz>1 0 0</xyz></axis></joint>
  </model>
  <joint name="fix" type="fixed"><parent>__model__</parent><child>b::l1</child></joint>
  </model>
  <joint name="fix_a" type="fixed"><parent>base</parent><child>a::b::l1</child></joint>
  <link name="tip"/>
  <joint name="follow" type="prismatic"><parent>base</parent><child>tip</child>
    <axis><xyz>0 0 1</xyz><mimic joint="a::b::lead" axis="axis">
      <multiplier>2</multiplier><offset>0.5</offset><reference>0.1</reference></mimic></axis>
  </joint>
</model></sdf>"""


@pytest.mark.parametrize("leader", ["revolute", "prismatic"])
def test_mimic_across_nested_models(leader):
    """follower = offset + multiplier (leader - reference) (SDF 1.11's definition)."""
    model = robodesc.loads(MIMIC.format(leader=leader), "sdf")
    mimic = model.joints["follow"].mimic
    assert mimic.joint == "a::b::lead"
    for q in (0.0, 0.3, -1.2):
        poses = model.forward_kinematics({"a::b::lead": q})
        assert_close(poses["tip"][:3, 3], [0.0, 0.0, 0.5 + 2.0 * (q - 0.1)], atol=1e-12)
    assert not [d for d in model.diagnostics if d.code == "mimic-ignored"]


def test_mimic_of_unknown_leader_is_a_warning_at_the_mimic():
    text = MIMIC.format(leader="revolute").replace('joint="a::b::lead"', 'joint="a::b::nope"')
    model = robodesc.loads(text, "sdf")
    (warning,) = [d for d in model.diagnostics if d.code == "mimic-ignored"]
    assert warning.location.line == 13
    assert str(warning.location).endswith("/joint[@name='follow']/axis/mimic")


# -- typed values libsdformat refuses ------------------------------------------------------------
@pytest.mark.parametrize(
    ("surface", "tag"),
    [
        ("<friction><ode><mu>abc</mu></ode></friction>", "mu"),
        ("<friction><ode><fdir1>1 x 0</fdir1></ode></friction>", "fdir1"),
        ("<friction><torsional><use_patch_radius>maybe</use_patch_radius></torsional></friction>", "use_patch_radius"),
        ("<bounce><restitution_coefficient>high</restitution_coefficient></bounce>", "restitution_coefficient"),
        ("<contact><collide_bitmask>ab</collide_bitmask></contact>", "collide_bitmask"),
        ("<contact><ode><kp>stiff</kp></ode></contact>", "kp"),
    ],
)
def test_malformed_surface_values_are_refused(surface, tag):
    text = (
        '<sdf version="1.11"><model name="m"><link name="a"><collision name="c"><geometry><box/></geometry>\n'
        f"<surface>{surface}</surface></collision></link></model></sdf>"
    )
    with pytest.raises(MalformedValue) as info:
        robodesc.loads(text, "sdf")
    assert info.value.line == 2
    assert str(info.value.location).endswith(f"/{tag}")


def test_good_and_empty_surface_values_load():
    model = _link(
        '<collision name="c"><geometry><box/></geometry><surface><friction><ode><mu>0.5</mu><mu2/>'
        "<fdir1>1 0 0</fdir1></ode></friction><contact><collide_bitmask>0x01</collide_bitmask></contact>"
        "</surface></collision>"
    )
    assert [e.tag for e in model.bodies["a"].collisions[0].extras["xml"]] == ["surface"]


def test_malformed_joint_physics_value_is_refused():
    text = (
        '<sdf version="1.11"><model name="m"><link name="a"/><link name="b"/>'
        '<joint name="j" type="fixed"><parent>a</parent><child>b</child>'
        "<physics><ode><cfm>soft</cfm></ode></physics></joint></model></sdf>"
    )
    with pytest.raises(MalformedValue):
        robodesc.loads(text, "sdf")
