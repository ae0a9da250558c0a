"""What several charts share: resolution binning, bin labels, action rules, the race's action groups and styles."""

from __future__ import annotations

import math
from collections.abc import Mapping

import altair as alt
import numpy as np
import pandas as pd

from ..clock import Clock
from ..errors import ConfigError
from ._inputs import _MAX_ROWS, _seconds
from ._palette import PALETTE

__all__ = ["RACE_ACTION_GROUPS"]


#: Why an empty time series is a programming error (dwfm, network, nlb and dns_cache alike).
_SAMPLED_FROM_0 = "a model run samples its first row at time 0"


def _clock_scale(start: str, end: str) -> alt.Scale:
    """A time scale from ``start`` to ``end``, naive PDT ISO times (``"2025-10-19T23:30"``).

    The bounds go in ``domainMin``/``domainMax``, not ``domain``: an explicit temporal ``domain``
    (ISO strings or DateTime objects alike) made JupyterLab's Vega-Lite (5.6, older than Altair's)
    warn "Conflicting scale property" on every draw of a layered chart or of a bar with ``x2``.
    """

    def moment(text: str) -> alt.DateTime:
        t = pd.Timestamp(text)
        return alt.DateTime(year=t.year, month=t.month, date=t.day, hours=t.hour, minutes=t.minute)

    return alt.Scale(domainMin=moment(start), domainMax=moment(end))


def _to_resolution(
    ts: pd.DataFrame, *, sums: tuple[str, ...] = (), budget: int = _MAX_ROWS
) -> tuple[pd.DataFrame, float | None]:
    """A time series cut to the chart's resolution: at most ``budget`` rows (default :data:`_MAX_ROWS`,
    less where a chart draws several series from one frame).

    Returns ``(ts, None)`` when it fits. Otherwise ``(binned, bin_s)``: rows grouped into bins of
    ``bin_s`` (the smallest of :data:`_BIN_WIDTHS_S` that fits), each labelled by its end (a row at
    ``t`` belongs to the bin ``(b - bin_s, b]``, the last label clipped to the last row's time);
    columns in ``sums`` (counts since the previous row) are summed, every other numeric column is
    the bin's mean of its non-NaN values (NaN if it has none).
    """
    if len(ts) <= budget:
        return ts, None
    times = ts["time_s"].to_numpy(dtype="float64")
    bin_s = _bin_width_s([float(times[-1] - times[0]) + 1.0], budget - 1)
    label = np.minimum(np.ceil(times / bin_s) * bin_s, times[-1])
    cols = [c for c in ts.columns if c != "time_s" and pd.api.types.is_numeric_dtype(ts[c])]
    grouped = ts[cols].groupby(label)
    out = grouped.mean()
    if sums:
        out[list(sums)] = grouped[list(sums)].sum()
    out = out.reset_index(names="time_s")
    return out, bin_s


def _binned_note(bin_s: float | None, what: str) -> str:
    """The sentence a description gains when :func:`_to_resolution` aggregated the data."""
    if bin_s is None:
        return ""
    return (
        f" The model's samples are aggregated to the chart's resolution, {_bin_label(bin_s)} bins "
        f"(at most {_MAX_ROWS:,}): {what}."
    )


def _recovery_rules(marks: dict[str, float | None], clock: Clock) -> list[alt.Chart]:
    """Dashed vertical rules with a tooltip, one per named moment (``None`` moments are skipped).

    ``marks`` is checked here: a mapping of non-empty strings to ``None`` or a time in seconds
    (0 to a year); anything else raises ConfigError naming ``actions`` (the public argument).
    """
    if not isinstance(marks, Mapping):
        raise ConfigError(f"actions must be None or a dict of name -> seconds, got {type(marks).__name__}")
    for what, at in marks.items():
        if not isinstance(what, str) or not what.strip():
            raise ConfigError(f"actions must be named by non-empty strings, got {what!r}")
        _seconds(f"actions[{what!r}]", at, optional=True)
    rows = [(what, float(at)) for what, at in marks.items() if at is not None]
    if not rows:
        return []
    data = pd.DataFrame({"what": [w for w, _ in rows], "at": clock.wall_clock([float(a) for _, a in rows])})
    return [
        alt.Chart(data)
        .mark_rule(color=PALETTE[3], strokeDash=[5, 3], size=2)
        .encode(x=alt.X("at:T"), tooltip=[alt.Tooltip("what:N"), alt.Tooltip("at:T", format="%H:%M", title="time")])
    ]


#: Bin widths, in seconds, that a chart may aggregate a time series into (the first that fits).
_BIN_WIDTHS_S = (1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1_800, 3_600, 7_200, 14_400, 21_600, 43_200, 86_400)


def _bin_width_s(spans_s: list[float], budget: int) -> float:
    """The smallest width of :data:`_BIN_WIDTHS_S` (or whole days) that gives at most ``budget`` bins."""
    for b in _BIN_WIDTHS_S:
        if sum(math.floor(span / b) + 1 for span in spans_s) <= budget:
            return float(b)
    days = math.ceil(sum(spans_s) / budget / 86_400) + 1
    return 86_400.0 * days


def _bin_label(bin_s: float) -> str:
    """``30 s``, ``5 min``, ``2 h``: a bin width of :data:`_BIN_WIDTHS_S` in words."""
    if bin_s < 60:
        return f"{bin_s:.0f} s"
    return f"{bin_s / 60:.0f} min" if bin_s < 3_600 else f"{bin_s / 3_600:.0f} h"


#: How the race model's actions are grouped, coloured and shaped in its charts.
RACE_ACTION_GROUPS: dict[str, str] = {
    "initial_state": "initial state",
    "plan_created": "plan created",
    "check": "one-time check",
    "lock_lost": "lock lost, back off",
    "write": "write",
    "write_noop": "write",
    "stale_write": "stale write",
    "write_refused": "refused by a guard",
    "refused_empty": "refused by a guard",
    "delete_skipped": "refused by a guard",
    "alert": "refused by a guard",
    "delete": "clean-up delete",
    "delete_active": "active plan deleted / stuck",
    "inconsistent": "active plan deleted / stuck",
    "endpoint_empty": "active plan deleted / stuck",
    "self_repair": "repair",
    "manual_repair": "repair",
    "endpoint_restored": "repair",
    "read": "read (no change)",
}


#: Colour and point shape of each group of :data:`RACE_ACTION_GROUPS`, in legend order (the race's
#: sequence chart and the model checker's).
_RACE_GROUP_STYLE: dict[str, tuple[str, str]] = {
    "plan created": (PALETTE[6], "circle"),
    "one-time check": (PALETTE[0], "diamond"),
    "lock lost, back off": (PALETTE[4], "triangle-down"),
    "write": (PALETTE[2], "circle"),
    "stale write": (PALETTE[1], "square"),
    "refused by a guard": (PALETTE[0], "triangle-up"),
    "clean-up delete": (PALETTE[3], "cross"),
    "active plan deleted / stuck": (PALETTE[5], "square"),
    "repair": (PALETTE[2], "triangle-up"),
    "initial state": (PALETTE[6], "diamond"),
    "read (no change)": (PALETTE[0], "triangle-right"),
    "other action": (PALETTE[6], "cross"),
}


#: Why an empty race frame is a programming error.
_RACE_NOT_EMPTY = "a race run always records at least the DNS Planner's first plan"
