"""Scene building and re-posing on mesh-heavy URDFs: robodesc against yourdfpy, reported as ratios.

    pip install -e ".[bench]"           # yourdfpy, example-robot-data
    python benchmarks/bench_scene.py    # add --json FILE to keep the numbers

Robots: TALOS (60 links, 52 STL visuals) and TIAGo dual (130 links, 111 mesh visuals) from the
example-robot-data wheel, found as bench_urdf.py finds them. Every figure is the best of several
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

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from bench_urdf import ROBOTS, robots_root
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    args = parser.parse_args()
    root = robots_root()
    results = {}
    print(f"{'robot':26} {'figure':48} {'time':>10} {'ratio':>26}")
    for label, rel in ROBOTS.items():
        r = results[label] = measure(root / rel)
        rows = [
            ("cold scene: robodesc load + scene()", r["cold_robodesc"], ""),
            (
                "cold scene: yourdfpy load(load_meshes) + scene",
                r["cold_yourdfpy"],
                f"robodesc {r['cold_yourdfpy'] / r['cold_robodesc']:.2f}x as fast",
            ),
            ("warm scene: robodesc scene(q), meshes cached", r["warm_robodesc"], ""),
            ("re-pose: robodesc update_scene", r["repose_robodesc"], ""),
            (
                "re-pose: yourdfpy update_cfg",
                r["repose_yourdfpy"],
                f"robodesc {r['repose_yourdfpy'] / r['repose_robodesc']:.2f}x as fast",
            ),
        ]
        print(f"{label:26} shapes in the scene: robodesc {r['shapes']}, yourdfpy {r['shapes_yourdfpy']}")
        for name, seconds, ratio in rows:
            print(f"{label:26} {name:48} {seconds * 1e3:9.3f}ms {ratio:>26}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
