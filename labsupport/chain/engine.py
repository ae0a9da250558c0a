"""The chain's engine: one pipeline runs the models behind :mod:`labsupport.chain`; the stages are read off it.

:func:`run_models` is the pipeline. It runs race, dns_cache, dwfm, network and nlb in that order,
each configured from the results of the ones before and from the operators, a strategy
(:class:`~labsupport.chain.config.Operators`: the chain's rules A-C, or the game's actions at fixed
times) asked before each model what they do. What one model hands the next::

    operators.dns_repair_s ------> race ---- empty window (outage) ------> dns_cache
    operators.dwfm_s(restored) --> dwfm <--- outage
                                    |  leases back (back), damage up to back
    operators.shedding_s --------> network (clock: Shift(back, horizon)) -- propagation normal
    operators.ec2_recovered_s(normal) -> EC2 recovered
    operators.failover_s(first failover, EC2 recovered) --> nlb (clock: Shift(back, horizon))

:func:`stage_windows`, :func:`impact_rows` and :func:`milestones` turn the results into the
chain's stage, impact and milestone tables. Times are seconds since 11:48 PM PDT on 19 Oct (the
chain clock); the network and NLB models count from the moment DWFM has leases on every droplet
(each time moves onto their clock through one :class:`labsupport.clock.Shift`), and the race model
from ``race_lead_s`` before 11:48 PM.

Each model run goes through :func:`labsupport._memo.cached_run`: a sub-run whose config was seen
recently (most of them, across the 64 stop-point combinations) is a copy of that run's result.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np
import pandas as pd

from .. import dns_cache, dwfm, network, nlb, race
from .._memo import cached_run
from ..clock import Shift
from ..errors import ConfigError, LimitExceeded
from .config import RULES, ChainConfig, Operators

#: The three stages, in the order of the summary's impact periods it matches (see ``PERIODS``).
STAGES: tuple[str, ...] = ("DynamoDB unreachable", "Launches failing", "NLB connection errors")
#: The summary's name of the impact period each stage reproduces.
PERIODS: dict[str, str] = {
    "DynamoDB unreachable": "DynamoDB API errors",
    "Launches failing": "EC2 launch failures",
    "NLB connection errors": "NLB connection errors",
}
CLIENT_VIEW: dict[str, str] = {
    "DynamoDB unreachable": "resolvers answer the regional endpoint with no records: new connections to "
    "DynamoDB fail until each cache refetches",
    "Launches failing": "RunInstances fails with insufficient capacity while droplets lack leases, then "
    "instances launch without network connectivity (or are refused by admission control)",
    "NLB connection errors": "connections through affected NLBs fail while flapping health checks and AZ "
    "failover take healthy capacity out of DNS",
}
EVENT_KINDS: tuple[str, ...] = ("stage_started", "stage_ended", "milestone", "operator_action")
_MODELS = ("race", "dns", "dwfm", "network", "nlb")


@dataclass(frozen=True)
class Runs:
    """The model results one chain run is built from (``None`` where a model had nothing to do)."""

    race: race.RaceResult
    dns: dns_cache.DnsCacheResult | None
    dwfm: dwfm.DwfmResult
    network: network.NetworkResult | None
    nlb: nlb.NlbResult | None


@dataclass(frozen=True)
class ChainTimes:
    """What one chain run hands from model to model: key moments and quantities, chain clock.

    Times are seconds since 11:48 PM PDT (the network and NLB models count from ``leases_back_s``
    and are shifted onto this clock); ``None`` where it did not happen or was not reached.

    Attributes:
        outage: (first empty, last restored) of DynamoDB's regional endpoint, or ``None``.
        truncated: a stage was still going at the end of a model's horizon (with operators at fixed
            times: also EC2 not recovered by their horizon).
        dwfm_operator_at_s: when DWFM's operators first acted (rule A, or their first throttle or
            restart), or ``None`` if they had nothing to do before the leases were back.
        leases_back_s: when DWFM had leases on every droplet again (it may be after an operated
            run's horizon: then no network or NLB run follows).
        unleased_droplet_h: droplet-hours without a lease (what Network Manager's backlog scales with).
        backlog_count, retry_launches_count: what DWFM's damage handed Network Manager.
        first_late_config_s, propagation_normal_s: the first new instance configured late, and
            propagation normal again.
        last_refused_s: end of the sample of the last launch refused by admission control (the
            network run's end if its shedding is never relaxed).
        ec2_recovered_s: EC2 recovered (rule C, or the operators' throttles unwound), or ``None``
            (a throttle never relaxed; propagation never normal in the run).
        first_failover_s, failover_disabled_s, failover_reenabled_s: the first AZ failover, and when
            the operators' disable and re-enable took effect in the NLB run (``None``: not in it).
    """

    outage: tuple[float, float] | None
    truncated: bool = False
    dwfm_operator_at_s: float | None = None
    leases_back_s: float | None = None
    unleased_droplet_h: float = 0.0
    backlog_count: int = 0
    retry_launches_count: int = 0
    first_late_config_s: float | None = None
    propagation_normal_s: float | None = None
    last_refused_s: float | None = None
    ec2_recovered_s: float | None = None
    first_failover_s: float | None = None
    failover_disabled_s: float | None = None
    failover_reenabled_s: float | None = None


def _seeds(seed: int | None) -> dict[str, dict[str, Any]]:
    """Per-model seed overrides: none, or one draw each from one ``random.Random(seed)``.

    The race keeps its own seed: it decides whether the rare interleaving happens at all, and the
    chain studies what follows from it."""
    out: dict[str, dict[str, int]] = {m: {} for m in _MODELS}
    if seed is not None:
        rng = random.Random(seed)
        out.update({m: {"seed": rng.randrange(2**31)} for m in _MODELS if m != "race"})
    return out


def _outage(cfg: ChainConfig, rr: race.RaceResult, horizon_s: float | None) -> tuple[float, float] | None:
    """DynamoDB's regional endpoint empty, on the chain clock: (first empty, last restored), cut at ``horizon_s``."""
    w = rr.empty_windows()
    w = w[w["endpoint"] == rr.config.regional_endpoint]
    alerts = rr.events.loc[rr.events["action"] == "alert", "time_s"]
    moments = [float(w["start_s"].min())] if len(w) else []
    moments += [float(alerts.min())] if len(alerts) else []
    if moments and min(moments) < cfg.race_lead_s:
        first = min(moments)
        raise ConfigError(
            f"race_lead_s={cfg.race_lead_s:g} puts the race's first empty record (or the alert that refused it), "
            f"{first:g} s into the race run, {cfg.race_lead_s - first:g} s before the chain's t = 0 (11:48 PM); "
            f"the chain cannot place an outage before t = 0, so race_lead_s must be at most {first:g} for this race"
        )
    if not len(w):
        return None
    start = float(w["start_s"].min()) - cfg.race_lead_s
    end = float(w["end_s"].max()) - cfg.race_lead_s
    if horizon_s is not None:
        end = min(end, horizon_s)
    return (start, end) if end > start else None


def run_models(cfg: ChainConfig, operators: Operators = RULES) -> tuple[Runs, ChainTimes]:
    """The chain's one pipeline: the five models in order, each set up from the runs before it and the operators.

    Before each model the ``operators`` (:class:`~labsupport.chain.config.Operators`: rules A-C by
    default, or :class:`~labsupport.chain.config.OperatorActions`) say what they do, on the chain
    clock; each time reaches the network and NLB runs through a :class:`labsupport.clock.Shift` from
    the moment DWFM had every lease back. A run whose leases are not back within its horizon stops
    after DWFM (``truncated``), with no network or NLB run.

    Returns:
        The model results and the chain clock's key times (:class:`ChainTimes`).

    Raises:
        ConfigError, LimitExceeded: as :func:`labsupport.chain.run`.
    """
    seeds = _seeds(cfg.seed)
    horizon = operators.run_horizon_s(cfg)
    rr = _run_race(cfg, operators, seeds["race"])
    out = _outage(cfg, rr, horizon)
    t = ChainTimes(outage=out)
    dns = _run_dns(cfg, out, seeds["dns"])
    dw, t = _run_dwfm(cfg, operators, horizon, t, seeds["dwfm"])
    back = t.leases_back_s
    if back is None or (horizon is not None and back >= horizon):
        return Runs(rr, dns, dw, None, None), replace(t, truncated=True)
    net, nr, t = _run_network(cfg, operators, horizon, dw, back, t, seeds["network"])
    n, t = _run_nlb(cfg, operators, net, back, t, seeds["nlb"])
    return Runs(rr, dns, dw, nr, n), t


def _run_race(cfg: ChainConfig, operators: Operators, seed: dict[str, Any]) -> race.RaceResult:
    """The race with the stop points' guards; the operators' manual repair, if any, within a long enough run."""
    rc = replace(cfg.race, guards=cfg.stop_points.guards, **seed)
    repair = operators.dns_repair_s(cfg)
    if repair is not None:
        horizon = max(rc.horizon_s, cfg.race_lead_s + repair + 600.0)
        rc = replace(rc, manual_repair_after_s=repair, horizon_s=horizon)
    rr = cached_run(race.run, rc)
    if (rr.empty_windows()["repaired_by"] == "still empty").any():
        raise LimitExceeded(
            f"an endpoint was still empty at the race's horizon (race.horizon_s="
            f"{rc.horizon_s:g}); lengthen it so that the chain knows when DNS came back"
        )
    return rr


def _run_dns(cfg: ChainConfig, out: tuple[float, float] | None, seed: dict[str, Any]) -> Any:
    """The DNS caches over the regional endpoint's empty window ``out`` (None: no window, no run)."""
    if out is None:
        return None
    aftermath = cfg.dns.horizon_s - cfg.dns.restored_s
    return cached_run(
        dns_cache.run,
        replace(cfg.dns, empty_start_s=out[0], empty_duration_s=out[1] - out[0], horizon_s=out[1] + aftermath, **seed),
    )


def _run_dwfm(
    cfg: ChainConfig, operators: Operators, horizon: float | None, t: ChainTimes, seed: dict[str, Any]
) -> tuple[dwfm.DwfmResult, ChainTimes]:
    """DWFM through the outage, with the operators' throttle and restart (rule A: a delay after the restore)."""
    base, out = cfg.dwfm, t.outage
    start, end = out if out is not None else (0.0, 0.0)
    throttle_at, restart_at = operators.dwfm_s(cfg, None if out is None else end)
    fields: dict[str, Any] = dict(
        outage_start_s=start,
        outage_end_s=end,
        throttle_by_queue_length=cfg.stop_points.throttle_recovery_work or base.throttle_by_queue_length,
        operator_throttle_at_s=throttle_at,
        operator_restart_at_s=restart_at,
        **seed,
    )
    if horizon is not None:
        fields["horizon_s"] = max(base.horizon_s, horizon + base.report_interval_s)
    dw = cached_run(dwfm.run, replace(base, **fields))
    back = dw.summary.recovered_at_s
    acts = [a for a in (throttle_at, restart_at) if a is not None]
    acted = min(acts) if acts and (back is None or back > min(acts)) else None
    return dw, replace(t, dwfm_operator_at_s=acted, leases_back_s=back)


def _damage(dw: dwfm.DwfmResult, back: float) -> tuple[float, int]:
    """DWFM's damage as Network Manager inherits it when the last lease is back: droplet-hours without a
    lease and launches refused, read up to the end of the report interval in which ``back`` falls."""
    ts = dw.timeseries
    ts = ts.iloc[: int(np.searchsorted(ts["time_s"].to_numpy(), back, side="left")) + 1]
    missing = (dw.config.fleet_droplets_count - ts["leased_count"]).to_numpy(dtype=float)
    unleased_h = float(((missing[1:] + missing[:-1]) / 2 * np.diff(ts["time_s"].to_numpy())).sum() / 3600)
    return unleased_h, int(ts["insufficient_capacity_count"].sum())


def _window(shift: Shift, start: float | None, end: float | None) -> tuple[float | None, float | None]:
    """An operators' window [start, end) on the chain clock, on a run's clock: (None, None) if it never
    covers a moment of the run (not begun by its horizon, over before its start, or empty)."""
    at = shift.into(start)
    if at is None:
        return (None, None)
    until = shift.into(end)
    if end is not None and until is not None and until <= at:
        return (None, None)
    return (at, until)


def _run_network(
    cfg: ChainConfig,
    operators: Operators,
    horizon: float | None,
    dw: dwfm.DwfmResult,
    back: float,
    t: ChainTimes,
    seed: dict[str, Any],
) -> tuple[network.NetworkConfig, network.NetworkResult, ChainTimes]:
    """Network Manager from ``back``, the last lease: backlog and retries scale with DWFM's damage
    (calibrated); the operators' shedding; EC2 recovered (rule C, or the unwound throttles)."""
    base = cfg.nlb.network
    unleased_h, refused_launches = _damage(dw, back)
    shift = Shift(back, base.horizon_s if horizon is None else max(base.horizon_s, horizon - back))
    fields: dict[str, Any] = dict(
        drain_start_s=0.0,
        horizon_s=shift.horizon_s,
        backlog_count=_network_count(
            cfg, "backlog_per_unleased_droplet_hour", unleased_h, "droplet-hours without a lease", "backlog_count"
        ),
        retry_launches_count=_network_count(
            cfg, "retry_launches_per_refused_launch", refused_launches, "launches refused", "retry_launches_count"
        ),
        max_queue_count=cfg.network_queue_limit_count
        if cfg.stop_points.throttle_recovery_work
        else base.max_queue_count,
        **seed,
    )
    shedding = operators.shedding_s(cfg)
    if shedding is not None:
        fields["shed_load_at_s"], fields["shed_load_until_s"] = _window(shift, *shedding)
    net = replace(base, **fields)
    nr = cached_run(network.run, net)
    s = nr.summary
    refused = nr.items.loc[nr.items["is_launch"] & nr.items["refused"], "queued_s"]
    step = net.sample_interval_s
    last_refused = None if not len(refused) else back + step * float(np.ceil(refused.max() / step))
    if last_refused is not None and net.shed_load_at_s is not None and net.shed_load_until_s is None:
        last_refused = back + net.horizon_s  # shedding never relaxed: launches are refused to the run's end
    normal = shift.out_of(s.propagation_normal_s)
    ec2 = operators.ec2_recovered_s(cfg, normal, back + net.horizon_s, t.dwfm_operator_at_s is not None)
    late = normal is None or (horizon is not None and (ec2 is None or ec2 > horizon))
    return (
        net,
        nr,
        replace(
            t,
            unleased_droplet_h=unleased_h,
            backlog_count=net.backlog_count,
            retry_launches_count=net.retry_launches_count,
            first_late_config_s=shift.out_of(s.first_late_config_s),
            propagation_normal_s=normal,
            last_refused_s=last_refused,
            ec2_recovered_s=ec2,
            truncated=t.truncated or late,
        ),
    )


def _network_count(cfg: ChainConfig, factor: str, damage: float, what: str, target: str) -> int:
    """``damage`` times the chain's ``factor``, checked against the network model's limits.

    Raises ConfigError (LimitExceeded for ``nlb.network.max_events``) naming the chain field and what
    it produced, rather than letting the network config fail on a field the user never set.
    """
    per, max_events = getattr(cfg, factor), cfg.nlb.network.max_events
    count = round(damage * per)
    limits = (
        (network.MAX_ITEMS, f"the network model's limit of {network.MAX_ITEMS:,}", ConfigError),
        (max_events, f"nlb.network.max_events={max_events:,}", LimitExceeded),
    )
    for limit, bound, error in limits:
        if count > limit:
            raise error(
                f"{factor}={per:g} turns DWFM's {damage:,.0f} {what} into {target}={count:,} for Network "
                f"Manager, more than {bound}; lower {factor} to at most {_floor4(limit / damage):.4g}"
            )
    return count


def _floor4(x: float) -> float:
    """``x`` rounded down to four significant digits (a bound that stays a bound when printed)."""
    step = 10.0 ** (math.floor(math.log10(x)) - 3)
    return math.floor(x / step) * step


def _run_nlb(
    cfg: ChainConfig, operators: Operators, net: network.NetworkConfig, back: float, t: ChainTimes, seed: dict
) -> tuple[nlb.NlbResult, ChainTimes]:
    """The NLB with the operators' failover window; run again if, once they see its first AZ failover, they
    change their minds (rule B: disable a delay after it)."""
    shift = Shift(back, net.horizon_s)
    base = cfg.nlb

    def run_with(window: tuple[float | None, float | None]) -> tuple[nlb.NlbResult, tuple[float | None, float | None]]:
        off, on = _window(shift, *window)
        limit = cfg.stop_points.throttle_recovery_work or base.limit_capacity_removal
        config = replace(
            base,
            network=net,
            disable_failover_at_s=off,
            reenable_failover_at_s=on,
            limit_capacity_removal=limit,
            **seed,
        )
        return cached_run(nlb.run, config), (off, on)

    asked = operators.failover_s(cfg, None, t.ec2_recovered_s)
    n, applied = run_with(asked)
    first = shift.out_of(n.summary.first_failover_s)
    again = operators.failover_s(cfg, first, t.ec2_recovered_s)
    if again != asked:
        n, applied = run_with(again)
        asked = again
    # The operators' times as they took them, from the NLB run's start (the run applies those within
    # its horizon); none if the window closed before the run began.
    off, on = (None, None) if applied[0] is None else (max(back, asked[0] or 0.0), asked[1])
    return n, replace(
        t, first_failover_s=first, failover_disabled_s=off, failover_reenabled_s=None if on is None else max(back, on)
    )


def _binned_max(time_s: pd.Series, values: pd.Series, step: float) -> pd.DataFrame:
    bins = np.ceil(time_s.to_numpy() / step) * step
    frame = pd.DataFrame({"time_s": bins, "impact_fraction": values.to_numpy(dtype=float)})
    return cast(pd.DataFrame, frame.groupby("time_s", as_index=False)["impact_fraction"].max())


def stage_windows(cfg: ChainConfig, runs: Runs, t: ChainTimes) -> list[tuple[str, float, float]]:
    """The stages that happened, as ``(stage, start_s, end_s)`` on the chain clock.

    DynamoDB unreachable: the endpoint's empty window until 99 % of clients resolve it again.
    Launches failing: from DNS restored (or, with no outage, the first launch that failed) to the
    last lease, propagation normal and the last refused launch; to the last lease (or DWFM's
    horizon) if the leases are not back within the run. NLB connection errors: the NLB's error
    period, to failover re-enabled at the latest.
    """
    stages: list[tuple[str, float, float]] = []
    out = t.outage
    if out is not None and runs.dns is not None:
        dns = runs.dns.summary
        after = dns.recovery_most_s
        if after is None:
            after = runs.dns.config.horizon_s - out[1] if dns.failed_count else 0.0
        stages.append((STAGES[0], out[0], out[1] + after))
    launches = _launch_window(runs, t)
    if launches is not None:
        stages.append((STAGES[1], *launches))
    back = t.leases_back_s
    if runs.nlb is not None and back is not None:
        s = runs.nlb.summary
        if s.error_start_s is not None and s.error_end_s is not None:
            end = back + s.error_end_s + runs.nlb.config.sample_interval_s
            if t.failover_reenabled_s is not None:
                end = max(end, t.failover_reenabled_s)
            stages.append((STAGES[2], back + s.error_start_s, end))
    return stages


def _launch_window(runs: Runs, t: ChainTimes) -> tuple[float, float] | None:
    """The launches stage's (start, end), or ``None`` if no launch failed."""
    out, back, dw = t.outage, t.leases_back_s, runs.dwfm
    if runs.network is None:  # the leases are not back within the run: failing to its end
        if out is None:
            return None
        return (out[1], dw.config.horizon_s if back is None else back)
    ends = [v for v in (back, t.propagation_normal_s, t.last_refused_s) if v is not None]
    if out is not None:
        return (out[1], max(ends)) if max(ends) > out[1] else None
    # No outage: launches fail only if DWFM refuses some or Network Manager refuses or delays some.
    refusing = dw.timeseries.loc[dw.timeseries["insufficient_capacity_count"] > 0, "time_s"]
    shares = _launch_failures(runs.network, back or 0.0)
    bad = shares.loc[shares["impact_fraction"] > 0, "time_s"]
    starts = [*(refusing - dw.config.report_interval_s), *(bad - 60.0)]
    if not starts:
        return None
    return (max(0.0, float(min(starts))), float(max([*ends, *refusing, *bad])))


def impact_rows(runs: Runs, t: ChainTimes, stages: list[tuple[str, float, float]]) -> pd.DataFrame:
    """Client-visible impact over time, per stage: one row per sample inside the stage's window."""
    parts = []
    windows = {name: (a, b) for name, a, b in stages}
    if STAGES[0] in windows and runs.dns is not None:
        ts = runs.dns.timeseries
        parts.append(_binned_max(ts["time_s"], ts["failing_fraction"], 60.0).assign(stage=STAGES[0], interval_s=60.0))
    if STAGES[1] in windows:
        ts, back = runs.dwfm.timeseries, np.inf if t.leases_back_s is None else t.leases_back_s
        rows = ts[(ts["time_s"] <= back) & (ts["launch_attempts_count"] > 0)]
        frac = rows["insufficient_capacity_count"] / rows["launch_attempts_count"]
        parts.append(
            pd.DataFrame(
                {
                    "time_s": rows["time_s"],
                    "impact_fraction": frac,
                    "stage": STAGES[1],
                    "interval_s": runs.dwfm.config.report_interval_s,
                }
            )
        )
        if runs.network is not None:
            parts.append(_launch_failures(runs.network, back).assign(stage=STAGES[1], interval_s=60.0))
    if STAGES[2] in windows and runs.nlb is not None and t.leases_back_s is not None:
        ts = runs.nlb.timeseries
        parts.append(
            pd.DataFrame(
                {
                    "time_s": ts["time_s"] + t.leases_back_s,
                    "impact_fraction": ts["error_fraction"],
                    "stage": STAGES[2],
                    "interval_s": runs.nlb.config.sample_interval_s,
                }
            )
        )
    if not parts:
        return pd.DataFrame(
            {
                "time_s": pd.Series(dtype="float64"),
                "stage": pd.Categorical([], categories=STAGES),
                "impact_fraction": pd.Series(dtype="float64"),
                "interval_s": pd.Series(dtype="float64"),
            }
        )
    frame = pd.concat(parts, ignore_index=True)
    keep = np.zeros(len(frame), dtype=bool)
    for name, (a, b) in windows.items():
        keep |= (
            (frame["stage"] == name).to_numpy() & (frame["time_s"] > a).to_numpy() & (frame["time_s"] <= b).to_numpy()
        )
    frame = frame[keep].astype({"time_s": "float64", "impact_fraction": "float64", "interval_s": "float64"})
    frame["stage"] = pd.Categorical(frame["stage"], categories=list(STAGES))
    return frame.sort_values(["stage", "time_s"], kind="stable")[
        ["time_s", "stage", "impact_fraction", "interval_s"]
    ].reset_index(drop=True)


def _launch_failures(nr: network.NetworkResult, back: float) -> pd.DataFrame:
    """Per minute: share of launches refused, or whose network state came later than normal."""
    cfg, items = nr.config, nr.items
    launches = items[items["is_launch"]]
    waiting = launches["propagated_s"].isna() & (cfg.horizon_s - launches["queued_s"] > cfg.normal_delay_s)
    bad = launches["refused"] | (launches["delay_s"] > cfg.normal_delay_s) | waiting
    frame = pd.DataFrame({"bin": np.ceil(launches["queued_s"].to_numpy() / 60.0), "bad": bad.to_numpy(dtype=float)})
    share = frame.groupby("bin", as_index=False)["bad"].mean()
    return pd.DataFrame({"time_s": share["bin"] * 60.0 + back, "impact_fraction": share["bad"]})


def milestones(
    cfg: ChainConfig, runs: Runs, t: ChainTimes, stages: list[tuple[str, float, float]], *, ruled: bool = True
) -> pd.DataFrame:
    """Key moments on the chain clock: ``time_s``, ``milestone``, ``source`` (model, rule, or ``"operators"``).

    Moments after DNS is restored are listed only if the launches stage happened. ``ruled``: the
    operators followed rules A-C (their moments name the rule); else they acted at fixed times."""
    rows, out = [], t.outage
    later = any(name == STAGES[1] for name, _, _ in stages)
    alerts = runs.race.events.loc[runs.race.events["action"] == "alert", "time_s"]
    if len(alerts):
        rows.append((float(alerts.min()) - cfg.race_lead_s, "guard 3 refuses an empty change and alerts", "race"))
    if out is not None:
        rows.append((out[0], "regional endpoint answers empty", "race"))
        how = runs.race.empty_windows()["repaired_by"].iloc[-1]
        rows.append((out[1], f"DNS record restored ({how})", "race"))
        if runs.dns is not None and runs.dns.summary.recovery_most_s is not None:
            rows.append((out[1] + runs.dns.summary.recovery_most_s, "99 % of clients resolve it again", "dns_cache"))
    rule = (lambda name: f"operator rule {name}") if ruled else (lambda name: "operators")
    labels = [
        (t.dwfm_operator_at_s, "operators throttle work and restart DWFM hosts", rule("A")),
        (t.leases_back_s, "DWFM has leases on all droplets", "dwfm"),
        (t.first_late_config_s, "first new instance gets its network state late", "network"),
        (t.propagation_normal_s, "network propagation normal again", "network"),
        (t.first_failover_s, "first AZ failover (detected)", "nlb"),
        (t.failover_disabled_s, "operators disable automatic AZ failover", rule("B")),
        (t.ec2_recovered_s, "EC2 recovered", "network" if t.dwfm_operator_at_s is None else rule("C")),
        (t.failover_reenabled_s, "operators re-enable automatic AZ failover", rule("C")),
    ]
    for at, text, source in labels:
        if later and at is not None:
            rows.append((float(at), text, source))
    frame = pd.DataFrame(rows, columns=["time_s", "milestone", "source"])
    frame = frame.astype({"time_s": "float64", "milestone": "string", "source": "string"})
    return frame.sort_values("time_s", kind="stable").reset_index(drop=True)
