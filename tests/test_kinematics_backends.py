"""The two evaluators of forward kinematics: numpy, always there, and the numba kernel of the
`robodesc[fast]` extra. Both give the same poses, and both give MuJoCo's."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from test_kinematics_subsets import MJCF, SUBSETS, configurations, load_models

import robodesc
from robodesc import ConfigurationError, MissingDependency
from robodesc.core import kinematics


@pytest.fixture(scope="module")
def models() -> dict[str, robodesc.Model]:
    return load_models()


@pytest.fixture
def without_numba(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if numba were not installed: the kernel module cannot be had."""
    monkeypatch.setattr(kinematics, "_KERNEL", [None])


# -- numba and numpy agree ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["urdf", "mjcf", "hand", "random"])
def test_numba_and_numpy_give_the_same_poses(models, name):
    pytest.importorskip("numba")
    model = models[name]
    q = configurations(model, 200, seed=5)
    numpy_batch = model.forward_kinematics_batch(q, backend="numpy")
    numba_batch = model.forward_kinematics_batch(q, backend="numba")
    assert numba_batch.names == numpy_batch.names
    np.testing.assert_allclose(numba_batch.array, numpy_batch.array, rtol=0, atol=1e-12)
    for row in range(0, len(q), 40):
        single = model.forward_kinematics(q[row], backend="numba").array
        np.testing.assert_allclose(single, numpy_batch.array[row], rtol=0, atol=1e-12)
    for wanted in SUBSETS[name]:
        some = model.forward_kinematics_batch(q, bodies=wanted, backend="numba")
        np.testing.assert_allclose(some.array, np.stack([numpy_batch[w] for w in wanted], axis=1), rtol=0, atol=1e-12)


def test_numba_fills_out_and_reports_bad_values_as_numpy_does(models):
    pytest.importorskip("numba")
    model = models["mjcf"]
    q = configurations(model, 3)
    out = np.full((3, len(model.kinematics.names), 4, 4), np.nan)
    assert model.forward_kinematics_batch(q, out=out, backend="numba").array is out
    np.testing.assert_allclose(out, model.forward_kinematics_batch(q, backend="numpy").array, rtol=0, atol=1e-12)
    for backend in ("numpy", "numba"):
        bad = q.copy()
        bad[2, 1] = np.inf
        with pytest.raises(ConfigurationError, match="joint values must be finite numbers"):
            model.forward_kinematics_batch(bad, backend=backend)
        ball = model.kinematics.layout["ball"]
        bad = q.copy()
        bad[1, ball] = 0.0
        with pytest.raises(ConfigurationError, match="zero quaternion"):
            model.forward_kinematics_batch(bad, bodies=["tip"], backend=backend)
        free = model.kinematics.layout["free"]
        slide = model.kinematics.layout["slide"].start
        bad = q.copy()
        moved = bad[2].copy()
        moved[slide] += 1.0
        along = model.forward_kinematics(moved)["multi"][:3, 3] - model.forward_kinematics(bad[2])["multi"][:3, 3]
        # the floater 1.7e308 out along the slide, the slide as far again: a pose past the largest float
        bad[2, free.start : free.start + 3] = 1.7e308 * along
        bad[2, slide] = 1.7e308
        with pytest.raises(ConfigurationError, match="configuration 2: the pose of '.*' is not finite"):
            model.forward_kinematics_batch(bad, backend=backend)


