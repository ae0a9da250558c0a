"""The race chapter's main figure: the check, the stale write and the deletion, per actor, over time.

The race's other charts are in :mod:`labsupport.charts.race`; the action groups and styles they share
with this one, and with the model checker's sequence chart, are in ``_common``.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from ..errors import ConfigError
from ._common import _RACE_GROUP_STYLE, _RACE_NOT_EMPTY, RACE_ACTION_GROUPS
from ._inputs import _frame, _note_chart, _seconds, _width
from ._palette import PALETTE
from ._render import _base_config

__all__ = ["race_sequence_chart", "race_sequence_data", "race_sequence_wait_data"]


_RACE_KEY_ACTIONS = {
    "stale_write": "stale write",
    "delete_active": "active plan deleted",
    "manual_repair": "manual repair",
    "self_repair": "self-repair",
    "alert": "alert",
}


#: The three steps of the race that :func:`race_sequence_chart` labels, in order, and their effect.
_RACE_STEPS = ("1 one-time check", "2 stale write", "3 clean-up deletes the active plan", "then: endpoint empty")


def _race_steps(ev: pd.DataFrame, action: pd.Series) -> tuple[pd.Series, pd.Series]:
    """The ``step`` and ``over`` columns of :func:`race_sequence_data` (see there), for the events ``ev``."""
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
    before = ev.loc[
        action.isin(["write", "write_noop", "self_repair"])
        & same_endpoint
        & ~(ev["time_s"] > s["time_s"])
        & (ev.index != stale.index[0])
    ]
    if len(before):
        over[stale.index[0]] = str(before["generation"].iloc[-1])
    return step, over


def race_sequence_data(events: pd.DataFrame, *, start_s: float, end_s: float) -> pd.DataFrame:
    """The data :func:`race_sequence_chart` draws: one row per event in ``[start_s, end_s]``.

    Args:
        events, start_s, end_s: as for :func:`race_sequence_chart`.

    Returns:
        One row per event in the window (none when it holds no event): ``time_s`` (float64,
        seconds since the scenario start, to 0.01 s), ``actor`` (str, the lane), ``action`` (str),
        ``group`` (str, its :data:`~labsupport.charts.RACE_ACTION_GROUPS` name: colour and shape),
        ``endpoint`` (str), ``plan`` (string, the generation as text), ``detail`` (str), ``step``
        (str), ``over`` (str), ``short`` and ``label`` (object, str values).

        ``step`` is "" for a routine event (drawn small and faint), or one of "1 one-time check",
        "2 stale write", "3 clean-up deletes the active plan" for the three events the race is made
        of, and "then: endpoint empty" for their effect (drawn large and labelled). Step 2 is the
        window's first stale write; step 1 the same Enactor's last check of that plan before it;
        step 3 the first deletion of that plan while it was active, on that endpoint, after it; the
        effect, Route 53's first empty answer for that endpoint after it. A step outside the window
        is not drawn. ``over`` (on the stale write only, else "") is the plan last written to that
        endpoint before it, as text; ``short`` and ``label`` are a step's text in the overview and
        in the zoom ("1 one-time check of plan 5, 124.1 s", its time from the unrounded
        ``time_s``), "" for a routine event.

    Raises:
        ConfigError: a bad argument, as :func:`race_sequence_chart` says.
    """
    _frame(
        "events",
        events,
        ("time_s", "actor", "action", "endpoint", "generation", "detail"),
        numeric=("time_s",),
        empty=_RACE_NOT_EMPTY,
    )
    start_s, end_s = _seconds("start_s", start_s, window=True), _seconds("end_s", end_s, window=True)
    if not end_s > start_s:
        raise ConfigError(f"end_s must be > start_s, got start_s={start_s!r}, end_s={end_s!r}")
    ev = events.loc[(events["time_s"] >= start_s) & (events["time_s"] <= end_s)]
    action = ev["action"].astype(str)
    step, over = _race_steps(ev, action)
    fields = pd.DataFrame(
        {
            "plan": ev["generation"].astype("string").fillna(""),
            "over": over.astype(str),
            "endpoint": ev["endpoint"].fillna("").astype(str),
            "t": ev["time_s"],
            "step": step,
        }
    )
    texts = [
        ("", "")
        if not r.step
        else tuple(
            w.format(plan=r.plan, over=r.over or "a newer one", endpoint=r.endpoint) + f", {r.t:.1f} s"
            for w in _STEP_WORDS[str(r.step)]
        )
        for r in fields.itertuples()
    ]
    return pd.DataFrame(
        {
            "time_s": ev["time_s"].round(2),
            "actor": ev["actor"].astype(str),
            "action": action,
            "group": action.map(RACE_ACTION_GROUPS).fillna("other action"),
            "endpoint": ev["endpoint"].fillna("").astype(str),
            "plan": ev["generation"].astype("string").fillna(""),
            "detail": ev["detail"].astype(str),
            "step": step.astype(str),
            "over": over.astype(str),
            "short": pd.Series([t[0] for t in texts], index=ev.index, dtype=object),
            "label": pd.Series([t[1] for t in texts], index=ev.index, dtype=object),
        }
    )


def _step_labels(d: pd.DataFrame, *, short: bool = False) -> pd.DataFrame:
    """The labelled steps of :func:`race_sequence_data`'s frame: ``time_s``, ``actor``, ``step``, ``label``
    (``short`` takes the overview's ``short`` text, else the zoom's ``label``)."""
    k = d.loc[d["step"] != ""]
    return pd.DataFrame(
        {"time_s": k["time_s"], "actor": k["actor"], "step": k["step"], "label": k["short" if short else "label"]}
    )


#: The words of each step's label: (overview, zoom), formatted with the event's fields.
_STEP_WORDS = {
    _RACE_STEPS[0]: ("1 one-time check of plan {plan}", "1 one-time check of plan {plan}"),
    _RACE_STEPS[1]: ("2 stale write", "2 stale write: plan {plan} over plan {over}"),
    _RACE_STEPS[2]: ("3 plan {plan} deleted", "3 clean-up deletes plan {plan}, the active one"),
    _RACE_STEPS[3]: ("endpoint empty", "the {endpoint} endpoint answers with no records"),
}


def race_sequence_wait_data(sequence: pd.DataFrame) -> pd.DataFrame:
    """The band :func:`race_sequence_chart` draws on the writer's lane, from step 1 to step 2.

    Args:
        sequence: a frame from :func:`race_sequence_data`.

    Returns:
        One row, or none unless both steps are in ``sequence``: ``start`` and ``end`` (float64,
        seconds since the scenario start), ``actor`` (str, the writer's lane) and ``label`` (str:
        the wait, and the writer's lock losses on the stale write's endpoint between the two steps).
    """
    steps = sequence["step"]
    check, stale = sequence.loc[steps == _RACE_STEPS[0]], sequence.loc[steps == _RACE_STEPS[1]]
    if check.empty or stale.empty:
        return pd.DataFrame({"start": [], "end": [], "actor": [], "label": []})
    c, s = check.iloc[0], stale.iloc[0]
    lost = sequence.loc[
        (sequence["action"] == "lock_lost")
        & (sequence["actor"] == s["actor"])
        & (sequence["endpoint"] == s["endpoint"])
        & sequence["time_s"].between(c["time_s"], s["time_s"])
    ]
    label = (
        f"waits {s['time_s'] - c['time_s']:.0f} s: {len(lost)} lock losses on {s['endpoint']}, "
        "each followed by a jittered back-off"
    )
    return pd.DataFrame({"start": [c["time_s"]], "end": [s["time_s"]], "actor": [s["actor"]], "label": [label]})


def _sequence_panel(
    d: pd.DataFrame,
    lanes: list[str],
    groups: list[str],
    *,
    domain: tuple[float, float],
    width: int,
    title: str,
    waits: pd.DataFrame | None = None,
    short: bool = False,
) -> alt.LayerChart:
    """One panel of :func:`race_sequence_chart`: lanes, faint routine marks, large labelled steps."""
    x = alt.X(
        "time_s:Q",
        title="seconds since the scenario start",
        scale=alt.Scale(domain=list(domain), zero=False, nice=False),
    )
    y = alt.Y("actor:N", sort=lanes, title=None, axis=alt.Axis(labelFontSize=12, labelPadding=6))
    colour = alt.Color(
        "group:N",
        title="Action",
        scale=alt.Scale(domain=groups, range=[_RACE_GROUP_STYLE[g][0] for g in groups]),
        legend=alt.Legend(orient="bottom", columns=3, symbolOpacity=1, labelLimit=300),
    )
    shape = alt.Shape("group:N", scale=alt.Scale(domain=groups, range=[_RACE_GROUP_STYLE[g][1] for g in groups]))
    tip = ["time_s:Q", "actor:N", "action:N", "endpoint:N", "plan:N", "detail:N"]
    base = alt.Chart(d).encode(x=x, y=y, color=colour, shape=shape, tooltip=tip)
    layers = _wait_band(waits, lanes, domain) if waits is not None and len(waits) else []
    routine = "datum.step == '' && datum.action != 'lock_lost'"
    layers += [
        base.transform_filter(routine).mark_point(size=36, filled=True, opacity=0.4),
        # Lock losses sit just below their lane's centre, small, so they never cover a labelled step.
        base.transform_filter("datum.step == '' && datum.action == 'lock_lost'").mark_point(
            size=30, filled=True, opacity=0.75, yOffset=9
        ),
        base.transform_filter("datum.step != ''").mark_point(
            size=260, filled=True, opacity=1, stroke="#111", strokeWidth=1.2
        ),
    ]
    layers += _step_texts(d, x, lanes, domain, short=short)
    return alt.layer(*layers).properties(width=width, height=44 * max(len(lanes), 3), title=title)


def _wait_band(waits: pd.DataFrame, lanes: list[str], domain: tuple[float, float]) -> list[alt.Chart]:
    """The stale writer's wait between its check and its write: a band on its lane, labelled."""
    return [
        alt.Chart(waits)
        .mark_rect(color=PALETTE[4], opacity=0.14, height=24)
        .encode(
            x=alt.X("start:Q", scale=alt.Scale(domain=list(domain), zero=False, nice=False)),
            x2=alt.X2("end:Q"),
            y=alt.Y("actor:N", sort=lanes),
            tooltip=[alt.Tooltip("label:N", title="wait")],
        ),
        alt.Chart(waits)
        .transform_calculate(mid="(datum.start + datum.end) / 2")
        .mark_text(align="center", baseline="middle", fontSize=11, color="#5c4a00")
        .encode(x=alt.X("mid:Q"), y=alt.Y("actor:N", sort=lanes), text=alt.Text("label:N")),
    ]


