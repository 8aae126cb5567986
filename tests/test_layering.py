"""robodesc.core is format-neutral: it must not import robodesc.formats or robodesc.plugins."""

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
