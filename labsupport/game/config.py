"""The game's configuration: the actions the operators had, the clock's steps and :class:`GameConfig`."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .. import timeline
from .._validate import Config, check_choice, check_number, show
from ..chain import CLOCK
from ..errors import ConfigError

__all__ = [
    "ACTIONS",
    "ACTION_NAMES",
    "AWS_ACTIONS",
    "CLOCK",
    "FINAL_SUMMARY",
    "HORIZON_S",
    "POSTS",
    "STEPS_S",
    "Action",
    "GameConfig",
]

#: The clock's steps the players choose from: 5, 15 and 60 minutes (seconds).
STEPS_S: tuple[float, ...] = (300.0, 900.0, 3600.0)
#: How long a game lasts: 16 hours from 11:48 PM PDT (to 3:48 PM on 20 October), seconds.
HORIZON_S: float = 16 * 3600.0


@dataclass(frozen=True)
class Action:
    """One action the operators had.

    Attributes:
        name: the key a player's log uses (``"repair_dns"``).
        label: the button's words.
        field: the :class:`labsupport.chain.OperatorActions` field it sets, or ``""`` (communicate,
            undo, relax: ``labsupport.game.engine.fold`` reads them).
        aws_id: the timeline row (:func:`labsupport.timeline.load`) at which AWS's operators took it,
            or ``""`` if the sources give no time.
        effect: what the chain model does with it (the model's, not a fact about AWS).
        aws_note: for an action with no time in the sources, what they say of it (with its tag), or ``""``.
    """

    name: str
    label: str
    field: str
    aws_id: str
    effect: str
    aws_note: str = ""


#: The operators' actions, in the order the buttons show them.
ACTIONS: tuple[Action, ...] = (
    Action(
        "communicate",
        "Post a status update",
        "",
        "dash-first-post",
        "none in the model; the debrief reads the time of the first update",
    ),
    Action(
        "stop_automation",
        "Stop the DNS Enactor automation",
        "automation_stopped_at_s",
        "talk-automation-off",
        "none downstream: once the record is empty the Enactors cannot fix or break it further",
    ),
    Action(
        "repair_dns",
        "Repair DynamoDB's DNS records by hand",
        "dns_repair_at_s",
        "ddb-dns-restored",
        "the regional endpoint gets its records back; caches refetch; DWFM's state checks work again",
    ),
    Action(
        "throttle_ec2",
        "Throttle EC2 launches (DWFM admission control)",
        "ec2_throttle_at_s",
        "dwfm-intervention",
        "DWFM admits no more work to a full queue (in the model this stays once taken); a request throttle "
        "that must be relaxed before EC2 counts as recovered",
    ),
    Action(
        "restart_dwfm",
        "Restart DWFM hosts",
        "dwfm_restart_at_s",
        "dwfm-intervention",
        "congested DWFM hosts drop their queues; their droplets ask again",
    ),
    Action(
        "throttle_network",
        "Throttle network propagation work",
        "network_throttle_at_s",
        "",
        "half of new launches are refused before they reach Network Manager (they count as failed "
        "launches) until the throttles are relaxed; the model has one such window a night",
        "A secondary account says engineers also reduced the load on Network Manager; no available copy "
        "of the summary confirms it, and no source gives a time [UNVERIFIED].",
    ),
    Action(
        "relax_throttles",
        "Relax the throttles",
        "",
        "ec2-throttles-relaxed",
        "every request throttle in force is relaxed: launches are no longer refused; EC2 counts as "
        "recovered once the throttles have unwound",
    ),
    Action(
        "disable_failover",
        "Disable NLB automatic AZ failover",
        "failover_disabled_at_s",
        "nlb-failover-off",
        "health checks no longer take an AZ out of DNS; the model has one such window a night",
    ),
    Action(
        "reenable_failover",
        "Re-enable NLB automatic AZ failover",
        "failover_reenabled_at_s",
        "nlb-failover-on",
        "health checks may fail an AZ over again",
    ),
    Action(
        "undo",
        "Undo the last action",
        "",
        "",
        "withdraws the latest action if it was taken at this same clock time; one taken earlier stays in "
        "force (take its opposite: relax, re-enable)",
    ),
)
#: The action names, in button order.
ACTION_NAMES: tuple[str, ...] = tuple(a.name for a in ACTIONS)

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


def _entry(i: int, item: object, horizon_s: float) -> tuple[float, str]:
    if not isinstance(item, (tuple, list)) or len(item) != 2:
        raise ConfigError(f"actions[{i}] must be a (time_s, action) pair, got {show(item)}")
    at = check_number(f"actions[{i}] time_s", item[0], lo=0, hi=horizon_s, hi_name="horizon_s")
    name = check_choice(f"actions[{i}] action", item[1], ACTION_NAMES)
    return (at, str(name))


@dataclass(frozen=True, kw_only=True)
class GameConfig(Config):
    """One game: the players' action log and where the clock stands.

    Attributes:
        actions: the log, ``(time_s, action)`` pairs in any order (sorted by time, stably, when
            played): ``time_s`` seconds since 11:48 PM PDT (0 to ``horizon_s``), ``action`` one of
            :data:`ACTION_NAMES`. Taking an action again while it is in force changes nothing;
            ``undo`` withdraws the latest earlier action not yet withdrawn if it was taken at the
            undo's own time, and leaves one taken earlier in force (see
            ``labsupport.game.engine.fold``).
        clock_s: where the clock stands (0 to ``horizon_s``): dashboards and posts up to it are visible.
        horizon_s: the game's end (3,600 s to :data:`HORIZON_S`, 16 hours, the span its charts draw;
            default :data:`HORIZON_S`).

    Raises:
        ConfigError: a malformed entry, an unknown action, a time or clock outside [0, ``horizon_s``]
            (the message names the entry and the range).
    """

    actions: tuple[tuple[float, str], ...] = ()
    clock_s: float = 0.0
    horizon_s: float = HORIZON_S

    def _check(self) -> None:
        # At most HORIZON_S: the dashboards and the debrief draw 11:30 PM to 4 PM (labsupport.charts.game).
        check_number("horizon_s", self.horizon_s, lo=3600, hi=HORIZON_S)
        check_number("clock_s", self.clock_s, lo=0, hi=self.horizon_s, hi_name="horizon_s")
        if not isinstance(self.actions, (tuple, list)):
            raise ConfigError(f"actions must be a tuple of (time_s, action) pairs, got {show(self.actions)}")
        object.__setattr__(self, "actions", tuple(_entry(i, a, self.horizon_s) for i, a in enumerate(self.actions)))

    def take(self, action: str) -> GameConfig:
        """This game with ``action`` taken now (at ``clock_s``)."""
        return GameConfig(
            actions=(*self.actions, (self.clock_s, action)), clock_s=self.clock_s, horizon_s=self.horizon_s
        )

    def advance(self, step_s: float) -> GameConfig:
        """This game with the clock ``step_s`` seconds later (one of :data:`STEPS_S`), stopping at ``horizon_s``."""
        check_choice("step_s", step_s, STEPS_S)
        return GameConfig(
            actions=self.actions, clock_s=min(self.clock_s + float(step_s), self.horizon_s), horizon_s=self.horizon_s
        )