def _step_texts(
    d: pd.DataFrame, x: alt.X, lanes: list[str], domain: tuple[float, float], *, short: bool
) -> list[alt.Chart]:
    """The race's steps named beside their marks, haloed in white: right of a mark in the window's
    first half, left of it in the second."""
    layers: list[alt.Chart] = []
    labels = _step_labels(d, short=short)
    if len(labels):
        right = labels["time_s"] <= domain[0] + 0.5 * (domain[1] - domain[0])
        for side, rows in (("left", labels.loc[right]), ("right", labels.loc[~right])):
            if len(rows):
                text = alt.Chart(rows).encode(x=x, y=alt.Y("actor:N", sort=lanes), text=alt.Text("label:N"))
                kw = {
                    "align": side,
                    "dx": 12 if side == "left" else -12,
                    "dy": -14,
                    "fontSize": 12,
                    "fontWeight": "bold",
                }
                layers += [
                    text.mark_text(**kw, stroke="white", strokeWidth=4, strokeOpacity=0.9),
                    text.mark_text(**kw, color="#111"),
                ]
    return layers


def race_sequence_chart(
    events: pd.DataFrame, *, start_s: float, end_s: float, width: int = 520
) -> alt.LayerChart | alt.VConcatChart:
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
    d = race_sequence_data(events, start_s=start_s, end_s=end_s)
    start_s, end_s = _seconds("start_s", start_s, window=True), _seconds("end_s", end_s, window=True)
    title = f"The race, second by second ({start_s:.0f}-{end_s:.0f} s)"
    if d.empty:
        return _nothing_between(events, start_s, end_s, title, width)
    lanes = (
        [a for a in events["actor"].cat.categories if a in set(d["actor"])]
        if hasattr(events["actor"], "cat")
        else sorted(set(d["actor"]))
    )
    groups = [g for g in _RACE_GROUP_STYLE if g in set(d["group"])]
    waits = race_sequence_wait_data(d)
    described = _sequence_description(d, lanes, groups, waits)
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
    whole = alt.layer(
        *_zoom_marker(z0, z1, start_s, end_s),
        _sequence_panel(d, lanes, groups, domain=(start_s, end_s), width=width, title="", waits=waits, short=True),
    )
    zoom = _sequence_panel(
        zoomed,
        zoom_lanes,
        zoom_groups,
        domain=(z0, z1),
        width=width,
        title=f"Zoom on {z0:.1f}-{z1:.1f} s: the stale write and the deletion",
    )
    chart = (
        alt.vconcat(whole, zoom, spacing=28)
        .resolve_scale(color="shared", shape="shared")
        .properties(title=title, description=described + (f" A second panel zooms on {z0:.1f}-{z1:.1f} s."))
    )
    return _base_config(chart)