@pytest.mark.parametrize("name", ["urdf", "mjcf", "hand", "random"])
def test_a_value_that_is_not_finite_in_any_joint_is_refused_by_name(models, name):
    """Whichever joint gets it, and whatever else the configuration holds (a zero quaternion), one
    configuration and a batch refuse a value that is not finite with the same message."""
    model = models[name]
    backends = ["numpy", "numba"] if kinematics._kernel_module() is not None else ["numpy"]
    q = configurations(model, 1)[0]
    balls = [sl for joint, sl in model.kinematics.layout.items() if model.joints[joint].type is robodesc.JointType.BALL]
    for column in range(model.kinematics.nq):
        for bad in (np.nan, np.inf, -np.inf):
            values = q.copy()
            for sl in balls:  # a zero quaternion is refused too, but after the values
                if not sl.start <= column < sl.stop:
                    values[sl] = 0.0
            values[column] = bad
            for backend in backends:
                with pytest.raises(ConfigurationError, match="joint values must be finite numbers"):
                    model.forward_kinematics(values, backend=backend)
                with pytest.raises(ConfigurationError, match="joint values must be finite numbers"):
                    model.forward_kinematics_batch(values[None], backend=backend)


def test_numba_works_on_configurations_that_are_not_contiguous(models):
    pytest.importorskip("numba")
    model = models["urdf"]
    wide = np.asfortranarray(configurations(model, 6))[::2]
    np.testing.assert_allclose(
        model.forward_kinematics_batch(wide, backend="numba").array,
        model.forward_kinematics_batch(np.ascontiguousarray(wide), backend="numpy").array,
        rtol=0,
        atol=1e-12,
    )


def test_auto_uses_numba_when_it_is_installed(models):
    pytest.importorskip("numba")
    assert models["urdf"].kinematics.backend == "numba"


# -- without numba ------------------------------------------------------------------------------------


def test_without_numba_auto_is_numpy_and_numba_is_a_missing_dependency(models, without_numba):
    model = models["urdf"]
    assert model.kinematics.backend == "numpy"
    q = configurations(model, 2)
    np.testing.assert_array_equal(
        model.forward_kinematics_batch(q).array, model.forward_kinematics_batch(q, backend="numpy").array
    )
    with pytest.raises(MissingDependency, match="numba") as caught:
        model.forward_kinematics(q[0], backend="numba")
    assert 'pip install "robodesc[fast]"' in str(caught.value)
    with pytest.raises(MissingDependency, match="numba"):
        model.forward_kinematics_batch(q, bodies=["foot"], backend="numba")


