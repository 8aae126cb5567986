"""The `robodesc` command line: inspect a description file without writing Python.

Subcommands: `check` (every problem in files or folders, like a linter), `info` (summary and joint
table), `tree` (the kinematic tree), `fk` (poses at given joint values) and `formats` (what
the installed plugins can read and write). `--format NAME` always names the format of the input.

Every failure robodesc knows about is a `RobodescError`; the CLI prints it as one line on stderr
and exits with status 1, so scripts can rely on the exit code and users never see a traceback
for a bad file. Usage errors exit with status 2, as argparse does. When the reader of the output
goes away (`robodesc tree big.urdf | head -1`) the command stops quietly with status 141, what a
shell reports for a program ended by SIGPIPE. Anything else is a bug and is allowed to show its
traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import stat
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import __version__, check, load
from .core.checks import CheckReport, error_diagnostic
from .core.diagnostics import Diagnostic, Severity
from .core.errors import (
    ConfigurationError,
    FormatError,
    LossyConversion,
    PluginCrash,
    RobodescError,
    UnresolvedReference,
    did_you_mean,
)
from .core.kinematics import Poses
from .core.model import Body, Joint, Limits, Model
from .core.transforms import invert_pose, matrix_to_rpy
from .core.writing import Loss
from .plugins import PluginInfo, Registry, default_registry

if TYPE_CHECKING:
    import trimesh

PROG = "robodesc"
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what a shell shows for `yes | head -1`


# -- library advice in command-line terms --------------------------------------------------------
_PLACEHOLDER = r"\.\.\.|<[\w -]*>|[A-Z][A-Z_]*\b"  # format=... / format=<name> / format=NAME
_FORMAT_KEYWORD = re.compile(rf"(?<![\w.])format=(?:(['\"])([\w.+-]*)\1|{_PLACEHOLDER})")
_SEARCH_KEYWORD = re.compile(rf"(?<![\w.])search_paths=(?:\[[^\]]*\]|{_PLACEHOLDER})")
_PASS_FLAG = re.compile(r"\bpass (?=--)")


def cli_wording(text: str) -> str:
    """Say what the library says in Python (`pass format=...`, `pass search_paths=[...]`) with the
    command's flags (`use --format NAME`, `use --search-path DIR`); anything else is left alone."""
    text = _FORMAT_KEYWORD.sub(lambda m: "--format " + (m[2] or "NAME"), text)
    text = _SEARCH_KEYWORD.sub("--search-path DIR", text)
    return _PASS_FLAG.sub("use ", text)


