"""The chain's stages, impact and milestones, read off the one pipeline's runs (:mod:`labsupport.chain.engine`).

:func:`stage_windows` finds the three stages the post-event summary's impact periods name,
:func:`impact_rows` the share of clients or launches failing in each over time, and
:func:`milestones` the key moments. Times are seconds on the chain clock (11:48 PM PDT, 19 Oct).
"""

from __future__ import annotations

from typing import cast

import numpy as np
import pandas as pd

from .. import network
from .config import ChainConfig
from .engine import ChainTimes, Runs

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
