"""What the charts draw: which column feeds which channel, and in which unit.

A title or a row count cannot tell goodput from wasted work or seconds from minutes; these tests
read the DataFrames a chart carries and the fields its encodings name.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from labsupport import charts, dwfm, network
from labsupport.charts._render import _datasets


def _encodings(spec: dict) -> list[dict]:
    """Every ``encoding`` dict in a Vega-Lite spec, nested layers and concatenations included."""
    found = []
    if isinstance(spec, dict):
        if isinstance(spec.get("encoding"), dict):
            found.append(spec["encoding"])
        for value in spec.values():
            found += _encodings(value)
    elif isinstance(spec, list):
        for value in spec:
            found += _encodings(value)
    return found


def test_dwfm_timeseries_draws_goodput_as_goodput_and_wasted_as_wasted_per_minute():
    ts = dwfm.run(dwfm.SMALL_FLEET).timeseries
    chart = charts.dwfm_timeseries_chart(ts)
    data = next(d for d in _datasets(chart) if {"goodput", "wasted"} <= set(d.columns))
    step_min = ts["time_s"].diff().fillna(ts["time_s"]).clip(lower=1).to_numpy() / 60
    assert ts["goodput_count"].sum() != ts["wasted_count"].sum(), "the run must tell the two apart"
    np.testing.assert_allclose(data["goodput"], (ts["goodput_count"] / step_min).round(2))
    np.testing.assert_allclose(data["wasted"], (ts["wasted_count"] / step_min).round(2))
    np.testing.assert_array_equal(data["leased"], ts["leased_count"])
    np.testing.assert_array_equal(data["queue"], ts["queue_count"])
    fields = {enc["y"]["field"] for enc in _encodings(chart.to_dict()) if "field" in enc.get("y", {})}
    assert {"leased", "per_min", "queue"} <= fields


def test_network_backlog_normal_delay_rule_is_in_minutes_like_the_delay_line():
    ts = network.run(network.INCIDENT).timeseries
    chart = charts.network_backlog_chart(ts, normal_delay_s=300.0)
    frames = _datasets(chart)
    rule = next(d for d in frames if list(d.columns) == ["y"])
    assert rule["y"].tolist() == [5.0]        # 300 s drawn on the minutes axis
    delays = next(d for d in frames if "delay_min" in d.columns)
    measured = ts["mean_delay_s"].dropna()
    np.testing.assert_allclose(sorted(delays["delay_min"]), sorted((measured / 60).round(2)))
    y_fields = [enc["y"].get("field") for enc in _encodings(chart.to_dict()) if "y" in enc]
    assert "delay_min" in y_fields and "y" in y_fields


def test_network_backlog_counts_come_from_the_model_columns():
    ts = network.run(network.INCIDENT).timeseries
    data = next(d for d in _datasets(charts.network_backlog_chart(ts))
                if "Items waiting at Network Manager" in d.columns)
    np.testing.assert_array_equal(data["Items waiting at Network Manager"], ts["queue_count"])
    np.testing.assert_array_equal(data["New instances without connectivity"], ts["unconfigured_count"])
    first = network.START_PDT + pd.Timedelta(seconds=float(ts["time_s"].iloc[0]))   # 5:28 AM + t
    assert data["clock"].iloc[0] == f"{first:%Y-%m-%dT%H:%M:%S}"
