"""An interactive viewer in the web browser, built on viser (`pip install 'robodesc[viewer]'`).

```python
import robodesc
from robodesc.viewer import serve

model = robodesc.load("arm.urdf")
with serve(model, port=0) as viewer:        # returns at once; port=0 picks a free port
    print(viewer.url)                        # open it in a browser
    viewer.set_positions({"elbow": 0.5})     # the browser's sliders and robot follow
```

`run(model, ...)` does the same and blocks until Ctrl-C (what `robodesc view FILE` calls).
docs/viewer.md describes the controls.

How it is built:

* **Meshes** come from `model.scene(kind=...)` (read once per model, shared with the model's mesh
  cache and never changed here) and are sent to the browser once each, as GLB so colours and
  textures survive. Shapes that cannot be read are left out, listed in the panel and warned about.
* **One frame per body** (``/robodesc/<i>``, placed at the body's world pose) holds the body's
  shapes at their fixed `shape.pose`, one group per kind. Moving a joint sends a new
  position/orientation for the body frames whose pose changed, and nothing else.
* **Sliders** map to joint values through `SliderSpec`s: one per coordinate of a movable joint
  (`joint_sliders`). Multi-valued joints get one slider per coordinate: universal/revolute2 two
  angles, planar x, y, angle, ball roll/pitch/yaw, floating x, y, z, roll, pitch, yaw (the
  quaternions the model takes are made from those angles, fixed-axis X-Y-Z as in URDF).
"""

from __future__ import annotations

import math
import threading
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .core.errors import ConfigurationError, InvalidArgument, MissingDependency, RobodescError, did_you_mean
from .core.geometry import Plane
from .core.model import Joint, JointType, Limits, Model
from .core.transforms import matrix_to_quat, matrix_to_rpy, quat_to_matrix, rpy_to_matrix

if TYPE_CHECKING:
    import trimesh
    import viser

__all__ = [
    "ANGLE_SPAN",
    "LENGTH_SPAN",
    "REFERENCE",
    "ModelViewer",
    "SliderSpec",
    "ViewerWarning",
    "joint_sliders",
    "joint_value",
    "run",
    "serve",
    "slider_coordinates",
]

#: The keyframe picker's entry for the configuration the model stands in as written.
REFERENCE = "(reference)"
#: Half-range of a slider for an angle without limits (rad), and for a length without limits (m),
#: around the joint's reference value.
ANGLE_SPAN = math.pi
LENGTH_SPAN = 1.0
#: Limits at least this large are taken as "no limit" (SDF writes ±1e16 for an unlimited joint).
_NO_LIMIT = 1e6

_ROTATION_NAMES = ("roll", "pitch", "yaw")


class ViewerWarning(UserWarning):
    """Something the viewer could not show (a mesh that cannot be read, ...)."""


# -- sliders: joint values <-> slider coordinates ----------------------------------------------------
@dataclass(frozen=True)
class SliderSpec:
    """One slider: coordinate `coordinate` of joint `joint`, from `lower` to `upper` in `unit`
    ("rad" or "m"), starting at `initial` (the joint's reference). `limited` is False when the range
    is the viewer's choice (`ANGLE_SPAN` / `LENGTH_SPAN` around the reference) rather than the
    description's limits."""

    joint: str
    coordinate: int
    label: str
    unit: str
    lower: float
    upper: float
    step: float
    initial: float
    limited: bool


def _coordinates(joint: Joint) -> Sequence[tuple[str, str, Limits | None]]:
    """(label suffix, unit, limits) of each slider coordinate of a movable joint."""
    kind = joint.type
    if kind in (JointType.REVOLUTE, JointType.SCREW):
        return [("", "rad", joint.limits)]
    if kind is JointType.CONTINUOUS:
        return [("", "rad", None)]  # URDF: a continuous joint's limits are ignored
    if kind is JointType.PRISMATIC:
        return [("", "m", joint.limits)]
    if kind in (JointType.UNIVERSAL, JointType.REVOLUTE2):
        return [("1", "rad", joint.limits), ("2", "rad", joint.limits2)]
    if kind is JointType.PLANAR:
        return [("x", "m", None), ("y", "m", None), ("angle", "rad", None)]
    if kind is JointType.BALL:
        return [(name, "rad", None) for name in _ROTATION_NAMES]
    if kind is JointType.FLOATING:
        return [("x", "m", None), ("y", "m", None), ("z", "m", None), *((n, "rad", None) for n in _ROTATION_NAMES)]
    return []


