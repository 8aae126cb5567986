"""The built-in SDFormat reader (SDF 1.4 to 1.12, as libsdformat 16 reads it), registered through the
`robodesc` entry points like any third-party format, and its checks (`robodesc_checks`, see checks.py)."""

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
            "sdf",
            (".sdf", ".world"),
            "sdf",
            __name__,
            "SDFormat 1.4-1.12 models and worlds (Gazebo), with libsdformat's frame semantics",
            writes=True,
        )
    ]


@hookimpl
def robodesc_checks(model: Model) -> list[Diagnostic]:
    """The SDF checks that need a loaded model; the reader adds those about the XML itself while loading."""
    return format_checks(model, "sdf", __name__, "check_loaded")
