"""The built-in MJCF (MuJoCo) format, registered through the `robodesc` entry points, and its checks."""

from __future__ import annotations

from ...core.diagnostics import Diagnostic
from ...core.model import Model
from ...plugins.hookspecs import hookimpl
from ...plugins.spec import FormatSpec
from ..xml import format_checks, xml_format


@hookimpl
def robodesc_formats() -> list[FormatSpec]:
    return [
        xml_format(
            "mjcf",
            (".mjcf",),
            "mujoco",
            __name__,
            "MuJoCo's MJCF, compiled as MuJoCo compiles it (defaults, frames, inertia from geoms)",
            writes=True,
            claims_empty=True,  # an empty .xml is most likely MJCF: its reader reports it as empty
        )
    ]


@hookimpl
def robodesc_checks(model: Model) -> list[Diagnostic]:
    """MJCF-specific findings (checks.py) on MJCF models."""
    return format_checks(model, "mjcf", __name__)
