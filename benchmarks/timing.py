"""What every benchmark here shares: the timing rule and where the robots are found.

The rule is the fastest of several runs after a warm-up, taken round-robin when several contenders
are compared: on a shared machine the slower runs only measure what else was running, and
alternating the contenders puts a burst of someone else's work on all of them alike instead of on
whichever happened to be timed at that moment.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path


def best(func: Callable[[], object], repeats: int = 20, warm_up: bool = True) -> float:
    """The fastest of `repeats` runs of `func`, in seconds."""
    return compare({"f": func}, repeats, warm_up=warm_up)["f"]


def compare(
    funcs: Mapping[str, Callable[[], object]],
    repeats: int = 7,
    budget: float = 4.0,
    warm_up: bool = True,
    errors: dict[str, BaseException] | None = None,
    min_rounds: int = 1,
    sample: float = 0.0,
) -> dict[str, float]:
    """The fastest run of each contender, in seconds, the contenders taken in turn round after round.

    Each round starts with the next contender: what one contender leaves behind (caches it filled or
    emptied, garbage for Python's collector, memory returned to the system) then falls on every other
    in turn, not always on the one timed after it. In a fixed order, `robodesc.load` of Unitree H1
    measured 3.70 ms and the same load followed by compiling its kinematics 3.25 ms; rotated, the
    load alone is the faster, as it must be (2.66 against 2.83 ms).

    The warm-up run also estimates each contender's cost: a contender gets no more rounds than fit
    in `budget` seconds (but at least `min_rounds`), so a slow pure-Python loop does not make the
    whole run last minutes while a fast call still gets every round. Without warm-up the first run counts.
    With `errors`, a contender whose first run raises is left out and its exception kept there
    (one library failing on one robot should not cost the other figures).

    With `sample` (seconds), each timed run calls the contender back to back as many times as its
    warm-up says fill that long, and counts the time per call, as `timeit` does: what a caller
    calling in a loop pays, where one call timed alone between other contenders' calls also
    measures caches the others emptied. Every contender is timed the same way.
    """
    times: dict[str, list[float]] = {name: [] for name in funcs}
    rounds: dict[str, int] = {}
    calls: dict[str, int] = {}
    for name, func in funcs.items():
        start = time.perf_counter()
        try:
            func()
        except Exception as error:
            if errors is None:
                raise
            errors[name] = error
            continue
        first = time.perf_counter() - start
        if not warm_up:
            times[name].append(first)
        if sample:  # a first call may set things up once (a workspace, a cache): time a second one
            first = _timed(func, 1)
        calls[name] = max(1, int(sample / max(first, 1e-9)))
        rounds[name] = max(min_rounds, min(repeats, int(budget / max(first * calls[name], 1e-9))))
    order = list(funcs.items())
    for r in range(max(rounds.values(), default=0)):
        turn = r % len(order)  # each round starts one contender later: none always follows the same one
        for name, func in order[turn:] + order[:turn]:
            if r < rounds.get(name, 0) - (0 if warm_up else 1):
                times[name].append(_timed(func, calls[name]))
    return {name: min(t) for name, t in times.items() if t}


def _timed(func: Callable[[], object], calls: int) -> float:
    """Seconds per call of `calls` back-to-back calls of `func`."""
    start = time.perf_counter()
    for _ in range(calls):
        func()
    return (time.perf_counter() - start) / calls


def robots_root() -> Path | None:
    """example-robot-data's robots folder (installed by the `bench` extra), or None."""
    try:
        import example_robot_data  # noqa: F401 - only to find its files
    except ImportError:
        pass
    for entry in map(Path, sys.path):
        candidate = entry / "cmeel.prefix" / "share" / "example-robot-data" / "robots"
        if candidate.is_dir():
            return candidate
    return None


def corpus_root() -> Path:
    """The reference corpus: $ROBODESC_CORPUS, else the shared folder's copy."""
    return Path(os.environ.get("ROBODESC_CORPUS") or "/work/shared/corpus")
