"""Network Manager's propagation backlog: new EC2 instances that launch but cannot talk.

Scenario:
    20 Oct 2025, 5:28 AM PDT (t = 0 of :data:`CLOCK`) to 2:30 PM. DWFM has just re-established
    leases with every droplet, so launches succeed again, and Network Manager starts working
    through the network configuration that DWFM held back during the lease outage. Every new
    instance's configuration joins the back of that queue: the instance runs, but has no network
    connectivity until its turn comes.
Covers:
    The post-event summary's (PES) EC2 section, Network Manager phase: the significant backlog
    from 5:28 AM, the propagation latency seen at 6:21 AM, propagation normal at 10:36 AM; and the
    two levers, shedding load from Network Manager and (AWS's announced fix for EC2 data
    propagation) admission control by the size of the waiting queue::

        t = drain_start_s: leases are back
              |
        backlog_count items ----------+
                                      v
        EC2 launches ------> [ Network Manager queue (FIFO) ] ---> one item per
        (launch_rate_per_min,   ^                                  60 / propagation_rate_per_min s
         random AZ)             |                                       |
                                |                                       v
        refused: shed_load_fraction from shed_load_at_s;       the instance has connectivity
                 queue at max_queue_count (admission control)  ("propagated")

What the model leaves out: Network Manager's internal structure (one FIFO server stands for it),
the appliances the state goes to, and the EC2 API's own throttling, which is folded into the launch
rate. Item counts are a scaled-down sample of the Region: only rates and times matter.

:mod:`labsupport.nlb` takes this model's per-instance propagation times as the moments when new
NLB targets get their network state.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import simpy

from . import _network_sim as _sim
from ._validate import check_int, check_number, check_seed, store_plain_numbers
from .clock import NETWORK_CLOCK, sample_times
from .errors import ConfigError, LimitExceeded

__all__ = [
    "CLOCK",
    "EVENT_KINDS",
    "INCIDENT",
    "NetworkConfig",
    "NetworkResult",
    "NetworkSummary",
    "SHED_AT_0700",
    "run",
]

#: The model's clock, :data:`labsupport.clock.NETWORK_CLOCK`: t = 0 is 5:28 AM PDT on 20 Oct 2025.
CLOCK = NETWORK_CLOCK

#: Values of the ``kind`` column of :attr:`NetworkResult.events`.
EVENT_KINDS: tuple[str, ...] = ("backlog_queued", "launch_queued", "launch_refused", "propagated")

_WEEK_S = 7 * 86_400.0

#: Largest allowed ``max_events``: every step may add an item and event rows (about 330 bytes in
#: all), so a run at this bound peaks near 700 MB, leaving room for an NLB run on top of it.
_MAX_EVENTS = 2_000_000

#: Largest allowed ``backlog_count`` and ``retry_launches_count``.
MAX_ITEMS = 1_000_000


@dataclass(frozen=True, kw_only=True)
class NetworkConfig:
    """Everything one Network Manager run depends on. Defaults are the incident (:data:`INCIDENT`).

    Times are seconds on :data:`CLOCK` (since 5:28 AM PDT). The PES gives no sizes or rates for
    Network Manager; every number here is an assumption or a calibration (see :data:`INCIDENT`).

    Attributes:
        backlog_count: configuration items waiting when draining starts (built up while DWFM held
            them back), 0 to 1,000,000. They need no new instance's connectivity.
        drain_start_s: when DWFM has leases on all droplets: launches resume and Network Manager
            starts draining (>= 0; use it to put the backlog later on a longer clock).
        propagation_rate_per_min: items Network Manager completes per minute (one at a time, each
            taking ``60 / rate`` seconds).
        launch_rate_per_min: mean rate of ordinary new instance launches after ``drain_start_s``
            (a Poisson stream). Each launch queues one item.
        retry_launches_count: extra launches from customers and automation retrying the launches
            that failed while leases were missing; each arrives ``drain_start_s`` plus an
            exponentially distributed time with mean ``retry_decay_s`` (EC2's throttling, which
            spread them out, is folded into that time).
        retry_decay_s: that mean (> 0).
        az_count: Availability Zones a launch is spread over (uniformly at random).
        shed_load_at_s: from this time a fraction of new launches is refused before it reaches
            Network Manager (shedding load), or ``None`` for never.
        shed_load_fraction: that fraction, in [0, 1].
        max_queue_count: admission control by the size of the waiting queue: a launch that finds
            this many items waiting is refused; ``None`` for no limit.
        normal_delay_s: launch-to-connectivity delay up to which propagation counts as normal.
        sample_interval_s: spacing of the :attr:`NetworkResult.timeseries` rows.
        horizon_s: simulated time, 1 s to 7 days; the run covers the closed interval [0, horizon_s]: an
            event due at exactly horizon_s happens and is kept (the rule of every model, see
            :mod:`labsupport`).
        max_events: bound on simulation steps (and on ``backlog_count``), 1 to 2,000,000 (a run
            that long needs about 700 MB); exceeding it raises ``LimitExceeded``.
        seed: seed of the run's one ``random.Random`` (an integer from 0 to 2**63 - 1, the rule of every config).

    Raises:
        ConfigError: (a ``ValueError``) naming the first invalid field, its value and its range.
    """

    backlog_count: int = 318
    drain_start_s: float = 0.0
    propagation_rate_per_min: float = 6.0
    launch_rate_per_min: float = 3.0
    retry_launches_count: int = 627
    retry_decay_s: float = 5_400.0
    az_count: int = 3
    shed_load_at_s: float | None = None
    shed_load_fraction: float = 0.5
    max_queue_count: int | None = None
    normal_delay_s: float = 120.0
    sample_interval_s: float = 60.0
    horizon_s: float = 32_520.0
    max_events: int = 500_000
    seed: int = 20251020

    def __post_init__(self) -> None:
        store_plain_numbers(self)  # numpy and other numbers become plain int/float first
        check_int("backlog_count", self.backlog_count, lo=0, hi=MAX_ITEMS)
        horizon = check_number("horizon_s", self.horizon_s, lo=1, hi=_WEEK_S)
        check_number("drain_start_s", self.drain_start_s, lo=0, hi=horizon, hi_open=True)
        check_number("propagation_rate_per_min", self.propagation_rate_per_min, lo=0, hi=1e6,
                     lo_open=True)
        check_number("launch_rate_per_min", self.launch_rate_per_min, lo=0, hi=1e6)
        check_int("retry_launches_count", self.retry_launches_count, lo=0, hi=MAX_ITEMS)
        check_number("retry_decay_s", self.retry_decay_s, lo=0, hi=_WEEK_S, lo_open=True)
        check_int("az_count", self.az_count, lo=1, hi=6)
        if self.shed_load_at_s is not None:
            check_number("shed_load_at_s", self.shed_load_at_s, lo=0, hi=horizon)
        check_number("shed_load_fraction", self.shed_load_fraction, lo=0, hi=1)
        if self.max_queue_count is not None:
            check_int("max_queue_count", self.max_queue_count, lo=1, hi=10_000_000)
        check_number("normal_delay_s", self.normal_delay_s, lo=0, hi=86_400, lo_open=True)
        check_number("sample_interval_s", self.sample_interval_s, lo=max(1.0, horizon / 20_000), hi=horizon)
        check_int("max_events", self.max_events, lo=1, hi=_MAX_EVENTS)
        check_seed("seed", self.seed)


#: The incident, 5:28 AM to 2:30 PM PDT. Calibrated on two PES times, with the propagation rate
#: held at a round 6 items per minute, ordinary launches at half that (3 per minute) and retries
#: thinning out over 90 minutes (assumptions): ``backlog_count`` (318) so that the first new
#: instances get their configuration, 53 minutes late, at 6:21 AM (when the PES reports increased
#: latencies), and ``retry_launches_count`` (627) so that the queue empties and propagation is
#: normal again near 10:36 AM (308 minutes after 5:28; eight seeds give 10:26 to 11:02). The PES
#: reports that engineers reduced Network Manager's load, but gives no time and the wording is
#: unconfirmed, so this preset sheds nothing; the calibrated retries stand in for all of the intake.
INCIDENT = NetworkConfig()

#: The same morning with load shed at 7:00 AM: half of the new launches are refused (they fail
#: with a throttling error and the customer retries later) so the queue drains sooner.
SHED_AT_0700 = replace(INCIDENT, shed_load_at_s=CLOCK.seconds("07:00"), shed_load_fraction=0.5)


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
        ConfigError: ``config`` is not a NetworkConfig.
        LimitExceeded: the run needed more than ``config.max_events`` simulation steps.
    """
    if not isinstance(config, NetworkConfig):
        raise ConfigError(f"config must be a NetworkConfig, got {type(config).__name__}")
    if config.backlog_count > config.max_events:
        raise LimitExceeded(f"backlog_count={config.backlog_count} items need more than max_events="
                            f"{config.max_events} steps; raise max_events or lower backlog_count")
    rng = random.Random(config.seed)
    env = simpy.Environment()
    log: list[tuple] = []
    nm = _sim.NetworkManager(env, config, log)
    env.process(_sim.network_manager(env, nm))
    env.process(_sim.launcher(env, nm, rng))
    env.process(_sim.retrier(env, nm, random.Random(rng.random())))
    steps = 0
    while env.peek() <= config.horizon_s:
        env.step()
        steps += 1
        if steps > config.max_events:
            raise LimitExceeded(
                f"max_events={config.max_events} reached at t={env.now:.0f} s of horizon_s="
                f"{config.horizon_s:g}; raise max_events or lower launch_rate_per_min/horizon_s"
            )
    items = _items_frame(nm)
    events = _events_frame(log)
    series = _series(config, items)
    return NetworkResult(config=config, events=events, items=items, timeseries=series,
                         summary=_summarise(config, nm, items, series, steps))


