"""Charts of one run of the DNS Planner/Enactor race (labsupport.race): plan generations and records.

The race's event sequence is :mod:`labsupport.charts.race_sequence`; the guard explorer (every guard
combination over many seeds) is :mod:`labsupport.charts.race_guards`.
"""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import pandas as pd

from ..errors import ConfigError
from ..timeline import format_duration
from ._common import _RACE_NOT_EMPTY
from ._inputs import _MAX_ROWS, _frame, _seconds, _width
from ._palette import PALETTE
from ._render import _base_config

__all__ = ["race_generation_chart", "race_generation_data", "race_records_chart", "race_records_data"]


def race_generation_data(
    states: pd.DataFrame, events: pd.DataFrame, *, start_s: float = 0.0, end_s: float | None = None
) -> pd.DataFrame:
    """The data :func:`race_generation_chart` draws: its step lines and write marks in one long frame.

    Args:
        states, events, start_s, end_s: as for :func:`race_generation_chart`.

    Returns:
        One row per step of the two lines and per Enactor write in the window: ``time_min``
        (float64, minutes since the scenario start), ``endpoint`` (str, the panel), ``generation``
        (int64, plan generation: y), ``series`` (str, the colour: "served by the endpoint", "newest
        plan" or the Enactor that wrote) and ``kind`` (str: "line" for the two step lines, else the
        write's outcome, "applied", "stale write", "refused" or "failed: active plan missing": the
        shape).

    Raises:
        ConfigError: a bad argument, as :func:`race_generation_chart` says (the row limit aside).
    """
    start_s, end_s = _window(states, events, start_s, end_s)
    return pd.concat(
        [_generation_lines(states, events, start_s, end_s), _generation_writes(events, start_s, end_s)],
        ignore_index=True,
    )


def _window(states: pd.DataFrame, events: pd.DataFrame, start_s: float, end_s: float | None) -> tuple[float, float]:
    """The frames and window of :func:`race_generation_data` checked; the window as ``(start_s, end_s)``."""
    _frame(
        "states",
        states,
        ("time_s", "endpoint", "generation", "newest_generation"),
        numeric=("time_s",),
        empty="endpoint_states() holds every endpoint's initial state",
    )
    _frame(
        "events",
        events,
        ("time_s", "actor", "action", "endpoint", "generation"),
        numeric=("time_s",),
        empty=_RACE_NOT_EMPTY,
    )
    start = _seconds("start_s", start_s, window=True)
    end = float(events["time_s"].max()) if end_s is None else _seconds("end_s", end_s, window=True)
    if not end > start:
        raise ConfigError(f"end_s must be > start_s, got start_s={start!r}, end_s={end!r}")
    if not (states["time_s"] <= end).any():
        raise ConfigError(
            f"states has no row at or before end_s={end!r} (its first is at {float(states['time_s'].min()):.1f} s)"
        )
    return start, end


#: The Enactors' write actions the chart marks, and the outcome (the mark's shape) each stands for.
_WRITE_KINDS = {
    "write": "applied",
    "write_noop": "applied",
    "stale_write": "stale write",
    "write_refused": "refused",
    "refused_empty": "refused",
    "self_repair": "applied",
    "inconsistent": "failed: active plan missing",
}


def _generation_writes(events: pd.DataFrame, start_s: float, end_s: float) -> pd.DataFrame:
    """One row per Enactor write in the window, coloured by its Enactor, shaped by its outcome."""
    w = events.loc[events["action"].isin(_WRITE_KINDS) & events["time_s"].between(start_s, end_s)]
    return pd.DataFrame(
        {
            "time_min": w["time_s"] / 60,
            "endpoint": w["endpoint"].astype(str),
            "generation": w["generation"].astype(int),
            "series": w["actor"].astype(str),
            "kind": w["action"].astype(str).map(_WRITE_KINDS),
        }
    )


