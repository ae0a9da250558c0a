"""The chain's configuration: :class:`StopPoints`, :class:`ChainConfig` and :data:`INCIDENT`.

The operators the chain asks before each model (rules A-C, or actions at fixed times) are in
:mod:`labsupport.chain.operators`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import dns_cache, dwfm, nlb, race, timeline
from .._sweep import flags_label
from .._validate import Config, check_bool, check_instance, check_int, check_number, check_seed
from ..clock import INCIDENT_CLOCK
from ..errors import ConfigError

__all__ = [
    "CLOCK",
    "INCIDENT",
    "STOP_POINT_NAMES",
    "STOP_POINT_TITLES",
    "ChainConfig",
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
