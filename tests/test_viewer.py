"""The browser viewer (robodesc.viewer, docs/viewer.md).

Two halves:

* without a browser: slider ranges for every joint type, joint value <-> slider coordinates,
  re-posing (transforms only), keyframes, the visual/collision swap, unreadable meshes, `run`;
* in a real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright, no download):
  the page loads from the viewer alone (nothing fetched elsewhere), the meshes arrive and are
  drawn, a slider moved in the page moves the link on the server and on screen, the keyframe
  picker sets the sliders, the collision toggle swaps the shapes.

The browser tests skip when Chromium or Playwright is missing, except under CI (the `CI`
environment variable set), where they fail: .ci/run installs Chromium.
"""

from __future__ import annotations

import _thread
import io
import math
import os
import sys
import threading
import time
import urllib.request
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import robodesc
from robodesc import ConfigurationError, InvalidArgument, JointType, MissingDependency
from robodesc.core.transforms import matrix_to_quat, quat_to_matrix

CHROMIUM = Path(os.environ.get("ROBODESC_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--use-angle=swiftshader",  # WebGL in software: no GPU on a CI machine
    "--enable-unsafe-swiftshader",
]

# A blue base, a red arm turning about z at the base's top, a green tip on a continuous joint; the
# collision shapes are uncoloured (grey) and of other kinds, so the swap shows on screen.
URDF = """<robot name="arm">
  <material name="blue"><color rgba="0 0 1 1"/></material>
  <material name="red"><color rgba="1 0 0 1"/></material>
  <material name="green"><color rgba="0 1 0 1"/></material>
  <link name="base">
    <visual><geometry><box size="0.3 0.3 0.1"/></geometry><material name="blue"/></visual>
    <collision><geometry><cylinder radius="0.17" length="0.1"/></geometry></collision>
  </link>
  <link name="upper">
    <visual name="beam"><origin xyz="0.25 0 0"/><geometry><box size="0.5 0.08 0.08"/></geometry>
      <material name="red"/></visual>
    <collision><origin xyz="0.25 0 0"/><geometry><box size="0.5 0.1 0.1"/></geometry></collision>
  </link>
  <link name="tip">
    <visual><geometry><sphere radius="0.06"/></geometry><material name="green"/></visual>
  </link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/><limit lower="-1.5" upper="1.5" effort="1" velocity="1"/></joint>
  <joint name="wrist" type="continuous"><parent link="upper"/><child link="tip"/>
    <origin xyz="0.5 0 0"/><axis xyz="1 0 0"/></joint>
</robot>"""

MJCF = """<mujoco model="multi">
  <worldbody>
    <body name="floater" pos="0 0 1">
      <freejoint name="free"/>
      <geom type="box" size="0.1 0.1 0.1" rgba="1 0 0 1"/>
      <body name="ball_body" pos="0.3 0 0">
        <joint name="ball" type="ball"/>
        <geom type="sphere" size="0.05"/>
        <body name="slider" pos="0 0 0.2">
          <joint name="slide" type="slide" axis="0 0 1"/>
          <geom type="capsule" size="0.02 0.1"/>
          <body name="hinged">
            <joint name="hinge" axis="0 1 0" range="-30 60" ref="10"/>
            <geom type="box" size="0.02 0.02 0.02"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <keyframe><key name="lifted" qpos="0 0 2 1 0 0 0  1 0 0 0  0.1  0.5"/></keyframe>
</mujoco>"""


def _model() -> robodesc.Model:
    model = robodesc.loads(URDF, format="urdf")
    model.configurations["home"] = {"shoulder": 1.0, "wrist": 0.5}
    return model


def _require(*, browser: bool) -> None:
    """Skip (or, under CI, fail) when what the tests need is not installed."""
    missing = []
    try:
        import viser  # noqa: F401
    except ImportError:
        missing.append("viser (pip install 'robodesc[viewer]')")
    if browser:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            missing.append("playwright (pip install playwright; its own browsers are not needed)")
        if not CHROMIUM.exists():
            missing.append(f"Chromium at {CHROMIUM} (apt-get install chromium)")
    if missing:
        reason = "the viewer tests need " + " and ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(reason + "; under CI they must run (.ci/run installs Chromium)", pytrace=False)
        pytest.skip(reason)


def _until(check: Callable[[], bool], timeout: float = 10.0, what: str = "condition") -> None:
    """Poll `check` until it holds, or fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        if check():
            return
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what}", pytrace=False)
        time.sleep(0.05)


def _quat_close(a: Any, b: Any, atol: float = 1e-6) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return bool(np.allclose(a, b, atol=atol) or np.allclose(a, -b, atol=atol))


def _frame_matches(viewer: Any, body: str) -> bool:
    """The body's viser frame sits at the body's world pose at the viewer's joint values."""
    pose = viewer.model.forward_kinematics(viewer.positions)[body]
    handle = viewer.body_frames[body]
    return bool(np.allclose(handle.position, pose[:3, 3], atol=1e-9)) and _quat_close(
        handle.wxyz, matrix_to_quat(pose[:3, :3])
    )


@pytest.fixture
def viewer() -> Iterator[Any]:
    _require(browser=False)
    from robodesc.viewer import serve

    with serve(_model(), port=0) as running:
        yield running


# -- without a browser ----------------------------------------------------------------------------
def test_missing_viser_names_the_extra(monkeypatch):
    from robodesc.viewer import serve

    monkeypatch.setitem(sys.modules, "viser", None)  # import viser -> ImportError
    with pytest.raises(MissingDependency) as caught:
        serve(_model(), port=0)
    assert caught.value.package == "viser" and caught.value.extra == "viewer"
    assert "pip install 'robodesc[viewer]'" in str(caught.value)


def test_slider_ranges_for_every_joint_type():
    from robodesc.viewer import ANGLE_SPAN, LENGTH_SPAN, joint_sliders

    urdf = {s.label: s for s in joint_sliders(_model())}
    assert list(urdf) == ["shoulder", "wrist"]
    shoulder, wrist = urdf["shoulder"], urdf["wrist"]
    assert (shoulder.lower, shoulder.upper, shoulder.limited, shoulder.unit) == (-1.5, 1.5, True, "rad")
    assert (wrist.lower, wrist.upper, wrist.limited) == (-ANGLE_SPAN, ANGLE_SPAN, False)  # continuous: no limits
    assert shoulder.step == 0.01 and shoulder.initial == 0.0

    mjcf = {s.label: s for s in joint_sliders(robodesc.loads(MJCF, format="mjcf"))}
    assert list(mjcf) == [
        "free x", "free y", "free z", "free roll", "free pitch", "free yaw",
        "ball roll", "ball pitch", "ball yaw", "slide", "hinge",
    ]  # fmt: skip
    # translations of a free joint: ±1 m around the reference (the body stands at z = 1)
    assert (mjcf["free z"].lower, mjcf["free z"].upper, mjcf["free z"].initial) == (0.0, 2.0, 1.0)
    assert (mjcf["free x"].lower, mjcf["free x"].upper, mjcf["free x"].unit) == (-LENGTH_SPAN, LENGTH_SPAN, "m")
    for label in ("free roll", "ball yaw"):
        assert (mjcf[label].lower, mjcf[label].upper, mjcf[label].limited) == (-ANGLE_SPAN, ANGLE_SPAN, False)
    assert (mjcf["slide"].lower, mjcf["slide"].upper, mjcf["slide"].unit) == (-1.0, 1.0, "m")
    hinge = mjcf["hinge"]  # range in degrees in the file, radians in the model; ref=10 degrees
    assert (
        hinge.limited and math.isclose(hinge.lower, math.radians(-30)) and math.isclose(hinge.upper, math.radians(60))
    )
    assert math.isclose(hinge.initial, math.radians(10))


def test_slider_range_rules():
    from robodesc import Limits
    from robodesc.viewer import _slider_range

    assert _slider_range(None, "m", 0.2) == (0.2 - 1.0, 0.2 + 1.0, False)
    assert _slider_range(Limits(lower=-1e16, upper=1e16), "rad", 0.0) == (-math.pi, math.pi, False)  # SDF's "none"
    assert _slider_range(Limits(lower=0.5), "rad", 0.0) == (0.0, 0.5 + math.pi, False)  # one-sided
    assert _slider_range(Limits(upper=0.5), "m", 0.0) == (-1.0, 0.5, False)
    assert _slider_range(Limits(lower=1.0, upper=-1.0), "m", 0.0) == (-1.0, 1.0, False)  # contradictory: none
    assert _slider_range(Limits(lower=0.0, upper=0.0), "rad", 0.0) == (0.0, 0.0, True)  # a locked joint


def test_universal_and_planar_joints_get_a_slider_per_coordinate():
    from robodesc import Limits
    from robodesc.viewer import joint_sliders

    model = _model()
    model.joints["shoulder"].type = JointType.UNIVERSAL
    model.joints["shoulder"].axis2 = np.array([0.0, 1.0, 0.0])
    model.joints["shoulder"].limits2 = Limits(lower=-0.2, upper=0.3)
    model.joints["wrist"].type = JointType.PLANAR
    model.rebuild_kinematics()
    specs = {s.label: (s.lower, s.upper, s.unit) for s in joint_sliders(model)}
    assert specs == {
        "shoulder 1": (-1.5, 1.5, "rad"),
        "shoulder 2": (-0.2, 0.3, "rad"),
        "wrist x": (-1.0, 1.0, "m"),
        "wrist y": (-1.0, 1.0, "m"),
        "wrist angle": (-math.pi, math.pi, "rad"),
    }


def test_quaternion_joints_round_trip_through_roll_pitch_yaw():
    from robodesc.viewer import joint_value, slider_coordinates

    model = robodesc.loads(MJCF, format="mjcf")
    rng = np.random.default_rng(3)
    for _ in range(20):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        coords = slider_coordinates(model.joints["ball"], q)
        assert coords.shape == (3,)
        np.testing.assert_allclose(
            quat_to_matrix(joint_value(model.joints["ball"], coords)), quat_to_matrix(q), atol=1e-9
        )
        free = np.concatenate([rng.normal(size=3), q])
        back = np.asarray(joint_value(model.joints["free"], slider_coordinates(model.joints["free"], free)))
        np.testing.assert_allclose(back[:3], free[:3], atol=1e-12)
        np.testing.assert_allclose(quat_to_matrix(back[3:]), quat_to_matrix(q), atol=1e-9)
    with pytest.raises(ConfigurationError):
        slider_coordinates(model.joints["ball"], [0, 0, 0, 0])


def test_serve_checks_its_arguments():
    _require(browser=False)
    from robodesc.viewer import serve

    with pytest.raises(InvalidArgument):
        serve(_model(), port=0, kind="inertial")
    with pytest.raises(InvalidArgument):
        serve(_model(), port=70000)
    with pytest.raises(ConfigurationError, match="no keyframe 'hom'") as caught:
        serve(_model(), port=0, keyframe="hom")
    assert "did you mean 'home'" in str(caught.value)
    with pytest.raises(ConfigurationError):
        serve(_model(), port=0, positions={"elbow": 1.0})


def test_set_positions_moves_body_frames_only(viewer):
    assert viewer.port > 0 and viewer.url == f"http://127.0.0.1:{viewer.port}"
    assert set(viewer.shape_nodes()) == {"base/visual/0", "upper/beam", "tip/visual/0"}
    meshes = viewer.shape_nodes()
    uploads: list[str] = []
    original = viewer.server.scene.add_glb
    viewer.server.scene.add_glb = lambda name, *a, **k: uploads.append(name) or original(name, *a, **k)
    base_sent = viewer._sent["base"].copy()

    viewer.set_positions({"shoulder": 0.7})
    assert viewer.slider("shoulder").value == pytest.approx(0.7)
    assert viewer.positions == {"shoulder": pytest.approx(0.7), "wrist": 0.0}
    for body in viewer.model.bodies:
        assert _frame_matches(viewer, body)
    expected = viewer.model.forward_kinematics({"shoulder": 0.7})["upper"]
    assert _quat_close(viewer.body_frames["upper"].wxyz, [math.cos(0.35), 0, 0, math.sin(0.35)])
    np.testing.assert_allclose(viewer.body_frames["tip"].position, expected[:3, :3] @ [0.5, 0, 0] + [0, 0, 0.1])
    assert uploads == [] and viewer.shape_nodes() == meshes  # no mesh sent again, no node added
    np.testing.assert_array_equal(viewer._sent["base"], base_sent)  # the base did not move: nothing sent

    viewer.set_positions({"wrist": 0.2})  # other joints keep their value...
    assert viewer.positions["shoulder"] == pytest.approx(0.7)
    viewer.set_positions({"wrist": 0.2}, reset=True)  # ...unless reset
    assert viewer.positions["shoulder"] == 0.0
    viewer.set_positions([0.1, 0.2])  # a configuration vector
    assert viewer.positions == {"shoulder": pytest.approx(0.1), "wrist": pytest.approx(0.2)}
    with pytest.raises(ConfigurationError):
        viewer.set_positions({"elbow": 1.0})


def test_a_slider_moved_by_its_handle_reposes(viewer):
    # What a browser does: the slider's value changes and its callback runs.
    viewer.slider("shoulder").value = -1.2
    assert viewer.positions["shoulder"] == pytest.approx(-1.2)
    assert _frame_matches(viewer, "upper") and _frame_matches(viewer, "tip")


def test_values_outside_the_range_widen_the_slider(viewer):
    viewer.set_positions({"wrist": 5.0})
    handle = viewer.slider("wrist")
    assert handle.max == 5.0 and handle.value == 5.0
    assert viewer.positions["wrist"] == 5.0


def test_keyframes_set_the_sliders(viewer):
    from robodesc.viewer import REFERENCE

    assert viewer.gui_keyframe.options == (REFERENCE, "home")
    viewer.apply_keyframe("home")
    assert viewer.positions == {"shoulder": pytest.approx(1.0), "wrist": pytest.approx(0.5)}
    assert viewer.slider("shoulder").value == pytest.approx(1.0) and viewer.gui_keyframe.value == "home"
    assert _frame_matches(viewer, "tip")
    viewer.gui_keyframe.value = REFERENCE  # picking in the panel
    assert viewer.positions == {"shoulder": 0.0, "wrist": 0.0}
    with pytest.raises(ConfigurationError):
        viewer.apply_keyframe("nope")


def test_start_at_a_keyframe_with_positions_on_top():
    _require(browser=False)
    from robodesc.viewer import serve

    with serve(_model(), port=0, keyframe="home", positions={"wrist": -0.3}) as running:
        assert running.positions == {"shoulder": pytest.approx(1.0), "wrist": pytest.approx(-0.3)}
        assert running.gui_keyframe.value == "home" and _frame_matches(running, "tip")


def test_collision_toggle_swaps_shapes(viewer):
    assert viewer.kind == "visual" and viewer.shape_nodes("collision") == {}  # sent on first use
    viewer.gui_collision.value = True  # ticking the box in the panel
    assert viewer.kind == "collision"
    assert set(viewer.shape_nodes("collision")) == {"base/collision/0", "upper/collision/0"}
    assert viewer.shape_visible("collision") and not viewer.shape_visible("visual")
    viewer.set_kind("visual")
    assert viewer.gui_collision.value is False
    assert viewer.shape_visible("visual") and not viewer.shape_visible("collision")
    with pytest.raises(InvalidArgument):
        viewer.set_kind("inertial")


def test_frame_axes_toggle(viewer):
    assert not any(frame.show_axes for frame in viewer.body_frames.values())
    viewer.gui_axes.value = True
    assert viewer.axes_shown and all(frame.show_axes for frame in viewer.body_frames.values())
    assert set(viewer.body_frames) == set(viewer.model.bodies)
    viewer.show_axes(False)
    assert viewer.gui_axes.value is False and not any(frame.show_axes for frame in viewer.body_frames.values())


def test_unreadable_meshes_are_left_out_and_listed(tmp_path):
    _require(browser=False)
    from robodesc.viewer import ViewerWarning, serve

    (tmp_path / "broken.stl").write_text("this is not a mesh")
    text = URDF.replace(
        '<link name="tip">',
        '<link name="tip"><visual><geometry><mesh filename="gone.stl"/></geometry></visual>'
        '<visual><geometry><mesh filename="broken.stl"/></geometry></visual>',
    )
    model = robodesc.loads(text, format="urdf", base_dir=tmp_path)
    with pytest.warns(ViewerWarning) as caught, serve(model, port=0) as running:
        assert {r["node"] for r in running.skipped} == {"tip/visual/0", "tip/visual/1"}
        assert set(running.shape_nodes()) == {"base/visual/0", "upper/beam", "tip/visual/2"}
        assert running.gui_skipped.visible
        assert "tip/visual/0" in running.gui_skipped.content and "gone.stl" in running.gui_skipped.content
    messages = [str(w.message) for w in caught]
    assert any("tip/visual/0" in m and "gone.stl" in m for m in messages)
    assert any("tip/visual/1" in m for m in messages)
    with pytest.raises(robodesc.ResourceNotFound):
        serve(model, port=0, skip_missing=False)


def test_the_models_meshes_are_not_changed(tmp_path):
    _require(browser=False)
    import trimesh

    from robodesc.viewer import serve

    trimesh.creation.box(extents=[0.1, 0.2, 0.3]).export(tmp_path / "part.stl")
    text = URDF.replace('<link name="tip">', '<link name="tip"><visual><geometry><mesh filename="part.stl"/></geometry>'
                        '<material name="red"/></visual>')  # fmt: skip
    model = robodesc.loads(text, format="urdf", base_dir=tmp_path)
    model.scene(kind="visual")
    model.scene(kind="collision")

    def state() -> list[tuple[Any, ...]]:
        meshes = [m for m in model._meshes.values() if isinstance(m, trimesh.Trimesh)]
        assert len(meshes) >= 5
        return [
            (
                id(m),
                m.vertices.tobytes(),
                m.faces.tobytes(),
                m.visual.kind,
                m.visual.face_colors.tobytes() if m.visual.kind == "face" else None,
            )
            for m in meshes
        ]

    before = state()
    with serve(model, port=0) as running:
        running.set_kind("collision")
        running.set_positions({"shoulder": 0.3})
    assert state() == before


def test_each_part_of_a_mesh_file_sits_where_the_scene_puts_it(tmp_path):
    _require(browser=False)
    import trimesh

    from robodesc.viewer import serve

    parts_file = trimesh.Scene()  # a GLB of two nodes, the second moved and turned within the file
    parts_file.add_geometry(trimesh.creation.box(extents=[0.1, 0.1, 0.1]), node_name="left", geom_name="left")
    turned = trimesh.transformations.rotation_matrix(0.5, [0, 0, 1]) @ trimesh.transformations.translation_matrix(
        [0.3, 0, 0.1]
    )
    parts_file.add_geometry(
        trimesh.creation.icosphere(radius=0.05), node_name="right", geom_name="right", transform=turned
    )
    parts_file.export(tmp_path / "parts.glb")
    text = URDF.replace(
        '<link name="tip">',
        '<link name="tip"><visual><origin xyz="0 0 0.2" rpy="0 0 0.5"/>'
        '<geometry><mesh filename="parts.glb"/></geometry>'
        "</visual>",
    )
    model = robodesc.loads(text, format="urdf", base_dir=tmp_path)
    scene = model.scene({"shoulder": 0.4})
    parts = [n for n in scene.metadata["robodesc"]["nodes"] if n.startswith("tip/visual/0/")]
    assert len(parts) == 2
    with serve(model, port=0, positions={"shoulder": 0.4}) as running:
        nodes = running.shape_nodes()
        tip = model.forward_kinematics({"shoulder": 0.4})["tip"]
        for part in parts:
            local = np.linalg.inv(tip) @ scene.graph[part][0]  # the part's pose in the tip's frame
            np.testing.assert_allclose(nodes[part].position, local[:3, 3], atol=1e-9)
            assert _quat_close(nodes[part].wxyz, matrix_to_quat(local[:3, :3]))
        assert _frame_matches(running, "tip")


def test_a_floor_plane_neither_shrinks_the_robot_nor_meets_the_grid():
    _require(browser=False)
    from robodesc.viewer import serve

    text = MJCF.replace("<worldbody>", '<worldbody><geom name="floor" type="plane" size="0 0 1"/>')
    with serve(robodesc.loads(text, format="mjcf"), port=0) as running:
        assert "world/floor" in running.shape_nodes()
        camera = running.server.initial_camera
        assert np.linalg.norm(camera.position - camera.look_at) < 2.0  # framed on the robot, not the 10 m floor
        assert running.gui_grid.value is False


def test_mjcf_multi_dof_sliders_repose():
    _require(browser=False)
    from robodesc.viewer import serve

    with serve(robodesc.loads(MJCF, format="mjcf"), port=0, keyframe="lifted") as running:
        assert running.slider("free", 2).value == pytest.approx(2.0)
        assert _frame_matches(running, "floater")
        running.slider("free", 5).value = 0.5  # yaw of the free body
        running.slider("ball", 0).value = -0.4  # roll of the ball joint
        free = np.asarray(running.positions["free"])
        np.testing.assert_allclose(free[:3], [0, 0, 2], atol=1e-12)
        assert _quat_close(free[3:], [math.cos(0.25), 0, 0, math.sin(0.25)])
        assert _quat_close(running.positions["ball"], [math.cos(-0.2), math.sin(-0.2), 0, 0])
        for body in running.model.bodies:
            assert _frame_matches(running, body)


def test_run_prints_the_address_and_stops_on_ctrl_c(monkeypatch, capsys):
    _require(browser=False)
    import robodesc.viewer as viewer_module

    served: dict[str, Any] = {}

    def interrupted() -> None:  # instead of waiting for Ctrl-C: check the page is served, then "press" it
        url = capsys.readouterr().out.split(" at ")[1].split()[0]
        with urllib.request.urlopen(url, timeout=5) as response:
            served["status"], served["url"] = response.status, url
        raise KeyboardInterrupt

    monkeypatch.setattr(viewer_module, "_wait_for_interrupt", interrupted)
    viewer_module.run(_model(), port=0)
    assert served["status"] == 200
    assert capsys.readouterr().out.strip() == "stopped"
    with pytest.raises(OSError):
        urllib.request.urlopen(served["url"], timeout=2)


def test_run_returns_on_a_real_interrupt(monkeypatch, capsys):
    _require(browser=False)
    import robodesc.viewer as viewer_module

    started = threading.Event()
    serve = viewer_module.serve
    monkeypatch.setattr(viewer_module, "serve", lambda *a, **k: (serve(*a, **k), started.set())[0])

    def press_ctrl_c() -> None:
        if started.wait(timeout=10):
            time.sleep(0.3)
            _thread.interrupt_main()  # KeyboardInterrupt in the main thread, as Ctrl-C raises it

    presser = threading.Thread(target=press_ctrl_c, daemon=True)
    presser.start()
    viewer_module.run(_model(), port=0)
    presser.join(timeout=5)
    out = capsys.readouterr().out
    assert out.startswith("viewing 'arm' at http://127.0.0.1:") and out.rstrip().endswith("stopped")


# -- in a real browser ------------------------------------------------------------------------------
VIEWPORT = {"width": 1280, "height": 800}
VIEW = (330, 160, 930, 720)  # x0, y0, x1, y1 of the part of the page the pixel checks look at


@pytest.fixture(scope="module")
def browser_session() -> Iterator[dict[str, Any]]:
    """One viewer and one Chromium page for the browser tests (starting them is most of the time)."""
    _require(browser=True)
    from playwright.sync_api import sync_playwright

    from robodesc.viewer import serve

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # this model has nothing to leave out
        running = serve(_model(), port=0)
    # viser's image-based lighting is prefiltered on the GPU at first draw: seconds in software
    # rendering. The default lights alone keep the colours the pixel checks look for.
    running.server.scene.configure_environment_map(hdri=None)
    requests: list[str] = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, headless=True, timeout=30_000
            )
            try:
                page = browser.new_page(viewport=VIEWPORT)
                page.set_default_timeout(10_000)
                page.on("request", lambda request: requests.append(request.url))
                page.goto(running.url, timeout=20_000)
                yield {"viewer": running, "page": page, "requests": requests}
            finally:
                browser.close()
    finally:
        running.stop()


