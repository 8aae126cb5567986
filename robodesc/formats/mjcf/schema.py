"""MuJoCo 4.0's MJCF schema: which elements may appear where, how often, and with which attributes.

MuJoCo validates every model against a schema table before reading it (``mjXSchema::Check`` over
the ``MJCF`` table in ``src/xml``) and refuses the whole file on the first unknown element
("unrecognized element"), unknown attribute ("unrecognized attribute: 'x'"), repeated unique
element or broken presence constraint ("at most one of 'fovy', 'sensorsize' can be specified").
robodesc refuses the same files, so this module carries that table and a checker that walks a
parsed tree the way MuJoCo does.

The table below is MuJoCo 4.0.0's own, as its compiled library prints it (``mj_printSchema``);
attribute names are sorted, ``(R)`` marks an element that may nest in itself (``<body>``,
``<default>``), ``(?)`` at most once per parent, ``(!)`` exactly once, ``(*)`` any number of
times. The same tag means different things under different parents (a ``<joint>`` in a body, in
a ``<default>``, in ``<equality>``, in ``<tendon><fixed>``), so every element is checked against
its parent's node, never by tag alone. Templates in ``<default>`` have their own rows: no
``name``/``class``, no transmission targets on actuators. tests/test_mjcf_schema.py compares the
table row by row with the installed ``mujoco`` package when there is one. MuJoCo 4.0 also checks a
few presence constraints (`CONSTRAINTS`: ``fovy`` or ``sensorsize`` on a camera, a ``<connect>``
by sites or by body and anchor, ...); they are checked here too.

What MuJoCo does on top of the bare table, and this module copies:

* ``<include>`` may appear anywhere. MuJoCo splices the included file in before the check and
  then looks through the include element (``FirstChildElement``), so an ``<include>`` is
  transparent: its attributes are not checked and its children are checked as children of the
  include's parent.
* ``<worldbody>`` (directly under ``<mujoco>``) takes the ``<body>`` row. MuJoCo's reader then
  refuses any attribute on it and any ``<inertial>``, ``<joint>`` or ``<freejoint>`` in the world
  body (also inside a ``<frame>`` of the world body), so here ``<worldbody>`` has no attributes and
  those children are refused with MuJoCo's reason.
* ``<frame>`` and ``<replicate>`` are matched against the ``<body>`` row by name only: inside a
  body they are accepted *without checking their attributes or anything beneath them*. MuJoCo's
  body reader still refuses element tags it does not read there ("unrecognized model element"),
  and a ``<joint>``/``<freejoint>`` directly in a ``<replicate>``. These subtrees get "lenient"
  nodes (`ElementSchema.attributes` is None). With ``strict=True`` they are checked instead:
  ``<frame>``/``<replicate>`` with the attributes MuJoCo's reader takes from them
  (`FRAME_ATTRIBUTES`, `REPLICATE_ATTRIBUTES`), their contents like a body's. That refuses files
  MuJoCo loads (a misspelt attribute in a frame, which MuJoCo silently ignores).
* ``<body>``, ``<frame>`` and ``<replicate>`` directly under ``<mujoco>`` are checked against the
  ``<body>`` row and otherwise ignored by MuJoCo; they are accepted the same way here.

Use: walk the tree with `check_element` (one call per element, set and dict look-ups only), or let
`check_tree`/`iter_problems`/`validate` walk it. Each problem is a `SchemaProblem` that unpacks as
``(element, message, allowed, name)``; ``allowed`` lists the valid names for a "did you mean".
"""

from __future__ import annotations

import difflib
import re
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

__all__ = [
    "ANY",
    "BODY_READER_TAGS",
    "FRAME_ATTRIBUTES",
    "MUJOCO_VERSION",
    "REPLICATE_ATTRIBUTES",
    "ROOT",
    "SCHEMA",
    "STRICT_ROOT",
    "STRICT_SCHEMA",
    "CONSTRAINTS",
    "ElementSchema",
    "SchemaProblem",
    "check_attributes",
    "check_constraints",
    "check_element",
    "check_multiplicity",
    "check_root",
    "check_tree",
    "closest",
    "iter_children",
    "iter_problems",
    "root_schema",
    "validate",
]

MUJOCO_VERSION = "4.0.0"

