"""robodesc: load URDF, SDFormat and MJCF robot descriptions into one kinematic model.

import robodesc
model = robodesc.load("robot.urdf")
poses = model.forward_kinematics({"elbow": 0.3})
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Union

if TYPE_CHECKING:  # what the lazy names below are, for type checkers and editors
    from .conversion import Conversion, convert
    from .conversion import target_format as target_format
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
    from .core.arguments import path_argument as path_argument
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
    from .core.export import write_whole as write_whole
    from .core.render import render, render_scene, write_png  # not re-exported by core: `core.render` is the module
    from .core.resources import ResourceRefused
    from .core.writing import Loss, WriteContext
    from .plugins import FormatSpec, PluginInfo, PluginWarning, hookimpl
    from .plugins import default_registry as default_registry
    from .plugins.manager import Registry

    def formats() -> list[FormatSpec]:
        """The registered formats: name, extensions, can_read / can_write, and the plugin providing each."""
        ...


def _lazy_names() -> dict[str, tuple[str, str]]:
    """Public name -> (module, attribute): imported on first use, so that `import robodesc` costs a
    few milliseconds instead of numpy, the kinematics, the renderer, the differ and the plugin
    machinery; a load imports what loading needs, and its format's reader, and nothing more."""
    names: dict[str, tuple[str, str]] = {}
    table = {
        ".core": "Actuator Body Box Capsule Cone Constraint Cylinder Diagnostic Dynamics Ellipsoid Extra Frame "
        "Geometry Heightfield Inertial Joint JointType Kinematics Limits LoadContext Location Material Mesh "
        "Mimic Model Plane Poses Severity Shape Sphere",
        ".conversion": "Conversion convert target_format",
        ".core.arguments": "path_argument",
        ".core.checks": "CheckReport",
        ".core.diff": "DiffEntry ModelDiff",
        ".core.errors": "ConfigurationError CyclicAttachment CyclicInclude CyclicPoseReference DescriptionSyntaxError "
        "DuplicateName ExportFailed FormatError InvalidArgument InvalidTree InvalidValue LossyConversion "
        "MalformedPose MalformedValue MissingAttribute MissingDependency MissingRootElement PluginCrash "
        "PluginError ReaderCrash ReservedName ResourceNotFound RobodescError UnresolvedReference UnsafeXML "
        "UnsupportedGeometry UnsupportedJointType UnsupportedVersion XMLSyntaxError",
        ".core.export": "export_scene write_whole",
        ".core.scene": "as_trimesh update_scene",
        ".core.resources": "ResourceRefused",
        ".core.render": "render render_scene write_png",
        ".core.writing": "Loss WriteContext",
        ".plugins": "FormatSpec PluginInfo PluginWarning default_registry hookimpl",
    }
    for module, attributes in table.items():
        names.update((attribute, (module, attribute)) for attribute in attributes.split())
    names["diff"] = (".core.diff", "compare")
    return names


_LAZY = _lazy_names()


def __getattr__(name: str) -> Any:
    """A public name's value, imported on first use and kept; a subpackage (`robodesc.core`, and
    `robodesc.formats`, which is also the function listing formats) is imported when first named."""
    found = _LAZY.get(name)
    if found is not None:
        value = getattr(importlib.import_module(found[0], __name__), found[1])
    elif name in _SUBPACKAGES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, *_SUBPACKAGES})


_SUBPACKAGES = frozenset(("conversion", "core", "formats", "plugins"))  # imported by robodesc before it was lazy

__version__ = "0.1.0"

Source = Union[str, "os.PathLike[str]", BinaryIO]


_REGISTRY: list[Any] = []  # plugins.default_registry, once imported


def _registry() -> Registry:
    """The process-wide registry (`plugins.default_registry()`), its module imported on first use, not
    at `import robodesc`, and then kept: an import statement in every call cost as much as a check."""
    if not _REGISTRY:
        from .plugins import default_registry

        _REGISTRY.append(default_registry)
    return _REGISTRY[0]()


