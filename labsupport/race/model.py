"""One run of the race model: :func:`run` returns a :class:`RaceResult` (events and summary)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .._validate import check_number
from ..errors import ConfigError
from . import engine as _sim
from .config import INCIDENT, RaceConfig, enactor_names
from .engine import STATE_ACTIONS

__all__ = ["RaceResult", "RaceSummary", "empty_windows", "endpoint_states", "run"]


@dataclass(frozen=True)
class RaceSummary:
    """Headline figures of one run.

    Attributes:
        regional_empty_s: seconds the regional endpoint answered with zero records (NOERROR, empty).
        empty_started_at_s: when the regional endpoint first went empty (None if never).
        stale_overwrites_count: writes that replaced a newer plan with an older one, on any endpoint.
        active_plan_deleted: whether clean-up ever deleted the plan an alias pointed at.
        stuck: whether any transaction failed because the active plan was missing (inconsistent state).
        repaired_at_s: time of the operators' manual repair of the regional endpoint (None if none).
        alerts_count: alerts raised by guard 3.
        self_repairs_count: active-plan rebuilds done by guard 4.
        max_generation_lag: largest gap, in plan generations, between the newest plan and the plan an
            endpoint served.
        endpoints_emptied: endpoints that answered with zero records at some point.
    """

    regional_empty_s: float
    empty_started_at_s: float | None
    stale_overwrites_count: int
    active_plan_deleted: bool
    stuck: bool
    repaired_at_s: float | None
    alerts_count: int
    self_repairs_count: int
    max_generation_lag: int
    endpoints_emptied: tuple[str, ...]


@dataclass(frozen=True)
class RaceResult:
    """What :func:`run` returns: the config, the events and the summary.

    Attributes:
        config: the :class:`RaceConfig` that was run.
        events: one row per event from 0 to ``config.horizon_s`` inclusive (an event due at exactly
            ``horizon_s`` is kept; none comes after it), columns ``time_s`` (float64, seconds since
            the start), ``actor`` and ``action`` (category), ``endpoint`` (string, NA if none),
            ``generation`` (Int64, the plan concerned), ``records`` (Int64, records the endpoint
            answers with after the event, NA if not about an endpoint) and ``detail`` (string).
        summary: a :class:`RaceSummary`.
    """

    config: RaceConfig
    events: pd.DataFrame
    summary: RaceSummary

    def endpoint_states(self) -> pd.DataFrame:
        """Per-endpoint alias generation, record count and lag over time; see :func:`endpoint_states`."""
        return endpoint_states(self.events)

    def empty_windows(self) -> pd.DataFrame:
        """Intervals in which an endpoint answered empty; see :func:`empty_windows`."""
        return empty_windows(self.events, end_s=self.config.horizon_s)


def run(config: RaceConfig = INCIDENT) -> RaceResult:
    """Run the race model once.

    Args:
        config: a :class:`RaceConfig`; the default is :data:`INCIDENT`.

    Returns:
        A :class:`RaceResult` (``.events`` as documented there, ``.summary`` a :class:`RaceSummary`).
        The run covers ``[0, config.horizon_s]``, closed: an event due at exactly ``horizon_s``
        happens and is in ``.events``; nothing after it is simulated, and an endpoint still empty
        then counts as empty up to ``horizon_s``.

    Raises:
        LimitExceeded: if the run produces more than ``config.max_events`` events.
        ConfigError: if ``config`` is not a RaceConfig.

    Follows the PES's account of the DynamoDB DNS race and DAT453's lock and rollback details.
    """
    if not isinstance(config, RaceConfig):
        raise ConfigError(f"config must be a RaceConfig, got {type(config).__name__}")
    names = enactor_names(config.enactor_count)
    w = _sim.simulate(config, names)
    summary = RaceSummary(
        regional_empty_s=float(w.regional_empty_s),
        empty_started_at_s=w.first_empty,
        stale_overwrites_count=w.counts["stale"],
        active_plan_deleted=w.flags["deleted_active"],
        stuck=w.flags["stuck"],
        repaired_at_s=w.flags["repaired_at"],
        alerts_count=w.counts["alerts"],
        self_repairs_count=w.counts["repairs"],
        max_generation_lag=w.counts["lag"],
        endpoints_emptied=tuple(w.emptied),
    )
    return RaceResult(config=config, events=_sim.frame(w.rows, names), summary=summary)


def endpoint_states(events: pd.DataFrame) -> pd.DataFrame:
    """Derive each endpoint's state over time from a run's events.

    Args:
        events: ``RaceResult.events``.

    Returns:
        One row per state change, sorted by time: ``time_s`` (float64), ``endpoint`` (string),
        ``generation`` (Int64, the plan the alias points at), ``records`` (Int64, records answered;
        0 = empty), ``newest_generation`` (Int64, newest plan at that moment) and ``lag_generations``
        (Int64, newest minus served).
    """
    _check_events(events, ("time_s", "action", "endpoint", "generation", "records"))
    states = events.loc[events["action"].isin(STATE_ACTIONS), ["time_s", "endpoint", "generation", "records"]]
    plans = events.loc[events["action"] == "plan_created", ["time_s", "generation"]]
    plans = pd.concat([pd.DataFrame({"time_s": [0.0], "generation": [1]}), plans]).astype({"generation": "int64"})
    out = pd.merge_asof(
        states.reset_index(drop=True),
        plans.rename(columns={"generation": "newest_generation"}),
        on="time_s",
        direction="backward",
    )
    out["newest_generation"] = out["newest_generation"].astype("Int64")
    out["lag_generations"] = out["newest_generation"] - out["generation"]
    return out.reset_index(drop=True)


def empty_windows(events: pd.DataFrame, *, end_s: float) -> pd.DataFrame:
    """Intervals in which an endpoint answered with zero records.

    Args:
        events: ``RaceResult.events``.
        end_s: end of the run in seconds; closes a window still open at the end.

    Returns:
        Columns ``endpoint`` (string), ``start_s``, ``end_s``, ``duration_s`` (float64) and
        ``repaired_by`` (string: ``"operator"``, ``"self_repair"``, another action, or
        ``"still empty"``).
    """
    _check_events(events, ("time_s", "action", "endpoint"))
    end_s = check_number("end_s", end_s, lo=0)
    rows = []
    ev = events.loc[events["action"].isin(["endpoint_empty", "endpoint_restored", "manual_repair", "self_repair"])]
    open_at: dict[str, float] = {}
    last_fix: dict[str, str] = {}
    for t, action, endpoint in zip(ev["time_s"], ev["action"], ev["endpoint"], strict=False):
        if action == "endpoint_empty":
            open_at[endpoint] = t
        elif action in ("manual_repair", "self_repair"):
            last_fix[endpoint] = "operator" if action == "manual_repair" else "self_repair"
        elif endpoint in open_at:
            start = open_at.pop(endpoint)
            rows.append((endpoint, start, t, last_fix.pop(endpoint, "enactor")))
    late = {e: s for e, s in open_at.items() if s > end_s}
    if late:
        first = min(late.values())
        raise ConfigError(f"end_s must be >= {first:g}, when an endpoint went empty and stayed empty; got {end_s:g}")
    rows += [(e, s, end_s, "still empty") for e, s in open_at.items()]
    df = pd.DataFrame(rows, columns=["endpoint", "start_s", "end_s", "repaired_by"])
    df["duration_s"] = df["end_s"] - df["start_s"]
    return df.astype(
        {
            "endpoint": "string",
            "start_s": "float64",
            "end_s": "float64",
            "duration_s": "float64",
            "repaired_by": "string",
        }
    )[["endpoint", "start_s", "end_s", "duration_s", "repaired_by"]]


def _check_events(events: object, columns: tuple[str, ...]) -> None:
    if not isinstance(events, pd.DataFrame):
        raise ConfigError(f"events must be a DataFrame (RaceResult.events), got {type(events).__name__}")
    missing = [c for c in columns if c not in events.columns]
    if missing:
        raise ConfigError(f"events is missing columns {missing}; pass RaceResult.events")
