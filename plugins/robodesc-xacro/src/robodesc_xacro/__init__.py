"""robodesc-xacro: xacro files (`.xacro`, `.urdf.xacro`) for robodesc, as a third-party plugin.

The file is expanded with the `xacro` package from PyPI (the code ROS 2's xacro command runs), with
robodesc's resolver in place of a ROS installation: `$(find pkg)`, `package://` and
`<xacro:include>` are found through `search_paths`, ROS_PACKAGE_PATH, AMENT_PREFIX_PATH and the
source-tree walk, under the load's confinement and size limits. The expanded URDF goes to
robodesc's own URDF reader in memory, with the same `LoadContext`, so meshes resolve from the
xacro file's folder; errors and diagnostics point at the `.xacro` file the user wrote.

Arguments (`<xacro:arg>`) come from `robodesc.load(path, args={...})` or `--arg NAME:=VALUE`.
"""

from __future__ import annotations

import re

import robodesc

from .expand import expand, read

__all__ = ["expand", "read", "robodesc_formats"]

#: a root element `robot` (as every URDF xacro has) that declares the xacro namespace
_XACRO_ROOT = re.compile(rb"<robot\b[^>]*\bxmlns:xacro\s*=", re.S)


def _sniff(head: bytes) -> bool:
    """A `.xml` (or text given to `loads`) is xacro when its `<robot>` declares the xacro namespace."""
    return _XACRO_ROOT.search(head) is not None


@robodesc.hookimpl
def robodesc_formats() -> list[robodesc.FormatSpec]:
    return [
        robodesc.FormatSpec(
            name="xacro",
            extensions=(".xacro", ".urdf.xacro"),
            read=read,
            sniff=_sniff,
            description="xacro (ROS's XML macros) expanded to URDF with the xacro package; no ROS needed",
        )
    ]