def _screen(page: Any) -> np.ndarray:
    """The middle of the 3D view as an RGB array: where the robot stands, clear of the control panel
    (top right), the notice about software WebGL (top left) and the orientation gizmo (bottom left)."""
    from PIL import Image

    png = page.locator("canvas").first.screenshot(timeout=30_000)  # the first draws shaders in software: slow
    image = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    return image[VIEW[1] : VIEW[3], VIEW[0] : VIEW[2]]


def _pixels(image: np.ndarray, colour: str) -> np.ndarray:
    """(N, 2) x, y of the pixels of a saturated colour: red, green or blue."""
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    mask = {
        "red": (r > 150) & (g < 90) & (b < 90),
        "green": (g > 150) & (r < 90) & (b < 90),
        "blue": (b > 150) & (r < 90) & (g < 90),
    }[colour]
    ys, xs = np.nonzero(mask)
    return np.stack([xs, ys], axis=1)


def _screen_until(page: Any, ready: Callable[[np.ndarray], bool], what: str, timeout: float = 10.0) -> np.ndarray:
    """The first screenshot for which `ready` holds (the browser draws asynchronously)."""
    shots: list[np.ndarray] = []

    def check() -> bool:
        shots[:] = [_screen(page)]
        return ready(shots[0])

    _until(check, timeout=timeout, what=what)
    return shots[0]


