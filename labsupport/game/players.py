"""Scripted players: AWS's play, a team that follows the posts, the lab's hindsight player, and the
degenerate plays the game-day issue found, each a log to :func:`labsupport.game.play`.

The lab, the facilitator's room page and the tests play the same ones, so that every page says
what the model says of them. Times are the night's (PDT); each player's reasoning is in
:data:`WHY`. The degenerate plays (:data:`DEGENERATE`) are those the issue found to score better
than AWS's play on stage ends; the score ranks them no better, or the debrief says why they would
not have worked on the night.
"""

from __future__ import annotations

from .config import CLOCK, HORIZON_S, GameConfig
from .night import AWS_ACTIONS

__all__ = ["DEGENERATE", "PLAYERS", "WHY", "players"]


def _at(when: str) -> float:
    """Seconds on the game's clock of a time of the night ("2:01 AM")."""
    return CLOCK.seconds(when)


def _aws(*extra: tuple[float, str], without: tuple[str, ...] = ()) -> tuple[tuple[float, str], ...]:
    return tuple(e for e in AWS_ACTIONS if e[1] not in without) + extra


_RELAX_AT = _at("4:15 AM")
#: Every scripted player's log, by name: AWS's play, the posts' follower, hindsight, then the degenerate plays.
PLAYERS: dict[str, tuple[tuple[float, str], ...]] = {
    "AWS's play": AWS_ACTIONS,
    "A team that follows the posts": (
        (_at("12:11 AM"), "communicate"),
        (_at("2:01 AM"), "repair_dns"),
        (_at("8:43 AM"), "throttle_ec2"),
        (_at("8:43 AM"), "disable_failover"),
        (_at("1:03 PM"), "relax_throttles"),
        (_at("1:03 PM"), "reenable_failover"),
    ),
    "Hindsight: DNS at 12:38 AM, DWFM restarted 15 minutes later": (
        (_at("12:11 AM"), "communicate"),
        (_at("12:38 AM"), "repair_dns"),
        (_at("12:53 AM"), "restart_dwfm"),
    ),
    "Never touches NLB failover": _aws(without=("disable_failover", "reenable_failover")),
    "Takes a network throttle at 8:43 AM": _aws((_at("8:43 AM"), "throttle_network")),
    "Relaxes the throttle a minute after taking it": _aws((_RELAX_AT, "relax_throttles"), without=("relax_throttles",)),
    "Repairs DNS at 11:48 PM": ((0.0, "repair_dns"),),
    "Prevents the outage, throttles and relaxes a minute later": (
        (0.0, "repair_dns"),
        (0.0, "throttle_ec2"),
        (60.0, "relax_throttles"),
    ),
    "Posts a status update at 11:48 PM": _aws((0.0, "communicate"), without=("communicate",)),
    "Turns NLB failover off at 5:30 AM": tuple(
        (_at("5:30 AM") if n == "disable_failover" else t, n) for t, n in AWS_ACTIONS
    ),
    "Turns NLB failover off and on before 5:28 AM": _aws(
        (_at("4:00 AM"), "disable_failover"),
        (_at("5:00 AM"), "reenable_failover"),
        without=("disable_failover", "reenable_failover"),
    ),
}
#: The degenerate plays of the game-day issue (the last eight of :data:`PLAYERS`).
DEGENERATE: tuple[str, ...] = tuple(PLAYERS)[3:]
#: What each scripted player does and why, in a sentence.
WHY: dict[str, str] = {
    "AWS's play": "AWS's operators' actions at the times the sources give them (none for an UNVERIFIED one).",
    "A team that follows the posts": (
        "Acts only when a public post says what to act on: a status update at the first post, DNS at the 2:01 AM "
        "post, a throttle on launches and NLB failover off at the 8:43 AM post, and both undone at the last post."
    ),
    "Hindsight: DNS at 12:38 AM, DWFM restarted 15 minutes later": (
        "Knows the story: repairs DNS when AWS's engineers had identified the cause and restarts DWFM's hosts "
        "15 minutes later, with no throttle; lab 07's hindsight player."
    ),
    "Never touches NLB failover": "AWS's play without turning NLB failover off and on.",
    "Takes a network throttle at 8:43 AM": "AWS's play, and half of new launches refused before Network Manager.",
    "Relaxes the throttle a minute after taking it": "AWS's play, with the throttles relaxed at 4:15 AM.",
    "Repairs DNS at 11:48 PM": "Repairs the record the moment it goes empty.",
    "Prevents the outage, throttles and relaxes a minute later": (
        "Repairs DNS at 11:48 PM, throttles DWFM's incoming work then, and relaxes a minute later."
    ),
    "Posts a status update at 11:48 PM": "AWS's play with the first update at 11:48 PM.",
    "Turns NLB failover off at 5:30 AM": "AWS's play with NLB failover off at 5:30 AM, when the NLB errors began.",
    "Turns NLB failover off and on before 5:28 AM": "Turns NLB failover off at 4:00 AM and on again at 5:00 AM.",
}


def players(horizon_s: float = HORIZON_S) -> dict[str, GameConfig]:
    """Every scripted player as a :class:`GameConfig` with the clock at the game's end, ``horizon_s``.

    Raises:
        ConfigError: a bad ``horizon_s`` (as :class:`GameConfig`).
    """
    return {name: GameConfig(actions=log, clock_s=horizon_s, horizon_s=horizon_s) for name, log in PLAYERS.items()}
