"""DWFM's config, run and summary (import them from :mod:`labsupport.dwfm`)."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from . import engine as sim
from .._validate import check_bool, check_choice, check_int, check_number, check_seed, store_plain_numbers
from ..clock import INCIDENT_CLOCK
from ..errors import ConfigError

__all__ = [
    "CLOCK",
    "DwfmConfig",
    "DwfmResult",
    "DwfmSummary",
    "EVENT_KINDS",
    "INCIDENT",
    "RETRY_POLICIES",
    "SMALL_FLEET",
    "goodput_fraction",
    "run",
]

#: The model's clock: t = 0 is 11:48 PM PDT on 19 October 2025, when DynamoDB's endpoint went empty.
CLOCK = INCIDENT_CLOCK

#: Categories of ``DwfmResult.events["kind"]``, in order (see :class:`DwfmResult`).
EVENT_KINDS: tuple[str, ...] = sim.EVENT_KINDS

#: Values of :attr:`DwfmConfig.retry_policy`, one per retry strategy of the engine.
RETRY_POLICIES: tuple[str, ...] = tuple(sim.RETRY_STRATEGIES)

_DAY_S = 7 * 86_400.0

#: Largest allowed ``max_events``: a run that long takes about 30 s and well under 1 GB.
_MAX_EVENTS = 10_000_000


@dataclass(frozen=True, kw_only=True)
class DwfmConfig:
    """Everything one DWFM run depends on. Defaults are the incident (:data:`INCIDENT`).

    Times are seconds since 11:48 PM PDT on 19 Oct. The PES gives no counts or durations inside
    DWFM except "every few minutes" for state checks; the values are assumptions, and
    ``fleet_droplets_count`` is calibrated (see :data:`INCIDENT`).

    Attributes:
        fleet_droplets_count: droplets (physical hosts) whose leases DWFM holds, 1 to 1,000,000.
        dwfm_hosts_count: DWFM hosts sharing the fleet (droplet ``i`` to host ``(i // 30) % hosts``).
        host_concurrency_count: work items one DWFM host works on at once.
        state_check_interval_s: time between two state checks of one droplet (>= 1 s).
        lease_ttl_min_s, lease_ttl_max_s: each droplet's lease lasts a uniform random time in this
            range after its last successful state check; the spread makes leases "slowly" time out.
            The minimum must exceed ``state_check_interval_s``.
        outage_start_s, outage_end_s: DynamoDB is unreachable in ``[start, end)``.
        lease_establish_s: host time to establish one lease (spent even on expired items).
        work_deadline_s: a lease-establishment item must finish within this time of joining the queue;
            otherwise its work is wasted and it is retried. Tie rule: finishing exactly at the deadline
            is in time (compared in whole milliseconds).
        retry_policy: ``"immediate"`` (back of the queue at once) or ``"backoff_full_jitter"``
            (after a uniform random wait in ``[0, min(retry_cap_s, retry_base_s * 2**attempt)]``,
            Brooker 2015).
        retry_base_s, retry_cap_s: the backoff's base and cap (used only with backoff).
        throttle_by_queue_length: admission control from the start: an item that finds its host's
            waiting queue at ``queue_limit_count`` is refused; the droplet asks again at its next
            state check (the fix AWS announced).
        queue_limit_count: that limit, also used by the operators' throttle and restart.
        operator_throttle_at_s: when operators start throttling incoming work (the same admission
            control, switched on late), or ``None``.
        operator_restart_at_s: when operators restart every DWFM host whose waiting queue exceeds
            ``queue_limit_count``, clearing its queue, its round in progress and its retries, or
            ``None``.
        launch_attempts_per_s: customer launch attempts per second (observed, not queued).
        report_interval_s: spacing of the time-series rows.
        horizon_s: simulated time (< 7 days); the outage must end before it. The run covers the closed
            interval [0, horizon_s]: an event due at exactly horizon_s happens and is kept (the rule of
            every model, see :mod:`labsupport`); the last time-series row is taken after every event at
            the horizon.
        max_events: bound on the run's work, 1 to 10,000,000 (the incident needs about 125,000;
            the cap keeps any run under about 30 s and 1 GB). It counts one unit per simulation
            step, one per work item a step handles (queued, started and finished, released from
            backoff, cleared by a restart) and one per 64 droplets a state check or a report
            reads; exceeding it raises ``LimitExceeded``.
        seed: seed of the run's one ``random.Random`` (an integer from 0 to 2**63 - 1, the rule of every config).

    Raises:
        ConfigError: (a ``ValueError``) naming the first invalid field, its value and its range.
    """

    fleet_droplets_count: int = 6_600
    dwfm_hosts_count: int = 8
    host_concurrency_count: int = 10
    state_check_interval_s: float = 240.0
    lease_ttl_min_s: float = 600.0
    lease_ttl_max_s: float = 9_000.0
    outage_start_s: float = 0.0
    outage_end_s: float = 9_420.0
    lease_establish_s: float = 60.0
    work_deadline_s: float = 600.0
    retry_policy: str = "immediate"
    retry_base_s: float = 30.0
    retry_cap_s: float = 1_800.0
    throttle_by_queue_length: bool = False
    queue_limit_count: int = 50
    operator_throttle_at_s: float | None = 15_960.0
    operator_restart_at_s: float | None = 15_960.0
    launch_attempts_per_s: float = 5.0
    report_interval_s: float = 300.0
    horizon_s: float = 54_000.0
    max_events: int = 5_000_000
    seed: int = 20251019

    @property
    def capacity_per_min(self) -> float:
        """Work items all DWFM hosts finish per minute with every slot busy (items/min):
        ``dwfm_hosts_count * host_concurrency_count * 60 / lease_establish_s``."""
        return self.dwfm_hosts_count * self.host_concurrency_count * 60.0 / self.lease_establish_s

    def __post_init__(self) -> None:
        store_plain_numbers(self)  # numpy and other numbers become plain int/float first
        check_int("fleet_droplets_count", self.fleet_droplets_count, lo=1, hi=1_000_000)
        check_int("dwfm_hosts_count", self.dwfm_hosts_count, lo=1, hi=10_000)
        check_int("host_concurrency_count", self.host_concurrency_count, lo=1, hi=10_000)
        check_number("horizon_s", self.horizon_s, lo=0, hi=_DAY_S, lo_open=True)
        check_number("state_check_interval_s", self.state_check_interval_s, lo=1, hi=86_400)
        check_number("lease_ttl_min_s", self.lease_ttl_min_s, lo=self.state_check_interval_s,
                     lo_name="state_check_interval_s",
                     hi=_DAY_S, lo_open=True)
        check_number("lease_ttl_max_s", self.lease_ttl_max_s, lo=self.lease_ttl_min_s,
                     lo_name="lease_ttl_min_s", hi=_DAY_S)
        check_number("outage_start_s", self.outage_start_s, lo=0, hi=self.horizon_s, hi_name="horizon_s")
        check_number("outage_end_s", self.outage_end_s, lo=self.outage_start_s, lo_name="outage_start_s",
                     hi=self.horizon_s, hi_name="horizon_s",
                     hi_open=True)
        check_number("lease_establish_s", self.lease_establish_s, lo=0.01, hi=86_400)
        check_number("work_deadline_s", self.work_deadline_s, lo=0, hi=_DAY_S, lo_open=True)
        check_choice("retry_policy", self.retry_policy, RETRY_POLICIES)
        check_number("retry_base_s", self.retry_base_s, lo=0, hi=86_400, lo_open=True)
        check_number("retry_cap_s", self.retry_cap_s, lo=self.retry_base_s, lo_name="retry_base_s", hi=_DAY_S)
        check_bool("throttle_by_queue_length", self.throttle_by_queue_length)
        check_int("queue_limit_count", self.queue_limit_count, lo=1, hi=10_000_000)
        for name in ("operator_throttle_at_s", "operator_restart_at_s"):
            if getattr(self, name) is not None:
                check_number(name, getattr(self, name), lo=0, hi=self.horizon_s, hi_name="horizon_s")
        check_number("launch_attempts_per_s", self.launch_attempts_per_s, lo=0, hi=1e6)
        check_number("report_interval_s", self.report_interval_s, lo=self.horizon_s / 100_000,
                     lo_name="horizon_s / 100000",
                     hi=self.horizon_s, hi_name="horizon_s")
        check_int("max_events", self.max_events, lo=1, hi=_MAX_EVENTS)
        check_seed("seed", self.seed)


#: The incident. Times from the PES: DynamoDB unreachable 11:48 PM to 2:25 AM (9,420 s);
#: operators throttle and restart at 4:14 AM (15,960 s). The other DWFM values are assumptions.
#: Calibrated: ``fleet_droplets_count`` only (hosts, concurrency, lease time and deadline held at
#: round values), chosen so that all leases are back close to the PES's 5:28 AM (20,400 s).
#: Only the load per host matters: scale the fleet and the hosts together for a region-scale run.
INCIDENT = DwfmConfig()

#: A fleet small enough that the backlog left by the outage drains by itself, without operators.
SMALL_FLEET = replace(INCIDENT, fleet_droplets_count=1_200, operator_throttle_at_s=None,
                      operator_restart_at_s=None)


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
            came back; once, only if every droplet holds a lease at the horizon).
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
    model = sim._Model(config, random.Random(config.seed))
    env = model.env
    while env.peek() <= config.horizon_s:   # events at exactly horizon_s happen (the package's rule)
        env.step()
    model.sample(config.horizon_s)          # the last row, after every event at the horizon
    restored = bool(np.all(model.leased_until > config.horizon_s))
    at = None
    if restored:
        at = max(config.outage_end_s, model.last_established_s or 0.0)
        model.add_event(at, sim.EVENT_KINDS.index("leases_restored"), -1, 0)
    events = _events_frame(model.events)
    series = pd.DataFrame(model.series, columns=["time_s", *sim.SERIES_COLUMNS])
    series = series.astype({"time_s": "float64", **dict.fromkeys(sim.SERIES_COLUMNS, "int64")})
    summary = _summarise(config, model, events, series, at)
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
    time_s, code, host, count = (np.frombuffer(c, dtype=d) if len(c) else np.zeros(0, dtype=d)
                                 for c, d in zip(columns, ("float64", "int8", "int64", "int64")))
    order = np.argsort(time_s, kind="stable")
    kinds = pd.Categorical.from_codes(code[order].astype("int64"), categories=list(sim.EVENT_KINDS))
    return pd.DataFrame({"time_s": time_s[order], "kind": kinds, "host": host[order],
                         "count": count[order]})


def _summarise(cfg: DwfmConfig, model: sim._Model, events: pd.DataFrame, series: pd.DataFrame,
               at: float | None) -> DwfmSummary:
    totals = series.sum(numeric_only=True)
    by_kind = events.groupby("kind", observed=False)["count"].sum()
    done = int(totals["goodput_count"] + totals["wasted_count"])
    return DwfmSummary(
        recovered=at is not None,
        recovered_at_s=at,
        recovery_after_outage_s=None if at is None else at - cfg.outage_end_s,
        leases_lost_count=int(by_kind["lease_expired"]),
        min_leased_count=int(series["leased_count"].min()),
        peak_queue_count=int(model.peak_queue),
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
