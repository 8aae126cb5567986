"""robodesc: load URDF, SDFormat and MJCF robot descriptions into one kinematic model.

import robodesc
model = robodesc.load("robot.urdf")
poses = model.forward_kinematics({"elbow": 0.3})
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, BinaryIO, Union

from .conversion import Conversion, convert, target_format
from .core import (
    Actuator,
    Body,
    Box,
    Capsule,
    Cone,
    Constraint,
    Cylinder,
    Diagnostic,
    Dynamics,
    Ellipsoid,
    Extra,
    Frame,
    Geometry,
    Heightfield,
    Inertial,
    Joint,
    JointType,
    Kinematics,
    Limits,
    LoadContext,
    Location,
    Material,
    Mesh,
    Mimic,
    Model,
    Plane,
    Poses,
    Severity,
    Shape,
    Sphere,
    as_trimesh,
    export_scene,
    update_scene,
)
from .core.arguments import path_argument
from .core.checks import CheckReport
from .core.diff import DiffEntry, ModelDiff
from .core.diff import compare as diff
from .core.errors import (
    ConfigurationError,
    CyclicAttachment,
    CyclicInclude,
    CyclicPoseReference,
    DescriptionSyntaxError,
    DuplicateName,
    ExportFailed,
    FormatError,
    InvalidArgument,
    InvalidTree,
    InvalidValue,
    LossyConversion,
    MalformedPose,
    MalformedValue,
    MissingAttribute,
    MissingDependency,
    MissingRootElement,
    PluginCrash,
    PluginError,
    ReaderCrash,
    ReservedName,
    ResourceNotFound,
    RobodescError,
    UnresolvedReference,
    UnsafeXML,
    UnsupportedGeometry,
    UnsupportedJointType,
    UnsupportedVersion,
    XMLSyntaxError,
)
from .core.export import write_whole
from .core.render import render, render_scene, write_png  # not re-exported by core: `core.render` is the module
from .core.writing import Loss, WriteContext
from .plugins import FormatSpec, PluginInfo, PluginWarning, default_registry, hookimpl

if TYPE_CHECKING:

    def formats() -> list[FormatSpec]:
        """The registered formats: name, extensions, can_read / can_write, and the plugin providing each."""
        ...

else:
    # `robodesc.formats` is both the package of the built-in formats (`import robodesc.formats.urdf`)
    # and, being a callable module, the function listing the registered formats (`robodesc.formats()`).
    from . import formats

__version__ = "0.1.0"

Source = Union[str, "os.PathLike[str]", BinaryIO]


def load(
    path: Source,
    format: str | None = None,
    search_paths: Iterable[str | os.PathLike[str]] = (),
    disable_plugins: Iterable[str] = (),
    confine: bool = False,
) -> Model:
    """Load a description from a path, a `pathlib.Path` or a binary file object.

    The format comes from `format`, else the extension, else the content (docs/plugins.md has the
    exact rule). `search_paths` are extra roots for `package://NAME`, `model://NAME` and includes;
    `disable_plugins` leaves the named plugins out of this load. `confine=True` is for descriptions
    you do not trust: nothing outside the description's folder and `search_paths` is opened or
    even stat'ed (docs/limits.md). Raises a `RobodescError` subclass (and nothing else) when the
    file cannot be loaded; a `PluginCrash` when a plugin has a bug; `InvalidArgument` for an
    argument of the wrong kind (docs/model.md, "Wrong arguments").
    """
    return default_registry().load(
        path, format=format, search_paths=search_paths, disable_plugins=disable_plugins, confine=confine
    )


def loads(
    text: str | bytes,
    format: str | None = None,
    base_dir: str | os.PathLike | None = None,
    search_paths: Iterable[str | os.PathLike[str]] = (),
    disable_plugins: Iterable[str] = (),
    confine: bool = False,
) -> Model:
    """Load a description from text; relative URIs resolve against `base_dir` (default: cwd), to
    which (and to `search_paths`) `confine=True` confines the load."""
    return default_registry().loads(
        text,
        format=format,
        base_dir=base_dir,
        search_paths=search_paths,
        disable_plugins=disable_plugins,
        confine=confine,
    )


def dumps(model: Model, format: str, context: WriteContext | None = None) -> str:
    """Write a model as text in `format`, through the writer a plugin provides.

    Pass a `WriteContext` to learn what the format could not express (`context.losses`) and to
    have mesh references made relative to where the text will be saved (`WriteContext(path)`)."""
    return default_registry().dumps(model, format, context=context)


def dump(model: Model, path: str | os.PathLike, format: str | None = None) -> list[Loss]:
    """Write a model to a file; the format defaults to the one claiming the file's extension.

    Mesh references are written relative to the file's folder. Returns what the format could not
    express (see `robodesc.convert` for copying meshes and refusing losses). The file is replaced
    only once the new text is complete."""
    path = path_argument(path, "path")
    context = WriteContext(path)
    text = default_registry().dumps(model, target_format(path, format, option="format"), context=context)
    write_whole(path, text.encode("utf-8"))
    return context.losses


def check(
    target: Source | Model,
    strict: bool = False,
    format: str | None = None,
    search_paths: Iterable[str | os.PathLike[str]] = (),
    disable_plugins: Iterable[str] = (),
    confine: bool = False,
) -> CheckReport:
    """Check a file (or an already loaded model) and return every finding at once.

    The report holds the reader's diagnostics, robodesc's format-neutral checks, what compiling
    the kinematic tree finds, and plugins' checks (`robodesc_checks`); a file that cannot be
    loaded gives a report with its error. `report.failed` is true on any error, or on any warning
    when `strict` is set. A plugin that crashes raises its `PluginCrash`.
    """
    return default_registry().check(
        target,
        strict=strict,
        format=format,
        search_paths=search_paths,
        disable_plugins=disable_plugins,
        confine=confine,
    )


def list_plugins() -> list[PluginInfo]:
    """Every plugin robodesc knows of (loaded, failed or disabled), with what each provides."""
    return default_registry().plugins()


def register_plugin(plugin: Any, name: str | None = None) -> str:
    """Register a plugin object or module at run time (the entry-point path needs no call)."""
    return default_registry().register(plugin, name=name)


def unregister_plugin(name: str) -> None:
    default_registry().unregister(name)


__all__ = [
    "Actuator",
    "Body",
    "Box",
    "Capsule",
    "Cone",
    "CheckReport",
    "Conversion",
    "Constraint",
    "ConfigurationError",
    "CyclicAttachment",
    "CyclicInclude",
    "CyclicPoseReference",
    "Cylinder",
    "DescriptionSyntaxError",
    "Diagnostic",
    "DiffEntry",
    "DuplicateName",
    "ExportFailed",
    "Dynamics",
    "Ellipsoid",
    "Extra",
    "FormatError",
    "FormatSpec",
    "Frame",
    "Geometry",
    "Heightfield",
    "Inertial",
    "InvalidArgument",
    "InvalidTree",
    "InvalidValue",
    "Joint",
    "JointType",
    "Kinematics",
    "Limits",
    "LoadContext",
    "Loss",
    "Location",
    "LossyConversion",
    "MalformedPose",
    "MalformedValue",
    "Material",
    "Mesh",
    "Mimic",
    "MissingAttribute",
    "MissingDependency",
    "MissingRootElement",
    "Model",
    "ModelDiff",
    "Plane",
    "PluginCrash",
    "PluginError",
    "PluginInfo",
    "PluginWarning",
    "Poses",
    "ReaderCrash",
    "ReservedName",
    "ResourceNotFound",
    "RobodescError",
    "Severity",
    "Shape",
    "Sphere",
    "UnresolvedReference",
    "UnsafeXML",
    "UnsupportedGeometry",
    "UnsupportedJointType",
    "UnsupportedVersion",
    "WriteContext",
    "XMLSyntaxError",
    "as_trimesh",
    "export_scene",
    "check",
    "convert",
    "diff",
    "dump",
    "dumps",
    "formats",
    "hookimpl",
    "list_plugins",
    "load",
    "loads",
    "register_plugin",
    "render",
    "render_scene",
    "unregister_plugin",
    "update_scene",
    "write_png",
]
