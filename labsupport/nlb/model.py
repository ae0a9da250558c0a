"""One NLB run: :func:`run`, its result and summary (import them from :mod:`labsupport.nlb`)."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Executor
from dataclasses import dataclass

import pandas as pd

from .. import _sweep, network
from ..errors import ConfigError
from . import engine as sim
from .config import INCIDENT, NlbConfig

__all__ = ["EVENT_KINDS", "NlbResult", "NlbSummary", "run", "sweep"]

#: Values of the ``kind`` column of :attr:`NlbResult.events`.
EVENT_KINDS: tuple[str, ...] = (
    "target_registered",
    "target_in_service",
    "target_out_of_service",
    "az_failover",
    "az_restored",
    "removal_limited",
    "failover_disabled",
    "failover_enabled",
)


@dataclass(frozen=True)
class NlbSummary:
    """Headline figures of one run (capacity as a fraction of the NLB's established capacity).

    Attributes:
        min_capacity_fraction: lowest capacity in service (DNS weight x targets in service).
        min_working_capacity_fraction: the same without targets that lack network state.
        below_demand_s: seconds during which working capacity was below demand.
        peak_error_fraction: highest fraction of client connections failing.
        error_start_s, error_end_s: first and last sample above ``error_threshold_fraction``, or
            ``None``.
        error_s: seconds above that threshold.
        first_failover_s: first AZ failover, or ``None``.
        failover_count: AZ failovers (a partial removal under the velocity control counts too).
        removed_fraction: capacity removed by failover, summed over failovers.
        limited_count: failovers cut short by the velocity control.
        peak_check_latency_s: highest health-check latency in any AZ.
        flaps_count: times one of this NLB's targets was taken out of service.
        peak_fleet_flaps_per_min: highest fleet-wide flap rate (target removals per minute).
        sim_events_count: simpy events of this run (the network run's are in its own summary).
    """

    min_capacity_fraction: float
    min_working_capacity_fraction: float
    below_demand_s: float
    peak_error_fraction: float
    error_start_s: float | None
    error_end_s: float | None
    error_s: float
    first_failover_s: float | None
    failover_count: int
    removed_fraction: float
    limited_count: int
    peak_check_latency_s: float
    flaps_count: int
    peak_fleet_flaps_per_min: float
    sim_events_count: int


@dataclass(frozen=True)
class NlbResult:
    """What :func:`run` returns.

    Attributes:
        config: the config that produced it.
        network: the :class:`labsupport.network.NetworkResult` it was driven by.
        events: one row per event, by time: ``time_s`` (float64), ``kind`` (category of
            :data:`EVENT_KINDS`), ``az`` (int64, -1 if NLB-wide), ``target`` (int64, -1 if none),
            ``value`` (float64: capacity fraction removed or refused for failover events, else 0).
        timeseries: one row per ``sample_interval_s``: ``time_s`` (float64) and float64 columns
            ``capacity_fraction``, ``working_capacity_fraction``, ``demand_fraction``,
            ``error_fraction``, ``check_latency_s`` (worst AZ), ``dns_weight`` (AZs' worth in DNS),
            ``failover_removed_fraction`` (capacity held out of DNS by failover),
            ``fleet_flaps_per_min``, ``nlb_flaps_per_min``, ``unconfigured_targets_count``.
        summary: the :class:`NlbSummary`.
    """

    config: NlbConfig
    network: network.NetworkResult
    events: pd.DataFrame
    timeseries: pd.DataFrame
    summary: NlbSummary


def run(config: NlbConfig = INCIDENT) -> NlbResult:
    """Simulate one NLB's health checks, flapping and AZ failover through the propagation backlog.

    Follows the PES's NLB section; the network state arrives as :mod:`labsupport.network`
    computes it for ``config.network``.

    Args:
        config: an :class:`NlbConfig` (validated when it was built).

    Returns:
        An :class:`NlbResult` with ``.events``, ``.timeseries``, ``.summary`` and ``.network``.

    Raises:
        ConfigError: ``config`` is not an NlbConfig.
        LimitExceeded: the run (or its network run) needed more than its ``max_events`` steps.
    """
    if not isinstance(config, NlbConfig):
        raise ConfigError(f"config must be an NlbConfig, got {type(config).__name__}")
    net = network.run(config.network)
    record = sim.simulate(config, net)
    events = pd.DataFrame(record.log, columns=["time_s", "kind", "az", "target", "value"])
    events = events.astype({"time_s": "float64", "az": "int64", "target": "int64", "value": "float64"})
    events["kind"] = pd.Categorical(events["kind"], categories=list(EVENT_KINDS))
    series = pd.DataFrame(record.rows, columns=["time_s", *sim.SERIES]).astype("float64")
    summary = _summarise(config, events, series, record.steps)
    return NlbResult(config=config, network=net, events=events, timeseries=series, summary=summary)


def sweep(configs: Iterable[NlbConfig], *, executor: Executor | None = None) -> pd.DataFrame:
    """Run many configs; one row per config, in the order given (every model's sweep, ``labsupport._sweep``).

    Args:
        configs: the configs to run.
        executor: optional ``concurrent.futures.Executor`` (threads, processes, a Dask client's
            executor); ``None`` runs in this process. The result is the same either way.

    Returns:
        ``run`` (int64, the position in ``configs``), one column per :class:`NlbConfig` field (nested
        configs flattened as ``<field>.<subfield>``), one per :class:`NlbSummary` field; tuples as
        comma-joined text, ``None`` as NaN in number columns.

    Raises:
        ConfigError: ``configs`` is not an iterable of NlbConfig values, or ``executor`` is neither ``None``
            nor a ``concurrent.futures.Executor``.
    """
    return _sweep.sweep(run, configs, NlbConfig, executor)


def _summarise(cfg: NlbConfig, events: pd.DataFrame, series: pd.DataFrame, steps: int) -> NlbSummary:
    step = cfg.sample_interval_s
    erring = series.loc[series["error_fraction"] > cfg.error_threshold_fraction, "time_s"]
    failovers = events[events["kind"] == "az_failover"]
    below = series["working_capacity_fraction"] < series["demand_fraction"] - 1e-12

    def stat(column: str, how: str) -> float:
        values = series[column]
        return float(getattr(values, how)()) if len(values) else 0.0

    return NlbSummary(
        min_capacity_fraction=stat("capacity_fraction", "min") if len(series) else 1.0,
        min_working_capacity_fraction=stat("working_capacity_fraction", "min") if len(series) else 1.0,
        below_demand_s=float(below.sum() * step),
        peak_error_fraction=stat("error_fraction", "max"),
        error_start_s=float(erring.min()) if len(erring) else None,
        error_end_s=float(erring.max()) if len(erring) else None,
        error_s=float(len(erring) * step),
        first_failover_s=float(failovers["time_s"].min()) if len(failovers) else None,
        failover_count=len(failovers),
        removed_fraction=float(failovers["value"].sum()),
        limited_count=int((events["kind"] == "removal_limited").sum()),
        peak_check_latency_s=stat("check_latency_s", "max"),
        flaps_count=int((events["kind"] == "target_out_of_service").sum()),
        peak_fleet_flaps_per_min=stat("fleet_flaps_per_min", "max"),
        sim_events_count=steps,
    )
