"""Charts of the explicit-state model checker (labsupport.explore)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from .._validate import check_int
from ..errors import ConfigError
from ._common import _RACE_GROUP_STYLE, RACE_ACTION_GROUPS
from ._inputs import _frame, _width
from ._palette import PALETTE
from ._render import _base_config

__all__ = [
    "explore_sequence_chart",
    "explore_sequence_data",
    "explore_verdict_chart",
    "explore_verdict_data",
]


#: Lanes of the explorer's sequence chart, top to bottom (Enactor names as in labsupport.race).
_EXPLORE_LANES = ("planner", "enactor-a", "enactor-b", "enactor-c", "route53")


_EXPLORE_GROUP_EXTRA = {
    "pick": "pick newest plan",
    "check_dropped": "one-time check",
    "cleanup_done": "clean-up delete",
}


_EXPLORE_ROLE_LABELS = {
    "stale check": "stale check",
    "stale overwrite": "stale overwrite",
    "active plan deleted": "active plan deleted",
}


def explore_sequence_data(steps: pd.DataFrame) -> pd.DataFrame:
    """The data :func:`explore_sequence_chart` draws: one row per step, plus a ``route53`` row each
    time an endpoint goes empty.

    Args:
        steps: as for :func:`explore_sequence_chart`.

    Returns:
        ``step`` (int64, the x position), ``actor`` (str, the lane), ``group`` (str, the action
        group: colour and shape, as in :data:`~labsupport.charts.RACE_ACTION_GROUPS`), ``plan``
        (str, "p3"), ``endpoint`` (str), ``outcome`` (str), ``role`` (str, "" or the key moment
        that gets a rule), ``operation`` and ``reply`` (str: a student's operation as it yielded it
        and what it got back, from ``steps`` where it has those columns, else "").

    Raises:
        ConfigError: a bad ``steps``, as :func:`explore_sequence_chart` says.
    """
    _frame(
        "steps",
        steps,
        ("step", "actor", "race_action", "plan_generation", "endpoint", "outcome", "role", "empty_after"),
        numeric=("step", "empty_after"),
        empty="the explorer found no path to draw (the property holds); draw this chart only for an unsafe result",
    )
    d = pd.DataFrame(
        {
            "step": steps["step"].astype(int),
            "actor": steps["actor"].astype(str),
            "group": steps["race_action"]
            .astype(str)
            .map(lambda a: _EXPLORE_GROUP_EXTRA.get(a, RACE_ACTION_GROUPS.get(a, a))),
            "plan": steps["plan_generation"].map(lambda g: f"p{g}" if g else ""),
            "endpoint": steps["endpoint"].astype(str),
            "outcome": steps["outcome"].astype(str),
            "role": steps["role"].astype(str),
            # A student's step: the operation as it was yielded and its reply ("" for the built-in protocol).
            "operation": steps["operation"].astype(str) if "operation" in steps else "",
            "reply": steps["reply"].astype(str) if "reply" in steps else "",
        }
    )
    went_empty = steps.loc[steps["empty_after"] & ~steps["empty_after"].shift(fill_value=False)]
    d = pd.concat(
        [
            d,
            pd.DataFrame(
                {
                    "step": went_empty["step"].astype(int),
                    "actor": "route53",
                    "group": RACE_ACTION_GROUPS["endpoint_empty"],
                    "plan": "",
                    "endpoint": went_empty["endpoint"].astype(str),
                    "outcome": "alias points at a deleted plan: NOERROR with 0 answers",
                    "role": "",
                    "operation": "",
                    "reply": "",
                }
            ),
        ],
        ignore_index=True,
    )
    return d


def _sequence_tooltip(d: pd.DataFrame) -> list[alt.Tooltip]:
    """The sequence chart's tooltip: a student's operation and its reply too, where the path has them."""
    fields = ["step:Q", "actor:N", "group:N", "plan:N", "endpoint:N"]
    fields += ["operation:N", "reply:N"] if d["operation"].ne("").any() else []
    return [alt.Tooltip(f) for f in [*fields, "outcome:N"]]


def explore_sequence_chart(
    steps: pd.DataFrame, *, width: int = 540, title: str = "The shortest counterexample, step by step"
) -> alt.LayerChart:
    """Sequence chart of an explorer path: one lane per actor, steps on x, one mark per step.

    Drawn in the style of :func:`race_sequence_chart` (same lanes, colours and shapes), with
    numbered steps in place of seconds, because the explorer has no clock: only the order matters.

    Args:
        steps: ``labsupport.explore.ExploreResult.events`` or ``.stuck_path`` (columns ``step``, ``actor``,
            ``race_action``, ``plan_generation``, ``endpoint``, ``outcome``, ``role``,
            ``empty_after``); at least one row.
        width: chart width in pixels (100-4000).
        title: the chart title.

    Returns:
        A layered chart: a mark per step, coloured and shaped by action group, its plan generation
        written next to it, a ``route53`` lane marking when an endpoint goes empty, and labelled
        dashed rules at the stale check, the stale overwrite and the deletion of the active plan.

    Raises:
        ConfigError: ``steps`` not a DataFrame, missing a column or empty; a title that is not a
            non-empty string; a bad width.
    """
    _width(width)
    d = explore_sequence_data(steps)
    if not isinstance(title, str) or not title.strip():
        raise ConfigError(f"title must be a non-empty string, got {title!r}")
    lanes = [a for a in _EXPLORE_LANES if a in set(d["actor"])]
    styles = {**_RACE_GROUP_STYLE, "pick newest plan": (PALETTE[0], "circle")}
    groups = [g for g in styles if g in set(d["group"])]
    n = int(d["step"].max())
    x = alt.X(
        "step:Q",
        title="step (the explorer has no clock: only the order of steps matters)",
        scale=alt.Scale(domain=[0.5, n + 0.5]),
        axis=alt.Axis(tickMinStep=1, format="d"),
    )
    y = alt.Y("actor:N", sort=lanes, title=None)
    points = (
        alt.Chart(d)
        .mark_point(size=90, filled=True, opacity=0.95)
        .encode(
            x=x,
            y=y,
            color=alt.Color(
                "group:N",
                title="Action",
                scale=alt.Scale(domain=groups, range=[styles[g][0] for g in groups]),
                legend=alt.Legend(orient="bottom", columns=3),
            ),
            shape=alt.Shape("group:N", scale=alt.Scale(domain=groups, range=[styles[g][1] for g in groups])),
            tooltip=_sequence_tooltip(d),
        )
    )
    plans = alt.Chart(d).mark_text(dy=-13, fontSize=11, color="#222").encode(x=x, y=y, text=alt.Text("plan:N"))
    key = d.loc[d["role"].isin(_EXPLORE_ROLE_LABELS)].assign(label=lambda k: k["role"].map(_EXPLORE_ROLE_LABELS))
    rules = alt.Chart(key).mark_rule(strokeDash=[4, 3], color="#222", opacity=0.6).encode(x=alt.X("step:Q"))
    labels = (
        alt.Chart(key)
        .mark_text(align="left", dx=6, dy=12, fontSize=11, fontWeight="bold", color="#222")
        .encode(x=alt.X("step:Q"), y=y, text=alt.Text("label:N"))
    )
    chart = alt.layer(rules, points, plans, labels).properties(
        width=width,
        height=44 * max(len(lanes), 3),
        title=title,
        description=(
            f"Sequence chart of {n} steps found by the exhaustive explorer: lanes for {', '.join(lanes)}; "
            f"each mark is one atomic step ({', '.join(groups)}), labelled with its plan generation; "
            "dashed rules mark " + (", ".join(key["label"]) or "no key moment") + "."
        ),
    )
    return _base_config(chart)


_EXPLORE_VERDICTS = {
    "safe": "safe (never empty)",
    "recovers": "recovers (never stuck)",
    "stale_overwrite_reachable": "stale overwrite possible",
    "alert_reachable": "guard-3 alert possible",
}


def explore_verdict_data(table: pd.DataFrame) -> pd.DataFrame:
    """The data :func:`explore_verdict_chart` draws: one row per (guard combination, property).

    Args:
        table: as for :func:`explore_verdict_chart`.

    Returns:
        ``guards`` (str, the row), ``states_count`` (int64), ``key`` (str, the property's column
        in ``table``), ``holds`` (bool), ``property`` (str, its label: the column), ``answer``
        (str, "yes" or "no": the text) and ``meaning`` (str, "good", "bad" or "alert: a person is
        paged": the colour).

    Raises:
        ConfigError: a bad ``table``, as :func:`explore_verdict_chart` says.
    """
    _frame(
        "table",
        table,
        ("guards", "states_count", *_EXPLORE_VERDICTS),
        numeric=("states_count",),
        empty="verdict_table() holds one row per guard combination",
    )
    long = table.melt(
        id_vars=["guards", "states_count"], value_vars=list(_EXPLORE_VERDICTS), var_name="key", value_name="holds"
    )

    def meaning(key: str, holds: bool) -> str:
        if key == "alert_reachable" and holds:
            return "alert: a person is paged"
        return "good" if holds == (key in ("safe", "recovers")) else "bad"

    long = long.assign(
        property=long["key"].map(_EXPLORE_VERDICTS),
        holds=long["holds"].astype(bool),
        answer=long["holds"].map({True: "yes", False: "no"}),
        meaning=[meaning(k, bool(h)) for k, h in zip(long["key"], long["holds"], strict=False)],
    )
    return long


def explore_verdict_chart(table: pd.DataFrame, *, cell_px: int = 26) -> alt.LayerChart:
    """The verdict table as a grid: one row per guard combination, one column per property.

    Args:
        table: ``labsupport.explore.verdict_table()`` or ``verdict_rows()`` (columns ``guards``, ``safe``, ``recovers``,
            ``stale_overwrite_reachable``, ``alert_reachable``, ``states_count``).
        cell_px: height of one row in pixels (12-80).

    Returns:
        A grid of coloured cells with "yes"/"no" written in each, rows in the table's order.

    Raises:
        ConfigError: ``table`` not a DataFrame, missing a column or empty; a bad cell size.
    """
    check_int("cell_px", cell_px, lo=12, hi=80)
    long = explore_verdict_data(table)
    rows = list(table["guards"].astype(str))
    kinds = ["good", "bad", "alert: a person is paged"]
    enc = {
        "x": alt.X(
            "property:N",
            sort=list(_EXPLORE_VERDICTS.values()),
            title=None,
            # Two lines per label (split at the last space), so the columns never collide.
            axis=alt.Axis(
                orient="top",
                labelAngle=0,
                labelLimit=200,
                labelPadding=20,
                labelExpr=(
                    "[slice(datum.label, 0, lastindexof(datum.label, ' ')),"
                    " slice(datum.label, lastindexof(datum.label, ' ') + 1)]"
                ),
            ),
        ),
        "y": alt.Y("guards:N", sort=rows, title="guards on"),
    }
    cells = (
        alt.Chart(long)
        .mark_rect(stroke="white")
        .encode(
            **enc,
            color=alt.Color(
                "meaning:N",
                scale=alt.Scale(domain=kinds, range=[PALETTE[2], PALETTE[5], PALETTE[4]]),
                legend=alt.Legend(title="For the endpoint", orient="bottom"),
            ),
            tooltip=[
                alt.Tooltip("guards:N"),
                alt.Tooltip("property:N"),
                alt.Tooltip("answer:N"),
                alt.Tooltip("states_count:Q", title="states explored"),
            ],
        )
    )
    text = alt.Chart(long).mark_text(color="white", fontWeight="bold").encode(**enc, text=alt.Text("answer:N"))
    chart = alt.layer(cells, text).properties(
        width=480,
        height=cell_px * len(rows),
        title=(
            "Every interleaving: what can happen with these guards"
            if len(rows) == 1
            else f"Every interleaving, {len(rows)} guard combinations: what can happen"
        ),
        description=(
            "Grid with one row per combination of the four guards and four columns: safe, recovers, "
            "stale overwrite possible, guard-3 alert possible. Each cell says yes or no, as computed by "
            "exhaustive search; green is good for the endpoint, red is bad, amber marks an alert."
        ),
    )
    return _base_config(chart)
