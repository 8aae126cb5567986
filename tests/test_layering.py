"""robodesc.core is format-neutral: it must not import robodesc.formats or robodesc.plugins. The MJCF
reader's stages after the spec (build, compile) never read XML."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import robodesc

PACKAGE_ROOT = Path(robodesc.__file__).resolve().parent
CORE = PACKAGE_ROOT / "core"
FORBIDDEN = ("robodesc.formats", "robodesc.plugins")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """(line, absolute module name) for every import in `source`, relative ones resolved.

    Also catches `importlib.import_module("...")` and `__import__("...")` with a literal name.
    """
    package = module.split(".") if is_package else module.split(".")[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            found.append((node.lineno, target))
            found.extend((node.lineno, f"{target}.{alias.name}") for alias in node.names)
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in ("import_module", "__import__") and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.append((node.lineno, arg.value))
    return found


def _forbidden(name: str) -> bool:
    return any(name == f or name.startswith(f + ".") for f in FORBIDDEN)


def core_files() -> list[Path]:
    return sorted(CORE.rglob("*.py"))


def test_core_exists():
    names = {p.name for p in core_files()}
    assert {"model.py", "kinematics.py", "transforms.py", "errors.py"} <= names


@pytest.mark.parametrize("path", core_files(), ids=lambda p: str(p.relative_to(PACKAGE_ROOT)))
def test_core_does_not_import_formats_or_plugins(path):
    module = _module_name(path)
    bad = [
        f"{path.name}:{line}: {name}"
        for line, name in imported_modules(path.read_text(), module, path.name == "__init__.py")
        if _forbidden(name)
    ]
    assert not bad, "robodesc.core must stay format-neutral, but imports:\n" + "\n".join(bad)


@pytest.mark.parametrize(
    "source",
    [
        "from ..formats import xml",
        "from .. import plugins",
        "from ..plugins.manager import Registry",
        "import robodesc.formats.urdf",
        "from robodesc.plugins import hookimpl",
        "def f():\n    from ..formats.urdf import reader",
        "import importlib\nimportlib.import_module('robodesc.plugins')",
    ],
)
def test_the_checker_catches_forbidden_imports(source):
    names = [name for _, name in imported_modules(source, "robodesc.core.model")]
    assert any(_forbidden(n) for n in names), names


@pytest.mark.parametrize(
    "source",
    ["from .errors import Location", "from . import transforms", "import numpy as np", "from .. import __version__"],
)
def test_the_checker_allows_core_and_third_party_imports(source):
    names = [name for _, name in imported_modules(source, "robodesc.core.model")]
    assert not any(_forbidden(n) for n in names), names


def test_relative_imports_resolve_from_a_package_init():
    names = [name for _, name in imported_modules("from ..formats import x", "robodesc.core", is_package=True)]
    assert "robodesc.formats" in names


# -- SDF reader (robodesc/formats/sdf): its parts and stages --------------------------------------
SDF = PACKAGE_ROOT / "formats" / "sdf"
SDF_PACKAGE = "robodesc.formats.sdf"


def sdf_imports() -> dict[str, set[str]]:
    """SDF module -> the SDF modules it imports, counting every import (in functions and TYPE_CHECKING too)."""
    modules = {_module_name(p) for p in SDF.glob("*.py")} - {SDF_PACKAGE}
    return {
        _module_name(path): {
            name for _, name in imported_modules(path.read_text(), _module_name(path)) if name in modules
        }
        for path in sorted(SDF.glob("*.py"))
        if path.name != "__init__.py"
    }


def test_sdf_modules_import_each_other_without_cycles():
    graph = sdf_imports()
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            cycle = path[path.index(module) :] + [module]
            raise AssertionError("SDF modules import each other in a loop: " + " -> ".join(cycle))
        if module not in done:
            for name in sorted(graph[module]):
                visit(name, [*path, module])
            done.add(module)

    for module in sorted(graph):
        visit(module, [])


#: SDF module -> SDF modules it must not import. The parts of the parser reach each other through the
#: file context, and the loader is handed the parse function: none of them imports the parser back.
#: Frame resolution, merging and building work on the parsed form only, never on XML.
SDF_BOUNDARIES = {
    **{
        part: ("parse", "reader")
        for part in ("context", "names", "geometry", "params", "checks", "elements", "joints", "includes")
    },
    "loader": ("parse", "reader", "context", "elements", "joints", "includes", "params", "geometry", "names", "checks"),
    "graph": ("parse", "context", "values", "build"),
    "merge": ("parse", "context", "values", "build"),
    "build": ("parse", "context", "values", "loader"),
}


@pytest.mark.parametrize("module", sorted(SDF_BOUNDARIES))
def test_sdf_stage_boundaries(module):
    imported = sdf_imports()[f"{SDF_PACKAGE}.{module}"]
    bad = sorted(name for name in imported if name.rsplit(".", 1)[1] in SDF_BOUNDARIES[module])
    assert not bad, f"formats/sdf/{module}.py must not import {', '.join(bad)}"


@pytest.mark.parametrize("module", ["graph", "merge", "build"])
def test_the_sdf_parsed_form_stages_never_touch_xml(module):
    source = (SDF / f"{module}.py").read_text()
    names = [name for _, name in imported_modules(source, f"{SDF_PACKAGE}.{module}")]
    assert not [n for n in names if n.startswith(("robodesc.formats.xml", "xml"))], names


# -- the stages of the MJCF reader ---------------------------------------------------------------
# spec (XML -> records) -> build (records -> core.Model) -> compile (MuJoCo's compile steps): only
# the spec stage reads XML; the records it writes are plain data.
MJCF = "robodesc.formats.mjcf"
SPEC_STAGE = tuple(f"{MJCF}.{name}" for name in ("spec", "prepare", "elements", "attributes", "mesh_assets", "state"))
XML = ("robodesc.formats.xml", "xml", "defusedxml")


def _matches(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _module_file(name: str) -> Path | None:
    """The file of a robodesc module (not of a package, not of a name imported from a module)."""
    path = PACKAGE_ROOT.parent.joinpath(*name.split(".")).with_suffix(".py")
    return path if path.is_file() and name.startswith("robodesc.") else None


def imports_reached(module: str) -> dict[str, str]:
    """Every name imported by `module` and by the robodesc modules it imports, in turn: name -> importer."""
    reached: dict[str, str] = {}
    todo, seen = [module], {module}
    while todo:
        current = todo.pop()
        path = _module_file(current)
        assert path is not None, current
        for _, name in imported_modules(path.read_text(), current):
            reached.setdefault(name, current)
            if name not in seen and _module_file(name) is not None:
                seen.add(name)
                todo.append(name)
    return reached


@pytest.mark.parametrize("stage", ["records", "build", "compile"])
def test_mjcf_stages_after_the_spec_never_touch_xml(stage):
    reached = imports_reached(f"{MJCF}.{stage}")
    bad = [f"{importer} imports {name}" for name, importer in reached.items() if _matches(name, XML + SPEC_STAGE)]
    assert not bad, f"the MJCF {stage} stage must not read XML or reach into the spec stage:\n" + "\n".join(bad)


@pytest.mark.parametrize("module", SPEC_STAGE)
def test_the_mjcf_spec_stage_never_reaches_into_later_stages(module):
    later = (f"{MJCF}.build", f"{MJCF}.compile", f"{MJCF}.reader")
    bad = [f"{importer} imports {name}" for name, importer in imports_reached(module).items() if _matches(name, later)]
    assert not bad, "\n".join(bad)


def test_the_stage_checker_follows_imports_into_other_modules():
    reached = imports_reached(f"{MJCF}.spec")  # spec.py reads XML through attributes.py, among others
    assert any(_matches(name, XML) for name in reached)
    assert f"{MJCF}.attributes" in reached and f"{MJCF}.records" in reached
