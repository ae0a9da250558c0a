"""Charts of the NLB health-check model (labsupport.nlb)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from ..clock import NETWORK_CLOCK, Clock
from ._common import _SAMPLED_FROM_0, _binned_note, _recovery_rules, _to_resolution
from ._inputs import _MAX_S, _clock, _frame, _number, _runs, _width
from ._palette import PALETTE, _series_range
from ._render import _base_config

__all__ = [
    "nlb_capacity_comparison_chart",
    "nlb_capacity_comparison_data",
    "nlb_timeseries_chart",
    "nlb_timeseries_data",
]


#: Demand and other fixed levels: grey and dotted, as in :func:`nlb_capacity_comparison_chart`.
_DEMAND_GREY = "#555"


#: The top panel's lines: two hues far apart (and two dashes) for the two capacities, demand grey.
_CAPACITY_COLOURS = {
    "Capacity in service": PALETTE[0],
    "Working capacity in service": PALETTE[1],
    "Demand": _DEMAND_GREY,
}


def _action_labels(actions: dict[str, float | None], clock: Clock, drawn: pd.Series) -> pd.DataFrame:
    """One text per operator action: ``at`` (PDT ISO string), ``what`` (its name), ``side``
    ("left" to write it right of its rule, "right" when the rule stands in the last third of the
    run) and ``ypx`` (its height in the panel, pixels from the top). Bad ``actions`` are refused by
    :func:`_recovery_rules` before this runs."""
    rows = [(what, float(at)) for what, at in actions.items() if at is not None]
    if not rows:
        return pd.DataFrame({"at": [], "what": [], "side": []})
    at = clock.wall_clock([a for _, a in rows])
    first, last = pd.Timestamp(drawn.iloc[0]), pd.Timestamp(drawn.iloc[-1])
    cut = first + (last - first) * 2 / 3
    side = ["right" if pd.Timestamp(t) > cut else "left" for t in at]
    # Stacked 16 px apart, from the panel's lower half up, so two labels never overlap.
    return pd.DataFrame(
        {"at": at, "what": [w for w, _ in rows], "side": side, "ypx": [120 - 16 * i for i in range(len(rows))]}
    )


def nlb_timeseries_data(timeseries: pd.DataFrame, *, clock: Clock | None = None) -> pd.DataFrame:
    """The data :func:`nlb_timeseries_chart` draws: one row per sample of an NLB run, or per bin.

    Args:
        timeseries, clock: as for :func:`nlb_timeseries_chart`.

    Returns:
        ``clock`` (str, naive PDT ISO time); "Capacity in service", "Working capacity in service"
        and "Demand" (float64, fractions of registered capacity, from ``capacity_fraction``,
        ``working_capacity_fraction`` and ``demand_fraction``); ``errors`` (float64, fraction of
        connections failing), ``flaps`` (float64, fleet flaps per minute) and ``latency``
        (float64, health-check latency in seconds). ``attrs["bin_s"]`` is the bin width in seconds
        (float), ``None`` when not binned.

    Raises:
        ConfigError: a bad ``timeseries`` or ``clock``, as :func:`nlb_timeseries_chart` says.
    """
    cols = (
        "time_s",
        "capacity_fraction",
        "working_capacity_fraction",
        "demand_fraction",
        "error_fraction",
        "check_latency_s",
        "fleet_flaps_per_min",
    )
    _frame("timeseries", timeseries, cols, numeric=cols, empty=_SAMPLED_FROM_0)
    clock = _clock(clock, NETWORK_CLOCK)
    ts, bin_s = _to_resolution(timeseries.sort_values("time_s", kind="stable"))
    names: list[str | alt.FieldName] = ["Capacity in service", "Working capacity in service", "Demand"]
    data = pd.DataFrame(
        {
            "clock": clock.wall_clock(ts["time_s"]),
            names[0]: ts["capacity_fraction"].round(4).to_numpy(),
            names[1]: ts["working_capacity_fraction"].round(4).to_numpy(),
            names[2]: ts["demand_fraction"].to_numpy(),
            "errors": ts["error_fraction"].round(4).to_numpy(),
            "flaps": ts["fleet_flaps_per_min"].round(1).to_numpy(),
            "latency": ts["check_latency_s"].round(1).to_numpy(),
        }
    )
    data.attrs["bin_s"] = bin_s
    return data


def nlb_capacity_comparison_data(runs: dict[str, pd.DataFrame], *, clock: Clock | None = None) -> pd.DataFrame:
    """The data :func:`nlb_capacity_comparison_chart` draws: one row per run and sample.

    Args:
        runs, clock: as for :func:`nlb_capacity_comparison_chart`.

    Returns:
        ``clock`` (str, naive PDT ISO time), ``run`` (str, the run's label) and ``fraction``
        (float64, ``capacity_fraction``: capacity in service, of registered capacity).

    Raises:
        ConfigError: a bad ``runs`` or ``clock``, as :func:`nlb_capacity_comparison_chart` says.
    """
    cols = ("time_s", "capacity_fraction", "demand_fraction")
    runs = _runs("runs", runs, cols, numeric=cols, empty=_SAMPLED_FROM_0)
    clock = _clock(clock, NETWORK_CLOCK)
    frames = [
        pd.DataFrame(
            {
                "clock": clock.wall_clock(ts["time_s"]),
                "run": label,
                "fraction": ts["capacity_fraction"].round(4).to_numpy(),
            }
        )
        for label, ts in runs.items()
    ]
    return pd.concat(frames, ignore_index=True)


def nlb_timeseries_chart(
    timeseries: pd.DataFrame,
    *,
    actions: dict[str, float | None] | None = None,
    threshold_s: float | None = None,
    clock: Clock | None = None,
    width: int = 560,
) -> alt.VConcatChart:
    """One NLB run: capacity vs demand, connection errors, fleet flaps, health-check latency.

    Args:
        timeseries: :attr:`labsupport.nlb.NlbResult.timeseries`.
        actions: name -> time (seconds) of moments to mark with dashed rules (e.g. failover
            disabled), ``None`` times skipped.
        threshold_s: the failover delay threshold, drawn on the latency panel; ``None`` for none.
        clock: the :class:`~labsupport.clock.Clock` that ``time_s`` counts on; default
            :data:`~labsupport.clock.NETWORK_CLOCK` (5:28 AM on 20 Oct 2025).
        width: chart width in pixels (100 to 4000).

    Returns:
        Four stacked panels sharing a PDT clock axis.

    Raises:
        ConfigError: ``timeseries`` not a DataFrame, missing a column or empty; ``actions`` not
            ``None`` or a dict of names to ``None``/seconds; ``threshold_s`` not ``None`` or a
            finite number >= 0; a bad ``clock`` or width.
    """
    _width(width)
    data = nlb_timeseries_data(timeseries, clock=clock)
    names, bin_s = [str(c) for c in data.columns[1:4]], data.attrs["bin_s"]
    threshold_s = _number("threshold_s", threshold_s, lo=0.0, hi=_MAX_S, optional=True)
    clock = _clock(clock, NETWORK_CLOCK)
    rules = _recovery_rules({} if actions is None else actions, clock)
    x_top = alt.X("clock:T", title=None, axis=alt.Axis(format="%H:%M", labels=False))
    x = alt.X("clock:T", title="20 October 2025, PDT", axis=alt.Axis(format="%H:%M"))
    when = alt.Tooltip("clock:T", format="%H:%M", title="time")
    base = alt.Chart(data)
    capacity = _capacity_lines(base, names, x_top, when)
    errors = base.mark_area(color=PALETTE[5], opacity=0.8).encode(
        x=x_top,
        y=alt.Y("errors:Q", title="Connections failing", axis=alt.Axis(format="%")),
        tooltip=[when, alt.Tooltip("errors:Q", format=".1%", title="failing")],
    )
    flaps = base.mark_line(color=PALETTE[4], strokeWidth=2).encode(
        x=x_top,
        y=alt.Y("flaps:Q", title="Fleet flaps / min"),
        tooltip=[when, alt.Tooltip("flaps:Q", format=",.0f", title="flaps per minute")],
    )
    latency = _latency_layers(base, x, when, threshold_s, width)
    labels = _action_texts(_action_labels({} if actions is None else actions, clock, data["clock"]))
    panels = [
        alt.layer(*rules, capacity, *labels).properties(width=width, height=150),
        alt.layer(*rules, errors).properties(width=width, height=90),
        alt.layer(*rules, flaps).properties(width=width, height=90),
        alt.layer(*rules, *latency).properties(width=width, height=100),
    ]
    chart = alt.vconcat(*panels).properties(
        title="One NLB through the propagation backlog",
        description=(
            "Four panels over PDT clock time. 1: capacity in service (blue, solid), working capacity "
            "in service (targets that have their network state; orange, dashed) and demand (grey, "
            "dotted), as fractions of registered capacity. 2: fraction of client connections failing. "
            "3: fleet-wide target flaps per minute. 4: health-check latency in the worst AZ, with the "
            "failover threshold dotted and labelled. Purple dashed rules, labelled in the top panel, "
            "mark operator actions." + _binned_note(bin_s, "each point is the bin's mean")
        ),
    )
    return _base_config(chart)


def _capacity_lines(base: alt.Chart, names: list[str], x: alt.X, when: alt.Tooltip) -> alt.Chart:
    """The top panel: capacity in service, working capacity and demand, as fractions of capacity."""
    folded: list[str | alt.FieldName] = [*names]
    # One colour and one dash per line, and one legend for both, so every line style is named.
    styles = alt.Scale(domain=names, range=[_CAPACITY_COLOURS[n] for n in names])
    dashes = alt.Scale(domain=names, range=[[1, 0], [6, 3], [2, 2]])
    legend = alt.Legend(title=None, orient="top", labelLimit=400, symbolStrokeWidth=2.5, symbolSize=400)
    capacity = (
        base.transform_fold(folded, as_=["what", "fraction"])
        .mark_line(strokeWidth=2)
        .encode(
            x=x,
            y=alt.Y("fraction:Q", title="Fraction of capacity", axis=alt.Axis(format="%")),
            color=alt.Color("what:N", scale=styles, legend=legend),
            strokeDash=alt.StrokeDash("what:N", scale=dashes, legend=legend),
            tooltip=[when, alt.Tooltip("what:N"), alt.Tooltip("fraction:Q", format=".0%")],
        )
    )
    return capacity


def _latency_layers(
    base: alt.Chart, x: alt.X, when: alt.Tooltip, threshold_s: float | None, width: int
) -> list[alt.Chart]:
    """The bottom panel: the worst AZ's health-check latency, and the failover threshold, labelled."""
    latency = [
        base.mark_line(color=PALETTE[6], strokeWidth=2).encode(
            x=x,
            y=alt.Y("latency:Q", title="Check latency (s)"),
            tooltip=[when, alt.Tooltip("latency:Q", format=",.0f", title="seconds")],
        )
    ]
    if threshold_s is not None:
        level = pd.DataFrame({"y": [threshold_s], "label": [f"failover threshold, {threshold_s:.0f} s"]})
        latency.append(
            alt.Chart(level)
            .mark_rule(color=_DEMAND_GREY, strokeDash=[2, 2])
            .encode(y=alt.Y("y:Q"), tooltip=[alt.Tooltip("y:Q", title="failover threshold (s)")])
        )
        latency.append(
            alt.Chart(level)
            .mark_text(align="right", baseline="bottom", dy=-3, fontSize=11, color="#333")
            .encode(x=alt.XValue(width), y=alt.Y("y:Q"), text=alt.Text("label:N"))
        )
    return latency


def _action_texts(named: pd.DataFrame) -> list[alt.Chart]:
    """Each dashed rule named where it stands, in the top panel (the legend names the lines)."""
    labels = [
        alt.Chart(named)
        .transform_filter(f"datum.side == '{side}'")
        .mark_text(align=side, dx=5 if side == "left" else -5, fontSize=11, color=PALETTE[3], fontWeight="bold")
        .encode(x=alt.X("at:T"), y=alt.Y("ypx:Q", scale=None), text=alt.Text("what:N"))
        for side in ("left", "right")
        if (named["side"] == side).any()
    ]
    return labels


def nlb_capacity_comparison_chart(
    runs: dict[str, pd.DataFrame], *, floor: float | None = None, clock: Clock | None = None, width: int = 560
) -> alt.LayerChart:
    """Capacity in service of several NLB runs on one axis, with an optional floor line.

    Args:
        runs: label -> :attr:`labsupport.nlb.NlbResult.timeseries` (columns ``time_s``,
            ``capacity_fraction``, ``demand_fraction``); at most 7 runs.
        floor: a capacity fraction to draw as a horizontal rule (e.g. the velocity control's floor).
        clock: the :class:`~labsupport.clock.Clock` that ``time_s`` counts on; default
            :data:`~labsupport.clock.NETWORK_CLOCK` (5:28 AM on 20 Oct 2025).
        width: chart width in pixels (100 to 4000).

    Returns:
        One line per run, demand dotted, the floor dashed.

    Raises:
        ConfigError: ``runs`` not a dict of 1 to 7 non-empty DataFrames with the columns, labelled
            by non-empty strings; ``floor`` not ``None`` or a fraction in [0, 1]; a bad ``clock``
            or width.
    """
    _width(width)
    data = nlb_capacity_comparison_data(runs, clock=clock)
    runs = _runs("runs", runs, ("time_s", "capacity_fraction", "demand_fraction"))
    floor = _number("floor", floor, lo=0.0, hi=1.0, optional=True)
    labels = list(runs)
    lines = (
        alt.Chart(data)
        .mark_line(strokeWidth=2)
        .encode(
            x=alt.X("clock:T", title="20 October 2025, PDT", axis=alt.Axis(format="%H:%M")),
            y=alt.Y(
                "fraction:Q", title="Capacity in service", axis=alt.Axis(format="%"), scale=alt.Scale(domain=[0, 1.05])
            ),
            color=alt.Color(
                "run:N",
                scale=alt.Scale(domain=labels, range=_series_range(labels)),
                legend=alt.Legend(title=None, orient="bottom", columns=2, labelLimit=400),
            ),
            tooltip=[
                alt.Tooltip("clock:T", format="%H:%M", title="time"),
                alt.Tooltip("run:N"),
                alt.Tooltip("fraction:Q", format=".0%"),
            ],
        )
    )
    demand = float(next(iter(runs.values()))["demand_fraction"].iloc[0])
    levels = pd.DataFrame(
        {
            "y": [demand] + ([floor] if floor is not None else []),
            "what": ["demand"] + (["floor"] if floor is not None else []),
        }
    )
    rules = (
        alt.Chart(levels)
        .mark_rule(color="#555")
        .encode(
            y=alt.Y("y:Q"),
            strokeDash=alt.StrokeDash(
                "what:N",
                scale=alt.Scale(domain=["demand", "floor"], range=[[2, 2], [6, 3]]),
                legend=alt.Legend(title=None, orient="bottom", columns=2),
            ),
            tooltip=[alt.Tooltip("what:N"), alt.Tooltip("y:Q", format=".0%")],
        )
    )
    chart = alt.layer(rules, lines).properties(
        width=width,
        height=220,
        title="Capacity in service, run by run",
        description=(
            f"One line per run ({', '.join(labels)}) of the NLB's capacity in service as a fraction "
            "of its registered capacity over PDT clock time; a dotted line marks demand"
            + (" and a dashed line the stated floor." if floor is not None else ".")
        ),
    )
    return _base_config(chart)
