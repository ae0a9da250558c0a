"""Charts of the chain's six stop points (labsupport.chain): all 64 combinations, and what each saves alone.

:func:`chain_explorer_chart` draws :func:`labsupport.chain.stop_point_table` with six Vega-Lite
checkboxes, for the static book; :func:`chain_savings_chart` draws
:func:`labsupport.chain.single_point_savings`. One run's stages are :mod:`labsupport.charts.chain`.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from ..chain import STOP_POINT_NAMES, STOP_POINT_TITLES
from ..errors import ConfigError
from ..timeline import format_duration
from ._inputs import _frame, _width
from ._palette import PALETTE
from ._render import _base_config, reflow_usermeta
from ._text import _state_text, _wrapped
from .chain import CHAIN_STAGE_COLOURS, _chain_bars, _chain_lanes

__all__ = ["chain_explorer_chart", "chain_explorer_data", "chain_savings_chart", "chain_savings_data"]


def chain_explorer_data(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The data :func:`chain_explorer_chart` draws: every combination's bars, and one total per combination.

    Args:
        table: as for :func:`chain_explorer_chart`.

    Returns:
        ``(bars, totals)``. ``bars`` has the columns of :func:`chain_timeline_data` plus ``s1`` ..
        ``s6`` (bool, the six stop points: the checkboxes' keys); the incident's bars are the row
        without stop points, run "Incident (no stop points)". ``totals``, one row per combination:
        ``s1`` .. ``s6``, ``text`` (str, the line printed for it: its ``total_s`` in words),
        ``text_lines`` (str, the line wrapped for a narrow plot) and ``text_px`` (int64, its width
        unwrapped, in pixels).

    Raises:
        ConfigError: a bad ``table``, as :func:`chain_explorer_chart` says.
    """
    slugs = dict(zip(CHAIN_STAGE_COLOURS, ("dynamodb", "launches", "nlb"), strict=False))
    times = tuple(f"{s}_{e}_s" for s in slugs.values() for e in ("start", "end"))
    _frame(
        "table",
        table,
        (*STOP_POINT_NAMES, "stop_points", "total_s", *times),
        numeric=("total_s", *times),
        empty="stop_point_table() holds all 64 combinations of stop points",
    )
    if table.groupby(list(STOP_POINT_NAMES)).ngroups != 64:
        raise ConfigError("table must hold all 64 combinations of stop points")
    short = {name: f"s{i + 1}" for i, name in enumerate(STOP_POINT_NAMES)}
    rows = []
    for r in table.to_dict("records"):
        flags = {short[n]: bool(r[n]) for n in STOP_POINT_NAMES}
        runs_of = ["Your choice"] + (["Incident (no stop points)"] if r["stop_points"] == "none" else [])
        for stage, slug in slugs.items():
            if r[f"{slug}_start_s"] == r[f"{slug}_start_s"]:  # not NaN: the stage happened
                rows += [
                    {**flags, "run": run, "stage": stage, "start_s": r[f"{slug}_start_s"], "end_s": r[f"{slug}_end_s"]}
                    for run in runs_of
                ]
    data = pd.DataFrame(rows)
    data["duration_s"] = data["end_s"] - data["start_s"]
    bars = _chain_bars(data, "")
    bars["run"] = data["run"].to_numpy()
    for v in short.values():
        bars[v] = data[v].to_numpy()
    totals = table[[*STOP_POINT_NAMES, "stop_points", "total_s"]].rename(columns=short)
    outside = table.get("outside_region_failures_count", None)

    def text(lab: str, t: float, n: float | None) -> str:
        head = "No stop points" if lab == "none" else f"Stop point{'s' if '+' in lab else ''} {lab}"
        body = (format_duration(t) if t > 0 else "no stage at all") + (" (the incident)" if lab == "none" else "")
        return f"{head}: {body}" + ("" if n is None else f" · {int(n)} failing outside us-east-1")

    totals["text"] = [
        text(lab, t, None if outside is None else n)
        for lab, t, n in zip(
            totals["stop_points"],
            totals["total_s"],
            outside if outside is not None else [None] * len(totals),
            strict=False,
        )
    ]
    return bars, _wrapped(totals[[*short.values(), "text"]], "text", chars=30, offset_px=8)