def _nothing_between(events: pd.DataFrame, start_s: float, end_s: float, title: str, width: int) -> alt.LayerChart:
    """The chart when the window holds no event: a note saying so."""
    nothing = f"No events between {start_s:.0f} s and {end_s:.0f} s"
    return _note_chart(
        nothing,
        title=title,
        width=width,
        description=(
            f"Sequence chart from one model run: {nothing[0].lower() + nothing[1:]} (the run's events span "
            f"{float(events['time_s'].min()):.0f} s to {float(events['time_s'].max()):.0f} s), "
            "so there is no action to draw."
        ),
    )


def _sequence_description(d: pd.DataFrame, lanes: list[str], groups: list[str], waits: pd.DataFrame) -> str:
    """The text alternative of :func:`race_sequence_chart`'s panel: lanes, actions, the race's steps, the wait."""
    steps = d.loc[d["step"] != ""]
    return (
        f"Sequence chart from one model run: lanes for {', '.join(lanes)}; each mark is one action "
        f"({', '.join(groups)}); "
        + (
            "the steps of the race are drawn large and labelled: " + "; ".join(_step_labels(d)["label"])
            if len(steps)
            else "no stale write in this window"
        )
        + (f"; a shaded band on {waits['actor'].iloc[0]}'s lane: {waits['label'].iloc[0]}" if len(waits) else "")
        + "."
    )


def _zoom_marker(z0: float, z1: float, start_s: float, end_s: float) -> list[alt.Chart]:
    """A grey box on the whole window over the seconds the second panel zooms on, labelled."""
    box = pd.DataFrame({"start": [z0], "end": [z1], "label": ["zoomed below"]})
    xs = alt.Scale(domain=[start_s, end_s], zero=False, nice=False)
    return [
        alt.Chart(box).mark_rect(color="#888", opacity=0.16).encode(x=alt.X("start:Q", scale=xs), x2=alt.X2("end:Q")),
        alt.Chart(box)
        .mark_text(align="right", baseline="bottom", dx=-4, dy=-2, fontSize=11, color="#444")
        .encode(x=alt.X("start:Q"), y=alt.YValue(0), text=alt.Text("label:N")),
    ]