# MuJoCo 4.0.0's schema table, in the layout `mj_printSchema` prints: one element per line,
# indented two spaces per level, "tag (multiplicity) attribute...", long attribute lists
# continued on deeper-indented lines. "body" is the row MuJoCo prints as "(world)body".
_TABLE = """
    mujoco (!) model
      compiler (*) alignfree angle assetdir autolimits balanceinertia boundinertia boundmass conflict coordinate
          discardvisual eulerseq fitaabb fusestatic inertiafromgeom inertiagrouprange meshdir passthrough
          savecanonical savecompiled saveinertial settotalmass strippath texturedir usethread
        lengthrange (?) accel interval inttotal maxforce mode timeconst timestep tolrange useexisting uselimit
      option (*) actuatorgroupdisable ccd_iterations ccd_tolerance cone density gravity impratio integrator
          iterations jacobian ls_iterations ls_tolerance magnetic noslip_iterations noslip_tolerance o_friction
          o_margin o_solimp o_solref sdf_initpoints sdf_iterations sleep_tolerance solver timestep tolerance
          viscosity wind
        flag (?) actuation autoreset clampctrl constraint contact damper diagexact energy equality eulerdamp
            filterparent frictionloss fwdinv gravity invdiscrete ipc island limit midphase multiccd nativeccd
            override refsafe sensor sleep speculative spring warmstart
      size (*) memory nconmax njmax nkey nstack nuser_actuator nuser_body nuser_cam nuser_geom nuser_jnt
          nuser_sensor nuser_site nuser_tendon nuserdata
      statistic (*) center extent meaninertia meanmass meansize
      visual (*)
        global (?) azimuth bvactive cameraid elevation ellipsoidinertia fovy glow ipd linewidth offheight offwidth
            orthographic realtime
        quality (?) numquads numslices numstacks offsamples shadowsize
        headlight (?) active ambient diffuse specular
        map (?) actuatortendon alpha fogend fogstart force haze shadowclip shadowscale stiffness stiffnessrot torque
            zfar znear
        scale (?) actuatorlength actuatorwidth camera com connect constraint contactheight contactwidth forcewidth
            framelength framewidth frustum jointlength jointwidth light selectpoint slidercrank
        rgba (?) actuator actuatornegative actuatorpositive bv bvactive camera com connect constraint contactforce
            contactfriction contactgap contactpoint contacttorque crankbroken fog force frustum haze inertia joint
            light rangefinder selectpoint slidercrank
      default (R) class
        mesh (?) inertia maxhullvert scale
        texture (?) builtin colorspace embed gridlayout gridsize height hflip mark markrgb nchannel random rgb1 rgb2
            type vflip width
        material (?) emission metallic reflectance rgba roughness shininess specular texrepeat texture texuniform
          layer (*) role texture
        joint (?) actuatorfrclimited actuatorfrcrange actuatorgravcomp armature axis damping frictionloss group
            limited margin pos range ref solimpfriction solimplimit solreffriction solreflimit springdamper
            springref springyield stiffness type user
        geom (?) adhesion axisangle castshadow conaffinity condim contype density euler fitscale fluidcoef
            fluidshape friction fromto gap group hfield margin mass material mesh pos priority quat rgba
            shellinertia size solimp solmix solref surfacevel type user xyaxes zaxis
        site (?) axisangle euler fromto group material mesh pos quat rgba size type user xyaxes zaxis
        camera (?) axisangle euler focal focalpixel fovy ipd mode output pos principal principalpixel projection
            quat resolution sensorsize user xyaxes zaxis
        light (?) active ambient attenuation bulbradius castshadow cutoff diffuse dir directional exponent intensity
            mode pos range softness specular type
        pair (?) adhesion condim friction gap margin solimp solref solreffriction
        equality (?) active solimp solref
        tendon (?) actuatorfrclimited actuatorfrcrange armature damping frictionloss group limited margin material
            range rgba solimpfriction solimplimit solreffriction solreflimit springlength springyield stiffness user
            width
        general (?) actdim actearly actlimited actrange armature biasprm biastype cranklength ctrllimited ctrlrange
            damping delay dynprm dyntype ffrange forcelimited forcerange gainprm gaintype gear group inheritrange
            input interp nsample user velrange
        motor (?) armature cranklength ctrllimited ctrlrange damping delay forcelimited forcerange gear group interp
            nsample user
        position (?) armature cranklength ctrllimited ctrlrange damping dampratio delay forcelimited forcerange gear
            group inheritrange interp kp kv nsample timeconst user
        velocity (?) armature cranklength ctrllimited ctrlrange damping delay forcelimited forcerange gear group
            interp kv nsample user
        intvelocity (?) actlimited actrange armature cranklength ctrllimited ctrlrange damping dampratio delay
            forcelimited forcerange gear group inheritrange interp kp kv nsample user
        orientation (?) ctrlrange dampratio delay forcelimited forcerange group input interp kp kv nsample user
        pid (?) armature cranklength ctrllimited ctrlrange damping dampratio delay ffrange forcelimited forcerange
            gear group imax inheritrange input interp ki kp kv nsample posrange slewmax user velrange
        damper (?) armature cranklength ctrlrange damping delay forcelimited forcerange gear group interp kv nsample
            user
        cylinder (?) area armature bias cranklength ctrllimited ctrlrange damping delay diameter forcelimited
            forcerange gear group interp nsample timeconst user
        muscle (?) armature cranklength ctrllimited ctrlrange damping delay force forcelimited forcerange fpmax
            fvmax gear group interp lmax lmin nsample range scale timeconst user vmax
        adhesion (?) ctrlrange delay forcelimited forcerange gain group interp nsample user
        dcmotor (?) armature cogging controller cranklength ctrllimited ctrlrange damping delay gear group
            inductance input interp lugre motorconst nominal nsample resistance saturation thermal user
      extension (*)
        plugin (*) plugin
          instance (*) name
            config (*) key value
      asset (*)
        mesh (*) builtin class content_type face file inertia material maxhullvert name normal params refpos refquat
            scale smoothnormal texcoord vertex
          plugin (*) instance plugin
            config (*) key value
        hfield (*) content_type elevation file name ncol nrow size
        skin (*) face file group inflate material name rgba texcoord vertex
          bone (*) bindpos bindquat body vertid vertweight
        texture (*) builtin class colorspace content_type embed file fileback filedown filefront fileleft fileright
            fileup gridlayout gridsize height hflip mark markrgb name nchannel random rgb1 rgb2 type vflip width
        material (*) class emission metallic name reflectance rgba roughness shininess specular texrepeat texture
            texuniform
          layer (*) role texture
        model (*) content_type file name
      body (R) axisangle childclass euler fuse gravcomp mocap name pos quat simple sleep user xyaxes zaxis
        inertial (?) axisangle diaginertia euler fullinertia mass pos quat xyaxes zaxis
        joint (*) actuatorfrclimited actuatorfrcrange actuatorgravcomp armature axis class damping frictionloss
            group limited margin name pos range ref solimpfriction solimplimit solreffriction solreflimit
            springdamper springref springyield stiffness type user
        freejoint (*) align group name
        geom (*) adhesion axisangle castshadow class conaffinity condim contype density euler fitscale fluidcoef
            fluidshape friction fromto gap group hfield margin mass material mesh name pos priority quat rgba
            shellinertia size solimp solmix solref surfacevel type user xyaxes zaxis
          plugin (*) instance plugin
            config (*) key value
        attach (*) body frame model prefix
        site (*) axisangle class euler fromto group material mesh name pos quat rgba size type user xyaxes zaxis
        camera (*) axisangle class euler focal focalpixel fovy ipd mode name output pos principal principalpixel
            projection quat resolution sensorsize target user xyaxes zaxis
        light (*) active ambient attenuation bulbradius castshadow class cutoff diffuse dir directional exponent
            intensity mode name pos range softness specular target texture type
        plugin (*) instance plugin
          config (*) key value
        flexcomp (*) axisangle cellcount count dim dof element euler file flatskin group inertiabox mass material
            mesh name origin point pos quat radius rgba rigid scale spacing texcoord type xyaxes zaxis
          edge (?) damping equality solimp solref stiffness
          elasticity (?) damping elastic2d poisson section sectionsize shear thickness yield young
          contact (?) activelayers conaffinity condim contype friction gap margin passive priority selfcollide
              solimp solmix solref
          pin (*) grid gridrange id range
          plugin (*) instance plugin
            config (*) key value
      deformable (*)
        flex (*) body cellcount dim dof element elemtexcoord flatskin group material name node nodecoord radius rgba
            texcoord vertex
          contact (?) activelayers conaffinity condim contype friction gap margin passive priority selfcollide
              solimp solmix solref
          edge (?) damping stiffness
          elasticity (?) damping elastic2d poisson section sectionsize shear thickness yield young
        skin (*) face file group inflate material name rgba texcoord vertex
          bone (*) bindpos bindquat body vertid vertweight
      contact (*)
        pair (*) adhesion class condim friction gap geom1 geom2 margin name solimp solref solreffriction
        exclude (*) body1 body2 name
      tendon (*)
        spatial (*) actuatorfrclimited actuatorfrcrange armature class damping frictionloss group limited margin
            material name range rgba solimpfriction solimplimit solreffriction solreflimit springlength springyield
            stiffness user width
          site (*) site
          geom (*) geom sidesite
          pulley (*) divisor
        fixed (*) actuatorfrclimited actuatorfrcrange armature class damping frictionloss group limited margin name
            range solimpfriction solimplimit solreffriction solreflimit springlength springyield stiffness user
          joint (*) coef joint
      equality (*)
        connect (*) active anchor body1 body2 class name site1 site2 solimp solref
        weld (*) active anchor body1 body2 class name relpose site1 site2 solimp solref torquescale
        joint (*) active class joint1 joint2 name polycoef solimp solref
        tendon (*) active class name polycoef solimp solref tendon1 tendon2
        flex (*) active class flex name solimp solref
        flexstrain (*) active cell class flex name solimp solref
      actuator (*)
        general (*) actdim actearly actlimited actrange armature biasprm biastype body class cranklength cranksite
            ctrllimited ctrlrange damping delay dynprm dyntype ffrange forcelimited forcerange gainprm gaintype gear
            group inheritrange input interp joint jointinparent lengthrange name nsample refsite site slidersite
            tendon user velrange
        motor (*) armature class cranklength cranksite ctrllimited ctrlrange damping delay forcelimited forcerange
            gear group interp joint jointinparent lengthrange name nsample refsite site slidersite tendon user
        position (*) armature class cranklength cranksite ctrllimited ctrlrange damping dampratio delay forcelimited
            forcerange gear group inheritrange interp joint jointinparent kp kv lengthrange name nsample refsite
            site slidersite tendon timeconst user
        velocity (*) armature class cranklength cranksite ctrllimited ctrlrange damping delay forcelimited
            forcerange gear group interp joint jointinparent kv lengthrange name nsample refsite site slidersite
            tendon user
        intvelocity (*) actlimited actrange armature class cranklength cranksite ctrllimited ctrlrange damping
            dampratio delay forcelimited forcerange gear group inheritrange interp joint jointinparent kp kv
            lengthrange name nsample refsite site slidersite tendon user
        orientation (*) class ctrlrange dampratio delay forcelimited forcerange group input interp joint kp kv name
            nsample refsite site user
        pid (*) armature class cranklength cranksite ctrllimited ctrlrange damping dampratio delay ffrange
            forcelimited forcerange gear group imax inheritrange input interp joint jointinparent ki kp kv
            lengthrange name nsample posrange refsite site slewmax slidersite tendon user velrange
        damper (*) armature class cranklength cranksite ctrlrange damping delay forcelimited forcerange gear group
            interp joint jointinparent kv lengthrange name nsample refsite site slidersite tendon user
        cylinder (*) area armature bias class cranklength cranksite ctrllimited ctrlrange damping delay diameter
            forcelimited forcerange gear group interp joint jointinparent lengthrange name nsample refsite site
            slidersite tendon timeconst user
        muscle (*) armature class cranklength cranksite ctrllimited ctrlrange damping delay force forcelimited
            forcerange fpmax fvmax gear group interp joint jointinparent lengthrange lmax lmin name nsample range
            scale slidersite tausmooth tendon timeconst user vmax
        adhesion (*) body class ctrlrange delay forcelimited forcerange gain group interp name nsample user
        dcmotor (*) armature class cogging controller cranklength cranksite ctrllimited ctrlrange damping delay gear
            group inductance input interp joint jointinparent lengthrange lugre motorconst name nominal nsample
            refsite resistance saturation site slidersite tendon thermal user
        plugin (*) actdim actearly actlimited actrange armature class cranklength cranksite ctrllimited ctrlrange
            damping delay dynprm dyntype forcelimited forcerange gear group instance interp joint jointinparent
            lengthrange name nsample plugin site slidersite tendon user
          config (*) key value
      sensor (*)
        touch (*) cutoff delay interp interval name noise nsample site user
        accelerometer (*) cutoff delay interp interval name noise nsample site user
        velocimeter (*) cutoff delay interp interval name noise nsample site user
        gyro (*) cutoff delay interp interval name noise nsample site user
        force (*) cutoff delay interp interval name noise nsample site user
        torque (*) cutoff delay interp interval name noise nsample site user
        magnetometer (*) cutoff delay interp interval name noise nsample site user
        camprojection (*) camera cutoff delay interp interval name noise nsample site user
        rangefinder (*) camera cutoff data delay interp interval name noise nsample site user
        jointpos (*) cutoff delay interp interval joint name noise nsample user
        jointvel (*) cutoff delay interp interval joint name noise nsample user
        tendonpos (*) cutoff delay interp interval name noise nsample tendon user
        tendonvel (*) cutoff delay interp interval name noise nsample tendon user
        actuatorpos (*) actuator cutoff delay interp interval name noise nsample user
        actuatorvel (*) actuator cutoff delay interp interval name noise nsample user
        actuatorfrc (*) actuator cutoff delay interp interval name noise nsample user
        jointactuatorfrc (*) cutoff delay interp interval joint name noise nsample user
        tendonactuatorfrc (*) cutoff delay interp interval name noise nsample tendon user
        ballquat (*) cutoff delay interp interval joint name noise nsample user
        ballangvel (*) cutoff delay interp interval joint name noise nsample user
        jointlimitpos (*) cutoff delay interp interval joint name noise nsample user
        jointlimitvel (*) cutoff delay interp interval joint name noise nsample user
        jointlimitfrc (*) cutoff delay interp interval joint name noise nsample user
        tendonlimitpos (*) cutoff delay interp interval name noise nsample tendon user
        tendonlimitvel (*) cutoff delay interp interval name noise nsample tendon user
        tendonlimitfrc (*) cutoff delay interp interval name noise nsample tendon user
        framepos (*) cutoff delay interp interval name noise nsample objname objtype refname reftype user
        framequat (*) cutoff delay interp interval name noise nsample objname objtype refname reftype user
        framexaxis (*) cutoff delay interp interval name noise nsample objname objtype refname reftype user
        frameyaxis (*) cutoff delay interp interval name noise nsample objname objtype refname reftype user
        framezaxis (*) cutoff delay interp interval name noise nsample objname objtype refname reftype user
        framelinvel (*) cutoff delay interp interval name noise nsample objname objtype refname reftype user
        frameangvel (*) cutoff delay interp interval name noise nsample objname objtype refname reftype user
        framelinacc (*) cutoff delay interp interval name noise nsample objname objtype user
        frameangacc (*) cutoff delay interp interval name noise nsample objname objtype user
        subtreecom (*) body cutoff delay interp interval name noise nsample user
        subtreelinvel (*) body cutoff delay interp interval name noise nsample user
        subtreeangmom (*) body cutoff delay interp interval name noise nsample user
        insidesite (*) cutoff delay enclosed interp interval name noise nsample objname objtype site user
        distance (*) body1 body2 cutoff delay geom1 geom2 interp interval name noise nsample user
        normal (*) body1 body2 cutoff delay geom1 geom2 interp interval name noise nsample user
        fromto (*) body1 body2 cutoff delay geom1 geom2 interp interval name noise nsample user
        contact (*) body1 body2 cutoff data delay geom1 geom2 interp interval name noise nsample num reduce site
            subtree1 subtree2 user
        e_potential (*) cutoff delay interp interval name noise nsample user
        e_kinetic (*) cutoff delay interp interval name noise nsample user
        clock (*) cutoff delay interp interval name noise nsample user
        tactile (*) cutoff delay geom interp interval mesh name nsample user
        user (*) cutoff datatype dim name needstage noise objname objtype user
        plugin (*) cutoff instance name objname objtype plugin refname reftype user
          config (*) key value
      custom (*)
        numeric (*) data name size
        text (*) data name
        tuple (*) name
          element (*) objname objtype prm
      keyframe (*)
        key (*) act ctrl mpos mquat name plastic qpos qvel time
"""

