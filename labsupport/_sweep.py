"""The one way the models' sweep helpers check their arguments, order flag combinations and map runs."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from dataclasses import asdict
from typing import Any

import numpy as np
import pandas as pd

from .errors import ConfigError


def flag_combinations(count: int) -> list[tuple[bool, ...]]:
    """All ``2**count`` on/off combinations in the course's order: none, each flag alone, pairs, ...

    Within a size, earlier flags come first (1, 2, 3, 4, then 1+2, 1+3, ...), so the race's guard
    table, the explorer's verdict table and the capstone's 64 rows line up.
    """
    return sorted(itertools.product((False, True), repeat=count), key=lambda c: (sum(c), [not x for x in c]))


def map_items(fn: Callable[[Any], Any], items: list[Any], executor: object) -> list[Any]:
    """``[fn(x) for x in items]``, on ``executor`` if one is given; results in the order of ``items``.

    ``fn`` must be a module-level function so that a process pool can pickle it.

    Raises:
        ConfigError: ``executor`` is neither ``None`` nor a ``concurrent.futures.Executor``.
    """
    if executor is not None and not isinstance(executor, Executor):
        raise ConfigError(f"executor must be a concurrent.futures.Executor or None, got {type(executor).__name__}")
    return list(executor.map(fn, items)) if executor is not None else [fn(x) for x in items]


def map_configs(fn: Callable[[Any], Any], configs: object, kind: type, executor: object) -> list[Any]:
    """Check ``configs`` (an iterable of ``kind``) and ``executor``; return ``[fn(c) for c in configs]``.

    ``fn`` must be a module-level function so that a process pool can pickle it. The results come
    back in the order of ``configs`` whichever executor runs them.

    Raises:
        ConfigError: ``configs`` is not an iterable of ``kind`` or ``executor`` is neither ``None``
            nor a ``concurrent.futures.Executor``.
    """
    name = kind.__name__
    if isinstance(configs, (str, bytes)) or not isinstance(configs, Iterable):
        raise ConfigError(f"configs must be an iterable of {name} objects, got {type(configs).__name__}")
    items = list(configs)
    for c in items:
        if not isinstance(c, kind):
            raise ConfigError(f"configs must hold {name} objects, got {type(c).__name__}")
    return map_items(fn, items, executor)


def summary_frame(summaries: list[Any]) -> pd.DataFrame:
    """One row per summary dataclass, after a ``run`` column (int64, the position in the sweep)."""
    frame = pd.DataFrame([asdict(s) for s in summaries])
    frame.insert(0, "run", np.arange(len(summaries), dtype="int64"))
    return frame
