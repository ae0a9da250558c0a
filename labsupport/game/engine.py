"""The game's engine: the players' log -> the chain's operators -> signals read as the clock reaches them.

:func:`fold` reads a log into :class:`labsupport.chain.OperatorActions` (the strategy the chain's
one pipeline asks before each model) and says what each entry did; :func:`chain_run` runs the
chain with them (cached: a run is a function of its actions); :func:`signals` reads every signal a
team or an alarm could watch off the chain's run, :func:`dashboards` the ones the game's panel
draws; :func:`feed` lists the Health Dashboard's posts of the night at their real times, and
:func:`final_summary` the lines it wrote afterwards (the debrief's).

Causality: every value of :func:`signals` at time ``t`` is computed from what the models had
done by ``t`` (a launch counts as failed when it is refused, or once it has waited longer than
normal for its network state, never earlier), so an action taken at ``t`` changes no signal
before ``t`` (a property test checks it for random plays).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import chain, timeline
from .._memo import cached_run
from ..chain import OperatorActions
from .config import ACTIONS, CLOCK
from .night import FINAL_SUMMARY, POSTS

_BY_NAME = {a.name: a for a in ACTIONS}

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
#: Signals the models give beyond the dashboards (for alarms and investigations): (panel, signal, unit).
EXTRA_SIGNALS: tuple[tuple[str, str, str], ...] = (
    ("DynamoDB", "regional endpoint answers empty", "bool"),
    ("DWFM", "work completed", "count"),
    ("DWFM", "work timed out", "count"),
    ("DWFM", "launches refused for capacity", "count"),
    ("Network Manager", "launches refused by throttle", "count"),
    ("NLB", "health-check latency", "s"),
    ("NLB", "connection error rate", "fraction"),
)
#: What a signal means and, where the night's signal misled, how: (panel, signal) -> note.
NOTES: dict[tuple[str, str], str] = {
    (
        "NLB",
        "health-check flaps per minute",
    ): "misleading: the flapping targets are new instances still waiting for their network state; the "
    "summary calls the targets healthy, and in the model their connections fail until the state arrives",
    ("EC2", "launch error rate"): "refused launches, and launches once they have waited longer than normal "
    "for their network state",
}

#: Every outcome :func:`fold` can give an entry of the log.
OUTCOMES: tuple[str, ...] = (
    "taken",
    "another update",
    "investigating",
    "already in force",
    "already taken",
    "withdrawn",
    "undo",
    "nothing to undo",
    "too late to undo: take its opposite",
    "no throttle to relax",
    "failover not disabled",
    "not taken: the model has one window a night",
)


def _withdrawn(entries: list[tuple[float, str]]) -> tuple[list[bool], list[str]]:
    """Which entries an undo withdraws, and each undo's outcome: the latest earlier entry not yet withdrawn,
    only if it was taken at the undo's own time (nothing has been shown since)."""
    withdrawn, said = [False] * len(entries), [""] * len(entries)
    for k, (at, name) in enumerate(entries):
        if name != "undo":
            continue
        last = next((j for j in range(k - 1, -1, -1) if entries[j][1] != "undo" and not withdrawn[j]), None)
        if last is None:
            said[k] = "nothing to undo"
        elif entries[last][0] == at:
            withdrawn[last], said[k] = True, "undo"
        else:
            said[k] = "too late to undo: take its opposite"
    return withdrawn, said


#: The actions that open a window in a model, and the field that closes it (one window a night each).
_WINDOWS = {
    "throttle_ec2": "ec2_throttle_relaxed_at_s",
    "throttle_network": "network_throttle_relaxed_at_s",
    "disable_failover": "failover_reenabled_at_s",
}


def _play(name: str, at: float, times: dict[str, float | None], once: set[str]) -> str:
    """Apply one entry to ``times`` (OperatorActions fields); return its outcome."""
    action = _BY_NAME[name]
    if action.kind == "investigation":
        return "investigating"
    field = action.field
    if not field and name not in ("relax_throttles", "reenable_failover"):
        return "taken"  # a remedy with no effect in the model
    if name == "relax_throttles":
        relaxed = [f for f in ("ec2_throttle", "network_throttle") if f in once and times[f + "_relaxed_at_s"] is None]
        for f in relaxed:
            times[f + "_relaxed_at_s"] = at
        return "taken" if relaxed else "no throttle to relax"
    if name == "reenable_failover":
        if times["failover_disabled_at_s"] is None or times[field] is not None:
            return "failover not disabled"
        times[field] = at
        return "taken"
    if name in _WINDOWS and times[field] is not None:
        return "already in force" if times[_WINDOWS[name]] is None else "not taken: the model has one window a night"
    if times[field] is not None:
        return "already taken" if name in ("repair_dns", "restart_dwfm", "stop_automation") else "already in force"
    times[field] = at
    once.add(field.removesuffix("_at_s"))
    return "taken"


