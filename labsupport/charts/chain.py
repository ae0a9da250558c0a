"""Charts of one run of the end-to-end chain (labsupport.chain): its stages on the clock, and its impact.

The charts of the six stop points (all 64 combinations, and what each saves alone) are in
:mod:`labsupport.charts.chain_stop_points`.
"""

from __future__ import annotations

from typing import Literal

import altair as alt
import pandas as pd

from ..clock import INCIDENT_CLOCK
from ..errors import ConfigError
from ..timeline import format_duration
from ._common import _clock_scale
from ._inputs import _frame, _note_chart, _width
from ._palette import PALETTE
from ._render import _base_config

__all__ = [
    "CHAIN_STAGE_COLOURS",
    "chain_impact_chart",
    "chain_impact_data",
    "chain_timeline_chart",
    "chain_timeline_data",
]


#: One colour per stage of :mod:`labsupport.chain`, the colour of the PES impact period it reproduces.
CHAIN_STAGE_COLOURS: dict[str, str] = {
    "DynamoDB unreachable": PALETTE[0],
    "Launches failing": PALETTE[1],
    "NLB connection errors": PALETTE[2],
}


_CHAIN_X = alt.X(
    "start:T",
    title="19–20 October 2025, PDT",
    axis=alt.Axis(format="%H:%M"),
    scale=_clock_scale("2025-10-19T23:30", "2025-10-20T15:00"),
)


_CHAIN_STAGE_COLUMNS = ("stage", "start_s", "end_s", "duration_s")


def _chain_bars(stages: pd.DataFrame, run: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "run": run,
            "stage": stages["stage"].astype(str).to_numpy(),
            "start": INCIDENT_CLOCK.wall_clock(stages["start_s"]).to_numpy(),
            "end": INCIDENT_CLOCK.wall_clock(stages["end_s"]).to_numpy(),
            "length": [format_duration(v) for v in stages["duration_s"]],
        }
    )


def _chain_lanes(
    bars: pd.DataFrame,
    runs: list[str],
    width: int,
    *,
    legend_direction: Literal["horizontal", "vertical"] = "horizontal",
) -> alt.Chart:
    stages = list(CHAIN_STAGE_COLOURS)
    return (
        alt.Chart(bars)
        .mark_bar(height={"band": 0.4})
        .encode(
            x=_CHAIN_X,
            x2=alt.X2("end:T"),
            y=alt.Y("stage:N", sort=stages, scale=alt.Scale(domain=stages), title=None, axis=alt.Axis(labelLimit=160)),
            yOffset=alt.YOffset("run:N", sort=runs, scale=alt.Scale(domain=runs)),
            color=alt.Color(
                "stage:N", scale=alt.Scale(domain=stages, range=list(CHAIN_STAGE_COLOURS.values())), legend=None
            ),
            opacity=alt.Opacity(
                "run:N",
                sort=runs,
                scale=alt.Scale(domain=runs, range=[1.0, 0.35]),
                legend=alt.Legend(title=None, orient="bottom", direction=legend_direction, labelLimit=400),
            ),
            tooltip=[
                alt.Tooltip("run:N"),
                alt.Tooltip("stage:N"),
                alt.Tooltip("start:T", format="%H:%M", title="from"),
                alt.Tooltip("end:T", format="%H:%M", title="to"),
                alt.Tooltip("length:N"),
            ],
        )
        .properties(width=width, height=180)
    )


def chain_timeline_data(
    stages: pd.DataFrame,
    *,
    reference: pd.DataFrame | None = None,
    label: str = "Your choice",
    reference_label: str = "Incident (no stop points)",
) -> pd.DataFrame:
    """The data :func:`chain_timeline_chart` draws: one bar per (run, stage).

    Args:
        stages, reference, label, reference_label: as for :func:`chain_timeline_chart`.

    Returns:
        ``run`` (str, ``label`` or ``reference_label``: y offset and opacity), ``stage`` (str, lane
        and colour), ``start`` and ``end`` (str, naive PDT ISO times: x and x2) and ``length``
        (str, in words). No rows when both runs have no stage.

    Raises:
        ConfigError: a bad argument, as :func:`chain_timeline_chart` says.
    """
    _frame("stages", stages, _CHAIN_STAGE_COLUMNS, numeric=_CHAIN_STAGE_COLUMNS[1:])
    if reference is not None:
        _frame("reference", reference, _CHAIN_STAGE_COLUMNS, numeric=_CHAIN_STAGE_COLUMNS[1:])
    if (
        not isinstance(label, str)
        or not isinstance(reference_label, str)
        or not label
        or not reference_label
        or label == reference_label
    ):
        raise ConfigError(
            f"label and reference_label must be two different non-empty strings, got {label!r} and {reference_label!r}"
        )
    parts = [_chain_bars(stages, label)]
    if reference is not None:
        parts.append(_chain_bars(reference, reference_label))
    return pd.concat(parts, ignore_index=True)


