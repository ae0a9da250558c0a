"""Charts of the DNS Planner/Enactor race (labsupport.race)."""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import pandas as pd

from ..errors import ConfigError
from ..race import GUARD_NAMES
from ..timeline import format_duration
from ._render import PALETTE, _base_config, _state_text, _wrapped, reflow_usermeta
from ._inputs import _MAX_ROWS, _frame, _note_chart, _seconds, _width

__all__ = ["RACE_ACTION_GROUPS", "race_generation_chart", "race_guard_explorer_chart", "race_records_chart", "race_sequence_chart"]


#: How the race model's actions are grouped, coloured and shaped in its charts.
RACE_ACTION_GROUPS: dict[str, str] = {
    "initial_state": "initial state", "plan_created": "plan created", "check": "one-time check",
    "lock_lost": "lock lost, back off",
    "write": "write", "write_noop": "write", "stale_write": "stale write",
    "write_refused": "refused by a guard", "refused_empty": "refused by a guard",
    "delete_skipped": "refused by a guard", "alert": "refused by a guard",
    "delete": "clean-up delete", "delete_active": "active plan deleted / stuck",
    "inconsistent": "active plan deleted / stuck", "endpoint_empty": "active plan deleted / stuck",
    "self_repair": "repair", "manual_repair": "repair", "endpoint_restored": "repair",
}


_RACE_GROUP_STYLE: dict[str, tuple[str, str]] = {
    "plan created": (PALETTE[6], "circle"), "one-time check": (PALETTE[0], "diamond"),
    "lock lost, back off": (PALETTE[4], "triangle-down"), "write": (PALETTE[2], "circle"),
    "stale write": (PALETTE[1], "square"), "refused by a guard": (PALETTE[0], "triangle-up"),
    "clean-up delete": (PALETTE[3], "cross"), "active plan deleted / stuck": (PALETTE[5], "square"),
    "repair": (PALETTE[2], "triangle-up"), "initial state": (PALETTE[6], "diamond"),
    "other action": (PALETTE[6], "cross"),
}


_RACE_KEY_ACTIONS = {"stale_write": "stale write", "delete_active": "active plan deleted",
                     "manual_repair": "manual repair", "self_repair": "self-repair", "alert": "alert"}


#: Why an empty race frame is a programming error.
_RACE_NOT_EMPTY = "a race run always records at least the DNS Planner's first plan"


#: The three steps of the race that :func:`race_sequence_chart` labels, in order, and their effect.
_RACE_STEPS = ("1 one-time check", "2 stale write", "3 clean-up deletes the active plan", "then: endpoint empty")


def _race_steps(ev: pd.DataFrame, action: pd.Series) -> tuple[pd.Series, pd.Series]:
    """The ``step`` and ``over`` columns of :func:`_sequence_data` (see there), for the events ``ev``."""
    step = pd.Series("", index=ev.index, dtype=object)
    over = pd.Series("", index=ev.index, dtype=object)
    stale = ev.loc[action == "stale_write"]
    if stale.empty:
        return step, over
    s = stale.iloc[0]
    same_plan = (ev["generation"].astype("Int64") == int(s["generation"])).fillna(False).astype(bool)
    at_or_after = ev["time_s"] >= s["time_s"]
    same_endpoint = (ev["endpoint"] == s["endpoint"]).fillna(False).astype(bool)
    check = ev.loc[(action == "check") & (ev["actor"] == s["actor"]) & same_plan & ~(ev["time_s"] > s["time_s"])]
    deleted = ev.loc[(action == "delete_active") & same_plan & same_endpoint & at_or_after]
    step[stale.index[0]] = _RACE_STEPS[1]
    if len(check):
        step[check.index[-1]] = _RACE_STEPS[0]
    if len(deleted):
        step[deleted.index[0]] = _RACE_STEPS[2]
        empty = ev.loc[(action == "endpoint_empty") & same_endpoint & (ev["time_s"] >= deleted["time_s"].iloc[0])]
        if len(empty):
            step[empty.index[0]] = _RACE_STEPS[3]
    before = ev.loc[action.isin(["write", "write_noop", "self_repair"]) & same_endpoint
                    & ~(ev["time_s"] > s["time_s"]) & (ev.index != stale.index[0])]
    if len(before):
        over[stale.index[0]] = str(before["generation"].iloc[-1])
    return step, over


