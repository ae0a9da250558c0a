"""The Network Manager model's configuration: :class:`NetworkConfig` and its presets."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from .._validate import Config, check_int, check_number, check_seed
from ..clock import NETWORK_CLOCK
from ..strategy import LaunchRequest, check_strategy

__all__ = ["CLOCK", "INCIDENT", "MAX_ITEMS", "NetworkConfig", "SHED_AT_0700"]

#: The model's clock, :data:`labsupport.clock.NETWORK_CLOCK`: t = 0 is 5:28 AM PDT on 20 Oct 2025.
CLOCK = NETWORK_CLOCK

_WEEK_S = 7 * 86_400.0

#: Largest allowed ``max_events``: every step may add an item and event rows (about 330 bytes in
#: all), so a run at this bound peaks near 700 MB, leaving room for an NLB run on top of it.
_MAX_EVENTS = 2_000_000

#: Largest allowed ``backlog_count`` and ``retry_launches_count``.
MAX_ITEMS = 1_000_000


@dataclass(frozen=True, kw_only=True)
class NetworkConfig(Config):
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
        shed_load_until_s: shedding stops at this time (operators relax the throttle), or ``None``
            for never; must be after ``shed_load_at_s``.
        shed_load_fraction: that fraction, in [0, 1].
        max_queue_count: admission control by the size of the waiting queue: a launch that finds
            this many items waiting is refused; ``None`` for no limit.
        launch_admission: a strategy, ``f(request: LaunchRequest) -> bool``, asked for every launch
            the built-in limits admit (:class:`~labsupport.strategy.LaunchRequest`): ``False``
            refuses it. ``None``: no strategy. Student code, run within the course's step budget
            (:func:`~labsupport.strategy.call_strategy`).
        launch_wait_limit_s: what ``launch_admission`` is told is the longest a launch should wait
            for its configuration, seconds (1 s to 1 day); the model itself enforces nothing with it.
        normal_delay_s: launch-to-connectivity delay up to which propagation counts as normal.
        sample_interval_s: spacing of the :attr:`NetworkResult.timeseries` rows.
        horizon_s: simulated time, 1 s to 7 days; closed, as in every config (:class:`~labsupport._validate.Config`).
        max_events: bound on simulation steps (and on ``backlog_count``), 1 to 2,000,000 (a run
            that long needs about 700 MB); exceeding it raises ``LimitExceeded``.
        seed: seed of the run's ``random.Random`` (every config's rule, :class:`~labsupport._validate.Config`),
            which draws the arrivals and seeds the retries' stream; the shedding decisions have their
            own stream from the same seed, so that shedding changes no arrival.

    Raises:
        ConfigError: the first invalid field, its value and its range (every config's rule,
            :class:`~labsupport._validate.Config`).
    """

    backlog_count: int = 318
    drain_start_s: float = 0.0
    propagation_rate_per_min: float = 6.0
    launch_rate_per_min: float = 3.0
    retry_launches_count: int = 627
    retry_decay_s: float = 5_400.0
    az_count: int = 3
    shed_load_at_s: float | None = None
    shed_load_until_s: float | None = None
    shed_load_fraction: float = 0.5
    max_queue_count: int | None = None
    launch_admission: Callable[[LaunchRequest], bool] | None = None
    launch_wait_limit_s: float = 600.0
    normal_delay_s: float = 120.0
    sample_interval_s: float = 60.0
    horizon_s: float = 32_520.0
    max_events: int = 500_000
    seed: int = 20251020

    def _check(self) -> None:
        check_int("backlog_count", self.backlog_count, lo=0, hi=MAX_ITEMS)
        horizon = check_number("horizon_s", self.horizon_s, lo=1, hi=_WEEK_S)
        check_number("drain_start_s", self.drain_start_s, lo=0, hi=horizon, hi_open=True)
        check_number("propagation_rate_per_min", self.propagation_rate_per_min, lo=0, hi=1e6, lo_open=True)
        check_number("launch_rate_per_min", self.launch_rate_per_min, lo=0, hi=1e6)
        check_int("retry_launches_count", self.retry_launches_count, lo=0, hi=MAX_ITEMS)
        check_number("retry_decay_s", self.retry_decay_s, lo=0, hi=_WEEK_S, lo_open=True)
        check_int("az_count", self.az_count, lo=1, hi=6)
        if self.shed_load_at_s is not None:
            check_number("shed_load_at_s", self.shed_load_at_s, lo=0, hi=horizon)
        if self.shed_load_until_s is not None:
            check_number(
                "shed_load_until_s",
                self.shed_load_until_s,
                lo=self.shed_load_at_s or 0.0,
                lo_name="shed_load_at_s",
                hi=horizon,
                lo_open=True,
            )
        check_number("shed_load_fraction", self.shed_load_fraction, lo=0, hi=1)
        if self.max_queue_count is not None:
            check_int("max_queue_count", self.max_queue_count, lo=1, hi=10_000_000)
        check_strategy("launch_admission", self.launch_admission)
        check_number("launch_wait_limit_s", self.launch_wait_limit_s, lo=1, hi=86_400)
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