def _coloured(image: np.ndarray) -> np.ndarray:
    return np.concatenate([_pixels(image, c) for c in ("red", "green", "blue")])


def _slider_thumb(page: Any, label: str) -> Any:
    return page.locator(
        f"xpath=//label[normalize-space()='{label}']/ancestor::div[.//*[@role='slider']][1]//*[@role='slider']"
    )


def _reset(session: dict[str, Any]) -> tuple[Any, Any]:
    from robodesc.viewer import REFERENCE

    viewer, page = session["viewer"], session["page"]
    viewer.set_kind("visual")
    viewer.apply_keyframe(REFERENCE)
    return viewer, page


def test_page_loads_from_the_viewer_alone(browser_session):
    viewer, page = _reset(browser_session)
    page.wait_for_selector("canvas")
    _until(lambda: bool(viewer.server.get_clients()), what="the browser to connect to the viewer")
    assert page.title() == "Viser"
    page.get_by_text("Collision shapes").wait_for()  # the panel is built
    page.get_by_text("3 bodies, 2 movable joints").first.wait_for()
    foreign = [
        url for url in browser_session["requests"] if not url.startswith((viewer.url, "blob:", "data:", "ws://127."))
    ]
    assert foreign == [], f"the page fetched from elsewhere: {foreign}"