# Attributes MuJoCo's reader takes from a <frame> / <replicate> (``mjXReader::Body``; ``class`` is
# read for every element there). MuJoCo does not check them: they are used only with strict=True.
FRAME_ATTRIBUTES = frozenset({"name", "class", "childclass", "pos", "quat", "axisangle", "xyaxes", "zaxis", "euler"})
REPLICATE_ATTRIBUTES = frozenset({"class", "childclass", "count", "offset", "euler", "sep"})

# The tags MuJoCo's body reader accepts inside a body, frame or replicate; anything else there is
# "unrecognized model element" even where the schema check does not reach (inside frames).
BODY_READER_TAGS = frozenset(
    {
        "inertial", "joint", "freejoint", "geom", "site", "camera", "light", "plugin", "flexcomp",
        "frame", "replicate", "body", "attach",
    }
)  # fmt: skip

_WORLD_FORBIDDEN = MappingProxyType(
    {
        "inertial": "the world body cannot have inertia",
        "joint": "the world body cannot have joints",
        "freejoint": "the world body cannot have joints",
    }
)
_REPLICATE_FORBIDDEN = MappingProxyType(
    {
        "joint": "a joint cannot be a direct child of <replicate>",
        "freejoint": "a joint cannot be a direct child of <replicate>",
    }
)
_BODY_FAMILY = ("body", "frame", "replicate")

