"""Model runs memoised by their config: a config seen before gives its result without a run.

A run is a function of its config (the seed is a field of every config), and every config is a
frozen, hashable dataclass, so one small bounded cache keyed on ``(run function, config)`` serves
two callers:

- the lab panels (:mod:`labsupport.widgets`): a setting seen before redraws without a run;
- the chain (:mod:`labsupport.chain.engine`): its five sub-runs. Across the 64 stop-point
  combinations the chain runs 16 different races, 6 DWFM runs, 4 Network Manager runs and 5 NLB
  runs, so a sweep runs each of those once instead of 64 times (``python benchmarks/run.py
  chain`` prints the sweep's seconds with the memo and without it).

The models' own ``run`` functions never cache, so their tests (determinism, goldens) still run the
model every time. A config that holds code (a student's strategy, such as
``race.RaceConfig.conditional_write``) is never cached: a function may read state that changes
between two calls, so its runs are not a function of the config alone.

Each call returns a deep copy of the cached result: a caller that changes a result's DataFrame
changes its own copy, never what the next caller gets.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import os
from collections.abc import Callable, Hashable
from typing import TypeVar

__all__ = ["RUN_CACHE_ENV", "RUN_CACHE_SIZE", "cached_run", "clear_run_cache"]

#: Results kept, least recently used dropped first. A 64-combination chain sweep needs 31
#: (16 + 6 + 4 + 5 sub-runs); a result is at most about 1.3 MB (a DNS-cache run at the incident).
RUN_CACHE_SIZE = 64

#: Set to ``"0"`` to turn the cache off (every call runs its model, as on a setting's first
#: visit); the live benchmark sets it to time first visits only.
RUN_CACHE_ENV = "LABSUPPORT_RUN_CACHE"

_C = TypeVar("_C", bound=Hashable)
_R = TypeVar("_R")


@functools.lru_cache(maxsize=RUN_CACHE_SIZE)
def _cached(run: Callable[[Hashable], object], config: Hashable) -> object:
    return run(config)


def _holds_code(value: object) -> bool:
    """Whether a config (or a dataclass nested in it) has a field holding a function or other callable."""
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return False
    for field in dataclasses.fields(value):
        item = getattr(value, field.name)
        if (callable(item) and not dataclasses.is_dataclass(item)) or _holds_code(item):
            return True
    return False


def cached_run(run: Callable[[_C], _R], config: _C) -> _R:
    """``run(config)``, from the cache when the same ``run`` saw an equal ``config`` recently.

    Args:
        run: a model's ``run`` function (deterministic: a function of its config).
        config: its config, a frozen dataclass (hashable).

    Returns:
        A deep copy of the result, so the caller may change it freely. A run that raises is not
        cached: the next call runs it again and raises again. A config that cannot be hashed, or
        that holds a callable (a strategy), is run every time, uncached.
    """
    if os.environ.get(RUN_CACHE_ENV) == "0" or _holds_code(config):
        return run(config)
    try:
        hash(config)
    except TypeError:  # a config holding something unhashable: run it, uncached
        return run(config)
    return copy.deepcopy(_cached(run, config))  # type: ignore[return-value]


def clear_run_cache() -> None:
    """Forget every cached result (the benchmarks time first visits this way)."""
    _cached.cache_clear()