def test_meshes_arrive_and_are_drawn(browser_session):
    viewer, page = _reset(browser_session)
    assert set(viewer.shape_nodes()) == {"base/visual/0", "upper/beam", "tip/visual/0"}
    image = _screen_until(
        page,
        lambda im: all(len(_pixels(im, c)) > 200 for c in ("red", "green", "blue")),
        "the red arm, green tip and blue base to be drawn",
        timeout=30.0,  # the first picture compiles every shader in software
    )
    assert len(_pixels(image, "red")) > 1000


def test_slider_in_the_page_moves_the_link(browser_session):
    viewer, page = _reset(browser_session)
    before = _pixels(_screen_until(page, lambda im: len(_pixels(im, "red")) > 200, "the red arm"), "red")
    thumb = _slider_thumb(page, "shoulder")
    assert thumb.get_attribute("aria-valuenow") == "0"
    thumb.focus()
    page.keyboard.press("ArrowRight")  # one step: 0.01 rad
    _until(lambda: viewer.positions["shoulder"] == pytest.approx(0.01), what="one step to reach the server")
    page.keyboard.press("Home")  # to the lower limit
    _until(lambda: viewer.positions["shoulder"] == pytest.approx(-1.5), what="the slider's value on the server")
    assert viewer.slider("shoulder").value == pytest.approx(-1.5)
    assert thumb.get_attribute("aria-valuenow") == "-1.5"
    assert _quat_close(viewer.body_frames["upper"].wxyz, [math.cos(-0.75), 0, 0, math.sin(-0.75)])
    assert _frame_matches(viewer, "upper") and _frame_matches(viewer, "tip")

    def moved(image: np.ndarray) -> bool:
        after = _pixels(image, "red")
        return len(after) > 200 and float(np.linalg.norm(after.mean(axis=0) - before.mean(axis=0))) > 40

    _screen_until(page, moved, "the red arm to move on screen")


