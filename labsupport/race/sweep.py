"""Many runs of the race model: guard combinations, seeds, and the in-page guard explorer's data."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Executor
from dataclasses import replace
from functools import partial
from typing import cast

import pandas as pd

from .. import _sweep
from .._sweep import flag_combinations, map_items
from .._validate import check_number, show
from ..errors import ConfigError
from .config import GUARD_NAMES, INCIDENT, Guards, RaceConfig
from .model import run

__all__ = ["guard_configs", "guard_explorer_data", "guard_table", "seed_sweep", "sweep"]


def guard_configs(config: RaceConfig = INCIDENT) -> list[RaceConfig]:
    """The 16 variants of ``config``, one per combination of the four guards: none, 1, 2, 3, 4, 1+2, ..., 1+2+3+4."""
    _check_config(config)
    combos = flag_combinations(len(GUARD_NAMES))
    return [replace(config, guards=Guards(**dict(zip(GUARD_NAMES, combo, strict=False)))) for combo in combos]


def _check_config(config: object) -> None:
    if not isinstance(config, RaceConfig):
        raise ConfigError(f"config must be a RaceConfig, got {type(config).__name__}")


def _listed(name: str, values: object) -> list:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ConfigError(f"{name} must be an iterable of values, got {show(values)}")
    return list(values)


def sweep(configs: Iterable[RaceConfig], *, executor: Executor | None = None) -> pd.DataFrame:
    """Run many configs; one row per config, in the order given (the same shape for every model).

    Args:
        configs: the configs to run.
        executor: optional ``concurrent.futures.Executor`` (threads, processes, a Dask client's
            executor); ``None`` runs in this process. The result is the same either way.

    Returns:
        ``run`` (int64, the position in ``configs``), then one column per :class:`RaceConfig` field (nested
        configs flattened as ``<field>.<subfield>``), then one per :class:`RaceSummary` field; tuples as
        comma-joined text, ``None`` as NaN in number columns (the rule of every sweep, see
        ``labsupport._sweep``).

    Raises:
        ConfigError: ``configs`` is not an iterable of RaceConfig values, or ``executor`` is neither
            ``None`` nor a ``concurrent.futures.Executor``.
    """
    return _sweep.sweep(run, configs, RaceConfig, executor)


def guard_table(config: RaceConfig = INCIDENT, *, executor: Executor | None = None) -> pd.DataFrame:
    """The 16-row table: :func:`sweep` over :func:`guard_configs` of ``config``."""
    return sweep(guard_configs(config), executor=executor)


def seed_sweep(
    config: RaceConfig = INCIDENT, seeds: Iterable[int] = range(50), *, executor: Executor | None = None
) -> pd.DataFrame:
    """:func:`sweep` over ``config`` with each seed in ``seeds`` (how often does the race fire?)."""
    _check_config(config)
    return sweep([replace(config, seed=s) for s in _listed("seeds", seeds)], executor=executor)


def _binned_regional(config: RaceConfig, bin_s: float) -> pd.DataFrame:
    """Regional record count per time bin (minimum within the bin, so short empty spells show)."""
    res = run(config)
    states = res.endpoint_states()
    reg = states.loc[states["endpoint"] == config.regional_endpoint, ["time_s", "records"]]
    edges = pd.DataFrame({"time_s": [i * bin_s for i in range(int(config.horizon_s // bin_s) + 1)]})
    # The state at each bin's start, plus every change inside the bin.
    at_start = pd.merge_asof(edges, reg.astype({"records": "int64"}), on="time_s", direction="backward")
    inside = reg.assign(time_s=(reg["time_s"] // bin_s) * bin_s).astype({"records": "int64"})
    binned = pd.concat([at_start, inside]).groupby("time_s", as_index=False)["records"].min()
    binned["time_min"] = binned["time_s"] / 60.0
    for name in GUARD_NAMES:
        binned[name] = getattr(config.guards, name)
    binned["guards"] = config.guards.label()
    binned["regional_empty_s"] = res.summary.regional_empty_s
    binned["alerts_count"] = res.summary.alerts_count
    binned["manual_repair"] = res.summary.repaired_at_s is not None
    return cast(
        pd.DataFrame,
        binned[[*GUARD_NAMES, "guards", "time_min", "records", "regional_empty_s", "alerts_count", "manual_repair"]],
    )


def guard_explorer_data(
    config: RaceConfig = INCIDENT, *, bin_s: float = 120.0, executor: Executor | None = None
) -> pd.DataFrame:
    """Regional record count over time for all 16 guard combinations, binned, as one long table.

    Args:
        config: the base config (its guards are replaced).
        bin_s: bin width in seconds (>= 1); each bin keeps the smallest record count seen in it.
        executor: optional ``concurrent.futures.Executor``; ``None`` runs in this process.

    Returns:
        Columns: the four guard flags (bool), ``guards`` (label), ``time_min`` (float64, bin start
        in minutes), ``records`` (int64, fewest records in the bin), and that combination's
        ``regional_empty_s`` (float64), ``alerts_count`` (int64) and ``manual_repair`` (bool).
        16 * (horizon_s / bin_s + 1) rows at most.
    """
    _check_config(config)
    bin_s = check_number("bin_s", bin_s, lo=1, hi=86400)
    if config.horizon_s / bin_s > 300:
        raise ConfigError(
            f"bin_s={bin_s:g} gives more than 300 bins over horizon_s={config.horizon_s:g}; "
            "use wider bins to keep the chart small"
        )
    parts = map_items(partial(_binned_regional, bin_s=bin_s), guard_configs(config), executor)
    return pd.concat(parts, ignore_index=True)