def _sequence_data(events: pd.DataFrame, *, start_s: float, end_s: float) -> pd.DataFrame:
    """What :func:`race_sequence_chart` draws: one row per event in ``[start_s, end_s]``.

    Columns: ``time_s`` (seconds since the scenario start), ``actor`` (the lane), ``action``,
    ``group`` (its :data:`RACE_ACTION_GROUPS` name: colour and shape), ``endpoint``, ``plan``
    (generation, as text), ``detail``, ``step`` and ``over``. ``step`` is "" for a routine event
    (drawn small and faint), or one of "1 one-time check", "2 stale write", "3 clean-up deletes
    the active plan" for the three events the race is made of, and "then: endpoint empty" for
    their effect (drawn large and labelled). Step 2 is the window's first stale write; step 1 the
    same Enactor's last check of that plan before it; step 3 the first deletion of that plan while
    it was active, on that endpoint, after it; the effect, Route 53's first empty answer for that
    endpoint after it. A step outside the window is not drawn. ``over`` (on the stale write only,
    else "") is the plan last written to that endpoint before it, as text; ``short`` and ``label``
    are a step's text in the overview and in the zoom ("1 one-time check of plan 5, 124.1 s", its
    time from the unrounded ``time_s``), "" for a routine event. No rows when the window holds no
    event.
    """
    _frame("events", events, ("time_s", "actor", "action", "endpoint", "generation", "detail"),
           numeric=("time_s",), empty=_RACE_NOT_EMPTY)
    start_s, end_s = _seconds("start_s", start_s, window=True), _seconds("end_s", end_s, window=True)
    if not end_s > start_s:
        raise ConfigError(f"end_s must be > start_s, got start_s={start_s!r}, end_s={end_s!r}")
    ev = events.loc[(events["time_s"] >= start_s) & (events["time_s"] <= end_s)]
    action = ev["action"].astype(str)
    step, over = _race_steps(ev, action)
    fields = pd.DataFrame({"plan": ev["generation"].astype("string").fillna(""), "over": over.astype(str),
                           "endpoint": ev["endpoint"].fillna("").astype(str), "t": ev["time_s"], "step": step})
    texts = [("", "") if not r.step else tuple(w.format(plan=r.plan, over=r.over or "a newer one",
                                                         endpoint=r.endpoint) + f", {r.t:.1f} s"
                                                for w in _STEP_WORDS[r.step])
             for r in fields.itertuples()]
    return pd.DataFrame({
        "time_s": ev["time_s"].round(2), "actor": ev["actor"].astype(str),
        "action": action,
        "group": action.map(RACE_ACTION_GROUPS).fillna("other action"),
        "endpoint": ev["endpoint"].fillna("").astype(str),
        "plan": ev["generation"].astype("string").fillna(""),
        "detail": ev["detail"].astype(str),
        "step": step.astype(str),
        "over": over.astype(str),
        "short": pd.Series([t[0] for t in texts], index=ev.index, dtype=object),
        "label": pd.Series([t[1] for t in texts], index=ev.index, dtype=object),
    })


def _step_labels(d: pd.DataFrame, *, short: bool = False) -> pd.DataFrame:
    """The labelled steps of :func:`_sequence_data`'s frame: ``time_s``, ``actor``, ``step``, ``label``
    (``short`` takes the overview's ``short`` text, else the zoom's ``label``)."""
    k = d.loc[d["step"] != ""]
    return pd.DataFrame({"time_s": k["time_s"], "actor": k["actor"], "step": k["step"],
                         "label": k["short" if short else "label"]})


#: The words of each step's label: (overview, zoom), formatted with the event's fields.
_STEP_WORDS = {
    _RACE_STEPS[0]: ("1 one-time check of plan {plan}", "1 one-time check of plan {plan}"),
    _RACE_STEPS[1]: ("2 stale write", "2 stale write: plan {plan} over plan {over}"),
    _RACE_STEPS[2]: ("3 plan {plan} deleted", "3 clean-up deletes plan {plan}, the active one"),
    _RACE_STEPS[3]: ("endpoint empty", "the {endpoint} endpoint answers with no records"),
}


