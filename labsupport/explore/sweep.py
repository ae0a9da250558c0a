"""All 16 guard combinations checked at once: the verdict table."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Executor
from dataclasses import replace

import pandas as pd

from .._sweep import flag_combinations, map_items
from ..errors import ConfigError

from .config import GUARDS, INCIDENT, ExploreConfig
from .model import ExploreResult, run

__all__ = ["verdict_rows", "verdict_table"]


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
        ``transitions_count``, ``counterexample_steps_count``, ``stuck_states_count`` (int64),
        ``elapsed_s`` (float64, wall clock).

    Raises:
        LimitExceeded: if one combination exceeds ``base.max_states``.
    """
    if not isinstance(base, ExploreConfig):
        raise ConfigError(f"base must be an ExploreConfig, got {type(base).__name__}")
    configs = [replace(base, **dict(zip(GUARDS, flags))) for flags in flag_combinations(len(GUARDS))]
    results = map_items(run, configs, executor)
    return verdict_rows(results)


def verdict_rows(results: Iterable[ExploreResult]) -> pd.DataFrame:
    """One row of :func:`verdict_table`'s shape per result, in the order given.

    Args:
        results: explorer results, e.g. from :func:`run`.

    Returns:
        The columns of :func:`verdict_table`.
    """
    rows = []
    for res in results:
        if not isinstance(res, ExploreResult):
            raise ConfigError(f"results must hold labsupport.explore.ExploreResult values, got {type(res).__name__}")
        flags, s = {g: getattr(res.config, g) for g in GUARDS}, res.summary
        rows.append({**flags, "guards": "+".join(str(k + 1) for k, g in enumerate(GUARDS) if flags[g]) or "none",
                     "safe": s.safe, "recovers": s.recovers, "empty_reachable": s.empty_reachable,
                     "stale_overwrite_reachable": s.stale_overwrite_reachable,
                     "alert_reachable": s.alert_reachable, "states_count": s.states_count,
                     "transitions_count": s.transitions_count,
                     "counterexample_steps_count": s.counterexample_steps_count,
                     "stuck_states_count": s.stuck_states_count, "elapsed_s": s.elapsed_s})
    ints = ("states_count", "transitions_count", "counterexample_steps_count", "stuck_states_count")
    return pd.DataFrame(rows).astype({**{c: "int64" for c in ints}, "elapsed_s": "float64"})


# --- replaying a counterexample in labsupport.race (glue only: the search above never uses race) ---
