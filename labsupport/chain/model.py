"""The chain's config, run and summary (import them from :mod:`labsupport.chain`)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import pandas as pd

from . import stages as _st
from .. import dependencies, dns_cache, dwfm, nlb, race, timeline
from .._validate import check_bool, check_int, check_number, check_seed, store_plain_numbers
from ..clock import INCIDENT_CLOCK
from ..errors import ConfigError

__all__ = [
    "CLOCK",
    "ChainConfig",
    "ChainResult",
    "ChainSummary",
    "EVENT_KINDS",
    "INCIDENT",
    "STAGES",
    "STOP_POINT_NAMES",
    "STOP_POINT_TITLES",
    "StopPoints",
    "run",
    "stop_point_levers",
]

#: The model's clock: t = 0 is 11:48 PM PDT on 19 October 2025, when the regional endpoint went empty.
CLOCK = INCIDENT_CLOCK
#: The stages, in the order of the PES's impact periods they reproduce.
STAGES: tuple[str, ...] = _st.STAGES
#: Categories of ``ChainResult.events["kind"]``.
EVENT_KINDS: tuple[str, ...] = _st.EVENT_KINDS
#: Short titles of the six stop points, as the seed articles name them.
STOP_POINT_TITLES: tuple[str, ...] = (
    "compare versions when writing", "never delete a plan in use", "refuse empty records",
    "recover automatically from the inconsistent state",
    "throttle work during recovery; limit capacity removal", "no hidden dependence on one Region")


@dataclass(frozen=True, kw_only=True)
class StopPoints:
    """The six stop points; all off in :data:`INCIDENT`, as on 19 October.

    Attributes:
        check_version_on_write: 1, every endpoint write is a conditional write (race guard 1).
        delete_only_unreferenced: 2, clean-up never deletes a plan in use (race guard 2).
        reject_empty_records: 3, refuse and alert on a change that empties an endpoint (race guard 3).
        self_repair: 4, an Enactor that finds the active plan missing re-applies the newest (race guard 4).
        throttle_recovery_work: 5, admission control by queue length in DWFM
            (``throttle_by_queue_length``) and in Network Manager (``max_queue_count``, the fix AWS
            announced for EC2 data propagation), and the NLB velocity control
            (``limit_capacity_removal``).
        isolate_regions: 6, no dependency crosses from another Region into us-east-1
            (:func:`labsupport.dependencies.isolate_regions`).
    """

    check_version_on_write: bool = False
    delete_only_unreferenced: bool = False
    reject_empty_records: bool = False
    self_repair: bool = False
    throttle_recovery_work: bool = False
    isolate_regions: bool = False

    def __post_init__(self) -> None:
        store_plain_numbers(self)  # numpy and other numbers become plain int/float first
        for f in fields(self):
            check_bool(f.name, getattr(self, f.name))

    def numbers(self) -> tuple[int, ...]:
        """The numbers (1-6) of the stop points that are on."""
        return tuple(i + 1 for i, f in enumerate(fields(self)) if getattr(self, f.name))

    def label(self) -> str:
        """Short label such as ``"1+5"``; ``"none"`` if none is on."""
        return "+".join(map(str, self.numbers())) or "none"

    @classmethod
    def of(cls, *numbers: int) -> StopPoints:
        """The stop points with the given numbers (1-6) on, e.g. ``StopPoints.of(1, 5)``."""
        for n in numbers:
            check_int("stop point", n, lo=1, hi=6)
        return cls(**{f.name: i + 1 in numbers for i, f in enumerate(fields(cls))})


#: Field names of :class:`StopPoints`, in order 1-6.
STOP_POINT_NAMES: tuple[str, ...] = tuple(f.name for f in fields(StopPoints))


def _pes_gap_s(first: str, then: str) -> float:
    """Seconds between two rows of the PES timeline (:func:`labsupport.timeline.load`)."""
    rows = timeline.load().set_index("id")["time_pdt"]
    return float((rows[then] - rows[first]).total_seconds())


@dataclass(frozen=True, kw_only=True)
class ChainConfig:
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
        nlb_reenable_delay_s: rule C, from EC2 recovered to failover re-enabled.
        seed: ``None`` keeps every sub-config's seed; an int draws the seeds of the DNS-cache,
            DWFM, network and NLB models from one ``random.Random(seed)``. The race keeps
            ``race.seed``, which decides whether the rare interleaving happens at all (vary it
            through ``race`` to ask how often it does).

    Raises:
        ConfigError: (a ``ValueError``) naming the first invalid field, its value and its range.
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
    nlb_reenable_delay_s: float = field(default_factory=lambda: _pes_gap_s("ec2-normal", "nlb-failover-on"))
    seed: int | None = None

    def __post_init__(self) -> None:
        store_plain_numbers(self)  # numpy and other numbers become plain int/float first
        for name, kind in (("stop_points", StopPoints), ("race", race.RaceConfig),
                           ("dns", dns_cache.DnsCacheConfig), ("dwfm", dwfm.DwfmConfig), ("nlb", nlb.NlbConfig)):
            if not isinstance(getattr(self, name), kind):
                raise ConfigError(f"{name} must be a {kind.__name__}, got {type(getattr(self, name)).__name__}")
        week = 7 * 86_400.0
        check_number("race_lead_s", self.race_lead_s, lo=0, hi=self.race.horizon_s,
                     hi_name="race.horizon_s", hi_open=True)
        for name in ("dwfm_operator_delay_s", "nlb_disable_delay_s", "ec2_throttle_relax_s", "nlb_reenable_delay_s"):
            check_number(name, getattr(self, name), lo=0, hi=week)
        check_number("backlog_per_unleased_droplet_hour", self.backlog_per_unleased_droplet_hour, lo=0, hi=1_000)
        check_number("retry_launches_per_refused_launch", self.retry_launches_per_refused_launch, lo=0, hi=100)
        check_int("network_queue_limit_count", self.network_queue_limit_count, lo=1, hi=10_000_000)
        if self.seed is not None:
            check_seed("seed", self.seed)
        latest = self.race.horizon_s - self.race_lead_s + self.dwfm_operator_delay_s
        if latest >= self.dwfm.horizon_s:
            raise ConfigError(f"dwfm_operator_delay_s={self.dwfm_operator_delay_s:g} could put the DWFM operators at "
                              f"{latest:g} s, beyond dwfm.horizon_s={self.dwfm.horizon_s:g}; shorten the delay or "
                              "lengthen the DWFM horizon")


#: The incident: no stop points, every sub-model's incident preset. Calibrated: ``race_lead_s``
#: (310 s: the race model's delayed Enactor empties the endpoint 310 s into its run, which the PES
#: puts at 11:48 PM); ``backlog_per_unleased_droplet_hour`` (0.01384) and
#: ``retry_launches_per_refused_launch`` (0.01), chosen so that DWFM's incident run (22,973
#: droplet-hours without a lease, 62,648 launches refused) hands Network Manager the backlog (318)
#: and retries (626, vs 627) of its own calibrated preset. The operator delays are PES intervals.
INCIDENT = ChainConfig()


def stop_point_levers() -> pd.DataFrame:
    """Which lever of which model each stop point sets, and AWS's announced fix for it.

    Returns:
        One row per (stop point, lever): ``point`` (int64), ``title``, ``model``, ``lever``, ``value``
        and ``aws_fix`` (string; what the PES announces, ``"none announced"`` where it is silent).
    """
    fix_dns = "fix the race; add protections against applying incorrect DNS plans (all DNS automation disabled until then)"
    rows = [
        (1, "race", "Guards.check_version_on_write", "True", fix_dns),
        (2, "race", "Guards.delete_only_unreferenced", "True", fix_dns),
        (3, "race", "Guards.reject_empty_records", "True", fix_dns),
        (4, "race", "Guards.self_repair", "True", fix_dns),
        (5, "dwfm", "DwfmConfig.throttle_by_queue_length", "True",
         "a test suite exercising the DWFM recovery workflow (no throttle announced for DWFM itself)"),
        (5, "network", "NetworkConfig.max_queue_count", str(INCIDENT.network_queue_limit_count),
         "rate limit incoming work by the size of the waiting queue (EC2 data propagation)"),
        (5, "nlb", "NlbConfig.limit_capacity_removal", "True",
         "velocity control on the capacity one NLB may remove on AZ failover"),
        (6, "dependencies", "isolate_regions", "True", "none announced"),
    ]
    frame = pd.DataFrame(rows, columns=["point", "model", "lever", "value", "aws_fix"]).astype(
        {"point": "int64", "model": "string", "lever": "string", "value": "string", "aws_fix": "string"})
    frame.insert(1, "title", pd.Series([STOP_POINT_TITLES[p - 1] for p in frame["point"]], dtype="string"))
    return frame


@dataclass(frozen=True)
class ChainSummary:
    """Headline figures of one chain run (seconds unless named otherwise; times on the chain clock).

    Attributes:
        stop_points: label of the stop points on, e.g. ``"1+5"``.
        total_s: whole event, first stage start to last stage end (0 if no stage happened).
        ended_at_s: end of the last stage, or ``None``.
        dynamodb_s, launches_s, nlb_s: duration of each stage (0 if it did not happen).
        dns_empty_s: time the regional endpoint answered empty (race model).
        dns_clients_after_restore_s: restore to 99 % of clients resolving again, or ``None``.
        leases_back_after_dns_s: restore to DWFM holding every lease, or ``None``.
        propagation_normal_at_s, ec2_recovered_at_s: when new instances got network state on time,
            and when EC2 counts as recovered (rule C); ``None`` without a launches stage.
        dwfm_operators_acted, nlb_failover_disabled: whether rules A and B fired.
        backlog_count, retry_launches_count: what DWFM's damage handed Network Manager (0 if none).
        nlb_peak_error_fraction: highest share of NLB connections failing.
        outside_region_failures_count: services or features outside us-east-1 that fail with
            DynamoDB in us-east-1 (:mod:`labsupport.dependencies`; ``inferred`` links included).
        outside_region_impact_s: how long they fail: the DynamoDB stage, if any fail.
        truncated: a stage was still going at the end of a model's horizon.
    """

    stop_points: str
    total_s: float
    ended_at_s: float | None
    dynamodb_s: float
    launches_s: float
    nlb_s: float
    dns_empty_s: float
    dns_clients_after_restore_s: float | None
    leases_back_after_dns_s: float | None
    propagation_normal_at_s: float | None
    ec2_recovered_at_s: float | None
    dwfm_operators_acted: bool
    nlb_failover_disabled: bool
    backlog_count: int
    retry_launches_count: int
    nlb_peak_error_fraction: float
    outside_region_failures_count: int
    outside_region_impact_s: float
    truncated: bool


@dataclass(frozen=True)
class ChainResult:
    """What :func:`run` returns.

    Attributes:
        config: the config that produced it.
        stages: one row per stage that happened, in time order: ``stage`` (categorical,
            :data:`STAGES`), ``pes_period`` (string), ``start_s``, ``end_s``, ``duration_s``
            (float64), ``peak_impact_fraction`` and ``impact_s`` (float64: the share of clients or
            launches failing, at worst and integrated over time), ``client_view`` (string).
        milestones: ``time_s`` (float64), ``milestone`` and ``source`` (string: the model, or the
            operator rule, that sets it).
        impact: client-visible impact over time: ``time_s`` (float64, end of the sample),
            ``stage`` (categorical), ``impact_fraction`` and ``interval_s`` (float64).
        events: one row per event, by time: ``time_s`` (float64), ``kind`` (categorical,
            :data:`EVENT_KINDS`), ``stage`` (string, NA if none), ``detail`` (string).
        runs: the sub-model results (``.race``, ``.dns``, ``.dwfm``, ``.network``, ``.nlb``;
            ``None`` where a model had nothing to do). Read-only.
        summary: the :class:`ChainSummary`.
    """

    config: ChainConfig
    stages: pd.DataFrame
    milestones: pd.DataFrame
    impact: pd.DataFrame
    events: pd.DataFrame
    runs: _st.Runs
    summary: ChainSummary


def run(config: ChainConfig = INCIDENT) -> ChainResult:
    """Run the whole chain once: race, DNS caches, DWFM, Network Manager, NLB, dependencies.

    Args:
        config: a :class:`ChainConfig`; the default is :data:`INCIDENT`.

    Returns:
        A :class:`ChainResult`.

    Raises:
        ConfigError: ``config`` is not a ChainConfig; ``race_lead_s`` puts the empty record before
            t = 0; a calibrated factor turns DWFM's damage into more work than the network model
            allows (the message names the chain field).
        LimitExceeded: a sub-model hit its own ``max_events`` bound, or the regional endpoint was
            still empty at the race model's horizon (lengthen ``race.horizon_s``).

    Follows the PES's three impact periods and its remediations; see the module docstring.
    """
    _check(config)
    return _assemble(config, *_st.run_models(config))


def _check(config: object) -> None:
    if not isinstance(config, ChainConfig):
        raise ConfigError(f"config must be a ChainConfig, got {type(config).__name__}")


def _assemble(cfg: ChainConfig, runs: _st.Runs, t: dict) -> ChainResult:
    windows = _st.stage_windows(cfg, runs, t)
    impact = _st.impact_rows(runs, t, windows)
    miles = _st.milestones(cfg, runs, t, windows)
    rows = []
    for name, a, b in windows:
        part = impact[impact["stage"] == name]
        rows.append((name, _st.PERIODS[name], a, b, b - a, float(part["impact_fraction"].max()) if len(part) else 0.0,
                     float((part["impact_fraction"] * part["interval_s"]).sum()), _st.CLIENT_VIEW[name]))
    stages = pd.DataFrame(rows, columns=["stage", "pes_period", "start_s", "end_s", "duration_s",
                                         "peak_impact_fraction", "impact_s", "client_view"])
    stages = stages.astype({"pes_period": "string", "client_view": "string", **dict.fromkeys(
        ["start_s", "end_s", "duration_s", "peak_impact_fraction", "impact_s"], "float64")})
    stages["stage"] = pd.Categorical(stages["stage"], categories=list(STAGES))
    return ChainResult(config=cfg, stages=stages, milestones=miles, impact=impact, events=_events(stages, miles),
                       runs=runs, summary=_summarise(cfg, runs, t, stages))


def _events(stages: pd.DataFrame, miles: pd.DataFrame) -> pd.DataFrame:
    rows = [(r.start_s, "stage_started", r.stage, r.client_view) for r in stages.itertuples()]
    rows += [(r.end_s, "stage_ended", r.stage, "") for r in stages.itertuples()]
    rows += [(r.time_s, "operator_action" if r.source.startswith("operator") else "milestone", pd.NA,
              f"{r.milestone} [{r.source}]") for r in miles.itertuples()]
    frame = pd.DataFrame(rows, columns=["time_s", "kind", "stage", "detail"])
    frame = frame.astype({"time_s": "float64", "stage": "string", "detail": "string"})
    frame["kind"] = pd.Categorical(frame["kind"], categories=list(EVENT_KINDS))
    return frame.sort_values(["time_s", "kind"], kind="stable").reset_index(drop=True)


def _summarise(cfg: ChainConfig, runs: _st.Runs, t: dict, stages: pd.DataFrame) -> ChainSummary:
    dur = dict(zip(stages["stage"].astype(str), stages["duration_s"]))
    out, later = t["outage"], STAGES[1] in dur
    outside = 0
    if out is not None:
        radius = dependencies.what_fails_with("DynamoDB", dependencies.HOME_REGION,
                                              isolate=cfg.stop_points.isolate_regions)
        outside = int(radius["outside_region"].sum())
    dns = runs.dns.summary if runs.dns is not None else None
    return ChainSummary(
        stop_points=cfg.stop_points.label(),
        total_s=float(stages["end_s"].max() - stages["start_s"].min()) if len(stages) else 0.0,
        ended_at_s=float(stages["end_s"].max()) if len(stages) else None,
        dynamodb_s=float(dur.get(STAGES[0], 0.0)), launches_s=float(dur.get(STAGES[1], 0.0)),
        nlb_s=float(dur.get(STAGES[2], 0.0)),
        dns_empty_s=float(runs.race.summary.regional_empty_s),
        dns_clients_after_restore_s=None if dns is None else dns.recovery_most_s,
        leases_back_after_dns_s=None if out is None or t["leases_back"] is None else t["leases_back"] - out[1],
        propagation_normal_at_s=t.get("propagation_normal") if later else None,
        ec2_recovered_at_s=t.get("ec2_recovered") if later else None,
        dwfm_operators_acted=t["dwfm_operator_at"] is not None,
        nlb_failover_disabled=t.get("failover_disabled") is not None,
        backlog_count=int(t.get("backlog_count", 0)), retry_launches_count=int(t.get("retry_launches_count", 0)),
        nlb_peak_error_fraction=float(runs.nlb.summary.peak_error_fraction) if runs.nlb is not None else 0.0,
        outside_region_failures_count=outside,
        outside_region_impact_s=float(dur.get(STAGES[0], 0.0)) if outside else 0.0,
        truncated=bool(t["truncated"]))
