"""What every benchmark here shares: the timing rule (the fastest of several runs after a warm-up)
and the command line that measures each robot and prints one table of times and ratios."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

#: (figure, seconds, ratio text) rows of one robot's results
Rows = list[tuple[str, float, str]]


def best(func: Callable[[], object], repeats: int = 20, warm_up: bool = True) -> float:
    """The fastest of `repeats` runs of `func`, in seconds. The minimum, not the mean: on a shared
    machine the other runs only measure what else was running."""
    if warm_up:
        func()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def run_table(
    doc: str | None,
    robots: Mapping[str, Path],
    measure: Callable[[Path], dict[str, Any]],
    rows: Callable[[dict[str, Any]], Rows],
    width: int = 46,
) -> int:
    """Measure every robot, print its rows (figure, time, ratio), and with --json FILE keep the figures."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    args = parser.parse_args()
    results = {}
    print(f"{'robot':26} {'figure':{width}} {'time':>10} {'ratio':>26}")
    for label, path in robots.items():
        r = results[label] = measure(path)
        for name, seconds, ratio in rows(r):
            print(f"{label:26} {name:{width}} {seconds * 1e3:9.3f}ms {ratio:>26}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0
