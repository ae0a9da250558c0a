"""One game: :func:`play` returns what the players see at the clock and the score against the real night."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import pandas as pd

from .. import chain, timeline
from ..errors import ConfigError
from . import engine as _en
from .config import ACTIONS, AWS_ACTIONS, CLOCK, GameConfig

#: The kinds of :func:`inject_cards`, in the order the deck holds them.
CARD_KINDS: tuple[str, ...] = ("start", "post", "debrief", "afterwards")

#: The columns of :func:`inject_cards`, in order.
CARD_COLUMNS: tuple[str, ...] = ("card", "time_s", "time", "kind", "title", "text", "source", "tag", "effect", "prompt")

#: What the facilitator asks at each kind of card (the course's game rules, not a source's words).
CARD_PROMPTS: dict[str, str] = {
    "start": (
        "You are on call for us-east-1. Read every dashboard aloud, advance the clock, and act only on what "
        "the dashboards and the public posts show."
    ),
    "post": (
        "Read the post aloud at this time. Operations: which dashboard agrees with it? Communications: does "
        "the team's own status update say more, or less?"
    ),
    "debrief": (
        "Debrief only, face down until then: set AWS's action and its time beside the team's own, and ask "
        "what the operators knew when they took it."
    ),
    "afterwards": (
        "Debrief only, face down until then: written after the event, never posted during it. Set its "
        "times beside the posts the team saw that night: what did the Dashboard know, and when?"
    ),
}

#: Rows of the score: the chain's three stages, then the whole event and the first status update.
SCORE_ROWS: tuple[str, ...] = (*chain.STAGES, "Whole event", "First status update")
#: Timeline rows (:func:`labsupport.timeline.load`) of AWS's real time for each score row.
AWS_ENDS: dict[str, str] = {
    "DynamoDB unreachable": "ddb-end",
    "Launches failing": "ec2-propagation-normal",
    "NLB connection errors": "nlb-end",
    "Whole event": "event-end",
    "First status update": "dash-first-post",
}


@dataclass(frozen=True)
class GameSummary:
    """The game's score in numbers (seconds on the chain clock; ``None`` where not reached by the horizon).

    Attributes:
        over: every stage ended, every request throttle relaxed and unwound (EC2 recovered) and NLB
            failover, if disabled, back on, all by the horizon: the game's rule for "the event is over".
        over_at_s: when it was over (the latest of those moments), or ``None``.
        total_s: the whole event, from its first stage's start (or, with no stage, the first request
            throttle, whose "request limit exceeded" errors the summary reports) to ``over_at_s``; 0 if
            the event never began and no throttle was taken; ``None`` if not over.
        dynamodb_end_s, launches_end_s, nlb_end_s: when each stage ended (``None``: did not
            happen, or still going at the horizon).
        first_update_s: the first status update (``None``: none posted).
        impact_s: the chain's client-visible impact summed over the stages (fraction of requests
            or launches failing, integrated over time: seconds).
        refused_launches_count: launches DWFM refused for lack of capacity plus launches refused
            before Network Manager.
        health_check_flaps_count: NLB health-check state changes (of new instances still waiting for
            their network state, in the model).
        failover_left_disabled: NLB automatic failover was disabled and never re-enabled.
    """

    over: bool
    over_at_s: float | None
    total_s: float | None
    dynamodb_end_s: float | None
    launches_end_s: float | None
    nlb_end_s: float | None
    first_update_s: float | None
    impact_s: float
    refused_launches_count: int
    health_check_flaps_count: int
    failover_left_disabled: bool


@dataclass(frozen=True)
class GameResult:
    """What :func:`play` returns.

    Attributes:
        config: the :class:`GameConfig` played.
        dashboards: the operator-visible signals up to ``config.clock_s``
            (the columns of ``labsupport.game.engine.dashboards``).
        signals: every signal of the run up to ``config.clock_s``, the dashboards' and those an alarm
            or an investigation could read (``labsupport.game.engine.signals``' columns).
        feed: the Health Dashboard posts up to the clock (``labsupport.game.engine.feed``'s columns).
        actions: the log as played: ``labsupport.game.engine.fold``'s columns, then ``effect``
            (string, the model's), ``aws_time_s`` (float64, when AWS's operators took it; NaN if the
            sources give no time) and ``aws_tag`` (string, that timeline row's confidence tag, "" if none).
        score: one row per :data:`SCORE_ROWS`: ``stage`` (string), ``player_end_s`` (float64, NaN if
            not reached by the horizon or, for the first update, none posted), ``aws_end_s`` (float64,
            AWS's real time), ``aws_id`` and ``aws_tag`` (string, the timeline row), ``saved_s``
            (float64, AWS's time minus the player's: positive is faster than the real night) and
            ``impact_s`` (float64, the chain's impact in that stage; NaN for the last two rows).
        summary: a :class:`GameSummary`.
        chain: the :class:`labsupport.chain.ChainResult` behind it all (the debrief's, not the players').
    """

    config: GameConfig
    dashboards: pd.DataFrame
    signals: pd.DataFrame
    feed: pd.DataFrame
    actions: pd.DataFrame
    score: pd.DataFrame
    summary: GameSummary
    chain: chain.ChainResult


@functools.lru_cache(maxsize=64)
def _signals(ops: chain.OperatorActions) -> pd.DataFrame:
    """The whole game's signals for ``ops`` (cached; :func:`play` filters them by the clock)."""
    return _en.signals(_en.chain_run(ops), ops.horizon_s)


@functools.lru_cache(maxsize=1)
def _feed() -> pd.DataFrame:
    return _en.feed()


@functools.lru_cache(maxsize=1)
def _aws_rows() -> pd.DataFrame:
    rows = timeline.load().set_index("id")
    rows["time_s"] = (rows["time_pdt"].dt.tz_localize(None) - CLOCK.origin).dt.total_seconds()
    return rows


def play(config: GameConfig | None = None) -> GameResult:
    """Play the log in ``config`` through the chain model and show it as the operators would have seen it.

    Args:
        config: a :class:`GameConfig` (``None``: no actions, clock at 11:48 PM).

    Returns:
        A :class:`GameResult`. The same config always gives the same result, and what it shows up to
        the clock (signals, dashboards, posts, outcomes) does not depend on actions taken later.

    Raises:
        ConfigError: ``config`` is not a GameConfig.

    Follows the post-event summary's three impact periods through :func:`labsupport.chain.run` with
    the players' actions as :class:`labsupport.chain.OperatorActions`; AWS's times come from
    ``timeline.csv``.
    """
    config = GameConfig() if config is None else config
    if not isinstance(config, GameConfig):
        raise ConfigError(f"config must be a GameConfig, got {type(config).__name__}")
    ops, table = _en.fold(config.actions, config.horizon_s)
    result = _en.chain_run(ops)
    sig = _signals(ops)
    sig = sig[sig["time_s"] <= config.clock_s].reset_index(drop=True)
    feed = _feed()
    aws = _aws_rows()
    by_name = {a.name: a for a in ACTIONS}
    table["effect"] = pd.Series([by_name[n].effect for n in table["action"]], dtype="string")
    aws_s = aws["time_s"].to_dict()
    table["aws_time_s"] = pd.Series(
        [float(aws_s[by_name[n].aws_id]) if by_name[n].aws_id else math.nan for n in table["action"]], dtype="float64"
    )
    table["aws_tag"] = pd.Series(
        [str(aws.at[by_name[n].aws_id, "tag"]) if by_name[n].aws_id else "" for n in table["action"]], dtype="string"
    )
    summary = _summarise(config, ops, table, result)
    return GameResult(
        config=config,
        dashboards=sig[sig["dashboard"]].drop(columns="dashboard").reset_index(drop=True),
        signals=sig,
        feed=feed[feed["time_s"] <= config.clock_s].reset_index(drop=True),
        actions=table,
        score=_score(summary, result, aws),
        summary=summary,
        chain=result,
    )


def _stage_ends(result: chain.ChainResult, horizon: float) -> dict[str, float | None]:
    """Each stage's end if it ended by the horizon, else ``None`` (also for a stage that never began)."""
    st, trunc = result.stages, result.summary.truncated
    ends: dict[str, float | None] = {}
    for name in chain.STAGES:
        row = st[st["stage"] == name]
        end = float(row["end_s"].iloc[0]) if len(row) else None
        ends[name] = None if end is not None and (end > horizon or (trunc and end >= horizon)) else end
    return ends


def _summarise(
    config: GameConfig, ops: chain.OperatorActions, table: pd.DataFrame, result: chain.ChainResult
) -> GameSummary:
    horizon, st = config.horizon_s, result.stages
    ends = _stage_ends(result, horizon)
    happened = [name for name in chain.STAGES if (st["stage"] == name).any()]
    ec2 = result.times.ec2_recovered_s
    left_disabled = ops.failover_disabled_at_s is not None and ops.failover_reenabled_at_s is None
    throttled = ops.throttled_at_s()
    unwound = throttled is None or (ec2 is not None and ec2 <= horizon)
    over = not result.summary.truncated and all(ends[n] is not None for n in happened) and not left_disabled
    over = over and unwound
    moments = [e for e in (ends[n] for n in happened) if e is not None]
    moments += [m for m in (ec2 if throttled is not None else None, ops.failover_reenabled_at_s) if m is not None]
    starts = [*st["start_s"].astype(float), *([throttled] if throttled is not None else [])]
    over_at = (max(moments) if moments else 0.0) if over else None
    total = None if over_at is None else (max(0.0, over_at - min(starts)) if starts and moments else 0.0)
    posts = table[(table["action"] == "communicate") & table["in_effect"]]["time_s"]
    runs = result.runs
    refused = int(runs.dwfm.summary.insufficient_capacity_count)
    refused += int(runs.network.summary.refused_count) if runs.network is not None else 0
    return GameSummary(
        over=bool(over),
        over_at_s=None if over_at is None else float(over_at),
        total_s=None if total is None else float(total),
        dynamodb_end_s=ends[chain.STAGES[0]],
        launches_end_s=ends[chain.STAGES[1]],
        nlb_end_s=ends[chain.STAGES[2]],
        first_update_s=float(posts.min()) if len(posts) else None,
        impact_s=float(st["impact_s"].sum()),
        refused_launches_count=refused,
        health_check_flaps_count=int(runs.nlb.summary.flaps_count) if runs.nlb is not None else 0,
        failover_left_disabled=bool(left_disabled),
    )


def _score(summary: GameSummary, result: chain.ChainResult, aws: pd.DataFrame) -> pd.DataFrame:
    st = result.stages
    impact_of = dict(zip(st["stage"].astype(str), st["impact_s"].astype(float), strict=True))
    player = [
        summary.dynamodb_end_s,
        summary.launches_end_s,
        summary.nlb_end_s,
        summary.over_at_s,
        summary.first_update_s,
    ]
    impacts = [impact_of.get(name, 0.0) for name in chain.STAGES] + [math.nan, math.nan]
    rows = []
    times, tags = aws["time_s"].to_dict(), aws["tag"].astype(str).to_dict()
    for name, end, impact in zip(SCORE_ROWS, player, impacts, strict=True):
        rid = AWS_ENDS[name]
        rows.append((name, math.nan if end is None else float(end), float(times[rid]), rid, tags[rid], impact))
    frame = pd.DataFrame(rows, columns=["stage", "player_end_s", "aws_end_s", "aws_id", "aws_tag", "impact_s"])
    frame["saved_s"] = frame["aws_end_s"] - frame["player_end_s"]
    frame = frame.astype({"stage": "string", "aws_id": "string", "aws_tag": "string", "player_end_s": "float64"})
    return frame[["stage", "player_end_s", "aws_end_s", "aws_id", "aws_tag", "saved_s", "impact_s"]]


def inject_cards() -> pd.DataFrame:
    """The facilitated game's printed deck: the start, each public post, then the debrief's cards.

    One card per inject: ``start`` at 11:48 PM (t = 0); one ``post`` per Health Dashboard post made
    during the event (``labsupport.game.engine.feed``, at its real time, in the words the course's
    sources give); one ``debrief`` card per action of :data:`AWS_ACTIONS`, at the time the sources
    give it, and one per action they give no time for (its ``time`` reads "no time given"); one
    ``afterwards`` card per line of the Dashboard's final summary, written after the event. The
    facilitator keeps the debrief and afterwards cards face down until the debrief. No card depends
    on what the players do: the dashboards, which do, stay on the screen.

    Returns:
        One row per card, in deck order (kind, then time; a card with no time last): ``card``
        (int64, from 1), ``time_s`` (float64, seconds on the game's clock; NaN: no time given),
        ``time`` (string, "12:11 AM"), ``kind`` (string, one of :data:`CARD_KINDS`), ``title``,
        ``text``, ``source``, ``tag`` (string: the timeline row's confidence tag; empty for the
        start card), ``effect`` (string: what the chain model does with the action, the model's;
        empty but for debrief cards) and ``prompt`` (string, the facilitator's question,
        :data:`CARD_PROMPTS`).

    Follows the timeline's rows (``timeline.csv``): the Health Dashboard's posts and final summary
    and the post-event summary's operator actions, each with its tag.
    """
    aws = _aws_rows()
    by_name = {a.name: a for a in ACTIONS}
    start = (
        "Every dashboard is the chain model's; the posts are the Health Dashboard's real posts of the night, at "
        "their real times, in the words the course's sources give."
    )
    rows = [(0.0, "start", "The clock starts", start, "", "", "")]
    posts = _feed()
    for at, event, source, tag in zip(posts["time_s"], posts["event"], posts["source"], posts["tag"], strict=True):
        rows.append((float(at), "post", "AWS Health Dashboard post", str(event), str(source), str(tag), ""))
    for at, name in AWS_ACTIONS:
        action, row = by_name[name], aws.loc[by_name[name].aws_id]
        title = f"AWS's operators: {action.label}"
        rows.append(
            (float(at), "debrief", title, str(row["event"]), str(row["source"]), str(row["tag"]), action.effect)
        )
    for action in ACTIONS:
        if action.aws_note:
            title = f"AWS's operators: {action.label} (unconfirmed)"
            source = "a secondary account, not the summary"
            rows.append((math.nan, "debrief", title, action.aws_note, source, "UNVERIFIED", action.effect))
    later = _en.final_summary()
    title = "Written afterwards: the Health Dashboard's final summary"
    for at, event, source, tag in zip(later["time_s"], later["event"], later["source"], later["tag"], strict=True):
        rows.append((float(at), "afterwards", title, str(event), str(source), str(tag), ""))
    frame = pd.DataFrame(rows, columns=["time_s", "kind", "title", "text", "source", "tag", "effect"])
    frame["prompt"] = frame["kind"].map(CARD_PROMPTS)
    frame.insert(0, "card", pd.Series(range(1, len(frame) + 1), dtype="int64"))
    frame.insert(2, "time", [CLOCK.time_of_day(t) if t == t else "no time given" for t in frame["time_s"]])
    strings = [c for c in CARD_COLUMNS if c not in ("card", "time_s")]
    return frame.astype({"time_s": "float64", **{c: "string" for c in strings}})[list(CARD_COLUMNS)]