def _wait_data(d: pd.DataFrame) -> pd.DataFrame:
    """The band from step 1 to step 2 on the writer's lane: ``start``, ``end`` (s), ``actor``, ``label``.

    Empty unless both steps are in ``d``. The label counts the writer's lock losses on the stale
    write's endpoint between the two.
    """
    check, stale = d.loc[d["step"] == _RACE_STEPS[0]], d.loc[d["step"] == _RACE_STEPS[1]]
    if check.empty or stale.empty:
        return pd.DataFrame({"start": [], "end": [], "actor": [], "label": []})
    c, s = check.iloc[0], stale.iloc[0]
    lost = d.loc[(d["action"] == "lock_lost") & (d["actor"] == s["actor"]) & (d["endpoint"] == s["endpoint"])
                 & d["time_s"].between(c["time_s"], s["time_s"])]
    label = (f"waits {s['time_s'] - c['time_s']:.0f} s: {len(lost)} lock losses on {s['endpoint']}, "
             "each followed by a longer back-off")
    return pd.DataFrame({"start": [c["time_s"]], "end": [s["time_s"]], "actor": [s["actor"]], "label": [label]})


def _sequence_panel(d: pd.DataFrame, lanes: list[str], groups: list[str], *, domain: tuple[float, float],
                    width: int, title: str, waits: pd.DataFrame | None = None, short: bool = False) -> alt.LayerChart:
    """One panel of :func:`race_sequence_chart`: lanes, faint routine marks, large labelled steps."""
    x = alt.X("time_s:Q", title="seconds since the scenario start",
              scale=alt.Scale(domain=list(domain), zero=False, nice=False))
    y = alt.Y("actor:N", sort=lanes, title=None, axis=alt.Axis(labelFontSize=12, labelPadding=6))
    colour = alt.Color("group:N", title="Action", scale=alt.Scale(
        domain=groups, range=[_RACE_GROUP_STYLE[g][0] for g in groups]),
        legend=alt.Legend(orient="bottom", columns=3, symbolOpacity=1, labelLimit=300))
    shape = alt.Shape("group:N", scale=alt.Scale(domain=groups, range=[_RACE_GROUP_STYLE[g][1] for g in groups]))
    tip = ["time_s:Q", "actor:N", "action:N", "endpoint:N", "plan:N", "detail:N"]
    base = alt.Chart(d).encode(x=x, y=y, color=colour, shape=shape, tooltip=tip)
    layers = []
    if waits is not None and len(waits):
        layers.append(alt.Chart(waits).mark_rect(color=PALETTE[4], opacity=0.14, height=24).encode(
            x=alt.X("start:Q", scale=alt.Scale(domain=list(domain), zero=False, nice=False)), x2="end:Q",
            y=alt.Y("actor:N", sort=lanes), tooltip=[alt.Tooltip("label:N", title="wait")]))
        layers.append(alt.Chart(waits).transform_calculate(mid="(datum.start + datum.end) / 2").mark_text(
            align="center", baseline="middle", fontSize=11, color="#5c4a00").encode(
            x="mid:Q", y=alt.Y("actor:N", sort=lanes), text="label:N"))
    routine = "datum.step == '' && datum.action != 'lock_lost'"
    layers += [
        base.transform_filter(routine).mark_point(size=36, filled=True, opacity=0.4),
        # Lock losses sit just below their lane's centre, small, so they never cover a labelled step.
        base.transform_filter("datum.step == '' && datum.action == 'lock_lost'").mark_point(
            size=30, filled=True, opacity=0.75, yOffset=9),
        base.transform_filter("datum.step != ''").mark_point(size=260, filled=True, opacity=1,
                                                              stroke="#111", strokeWidth=1.2),
    ]
    labels = _step_labels(d, short=short)
    if len(labels):
        right = labels["time_s"] <= domain[0] + 0.5 * (domain[1] - domain[0])
        for side, rows in (("left", labels.loc[right]), ("right", labels.loc[~right])):
            if len(rows):
                text = alt.Chart(rows).encode(x=x, y=alt.Y("actor:N", sort=lanes), text="label:N")
                kw = {"align": side, "dx": 12 if side == "left" else -12, "dy": -14, "fontSize": 12,
                      "fontWeight": "bold"}
                layers += [text.mark_text(**kw, stroke="white", strokeWidth=4, strokeOpacity=0.9),
                           text.mark_text(**kw, color="#111")]
    return alt.layer(*layers).properties(width=width, height=44 * max(len(lanes), 3), title=title)


