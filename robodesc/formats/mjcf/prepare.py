"""The first part of the spec stage: everything in a file before its body tree.

MuJoCo splices ``<include>``d files into the tree, checks the tree against its schema, merges every
``<compiler>``, resolves the ``<default>`` classes and reads the ``<asset>``s before it reads a
single body; `prepare_file` does the same for the main file and, once each, for every sub-model an
``<attach>`` grafts in. The result is a `FileScope`: the file's tree, settings, classes and assets.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping

import numpy as np

from ...core.errors import (
    CyclicInclude,
    DuplicateName,
    InvalidValue,
    MalformedValue,
    MissingAttribute,
    MissingRootElement,
    ResourceNotFound,
    did_you_mean,
)
from ...core.geometry import MAX_HEIGHTFIELD_SAMPLES, Material
from ...core.walk import Step, run
from ..xml import Document, Element, Values, named_at, parse_xml
from .attributes import ACTUATORS, Attributes, merged
from .mesh_assets import MeshAsset
from .records import HfieldAsset
from .schema import check_tree
from .state import Compiler, DefaultClass, FileScope, LoadState

_COMPILER_FLAGS = ("autolimits", "balanceinertia", "alignfree", "discardvisual", "fusestatic", "strippath", "fitaabb")


def children(root: Element, tag: str) -> Iterator[Element]:
    """The children of `root` with this tag, in document order."""
    return (child for child in root if child.tag == tag)


def prepare_file(state: LoadState, document: Document, prefix: str = "") -> FileScope:
    """Read a file's includes, schema, compiler settings, default classes and assets.

    `prefix` is the ``<attach>`` prefix its named materials get in the model.
    """
    scope = FileScope(document, state.values_of(document))
    read = Attributes(state, scope, prefix)
    root = document.root
    if root.tag != "mujoco":
        raise MissingRootElement(
            f"an MJCF file has <mujoco> as its top element, not <{root.tag}>",
            location=scope.values.where(root),
            construct=root.tag,
            suggestion="is this the right format? pass format=... to choose another",
        )
    if root.find(".//include") is not None:
        document.pin_parents()  # element paths as written, not as spliced
        run(_splice_includes(read, root, [document.source or "<string>"]))
    problem = check_tree(root)
    if problem is not None:
        element, message, allowed, name = problem
        raise read.error(
            InvalidValue, element, message, construct=name, suggestion=did_you_mean(name, allowed) if allowed else None
        )
    for compiler in children(root, "compiler"):
        _compiler(read, compiler, scope.compiler)
    for default in children(root, "default"):
        _default_classes(read, scope.defaults, default)
    for asset in children(root, "asset"):
        _assets(read, scope, asset)
    return scope


# -- includes -------------------------------------------------------------------------------------
def _splice_includes(read: Attributes, element: Element, chain: list[str]) -> Step[None]:
    """Replace every <include file=...> by the children of the included file's <mujoco>.

    MuJoCo resolves every include against the main file's folder and includes a file once. A step
    of a walk (core.walk): nested elements and files are read without Python recursion.
    """
    position = 0
    while position < len(element):
        child = element[position]
        if child.tag != "include":
            if len(child):  # (a leaf holds no include)
                yield _splice_includes(read, child, chain)
            position += 1
            continue
        document, key = _included_document(read, child, chain)
        yield _splice_includes(read, document.root, [*chain, key])
        read.state.spliced.add(id(read.values_of(element).document))
        element.remove(child)
        for offset, grandchild in enumerate(list(document.root)):
            element.insert(position + offset, grandchild)
        position += len(document.root)


def _included_document(read: Attributes, include: Element, chain: list[str]) -> tuple[Document, str]:
    """The file an <include> names, read and parsed once per load (its elements remember their file),
    and the normalised path that identifies it in the include chain."""
    state = read.state
    name = include.get("file")
    if name is None:
        raise read.error(
            MissingAttribute,
            include,
            "<include> needs a file attribute",
            construct="include/@file",
            suggestion='write <include file="other.xml"/>',
        )
    path = state.context.permitted(
        name if os.path.isabs(name) else os.path.join(state.context.base_dir, name),
        "included file",
        read.where(include),
        name,
    )
    key = os.path.normpath(os.path.abspath(path))
    if key in state.included or key in chain:
        raise read.error(
            CyclicInclude if key in chain else DuplicateName,
            include,
            f"file {name!r} is already included (include chain: {' -> '.join(chain)})",
            construct=name,
            suggestion="include each file once",
        )
    state.included.add(key)
    try:
        data = state.context.read(path, what="included file", location=read.where(include), construct=name)
    except OSError:
        raise ResourceNotFound(
            f"included file {name!r} cannot be read (include chain: {' -> '.join(chain)})",
            tried=[path],
            location=read.where(include),
            construct=name,
            suggestion="paths in <include> are relative to the main model's folder",
        ) from None
    with named_at(read.where(include)):
        document = parse_xml(data, path)
    if document.root.tag != "mujoco":
        raise MissingRootElement(
            f"included file {name!r} must have <mujoco> as its top element",
            location=Values(document).where(document.root),
            construct=name,
        )
    document.pin_parents()
    values = state.values_of(document)
    for node in document.root.iter():
        state.owners[id(node)] = values
    return document, key


# -- compiler and defaults -----------------------------------------------------------------------
def _compiler(read: Attributes, element: Element, settings: Compiler) -> None:
    """Merge one <compiler> into the file's settings."""
    a = element.attrib
    if "angle" in a:
        settings.degree = read.keyword(element, a, "angle", ("degree", "radian"), "degree") == "degree"
    if "eulerseq" in a:
        seq = a["eulerseq"]
        read.require(
            len(seq) == 3 and all(ch in "xyzXYZ" for ch in seq),
            InvalidValue,
            element,
            f"eulerseq={seq!r} must be three letters from xyzXYZ",
            construct="compiler/@eulerseq",
            suggestion='for example eulerseq="xyz"',
        )
        settings.eulerseq = seq
    for name in ("meshdir", "texturedir", "assetdir"):
        if name in a:
            setattr(settings, name, a[name])
    for name in _COMPILER_FLAGS:
        setattr(settings, name, read.boolean(element, a, name, getattr(settings, name)))
    if "inertiafromgeom" in a:
        settings.inertiafromgeom = read.keyword(element, a, "inertiafromgeom", ("false", "true", "auto"), "auto")
    if "inertiagrouprange" in a:
        low, high = read.floats(element, a, "inertiagrouprange", 2)
        settings.inertiagrouprange = (int(low), int(high))
    for name in ("boundmass", "boundinertia", "settotalmass"):
        value = read.floats(element, a, name, 1)
        if value is not None:
            setattr(settings, name, value[0])


