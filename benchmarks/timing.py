"""The one timing rule every benchmark here uses: the fastest of several runs after a warm-up."""

from __future__ import annotations

import time
from collections.abc import Callable


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
