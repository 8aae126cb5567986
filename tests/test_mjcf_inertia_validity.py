"""Which inertias MuJoCo accepts, differentially: each handwritten model is loaded by robodesc and
compiled by the ``mujoco`` package; both accept it or both refuse it, and when accepted every body's
mass and principal moments are MuJoCo's ``body_mass`` / ``body_inertia``.

The rules (MuJoCo 4.0, measured; robodesc/formats/mjcf/compile.py and inertia.py): a geom counts
only with a mass above 1e-14; a full inertia (``fullinertia``, several geoms combined, static bodies
fused) must have principal moments of at least 1e-14, or with ``boundinertia`` set none below
-1e-14 * max(1, largest); then ``boundmass``/``boundinertia``, then the triangle inequality (exact,
or ``balanceinertia``); then every moving body, with what is welded to it, needs mass and inertia of
at least mjMINVAL (1e-15); then ``settotalmass`` (its factor at least mjMINVAL).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import robodesc
from robodesc.core.errors import RobodescError

mujoco = pytest.importorskip("mujoco")

def _model(body: str, compiler: str = "", extra: str = "", asset: str = "") -> str:
    return (
        f"<mujoco><compiler {compiler}/><asset>{asset}</asset><worldbody>"
        f'<body name="b" pos="0 0 1">{body}</body>{extra}</worldbody></mujoco>'
    )


def _moving(body: str, compiler: str = "", extra: str = "") -> str:
    return _model("<joint/>" + body, compiler, extra)


def _boxes(mass: float, size: float = 0.01, gap: float = 0.1, count: int = 2) -> str:
    return "".join(
        f'<geom type="box" size="{size!r} {size!r} {size!r}" mass="{mass!r}" pos="0 0 {z!r}"/>'
        for z in (gap * (i - (count - 1) / 2) for i in range(count))
    )


def _full(values: str, mass: str = "1") -> str:
    return f'<inertial pos="0 0 0" mass="{mass}" fullinertia="{values}"/>'


def _diag(values: str, mass: str = "1") -> str:
    return f'<inertial pos="0 0 0" mass="{mass}" diaginertia="{values}"/>'


def _rotated_full(moments, angle: float) -> str:
    """A fullinertia with these principal moments, turned by `angle` about (1, 2, 3)."""
    axis = np.array([1.0, 2.0, 3.0]) / np.sqrt(14.0)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    r = np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k
    m = r @ np.diag(moments) @ r.T
    return " ".join(repr(float(v)) for v in (m[0, 0], m[1, 1], m[2, 2], m[0, 1], m[0, 2], m[1, 2]))


def _mug_handle(mass: float, radius: float) -> str:
    """A mug: a cylinder and a handle of five capsules along an arc."""
    parts = ['<geom type="cylinder" size=".04 .05" mass=".2"/>']
    for i in range(5):
        a0, a1 = -1.2 + 0.6 * i, -1.2 + 0.6 * (i + 1)
        p0 = (0.04 + 0.03 * np.cos(a0), 0.0, 0.03 * np.sin(a0))
        p1 = (0.04 + 0.03 * np.cos(a1), 0.0, 0.03 * np.sin(a1))
        fromto = " ".join(repr(float(v)) for v in (*p0, *p1))
        parts.append(f'<geom type="capsule" size="{radius!r}" fromto="{fromto}" mass="{mass!r}"/>')
    return "".join(parts)


def _nested(body: str) -> str:
    return (
        '<replicate count="2" offset=".1 0 0"><frame pos="0 .1 0" euler="0 0 30">'
        '<replicate count="3" offset="0 0 .05" euler="0 0 10"><frame quat="0 1 0 0">'
        f'<body name="r"><joint/>{body}</body></frame></replicate></frame></replicate>'
    )


e = float(np.nextafter(1e-14, 1.0))
CASES: dict[str, str] = {
    # tiny but valid geoms
    "gripper pad of two 1e-6 kg boxes": _moving(_boxes(1e-6, size=0.001, gap=0.02)),
    "two 1e-9 kg boxes": _moving(_boxes(1e-9)),
    "two 1e-11 kg boxes (combined moment below 1e-14)": _moving(_boxes(1e-11)),
    "two 1e-11 kg boxes with boundinertia": _moving(_boxes(1e-11), 'boundinertia="5e-15"'),
    "two 1e-11 kg boxes with balanceinertia only": _moving(_boxes(1e-11), 'balanceinertia="true"'),
    "one 1e-11 kg box (below mjMINVAL)": _moving(_boxes(1e-11, count=1)),
    "one 1e-9 kg box": _moving(_boxes(1e-9, count=1)),
    "three boxes of 2e-14 kg": _moving(_boxes(2e-14, size=1.0, gap=1.0, count=3)),
    "geom of 1e-14 kg is left out": _moving(_boxes(1e-14, size=1.0, count=1)),
    "geom just above 1e-14 kg counts": _moving(_boxes(e * 100, size=1.0, count=1)),
    "massless geom beside a massive one": _moving(
        '<geom type="box" size=".1 .1 .1" mass="1e-14" pos="0 0 1"/>'
        '<geom type="box" size=".1 .1 .1" mass="1" pos="0 0 -1"/>'
    ),
    "static body of geoms at 1e-14 kg": _model(_boxes(1e-14, size=1.0)),
    "static body, geom just above 1e-14 kg": _model(f'<geom type="box" size="1 1 1" mass="{e!r}"/>'),
    "density giving 1e-14 kg": _model('<geom type="box" size=".5 .5 .5" density="1e-14"/>'),
    "thin ellipsoid": _moving('<geom type="ellipsoid" size=".05 .05 1e-5"/>'),
    "thin ellipsoids combined": _moving(
        '<geom type="ellipsoid" size=".05 1e-4 1e-4" mass="1e-5" pos="0 0 .01"/>'
        '<geom type="ellipsoid" size="1e-4 .05 1e-4" mass="1e-5" pos="0 0 -.01"/>'
    ),
    "needle ellipsoids end to end": _moving(
        '<geom type="ellipsoid" size="1e-5 1e-5 .05" mass="1e-6" pos="0 0 .05"/>'
        '<geom type="ellipsoid" size="1e-5 1e-5 .05" mass="1e-6" pos="0 0 -.05"/>'
    ),
    "thin cylinders": _moving(
        '<geom type="cylinder" size="1e-4 .05" mass="1e-4" pos="0 0 .05"/>'
        '<geom type="cylinder" size="1e-4 .05" mass="1e-4" pos="0 0 -.05"/>'
    ),
    "thin capsules in line": _moving(
        '<geom type="capsule" size="1e-5 .05" mass="1e-7" pos="0 0 .06"/>'
        '<geom type="capsule" size="1e-5 .05" mass="1e-7" pos="0 0 -.06"/>'
    ),
    "mug with a capsule handle": _moving(_mug_handle(0.01, 0.005)),
    "mug with a light capsule handle": _moving(_mug_handle(1e-6, 0.001)),
    "shell inertia sphere, tiny": _moving('<geom type="sphere" size="1e-3" shellinertia="true" density="1e-3"/>'),
    # fullinertia and its principal moments
    "fullinertia zero": _moving(_full("0 0 0 0 0 0")),
    "fullinertia moments 1e-14": _moving(_full("1e-14 1e-14 1e-14 0 0 0")),
    "fullinertia moment just above 1e-14": _moving(_full(f"{e!r} {e!r} {e!r} 0 0 0")),
    "fullinertia rotated, moments 1e-6": _moving(_full(_rotated_full([1e-6, 1.5e-6, 2e-6], 0.7))),
    "fullinertia with boundinertia, moment -1e-14": _moving(_full("1 1 -1e-14 0 0 0"), 'boundinertia="2"'),
    "fullinertia, off-diagonal at the edge": _moving(_full("1 1 1 1 0 0"), 'boundinertia="2"'),
    "fullinertia on the triangle edge": _moving(_full(_rotated_full([1.0, 1.0, 2.0], 0.0))),
    "fullinertia inside the triangle, rotated": _moving(_full(_rotated_full([1.0, 1.5, 2.4], 0.4))),
    "fullinertia outside the triangle, rotated": _moving(_full(_rotated_full([1.0, 1.0, 2.1], 0.4))),
    "fullinertia outside the triangle, balanced": _moving(
        _full(_rotated_full([1.0, 1.0, 2.1], 0.4)), 'balanceinertia="true"'
    ),
    # diaginertia: never tested for positive eigenvalues, only bounded and balanced
    "diaginertia 1e-15": _moving(_diag("1e-15 1e-15 1e-15")),
    "diaginertia just below mjMINVAL": _moving(_diag("9.99e-16 1e-15 1e-15")),
    "diaginertia mass 1e-15": _moving(_diag("1 1 1", mass="1e-15")),
    "diaginertia mass below mjMINVAL": _moving(_diag("1 1 1", mass="9.9e-16")),
    "diaginertia on the triangle edge": _moving(_diag("1 1 2")),
    "diaginertia just outside the triangle": _moving(_diag("1 1 2.0000000000000004")),
    "diaginertia outside the triangle, small": _moving(_diag("1e-10 1e-10 2.0000000001e-10")),
    "diaginertia negative, static": _model(_diag("-1 1 1")),
    "diaginertia negative, moving": _moving(_diag("-1 1 1")),
    "negative mass, static": _model(_diag("1 1 1", mass="-1")),
    "negative mass outside the triangle": _moving(_diag("1 1 3", mass="-1")),
    # bounds and balance
    "boundinertia fixes the triangle": _moving(_diag(".1 .1 1.5"), 'boundinertia="1"'),
    "balanceinertia": _moving(_diag(".1 .1 1.5"), 'balanceinertia="true"'),
    "bounds then balance": _moving(_diag(".1 .1 3"), 'boundinertia=".5" balanceinertia="true"'),
    "zero moments balanced": _moving(_diag("0 0 1e-3"), 'balanceinertia="true"'),
    "boundmass alone on a massless moving body": _moving("", 'boundmass="1e-3"'),
    "boundmass and boundinertia on a massless moving body": _moving("", 'boundmass="1e-3" boundinertia="1e-6"'),
    "boundinertia on a tiny geom": _moving(_boxes(1e-12, count=1), 'boundinertia="1e-6"'),
    "boundinertia below mjMINVAL": _moving(_full("1e-30 1e-30 1e-30 0 0 0"), 'boundinertia="1e-20"'),
    "negative boundmass": _model(_diag("1 1 1", mass="-.5"), 'boundmass="-1"'),
    # bodies without mass
    "massless static leaf": _model('<body name="leaf"/>'),
    "massless moving leaf": _model('<geom size=".1"/><body name="leaf"><joint/></body>'),
    "massless moving body rescued by a static child": _moving('<body name="c" pos="0 0 .2"><geom size=".1"/></body>'),
    "massless moving body rescued by a static grandchild": _moving(
        '<body name="c"><body name="g"><geom size=".1"/></body></body>'
    ),
    "moving body and static children each lacking an axis": _moving(
        _diag("1 1 0") + f'<body name="c">{_diag("0 1 1")}</body><body name="d">{_diag("1 0 1")}</body>'
    ),
    "massless moving body, massive moving child": _moving('<body name="c"><joint/><geom size=".1"/></body>'),
    "tiny moving body welded to a tiny static child": _moving(
        _boxes(1e-11, count=1) + f'<body name="c" pos="0 0 -.2">{_boxes(1e-11, count=1)}</body>'
    ),
    # settotalmass
    "settotalmass": _moving(
        _diag("1 2 2.5"), 'settotalmass="10"', '<body name="s"><joint/>' + _diag("1e-3 1e-3 1e-3", mass="3") + "</body>"
    ),
    "settotalmass below mjMINVAL": _moving(_diag("1 2 2.5"), 'settotalmass="1e-20"'),
    "settotalmass cannot rescue a light body": _moving(
        _diag("1 1 1", mass="1e-16"), 'settotalmass="1e20"', '<body name="s"><joint/>' + _diag("1 1 1") + "</body>"
    ),
    "settotalmass on massless bodies": _model("", 'settotalmass="2"'),
    # fusestatic
    "fusestatic of tiny geoms": _moving(
        _boxes(1e-11, count=1) + f'<body name="c" pos="0 0 -.2">{_boxes(1e-11, count=1)}</body>', 'fusestatic="true"'
    ),
    "fusestatic of tiny geoms, boundinertia": _moving(
        _boxes(1e-11, count=1) + f'<body name="c" pos="0 0 -.2">{_boxes(1e-11, count=1)}</body>',
        'fusestatic="true" boundinertia="1e-20"',
    ),
    "fusestatic of small geoms": _moving(
        _boxes(1e-6, count=1) + f'<body name="c" pos="0 0 -.2">{_boxes(1e-6, count=1)}</body>', 'fusestatic="true"'
    ),
    # nested replicate and frame
    "bodies in nested replicate/frame": _model("", extra=_nested(_boxes(1e-6, size=0.001, gap=0.02))),
    "tiny bodies in nested replicate/frame": _model("", extra=_nested(_boxes(1e-11))),
    "thin capsules in nested replicate/frame": _model(
        "",
        extra=_nested(
            '<geom type="capsule" size="1e-4" fromto="0 0 0 .1 0 0" mass="1e-5"/>'
            '<geom type="capsule" size="1e-4" fromto="0 0 0 0 .1 0" mass="1e-5"/>'
        ),
    ),
}
FULL_REFUSALS = {
    "fullinertia moment below 1e-14": _moving(_full("9.99999e-15 9.99999e-15 9.99999e-15 0 0 0")),
    "fullinertia with boundinertia, moment -1e-13": _moving(_full("1 1 -1e-13 0 0 0"), 'boundinertia="2"'),
    "fullinertia, off-diagonal past the edge": _moving(_full("1 1 1 1.0000000001 0 0"), 'boundinertia="2"'),
    "fullinertia too small, balanceinertia": _moving(_full("1e-15 1e-15 1e-15 0 0 0"), 'balanceinertia="true"'),
    "fullinertia too small, static": _model(_full("1e-15 1e-15 1e-15 0 0 0", mass="0")),
    "fullinertia too small, inertia from geoms": _moving(
        _full("1e-15 1e-15 1e-15 0 0 0") + '<geom size=".1"/>', 'inertiafromgeom="true"'
    ),
}


def _mujoco(xml: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return mujoco.MjModel.from_xml_string(xml)
        except ValueError as exc:
            return str(exc)


def _robodesc(xml: str):
    try:
        return robodesc.loads(xml, format="mjcf")
    except RobodescError as exc:
        return exc


def _agree(xml: str) -> None:
    reference, ours = _mujoco(xml), _robodesc(xml)
    if isinstance(reference, str) or isinstance(ours, Exception):
        assert isinstance(reference, str), f"robodesc refuses what MuJoCo accepts: {ours}"
        assert isinstance(ours, Exception), f"robodesc accepts what MuJoCo refuses: {reference}"
        return
    assert reference.nbody == len(ours.bodies)
    for i in range(1, reference.nbody):
        name = mujoco.mj_id2name(reference, mujoco.mjtObj.mjOBJ_BODY, i)
        body = ours.bodies[name] if name else list(ours.bodies.values())[i]
        mass = body.inertial.mass if body.inertial is not None else 0.0
        assert mass == pytest.approx(reference.body_mass[i], rel=1e-12, abs=0.0), name
        if body.inertial is None:
            assert np.all(reference.body_inertia[i] == 0), name
            continue
        moments = np.sort(np.linalg.eigvalsh(body.inertial.inertia))
        expected = np.sort(reference.body_inertia[i])
        scale = max(float(expected.max()), 1e-300)
        assert np.max(np.abs(moments - expected)) <= 1e-12 * scale, (name, moments, expected)


@pytest.mark.parametrize("xml", list(CASES.values()), ids=list(CASES))
def test_inertia_accepted_or_refused_as_mujoco_does(xml: str) -> None:
    _agree(xml)


@pytest.mark.parametrize("xml", list(FULL_REFUSALS.values()), ids=list(FULL_REFUSALS))
def test_fullinertia_moments_refused_as_mujoco_refuses_them(xml: str) -> None:
    assert isinstance(_mujoco(xml), str)
    _agree(xml)


def test_the_battery_covers_both_outcomes() -> None:
    """The battery is worth something only if MuJoCo accepts some and refuses others."""
    outcomes = [isinstance(_mujoco(xml), str) for xml in CASES.values()]
    assert 15 <= sum(outcomes) <= len(outcomes) - 30
