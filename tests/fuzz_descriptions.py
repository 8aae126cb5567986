"""A long fuzz run over real descriptions: structural mutants, each loaded in a watched subprocess.

    python tests/fuzz_descriptions.py --seconds 3600            # the corpus of $ROBODESC_CORPUS
    pytest -m fuzz tests/test_hostile_api.py                     # the same, ROBODESC_FUZZ_SECONDS long

Seeds are the description files under $ROBODESC_CORPUS when it is set, otherwise the repository's
examples/ and tests/data/. Each mutant (1-3 structural changes: elements deleted, duplicated,
moved, swapped, renamed, nested hundreds deep, repeated thousands of times; attributes and texts
replaced with hostile values, removed or copied; the text truncated) is loaded with
`robodesc.loads(text, format, base_dir=the seed's folder)`, then its kinematics and checks run, in
a worker process. What counts as a finding:

* crash: any exception that is not a RobodescError, a PluginCrash (a reader's foreign exception,
  wrapped), and a RecursionError anywhere in the chain of causes even when a RobodescError wraps
  it (a nesting limit must be explicit, not Python's stack);
* hang: the case takes longer than --timeout seconds or, when that is longer, 4x what linear
  time allows (the seed's own time scaled by how much larger the mutant is: a file repeated
  20,000 times may take 20,000 times as long), up to a minute; the worker's stack at that moment
  is dumped (faulthandler) to say where;
* memory: the worker's peak resident memory during the case passes --memory MiB (the peak is
  reset before each case; the worker restarts after such a case), or a MemoryError under the
  address-space cap;
* warning: a warning that escaped from numpy or Python (not robodesc's own diagnostics).

Findings are grouped by kind, exception type and innermost robodesc frame; the smallest mutant of
each group is saved in --out with its seed and mutations, and a summary is printed (and written
as summary.json). The run is reproducible from --seed. Exit status 1 when anything was found.
"""

from __future__ import annotations

import argparse
import copy
import faulthandler
import gc
import json
import multiprocessing
import os
import random
import re
import resource
import signal
import sys
import tempfile
import time
import traceback
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuzzing import mutate_structure  # noqa: E402 - the shared delete / duplicate / move

ROOT = Path(__file__).resolve().parent.parent
SEED_SUFFIXES = (".urdf", ".sdf", ".world", ".xml", ".mjcf")
#: The most elements a mutant may have: enough for huge inputs, small enough to build in memory.
MAX_ELEMENTS = 200_000
#: The longest mutant text: just past robodesc's 256 MiB description limit (a 2 GB mutant, refused
#: in an instant, could not even be handed to the worker under its address-space cap).
MAX_TEXT = 260 * 2**20
#: Values that readers have tripped on: number syntax the references refuse or read differently,
#: overflow, huge counts, paths out of the folder and to special files, names of other elements.
HOSTILE_VALUES = (
    "",
    " ",
    "nan",
    "inf",
    "-inf",
    "-1",
    "0",
    "1e308",
    "-1e308 1e308 1e308",
    "1e-320",
    "9" * 5000,
    "1.²",
    "١٢",
    "0x10",
    "1_000",
    " 1  2\t3 ",
    "1 2",
    "1 2 3 4 5 6 7 8 9 10",
    "1 " * 50000,
    "true",
    "&amp;",
    "ünïcødé 名前",
    "a::b::c",
    "__model__",
    "world",
    "../../../../../../etc/passwd",
    "/etc/passwd",
    "/dev/zero",
    "file:///dev/urandom",
    "model://../../..",
    "package://nowhere/x.stl",
    "x" * 100000,
)


@dataclass
class Seed:
    path: Path
    format: str
    text: str
    search_paths: list[str]
    seconds: float = 0.0  # how long the unmutated file takes


@dataclass
class Finding:
    kind: str  # crash, hang, memory, warning
    signature: str
    message: str
    seed: str
    mutations: list[str]
    text: str
    format: str = ""
    search_paths: list[str] = field(default_factory=list)
    count: int = 1


@dataclass
class Tally:
    cases: int = 0
    loaded: int = 0
    refused: int = 0
    findings: dict[str, Finding] = field(default_factory=dict)

    def add(self, finding: Finding) -> None:
        known = self.findings.get(finding.signature)
        if known is None:
            self.findings[finding.signature] = finding
        else:
            known.count += 1
            if len(finding.text) < len(known.text):  # keep the smallest example
                known.text, known.mutations, known.seed = finding.text, finding.mutations, finding.seed