def race_sequence_chart(events: pd.DataFrame, *, start_s: float, end_s: float,
                        width: int = 520) -> alt.LayerChart | alt.VConcatChart:
    """Sequence chart of a race run: one lane per actor, time on x, one mark per action.

    The three events the race is made of (the delayed Enactor's one-time check, its stale write,
    the clean-up that deletes the plan it wrote) are drawn large, outlined and labelled "1", "2",
    "3"; every other event is drawn small and faint, lock losses just below their lane. When the
    stale write is in the window, a band shows the writer's wait between check and write, and a
    second panel zooms on the seconds around the stale write and the deletion (in the first
    panel they are a fraction of a pixel apart).

    Args:
        events: ``RaceResult.events`` (columns ``time_s``, ``actor``, ``action``, ``endpoint``,
            ``generation``, ``detail``).
        start_s, end_s: the time window to draw, in seconds since the scenario start (start < end).
        width: chart width in pixels (100-4000).

    Returns:
        A layered chart (one panel), or two panels one above the other when the window holds a
        stale write: marks coloured and shaped by :data:`RACE_ACTION_GROUPS`, with a legend.

        A window with no event gives a chart that says "No events between ... s and ... s".

    Raises:
        ConfigError: ``events`` not a DataFrame, missing a column or empty; ``start_s``/``end_s`` not
            finite numbers within a year of the start, or ``end_s <= start_s``; a bad width.
    """
    _width(width)
    d = _sequence_data(events, start_s=start_s, end_s=end_s)
    start_s, end_s = _seconds("start_s", start_s, window=True), _seconds("end_s", end_s, window=True)
    title = f"The race, second by second ({start_s:.0f}-{end_s:.0f} s)"
    if d.empty:
        nothing = f"No events between {start_s:.0f} s and {end_s:.0f} s"
        return _note_chart(nothing, title=title, width=width, description=(
            f"Sequence chart from one model run: {nothing[0].lower() + nothing[1:]} (the run's events span "
            f"{float(events['time_s'].min()):.0f} s to {float(events['time_s'].max()):.0f} s), "
            "so there is no action to draw."))
    lanes = [a for a in events["actor"].cat.categories if a in set(d["actor"])] if hasattr(
        events["actor"], "cat") else sorted(set(d["actor"]))
    groups = [g for g in _RACE_GROUP_STYLE if g in set(d["group"])]
    steps = d.loc[d["step"] != ""]
    waits = _wait_data(d)
    described = (f"Sequence chart from one model run: lanes for {', '.join(lanes)}; each mark is one action "
                 f"({', '.join(groups)}); " + ("the steps of the race are drawn large and labelled: "
                 + "; ".join(_step_labels(d)["label"]) if len(steps) else "no stale write in this window")
                 + (f"; a shaded band on {waits['actor'].iloc[0]}'s lane: {waits['label'].iloc[0]}" if len(waits) else "")
                 + ".")
    stale = d.loc[d["step"] == _RACE_STEPS[1]]
    deleted = d.loc[d["step"] == _RACE_STEPS[2]]
    if stale.empty:
        chart = _sequence_panel(d, lanes, groups, domain=(start_s, end_s), width=width, title="", short=True)
        return _base_config(chart.properties(title=title, description=described))
    z0 = float(stale["time_s"].iloc[0]) - 2.5
    z1 = float((deleted if len(deleted) else stale)["time_s"].iloc[0]) + 2.5
    z0, z1 = max(z0, start_s), min(z1, end_s)
    zoomed = d.loc[d["time_s"].between(z0, z1)]
    zoom_lanes = [a for a in lanes if a in set(zoomed["actor"])]
    zoom_groups = [g for g in groups if g in set(zoomed["group"])]
    box = pd.DataFrame({"start": [z0], "end": [z1], "label": ["zoomed below"]})
    xs = alt.Scale(domain=[start_s, end_s], zero=False, nice=False)
    marker = [alt.Chart(box).mark_rect(color="#888", opacity=0.16).encode(x=alt.X("start:Q", scale=xs), x2="end:Q"),
              alt.Chart(box).mark_text(align="right", baseline="bottom", dx=-4, dy=-2, fontSize=11, color="#444").encode(
                  x="start:Q", y=alt.value(0), text="label:N")]
    whole = alt.layer(*marker, _sequence_panel(d, lanes, groups, domain=(start_s, end_s), width=width,
                                               title="", waits=waits, short=True))
    zoom = _sequence_panel(zoomed, zoom_lanes, zoom_groups, domain=(z0, z1), width=width,
                           title=f"Zoom on {z0:.1f}-{z1:.1f} s: the stale write and the deletion")
    chart = alt.vconcat(whole, zoom, spacing=28).resolve_scale(color="shared", shape="shared").properties(
        title=title, description=described + (f" A second panel zooms on {z0:.1f}-{z1:.1f} s."))
    return _base_config(chart)