def _default_classes(read: Attributes, defaults: dict[str, DefaultClass], top: Element) -> None:
    """Resolve a top-level <default> and those nested in it, each after its parent, in document order."""
    pending: list[tuple[Element, str | None]] = [(top, None)]
    while pending:
        element, parent = pending.pop()
        name = _default_class(read, defaults, element, parent)
        pending.extend((child, name) for child in reversed(element) if child.tag == "default")


def _default_class(read: Attributes, defaults: dict[str, DefaultClass], element: Element, parent: str | None) -> str:
    """Resolve one <default> into plain attributes per element tag; its class name."""
    name = element.get("class")
    if parent is None:
        name = name or "main"
    elif name is None:
        raise read.error(
            MissingAttribute,
            element,
            "a nested <default> needs a class name",
            construct="default/@class",
            suggestion='write <default class="...">',
        )
    if parent is not None and name in defaults:
        raise read.error(
            DuplicateName,
            element,
            f"default class {name!r} is defined twice",
            construct=name,
            suggestion="give each default class its own name",
        )
    inherited = defaults.get(parent or "main", {}) if parent else defaults.get(name, {})
    classes = {tag: dict(attrs) for tag, attrs in inherited.items()}
    for child in element:
        if child.tag == "default":
            continue
        tag = "general" if child.tag in ACTUATORS else child.tag
        attributes = classes[tag] = merged(classes.get(tag, {}), child.attrib)
        if child.tag in ACTUATORS and child.tag != "general":
            attributes["_shortcut"] = child.tag
    defaults[name] = classes
    return name


# -- assets ---------------------------------------------------------------------------------------
def asset_path(read: Attributes, file: str, kind: str, element: Element | None = None) -> str:
    """Where an asset file is: absolute, or below meshdir/texturedir (`kind`), assetdir or the main folder.

    A confined load refuses a file outside its folders here, at `element`, before anything looks at it."""
    compiler = read.scope.compiler
    if compiler.strippath:
        file = os.path.basename(file)
    context = read.state.context
    if not os.path.isabs(file):
        folder = getattr(compiler, kind) or compiler.assetdir or ""
        file = os.path.join(context.base_dir, folder, file)
    if context.allowed_roots is None:  # not confined: `permitted` gives the path as it is, and the
        return file  # location below is made only for its refusal (one per mesh of a robot, read by nobody)
    where = read.where(element) if element is not None else None
    return context.permitted(file, f"<{element.tag}> file" if element is not None else "file", where)


def _assets(read: Attributes, scope: FileScope, element: Element) -> None:
    for child in element:
        tag = child.tag
        if tag == "mesh":
            _mesh(read, scope, child)
        elif tag == "material":
            attrs = read.defaulted(child, None)
            rgba = read.floats(child, attrs, "rgba", 4, None)
            name = attrs.get("name")
            material = Material(
                name=read.prefix + name if name else None,
                color=np.array(rgba) if rgba else None,
                texture=attrs.get("texture"),
            )
            if name:
                read.unique(child, name, "material", scope.materials)
            if name is not None:  # geoms refer to materials by name: an unnamed one is never used
                scope.materials[name] = material
            if name:
                scope.model_materials[read.prefix + name] = material
        elif tag == "model":
            _submodel(read, scope, child)
        else:  # texture, hfield, skin, ...: kept as written
            if tag == "hfield":  # and read: a scene draws it
                _hfield(read, scope, child)
            elif tag in ("texture", "skin"):  # named as meshes are, and as uniquely
                name = _file_named(child.attrib)
                if name:
                    taken = scope.kept_names.setdefault(tag, set())
                    read.unique(child, name, tag, taken)
                    taken.add(name)
            scope.extras.append(read.extra(child, None))


