"""Many Network Manager runs: :func:`sweep`, one summary row per config."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor

import pandas as pd

from .._sweep import map_configs, summary_frame
from .config import NetworkConfig
from .model import NetworkSummary, run

__all__ = ["sweep"]


def sweep(configs: Sequence[NetworkConfig], *, executor: Executor | None = None) -> pd.DataFrame:
    """Run several configs and return one row of summary figures per config, in input order.

    Args:
        configs: the configs to run.
        executor: a ``concurrent.futures.Executor`` to spread the runs over (e.g. a
            ``ProcessPoolExecutor``), or ``None`` to run them here, one after the other. The
            results and their order are the same either way.

    Returns:
        A DataFrame with a ``run`` column (int64, position in ``configs``) and one column per
        :class:`NetworkSummary` field.

    Raises:
        ConfigError: ``configs`` is not an iterable of NetworkConfig objects, or ``executor`` is
            neither ``None`` nor a ``concurrent.futures.Executor``.
    """
    return summary_frame(map_configs(_summary_of, configs, NetworkConfig, executor))


def _summary_of(config: NetworkConfig) -> NetworkSummary:
    return run(config).summary
