"""The panels' model runs, memoised by their config: a setting seen before redraws without a run.

A run is a function of its config (the seed is a field of every config), and every config is a
frozen, hashable dataclass, so a panel can key a small bounded cache on ``(run function,
config)``. Only the panels use it; the models' own ``run`` functions never cache, so their tests
(determinism, goldens) still run the model every time.

Each call returns a deep copy of the cached result: a caller that changes a result's DataFrame
changes its own copy, never what the next caller gets.
"""

from __future__ import annotations

import copy
import functools
import os
from collections.abc import Callable, Hashable
from typing import TypeVar

__all__ = ["RUN_CACHE_ENV", "RUN_CACHE_SIZE", "cached_run", "clear_run_cache"]

#: Results kept, least recently used dropped first (a DWFM result at the incident is a few MB).
RUN_CACHE_SIZE = 16

#: Set to ``"0"`` to turn the cache off (every change runs its model, as on a setting's first
#: visit); the live benchmark sets it to time first visits only.
RUN_CACHE_ENV = "LABSUPPORT_RUN_CACHE"

_C = TypeVar("_C", bound=Hashable)
_R = TypeVar("_R")


@functools.lru_cache(maxsize=RUN_CACHE_SIZE)
def _cached(run: Callable[[Hashable], object], config: Hashable) -> object:
    return run(config)


def cached_run(run: Callable[[_C], _R], config: _C) -> _R:
    """``run(config)``, from the cache when the same ``run`` saw an equal ``config`` recently.

    Args:
        run: a model's ``run`` function (deterministic: a function of its config).
        config: its config, a frozen dataclass (hashable).

    Returns:
        A deep copy of the result, so the caller may change it freely. A run that raises is not
        cached: the next call runs it again and raises again.
    """
    if os.environ.get(RUN_CACHE_ENV) == "0":
        return run(config)
    try:
        hash(config)
    except TypeError:  # a config holding something unhashable: run it, uncached
        return run(config)
    return copy.deepcopy(_cached(run, config))  # type: ignore[return-value]


def clear_run_cache() -> None:
    """Forget every cached result (the benchmarks time first visits this way)."""
    _cached.cache_clear()