def fold(log: tuple[tuple[float, str], ...], horizon_s: float) -> tuple[OperatorActions, pd.DataFrame]:
    """Read a player's log into the chain's operator actions, entry by entry in time order.

    Rules (each the game's, in the model's terms): a throttle is in force from its time until the next
    *relax*, which relaxes every throttle then in force; each throttle, and NLB failover disabled, once
    a night (the models have one such window). A remedy with no effect in the model and an investigation
    are taken as they come. An *undo* withdraws the latest earlier entry not yet withdrawn if it was
    taken at the undo's own clock time; one taken earlier has been in force since and stays (nothing
    changes back in time). Repeats of an action in force change nothing.

    Args:
        log: ``(time_s, action)`` pairs (checked by :class:`~labsupport.game.GameConfig`), any order;
            sorted by time, stably (actions at one time in the order given).
        horizon_s: the game's end, seconds.

    Returns:
        The :class:`~labsupport.chain.OperatorActions`, and one row per entry in the order played:
        ``time_s`` (float64), ``action``, ``label`` (string), ``outcome`` (string, one of the
        :data:`OUTCOMES`: ``"taken"``, ``"already in force"``, ``"withdrawn"``, ``"too late to
        undo: take its opposite"``, ``"investigating"``...), ``in_effect`` (bool: taken, another status
        update, or an investigation).
    """
    order = sorted(range(len(log)), key=lambda i: (log[i][0], i))
    entries = [(float(log[i][0]), log[i][1]) for i in order]
    withdrawn, said = _withdrawn(entries)
    times: dict[str, float | None] = {f: None for f in OperatorActions.action_fields()}
    once: set[str] = set()
    posted = False
    outcomes = []
    for k, (at, name) in enumerate(entries):
        if name == "undo":
            outcomes.append(said[k])
        elif withdrawn[k]:
            outcomes.append("withdrawn")
        elif name == "communicate":
            outcomes.append("another update" if posted else "taken")
            posted = True
        else:
            outcomes.append(_play(name, at, times, once))
    frame = pd.DataFrame(
        {
            "time_s": pd.Series([e[0] for e in entries], dtype="float64"),
            "action": pd.Series([e[1] for e in entries], dtype="string"),
            "label": pd.Series([_BY_NAME[e[1]].label for e in entries], dtype="string"),
            "outcome": pd.Series(outcomes, dtype="string"),
        }
    )
    frame["in_effect"] = frame["outcome"].isin(["taken", "another update", "investigating"]).astype(bool)
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


