"""The Network Manager backlog chart (labsupport.network)."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from ..clock import NETWORK_CLOCK, Clock
from ._common import _SAMPLED_FROM_0, _binned_note, _to_resolution
from ._inputs import _clock, _frame, _number, _width
from ._palette import PALETTE
from ._render import _base_config

__all__ = ["network_backlog_chart", "network_backlog_data"]


def network_backlog_data(timeseries: pd.DataFrame, *, clock: Clock | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The data :func:`network_backlog_chart` draws: the counts panel's frame and the delay panel's.

    Args:
        timeseries, clock: as for :func:`network_backlog_chart`.

    Returns:
        ``(counts, delays)``. ``counts``, one row per sample (or bin): ``clock`` (str, naive PDT
        ISO time) and the two counts, named as the legend names them,
        "Items waiting at Network Manager" (from ``queue_count``) and
        "New instances without connectivity" (from ``unconfigured_count``), int64, or float64 bin
        means when binned; ``attrs["bin_s"]`` is the bin width in seconds (float), ``None`` when
        not binned. ``delays``, one row per interval with a measured delay: ``clock`` (str),
        ``stretch`` (int64, the run of measured intervals it belongs to) and ``delay_min``
        (float64, ``mean_delay_s`` in minutes).

    Raises:
        ConfigError: a bad ``timeseries`` or ``clock``, as :func:`network_backlog_chart` says.
    """
    cols = ("time_s", "queue_count", "unconfigured_count", "mean_delay_s")
    _frame("timeseries", timeseries, cols, numeric=cols, empty=_SAMPLED_FROM_0)
    clock = _clock(clock, NETWORK_CLOCK)
    ts, bin_s = _to_resolution(timeseries.sort_values("time_s", kind="stable"))
    data = pd.DataFrame(
        {
            "clock": clock.wall_clock(ts["time_s"]),
            "Items waiting at Network Manager": ts["queue_count"].to_numpy(),
            "New instances without connectivity": ts["unconfigured_count"].to_numpy(),
        }
    )
    # Intervals with no delivery have no delay (NaN). They are left out of the delay data, and each
    # stretch of measured intervals is its own line (``detail``), so every such interval is a gap
    # whatever the Vega-Lite version's default for null values. A stretch of one interval would be
    # a path of one point, invisible: it gets a dot.
    measured = ts["mean_delay_s"].notna().to_numpy()
    stretch = np.cumsum(measured & ~np.concatenate([[False], measured[:-1]]))
    delays = pd.DataFrame(
        {
            "clock": data["clock"].to_numpy(),
            "stretch": stretch,
            "delay_min": (ts["mean_delay_s"] / 60).round(2).to_numpy(),
        }
    )[measured]
    data.attrs["bin_s"] = bin_s
    return data, delays


