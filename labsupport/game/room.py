"""The room: each team exports its night as a short code, and the facilitator sets every night side by side.

A code holds a team's log, clock, horizon and whether it played the disguised night, nothing
else: the facilitator's machine replays it through the same model, so a code cannot claim a
score its actions did not earn, and a code that is mistyped, altered or made up fails its check
with the course's ``ConfigError``::

    GameConfig --export--> "GD1-ABCDE-FGHIJ-..." (base32 of the packed log + a CRC-32)
    {team: code} --compare--> one row per team beside AWS's play (verdict, impact, stage ends)
                 --stages---> every team's stages on AWS's axis (labsupport.charts.game_room_chart)
"""

from __future__ import annotations

import base64
import binascii
import struct
import zlib
from collections.abc import Mapping
from dataclasses import replace

import pandas as pd

from .. import chain
from ..errors import ConfigError
from .config import ACTION_NAMES, HORIZON_S, GameConfig
from .model import GameResult, play
from .night import AWS_ACTIONS

__all__ = ["AWS_TEAM", "PREFIX", "ROOM_COLUMNS", "compare", "export", "load", "stages"]

#: The start of every code, the format's version (a code from another version is refused).
PREFIX = "GD1"
#: The name :func:`labsupport.game.compare` gives AWS's play.
AWS_TEAM = "AWS's play"
#: The columns of :func:`labsupport.game.compare`, in order.
ROOM_COLUMNS: tuple[str, ...] = (
    "team",
    "verdict",
    "customer_minutes",
    "nlb_minutes",
    "launches_refused",
    "dynamodb_end_s",
    "launches_end_s",
    "nlb_end_s",
    "over_at_s",
    "first_update_s",
    "hindsight_count",
    "disguised",
)
_HEAD = struct.Struct(">BHHH")  # flags, clock_s, horizon_s, entries
_ENTRY = struct.Struct(">HB")  # time_s, action index
_MAX_CHARS = 4000


def export(config: GameConfig) -> str:
    """A team's night as a short code to read out or paste (``"GD1-..."``).

    Raises:
        ConfigError: ``config`` is not a GameConfig, or holds a time that is not a whole second.
    """
    if not isinstance(config, GameConfig):
        raise ConfigError(f"config must be a GameConfig, got {type(config).__name__}")
    times = [config.clock_s, config.horizon_s, *(t for t, _ in config.actions)]
    if any(t != int(t) for t in times):
        raise ConfigError("a code holds whole seconds: the clock, the horizon and every action's time")
    body = _HEAD.pack(int(config.disguised), int(config.clock_s), int(config.horizon_s), len(config.actions))
    body += b"".join(_ENTRY.pack(int(t), ACTION_NAMES.index(name)) for t, name in config.actions)
    text = base64.b32encode(body + struct.pack(">I", zlib.crc32(body))).decode("ascii").rstrip("=")
    return "-".join([PREFIX, *(text[i : i + 5] for i in range(0, len(text), 5))])


def load(code: str) -> GameConfig:
    """The night a code holds (read back exactly as :func:`export` wrote it).

    Raises:
        ConfigError: not a string, not a code of this format (prefix, length, characters), a failed
            check (a mistyped or altered code), or a log the game refuses (as :class:`GameConfig`).
    """
    if not isinstance(code, str) or len(code) > _MAX_CHARS:
        raise ConfigError(f"a code must be a string of at most {_MAX_CHARS} characters, got {type(code).__name__}")
    text = "".join(code.split()).replace("-", "").upper()
    if not text.startswith(PREFIX):
        raise ConfigError(f"a code starts with {PREFIX!r}, got {code[:8]!r}")
    try:
        raw = base64.b32decode(text[len(PREFIX) :] + "=" * (-len(text[len(PREFIX) :]) % 8))
    except (binascii.Error, ValueError) as err:
        raise ConfigError(f"not a game-day code (letters A-Z and digits 2-7 only): {code[:24]!r}") from err
    body, check = raw[:-4], raw[-4:]
    if len(raw) < _HEAD.size + 4 or struct.pack(">I", zlib.crc32(body)) != check:
        raise ConfigError("the code fails its check: a character is mistyped or missing")
    flags, clock, horizon, count = _HEAD.unpack_from(body)
    if len(body) != _HEAD.size + count * _ENTRY.size or flags > 1:
        raise ConfigError("the code's length does not match the log it announces")
    entries = [_ENTRY.unpack_from(body, _HEAD.size + k * _ENTRY.size) for k in range(count)]
    if any(i >= len(ACTION_NAMES) for _, i in entries):
        raise ConfigError("the code names an action this version of the game does not have")
    actions = tuple((float(t), ACTION_NAMES[i]) for t, i in entries)
    return GameConfig(actions=actions, clock_s=float(clock), horizon_s=float(horizon), disguised=bool(flags))


