"""NLB health checks during the propagation backlog: flapping targets, delayed checks, AZ failover.

Scenario:
    20 Oct 2025, 5:28 AM PDT (t = 0) to 2:30 PM. New EC2 instances join NLB target groups while
    their network state is still queued at Network Manager (:mod:`labsupport.network`). Health
    checks to them sometimes pass, so they enter service, fail, leave, pass, return: flapping.
    Every such change is extra work for the health-check subsystem; once that work exceeds its
    headroom, checks queue and their results arrive late; results older than a threshold trigger
    automatic AZ DNS failover, which takes healthy capacity out of DNS. Engineers turn automatic
    failover off at 9:36 AM and back on at 2:09 PM.
Covers:
    The PES's NLB section (5:30 AM to 2:09 PM): health checks that failed "even though the
    underlying NLB node and backend targets were healthy", results "alternating between failing
    and healthy", delayed checks triggering AZ DNS failover, the 9:36 AM and 2:09 PM actions, and
    AWS's announced fix, a velocity control on the capacity one NLB may remove::

        Network Manager result ──> fleet: U(t) launched instances without network state per AZ
               │                          │ x fleet_targets_per_launch_count, each flapping
               │ this NLB's new targets   v
               │ (target_share_fraction)  health-check cell of the AZ: work per round =
               v                          fleet targets + flapping targets x (1 + transition work)
        this NLB, per AZ:                 capacity (1 + checker_headroom_fraction) x normal work
          established targets (healthy)   backlog Q -> check latency Q / capacity
          new targets: probe passes if    │
          configured, else with prob. p   v results delivered late; if the newest result is
          h passes -> in service          older than failover_delay_threshold_s: AZ failover,
          u fails  -> out (a flap)        DNS weight of the AZ -> 0 (never below one AZ in total),
                                          at most max_removal_fraction per removal_window_s
                                          when limit_capacity_removal (velocity control)
        clients: demand_fraction of established capacity, spread over AZs by DNS weight

The fleet-wide flapping that loads the checker is computed in expectation (a mean field): each
unconfigured target changes state :func:`flap_transitions_per_check` times per check on average.
This NLB's own targets are simulated probe by probe, so their flaps are a sample of the same
process. What the model leaves out: NLB nodes as separate from targets (a node is folded into its
AZ's DNS weight), cross-zone load balancing (off, the NLB default), and the Lambda, STS and
Connect knock-on effects. The simulation internals live in :mod:`labsupport._nlb_sim`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, replace

import pandas as pd
import simpy

from . import _nlb_sim as sim
from . import network
from ._nlb_sim import flap_transitions_per_check
from ._sweep import map_configs, summary_frame
from ._validate import check_bool, check_int, check_number, check_seed, store_plain_numbers
from .clock import NETWORK_CLOCK
from .errors import ConfigError, LimitExceeded
from .network import NetworkConfig

__all__ = [
    "CLOCK",
    "EVENT_KINDS",
    "INCIDENT",
    "NlbConfig",
    "NlbResult",
    "NlbSummary",
    "VELOCITY_CONTROL",
    "flap_transitions_per_check",
    "run",
    "sweep",
]

#: The model's clock, :data:`labsupport.clock.NETWORK_CLOCK` as in the network model: t = 0 is 5:28 AM
#: PDT on 20 Oct 2025.
CLOCK = NETWORK_CLOCK

#: Values of the ``kind`` column of :attr:`NlbResult.events`.
EVENT_KINDS: tuple[str, ...] = (
    "target_registered", "target_in_service", "target_out_of_service", "az_failover",
    "az_restored", "removal_limited", "failover_disabled", "failover_enabled",
)


@dataclass(frozen=True, kw_only=True)
class NlbConfig:
    """Everything one NLB run depends on. Defaults are the incident (:data:`INCIDENT`).

    Times are seconds on :data:`CLOCK` (since 5:28 AM PDT, as the network model). The PES gives no
    numbers inside the NLB; unless :data:`INCIDENT` says otherwise, values are assumptions.

    Attributes:
        network: the Network Manager run that decides when new instances get their network state
            (its ``horizon_s`` is this run's horizon).
        targets_per_az_count: established, configured targets of this NLB in each AZ.
        target_share_fraction: share of new launches that join this NLB as targets, in [0, 1].
        demand_fraction: client load as a fraction of the established capacity, in (0, 1].
        health_check_interval_s: time between two probes of one target (5 to 300 s). AZ i of n probes at
            ticks (i / n + k) * interval, computed in whole milliseconds from k, never summed.
        healthy_threshold_count, unhealthy_threshold_count: consecutive passes that put a target
            in service, and consecutive failures that take it out.
        unconfigured_pass_fraction: chance that a probe of a target without its network state
            passes anyway (the PES: instances were put in service before their state had fully
            propagated), in [0, 1].
        fleet_targets_per_az_count: targets one AZ's health-check cell probes in normal times.
        fleet_targets_per_launch_count: fleet-wide NLB targets that each unconfigured launch of
            the network model stands for (the network model is a scaled-down sample).
        checker_headroom_fraction: spare capacity of a health-check cell above its normal work.
        transition_work_checks: extra work, in probe equivalents, of one target state change
            (DNS update, re-registration).
        failover_delay_threshold_s: an AZ whose newest health-check result is older than this is failed
            over (its DNS weight is removed) while automatic failover is on. Tie rule: a result exactly
            this old is still fresh; ages are compared in whole milliseconds, so float sums cannot
            decide the tie.
        automatic_failover: whether automatic AZ DNS failover is on at t = 0.
        disable_failover_at_s, reenable_failover_at_s: operator actions, or ``None``. Disabling
            returns every failed-over AZ to DNS at once.
        limit_capacity_removal: the velocity control: failover may remove at most
            ``max_removal_fraction`` of this NLB's capacity per ``removal_window_s``. Capacity
            counts against the budget from its removal until it is back in DNS and the window
            since its removal has passed.
        max_removal_fraction, removal_window_s: the cap (0 to 1) and the window (> 0 s).
        error_threshold_fraction: error fraction above which the summary counts a sample as
            "connection errors".
        sample_interval_s: spacing of the :attr:`NlbResult.timeseries` rows (row k at k * interval,
            whole ms). The run's horizon is ``network.horizon_s``: the run covers the closed interval
            [0, horizon_s]: an event due at exactly horizon_s happens and is kept (the rule of every
            model, see :mod:`labsupport`).
        max_events: bound on simulation steps plus target probes, 1 to 10,000,000 (a run that
            long needs up to about 1 GB); exceeding it raises ``LimitExceeded``.
        seed: seed of the run's one ``random.Random`` (an integer from 0 to 2**63 - 1, the rule of every config; the network run uses its own config's).

    Raises:
        ConfigError: (a ``ValueError``) naming the first invalid field, its value and its range.
    """

    network: NetworkConfig = network.INCIDENT
    targets_per_az_count: int = 20
    target_share_fraction: float = 0.02
    demand_fraction: float = 0.8
    health_check_interval_s: float = 30.0
    healthy_threshold_count: int = 3
    unhealthy_threshold_count: int = 2
    unconfigured_pass_fraction: float = 0.4
    fleet_targets_per_az_count: int = 20_000
    fleet_targets_per_launch_count: int = 24
    checker_headroom_fraction: float = 0.2
    transition_work_checks: float = 10.0
    failover_delay_threshold_s: float = 240.0
    automatic_failover: bool = True
    disable_failover_at_s: float | None = CLOCK.seconds("09:36")
    reenable_failover_at_s: float | None = CLOCK.seconds("14:09")
    limit_capacity_removal: bool = False
    max_removal_fraction: float = 0.2
    removal_window_s: float = 900.0
    error_threshold_fraction: float = 0.01
    sample_interval_s: float = 60.0
    max_events: int = 1_000_000
    seed: int = 20251020

    def __post_init__(self) -> None:
        store_plain_numbers(self)  # numpy and other numbers become plain int/float first
        if not isinstance(self.network, NetworkConfig):
            raise ConfigError(f"network must be a NetworkConfig, got {type(self.network).__name__}")
        horizon = self.network.horizon_s
        check_int("targets_per_az_count", self.targets_per_az_count, lo=1, hi=10_000)
        check_number("target_share_fraction", self.target_share_fraction, lo=0, hi=1)
        check_number("demand_fraction", self.demand_fraction, lo=0, hi=1, lo_open=True)
        check_number("health_check_interval_s", self.health_check_interval_s, lo=5, hi=300)
        check_int("healthy_threshold_count", self.healthy_threshold_count, lo=1, hi=10)
        check_int("unhealthy_threshold_count", self.unhealthy_threshold_count, lo=1, hi=10)
        check_number("unconfigured_pass_fraction", self.unconfigured_pass_fraction, lo=0, hi=1)
        check_int("fleet_targets_per_az_count", self.fleet_targets_per_az_count, lo=1, hi=10**8)
        check_int("fleet_targets_per_launch_count", self.fleet_targets_per_launch_count, lo=0, hi=10**6)
        check_number("checker_headroom_fraction", self.checker_headroom_fraction, lo=0, hi=100)
        check_number("transition_work_checks", self.transition_work_checks, lo=0, hi=10_000)
        check_number("failover_delay_threshold_s", self.failover_delay_threshold_s, lo=0, hi=86_400,
                     lo_open=True)
        check_bool("automatic_failover", self.automatic_failover)
        for name in ("disable_failover_at_s", "reenable_failover_at_s"):
            if getattr(self, name) is not None:
                check_number(name, getattr(self, name), lo=0, hi=horizon)
        check_bool("limit_capacity_removal", self.limit_capacity_removal)
        check_number("max_removal_fraction", self.max_removal_fraction, lo=0, hi=1)
        check_number("removal_window_s", self.removal_window_s, lo=0, hi=86_400, lo_open=True)
        check_number("error_threshold_fraction", self.error_threshold_fraction, lo=0, hi=1)
        check_number("sample_interval_s", self.sample_interval_s, lo=max(1.0, horizon / 20_000),
                     hi=horizon)
        check_int("max_events", self.max_events, lo=1, hi=10_000_000)  # memory: < ~1 GB
        check_seed("seed", self.seed)


#: The incident: failover on, disabled at 9:36 AM and re-enabled at 2:09 PM (PES times), no
#: velocity control, driven by :data:`labsupport.network.INCIDENT`. Calibrated, on a grid of round
#: values: ``fleet_targets_per_launch_count`` (24) and ``failover_delay_threshold_s`` (240 s), so
#: that the first AZ failover comes near the PES's 6:52 AM detection (6:54 with the default seed)
#: and failover would still hold capacity out after 9:36 AM had nobody acted (until about 10:30).
#: The other values are assumptions; ``target_share_fraction`` and ``unconfigured_pass_fraction``
#: were chosen so that this NLB's own errors start within minutes of 5:28 AM and stay low.
INCIDENT = NlbConfig()

#: The incident with AWS's announced fix: failover may remove at most 20 % of an NLB's capacity
#: per 15 minutes.
VELOCITY_CONTROL = replace(INCIDENT, limit_capacity_removal=True)


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
            ``failover_removed_fraction`` (capacity held out of DNS by failover), ``fleet_flaps_per_min``, ``nlb_flaps_per_min``, ``unconfigured_targets_count``.
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
    env = simpy.Environment()
    nlb = sim._Nlb(env, config, net, random.Random(config.seed))
    for az in nlb.azs:
        env.process(sim.prober(env, nlb, az))
    env.process(sim.operator(env, nlb))
    env.process(sim.sampler(env, nlb))
    horizon, steps = config.network.horizon_s, 0
    while env.peek() <= horizon:
        env.step()
        steps += 1
        if steps + nlb.probes > config.max_events:
            raise LimitExceeded(f"max_events={config.max_events} (simulation steps plus target probes) "
                                f"reached at t={env.now:.0f} s of horizon_s={horizon:g}; raise max_events, "
                                "health_check_interval_s or lower target_share_fraction")
    events = pd.DataFrame(nlb.log, columns=["time_s", "kind", "az", "target", "value"])
    events = events.astype({"time_s": "float64", "az": "int64", "target": "int64", "value": "float64"})
    events["kind"] = pd.Categorical(events["kind"], categories=list(EVENT_KINDS))
    series = pd.DataFrame(nlb.rows, columns=["time_s", *sim.SERIES]).astype("float64")
    return NlbResult(config=config, network=net, events=events, timeseries=series,
                     summary=_summarise(config, events, series, steps))


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


def sweep(configs: Sequence[NlbConfig], *, executor: Executor | None = None) -> pd.DataFrame:
    """Run several configs and return one row of summary figures per config, in input order.

    Args:
        configs: the configs to run.
        executor: a ``concurrent.futures.Executor`` to spread the runs over (e.g. a
            ``ProcessPoolExecutor``), or ``None`` to run them here, one after the other. The
            results and their order are the same either way.

    Returns:
        A DataFrame with a ``run`` column (int64, position in ``configs``) and one column per
        :class:`NlbSummary` field.

    Raises:
        ConfigError: ``configs`` is not an iterable of NlbConfig objects, or ``executor`` is
            neither ``None`` nor a ``concurrent.futures.Executor``.
    """
    return summary_frame(map_configs(_summary_of, configs, NlbConfig, executor))


def _summary_of(config: NlbConfig) -> NlbSummary:
    return run(config).summary
