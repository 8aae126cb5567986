"""Loading MJCF with robodesc, side by side with MuJoCo's own parser and compiler, as ratios.

    pip install -e ".[bench]"                      # mujoco is a test/benchmark dependency
    python benchmarks/bench_mjcf.py [FILE.xml ...]

Without arguments it uses Menagerie's Unitree H1 humanoid and MuJoCo's humanoid from the
reference corpus ($ROBODESC_CORPUS). Each figure is the best of several repeats in one process:
robodesc.load (defaults resolved, inertia inferred, kinematics ready) against
mujoco.MjSpec.from_file (parse only) and mujoco.MjModel.from_xml_path (parse and compile).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from timing import best


def main(argv: list[str]) -> int:
    import mujoco

    import robodesc

    files = [Path(a) for a in argv]
    if not files:
        corpus = os.environ.get("ROBODESC_CORPUS")
        if not corpus:
            sys.exit("pass MJCF files, or set ROBODESC_CORPUS to the reference corpus")
        root = Path(corpus) / "mjcf"
        files = [root / "mujoco_menagerie/unitree_h1/h1.xml", root / "mujoco/model/humanoid/humanoid.xml"]
    print(f"{'file':34} {'robodesc':>10} {'MjSpec.from_file':>17} {'MjModel.from_xml_path':>22}  ratios")
    for path in files:
        ours = best(lambda path=path: robodesc.load(path))
        spec = best(lambda path=path: mujoco.MjSpec.from_file(str(path)))
        compiled = best(lambda path=path: mujoco.MjModel.from_xml_path(str(path)))
        print(
            f"{path.name:34} {ours * 1e3:8.2f}ms {spec * 1e3:15.2f}ms {compiled * 1e3:20.2f}ms  "
            f"{ours / spec:.2f}x parse, {ours / compiled:.2f}x compile"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