# -- check ---------------------------------------------------------------------------------------
_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def _candidates(paths: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """(files to check, {path that cannot be read: why}). Folders are walked for every file that any
    offered format claims by extension (also formats two plugins conflict over, so that `check`
    reports the conflict for each file), and for .xml files whose content a format recognises.
    A file whose format calls it a fragment (`FormatSpec.fragment`: xacro macros for others to
    include, no robot of their own) is left out of a folder, as XML no format recognises is.

    A folder that cannot be listed, and a file that would be checked but cannot be read (no
    permission, a dangling link, a FIFO or device, which would block or never end), is reported
    rather than skipped: a linter that quietly checks less than it was given says "all clear"
    about files it never saw."""
    registry = default_registry()
    extensions = registry.table().extensions()
    files: list[str] = []
    unreadable: dict[str, str] = {}

    def unlistable(error: OSError) -> None:
        unreadable[error.filename] = error.strerror or str(error)

    for path in paths:
        if not os.path.isdir(path):
            why = _unreadable_file(path)
            if why:
                unreadable[path] = why
            else:
                files.append(path)
            continue
        for folder, dirs, names in os.walk(path, onerror=unlistable):
            dirs.sort()
            for name in sorted(names):
                full = os.path.join(folder, name)
                lower = name.lower()
                if not lower.endswith(extensions) and not lower.endswith(".xml"):
                    continue
                why = _unreadable_file(full)
                if why:
                    unreadable[full] = why
                elif lower.endswith(extensions):
                    try:
                        if not registry.is_fragment(full):
                            files.append(full)
                    except (OSError, RobodescError):  # checking it says why it cannot be read
                        files.append(full)
                else:
                    try:
                        if _recognised(registry, full):
                            files.append(full)
                    except OSError as exc:
                        unreadable[full] = exc.strerror or str(exc)
    return files, unreadable


def _unreadable_file(path: str) -> str | None:
    """Why `path` cannot be read as a description file, None when it can. Only a regular file is
    opened: a FIFO would block and a device such as /dev/zero never ends."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if os.path.islink(path):
            return "a link to a file that does not exist"
        return exc.strerror or str(exc)
    if not stat.S_ISREG(mode):
        return "not a regular file"
    if not os.access(path, os.R_OK):
        return "permission denied"
    return None


def _recognised(registry: Registry, path: str) -> bool:
    """Whether a format recognises the file's content (an .xml file found in a folder); an
    OSError is the caller's to report."""
    with open(path, "rb") as handle:
        head = handle.read(4096)
    try:
        registry.detect(None, head)
    except FormatError:
        return False
    return True


def _codes(values: Sequence[str] | None) -> list[str]:
    return [code.strip() for value in values or () for code in value.split(",") if code.strip()]


def _diagnostic_dict(d: Diagnostic) -> dict[str, Any]:
    """One finding as JSON (`check --json` and `info --json`), its advice in command-line terms."""
    loc = d.location
    return {
        "severity": str(d.severity),
        "code": d.code,
        "message": cli_wording(d.message),
        "file": loc.file,
        "line": loc.line,
        "column": loc.column,
        "element": loc.element,
        "suggestion": cli_wording(d.suggestion) if d.suggestion else d.suggestion,
    }


def _diagnostic_lines(d: Diagnostic, fallback: str) -> list[str]:
    loc = d.location
    head = ":".join(str(p) for p in (loc.file or fallback, loc.line, loc.column) if p is not None)
    lines = [f"{head}: {d.severity} {d.code}: {cli_wording(d.message)}"]
    if loc.element:
        lines.append(f"    at {loc.element}")
    if d.suggestion:
        lines.append(f"    suggestion: {cli_wording(d.suggestion)}")
    return lines


def cmd_check(args: argparse.Namespace) -> int:
    files, unreadable = _candidates(args.paths)
    for path, why in unreadable.items():
        print(f"{PROG}: error: cannot read {path}: {why}", file=sys.stderr)
    select, ignore = _codes(args.select), _codes(args.ignore)
    reports = []
    progress = len(files) > 1 and (sys.stderr.isatty() or len(files) > 20)
    for index, path in enumerate(files, 1):
        if progress and (sys.stderr.isatty() or index % 25 == 0 or index == len(files)):
            end = "\r" if sys.stderr.isatty() else "\n"
            print(
                f"checking {index}/{len(files)} {path if sys.stderr.isatty() else ''}".rstrip()[:100].ljust(100)
                if sys.stderr.isatty()
                else f"checked {index}/{len(files)} files",
                end=end,
                file=sys.stderr,
            )
        try:
            report = check(path, strict=args.strict, **_input(args))
        except PluginCrash as crash:  # a bug in a plugin, not a finding: say so, and go on with the other files
            print(f"{PROG}: error: {cli_wording(str(crash))}", file=sys.stderr)
            report = CheckReport(path, [error_diagnostic(crash)], None, args.strict)
        reports.append(report.filtered(select, ignore))
    if progress and sys.stderr.isatty():
        print(" " * 100, end="\r", file=sys.stderr)
    totals = {s: sum(r.count(s) for r in reports) for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)}
    failed = sum(r.failed for r in reports)
    if args.json:
        payload = {
            "files": [
                {
                    "file": r.source,
                    "loaded": r.loaded,
                    "failed": r.failed,
                    "diagnostics": [_diagnostic_dict(d) for d in r.diagnostics],
                }
                for r in reports
            ],
            "unreadable": [{"path": path, "reason": why} for path, why in unreadable.items()],
            "summary": {"files": len(reports), "failed": failed, **{str(k) + "s": v for k, v in totals.items()}},
        }
        print(json.dumps(payload, indent=1))
    else:
        for report in reports:
            for d in report.diagnostics:
                print("\n".join(_diagnostic_lines(d, report.source or "")))
        plural = "" if len(reports) == 1 else "s"
        print(
            f"{len(reports)} file{plural} checked: {totals[Severity.ERROR]} error(s), "
            f"{totals[Severity.WARNING]} warning(s), {totals[Severity.INFO]} info(s); {failed} failed"
            + (" (warnings count, --strict)" if args.strict else "")
        )
    if unreadable or not files:
        if not files and not unreadable:
            print(f"{PROG}: error: no description files found in " + ", ".join(args.paths), file=sys.stderr)
        return 2
    return 1 if failed else 0