# MuJoCo 4.0's presence constraints, checked right after an element's attribute names. A spec is
# "|"-separated bundles of space-separated attributes. "e": at most one bundle may appear (a bundle
# appears when any of its attributes does); "o": some bundle must appear whole; "t": the bundles
# appear all or none. Keyed by the element's canonical path (see SCHEMA).
_REFERENCE_SENSORS = ("framepos", "framequat", "framexaxis", "frameyaxis", "framezaxis", "framelinvel", "frameangvel")
CONSTRAINTS: Mapping[str, tuple[tuple[str, str], ...]] = MappingProxyType(
    {
        "mujoco/size": (("e", "memory|nstack"), ("e", "memory|njmax")),
        "mujoco/default/camera": (("e", "fovy|sensorsize"),),
        "mujoco/default/light": (("e", "directional|type"),),
        "mujoco/asset/mesh": (("e", "builtin|file"), ("e", "builtin|vertex")),
        "mujoco/worldbody/body/inertial": (("e", "fullinertia|quat|axisangle|xyaxes|zaxis|euler"),),
        "mujoco/worldbody/body/attach": (("e", "body|frame"),),
        "mujoco/worldbody/body/camera": (("e", "fovy|sensorsize"),),
        "mujoco/worldbody/body/light": (("e", "directional|type"),),
        "mujoco/equality/connect": (
            ("e", "site1 site2|body1 body2 anchor"),
            ("o", "site1 site2|body1 anchor"),
            ("t", "site1|site2"),
        ),
        "mujoco/equality/weld": (
            ("e", "site1 site2|body1 body2 anchor relpose"),
            ("o", "site1 site2|body1"),
            ("t", "site1|site2"),
        ),
        "mujoco/sensor/rangefinder": (("e", "site|camera"), ("o", "site|camera")),
        **{f"mujoco/sensor/{tag}": (("t", "reftype|refname"),) for tag in _REFERENCE_SENSORS},
        **{
            f"mujoco/sensor/{tag}": (
                ("e", "geom1|body1"),
                ("o", "geom1|body1"),
                ("e", "geom2|body2"),
                ("o", "geom2|body2"),
            )
            for tag in ("distance", "normal", "fromto")
        },
        "mujoco/sensor/contact": (("e", "geom1|body1|subtree1|site"), ("e", "geom2|body2|subtree2")),
        "mujoco/sensor/user": (("t", "objtype|objname"),),
    }
)
_NO_PROBLEMS: tuple[SchemaProblem, ...] = ()


