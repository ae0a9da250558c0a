"""The one way the models' sweep helpers check their arguments and map a run over configs."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from dataclasses import asdict
from typing import Any

import numpy as np
import pandas as pd

from .errors import ConfigError


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
    if executor is not None and not isinstance(executor, Executor):
        raise ConfigError(f"executor must be a concurrent.futures.Executor or None, got {type(executor).__name__}")
    items = list(configs)
    for c in items:
        if not isinstance(c, kind):
            raise ConfigError(f"configs must hold {name} objects, got {type(c).__name__}")
    return list(executor.map(fn, items)) if executor is not None else [fn(c) for c in items]


def summary_frame(summaries: list[Any]) -> pd.DataFrame:
    """One row per summary dataclass, after a ``run`` column (int64, the position in the sweep)."""
    frame = pd.DataFrame([asdict(s) for s in summaries])
    frame.insert(0, "run", np.arange(len(summaries), dtype="int64"))
    return frame
