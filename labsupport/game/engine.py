"""The game's engine: the players' log -> the chain's operator actions -> operator-visible dashboards.

:func:`fold` reads a log into :class:`labsupport.chain.OperatorActions` and says what each entry
did; :func:`chain_run` runs the chain with them (cached: a run is a function of its actions);
:func:`dashboards` reads the signals a service team could see off the chain's run, never the
models' internal state; :func:`feed` lists the public posts of the night at their real times.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import chain, timeline
from .._memo import cached_run
from ..chain import OperatorActions
from .config import ACTIONS, CLOCK

_BY_NAME = {a.name: a for a in ACTIONS}
_EMPTY = {a.field: None for a in ACTIONS if a.field}
_THROTTLES = ("ec2_throttle_at_s", "network_throttle_at_s")

#: Dashboard panels and signals in the order the lab draws them: (panel, signal, unit).
SIGNALS: tuple[tuple[str, str, str], ...] = (
    ("DynamoDB", "API error rate", "fraction"),
    ("EC2", "launch error rate", "fraction"),
    ("DWFM", "droplets with a lease", "fraction"),
    ("DWFM", "work queued", "count"),
    ("Network Manager", "propagation delay", "s"),
    ("Network Manager", "propagation queue", "count"),
    ("NLB", "health-check flaps per minute", "per min"),
    ("NLB", "capacity removed by AZ failover", "fraction"),
    ("Customers", "requests failing", "fraction"),
)
#: What a signal means and, where the night's signal misled, how: (panel, signal) -> note.
NOTES: dict[tuple[str, str], str] = {
    (
        "NLB",
        "health-check flaps per minute",
    ): "misleading: the checks fail targets that are healthy; their network state is late (PES)",
    ("EC2", "launch error rate"): "refused launches and launches whose network state comes late",
}


def fold(log: tuple[tuple[float, str], ...], horizon_s: float) -> tuple[OperatorActions, pd.DataFrame]:
    """Read a player's log into the chain's operator actions.

    Args:
        log: ``(time_s, action)`` pairs (checked by :class:`~labsupport.game.GameConfig`), any order;
            sorted by time, stably.
        horizon_s: the game's end, seconds.

    Returns:
        The :class:`~labsupport.chain.OperatorActions`, and one row per entry: ``time_s``
        (float64), ``action``, ``label`` (string), ``outcome`` (string: ``"taken"``,
        ``"already in force"``, ``"withdrawn"``, ``"nothing to undo"``, ``"no throttle to relax"``,
        ``"failover not disabled"``, ``"undo"``), ``in_effect`` (bool).
    """
    order = sorted(range(len(log)), key=lambda i: (log[i][0], i))
    entries = [(float(log[i][0]), log[i][1]) for i in order]
    undone = [False] * len(entries)
    for k, (_, name) in enumerate(entries):
        if name == "undo":
            undone[k] = True
            for j in range(k - 1, -1, -1):
                if not undone[j] and entries[j][1] != "undo":
                    undone[j] = True
                    break
            else:
                undone[k] = None  # type: ignore[call-overload]
    times: dict[str, float | None] = dict(_EMPTY)
    first_post: float | None = None
    outcomes = []
    for k, (at, name) in enumerate(entries):
        if name == "undo":
            outcomes.append("nothing to undo" if undone[k] is None else "undo")
            continue
        if undone[k]:
            outcomes.append("withdrawn")
            continue
        field = _BY_NAME[name].field
        if name == "communicate":
            outcomes.append("taken" if first_post is None else "another update")
            first_post = at if first_post is None else first_post
        elif times[field] is not None:
            outcomes.append("already in force")
        elif name == "relax_throttles" and not any(times[f] is not None for f in _THROTTLES):
            outcomes.append("no throttle to relax")
        elif name == "reenable_failover" and times["failover_disabled_at_s"] is None:
            outcomes.append("failover not disabled")
        else:
            times[field] = at
            outcomes.append("taken")
    frame = pd.DataFrame(
        {
            "time_s": pd.Series([e[0] for e in entries], dtype="float64"),
            "action": pd.Series([e[1] for e in entries], dtype="string"),
            "label": pd.Series([_BY_NAME[e[1]].label for e in entries], dtype="string"),
            "outcome": pd.Series(outcomes, dtype="string"),
        }
    )
    frame["in_effect"] = frame["outcome"].isin(["taken", "another update"]).astype(bool)
    return OperatorActions(horizon_s=horizon_s, **times), frame  # type: ignore[arg-type]


def _operated(ops: OperatorActions) -> chain.ChainResult:
    return chain.run(chain.INCIDENT, operators=ops)


def chain_run(ops: OperatorActions) -> chain.ChainResult:
    """The chain run for ``ops`` (INCIDENT config), through the package's one model-run memo.

    A run is a function of its actions, so :func:`labsupport._memo.cached_run` keeps recent ones;
    each call gets its own copy.
    """
    return cached_run(_operated, ops)


def _series(panel: str, signal: str, time_s: object, value: object) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "time_s": np.asarray(time_s, dtype=float),
            "value": np.asarray(value, dtype=float),
            "panel": panel,
            "signal": signal,
        }
    )


def dashboards(result: chain.ChainResult, horizon_s: float) -> pd.DataFrame:
    """Every operator-visible signal of one chain run, over the whole game (filter by time to play).

    Returns:
        One row per sample (DynamoDB's error rate per minute, the worst of its samples):
        ``time_s`` (float64, chain clock), ``time_pdt`` (string, naive PDT
        ISO time), ``panel``, ``signal``, ``unit`` (string, see :data:`SIGNALS`), ``value``
        (float64), ``source`` (string, always ``"model"``: every curve is the chain model's),
        ``note`` (string, "" or :data:`NOTES`). Sorted by panel order, signal, time.
    """
    runs, parts = result.runs, []
    ts = runs.dns.timeseries if runs.dns is not None else pd.DataFrame({"time_s": [0.0], "failing_fraction": [0.0]})
    # Per minute (the worst sample of each), as a service dashboard shows it.
    ts = ts.assign(time_s=np.ceil(ts["time_s"] / 60.0) * 60.0)
    ts = ts.groupby("time_s", as_index=False).agg(failing_fraction=("failing_fraction", "max"))
    parts.append(
        _series(
            "DynamoDB",
            "API error rate",
            [*ts["time_s"], horizon_s],
            [*ts["failing_fraction"], 0.0 if runs.dns is not None else ts["failing_fraction"].iloc[-1]],
        )
    )
    imp, dw = result.impact, runs.dwfm.timeseries
    back_s = runs.dwfm.summary.recovered_at_s
    early = dw[(dw["launch_attempts_count"] > 0) & (dw["time_s"] <= (back_s if back_s is not None else np.inf))]
    late = imp[(imp["stage"] == chain.STAGES[1]) & (imp["time_s"] > (back_s if back_s is not None else np.inf))]
    parts.append(
        _series(
            "EC2",
            "launch error rate",
            [*early["time_s"], *late["time_s"]],
            [*(early["insufficient_capacity_count"] / early["launch_attempts_count"]), *late["impact_fraction"]],
        )
    )
    fleet = runs.dwfm.config.fleet_droplets_count
    parts.append(_series("DWFM", "droplets with a lease", dw["time_s"], dw["leased_count"] / fleet))
    parts.append(_series("DWFM", "work queued", dw["time_s"], dw["queue_count"] + dw["in_flight_count"]))
    if runs.network is not None and back_s is not None:
        nts = runs.network.timeseries
        parts.append(
            _series(
                "Network Manager",
                "propagation delay",
                [0.0, *(nts["time_s"] + back_s)],
                [0.0, *nts["mean_delay_s"].fillna(0.0)],
            )
        )
        parts.append(
            _series(
                "Network Manager", "propagation queue", [0.0, *(nts["time_s"] + back_s)], [0.0, *nts["queue_count"]]
            )
        )
    else:
        for sig in ("propagation delay", "propagation queue"):
            parts.append(_series("Network Manager", sig, [0.0], [0.0]))
    if runs.nlb is not None and back_s is not None:
        lts = runs.nlb.timeseries
        parts.append(
            _series(
                "NLB",
                "health-check flaps per minute",
                [0.0, *(lts["time_s"] + back_s)],
                [0.0, *lts["nlb_flaps_per_min"]],
            )
        )
        parts.append(
            _series(
                "NLB",
                "capacity removed by AZ failover",
                [0.0, *(lts["time_s"] + back_s)],
                [0.0, *lts["failover_removed_fraction"]],
            )
        )
    else:
        for sig in ("health-check flaps per minute", "capacity removed by AZ failover"):
            parts.append(_series("NLB", sig, [0.0], [0.0]))
    if len(imp):
        worst = imp.groupby("time_s", as_index=False)["impact_fraction"].max()
        parts.append(
            _series("Customers", "requests failing", [0.0, *worst["time_s"]], [0.0, *worst["impact_fraction"]])
        )
    else:
        parts.append(_series("Customers", "requests failing", [0.0], [0.0]))
    frame = pd.concat(parts, ignore_index=True)
    frame = frame[frame["time_s"] <= horizon_s]
    units = {(p, s): u for p, s, u in SIGNALS}
    order = {key: i for i, key in enumerate(units)}
    keys = list(zip(frame["panel"], frame["signal"], strict=True))
    frame = frame.assign(
        unit=[units[k] for k in keys],
        source="model",
        note=[NOTES.get(k, "") for k in keys],
        _order=[order[k] for k in keys],
    )
    frame = frame.sort_values(["_order", "time_s"], kind="stable").reset_index(drop=True)
    frame["time_pdt"] = CLOCK.wall_clock(frame["time_s"]).to_numpy()
    cols = ["time_s", "time_pdt", "panel", "signal", "unit", "value", "source", "note"]
    return frame[cols].astype({c: "string" for c in ("time_pdt", "panel", "signal", "unit", "source", "note")})


def feed() -> pd.DataFrame:
    """The night's public posts (AWS Health Dashboard) at their real times, as the players see them.

    The Dashboard's final summary, written afterwards, is left out.

    Returns:
        ``time_s`` (float64, chain clock), ``time`` (string, "12:11 AM"), ``id``, ``event``,
        ``source`` (string), ``tag`` (string: the timeline's confidence tag, ``OTHER`` here).
    """
    rows = timeline.load(services="Health Dashboard")
    rows = rows[~rows["event"].str.contains("final summary")]  # written afterwards, not posted that night
    t = (rows["time_pdt"].dt.tz_localize(None) - CLOCK.origin).dt.total_seconds()
    frame = pd.DataFrame(
        {
            "time_s": t.astype("float64"),
            "time": [CLOCK.time_of_day(x) for x in t],
            "id": rows["id"],
            "event": rows["event"],
            "source": rows["source"],
            "tag": rows["tag"].astype(str),
        }
    )
    frame = frame[frame["time_s"] >= 0]
    return frame.astype(
        {"time": "string", "id": "string", "event": "string", "source": "string", "tag": "string"}
    ).reset_index(drop=True)
