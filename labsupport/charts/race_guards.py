"""The guard explorer of the DNS Planner/Enactor race (labsupport.race): every combination of the
four guards over many seeds, for the static book.

:func:`race_guard_explorer_chart` draws :func:`labsupport.race.guard_explorer_data` with Vega-Lite
checkboxes, so that a reader with no kernel can switch guards on and see the empty windows that remain.
"""

from __future__ import annotations

import itertools

import altair as alt
import pandas as pd

from ..errors import ConfigError
from ..race import GUARD_NAMES
from ..timeline import format_duration
from ._inputs import _frame, _width
from ._palette import PALETTE
from ._render import _base_config, reflow_usermeta
from ._text import _state_text, _wrapped

__all__ = ["race_guard_explorer_chart", "race_guard_explorer_data"]


_GUARDS = GUARD_NAMES


def race_guard_explorer_data(data: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The data :func:`race_guard_explorer_chart` draws: the binned series and one label per combination.

    Args:
        data: as for :func:`race_guard_explorer_chart` (the model's
            :func:`labsupport.race.guard_explorer_data`).

    Returns:
        ``(series, labels)``. ``series``, one row per combination and time bin: ``g1`` .. ``g4``
        (bool, the four guards: the checkboxes' keys), ``t`` (float64, bin start in minutes) and
        ``r`` (int64, fewest records answered in the bin). ``labels``, one row per combination:
        ``g1`` .. ``g4``, ``label`` (str, what the chart prints: its ``regional_empty_s`` in words),
        ``label_lines`` (str, the label wrapped for a narrow plot) and ``label_px`` (int64, its
        width unwrapped, in pixels).

    Raises:
        ConfigError: a bad ``data``, as :func:`race_guard_explorer_chart` says.
    """
    guards = _GUARDS
    _frame(
        "data",
        data,
        (*guards, "time_min", "records", "regional_empty_s"),
        numeric=("time_min", "records", "regional_empty_s"),
        empty="guard_explorer_data() holds all 16 guard combinations",
    )
    if data.groupby(list(guards)).ngroups != 16:
        raise ConfigError("data must hold all 16 guard combinations")
    # Short column names keep the page small: the spec carries every row of all 16 combinations.
    short = {g: f"g{i + 1}" for i, g in enumerate(guards)}
    d = data[[*guards, "time_min", "records"]].rename(columns={**short, "time_min": "t", "records": "r"})
    d["t"] = d["t"].round(3)
    extra = [c for c in ("alerts_count", "manual_repair") if c in data.columns]
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
    d, totals = race_guard_explorer_data(data)
    times = sorted(set(d["t"]))
    step = min(b - a for a, b in itertools.pairwise(times)) if len(times) > 1 else 1.0
    guards = _GUARDS
    params = [
        alt.param(name=f"g{i + 1}", value=False, bind=alt.binding_checkbox(name=f"Guard {i + 1}: {g} "))
        for i, g in enumerate(guards)
    ]
    chosen = " && ".join(f"datum.g{i} == g{i}" for i in range(1, 5))
    x = alt.X("t:Q", title="minutes since the scenario start")
    line = (
        alt.Chart(d)
        .transform_filter(chosen)
        .mark_line(interpolate="step-after", color=PALETTE[0])
        .encode(
            x=x,
            y=alt.Y(
                "r:Q",
                title="fewest records answered per bin",
                scale=alt.Scale(domain=[0, float(d["r"].max()) * 1.3 or 1.0]),
            ),
            tooltip=[alt.Tooltip("t:Q", title="minute"), alt.Tooltip("r:Q", title="records")],
        )
    )
    empty = (
        alt.Chart(d)
        .transform_filter(chosen)
        .transform_filter("datum.r == 0")
        .transform_calculate(t2=f"datum.t + {step!r}")
        .mark_rect(color=PALETTE[5], opacity=0.35, stroke=None)
        .encode(x=alt.X("t:Q"), x2=alt.X2("t2:Q"))
    )
    # The state line wraps when the plot is too narrow for it (a phone): see _state_text.
    label = (
        alt.Chart(totals)
        .transform_filter(chosen)
        .mark_text(align="left", baseline="top", dx=6, dy=6, fontSize=13, color=PALETTE[5], lineBreak="\n")
        .encode(x=alt.XValue(0), y=alt.YValue(0), text=_state_text("label"))
    )
    chart = (
        alt.layer(empty, line, label)
        .add_params(*params)
        .properties(
            width=width,
            height=220,
            title="Toggle the guards: regional endpoint records over time",
            usermeta=reflow_usermeta(),
            description=(
                "Interactive chart with four checkboxes, one per guard. For the chosen combination it shows "
                "the fewest records the regional endpoint answered with in each time bin, with red bars where "
                "the answer was empty, and the total empty time. All 16 combinations were computed by the model."
            ),
        )
    )
    return _base_config(chart)


def _explorer_label(row: dict) -> str:
    v = row["regional_empty_s"]
    text = (
        ("regional endpoint empty for " + (format_duration(v) if v >= 60 else f"{v:.0f} s"))
        if v > 0
        else "regional endpoint never empty"
    )
    if row.get("manual_repair"):
        text += ", until the manual repair"
    elif v > 0:
        text += ", no manual repair"
    if row.get("alerts_count"):
        text += f"; {int(row['alerts_count'])} alert(s) raised"
    return text