class _Constraint:
    """One presence constraint: its kind ("e", "o", "t"), its bundles and MuJoCo's wording."""

    __slots__ = ("kind", "spec", "bundles", "attributes", "phrase")

    def __init__(self, kind: str, spec: str) -> None:
        self.kind = kind
        self.spec = spec
        self.bundles = tuple(tuple(bundle.split()) for bundle in spec.split("|"))
        self.attributes = frozenset(name for bundle in self.bundles for name in bundle)
        listed = ", ".join(
            f"'{bundle[0]}'" if len(bundle) == 1 else "(" + ", ".join(f"'{name}'" for name in bundle) + ")"
            for bundle in self.bundles
        )
        if kind == "e":
            self.phrase = f"at most one of {listed} can be specified"
        elif kind == "o":
            self.phrase = f"one of {listed} must be specified"
        else:
            self.phrase = f"attributes {listed} must be specified together"

    def violated(self, element: Any) -> bool:
        get = element.get
        if self.kind == "o":
            return not any(all(get(name) is not None for name in bundle) for bundle in self.bundles)
        present = sum(1 for bundle in self.bundles if any(get(name) is not None for name in bundle))
        if self.kind == "e":
            return present > 1
        return 0 < present < len(self.bundles)


class ElementSchema:
    """One element in context: its attributes, its children, and how often it may appear.

    `occurs` is the table's multiplicity: "!" exactly once, "?" at most once, "*" any number, "R"
    any number and may nest in itself. `attributes` is None and `children` is None for a subtree
    MuJoCo does not check (`ANY`: anything goes). A lenient node (inside a <frame>/<replicate> of
    a body) has `attributes` None but `children` set: MuJoCo's reader still refuses unknown tags
    there. `forbidden` maps child tags that MuJoCo's schema check accepts (and checks) but its
    reader refuses in this context to the reason; `reader_attributes` are attribute names the
    schema passes but the reader refuses (on <worldbody>); `constraints` are the presence
    constraints on the attributes (see `CONSTRAINTS`).
    """

    __slots__ = (
        "tag", "path", "occurs", "attributes", "children", "forbidden", "note", "reader_attributes", "constraints",
        "_sorted", "_unique",
    )  # fmt: skip

    def __init__(
        self,
        tag: str,
        path: str,
        occurs: str,
        attributes: frozenset[str] | None,
        children: dict[str, ElementSchema] | None,
        forbidden: Mapping[str, str] | None = None,
        note: str | None = None,
    ) -> None:
        self.tag = tag
        self.path = path
        self.occurs = occurs
        self.attributes = attributes
        self.children = children
        self.forbidden: Mapping[str, str] = forbidden or MappingProxyType({})
        self.note = note
        self.reader_attributes: frozenset[str] = frozenset()  # passed by the schema, refused by the reader
        self.constraints: tuple[_Constraint, ...] = ()
        self._sorted: dict[str, tuple[str, ...]] = {}
        self._unique: dict[str, str] | None = None

    @property
    def repeatable(self) -> bool:
        """May appear more than once under one parent."""
        return self.occurs in "*R"

    @property
    def required(self) -> bool:
        return self.occurs == "!"

    @property
    def checked(self) -> bool:
        """MuJoCo checks this element's attribute names."""
        return self.attributes is not None

    def child(self, tag: str) -> ElementSchema | None:
        """The node of a child `tag` here (``<include>``: this node), or None when it is not allowed."""
        if tag == "include":
            return self
        if self.children is None:
            return ANY
        return self.children.get(tag)

    @property
    def allowed_attributes(self) -> tuple[str, ...]:
        """Sorted attribute names (empty when unchecked)."""
        got = self._sorted.get("a")
        if got is None:
            got = self._sorted["a"] = tuple(sorted(self.attributes or ()))
        return got

    @property
    def allowed_children(self) -> tuple[str, ...]:
        """Sorted child tags allowed here, ``include`` among them (empty when unchecked)."""
        got = self._sorted.get("c")
        if got is None:
            tags = {*self.children, "include"} - set(self.forbidden) if self.children is not None else ()
            got = self._sorted["c"] = tuple(sorted(tags))
        return got

    def __repr__(self) -> str:
        return f"<ElementSchema {self.path} ({self.occurs})>"


