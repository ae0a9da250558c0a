"""The university module's written assignments, the instructor's side: the model answers for one id.

Scenario:
    The module's two assignments (``chapters/instructor-guide/university-module.md``) are graded by
    hand, with the module's rubric; their questions are about a problem of the student's own
    (:mod:`labsupport.assignments.module`). Here, for one id, the course runs what the student was
    asked to run and returns the model answers: :func:`race_key` for assignment 1 (their race,
    their guard table against lab 01's, their protocol's shortest counterexample in words and the
    guards that remove it), :func:`collapse_key` for assignment 2 (the largest fleet their night
    recovers by itself, and how it moves; retry policies compared on a fleet their night cannot
    recover; admission control by queue length; the figures for the metastable argument). The
    grading command prints either: ``python -m coursetools.grading key module-1-race --id <id>``.
Covers:
    The PES's DynamoDB race and DWFM's congestive collapse, as labs 01, 02 and 06 model them; a
    model's result is the model's, not a fact about AWS.

::

    student id --race_params--> race.run, race.guard_table, explore.run, explore.verdict_table --> race_key(id)
    student id --collapse_params--> dwfm.run (bisection, retry policies, throttle) --> collapse_key(id)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import asdict, replace

import pandas as pd

from labsupport import dwfm, explore, race
from labsupport.assignments.module import (
    COLLAPSE,
    RACE,
    collapse_params,
    dwfm_config,
    explore_config,
    race_config,
    race_params,
)
from labsupport.errors import ConfigError
from labsupport.timeline import format_duration

__all__ = ["FLEET_RANGE", "KEYS", "collapse_key", "largest_recovering_fleet", "race_key"]

#: The fleets the bisection searches between (droplets): the smallest recovers on every night of the
#: assignment, the largest on none (the course's tests check both ends).
FLEET_RANGE: tuple[int, int] = (100, 40_000)


# -- assignment 1, the race -----------------------------------------------------------------------------
def _verdicts(table: pd.DataFrame) -> dict[str, str]:
    """``{guards label: what the row shows}`` and ``{label + "#verdict": "empty+stale", ...}`` of a guard table."""
    out: dict[str, str] = {}
    columns = ("guards", "regional_empty_s", "stale_overwrites_count", "endpoints_emptied")
    rows = zip(*(table[c] for c in columns), strict=True)
    for label, empty_s, stale_count, emptied in rows:
        guards, seconds, stale = str(label), float(empty_s), int(stale_count)
        empty = seconds > 0 or bool(emptied)
        out[guards] = f"{'endpoint empty' if empty else 'never empty'}, {stale} stale overwrites" + (
            f", regional endpoint empty {_span(seconds)}" if seconds else ""
        )
        out[guards + "#verdict"] = ("empty" if empty else "") + ("+stale" if stale else "")
    return out


def _span(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 60 else format_duration(seconds)


@functools.cache
def _incident_table() -> dict[str, str]:
    return _verdicts(race.guard_table(race.INCIDENT))


def _race_story(student_id: str) -> dict[str, object]:
    result = race.run(race_config(student_id))
    ev, s = result.events, result.summary
    reg = race.INCIDENT.regional_endpoint
    stale = ev[(ev["action"] == "stale_write") & (ev["endpoint"] == reg)].iloc[0]
    deleted = ev[(ev["action"] == "delete_active") & (ev["endpoint"] == reg)].iloc[0]
    check = ev[(ev["actor"] == stale["actor"]) & (ev["action"] == "check") & (ev["generation"] == stale["generation"])]
    checked_at = float(check["time_s"].iloc[0]) if len(check) else float("nan")
    return {
        "regional_empty_for": format_duration(s.regional_empty_s),
        "empty_from_s": round(float(deleted["time_s"]), 2),
        "stale_writer": str(stale["actor"]),
        "stale_plan": int(stale["generation"]),
        "stale_write_s": round(float(stale["time_s"]), 2),
        "check_to_write_s": round(float(stale["time_s"]) - checked_at, 2),
        "deleter": str(deleted["actor"]),
        "stale_overwrites_count": s.stale_overwrites_count,
        "endpoints_emptied": list(s.endpoints_emptied),
        "story": (
            f"{stale['actor']} checked plan {int(stale['generation'])} once, "
            f"{float(stale['time_s']) - checked_at:.0f} s before it wrote it at {float(stale['time_s']):.1f} s "
            f"over a newer plan on the regional endpoint; {deleted['actor']}'s clean-up deleted that plan at "
            f"{float(deleted['time_s']):.1f} s, and the endpoint answered with no records for "
            f"{format_duration(s.regional_empty_s)}"
        ),
    }


def _guards(student_id: str) -> dict[str, object]:
    mine = _verdicts(race.guard_table(race_config(student_id)))
    book = _incident_table()
    rows = [k for k in mine if not k.endswith("#verdict")]
    differ = [k for k in rows if mine[k + "#verdict"] != book[k + "#verdict"]]
    counts = [k for k in rows if k not in differ and mine[k] != book[k]]
    clean = [k for k in rows if mine[k + "#verdict"] == ""]
    smallest = min((len(k.split("+")) for k in clean if k != "none"), default=0)
    return {
        "your_table": {k: mine[k] for k in rows},
        "rows_whose_verdict_differs_from_lab_01": {k: {"yours": mine[k], "lab_01": book[k]} for k in differ},
        "rows_whose_counts_differ_from_lab_01": counts,
        "smallest_guard_sets_with_neither": [k for k in clean if k != "none" and len(k.split("+")) == smallest],
    }


def _counterexample(student_id: str) -> dict[str, object]:
    cfg = explore_config(student_id)
    res = explore.run(cfg)
    ev = res.events
    steps = []
    for n, actor, action, plan, endpoint, outcome, aliases, role in zip(
        ev["step"], ev["actor"], ev["action"], ev["plan_generation"], ev["endpoint"], ev["outcome"],
        ev["aliases_after"], ev["role"], strict=True,
    ):  # fmt: skip
        steps.append(
            f"{int(n)}. {actor}: {action}"
            + (f" plan {int(plan)}" if int(plan) else "")
            + (f" on {endpoint}" if endpoint else "")
            + f" ({outcome}; aliases {aliases})"
            + (f" [{role}]" if role else "")
        )
    table = explore.verdict_table(cfg)
    fixes = table[table["safe"] & table["recovers"]]["guards"].tolist()
    single = [g for g in fixes if "+" not in g]
    return {
        "states_count": res.summary.states_count,
        "counterexample_steps": len(steps),
        "counterexample": steps,
        "guards_alone_that_remove_every_counterexample_and_recover": single,
        "guard_sets_safe_and_recovering": fixes,
    }


def race_key(student_id: str) -> dict[str, object]:
    """Assignment 1's model answers for ``student_id``.

    Returns:
        ``{"student_id", "params", "q1_your_race", "q2_guard_table", "q3_counterexample"}``: the race
        (who wrote the stale plan, who deleted it, when, for how long), the guard table with the rows
        whose verdict or counts differ from lab 01's table of the incident, and the protocol's
        shortest counterexample, step by step, with the guards that remove every counterexample at
        the student's bounds. Question 4 (a race in a system the student knows) has no model answer.
    """
    p = race_params(student_id)
    return {
        "student_id": p.student_id,
        "params": {k: v for k, v in asdict(p).items() if k != "student_id"},
        "q1_your_race": _race_story(student_id),
        "q2_guard_table": _guards(student_id),
        "q3_counterexample": _counterexample(student_id),
    }


# -- assignment 2, the collapse -------------------------------------------------------------------------
def largest_recovering_fleet(cfg: dwfm.DwfmConfig, within: int = 10) -> int:
    """The largest fleet (to within ``within`` droplets) with which ``cfg``'s night recovers by itself,
    by bisection over :data:`FLEET_RANGE` (the smallest recovers, the largest does not).

    Raises:
        ConfigError: the range's ends do not bracket the threshold for this night.
    """

    def recovers(fleet: int) -> bool:
        return dwfm.run(replace(cfg, fleet_droplets_count=fleet)).summary.recovered

    lo, hi = FLEET_RANGE
    if not recovers(lo) or recovers(hi):
        raise ConfigError(f"fleets {lo} and {hi} do not bracket this night's threshold")
    while hi - lo > within:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if recovers(mid) else (lo, mid)
    return lo


def _summary(cfg: dwfm.DwfmConfig) -> dict[str, object]:
    s = dwfm.run(cfg).summary
    return {
        "recovered": s.recovered,
        "recovered_at": dwfm.CLOCK.time_of_day(s.recovered_at_s) if s.recovered_at_s is not None else None,
        "leases_established": s.goodput_count,
        "wasted_fraction": round(s.wasted_fraction, 3),
    }


def _collapse_fleet(threshold: int) -> int:
    """The fleet the retry and throttle questions use: half again the threshold, in hundreds."""
    return round(1.5 * threshold / 100.0) * 100


@functools.lru_cache(maxsize=32)
def collapse_key(student_id: str) -> dict[str, object]:
    """Assignment 2's model answers for ``student_id``.

    Returns:
        ``{"student_id", "params", "q1_threshold", "q2_retries", "q3_admission_control",
        "q4_metastable"}``: the largest fleet their night recovers by itself (and the same with two
        more hosts and with a deadline two minutes longer, two of the parameters a student may
        choose), the retry policies on a fleet half again that size and on three times it (recovered,
        when, leases established, the share of work wasted), admission control by queue length on that fleet and
        on three times the threshold, and the figures of the collapse for the metastable argument.
    """
    p = collapse_params(student_id)
    night = dwfm_config(student_id)
    threshold = largest_recovering_fleet(night)
    fleet = _collapse_fleet(threshold)
    big = replace(night, fleet_droplets_count=fleet)
    policies: dict[str, Callable[[dwfm.DwfmConfig], dwfm.DwfmConfig]] = {
        "retry at once (the incident's)": lambda c: c,
        "backoff with full jitter, base 30 s, cap 30 min": lambda c: replace(
            c, retry_policy="backoff_full_jitter", retry_base_s=30.0, retry_cap_s=1_800.0
        ),
        "backoff with full jitter, base 30 s, cap 4 h": lambda c: replace(
            c, retry_policy="backoff_full_jitter", retry_base_s=30.0, retry_cap_s=14_400.0
        ),
        "backoff with full jitter, base 5 min, cap 4 h": lambda c: replace(
            c, retry_policy="backoff_full_jitter", retry_base_s=300.0, retry_cap_s=14_400.0
        ),
    }
    collapsed = dwfm.run(big).summary
    return {
        "student_id": p.student_id,
        "params": {k: v for k, v in asdict(p).items() if k != "student_id"},
        "q1_threshold": {
            "largest_fleet_that_recovers": threshold,
            "with_two_more_hosts": largest_recovering_fleet(replace(night, dwfm_hosts_count=p.dwfm_hosts_count + 2)),
            "with_a_deadline_two_minutes_longer": largest_recovering_fleet(
                replace(night, work_deadline_s=p.work_deadline_s + 120.0)
            ),
        },
        "q2_retries": {
            f"fleet {f}": {
                name: _summary(change(replace(night, fleet_droplets_count=f))) for name, change in policies.items()
            }
            for f in (fleet, 3 * threshold)
        },
        "q3_admission_control": {
            f"fleet {fleet}, throttle_by_queue_length": _summary(replace(big, throttle_by_queue_length=True)),
            f"fleet {3 * threshold}, throttle_by_queue_length": _summary(
                replace(night, fleet_droplets_count=3 * threshold, throttle_by_queue_length=True)
            ),
            f"fleet {3 * threshold}, no throttle": _summary(replace(night, fleet_droplets_count=3 * threshold)),
        },
        "q4_metastable": {
            "trigger": (
                f"DynamoDB unreachable for {format_duration(p.outage_s)}: at fleet {fleet}, "
                f"{collapsed.leases_lost_count:,} leases lapse as their TTLs run out"
            ),
            "sustaining_effect": (
                f"at fleet {fleet}, {collapsed.wasted_fraction:.1%} of the work started is wasted (finished after "
                f"its deadline and retried), {collapsed.goodput_count:,} leases established of "
                f"{collapsed.leases_lost_count:,} lost, and the fleet is still not recovered at the run's end"
            ),
            "what_breaks_the_loop": "bounding the queue (admission control), or removing the backlog and the load "
            "together (the operators' restart with throttling); not the trigger's end",
        },
    }


#: The module's assignments by name, each with its model answers' function (the grading command's
#: ``key`` takes these names as well as the graded assignments').
KEYS: dict[str, Callable[[str], dict[str, object]]] = {RACE: race_key, COLLAPSE: collapse_key}
