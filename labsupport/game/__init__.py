"""Game day: the night of 19 October 2025, played as the on-call operators saw it.

Scenario:
    From 11:48 PM PDT (t = 0 of ``CLOCK``) the players advance the clock in steps of 5, 15 or
    60 minutes (:data:`STEPS_S`) to a 16-hour horizon and take the actions the operators had
    (:data:`ACTIONS`). At each step they see only operator-visible dashboards drawn from the chain
    model's run and the Health Dashboard's posts made during the event (:data:`POSTS`), at their
    real times; the final summary the Dashboard wrote afterwards (:data:`FINAL_SUMMARY`) and AWS's
    own times are the debrief's.
Covers:
    The post-event summary's three impact periods, through :func:`labsupport.chain.run` with
    :class:`labsupport.chain.OperatorActions` in place of the chain's operator rules::

        log of (time, action) --fold--> OperatorActions --chain.run--> stages, impact, runs, times
                                        (the chain's operators strategy)   |
          signals up to the clock (model) + feed (timeline, OTHER)  <------+--> score vs timeline.csv

Every dashboard curve is the chain model's (``source`` = ``"model"``); every action carries the
timeline row, time and tag of AWS's operators' own action, where the sources give one; the score
sets the players' stage ends beside AWS's real ones. A run is a function of its log: the same
actions give the same score, and nothing shown before a time depends on what is done after it.

For what is built on it (alarms, investigations, exports): ``GameResult.actions`` is the log as
played, with times and outcomes; ``GameResult.signals`` every model signal up to the clock
(:data:`SIGNALS` on the dashboards, :data:`EXTRA_SIGNALS` beyond them); ``engine.signals(run,
horizon_s)`` the same over the whole game, so that a dashboard at any clock is a filter of it.

Modules: ``config`` (:class:`GameConfig`, :data:`ACTIONS`, :data:`AWS_ACTIONS`), ``engine`` (log
to actions, dashboards, feed), ``model`` (:func:`play`; :func:`inject_cards`, the facilitated game's
printed deck) and ``sweep`` (:func:`search`, the best player a search finds).
"""

from __future__ import annotations

from .config import (
    ACTION_NAMES,
    ACTIONS,
    AWS_ACTIONS,
    CLOCK,
    FINAL_SUMMARY,
    HORIZON_S,
    POSTS,
    STEPS_S,
    Action,
    GameConfig,
)
from .engine import EXTRA_SIGNALS, NOTES, SIGNALS
from .model import (
    AWS_ENDS,
    CARD_COLUMNS,
    CARD_KINDS,
    CARD_PROMPTS,
    SCORE_ROWS,
    GameResult,
    GameSummary,
    inject_cards,
    play,
)
from .sweep import search

__all__ = [
    "Action",
    "ACTION_NAMES",
    "ACTIONS",
    "AWS_ACTIONS",
    "AWS_ENDS",
    "CARD_COLUMNS",
    "CARD_KINDS",
    "CARD_PROMPTS",
    "CLOCK",
    "EXTRA_SIGNALS",
    "FINAL_SUMMARY",
    "GameConfig",
    "GameResult",
    "GameSummary",
    "HORIZON_S",
    "inject_cards",
    "NOTES",
    "play",
    "POSTS",
    "SCORE_ROWS",
    "search",
    "SIGNALS",
    "STEPS_S",
]