class SchemaProblem:
    """An element or attribute MuJoCo would refuse.

    Unpacks as ``(element, message, allowed, name)``: the offending XML element (for a repeated
    unique child, the parent, as MuJoCo reports it), a message, the valid names to suggest from,
    and the offending name. `kind` is "element", "attribute", "constraint" (attributes that may
    not, or must, appear together; `name` is then the constraint, e.g. "fovy|sensorsize") or
    "multiplicity"; `parent` is the parent element's tag. `stage` says which part of MuJoCo
    refuses it: "schema" (its schema check, "Schema violation: ..."), "reader" (its model reader,
    after the schema check passed: "unrecognized model element", "World body cannot have ...")
    or "strict" (MuJoCo accepts it; only strict checking refuses it).
    """

    __slots__ = ("kind", "element", "message", "allowed", "name", "parent", "stage")

    def __init__(
        self,
        kind: str,
        element: Any,
        message: str,
        allowed: tuple[str, ...],
        name: str,
        parent: str | None,
        stage: str = "schema",
    ) -> None:
        self.kind = kind
        self.element = element
        self.message = message
        self.allowed = allowed
        self.name = name
        self.parent = parent
        self.stage = stage

    def __iter__(self) -> Iterator[Any]:
        return iter((self.element, self.message, self.allowed, self.name))

    @property
    def suggestion(self) -> str | None:
        """The closest valid name, if one is close."""
        return closest(self.name, self.allowed)

    def __repr__(self) -> str:
        return f"SchemaProblem({self.kind!r}, {self.message!r})"

    def __str__(self) -> str:
        return self.message


def closest(name: str, allowed: Iterable[str]) -> str | None:
    """The allowed name closest to a misspelt `name`, or None when nothing is close."""
    matches = difflib.get_close_matches(name, list(allowed), n=1, cutoff=0.6)
    return matches[0] if matches else None


# -- building the nodes ---------------------------------------------------------------------------

_ROW = re.compile(r"^( *)(\S+) \(([!?*R])\)(.*)$")


def _parse_table(text: str) -> dict[str, Any]:
    """The table as nested dicts {tag, occurs, attrs, children}."""
    root: dict[str, Any] | None = None
    stack: list[tuple[int, dict[str, Any]]] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        match = _ROW.match(line)
        if match is None:  # continued attribute list
            stack[-1][1]["attrs"].extend(line.split())
            continue
        indent = len(match.group(1))
        row = {"tag": match.group(2), "occurs": match.group(3), "attrs": match.group(4).split(), "children": []}
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if stack:
            stack[-1][1]["children"].append(row)
        else:
            root = row
        stack.append((indent, row))
    assert root is not None
    return root


ANY = ElementSchema("*", "*", "*", None, None, note="not checked by MuJoCo: anything is accepted")


def _build(raw: dict[str, Any], strict: bool) -> tuple[ElementSchema, dict[str, ElementSchema]]:
    """The node tree for the whole table, and every node by its canonical path."""
    nodes: dict[str, ElementSchema] = {}

    def plain(row: dict[str, Any], path: str) -> ElementSchema:
        children: dict[str, ElementSchema] = {}
        node = ElementSchema(row["tag"], path, row["occurs"], frozenset(row["attrs"]), children)
        nodes[path] = node
        for sub in row["children"]:
            children[sub["tag"]] = plain(sub, f"{path}/{sub['tag']}")
        if row["occurs"] == "R":
            children[row["tag"]] = node
        return node

    top_children: dict[str, ElementSchema] = {}
    top = ElementSchema("mujoco", "mujoco", raw["occurs"], frozenset(raw["attrs"]), top_children)
    nodes["mujoco"] = top
    body_row = None
    for sub in raw["children"]:
        if sub["tag"] == "body":
            body_row = sub
            continue
        top_children[sub["tag"]] = plain(sub, f"mujoco/{sub['tag']}")
    assert body_row is not None

    # children of a body that are not themselves bodies: one node each, shared by every body
    leaves = {sub["tag"]: plain(sub, f"mujoco/worldbody/body/{sub['tag']}") for sub in body_row["children"]}
    body_attrs = frozenset(body_row["attrs"])

    # The body family: (role, in world body, directly in a replicate, checked) -> node, filled
    # breadth-first so that each node's path is the shortest way to reach it.
    family: dict[tuple[str, bool, bool, bool], ElementSchema] = {}
    queue: deque[tuple[tuple[str, bool, bool, bool], ElementSchema]] = deque()

    def member(key: tuple[str, bool, bool, bool], path: str) -> ElementSchema:
        node = family.get(key)
        if node is None:
            role, _world, _replicate, checked = key
            attrs: frozenset[str] | None
            if not checked:
                attrs, note = None, "MuJoCo does not check attributes or contents here, only the tags it reads"
            elif role == "worldbody":
                attrs, note = frozenset(), "MuJoCo: the world body cannot have attributes"
            elif role == "frame":
                attrs, note = FRAME_ATTRIBUTES, "strict: MuJoCo itself does not check <frame>"
            elif role == "replicate":
                attrs, note = REPLICATE_ATTRIBUTES, "strict: MuJoCo itself does not check <replicate>"
            else:
                attrs, note = body_attrs, None
            node = ElementSchema(role, path, "R" if role in ("body", "worldbody") else "*", attrs, {}, note=note)
            family[key] = node
            nodes.setdefault(path, node)
            queue.append((key, node))
        return node

    def fill(key: tuple[str, bool, bool, bool], node: ElementSchema) -> None:
        role, world, replicate, checked = key
        forbidden = dict(_WORLD_FORBIDDEN) if world else {}
        if replicate:
            forbidden.update(_REPLICATE_FORBIDDEN)
        node.forbidden = MappingProxyType(forbidden)
        path = node.path
        assert node.children is not None
        for tag, leaf in leaves.items():  # forbidden ones too: MuJoCo's schema check still looks at them
            if checked:
                node.children[tag] = leaf
            elif tag in BODY_READER_TAGS:
                node.children[tag] = ANY
        # a checked node checks the bodies in it; frames and replicates are checked only when
        # strict, and whatever sits in an unchecked node is unchecked too
        framed = checked and strict
        node.children["body"] = member(("body", False, False, checked), f"{path}/body")
        node.children["frame"] = member(("frame", world, replicate, framed), f"{path}/frame")
        node.children["replicate"] = member(("replicate", False, True, framed), f"{path}/replicate")

    worldbody = member(("worldbody", True, False, True), "mujoco/worldbody")
    worldbody.reader_attributes = body_attrs
    body = member(("body", False, False, True), "mujoco/worldbody/body")
    while queue:
        fill(*queue.popleft())
    top_children["worldbody"] = worldbody
    # <body>, <frame>, <replicate> right under <mujoco> match the body row (and are then ignored)
    for tag in _BODY_FAMILY:
        top_children[tag] = body
    return top, nodes


