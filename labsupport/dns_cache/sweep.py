"""Many DNS-cache runs: :func:`sweep`, one summary row per config."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor

import pandas as pd

from .._sweep import map_configs, summary_frame
from .config import DnsCacheConfig
from .model import DnsCacheSummary, run

__all__ = ["sweep"]


def sweep(configs: Sequence[DnsCacheConfig], *, executor: Executor | None = None) -> pd.DataFrame:
    """Run several configs and return one row of summary figures per config, in input order.

    Args:
        configs: the configs to run.
        executor: a ``concurrent.futures.Executor`` to spread the runs over, or ``None`` to run
            them here. The results and their order are the same either way.

    Returns:
        A DataFrame with a ``run`` column (int64, position in ``configs``) and one column per
        :class:`DnsCacheSummary` field.

    Raises:
        ConfigError: ``configs`` is not an iterable of DnsCacheConfig objects, or ``executor`` is
            neither ``None`` nor a ``concurrent.futures.Executor``.
    """
    return summary_frame(map_configs(_summary_of, configs, DnsCacheConfig, executor))


def _summary_of(config: DnsCacheConfig) -> DnsCacheSummary:
    return run(config).summary