def slider_coordinates(joint: Joint, value: Any) -> np.ndarray:
    """A joint value as the model takes it (angle, length, quaternion, ...) -> its slider coordinates.

    Ball joints: the quaternion ``[w, x, y, z]`` becomes roll, pitch, yaw; floating joints
    ``[x, y, z, w, qx, qy, qz]`` become x, y, z, roll, pitch, yaw. Other joints are unchanged.
    """
    v = np.atleast_1d(np.asarray(value, dtype=float)).reshape(-1)
    try:
        if joint.type is JointType.BALL:
            return matrix_to_rpy(quat_to_matrix(v))
        if joint.type is JointType.FLOATING:
            return np.concatenate([v[:3], matrix_to_rpy(quat_to_matrix(v[3:7]))])
    except ValueError as exc:  # a zero or non-finite quaternion
        raise ConfigurationError(f"joint {joint.name!r}: {exc}", construct=joint.name) from None
    return v.copy()


def joint_value(joint: Joint, coordinates: Sequence[float] | np.ndarray) -> float | np.ndarray:
    """Slider coordinates -> the joint value the model takes (inverse of `slider_coordinates`)."""
    c = np.asarray(coordinates, dtype=float).reshape(-1)
    if joint.type is JointType.BALL:
        return matrix_to_quat(rpy_to_matrix(*c))
    if joint.type is JointType.FLOATING:
        return np.concatenate([c[:3], matrix_to_quat(rpy_to_matrix(*c[3:6]))])
    if c.size == 1:
        return float(c[0])
    return c.copy()


def _bound(value: float | None) -> float | None:
    if value is None or not math.isfinite(value) or abs(value) >= _NO_LIMIT:
        return None
    return float(value)


def _slider_range(limits: Limits | None, unit: str, centre: float) -> tuple[float, float, bool]:
    """(lower, upper, limited) of one slider: the description's limits where it has both, else a
    span around `centre` (the reference) on the side(s) without one. The reference always lies inside."""
    span = ANGLE_SPAN if unit == "rad" else LENGTH_SPAN
    lower = _bound(limits.lower) if limits is not None else None
    upper = _bound(limits.upper) if limits is not None else None
    if lower is not None and upper is not None and lower > upper:
        lower = upper = None  # contradictory limits: treat as none
    limited = lower is not None and upper is not None
    if lower is None:
        lower = min(centre, centre if upper is None else upper) - span
    if upper is None:
        upper = max(centre, lower) + span
    return min(lower, centre), max(upper, centre), limited


def _step(lower: float, upper: float) -> float:
    """A round step giving at least 200 positions over the range (0.01 rad for ±π)."""
    width = upper - lower
    if width <= 0:
        return 1e-3
    return float(10.0 ** math.floor(math.log10(width / 200.0)))


def joint_sliders(model: Model) -> list[SliderSpec]:
    """The sliders the viewer shows for `model`: one per coordinate of each movable joint, in the
    order of `model.movable_joints()`. Mimic followers and fixed joints get none."""
    kin = model.kinematics
    specs: list[SliderSpec] = []
    for name in model.movable_joints():
        joint = model.joints[name]
        reference = slider_coordinates(joint, kin.reference[kin.layout[name]])
        for k, (suffix, unit, limits) in enumerate(_coordinates(joint)):
            centre = float(reference[k])
            lower, upper, limited = _slider_range(limits, unit, centre)
            specs.append(
                SliderSpec(
                    joint=name,
                    coordinate=k,
                    label=f"{name} {suffix}" if suffix else name,
                    unit=unit,
                    lower=lower,
                    upper=upper,
                    step=_step(lower, upper),
                    initial=centre,
                    limited=limited,
                )
            )
    return specs


# -- the viewer ---------------------------------------------------------------------------------
def _import_viser() -> Any:
    try:
        import viser
    except ImportError as exc:
        raise MissingDependency(
            f"the browser viewer needs the optional package 'viser', which is not installed ({exc})",
            package="viser",
            extra="viewer",
        ) from exc
    return viser


