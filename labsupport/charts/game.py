"""Charts of the game-day lab (labsupport.game): the operators' dashboards and the debrief."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from .. import timeline
from ..chain import STAGES
from ..clock import INCIDENT_CLOCK, Clock
from ..errors import ConfigError
from ._common import _clock_scale
from ._inputs import _clock, _frame, _width
from ._render import _base_config
from .chain import CHAIN_STAGE_COLOURS

__all__ = ["game_dashboard_chart", "game_dashboard_data", "game_debrief_chart", "game_debrief_data"]

_DASH_COLUMNS = ("time_s", "panel", "signal", "unit", "value")
_STAGE_COLUMNS = ("stage", "start_s", "end_s")
_ACTION_COLUMNS = ("time_s", "label", "in_effect")
#: The PES impact period behind each stage of the chain (:data:`labsupport.chain.STAGES`).
_PERIOD_OF = {
    "DynamoDB unreachable": "DynamoDB API errors",
    "Launches failing": "EC2 launch failures",
    "NLB connection errors": "NLB connection errors",
}
_ACTIONS_LANE = "Operator actions"
_X_TITLE = "19–20 October 2025, PDT"


def _x_scale(clock: Clock) -> alt.Scale:
    """The game's time axis on ``clock``: 18 minutes before its start to 16 h 12 min after it (on the
    incident's clock, 11:30 PM on 19 October to 4 PM on 20 October, PDT)."""
    return _clock_scale(clock.reading(-18 * 60.0), clock.reading(16 * 3600.0 + 12 * 60.0))


#: The time axis of the real night: 11:30 PM on 19 October to 4 PM on 20 October (PDT, naive).
_X_SCALE = _x_scale(INCIDENT_CLOCK)


def game_dashboard_data(dashboards: pd.DataFrame, *, clock: Clock | None = None) -> pd.DataFrame:
    """The data :func:`game_dashboard_chart` draws: one row per sample of a signal.

    Args:
        dashboards: :attr:`labsupport.game.GameResult.dashboards` (``time_s``, ``panel``,
            ``signal``, ``unit``, ``value``); may be empty (before the first sample).
        clock: the clock ``time_s`` counts on (default the incident's; a disguised game's own).

    Returns:
        ``time`` (str, naive PDT ISO time: x), ``gauge`` (str, "panel: signal (unit)": one small
        chart each), ``value`` (float64: y). Within a gauge, a sample whose value repeats the one
        before is left out but for the gauge's last: the steps drawn are the same, with fewer rows.

    Raises:
        ConfigError: ``dashboards`` is not a DataFrame or lacks a column.
    """
    frame = _frame("dashboards", dashboards, _DASH_COLUMNS, numeric=("time_s", "value"))
    clock = _clock(clock, INCIDENT_CLOCK)
    gauge = frame["panel"].astype(str) + ": " + frame["signal"].astype(str) + " (" + frame["unit"].astype(str) + ")"
    data = pd.DataFrame(
        {"time_s": frame["time_s"].to_numpy(dtype=float), "gauge": gauge.to_numpy(), "value": frame["value"]}
    ).astype({"value": "float64"})
    same = data["gauge"].eq(data["gauge"].shift()) & data["value"].eq(data["value"].shift())
    last = data["gauge"].ne(data["gauge"].shift(-1))
    data = data[~same | last].reset_index(drop=True)
    moments, at = np.unique(data["time_s"].to_numpy(), return_inverse=True)  # the gauges share their moments
    data.insert(0, "time", clock.wall_clock(pd.Series(moments)).to_numpy()[at])
    return data.drop(columns="time_s")


