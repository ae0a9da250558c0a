"""Game day: the night of 19 October 2025, played as the on-call operators saw it.

Scenario:
    From 11:48 PM PDT (t = 0 of ``CLOCK``) a team advances the clock in steps of 5, 15 or 60
    minutes (:data:`STEPS_S`) to a 16-hour horizon. It reads a pager of alarms (:data:`ALARMS`,
    most of them symptoms), operator-visible dashboards and the Health Dashboard's posts made during
    the event (:data:`POSTS`), all drawn from the chain model's run up to the clock. It investigates
    a chosen system (:data:`INVESTIGATIONS`: each look costs game time, and its finding is read off
    the models when it comes back) and acts on one (:data:`REMEDIES`: what an operator can do to a
    system, most of which change nothing in the model). The final summary the Dashboard wrote
    afterwards (:data:`FINAL_SUMMARY`) and AWS's own times are the debrief's. A disguised night
    (``GameConfig(disguised=True)``: services renamed, times shifted, the same mechanisms) is for
    rooms that know the story; the debrief reveals it.
Covers:
    The post-event summary's three impact periods, through :func:`labsupport.chain.run` with
    :class:`labsupport.chain.OperatorActions` in place of the chain's operator rules::

        log of (time, action) --fold--> OperatorActions --chain.run--> stages, impact, runs, times
                                                                          |
          signals (model, each known at its time) --> alarms, findings, dashboards, feed (up to the clock)
                                                  --> score: impact beside stage ends, against AWS's play
                                                      in the same model, within the calibration band;
                                                      hindsight named; the debrief's notes

Every figure is the chain model's; every action carries the timeline row, time and tag of AWS's
operators' own action, where the sources give one. A run is a function of its log: the same actions
give the same score, and nothing shown before a time depends on what is done after it.

Modules: ``config`` (:class:`GameConfig`, the systems, remedies, investigations: :data:`ACTIONS`),
``night`` (the posts, the final summary, :data:`AWS_ACTIONS`), ``players`` (:data:`PLAYERS`: AWS's
play, a team that follows the posts, hindsight and the degenerate plays), ``disguise``, ``engine`` (log to
operators, signals, feed), ``alarms``, ``investigate``, ``score``, ``cards`` (the facilitated game's
deck), ``model`` (:func:`play`), ``debrief`` (:func:`notes`), ``screen`` (:func:`screen`: what the
team sees, disguised or not), ``room`` (:func:`export`, :func:`load`, :func:`compare`) and ``sweep``
(:func:`search`, the best player a search finds).
"""

from __future__ import annotations

from .alarms import ALARMS, Alarm
from .cards import CARD_COLUMNS, CARD_KINDS, CARD_PROMPTS, inject_cards
from .config import (
    ACTION_NAMES,
    ACTIONS,
    CLOCK,
    HORIZON_S,
    INVESTIGATIONS,
    REMEDIES,
    STEPS_S,
    SYSTEMS,
    VERBS,
    Action,
    GameConfig,
    action_for,
)
from .debrief import notes
from .disguise import DISGUISED, NIGHT, Disguise
from .engine import EXTRA_SIGNALS, NOTES, SIGNALS
from .model import AWS_ENDS, SCORE_ROWS, GameResult, GameSummary, play
from .night import AWS_ACTIONS, FINAL_SUMMARY, POSTS
from .players import DEGENERATE, PLAYERS, players
from .room import compare, export, load
from .score import BAND_FRACTION, VERDICTS
from .screen import Screen, screen
from .sweep import search

__all__ = [
    "Action",
    "action_for",
    "ACTION_NAMES",
    "ACTIONS",
    "Alarm",
    "ALARMS",
    "AWS_ACTIONS",
    "AWS_ENDS",
    "BAND_FRACTION",
    "CARD_COLUMNS",
    "CARD_KINDS",
    "CARD_PROMPTS",
    "CLOCK",
    "compare",
    "DEGENERATE",
    "Disguise",
    "DISGUISED",
    "export",
    "EXTRA_SIGNALS",
    "FINAL_SUMMARY",
    "GameConfig",
    "GameResult",
    "GameSummary",
    "HORIZON_S",
    "inject_cards",
    "INVESTIGATIONS",
    "load",
    "NIGHT",
    "notes",
    "NOTES",
    "play",
    "PLAYERS",
    "players",
    "POSTS",
    "REMEDIES",
    "SCORE_ROWS",
    "screen",
    "Screen",
    "search",
    "SIGNALS",
    "STEPS_S",
    "SYSTEMS",
    "VERBS",
    "VERDICTS",
]
