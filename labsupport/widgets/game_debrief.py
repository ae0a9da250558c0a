"""The game-day panel's debrief (lab 07): the verdict, the notes, impact and stage ends beside AWS's play,
the reveal of a disguised night, the night's code for the room, and the debrief chart."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
from IPython.display import Markdown

from .. import charts, game
from ..chain import STAGES
from ..game import room
from ..timeline import format_duration
from .panel import Shown

__all__ = ["debrief_view"]


def _when(t: float) -> str:
    return game.CLOCK.time_of_day(t) if t == t else "—"


def _within(stages: pd.DataFrame, horizon_s: float) -> pd.DataFrame:
    """The game's stages as the players lived them: those begun before the horizon, cut at it."""
    begun = stages[stages["start_s"] < horizon_s]
    return begun.assign(end_s=begun["end_s"].clip(upper=horizon_s))


def _yours(stage: str, end_s: float, absent: set[str], later: set[str], horizon_s: float) -> str:
    """The debrief's words for the team's end of one score row (``absent``: the stages the model never
    began; ``later``: those it began only at or after the horizon, which the debrief chart does not draw)."""
    if end_s == end_s:
        return _when(end_s)
    if stage == "First status update":
        return "none posted"
    if stage in absent:
        return "never began"
    return f"not begun by {_when(horizon_s)}" if stage in later else f"not over by {_when(horizon_s)}"


def _reveal(result: game.GameResult) -> str:
    if not result.config.disguised:
        return ""
    names = game.disguise.reveal()
    pairs = "; ".join(f"{r.shown} = {r.real}" for r in names.iloc[:-1].itertuples())
    return (
        "**The night you played** was the AWS us-east-1 outage of 19–20 October 2025, disguised: "
        f"{pairs}. {names['shown'].iloc[-1]} was {names['real'].iloc[-1]}. The mechanisms, the models and "
        "every number were the real night's; what follows uses the real names and times.\n\n"
    )


def _afterwards() -> str:
    """What the debrief adds that nobody had on the night: the Dashboard's final summary, AWS's undated actions."""
    lines = "".join(
        f"\n- **{r.time}** ({r.source}, [{r.tag}]): {r.event}" for r in game.engine.final_summary().itertuples()
    )
    unconfirmed = "".join(f"\n- {a.label}: {a.aws_note}" for a in game.ACTIONS if a.aws_note)
    return (
        "**Written afterwards.** The Health Dashboard's final summary, not posted during the night (its times "
        f"differ from the post-event summary's):{lines}"
        + (f"\n\n**No time in the sources:**{unconfirmed}" if unconfirmed else "")
    )


def _headline(result: game.GameResult) -> str:
    s, horizon = result.summary, result.config.horizon_s
    total = format_duration(s.total_s) if s.total_s is not None else f"not over by {_when(horizon)}"
    aws_total = format_duration(float(result.score.set_index("stage")["aws_end_s"].to_dict()["Whole event"]))
    cause = next(a for a in game.ALARMS if a.points_to == "dns:DynamoDB").name
    every = game.play(replace(result.config, clock_s=horizon)).alarms  # the debrief reads the whole night
    fired = every[every["state"] == "ALARM"]
    first = fired.loc[fired["alarm"] == cause, "time_s"]
    alarms = (
        f" Of the {fired['alarm'].nunique()} alarms that fired, one pointed to the cause, `{cause}` (from "
        f"{_when(float(first.min()))}); the others were symptoms or mechanisms."
        if len(first)
        else ""
    )
    return (
        f"**Verdict: {s.verdict}.** Customers' requests failing: **{s.customer_minutes:,.0f} customer-minutes** "
        f"(the model's). Impact ranks a night against AWS's play (AWS's actions at AWS's times, in the same "
        f"model); a difference inside the model's calibration band, {game.BAND_FRACTION:.0%}, is no difference: "
        "the course holds each of the chain's stage lengths within that of the post-event summary's "
        "(`labsupport.chain.calibration`). Stage ends stand beside it and never rank a night: a stage can end "
        f"sooner for the wrong reason. Whole event (model): **{total}**; AWS's (summary): {aws_total}.{alarms}"
    )


def debrief_view(result: game.GameResult) -> list[Shown]:
    """The debrief of one night: ``[Markdown (reveal, verdict, notes, written afterwards, the code), impact
    table, stage-end table, debrief chart]``, in the real night's names and times."""
    s, horizon = result.summary, result.config.horizon_s
    notes = "".join(f"\n- {n}" for n in game.notes(result))
    code = room.export(result.config)
    text = (
        _reveal(result)
        + _headline(result)
        + (f"\n\n**On the night:**{notes}" if notes else "")
        + f"\n\nRefused launches (model): {s.refused_launches_count:,}; NLB health-check flaps (model): "
        f"{s.health_check_flaps_count:,}."
        + (" Automatic failover was left disabled." if s.failover_left_disabled else "")
        + "\n\n"
        + _afterwards()
        + f"\n\n**Your night's code**, for the facilitator's comparison of the room: `{code}`"
    )
    impact = result.impact.assign(
        band=[
            f"{lo:,.0f} to {hi:,.0f}"
            for lo, hi in zip(result.impact["band_low"], result.impact["band_high"], strict=True)
        ]
    )[["measure", "unit", "yours", "aws_play", "band", "verdict"]].round({"yours": 0, "aws_play": 0})
    absent = set(STAGES) - set(result.chain.stages["stage"].astype(str))
    later = set(STAGES) - absent - set(_within(result.chain.stages, horizon)["stage"].astype(str))
    sc = result.score
    ends = pd.DataFrame(
        {
            "stage": sc["stage"],
            "yours": [
                _yours(st, v, absent, later, horizon) for st, v in zip(sc["stage"], sc["player_end_s"], strict=True)
            ],
            "AWS's play (model)": sc["aws_play_end_s"].map(_when),
            "AWS (summary)": [f"{_when(t)} [{tag}]" for t, tag in zip(sc["aws_end_s"], sc["aws_tag"], strict=True)],
            "band": sc["band_s"].map(lambda b: f"± {format_duration(b)}" if b else "exact"),
            "verdict": sc["verdict"],
        }
    )
    aws = game.play(game.GameConfig(actions=game.AWS_ACTIONS, horizon_s=horizon)).actions
    aws = aws.loc[aws["in_effect"], ["time_s", "label"]].reset_index(drop=True)
    chart = charts.game_debrief_chart(_within(result.chain.stages, horizon), result.actions, aws_actions=aws)
    return [Markdown(text), impact, ends, chart]