# -- seeds -----------------------------------------------------------------------------------------
def seed_files() -> tuple[Path, list[Path]]:
    corpus = os.environ.get("ROBODESC_CORPUS")
    roots = [Path(corpus)] if corpus else [ROOT / "examples", ROOT / "tests" / "data"]
    files = [p for r in roots for p in sorted(r.rglob("*")) if p.suffix.lower() in SEED_SUFFIXES and p.is_file()]
    return (Path(corpus) if corpus else ROOT), files


def load_seeds(paths: list[Path], top: Path, limit_bytes: int = 2_000_000) -> list[Seed]:
    """The files a format claims (by extension, or by content for .xml), parsable as XML."""
    from robodesc.core.errors import RobodescError
    from robodesc.plugins import default_registry

    registry = default_registry()
    seeds = []
    for path in paths:
        if path.stat().st_size > limit_bytes:
            continue
        data = path.read_bytes()
        try:
            fmt = registry.detect(str(path), data[:4096]).name
            ET.fromstring(data)
        except (RobodescError, ET.ParseError):
            continue
        ancestors = [str(p) for p in path.parents if p == top or top in p.parents]
        seeds.append(Seed(path, fmt, data.decode("utf-8", "replace"), ancestors))
    return seeds


# -- mutations -------------------------------------------------------------------------------------
def _elements(root: ET.Element) -> list[ET.Element]:
    return list(root.iter())


def _parents(root: ET.Element) -> dict[ET.Element, ET.Element]:
    return {child: parent for parent in root.iter() for child in parent}


def _structural(root: ET.Element, rng: random.Random) -> str:
    if len(_elements(root)) < 3:
        return "too small"
    element, _parent, roll = mutate_structure(root, rng)
    return ("delete", "duplicate", "move")[roll] + f" <{element.tag}>" if roll <= 2 else "nothing"


def _swap(root: ET.Element, rng: random.Random) -> str:
    parent = rng.choice([e for e in _elements(root) if len(e) > 1] or [root])
    if len(parent) < 2:
        return "nothing"
    i, j = rng.sample(range(len(parent)), 2)
    parent[i], parent[j] = parent[j], parent[i]
    return f"swap children {i},{j} of <{parent.tag}>"


def _nest(root: ET.Element, rng: random.Random) -> str:
    """An element nested inside copies of itself, hundreds deep (MJCF bodies, SDF models, ...)."""
    candidates = [e for e in _elements(root)[1:] if len(e)] or _elements(root)[1:]
    if not candidates:
        return "nothing"
    element = rng.choice(candidates)
    depth = rng.choice((50, 300, 499, 501, 1000, 3000))
    inner = element
    for i in range(depth):
        shell = ET.Element(element.tag, {k: f"{v}_{i}" if k == "name" else v for k, v in element.attrib.items()})
        inner.append(shell)
        inner = shell
    return f"nest <{element.tag}> {depth} deep"