def _file_named(attrs: Mapping[str, str]) -> str | None:
    """An asset's name: its `name`, else its file's name without the extension, as MuJoCo names
    meshes, height fields, textures and skins; None with neither."""
    file = attrs.get("file")
    return attrs.get("name") or (os.path.splitext(os.path.basename(file))[0] if file else None)


def _asset_name(read: Attributes, element: Element, attrs: dict[str, str], what: str) -> str:
    """An asset's name (`_file_named`); one with neither a name nor a file cannot be referred to,
    which MuJoCo refuses."""
    name = _file_named(attrs)
    if name is None:
        raise read.error(
            MissingAttribute,
            element,
            f"{what} without a file needs a name",
            construct=f"{element.tag}/@name",
            suggestion='add name="..."',
        )
    return name


def _mesh(read: Attributes, scope: FileScope, element: Element) -> None:
    attrs = read.defaulted(element, None)
    file = attrs.get("file")
    name = _asset_name(read, element, attrs, "a <mesh>")
    read.unique(element, name, "mesh", scope.meshes)
    path = asset_path(read, file, "meshdir", element) if file else None
    scope.meshes[name] = MeshAsset(name, element, attrs, path, read)


def _hfield(read: Attributes, scope: FileScope, element: Element) -> None:
    """An ``<hfield>``: MuJoCo's checks (four positive sizes, at least 2 x 2 samples, as many heights
    as rows x columns, a file or a grid), and its inline heights normalised as MuJoCo stores them."""
    attrs = dict(element.attrib)
    file = attrs.get("file")
    name = _asset_name(read, element, attrs, "an <hfield>")
    size = read.floats(element, attrs, "size", 4, None)
    read.require(
        size is not None and all(v > 0 for v in size),
        InvalidValue,
        element,
        f"hfield {name!r} needs a size of four positive numbers (radius_x radius_y elevation_z base_z)",
        construct="hfield/@size",
        suggestion='e.g. size="5 5 1 0.1"',
    )
    rows, columns = read.integer(element, attrs, "nrow", 0), read.integer(element, attrs, "ncol", 0)
    elevation = read.floats(element, attrs, "elevation", None, None)
    grid = None
    if file is None:
        read.require(
            rows >= 2 and columns >= 2,
            InvalidValue,
            element,
            f"hfield {name!r} needs a file, or nrow and ncol of at least 2",
            construct="hfield/@nrow",
            suggestion='add file="terrain.png", or nrow="..." ncol="..." elevation="..."',
        )
        read.require(
            rows * columns <= MAX_HEIGHTFIELD_SAMPLES,
            InvalidValue,
            element,
            f"hfield {name!r} has {rows} x {columns} samples, more than robodesc handles ({MAX_HEIGHTFIELD_SAMPLES})",
            construct="hfield/@nrow",
            suggestion="use a coarser grid",
        )
        if elevation is not None:
            read.require(
                len(elevation) == rows * columns,
                MalformedValue,
                element,
                f"hfield {name!r} has {len(elevation)} elevation values for {rows} x {columns} samples",
                construct="hfield/@elevation",
                suggestion="give nrow * ncol numbers, row by row",
            )
            values = np.array(elevation, dtype=float).reshape(rows, columns)
            low, high = float(values.min()), float(values.max())
            grid = np.flipud((values - low) / (high - low)) if high > low else np.zeros((rows, columns))
        else:
            grid = np.zeros((rows, columns))
    read.unique(element, name, "hfield", scope.hfields)
    scope.hfields[name] = HfieldAsset(
        name=name,
        uri=file,
        path=asset_path(read, file, "meshdir", element) if file else None,  # MuJoCo looks for both in meshdir
        size=list(size),
        elevation=grid,
        location=read.where(element),
    )


def _submodel(read: Attributes, scope: FileScope, element: Element) -> None:
    """<asset><model name file>: a sub-model for <attach>, parsed now and read when attached."""
    name, file = element.get("name"), element.get("file")
    if not file:
        raise read.error(
            MissingAttribute,
            element,
            "<model> in <asset> needs a name and a file",
            construct="model",
            suggestion='write <model name="arm" file="arm.xml"/>',
        )
    path = asset_path(read, file, "assetdir", element)
    document = read.state.submodel_files.get(path)
    if document is None:
        try:
            data = read.state.context.read(path, what="model file", location=read.where(element), construct=file)
        except OSError:
            raise ResourceNotFound(
                f"model file {file!r} cannot be read", tried=[path], location=read.where(element), construct=file
            ) from None
        with named_at(read.where(element)):
            document = read.state.submodel_files[path] = parse_xml(data, path)
    scope.submodels[name or document.root.get("model") or ""] = document  # unnamed: the file's own model name