def game_dashboard_chart(
    dashboards: pd.DataFrame, *, width: int = 250, clock: Clock | None = None, time_title: str = _X_TITLE
) -> alt.FacetChart:
    """The operators' dashboards up to the game's clock: one small line chart per signal.

    Args:
        dashboards: as for :func:`game_dashboard_data`.
        width: width of each small chart in pixels (100 to 4000).
        clock: as for :func:`game_dashboard_data`; the axis runs from 18 minutes before its start to
            16 h 12 min after it (11:30 PM to 4 PM on the incident's clock).
        time_title: the time axis's title (a disguised game's own words).

    Returns:
        One small chart per signal, two a row, each with its own y scale, on one time axis. Every
        curve is the chain model's.

    Raises:
        ConfigError: a bad ``dashboards``, ``width``, ``clock`` or ``time_title``.
    """
    _width(width)
    clock = _clock(clock, INCIDENT_CLOCK)
    if not isinstance(time_title, str) or not time_title:
        raise ConfigError(f"time_title must be a non-empty string, got {time_title!r}")
    data = game_dashboard_data(dashboards, clock=clock)
    gauges = list(dict.fromkeys(data["gauge"]))
    chart = (
        alt.Chart(data)
        .mark_line(interpolate="step-after", color="#1f4e79")  # a step per sample: repeats need no row
        .encode(
            x=alt.X("time:T", title=time_title, axis=alt.Axis(format="%H:%M"), scale=_x_scale(clock)),
            # A fixed width for every y axis keeps the two columns of small charts aligned on time.
            y=alt.Y("value:Q", title=None, axis=alt.Axis(minExtent=48, maxExtent=48)),
            tooltip=[
                alt.Tooltip("time:T", format="%H:%M"),
                alt.Tooltip("gauge:N"),
                alt.Tooltip("value:Q", format=".3~g"),
            ],
        )
        .properties(width=width, height=90)
        .facet(
            facet=alt.Facet("gauge:N", sort=gauges, title=None, header=alt.Header(labelFontSize=12, labelLimit=300)),
            columns=2,
        )
        .resolve_scale(y="independent")
        .resolve_axis(x="independent")  # a time axis under every small chart, not only the last row's
        .properties(
            title="Dashboards (the chain model's signals, as an on-call operator would see them)",
            description=(
                f"Small line charts on a time axis ({time_title}), one per signal: "
                + "; ".join(gauges)
                + (
                    f". Latest time shown: {clock.time_of_day(float(dashboards['time_s'].max()))}."
                    if len(data)
                    else ". No sample yet."
                )
            ),
        )
    )
    return _base_config(chart)


def _aws_bars() -> pd.DataFrame:
    periods = timeline.impact_periods().set_index("period")
    rows = []
    for stage in STAGES:
        p = periods.loc[_PERIOD_OF[stage]]
        rows.append(
            (
                "AWS, 19–20 Oct (summary)",
                stage,
                p["start_pdt"].tz_localize(None).isoformat(),
                p["end_pdt"].tz_localize(None).isoformat(),
                str(p["text"]),
            )
        )
    return pd.DataFrame(rows, columns=["run", "lane", "start", "end", "length"])


