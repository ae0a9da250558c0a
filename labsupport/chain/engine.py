"""The chain's engine: runs the models behind :mod:`labsupport.chain` and reads the stages off them.

:func:`run_models` runs race, dns_cache, dwfm, network and nlb in that order, each configured from
the results of the ones before and from the chain's operator rules; :func:`stage_windows`,
:func:`impact_rows` and :func:`milestones` turn the results into the chain's stage, impact and
milestone tables. Times are seconds since
11:48 PM PDT on 19 Oct (the chain clock); the network and NLB models count from the moment DWFM
has leases on every droplet, and the race model from ``race_lead_s`` before 11:48 PM.

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
from ..errors import ConfigError, LimitExceeded
from .config import ChainConfig, OperatorActions

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
        truncated: a stage was still going at the end of a model's horizon.
        dwfm_operator_at_s: when DWFM's operators acted (rule A), or ``None`` if they had nothing to do.
        leases_back_s: when DWFM had leases on every droplet again.
        unleased_droplet_h: droplet-hours without a lease (what Network Manager's backlog scales with).
        backlog_count, retry_launches_count: what DWFM's damage handed Network Manager.
        first_late_config_s, propagation_normal_s: the first new instance configured late, and
            propagation normal again.
        last_refused_s: end of the sample of the last launch refused by admission control.
        ec2_recovered_s: EC2 recovered (rule C).
        first_failover_s, failover_disabled_s, failover_reenabled_s: the first AZ failover, and the
            operators' rules B and C on automatic failover.
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


def _outage(cfg: ChainConfig, rr: race.RaceResult) -> tuple[float, float] | None:
    """DynamoDB's regional endpoint empty, on the chain clock: (first empty, last restored)."""
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
    return (start, end) if end > start else None


def _run_dns(cfg: ChainConfig, out: tuple[float, float] | None, seed: dict[str, Any]) -> Any:
    """The DNS caches over the regional endpoint's empty window ``out`` (None: no window, no run)."""
    if out is None:
        return None
    aftermath = cfg.dns.horizon_s - cfg.dns.restored_s
    return cached_run(
        dns_cache.run,
        replace(cfg.dns, empty_start_s=out[0], empty_duration_s=out[1] - out[0], horizon_s=out[1] + aftermath, **seed),
    )


def run_models(cfg: ChainConfig) -> tuple[Runs, ChainTimes]:
    """Run the five models in order; return their results and the chain clock's key times."""
    sp, seeds = cfg.stop_points, _seeds(cfg.seed)
    rr = cached_run(race.run, replace(cfg.race, guards=sp.guards, **seeds["race"]))
    if (rr.empty_windows()["repaired_by"] == "still empty").any():
        raise LimitExceeded(
            f"an endpoint was still empty at the race's horizon (race.horizon_s="
            f"{cfg.race.horizon_s:g}); lengthen it so that the chain knows when DNS came back"
        )
    out = _outage(cfg, rr)
    t = ChainTimes(outage=out)
    dns = _run_dns(cfg, out, seeds["dns"])
    dw, t = _run_dwfm(cfg, out, t, seeds["dwfm"])
    if t.leases_back_s is None:
        return Runs(rr, dns, dw, None, None), replace(t, truncated=True)
    net, nr, t = _run_network(cfg, dw, t, seeds["network"])
    n, t = _run_nlb(cfg, net, t, seeds["nlb"])
    return Runs(rr, dns, dw, nr, n), t