def network_backlog_chart(
    timeseries: pd.DataFrame, *, normal_delay_s: float = 120.0, clock: Clock | None = None, width: int = 560
) -> alt.VConcatChart:
    """Network Manager's queue and the delay new instances waited for their network state.

    Args:
        timeseries: :attr:`labsupport.network.NetworkResult.timeseries` (columns ``time_s``,
            ``queue_count``, ``unconfigured_count``, ``mean_delay_s``; the last is NaN in an
            interval in which no instance received its configuration).
        normal_delay_s: the "normal" delay, drawn as a horizontal rule (seconds, > 0, at most a day).
        clock: the :class:`~labsupport.clock.Clock` that ``time_s`` counts on; default
            :data:`~labsupport.clock.NETWORK_CLOCK` (5:28 AM on 20 Oct 2025).
        width: chart width in pixels (100 to 4000).

    Returns:
        Two stacked panels on a PDT clock axis: items waiting and instances without connectivity;
        mean launch-to-connectivity delay (minutes) of the instances configured in each interval.
        Intervals with no delivery have no delay: the line has a gap there (a lone measured
        interval between two gaps is drawn as a dot), and the description gives their number.

    Raises:
        ConfigError: ``timeseries`` not a DataFrame, missing a column or empty; ``normal_delay_s``
            not a finite number in (0, 86400]; a bad ``clock`` or width.
    """
    _width(width)
    data, delays = network_backlog_data(timeseries, clock=clock)
    normal_delay_s = _number("normal_delay_s", normal_delay_s, lo=0.0, lo_open=True, hi=86_400.0)
    bin_s, gaps = data.attrs["bin_s"], len(data) - len(delays)
    clock = _clock(clock, NETWORK_CLOCK)
    # One time domain for both panels, so that a gap at either end of the delay line shows as one.
    span = alt.Scale(domain=[data["clock"].iloc[0], data["clock"].iloc[-1]])
    x_top = alt.X("clock:T", title=None, axis=alt.Axis(format="%H:%M"), scale=span)
    x = alt.X("clock:T", title="20 October 2025, PDT", axis=alt.Axis(format="%H:%M"), scale=span)
    counts = _count_lines(data, x_top)
    gap_text = (
        f" Gaps in that line are the {gaps} of {len(data)} intervals in which no instance received its "
        "configuration, so no delay was measured; they are left out, not drawn as zero."
        if gaps
        else ""
    )
    delay_layers = _delay_layers(delays, x, normal_delay_s)
    chart = alt.vconcat(
        counts.properties(width=width, height=140), alt.layer(*delay_layers).properties(width=width, height=120)
    ).properties(
        title="Network Manager works through its backlog",
        description=(
            f"Two panels over PDT clock time from {clock.time_of_day(0)}. Top: items waiting at Network Manager and "
            "new instances still without network connectivity. Bottom: the mean time, in minutes, "
            "from a new instance's launch to its network configuration arriving, for instances "
            "configured in each interval; a dotted line marks the delay counted as normal."
            + gap_text
            + _binned_note(bin_s, "each point is the bin's mean, of the measured intervals for the delay")
        ),
    )
    return _base_config(chart)


def _count_lines(data: pd.DataFrame, x: alt.X) -> alt.Chart:
    """The top panel: items waiting at Network Manager and new instances without connectivity."""
    names: list[str | alt.FieldName] = ["Items waiting at Network Manager", "New instances without connectivity"]
    counts = (
        alt.Chart(data)
        .transform_fold(names, as_=["what", "count"])
        .mark_line(strokeWidth=2)
        .encode(
            x=x,
            y=alt.Y("count:Q", title="Count (model sample)"),
            color=alt.Color(
                "what:N",
                scale=alt.Scale(domain=names, range=[PALETTE[6], PALETTE[1]]),
                legend=alt.Legend(title=None, orient="bottom", labelLimit=400),
            ),
            tooltip=[
                alt.Tooltip("clock:T", format="%H:%M", title="time"),
                alt.Tooltip("what:N"),
                alt.Tooltip("count:Q"),
            ],
        )
    )
    return counts


def _delay_layers(delays: pd.DataFrame, x: alt.X, normal_delay_s: float) -> list[alt.Chart]:
    """The bottom panel: the delay line (a dot for a lone measured interval) and the normal delay, dotted."""
    lone = delays.loc[delays.groupby("stretch")["clock"].transform("size") == 1]
    tip = [
        alt.Tooltip("clock:T", format="%H:%M", title="time"),
        alt.Tooltip("delay_min:Q", format=".1f", title="minutes"),
    ]
    y_delay = alt.Y("delay_min:Q", title="Launch to connectivity (min)")
    delay_line = (
        alt.Chart(delays)
        .mark_line(color=PALETTE[0], strokeWidth=2)
        .encode(x=x, y=y_delay, detail=alt.Detail("stretch:N"), tooltip=tip)
    )
    dots = alt.Chart(lone).mark_point(color=PALETTE[0], filled=True, size=30).encode(x=x, y=y_delay, tooltip=tip)
    normal = (
        alt.Chart(pd.DataFrame({"y": [normal_delay_s / 60]}))
        .mark_rule(color="#555", strokeDash=[2, 2])
        .encode(y=alt.Y("y:Q"))
    )
    # The dots layer only when there are lone intervals: an empty layer still writes an SVG group
    # with role graphics-symbol and no name, which screen readers announce as an unnamed image.
    return [delay_line, dots, normal] if len(lone) else [delay_line, normal]
