"""DWFM's configuration: :class:`DwfmConfig` and the presets :data:`INCIDENT` and :data:`SMALL_FLEET`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from .._validate import Config, check_bool, check_choice, check_int, check_number, check_seed
from ..clock import INCIDENT_CLOCK
from ..errors import ConfigError
from ..strategy import AdmissionRequest, check_strategy

__all__ = ["DwfmConfig", "INCIDENT", "QUEUE_ORDERS", "RETRY_POLICIES", "SMALL_FLEET", "CLOCK"]

#: The model's clock: t = 0 is 11:48 PM PDT on 19 October 2025, when DynamoDB's endpoint went empty.
CLOCK = INCIDENT_CLOCK

#: Values of :attr:`DwfmConfig.retry_policy`, one per retry strategy of the engine
#: (``engine.RETRY_STRATEGIES`` maps each to its method).
RETRY_POLICIES: tuple[str, ...] = ("immediate", "backoff_full_jitter")

#: Values of :attr:`DwfmConfig.queue_order`: ``"fifo"`` serves the oldest waiting item first,
#: ``"lifo"`` the newest.
QUEUE_ORDERS: tuple[str, ...] = ("fifo", "lifo")

_DAY_S = 7 * 86_400.0

#: Largest allowed ``max_events``: a run that long takes about 30 s and well under 1 GB.
_MAX_EVENTS = 10_000_000


@dataclass(frozen=True, kw_only=True)
class DwfmConfig(Config):
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
        drop_expired_work: the deadline travels with the work: when a host takes its next items,
            it drops, without working on them, those whose deadline has already passed (joined
            the queue more than ``work_deadline_s`` ago, in whole milliseconds) and hands each to
            the retry policy as a failed attempt. ``False`` (the incident): every item is worked on.
        queue_order: ``"fifo"`` (the incident: oldest waiting item first) or ``"lifo"`` (newest
            first, so fresh requests are served while old ones wait).
        retry_budget_per_s: a retry budget in the token-bucket form (as in the AWS SDKs' retry
            quota and Envoy's retry budgets): each DWFM host has a bucket of
            ``retry_budget_burst_count`` tokens that refills at this many tokens per second; a
            retry takes one token, and a failed item that finds the bucket empty is not retried:
            its droplet asks again at its next state check. ``None`` (the incident): no budget.
        retry_budget_burst_count: the bucket's size (and its content at the start), 0 to
            10,000,000 (used only with a budget).
        throttle_by_queue_length: admission control from the start: an item that finds its host's
            waiting queue at ``queue_limit_count`` is refused; the droplet asks again at its next
            state check (the fix AWS announced).
        queue_limit_count: that limit, also used by the operators' throttle and restart.
        admission_policy: a strategy, ``f(request: AdmissionRequest) -> bool``, asked for every
            item (first request or retry) that arrives at a DWFM host, after the built-in throttle
            (if on) has let it through: ``True`` lets it join the host's queue, ``False`` refuses
            it (load shedding: the droplet asks again at its next state check, counted as
            ``lease_held_back``). See :class:`~labsupport.strategy.AdmissionRequest`. ``None``
            (default, the incident): every item the throttle lets through is admitted. A strategy
            that raises, returns a non-``bool`` or does not return stops the run with a
            :class:`~labsupport.errors.ConfigError` naming it. A run of a config holding a
            strategy is never memoised (a function may change between two calls).
        operator_throttle_at_s: when operators start throttling incoming work (the same admission
            control, switched on late), or ``None``.
        operator_throttle_until_s: when operators relax that throttle (admission control is off
            again from then), or ``None``: it stays. Needs ``operator_throttle_at_s`` at or before it.
        operator_restart_at_s: when operators restart every DWFM host whose waiting queue exceeds
            ``queue_limit_count``, clearing its queue, its round in progress and its retries, or
            ``None``.
        launch_attempts_per_s: customer launch attempts per second (observed, not queued).
        report_interval_s: spacing of the time-series rows.
        horizon_s: simulated time (< 7 days); the outage must end before it. Closed, as in every
            config (:class:`~labsupport._validate.Config`); the last time-series row is taken after
            every event at the horizon.
        max_events: bound on the run's work, 1 to 10,000,000 (the incident needs about 125,000;
            the cap keeps any run under about 30 s and 1 GB). It counts one unit per simulation
            step, one per work item a step handles (queued, started and finished, released from
            backoff, cleared by a restart) and one per 64 droplets a state check or a report
            reads; exceeding it raises ``LimitExceeded``.
        seed: seed of the run's one ``random.Random`` (every config's rule,
            :class:`~labsupport._validate.Config`).

    Raises:
        ConfigError: the first invalid field, its value and its range (every config's rule,
            :class:`~labsupport._validate.Config`).
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
    drop_expired_work: bool = False
    queue_order: str = "fifo"
    retry_budget_per_s: float | None = None
    retry_budget_burst_count: int = 100
    throttle_by_queue_length: bool = False
    queue_limit_count: int = 50
    admission_policy: Callable[[AdmissionRequest], bool] | None = None
    operator_throttle_at_s: float | None = 15_960.0
    operator_restart_at_s: float | None = 15_960.0
    operator_throttle_until_s: float | None = None
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

    def _check(self) -> None:
        check_int("fleet_droplets_count", self.fleet_droplets_count, lo=1, hi=1_000_000)
        check_int("dwfm_hosts_count", self.dwfm_hosts_count, lo=1, hi=10_000)
        check_int("host_concurrency_count", self.host_concurrency_count, lo=1, hi=10_000)
        check_number("horizon_s", self.horizon_s, lo=0, hi=_DAY_S, lo_open=True)
        check_number("state_check_interval_s", self.state_check_interval_s, lo=1, hi=86_400)
        check_number(
            "lease_ttl_min_s",
            self.lease_ttl_min_s,
            lo=self.state_check_interval_s,
            lo_name="state_check_interval_s",
            hi=_DAY_S,
            lo_open=True,
        )
        check_number(
            "lease_ttl_max_s", self.lease_ttl_max_s, lo=self.lease_ttl_min_s, lo_name="lease_ttl_min_s", hi=_DAY_S
        )
        check_number("outage_start_s", self.outage_start_s, lo=0, hi=self.horizon_s, hi_name="horizon_s")
        check_number(
            "outage_end_s",
            self.outage_end_s,
            lo=self.outage_start_s,
            lo_name="outage_start_s",
            hi=self.horizon_s,
            hi_name="horizon_s",
            hi_open=True,
        )
        check_number("lease_establish_s", self.lease_establish_s, lo=0.01, hi=86_400)
        check_number("work_deadline_s", self.work_deadline_s, lo=0, hi=_DAY_S, lo_open=True)
        check_choice("retry_policy", self.retry_policy, RETRY_POLICIES)
        check_number("retry_base_s", self.retry_base_s, lo=0, hi=86_400, lo_open=True)
        check_number("retry_cap_s", self.retry_cap_s, lo=self.retry_base_s, lo_name="retry_base_s", hi=_DAY_S)
        check_bool("drop_expired_work", self.drop_expired_work)
        check_choice("queue_order", self.queue_order, QUEUE_ORDERS)
        if self.retry_budget_per_s is not None:
            check_number("retry_budget_per_s", self.retry_budget_per_s, lo=0, hi=1e6)
        check_int("retry_budget_burst_count", self.retry_budget_burst_count, lo=0, hi=10_000_000)
        check_bool("throttle_by_queue_length", self.throttle_by_queue_length)
        check_int("queue_limit_count", self.queue_limit_count, lo=1, hi=10_000_000)
        check_strategy("admission_policy", self.admission_policy)
        self._check_operators()
        check_number("launch_attempts_per_s", self.launch_attempts_per_s, lo=0, hi=1e6)
        check_number(
            "report_interval_s",
            self.report_interval_s,
            lo=self.horizon_s / 100_000,
            lo_name="horizon_s / 100000",
            hi=self.horizon_s,
            hi_name="horizon_s",
        )
        check_int("max_events", self.max_events, lo=1, hi=_MAX_EVENTS)
        check_seed("seed", self.seed)

    def _check_operators(self) -> None:
        """The operators' times: each within [0, horizon_s]; a relax of the throttle at or after it."""
        for name in ("operator_throttle_at_s", "operator_restart_at_s", "operator_throttle_until_s"):
            if getattr(self, name) is not None:
                check_number(name, getattr(self, name), lo=0, hi=self.horizon_s, hi_name="horizon_s")
        until, at = self.operator_throttle_until_s, self.operator_throttle_at_s
        if until is not None and at is None:
            raise ConfigError("operator_throttle_until_s relaxes the operators' throttle: set operator_throttle_at_s")
        if until is not None and at is not None:
            check_number("operator_throttle_until_s", until, lo=at, lo_name="operator_throttle_at_s")


#: The incident. Times from the PES: DynamoDB unreachable 11:48 PM to 2:25 AM (9,420 s);
#: operators throttle and restart at 4:14 AM (15,960 s). The other DWFM values are assumptions.
#: Calibrated: ``fleet_droplets_count`` only (hosts, concurrency, lease time and deadline held at
#: round values), chosen so that all leases are back close to the PES's 5:28 AM (20,400 s).
#: Only the load per host matters: scale the fleet and the hosts together for a region-scale run.
INCIDENT = DwfmConfig()

#: A fleet small enough that the backlog left by the outage drains by itself, without operators.
SMALL_FLEET = replace(INCIDENT, fleet_droplets_count=1_200, operator_throttle_at_s=None, operator_restart_at_s=None)
