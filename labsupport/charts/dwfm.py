"""Charts of the DWFM lease-collapse model (labsupport.dwfm)."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from .._validate import check_int
from ..clock import INCIDENT_CLOCK
from ..dwfm import DwfmConfig
from ..errors import ConfigError
from ..timeline import format_duration
from ._common import _SAMPLED_FROM_0, _binned_note, _to_resolution
from ._inputs import _frame, _seconds, _width
from ._palette import PALETTE
from ._render import _base_config, reflow_usermeta

__all__ = [
    "dwfm_explorer_chart",
    "dwfm_explorer_data",
    "dwfm_phase_chart",
    "dwfm_phase_data",
    "dwfm_timeseries_chart",
    "dwfm_timeseries_data",
]


_DWFM_X = alt.X("clock:T", title="19–20 October 2025, PDT", axis=alt.Axis(format="%H:%M"))


_DWFM_X_UPPER = alt.X("clock:T", title=None, axis=alt.Axis(format="%H:%M"))


_DWFM_WORK = {
    "goodput": ("Finished in time (goodput)", PALETTE[2]),
    "wasted": ("Wasted: finished after its deadline", PALETTE[1]),
}


def dwfm_timeseries_data(timeseries: pd.DataFrame, *, config: DwfmConfig | None = None) -> pd.DataFrame:
    """The data :func:`dwfm_timeseries_chart` draws: one row per sample of a DWFM run, or per bin.

    Args:
        timeseries, config: as for :func:`dwfm_timeseries_chart`.

    Returns:
        ``clock`` (str, naive PDT ISO time), ``leased`` and ``queue`` (int64 counts; float64, the
        bin's mean, when binned), ``leased_pct`` (float64: ``leased`` as a percentage of the
        config's ``fleet_droplets_count``, one decimal; NaN without a config), ``goodput`` and
        ``wasted`` (float64, items finished per minute since the previous row).
        ``attrs["bin_s"]`` is the bin width in seconds (float), ``None`` when not binned.

    Raises:
        ConfigError: a bad ``timeseries`` or ``config``, as :func:`dwfm_timeseries_chart` says.
    """
    cols = ("time_s", "leased_count", "queue_count", "goodput_count", "wasted_count")
    _frame("timeseries", timeseries, cols, numeric=cols, empty=_SAMPLED_FROM_0)
    checked = _config(config)
    fleet = None if checked is None else checked.fleet_droplets_count
    ts, bin_s = _to_resolution(timeseries.sort_values("time_s", kind="stable"), sums=("goodput_count", "wasted_count"))
    step_min = ts["time_s"].diff().fillna(ts["time_s"]).clip(lower=1) / 60
    if bin_s is not None:  # each bin's counts over the whole bin (the first bin holds only t = 0)
        step_min = pd.Series(np.where(ts["time_s"] > 0, bin_s / 60, 1 / 60), index=ts.index)
    leased = ts["leased_count"].to_numpy()
    data = pd.DataFrame(
        {
            "clock": INCIDENT_CLOCK.wall_clock(ts["time_s"]),
            "leased": leased,
            "leased_pct": np.round(leased / fleet * 100, 1) if fleet else np.full(len(ts), np.nan),
            "queue": ts["queue_count"].to_numpy(),
            "goodput": (ts["goodput_count"] / step_min).round(2).to_numpy(),
            "wasted": (ts["wasted_count"] / step_min).round(2).to_numpy(),
        }
    )
    data.attrs["bin_s"] = bin_s
    return data


def _clock_label(at_s: float) -> str:
    """``4:14 AM``: a time in seconds since 11:48 PM PDT as the prose writes it."""
    return INCIDENT_CLOCK.time_of_day(float(at_s))


def _config(config: object) -> DwfmConfig | None:
    """``config`` if it is ``None`` or a :class:`~labsupport.dwfm.DwfmConfig`; else ConfigError naming it."""
    if config is not None and not isinstance(config, DwfmConfig):
        raise ConfigError(f"config must be None or a labsupport.dwfm.DwfmConfig, got {type(config).__name__}")
    return config


#: The narrowest outage band (pixels) that holds its two-line label inside it.
_BAND_LABEL_MIN_PX = 70


def dwfm_timeseries_chart(
    timeseries: pd.DataFrame,
    *,
    config: DwfmConfig | None = None,
    outage_s: tuple[float, float] | None = None,
    operator_at_s: float | None = None,
    width: int = 480,
) -> alt.VConcatChart:
    """Leases, finished work (goodput vs wasted) and queue depth over one DWFM run.

    Args:
        timeseries: :attr:`labsupport.dwfm.DwfmResult.timeseries` (columns ``time_s``,
            ``leased_count``, ``queue_count``, ``goodput_count``, ``wasted_count``).
        config: the run's :class:`~labsupport.dwfm.DwfmConfig` (``DwfmResult.config``). Given, the
            top panel shows the percentage of its ``fleet_droplets_count`` with a lease, as
            :func:`dwfm_explorer_chart` does, and the middle panel its hosts' ``capacity_per_min``
            as a dotted, labelled level; ``None`` shows the count of droplets and no level.
        outage_s: ``(start, end)`` of DynamoDB's outage in seconds, shaded and labelled
            "DynamoDB unreachable" on the middle panel (inside the band, or on one line turned
            upright along its start where the band is narrower than 70 pixels); ``None`` or a
            zero-length pair for none.
        operator_at_s: time of the operators' first action, drawn as a dashed rule and labelled
            with its clock time; ``None`` for none.
        width: chart width in pixels (100 to 4000).

    Returns:
        Three stacked panels sharing a PDT clock axis; every band, rule and level is labelled
        where it stands.

    Raises:
        ConfigError: ``timeseries`` not a DataFrame, missing a column or empty; ``config`` not
            ``None`` or a DwfmConfig; ``outage_s`` not ``None`` or a pair of finite times
            (seconds, 0 to a year) with start <= end; ``operator_at_s`` not ``None`` or such a
            time; a bad width.
    """
    _width(width)
    data = dwfm_timeseries_data(timeseries, config=config)
    bin_s = data.attrs["bin_s"]
    capacity = None if config is None else config.capacity_per_min
    if outage_s is not None:
        if not isinstance(outage_s, (tuple, list)) or len(outage_s) != 2:
            raise ConfigError(f"outage_s must be None or a (start, end) pair of seconds, got {outage_s!r}")
        outage_s = (_seconds("outage_s[0]", outage_s[0]), _seconds("outage_s[1]", outage_s[1]))
        if outage_s[1] < outage_s[0]:
            raise ConfigError(f"outage_s must have start <= end, got {outage_s!r}")
    operator_at_s = _seconds("operator_at_s", operator_at_s, optional=True)
    marks = []
    band_text, rule_text = [], []
    if outage_s is not None and outage_s[1] > outage_s[0]:  # a zero-length outage is none
        band = pd.DataFrame(
            {
                "start": INCIDENT_CLOCK.wall_clock([float(outage_s[0])]),
                "end": INCIDENT_CLOCK.wall_clock([float(outage_s[1])]),
                "mid": INCIDENT_CLOCK.wall_clock([(float(outage_s[0]) + float(outage_s[1])) / 2]),
                "what": ["DynamoDB unreachable"],
                "text": ["DynamoDB\nunreachable"],
            }
        )
        marks.append(
            alt.Chart(band)
            .mark_rect(color="#999", opacity=0.18)
            .encode(x=alt.X("start:T"), x2=alt.X2("end:T"), tooltip=[alt.Tooltip("what:N")])
        )
        # Named inside the band on the middle panel, where no work finishes while DynamoDB is out;
        # a band too narrow for its two lines is named on one line turned upright along its start
        # (a 60-minute band's centred label stood over the y axis's ticks). The band's width in
        # pixels is measured against the x axis's span, which covers the data, the band and the rule.
        ends = [*pd.to_datetime(data["clock"]).agg(["min", "max"]), *pd.to_datetime(band.loc[0, ["start", "end"]])]
        if operator_at_s is not None:
            ends.append(pd.Timestamp(INCIDENT_CLOCK.wall_clock([float(operator_at_s)])[0]))
        span_s = max((max(ends) - min(ends)).total_seconds(), 1.0)
        if width * (outage_s[1] - outage_s[0]) / span_s >= _BAND_LABEL_MIN_PX:
            band_text.append(
                alt.Chart(band)
                .mark_text(lineBreak="\n", fontSize=11, color="#444", baseline="middle")
                .encode(x=alt.X("mid:T"), y=alt.YValue(60), text=alt.Text("text:N"))
            )
        else:
            band_text.append(
                alt.Chart(band)
                .mark_text(angle=270, align="right", baseline="top", dy=3, fontSize=11, color="#444")
                .encode(x=alt.X("start:T"), y=alt.YValue(4), text=alt.Text("what:N"))
            )
    if operator_at_s is not None:
        rule = pd.DataFrame(
            {
                "at": INCIDENT_CLOCK.wall_clock([float(operator_at_s)]),
                "what": ["Operators throttle and restart"],
                "text": [f"operators throttle and restart, {_clock_label(operator_at_s)}"],
            }
        )
        marks.append(
            alt.Chart(rule)
            .mark_rule(color=PALETTE[3], strokeDash=[5, 3], size=2)
            .encode(x=alt.X("at:T"), tooltip=[alt.Tooltip("what:N")])
        )
        # Named on the bottom panel, right of the rule, above the (then short) queue.
        rule_text.append(
            alt.Chart(rule)
            .mark_text(align="left", baseline="top", dx=5, dy=4, fontSize=11, color=PALETTE[3], fontWeight="bold")
            .encode(x=alt.X("at:T"), y=alt.YValue(0), text=alt.Text("text:N"))
        )

    def panel(body: alt.Chart, height: int, *extra: alt.Chart) -> alt.LayerChart:
        return alt.layer(*marks, body, *extra).properties(width=width, height=height)

    base = alt.Chart(data)
    if config is None:
        leased = base.mark_line(color=PALETTE[0], strokeWidth=2).encode(
            x=_DWFM_X_UPPER,
            y=alt.Y("leased:Q", title="Droplets with a lease"),
            tooltip=[alt.Tooltip("clock:T", format="%H:%M", title="time"), alt.Tooltip("leased:Q")],
        )
    else:
        leased = base.mark_line(color=PALETTE[0], strokeWidth=2).encode(
            x=_DWFM_X_UPPER,
            y=alt.Y("leased_pct:Q", title="Droplets with a lease (%)", scale=alt.Scale(domain=[0, 100])),
            tooltip=[
                alt.Tooltip("clock:T", format="%H:%M", title="time"),
                alt.Tooltip("leased_pct:Q", title="% leased"),
                alt.Tooltip("leased:Q", title="droplets"),
            ],
        )
    names = [v[0] for v in _DWFM_WORK.values()]
    # Room above the capacity level for its label (the stack never passes the capacity unbinned).
    top = None if capacity is None else max(capacity * 1.2, float((data["goodput"] + data["wasted"]).max()))
    work = (
        base.transform_fold(list(_DWFM_WORK), as_=["key", "per_min"])
        .transform_calculate(kind=f"datum.key == 'goodput' ? '{names[0]}' : '{names[1]}'")
        .mark_area(opacity=0.85)
        .encode(
            x=_DWFM_X_UPPER,
            y=alt.Y(
                "per_min:Q",
                stack=True,
                title="Items finished per minute",
                scale=alt.Scale() if capacity is None else alt.Scale(domain=[0, top]),
            ),
            color=alt.Color(
                "kind:N",
                scale=alt.Scale(domain=names, range=[v[1] for v in _DWFM_WORK.values()]),
                legend=alt.Legend(title=None, orient="bottom", labelLimit=400),
            ),
            order=alt.Order("key:N", sort="ascending"),
            tooltip=[
                alt.Tooltip("clock:T", format="%H:%M", title="time"),
                alt.Tooltip("kind:N"),
                alt.Tooltip("per_min:Q", format=".1f", title="per minute"),
            ],
        )
    )
    level = []
    # Below 10 a minute, two significant digits: 0.1 a minute (1 host, 1 slot, 600 s a lease) must
    # not read "0 items a minute".
    cap_text = None if capacity is None else (f"{capacity:,.0f}" if capacity >= 10 else f"{capacity:.2g}")
    if capacity is not None:
        cap = pd.DataFrame({"y": [capacity], "text": [f"hosts at capacity: {cap_text} items a minute"]})
        level = [
            alt.Chart(cap)
            .mark_rule(color="#222", strokeDash=[2, 2])
            .encode(y=alt.Y("y:Q"), tooltip=[alt.Tooltip("y:Q", title="hosts' capacity (items per minute)")]),
            alt.Chart(cap)
            .mark_text(align="right", baseline="bottom", dy=-3, fontSize=11, color="#222")
            .encode(x=alt.XValue(width), y=alt.Y("y:Q"), text=alt.Text("text:N")),
        ]
    queue = base.mark_line(color=PALETTE[6], strokeWidth=2).encode(
        x=_DWFM_X,
        y=alt.Y("queue:Q", title="Items waiting in queues"),
        tooltip=[alt.Tooltip("clock:T", format="%H:%M", title="time"), alt.Tooltip("queue:Q")],
    )
    chart = alt.vconcat(
        panel(leased, 130), panel(work, 150, *level, *band_text), panel(queue, 110, *rule_text)
    ).properties(
        title="DWFM through the DynamoDB outage: leases, goodput and queues",
        description=(
            "Three panels over PDT clock time. Top: droplets holding a lease"
            + (" (% of the fleet)" if config is not None else "")
            + ". Middle: work items "
            "finished per minute, stacked, split into those finished in time (goodput) and those "
            "wasted because they finished after their deadline"
            + (
                f"; a dotted line marks the hosts' capacity, {cap_text} items a minute, where the "
                "stack sits flat while every slot is busy"
                if capacity is not None
                else ""
            )
            + ". Bottom: items waiting in the DWFM queues."
            + (" A grey band, labelled, marks DynamoDB's outage." if band_text else "")
            + (
                f" A dashed rule, labelled, marks the operators' action at {_clock_label(operator_at_s)}."
                if operator_at_s is not None
                else ""
            )
            + _binned_note(bin_s, "leases and queue are each bin's mean, finished items its rate per minute")
        ),
    )
    return _base_config(chart)


#: The heat map's panel headings, in words: (without, with) admission control by queue length.
_PHASE_PANELS = (
    "Without admission control (the incident's design)",
    "With admission control: work refused while a queue is full",
)


#: What a cell that never recovered shows, and its legend entry.
_STUCK = "stuck: collapsed to the end of the simulated day"


def dwfm_phase_data(sweep: pd.DataFrame) -> pd.DataFrame:
    """The data :func:`dwfm_phase_chart` draws: one row per sweep cell.

    Args:
        sweep: as for :func:`dwfm_phase_chart`.

    Returns:
        ``guard`` (str, the panel's heading, from ``throttle_by_queue_length``), ``fleet`` (int64,
        droplets), ``outage`` (str, its length in words) and ``outage_s`` (float64, seconds),
        ``recovered`` (bool), ``minutes`` (float64, from DynamoDB's return to the last lease; NaN
        when stuck, so the colour scale never counts a stuck cell as fast), ``label`` (str, that
        time in words, "1 h 24 min", or "stuck") and ``state`` (str, "stuck: collapsed to the end
        of the simulated day" for a stuck cell, else "").

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
    chart = (
        alt.layer(recovered, stuck, text, data=data)
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
    names = [v[0] for v in _DWFM_WORK.values()]
    work = (
        base.transform_fold(list(_DWFM_WORK), as_=["key", "per_min"])
        .transform_calculate(kind=f"datum.key == 'goodput' ? '{names[0]}' : '{names[1]}'")
        .mark_area(opacity=0.85)
        .encode(
            x=_DWFM_X,
            y=alt.Y("per_min:Q", stack=True, title="Items finished per minute"),
            color=alt.Color(
                "kind:N",
                scale=alt.Scale(domain=names, range=[v[1] for v in _DWFM_WORK.values()]),
                legend=alt.Legend(title=None, orient="bottom", direction="vertical", labelLimit=400),
            ),
            order=alt.Order("key:N", sort="ascending"),
            tooltip=[tip, alt.Tooltip("kind:N"), alt.Tooltip("per_min:Q", format=".1f", title="per minute")],
        )
        .properties(width=width, height=150)
    )
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
