"""The built-in SDFormat reader (SDF 1.4 to 1.12, as libsdformat 16 reads it), registered through the
`robodesc` entry points like any third-party format, and its checks (`robodesc_checks`, see checks.py)."""

from __future__ import annotations

from ...core.diagnostics import Diagnostic
from ...core.model import Model
from ...plugins.hookspecs import hookimpl
from ...plugins.spec import FormatSpec
from ..xml import root_tag


def _sniff(head: bytes) -> bool:
    return root_tag(head) == "sdf"


def _read(data, context):
    from .reader import read  # imported on first use: listing formats stays cheap

    return read(data, context)


@hookimpl
def robodesc_formats() -> list[FormatSpec]:
    return [
        FormatSpec(
            name="sdf",
            extensions=(".sdf", ".world"),
            read=_read,
            sniff=_sniff,
            description="SDFormat 1.4-1.12 models and worlds (Gazebo), with libsdformat's frame semantics",
        )
    ]


@hookimpl
def robodesc_checks(model: Model) -> list[Diagnostic]:
    """The SDF checks that need a loaded model; the reader adds those about the XML itself while loading."""
    if model.format != "sdf":
        return []
    from .checks import check_loaded

    return check_loaded(model)
