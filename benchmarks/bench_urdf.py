"""Side-by-side timings of robodesc against other URDF loaders, reported as ratios.

    pip install -e ".[bench]"          # yourdfpy, pin (pinocchio), example-robot-data
    python benchmarks/bench_urdf.py    # add --json FILE to keep the numbers

Robots come from the example-robot-data wheel: TALOS (a 60-link humanoid) and TIAGo dual
(a 130-link dual-arm robot). Every figure is the best of several repeats in one process, so the
loaders are measured on the same machine at the same moment; the ratios are what to compare.

* load:  robodesc.load (no meshes read) vs a bare defusedxml parse of the same bytes, and vs
         yourdfpy.URDF.load(load_meshes=False).
* fk:    one configuration, the world pose of every link: model.forward_kinematics(q) vs
         yourdfpy's update_cfg(q) followed by get_transform(link) for every link.
* batch: 10,000 configurations: model.forward_kinematics_batch(Q) (every link pose returned as
         an array) vs 10,000 Python calls of pinocchio.forwardKinematics (joint placements only).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from timing import Rows, best, run_table

ROBOTS = {
    "talos_reduced (60 links)": "talos_data/robots/talos_reduced.urdf",
    "tiago_dual (130 links)": "tiago_description/robots/tiago_dual.urdf",
}
BATCH = 10_000


def robots_root() -> Path:
    try:
        import example_robot_data  # noqa: F401 - only to find its files
    except ImportError:
        pass
    for entry in map(Path, sys.path):
        candidate = entry / "cmeel.prefix" / "share" / "example-robot-data" / "robots"
        if candidate.is_dir():
            return candidate
    sys.exit("example-robot-data is not installed: pip install -e '.[bench]'")


def measure(path: Path) -> dict[str, float]:
    import defusedxml.ElementTree as DefusedET
    import pinocchio
    import yourdfpy

    import robodesc

    data = path.read_bytes()
    out: dict[str, float] = {}
    out["parse_defusedxml"] = best(lambda: DefusedET.fromstring(data), 30)
    out["load_robodesc"] = best(lambda: robodesc.load(path), 30)
    out["load_yourdfpy"] = best(lambda: yourdfpy.URDF.load(str(path), load_meshes=False), 10)

    model = robodesc.load(path)
    urdf = yourdfpy.URDF.load(str(path), load_meshes=False)
    rng = np.random.default_rng(0)
    q_robodesc = rng.uniform(-0.5, 0.5, model.kinematics.nq)
    q_yourdfpy = rng.uniform(-0.5, 0.5, len(urdf.actuated_joint_names))
    links = list(urdf.link_map)

    def yourdfpy_fk() -> None:
        urdf.update_cfg(q_yourdfpy)
        for link in links:
            urdf.get_transform(link)

    out["fk_robodesc"] = best(lambda: model.forward_kinematics(q_robodesc), 300)
    out["fk_yourdfpy"] = best(yourdfpy_fk, 10)

    batch = rng.uniform(-0.5, 0.5, (BATCH, model.kinematics.nq))
    out["batch_robodesc"] = best(lambda: model.forward_kinematics_batch(batch), 5)
    pin_model = pinocchio.buildModelFromUrdf(str(path))
    pin_data = pin_model.createData()
    pin_q = [pinocchio.randomConfiguration(pin_model) for _ in range(BATCH)]

    def pinocchio_loop() -> None:
        for q in pin_q:
            pinocchio.forwardKinematics(pin_model, pin_data, q)

    out["batch_pinocchio"] = best(pinocchio_loop, 3)
    out["links"] = len(model.bodies)
    return out


def rows(r: dict) -> Rows:
    """One robot's figures as table rows, each slower loader's time with its ratio to robodesc's."""
    return [
        (
            "load: robodesc",
            r["load_robodesc"],
            f"{r['load_robodesc'] / r['parse_defusedxml']:.2f}x defusedxml parse",
        ),
        ("load: bare defusedxml parse", r["parse_defusedxml"], ""),
        ("load: yourdfpy", r["load_yourdfpy"], f"robodesc {r['load_yourdfpy'] / r['load_robodesc']:.1f}x faster"),
        ("fk, every link: robodesc", r["fk_robodesc"], ""),
        (
            "fk, every link: yourdfpy update_cfg+get_transform",
            r["fk_yourdfpy"],
            f"robodesc {r['fk_yourdfpy'] / r['fk_robodesc']:.0f}x faster",
        ),
        (f"batch of {BATCH}: robodesc (all link poses)", r["batch_robodesc"], ""),
        (
            f"batch of {BATCH}: pinocchio forwardKinematics loop",
            r["batch_pinocchio"],
            f"robodesc {r['batch_pinocchio'] / r['batch_robodesc']:.2f}x as fast",
        ),
    ]


def main() -> int:
    root = robots_root()
    return run_table(__doc__, {label: root / rel for label, rel in ROBOTS.items()}, measure, rows, 46)


if __name__ == "__main__":
    sys.exit(main())
