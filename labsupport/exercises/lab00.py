"""Lab 0's exercises (the timeline, as data), checked against the course's timeline.

Every answer comes from :func:`labsupport.timeline.load` and :func:`labsupport.timeline.impact_periods`,
the summary's times and the Health Dashboard's, each kept to its own channel as the fact sheet
asks. Each ``exN(answer)`` returns a :class:`~labsupport.feedback.Feedback` and never raises; each
``model_exN()`` returns the data's answer as a read-only dict.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import pandas as pd

from .. import timeline
from ..feedback import Feedback, Part, answered, choice, feedback, number

__all__ = ["ex1", "ex2", "ex3", "ex4", "model_ex1", "model_ex2", "model_ex3", "model_ex4"]


def _minutes(delta: pd.Timedelta) -> float:
    return float(delta.total_seconds() / 60)


@functools.cache
def model_ex1() -> Mapping[str, Any]:
    """``summary_min`` (11:48 PM to the cause identified, 12:38 AM), ``dashboard_min`` (the
    Dashboard's 11:49 PM start to its 12:26 AM identification) and ``gap_min`` (12:38 AM - 12:26 AM),
    all in minutes; ``start_gap_min`` (the Dashboard's start minus the summary's)."""
    t = timeline.load().set_index("id")["time_pdt"]
    return MappingProxyType(
        {
            "summary_min": _minutes(t["ddb-identified"] - t["ddb-race"]),
            "dashboard_min": _minutes(t["dash-trigger"] - t["dash-start"]),
            "gap_min": _minutes(t["ddb-identified"] - t["dash-trigger"]),
            "start_gap_min": _minutes(t["dash-start"] - t["ddb-race"]),
        }
    )


def ex1(answer: object) -> Feedback:
    """Check Exercise 1: ``{"summary_min": ..., "dashboard_min": ..., "gap_min": ...}`` in minutes."""
    m = model_ex1()
    checks = {
        "summary_min": lambda v: number(
            "summary_min",
            v,
            m["summary_min"],
            tolerance=0.5,
            unit="min",
            why="Rows ddb-race to ddb-identified.",
            by="the timeline",
        ),
        "dashboard_min": lambda v: number(
            "dashboard_min",
            v,
            m["dashboard_min"],
            tolerance=0.5,
            unit="min",
            why=f"Rows dash-start to dash-trigger: the Dashboard starts the event {m['start_gap_min']:.0f} min later.",
            by="the timeline",
        ),
        "gap_min": lambda v: number(
            "gap_min",
            v,
            m["gap_min"],
            tolerance=0.5,
            unit="min",
            why="12:38 AM (summary) against 12:26 AM (Dashboard).",
            by="the timeline",
        ),
    }
    return feedback("Exercise 1", answer, checks)


@functools.cache
def model_ex2() -> Mapping[str, Any]:
    """``service`` (str, the service with the most verified rows, the Dashboard left out; ties
    give every leader in ``leaders``), ``rows`` (int) and ``counts`` (service -> rows)."""
    counts = timeline.load(include_unverified=False).query("service != 'Health Dashboard'").value_counts("service")
    top = int(counts.iloc[0])
    leaders = tuple(str(s) for s, n in counts.items() if n == top)
    return MappingProxyType(
        {"service": leaders[0], "leaders": leaders, "rows": top, "counts": {str(k): int(v) for k, v in counts.items()}}
    )


def ex2(answer: object) -> Feedback:
    """Check Exercise 2: ``{"service": "...", "rows": ...}``."""
    m = model_ex2()
    services = tuple(m["counts"])

    def service(v: object) -> Part:
        if answered(v) and isinstance(v, str) and v in m["leaders"]:
            return Part("service", "right", f"{v} has {m['rows']} verified rows.")
        return choice("service", v, m["service"], services, why=f"It has {m['rows']} verified rows.", by="the timeline")

    checks = {
        "service": service,
        "rows": lambda v: number(
            "rows", v, m["rows"], tolerance=0, unit="rows", why="Verified rows only.", by="the timeline"
        ),
    }
    return feedback("Exercise 2", answer, checks)


@functools.cache
def model_ex3() -> Mapping[str, Any]:
    """``covered_min`` (the union of the three impact periods, minutes), ``whole_min`` (the whole
    event) and ``shorter_min`` (how much shorter the union is), from the summary's own rows."""
    p = timeline.impact_periods().sort_values("start_pdt")
    covered, end = pd.Timedelta(0), None
    for start, stop in zip(p["start_pdt"], p["end_pdt"], strict=True):
        if end is None or start > end:
            covered, end = covered + (stop - start), stop
        elif stop > end:
            covered, end = covered + (stop - end), stop
    t = timeline.load().set_index("id")["time_pdt"]
    whole = t["event-end"] - t["ddb-race"]
    return MappingProxyType(
        {
            "covered_min": _minutes(covered),
            "whole_min": _minutes(whole),
            "shorter_min": _minutes(whole - covered),
            "gapless": covered == p["end_pdt"].max() - p["start_pdt"].min(),
        }
    )


def ex3(answer: object) -> Feedback:
    """Check Exercise 3: ``{"covered_min": minutes with at least one period in progress}``."""
    m = model_ex3()
    why = (
        f"The periods run without a gap from 11:48 PM to 2:09 PM, {m['shorter_min']:.0f} min short of the whole "
        "event, which the summary ends at 2:20 PM when ECS, EKS and Fargate had recovered."
    )
    checks = {
        "covered_min": lambda v: number(
            "covered_min", v, m["covered_min"], tolerance=1, unit="min", why=why, by="the timeline"
        )
    }
    return feedback("Exercise 3", answer, checks)


#: What a strong post-incident timeline records, for Exercise 4's feedback.
EX4_POINTS = (
    "an event id",
    "the time with its zone",
    "the observer (the service's own logs, the status page, a customer, a later analysis)",
    "whether the time is when it happened or when it was noticed",
    "a link to the source",
    "a confidence tag",
    "a note when another source disagrees",
)


@functools.cache
def model_ex4() -> Mapping[str, Any]:
    """``course_columns``: the columns of the course's own timeline table, to compare with."""
    return MappingProxyType({"course_columns": tuple(timeline.load().columns)})


def ex4(answer: object) -> Feedback:
    """Check Exercise 4's form: ``{"columns": ["a column name", ...]}``, at least five names.

    A design has no single right answer: the check says which of your columns the course's own
    timeline has too, and lists what a strong design records.
    """
    course = model_ex4()["course_columns"]

    def columns(v: object) -> Part:
        if not answered(v):
            return Part("columns", "not answered", "give a list of column names.")
        if not isinstance(v, (list, tuple)) or not all(isinstance(c, str) and c.strip() for c in v):
            return Part("columns", "cannot check", f"this part takes a list of column names (strings), got {v!r}.")
        if len(v) < 5:
            return Part(
                "columns", "cannot check", f"{len(v)} columns: a timeline others can trust needs at least five."
            )
        shared = sorted({c.strip().lower() for c in v} & {c.lower() for c in course})
        also = f"the course's timeline has {', '.join(shared)} too" if shared else "none has a name the course uses"
        return Part("columns", "reviewed", f"{len(v)} columns; {also}.")

    note = "A strong design records: " + "; ".join(EX4_POINTS) + ". The course's table lacks the fourth."
    return feedback("Exercise 4", answer, {"columns": columns}, note=note)
