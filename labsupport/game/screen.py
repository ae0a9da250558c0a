"""What the team's screen shows at the clock, in the game's names: the real night's, or the disguised one's.

:func:`labsupport.game.play` keeps the real names (its frames are the model's record);
:func:`screen` turns a result into what the panel puts in front of the team: the posts, the pager
(newest first, the alarms firing now on top), the investigations' findings, the dashboards and the
log, each name and time through the game's :class:`~labsupport.game.disguise.Disguise`. Everything
in it is read up to the clock, so nothing in it depends on an action taken later::

    GameResult --(up to the clock)--> Disguise.text / Disguise.time --> Screen (frames the panel draws)
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..errors import ConfigError
from . import disguise as _disguise
from .config import ACTIONS
from .model import GameResult

__all__ = ["Screen", "screen"]

_BY_NAME = {a.name: a for a in ACTIONS}


@dataclass(frozen=True)
class Screen:
    """The team's screen at the clock (names and times as the game shows them).

    Attributes:
        disguise: the game's :class:`~labsupport.game.disguise.Disguise`.
        clock: the clock's time ("1:22 PM").
        posts: ``time_s`` (float64), ``time``, ``text`` (string): the public posts so far, oldest first.
        firing: ``since_s`` (float64), ``since``, ``alarm`` (string): the alarms in ALARM at the clock,
            newest first.
        pager: ``time_s`` (float64), ``time``, ``alarm``, ``state`` (string): every transition so far,
            newest first.
        findings: ``time_s`` (float64), ``time``, ``asked``, ``finding`` (string): the investigations'
            results so far, newest first.
        dashboards: the dashboards' signals so far (``time_s``, ``panel``, ``signal``, ``unit``,
            ``value``), panels and signals renamed.
        log: ``time_s`` (float64), ``time``, ``action``, ``outcome`` (string; an investigation reads
            "investigating" until its result is back, then "result back at 1:03 AM"): the actions taken so
            far, in the order played (what each does in the model is the debrief's: a team that could
            read it would try every remedy instead of diagnosing).
    """

    disguise: _disguise.Disguise
    clock: str
    posts: pd.DataFrame
    firing: pd.DataFrame
    pager: pd.DataFrame
    findings: pd.DataFrame
    dashboards: pd.DataFrame
    log: pd.DataFrame


def _timed(frame: pd.DataFrame, d: _disguise.Disguise, column: str = "time_s") -> pd.Series:
    return pd.Series([d.time(float(t)) for t in frame[column]], index=frame.index, dtype="string")


def _post_text(d: _disguise.Disguise, words: str, tag: str) -> str:
    """A post as the screen shows it: with its tag on the real night, renamed and unquoted when disguised."""
    return d.text(words).replace('"', "") if d.disguised else f"{words} [{tag}]"


def _outcome(action: str, outcome: str, at_s: float, clock_s: float, d: _disguise.Disguise) -> str:
    """An entry's outcome as the log shows it at the clock: an investigation whose result is back says when."""
    back_s = at_s + _BY_NAME[action].cost_s
    if outcome == "investigating" and back_s <= clock_s:
        return f"result back at {d.time(back_s)}"
    return outcome


def screen(result: GameResult) -> Screen:
    """The team's screen for ``result`` at its clock (disguised if its config says so).

    Raises:
        ConfigError: ``result`` is not a :class:`~labsupport.game.GameResult`.
    """
    if not isinstance(result, GameResult):
        raise ConfigError(f"result must be a labsupport.game.GameResult, got {type(result).__name__}")
    d, clock = _disguise.of(result.config.disguised), result.config.clock_s
    feed = result.feed
    posts = pd.DataFrame(
        {
            "time_s": feed["time_s"].astype("float64"),
            "time": _timed(feed, d),
            "text": [_post_text(d, str(w), str(t)) for w, t in zip(feed["event"], feed["tag"], strict=True)],
        }
    ).astype({"text": "string"})
    pager = result.alarms.iloc[::-1].reset_index(drop=True)
    pager = pd.DataFrame(
        {
            "time_s": pager["time_s"],
            "time": _timed(pager, d),
            "alarm": [d.text(str(a)) for a in pager["alarm"]],
            "state": pager["state"],
        }
    ).astype({"alarm": "string", "state": "string"})
    latest = pager.drop_duplicates("alarm")
    firing = latest[latest["state"] == "ALARM"].rename(columns={"time_s": "since_s", "time": "since"})
    found = result.findings.iloc[::-1].reset_index(drop=True)
    findings = pd.DataFrame(
        {
            "time_s": found["time_s"],
            "time": _timed(found, d),
            "asked": [d.text(_BY_NAME[str(a)].label) for a in found["action"]],
            "finding": [d.text(str(t)) for t in found["text"]],
        }
    ).astype({"asked": "string", "finding": "string"})
    acts = result.actions[result.actions["time_s"] <= clock]
    log = pd.DataFrame(
        {
            "time_s": acts["time_s"],
            "time": _timed(acts, d),
            "action": [d.text(str(x)) for x in acts["label"]],
            "outcome": [
                _outcome(str(a), str(o), float(t), clock, d)
                for a, o, t in zip(acts["action"], acts["outcome"], acts["time_s"], strict=True)
            ],
        }
    ).astype({"action": "string", "outcome": "string"})
    dashboards = d.frame(result.dashboards[["time_s", "panel", "signal", "unit", "value"]], ("panel", "signal"))
    return Screen(
        d,
        d.time(clock),
        posts,
        firing[["since_s", "since", "alarm"]].reset_index(drop=True),
        pager,
        findings,
        dashboards,
        log.reset_index(drop=True),
    )
