"""One game: :func:`play` returns what the players see at the clock and the score against the real night."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

import pandas as pd

from .. import chain
from ..errors import ConfigError
from . import alarms, cards, investigate, score
from . import engine as _en
from .config import ACTIONS, GameConfig
from .night import AWS_ACTIONS

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
            before Network Manager, up to the horizon.
        health_check_flaps_count: NLB health-check state changes (of new instances still waiting for
            their network state, in the model).
        failover_left_disabled: NLB automatic failover was disabled and never re-enabled.
        customer_minutes: customers' requests failing, integrated over the game (the model's
            "Customers: requests failing", in customer-minutes).
        verdict: one of :data:`labsupport.game.score.VERDICTS` (hindsight, not over, or customers'
            impact against AWS's play within the model's calibration band).
        hindsight_count: actions that acted on the models before anything on the screen pointed to them.
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
    customer_minutes: float = 0.0
    verdict: str = ""
    hindsight_count: int = 0


@dataclass(frozen=True)
class GameResult:
    """What :func:`play` returns.

    Attributes:
        config: the :class:`GameConfig` played.
        dashboards: the operator-visible signals up to ``config.clock_s``
            (the columns of ``labsupport.game.engine.dashboards``).
        signals: every signal of the run up to ``config.clock_s``, the dashboards' and those an alarm
            or an investigation could read (``labsupport.game.engine.signals``' columns).
        alarms: the pager's transitions up to the clock (:func:`labsupport.game.alarms.evaluate`'s columns).
        findings: the investigations' results that have come back by the clock
            (:func:`labsupport.game.investigate.findings`' columns).
        feed: the Health Dashboard posts up to the clock (``labsupport.game.engine.feed``'s columns).
        actions: the log as played: ``labsupport.game.engine.fold``'s columns, then ``effect``
            (string, the model's), ``aws_time_s`` (float64, when AWS's operators took it; NaN if the
            sources give no time) and ``aws_tag`` (string, that timeline row's confidence tag, "" if none).
        score: one row per :data:`SCORE_ROWS`: ``stage`` (string), ``player_end_s`` (float64, NaN if
            not reached by the horizon or, for the first update, none posted), ``aws_end_s`` (float64,
            AWS's real time), ``aws_id`` and ``aws_tag`` (string, the timeline row), ``saved_s``
            (float64, AWS's real time minus the player's), ``impact_s`` (float64, the chain's impact in
            that stage; NaN for the last two rows), ``aws_play_end_s`` (float64, AWS's play in the
            same model), ``band_s`` (float64, :func:`labsupport.game.score.band_of_end`) and
            ``verdict`` (string: ``"sooner"``, ``"later"``, ``"within the band"`` than AWS's play, or
            ``"n/a"``).
        impact: the impact rows beside AWS's play (:func:`labsupport.game.score.impact_table`).
        hindsight: each action in effect that acts on the models and what justified it
            (:func:`labsupport.game.score.hindsight`).
        summary: a :class:`GameSummary`.
        chain: the :class:`labsupport.chain.ChainResult` behind it all (the debrief's, not the players');
            shared by every play of the same log: read-only (copy a frame before changing it).
    """

    config: GameConfig
    dashboards: pd.DataFrame
    signals: pd.DataFrame
    alarms: pd.DataFrame
    findings: pd.DataFrame
    feed: pd.DataFrame
    actions: pd.DataFrame
    score: pd.DataFrame
    impact: pd.DataFrame
    hindsight: pd.DataFrame
    summary: GameSummary
    chain: chain.ChainResult


@functools.lru_cache(maxsize=64)
def _signals(ops: chain.OperatorActions) -> pd.DataFrame:
    """The whole game's signals for ``ops`` (cached; :func:`play` filters them by the clock)."""
    return _en.signals(_en.chain_run(ops), ops.horizon_s)


@functools.lru_cache(maxsize=64)
def _alarms(ops: chain.OperatorActions) -> pd.DataFrame:
    """The whole game's alarm transitions for ``ops`` (cached)."""
    return alarms.evaluate(_signals(ops), ops.horizon_s)


@functools.lru_cache(maxsize=64)
def _series(ops: chain.OperatorActions) -> investigate.Series:
    """The whole game's signals for ``ops`` as arrays per signal, for the investigations (cached)."""
    return investigate.series_of(_signals(ops))


@functools.lru_cache(maxsize=1)
def _feed() -> pd.DataFrame:
    return _en.feed()


@dataclass(frozen=True)
class _Night:
    """One log played over the whole game (cached: :func:`play` reads it up to the clock)."""

    ops: chain.OperatorActions
    table: pd.DataFrame
    result: chain.ChainResult
    findings: pd.DataFrame
    summary: GameSummary
    measures: dict[str, float]


@functools.lru_cache(maxsize=64)
def _night(actions: tuple[tuple[float, str], ...], horizon_s: float) -> _Night:
    ops, table = _en.fold(actions, horizon_s)
    result = _en.chain_run(ops)
    summary = _summarise(horizon_s, ops, table, result)
    measures = score.impact_measures(_signals(ops), horizon_s)  # up to the horizon, whatever the stages
    summary = replace(
        summary,
        customer_minutes=measures[score.IMPACT_ROWS[0][0]],
        refused_launches_count=round(measures[score.IMPACT_ROWS[-1][0]]),
    )
    asked = table["outcome"].eq("investigating").any()
    found = investigate.findings(table, _signals(ops), horizon_s, series=_series(ops) if asked else None)
    return _Night(ops, table, result, found, summary, measures)


def play(config: GameConfig | None = None) -> GameResult:
    """Play the log in ``config`` through the chain model and show it as the operators would have seen it.

    Args:
        config: a :class:`GameConfig` (``None``: no actions, clock at 11:48 PM).

    Returns:
        A :class:`GameResult`. The same config always gives the same result, and what it shows up to
        the clock (signals, dashboards, alarms, findings, posts, outcomes) does not depend on actions
        taken later. Its names are the real night's, also for a disguised config (the panel shows them
        through :mod:`labsupport.game.disguise`).

    Raises:
        ConfigError: ``config`` is not a GameConfig.

    Follows the post-event summary's three impact periods through :func:`labsupport.chain.run` with
    the players' actions as :class:`labsupport.chain.OperatorActions`; AWS's times come from
    ``timeline.csv``.
    """
    config = GameConfig() if config is None else config
    if not isinstance(config, GameConfig):
        raise ConfigError(f"config must be a GameConfig, got {type(config).__name__}")
    night = _night(config.actions, config.horizon_s)
    clock = config.clock_s
    sig = _signals(night.ops)
    sig = sig[sig["time_s"] <= clock].reset_index(drop=True)
    every_alarm, feed = _alarms(night.ops), _feed()
    table, hind, impact, summary, scored = _scored(config.actions, config.horizon_s)
    return GameResult(
        config=config,
        dashboards=sig[sig["dashboard"]].drop(columns="dashboard").reset_index(drop=True),
        signals=sig,
        alarms=every_alarm[every_alarm["time_s"] <= clock].reset_index(drop=True),
        findings=night.findings[night.findings["time_s"] <= clock].reset_index(drop=True),
        feed=feed[feed["time_s"] <= clock].reset_index(drop=True),
        actions=table.copy(),
        score=scored.copy(),
        impact=impact.copy(),
        hindsight=hind.copy(),
        summary=summary,
        chain=night.result,
    )


@functools.lru_cache(maxsize=64)
def _scored(
    actions: tuple[tuple[float, str], ...], horizon_s: float
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, GameSummary, pd.DataFrame]:
    """The night's log as played, hindsight, impact, summary and score: none depends on the clock (cached;
    :func:`play` hands out copies)."""
    night, aws = _night(actions, horizon_s), _night(AWS_ACTIONS, horizon_s)
    table = _described(night.table)
    hind = score.hindsight(table, _alarms(night.ops), night.findings, _feed())
    impact = score.impact_table(night.measures, aws.measures)
    verdict = _verdict(night.summary, hind, impact)
    summary = replace(night.summary, verdict=verdict, hindsight_count=int(hind["hindsight"].sum()))
    return table, hind, impact, summary, _score(summary, aws.summary, night.result, cards.aws_rows())


def _described(table: pd.DataFrame) -> pd.DataFrame:
    """The log as played, with each action's effect in the model and AWS's time and tag for it."""
    aws, by_name = cards.aws_rows(), {a.name: a for a in ACTIONS}
    times, tags = aws["time_s"].to_dict(), aws["tag"].astype(str).to_dict()
    ids = [by_name[n].aws_id for n in table["action"]]
    table = table.copy()
    table["effect"] = pd.Series([by_name[n].effect for n in table["action"]], dtype="string")
    table["aws_time_s"] = pd.Series([float(times[i]) if i else math.nan for i in ids], dtype="float64")
    table["aws_tag"] = pd.Series([tags[i] if i else "" for i in ids], dtype="string")
    return table


def _verdict(summary: GameSummary, hind: pd.DataFrame, impact: pd.DataFrame) -> str:
    """The night's verdict (one of :data:`labsupport.game.score.VERDICTS`): hindsight first, then over
    or not, then customers' impact against AWS's play within the band; a night whose customers' impact
    is within the band but which is worse on another impact row, and better on none, is worse (never
    touching NLB failover: the same customer-minutes, more NLB connection errors)."""
    if hind["hindsight"].any():
        return "hindsight"
    if not summary.over:
        return "not over"
    verdicts = [str(v) for v in impact["verdict"]]
    headline, others = verdicts[0], verdicts[1:]
    if headline == "within the band" and "more" in others and "less" not in others:
        return score.VERDICTS[4]
    return {"less": score.VERDICTS[2], "more": score.VERDICTS[4]}.get(headline, score.VERDICTS[3])


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
    horizon: float, ops: chain.OperatorActions, table: pd.DataFrame, result: chain.ChainResult
) -> GameSummary:
    st = result.stages
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
    return GameSummary(
        over=bool(over),
        over_at_s=None if over_at is None else float(over_at),
        total_s=None if total is None else float(total),
        dynamodb_end_s=ends[chain.STAGES[0]],
        launches_end_s=ends[chain.STAGES[1]],
        nlb_end_s=ends[chain.STAGES[2]],
        first_update_s=float(posts.min()) if len(posts) else None,
        impact_s=float(st["impact_s"].sum()),
        refused_launches_count=0,  # read off the signals up to the horizon (_night)
        health_check_flaps_count=int(runs.nlb.summary.flaps_count) if runs.nlb is not None else 0,
        failover_left_disabled=bool(left_disabled),
    )


def _score(summary: GameSummary, aws_play: GameSummary, result: chain.ChainResult, aws: pd.DataFrame) -> pd.DataFrame:
    st = result.stages
    impact_of = dict(zip(st["stage"].astype(str), st["impact_s"].astype(float), strict=True))
    impacts = [impact_of.get(name, 0.0) for name in chain.STAGES] + [math.nan, math.nan]
    rows = []
    times, tags = aws["time_s"].to_dict(), aws["tag"].astype(str).to_dict()
    for name, impact, mine, theirs in zip(SCORE_ROWS, impacts, _ends(summary), _ends(aws_play), strict=True):
        rid, band = AWS_ENDS[name], score.band_of_end(name)
        verdict = score.compare(mine, theirs, band)
        rows.append((name, mine, float(times[rid]), rid, tags[rid], impact, theirs, band, verdict))
    columns = ["stage", "player_end_s", "aws_end_s", "aws_id", "aws_tag", "impact_s", "aws_play_end_s", "band_s"]
    frame = pd.DataFrame(rows, columns=[*columns, "verdict"])
    frame["saved_s"] = frame["aws_end_s"] - frame["player_end_s"]
    frame = frame.astype({c: "string" for c in ("stage", "aws_id", "aws_tag", "verdict")}).astype(
        {c: "float64" for c in ("player_end_s", "aws_play_end_s", "band_s")}
    )
    return frame[
        ["stage", "player_end_s", "aws_end_s", "aws_id", "aws_tag", "saved_s", "impact_s", *columns[6:], "verdict"]
    ]


def _ends(summary: GameSummary) -> list[float]:
    """The score rows' ends of one night (NaN: not reached, or no update posted)."""
    ends = (
        summary.dynamodb_end_s,
        summary.launches_end_s,
        summary.nlb_end_s,
        summary.over_at_s,
        summary.first_update_s,
    )
    return [math.nan if e is None else float(e) for e in ends]