def run_operated(cfg: ChainConfig, ops: OperatorActions) -> tuple[Runs, ChainTimes]:
    """Run the five models with the operators' actions at fixed times instead of rules A, B and C.

    DNS is repaired by hand at ``ops.dns_repair_at_s`` (never: the record stays empty until
    ``ops.horizon_s``); DWFM, Network Manager and the NLB take the actions at their times, shifted
    onto each model's clock (an action before a model's start is in force from its start, one
    after its horizon never happens). Horizons are stretched to cover ``ops.horizon_s``.
    """
    sp, horizon = cfg.stop_points, ops.horizon_s
    seeds: dict[str, dict[str, Any]] = dict(_seeds(cfg.seed))
    repair = horizon if ops.dns_repair_at_s is None else ops.dns_repair_at_s
    rc = replace(
        cfg.race,
        guards=sp.guards,
        manual_repair_after_s=repair,
        horizon_s=max(cfg.race.horizon_s, cfg.race_lead_s + repair + 600.0),
        **seeds["race"],
    )
    rr = cached_run(race.run, rc)
    out = _outage(cfg, rr)
    if out is not None:
        out = (out[0], min(out[1], horizon))
    t = ChainTimes(outage=out)
    dns = _run_dns(cfg, out, seeds["dns"])
    start, end = out if out is not None else (0.0, 0.0)
    dw_horizon = max(cfg.dwfm.horizon_s, horizon + cfg.dwfm.report_interval_s)
    dw_cfg = replace(
        cfg.dwfm,
        outage_start_s=start,
        outage_end_s=end,
        horizon_s=dw_horizon,
        throttle_by_queue_length=sp.throttle_recovery_work or cfg.dwfm.throttle_by_queue_length,
        operator_throttle_at_s=ops.ec2_throttle_at_s,
        operator_restart_at_s=ops.dwfm_restart_at_s,
        **seeds["dwfm"],
    )
    dw = cached_run(dwfm.run, dw_cfg)
    back = dw.summary.recovered_at_s
    acts = [a for a in (ops.ec2_throttle_at_s, ops.dwfm_restart_at_s) if a is not None]
    acted = min(acts) if acts and (back is None or back > min(acts)) else None
    t = replace(t, dwfm_operator_at_s=acted, leases_back_s=back)
    if back is None or back >= horizon:
        return Runs(rr, dns, dw, None, None), replace(t, leases_back_s=back, truncated=True)
    base = cfg.nlb.network
    net_horizon = max(base.horizon_s, horizon - back)
    throttled = ops.throttled_at_s()
    relaxed = ops.throttles_relaxed_at_s
    relaxed = relaxed if relaxed is not None and throttled is not None and relaxed >= throttled else None
    shed_at = shed_until = None
    if ops.network_throttle_at_s is not None and ops.network_throttle_at_s - back <= net_horizon:
        shed_at = max(0.0, ops.network_throttle_at_s - back)
        if relaxed is not None and relaxed > ops.network_throttle_at_s:
            until = relaxed - back
            shed_at, shed_until = (None, None) if until <= 0 else (shed_at, min(until, net_horizon))
            if shed_at is not None and shed_until <= shed_at:
                shed_at = shed_until = None
    wide = replace(
        cfg,
        nlb=replace(
            cfg.nlb, network=replace(base, horizon_s=net_horizon, shed_load_at_s=shed_at, shed_load_until_s=shed_until)
        ),
    )
    net, nr, t = _run_network(wide, dw, t, seeds["network"])
    normal = t.propagation_normal_s
    ec2: float | None = normal
    if throttled is not None:
        ec2 = None if relaxed is None or normal is None else max(normal, relaxed) + ops.unwind_s
    t = replace(t, ec2_recovered_s=ec2, truncated=t.truncated or ec2 is None or ec2 > horizon)
    off = ops.failover_disabled_at_s
    on = (
        ops.failover_reenabled_at_s
        if off is not None and ops.failover_reenabled_at_s is not None and ops.failover_reenabled_at_s > off
        else None
    )

    def shift(at: float | None) -> float | None:
        return None if at is None or at - back > net.horizon_s else max(0.0, at - back)

    n_off, n_on = shift(off), shift(on)
    if n_off is not None and n_on is not None and n_on <= n_off:
        n_on = None
    n = cached_run(
        nlb.run,
        replace(
            cfg.nlb,
            network=net,
            disable_failover_at_s=n_off,
            reenable_failover_at_s=n_on,
            limit_capacity_removal=sp.throttle_recovery_work or cfg.nlb.limit_capacity_removal,
            **seeds["nlb"],
        ),
    )
    ff = n.summary.first_failover_s
    t = replace(
        t,
        first_failover_s=None if ff is None else back + ff,
        failover_disabled_s=None if n_off is None or off is None else max(off, back),
        failover_reenabled_s=None if n_on is None or on is None else max(on, back),
    )
    return Runs(rr, dns, dw, nr, n), t


def _run_dwfm(
    cfg: ChainConfig, out: tuple[float, float] | None, t: ChainTimes, seed: dict
) -> tuple[dwfm.DwfmResult, ChainTimes]:
    """DWFM through the outage; operator rule A: act ``dwfm_operator_delay_s`` after the restore."""
    base = cfg.dwfm
    start, end = out if out is not None else (0.0, 0.0)
    op = end + cfg.dwfm_operator_delay_s if out is not None else None
    dw_cfg = replace(
        base,
        outage_start_s=start,
        outage_end_s=end,
        throttle_by_queue_length=cfg.stop_points.throttle_recovery_work or base.throttle_by_queue_length,
        operator_throttle_at_s=None if base.operator_throttle_at_s is None else op,
        operator_restart_at_s=None if base.operator_restart_at_s is None else op,
        **seed,
    )
    dw = cached_run(dwfm.run, dw_cfg)
    back = dw.summary.recovered_at_s
    acted = op is not None and (base.operator_throttle_at_s is not None or base.operator_restart_at_s is not None)
    acted = acted and op is not None and (back is None or back > op)
    return dw, replace(t, dwfm_operator_at_s=op if acted else None, leases_back_s=back)


