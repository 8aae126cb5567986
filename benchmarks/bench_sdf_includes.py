"""A world including one model N times loads in time linear in N.

    python benchmarks/bench_sdf_includes.py            # N = 10, 100, 1000
    python benchmarks/bench_sdf_includes.py --counts 10 100 1000 5000

Writes a temporary model folder (a small two-link arm with a revolute joint, a visual, a collision
and a `<frame>`, found through model.config as Gazebo models are) and a world that includes it
N times under different names and poses, then times `robodesc.load` (best of a few runs) and a
forward-kinematics call over every body. The included model is parsed once per load (the load's
cache) and each instance only resolves names and poses, so the time per instance stays flat.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from timing import best

MODEL = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="arm">
    <link name="base">
      <inertial><mass>2</mass><inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia></inertial>
      <collision name="c"><geometry><box><size>0.2 0.2 0.1</size></box></geometry></collision>
      <visual name="v"><geometry><box><size>0.2 0.2 0.1</size></box></geometry></visual>
    </link>
    <link name="upper">
      <pose>0 0 0.3 0 0 0</pose>
      <visual name="v"><geometry><cylinder><radius>0.05</radius><length>0.5</length></cylinder></geometry></visual>
    </link>
    <joint name="shoulder" type="revolute">
      <parent>base</parent>
      <child>upper</child>
      <pose>0 0 -0.25 0 0 0</pose>
      <axis><xyz>0 1 0</xyz><limit><lower>-1.5</lower><upper>1.5</upper></limit></axis>
    </joint>
    <frame name="tool" attached_to="upper"><pose>0 0 0.25 0 0 0</pose></frame>
  </model>
</sdf>
"""

CONFIG = """<?xml version="1.0"?>
<model><name>arm</name><sdf version="1.9">model.sdf</sdf></model>
"""


def write_world(folder: Path, count: int) -> Path:
    includes = "\n".join(
        f"    <include><uri>model://arm</uri><name>arm_{i}</name><pose>{i % 100} {i // 100} 0 0 0 0</pose></include>"
        for i in range(count)
    )
    path = folder / f"world_{count}.sdf"
    path.write_text(f'<?xml version="1.0"?>\n<sdf version="1.9">\n  <world name="w">\n{includes}\n  </world>\n</sdf>\n')
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--counts", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    import robodesc

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "models" / "arm").mkdir(parents=True)
        (root / "models" / "arm" / "model.sdf").write_text(MODEL)
        (root / "models" / "arm" / "model.config").write_text(CONFIG)
        search = [str(root / "models")]
        robodesc.load(write_world(root, 2), search_paths=search)  # warm-up: plugins, imports
        print(f"{'instances':>10} {'bodies':>8} {'load s':>9} {'ms/instance':>12} {'fk ms':>8}")
        for count in args.counts:
            world = write_world(root, count)
            seconds = best(lambda world=world: robodesc.load(world, search_paths=search), args.repeats)
            model = robodesc.load(world, search_paths=search)
            fk = best(lambda model=model: model.forward_kinematics({}), args.repeats)
            print(
                f"{count:>10} {len(model.bodies):>8} {seconds:>9.4f} {1000 * seconds / count:>12.3f} {1000 * fk:>8.3f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