def _nights(nights: Mapping[str, object]) -> dict[str, GameResult]:
    if not isinstance(nights, Mapping) or not nights:
        raise ConfigError("nights must be a non-empty mapping of team name -> code (or GameConfig)")
    out = {AWS_TEAM: play(GameConfig(actions=AWS_ACTIONS, clock_s=HORIZON_S))}
    for team, night in nights.items():
        if not isinstance(team, str) or not team.strip() or team == AWS_TEAM:
            raise ConfigError(f"a team's name must be a non-empty string other than {AWS_TEAM!r}, got {team!r}")
        try:
            config = night if isinstance(night, GameConfig) else load(night)  # type: ignore[arg-type]
        except ConfigError as err:
            raise ConfigError(f"team {team!r}: {err}") from err
        out[team] = play(replace(config, clock_s=config.horizon_s))  # read whole, wherever its clock stood
    return out


def compare(nights: Mapping[str, str | GameConfig]) -> pd.DataFrame:
    """Every team's night beside AWS's play: the verdict, the impact and the stage ends (the model's).

    Args:
        nights: team name -> its code (:func:`export`) or its :class:`GameConfig`.

    Returns:
        One row per team, AWS's play first: :data:`~labsupport.game.room.ROOM_COLUMNS`: ``team``, ``verdict`` (string),
        ``customer_minutes``, ``nlb_minutes`` (float64), ``launches_refused`` (int64), the ends
        ``dynamodb_end_s`` ... ``first_update_s`` (float64 on the chain clock, NaN where not reached),
        ``hindsight_count`` (int64) and ``disguised`` (bool).

    Raises:
        ConfigError: an empty or malformed mapping, or a team's code that :func:`load` refuses (the
            message names the team).
    """
    rows = []
    for team, r in _nights(nights).items():
        s = r.summary
        nlb = float(r.impact.set_index("measure")["yours"].to_dict()["NLB connection errors"])
        ends = (s.dynamodb_end_s, s.launches_end_s, s.nlb_end_s, s.over_at_s, s.first_update_s)
        head = (team, s.verdict, s.customer_minutes, nlb, s.refused_launches_count)
        rows.append((*head, *ends, s.hindsight_count, r.config.disguised))
    frame = pd.DataFrame(rows, columns=list(ROOM_COLUMNS))
    return frame.astype(
        {
            "team": "string",
            "verdict": "string",
            "launches_refused": "int64",
            "hindsight_count": "int64",
            "disguised": bool,
            **{c: "float64" for c in ROOM_COLUMNS[2:4] + ROOM_COLUMNS[5:10]},
        }
    )


def stages(nights: Mapping[str, object]) -> pd.DataFrame:
    """Every team's stages on the chain clock, AWS's play first, for the room's chart.

    Args:
        nights: as for :func:`labsupport.game.compare`: team name -> its code or its ``GameConfig``.

    Returns:
        ``team``, ``stage`` (string), ``start_s``, ``end_s`` (float64, cut at the game's horizon).
    """
    parts = []
    for team, r in _nights(nights).items():
        st = r.chain.stages
        st = st[st["start_s"] < r.config.horizon_s]
        parts.append(
            pd.DataFrame(
                {
                    "team": team,
                    "stage": st["stage"].astype(str).to_numpy(),
                    "start_s": st["start_s"].to_numpy(dtype=float),
                    "end_s": st["end_s"].clip(upper=r.config.horizon_s).to_numpy(dtype=float),
                }
            )
        )
    frame = pd.concat(parts, ignore_index=True)
    frame["stage"] = pd.Categorical(frame["stage"], categories=list(chain.STAGES))
    return frame.astype({"team": "string", "start_s": "float64", "end_s": "float64"})
