"""The DWFM backoff chart: where the droplets' work waits, run by run (labsupport.dwfm)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from ..clock import INCIDENT_CLOCK
from ..errors import ConfigError
from ._common import _SAMPLED_FROM_0, _binned_note, _to_resolution
from ._inputs import _MAX_ROWS, _MAX_S, _runs, _width
from ._palette import _series_range
from ._render import _base_config

__all__ = ["BACKOFF_PLACES", "dwfm_backoff_chart", "dwfm_backoff_data"]

#: The two places a droplet's work waits, in the chart's order: (timeseries column, label).
BACKOFF_PLACES: tuple[tuple[str, str], ...] = (
    ("queue_count", "In the hosts' queues (all hosts together)"),
    ("backoff_count", "Waiting out a backoff (all droplets together)"),
)
_COLUMNS = ("time_s", *(c for c, _ in BACKOFF_PLACES))


def dwfm_backoff_data(runs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The data :func:`dwfm_backoff_chart` draws: one row per run, place and sample (or bin).

    Args:
        runs: as for :func:`dwfm_backoff_chart`.

    Returns:
        ``clock`` (str, naive PDT ISO time; the DWFM clock, 0 s at 11:48 PM on 19 October), ``run``
        (str, the run's label), ``place`` (str, a label of :data:`BACKOFF_PLACES`) and ``count``
        (float64, items: the sample's count, or the bin's mean when binned). ``attrs["bin_s"]`` is
        the widest bin used, in seconds (float), ``None`` when no run was binned.

    Raises:
        ConfigError: a bad ``runs``, as :func:`dwfm_backoff_chart` says.
    """
    checked = _runs("runs", runs, _COLUMNS, numeric=_COLUMNS, empty=_SAMPLED_FROM_0)
    for label, ts in checked.items():
        times = ts["time_s"].astype("float64")
        if ((times < 0) | (times > _MAX_S)).any() or times.duplicated().any():
            raise ConfigError(
                f"runs[{label!r}]['time_s'] must hold distinct times from 0 to a year ({_MAX_S:,.0f} s), as a "
                f"model run samples them; got {times.min():g} to {times.max():g} s, "
                f"{int(times.duplicated().sum())} repeated"
            )
        for column, _ in BACKOFF_PLACES:
            if pd.api.types.is_bool_dtype(ts[column]):
                raise ConfigError(f"runs[{label!r}][{column!r}] must hold counts of items, got booleans")
            counts = ts[column].astype("float64")
            if counts.isna().any() or (counts < 0).any():
                raise ConfigError(
                    f"runs[{label!r}][{column!r}] must hold counts >= 0 in every row (a run's items), got "
                    f"{int(counts.isna().sum())} missing and a minimum of {counts.min():g}"
                )
    budget = _MAX_ROWS // (len(checked) * len(BACKOFF_PLACES))
    frames, widest = [], None
    for label, ts in checked.items():
        cut, bin_s = _to_resolution(ts.sort_values("time_s", kind="stable")[list(_COLUMNS)], budget=budget)
        widest = bin_s if widest is None or (bin_s is not None and bin_s > widest) else widest
        for column, place in BACKOFF_PLACES:
            frames.append(
                pd.DataFrame(
                    {
                        "clock": INCIDENT_CLOCK.wall_clock(cut["time_s"]),
                        "run": label,
                        "place": place,
                        "count": cut[column].astype("float64").to_numpy(),
                    }
                )
            )
    data = pd.concat(frames, ignore_index=True)
    data.attrs["bin_s"] = widest
    return data


def dwfm_backoff_chart(runs: dict[str, pd.DataFrame], *, width: int = 560) -> alt.FacetChart:
    """Where the droplets' work waits, in a host's queue or out of it in backoff, for several DWFM runs.

    Follows the post-event summary's DWFM paragraphs: work queued faster than the hosts could
    finish it within its deadline. Backoff (the model's ``retry_policy="backoff_full_jitter"``)
    moves retries out of the queues into waiting; the chart shows how many are in each place.

    Args:
        runs: label -> :attr:`labsupport.dwfm.DwfmResult.timeseries` (columns ``time_s``,
            ``queue_count``, ``backoff_count``); 1 to 7 runs, labelled by non-empty strings.
        width: chart width in pixels (100 to 4000).

    Returns:
        Two panels on one PDT clock axis, one per place of :data:`BACKOFF_PLACES` (each with its
        own y axis, items), one line per run.

    Raises:
        ConfigError: ``runs`` not a dict of 1 to 7 non-empty DataFrames with those columns, labelled by
            non-empty strings; a time outside 0 to a year, or repeated; a count that is missing,
            negative or boolean; a bad width.
    """
    _width(width)
    data = dwfm_backoff_data(runs)
    labels = list(dict.fromkeys(data["run"]))
    places = [label for _, label in BACKOFF_PLACES]
    # The peaks from the runs' own samples, not the bins' means (which would understate them).
    peaks = {(label, place): float(ts[column].max()) for label, ts in runs.items() for column, place in BACKOFF_PLACES}
    peak_text = "; ".join(
        f"{run}: peak {peaks[(run, places[0])]:,.0f} queued, {peaks[(run, places[1])]:,.0f} in backoff"
        for run in labels
    )
    chart = (
        alt.Chart(data)
        .mark_line(strokeWidth=2, interpolate="step-after")
        .encode(
            x=alt.X("clock:T", title="19–20 October 2025, PDT", axis=alt.Axis(format="%H:%M")),
            y=alt.Y("count:Q", title="Items"),
            color=alt.Color(
                "run:N",
                scale=alt.Scale(domain=labels, range=_series_range(labels)),
                legend=alt.Legend(title=None, orient="bottom", columns=1, labelLimit=500),
            ),
            tooltip=[
                alt.Tooltip("clock:T", format="%H:%M", title="time"),
                alt.Tooltip("run:N"),
                alt.Tooltip("place:N"),
                alt.Tooltip("count:Q", format=",.0f", title="items"),
            ],
        )
        .properties(width=width, height=150)
        .facet(
            row=alt.Row(
                "place:N",
                sort=places,
                title=None,
                header=alt.Header(
                    labelAngle=0,
                    labelAlign="left",
                    labelAnchor="start",
                    labelOrient="top",
                    labelFontSize=12,
                    labelLimit=500,
                ),
            )
        )
        .resolve_scale(y="independent")
        .properties(
            title="Where DWFM's work waits: in a queue, or out of it in backoff",
            description=(
                "Two line charts on a PDT clock axis, one line per run of the DWFM model: above, the "
                "items waiting in the hosts' queues, summed over the fleet; below, the items waiting out a "
                f"backoff before they ask again. {peak_text}."
                + _binned_note(data.attrs["bin_s"], "each line is the bin's mean count")
            ),
        )
    )
    return _base_config(chart)