@contextmanager
def _quiet_viser() -> Iterator[None]:
    """Hide viser's own banner and 'server stopped' lines (printed through rich's global console):
    `run` prints the address itself, and `serve` stays silent for library use."""
    try:
        import rich
    except ImportError:  # pragma: no cover - viser depends on rich
        yield
        return
    console = rich.get_console()
    before = console.quiet
    console.quiet = True
    try:
        yield
    finally:
        console.quiet = before


def _url(host: str, port: int) -> str:
    shown = "localhost" if host in ("", "0.0.0.0", "::") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}"


class ModelViewer:
    """A running viewer of one model; made by `serve`. Stop it with `stop()` or a ``with`` block.

    `url` and `port` say where it listens (the port viser bound: with ``port=0`` a free one, and
    viser moves to the next free port when the one asked for is taken). `server` is the
    `viser.ViserServer`, for adding one's own scene nodes or controls.
    """

    def __init__(
        self,
        model: Model,
        *,
        host: str = "127.0.0.1",
        port: int = 8080,
        kind: str = "visual",
        positions: Mapping[str, Any] | Sequence[float] | np.ndarray | None = None,
        keyframe: str | None = None,
        skip_missing: bool = True,
    ) -> None:
        if kind not in ("visual", "collision"):
            raise InvalidArgument(f"kind must be 'visual' or 'collision', not {kind!r}", construct=str(kind))
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise InvalidArgument(f"port must be a whole number from 0 to 65535, not {port!r}", construct=str(port))
        self.model = model
        self._skip_missing = skip_missing
        self._lock = threading.RLock()
        self._quiet = threading.local()  # set while the viewer moves its own controls
        self._specs = joint_sliders(model)
        self._coords: dict[str, np.ndarray] = {}
        self._reset_coordinates()
        start = self._keyframe_values(keyframe) if keyframe is not None else {}
        start.update(self._as_mapping(positions))
        self._assign(start)

        viser_module = _import_viser()
        with _quiet_viser():
            self.server: viser.ViserServer = viser_module.ViserServer(host=host, port=port, verbose=False)
        self.host = host
        self.port: int = self.server.get_port()
        self.url = _url(host, self.port)
        self._kind = kind
        self._axes = False
        self._frames: dict[str, Any] = {}  # body -> viser FrameHandle at the body's world pose
        self._groups: dict[tuple[str, str], Any] = {}  # (body, kind) -> group frame of that kind's shapes
        self._nodes: dict[str, dict[str, Any]] = {"visual": {}, "collision": {}}  # kind -> scene node -> handle
        self._built: set[str] = set()
        self._sent: dict[str, np.ndarray] = {}  # body -> world pose last sent
        self._glb: dict[int, tuple[trimesh.Trimesh, bytes]] = {}
        self.skipped: list[dict[str, Any]] = []
        """Shapes left out (each a record as in ``scene.metadata["robodesc"]["skipped"]``)."""
        self._sliders: dict[tuple[str, int], Any] = {}
        try:
            self._build(keyframe)
        except BaseException:
            self.stop()
            raise

    # -- building ---------------------------------------------------------------------------
    def _build(self, keyframe: str | None) -> None:
        server = self.server
        model = self.model
        scene = model.scene(self.positions, kind=self._kind, skip_missing=self._skip_missing)
        lo, hi = _robot_bounds(model, scene)
        size = float(max((hi - lo).max(), 0.05))
        centre = (lo + hi) / 2
        server.initial_camera.look_at = centre
        server.initial_camera.position = centre + size * np.array([1.1, 0.9, 0.7])  # front-left, above
        self._add_body_frames(axes_length=0.15 * size)
        self._send_shapes(self._kind, scene, visible=True)
        section = 10.0 ** math.floor(math.log10(size))
        reach = max(float(np.abs(np.stack([lo, hi])[:, :2]).max()), size)
        width = 2 * math.ceil(reach / section) * section
        # a floor of the model's own (a plane) would fight with the grid: then the grid starts hidden
        has_floor = any(isinstance(shape.geometry, Plane) for body in model.bodies.values() for shape in body.visuals)
        self._grid = server.scene.add_grid(
            "/grid", width=width, height=width, cell_size=section / 5, section_size=section, visible=not has_floor
        )

        gui = server.gui
        counts = f"{len(model.bodies)} bodies, {len(model.movable_joints())} movable joints"
        gui.add_markdown(f"**{_md(model.name)}** ({_md(model.format or 'unknown format')}): {counts}")
        options = [REFERENCE, *model.configurations]
        self.gui_keyframe: Any = gui.add_dropdown(
            "Keyframe",
            options,
            initial_value=keyframe if keyframe is not None else REFERENCE,
            hint="Set every joint to a named configuration of the model",
        )
        self.gui_keyframe.on_update(lambda _: self._on_keyframe())
        self.gui_collision: Any = gui.add_checkbox(
            "Collision shapes", self._kind == "collision", hint="Show collision shapes instead of visual ones"
        )
        self.gui_collision.on_update(lambda _: self._on_collision())
        self.gui_axes: Any = gui.add_checkbox(
            "Frame axes", False, hint="Axes at every body's frame (x red, y green, z blue)"
        )
        self.gui_axes.on_update(lambda _: self.show_axes(bool(self.gui_axes.value)))
        self.gui_grid: Any = gui.add_checkbox("Ground grid", not has_floor, hint="A grid on the world's z = 0 plane")
        self.gui_grid.on_update(lambda _: setattr(self._grid, "visible", bool(self.gui_grid.value)))
        self.gui_status = gui.add_markdown("", visible=False)
        self.gui_skipped = gui.add_markdown("", visible=False)
        self._show_skipped()

        with gui.add_folder("Joints"):
            if not self._specs:
                gui.add_markdown("*No movable joints.*")
            for spec in self._specs:
                value = float(self._coords[spec.joint][spec.coordinate])
                lower, upper = min(spec.lower, value), max(spec.upper, value)
                joint = model.joints[spec.joint]
                what = "limits" if spec.limited else "no limits given; range chosen by the viewer"
                handle = gui.add_slider(
                    spec.label,
                    min=lower,
                    max=upper,
                    step=spec.step,
                    initial_value=value,
                    disabled=upper <= lower,
                    hint=f"{joint.type} joint, {spec.unit} ({what})",
                )
                handle.on_update(self._slider_callback(spec, handle))
                self._sliders[(spec.joint, spec.coordinate)] = handle

    def _add_body_frames(self, axes_length: float) -> None:
        """One viser frame per body at its world pose (axes hidden until asked for)."""
        poses = self.model.forward_kinematics(self.positions)
        with self.server.atomic():
            for index, body_name in enumerate(self.model.bodies):
                pose = np.asarray(poses[body_name])
                self._frames[body_name] = self.server.scene.add_frame(
                    f"/robodesc/{index}",
                    show_axes=self._axes,
                    axes_length=axes_length,
                    axes_radius=axes_length / 25,
                    origin_radius=axes_length / 12,
                    wxyz=matrix_to_quat(pose[:3, :3]),
                    position=pose[:3, 3],
                )
                self._sent[body_name] = pose.copy()

    def _send_shapes(self, kind: str, scene: trimesh.Scene, visible: bool) -> None:
        """Send the meshes of a scene of `kind` to the browser (once per kind), each below its body's
        frame at the shape's pose, in one group per body and kind."""
        model = self.model
        meta = scene.metadata["robodesc"]
        left_out = list(meta["skipped"])
        server = self.server
        with server.atomic():
            body_index = {name: i for i, name in enumerate(model.bodies)}
            count = 0
            for node, where in meta["nodes"].items():
                body = model.bodies[where["body"]]
                shape = (body.visuals if kind == "visual" else body.collisions)[where["index"]]
                mesh = scene.geometry[node]
                try:
                    glb = self._glb_of(mesh)
                except Exception as exc:  # trimesh may fail to write an odd mesh: leave it out, never crash
                    left_out.append(
                        {
                            "node": node,
                            "body": body.name,
                            "kind": kind,
                            "index": where["index"],
                            "code": "viewer",
                            "reason": f"could not be sent to the browser: {exc}",
                        }
                    )
                    continue
                group = self._groups.get((body.name, kind))
                prefix = f"/robodesc/{body_index[body.name]}/{kind}"
                if group is None:
                    group = self._groups[(body.name, kind)] = server.scene.add_frame(
                        prefix, show_axes=False, visible=visible
                    )
                pose = np.asarray(shape.pose, dtype=float)
                if where.get("local") is not None:  # a part of a mesh file of several parts
                    pose = pose @ np.asarray(where["local"], dtype=float)
                self._nodes[kind][node] = server.scene.add_glb(
                    f"{prefix}/{count}", glb, wxyz=matrix_to_quat(pose[:3, :3]), position=pose[:3, 3]
                )
                count += 1
        self._built.add(kind)
        for record in left_out:
            warnings.warn(
                f"{model.name}: {record['kind']} shape {record['node']} left out of the viewer: {record['reason']}",
                ViewerWarning,
                stacklevel=3,
            )
        self.skipped.extend(left_out)

    def _glb_of(self, mesh: trimesh.Trimesh) -> bytes:
        """The GLB of a mesh, once per mesh object (the model's cache shares meshes between shapes).
        Exporting only reads the mesh: the model's cached geometry is not changed."""
        found = self._glb.get(id(mesh))
        if found is None:
            data = mesh.export(file_type="glb")
            if not isinstance(data, bytes):
                raise TypeError(f"trimesh wrote {type(data).__name__}, not GLB bytes")
            found = self._glb[id(mesh)] = (mesh, data)  # the mesh is kept so its id is not reused
        return found[1]

    def _show_skipped(self) -> None:
        handle = getattr(self, "gui_skipped", None)
        if handle is None:
            return
        if not self.skipped:
            handle.visible = False
            return
        lines = [f"**Left out** ({len(self.skipped)} shape(s) could not be shown):"]
        lines += [f"- `{r['node']}` ({r['kind']}): {_md(str(r['reason']))}" for r in self.skipped]
        handle.content = "\n".join(lines)
        handle.visible = True

    # -- joint values -----------------------------------------------------------------------
    def _reset_coordinates(self) -> None:
        kin = self.model.kinematics
        for name in self.model.movable_joints():
            self._coords[name] = slider_coordinates(self.model.joints[name], kin.reference[kin.layout[name]])

    def _as_mapping(self, positions: Mapping[str, Any] | Sequence[float] | np.ndarray | None) -> dict[str, Any]:
        """Joint values as a mapping, checked against the model (unknown joints and wrong sizes raise
        `ConfigurationError`); joints without a value of their own (fixed, mimic) are dropped."""
        if positions is None:
            return {}
        kin = self.model.kinematics
        q = kin.vector(positions)  # raises for unknown joints, wrong sizes, non-numbers
        if isinstance(positions, Mapping):
            return {name: q[kin.layout[name]] for name in positions if name in kin.layout}
        return {name: q[sl] for name, sl in kin.layout.items()}

    def _keyframe_values(self, name: str) -> dict[str, Any]:
        if name == REFERENCE:
            return {}
        try:
            values = self.model.configurations[name]
        except KeyError:
            raise ConfigurationError(
                f"model {self.model.name!r} has no keyframe {name!r}",
                construct=name,
                suggestion=did_you_mean(name, self.model.configurations) or "keyframes: " + _names(self.model),
            ) from None
        return self._as_mapping(values)

    def _assign(self, values: Mapping[str, Any]) -> None:
        for name, value in values.items():
            self._coords[name] = slider_coordinates(self.model.joints[name], value)

    @property
    def positions(self) -> dict[str, Any]:
        """The current joint values, as `model.forward_kinematics` takes them (one per movable joint)."""
        with self._lock:
            return {name: joint_value(self.model.joints[name], c) for name, c in self._coords.items()}

    def set_positions(self, positions: Mapping[str, Any] | Sequence[float] | np.ndarray, reset: bool = False) -> None:
        """Set joint values (a mapping, or a configuration vector); the sliders and the robot in every
        connected browser follow. Joints not named keep their value, or go back to their reference
        with ``reset=True``. Unknown joints and wrong sizes raise `ConfigurationError`."""
        values = self._as_mapping(positions)
        with self._lock:
            if reset:
                self._reset_coordinates()
            self._assign(values)
            self._sync_sliders()
            self._repose()

    def apply_keyframe(self, name: str) -> None:
        """Put the model in keyframe `name` of `model.configurations` (`REFERENCE` for the reference
        configuration); joints the keyframe leaves out go to their reference. The picker shows it."""
        values = self._keyframe_values(name)
        with self._lock:
            self._reset_coordinates()
            self._assign(values)
            self._sync_sliders()
            self._repose()
            with self._quietly():
                self.gui_keyframe.value = name

    def slider(self, joint: str, coordinate: int = 0) -> viser.GuiSliderHandle:
        """The slider of coordinate `coordinate` of joint `joint` (see `joint_sliders`)."""
        try:
            return self._sliders[(joint, coordinate)]
        except KeyError:
            raise ConfigurationError(
                f"no slider for coordinate {coordinate} of joint {joint!r}",
                construct=joint,
                suggestion=did_you_mean(joint, [j for j, _ in self._sliders]),
            ) from None

    @property
    def slider_specs(self) -> list[SliderSpec]:
        return list(self._specs)

    @contextmanager
    def _quietly(self) -> Iterator[None]:
        """While the viewer moves its own controls, their callbacks (run in this thread) do nothing."""
        before = getattr(self._quiet, "on", False)
        self._quiet.on = True
        try:
            yield
        finally:
            self._quiet.on = before

    def _sync_sliders(self) -> None:
        with self._quietly():
            for (joint, k), handle in self._sliders.items():
                value = float(self._coords[joint][k])
                if value < handle.min:
                    handle.min = value
                if value > handle.max:
                    handle.max = value
                handle.value = value

    def _repose(self) -> None:
        """Send the new world pose of every body frame that moved: transforms only."""
        if not hasattr(self, "server"):
            return
        poses = self.model.forward_kinematics(self.positions)
        with self.server.atomic():
            for body, handle in self._frames.items():
                pose = np.asarray(poses[body])
                last = self._sent.get(body)
                if last is not None and np.array_equal(last, pose):
                    continue
                handle.wxyz = matrix_to_quat(pose[:3, :3])
                handle.position = pose[:3, 3]
                self._sent[body] = pose.copy()

    # -- GUI callbacks (browser actions; also run when the viewer sets a control itself) ---------------
    def _slider_callback(self, spec: SliderSpec, handle: Any) -> Any:
        def moved(_: Any) -> None:
            self._on_slider(spec, handle)

        return moved

    def _on_slider(self, spec: SliderSpec, handle: Any) -> None:
        if getattr(self._quiet, "on", False):
            return
        with self._lock:
            self._coords[spec.joint][spec.coordinate] = float(handle.value)
            self._repose()

    def _on_keyframe(self) -> None:
        if getattr(self._quiet, "on", False):
            return
        try:
            self.apply_keyframe(str(self.gui_keyframe.value))
        except RobodescError as exc:  # a keyframe the model cannot take: say so in the panel
            self.gui_status.content = f"**Keyframe not applied:** {_md(str(exc))}"
            self.gui_status.visible = True

    def _on_collision(self) -> None:
        if getattr(self._quiet, "on", False):
            return
        self.set_kind("collision" if self.gui_collision.value else "visual")

    # -- shapes and axes --------------------------------------------------------------------
    @property
    def kind(self) -> str:
        """The shapes shown: "visual" or "collision"."""
        return self._kind

    def set_kind(self, kind: str) -> None:
        """Show the visual or the collision shapes (the other kind's meshes are sent on first use)."""
        if kind not in ("visual", "collision"):
            raise InvalidArgument(f"kind must be 'visual' or 'collision', not {kind!r}", construct=str(kind))
        with self._lock:
            if kind != self._kind:
                if kind not in self._built:
                    scene = self.model.scene(self.positions, kind=kind, skip_missing=self._skip_missing)
                    self._send_shapes(kind, scene, visible=True)
                    self._show_skipped()
                with self.server.atomic():
                    for (_, group_kind), group in self._groups.items():
                        group.visible = group_kind == kind
                self._kind = kind
            with self._quietly():
                self.gui_collision.value = kind == "collision"

    def shape_nodes(self, kind: str | None = None) -> dict[str, Any]:
        """The viser handles of the shapes of `kind` (default: the kind shown) sent so far, by the
        node names of `model.scene` (``"<body>/<shape name>"`` or ``"<body>/<kind>/<i>"``)."""
        return dict(self._nodes[kind or self._kind])

    def shape_visible(self, kind: str) -> bool:
        """Whether the shapes of `kind` are shown (their groups are visible)."""
        groups = [g for (_, k), g in self._groups.items() if k == kind]
        return bool(groups) and all(g.visible for g in groups)

    @property
    def body_frames(self) -> dict[str, Any]:
        """The viser frame of every body (at its world pose; the shapes hang below it)."""
        return dict(self._frames)

    @property
    def axes_shown(self) -> bool:
        return self._axes

    def show_axes(self, show: bool = True) -> None:
        """Show or hide the axes of every body frame."""
        with self._lock:
            self._axes = bool(show)
            with self.server.atomic():
                for handle in self._frames.values():
                    handle.show_axes = self._axes
            with self._quietly():
                self.gui_axes.value = self._axes

    # -- life cycle ---------------------------------------------------------------------------
    def stop(self) -> None:
        """Stop the server (idempotent); connected browsers lose the connection."""
        server = getattr(self, "server", None)
        if server is None or getattr(self, "_stopped", False):
            return
        self._stopped = True
        with _quiet_viser():
            server.stop()

    def __enter__(self) -> ModelViewer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "stopped" if getattr(self, "_stopped", False) else self.url
        return f"ModelViewer({self.model.name!r}, {state})"


