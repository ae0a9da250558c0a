"""Searching for the best player: coordinate descent over the times of the operators' actions.

Every point is one :func:`labsupport.game.play`, so the search is deterministic: the same start,
offsets and budget find the same player. It uses hindsight (it plays the night many times over),
which the operators did not have.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from .._validate import check_choice, check_int, check_number
from ..errors import ConfigError
from .config import HORIZON_S, GameConfig
from .model import play
from .night import AWS_ACTIONS

#: Actions whose time the search moves (communicating and stopping the automation change nothing in the model).
SEARCHED: tuple[str, ...] = (
    "repair_dns",
    "throttle_ec2",
    "restart_dwfm",
    "throttle_network",
    "relax_throttles",
    "disable_failover",
    "reenable_failover",
)
#: Offsets the search tries around an action's current time, seconds.
OFFSETS_S: tuple[float, ...] = (-28_800.0, -14_400.0, -7200.0, -3600.0, -1800.0, -900.0, 900.0, 1800.0, 3600.0)


def _key(log: tuple[tuple[float, str], ...], horizon_s: float) -> tuple[float, float, float]:
    s = play(GameConfig(actions=log, horizon_s=horizon_s)).summary
    return (0.0 if s.over else 1.0, s.total_s if s.total_s is not None else horizon_s, s.impact_s)


def _variants(
    log: tuple[tuple[float, str], ...], name: str, horizon_s: float, earliest_s: float
) -> list[tuple[tuple[float, str], ...]]:
    rest = tuple(e for e in log if e[1] != name)
    now = [t for t, n in log if n == name]
    out: list[tuple[tuple[float, str], ...]] = [rest] if now else []
    base = now[0] if now else None
    times = [earliest_s] if base is None else [base + d for d in OFFSETS_S]
    for t in times:
        if earliest_s <= t <= horizon_s:
            out.append(tuple(sorted((*rest, (float(t), name)))))
    return out


def search(
    start: Sequence[tuple[float, str]] = AWS_ACTIONS,
    *,
    budget: int = 60,
    horizon_s: float = HORIZON_S,
    not_before: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Look for the player who ends the event soonest, starting from ``start`` (AWS's night by default).

    Coordinate descent: for each action of ``SEARCHED`` in turn, try it earlier and later by
    ``OFFSETS_S`` (or not at all), keep the best, and go round again until no move helps or
    ``budget`` games have been played. Best means: over by the horizon, then shortest total, then
    least impact.

    Args:
        start: a log of ``(time_s, action)`` pairs.
        budget: games to play at most (1 to 10,000).
        horizon_s: the games' horizon, seconds.
        not_before: earliest time (seconds) the search may move an action to, by action name: e.g.
            ``{"repair_dns": 3000.0}`` keeps the DNS repair after 12:38 AM, when AWS's engineers
            identified the cause. Actions not named may move to 11:48 PM (hindsight).

    Returns:
        One row per game played, best first: ``log`` (object: the tuple of pairs), ``over`` (bool),
        ``total_s`` (float64, NaN if not over), ``impact_s`` (float64), ``tried`` (int64: the order
        played; 0 is ``start``).

    Raises:
        ConfigError: a bad ``start`` (as :class:`GameConfig`), ``budget``, ``horizon_s`` or ``not_before``.
    """
    check_int("budget", budget, lo=1, hi=10_000)
    check_number("horizon_s", horizon_s, lo=3600, hi=2 * 86_400)
    if isinstance(start, (str, bytes)):
        raise ConfigError(f"start must be a sequence of (time_s, action) pairs, got {start!r}")
    first = GameConfig(actions=tuple(start), horizon_s=horizon_s).actions
    limits = dict(not_before or {})
    for name, at in limits.items():
        check_choice("not_before action", name, SEARCHED)
        check_number(f"not_before[{name!r}]", at, lo=0, hi=horizon_s, hi_name="horizon_s")
    first = tuple(sorted(first))
    seen: dict[tuple[tuple[float, str], ...], tuple[float, float, float]] = {first: _key(first, horizon_s)}
    best = first
    improved = True
    while improved and len(seen) < budget:
        improved = False
        for name in SEARCHED:
            for log in _variants(best, name, horizon_s, float(limits.get(name, 0.0))):
                if len(seen) >= budget:
                    break
                if log not in seen:
                    seen[log] = _key(log, horizon_s)
            top = min(seen, key=lambda k: (seen[k], list(seen).index(k)))
            if top != best:
                best, improved = top, True
    rows = [
        (log, k[0] == 0.0, k[1] if k[0] == 0.0 else float("nan"), k[2], i) for i, (log, k) in enumerate(seen.items())
    ]
    frame = pd.DataFrame(rows, columns=["log", "over", "total_s", "impact_s", "tried"])
    frame = frame.astype({"over": bool, "total_s": "float64", "impact_s": "float64", "tried": "int64"})
    return frame.sort_values(
        ["over", "total_s", "impact_s", "tried"], ascending=[False, True, True, True], kind="stable"
    ).reset_index(drop=True)
