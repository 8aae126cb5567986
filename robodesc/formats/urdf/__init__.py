"""The built-in URDF format, registered through the `robodesc` entry points, and its checks."""

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
            "urdf",
            (".urdf",),
            "robot",
            __name__,
            "Unified Robot Description Format (ROS), as urdfdom reads it",
            writes=True,
        )
    ]


@hookimpl
def robodesc_checks(model: Model) -> list[Diagnostic]:
    """URDF-specific findings (checks.py) on URDF models."""
    return format_checks(model, "urdf", __name__)