def _widen(root: ET.Element, rng: random.Random) -> str:
    """An element repeated up to 20,000 times (never past `MAX_ELEMENTS` in all: the mutant is
    built in the fuzzer's own memory)."""
    parents = _parents(root)
    element = rng.choice(list(parents))
    size = sum(1 for _ in element.iter())
    times = min(rng.choice((10, 200, 2000, 20000)), max(1, MAX_ELEMENTS // size))
    parent = parents[element]
    index = list(parent).index(element)
    for i in range(times):
        twin = copy.deepcopy(element)
        if "name" in twin.attrib and rng.random() < 0.7:
            twin.set("name", f"{twin.get('name')}_{i}")
        parent.insert(index, twin)
    return f"repeat <{element.tag}> {times} times"


def _attribute(root: ET.Element, rng: random.Random) -> str:
    owners = [e for e in _elements(root) if e.attrib]
    if not owners:
        return "nothing"
    element = rng.choice(owners)
    key = rng.choice(sorted(element.attrib))
    roll = rng.random()
    if roll < 0.2:
        del element.attrib[key]
        return f"remove {key}= of <{element.tag}>"
    if roll < 0.4:  # a value from elsewhere in the file: names collide, references point astray
        donors = [e.get(key) for e in _elements(root) if e.get(key) is not None]
        element.set(key, str(rng.choice(donors)))
        return f"copy another {key}= into <{element.tag}>"
    value = rng.choice(HOSTILE_VALUES)
    element.set(key, value)
    return f"<{element.tag} {key}={value[:20]!r}>"


def _text(root: ET.Element, rng: random.Random) -> str:
    owners = [e for e in _elements(root) if (e.text or "").strip()] or _elements(root)
    element = rng.choice(owners)
    value = rng.choice(HOSTILE_VALUES)
    element.text = value
    return f"<{element.tag}>{value[:20]!r}"


def _rename(root: ET.Element, rng: random.Random) -> str:
    elements = _elements(root)
    element, donor = rng.choice(elements[1:] or elements), rng.choice(elements)
    old, element.tag = element.tag, donor.tag
    return f"rename <{old}> to <{donor.tag}>"


MUTATIONS: tuple[Callable[[ET.Element, random.Random], str], ...] = (
    _structural,
    _structural,
    _structural,
    _swap,
    _nest,
    _widen,
    _attribute,
    _attribute,
    _attribute,
    _text,
    _rename,
)


def mutant(seed: Seed, rng: random.Random) -> tuple[str, list[str]]:
    """A mutant of `seed` and the changes made, in words."""
    root = ET.fromstring(seed.text)
    done = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        if sum(1 for _ in root.iter()) > MAX_ELEMENTS:
            break
        try:
            done.append(rng.choice(MUTATIONS)(root, rng))
        except (IndexError, ValueError):  # nothing to mutate this way in this tree
            continue
    text = ET.tostring(root, encoding="unicode")
    if len(text) > MAX_TEXT:  # past robodesc's description limit: refused at once, whatever follows
        text = text[:MAX_TEXT]
        done.append(f"cut at {MAX_TEXT} characters")
    if rng.random() < 0.05:
        cut = rng.randrange(len(text))
        done.append(f"truncate at {cut}")
        text = text[:cut]
    return text, done


# -- the worker --------------------------------------------------------------------------------------
def _robodesc_frame(tb: Any) -> str:
    """The innermost frame in robodesc's code of a traceback, as 'path:line', for grouping."""
    frames = [f for f in traceback.extract_tb(tb) if f"{os.sep}robodesc{os.sep}" in f.filename]
    if not frames:
        return "outside robodesc"
    frame = frames[-1]
    return f"{frame.filename.rsplit(os.sep + 'robodesc' + os.sep, 1)[-1]}:{frame.lineno}"


def _causes(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        todo += [current.__cause__, current.__context__, getattr(current, "original", None)]


def run_case(text: str, fmt: str, base_dir: str, search_paths: list[str]) -> dict[str, Any]:
    """Load, run kinematics and checks; what happened, as plain data."""
    import robodesc

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            model = robodesc.loads(text, format=fmt, base_dir=base_dir, search_paths=search_paths)
            model.forward_kinematics()
            robodesc.check(model)
            result: dict[str, Any] = {"status": "loaded"}
        except Exception as exc:  # noqa: BLE001 - classifying it is the point
            causes = list(_causes(exc))
            crash: BaseException | None = next(
                (c for c in causes if isinstance(c, (RecursionError, MemoryError))), None
            )
            if crash is None and not isinstance(exc, robodesc.RobodescError) or isinstance(exc, robodesc.PluginCrash):
                crash = getattr(exc, "original", None) or exc
            if crash is None:
                result = {"status": "refused"}
            else:
                kind = "memory" if isinstance(crash, MemoryError) else "crash"
                tb = crash.__traceback__ or exc.__traceback__
                result = {
                    "status": kind,
                    "type": type(crash).__name__ + (f" in {type(exc).__name__}" if crash is not exc else ""),
                    "where": _robodesc_frame(tb),
                    "message": str(exc)[:300],
                }
    leaked = [w for w in caught if not type(w.message).__module__.startswith("robodesc")]
    if leaked and result["status"] in ("loaded", "refused"):
        w = leaked[0]
        result = {
            "status": "warning",
            "type": type(w.message).__name__,
            "where": f"{os.path.basename(w.filename)}:{w.lineno}",
            "message": str(w.message)[:300],
        }
    result["rss_mib"] = _peak_mib()
    return result


def _reset_peak() -> None:
    """Start measuring this process's peak memory afresh (Linux: clear_refs 5 resets VmHWM).

    ru_maxrss cannot be reset, and a spawned worker inherits the fuzzer's own high-water mark
    across exec: one large mutant built by the fuzzer flagged every later case as a memory finding."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:
        pass


def _peak_mib() -> float:
    """Peak resident memory since `_reset_peak` (VmHWM), else the process's ru_maxrss."""
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker(conn: Connection, cap_mib: int, dump_path: str) -> None:
    """Serve cases from `conn` until it closes; SIGUSR1 dumps the stacks (asked for on a hang)."""
    resource.setrlimit(resource.RLIMIT_AS, (cap_mib << 20, cap_mib << 20))
    dump = open(dump_path, "w")  # noqa: SIM115 - kept open for faulthandler
    faulthandler.register(signal.SIGUSR1, file=dump, all_threads=True)
    import robodesc  # noqa: F401 - imported before the first case, so that its time is not counted

    conn.send("ready")
    while True:
        try:
            case = conn.recv()
        except EOFError:
            return
        gc.collect()  # what the last case left in reference cycles, freed before the peak is reset
        _reset_peak()
        conn.send(run_case(*case))


class Runner:
    """One worker process at a time, restarted after a hang, a memory finding or a death."""

    def __init__(self, memory_mib: int, cap_mib: int) -> None:
        self.memory_mib, self.cap_mib = memory_mib, cap_mib
        self.dump_path = tempfile.mkstemp(prefix="robodesc-fuzz-stack-")[1]
        self.process: Any = None

    def start(self) -> None:
        """A fresh worker; tried three times, since robodesc's files may be mid-edit in a shared checkout."""
        for attempt in range(3):
            context = multiprocessing.get_context("spawn")
            self.conn, child = context.Pipe()
            self.process = context.Process(target=worker, args=(child, self.cap_mib, self.dump_path), daemon=True)
            self.process.start()
            child.close()  # the worker's end: once it exits, recv sees the end of the pipe
            try:
                if self.conn.poll(300) and self.conn.recv() == "ready":  # slow when the machine swaps
                    return
            except EOFError:
                pass
            code = self.process.exitcode
            stack = self._stack() if code is None else ""
            self.stop()
            time.sleep(5 * (attempt + 1))
        raise RuntimeError(
            f"the fuzz worker cannot start (exit status {code}): does `import robodesc` work? {stack[-1500:]}"
        )

    def _stack(self) -> str:
        """The stuck worker's stacks (faulthandler, on SIGUSR1), and the worker stopped."""
        Path(self.dump_path).write_text("")
        os.kill(self.process.pid, signal.SIGUSR1)
        time.sleep(0.5)
        self.stop()
        return Path(self.dump_path).read_text(errors="replace")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.join()
            self.process = None

    def run(self, case: tuple[str, str, str, list[str]], timeout: float) -> dict[str, Any]:
        if self.process is None:
            self.start()
        self.conn.send(case)
        if not self.conn.poll(timeout):
            stack = self._stack()
            frames = re.findall(r'File "([^"]*[/\\]robodesc[/\\][^"]+)", line (\d+)', stack)
            where = f"{frames[0][0].rsplit('robodesc' + os.sep, 1)[-1]}:{frames[0][1]}" if frames else "unknown"
            return {"status": "hang", "type": f"over {timeout:.0f} s", "where": where, "message": stack[-1500:]}
        try:
            result = self.conn.recv()
        except EOFError:  # the worker died: a segfault, or killed for memory
            code = self.process.exitcode
            self.stop()
            return {"status": "crash", "type": f"worker died ({code})", "where": "process", "message": ""}
        if result["status"] == "memory" or result["rss_mib"] > self.memory_mib:
            if result["status"] != "memory":
                result.update(status="memory", type=f"peak {result['rss_mib']:.0f} MiB", where="process", message="")
            self.stop()
        return result


# -- the run -----------------------------------------------------------------------------------------
def fuzz(
    seconds: float,
    seed: int = 0,
    timeout: float = 5.0,
    memory_mib: int = 1024,
    out: Path | None = None,
    log: Callable[[str], None] = print,
) -> Tally:
    top, paths = seed_files()
    seeds = load_seeds(paths, top)
    if not seeds:
        raise SystemExit(f"no seed descriptions found under {top}")
    rng = random.Random(seed)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 50_000))  # ElementTree writes a deep nest recursively
    runner = Runner(memory_mib, cap_mib=max(4096, memory_mib * 3))
    tally = Tally()
    started = time.monotonic()
    deadline = started + seconds
    log(
        f"fuzzing {len(seeds)} seed files for {seconds:.0f} s "
        f"(seed {seed}, hang > {timeout} s, memory > {memory_mib} MiB)"
    )
    try:
        for s in seeds:  # each seed as written first: its own time sets its hang limit
            if time.monotonic() > deadline:
                break
            begin = time.monotonic()
            result = runner.run((s.text, s.format, str(s.path.parent), s.search_paths), max(timeout, 60))
            s.seconds = time.monotonic() - begin
            _record(tally, result, s, ["none (the file as written)"], s.text)
        while time.monotonic() < deadline:
            s = rng.choice(seeds)
            text, done = mutant(s, rng)
            linear = s.seconds * max(1.0, len(text) / max(1, len(s.text)))
            try:
                result = runner.run(
                    (text, s.format, str(s.path.parent), s.search_paths), max(timeout, min(4 * linear, 60))
                )
            except RuntimeError as exc:  # no worker: end the run, keeping what it found
                log(f"the run ends early after {time.monotonic() - started:.0f} s: {exc}")
                break
            _record(tally, result, s, done, text)
            if tally.cases % 200 == 0:
                log(
                    f"  {tally.cases} cases, {time.monotonic() - started:.0f} s: {tally.loaded} loaded, "
                    f"{tally.refused} refused, {len(tally.findings)} distinct findings"
                )
    finally:  # what was found so far is kept, whatever ended the run
        runner.stop()
        if out is not None:
            save(tally, out)
    return tally


def _record(tally: Tally, result: dict[str, Any], s: Seed, done: list[str], text: str) -> None:
    tally.cases += 1
    status = result["status"]
    if status == "loaded":
        tally.loaded += 1
    elif status == "refused":
        tally.refused += 1
    else:
        signature = f"{status}: {result['type']} at {result['where']}"
        tally.add(Finding(status, signature, result["message"], str(s.path), done, text, s.format, s.search_paths))


def save(tally: Tally, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    summary = []
    for i, finding in enumerate(sorted(tally.findings.values(), key=lambda f: (f.kind, -f.count))):
        suffix = Path(finding.seed).suffix or ".xml"
        name = f"{i:03d}-{finding.kind}{suffix}"
        (out / name).write_text(finding.text)
        summary.append({**{k: v for k, v in vars(finding).items() if k != "text"}, "example": name})
    (out / "summary.json").write_text(
        json.dumps(
            {"cases": tally.cases, "loaded": tally.loaded, "refused": tally.refused, "findings": summary}, indent=1
        )
    )


def report(tally: Tally) -> str:
    lines = [f"{tally.cases} cases: {tally.loaded} loaded, {tally.refused} refused with a robodesc error"]
    for finding in sorted(tally.findings.values(), key=lambda f: (f.kind, -f.count)):
        lines.append(f"- {finding.signature}  ({finding.count}x) e.g. {finding.seed}: {'; '.join(finding.mutations)}")
        if finding.kind == "hang":  # faulthandler's dump, innermost call first: where it was stuck
            shown = [line.strip() for line in finding.message.splitlines() if line.strip().startswith("File")][:4]
        else:
            shown = [finding.message]
        lines += [f"    {line[:200]}" for line in shown if line]
    return "\n".join(lines)


def replay(out: Path, timeout: float, memory_mib: int) -> int:
    """Run each example saved in `out` again, alone, and say how it goes now: whether a finding
    still stands (a hang may have been a busy machine; a fix may have landed)."""
    findings = json.loads((out / "summary.json").read_text())["findings"]
    runner = Runner(memory_mib, cap_mib=max(4096, memory_mib * 3))
    standing = 0
    try:
        for finding in findings:
            case = (
                (out / finding["example"]).read_text(),
                finding["format"],
                str(Path(finding["seed"]).parent),
                finding["search_paths"],
            )
            begin = time.monotonic()
            result = runner.run(case, timeout)
            seconds = time.monotonic() - begin
            standing += result["status"] not in ("loaded", "refused")
            where = f" {result.get('type', '')} at {result.get('where', '')}" if "where" in result else ""
            print(f"{finding['example']}: {result['status']}{where} in {seconds:.1f} s (was {finding['signature']})")
    finally:
        runner.stop()
    return 1 if standing else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3600, help="how long to run (default: an hour)")
    parser.add_argument("--seed", type=int, default=0, help="random seed: the same seed makes the same mutants")
    parser.add_argument("--timeout", type=float, default=5.0, help="a case taking longer is a hang (seconds)")
    parser.add_argument("--memory", type=int, default=1024, help="peak memory of a case that is a finding (MiB)")
    parser.add_argument("--out", type=Path, default=None, help="folder for the examples and summary.json")
    parser.add_argument("--replay", type=Path, metavar="OUT", help="run the examples an earlier run saved in OUT")
    args = parser.parse_args(argv)
    if args.replay:
        return replay(args.replay, args.timeout, args.memory)
    out = args.out or Path(tempfile.mkdtemp(prefix="robodesc-fuzz-"))
    tally = fuzz(args.seconds, args.seed, args.timeout, args.memory, out, log=lambda line: print(line, flush=True))
    print(report(tally))
    print(f"examples and summary.json in {out}")
    return 1 if tally.findings else 0


if __name__ == "__main__":
    sys.exit(main())