def _per_minute_worst(time_s: pd.Series, value: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """The worst value of each minute, at the minute's end (as a service dashboard shows it)."""
    frame = pd.DataFrame({"t": np.ceil(time_s.to_numpy() / 60.0) * 60.0, "v": value.to_numpy(dtype=float)})
    worst = frame.groupby("t", as_index=False)["v"].max()
    return worst["t"].to_numpy(), worst["v"].to_numpy()


def _launch_outcomes(result: chain.ChainResult) -> pd.DataFrame:
    """Each launch Network Manager saw, when its fate became known (chain clock) and whether it failed.

    Refused: failed at once. Configured within ``normal_delay_s``: fine, when configured.
    Otherwise: failed once it had waited ``normal_delay_s`` (known then, whenever it is configured).
    """
    nr, back = result.runs.network, result.times.leases_back_s
    if nr is None or back is None:
        return pd.DataFrame({"known_s": pd.Series(dtype="float64"), "failed": pd.Series(dtype=bool)})
    cfg, launches = nr.config, nr.items[nr.items["is_launch"]]
    limit = launches["queued_s"] + cfg.normal_delay_s
    late = ~launches["refused"] & ~(launches["propagated_s"] <= limit)
    known = np.where(launches["refused"], launches["queued_s"], np.where(late, limit, launches["propagated_s"]))
    frame = pd.DataFrame({"known_s": known + back, "failed": (launches["refused"] | late).to_numpy(dtype=bool)})
    return frame[frame["known_s"] <= back + cfg.horizon_s]


def _dynamodb(result: chain.ChainResult, horizon_s: float) -> list[pd.DataFrame]:
    runs, out = result.runs, result.times.outage
    if runs.dns is None or out is None:
        empty = _series("DynamoDB", "regional endpoint answers empty", [0.0], [0.0])
        return [_series("DynamoDB", "API error rate", [0.0], [0.0]), empty]
    ts = runs.dns.timeseries
    t, v = _per_minute_worst(ts["time_s"], ts["failing_fraction"])
    if t[-1] < horizon_s:  # the resolvers' run ended (every client long recovered): flat to the horizon
        t, v = np.append(t, horizon_s), np.append(v, v[-1])
    empty = _series("DynamoDB", "regional endpoint answers empty", [0.0, out[0], out[1]], [0.0, 1.0, 0.0])
    return [_series("DynamoDB", "API error rate", t, v), empty]


def _ec2_dwfm(result: chain.ChainResult) -> list[pd.DataFrame]:
    runs = result.runs
    dw, back = runs.dwfm.timeseries, result.times.leases_back_s
    early = dw[(dw["launch_attempts_count"] > 0) & (dw["time_s"] <= (np.inf if back is None else back))]
    outcomes = _launch_outcomes(result)
    minute = np.ceil(outcomes["known_s"].to_numpy() / 60.0) * 60.0
    late = outcomes.assign(t=minute).groupby("t", as_index=False)["failed"].mean()
    late = late[late["t"] > (np.inf if back is None else back)]
    fleet = runs.dwfm.config.fleet_droplets_count
    refused = pd.Series(dtype="float64")
    if runs.network is not None and back is not None:
        items = runs.network.items
        shed = items[items["is_launch"] & items["refused"]]
        refused = shed.groupby(np.ceil(shed["queued_s"] / 60.0) * 60.0 + back).size().astype(float)
    return [
        _series(
            "EC2",
            "launch error rate",
            [*early["time_s"], *late["t"]],
            [*(early["insufficient_capacity_count"] / early["launch_attempts_count"]), *late["failed"]],
        ),
        _series("DWFM", "droplets with a lease", dw["time_s"], dw["leased_count"] / fleet),
        _series("DWFM", "work queued", dw["time_s"], dw["queue_count"] + dw["in_flight_count"]),
        _series("DWFM", "work completed", dw["time_s"], dw["goodput_count"]),
        _series("DWFM", "work timed out", dw["time_s"], dw["wasted_count"]),
        _series("DWFM", "launches refused for capacity", dw["time_s"], dw["insufficient_capacity_count"]),
        _series("Network Manager", "launches refused by throttle", [0.0, *refused.index], [0.0, *refused.to_numpy()]),
    ]


def _after_leases(result: chain.ChainResult) -> list[pd.DataFrame]:
    runs, back = result.runs, result.times.leases_back_s
    out = []
    specs = (
        ("network", "Network Manager", "propagation delay", "mean_delay_s"),
        ("network", "Network Manager", "propagation queue", "queue_count"),
        ("nlb", "NLB", "health-check flaps per minute", "nlb_flaps_per_min"),
        ("nlb", "NLB", "capacity removed by AZ failover", "failover_removed_fraction"),
        ("nlb", "NLB", "health-check latency", "check_latency_s"),
        ("nlb", "NLB", "connection error rate", "error_fraction"),
    )
    for model, panel, signal, column in specs:
        run = getattr(runs, model)
        if run is None or back is None:
            out.append(_series(panel, signal, [0.0], [0.0]))
        else:
            ts = run.timeseries
            out.append(_series(panel, signal, [0.0, *(ts["time_s"] + back)], [0.0, *ts[column].fillna(0.0)]))
    return out


def signals(result: chain.ChainResult, horizon_s: float) -> pd.DataFrame:
    """Every signal a team or an alarm could read off one chain run, over the whole game (filter by time).

    The dashboards' signals (:data:`SIGNALS`) and those beyond them (:data:`EXTRA_SIGNALS`). The
    value at ``time_s`` is known at ``time_s``: each is a sample of a model's state at that moment
    or a count over the interval ending then, never a figure that needs the future. Customers'
    requests failing is the worst of DynamoDB's API error rate, EC2's launch error rate and the NLB's
    connection error rate at each time.

    Args:
        result: a :func:`chain_run` result.
        horizon_s: the game's end, seconds (later samples are dropped).

    Returns:
        One row per sample: ``time_s`` (float64, chain clock), ``time_pdt`` (string, naive PDT ISO
        time), ``panel``, ``signal``, ``unit`` (string), ``value`` (float64), ``source`` (string,
        always ``"model"``), ``note`` (string, "" or :data:`NOTES`), ``dashboard`` (bool: one of
        :data:`SIGNALS`). Sorted by :data:`SIGNALS` then :data:`EXTRA_SIGNALS` order, then time.
    """
    parts = [*_dynamodb(result, horizon_s), *_ec2_dwfm(result), *_after_leases(result)]
    impact = pd.concat(
        [p for p in parts if (p["signal"].iloc[0] in ("API error rate", "launch error rate", "connection error rate"))]
    )
    worst = impact.groupby("time_s", as_index=False)["value"].max()
    parts.append(_series("Customers", "requests failing", worst["time_s"], worst["value"]))
    units = {(p, s): u for p, s, u in (*SIGNALS, *EXTRA_SIGNALS)}
    order = {key: i for i, key in enumerate(units)}
    labelled = []
    for part in sorted(parts, key=lambda f: order[(f["panel"].iloc[0], f["signal"].iloc[0])]):
        key = (part["panel"].iloc[0], part["signal"].iloc[0])  # one signal per part: label it once
        part = part[part["time_s"] <= horizon_s].sort_values("time_s", kind="stable")
        labelled.append(part.assign(unit=units[key], note=NOTES.get(key, ""), dashboard=order[key] < len(SIGNALS)))
    frame = pd.concat(labelled, ignore_index=True).assign(source="model")
    moments, at = np.unique(frame["time_s"].to_numpy(), return_inverse=True)  # signals share their moments
    frame["time_pdt"] = CLOCK.wall_clock(pd.Series(moments)).to_numpy()[at]
    cols = ["time_s", "time_pdt", "panel", "signal", "unit", "value", "source", "note", "dashboard"]
    return frame[cols].astype({c: "string" for c in ("time_pdt", "panel", "signal", "unit", "source", "note")})


def dashboards(result: chain.ChainResult, horizon_s: float) -> pd.DataFrame:
    """The signals the game's panel draws (:data:`SIGNALS`), over the whole game (filter by time to play).

    Returns:
        :func:`signals`' columns but ``dashboard``: ``time_s``, ``time_pdt``, ``panel``, ``signal``,
        ``unit``, ``value``, ``source``, ``note``. Sorted by panel order, signal, time.
    """
    frame = signals(result, horizon_s)
    return frame[frame["dashboard"]].drop(columns="dashboard").reset_index(drop=True)


def _rows(ids: list[str]) -> pd.DataFrame:
    rows = timeline.load().set_index("id").loc[ids]
    t = (rows["time_pdt"].dt.tz_localize(None) - CLOCK.origin).dt.total_seconds()
    return pd.DataFrame(
        {
            "time_s": t.astype("float64").to_numpy(),
            "time": [CLOCK.time_of_day(x) for x in t],
            "id": ids,
            "source": rows["source"].to_numpy(),
            "tag": rows["tag"].astype(str).to_numpy(),
        }
    )


def feed() -> pd.DataFrame:
    """The Health Dashboard's posts made during the event, at their real times, as the players see them.

    The Dashboard's final summary, written afterwards, is not in it (see :func:`final_summary`).

    Returns:
        ``time_s`` (float64, chain clock), ``time`` (string, "12:11 AM"), ``id`` (the timeline row),
        ``event`` (the post's words as the course's fact sheet gives them, quoted where it quotes),
        ``source`` and ``tag`` (string: the timeline row's; ``OTHER``, not the summary). In time order.
    """
    frame = _rows([i for i, _ in POSTS]).assign(event=[words for _, words in POSTS])
    frame = frame[["time_s", "time", "id", "event", "source", "tag"]]
    return frame.astype({c: "string" for c in ("time", "id", "event", "source", "tag")})


def final_summary() -> pd.DataFrame:
    """The Dashboard's final summary, written after the event: for the debrief, never the feed.

    Returns:
        One row per line: ``time_s`` (float64: the first moment the line names, chain clock), ``time``
        (string), ``id`` (the timeline rows it dates, comma-separated), ``event`` (the line, as the fact
        sheet quotes it), ``source``, ``tag`` (string, the first row's). In time order.
    """
    frame = _rows([ids[0] for ids, _ in FINAL_SUMMARY])
    frame = frame.assign(id=[", ".join(ids) for ids, _ in FINAL_SUMMARY], event=[w for _, w in FINAL_SUMMARY])
    frame = frame[["time_s", "time", "id", "event", "source", "tag"]].sort_values("time_s", kind="stable")
    return frame.astype({c: "string" for c in ("time", "id", "event", "source", "tag")}).reset_index(drop=True)
