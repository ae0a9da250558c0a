"""The room's chart (labsupport.game.room): every team's night on AWS's time axis, with its score."""

from __future__ import annotations

import textwrap

import altair as alt
import pandas as pd

from .. import timeline
from ..chain import STAGES
from ..clock import INCIDENT_CLOCK
from ..errors import ConfigError
from ._inputs import _frame, _width
from ._render import _base_config
from .chain import CHAIN_STAGE_COLOURS
from .game import _PERIOD_OF, _X_SCALE, _X_TITLE

__all__ = ["game_room_chart", "game_room_data"]

#: The lane of AWS's real night, from the post-event summary's impact periods.
SUMMARY_LANE = "AWS, 19–20 Oct (summary)"
_SHORT = {
    "hindsight": "hindsight",
    "not over": "not over",
    "better than AWS's play": "better",
    "the same as AWS's play, within the model's band": "same (band)",
    "worse than AWS's play": "worse",
}
#: A lane label's lines are at most this many characters (the team's name wraps; its score has a line
#: of its own), so that the labels and the plot fit a book's column (about 690 px) together.
_LABEL_CHARS = 36
_LABEL_PX = 210


def _lane(team: str, score: str) -> str:
    """A team's lane label: its name wrapped at :data:`_LABEL_CHARS`, then its score, one line each."""
    name = textwrap.wrap(team, width=_LABEL_CHARS, break_on_hyphens=False) or [team]
    return "\n".join([*name, score])


def game_room_data(stages: pd.DataFrame, scores: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The data :func:`game_room_chart` draws: stage bars per lane, and each lane's score label.

    Args:
        stages: :func:`labsupport.game.room.stages` (``team``, ``stage``, ``start_s``, ``end_s``).
        scores: :func:`labsupport.game.room.compare` (``team``, ``verdict``, ``customer_minutes``).

    Returns:
        ``bars``: ``lane`` (str: the summary's lane, then one per team in ``scores``' order, named
        "team\\ncustomer-minutes · verdict", the team's name wrapped at 36 characters and the verdict
        short, lines joined by newlines: the axis draws one label line each), ``stage``, ``start`` and
        ``end`` (str, naive PDT ISO times). ``labels``: ``team`` and ``lane`` (str), one row per team
        in order.

    Raises:
        ConfigError: a frame that is not a DataFrame or lacks a column; a team in ``stages`` that
            ``scores`` lacks.
    """
    why = "a room always holds AWS's play, and its night has stages"
    st = _frame("stages", stages, ("team", "stage", "start_s", "end_s"), numeric=("start_s", "end_s"), empty=why)
    sc = _frame("scores", scores, ("team", "verdict", "customer_minutes"), numeric=("customer_minutes",), empty=why)
    missing = sorted(set(st["team"].astype(str)) - set(sc["team"].astype(str)))
    if missing:
        raise ConfigError(f"stages has teams that scores lacks: {missing}")
    periods = timeline.impact_periods().set_index("period")
    rows = periods.loc[[_PERIOD_OF[s] for s in STAGES]]
    summary = pd.DataFrame(
        {
            "lane": SUMMARY_LANE,
            "stage": list(STAGES),
            "start": rows["start_pdt"].dt.tz_localize(None).dt.strftime("%Y-%m-%dT%H:%M:%S").to_numpy(),
            "end": rows["end_pdt"].dt.tz_localize(None).dt.strftime("%Y-%m-%dT%H:%M:%S").to_numpy(),
        }
    )
    labels = pd.DataFrame(
        {
            "team": sc["team"].astype(str).to_numpy(),
            "lane": [
                _lane(str(t), f"{m:,.0f} customer-min · {_SHORT.get(str(v), str(v))}")
                for t, m, v in zip(sc["team"], sc["customer_minutes"], sc["verdict"], strict=True)
            ],
        }
    )
    lane_of = dict(zip(labels["team"], labels["lane"], strict=True))
    teams = pd.DataFrame(
        {
            "lane": [lane_of[str(t)] for t in st["team"]],
            "stage": st["stage"].astype(str).to_numpy(),
            "start": INCIDENT_CLOCK.wall_clock(st["start_s"]).to_numpy(),
            "end": INCIDENT_CLOCK.wall_clock(st["end_s"]).to_numpy(),
        }
    )
    return pd.concat([summary, teams], ignore_index=True), labels


def game_room_chart(stages: pd.DataFrame, scores: pd.DataFrame, *, width: int = 420) -> alt.LayerChart:
    """Every team's night beside AWS's, on the real night's time axis, each lane with its score.

    Args:
        stages, scores: as for :func:`game_room_data`.
        width: the plot's width in pixels (100 to 4000); its lane labels take about 210 more, so the
            default, 420, fits a book's column (about 690 px) with the legend under it.

    Returns:
        One lane for the summary's impact periods, one for AWS's play in the model and one per team:
        bars coloured by stage, and each lane's label the team's name over its customer-minutes and
        verdict (the model's; a verdict "hindsight" is not compared with AWS's).

    Raises:
        ConfigError: a bad frame or ``width``.
    """
    _width(width)
    bars, labels = game_room_data(stages, scores)
    lanes = [SUMMARY_LANE, *labels["lane"]]
    # One label line per line of the lane's name: the score keeps a line of its own, never cut off.
    axis = alt.Axis(labelLimit=_LABEL_PX, labelExpr="split(datum.label, '\\n')", labelFontSize=10)
    y = alt.Y("lane:N", sort=lanes, scale=alt.Scale(domain=lanes), title=None, axis=axis)
    y_off = alt.YOffset("stage:N", sort=list(STAGES), scale=alt.Scale(domain=list(STAGES)))
    x = alt.X("start:T", title=_X_TITLE, axis=alt.Axis(format="%H:%M"), scale=_X_SCALE)
    colour = alt.Color(
        "stage:N",
        scale=alt.Scale(domain=list(CHAIN_STAGE_COLOURS), range=list(CHAIN_STAGE_COLOURS.values())),
        legend=alt.Legend(title=None, orient="bottom", direction="horizontal", labelLimit=160),
    )
    drawn = (
        alt.Chart(bars)
        .mark_bar(height={"band": 0.8}, clip=True)
        .encode(
            x=x,
            x2=alt.X2("end:T"),
            y=y,
            yOffset=y_off,
            color=colour,
            tooltip=["lane:N", "stage:N", alt.Tooltip("start:T", format="%H:%M"), alt.Tooltip("end:T", format="%H:%M")],
        )
    )
    chart = alt.layer(drawn).properties(
        width=width,
        height=max(120, 44 * len(lanes)),
        title=alt.Title(
            "The room: every team's night beside AWS's",
            subtitle=[
                "Each stage in the chain model; the top lane is the summary's impact periods.",
                "Customer-minutes and verdict are the model's",
                "(hindsight: not compared with AWS's).",
            ],
        ),
        description=(
            f"{len(lanes)} lanes on a PDT time axis, one bar per stage: the summary's impact periods, then "
            + "; ".join(lane.replace("\n", " ") for lane in labels["lane"])
            + "."
        ),
    )
    if not isinstance(chart, alt.LayerChart):
        raise ConfigError("the room chart must be a layer chart")
    return _base_config(chart)
