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
from robodesc.formats.xml import parse_xml

from .expand import expand, read

__all__ = ["expand", "read", "robodesc_formats"]

#: a root element `robot` (as every URDF xacro has) that declares the xacro namespace
_XACRO_ROOT = re.compile(rb"<robot\b[^>]*\bxmlns:xacro\s*=", re.S)


#: what a file of macros for others to include holds at its top level, and nothing else
_DEFINITIONS = frozenset(("xacro:macro", "xacro:property", "xacro:arg", "xacro:include"))


def _sniff(head: bytes) -> bool:
    """A `.xml` (or text given to `loads`) is xacro when its `<robot>` declares the xacro namespace."""
    return _XACRO_ROOT.search(head) is not None


def _fragment(data: bytes) -> bool:
    """A file whose top level only defines (macros, properties, arguments) and includes, with no
    link, joint or macro call of its own, describes no robot alone: others include it. `robodesc
    check FOLDER` leaves it out. A file that cannot be parsed is no fragment: checking it reports why."""
    try:
        root = parse_xml(data).root
    except robodesc.RobodescError:
        return False
    return len(root) > 0 and all(child.tag in _DEFINITIONS for child in root)


@robodesc.hookimpl
def robodesc_formats() -> list[robodesc.FormatSpec]:
    return [
        robodesc.FormatSpec(
            name="xacro",
            extensions=(".xacro", ".urdf.xacro"),
            read=read,
            sniff=_sniff,
            fragment=_fragment,
            description="xacro (ROS's XML macros) expanded to URDF with the xacro package; no ROS needed",
        )
    ]