def chain_explorer_chart(table: pd.DataFrame, *, width: int = 440) -> alt.LayerChart:
    """In-page explorer for the static book: six checkboxes pick one of 64 precomputed chain runs.

    The checkboxes are Vega-Lite parameters bound to inputs; toggling them filters the precomputed
    rows in the browser, so no kernel is needed.

    Args:
        table: :func:`labsupport.chain.stop_point_table` (the six flags, ``stop_points``,
            ``total_s``, ``<stage>_start_s`` / ``<stage>_end_s`` for ``dynamodb``, ``launches``,
            ``nlb``), all 64 combinations.
        width: chart width in pixels (100 to 4000).

    Returns:
        The stage lanes of the chosen combination (solid) beside the incident's (faded), and a line
        of text with the chosen combination's total. In the book it takes its width from the page
        (at most ``width``), and the line of text wraps when the plot is narrow.

    Raises:
        ConfigError: missing columns, not 64 combinations, or a bad width.
    """
    _width(width)
    bars, totals = chain_explorer_data(table)
    params = [
        alt.param(name=f"p{i + 1}", value=False, bind=alt.binding_checkbox(name=f"{i + 1}: {STOP_POINT_TITLES[i]} "))
        for i in range(6)
    ]
    chosen = " && ".join(f"datum.s{i} == p{i}" for i in range(1, 7))
    runs = ["Your choice", "Incident (no stop points)"]
    # The legend's two entries one under the other, and the title centred over the whole chart
    # (lane names included), so that both fit a phone when the plot narrows.
    lanes = _chain_lanes(bars, runs, width, legend_direction="vertical").transform_filter(
        f"datum.run != 'Your choice' || ({chosen})"
    )
    # Above the plot, growing upwards when it wraps on a narrow plot (a phone): see _state_text.
    note = (
        alt.Chart(totals)
        .transform_filter(chosen)
        .mark_text(align="left", baseline="bottom", dx=4, dy=-5, fontSize=13, color=PALETTE[1], lineBreak="\n")
        .encode(x=alt.XValue(0), y=alt.YValue(0), text=_state_text("text"))
    )
    chart = (
        alt.layer(lanes, note)
        .add_params(*params)
        .properties(
            title=alt.TitleParams("Switch the stop points on: the stages that remain", frame="bounds"),
            usermeta=reflow_usermeta(),
            description=(
                "Interactive chart with six checkboxes, one per stop point. For the chosen combination it draws "
                "the stages that still happen (solid bars) beside the incident's (faded), on a PDT time axis, "
                "and states the total. All 64 combinations were computed by the chain model when the page was built."
            ),
        )
    )
    return _base_config(chart)


_SAVING_KINDS = ["saves the most", "saves less", "costs time"]


def chain_savings_data(savings: pd.DataFrame) -> pd.DataFrame:
    """The data :func:`chain_savings_chart` draws: one bar per stop point.

    Args:
        savings: as for :func:`chain_savings_chart`.

    Returns:
        ``name`` (str, "3: title": y), ``hours`` (float64, ``saved_s`` in hours: x; negative when
        the stop point makes the event longer), ``saved`` (str, the label: the time in words, or
        "adds ..."), ``best`` (str, the colour: "saves the most", "saves less" or "costs time")
        and, when ``savings`` has ``outside_region_failures_count``, ``outside`` (int64, failures
        outside us-east-1).

    Raises:
        ConfigError: a bad ``savings``, as :func:`chain_savings_chart` says.
    """
    _frame(
        "savings",
        savings,
        ("point", "title", "saved_s", "best"),
        numeric=("saved_s",),
        empty="single_point_savings() holds one row per stop point",
    )
    if not np.isfinite(savings["saved_s"].to_numpy(dtype=float)).all():
        raise ConfigError(f"savings['saved_s'] must be finite seconds, got {savings['saved_s'].tolist()!r}")
    if not pd.api.types.is_bool_dtype(savings["best"]):
        raise ConfigError(f"savings['best'] must be bool, got dtype {savings['best'].dtype}")
    saved = savings["saved_s"].astype(float)
    kinds = _SAVING_KINDS
    data = pd.DataFrame(
        {
            "name": [f"{p}: {t}" for p, t in zip(savings["point"], savings["title"], strict=False)],
            "hours": (saved / 3600).round(2).to_numpy(),
            "saved": [format_duration(v) if v >= 0 else f"adds {format_duration(-v)}" for v in saved],
            "best": [
                kinds[2] if v < 0 else kinds[0] if b else kinds[1] for v, b in zip(saved, savings["best"], strict=False)
            ],
        }
    )
    if "outside_region_failures_count" in savings.columns:
        data["outside"] = savings["outside_region_failures_count"].to_numpy()
    return data


