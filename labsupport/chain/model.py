"""One chain run: :func:`run`, its result and summary, the stop points' levers.

Import them from :mod:`labsupport.chain`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .. import dependencies
from ..errors import ConfigError
from . import engine as _en
from . import stages as _st
from .config import INCIDENT, STOP_POINT_TITLES, ChainConfig
from .operators import RULES, OperatorActions, OperatorRules

__all__ = ["ChainResult", "ChainSummary", "EVENT_KINDS", "STAGES", "run", "stop_point_costs", "stop_point_levers"]

_COSTS = Path(__file__).resolve().parent.parent / "data" / "stop_point_costs.csv"

#: The stages, in the order of the PES's impact periods they reproduce.
STAGES: tuple[str, ...] = _st.STAGES
#: Categories of ``ChainResult.events["kind"]``.
EVENT_KINDS: tuple[str, ...] = _st.EVENT_KINDS


def stop_point_levers() -> pd.DataFrame:
    """Which lever of which model each stop point sets, and AWS's announced fix for it.

    Returns:
        One row per (stop point, lever): ``point`` (int64), ``title``, ``model``, ``lever``, ``value``
        and ``aws_fix`` (string; what the PES announces, ``"none announced"`` where it is silent).
    """
    fix_dns = (
        "fix the race; add protections against applying incorrect DNS plans (all DNS automation disabled until then)"
    )
    rows = [
        (1, "race", "Guards.check_version_on_write", "True", fix_dns),
        (2, "race", "Guards.delete_only_unreferenced", "True", fix_dns),
        (3, "race", "Guards.reject_empty_records", "True", fix_dns),
        (4, "race", "Guards.self_repair", "True", fix_dns),
        (
            5,
            "dwfm",
            "DwfmConfig.throttle_by_queue_length",
            "True",
            "a test suite exercising the DWFM recovery workflow (no throttle announced for DWFM itself)",
        ),
        (
            5,
            "network",
            "NetworkConfig.max_queue_count",
            str(INCIDENT.network_queue_limit_count),
            "rate limit incoming work by the size of the waiting queue (EC2 data propagation)",
        ),
        (
            5,
            "nlb",
            "NlbConfig.limit_capacity_removal",
            "True",
            "velocity control on the capacity one NLB may remove on AZ failover",
        ),
        (6, "dependencies", "isolate_regions", "True", "none announced"),
    ]
    frame = pd.DataFrame(rows, columns=["point", "model", "lever", "value", "aws_fix"]).astype(
        {"point": "int64", "model": "string", "lever": "string", "value": "string", "aws_fix": "string"}
    )
    frame.insert(1, "title", pd.Series([STOP_POINT_TITLES[p - 1] for p in frame["point"]], dtype="string"))
    return frame


def stop_point_costs() -> pd.DataFrame:
    """What each stop point costs to build and run: the course's stated costs, one place for all.

    No source gives a cost for any of the six stop points; AWS announced some of the fixes (see
    :func:`stop_point_levers`) but not what they cost. The values are therefore the course's
    assumptions, declared in ``data/stop_point_costs.csv``, so that "cheapest" and "budget" in the
    exercises have one answer that can be marked.

    Returns:
        Six rows, points 1-6: ``point`` (int64), ``title`` (string), ``effort_points`` (int64, the
        relative effort to build and test it, 1 = least, 5 = most: the course's assumption),
        ``effort``, ``risk`` (what it can break), ``latency_added`` (what it adds to normal
        operation), ``basis`` (``"course assumption"``, and what a source says, if anything) and
        ``cite`` (string, a key of ``references.bib`` or empty).
    """
    frame = pd.read_csv(
        _COSTS, dtype={"point": "int64", "effort_points": "int64"}, keep_default_na=False, encoding="utf-8"
    )
    text = ["effort", "risk", "latency_added", "basis", "cite"]
    frame = frame.astype(dict.fromkeys(text, "string"))
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
        times: what the pipeline handed from model to model, on the chain clock
            (:class:`labsupport.chain.engine.ChainTimes`: the outage, leases back, propagation
            normal, EC2 recovered, the failover moments...), whether or not a stage happened.
        summary: the :class:`ChainSummary`.
    """

    config: ChainConfig
    stages: pd.DataFrame
    milestones: pd.DataFrame
    impact: pd.DataFrame
    events: pd.DataFrame
    runs: _en.Runs
    times: _en.ChainTimes
    summary: ChainSummary


def run(config: ChainConfig = INCIDENT, *, operators: OperatorActions | OperatorRules | None = None) -> ChainResult:
    """Run the whole chain once: race, DNS caches, DWFM, Network Manager, NLB, dependencies.

    Args:
        config: a :class:`ChainConfig`; the default is :data:`INCIDENT`.
        operators: the :class:`~labsupport.chain.Operators` strategy the one pipeline asks
            before each model: ``None`` (the default) or :data:`RULES` runs the operator rules
            A-C; an :class:`OperatorActions` replaces them with actions at fixed times (the
            game-day lab's players), and DNS is repaired by hand only at
            ``operators.dns_repair_at_s``.

    Returns:
        A :class:`ChainResult`.

    Raises:
        ConfigError: ``config`` is not a ChainConfig, ``operators`` not one of those; ``race_lead_s``
            puts the empty record before t = 0; a calibrated factor turns DWFM's damage into more
            work than the network model allows (the message names the chain field).
        LimitExceeded: a sub-model hit its own ``max_events`` bound, or the regional endpoint was
            still empty at the race model's horizon (lengthen ``race.horizon_s``).

    Follows the PES's three impact periods and its remediations; see the module docstring.
    """
    _check(config)
    if operators is None:
        operators = RULES
    if not isinstance(operators, (OperatorActions, OperatorRules)):
        raise ConfigError(
            f"operators must be an OperatorActions, an OperatorRules or None, got {type(operators).__name__}"
        )
    return _assemble(config, *_en.run_models(config, operators), ruled=isinstance(operators, OperatorRules))


def _check(config: object) -> None:
    if not isinstance(config, ChainConfig):
        raise ConfigError(f"config must be a ChainConfig, got {type(config).__name__}")


def _assemble(cfg: ChainConfig, runs: _en.Runs, t: _en.ChainTimes, *, ruled: bool = True) -> ChainResult:
    windows = _st.stage_windows(cfg, runs, t)
    impact = _st.impact_rows(runs, t, windows)
    miles = _st.milestones(cfg, runs, t, windows, ruled=ruled)
    rows = []
    for name, a, b in windows:
        part = impact[impact["stage"] == name]
        rows.append(
            (
                name,
                _st.PERIODS[name],
                a,
                b,
                b - a,
                float(part["impact_fraction"].max()) if len(part) else 0.0,
                float((part["impact_fraction"] * part["interval_s"]).sum()),
                _st.CLIENT_VIEW[name],
            )
        )
    stages = pd.DataFrame(
        rows,
        columns=[
            "stage",
            "pes_period",
            "start_s",
            "end_s",
            "duration_s",
            "peak_impact_fraction",
            "impact_s",
            "client_view",
        ],
    )
    stages = stages.astype(
        {
            "pes_period": "string",
            "client_view": "string",
            **dict.fromkeys(["start_s", "end_s", "duration_s", "peak_impact_fraction", "impact_s"], "float64"),
        }
    )
    stages["stage"] = pd.Categorical(stages["stage"], categories=list(STAGES))
    return ChainResult(
        config=cfg,
        stages=stages,
        milestones=miles,
        impact=impact,
        events=_events(stages, miles),
        runs=runs,
        times=t,
        summary=_summarise(cfg, runs, t, stages),
    )


def _events(stages: pd.DataFrame, miles: pd.DataFrame) -> pd.DataFrame:
    rows = [(r.start_s, "stage_started", r.stage, r.client_view) for r in stages.itertuples()]
    rows += [(r.end_s, "stage_ended", r.stage, "") for r in stages.itertuples()]
    rows += [
        (
            r.time_s,
            "operator_action" if str(r.source).startswith("operator") else "milestone",
            pd.NA,
            f"{r.milestone} [{r.source}]",
        )
        for r in miles.itertuples()
    ]
    frame = pd.DataFrame(rows, columns=["time_s", "kind", "stage", "detail"])
    frame = frame.astype({"time_s": "float64", "stage": "string", "detail": "string"})
    frame["kind"] = pd.Categorical(frame["kind"], categories=list(EVENT_KINDS))
    return frame.sort_values(["time_s", "kind"], kind="stable").reset_index(drop=True)


def _summarise(cfg: ChainConfig, runs: _en.Runs, t: _en.ChainTimes, stages: pd.DataFrame) -> ChainSummary:
    dur = dict(zip(stages["stage"].astype(str), stages["duration_s"], strict=False))
    out, later = t.outage, STAGES[1] in dur
    outside = 0
    if out is not None:
        radius = dependencies.what_fails_with(
            "DynamoDB", dependencies.HOME_REGION, isolate=cfg.stop_points.isolate_regions
        )
        outside = int(radius["outside_region"].sum())
    dns = runs.dns.summary if runs.dns is not None else None
    return ChainSummary(
        stop_points=cfg.stop_points.label(),
        total_s=float(stages["end_s"].max() - stages["start_s"].min()) if len(stages) else 0.0,
        ended_at_s=float(stages["end_s"].max()) if len(stages) else None,
        dynamodb_s=float(dur.get(STAGES[0], 0.0)),
        launches_s=float(dur.get(STAGES[1], 0.0)),
        nlb_s=float(dur.get(STAGES[2], 0.0)),
        dns_empty_s=float(runs.race.summary.regional_empty_s),
        dns_clients_after_restore_s=None if dns is None else dns.recovery_most_s,
        leases_back_after_dns_s=None if out is None or t.leases_back_s is None else t.leases_back_s - out[1],
        propagation_normal_at_s=t.propagation_normal_s if later else None,
        ec2_recovered_at_s=t.ec2_recovered_s if later else None,
        dwfm_operators_acted=t.dwfm_operator_at_s is not None,
        nlb_failover_disabled=t.failover_disabled_s is not None,
        backlog_count=int(t.backlog_count),
        retry_launches_count=int(t.retry_launches_count),
        nlb_peak_error_fraction=float(runs.nlb.summary.peak_error_fraction) if runs.nlb is not None else 0.0,
        outside_region_failures_count=outside,
        outside_region_impact_s=float(dur.get(STAGES[0], 0.0)) if outside else 0.0,
        truncated=bool(t.truncated),
    )