def game_debrief_data(
    stages: pd.DataFrame, actions: pd.DataFrame, *, aws_actions: pd.DataFrame | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The data :func:`game_debrief_chart` draws: stage bars and action marks, players' and AWS's.

    Args:
        stages, actions, aws_actions: as for :func:`game_debrief_chart`.

    Returns:
        ``bars``: ``run`` (str: "Players (model)" or "AWS, 19–20 Oct (summary)": y offset and
        opacity), ``lane`` (str, the stage), ``start`` and ``end`` (str, naive PDT ISO times) and
        ``length`` (str, in words). ``marks``: ``run``, ``lane`` (str, always "Operator actions"),
        ``time`` (str, naive PDT ISO time) and ``label`` (str, the action) for every action in
        effect.

    Raises:
        ConfigError: a frame that is not a DataFrame or lacks a column. An empty ``stages`` (a game
            with no stage: DNS repaired at 11:48 PM) draws AWS's bars alone.
    """
    st = _frame(
        "stages",
        stages,
        _STAGE_COLUMNS,
        numeric=("start_s", "end_s"),
    )  # may be empty: DNS repaired at 11:48 PM ends the event before any stage begins
    act = _frame("actions", actions, _ACTION_COLUMNS, numeric=("time_s",))
    theirs = (
        None if aws_actions is None else _frame("aws_actions", aws_actions, ("time_s", "label"), numeric=("time_s",))
    )
    players = "Players (model)"
    bars = pd.DataFrame(
        {
            "run": players,
            "lane": st["stage"].astype(str).to_numpy(),
            "start": INCIDENT_CLOCK.wall_clock(st["start_s"]).to_numpy(),
            "end": INCIDENT_CLOCK.wall_clock(st["end_s"]).to_numpy(),
            "length": [
                timeline.format_duration(max(0.0, float(b - a)))
                for a, b in zip(st["start_s"], st["end_s"], strict=True)
            ],
        }
    )
    bars = pd.concat([bars, _aws_bars()], ignore_index=True)
    done = act[act["in_effect"].astype(bool)]
    marks = [
        pd.DataFrame(
            {
                "run": players,
                "lane": _ACTIONS_LANE,
                "time": INCIDENT_CLOCK.wall_clock(done["time_s"]).to_numpy(),
                "label": done["label"].astype(str).to_numpy(),
            }
        )
    ]
    if theirs is not None:
        marks.append(
            pd.DataFrame(
                {
                    "run": "AWS, 19–20 Oct (summary)",
                    "lane": _ACTIONS_LANE,
                    "time": INCIDENT_CLOCK.wall_clock(theirs["time_s"]).to_numpy(),
                    "label": theirs["label"].astype(str).to_numpy(),
                }
            )
        )
    return bars, pd.concat(marks, ignore_index=True).astype({"time": str, "label": str})


def _debrief_bars(bars: pd.DataFrame, y: alt.Y, y_off: alt.YOffset, runs: list[str]) -> alt.Chart:
    """The debrief's stage bars: each run's bar in its stage's lane, the players' opaque, AWS's faint."""
    return (
        alt.Chart(bars)
        .mark_bar(height={"band": 0.35}, clip=True)
        .encode(
            x=alt.X(
                "start:T",
                title=_X_TITLE,
                axis=alt.Axis(format="%H:%M"),
                scale=_X_SCALE,
            ),
            x2=alt.X2("end:T"),
            y=y,
            yOffset=y_off,
            color=alt.Color(
                "lane:N",
                scale=alt.Scale(domain=list(CHAIN_STAGE_COLOURS), range=list(CHAIN_STAGE_COLOURS.values())),
                legend=None,
            ),
            opacity=alt.Opacity(
                "run:N",
                sort=runs,
                scale=alt.Scale(domain=runs, range=[1.0, 0.4]),
                legend=alt.Legend(title=None, orient="bottom", labelLimit=400),
            ),
            tooltip=[
                alt.Tooltip("run:N"),
                alt.Tooltip("lane:N"),
                alt.Tooltip("start:T", format="%H:%M", title="from"),
                alt.Tooltip("end:T", format="%H:%M", title="to"),
                alt.Tooltip("length:N"),
            ],
        )
    )


def game_debrief_chart(
    stages: pd.DataFrame, actions: pd.DataFrame, *, aws_actions: pd.DataFrame | None = None, width: int = 520
) -> alt.LayerChart:
    """The debrief: the players' stages and actions beside AWS's, stage by stage, on one PDT axis.

    Args:
        stages: the chain's stages of the players' game (:attr:`labsupport.game.GameResult.chain`'s
            ``stages``: ``stage``, ``start_s``, ``end_s``; seconds since 11:48 PM).
        actions: the players' actions (:attr:`labsupport.game.GameResult.actions`: ``time_s``,
            ``label``, ``in_effect``); may be empty.
        aws_actions: AWS's operators' actions (``time_s``, ``label``), or ``None`` to leave them out.
        width: chart width in pixels (100 to 4000).

    Returns:
        Three lanes, one per stage, each with the players' bar (the chain model's) above AWS's
        (the summary's impact period), and a lane of the actions each side took. The subtitle names
        hindsight.

    Raises:
        ConfigError: a bad frame or ``width``.
    """
    _width(width)
    bars, marks = game_debrief_data(stages, actions, aws_actions=aws_actions)
    runs = ["Players (model)", "AWS, 19–20 Oct (summary)"]
    lanes = [*STAGES, _ACTIONS_LANE]
    y = alt.Y("lane:N", sort=lanes, scale=alt.Scale(domain=lanes), title=None, axis=alt.Axis(labelLimit=180))
    y_off = alt.YOffset("run:N", sort=runs, scale=alt.Scale(domain=runs))
    stage_bars = _debrief_bars(bars, y, y_off, runs)
    ticks = (
        alt.Chart(marks)
        .mark_point(shape="diamond", size=90, filled=True, color="#222", clip=True)
        # The shared x scale takes its domain from the bars' layer alone: the same domain given in
        # both layers made JupyterLab's Vega-Lite (5.6) warn "Conflicting scale property" twice a draw.
        .encode(
            x=alt.X("time:T", title=_X_TITLE, axis=alt.Axis(format="%H:%M")),
            y=y,
            yOffset=y_off,
            tooltip=[alt.Tooltip("run:N"), alt.Tooltip("label:N"), alt.Tooltip("time:T", format="%H:%M")],
        )
    )
    played = [r for r in bars.itertuples() if r.run == runs[0]]
    text = "; ".join(
        f"{r.lane} {r.length} (AWS: {a.length})"
        for r, a in zip(played, [r for r in bars.itertuples() if r.run == runs[1]], strict=False)
    )
    chart = alt.layer(stage_bars, ticks).properties(
        width=width,
        height=220,
        title=alt.Title(
            "Debrief: your night beside AWS's",
            subtitle=["Hindsight: you knew the story; the operators did not (Cook, How complex systems fail)."],
        ),
        description=(
            "Four lanes on a PDT time axis: three stages, each with the players' bar (the chain model's) "
            "above AWS's impact period from the post-event summary, and a lane of diamonds for the "
            f"actions each side took ({len(marks)} in all). Stages: {text or 'none'}."
        ),
    )
    if not isinstance(chart, alt.LayerChart):
        raise ConfigError("the debrief chart must be a layer chart")
    return _base_config(chart)
