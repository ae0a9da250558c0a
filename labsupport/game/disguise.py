"""The disguised night: the same models and mechanisms, with the services renamed and the times shifted.

Every workshop room of 2026 knows the story of 19 October 2025, and a team that knows it does not
diagnose: it remembers. A disguised game (``GameConfig(disguised=True)``) runs the same chain model
on the same actions; only what the team reads changes. Every name the screen shows goes through
:meth:`Disguise.text` (DynamoDB becomes "Ledger", DWFM "Hostkeeper", us-east-1 "north-2" ...), every
time through the disguise's own clock (the night starts at 1:22 PM on a Wednesday in March 2026,
local time), and the Health Dashboard's posts become a status page's, without quotation marks (the
words are no longer a source's). The debrief reveals the real night (:func:`reveal`). The renaming
is the course's invention; nothing in it is a fact about AWS::

    real text --Disguise.text (whole words, longest first)--> the screen's text
    time_s    --Disguise.clock.time_of_day-----------------> the screen's times
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from ..clock import Clock
from .config import CLOCK

__all__ = ["DISGUISED", "NIGHT", "RENAMES", "Disguise", "of", "reveal"]

#: Real name -> the disguised game's name, applied in this order to whole words.
RENAMES: tuple[tuple[str, str], ...] = (
    ("dynamodb.us-east-1.amazonaws.com", "ledger.north-2.example.net"),
    ("ec2.us-east-1.amazonaws.com", "compute.north-2.example.net"),
    ("sts.us-east-1.amazonaws.com", "tokens.north-2.example.net"),
    ("lambda.us-east-1.amazonaws.com", "functions.north-2.example.net"),
    ("us-east-1", "north-2"),
    ("AWS Health Dashboard", "status page"),
    ("Health Dashboard", "status page"),
    ("AWS Support Center", "Help desk"),
    ("Support Center", "Help desk"),
    ("Amazon Connect", "Contact centre"),
    ("Connect", "Contact centre"),
    ("DNS Planner", "record planner"),
    ("DNS Enactor", "record writer"),
    ("DynamoDB", "Ledger"),
    ("EC2", "Compute"),
    ("DWFM", "Hostkeeper"),
    ("Network Manager", "Netstate"),
    ("network load balancers", "edge balancers"),
    ("NLBs", "EdgeLBs"),
    ("NLB", "EdgeLB"),
    ("Lambda", "Functions"),
    ("SQS", "Queues"),
    ("STS", "Tokens"),
    ("Console sign-in", "Portal sign-in"),
    ("Redshift", "Warehouse"),
    ("RunInstances", "LaunchHost"),
    ("Route 53", "the DNS service"),
    ("Droplets", "Hosts"),
    ("droplets", "hosts"),
    ("droplet", "host"),
    ("AWS's", "the provider's"),
    ("AWS", "the provider"),
    ("PDT", "local time"),
)


@dataclass(frozen=True)
class Disguise:
    """How a game shows its names and times.

    Attributes:
        disguised: whether this is the disguised night.
        clock: the clock whose times the screen shows (the chain's for the real night).
        renames: real name -> shown name, in order (none for the real night).
        time_title: the time axis's words ("19–20 October 2025, PDT").
    """

    disguised: bool
    clock: Clock
    renames: tuple[tuple[str, str], ...]
    time_title: str

    def text(self, words: str) -> str:
        """``words`` as the screen shows them: each real name replaced as a whole word."""
        if not self.renames:
            return words
        out = _PATTERN.sub(lambda m: _SHOWN[m.group(0)], words)
        return out[:1].upper() + out[1:] if words[:1].isupper() else out

    def frame(self, frame: pd.DataFrame, columns: tuple[str, ...]) -> pd.DataFrame:
        """A copy of ``frame`` with each of ``columns`` (text) shown through :meth:`text`."""
        if not self.renames:
            return frame.copy()
        shown = {c: {v: self.text(str(v)) for v in frame[c].unique()} for c in columns}  # each name once
        return frame.assign(**{c: frame[c].map(shown[c]).astype("string") for c in columns})

    def time(self, time_s: float) -> str:
        """A time of the game's clock (seconds since its start) as the screen shows it ("1:22 PM")."""
        return self.clock.time_of_day(time_s)


_SHOWN = dict(RENAMES)
_PATTERN = re.compile("|".join(rf"(?<![\w.-]){re.escape(real)}(?![\w-])" for real, _ in RENAMES))

#: The real night, names as they were, on the chain's clock (PDT).
NIGHT = Disguise(False, CLOCK, (), "19–20 October 2025, PDT")
#: The disguised night, renamed and on a clock of its own (a Wednesday afternoon in March 2026, local time).
DISGUISED = Disguise(True, Clock(pd.Timestamp("2026-03-04 13:22:00")), RENAMES, "4–5 March 2026, local time")


def of(disguised: bool) -> Disguise:
    """:data:`DISGUISED` or :data:`NIGHT`."""
    return DISGUISED if disguised else NIGHT


_REVEALED = (
    "us-east-1",
    "Health Dashboard",
    "Support Center",
    "Connect",
    "DNS Planner",
    "DNS Enactor",
    "DynamoDB",
    "EC2",
    "DWFM",
    "Network Manager",
    "NLB",
    "Lambda",
    "SQS",
    "STS",
    "Console sign-in",
    "Redshift",
    "droplets",
    "AWS",
)


def reveal() -> pd.DataFrame:
    """What the disguised night was, for the debrief: one row per name and one for the clock.

    Returns:
        ``shown`` and ``real`` (string): each disguised name beside the real one, the time of the start
        beside 11:48 PM PDT on 19 October 2025.
    """
    rows = [(shown, real) for real, shown in RENAMES if real in _REVEALED]
    rows.append((f"{DISGUISED.clock.reading(0.0)} (local time)", f"{NIGHT.clock.reading(0.0)} PDT"))
    return pd.DataFrame(rows, columns=["shown", "real"]).astype("string")
