"""The chain's engine: the one pipeline that runs the models behind :mod:`labsupport.chain`.

:func:`run_models` is the pipeline. It runs race, dns_cache, dwfm, network and nlb in that order,
each configured from the results of the ones before and from the operators, a strategy
(:class:`~labsupport.chain.Operators`: the chain's rules A-C, or the game's actions at fixed
times) asked before each model what they do. What one model hands the next::

    operators.dns_repair_s ------> race ---- empty window (outage) ------> dns_cache
    operators.dwfm_s(restored) --> dwfm <--- outage
                                    |  leases back (back), damage up to back
    operators.shedding_s --------> network (clock: Shift(back, horizon)) -- propagation normal
    operators.ec2_recovered_s(normal) -> EC2 recovered
    operators.failover_s(first failover, EC2 recovered) --> nlb (clock: Shift(back, horizon))

:mod:`labsupport.chain.stages` reads the chain's stage, impact and milestone tables off the results.
Times are seconds since 11:48 PM PDT on 19 Oct (the chain clock); the network and NLB models count
from the moment DWFM has leases on every droplet (each time moves onto their clock through one
:class:`labsupport.clock.Shift`), and the race model from ``race_lead_s`` before 11:48 PM.

Each model run goes through :func:`labsupport._memo.cached_run`: a sub-run whose config was seen
recently (most of them, across the 64 stop-point combinations) is a copy of that run's result.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .. import dns_cache, dwfm, network, nlb, race
from .._memo import cached_run
from ..clock import Shift
from ..errors import ConfigError, LimitExceeded
from .config import ChainConfig
from .operators import RULES, Operators

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

    Before each model the ``operators`` (:class:`~labsupport.chain.Operators`: rules A-C by
    default, or :class:`~labsupport.chain.OperatorActions`) say what they do, on the chain
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
    throttle_at, throttle_until, restart_at = operators.dwfm_s(cfg, None if out is None else end)
    fields: dict[str, Any] = dict(
        outage_start_s=start,
        outage_end_s=end,
        throttle_by_queue_length=cfg.stop_points.throttle_recovery_work or base.throttle_by_queue_length,
        operator_throttle_at_s=throttle_at,
        operator_throttle_until_s=throttle_until,
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