_RAW_TABLE = _parse_table(_TABLE)
ROOT, _NODES = _build(_RAW_TABLE, strict=False)
STRICT_ROOT, _STRICT_NODES = _build(_RAW_TABLE, strict=True)
for _path, _specs in CONSTRAINTS.items():
    _NODES[_path].constraints = _STRICT_NODES[_path].constraints = tuple(_Constraint(*spec) for spec in _specs)

#: Every node of MuJoCo's schema by canonical path ("mujoco/default/geom", "mujoco/worldbody/body",
#: "mujoco/worldbody/body/geom" for a geom in any body, "mujoco/equality/joint", ...).
SCHEMA: Mapping[str, ElementSchema] = MappingProxyType(_NODES)
#: The same with <frame>/<replicate> contents checked (see the module docstring).
STRICT_SCHEMA: Mapping[str, ElementSchema] = MappingProxyType(_STRICT_NODES)


def root_schema(strict: bool = False) -> ElementSchema:
    """The node of the <mujoco> root element."""
    return STRICT_ROOT if strict else ROOT


# -- checking -------------------------------------------------------------------------------------


def iter_children(element: Any) -> Iterator[Any]:
    """The child elements as MuJoCo sees them: <include> elements looked through, comments skipped."""
    for child in element:
        tag = child.tag
        if tag == "include":
            yield from iter_children(child)
        elif isinstance(tag, str):
            yield child


def check_attributes(node: ElementSchema, element: Any, parent_tag: str | None = None) -> tuple[SchemaProblem, ...]:
    """Problems with `element`'s attribute names, `node` being its schema node."""
    allowed = node.attributes
    if allowed is None:
        return _NO_PROBLEMS
    bad = [name for name in element.keys() if name not in allowed]
    if not bad:
        return _NO_PROBLEMS
    where = f" in <{parent_tag}>" if parent_tag else ""
    reader = node.reader_attributes
    return tuple(
        SchemaProblem(
            "attribute",
            element,
            f"unknown attribute '{name}' on <{element.tag}>{where}"
            if name not in reader
            else f"the world body <{element.tag}> cannot have attributes ('{name}')",
            node.allowed_attributes,
            name,
            parent_tag,
            "reader" if name in reader else "schema",
        )
        for name in bad
    )


def check_element(
    parent: ElementSchema, element: Any, parent_tag: str | None = None
) -> tuple[ElementSchema | None, tuple[SchemaProblem, ...]]:
    """Check `element` as a child of an element whose node is `parent`.

    Returns the element's own node (to check its children against) and the problems found. The
    node is None when the element is not allowed here (do not descend into it) or is not an
    element at all (a comment). For <include> it is `parent` itself: its children belong to the
    include's parent. `parent_tag` (the parent element's tag, default the node's) is for messages.
    """
    tag = element.tag
    if not isinstance(tag, str):
        return None, _NO_PROBLEMS
    if tag == "include":
        return parent, _NO_PROBLEMS
    children = parent.children
    if children is None:
        return ANY, _NO_PROBLEMS
    node = children.get(tag)
    where = parent_tag or parent.tag
    if node is None:
        message = f"unknown element <{tag}> in <{where}>"
        stage = "schema" if parent.attributes is not None else "reader"
        return None, (SchemaProblem("element", element, message, parent.allowed_children, tag, where, stage),)
    problems = _NO_PROBLEMS
    allowed = node.attributes
    if allowed is not None:
        for name in element.keys():
            if name not in allowed:
                problems = check_attributes(node, element, where)
                break
        if node.constraints:
            problems += check_constraints(node, element)
    if parent.forbidden and tag in parent.forbidden:
        message = f"<{tag}> is not allowed in <{where}>: {parent.forbidden[tag]}"
        problems += (SchemaProblem("element", element, message, parent.allowed_children, tag, where, "reader"),)
    return node, problems