def _generation_lines(states: pd.DataFrame, events: pd.DataFrame, start_s: float, end_s: float) -> pd.DataFrame:
    """The two step lines per endpoint over the window: the generation it served, and the newest plan."""
    s = states.loc[states["time_s"] <= end_s]
    # Carry the state at start_s into the window, and extend each line to end_s.
    s = pd.concat(
        [s.loc[s["time_s"] < start_s].groupby("endpoint").tail(1).assign(time_s=start_s), s.loc[s["time_s"] >= start_s]]
    )
    s = pd.concat([s, s.groupby("endpoint").tail(1).assign(time_s=end_s)])
    # The newest plan steps at every plan the DNS Planner makes, the same for every endpoint.
    p = s.groupby("endpoint").head(1)[["time_s", "endpoint", "newest_generation"]]
    made = events.loc[(events["action"] == "plan_created") & events["time_s"].between(start_s, end_s)]
    # At end_s: the newest plan made by then, or the endpoints' own newest if none was made yet.
    last = s.groupby("endpoint").tail(1)[["time_s", "endpoint", "newest_generation"]]
    made_by_end = events.loc[(events["action"] == "plan_created") & (events["time_s"] <= end_s), "generation"].dropna()
    if len(made_by_end):
        last = last.assign(newest_generation=np.maximum(last["newest_generation"].astype(int), int(made_by_end.max())))
    p = pd.concat(
        [
            p,
            *[
                pd.DataFrame({"time_s": made["time_s"], "endpoint": e, "newest_generation": made["generation"]})
                for e in p["endpoint"]
            ],
            last,
        ]
    )
    return pd.concat(
        [
            pd.DataFrame(
                {
                    "time_min": s["time_s"] / 60,
                    "endpoint": s["endpoint"].astype(str),
                    "generation": s["generation"].astype(int),
                    "series": "served by the endpoint",
                }
            ),
            pd.DataFrame(
                {
                    "time_min": p["time_s"] / 60,
                    "endpoint": p["endpoint"].astype(str),
                    "generation": p["newest_generation"].astype(int),
                    "series": "newest plan",
                }
            ),
        ]
    ).assign(kind="line")


def race_generation_chart(
    states: pd.DataFrame, events: pd.DataFrame, *, start_s: float = 0.0, end_s: float | None = None, width: int = 440
) -> alt.FacetChart:
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
            endpoint state at or before ``end_s``; a window holding more plan steps and writes
            than the chart draws (the message names a window that fits); a bad width.
    """
    _width(width)
    data = race_generation_data(states, events, start_s=start_s, end_s=end_s)
    start_s = _seconds("start_s", start_s, window=True)
    end_s = float(events["time_s"].max()) if end_s is None else _seconds("end_s", end_s, window=True)
    chart = (
        alt.layer(*_generation_layers(data, start_s, end_s), data=data)
        .properties(width=width, height=80)
        .facet(
            row=alt.Row(
                "endpoint:N",
                sort=list(dict.fromkeys(states["endpoint"].astype(str))),
                title="plan generation at each endpoint",
                header=alt.Header(labelAngle=0, labelAlign="left"),
            ),
        )
        .properties(
            title=["Plan generation per endpoint", "served (black), newest (dashed), each Enactor's writes (marks)"],
            description=(
                "One panel per endpoint over time in minutes. A black step line shows the plan the endpoint "
                "serves, a dashed grey line the newest plan; marks are Enactor writes, coloured by Enactor, "
                "squares for stale writes, triangles for writes refused by a guard."
            ),
        )
    )
    if len(data) > _MAX_ROWS:
        span_min = (end_s - start_s) / 60
        fit_min = max(1.0, math.floor(span_min * _MAX_ROWS / len(data)))
        raise ConfigError(
            f"start_s={start_s:g} to end_s={end_s:g} holds {len(data):,} plan steps and writes, more "
            f"than the {_MAX_ROWS:,} this chart draws (one mark per write, one step per plan); "
            f"narrow the window to about {fit_min:.0f} minutes or fewer"
        )
    return _base_config(chart)


def _generation_layers(data: pd.DataFrame, start_s: float, end_s: float) -> list[alt.Chart]:
    """The two layers of each endpoint's panel: the step lines, and a mark per Enactor write."""
    writes = data.loc[data["kind"] != "line"]
    enactors = sorted(set(writes["series"]))
    domain = ["served by the endpoint", "newest plan", *enactors]
    colour = alt.Color(
        "series:N",
        title=None,
        scale=alt.Scale(domain=domain, range=["#111", "#8a8a8a", *[PALETTE[i % 6] for i in range(len(enactors))]]),
        legend=alt.Legend(orient="bottom", columns=3),
    )
    x = alt.X(
        "time_min:Q", title="minutes since the scenario start", scale=alt.Scale(domain=[start_s / 60, end_s / 60])
    )
    y = alt.Y("generation:Q", title=None, scale=alt.Scale(zero=False))
    base = alt.Chart().encode(x=x, y=y, color=colour)
    line = (
        base.transform_filter("datum.kind == 'line'")
        .mark_line(interpolate="step-after", strokeWidth=1.6)
        .encode(
            strokeDash=alt.StrokeDashValue(
                **alt.condition("datum.series == 'newest plan'", alt.value([4, 3]), alt.value([1, 0]))
            )
        )
    )
    kinds_order = ["applied", "stale write", "refused", "failed: active plan missing"]
    marks = (
        base.transform_filter("datum.kind != 'line'")
        .mark_point(size=45, filled=True)
        .encode(
            shape=alt.Shape(
                "kind:N",
                title="Write",
                scale=alt.Scale(domain=kinds_order, range=["circle", "square", "triangle-up", "cross"]),
                legend=alt.Legend(orient="bottom", columns=2),
            ),
            tooltip=[
                alt.Tooltip("series:N"),
                alt.Tooltip("kind:N"),
                alt.Tooltip("generation:Q"),
                alt.Tooltip("time_min:Q", format=".2f"),
            ],
        )
    )
    return [line, marks]