def _run_network(
    cfg: ChainConfig, dw: dwfm.DwfmResult, t: ChainTimes, seed: dict
) -> tuple[network.NetworkConfig, network.NetworkResult, ChainTimes]:
    """Network Manager from the last lease: backlog and retries scale with DWFM's damage (calibrated)."""
    ts, fleet = dw.timeseries, dw.config.fleet_droplets_count
    missing = (fleet - ts["leased_count"]).to_numpy(dtype=float)
    unleased_h = float(((missing[1:] + missing[:-1]) / 2 * np.diff(ts["time_s"].to_numpy())).sum() / 3600)
    base = cfg.nlb.network
    refused_launches = dw.summary.insufficient_capacity_count
    backlog = _network_count(
        cfg,
        "backlog_per_unleased_droplet_hour",
        unleased_h,
        "droplet-hours without a lease",
        "backlog_count",
        base.max_events,
    )
    retries = _network_count(
        cfg,
        "retry_launches_per_refused_launch",
        refused_launches,
        "launches refused",
        "retry_launches_count",
        base.max_events,
    )
    net = replace(
        base,
        drain_start_s=0.0,
        backlog_count=backlog,
        retry_launches_count=retries,
        max_queue_count=cfg.network_queue_limit_count
        if cfg.stop_points.throttle_recovery_work
        else base.max_queue_count,
        **seed,
    )
    nr = cached_run(network.run, net)
    back, s = t.leases_back_s, nr.summary
    assert back is not None  # the network runs only once every lease is back (run_models)
    items = nr.items
    refused = items.loc[items["is_launch"] & items["refused"], "queued_s"]
    step = net.sample_interval_s
    normal = s.propagation_normal_s
    manual = t.dwfm_operator_at_s is not None or not cfg.relax_only_after_manual_throttle
    relax = cfg.ec2_throttle_relax_s if manual else 0.0
    ec2 = (net.horizon_s if normal is None else normal) + relax
    return (
        net,
        nr,
        replace(
            t,
            unleased_droplet_h=unleased_h,
            backlog_count=net.backlog_count,
            retry_launches_count=net.retry_launches_count,
            first_late_config_s=None if s.first_late_config_s is None else back + s.first_late_config_s,
            propagation_normal_s=None if normal is None else back + normal,
            last_refused_s=None if not len(refused) else back + step * np.ceil(refused.max() / step),
            ec2_recovered_s=back + ec2,
            truncated=t.truncated or normal is None,
        ),
    )


def _network_count(cfg: ChainConfig, factor: str, damage: float, what: str, target: str, max_events: int) -> int:
    """``damage`` times the chain's ``factor``, checked against the network model's limits.

    Raises ConfigError (LimitExceeded for ``nlb.network.max_events``) naming the chain field and what
    it produced, rather than letting the network config fail on a field the user never set.
    """
    per = getattr(cfg, factor)
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
    cfg: ChainConfig, net: network.NetworkConfig, t: ChainTimes, seed: dict
) -> tuple[nlb.NlbResult, ChainTimes]:
    """The NLB, twice if needed: rule B (disable failover) needs the first failover of a run without it."""
    base = cfg.nlb
    first = replace(
        base,
        network=net,
        disable_failover_at_s=None,
        reenable_failover_at_s=None,
        limit_capacity_removal=cfg.stop_points.throttle_recovery_work or base.limit_capacity_removal,
        **seed,
    )
    n = cached_run(nlb.run, first)
    back, ff = t.leases_back_s, n.summary.first_failover_s
    ec2_recovered_s = t.ec2_recovered_s
    assert back is not None and ec2_recovered_s is not None  # set by _run_dwfm and _run_network
    t = replace(t, first_failover_s=None if ff is None else back + ff)
    if base.disable_failover_at_s is None or ff is None or back + ff + cfg.nlb_disable_delay_s >= ec2_recovered_s:
        return n, t
    off = ff + cfg.nlb_disable_delay_s
    on = None
    if base.reenable_failover_at_s is not None:
        on = max(off, ec2_recovered_s - back + cfg.nlb_reenable_delay_s)
    t = replace(t, failover_disabled_s=back + off, failover_reenabled_s=None if on is None else back + on)
    horizon = net.horizon_s
    return cached_run(
        nlb.run,
        replace(
            first,
            disable_failover_at_s=off if off <= horizon else None,
            reenable_failover_at_s=on if on is not None and on <= horizon else None,
        ),
    ), t


def _binned_max(time_s: pd.Series, values: pd.Series, step: float) -> pd.DataFrame:
    bins = np.ceil(time_s.to_numpy() / step) * step
    frame = pd.DataFrame({"time_s": bins, "impact_fraction": values.to_numpy(dtype=float)})
    return cast(pd.DataFrame, frame.groupby("time_s", as_index=False)["impact_fraction"].max())