def chain_savings_chart(savings: pd.DataFrame, *, width: int = 260) -> alt.LayerChart:
    """Which single stop point buys the most time: hours saved by each stop point on its own.

    Args:
        savings: :func:`labsupport.chain.single_point_savings` (``point``, ``title``, ``saved_s``
            (finite seconds; negative when a stop point makes the event longer), ``best`` (bool)).
        width: chart width in pixels (100 to 4000).

    Returns:
        One horizontal bar per stop point from 0, labelled with the time it saves. A stop point that
        costs time has a bar to the left of 0, in its own colour, labelled "adds ..." right of 0;
        the x domain then reaches below 0 and a rule marks 0.

    Raises:
        ConfigError: ``savings`` not a DataFrame, missing a column or empty; ``saved_s`` not finite;
            ``best`` not bool; a bad width.
    """
    _width(width)
    data = chain_savings_data(savings)
    kinds = _SAVING_KINDS
    order = data["name"].tolist()
    y = alt.Y("name:N", sort=order, title=None, axis=alt.Axis(labelLimit=300, labelFontSize=11))
    pos, neg = max(0.0, float(data["hours"].max())), min(0.0, float(data["hours"].min()))
    if neg < 0:  # the "adds ..." labels sit right of 0, so the right side keeps room for them
        m = max(1.0, pos, -neg)
        domain = [neg - 0.1 * m, pos + 0.45 * m]
    else:
        domain = [0, max(1.0, pos) * 1.3]
    shown = [k for k in kinds if k in set(data["best"])] or kinds[:2]
    colours = dict(zip(kinds, (PALETTE[2], PALETTE[6], PALETTE[5]), strict=False))
    bars = (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=alt.X(
                "hours:Q",
                scale=alt.Scale(domain=domain, nice=False),
                title="Hours of the event removed" + (" (left of 0: added)" if neg < 0 else ""),
            ),
            y=y,
            color=alt.Color(
                "best:N",
                scale=alt.Scale(domain=shown, range=[colours[k] for k in shown]),
                legend=alt.Legend(title=None, orient="bottom"),
            ),
            tooltip=["name:N", alt.Tooltip("saved:N", title="time saved")]
            + ([alt.Tooltip("outside:Q", title="failing outside us-east-1")] if "outside" in data else []),
        )
    )
    right = (
        alt.Chart(data)
        .transform_filter("datum.hours >= 0")
        .mark_text(align="left", dx=4, fontSize=11, color="#222")
        .encode(x=alt.X("hours:Q"), y=y, text=alt.Text("saved:N"))
    )
    left = (
        alt.Chart(data)
        .transform_filter("datum.hours < 0")
        .mark_text(align="left", dx=4, fontSize=11, color="#222")
        .encode(x=alt.datum(0), y=y, text=alt.Text("saved:N"))
    )
    layers = [bars, right, left]
    if neg < 0:
        layers.append(alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="#222").encode(x=alt.X("x:Q")))
    costly = [f"{n} adds {t[5:]}" for n, t in zip(data["name"], data["saved"], strict=False) if t.startswith("adds ")]
    chart = alt.layer(*layers).properties(
        width=width,
        height=28 * len(data),
        title="One stop point at a time",
        description=(
            "Horizontal bars, one per stop point switched on alone: how many hours of the incident's total "
            "it removes, computed by the chain model; the longest bars are highlighted."
            + (f" Bars left of 0 make the event longer: {'; '.join(costly)}." if costly else "")
        ),
    )
    return _base_config(chart)