# -- small formatting helpers ------------------------------------------------------------------
def _number(value: float | None) -> float | None:
    """A limit or mass as a JSON-safe float: None when absent or not finite (both mean "no limit")."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _text(value: float | None) -> str:
    """A number for a human: shortest sensible form, '-' when absent."""
    value = _number(value)
    return "-" if value is None else f"{value:g}"


def _fixed(value: float) -> str:
    """A pose component with 6 decimals, never printed as '-0.000000'."""
    return f"{round(float(value), 6) + 0.0:.6f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """Left-aligned columns separated by two spaces; the last column is not padded."""
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [str(cell).ljust(width) for cell, width in zip(row, widths)]
        lines.append("  ".join(cells).rstrip())
    return lines


# -- loading -----------------------------------------------------------------------------------
def _load(args: argparse.Namespace) -> Model:
    """Load FILE with the shared input options."""
    return load(args.file, **_input(args))


def _format_arg(text: str) -> tuple[str, str]:
    """One `--arg NAME:=VALUE`, spelt as the xacro command takes it (`NAME=VALUE` is refused: in
    xacro's own command line that is no argument at all)."""
    name, sep, value = text.partition(":=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not of the form NAME:=VALUE")
    return name.strip(), value.strip()


def _input(args: argparse.Namespace) -> dict[str, Any]:
    """The options `_input_options` adds, as the keyword arguments of `load`, `check` and `convert`
    (`--arg`s as a dict: the last of one name wins, as in xacro)."""
    return {
        "format": args.format,
        "search_paths": args.search_path or (),
        "confine": args.confine,
        "args": dict(args.arg or ()),
    }


# -- info --------------------------------------------------------------------------------------
def _info_facts(model: Model, findings: Sequence[Diagnostic]) -> dict[str, Any]:
    """Everything `info` reports, as plain data: the text and JSON outputs are both built from it.

    `findings` are what `robodesc check` reports for the model (the reader's notes and every
    check), so `info` and `check` never disagree on how many there are.
    """
    bodies = list(model.bodies.values())
    movable = model.movable_joints()
    masses = [b.inertial.mass for b in bodies if b.inertial is not None]
    joints = []
    for name in movable:
        limits = model.joints[name].limits
        joints.append(
            {
                "name": name,
                "type": str(model.joints[name].type),
                "lower": _number(limits.lower),
                "upper": _number(limits.upper),
                "velocity": _number(limits.velocity),
                "effort": _number(limits.effort),
            }
        )
    diagnostics = [{**_diagnostic_dict(d), "text": cli_wording(str(d))} for d in findings]
    return {
        "name": model.name,
        "format": model.format,
        "source": model.source,
        "counts": {
            "bodies": len(bodies),
            "joints": len(model.joints),
            "movable_joints": len(movable),
            "frames": len(model.frames),
            "visuals": sum(len(b.visuals) for b in bodies),
            "collisions": sum(len(b.collisions) for b in bodies),
            "extras": len(model.extras),
            "diagnostics": len(diagnostics),
        },
        "root": model.root.name if bodies else None,
        "total_mass": float(sum(masses)),
        "movable_joints": joints,
        "diagnostics": diagnostics,
    }


def cmd_info(args: argparse.Namespace) -> int:
    """Print a summary of one file: what it is, how big, its joints and what `check` finds in it."""
    model = _load(args)
    facts = _info_facts(model, check(model).diagnostics)
    if args.json:
        print(json.dumps(facts, indent=2))
        return 0
    counts = facts["counts"]
    summary = [
        ("model", facts["name"]),
        ("format", facts["format"] or "-"),
        ("source", facts["source"] or "-"),
        ("bodies", counts["bodies"]),
        ("joints", counts["joints"]),
        ("movable joints", counts["movable_joints"]),
        ("frames", counts["frames"]),
        ("visuals", counts["visuals"]),
        ("collisions", counts["collisions"]),
        ("extras", counts["extras"]),
        ("diagnostics", counts["diagnostics"]),
        ("root body", facts["root"] or "-"),
        ("total mass", _text(facts["total_mass"])),
    ]
    width = max(len(key) for key, _ in summary) + 1
    for key, value in summary:
        print(f"{key + ':':<{width}} {value}")
    if facts["movable_joints"]:
        print()
        print("movable joints (configuration order):")
        keys = ("name", "type", "lower", "upper", "velocity", "effort")
        rows = [[j["name"], j["type"], *(_text(j[k]) for k in keys[2:])] for j in facts["movable_joints"]]
        for line in _table(keys, rows):
            print("  " + line)
    if facts["diagnostics"]:
        print()
        print("diagnostics:")
        for diagnostic in facts["diagnostics"]:
            print("  " + diagnostic["text"])
    return 0


# -- tree --------------------------------------------------------------------------------------
def _limits_text(limits: Limits | None) -> str | None:
    """'lower..upper' for a limited axis; None when neither bound is given (continuous, ball, ...)."""
    if limits is None or (_number(limits.lower) is None and _number(limits.upper) is None):
        return None
    lower = "-inf" if _number(limits.lower) is None else _text(limits.lower)
    upper = "inf" if _number(limits.upper) is None else _text(limits.upper)
    return f"{lower}..{upper}"


def _joint_text(joint: Joint) -> str:
    """One joint as shown in the tree: 'name: type limits', plus whom it mimics."""
    parts = [f"{joint.name}: {joint.type}"]
    ranges = [r for r in (_limits_text(joint.limits), _limits_text(joint.limits2)) if r is not None]
    if ranges:
        parts.append(" " + ", ".join(ranges))
    if joint.mimic is not None:
        parts.append(f" (mimics {joint.mimic.joint})")
    return "".join(parts)


def _body_label(model: Model, body: Body) -> str:
    """A body name followed by the joint(s) that connect it to its parent."""
    if body.joints:
        return f"{body.name}  [" + "; ".join(_joint_text(model.joints[j]) for j in body.joints) + "]"
    if body.parent is not None:
        return f"{body.name}  [no joint]"  # attached rigidly without a joint element (e.g. an MJCF body)
    return body.name


def _tree_lines(model: Model, root: str, frames: bool) -> Iterator[str]:
    """The lines of the tree below body `root`: each child two columns further in, drawn with box
    characters; with `frames`, a body's frames come first below it, marked `(frame)`.

    A loop over a stack rather than recursion, so a chain of thousands of bodies prints too; lines
    are produced one at a time, so output starts at once (and `| head` stops it early)."""
    children: dict[str, list[str]] = {}
    for body in model.bodies.values():
        if body.parent is not None:
            children.setdefault(body.parent, []).append(body.name)
    attached: dict[str, list[str]] = {}
    if frames:
        for frame in model.frames.values():
            attached.setdefault(frame.body, []).append(frame.name)
    stack: list[tuple[str, bool, str, bool]] = []  # (name, is a frame, prefix, last of its siblings)

    def push(body: str, prefix: str) -> None:
        below = [(f, True) for f in attached.get(body, ())] + [(c, False) for c in children.get(body, ())]
        for i in reversed(range(len(below))):
            stack.append((*below[i], prefix, i == len(below) - 1))

    push(root, "")
    while stack:
        name, is_frame, prefix, last = stack.pop()
        label = f"{name}  (frame)" if is_frame else _body_label(model, model.bodies[name])
        yield prefix + ("└── " if last else "├── ") + label
        if not is_frame:
            push(name, prefix + ("  " if last else "│ "))


def _dot_id(text: str) -> str:
    """A Graphviz quoted ID: any name is safe inside quotes once quotes and backslashes are escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _pose_label(pose: np.ndarray) -> str:
    """A pose as two label lines, 'xyz: ...' and 'rpy: ...', in the short form a picture has room for."""
    xyz = " ".join(_text(round(float(v), 6) + 0.0) for v in pose[:3, 3])
    rpy = " ".join(_text(round(float(v), 6) + 0.0) for v in matrix_to_rpy(pose[:3, :3]))
    return f"xyz: {xyz}\nrpy: {rpy}"


def _dot_lines(model: Model, frames: bool) -> Iterator[str]:
    """The kinematic tree as a Graphviz digraph, drawn as ROS's urdf_to_graphviz draws URDFs: bodies
    are boxes, joints ellipses between them (name and type), and each edge into a body carries the
    body's pose in its parent. A body moved by several joints (MJCF) shows them in a row; one attached
    without a joint has a plain edge. With `frames`, frames are dashed notes on their body."""
    yield f"digraph {_dot_id(model.name or 'model')} {{"
    yield "  node [shape=box];"
    for body in model.bodies.values():
        yield f"  {_dot_id('body:' + body.name)} [label={_dot_id(body.name)}];"
    for body in model.bodies.values():
        if body.parent is None:
            continue
        here = _dot_id("body:" + body.parent)
        for name in body.joints:
            joint = model.joints[name]
            label = f"{joint.name}\n{joint.type}" + (f"\nmimics {joint.mimic.joint}" if joint.mimic else "")
            node = _dot_id("joint:" + name)
            yield f"  {node} [shape=ellipse, label={_dot_id(label)}];"
            yield f"  {here} -> {node};"
            here = node
        yield f"  {here} -> {_dot_id('body:' + body.name)} [label={_dot_id(_pose_label(body.pose))}];"
    if frames:
        for frame in model.frames.values():
            node = _dot_id("frame:" + frame.name)
            yield f"  {node} [shape=note, style=dashed, label={_dot_id(frame.name)}];"
            edge = f"[style=dashed, label={_dot_id(_pose_label(frame.pose))}]"
            yield f"  {_dot_id('body:' + frame.body)} -> {node} {edge};"
    yield "}"


def cmd_tree(args: argparse.Namespace) -> int:
    """Print the kinematic tree, every root first (a model normally has one); with --dot, as Graphviz."""
    model = _load(args)
    if args.dot:
        for line in _dot_lines(model, args.frames):
            print(line)
        return 0
    for body in model.bodies.values():
        if body.parent is None:
            print(_body_label(model, body))
            for line in _tree_lines(model, body.name, args.frames):
                print(line)
    return 0


# -- fk ----------------------------------------------------------------------------------------
def _parse_sets(model: Model, items: Sequence[str]) -> dict[str, list[float]]:
    """Turn `--set JOINT=V[,V...]` options into joint values; later options for a joint win.

    A joint that takes no value of its own (fixed, or a mimic follower) is refused rather than
    silently ignored as the library does, since on the command line it is almost surely a mistake.
    """
    values: dict[str, list[float]] = {}
    movable = set(model.movable_joints())
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ConfigurationError(f"--set {item!r} is not of the form JOINT=VALUE")
        if name not in model.joints:
            raise ConfigurationError(
                f"no joint named {name!r}", construct=name, suggestion=did_you_mean(name, model.joints)
            )
        if name not in movable:
            joint = model.joints[name]
            why = f"mimics {joint.mimic.joint!r}" if joint.mimic is not None else f"is {joint.type}"
            raise ConfigurationError(f"joint {name!r} {why} and takes no value of its own", construct=name)
        numbers = []
        for part in text.split(","):
            try:
                number = float(part)
            except ValueError:
                raise ConfigurationError(f"joint {name!r} was given {text!r}, which is not a number") from None
            if not math.isfinite(number):
                raise ConfigurationError(f"joint {name!r} was given {text!r}, which is not finite")
            numbers.append(number)
        values[name] = numbers
    return values


FRAME_PREFIX = "frame:"


def _frame_label(model: Model, name: str) -> str:
    """How `fk` names a frame: its name, or `frame:NAME` when a body has the name (MJCF allows it)."""
    return FRAME_PREFIX + name if name in model.bodies else name


def _labelled_poses(model: Model, poses: Poses) -> dict[str, np.ndarray]:
    """Every body (model order, root first), then every frame (model order), by `fk`'s label."""
    entries = {name: poses[name] for name in model.bodies}
    for frame in model.frames:
        entries[_frame_label(model, frame)] = poses.frame(frame)
    return entries


def _label_of(model: Model, entries: Mapping[str, np.ndarray], name: str, option: str) -> str:
    """The label `name` stands for: a body first, else a frame (`frame:NAME` always means the frame)."""
    if name in entries:
        return name
    if name.startswith(FRAME_PREFIX) and name[len(FRAME_PREFIX) :] in model.frames:
        return _frame_label(model, name[len(FRAME_PREFIX) :])
    raise UnresolvedReference(
        f"{option} {name!r}: no body or frame of that name in model {model.name!r}",
        construct=name,
        suggestion=did_you_mean(name, entries),
    )


def _keyframe(model: Model, name: str) -> dict[str, Any]:
    """The joint values of a named configuration (an MJCF <key>, ...)."""
    if name in model.configurations:
        return dict(model.configurations[name])
    known = ", ".join(repr(k) for k in model.configurations)
    hint = did_you_mean(name, model.configurations)
    raise ConfigurationError(
        f"no keyframe named {name!r} in model {model.name!r}",
        construct=name,
        suggestion=(f"{hint} " if hint else "") + (f"known keyframes: {known}" if known else "the model has none"),
    )


def _configuration(model: Model, args: argparse.Namespace) -> dict[str, Any]:
    """The joint values `--keyframe` and `--set` ask for: the keyframe first, `--set` overriding it."""
    values = _keyframe(model, args.keyframe) if args.keyframe is not None else {}
    values.update(_parse_sets(model, args.set or ()))
    return values


def cmd_fk(args: argparse.Namespace) -> int:
    """Print poses of bodies and frames at the given joint values (others at their reference):
    in the world, or in the body or frame `--relative-to` names."""
    model = _load(args)
    # one configuration in a short-lived process: numpy, not the numba kernel (loading it costs ~1 s)
    entries = _labelled_poses(model, model.forward_kinematics(_configuration(model, args), backend="numpy"))
    names = list(entries)
    if args.frame:
        # keep the order given, drop repeats
        names = list(dict.fromkeys(_label_of(model, entries, name, "--frame") for name in args.frame))
    if args.relative_to is not None:
        inverse = invert_pose(entries[_label_of(model, entries, args.relative_to, "--relative-to")])
        entries = {name: inverse @ entries[name] for name in names}
    if args.json:
        # One pose per line: indent=2 would put each of the 16 numbers on a line of its own.
        lines = [f"  {json.dumps(name)}: {json.dumps(np.asarray(entries[name]).tolist())}" for name in names]
        print("{\n" + ",\n".join(lines) + "\n}")
        return 0
    width = max((len(name) for name in names), default=0)
    for name in names:
        pose = np.asarray(entries[name])
        xyz = ", ".join(_fixed(v) for v in pose[:3, 3])
        rpy = ", ".join(_fixed(v) for v in matrix_to_rpy(pose[:3, :3]))
        print(f"{name:<{width}}  xyz=({xyz})  rpy=({rpy})")
    return 0


# -- render, export, view ----------------------------------------------------------------------
VIEWS = ("iso", "front", "side", "top")


def _size(text: str) -> tuple[int, int]:
    """`--size WxH` as (width, height) in pixels, checked before any file is read."""
    from .core.render import MAX_SIZE, MIN_SIZE

    width, sep, height = text.lower().partition("x")
    if not sep or not width.strip().isdigit() or not height.strip().isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT in pixels, e.g. 800x600")
    if not all(MIN_SIZE <= int(side) <= MAX_SIZE for side in (width, height)):
        raise argparse.ArgumentTypeError(f"{text!r}: width and height must be {MIN_SIZE} to {MAX_SIZE} pixels")
    return int(width), int(height)


def _posed_scene(args: argparse.Namespace) -> tuple[Model, trimesh.Scene]:
    """Load FILE and build its scene at the configuration asked for. Shapes left out (a geometry
    robodesc cannot draw and, with --skip-missing, meshes that cannot be read) are each worth a
    warning: a picture or file that silently lacks a part would be taken for the whole robot."""
    model = _load(args)
    scene = model.scene(_configuration(model, args), kind=args.kind, skip_missing=args.skip_missing)
    for left_out in scene.metadata["robodesc"]["skipped"]:
        warnings.warn(f"{args.file}: {left_out['node']} left out: {left_out['reason']}")
    return model, scene


def cmd_render(args: argparse.Namespace) -> int:
    """Draw FILE to a PNG with robodesc's software rasteriser (no display or GPU needed), as
    `robodesc.render` draws it: an infinite floor is a patch under the robot, not 10 m wide."""
    from .core.render import fit_floors, render_scene, write_png

    model, scene = _posed_scene(args)
    write_png(render_scene(fit_floors(scene, model), size=args.size, view=args.view), args.output)
    shapes = len(scene.graph.nodes_geometry)
    print(f"wrote {args.output} ({args.size[0]}x{args.size[1]}, {args.view} view, {shapes} shape{'s' * (shapes != 1)})")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """Write FILE's posed scene as a file other viewers open; the type comes from the extension."""
    from .core.export import export_scene

    written = export_scene(_posed_scene(args)[1], args.output)
    print("wrote " + ", ".join(written))
    return 0


def cmd_view(args: argparse.Namespace) -> int:
    """Serve the interactive viewer until interrupted (Ctrl-C)."""
    from .viewer import run

    model = _load(args)
    sets = _parse_sets(model, args.set or ())  # the keyframe goes by name, so the picker shows it
    run(model, host=args.host, port=args.port, kind=args.kind, positions=sets, keyframe=args.keyframe)
    return 0


# -- convert -----------------------------------------------------------------------------------
def _loss_dict(loss: Loss) -> dict[str, Any]:
    where = loss.location
    return {
        "code": loss.code,
        "message": loss.message,
        "construct": loss.construct,
        "instead": loss.instead,
        "file": where.file,
        "line": where.line,
        "element": where.element,
    }


def cmd_convert(args: argparse.Namespace) -> int:
    """Convert FILE to OUT and list what the target cannot express; with --strict such a loss fails
    the conversion and nothing is written."""
    from .conversion import convert

    try:
        done = convert(
            args.file,
            args.output,
            to=args.to,
            copy_assets=args.copy_assets,
            strict=args.strict,
            **_input(args),
        )
    except LossyConversion as refused:
        for loss in refused.losses:
            print(f"{PROG}: {loss}", file=sys.stderr)
        raise
    if args.json:
        report = {"output": done.output, "format": done.format, "written": done.written}
        print(json.dumps({**report, "losses": [_loss_dict(loss) for loss in done.losses]}, indent=2))
        return 0
    for loss in done.losses:
        print(str(loss))
    count = len(done.losses)
    assets = f", {len(done.written) - 1} mesh file(s) copied" if len(done.written) > 1 else ""
    print(f"wrote {done.output} ({done.format}{assets}); {count} loss{'es' * (count != 1)}")
    return 0


# -- diff --------------------------------------------------------------------------------------
EXIT_NOT_COMPARED = 2  # as Unix diff: 0 same, 1 different, 2 could not compare


def cmd_diff(args: argparse.Namespace) -> int:
    """Compare two descriptions as robots; exit 0 when they agree, 1 when they differ, 2 when one
    cannot be loaded (the error printed as every command prints one)."""
    from .core.diff import compare

    if not (math.isfinite(args.tolerance) and args.tolerance >= 0):
        raise ConfigurationError(f"--tolerance must be a finite number >= 0, not {args.tolerance}")
    if args.samples < 0:
        raise ConfigurationError(f"--samples must be 0 or more, not {args.samples}")
    models = []
    for path in (args.a, args.b):
        try:
            models.append(load(path, **_input(args)))
        except RobodescError as err:
            message = cli_wording(str(err))
            print(f"{PROG}: error: {message if path in message else f'{path}: {message}'}", file=sys.stderr)
            return EXIT_NOT_COMPARED
    result = compare(*models, tolerance=args.tolerance, samples=args.samples, labels=(args.a, args.b))
    if args.json:
        print(json.dumps(result.as_dict(), indent=2))
    else:
        print(result)
    return 0 if result.agree else 1


# -- formats -----------------------------------------------------------------------------------
def cmd_formats(args: argparse.Namespace) -> int:
    """List the formats the installed plugins provide, who wins where they conflict, and what failed."""
    table = default_registry().table()
    rows = [
        [
            spec.name,
            " ".join(spec.extensions) or "-",
            "yes" if spec.can_read else "no",
            "yes" if spec.can_write else "no",
            spec.plugin or "-",
            spec.description,
        ]
        for spec in sorted(table.usable.values(), key=lambda s: s.name)
    ]
    if rows:
        for line in _table(("name", "extensions", "read", "write", "plugin", "description"), rows):
            print(line)
    else:
        print("no formats installed")
    if table.conflicts:
        print()
        print(
            "format names offered by several plugins (the first is used; none when no robodesc format is among them):"
        )
        for name, plugins in sorted(table.conflicts.items()):
            used = "" if name in table.usable else "  (unusable)"
            print(f"  {name}: {', '.join(plugins)}{used}")
    shared = table.shared_extensions()
    if shared:
        print()
        print("extensions claimed by several formats:")
        for ext, specs in sorted(shared.items()):
            named = [f"{s.name} (plugin {s.plugin})" for s in specs]
            if specs[0].plugin in table.builtin:
                print(f"  {ext}: {named[0]} reads; also claimed by {', '.join(named[1:])}")
            else:
                print(f"  {ext}: decided by content among {', '.join(named)}")
    _print_problems(default_registry().plugins())
    return 0


def _print_problems(plugins: Sequence[PluginInfo]) -> None:
    troubled = [p for p in plugins if p.problems]
    if troubled:
        print()
        print("plugin problems:")
        for plugin in troubled:
            for problem in plugin.problems:
                print(f"  {plugin.name}: {problem}")


# -- plugins -----------------------------------------------------------------------------------
def _provides(plugin: PluginInfo) -> str:
    parts = []
    if plugin.formats:
        parts.append("formats: " + ", ".join(plugin.formats))
    if plugin.resolves_uris:
        parts.append("resolves URIs")
    if plugin.checks:
        parts.append("checks")
    if "robodesc_model_loaded" in plugin.hooks:
        parts.append("post-processes models")
    return "; ".join(parts) or "-"


def cmd_plugins(args: argparse.Namespace) -> int:
    """List every plugin: where it comes from, whether it works, and what it adds."""
    plugins = default_registry().plugins()
    if args.json:
        entries = [
            {
                "name": p.name,
                "status": p.status,
                "distribution": p.distribution,
                "version": p.version,
                "target": p.target,
                "builtin": p.builtin,
                "formats": p.formats,
                "resolves_uris": p.resolves_uris,
                "checks": p.checks,
                "hooks": p.hooks,
                "problems": p.problems,
            }
            for p in plugins
        ]
        print(json.dumps(entries, indent=2))
        return 0
    rows = [
        [
            p.name,
            f"{p.distribution or '-'} {p.version or ''}".strip(),
            p.status,
            _provides(p) if p.status == "active" else "-",
        ]
        for p in plugins
    ]
    for line in _table(("plugin", "distribution", "status", "provides"), rows):
        print(line)
    _print_problems(plugins)
    return 0


# -- argument parsing --------------------------------------------------------------------------
def _input_options(parser: argparse.ArgumentParser, what: str) -> None:
    """`--format`, `--search-path`, `--confine` and `--arg`: the same flags with the same meaning on
    every command that reads (`_input` hands them on)."""
    parser.add_argument(
        "--format", metavar="NAME", help=f"read {what} as this format (default: from the extension or content)"
    )
    parser.add_argument(
        "--search-path",
        metavar="DIR",
        action="append",
        help="extra root for package://, model:// and includes (repeatable)",
    )
    parser.add_argument(
        "--confine",
        action="store_true",
        help="read nothing outside the description's folder and the search paths (for untrusted files)",
    )
    parser.add_argument(
        "--arg",
        metavar="NAME:=VALUE",
        action="append",
        type=_format_arg,
        help="an argument for formats that take them, such as a xacro file's <xacro:arg> (repeatable)",
    )


def _source() -> argparse.ArgumentParser:
    """The parent parser of the commands that read one FILE."""
    source = argparse.ArgumentParser(add_help=False)
    source.add_argument("file", metavar="FILE", help="the description file to load")
    _input_options(source, "FILE")
    return source


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; separate from `main` so tests and docs can inspect it."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Inspect robot description files in any format an installed plugin reads (see `robodesc formats`).",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument(
        "--disable-plugin",
        metavar="NAME",
        action="append",
        help="leave out this plugin (entry-point or distribution name; repeatable); "
        "the environment variable ROBODESC_DISABLE_PLUGINS=NAME,... does the same",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    source = _source()
    configured = argparse.ArgumentParser(add_help=False)  # joint values, for every command that poses the robot
    configured.add_argument(
        "--set",
        metavar="JOINT=VALUE",
        action="append",
        help="joint value (repeatable); comma-separated for multi-value joints: "
        "ball w,x,y,z, floating x,y,z,w,qx,qy,qz",
    )
    configured.add_argument(
        "--keyframe", metavar="NAME", help="start from this named configuration; --set overrides it"
    )

    info = sub.add_parser(
        "info", parents=[source], help="summarise a description file", description="Summarise a description file."
    )
    info.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    info.set_defaults(handler=cmd_info)

    tree = sub.add_parser(
        "tree", parents=[source], help="print the kinematic tree", description="Print the kinematic tree."
    )
    tree.add_argument("--frames", action="store_true", help="also list each frame under its body")
    tree.add_argument(
        "--dot",
        action="store_true",
        help="print Graphviz text instead (a picture: robodesc tree FILE --dot | dot -Tpng)",
    )
    tree.set_defaults(handler=cmd_tree)

    fk = sub.add_parser(
        "fk",
        parents=[source, configured],
        help="print world poses at given joint values",
        description="Print poses of bodies (model order), then frames; joints not set stay at their reference "
        "value. A frame that shares a body's name is called frame:NAME.",
    )
    fk.add_argument("--frame", metavar="NAME", action="append", help="only this body or frame (repeatable)")
    fk.add_argument("--relative-to", metavar="NAME", help="poses in this body or frame instead of the world")
    fk.add_argument("--json", action="store_true", help="print {name: 4x4 matrix} as JSON")
    fk.set_defaults(handler=cmd_fk)

    posed = argparse.ArgumentParser(add_help=False, parents=[configured])
    posed.add_argument(
        "--kind", choices=("visual", "collision"), default="visual", help="which shapes (default: visual)"
    )

    drawn = argparse.ArgumentParser(add_help=False, parents=[posed])
    drawn.add_argument("-o", "--output", metavar="OUT", required=True, help="the file to write")
    drawn.add_argument(
        "--skip-missing",
        action="store_true",
        help="leave out meshes that cannot be read (each is named) instead of failing",
    )

    rnd = sub.add_parser(
        "render",
        parents=[source, drawn],
        help="draw a description to a PNG picture",
        description="Draw the robot to a PNG, headless (no display or GPU), framing the whole robot.",
    )
    rnd.add_argument("--size", metavar="WxH", type=_size, default=(800, 600), help="picture size (default: 800x600)")
    rnd.add_argument("--view", choices=VIEWS, default="iso", help="camera direction (default: iso)")
    rnd.set_defaults(handler=cmd_render)

    exp = sub.add_parser(
        "export",
        parents=[source, drawn],
        help="write the posed robot as .glb, .obj, .stl, .ply or .dae",
        description="Write the robot at the given configuration as a file any 3D viewer opens; the type comes "
        "from OUT's extension: .glb (recommended: names, colours, textures), .obj, .stl, .ply, .dae.",
    )
    exp.set_defaults(handler=cmd_export)

    view = sub.add_parser(
        "view",
        parents=[source, posed],
        help="open an interactive viewer in the web browser",
        description="Serve an interactive viewer (a slider per joint, keyframes, visual/collision, frame axes) "
        "and print its address; stop with Ctrl-C. Needs the viewer extra: pip install 'robodesc[viewer]'.",
    )
    view.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine only)"
    )
    view.add_argument("--port", type=int, default=8080, help="port to listen on (default: 8080)")
    view.set_defaults(handler=cmd_view)

    conv = sub.add_parser(
        "convert",
        parents=[_source()],
        help="convert a description to another format",
        description="Write FILE in another format and list each construct the target cannot express, with what was "
        "written instead. The target comes from OUT's extension (.urdf, .sdf, .xml for MJCF) or --to.",
    )
    conv.add_argument("-o", "--output", metavar="OUT", required=True, help="the file to write")
    conv.add_argument("--to", metavar="FORMAT", help="the format to write (default: from OUT's extension)")
    conv.add_argument("--copy-assets", action="store_true", help="copy meshes into OUT_assets/ beside OUT")
    conv.add_argument("--strict", action="store_true", help="fail, writing nothing, when anything would be lost")
    conv.add_argument("--json", action="store_true", help="print the report as JSON")
    conv.set_defaults(handler=cmd_convert)

    dif = sub.add_parser(
        "diff",
        help="compare two descriptions as robots",
        description="Compare two descriptions, in any formats, as robots: bodies and joints (added, removed, renamed), "
        "joint types and limits, masses and inertias, frames, and poses at sampled configurations. "
        "Exit status: 0 they agree, 1 they differ, 2 one cannot be loaded.",
    )
    dif.add_argument("a", metavar="A", help="the first description")
    dif.add_argument("b", metavar="B", help="the second description")
    _input_options(dif, "both files")
    dif.add_argument("--tolerance", type=float, default=1e-6, help="largest difference counted as equal (1e-6)")
    dif.add_argument("--samples", type=int, default=8, help="random configurations poses are compared at (8)")
    dif.add_argument("--json", action="store_true", help="print the report as JSON")
    dif.set_defaults(handler=cmd_diff)

    chk = sub.add_parser(
        "check",
        help="report every problem in description files or folders",
        description="Load each file with every check robodesc has and report all findings at once. "
        "Exit status: 0 clean, 1 findings (errors; warnings too with --strict), 2 usage or unreadable input.",
    )
    chk.add_argument("paths", nargs="+", metavar="PATH", help="files, or folders to search recursively")
    _input_options(chk, "every file")
    chk.add_argument("--strict", action="store_true", help="warnings fail too")
    chk.add_argument("--select", metavar="CODE", action="append", help="only these codes (prefixes; repeatable)")
    chk.add_argument("--ignore", metavar="CODE", action="append", help="leave out these codes (prefixes; repeatable)")
    chk.add_argument("--json", action="store_true", help="print one JSON document instead of text")
    chk.set_defaults(handler=cmd_check)

    fmt = sub.add_parser(
        "formats", help="list the installed formats", description="List the formats installed plugins provide."
    )
    fmt.set_defaults(handler=cmd_formats)

    plug = sub.add_parser(
        "plugins",
        help="list the installed plugins",
        description="List every plugin: its distribution and version, its status (active, failed, disabled), "
        "what it adds, and what went wrong with it.",
    )
    plug.add_argument("--json", action="store_true", help="print a JSON list instead of text")
    plug.set_defaults(handler=cmd_plugins)
    return parser


