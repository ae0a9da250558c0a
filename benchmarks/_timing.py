"""Timing helpers shared by the benchmark modules: medians of repeated runs, peak memory."""

from __future__ import annotations

import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any


def repeat(fn: Callable[[], Any], *, runs: int = 15, warmup: int = 2) -> dict[str, float]:
    """Call ``fn`` ``warmup + runs`` times and return the median and p90 wall time in seconds."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return {"median": statistics.median(times), "p90": times[min(len(times) - 1, int(0.9 * len(times)))]}


def once_with_memory(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """Run ``fn`` once; return (seconds, peak traced memory in MiB, result)."""
    tracemalloc.start()
    t0 = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, peak / 2**20, result
