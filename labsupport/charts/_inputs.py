"""Input checks every chart shares: each bad argument raises ConfigError naming it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, overload

import altair as alt
import numpy as np
import pandas as pd

from .._validate import check_int, check_number, show
from ..clock import YEAR_S, Clock
from ..errors import ConfigError
from ._palette import PALETTE
from ._render import _base_config

__all__: list[str] = []


#: Times a chart accepts, in seconds since a scenario's start: up to a year either side, the range
#: of every :class:`~labsupport.clock.Clock` conversion.
_MAX_S = YEAR_S


#: Most rows a chart's aggregated series may hold (Altair refuses more than 5,000 per dataset).
_MAX_ROWS = 3_000


#: Numeric columns a chart places every row by, so a missing value is an error, not a gap.
_NEVER_MISSING = frozenset({"time_s"})


def _frame(
    name: str, value: object, columns: tuple[str, ...] = (), *, numeric: tuple[str, ...] = (), empty: str | None = None
) -> pd.DataFrame:
    """Return ``value`` if it is a DataFrame with ``columns``; else raise ConfigError naming ``name``.

    Raises ConfigError for a non-DataFrame, a missing column, an empty frame (when ``empty`` says
    why that is wrong), a non-numeric ``numeric`` column, or an infinity (or a NaN time) in one.

    Args:
        name: the argument's name, used in every message.
        value: what the caller passed.
        columns: the columns the chart reads.
        numeric: those of ``columns`` that must have a numeric (or bool) dtype and hold no infinity
            (nor NaN, for ``time_s``: every row is placed by its time).
        empty: ``None`` if the frame may be empty; otherwise why an empty frame is an error (the
            message then reads ``"<name> is empty: <empty>"``).
    """
    if not isinstance(value, pd.DataFrame):
        raise ConfigError(f"{name} must be a pandas DataFrame, got {type(value).__name__}")
    missing = [c for c in columns if c not in value.columns]
    if missing:
        raise ConfigError(f"{name} is missing columns {missing}")
    if empty is not None and value.empty:
        raise ConfigError(f"{name} is empty: {empty}")
    twice = [c for c in columns if (value.columns == c).sum() > 1]
    if twice:
        raise ConfigError(f"{name} has columns {twice} more than once: a chart cannot tell which to draw")
    # Complex numbers count as numeric for pandas, but a chart would draw only their real part.
    wrong = [
        c for c in numeric if not pd.api.types.is_numeric_dtype(value[c]) or pd.api.types.is_complex_dtype(value[c])
    ]
    if wrong:
        raise ConfigError(f"{name} has non-numeric columns {wrong} (dtypes {[str(value[c].dtype) for c in wrong]})")
    for c in numeric:
        column = pd.to_numeric(value[c], errors="coerce").astype("float64")
        bad = np.isinf(column) | (column.isna() if c in _NEVER_MISSING else False)
        if bad.any():
            # By position: a label may occur twice (frames concatenated without ignore_index), and
            # a nullable column's missing value (pd.NA) has no float().
            at = int(np.flatnonzero(np.asarray(bad))[0])
            first = value.index[at : at + 1].tolist()[0]  # a plain int/str, not np.int64(1)
            raise ConfigError(
                f"{name}[{c!r}] must hold finite numbers{' (no NaN)' if c in _NEVER_MISSING else ''}, "
                f"got {float(column.iloc[at])!r} at index {first!r} ({int(bad.sum())} such rows): "
                f"a chart would drop those points without a word"
            )
    return value


def _runs(
    name: str, runs: object, columns: tuple[str, ...], *, numeric: tuple[str, ...] = (), empty: str | None = None
) -> dict[str, pd.DataFrame]:
    """Check a label -> frame mapping of 1 to ``len(PALETTE)`` runs, each through :func:`_frame`."""
    if not isinstance(runs, Mapping):
        raise ConfigError(f"{name} must be a dict of label -> DataFrame, got {type(runs).__name__}")
    if not 1 <= len(runs) <= len(PALETTE):
        raise ConfigError(f"{name} must hold 1 to {len(PALETTE)} frames (one colour each), got {len(runs)}")
    bad = [k for k in runs if not isinstance(k, str) or not k.strip()]
    if bad:
        raise ConfigError(f"{name} must be labelled by non-empty strings, got labels {bad!r}")
    return {
        label: _frame(f"{name}[{label!r}]", ts, columns, numeric=numeric, empty=empty) for label, ts in runs.items()
    }


@overload
def _number(
    name: str,
    value: object,
    *,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    optional: Literal[False] = False,
) -> float: ...
@overload
def _number(
    name: str, value: object, *, lo: float | None = None, hi: float | None = None, lo_open: bool = False, optional: bool
) -> float | None: ...
def _number(
    name: str,
    value: object,
    *,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    optional: bool = False,
) -> float | None:
    """``check_number`` for a chart argument; ``None`` passes through when ``optional``."""
    if optional and value is None:
        return None
    return check_number(name, value, lo=lo, hi=hi, lo_open=lo_open)


@overload
def _seconds(name: str, value: object, *, window: bool = False, optional: Literal[False] = False) -> float: ...
@overload
def _seconds(name: str, value: object, *, window: bool = False, optional: bool) -> float | None: ...
def _seconds(name: str, value: object, *, window: bool = False, optional: bool = False) -> float | None:
    """A time in seconds since the scenario's start: a moment (0 to a year) or a window edge (± a year)."""
    return _number(name, value, lo=-_MAX_S if window else 0.0, hi=_MAX_S, optional=optional)


def _clock(value: object, default: Clock) -> Clock:
    """The clock ``time_s`` counts on: ``default`` for ``None``, else a :class:`~labsupport.clock.Clock`."""
    if value is None:
        return default
    if not isinstance(value, Clock):
        raise ConfigError(
            "clock must be a labsupport.clock.Clock (such as the model's CLOCK) or None, "
            f"got {show(value)} of type {type(value).__name__}"
        )
    return value


def _width(value: object, name: str = "width") -> int:
    """A chart width in pixels: an integer from 100 to 4000."""
    return check_int(name, value, lo=100, hi=4000)


def _note_chart(
    text: str, *, title: str | list[str], description: str, width: int, height: int = 120
) -> alt.LayerChart:
    """A chart with nothing to plot: the title, one line of text saying why, a matching description."""
    note = (
        alt.Chart(pd.DataFrame({"text": [text]}))
        .mark_text(align="center", baseline="middle", fontSize=14, color="#222")
        .encode(x=alt.XValue(width / 2), y=alt.YValue(height / 2), text=alt.Text("text:N"))
    )
    return _base_config(alt.layer(note).properties(width=width, height=height, title=title, description=description))
