"""One Network Manager run: :func:`run`, its result and summary (import them from :mod:`labsupport.network`)."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import _sweep
from ..clock import sample_times
from ..errors import ConfigError, LimitExceeded
from . import engine as _sim
from .config import INCIDENT, NetworkConfig

__all__ = ["EVENT_KINDS", "NetworkResult", "NetworkSummary", "run", "sweep"]

#: Values of the ``kind`` column of :attr:`NetworkResult.events`.
EVENT_KINDS: tuple[str, ...] = ("backlog_queued", "launch_queued", "launch_refused", "propagated")


@dataclass(frozen=True)
class NetworkSummary:
    """Headline figures of one run.

    Attributes:
        backlog_count: items waiting at ``drain_start_s``.
        launches_count, refused_count: launches requested after draining started, and those
            refused by shedding or admission control.
        propagated_count: items that completed within the horizon.
        peak_queue_count: most items waiting at once.
        first_late_config_s: when the first new instance got its configuration later than
            ``normal_delay_s`` after its launch (the moment the latency shows), or ``None``.
        max_delay_s: longest launch-to-connectivity delay of a launched instance (for instances
            still waiting at the horizon, the wait so far).
        propagation_normal_s: end of the last ``sample_interval_s`` bin in which a new instance's
            delay exceeded ``normal_delay_s``; ``drain_start_s`` if none did; ``None`` if new
            instances were still waiting too long at the horizon.
        backlog_cleared_s: when the last of the initial backlog completed, or ``None``.
        sim_events_count: simpy events processed.
    """

    backlog_count: int
    launches_count: int
    refused_count: int
    propagated_count: int
    peak_queue_count: int
    first_late_config_s: float | None
    max_delay_s: float
    propagation_normal_s: float | None
    backlog_cleared_s: float | None
    sim_events_count: int


@dataclass(frozen=True)
class NetworkResult:
    """What :func:`run` returns.

    Attributes:
        config: the config that produced it.
        events: one row per event, by time: ``time_s`` (float64), ``kind`` (category of
            :data:`EVENT_KINDS`), ``item`` (int64 item id), ``az`` (int64; -1 for backlog items).
        items: one row per item: ``item`` (int64), ``is_launch`` (bool), ``az`` (int64, -1 for
            backlog), ``queued_s`` (float64; launch time for launches), ``propagated_s`` (float64,
            NaN if refused or still waiting at the horizon), ``refused`` (bool), ``delay_s``
            (float64, ``propagated_s - queued_s``, NaN if not propagated).
        timeseries: one row per ``sample_interval_s``, the last one at the horizon (a shorter
            last bin if the interval does not divide it; never a row after the horizon):
            ``time_s`` (float64), ``queue_count`` and ``unconfigured_count`` (int64; items at
            Network Manager, waiting or in service, and launched instances still without
            connectivity, at ``time_s``), ``mean_delay_s`` and ``max_delay_s`` (float64; delays
            of the new instances that got their configuration in the bin ending at ``time_s``;
            **NaN in a bin where no new instance got its configuration**, e.g. while Network
            Manager is still on the backlog, so drop or mask NaN before plotting or averaging).
        summary: the :class:`NetworkSummary`.
    """

    config: NetworkConfig
    events: pd.DataFrame
    items: pd.DataFrame
    timeseries: pd.DataFrame
    summary: NetworkSummary


def run(config: NetworkConfig = INCIDENT) -> NetworkResult:
    """Simulate Network Manager draining its backlog while new instances keep launching.

    Follows the PES's EC2 section from 5:28 AM ("Network Manager phase"): new instances launched,
    but their network state arrived late, so they lacked connectivity until 10:36 AM.

    Args:
        config: a :class:`NetworkConfig` (validated when it was built).

    Returns:
        A :class:`NetworkResult` with ``.events``, ``.items``, ``.timeseries`` and ``.summary``.

    Raises:
        ConfigError: ``config`` is not a NetworkConfig, or its ``launch_admission`` raised or
            returned a non-``bool`` (StrategyTimeout, a ConfigError: it did not return within the
            step budget, :func:`labsupport.strategy.call_strategy`).
        LimitExceeded: the run needed more than ``config.max_events`` simulation steps.
    """
    if not isinstance(config, NetworkConfig):
        raise ConfigError(f"config must be a NetworkConfig, got {type(config).__name__}")
    if config.backlog_count > config.max_events:
        raise LimitExceeded(
            f"backlog_count={config.backlog_count} items need more than max_events="
            f"{config.max_events} steps; raise max_events or lower backlog_count"
        )
    record = _sim.simulate(config)
    items = _items_frame(record)
    series = _series(config, items)
    return NetworkResult(
        config=config,
        events=_events_frame(record.log),
        items=items,
        timeseries=series,
        summary=_summarise(config, record, items, series),
    )


def sweep(configs: Iterable[NetworkConfig], *, executor: Executor | None = None) -> pd.DataFrame:
    """Run many configs; one row per config, in the order given (every model's sweep, ``labsupport._sweep``).

    Args:
        configs: the configs to run.
        executor: optional ``concurrent.futures.Executor`` (threads, processes, a Dask client's
            executor); ``None`` runs in this process. The result is the same either way.

    Returns:
        ``run`` (int64, the position in ``configs``), one column per :class:`NetworkConfig` field (nested
        configs flattened as ``<field>.<subfield>``), one per :class:`NetworkSummary` field; tuples as
        comma-joined text, ``None`` as NaN in number columns.

    Raises:
        ConfigError: ``configs`` is not an iterable of NetworkConfig values, or ``executor`` is neither ``None``
            nor a ``concurrent.futures.Executor``.
    """
    return _sweep.sweep(run, configs, NetworkConfig, executor)


def _items_frame(record: _sim.NetworkRecord) -> pd.DataFrame:
    az = np.asarray(record.az, dtype="int64")
    queued = np.asarray(record.queued_s, dtype="float64")
    prop = np.asarray(record.propagated_s, dtype="float64")
    return pd.DataFrame(
        {
            "item": np.arange(len(az), dtype="int64"),
            "is_launch": az >= 0,
            "az": az,
            "queued_s": queued,
            "propagated_s": prop,
            "refused": np.asarray(record.refused, dtype=bool),
            "delay_s": prop - queued,
        }
    )


def _events_frame(log: list[tuple]) -> pd.DataFrame:
    frame = pd.DataFrame(log, columns=["time_s", "kind", "item", "az"])
    frame = frame.astype({"time_s": "float64", "item": "int64", "az": "int64"})
    frame["kind"] = pd.Categorical(frame["kind"], categories=list(EVENT_KINDS))
    return frame.sort_values("time_s", kind="stable").reset_index(drop=True)


def _series(cfg: NetworkConfig, items: pd.DataFrame) -> pd.DataFrame:
    step = cfg.sample_interval_s
    times = sample_times(step, cfg.horizon_s, step)
    admitted = items[~items["refused"]]
    launch = admitted[admitted["is_launch"]]
    prop_all = np.sort(admitted["propagated_s"].fillna(np.inf).to_numpy())
    queued_all = np.sort(admitted["queued_s"].to_numpy())
    prop_l = np.sort(launch["propagated_s"].fillna(np.inf).to_numpy())
    queued_l = np.sort(launch["queued_s"].to_numpy())
    queue = np.searchsorted(queued_all, times, "right") - np.searchsorted(prop_all, times, "right")
    waiting = np.searchsorted(queued_l, times, "right") - np.searchsorted(prop_l, times, "right")
    done = launch.dropna(subset=["propagated_s"])
    bins = np.ceil(done["propagated_s"].to_numpy() / step).astype("int64") - 1
    grouped = pd.Series(done["delay_s"].to_numpy()).groupby(bins)
    mean = grouped.mean().reindex(range(len(times)))
    peak = grouped.max().reindex(range(len(times)))
    return pd.DataFrame(
        {
            "time_s": times.astype("float64"),
            "queue_count": queue.astype("int64"),
            "unconfigured_count": waiting.astype("int64"),
            "mean_delay_s": mean.to_numpy(dtype="float64"),
            "max_delay_s": peak.to_numpy(dtype="float64"),
        }
    )


def _summarise(
    cfg: NetworkConfig, record: _sim.NetworkRecord, items: pd.DataFrame, series: pd.DataFrame
) -> NetworkSummary:
    launches = items[items["is_launch"]]
    admitted = launches[~launches["refused"]]
    late = admitted[admitted["delay_s"] > cfg.normal_delay_s]
    waiting = admitted[admitted["propagated_s"].isna()]
    waits = cfg.horizon_s - waiting["queued_s"]
    max_delay = max(
        float(admitted["delay_s"].max()) if admitted["delay_s"].notna().any() else 0.0,
        float(waits.max()) if len(waits) else 0.0,
    )
    if (waits > cfg.normal_delay_s).any():
        normal = None
    elif len(late):
        step = cfg.sample_interval_s
        normal = float(min(np.ceil(late["propagated_s"].max() / step) * step, cfg.horizon_s))
    else:
        normal = cfg.drain_start_s
    backlog = items[~items["is_launch"]]["propagated_s"]
    return NetworkSummary(
        backlog_count=cfg.backlog_count,
        launches_count=len(launches),
        refused_count=int(launches["refused"].sum()),
        propagated_count=int(items["propagated_s"].notna().sum()),
        peak_queue_count=int(record.peak_queue_count),
        first_late_config_s=float(late["propagated_s"].min()) if len(late) else None,
        max_delay_s=max_delay,
        propagation_normal_s=normal,
        backlog_cleared_s=(
            float(backlog.max())
            if len(backlog) and backlog.notna().all()
            else (cfg.drain_start_s if not len(backlog) else None)
        ),
        sim_events_count=record.steps,
    )
