"""The blast-radius chart of hidden single-Region dependencies (labsupport.dependencies)."""

from __future__ import annotations

import json
import textwrap

import altair as alt
import pandas as pd

from .._validate import check_int
from ..dependencies import REGIONS, STATUSES
from ..errors import ConfigError
from ._inputs import _frame
from ._palette import PALETTE
from ._render import _base_config

__all__ = ["DEPENDENCY_STATUS_COLOURS", "dependency_blast_chart", "dependency_blast_data"]


#: Colours of the statuses of :func:`labsupport.dependencies.blast_radius`.
#: "origin" (the failing service itself) is near-black, far from the orange of "fails" (a pink
#: origin beside an orange failure is hard to tell apart).
DEPENDENCY_STATUS_COLOURS: dict[str, str] = {
    "origin": PALETTE[6],
    "fails": PALETTE[1],
    "fails over": PALETTE[4],
    "degraded": PALETTE[3],
    "keeps working": PALETTE[2],
}


#: The longest line of a service's name on the chart's axis; longer names wrap onto more lines.
_LINE_CHARS = 34


def _wrapped(name: str) -> str:
    """A service's name broken at spaces into lines of at most :data:`_LINE_CHARS` characters
    (joined by newlines; a single longer word stays whole), so the axis never truncates it."""
    return "\n".join(textwrap.wrap(name, _LINE_CHARS, break_long_words=False, break_on_hyphens=False)) or name


def _blast_frame(radius: pd.DataFrame, scenario: str, name: str = "radius") -> pd.DataFrame:
    _frame(
        name,
        radius,
        ("service", "region", "status", "hops", "path", "weakest_tag"),
        empty="blast_radius() always holds the failing service itself",
    )
    weak = radius["weakest_tag"].astype("string").isin(["inferred", "UNVERIFIED"]).fillna(False)
    names = radius["service"].astype(str)
    return pd.DataFrame(
        {
            "scenario": scenario,
            "service": names.to_numpy(),
            "name": names.map(_wrapped).to_numpy(),
            "region": radius["region"].astype(str).to_numpy(),
            "status": radius["status"].astype(str).to_numpy(),
            "path": radius["path"].fillna("").astype(str).to_numpy(),
            "tag": radius["weakest_tag"].astype("string").fillna("").to_numpy(dtype=object),
            "firm": (~weak).map({True: "stated", False: "inferred"}).to_numpy(),
        }
    )


def dependency_blast_data(
    radius: pd.DataFrame, *, compare: pd.DataFrame | None = None, labels: tuple[str, str] = ("As it was", "Isolated")
) -> pd.DataFrame:
    """The data :func:`dependency_blast_chart` draws: one square per (scenario, service, Region).

    Args:
        radius, compare, labels: as for :func:`dependency_blast_chart`.

    Returns:
        ``scenario`` (str, the panel: one of ``labels``), ``service`` (str, the full name: y and
        tooltip), ``name`` (str, the same wrapped into lines for the axis), ``region`` (str, x),
        ``status`` (str, colour and stroke), ``path`` and ``tag`` (str, the tooltip: why, and the
        weakest link's tag) and ``firm`` (str: "stated" squares are filled, "inferred" ones, which
        rest on an inferred or UNVERIFIED link, hollow).

    Raises:
        ConfigError: a bad ``radius``, ``compare`` or ``labels``, as :func:`dependency_blast_chart` says.
    """
    parts = [_blast_frame(radius, labels[0])]
    if compare is not None:
        parts.append(_blast_frame(compare, labels[1], "compare"))
    return pd.concat(parts, ignore_index=True)