def race_records_data(
    states: pd.DataFrame, windows: pd.DataFrame, *, endpoint: str = "regional"
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The data :func:`race_records_chart` draws: its step line and its empty windows' bands.

    Args:
        states, windows, endpoint: as for :func:`race_records_chart`.

    Returns:
        ``(line, bands)``. ``line``: ``time_min`` (float64, minutes since the scenario start) and
        ``records`` (int64, records the endpoint answers with; 0 = empty), one row per state of
        ``endpoint`` and one more at the run's end. ``bands``, one row per empty window of
        ``endpoint``: ``start`` and ``end`` (float64, minutes) and ``label`` (str, "empty 2 h 37 min").

    Raises:
        ConfigError: a bad argument, as :func:`race_records_chart` says.
    """
    _frame(
        "states",
        states,
        ("time_s", "endpoint", "records"),
        numeric=("time_s", "records"),
        empty="endpoint_states() holds every endpoint's initial state",
    )
    _frame(
        "windows", windows, ("endpoint", "start_s", "end_s", "duration_s"), numeric=("start_s", "end_s", "duration_s")
    )
    if not isinstance(endpoint, str):
        raise ConfigError(f"endpoint must be a string, got {endpoint!r} of type {type(endpoint).__name__}")
    s = states.loc[states["endpoint"] == endpoint]
    if s.empty:
        raise ConfigError(f"endpoint {endpoint!r} has no states; endpoints are {sorted(set(states['endpoint']))}")
    d = pd.DataFrame({"time_min": s["time_s"] / 60, "records": s["records"].astype(int)})
    wdw = windows.loc[windows["endpoint"] == endpoint]
    end_min = float(max(d["time_min"].max(), (wdw["end_s"].max() / 60) if len(wdw) else 0))
    d = pd.concat([d, d.tail(1).assign(time_min=end_min)])
    bands = pd.DataFrame(
        {
            "start": wdw["start_s"] / 60,
            "end": wdw["end_s"] / 60,
            "label": ["empty " + format_duration(v) if v >= 60 else f"empty {v:.0f} s" for v in wdw["duration_s"]],
        }
    )
    return d, bands


def race_records_chart(
    states: pd.DataFrame, windows: pd.DataFrame, *, endpoint: str = "regional", width: int = 520
) -> alt.LayerChart:
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
    d, bands = race_records_data(states, windows, endpoint=endpoint)
    wdw = windows.loc[windows["endpoint"] == endpoint]
    x = alt.X("time_min:Q", title="minutes since the scenario start")
    shade = alt.Chart(bands).mark_rect(color=PALETTE[5], opacity=0.18).encode(x=alt.X("start:Q"), x2=alt.X2("end:Q"))
    text = (
        alt.Chart(bands)
        .mark_text(align="left", dx=4, dy=10, baseline="top", color=PALETTE[5], fontSize=12)
        .encode(x=alt.X("start:Q"), y=alt.YValue(0), text=alt.Text("label:N"))
    )
    line = (
        alt.Chart(d)
        .mark_line(interpolate="step-after", color=PALETTE[0], strokeWidth=1.8)
        .encode(
            x=x,
            y=alt.Y("records:Q", title=f"records in the {endpoint} answer"),
            tooltip=[alt.Tooltip("time_min:Q", format=".2f"), alt.Tooltip("records:Q")],
        )
    )
    total = float(wdw["duration_s"].sum())
    chart = alt.layer(shade, line, text).properties(
        width=width,
        height=200,
        title=f"Records answered for the {endpoint} endpoint",
        description=(
            f"Step line of the number of records the {endpoint} endpoint answers with over time in minutes; "
            + (
                f"{len(wdw)} shaded empty window(s), {total:.0f} s in total, where it answered NOERROR with "
                "zero records."
                if len(wdw)
                else "no shaded window: it never answered with zero records."
            )
        ),
    )
    return _base_config(chart)
