"""Finding the files a description refers to: meshes, textures, included models.

The built-in rules are the ones ROS and Gazebo users rely on: `package://NAME/...` through
`search_paths`, ROS_PACKAGE_PATH and AMENT_PREFIX_PATH (and, failing those, an ancestor folder of
the description named NAME, the usual source-tree layout); `model://NAME/...` through
`search_paths` and the Gazebo resource variables; `file://`, absolute and relative paths against
the description's folder. Resolution only checks that a file exists; it never reads it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

PACKAGE_PATH_VARIABLES = ("ROS_PACKAGE_PATH",)
AMENT_PATH_VARIABLES = ("AMENT_PREFIX_PATH",)
MODEL_PATH_VARIABLES = ("GZ_SIM_RESOURCE_PATH", "IGN_GAZEBO_RESOURCE_PATH", "SDF_PATH", "GAZEBO_MODEL_PATH")


def env_paths(names: Iterable[str]) -> list[str]:
    """The folders listed in the environment variables `names` (os.pathsep-separated), in order."""
    out: list[str] = []
    for name in names:
        out.extend(p for p in os.environ.get(name, "").split(os.pathsep) if p)
    return out


def _split_scheme(uri: str, scheme: str) -> tuple[str, str] | None:
    """('NAME', 'rest/of/path') for 'scheme://NAME/rest/of/path', else None."""
    if not uri.startswith(scheme):
        return None
    name, _, rest = uri[len(scheme) :].partition("/")
    return name, rest


def package_roots(name: str, base_dir: str | None, search_paths: Iterable[str]) -> list[str]:
    """Folders that may hold ROS package `name`, in the order they are tried."""
    out = []
    for root in [*search_paths, *env_paths(PACKAGE_PATH_VARIABLES)]:
        if os.path.basename(os.path.normpath(root)) == name:
            out.append(root)
        out.append(os.path.join(root, name))
    out.extend(os.path.join(prefix, "share", name) for prefix in env_paths(AMENT_PATH_VARIABLES))
    folder = os.path.abspath(base_dir or os.getcwd())
    while True:  # the source-tree layout: an ancestor folder named NAME, or holding NAME
        if os.path.basename(folder) == name:
            out.append(folder)
        out.append(os.path.join(folder, name))
        parent = os.path.dirname(folder)
        if parent == folder:
            return out
        folder = parent


def resolve_path(
    uri: str, base_dir: str | None, search_paths: Iterable[str], cache: dict[Any, Any] | None = None
) -> tuple[str | None, list[str]]:
    """(local file or None, the paths tried) for `uri`; checks that the file exists, never reads it.

    `package://NAME/rest` finds the package folder first (as `rospack find` does: the first
    folder that exists wins) and then looks for `rest` inside it only. `cache` (the resolver's
    namespace of the load's cache) remembers package folders, so a robot with hundreds of meshes
    stats each folder once.
    """
    search_paths = list(search_paths)
    base = base_dir or os.getcwd()
    package = _split_scheme(uri, "package://")
    if package is not None:
        name, rest = package
        key = (name, base)
        found = cache.get(key) if cache is not None else None
        if found is None:
            roots = package_roots(name, base, search_paths)
            found = (next((r for r in roots if os.path.isdir(r)), None), roots)
            if cache is not None:
                cache[key] = found
        root, roots = found
        if root is None:
            return None, [os.path.join(r, rest) for r in roots]
        candidates = [os.path.join(root, rest)]
    elif (model := _split_scheme(uri, "model://")) is not None:
        name, rest = model
        candidates = [os.path.join(root, name, rest) for root in [*search_paths, *env_paths(MODEL_PATH_VARIABLES)]]
    elif uri.startswith("file://"):
        path = uri[len("file://") :]
        candidates = [path if os.path.isabs(path) else os.path.join(base, path)]
    elif "://" in uri:
        candidates = []
    else:
        candidates = [uri if os.path.isabs(uri) else os.path.join(base, uri)]
    folders_too = uri.startswith("model://")  # model://NAME names a model folder; other URIs name files
    for path in candidates:
        if os.path.isfile(path) or (folders_too and os.path.isdir(path)):
            return os.path.normpath(path), candidates
    return None, candidates


@dataclass
class LoadContext:
    """What a reader knows about the load in progress, and the services it may call.

    `resolver` asks the plugin system (the `robodesc_resolve_uri` hook) for a local path;
    `load_file` loads another description through the plugin system (an SDF including a URDF).

    The cache lives for one top-level load and is shared with every file loaded from it (`at`,
    `load_file`). Each owner keeps its own namespace, a dict of its own from `cache_for(owner)`,
    so owners never see each other's keys: `"resolve"` holds the answers of `resolve` (per URI
    and folder), `"resolver"` the package folders the built-in resolver found, `"sdf"` the SDF
    reader's parsed files; a plugin uses its own name. `cache` maps owners to their namespaces.
    """

    source: str | None
    base_dir: str
    search_paths: list[str] = field(default_factory=list)
    format: str | None = None
    resolver: Callable[[str, LoadContext], str | None] | None = None
    load_file: Callable[..., Any] | None = None
    cache: dict[str, dict[Any, Any]] = field(default_factory=dict)
    tried: dict[str, list[str]] = field(default_factory=dict)

    def at(self, base_dir: str) -> LoadContext:
        """This load seen from another folder (an included file's): same search paths, resolver and cache."""
        return dataclasses.replace(self, base_dir=base_dir)

    def cache_for(self, owner: str) -> dict[Any, Any]:
        """`owner`'s namespace of the load's cache: a dict only `owner` uses, made on first use."""
        found = self.cache.get(owner)
        if found is None:
            found = self.cache[owner] = {}
        return found

    def resolve(self, uri: str) -> tuple[str | None, list[str]]:
        """Resolve `uri` once per load: (local path or None, paths tried)."""
        answers = self.cache_for("resolve")
        key = (uri, self.base_dir)
        hit = answers.get(key)
        if hit is None:
            path = (
                self.resolver(uri, self)
                if self.resolver
                else resolve_path(uri, self.base_dir, self.search_paths, self.cache_for("resolver"))[0]
            )
            hit = (path, self.tried.get(uri, []))
            answers[key] = hit
        return hit