def dependency_blast_chart(
    radius: pd.DataFrame,
    *,
    title: str = "Blast radius",
    compare: pd.DataFrame | None = None,
    labels: tuple[str, str] = ("As it was", "Isolated"),
    cell_px: int = 75,
) -> alt.FacetChart:
    """Every service or feature of the dependency graph by Region, coloured by what happens to it.

    Args:
        radius: :func:`labsupport.dependencies.blast_radius` (``service``, ``region``, ``status``,
            ``hops``, ``path``, ``weakest_tag``).
        title: chart title (non-empty).
        compare: a second ``blast_radius`` frame (e.g. with ``isolate=True``) drawn beside the
            first, or ``None``.
        labels: the headings of the two panels (two different non-empty strings).
        cell_px: width of one Region column in pixels (20 to 400).

    Returns:
        One panel per frame: one row per service, one column per Region, a square where the node
        exists, coloured by status; squares that rest on an ``inferred`` or ``UNVERIFIED`` link
        are hollow.

    Raises:
        ConfigError: ``radius`` (or ``compare``, unless ``None``) not a DataFrame, missing a column or
            empty; an empty title, bad labels or a bad cell size.
    """
    check_int("cell_px", cell_px, lo=20, hi=400)
    if not isinstance(title, str) or not title.strip():
        raise ConfigError(f"title must be a non-empty string, got {title!r}")
    if (
        not isinstance(labels, tuple)
        or len(labels) != 2
        or not all(isinstance(x, str) and x for x in labels)
        or labels[0] == labels[1]
    ):
        raise ConfigError(f"labels must be two different non-empty strings, got {labels!r}")
    data = dependency_blast_data(radius, compare=compare, labels=labels)
    statuses = [st for st in STATUSES if st in set(data["status"])]
    cells = _blast_cells(data, labels[0], statuses, cell_px)
    counts = "; ".join(
        f"{lab}: "
        + ", ".join(f"{s} {int(((data['scenario'] == lab) & (data['status'] == s)).sum())}" for s in statuses)
        for lab in data["scenario"].unique()
    )
    chart = (
        alt.layer(cells, data=data)
        .facet(
            column=alt.Column(
                "scenario:N", sort=list(labels), title=None, header=alt.Header(labelFontSize=13, labelFontWeight="bold")
            )
        )
        .properties(
            title=alt.Title(title, subtitle="Hollow: the failure rests on a link the course inferred"),
            description=(
                f"A grid of services (rows) by Region (columns: {', '.join(REGIONS)}), one panel per scenario. "
                f"Each square is one service in one Region, coloured by its status. {counts}. Hollow squares "
                "rest on a link the course inferred rather than one the sources state."
            ),
        )
    )
    return _base_config(chart)


def _blast_cells(data: pd.DataFrame, first_label: str, statuses: list[str], cell_px: int) -> alt.Chart:
    """The grid's squares: services (rows, ordered by their status in the first panel) by Region."""
    rank = {k: i for i, k in enumerate(STATUSES)}
    first = data.loc[data["scenario"] == first_label]
    first = first.assign(r=first["status"].map(rank)).sort_values(["r", "service"], kind="stable")
    order = first["service"].drop_duplicates().tolist()
    order += sorted(set(data["service"]) - set(order))
    colours = alt.Scale(domain=statuses, range=[DEPENDENCY_STATUS_COLOURS[s] for s in statuses])
    # The axis shows each full name, wrapped (labelExpr splits the wrapped copy into lines).
    lines = dict(zip(data["service"], data["name"], strict=False))
    wrapped = "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in lines.items()) + "}"
    row_px = 18 + 13 * max(v.count("\n") for v in lines.values())  # every row as tall as the tallest name
    cells = (
        alt.Chart()
        .mark_square(size=150, filled=True, strokeWidth=2)
        .encode(
            x=alt.X(
                "region:N",
                sort=list(REGIONS),
                scale=alt.Scale(domain=list(REGIONS)),
                title=None,
                axis=alt.Axis(orient="top", labelAngle=0),
            ),
            y=alt.Y(
                "service:N",
                sort=order,
                title=None,
                axis=alt.Axis(
                    labelLimit=260,
                    labelFontSize=11,
                    labelLineHeight=13,
                    labelBaseline="middle",
                    labelExpr=f"split({wrapped}[datum.value] || datum.value, '\\n')",
                ),
            ),
            color=alt.Color("status:N", scale=colours, legend=alt.Legend(title=None, orient="bottom", columns=3)),
            stroke=alt.Stroke("status:N", scale=colours),
            fillOpacity=alt.FillOpacity(
                "firm:N",
                scale=alt.Scale(domain=["stated", "inferred"], range=[1.0, 0.0]),
                legend=alt.Legend(title="link", orient="bottom"),
            ),
            tooltip=[
                alt.Tooltip("service:N"),
                alt.Tooltip("region:N"),
                alt.Tooltip("status:N"),
                alt.Tooltip("path:N", title="why"),
                alt.Tooltip("tag:N", title="weakest tag"),
            ],
        )
        .properties(width=cell_px * len(REGIONS), height=row_px * len(order))
    )
    return cells