def stage_windows(cfg: ChainConfig, runs: Runs, t: ChainTimes) -> list[tuple[str, float, float]]:
    """The stages that happened, as ``(stage, start_s, end_s)`` on the chain clock."""
    out, stages = t.outage, cast(list[tuple[str, float, float]], [])
    if out is None:
        return stages
    assert runs.dns is not None  # the resolvers run whenever the endpoint went empty (run_models)
    dns = runs.dns.summary
    after = (
        dns.recovery_most_s
        if dns.recovery_most_s is not None
        else (runs.dns.config.horizon_s - out[1] if dns.failed_count else 0.0)
    )
    stages.append((STAGES[0], out[0], out[1] + after))
    back = t.leases_back_s
    if back is None:
        stages.append((STAGES[1], out[1], runs.dwfm.config.horizon_s))
        return stages
    ends = [back] + [v for v in (t.propagation_normal_s, t.last_refused_s) if v is not None]
    if max(ends) > out[1]:
        stages.append((STAGES[1], out[1], max(ends)))
    assert runs.nlb is not None  # the NLB runs whenever the leases came back (run_models)
    s = runs.nlb.summary
    if s.error_start_s is not None:
        assert s.error_end_s is not None  # an error period that started has an end
        end = back + s.error_end_s + runs.nlb.config.sample_interval_s
        if t.failover_reenabled_s is not None:
            end = max(end, t.failover_reenabled_s)
        stages.append((STAGES[2], back + s.error_start_s, end))
    return stages


def impact_rows(runs: Runs, t: ChainTimes, stages: list[tuple[str, float, float]]) -> pd.DataFrame:
    """Client-visible impact over time, per stage: one row per sample inside the stage's window."""
    parts = []
    windows = {name: (a, b) for name, a, b in stages}
    if STAGES[0] in windows:
        assert runs.dns is not None  # the DNS stage comes from the resolvers' run
        ts = runs.dns.timeseries
        parts.append(_binned_max(ts["time_s"], ts["failing_fraction"], 60.0).assign(stage=STAGES[0], interval_s=60.0))
    if STAGES[1] in windows:
        assert t.outage is not None  # the launches stage follows the endpoint's empty window
        ts, back = runs.dwfm.timeseries, t.leases_back_s or np.inf
        rows = ts[(ts["time_s"] > t.outage[1]) & (ts["time_s"] <= back) & (ts["launch_attempts_count"] > 0)]
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
    if STAGES[2] in windows:
        assert runs.nlb is not None and t.leases_back_s is not None  # the NLB stage starts once leases are back
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


def milestones(cfg: ChainConfig, runs: Runs, t: ChainTimes, stages: list[tuple[str, float, float]]) -> pd.DataFrame:
    """Key moments on the chain clock: ``time_s``, ``milestone``, ``source`` (model or rule).

    Moments after DNS is restored are listed only if the launches stage happened."""
    rows, out = [], t.outage
    later = any(name == STAGES[1] for name, _, _ in stages)
    alerts = runs.race.events.loc[runs.race.events["action"] == "alert", "time_s"]
    if len(alerts):
        rows.append((float(alerts.min()) - cfg.race_lead_s, "guard 3 refuses an empty change and alerts", "race"))
    if out is not None:
        rows.append((out[0], "regional endpoint answers empty", "race"))
        assert runs.dns is not None  # the resolvers run whenever the endpoint went empty (run_models)
        how = runs.race.empty_windows()["repaired_by"].iloc[-1]
        rows.append((out[1], f"DNS record restored ({how})", "race"))
        if runs.dns.summary.recovery_most_s is not None:
            rows.append((out[1] + runs.dns.summary.recovery_most_s, "99 % of clients resolve it again", "dns_cache"))
    labels = [
        (t.dwfm_operator_at_s, "operators throttle work and restart DWFM hosts", "operator rule A"),
        (t.leases_back_s, "DWFM has leases on all droplets", "dwfm"),
        (t.first_late_config_s, "first new instance gets its network state late", "network"),
        (t.propagation_normal_s, "network propagation normal again", "network"),
        (t.first_failover_s, "first AZ failover (detected)", "nlb"),
        (t.failover_disabled_s, "operators disable automatic AZ failover", "operator rule B"),
        (t.ec2_recovered_s, "EC2 recovered", "network" if t.dwfm_operator_at_s is None else "operator rule C"),
        (t.failover_reenabled_s, "operators re-enable automatic AZ failover", "operator rule C"),
    ]
    for at, text, source in labels:
        if later and at is not None:
            rows.append((float(at), text, source))
    frame = pd.DataFrame(rows, columns=["time_s", "milestone", "source"])
    frame = frame.astype({"time_s": "float64", "milestone": "string", "source": "string"})
    return frame.sort_values("time_s", kind="stable").reset_index(drop=True)
