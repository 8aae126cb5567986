"""Headless pictures of mesh-heavy robots: robodesc's numpy rasteriser, per frame at 800x600.

    ROBODESC_CORPUS=/work/shared/corpus python benchmarks/run.py --only render   # measured and tabled by run.py

Robots from the reference corpus ($ROBODESC_CORPUS, else /work/shared/corpus): Unitree H1 and the
Shadow Hand from MuJoCo Menagerie (MJCF, OBJ meshes), Franka Panda (URDF, COLLADA meshes with
textures) and TALOS (URDF, STL meshes) from example-robot-data. A robot whose file is missing is
left out with a note. There is no other renderer to compare with here: MuJoCo's and pyrender's
need OpenGL (a display, EGL or OSMesa), which is the reason robodesc draws in numpy. So the table
gives the triangles drawn and the time per frame. Every figure is the best of several repeats in
one process (timing.best).

* render only: ``render_scene(scene)`` of a scene already built (2x supersampled, the default),
  and the same without supersampling (``antialias=False``);
* render with the scene: ``render(model, q)``: a new scene at another configuration (meshes are
  cached on the model, so no file is read) and its picture: what an animation pays per frame;
* cold: ``render(robodesc.load(path))``: read the description and every mesh file, then draw.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from timing import best

ROBOTS = {
    "unitree_h1 (MJCF, OBJ)": "mjcf/mujoco_menagerie/unitree_h1/h1.xml",
    "shadow_hand (MJCF, OBJ)": "mjcf/mujoco_menagerie/shadow_hand/right_hand.xml",
    "panda (URDF, DAE)": "urdf/example-robot-data/robots/panda_description/urdf/panda.urdf",
    "talos_reduced (URDF, STL)": "urdf/example-robot-data/robots/talos_data/robots/talos_reduced.urdf",
}
SIZE = (800, 600)


def measure(path: Path) -> dict[str, float]:
    import robodesc
    from robodesc.core.render import render, render_scene

    model = robodesc.load(path)
    scene = model.scene()
    rng = np.random.default_rng(0)
    q = rng.uniform(-0.3, 0.3, model.kinematics.nq)
    out: dict[str, float] = {}
    out["triangles"] = float(sum(len(g.faces) for g in scene.geometry.values()))
    out["shapes"] = float(len(scene.graph.nodes_geometry))
    out["render_aa"] = best(lambda: render_scene(scene, size=SIZE), 5)
    out["render_plain"] = best(lambda: render_scene(scene, size=SIZE, antialias=False), 5)
    out["scene_and_render"] = best(lambda: render(model, q, size=SIZE), 5)
    out["cold"] = best(lambda: render(robodesc.load(path), size=SIZE), 2, warm_up=False)
    return out
