"""One DWFM run: :func:`run`, its result and summary (import them from :mod:`labsupport.dwfm`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import check_number
from ..errors import ConfigError
from . import engine as sim
from .config import INCIDENT, DwfmConfig

__all__ = ["DwfmResult", "DwfmSummary", "EVENT_KINDS", "goodput_fraction", "run"]

#: Categories of ``DwfmResult.events["kind"]``, in order (see :class:`DwfmResult`).
EVENT_KINDS: tuple[str, ...] = sim.EVENT_KINDS


@dataclass(frozen=True)
class DwfmSummary:
    """Headline figures of one run (counts are work items unless named otherwise).

    Attributes:
        recovered: every droplet holds a lease at the horizon.
        recovered_at_s: when the last lease came back (the PES's "established leases with all
            droplets", 5:28 AM), ``outage_end_s`` if none was lost, or ``None`` if not recovered
            within the horizon.
        recovery_after_outage_s: ``recovered_at_s - outage_end_s``, or ``None``.
        leases_lost_count: lease lapses (a droplet can lapse again after a restart's lost work).
        min_leased_count: fewest droplets with a lease at any report time.
        peak_queue_count: largest number of items waiting in all DWFM queues together.
        started_count, goodput_count, wasted_count: items started, finished in time, wasted.
        wasted_fraction: ``wasted / (goodput + wasted)``, 0 when nothing finished.
        requested_count: new lease requests admitted from state checks.
        held_back_count: items refused by admission control (throttle).
        cleared_count: items dropped by operator restarts.
        launch_attempts_count, insufficient_capacity_count: customer launches and those refused
            because their droplet had no lease.
    """

    recovered: bool
    recovered_at_s: float | None
    recovery_after_outage_s: float | None
    leases_lost_count: int
    min_leased_count: int
    peak_queue_count: int
    started_count: int
    goodput_count: int
    wasted_count: int
    wasted_fraction: float
    requested_count: int
    held_back_count: int
    cleared_count: int
    launch_attempts_count: int
    insufficient_capacity_count: int


@dataclass(frozen=True)
class DwfmResult:
    """What :func:`run` returns.

    Attributes:
        config: the config that produced it.
        events: one row per event, in time order: ``time_s`` (float64), ``kind`` (category of
            :data:`EVENT_KINDS`), ``host`` (int64, -1 if fleet-wide), ``count`` (int64, the
            droplets or items the event covers). Kinds: ``dynamodb_unreachable`` /
            ``dynamodb_restored``; ``lease_expired`` (lapsed leases found by one cohort's state
            check); ``lease_requested`` (new items admitted by one cohort's check);
            ``lease_held_back`` (items refused by admission control); ``work_started``,
            ``lease_established``, ``work_timed_out`` (one host round: started, finished in time,
            wasted); ``retry_queued`` (retries admitted); ``operator_throttle``;
            ``host_restarted`` (items dropped by a restart); ``leases_restored`` (the last lease
            came back; once, only if every droplet holds a lease at the horizon);
            ``work_dropped_expired`` (items a host dropped unworked because their deadline had
            passed, with ``drop_expired_work``); ``retry_refused`` (failed items not retried
            because the host's retry budget was empty); ``operator_throttle_relaxed``.
        timeseries: one row per ``report_interval_s`` and one at the horizon: ``time_s`` (float64),
            then int64 columns ``leased_count``, ``queue_count``, ``in_flight_count``,
            ``backoff_count`` (states at ``time_s``) and ``started_count``, ``goodput_count``,
            ``wasted_count``, ``requested_count``, ``held_back_count``, ``launch_attempts_count``,
            ``insufficient_capacity_count`` (counts since the previous row).
        summary: the :class:`DwfmSummary`.
    """

    config: DwfmConfig
    events: pd.DataFrame
    timeseries: pd.DataFrame
    summary: DwfmSummary


def run(config: DwfmConfig = INCIDENT) -> DwfmResult:
    """Simulate DWFM through the DynamoDB outage and its aftermath (PES, EC2 section).

    Args:
        config: a :class:`DwfmConfig` (validated when it was built).

    Returns:
        A :class:`DwfmResult` with ``.events``, ``.timeseries`` and ``.summary``.

    Raises:
        ConfigError: ``config`` is not a DwfmConfig.
        LimitExceeded: the run needed more than ``config.max_events`` units of work.
    """
    if not isinstance(config, DwfmConfig):
        raise ConfigError(f"config must be a DwfmConfig, got {type(config).__name__}")
    record = sim.simulate(config)
    events = _events_frame(record.events)
    series = pd.DataFrame(record.series, columns=["time_s", *sim.SERIES_COLUMNS])
    series = series.astype({"time_s": "float64", **dict.fromkeys(sim.SERIES_COLUMNS, "int64")})
    summary = _summarise(config, record, events, series)
    return DwfmResult(config=config, events=events, timeseries=series, summary=summary)


def goodput_fraction(timeseries: pd.DataFrame, start_s: float, end_s: float) -> float:
    """Share of finished work that finished in time (goodput / throughput) in ``(start_s, end_s]``.

    Args:
        timeseries: a :attr:`DwfmResult.timeseries` (needs ``time_s``, ``goodput_count``,
            ``wasted_count``).
        start_s, end_s: the window, seconds since 11:48 PM PDT, ``start_s < end_s``.

    Returns:
        A fraction in [0, 1]; ``nan`` if no work finished in the window.

    Raises:
        ConfigError: ``timeseries`` is not a DataFrame, lacks a column, or a bad window.
    """
    if not isinstance(timeseries, pd.DataFrame):
        raise ConfigError(f"timeseries must be a pandas DataFrame, got {type(timeseries).__name__}")
    missing = {"time_s", "goodput_count", "wasted_count"} - set(timeseries.columns)
    if missing:
        raise ConfigError(f"timeseries is missing columns {sorted(missing)}")
    check_number("start_s", start_s, lo=0)
    check_number("end_s", end_s, lo=start_s, lo_open=True)
    window = timeseries[(timeseries["time_s"] > start_s) & (timeseries["time_s"] <= end_s)]
    good, wasted = int(window["goodput_count"].sum()), int(window["wasted_count"].sum())
    return good / (good + wasted) if good + wasted else float("nan")


def _events_frame(columns: tuple) -> pd.DataFrame:
    time_s, code, host, count = (
        np.frombuffer(c, dtype=d) if len(c) else np.zeros(0, dtype=d)
        for c, d in zip(columns, ("float64", "int8", "int64", "int64"), strict=False)
    )
    order = np.argsort(time_s, kind="stable")
    kinds = pd.Categorical.from_codes(code[order].astype("int64"), categories=pd.Index(list(sim.EVENT_KINDS)))
    return pd.DataFrame({"time_s": time_s[order], "kind": kinds, "host": host[order], "count": count[order]})


def _summarise(cfg: DwfmConfig, record: sim.DwfmRecord, events: pd.DataFrame, series: pd.DataFrame) -> DwfmSummary:
    at = record.restored_at_s
    totals = series.sum(numeric_only=True)
    by_kind = events.groupby("kind", observed=False)["count"].sum()
    done = int(totals["goodput_count"] + totals["wasted_count"])
    return DwfmSummary(
        recovered=at is not None,
        recovered_at_s=at,
        recovery_after_outage_s=None if at is None else at - cfg.outage_end_s,
        leases_lost_count=int(by_kind["lease_expired"]),
        min_leased_count=int(series["leased_count"].min()),
        peak_queue_count=int(record.peak_queue_count),
        started_count=int(totals["started_count"]),
        goodput_count=int(totals["goodput_count"]),
        wasted_count=int(totals["wasted_count"]),
        wasted_fraction=float(totals["wasted_count"] / done) if done else 0.0,
        requested_count=int(totals["requested_count"]),
        held_back_count=int(totals["held_back_count"]),
        cleared_count=int(by_kind["host_restarted"]),
        launch_attempts_count=int(totals["launch_attempts_count"]),
        insufficient_capacity_count=int(totals["insufficient_capacity_count"]),
    )