def _generation_data(states: pd.DataFrame, events: pd.DataFrame, *, start_s: float = 0.0,
                     end_s: float | None = None) -> pd.DataFrame:
    """What :func:`race_generation_chart` draws: step lines and write marks in one long frame.

    Columns: ``time_min`` (minutes since the scenario start), ``endpoint`` (the panel),
    ``generation`` (plan generation, y), ``series`` (colour: "served by the endpoint", "newest plan"
    or the Enactor that wrote) and ``kind`` ("line" for the two step lines, else the write's
    outcome: "applied", "stale write", "refused", "failed: active plan missing"; the shape).
    """
    _frame("states", states, ("time_s", "endpoint", "generation", "newest_generation"), numeric=("time_s",),
           empty="endpoint_states() holds every endpoint's initial state")
    _frame("events", events, ("time_s", "actor", "action", "endpoint", "generation"), numeric=("time_s",),
           empty=_RACE_NOT_EMPTY)
    start_s = _seconds("start_s", start_s, window=True)
    end_s = float(events["time_s"].max()) if end_s is None else _seconds("end_s", end_s, window=True)
    if not end_s > start_s:
        raise ConfigError(f"end_s must be > start_s, got start_s={start_s!r}, end_s={end_s!r}")
    if not (states["time_s"] <= end_s).any():
        raise ConfigError(f"states has no row at or before end_s={end_s!r} (its first is at "
                         f"{float(states['time_s'].min()):.1f} s)")
    kinds = {"write": "applied", "write_noop": "applied", "stale_write": "stale write",
             "write_refused": "refused", "refused_empty": "refused", "self_repair": "applied",
             "inconsistent": "failed: active plan missing"}
    w = events.loc[events["action"].isin(kinds) & events["time_s"].between(start_s, end_s)]
    writes = pd.DataFrame({"time_min": w["time_s"] / 60, "endpoint": w["endpoint"].astype(str),
                           "generation": w["generation"].astype(int), "series": w["actor"].astype(str),
                           "kind": w["action"].astype(str).map(kinds)})
    s = states.loc[states["time_s"] <= end_s]
    # Carry the state at start_s into the window, and extend each line to end_s.
    s = pd.concat([s.loc[s["time_s"] < start_s].groupby("endpoint").tail(1).assign(time_s=start_s),
                   s.loc[s["time_s"] >= start_s]])
    s = pd.concat([s, s.groupby("endpoint").tail(1).assign(time_s=end_s)])
    # The newest plan steps at every plan the DNS Planner makes, the same for every endpoint.
    p = s.groupby("endpoint").head(1)[["time_s", "endpoint", "newest_generation"]]
    made = events.loc[(events["action"] == "plan_created") & events["time_s"].between(start_s, end_s)]
    # At end_s: the newest plan made by then, or the endpoints' own newest if none was made yet.
    last = s.groupby("endpoint").tail(1)[["time_s", "endpoint", "newest_generation"]]
    made_by_end = events.loc[(events["action"] == "plan_created") & (events["time_s"] <= end_s), "generation"].dropna()
    if len(made_by_end):
        last = last.assign(newest_generation=np.maximum(last["newest_generation"].astype(int), int(made_by_end.max())))
    p = pd.concat([p, *[pd.DataFrame({"time_s": made["time_s"], "endpoint": e,
                                      "newest_generation": made["generation"]}) for e in p["endpoint"]], last])
    lines = pd.concat([
        pd.DataFrame({"time_min": s["time_s"] / 60, "endpoint": s["endpoint"].astype(str),
                      "generation": s["generation"].astype(int), "series": "served by the endpoint"}),
        pd.DataFrame({"time_min": p["time_s"] / 60, "endpoint": p["endpoint"].astype(str),
                      "generation": p["newest_generation"].astype(int), "series": "newest plan"}),
    ]).assign(kind="line")
    data = pd.concat([lines, writes], ignore_index=True)
    return data