def _items_frame(nm: _sim.NetworkManager) -> pd.DataFrame:
    az = np.asarray(nm.az, dtype="int64")
    queued = np.asarray(nm.queued_s, dtype="float64")
    prop = np.asarray(nm.propagated_s, dtype="float64")
    return pd.DataFrame({
        "item": np.arange(len(az), dtype="int64"),
        "is_launch": az >= 0,
        "az": az,
        "queued_s": queued,
        "propagated_s": prop,
        "refused": np.asarray(nm.refused, dtype=bool),
        "delay_s": prop - queued,
    })


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
    return pd.DataFrame({
        "time_s": times.astype("float64"),
        "queue_count": queue.astype("int64"),
        "unconfigured_count": waiting.astype("int64"),
        "mean_delay_s": mean.to_numpy(dtype="float64"),
        "max_delay_s": peak.to_numpy(dtype="float64"),
    })


def _summarise(cfg: NetworkConfig, nm: _sim.NetworkManager, items: pd.DataFrame,
               series: pd.DataFrame, steps: int) -> NetworkSummary:
    launches = items[items["is_launch"]]
    admitted = launches[~launches["refused"]]
    late = admitted[admitted["delay_s"] > cfg.normal_delay_s]
    waiting = admitted[admitted["propagated_s"].isna()]
    waits = cfg.horizon_s - waiting["queued_s"]
    max_delay = max(float(admitted["delay_s"].max()) if admitted["delay_s"].notna().any() else 0.0,
                    float(waits.max()) if len(waits) else 0.0)
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
        peak_queue_count=int(nm.peak),
        first_late_config_s=float(late["propagated_s"].min()) if len(late) else None,
        max_delay_s=max_delay,
        propagation_normal_s=normal,
        backlog_cleared_s=(float(backlog.max()) if len(backlog) and backlog.notna().all()
                           else (cfg.drain_start_s if not len(backlog) else None)),
        sim_events_count=steps,
    )
