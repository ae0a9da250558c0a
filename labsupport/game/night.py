"""The real night the game replays: the Health Dashboard's posts and final summary, and AWS's actions at
the times the sources give them."""

from __future__ import annotations

import pandas as pd

from .. import timeline
from .config import ACTIONS, CLOCK

__all__ = ["AWS_ACTIONS", "FINAL_SUMMARY", "POSTS", "aws_actions"]


#: The Health Dashboard's posts made during the event, as the players see them: (timeline row, the
#: post's words as the course's fact sheet gives them: quoted where the sheet quotes). Sources: the
#: Dashboard's updates as a Korean blog post (KB) and kuray.dev list them [OTHER].
POSTS: tuple[tuple[str, str], ...] = (
    ("dash-first-post", 'AWS is "investigating increased error rates and latencies".'),
    (
        "dash-potential-cause",
        'A "potential root cause": DNS resolution of the DynamoDB API endpoint.',
    ),
    ("dash-mitigations", "Initial mitigations have been applied."),
    ("dash-dns-mitigated", 'The "underlying DNS issue has been fully mitigated".'),
    (
        "dash-root-cause",
        'The root cause is "an underlying internal subsystem responsible for monitoring the health of our '
        'network load balancers"; AWS is throttling requests for new EC2 instance launches.',
    ),
    (
        "dash-lambda-sqs",
        "Lambda invocation errors have fully recovered; SQS polling is back to pre-event levels.",
    ),
)
#: The Dashboard's final summary, written after the event (never in the game's feed; the debrief's):
#: (the timeline rows a line dates, its words as the fact sheet quotes them, via a slide deck, DECK) [OTHER].
FINAL_SUMMARY: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        ("dash-start", "dash-ddb-end"),
        '"Between 11:49 PM PDT on October 19 and 2:24 AM PDT on October 20, we experienced increased error '
        'rates and latencies..."',
    ),
    (
        ("dash-trigger",),
        '"At 12:26 AM on October 20, we identified the trigger of the event as DNS resolution issues for the '
        'regional DynamoDB service endpoints"',
    ),
    (("dash-end",), '"By 3:01 PM, all AWS services returned to normal operations."'),
)


def _aws_time_s(row_id: str) -> float:
    rows = timeline.load()
    when = pd.Timestamp(rows.loc[rows["id"] == row_id, "time_pdt"].iloc[0]).tz_localize(None)
    return float((when - CLOCK.origin).total_seconds())


def aws_actions() -> tuple[tuple[float, str], ...]:
    """AWS's operators' actions at the times the sources give, as a game log (seconds, name).

    Communicate is the Health Dashboard's first post. An action the sources give no time for
    (throttling network propagation work, [UNVERIFIED]) is not in it. Sorted by time."""
    log = [(_aws_time_s(a.aws_id), a.name) for a in ACTIONS if a.aws_id]
    return tuple(sorted(log))


#: AWS's night as a player's log: see ``aws_actions()``.
AWS_ACTIONS: tuple[tuple[float, str], ...] = aws_actions()