def _to_devnull(stream: Any) -> None:
    """Point a stream whose reader has gone at os.devnull, so that flushing what is still buffered
    (at the latest when the interpreter exits) cannot fail again ("Exception ignored ... BrokenPipeError")."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (a test's capture): nothing to flush to
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def _disable_plugins(names: Sequence[str]) -> None:
    """Apply --disable-plugin before anything is loaded; a name no plugin has is worth a warning."""
    if not names:
        return
    registry = default_registry()
    for name in names:
        registry.disable(name)
    known = {n for p in registry.plugins() for n in (p.name, p.distribution) if n}
    for name in names:
        if name not in known:
            hint = did_you_mean(name, known)
            warnings.warn(f"--disable-plugin {name}: no plugin has that name" + (f"; {hint}" if hint else ""))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return the exit status: 0 ok, 1 robodesc error (for `check`: a file
    failed), 2 usage error, 130 interrupted, 141 the output's reader went away (`| head`).

    Warnings (e.g. a plugin that failed to import) are printed as one line each on stderr rather
    than with Python's file-and-line decoration, which means nothing to a command-line user.
    """
    try:
        return _main(argv)
    except BrokenPipeError:  # stderr went too (`2>&1 | head`): nothing can be said any more
        _to_devnull(sys.stdout)
        _to_devnull(sys.stderr)
        return EXIT_BROKEN_PIPE


def _main(argv: Sequence[str] | None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit:  # --help, --version or a usage error: flush the help here, where a broken pipe is caught
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _to_devnull(sys.stdout)
            return EXIT_BROKEN_PIPE
        raise
    handler: Callable[[argparse.Namespace], int] = args.handler
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            _disable_plugins(args.disable_plugin or ())
            status = handler(args)
            sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        except BrokenPipeError:
            _to_devnull(sys.stdout)
            status = EXIT_BROKEN_PIPE
        except RobodescError as err:
            message = cli_wording(str(err))
            file = getattr(args, "file", None)
            if file and file not in message:
                message = f"{file}: {message}"  # errors found after loading do not always name the file
            print(f"{PROG}: error: {message}", file=sys.stderr)
            status = 1
        except KeyboardInterrupt:
            status = 130
    for warning in caught:
        print(f"{PROG}: warning: {cli_wording(str(warning.message))}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