def race_generation_chart(states: pd.DataFrame, events: pd.DataFrame, *, start_s: float = 0.0,
                          end_s: float | None = None, width: int = 440) -> alt.FacetChart:
    """Plan generation per endpoint over time: what each Enactor wrote, and what the endpoint served.

    Args:
        states: ``RaceResult.endpoint_states()`` (``time_s``, ``endpoint``, ``generation``,
            ``newest_generation``).
        events: ``RaceResult.events``; the Enactors' write attempts are drawn from it.
        start_s, end_s: time window in seconds (``end_s`` None = the last event).
        width: width of each panel in pixels (100-4000).

    Returns:
        One panel per endpoint: a black step line for the served generation, a grey dashed one for
        the newest plan, and a mark per Enactor write (circle = applied, square = stale, triangle =
        refused by a guard, cross = failed because the active plan was missing).

    Raises:
        ConfigError: a frame that is not a DataFrame, lacks a column or is empty; ``start_s`` /
            ``end_s`` not finite numbers within a year of the start, or ``end_s <= start_s``; no
            endpoint state at or before ``end_s``; a bad width.
    """
    _width(width)
    data = _generation_data(states, events, start_s=start_s, end_s=end_s)
    start_s = _seconds("start_s", start_s, window=True)
    end_s = float(events["time_s"].max()) if end_s is None else _seconds("end_s", end_s, window=True)
    writes = data.loc[data["kind"] != "line"]
    enactors = sorted(set(writes["series"]))
    domain = ["served by the endpoint", "newest plan", *enactors]
    colour = alt.Color("series:N", title=None, scale=alt.Scale(
        domain=domain, range=["#111", "#8a8a8a", *[PALETTE[i % 6] for i in range(len(enactors))]]),
        legend=alt.Legend(orient="bottom", columns=3))
    x = alt.X("time_min:Q", title="minutes since the scenario start", scale=alt.Scale(domain=[start_s / 60, end_s / 60]))
    y = alt.Y("generation:Q", title=None, scale=alt.Scale(zero=False))
    base = alt.Chart().encode(x=x, y=y, color=colour)
    line = base.transform_filter("datum.kind == 'line'").mark_line(interpolate="step-after", strokeWidth=1.6).encode(
        strokeDash=alt.condition("datum.series == 'newest plan'", alt.value([4, 3]), alt.value([1, 0])))
    kinds_order = ["applied", "stale write", "refused", "failed: active plan missing"]
    marks = base.transform_filter("datum.kind != 'line'").mark_point(size=45, filled=True).encode(
        shape=alt.Shape("kind:N", title="Write", scale=alt.Scale(domain=kinds_order,
                        range=["circle", "square", "triangle-up", "cross"]), legend=alt.Legend(orient="bottom", columns=2)),
        tooltip=["series:N", "kind:N", "generation:Q", alt.Tooltip("time_min:Q", format=".2f")])
    chart = alt.layer(line, marks, data=data).properties(width=width, height=80).facet(
        row=alt.Row("endpoint:N", sort=list(dict.fromkeys(states["endpoint"].astype(str))),
                    title="plan generation at each endpoint", header=alt.Header(labelAngle=0, labelAlign="left")),
    ).properties(
        title=["Plan generation per endpoint", "served (black), newest (dashed), each Enactor's writes (marks)"],
        description=("One panel per endpoint over time in minutes. A black step line shows the plan the endpoint "
                     "serves, a dashed grey line the newest plan; marks are Enactor writes, coloured by Enactor, "
                     "squares for stale writes, triangles for writes refused by a guard."),
    )
    if len(data) > _MAX_ROWS:
        span_min = (end_s - start_s) / 60
        fit_min = max(1.0, math.floor(span_min * _MAX_ROWS / len(data)))
        raise ConfigError(f"start_s={start_s:g} to end_s={end_s:g} holds {len(data):,} plan steps and writes, more "
                          f"than the {_MAX_ROWS:,} this chart draws (one mark per write, one step per plan); "
                          f"narrow the window to about {fit_min:.0f} minutes or fewer")
    return _base_config(chart)


