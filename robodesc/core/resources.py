"""Finding the files a description refers to: meshes, textures, included models.

The built-in rules are the ones ROS and Gazebo users rely on: `package://NAME/...` through
`search_paths`, ROS_PACKAGE_PATH and AMENT_PREFIX_PATH (and, failing those, an ancestor folder of
the description named NAME, the usual source-tree layout); `model://NAME/...` through
`search_paths` and the Gazebo resource variables; `file://`, absolute and relative paths against
the description's folder. Resolution only checks that a file exists; it never reads it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

PACKAGE_PATH_VARIABLES = ("ROS_PACKAGE_PATH",)
AMENT_PATH_VARIABLES = ("AMENT_PREFIX_PATH",)
MODEL_PATH_VARIABLES = ("GZ_SIM_RESOURCE_PATH", "IGN_GAZEBO_RESOURCE_PATH", "SDF_PATH", "GAZEBO_MODEL_PATH")


def _env_paths(names: Iterable[str]) -> list[str]:
    out = []
    for name in names:
        out.extend(p for p in os.environ.get(name, "").split(os.pathsep) if p)
    return out


def _split_scheme(uri: str, scheme: str) -> tuple[str, str] | None:
    """('NAME', 'rest/of/path') for 'scheme://NAME/rest/of/path', else None."""
    if not uri.startswith(scheme):
        return None
    name, _, rest = uri[len(scheme) :].partition("/")
    return name, rest


def candidate_paths(uri: str, base_dir: str | None, search_paths: Iterable[str]) -> list[str]:
    """Every local path the built-in rules would try for `uri`, in order."""
    search_paths = list(search_paths)
    base = base_dir or os.getcwd()
    package = _split_scheme(uri, "package://")
    if package is not None:
        name, rest = package
        out = []
        for root in [*search_paths, *_env_paths(PACKAGE_PATH_VARIABLES)]:
            out.append(os.path.join(root, name, rest))
            if os.path.basename(os.path.normpath(root)) == name:
                out.append(os.path.join(root, rest))
        out.extend(os.path.join(prefix, "share", name, rest) for prefix in _env_paths(AMENT_PATH_VARIABLES))
        folder = os.path.abspath(base)
        while True:
            if os.path.basename(folder) == name:
                out.append(os.path.join(folder, rest))
            out.append(os.path.join(folder, name, rest))
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
        return out
    model = _split_scheme(uri, "model://")
    if model is not None:
        name, rest = model
        return [os.path.join(root, name, rest) for root in [*search_paths, *_env_paths(MODEL_PATH_VARIABLES)]]
    if uri.startswith("file://"):
        path = uri[len("file://") :]
        return [path if os.path.isabs(path) else os.path.join(base, path)]
    if "://" in uri:
        return []
    return [uri if os.path.isabs(uri) else os.path.join(base, uri)]


def resolve_path(uri: str, base_dir: str | None, search_paths: Iterable[str]) -> tuple[str | None, list[str]]:
    """(first existing candidate or None, every candidate tried)."""
    tried = candidate_paths(uri, base_dir, search_paths)
    for path in tried:
        if os.path.exists(path):
            return os.path.normpath(path), tried
    return None, tried


@dataclass
class LoadContext:
    """What a reader knows about the load in progress, and the services it may call.

    `resolver` asks the plugin system (the `robodesc_resolve_uri` hook) for a local path;
    `load_file` loads another description through the plugin system (an SDF including a URDF);
    `cache` lives for one top-level load (parsed includes, resolved URIs).
    """

    source: str | None
    base_dir: str
    search_paths: list[str] = field(default_factory=list)
    format: str | None = None
    resolver: Callable[[str, LoadContext], str | None] | None = None
    load_file: Callable[..., Any] | None = None
    cache: dict[Any, Any] = field(default_factory=dict)
    tried: dict[str, list[str]] = field(default_factory=dict)

    def resolve(self, uri: str) -> tuple[str | None, list[str]]:
        """Resolve `uri` once per load: (local path or None, paths tried)."""
        key = ("uri", uri, self.base_dir)
        hit = self.cache.get(key)
        if hit is None:
            path = self.resolver(uri, self) if self.resolver else resolve_path(uri, self.base_dir, self.search_paths)[0]
            hit = (path, self.tried.get(uri, []))
            self.cache[key] = hit
        return hit
