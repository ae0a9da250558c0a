"""Many checks: :func:`sweep` (one summary row per config) and the 16-row verdict table built on it."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Executor
from dataclasses import replace

import pandas as pd

from .. import _sweep
from .._sweep import flag_combinations
from ..errors import ConfigError
from ..race import Guards
from .config import GUARDS, INCIDENT, ExploreConfig
from .model import ExploreResult, run

__all__ = ["sweep", "verdict_rows", "verdict_table"]

#: The verdict table's columns after the guard flags and their label, from the summary.
_VERDICT = (
    "safe",
    "recovers",
    "empty_reachable",
    "stale_overwrite_reachable",
    "alert_reachable",
    "states_count",
    "transitions_count",
    "counterexample_steps_count",
    "stuck_states_count",
)


def sweep(configs: Iterable[ExploreConfig], *, executor: Executor | None = None) -> pd.DataFrame:
    """Check many configs; one row per config, in the order given (the same shape for every model).

    Args:
        configs: the configs to check.
        executor: optional ``concurrent.futures.Executor``; ``None`` checks in this process. The
            result is the same either way.

    Returns:
        ``run`` (int64, the position in ``configs``), then one column per :class:`ExploreConfig`
        field (nested configs flattened as ``<field>.<subfield>``), then one per
        :class:`ExploreSummary` field (``reachable_actions`` as comma-joined text; the rule of
        every sweep, see ``labsupport._sweep``).

    Raises:
        ConfigError: ``configs`` is not an iterable of ExploreConfig values, or a bad ``executor``.
        LimitExceeded: a config has more than its ``max_states`` states.
    """
    return _sweep.sweep(run, configs, ExploreConfig, executor)


def verdict_table(base: ExploreConfig = INCIDENT, *, executor: Executor | None = None) -> pd.DataFrame:
    """Check all 16 combinations of the four guards at ``base``'s bounds.

    Args:
        base: bounds (its guard flags are replaced).
        executor: an optional ``concurrent.futures.Executor``; ``None`` checks in this process.

    Returns:
        16 rows: no guard, each guard alone, then pairs, triples and all four (the order of
        ``labsupport.race.guard_table``). Columns: the four guard names (bool), ``guards`` str
        ("none", "1", "1+2", ...), ``safe``, ``recovers``, ``empty_reachable``,
        ``stale_overwrite_reachable``, ``alert_reachable`` (bool), ``states_count``,
        ``transitions_count``, ``counterexample_steps_count``, ``stuck_states_count`` (int64).

    Raises:
        LimitExceeded: if one combination exceeds ``base.max_states``.
    """
    if not isinstance(base, ExploreConfig):
        raise ConfigError(f"base must be an ExploreConfig, got {type(base).__name__}")
    configs = [
        replace(base, guards=Guards(**dict(zip(GUARDS, flags, strict=False))))
        for flags in flag_combinations(len(GUARDS))
    ]
    return _verdict(sweep(configs, executor=executor))


def verdict_rows(results: Iterable[ExploreResult]) -> pd.DataFrame:
    """One row of :func:`verdict_table`'s shape per result, in the order given.

    Args:
        results: explorer results, e.g. from :func:`run`.

    Returns:
        The columns of :func:`verdict_table`.
    """
    results = list(results)
    for res in results:
        if not isinstance(res, ExploreResult):
            raise ConfigError(f"results must hold labsupport.explore.ExploreResult values, got {type(res).__name__}")
    return _verdict(_sweep.sweep_frame([r.config for r in results], [r.summary for r in results]))


def _verdict(frame: pd.DataFrame) -> pd.DataFrame:
    """The verdict table's columns from a :func:`sweep` table: guard flags, their label, the verdicts."""
    flags = frame[[f"guards.{g}" for g in GUARDS]].set_axis(list(GUARDS), axis=1)
    return flags.join(frame[["guards", *_VERDICT]]).reset_index(drop=True)
