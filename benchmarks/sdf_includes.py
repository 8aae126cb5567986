"""A world including one model N times loads in time linear in N.

    python benchmarks/run.py --only includes        # N = 10, 100, 1000: measured and tabled by run.py

Writes a temporary model folder (a small two-link arm with a revolute joint, a visual, a collision
and a `<frame>`, found through model.config as Gazebo models are) and a world that includes it
N times under different names and poses; run.py times `robodesc.load` of it. The included model
is parsed once per load (the load's cache) and each instance only resolves names and poses, so
the time per instance stays flat.
"""

from __future__ import annotations

from pathlib import Path

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
