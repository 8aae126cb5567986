"""The built-in URDF format, registered through the `robodesc` entry points."""

from __future__ import annotations

from ...plugins.hookspecs import hookimpl
from ...plugins.spec import FormatSpec
from ..xml import root_tag


def _sniff(head: bytes) -> bool:
    return root_tag(head) == "robot"


def _read(data, context):
    from .reader import read  # imported on first use: listing formats stays cheap

    return read(data, context)


@hookimpl
def robodesc_formats() -> list[FormatSpec]:
    return [
        FormatSpec(
            name="urdf",
            extensions=(".urdf",),
            read=_read,
            sniff=_sniff,
            description="Unified Robot Description Format (ROS), as urdfdom reads it",
        )
    ]


@hookimpl
def robodesc_checks(model) -> list:
    """URDF-specific findings (checks.py); other formats' models are left alone."""
    if model.format != "urdf":
        return []
    from .checks import check  # imported on first use, like the reader

    return check(model)
