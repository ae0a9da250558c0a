"""Charts of the DWFM model's named grids (labsupport.dwfm): where it recovers by itself, and the
in-page explorer of precomputed runs.

:func:`dwfm_phase_chart` draws :func:`labsupport.dwfm.phase_sweep` (fleet size x outage length, with
and without admission control); :func:`dwfm_explorer_chart` draws :func:`labsupport.dwfm.explorer_grid`
with Vega-Lite controls, for the static book. One run over time is :mod:`labsupport.charts.dwfm`.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from .._validate import check_int
from ..clock import INCIDENT_CLOCK
from ..timeline import format_duration
from ._inputs import _frame, _width
from ._palette import PALETTE
from ._render import _base_config, reflow_usermeta
from .dwfm import _DWFM_X, _DWFM_X_UPPER, _work_area

__all__ = ["dwfm_explorer_chart", "dwfm_explorer_data", "dwfm_phase_chart", "dwfm_phase_data"]


#: The heat map's panel headings, in words: (without, with) admission control by queue length.
_PHASE_PANELS = (
    "Without admission control (the incident's design)",
    "With admission control: work refused while a queue is full",
)


#: What a cell that never recovered shows, and its legend entry.
_STUCK = "stuck: still collapsed when the run ends (its horizon_s)"


def dwfm_phase_data(sweep: pd.DataFrame) -> pd.DataFrame:
    """The data :func:`dwfm_phase_chart` draws: one row per sweep cell.

    Args:
        sweep: as for :func:`dwfm_phase_chart`.

    Returns:
        ``guard`` (str, the panel's heading, from ``throttle_by_queue_length``), ``fleet`` (int64,
        droplets), ``outage`` (str, its length in words) and ``outage_s`` (float64, seconds),
        ``recovered`` (bool), ``minutes`` (float64, from DynamoDB's return to the last lease; NaN
        when stuck, so the colour scale never counts a stuck cell as fast), ``label`` (str, that
        time in words, "1 h 24 min", or "stuck") and ``state`` (str, "stuck: still collapsed when the
        run ends (its horizon_s)" for a stuck cell, else "").

    Raises:
        ConfigError: a bad ``sweep``, as :func:`dwfm_phase_chart` says.
    """
    _frame(
        "sweep",
        sweep,
        ("throttle_by_queue_length", "fleet_droplets_count", "outage_s", "recovered", "recovery_after_outage_s"),
        numeric=("fleet_droplets_count", "outage_s", "recovery_after_outage_s"),
        empty="a sweep holds at least one (fleet size, outage length) cell",
    )
    rec = sweep["recovery_after_outage_s"]
    ok = sweep["recovered"].astype(bool)
    data = pd.DataFrame(
        {
            "guard": sweep["throttle_by_queue_length"]
            .astype(bool)
            .map(dict(zip((False, True), _PHASE_PANELS, strict=False))),
            "fleet": sweep["fleet_droplets_count"].astype("int64"),
            "outage": sweep["outage_s"].map(format_duration),
            "outage_s": sweep["outage_s"],
            "recovered": ok,
            "minutes": (rec / 60).round(1).where(ok),
            "label": [format_duration(v) if good else "stuck" for v, good in zip(rec, ok, strict=False)],
            "state": np.where(ok, "", _STUCK),
        }
    )
    return data


def dwfm_phase_chart(sweep: pd.DataFrame, *, cell_px: int = 50) -> alt.FacetChart:
    """The metastable region: which fleet sizes and outage lengths recover by themselves.

    Args:
        sweep: the frame from :func:`labsupport.dwfm.phase_sweep` (columns
            ``throttle_by_queue_length``, ``fleet_droplets_count``, ``outage_s``, ``recovered``,
            ``recovery_after_outage_s``).
        cell_px: width of one cell in pixels (20 to 200); cells are half as high.

    Returns:
        A heat map per throttle setting, one above the other: one cell per (fleet size, outage
        length), labelled with the time from DynamoDB's return to the last lease ("1 h 24 min"),
        or "stuck" when there is none in the horizon. The colour is that time in minutes (its
        legend in minutes too); stuck cells are dark orange, with a legend entry of their own.

    Raises:
        ConfigError: ``sweep`` not a DataFrame, missing a column or empty; a bad cell size.
    """
    check_int("cell_px", cell_px, lo=20, hi=200)
    data = dwfm_phase_data(sweep)
    outages = data.sort_values("outage_s")["outage"].unique().tolist()[::-1]
    x = alt.X("fleet:O", title="Fleet size (droplets)", axis=alt.Axis(labelAngle=0))
    y = alt.Y("outage:O", title="DynamoDB outage", sort=outages)
    tip = [
        alt.Tooltip("guard:N", title="panel"),
        "fleet:O",
        "outage:O",
        alt.Tooltip("label:N", title="recovery after outage"),
    ]
    chart = (
        alt.layer(*_phase_cells(x, y, tip), data=data)
        .properties(width=cell_px * data["fleet"].nunique(), height=cell_px // 2 * len(outages))
        .facet(
            row=alt.Row(
                "guard:N",
                title=None,
                sort=list(_PHASE_PANELS),
                header=alt.Header(
                    labelAngle=0,
                    labelAlign="left",
                    labelAnchor="start",
                    labelFontSize=12,
                    labelLimit=500,
                    labelOrient="top",
                    labelFontWeight="bold",
                ),
            )
        )
        .properties(
            title="Where DWFM recovers by itself, without operators",
            description=(
                "Two heat maps, one above the other: without and with admission control (work refused "
                "while a queue is full). Columns are fleet sizes, rows DynamoDB outage lengths. Each cell "
                "shows the time from DynamoDB's return to the last lease re-established, coloured by that "
                "time in minutes (light to darker blue), or 'stuck' (dark orange) when the collapse "
                "sustained itself to the end of the simulated horizon."
            ),
        )
    )
    return _base_config(chart)


def _phase_cells(x: alt.X, y: alt.Y, tip: list) -> list[alt.Chart]:
    """The heat map's three layers: recovered cells coloured by minutes, stuck cells, every cell's label."""
    # The cells' rects are hidden from assistive technology (aria=False): the text layer names every
    # cell, and a panel with no stuck cell would otherwise hold an empty, unnamed graphics-symbol
    # group (axe-core's svg-img-alt, a serious violation).
    recovered = (
        alt.Chart()
        .transform_filter("datum.recovered")
        .mark_rect(stroke="white", aria=False)
        .encode(
            x=x,
            y=y,
            tooltip=tip,
            color=alt.Color(
                "minutes:Q",
                title=["Minutes from DynamoDB's return", "to the last lease"],
                scale=alt.Scale(range=["#eaf2fb", "#7fb0de"], domainMin=0),
                legend=alt.Legend(orient="bottom", direction="horizontal", gradientLength=200, titleLimit=400),
            ),
        )
    )
    # Stuck cells: one fixed colour, named in a legend of their own (an opacity legend whose one
    # symbol is that colour), so the minutes' gradient stays one scale across both panels.
    stuck = (
        alt.Chart()
        .transform_filter("!datum.recovered")
        .mark_rect(stroke="white", color=PALETTE[1], aria=False)
        .encode(
            x=x,
            y=y,
            tooltip=tip,
            opacity=alt.Opacity(
                "state:N",
                title=None,
                scale=alt.Scale(domain=[_STUCK], range=[1.0]),
                legend=alt.Legend(
                    orient="bottom",
                    labelLimit=400,
                    symbolType="square",
                    symbolFillColor=PALETTE[1],
                    symbolStrokeColor=PALETTE[1],
                    symbolSize=150,
                ),
            ),
        )
    )
    text = (
        alt.Chart()
        .mark_text(fontSize=10)
        .encode(
            x=x,
            y=y,
            text=alt.Text("label:N"),
            color=alt.ColorValue(**alt.condition("datum.recovered", alt.value("#111"), alt.value("white"))),
        )
    )
    return [recovered, stuck, text]


def dwfm_explorer_data(grid: pd.DataFrame) -> pd.DataFrame:
    """The data :func:`dwfm_explorer_chart` draws: every precomputed run, one row per sample.

    Args:
        grid: as for :func:`dwfm_explorer_chart` (the model's :func:`labsupport.dwfm.explorer_grid`).

    Returns:
        ``fleet_droplets_count`` (int64) and ``throttle_by_queue_length`` (bool), the filter's
        keys; ``clock`` (str, naive PDT ISO time); ``leased_pct`` (float64, droplets with a lease,
        %); ``goodput`` and ``wasted`` (float64, items finished per minute).

    Raises:
        ConfigError: a bad ``grid``, as :func:`dwfm_explorer_chart` says.
    """
    cols = (
        "fleet_droplets_count",
        "throttle_by_queue_length",
        "time_s",
        "leased_fraction",
        "goodput_per_min",
        "wasted_per_min",
    )
    _frame("grid", grid, cols, numeric=cols, empty="explorer_grid() holds at least one run")
    data = grid.loc[:, list(cols)].assign(
        clock=INCIDENT_CLOCK.wall_clock(grid["time_s"]),
        leased_pct=(grid["leased_fraction"] * 100).round(1),
        goodput=grid["goodput_per_min"].round(2),
        wasted=grid["wasted_per_min"].round(2),
    )
    data = data.drop(columns=["time_s", "leased_fraction", "goodput_per_min", "wasted_per_min"])
    return data


def dwfm_explorer_chart(grid: pd.DataFrame, *, width: int = 480) -> alt.VConcatChart:
    """In-page explorer for the static book: a checkbox and a radio filter precomputed runs.

    Args:
        grid: the frame from :func:`labsupport.dwfm.explorer_grid` (columns
            ``fleet_droplets_count``, ``throttle_by_queue_length``, ``time_s``, ``leased_fraction``,
            ``goodput_per_min``, ``wasted_per_min``).
        width: chart width in pixels (100 to 4000).

    Returns:
        Two panels (droplets with a lease; goodput vs wasted work) with Vega-Lite parameters bound
        to a checkbox (``throttle_by_queue_length``) and radio buttons (fleet size). Changing them
        in the browser shows another precomputed run; no kernel is needed. In the book the chart
        takes its width from the page (at most ``width``); its legend lists the two kinds of work
        one under the other, so that it fits a phone.

    Raises:
        ConfigError: a missing column, an empty grid or a bad width.
    """
    _width(width)
    data = dwfm_explorer_data(grid)
    fleets = sorted(int(v) for v in data["fleet_droplets_count"].unique())
    throttle = alt.param(
        name="throttle", value=False, bind=alt.binding_checkbox(name="throttle_by_queue_length (admission control) ")
    )
    fleet = alt.param(
        name="fleet",
        value=fleets[len(fleets) // 2],
        bind=alt.binding_radio(options=fleets, name="Fleet size (droplets): "),
    )
    base = alt.Chart(data).transform_filter(
        "datum.throttle_by_queue_length == throttle && datum.fleet_droplets_count == fleet"
    )
    tip = alt.Tooltip("clock:T", format="%H:%M", title="time")
    leased = (
        base.mark_line(color=PALETTE[0], strokeWidth=2)
        .encode(
            x=_DWFM_X_UPPER,
            y=alt.Y("leased_pct:Q", title="Droplets with a lease (%)", scale=alt.Scale(domain=[0, 100])),
            tooltip=[tip, alt.Tooltip("leased_pct:Q", title="% leased")],
        )
        .properties(width=width, height=140)
        .add_params(throttle, fleet)
    )
    work = _work_area(
        base,
        _DWFM_X,
        alt.Y("per_min:Q", stack=True, title="Items finished per minute"),
        alt.Legend(title=None, orient="bottom", direction="vertical", labelLimit=400),
    ).properties(width=width, height=150)
    chart = alt.vconcat(leased, work).properties(
        title=["Try it: admission control and fleet size", "(precomputed runs, no operators)"],
        usermeta=reflow_usermeta(),
        description=(
            "Two panels over PDT clock time for the run chosen with the checkbox and radio buttons "
            "below the chart: the percentage of droplets holding a lease, and the work items "
            "finished per minute split into goodput and wasted work. Without admission control, "
            "large fleets stay collapsed: the hosts keep finishing work, all of it wasted."
        ),
    )
    return _base_config(chart)