def _records_data(states: pd.DataFrame, windows: pd.DataFrame, *,
                  endpoint: str = "regional") -> tuple[pd.DataFrame, pd.DataFrame]:
    """What :func:`race_records_chart` draws: the step line's frame and the empty windows' bands.

    The first has ``time_min`` (minutes since the scenario start) and ``records`` (records the
    endpoint answers with; 0 = empty), extended to the run's end; the second ``start`` and ``end``
    (minutes) and ``label`` ("empty 2 h 37 min") per empty window of ``endpoint``.
    """
    _frame("states", states, ("time_s", "endpoint", "records"), numeric=("time_s", "records"),
           empty="endpoint_states() holds every endpoint's initial state")
    _frame("windows", windows, ("endpoint", "start_s", "end_s", "duration_s"),
           numeric=("start_s", "end_s", "duration_s"))
    if not isinstance(endpoint, str):
        raise ConfigError(f"endpoint must be a string, got {endpoint!r} of type {type(endpoint).__name__}")
    s = states.loc[states["endpoint"] == endpoint]
    if s.empty:
        raise ConfigError(f"endpoint {endpoint!r} has no states; endpoints are {sorted(set(states['endpoint']))}")
    d = pd.DataFrame({"time_min": s["time_s"] / 60, "records": s["records"].astype(int)})
    wdw = windows.loc[windows["endpoint"] == endpoint]
    end_min = float(max(d["time_min"].max(), (wdw["end_s"].max() / 60) if len(wdw) else 0))
    d = pd.concat([d, d.tail(1).assign(time_min=end_min)])
    bands = pd.DataFrame({"start": wdw["start_s"] / 60, "end": wdw["end_s"] / 60,
                          "label": ["empty " + format_duration(v) if v >= 60 else f"empty {v:.0f} s"
                                    for v in wdw["duration_s"]]})
    return d, bands


def race_records_chart(states: pd.DataFrame, windows: pd.DataFrame, *, endpoint: str = "regional",
                       width: int = 520) -> alt.LayerChart:
    """Record count of one endpoint over time, with its empty windows shaded.

    Args:
        states: ``RaceResult.endpoint_states()`` (``time_s``, ``endpoint``, ``records``).
        windows: ``RaceResult.empty_windows()`` (``endpoint``, ``start_s``, ``end_s``, ``duration_s``).
        endpoint: which endpoint to draw.
        width: chart width in pixels (100-4000).

    Returns:
        A step line of the records the endpoint answers with (0 = NOERROR, empty answer) and a shaded
        band, labelled with its length, for each empty window. ``windows`` may be empty (the
        endpoint never went empty): the description then says so.

    Raises:
        ConfigError: a frame that is not a DataFrame or lacks a column, empty ``states``, an
            ``endpoint`` that is not a string or has no state, or a bad width.
    """
    _width(width)
    d, bands = _records_data(states, windows, endpoint=endpoint)
    wdw = windows.loc[windows["endpoint"] == endpoint]
    x = alt.X("time_min:Q", title="minutes since the scenario start")
    shade = alt.Chart(bands).mark_rect(color=PALETTE[5], opacity=0.18).encode(x="start:Q", x2="end:Q")
    text = alt.Chart(bands).mark_text(align="left", dx=4, dy=10, baseline="top", color=PALETTE[5], fontSize=12).encode(
        x="start:Q", y=alt.value(0), text="label:N")
    line = alt.Chart(d).mark_line(interpolate="step-after", color=PALETTE[0], strokeWidth=1.8).encode(
        x=x, y=alt.Y("records:Q", title=f"records in the {endpoint} answer"),
        tooltip=[alt.Tooltip("time_min:Q", format=".2f"), "records:Q"])
    total = float(wdw["duration_s"].sum())
    chart = alt.layer(shade, line, text).properties(
        width=width, height=200, title=f"Records answered for the {endpoint} endpoint",
        description=(f"Step line of the number of records the {endpoint} endpoint answers with over time in minutes; "
                     + (f"{len(wdw)} shaded empty window(s), {total:.0f} s in total, where it answered NOERROR with "
                        "zero records." if len(wdw) else "no shaded window: it never answered with zero records.")),
    )
    return _base_config(chart)


_GUARDS = GUARD_NAMES