def _robot_bounds(model: Model, scene: trimesh.Scene) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper corner of what the camera should frame: the scene's shapes without planes
    (an infinite floor is drawn 10 m wide and would make the robot a speck), or a 1 m cube at
    the origin when there is nothing else."""
    corners = []
    for node, where in scene.metadata["robodesc"]["nodes"].items():
        body = model.bodies[where["body"]]
        shape = (body.visuals if where["kind"] == "visual" else body.collisions)[where["index"]]
        if isinstance(shape.geometry, Plane):
            continue
        transform, geometry = scene.graph[node]
        points = np.asarray(scene.geometry[geometry].bounding_box.vertices, dtype=float)
        corners.append(points @ np.asarray(transform)[:3, :3].T + np.asarray(transform)[:3, 3])
    if not corners:
        return np.full(3, -0.5), np.full(3, 0.5)
    points = np.concatenate(corners)
    return points.min(axis=0), points.max(axis=0)


def _md(text: str) -> str:
    """Text safe to put inside a line of the panel's markdown (not at its start): inline markup escaped."""
    return "".join("\\" + ch if ch in "\\`*_[]<>|~" else ch for ch in text)


def _names(model: Model) -> str:
    return ", ".join(repr(n) for n in model.configurations) or "none"


def serve(
    model: Model,
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    kind: str = "visual",
    positions: Mapping[str, Any] | Sequence[float] | np.ndarray | None = None,
    keyframe: str | None = None,
    skip_missing: bool = True,
) -> ModelViewer:
    """Start a viewer of `model` in the background and return it at once (open `viewer.url`).

    `kind` picks the shapes shown first ("visual" or "collision"; the panel swaps them),
    `keyframe` a named configuration of `model.configurations` to start in, `positions` joint values
    on top of it. ``port=0`` picks a free port. Meshes that cannot be read are left out, listed in
    the panel and warned about (`ViewerWarning`); ``skip_missing=False`` raises instead.
    Raises `MissingDependency` when viser is not installed (``pip install 'robodesc[viewer]'``).
    """
    return ModelViewer(
        model, host=host, port=port, kind=kind, positions=positions, keyframe=keyframe, skip_missing=skip_missing
    )


def run(
    model: Model,
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    kind: str = "visual",
    positions: Mapping[str, Any] | Sequence[float] | np.ndarray | None = None,
    keyframe: str | None = None,
    skip_missing: bool = True,
) -> None:
    """`serve`, print the address, and wait until Ctrl-C; then stop the server. `robodesc view` calls this."""
    viewer = serve(
        model, host=host, port=port, kind=kind, positions=positions, keyframe=keyframe, skip_missing=skip_missing
    )
    try:
        print(f"viewing {model.name!r} at {viewer.url} (press Ctrl-C to stop)", flush=True)
        _wait_for_interrupt()
    except KeyboardInterrupt:
        print("stopped", flush=True)
    finally:
        viewer.stop()


def _wait_for_interrupt() -> None:
    """Block until Ctrl-C (KeyboardInterrupt); the server runs in its own threads meanwhile."""
    while True:
        time.sleep(0.5)  # short naps: a signal-less interrupt (_thread.interrupt_main) is seen too