def chain_timeline_chart(
    stages: pd.DataFrame,
    *,
    reference: pd.DataFrame | None = None,
    label: str = "Your choice",
    reference_label: str = "Incident (no stop points)",
    width: int = 440,
) -> alt.LayerChart:
    """The chain's stages for one run, each lane beside the same stage of a reference run.

    Args:
        stages: :attr:`labsupport.chain.ChainResult.stages` (``stage``, ``start_s``, ``end_s``,
            ``duration_s``); may be empty.
        reference: the same for the run to compare with (usually the incident), or ``None``.
        label, reference_label: legend names of the two runs (different, non-empty).
        width: chart width in pixels (100 to 4000).

    Returns:
        One lane per stage on a PDT clock; in each, a solid bar for ``stages`` and a faded bar for
        ``reference``, and a line of text with both totals.

    Raises:
        ConfigError: ``stages`` or ``reference`` not a DataFrame (``reference`` may be ``None``) or
            missing a column, equal labels or a bad width.
    """
    _width(width)
    bars = chain_timeline_data(stages, reference=reference, label=label, reference_label=reference_label)
    runs = [label] + ([reference_label] if reference is not None else [])

    def total(frame: pd.DataFrame) -> str:
        return (
            format_duration(float(frame["end_s"].max() - frame["start_s"].min())) if len(frame) else "no stage at all"
        )

    text = f"{label}: {total(stages)}" + (f" · {reference_label}: {total(reference)}" if reference is not None else "")
    note = (
        alt.Chart(pd.DataFrame({"text": [text]}))
        .mark_text(align="left", baseline="top", dx=4, dy=-18, fontSize=13, color="#222")
        .encode(x=alt.XValue(0), y=alt.YValue(0), text=alt.Text("text:N"))
    )
    chart = alt.layer(_chain_lanes(bars, runs, width), note).properties(
        title="The chain, stage by stage",
        description=(
            f"Three lanes on a PDT time axis, one per stage: DynamoDB unreachable, launches failing and NLB "
            f"connection errors. Solid bars: {label}; faded bars: {reference_label}. Totals: {text}."
        ),
    )
    return _base_config(chart)


def chain_impact_data(impact: pd.DataFrame) -> pd.DataFrame:
    """The data :func:`chain_impact_chart` draws: one row per row of ``impact``.

    Args:
        impact: as for :func:`chain_impact_chart` (may be empty).

    Returns:
        ``start`` (str, naive PDT ISO time), ``stage`` (str, the line and colour) and ``share``
        (float64, ``impact_fraction``, 0 to 1).

    Raises:
        ConfigError: a bad ``impact``, as :func:`chain_impact_chart` says.
    """
    _frame("impact", impact, ("time_s", "stage", "impact_fraction"), numeric=("time_s", "impact_fraction"))
    return pd.DataFrame(
        {
            "start": INCIDENT_CLOCK.wall_clock(impact["time_s"]).to_numpy(),
            "stage": impact["stage"].astype(str).to_numpy(),
            "share": impact["impact_fraction"].round(4).to_numpy(),
        }
    )


def chain_impact_chart(impact: pd.DataFrame, *, width: int = 480) -> alt.LayerChart:
    """Client-visible impact over time: the share of clients, launches or connections failing, per stage.

    Args:
        impact: :attr:`labsupport.chain.ChainResult.impact` (``time_s``, ``stage``, ``impact_fraction``).
        width: chart width in pixels (100 to 4000).

    Returns:
        One step line per stage. A run in which no stage happens (every failure stopped) has an
        empty ``impact``: the chart then says "Nothing fails: no stage happens in this run".

    Raises:
        ConfigError: ``impact`` not a DataFrame or missing a column, or a bad width.
    """
    _width(width)
    data = chain_impact_data(impact)
    title = "What clients see, stage by stage"
    if data.empty:
        nothing = "Nothing fails: no stage happens in this run"
        return _note_chart(
            nothing,
            title=title,
            width=width,
            height=200,
            description=(
                f"Share failing over PDT clock time, one line per stage. {nothing}, so there is no line to draw."
            ),
        )
    stages = list(CHAIN_STAGE_COLOURS)
    chart = (
        alt.Chart(data)
        .mark_line(interpolate="step-before", strokeWidth=2)
        .encode(
            x=_CHAIN_X,
            y=alt.Y("share:Q", title="Share failing", axis=alt.Axis(format="%"), scale=alt.Scale(domain=[0, 1])),
            color=alt.Color(
                "stage:N",
                scale=alt.Scale(domain=stages, range=list(CHAIN_STAGE_COLOURS.values())),
                legend=alt.Legend(title=None, orient="bottom", columns=3, labelLimit=300),
            ),
            tooltip=[
                alt.Tooltip("start:T", format="%H:%M", title="time"),
                alt.Tooltip("stage:N"),
                alt.Tooltip("share:Q", format=".1%"),
            ],
        )
        .properties(
            width=width,
            height=200,
            title=title,
            description=(
                "Share failing over PDT clock time, one line per stage: clients whose resolver answers the "
                "DynamoDB endpoint with no records; launches refused or left without network connectivity; "
                "connections through the modelled NLB that fail."
            ),
        )
    )
    return _base_config(chart)
