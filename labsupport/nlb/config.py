"""The NLB model's configuration: :class:`NlbConfig` and its presets."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from .. import network
from .._validate import Config, check_bool, check_instance, check_int, check_number, check_seed
from ..clock import NETWORK_CLOCK
from ..network import NetworkConfig
from ..strategy import FailoverRequest, check_strategy

__all__ = ["CLOCK", "INCIDENT", "NlbConfig", "VELOCITY_CONTROL"]

#: The model's clock, :data:`labsupport.clock.NETWORK_CLOCK` as in the network model: t = 0 is 5:28 AM
#: PDT on 20 Oct 2025.
CLOCK = NETWORK_CLOCK


@dataclass(frozen=True, kw_only=True)
class NlbConfig(Config):
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
        az_down_at_s, az_down_s: a real failure of the first AZ (what-ifs: the cost of failover
            left off), or ``None``: none. Over [``az_down_at_s``, ``az_down_at_s + az_down_s``) its
            health-check results never arrive and the load DNS sends it fails; automatic failover,
            if on, takes it out of DNS once its newest result is ``failover_delay_threshold_s`` old.
            ``az_down_s`` is 1 s to a day.
        limit_capacity_removal: the velocity control: failover may remove at most
            ``max_removal_fraction`` of this NLB's capacity per ``removal_window_s``. Capacity
            counts against the budget from its removal until it is back in DNS and the window
            since its removal has passed.
        max_removal_fraction, removal_window_s: the cap (0 to 1) and the window (> 0 s).
        error_threshold_fraction: error fraction above which the summary counts a sample as
            "connection errors".
        sample_interval_s: spacing of the :attr:`NlbResult.timeseries` rows (row k at k * interval,
            whole ms). The run's horizon is ``network.horizon_s``, closed as in every config
            (:class:`~labsupport._validate.Config`).
        max_events: bound on simulation steps plus target probes, 1 to 10,000,000 (a run that
            long needs up to about 1 GB); exceeding it raises ``LimitExceeded``.
        seed: seed of the run's one ``random.Random`` (every config's rule,
            :class:`~labsupport._validate.Config`; the network run uses its own config's).
        failover_decision: a strategy, ``f(request: FailoverRequest) -> bool``, asked at each
            review of an AZ while automatic failover is on: ``True`` fails the AZ over (within
            the fail-open and velocity limits), ``False`` keeps or restores its DNS weight
            (see :class:`~labsupport.strategy.FailoverRequest`). ``None`` (default) is the rule
            above: a result more than ``failover_delay_threshold_s`` old. A strategy that raises,
            returns a non-``bool`` or does not return stops the run with a
            :class:`~labsupport.errors.ConfigError` naming it.

    Raises:
        ConfigError: the first invalid field, its value and its range (every config's rule,
            :class:`~labsupport._validate.Config`).
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
    az_down_at_s: float | None = None
    az_down_s: float = 1800.0
    limit_capacity_removal: bool = False
    max_removal_fraction: float = 0.2
    removal_window_s: float = 900.0
    error_threshold_fraction: float = 0.01
    sample_interval_s: float = 60.0
    max_events: int = 1_000_000
    seed: int = 20251020
    failover_decision: Callable[[FailoverRequest], bool] | None = None

    def _check(self) -> None:
        check_instance("network", self.network, NetworkConfig)
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
        check_number("failover_delay_threshold_s", self.failover_delay_threshold_s, lo=0, hi=86_400, lo_open=True)
        check_bool("automatic_failover", self.automatic_failover)
        for name in ("disable_failover_at_s", "reenable_failover_at_s"):
            if getattr(self, name) is not None:
                check_number(name, getattr(self, name), lo=0, hi=horizon)
        if self.az_down_at_s is not None:
            check_number("az_down_at_s", self.az_down_at_s, lo=0, hi=horizon)
        check_number("az_down_s", self.az_down_s, lo=1, hi=86_400)
        check_bool("limit_capacity_removal", self.limit_capacity_removal)
        check_number("max_removal_fraction", self.max_removal_fraction, lo=0, hi=1)
        check_number("removal_window_s", self.removal_window_s, lo=0, hi=86_400, lo_open=True)
        check_number("error_threshold_fraction", self.error_threshold_fraction, lo=0, hi=1)
        check_number("sample_interval_s", self.sample_interval_s, lo=max(1.0, horizon / 20_000), hi=horizon)
        check_int("max_events", self.max_events, lo=1, hi=10_000_000)  # memory: < ~1 GB
        check_seed("seed", self.seed)
        check_strategy("failover_decision", self.failover_decision)


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
