"""The chain's configuration: :class:`StopPoints`, :class:`ChainConfig` and :data:`INCIDENT`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from .. import dns_cache, dwfm, nlb, race, timeline
from .._sweep import flags_label
from .._validate import Config, check_bool, check_instance, check_int, check_number, check_seed, show
from ..clock import INCIDENT_CLOCK
from ..errors import ConfigError

__all__ = [
    "CLOCK",
    "INCIDENT",
    "RULES",
    "STOP_POINT_NAMES",
    "STOP_POINT_TITLES",
    "ChainConfig",
    "OperatorActions",
    "OperatorRules",
    "Operators",
    "StopPoints",
]

#: The model's clock: t = 0 is 11:48 PM PDT on 19 October 2025, when the regional endpoint went empty.
CLOCK = INCIDENT_CLOCK
#: Short titles of the six stop points, as the seed articles name them.
STOP_POINT_TITLES: tuple[str, ...] = (
    "compare versions when writing",
    "never delete a plan in use",
    "refuse empty records",
    "recover automatically from the inconsistent state",
    "throttle work during recovery; limit capacity removal",
    "no hidden dependence on one Region",
)


@dataclass(frozen=True, kw_only=True)
class StopPoints(Config):
    """The six stop points; all off in :data:`INCIDENT`, as on 19 October.

    Attributes:
        guards: 1-4, the race's four guards (a :class:`labsupport.race.Guards`): 1 every endpoint
            write is a conditional write, 2 clean-up never deletes a plan in use, 3 refuse and alert
            on a change that empties an endpoint, 4 an Enactor that finds the active plan missing
            re-applies the newest.
        throttle_recovery_work: 5, admission control by queue length in DWFM
            (``throttle_by_queue_length``) and in Network Manager (``max_queue_count``, the fix AWS
            announced for EC2 data propagation), and the NLB velocity control
            (``limit_capacity_removal``).
        isolate_regions: 6, no dependency crosses from another Region into us-east-1
            (:func:`labsupport.dependencies.isolate_regions`).
    """

    guards: race.Guards = field(default_factory=race.Guards)
    throttle_recovery_work: bool = False
    isolate_regions: bool = False

    def _check(self) -> None:
        check_instance("guards", self.guards, race.Guards)
        check_bool("throttle_recovery_work", self.throttle_recovery_work)
        check_bool("isolate_regions", self.isolate_regions)

    def flags(self) -> tuple[bool, ...]:
        """The six stop points as on/off flags, in order 1-6."""
        return (*self.guards.flags(), self.throttle_recovery_work, self.isolate_regions)

    def numbers(self) -> tuple[int, ...]:
        """The numbers (1-6) of the stop points that are on."""
        return tuple(i + 1 for i, on in enumerate(self.flags()) if on)

    def label(self) -> str:
        """Short label such as ``"1+5"``; ``"none"`` if none is on."""
        return flags_label(self.flags())

    @classmethod
    def of(cls, *numbers: int) -> StopPoints:
        """The stop points with the given numbers (1-6) on, e.g. ``StopPoints.of(1, 5)``."""
        for n in numbers:
            check_int("stop point", n, lo=1, hi=6)
        return cls.from_flags(*(i + 1 in numbers for i in range(6)))

    @classmethod
    def from_flags(cls, *flags: bool) -> StopPoints:
        """The stop points from six on/off flags in order 1-6 (the order of :data:`STOP_POINT_NAMES`)."""
        if len(flags) != 6:
            raise ConfigError(f"from_flags needs six flags, got {len(flags)}")
        return cls(
            guards=race.Guards(**dict(zip(race.GUARD_NAMES, flags[:4], strict=False))),
            throttle_recovery_work=flags[4],
            isolate_regions=flags[5],
        )


#: Names of the six stop points, in order 1-6: the four guards' names, then the two others.
STOP_POINT_NAMES: tuple[str, ...] = (*race.GUARD_NAMES, "throttle_recovery_work", "isolate_regions")


def _pes_gap_s(first: str, then: str) -> float:
    """Seconds between two rows of the PES timeline (:func:`labsupport.timeline.load`)."""
    rows = timeline.load().set_index("id")["time_pdt"]
    return float((rows[then] - rows[first]).total_seconds())


@dataclass(frozen=True, kw_only=True)
class ChainConfig(Config):
    """Everything one chain run depends on. Defaults are the incident (:data:`INCIDENT`).

    The sub-model configs are the starting point; the chain replaces the fields it drives: the
    race's ``guards`` (stop points 1-4); the DNS caches' empty window; DWFM's outage window,
    operator times and (with stop point 5) ``throttle_by_queue_length``; the network's backlog,
    retries and (with 5) ``max_queue_count``; the NLB's operator times and (with 5)
    ``limit_capacity_removal``. Set an operator time to ``None`` in a sub-config to remove that
    operator action from the chain.

    Attributes:
        stop_points: which of the six stop points are on.
        race, dns, dwfm, nlb: the sub-model configs (``nlb.network`` is Network Manager's).
        race_lead_s: seconds of race simulation before 11:48 PM (calibrated, 0 to the race horizon).
            It may not exceed the race time of the first empty record (or of guard 3's alert): an
            outage before the chain's t = 0 cannot be placed, so :func:`run` raises ConfigError.
        dwfm_operator_delay_s: rule A, from DNS restored to the DWFM operators' action.
        backlog_per_unleased_droplet_hour: Network Manager items per droplet-hour without a lease
            (calibrated, 0 to 1,000).
        retry_launches_per_refused_launch: retried launches in the network model per launch DWFM
            refused (calibrated, 0 to 100; the network model is a sample of the Region).
            Both factors multiply what the DWFM run produced; :func:`run` raises ConfigError
            naming the factor if the product exceeds the network model's 1,000,000 items
            (LimitExceeded if it exceeds ``nlb.network.max_events``).
        network_queue_limit_count: ``max_queue_count`` that stop point 5 gives Network Manager.
        nlb_disable_delay_s: rule B, from the first AZ failover to failover disabled.
        ec2_throttle_relax_s: rule C, from propagation normal to EC2 recovered, if operators
            throttled EC2 by hand.
        relax_only_after_manual_throttle: ``True`` (the incident's reading): rule C's
            ``ec2_throttle_relax_s`` is added only in a run where the DWFM operators acted (rule
            A fired), because only throttles set by hand have to be unwound; a run whose leases
            come back before rule A (as with stop point 5) skips the interval. That skip is an
            assumption, not an effect the models produce. ``False``: the interval is added in
            every run, so a stop point saves only what the models themselves produce (see
            :func:`labsupport.chain.stop_point_5_split`).
        nlb_reenable_delay_s: rule C, from EC2 recovered to failover re-enabled.
        seed: ``None`` keeps every sub-config's seed; an int draws the seeds of the DNS-cache,
            DWFM, network and NLB models from one ``random.Random(seed)``. The race keeps
            ``race.seed``, which decides whether the rare interleaving happens at all (vary it
            through ``race`` to ask how often it does).

    Raises:
        ConfigError: the first invalid field, its value and its range (every config's rule,
            :class:`~labsupport._validate.Config`).
    """

    stop_points: StopPoints = field(default_factory=StopPoints)
    race: race.RaceConfig = race.INCIDENT
    dns: dns_cache.DnsCacheConfig = dns_cache.INCIDENT
    dwfm: dwfm.DwfmConfig = dwfm.INCIDENT
    nlb: nlb.NlbConfig = nlb.INCIDENT
    race_lead_s: float = 310.0
    dwfm_operator_delay_s: float = field(default_factory=lambda: _pes_gap_s("ddb-dns-restored", "dwfm-intervention"))
    backlog_per_unleased_droplet_hour: float = 0.01384
    retry_launches_per_refused_launch: float = 0.01
    network_queue_limit_count: int = 60
    nlb_disable_delay_s: float = field(default_factory=lambda: _pes_gap_s("nlb-detected", "nlb-failover-off"))
    ec2_throttle_relax_s: float = field(default_factory=lambda: _pes_gap_s("ec2-propagation-normal", "ec2-normal"))
    relax_only_after_manual_throttle: bool = True
    nlb_reenable_delay_s: float = field(default_factory=lambda: _pes_gap_s("ec2-normal", "nlb-failover-on"))
    seed: int | None = None

    def _check(self) -> None:
        for name, kind in (
            ("stop_points", StopPoints),
            ("race", race.RaceConfig),
            ("dns", dns_cache.DnsCacheConfig),
            ("dwfm", dwfm.DwfmConfig),
            ("nlb", nlb.NlbConfig),
        ):
            if not isinstance(getattr(self, name), kind):
                raise ConfigError(f"{name} must be a {kind.__name__}, got {type(getattr(self, name)).__name__}")
        week = 7 * 86_400.0
        check_number(
            "race_lead_s", self.race_lead_s, lo=0, hi=self.race.horizon_s, hi_name="race.horizon_s", hi_open=True
        )
        for name in ("dwfm_operator_delay_s", "nlb_disable_delay_s", "ec2_throttle_relax_s", "nlb_reenable_delay_s"):
            check_number(name, getattr(self, name), lo=0, hi=week)
        check_number("backlog_per_unleased_droplet_hour", self.backlog_per_unleased_droplet_hour, lo=0, hi=1_000)
        check_number("retry_launches_per_refused_launch", self.retry_launches_per_refused_launch, lo=0, hi=100)
        check_bool("relax_only_after_manual_throttle", self.relax_only_after_manual_throttle)
        check_int("network_queue_limit_count", self.network_queue_limit_count, lo=1, hi=10_000_000)
        if self.seed is not None:
            check_seed("seed", self.seed)
        latest = self.race.horizon_s - self.race_lead_s + self.dwfm_operator_delay_s
        if latest >= self.dwfm.horizon_s:
            raise ConfigError(
                f"dwfm_operator_delay_s={self.dwfm_operator_delay_s:g} could put the DWFM operators at "
                f"{latest:g} s, beyond dwfm.horizon_s={self.dwfm.horizon_s:g}; shorten the delay or "
                "lengthen the DWFM horizon"
            )


#: The incident: no stop points, every sub-model's incident preset. Calibrated: ``race_lead_s``
#: (310 s: the race model's delayed Enactor empties the endpoint 310 s into its run, which the PES
#: puts at 11:48 PM); ``backlog_per_unleased_droplet_hour`` (0.01384) and
#: ``retry_launches_per_refused_launch`` (0.01), chosen so that DWFM's incident run (22,973
#: droplet-hours without a lease, 62,648 launches refused) hands Network Manager the backlog (318)
#: and retries (626, vs 627) of its own calibrated preset. The operator delays are PES intervals.
INCIDENT = ChainConfig()


#: PES interval from the EC2 engineers starting to relax request throttles (11:23 AM) to all EC2 APIs
#: and launches normal (1:50 PM): how long unwinding the throttles takes in an operated run.
def _unwind_default() -> float:
    return _pes_gap_s("ec2-throttles-relaxed", "ec2-normal")


class Operators(Protocol):
    """The operators, as the chain asks them: one question before each model that people act on.

    :func:`labsupport.chain.run` runs its models in order (race, DNS caches, DWFM, Network
    Manager, NLB) through one pipeline and asks its operators, before each, what they do, given
    what the runs before it show. Every time is seconds on the chain clock (11:48 PM PDT); the
    chain moves it onto each model's own clock (:class:`labsupport.clock.Shift`). Two kinds ship:
    :data:`RULES` (rules A-C, relative to the model's state; the default) and
    :class:`OperatorActions` (actions at fixed times: the game's players).
    """

    def run_horizon_s(self, cfg: ChainConfig) -> float | None:
        """How long the operated run lasts (every model is stretched to it), or ``None``: the models' own."""
        ...

    def dns_repair_s(self, cfg: ChainConfig) -> float | None:
        """When DNS is repaired by hand (the race's ``manual_repair_after_s``), or ``None``: the race config's own."""
        ...

    def dwfm_s(self, cfg: ChainConfig, restored_s: float | None) -> tuple[float | None, float | None]:
        """(throttle, restart) of DWFM, given when DNS was restored (``None``: it was never empty)."""
        ...

    def shedding_s(self, cfg: ChainConfig) -> tuple[float | None, float | None] | None:
        """Network Manager sheds new launches over [start, end) (``None`` end: to the horizon), or ``None``:
        the network config's own shedding."""
        ...

    def ec2_recovered_s(
        self, cfg: ChainConfig, normal_s: float | None, run_end_s: float, dwfm_acted: bool
    ) -> float | None:
        """When EC2 counts as recovered, given propagation normal (``None``: not by ``run_end_s``, the network
        run's end) and whether DWFM's operators acted; ``None``: not in this run."""
        ...

    def failover_s(
        self, cfg: ChainConfig, first_failover_s: float | None, ec2_recovered_s: float | None
    ) -> tuple[float | None, float | None]:
        """(disable, re-enable) of NLB automatic AZ failover, given the first AZ failover of a run without
        either (``None``: none seen, or not asked yet) and when EC2 recovered."""
        ...


@dataclass(frozen=True)
class OperatorRules:
    """The chain's operator rules A, B and C, each relative to the model's state (see :mod:`labsupport.chain`).

    Their delays are the :class:`ChainConfig` fields named below, PES intervals by default. Setting a
    sub-config's operator time to ``None`` removes that action: ``dwfm.operator_throttle_at_s`` and
    ``dwfm.operator_restart_at_s`` (rule A), ``nlb.disable_failover_at_s`` (rule B) and
    ``nlb.reenable_failover_at_s`` (the re-enable of rule C).
    """

    def run_horizon_s(self, cfg: ChainConfig) -> float | None:
        return None

    def dns_repair_s(self, cfg: ChainConfig) -> float | None:
        return None

    def dwfm_s(self, cfg: ChainConfig, restored_s: float | None) -> tuple[float | None, float | None]:
        """Rule A: throttle and restart ``dwfm_operator_delay_s`` after DNS is restored."""
        act = None if restored_s is None else restored_s + cfg.dwfm_operator_delay_s
        base = cfg.dwfm
        return (
            None if base.operator_throttle_at_s is None else act,
            None if base.operator_restart_at_s is None else act,
        )

    def shedding_s(self, cfg: ChainConfig) -> tuple[float | None, float | None] | None:
        return None

    def ec2_recovered_s(
        self, cfg: ChainConfig, normal_s: float | None, run_end_s: float, dwfm_acted: bool
    ) -> float | None:
        """Rule C: propagation normal (or the run's end), plus ``ec2_throttle_relax_s`` if set by hand."""
        manual = dwfm_acted or not cfg.relax_only_after_manual_throttle
        return (run_end_s if normal_s is None else normal_s) + (cfg.ec2_throttle_relax_s if manual else 0.0)

    def failover_s(
        self, cfg: ChainConfig, first_failover_s: float | None, ec2_recovered_s: float | None
    ) -> tuple[float | None, float | None]:
        """Rule B: disable ``nlb_disable_delay_s`` after the first failover, if EC2 has not recovered by then;
        rule C: re-enable ``nlb_reenable_delay_s`` after EC2 recovered."""
        if cfg.nlb.disable_failover_at_s is None or first_failover_s is None or ec2_recovered_s is None:
            return (None, None)
        off = first_failover_s + cfg.nlb_disable_delay_s
        if off >= ec2_recovered_s:
            return (None, None)
        on = None if cfg.nlb.reenable_failover_at_s is None else max(off, ec2_recovered_s + cfg.nlb_reenable_delay_s)
        return (off, on)


#: The chain's default operators: rules A-C.
RULES = OperatorRules()

_ACTION_FIELDS: tuple[str, ...] = (
    "automation_stopped_at_s",
    "dns_repair_at_s",
    "ec2_throttle_at_s",
    "ec2_throttle_relaxed_at_s",
    "dwfm_restart_at_s",
    "network_throttle_at_s",
    "network_throttle_relaxed_at_s",
    "failover_disabled_at_s",
    "failover_reenabled_at_s",
)
#: Each action that ends an earlier one, and the action it ends.
_ENDS: dict[str, str] = {
    "ec2_throttle_relaxed_at_s": "ec2_throttle_at_s",
    "network_throttle_relaxed_at_s": "network_throttle_at_s",
    "failover_reenabled_at_s": "failover_disabled_at_s",
}


@dataclass(frozen=True, kw_only=True)
class OperatorActions(Config):
    """Operators' actions at fixed times, replacing the chain's operator rules A, B and C.

    Every time is seconds on the chain clock (since 11:48 PM PDT, 19 Oct), or ``None`` for an
    action never taken. Passed to :func:`labsupport.chain.run` as ``operators=``; without it the
    chain runs its rules, unchanged. Each action reaches a model at its time on that model's clock
    (:class:`labsupport.clock.Shift`): taken before the model's run starts, it is in force from the
    start; taken after the run's horizon, it never happens.

    Attributes:
        automation_stopped_at_s: the DNS Enactor automation is stopped. In the model the regional
            record, once empty, stays empty whatever the Enactors do (the race model's inconsistent
            state), so stopping them changes nothing downstream; the time is recorded.
        dns_repair_at_s: DynamoDB's DNS records repaired by hand (the race model's
            ``manual_repair_after_s``, counted from 11:48 PM, when the record went empty).
            ``None``: never, so the regional endpoint stays empty until ``horizon_s``.
        ec2_throttle_at_s, ec2_throttle_relaxed_at_s: EC2 launches throttled (DWFM's
            ``operator_throttle_at_s``: admission control on DWFM's queues) and that throttle
            relaxed. In the model DWFM's admission control stays once taken; the relax counts only
            for EC2's recovery (below).
        dwfm_restart_at_s: DWFM hosts restarted selectively (DWFM's ``operator_restart_at_s``).
        network_throttle_at_s, network_throttle_relaxed_at_s: network propagation work throttled:
            over [throttled, relaxed) a share of new launches is refused before it reaches Network
            Manager (the network model's ``shed_load_*``); relaxed at the throttle's own time, it
            refuses none.
        failover_disabled_at_s, failover_reenabled_at_s: NLB automatic AZ failover disabled and
            re-enabled (the NLB model's ``disable_failover_at_s``/``reenable_failover_at_s``); both
            before the NLB's run starts, failover is back on from its start.
        unwind_s: seconds from relaxing the last request throttle to EC2 normal (default the PES's
            11:23 AM to 1:50 PM, 0 to a week). With any throttle taken, EC2 counts as recovered
            ``unwind_s`` after the later of propagation normal and the last relax, and never if a
            throttle is never relaxed.
        horizon_s: how long the operated run lasts on the chain clock (3,600 s to 2 days); every
            sub-model's horizon is stretched to cover it where needed.

    Raises:
        ConfigError: a time outside [0, ``horizon_s``] (the message names the field), a relax or
            re-enable without its throttle or disable at or before it, a bad ``unwind_s`` or
            ``horizon_s``.
    """

    automation_stopped_at_s: float | None = None
    dns_repair_at_s: float | None = None
    ec2_throttle_at_s: float | None = None
    ec2_throttle_relaxed_at_s: float | None = None
    dwfm_restart_at_s: float | None = None
    network_throttle_at_s: float | None = None
    network_throttle_relaxed_at_s: float | None = None
    failover_disabled_at_s: float | None = None
    failover_reenabled_at_s: float | None = None
    unwind_s: float = field(default_factory=_unwind_default)
    horizon_s: float = 16 * 3600.0

    def _check(self) -> None:
        check_number("horizon_s", self.horizon_s, lo=3600, hi=2 * 86_400)
        check_number("unwind_s", self.unwind_s, lo=0, hi=7 * 86_400)
        for name in _ACTION_FIELDS:
            value = getattr(self, name)
            if value is not None:
                check_number(name, value, lo=0, hi=self.horizon_s, hi_name="horizon_s")
        for end, start in _ENDS.items():
            at, since = getattr(self, end), getattr(self, start)
            if at is not None and (since is None or at < since):
                raise ConfigError(f"{end}={at:g} needs {start} at or before it, got {show(since)}")

    @staticmethod
    def action_fields() -> tuple[str, ...]:
        """The names of the fields that hold an action's time, in the order an operator's night meets them."""
        return _ACTION_FIELDS

    def throttled_at_s(self) -> float | None:
        """The first request throttle (EC2 launches or network work), or ``None``."""
        times = [t for t in (self.ec2_throttle_at_s, self.network_throttle_at_s) if t is not None]
        return min(times) if times else None

    def relaxed_at_s(self) -> float | None:
        """When the last throttle taken was relaxed, or ``None`` if none was taken or one is still in force."""
        pairs = [
            (self.ec2_throttle_at_s, self.ec2_throttle_relaxed_at_s),
            (self.network_throttle_at_s, self.network_throttle_relaxed_at_s),
        ]
        taken = [(a, b) for a, b in pairs if a is not None]
        if not taken or any(b is None for _, b in taken):
            return None
        return max(b for _, b in taken if b is not None)

    # -- the Operators protocol: the same actions whatever the models show ---------------------
    def run_horizon_s(self, cfg: ChainConfig) -> float | None:
        return self.horizon_s

    def dns_repair_s(self, cfg: ChainConfig) -> float | None:
        return self.horizon_s if self.dns_repair_at_s is None else self.dns_repair_at_s

    def dwfm_s(self, cfg: ChainConfig, restored_s: float | None) -> tuple[float | None, float | None]:
        return (self.ec2_throttle_at_s, self.dwfm_restart_at_s)

    def shedding_s(self, cfg: ChainConfig) -> tuple[float | None, float | None] | None:
        return (self.network_throttle_at_s, self.network_throttle_relaxed_at_s)

    def ec2_recovered_s(
        self, cfg: ChainConfig, normal_s: float | None, run_end_s: float, dwfm_acted: bool
    ) -> float | None:
        if self.throttled_at_s() is None:
            return normal_s
        relaxed = self.relaxed_at_s()
        return None if relaxed is None or normal_s is None else max(normal_s, relaxed) + self.unwind_s

    def failover_s(
        self, cfg: ChainConfig, first_failover_s: float | None, ec2_recovered_s: float | None
    ) -> tuple[float | None, float | None]:
        return (self.failover_disabled_at_s, self.failover_reenabled_at_s)
