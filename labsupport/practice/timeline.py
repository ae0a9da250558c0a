"""Practice on the timeline: the time between two of the summary's events, and what was going on.

Scenario:
    ``practice(seed)`` picks two events of the post-event summary from the course's timeline
    (verified rows only, never the Health Dashboard's or the talk's: a duration never mixes two
    channels) and asks how many minutes lie between them, and how many of the summary's three
    impact periods were in progress at the second. The check reads the same rows.
Covers:
    The summary's times as :mod:`labsupport.timeline` holds them, and its three overlapping
    periods of impact (:func:`labsupport.timeline.impact_periods`)::

        seed ──rng──> rows A, B (summary, verified) ──timeline──> B - A; periods covering B
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .. import timeline as data
from ..feedback import Part, number
from ._problem import Problem, rng

__all__ = ["TimelineProblem", "practice"]

#: The tags of the summary's own rows (the Dashboard's and the talk's are OTHER).
SUMMARY_TAGS = ("AWS-verbatim", "AWS-paraphrase")


@dataclass(frozen=True)
class TimelineProblem(Problem):
    """Two of the summary's events: see :func:`practice`. ``config`` is the pair of row ids ``(a, b)``."""

    model = "timeline"
    fields = (
        ("minutes", "minutes from the first event to the second"),
        ("periods_at_second", "how many of the summary's three impact periods were in progress at the second: 0 to 3"),
    )
    hint = (
        "t = timeline.load().set_index('id')['time_pdt']; subtract, and compare the second time with "
        "timeline.impact_periods()['start_pdt'] and ['end_pdt'] (ends included)."
    )

    def _solve(self) -> Mapping[str, Any]:
        a, b = self.config
        t = data.load().set_index("id")["time_pdt"]
        p = data.impact_periods()
        at = t[b]
        covering = p.loc[(p["start_pdt"] <= at) & (at <= p["end_pdt"]), "period"].tolist()
        return {
            "minutes": float((t[b] - t[a]).total_seconds() / 60),
            "periods_at_second": len(covering),
            "covering": covering,
            "times": (f"{t[a]:%I:%M %p}".lstrip("0"), f"{t[b]:%I:%M %p}".lstrip("0")),
        }

    def _parts(self, m: Mapping[str, Any]) -> dict[str, Callable[[Any], Part]]:
        return {
            "minutes": lambda v: number("minutes", v, m["minutes"], tolerance=0.5, unit="min", by="the timeline"),
            "periods_at_second": lambda v: number(
                "periods_at_second", v, m["periods_at_second"], tolerance=0, by="the timeline"
            ),
        }

    def _why(self, m: Mapping[str, Any]) -> str:
        first, second = m["times"]
        during = ", ".join(m["covering"]) if m["covering"] else "none of the three"
        return f"Why: the rows give {first} and {second} (PDT); in progress at {second}: {during}."


def practice(seed: int = 0) -> TimelineProblem:
    """A fresh timeline problem drawn from ``seed`` (the same seed, the same problem).

    Args:
        seed: an integer from 0 to 2**63 - 1.

    Returns:
        A :class:`TimelineProblem` about two verified rows of the summary with different times.

    Raises:
        ConfigError: ``seed`` is not an integer from 0 to 2**63 - 1.
    """
    r = rng(seed, "timeline")
    rows = data.load(include_unverified=False)
    rows = rows[rows["tag"].isin(SUMMARY_TAGS)].drop_duplicates("time_pdt")
    i, j = sorted(r.sample(range(len(rows)), 2))
    a, b = rows.iloc[i], rows.iloc[j]
    text = (
        f"Two events of the post-event summary, from the course's timeline: row `{a['id']}` ({a['service']}: "
        f"{a['event']}) and row `{b['id']}` ({b['service']}: {b['event']}). How many minutes lie between them, and "
        "how many of the summary's three impact periods were in progress at the second?"
    )
    return TimelineProblem(seed=int(seed), config=(str(a["id"]), str(b["id"])), text=text)
