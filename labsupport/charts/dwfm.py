"""Charts of one run of the DWFM lease-collapse model (labsupport.dwfm): leases, work and queues over time.

The charts of its named grids (the phase diagram and the in-page explorer) are in
:mod:`labsupport.charts.dwfm_grids`; that of its backoff sweep in :mod:`labsupport.charts.dwfm_backoff`.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from ..clock import INCIDENT_CLOCK
from ..dwfm import DwfmConfig
from ..errors import ConfigError
from ._common import _SAMPLED_FROM_0, _binned_note, _to_resolution
from ._inputs import _frame, _seconds, _width
from ._palette import PALETTE
from ._render import _base_config

__all__ = ["dwfm_timeseries_chart", "dwfm_timeseries_data"]


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
    capacity = None if config is None else config.capacity_per_min
    outage_s = _outage(outage_s)
    operator_at_s = _seconds("operator_at_s", operator_at_s, optional=True)
    band, band_text = _outage_band(data, outage_s, operator_at_s, width)
    rule, rule_text = _operator_rule(operator_at_s)

    def panel(body: alt.Chart, height: int, *extra: alt.Chart) -> alt.LayerChart:
        return alt.layer(*band, *rule, body, *extra).properties(width=width, height=height)

    base = alt.Chart(data)
    # Room above the capacity level for its label (the stack never passes the capacity unbinned).
    top = None if capacity is None else max(capacity * 1.2, float((data["goodput"] + data["wasted"]).max()))
    work = _work_area(
        base,
        _DWFM_X_UPPER,
        alt.Y(
            "per_min:Q",
            stack=True,
            title="Items finished per minute",
            scale=alt.Scale() if capacity is None else alt.Scale(domain=[0, top]),
        ),
        alt.Legend(title=None, orient="bottom", labelLimit=400),
    )
    queue = base.mark_line(color=PALETTE[6], strokeWidth=2).encode(
        x=_DWFM_X,
        y=alt.Y("queue:Q", title="Items waiting in queues"),
        tooltip=[alt.Tooltip("clock:T", format="%H:%M", title="time"), alt.Tooltip("queue:Q")],
    )
    chart = alt.vconcat(
        panel(_leased_line(base, config), 130),
        panel(work, 150, *_capacity_level(capacity, width), *band_text),
        panel(queue, 110, *rule_text),
    ).properties(
        title="DWFM through the DynamoDB outage: leases, goodput and queues",
        description=_timeseries_description(config, capacity, bool(band_text), operator_at_s, data.attrs["bin_s"]),
    )
    return _base_config(chart)


def _outage(outage_s: object) -> tuple[float, float] | None:
    """``outage_s`` checked: ``None`` or a ``(start, end)`` pair of times with start <= end."""
    if outage_s is None:
        return None
    if not isinstance(outage_s, (tuple, list)) or len(outage_s) != 2:
        raise ConfigError(f"outage_s must be None or a (start, end) pair of seconds, got {outage_s!r}")
    checked = (_seconds("outage_s[0]", outage_s[0]), _seconds("outage_s[1]", outage_s[1]))
    if checked[1] < checked[0]:
        raise ConfigError(f"outage_s must have start <= end, got {checked!r}")
    return checked


def _outage_band(
    data: pd.DataFrame, outage_s: tuple[float, float] | None, operator_at_s: float | None, width: int
) -> tuple[list[alt.Chart], list[alt.Chart]]:
    """DynamoDB's outage as a grey band (drawn on every panel) and its label (for the middle panel)."""
    if outage_s is None or outage_s[1] <= outage_s[0]:  # a zero-length outage is none
        return [], []
    band = pd.DataFrame(
        {
            "start": INCIDENT_CLOCK.wall_clock([float(outage_s[0])]),
            "end": INCIDENT_CLOCK.wall_clock([float(outage_s[1])]),
            "mid": INCIDENT_CLOCK.wall_clock([(float(outage_s[0]) + float(outage_s[1])) / 2]),
            "what": ["DynamoDB unreachable"],
            "text": ["DynamoDB\nunreachable"],
        }
    )
    rect = (
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
        label = (
            alt.Chart(band)
            .mark_text(lineBreak="\n", fontSize=11, color="#444", baseline="middle")
            .encode(x=alt.X("mid:T"), y=alt.YValue(60), text=alt.Text("text:N"))
        )
    else:
        label = (
            alt.Chart(band)
            .mark_text(angle=270, align="right", baseline="top", dy=3, fontSize=11, color="#444")
            .encode(x=alt.X("start:T"), y=alt.YValue(4), text=alt.Text("what:N"))
        )
    return [rect], [label]


def _operator_rule(operator_at_s: float | None) -> tuple[list[alt.Chart], list[alt.Chart]]:
    """The operators' first action as a dashed rule (drawn on every panel) and its label (bottom panel)."""
    if operator_at_s is None:
        return [], []
    rule = pd.DataFrame(
        {
            "at": INCIDENT_CLOCK.wall_clock([float(operator_at_s)]),
            "what": ["Operators throttle and restart"],
            "text": [f"operators throttle and restart, {_clock_label(operator_at_s)}"],
        }
    )
    mark = (
        alt.Chart(rule)
        .mark_rule(color=PALETTE[3], strokeDash=[5, 3], size=2)
        .encode(x=alt.X("at:T"), tooltip=[alt.Tooltip("what:N")])
    )
    # Named on the bottom panel, right of the rule, above the (then short) queue.
    label = (
        alt.Chart(rule)
        .mark_text(align="left", baseline="top", dx=5, dy=4, fontSize=11, color=PALETTE[3], fontWeight="bold")
        .encode(x=alt.X("at:T"), y=alt.YValue(0), text=alt.Text("text:N"))
    )
    return [mark], [label]


def _leased_line(base: alt.Chart, config: DwfmConfig | None) -> alt.Chart:
    """The top panel: droplets with a lease, as a count, or as a percentage of the config's fleet."""
    if config is None:
        return base.mark_line(color=PALETTE[0], strokeWidth=2).encode(
            x=_DWFM_X_UPPER,
            y=alt.Y("leased:Q", title="Droplets with a lease"),
            tooltip=[alt.Tooltip("clock:T", format="%H:%M", title="time"), alt.Tooltip("leased:Q")],
        )
    return base.mark_line(color=PALETTE[0], strokeWidth=2).encode(
        x=_DWFM_X_UPPER,
        y=alt.Y("leased_pct:Q", title="Droplets with a lease (%)", scale=alt.Scale(domain=[0, 100])),
        tooltip=[
            alt.Tooltip("clock:T", format="%H:%M", title="time"),
            alt.Tooltip("leased_pct:Q", title="% leased"),
            alt.Tooltip("leased:Q", title="droplets"),
        ],
    )


def _work_area(base: alt.Chart, x: alt.X, y: alt.Y, legend: alt.Legend) -> alt.Chart:
    """Items finished per minute, stacked: goodput under wasted work (this chart and the explorer's)."""
    names = [v[0] for v in _DWFM_WORK.values()]
    return (
        base.transform_fold(list(_DWFM_WORK), as_=["key", "per_min"])
        .transform_calculate(kind=f"datum.key == 'goodput' ? '{names[0]}' : '{names[1]}'")
        .mark_area(opacity=0.85)
        .encode(
            x=x,
            y=y,
            color=alt.Color(
                "kind:N", scale=alt.Scale(domain=names, range=[v[1] for v in _DWFM_WORK.values()]), legend=legend
            ),
            order=alt.Order("key:N", sort="ascending"),
            tooltip=[
                alt.Tooltip("clock:T", format="%H:%M", title="time"),
                alt.Tooltip("kind:N"),
                alt.Tooltip("per_min:Q", format=".1f", title="per minute"),
            ],
        )
    )


def _capacity_text(capacity: float) -> str:
    """The hosts' capacity in items a minute; below 10, two significant digits (0.1 a minute, from 1
    host with 1 slot and 600 s a lease, must not read "0 items a minute")."""
    return f"{capacity:,.0f}" if capacity >= 10 else f"{capacity:.2g}"


def _capacity_level(capacity: float | None, width: int) -> list[alt.Chart]:
    """The hosts' capacity as a dotted level on the middle panel, labelled at its right end."""
    if capacity is None:
        return []
    cap = pd.DataFrame({"y": [capacity], "text": [f"hosts at capacity: {_capacity_text(capacity)} items a minute"]})
    return [
        alt.Chart(cap)
        .mark_rule(color="#222", strokeDash=[2, 2])
        .encode(y=alt.Y("y:Q"), tooltip=[alt.Tooltip("y:Q", title="hosts' capacity (items per minute)")]),
        alt.Chart(cap)
        .mark_text(align="right", baseline="bottom", dy=-3, fontSize=11, color="#222")
        .encode(x=alt.XValue(width), y=alt.Y("y:Q"), text=alt.Text("text:N")),
    ]


def _timeseries_description(
    config: DwfmConfig | None, capacity: float | None, band: bool, operator_at_s: float | None, bin_s: float | None
) -> str:
    """The text alternative of :func:`dwfm_timeseries_chart`: every panel, band, rule and level it draws."""
    return (
        "Three panels over PDT clock time. Top: droplets holding a lease"
        + (" (% of the fleet)" if config is not None else "")
        + ". Middle: work items "
        "finished per minute, stacked, split into those finished in time (goodput) and those "
        "wasted because they finished after their deadline"
        + (
            f"; a dotted line marks the hosts' capacity, {_capacity_text(capacity)} items a minute, where the "
            "stack sits flat while every slot is busy"
            if capacity is not None
            else ""
        )
        + ". Bottom: items waiting in the DWFM queues."
        + (" A grey band, labelled, marks DynamoDB's outage." if band else "")
        + (
            f" A dashed rule, labelled, marks the operators' action at {_clock_label(operator_at_s)}."
            if operator_at_s is not None
            else ""
        )
        + _binned_note(bin_s, "leases and queue are each bin's mean, finished items its rate per minute")
    )
