"""Charts of the DNS resolver-cache model (labsupport.dns_cache)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from ..clock import INCIDENT_CLOCK, Clock
from ..errors import ConfigError
from ._common import _SAMPLED_FROM_0, _bin_label, _bin_width_s, _recovery_rules
from ._inputs import _MAX_ROWS, _clock, _frame, _note_chart, _runs, _seconds, _width
from ._palette import PALETTE, _series_range
from ._render import _base_config

__all__ = ["dns_failing_chart", "dns_failing_data", "dns_ttl_chart", "dns_ttl_data"]


def dns_failing_data(
    runs: dict[str, pd.DataFrame], *, clock: Clock | None = None, start_s: float = 0.0
) -> pd.DataFrame:
    """The data :func:`dns_failing_chart` draws: one row per run and sample (or bin) from ``start_s`` on.

    Args:
        runs, clock, start_s: as for :func:`dns_failing_chart`.

    Returns:
        ``clock`` (str, naive PDT ISO time), ``run`` (str, the run's label), ``failing`` (float64,
        ``failing_fraction``, 0 to 1; the bin's mean when binned) and, when binned, ``lo`` and
        ``hi`` (float64, the bin's lowest and highest) and ``band`` (str, the run's colour).
        ``attrs["bin_s"]`` is the bin width in seconds (float), ``None`` when not binned. No rows
        when no run has a sample in the window.

    Raises:
        ConfigError: a bad ``runs``, ``clock`` or ``start_s``, as :func:`dns_failing_chart` says.
    """
    cols = ("time_s", "failing_fraction")
    runs = _runs("runs", runs, cols, numeric=cols, empty=_SAMPLED_FROM_0)
    start_s = _seconds("start_s", start_s, window=True)
    clock = _clock(clock, INCIDENT_CLOCK)
    windows = {
        label: ts.loc[ts["time_s"] >= start_s].sort_values("time_s", kind="stable") for label, ts in runs.items()
    }
    kept = {label: w for label, w in windows.items() if len(w)}
    bin_s = None
    if sum(len(w) for w in kept.values()) > _MAX_ROWS:
        bin_s = _bin_width_s([float(w["time_s"].iloc[-1] - w["time_s"].iloc[0]) for w in kept.values()], _MAX_ROWS)
    frames = []
    for label, w in kept.items():
        if bin_s is None:
            frames.append(
                pd.DataFrame(
                    {
                        "clock": clock.wall_clock(w["time_s"]).to_numpy(),
                        "run": label,
                        "failing": w["failing_fraction"].round(4).to_numpy(),
                    }
                )
            )
            continue
        g = w.groupby((w["time_s"] // bin_s) * bin_s)["failing_fraction"]
        mean = g.mean()
        frames.append(
            pd.DataFrame(
                {
                    "clock": clock.wall_clock(mean.index.to_series()).to_numpy(),
                    "run": label,
                    "failing": mean.round(4).to_numpy(),
                    "lo": g.min().round(4).to_numpy(),
                    "hi": g.max().round(4).to_numpy(),
                }
            )
        )
    data = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["clock", "run", "failing"])
    if bin_s is not None:
        data["band"] = data["run"].map(dict(zip(runs, PALETTE, strict=False)))
    data.attrs["bin_s"] = bin_s
    return data


def dns_ttl_data(frame: pd.DataFrame) -> pd.DataFrame:
    """The data :func:`dns_ttl_chart` draws: one row per row of ``frame``.

    Args:
        frame: as for :func:`dns_ttl_chart`.

    Returns:
        ``ttl_min`` (float64, ``negative_ttl_s`` in minutes), ``delay_min`` (float64, ``delay_s``
        in minutes; NaN where the clients did not recover) and ``series`` (str).

    Raises:
        ConfigError: a bad ``frame``, as :func:`dns_ttl_chart` says.
    """
    _frame(
        "frame",
        frame,
        ("negative_ttl_s", "delay_s", "series"),
        numeric=("negative_ttl_s", "delay_s"),
        empty="a TTL sweep has at least one point",
    )
    return pd.DataFrame(
        {
            "ttl_min": (frame["negative_ttl_s"] / 60).round(2),
            "delay_min": (frame["delay_s"] / 60).round(2),
            "series": frame["series"].astype(str),
        }
    )


def dns_failing_chart(
    runs: dict[str, pd.DataFrame],
    *,
    restored_s: float,
    clock: Clock | None = None,
    start_s: float = 0.0,
    width: int = 560,
) -> alt.LayerChart:
    """Fraction of clients failing over time, for one or more DNS-cache runs.

    Args:
        runs: label -> :attr:`labsupport.dns_cache.DnsCacheResult.timeseries` (columns
            ``time_s``, ``failing_fraction``); 1 to 7 runs, none empty.
        restored_s: when the authoritative record came back (seconds), drawn as a rule.
        clock: the :class:`~labsupport.clock.Clock` that ``time_s`` counts on; default
            :data:`~labsupport.clock.INCIDENT_CLOCK` (11:48 PM on 19 Oct 2025).
        start_s: leave out rows before this time (seconds), to zoom on the recovery.
        width: chart width in pixels (100 to 4000).

    Returns:
        One step line per run and a rule at the restore. Runs that hold more samples in the window
        than a chart draws are binned, one bin width for all runs, as "Missing values and large
        data" in :mod:`labsupport.charts` says: the line is each bin's mean, a faint band spans its
        lowest to highest value, and the y-axis title and the description give the bin width. A
        window that holds no sample of any run gives a chart that says so.

    Raises:
        ConfigError: ``runs`` not a dict of 1 to 7 non-empty DataFrames with the columns, labelled by
            non-empty strings; ``restored_s`` or ``start_s`` not a finite time (seconds, within a
            year); a bad ``clock`` or width.
    """
    _width(width)
    data = dns_failing_data(runs, clock=clock, start_s=start_s)
    restored_s = _seconds("restored_s", restored_s)
    start_s = _seconds("start_s", start_s, window=True)
    clock = _clock(clock, INCIDENT_CLOCK)
    labels, bin_s = list(runs), data.attrs["bin_s"]
    title = "Clients failing to resolve the endpoint"
    if data.empty:
        return _nothing_from(runs, start_s, clock, title, width)
    layers = [*_recovery_rules({"Authoritative record restored": restored_s}, clock), *_failing_layers(data, labels)]
    missing = [label for label in labels if label not in set(data["run"])]
    chart = alt.layer(*layers).properties(
        width=width,
        height=220,
        title=title,
        description=(
            f"Fraction of clients whose last lookup returned the empty answer, over PDT clock time, "
            f"one line per run ({', '.join(labels)}); a dashed rule marks the moment the "
            "authoritative record was restored."
            + (
                ""
                if bin_s is None
                else f" The model's samples are aggregated into {_bin_label(bin_s)} bins: each line is the bin's mean "
                "and the faint band spans its lowest to highest value."
            )
            + (f" No sample in the window for: {', '.join(missing)}." if missing else "")
        ),
    )
    return _base_config(chart)


def _nothing_from(
    runs: dict[str, pd.DataFrame], start_s: float, clock: Clock, title: str, width: int
) -> alt.LayerChart:
    """The chart when no run has a sample at or after ``start_s``: a note saying so."""
    labels = list(runs)
    last = max(float(ts["time_s"].max()) for ts in runs.values())
    at = clock.wall_clock([start_s, last]).str.slice(11, 16).tolist()
    nothing = f"No sample from {at[0]} PDT on: {'the runs end' if len(runs) > 1 else 'the run ends'} at {at[1]} PDT"
    return _note_chart(
        nothing,
        title=title,
        width=width,
        height=220,
        description=(
            f"Fraction of clients failing, one line per run ({', '.join(labels)}): no run has a sample at or "
            f"after {start_s:.0f} s (the last is at {last:.0f} s), so there is nothing to draw."
        ),
    )


def _failing_layers(data: pd.DataFrame, labels: list[str]) -> list[alt.Chart]:
    """One step line per run, under a faint min-max band per run when the samples are binned."""
    bin_s = data.attrs["bin_s"]
    binned = "" if bin_s is None else f" (mean per {_bin_label(bin_s)} bin)"
    x = alt.X("clock:T", title="19–20 October 2025, PDT", axis=alt.Axis(format="%H:%M"))
    colour = alt.Color(
        "run:N",
        scale=alt.Scale(domain=labels, range=_series_range(labels)),
        legend=alt.Legend(title=None, orient="bottom", columns=2, labelLimit=400),
    )
    tip = [
        alt.Tooltip("clock:T", format="%H:%M:%S", title="time" if bin_s is None else "bin start"),
        alt.Tooltip("run:N"),
        alt.Tooltip("failing:Q", format=".1%", title="failing" if bin_s is None else "mean failing"),
    ]
    if bin_s is not None:
        tip += [alt.Tooltip("lo:Q", format=".1%", title="lowest"), alt.Tooltip("hi:Q", format=".1%", title="highest")]
    lines = (
        alt.Chart(data)
        .mark_line(strokeWidth=2, interpolate="step-after")
        .encode(
            x=x,
            y=alt.Y(
                "failing:Q", title="Clients failing" + binned, axis=alt.Axis(format="%"), scale=alt.Scale(domain=[0, 1])
            ),
            color=colour,
            tooltip=tip,
        )
    )
    layers: list[alt.Chart] = []
    if bin_s is not None:
        layers.append(
            alt.Chart(data)
            .mark_area(opacity=0.15, interpolate="step-after")
            .encode(
                # The run's colour taken as is (no scale), so that the band adds nothing to the legend.
                x=x,
                y=alt.Y("lo:Q"),
                y2=alt.Y2("hi:Q"),
                detail=alt.Detail("run:N"),
                fill=alt.Fill("band:N", scale=None),
            )
        )
    layers.append(lines)
    return layers


def dns_ttl_chart(frame: pd.DataFrame, *, width: int = 560) -> alt.Chart:
    """Recovery delay after the restore against the negative-caching TTL.

    Args:
        frame: columns ``negative_ttl_s`` (float), ``delay_s`` (float, seconds from the restore
            until the clients recovered; NaN where they did not recover in the run) and ``series``
            (str, one line per value, at most ``len(PALETTE)`` = 7 of them).
        width: chart width in pixels (100 to 4000).

    Returns:
        One line per series, both axes in minutes.

    Raises:
        ConfigError: ``frame`` not a DataFrame, missing a column or empty; more than 7 series; a bad
            width.
    """
    _width(width)
    data = dns_ttl_data(frame)
    labels = list(dict.fromkeys(data["series"]))
    if len(labels) > len(PALETTE):
        raise ConfigError(
            f"frame holds {len(labels)} series; at most {len(PALETTE)} (one colour each) can be told "
            "apart: split it into several charts"
        )
    unrecovered = int(data["delay_min"].isna().sum())
    chart = (
        alt.Chart(data)
        .mark_line(point=True, strokeWidth=2)
        .encode(
            x=alt.X("ttl_min:Q", title="Negative-caching TTL (min)"),
            y=alt.Y("delay_min:Q", title="Restore to clients recovered (min)"),
            color=alt.Color(
                "series:N",
                scale=alt.Scale(domain=labels, range=_series_range(labels)),
                legend=alt.Legend(title=None, orient="bottom", labelLimit=500),
            ),
            tooltip=[
                alt.Tooltip("series:N"),
                alt.Tooltip("ttl_min:Q", title="negative TTL (min)"),
                alt.Tooltip("delay_min:Q", format=".1f", title="delay (min)"),
            ],
        )
        .properties(
            width=width,
            height=220,
            title="How long clients wait after the fix",
            description=(
                "Minutes from the restore of the record until the clients recovered, against "
                f"the negative-caching TTL in minutes; one line per series ({', '.join(labels)})."
                + (
                    f" {unrecovered} point(s) where the clients had not recovered by the end of the run are left out."
                    if unrecovered
                    else ""
                )
            ),
        )
    )
    return _base_config(chart)
