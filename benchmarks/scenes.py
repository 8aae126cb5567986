"""Scene building and re-posing on mesh-heavy URDFs: robodesc against yourdfpy, reported as ratios.

    pip install -e ".[bench]"                       # yourdfpy, example-robot-data
    python benchmarks/run.py --only scene           # measured and tabled by run.py

Robots: TALOS (60 links, 52 STL visuals) and TIAGo dual (130 links, 111 mesh visuals) from the
example-robot-data wheel (timing.robots_root). Every figure is the best of several
repeats in one process (timing.best), so the ratios are what to compare.

* cold scene: read the URDF and every mesh file, build the scene:
  ``robodesc.load(path).scene()`` vs ``yourdfpy.URDF.load(path, build_scene_graph=True,
  load_meshes=True).scene``.
* warm scene: a new scene of an already-loaded model at another configuration. robodesc reads no
  mesh again (meshes are cached on the model); yourdfpy has no equivalent short of re-loading, so
  this row has no ratio.
* re-pose: move an existing scene to a new configuration: ``robodesc.update_scene(scene, model, q)``
  vs yourdfpy's ``urdf.update_cfg(q)`` (which updates its scene graph's transforms).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from timing import best


def measure(path: Path) -> dict[str, float]:
    import yourdfpy

    import robodesc

    out: dict[str, float] = {}
    out["cold_robodesc"] = best(lambda: robodesc.load(path).scene(), 5)
    out["cold_yourdfpy"] = best(
        lambda: yourdfpy.URDF.load(str(path), build_scene_graph=True, load_meshes=True).scene, 5
    )

    model = robodesc.load(path)
    scene = model.scene()
    urdf = yourdfpy.URDF.load(str(path), build_scene_graph=True, load_meshes=True)
    rng = np.random.default_rng(0)
    q_robodesc = rng.uniform(-0.5, 0.5, model.kinematics.nq)
    q_yourdfpy = rng.uniform(-0.5, 0.5, len(urdf.actuated_joint_names))

    out["warm_robodesc"] = best(lambda: model.scene(q_robodesc), 20)
    out["repose_robodesc"] = best(lambda: robodesc.update_scene(scene, model, q_robodesc), 50)
    out["repose_yourdfpy"] = best(lambda: urdf.update_cfg(q_yourdfpy), 50)
    out["shapes"] = len(scene.graph.nodes_geometry)
    out["shapes_yourdfpy"] = len(urdf.scene.graph.nodes_geometry)
    return out
