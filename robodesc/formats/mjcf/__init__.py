"""The built-in MJCF (MuJoCo) format, registered through the `robodesc` entry points."""

from __future__ import annotations

from ...plugins.hookspecs import hookimpl
from ...plugins.spec import FormatSpec
from ..xml import root_tag


def _sniff(head: bytes) -> bool:
    return root_tag(head) == "mujoco"


def _read(data, context):
    from .reader import read  # imported on first use: listing formats stays cheap

    return read(data, context)


@hookimpl
def robodesc_formats() -> list[FormatSpec]:
    return [
        FormatSpec(
            name="mjcf",
            extensions=(".mjcf",),
            read=_read,
            sniff=_sniff,
            description="MuJoCo's MJCF, compiled as MuJoCo compiles it (defaults, frames, inertia from geoms)",
        )
    ]


@hookimpl
def robodesc_checks(model) -> list:
    """MJCF-specific findings (checks.py); other formats' models are left alone."""
    if model.format != "mjcf":
        return []
    from .checks import check  # imported on first use, like the reader

    return check(model)