def check_constraints(node: ElementSchema, element: Any) -> tuple[SchemaProblem, ...]:
    """Problems with which of `element`'s attributes appear together (MuJoCo's presence constraints)."""
    if not node.constraints:
        return _NO_PROBLEMS
    return tuple(
        SchemaProblem("constraint", element, f"{rule.phrase} on <{element.tag}>", (), rule.spec, None)
        for rule in node.constraints
        if rule.violated(element)
    )


def check_root(element: Any, strict: bool = False) -> tuple[ElementSchema | None, tuple[SchemaProblem, ...]]:
    """Check the root element: it must be <mujoco>, with MuJoCo's root attributes."""
    root = root_schema(strict)
    if element.tag != "mujoco":
        message = f"the root element must be <mujoco>, not <{element.tag}>"
        return None, (SchemaProblem("element", element, message, ("mujoco",), str(element.tag), None),)
    return root, check_attributes(root, element)


def check_multiplicity(node: ElementSchema, element: Any) -> tuple[SchemaProblem, ...]:
    """Problems with how often `element`'s children appear (unique children repeated, required missing)."""
    if node.children is None:
        return _NO_PROBLEMS
    unique = _unique_children(node)
    if not unique:
        return _NO_PROBLEMS
    counts: dict[str, int] = {}
    for child in iter_children(element):
        tag = child.tag
        if tag in unique:
            counts[tag] = counts.get(tag, 0) + 1
    problems = []
    # MuJoCo keeps the last complaint in table order: report in reverse so the first one is MuJoCo's
    for tag, occurs in reversed(unique.items()):
        count = counts.get(tag, 0)
        if count > 1:
            message = f"<{tag}> may appear only once in <{element.tag}>, found {count}"
        elif count == 0 and occurs == "!":
            message = f"<{element.tag}> needs a <{tag}> element"
        else:
            continue
        problems.append(SchemaProblem("multiplicity", element, message, (), tag, element.tag))
    return tuple(problems)


def _unique_children(node: ElementSchema) -> dict[str, str]:
    got = node._unique
    if got is None:
        assert node.children is not None
        got = node._unique = {tag: sub.occurs for tag, sub in node.children.items() if sub.occurs in "?!"}
    return got


def iter_problems(root: Any, strict: bool = False) -> Iterator[SchemaProblem]:
    """Every problem in the tree under `root`, in the order MuJoCo's schema check meets them.

    Like MuJoCo, an element that nests in itself (<body>, <default>) has its same-tag children
    checked before its other children, and repeated unique children are reported once an
    element's subtree has been checked. Nothing under an element that is not allowed is checked.
    """
    node, problems = check_root(root, strict)
    yield from problems
    if node is None:
        return
    # entries: (node, element, parent tag, in strict region) to check an element against its
    # parent's node, or (node, element, None, ...) once its subtree is done, to count its children
    stack: list[tuple[ElementSchema, Any, str | None, bool]] = []
    _push(stack, node, root, False)
    while stack:
        node, element, parent_tag, region = stack.pop()
        if parent_tag is None:
            problems = check_multiplicity(node, element)
            yield from (_strict(p, node) for p in problems) if region else problems
            continue
        sub, problems = check_element(node, element, parent_tag)
        if sub is None or sub is ANY:
            yield from (_strict(p, node) for p in problems) if region else problems
            continue
        frame = sub.tag in ("frame", "replicate") and sub.attributes is not None  # checked only when strict
        yield from (_strict(p, node) for p in problems) if region or frame else problems
        _push(stack, sub, element, region or frame)


def _strict(problem: SchemaProblem, parent: ElementSchema) -> SchemaProblem:
    """Re-stage a problem found where only strict checking looks (inside a <frame>/<replicate>)."""
    if problem.stage == "schema":
        # MuJoCo's body reader still refuses unknown tags in a body, frame or replicate
        reader = problem.kind == "element" and parent.tag in ("worldbody", *_BODY_FAMILY)
        problem.stage = "reader" if reader else "strict"
    return problem


def _push(
    stack: list[tuple[ElementSchema, Any, str | None, bool]], node: ElementSchema, element: Any, region: bool
) -> None:
    stack.append((node, element, None, region))
    children = list(iter_children(element))
    if node.occurs == "R":  # MuJoCo checks the nested bodies / defaults first
        same = "body" if node.tag == "worldbody" else node.tag
        children = [c for c in children if c.tag == same] + [c for c in children if c.tag != same]
    tag = element.tag
    for child in reversed(children):
        stack.append((node, child, tag, region))


def check_tree(root: Any, strict: bool = False) -> SchemaProblem | None:
    """The problem MuJoCo would stop at, or None when MuJoCo would accept every name in the tree.

    MuJoCo checks the whole tree against its schema before reading it, so the first "schema"
    problem comes first; failing that, the first "reader" problem in document order (then any
    "strict" one). The problem unpacks as ``(element, message, allowed, name)``.
    """
    first: SchemaProblem | None = None
    later: list[SchemaProblem] = []
    for problem in iter_problems(root, strict):
        if problem.stage == "schema":
            return problem
        if first is None:
            first = problem
        later.append(problem)
    if len(later) < 2:
        return first
    order = {id(element): index for index, element in enumerate(root.iter())}
    rank = {"reader": 0, "strict": 1}
    return min(later, key=lambda p: (rank[p.stage], order.get(id(p.element), 0)))


def validate(root: Any, strict: bool = False) -> list[SchemaProblem]:
    """Every problem in the tree (empty when MuJoCo would accept every name in it)."""
    return list(iter_problems(root, strict))