def test_keyframe_picker_sets_the_sliders(browser_session):
    viewer, page = _reset(browser_session)
    page.get_by_label("Keyframe").click()
    page.get_by_role("option", name="home").click()
    _until(lambda: viewer.positions["shoulder"] == pytest.approx(1.0), what="the keyframe on the server")
    assert viewer.positions["wrist"] == pytest.approx(0.5)
    _until(lambda: _slider_thumb(page, "shoulder").get_attribute("aria-valuenow") == "1", what="the page's slider")
    assert _slider_thumb(page, "wrist").get_attribute("aria-valuenow") == "0.5"
    assert _frame_matches(viewer, "tip")


def test_collision_toggle_in_the_page_swaps_shapes(browser_session):
    viewer, page = _reset(browser_session)
    viewer.gui_grid.value = False  # only the robot is grey then
    try:
        visual = _coloured(_screen_until(page, lambda im: len(_coloured(im)) > 500, "the visual shapes"))
        (x0, y0), (x1, y1) = np.maximum(visual.min(axis=0) - 30, 0), visual.max(axis=0) + 30

        def swapped(image: np.ndarray) -> bool:
            """No red, green or blue left; grey shapes (not the white background) where the robot stands."""
            region = image[y0:y1, x0:x1]
            grey = int(((np.ptp(region, axis=2) < 12) & (region[..., 0] < 245)).sum())
            return len(_coloured(image)) < 20 and grey > 1000

        page.get_by_text("Collision shapes").click()
        _until(lambda: viewer.kind == "collision", what="the swap on the server")
        assert viewer.shape_visible("collision") and not viewer.shape_visible("visual")
        _screen_until(page, swapped, "the collision shapes to replace the visual ones on screen")
        page.get_by_text("Collision shapes").click()
        _until(lambda: viewer.kind == "visual", what="the swap back on the server")
        _screen_until(page, lambda im: len(_pixels(im, "red")) > 200, "the visual shapes to come back")
    finally:
        viewer.gui_grid.value = True
