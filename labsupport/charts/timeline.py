"""The incident timeline chart (labsupport.timeline)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from ..errors import ConfigError
from ..timeline import format_duration
from ._inputs import _frame, _width
from ._palette import PERIOD_COLOURS
from ._render import _base_config

__all__ = ["timeline_chart", "timeline_data"]


def timeline_data(periods: pd.DataFrame, events: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The data :func:`timeline_chart` draws: one bar per impact period and one mark per event.

    Args:
        periods: as for :func:`timeline_chart`.
        events: as for :func:`timeline_chart` (may be empty).

    Returns:
        ``(bars, marks)``. ``bars``, one row per period: ``period`` (string; colour and lane),
        ``start`` and ``end`` (str, naive PDT ISO times; x and x2) and ``length`` (str, in words).
        ``marks``, one row per event: ``time`` (str, naive PDT ISO time), ``when`` (str, "20 Oct
        02:01 PDT"), ``service``, ``event`` (string), ``lane`` (string: the impact period, or
        "Other services"), ``tag`` (category; UNVERIFIED marks are faded) and ``source`` (string).

    Raises:
        ConfigError: a bad ``periods`` or ``events``, as :func:`timeline_chart` says.
    """
    _frame(
        "periods",
        periods,
        ("period", "start_pdt", "end_pdt", "duration"),
        empty="impact_periods() always holds the summary's three periods",
    )
    _frame("events", events, ("time_pdt", "service", "event", "impact_period", "tag", "source"))
    for name, frame, col in (
        ("periods", periods, "start_pdt"),
        ("periods", periods, "end_pdt"),
        ("events", events, "time_pdt"),
    ):
        if not pd.api.types.is_datetime64_any_dtype(frame[col]):
            raise ConfigError(f"{name}[{col!r}] must hold datetimes, got dtype {frame[col].dtype}")
    if not pd.api.types.is_timedelta64_dtype(periods["duration"]):
        raise ConfigError(f"periods['duration'] must hold timedeltas, got dtype {periods['duration'].dtype}")

    # Vega-Lite reads naive ISO strings as local time; we give it PDT wall-clock strings.
    p = pd.DataFrame(
        {
            "period": periods["period"],
            "start": periods["start_pdt"].dt.strftime("%Y-%m-%dT%H:%M:%S"),
            "end": periods["end_pdt"].dt.strftime("%Y-%m-%dT%H:%M:%S"),
            "length": periods["duration"].map(format_duration),
        }
    )
    e = pd.DataFrame(
        {
            "time": events["time_pdt"].dt.strftime("%Y-%m-%dT%H:%M:%S"),
            "when": events["time_pdt"].dt.strftime("%d %b %H:%M PDT"),
            "service": events["service"],
            "event": events["event"],
            "lane": events["impact_period"].fillna("Other services"),
            "tag": events["tag"],
            "source": events["source"],
        }
    )
    return p, e


def timeline_chart(periods: pd.DataFrame, events: pd.DataFrame, *, width: int = 480) -> alt.LayerChart:
    """Draw the summary's three impact periods as bars and the events as marks with tooltips.

    Args:
        periods: the frame from :func:`labsupport.timeline.impact_periods` (columns ``period``,
            ``start_pdt``, ``end_pdt``, ``duration``); not empty.
        events: rows of :func:`labsupport.timeline.load` (columns ``time_pdt``, ``service``,
            ``event``, ``impact_period``, ``tag``, ``source``). May be empty (a filter that keeps
            no row): the chart then says "No timeline event matches the filter" in a text mark
            and in its description.
        width: chart width in pixels (100 to 4000).

    Returns:
        An ``alt.LayerChart`` whose x axis is wall-clock time in PDT.

    Raises:
        ConfigError: a frame that is not a DataFrame or lacks a column, empty ``periods``, a time
            column that does not hold datetimes (``duration``: timedeltas), or a ``width`` that is
            not an integer from 100 to 4000.
    """
    _width(width)
    p, e = timeline_data(periods, events)
    lanes = [*list(PERIOD_COLOURS), "Other services"]
    y = alt.Y("lane:N", sort=lanes, title=None, scale=alt.Scale(domain=lanes))
    colour = alt.Color(
        "period:N",
        scale=alt.Scale(domain=list(PERIOD_COLOURS), range=list(PERIOD_COLOURS.values())),
        legend=alt.Legend(title="Impact period", orient="bottom"),
    )
    bars = (
        alt.Chart(p)
        .transform_calculate(lane="datum.period")
        .mark_bar(height=22, opacity=0.85)
        .encode(
            x=alt.X("start:T", title="19–20 October 2025, PDT", axis=alt.Axis(format="%H:%M")),
            x2=alt.X2("end:T"),
            y=y,
            color=colour,
            tooltip=[alt.Tooltip("period:N"), alt.Tooltip("length:N", title="length")],
        )
    )
    marks = (
        alt.Chart(e)
        .mark_point(shape="diamond", size=90, filled=True, color="#222", stroke="white", strokeWidth=1)
        .encode(
            x=alt.X("time:T"),
            y=y,
            opacity=alt.OpacityValue(**alt.condition("datum.tag == 'UNVERIFIED'", alt.value(0.35), alt.value(1.0))),
            tooltip=[
                alt.Tooltip("when:N"),
                alt.Tooltip("service:N"),
                alt.Tooltip("event:N"),
                alt.Tooltip("tag:N"),
                alt.Tooltip("source:N"),
            ],
        )
    )
    layers = [bars, marks]
    events_text = "a diamond for each timeline event (hover for details; faded diamonds are unverified)"
    if e.empty:
        nothing = "No timeline event matches the filter"
        events_text = f"no event diamonds: {nothing[0].lower() + nothing[1:]}"
        # In the "Other services" lane, the bottom one, which holds only events.
        layers.append(
            alt.Chart(pd.DataFrame({"text": [nothing]}))
            .mark_text(align="left", baseline="middle", dx=6, fontSize=13, color="#222")
            .encode(x=alt.XValue(0), y=alt.YValue(190 - 190 / len(lanes) / 2), text=alt.Text("text:N"))
        )
    chart = alt.layer(*layers).properties(
        width=width,
        height=190,
        title="Impact periods of the 19–20 October 2025 us-east-1 event",
        description=(
            "Three horizontal bars on a PDT time axis: DynamoDB API errors, EC2 launch failures and "
            f"NLB connection errors, with {events_text}."
        ),
    )
    return _base_config(chart)