def _guard_explorer_data(data: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """What :func:`race_guard_explorer_chart` draws: the binned series and one label per combination.

    The first frame has ``g1``..``g4`` (the guards, the checkboxes' keys), ``t`` (bin start,
    minutes) and ``r`` (fewest records answered in the bin); the second ``g1``..``g4``, the
    ``label`` the chart prints for that combination (its ``regional_empty_s`` in words), and
    ``label_lines`` / ``label_px``, the label wrapped for a narrow plot and its width unwrapped.
    """
    guards = _GUARDS
    _frame("data", data, (*guards, "time_min", "records", "regional_empty_s"),
           numeric=("time_min", "records", "regional_empty_s"),
           empty="guard_explorer_data() holds all 16 guard combinations")
    if data.groupby(list(guards)).ngroups != 16:
        raise ConfigError("data must hold all 16 guard combinations")
    # Short column names keep the page small: the spec carries every row of all 16 combinations.
    short = {g: f"g{i + 1}" for i, g in enumerate(guards)}
    d = data[[*guards, "time_min", "records"]].rename(columns={**short, "time_min": "t", "records": "r"})
    d["t"] = d["t"].round(3)
    extra = [c for c in ("alerts", "manual_repair") if c in data.columns]
    totals = data.groupby(list(guards), as_index=False)[["regional_empty_s", *extra]].first().rename(columns=short)
    totals["label"] = [_explorer_label(row) for row in totals.to_dict("records")]
    return d, _wrapped(totals[["g1", "g2", "g3", "g4", "label"]], "label", chars=40, offset_px=12)


def race_guard_explorer_chart(data: pd.DataFrame, *, width: int = 520) -> alt.LayerChart:
    """One chart, four checkboxes: toggle guards 1-4 and see the regional record count change.

    The checkboxes are Vega-Lite parameters bound to inputs, so the chart works in the static book
    with no kernel: it filters precomputed data for all 16 guard combinations.

    Args:
        data: :func:`labsupport.race.guard_explorer_data` (the four guard columns, ``time_min``,
            ``records``, ``regional_empty_s``), 16 combinations.
        width: chart width in pixels (100-4000).

    Returns:
        A layered chart with four bound checkbox parameters; red bars mark bins with an empty answer
        and a line of text gives the combination's total empty time. In the book it takes its width
        from the page (at most ``width``), and the line of text wraps when the plot is narrow.

    Raises:
        ConfigError: ``data`` not a DataFrame, missing a column, empty or without all 16 guard
            combinations; a bad width.
    """
    _width(width)
    d, totals = _guard_explorer_data(data)
    times = sorted(set(d["t"]))
    step = min(b - a for a, b in zip(times, times[1:])) if len(times) > 1 else 1.0
    guards = _GUARDS
    params = [alt.param(name=f"g{i + 1}", value=False, bind=alt.binding_checkbox(name=f"Guard {i + 1}: {g} "))
              for i, g in enumerate(guards)]
    chosen = " && ".join(f"datum.g{i} == g{i}" for i in range(1, 5))
    x = alt.X("t:Q", title="minutes since the scenario start")
    line = alt.Chart(d).transform_filter(chosen).mark_line(interpolate="step-after", color=PALETTE[0]).encode(
        x=x, y=alt.Y("r:Q", title="fewest records answered per bin",
                     scale=alt.Scale(domain=[0, float(d["r"].max()) * 1.3 or 1.0])),
        tooltip=[alt.Tooltip("t:Q", title="minute"), alt.Tooltip("r:Q", title="records")])
    empty = alt.Chart(d).transform_filter(chosen).transform_filter("datum.r == 0").transform_calculate(
        t2=f"datum.t + {step!r}").mark_rect(color=PALETTE[5], opacity=0.35, stroke=None).encode(x="t:Q", x2="t2:Q")
    # The state line wraps when the plot is too narrow for it (a phone): see _state_text.
    label = alt.Chart(totals).transform_filter(chosen).mark_text(
        align="left", baseline="top", dx=6, dy=6, fontSize=13, color=PALETTE[5], lineBreak="\n").encode(
        x=alt.value(0), y=alt.value(0), text=_state_text("label"))
    chart = alt.layer(empty, line, label).add_params(*params).properties(
        width=width, height=220, title="Toggle the guards: regional endpoint records over time",
        usermeta=reflow_usermeta(),
        description=("Interactive chart with four checkboxes, one per guard. For the chosen combination it shows "
                     "the fewest records the regional endpoint answered with in each time bin, with red bars where "
                     "the answer was empty, and the total empty time. All 16 combinations were computed by the model."),
    )
    return _base_config(chart)


def _explorer_label(row: dict) -> str:
    v = row["regional_empty_s"]
    text = ("regional endpoint empty for " + (format_duration(v) if v >= 60 else f"{v:.0f} s")) if v > 0 \
        else "regional endpoint never empty"
    if row.get("manual_repair"):
        text += ", until the manual repair"
    elif v > 0:
        text += ", no manual repair"
    if row.get("alerts"):
        text += f"; {int(row['alerts'])} alert(s) raised"
    return text
