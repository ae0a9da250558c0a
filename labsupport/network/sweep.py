"""Many Network Manager runs: :func:`sweep`, one summary row per config."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Executor

import pandas as pd

from .. import _sweep
from .config import NetworkConfig
from .model import run

__all__ = ["sweep"]


def sweep(configs: Iterable[NetworkConfig], *, executor: Executor | None = None) -> pd.DataFrame:
    """Run many configs; one row per config, in the order given (the same shape for every model).

    Args:
        configs: the configs to run.
        executor: optional ``concurrent.futures.Executor`` (threads, processes, a Dask client's
            executor); ``None`` runs in this process. The result is the same either way.

    Returns:
        ``run`` (int64, the position in ``configs``), then one column per :class:`NetworkConfig` field (nested
        configs flattened as ``<field>.<subfield>``), then one per :class:`NetworkSummary` field; tuples as
        comma-joined text, ``None`` as NaN in number columns (the rule of every sweep, see
        ``labsupport._sweep``).

    Raises:
        ConfigError: ``configs`` is not an iterable of NetworkConfig values, or ``executor`` is neither
            ``None`` nor a ``concurrent.futures.Executor``.
    """
    return _sweep.sweep(run, configs, NetworkConfig, executor)