def test_importing_robodesc_does_not_import_numba():
    code = (
        "import sys, robodesc\n"
        "m = robodesc.loads('<robot name=\"r\"><link name=\"a\"/></robot>', format='urdf')\n"
        "m.forward_kinematics(backend='numpy')\n"
        "print('numba' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


# -- against MuJoCo -----------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_poses_are_mujocos(models, backend):
    """xpos/xmat and site_xpos/site_xmat from mj_kinematics, at random configurations, for a model with a
    free joint, a ball joint, a body moved by a hinge and a slide, joint references and sites."""
    if backend == "numba":
        pytest.importorskip("numba")
    mujoco = pytest.importorskip("mujoco")
    model = models["mjcf"]
    kin = model.kinematics
    reference = mujoco.MjModel.from_xml_string(MJCF)
    data = mujoco.MjData(reference)
    q = configurations(model, 20, seed=9)
    for name, sl in kin.layout.items():  # unit quaternions: MuJoCo does not normalise in mj_kinematics
        if model.joints[name].type is robodesc.JointType.BALL:
            q[:, sl] /= np.linalg.norm(q[:, sl], axis=1, keepdims=True)
        elif model.joints[name].type is robodesc.JointType.FLOATING:
            q[:, sl.start + 3 : sl.stop] /= np.linalg.norm(q[:, sl.start + 3 : sl.stop], axis=1, keepdims=True)
    batch = model.forward_kinematics_batch(q, backend=backend)
    ee = model.forward_kinematics_batch(q, bodies=["tip", "tipsite"], backend=backend)
    for row in range(len(q)):
        for name, sl in kin.layout.items():
            address = reference.jnt_qposadr[mujoco.mj_name2id(reference, mujoco.mjtObj.mjOBJ_JOINT, name)]
            data.qpos[address : address + sl.stop - sl.start] = q[row, sl]
        mujoco.mj_kinematics(reference, data)
        for body in range(reference.nbody):
            name = mujoco.mj_id2name(reference, mujoco.mjtObj.mjOBJ_BODY, body)
            np.testing.assert_allclose(batch[name][row][:3, 3], data.xpos[body], rtol=0, atol=1e-9, err_msg=name)
            np.testing.assert_allclose(batch[name][row][:3, :3].ravel(), data.xmat[body], rtol=0, atol=1e-9)
        for site in range(reference.nsite):
            name = mujoco.mj_id2name(reference, mujoco.mjtObj.mjOBJ_SITE, site)
            np.testing.assert_allclose(batch.frame(name)[row][:3, 3], data.site_xpos[site], rtol=0, atol=1e-9)
            np.testing.assert_allclose(batch.frame(name)[row][:3, :3].ravel(), data.site_xmat[site], rtol=0, atol=1e-9)
        tip = mujoco.mj_name2id(reference, mujoco.mjtObj.mjOBJ_BODY, "tip")
        np.testing.assert_allclose(ee["tip"][row][:3, 3], data.xpos[tip], rtol=0, atol=1e-9)


def test_a_pose_that_is_not_rigid_is_multiplied_out_in_full_by_both_backends(models):
    """The kernel skips the last row of rigid poses; a hand-built frame whose last row is not
    (0, 0, 0, 1) makes it multiply everything, and it still agrees with numpy."""
    pytest.importorskip("numba")
    model = load_models()["hand"]
    odd = np.eye(4)
    odd[3] = (0.1, 0.0, 0.2, 1.0)
    odd[:3, 3] = (0.3, 0.0, 0.0)
    model.frames["odd"] = robodesc.Frame("odd", body="triple", pose=odd)
    model.rebuild_kinematics()
    assert model.kinematics._plan.kernel_arrays()[0][4] == 0  # not rigid: the kernel's full products
    q = configurations(model, 50, seed=4)
    numba_poses = model.forward_kinematics_batch(q, backend="numba")
    numpy_poses = model.forward_kinematics_batch(q, backend="numpy")
    np.testing.assert_allclose(numba_poses.array, numpy_poses.array, rtol=0, atol=1e-12)
    assert not np.allclose(numpy_poses.frame("odd")[:, 3], [0, 0, 0, 1])  # the odd row came through


def test_a_process_where_numba_cannot_be_imported_uses_numpy():
    """numba made unimportable in a fresh process (as if not installed): auto is numpy, poses come,
    and asking for numba says how to install it."""
    robot = (
        '<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="continuous"><parent link="a"/>'
        '<child link="b"/><origin xyz="1 0 0"/><axis xyz="0 0 1"/></joint></robot>'
    )
    code = (
        "import sys\n"
        "sys.modules['numba'] = None  # import numba now raises ImportError\n"
        "import robodesc\n"
        f"m = robodesc.loads({robot!r}, format='urdf')\n"
        "print(m.kinematics.backend)\n"
        "print(m.forward_kinematics({'j': 0.5}, ['b'])['b'][0, 3])\n"
        "try:\n"
        "    m.forward_kinematics(backend='numba')\n"
        "except robodesc.MissingDependency as error:\n"
        "    print(str(error))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    backend, x, message = result.stdout.strip().splitlines()
    assert backend == "numpy" and float(x) == 1.0
    assert "numba" in message and 'pip install "robodesc[fast]"' in message


def test_numba_fills_an_out_that_is_a_view_and_reads_read_only_values(models):
    pytest.importorskip("numba")
    model = models["urdf"]
    q = configurations(model, 4)
    q.flags.writeable = False
    rows = len(model.kinematics.names)
    storage = np.zeros((8, rows, 4, 4))
    view = storage[::2]  # every other configuration's slot: not contiguous
    assert model.forward_kinematics_batch(q, out=view, backend="numba").array is view
    expected = model.forward_kinematics_batch(q, backend="numpy").array
    np.testing.assert_allclose(storage[::2], expected, rtol=0, atol=1e-12)
    assert not storage[1::2].any()  # nothing written between