def load(
    path: Source,
    format: str | None = None,
    search_paths: Iterable[str | os.PathLike[str]] = (),
    disable_plugins: Iterable[str] = (),
    confine: bool = False,
    args: Mapping[str, str] | None = None,
) -> Model:
    """Load a description from a path, a `pathlib.Path` or a binary file object.

    The format comes from `format`, else the extension, else the content (docs/plugins.md has the
    exact rule). `search_paths` are extra roots for `package://NAME`, `model://NAME` and includes;
    `disable_plugins` leaves the named plugins out of this load. `confine=True` is for descriptions
    you do not trust: nothing outside the description's folder and `search_paths` is opened or
    even stat'ed (docs/limits.md). `args` are arguments for formats that take them (a xacro file's
    `<xacro:arg>`s, as `xacro robot.urdf.xacro NAME:=VALUE` sets them); other formats ignore them.
    Raises a `RobodescError` subclass (and nothing else) when the file cannot be loaded; a
    `PluginCrash` when a plugin has a bug; `InvalidArgument` for an argument of the wrong kind
    (docs/model.md, "Wrong arguments")."""
    return _registry().load(
        path, format=format, search_paths=search_paths, disable_plugins=disable_plugins, confine=confine, args=args
    )


def loads(
    text: str | bytes,
    format: str | None = None,
    base_dir: str | os.PathLike | None = None,
    search_paths: Iterable[str | os.PathLike[str]] = (),
    disable_plugins: Iterable[str] = (),
    confine: bool = False,
    args: Mapping[str, str] | None = None,
) -> Model:
    """Load a description from text; relative URIs resolve against `base_dir` (default: cwd), to
    which (and to `search_paths`) `confine=True` confines the load; `args` as for `load`."""
    return _registry().loads(
        text,
        format=format,
        base_dir=base_dir,
        search_paths=search_paths,
        disable_plugins=disable_plugins,
        confine=confine,
        args=args,
    )


def dumps(model: Model, format: str, context: WriteContext | None = None) -> str:
    """Write a model as text in `format`, through the writer a plugin provides.

    Pass a `WriteContext` to learn what the format could not express (`context.losses`) and to
    have mesh references made relative to where the text will be saved (`WriteContext(path)`)."""
    return _registry().dumps(model, format, context=context)


def dump(model: Model, path: str | os.PathLike, format: str | None = None) -> list[Loss]:
    """Write a model to a file; the format defaults to the one claiming the file's extension.

    Mesh references are written relative to the file's folder. Returns what the format could not
    express (see `robodesc.convert` for copying meshes and refusing losses). The file is replaced
    only once the new text is complete."""
    from .conversion import target_format
    from .core.arguments import path_argument as path_argument
    from .core.export import write_whole as write_whole
    from .core.writing import WriteContext

    path = path_argument(path, "path")
    context = WriteContext(path)
    text = _registry().dumps(model, target_format(path, format, option="format"), context=context)
    write_whole(path, text.encode("utf-8"))
    return context.losses


def check(
    target: Source | Model,
    strict: bool = False,
    format: str | None = None,
    search_paths: Iterable[str | os.PathLike[str]] = (),
    disable_plugins: Iterable[str] = (),
    confine: bool = False,
    args: Mapping[str, str] | None = None,
) -> CheckReport:
    """Check a file (or an already loaded model) and return every finding at once.

    The report holds the reader's diagnostics, robodesc's format-neutral checks, what compiling
    the kinematic tree finds, and plugins' checks (`robodesc_checks`); a file that cannot be
    loaded gives a report with its error. `report.failed` is true on any error, or on any warning
    when `strict` is set. A plugin that crashes raises its `PluginCrash`.
    """
    return _registry().check(
        target,
        strict=strict,
        format=format,
        search_paths=search_paths,
        disable_plugins=disable_plugins,
        confine=confine,
        args=args,
    )


def list_plugins() -> list[PluginInfo]:
    """Every plugin robodesc knows of (loaded, failed or disabled), with what each provides."""
    return _registry().plugins()


def register_plugin(plugin: Any, name: str | None = None) -> str:
    """Register a plugin object or module at run time (the entry-point path needs no call)."""
    return _registry().register(plugin, name=name)


def unregister_plugin(name: str) -> None:
    _registry().unregister(name)


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
    "ResourceRefused",
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
