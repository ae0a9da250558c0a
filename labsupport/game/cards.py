"""The facilitated game's printed deck: the start, each public post, and the debrief's face-down cards."""

from __future__ import annotations

import functools
import math

import pandas as pd

from .. import timeline
from .._validate import check_bool
from . import disguise
from . import engine as _en
from .config import ACTIONS, CLOCK
from .night import AWS_ACTIONS

__all__ = ["CARD_COLUMNS", "CARD_KINDS", "CARD_PROMPTS", "aws_rows", "inject_cards"]

#: The kinds of :func:`inject_cards`, in the order the deck holds them.
CARD_KINDS: tuple[str, ...] = ("start", "post", "debrief", "afterwards")

#: The columns of :func:`inject_cards`, in order.
CARD_COLUMNS: tuple[str, ...] = ("card", "time_s", "time", "kind", "title", "text", "source", "tag", "effect", "prompt")

#: What the facilitator asks at each kind of card (the course's game rules, not a source's words).
CARD_PROMPTS: dict[str, str] = {
    "start": (
        "You are on call for us-east-1. Read the alarms and the dashboards aloud, investigate before you act "
        "(each look costs game time), and act only on what your screen and the public posts show."
    ),
    "post": (
        "Read the post aloud at this time. Operations: which alarm or dashboard agrees with it? Communications: "
        "does the team's own status update say more, or less?"
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


@functools.lru_cache(maxsize=1)
def aws_rows() -> pd.DataFrame:
    """The timeline's rows by ``id``, with ``time_s`` on the game's clock (cached; do not modify)."""
    rows = timeline.load().set_index("id")
    rows["time_s"] = (rows["time_pdt"].dt.tz_localize(None) - CLOCK.origin).dt.total_seconds()
    return rows


def inject_cards(*, disguised: bool = False) -> pd.DataFrame:
    """The facilitated game's printed deck: the start, each public post, then the debrief's cards.

    Args:
        disguised: the deck of the disguised night (:mod:`labsupport.game.disguise`): its start and
            post cards in the disguised names and times, without source or tag (they would give the
            story away); its debrief and afterwards cards, read once the night is revealed, as ever.

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

    Raises:
        ConfigError: ``disguised`` is not a bool.
    """
    d = disguise.of(check_bool("disguised", disguised))
    rows = [*_face_up(d), *_face_down()]
    frame = pd.DataFrame(rows, columns=["time_s", "kind", "title", "text", "source", "tag", "effect"])
    frame["prompt"] = frame["kind"].map(
        lambda k: d.text(CARD_PROMPTS[k]) if k in ("start", "post") else CARD_PROMPTS[k]
    )
    frame.insert(0, "card", pd.Series(range(1, len(frame) + 1), dtype="int64"))
    face_up = frame["kind"].isin(["start", "post"])
    times = [
        (d if up else disguise.NIGHT).time(t) if t == t else "no time given"
        for t, up in zip(frame["time_s"], face_up, strict=True)
    ]
    frame.insert(2, "time", times)
    strings = [c for c in CARD_COLUMNS if c not in ("card", "time_s")]
    return frame.astype({"time_s": "float64", **{c: "string" for c in strings}})[list(CARD_COLUMNS)]


def _face_up(d: disguise.Disguise) -> list[tuple]:
    """The start card and one card per post, in the game's names (a disguised night's have no source)."""
    if d.disguised:
        start = (
            "A real outage, disguised: its services are renamed and its times shifted; the debrief reveals which. "
            "Every alarm, dashboard and finding is the course's chain model; the posts are the night's own, renamed."
        )
    else:
        start = (
            "Every alarm, dashboard and finding is the chain model's; the posts are the Health Dashboard's real posts "
            "of the night, at their real times, in the words the course's sources give."
        )
    rows = [(0.0, "start", "The clock starts", start, "", "", "")]
    posts = _en.feed()
    title = d.text("AWS Health Dashboard post")
    for at, event, source, tag in zip(posts["time_s"], posts["event"], posts["source"], posts["tag"], strict=True):
        shown = (d.text(str(event)).replace('"', ""), "", "") if d.disguised else (str(event), str(source), str(tag))
        rows.append((float(at), "post", title, *shown, ""))
    return rows


def _face_down() -> list[tuple]:
    """The debrief's cards: AWS's actions at their times (and those without one), the final summary."""
    aws = aws_rows()
    by_name = {a.name: a for a in ACTIONS}
    rows: list[tuple] = []
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
    return rows
