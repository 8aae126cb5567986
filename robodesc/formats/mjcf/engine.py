"""What MuJoCo's compiler refuses about simulation rather than description, noted as warnings.

A few of MuJoCo's compile errors come from its engine, not from the description: it simulates the
model to find an actuator's length range and refuses the model when that does not settle, and it
refuses option combinations its solver does not support. A description loader neither simulates nor
steps, so robodesc loads such a model and notes each case it can recognise without simulating as an
``engine-refusal`` warning at the element concerned, quoting MuJoCo's message (docs/formats/mjcf.md,
"Differences from MuJoCo worth knowing"):

* an actuator whose length range MuJoCo computes (``<compiler><lengthrange mode>``: muscles by
  default) that drives a joint without limits: the simulation never settles ("Lengthrange computation
  did not converge in actuator N");
* ``<option><flag ipc="enable"/>`` with an integrator other than ``discrete``.

Length ranges through tendons, sites or bodies depend on the simulation itself and are not noted.
"""

from __future__ import annotations

from ...core.diagnostics import Severity
from ..xml import Element
from .attributes import Attributes
from .prepare import children
from .records import BodySpec, JointSpec, ModelSpec

CODE = "engine-refusal"
#: Which actuators MuJoCo computes a length range for, by <compiler><lengthrange mode>.
_MODES = {"none", "muscle", "muscleuser", "all"}


def note_engine_refusals(read: Attributes, root: Element, spec: ModelSpec) -> None:
    """Note what MuJoCo's engine would refuse in the main file `root` (read into `spec`)."""
    _note_ipc(read, root)
    _note_length_ranges(read, root, spec)


def _note_ipc(read: Attributes, root: Element) -> None:
    for option in children(root, "option"):
        integrator = option.get("integrator", "Euler")
        for flag in children(option, "flag"):
            if flag.get("ipc") == "enable" and integrator != "discrete":
                read.state.diagnose(
                    Severity.WARNING,
                    CODE,
                    'MuJoCo refuses this model when it compiles it ("engine error: flag ipc requires '
                    f"integrator='discrete'\"; the integrator is {integrator!r}); robodesc does not simulate",
                    read.where(flag),
                    'set integrator="discrete" in <option>, or disable the ipc flag',
                )


def _note_length_ranges(read: Attributes, root: Element, spec: ModelSpec) -> None:
    mode, use_existing = "muscle", True
    for compiler in children(root, "compiler"):
        for setting in children(compiler, "lengthrange"):
            mode = setting.get("mode", mode) if setting.get("mode") in _MODES else mode
            use_existing = setting.get("useexisting", "true" if use_existing else "false") == "true"
    if mode == "none":
        return
    joints: dict[str, JointSpec] | None = None  # gathered when an actuator needs them (most models: never)
    for index, actuator in enumerate(spec.actuators):
        attrs = actuator.attributes
        muscle = actuator.tag == "muscle" or "muscle" in (attrs.get("gaintype"), attrs.get("biastype"))
        user = "user" in (attrs.get("gaintype"), attrs.get("biastype"))
        if not (mode == "all" or muscle or (mode == "muscleuser" and user)):
            continue
        if use_existing and _given(attrs.get("lengthrange", "")):
            continue  # MuJoCo keeps the range written
        if joints is None:
            joints = _joints_by_name(spec.world)
        joint = joints.get(attrs.get("joint") or attrs.get("jointinparent") or "")
        if joint is not None and joint.kind != "free" and joint.limits is None:
            read.state.diagnose(
                Severity.WARNING,
                CODE,
                f"MuJoCo computes this actuator's length range by simulating the model, which does not settle on "
                f'joint {joint.name!r} (it has no limits): MuJoCo refuses the model ("Lengthrange computation did '
                f'not converge in actuator {index}"); robodesc does not simulate',
                actuator.location,
                'limit the joint, or give the actuator a lengthrange="low high"',
            )


def _joints_by_name(world: BodySpec) -> dict[str, JointSpec]:
    found: dict[str, JointSpec] = {}
    stack = [world]
    while stack:
        body = stack.pop()
        for item in body.items:
            if isinstance(item, JointSpec):
                found[item.name] = item
            elif isinstance(item, BodySpec):
                stack.append(item)
    return found


def _given(text: str) -> bool:
    """Whether a lengthrange attribute gives a range MuJoCo keeps (low < high)."""
    try:
        low, high = (float(value) for value in text.split())
    except ValueError:  # absent, or not two numbers
        return False
    return low < high
