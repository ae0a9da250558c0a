"""What the charts draw: which column feeds which channel, and in which unit.

A title or a row count cannot tell goodput from wasted work or seconds from minutes; these tests
read the DataFrames a chart carries and the fields its encodings name.
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache

import numpy as np
import pandas as pd
import pytest

from labsupport import chain, charts, dependencies, dns_cache, dwfm, explore, network, nlb, race, timeline
from labsupport.charts import dependencies as dependencies_charts
from labsupport.charts import dwfm_grids
from labsupport.charts._render import REFLOW_KEY, _datasets
from labsupport.clock import INCIDENT_CLOCK


def _nodes(spec: object):
    """Every dict in a Vega-Lite spec, depth first, each before the dicts inside it."""
    if isinstance(spec, dict):
        yield spec
        for value in spec.values():
            yield from _nodes(value)
    elif isinstance(spec, list):
        for value in spec:
            yield from _nodes(value)


def _encodings(spec: dict) -> list[dict]:
    """Every ``encoding`` dict in a Vega-Lite spec, nested layers and concatenations included."""
    # A facet's row/column is a channel too.
    return [node[key] for node in _nodes(spec) for key in ("encoding", "facet") if isinstance(node.get(key), dict)]


def _channels(chart) -> set[tuple[str, str, str]]:
    """``(channel, field, type)`` of every field-bound channel in a chart's spec."""
    out = set()
    for enc in _encodings(chart.to_dict()):
        for channel, spec in enc.items():
            for one in spec if isinstance(spec, list) else [spec]:
                one = one.get("condition", one) if isinstance(one, dict) and "field" not in one else one
                if isinstance(one, dict) and "field" in one:
                    out.add((channel, one["field"], one.get("type", "")))
    return out


def _folds(chart) -> list[list[str]]:
    """The column lists of every ``fold`` transform (a wide frame drawn as one long series)."""
    return [node["fold"] for node in _nodes(chart.to_dict()) if "fold" in node]


def _carries(chart, frame: pd.DataFrame) -> None:
    """The chart carries exactly the frame its data function prepared."""
    assert any(d.shape == frame.shape and d.equals(frame) for d in _datasets(chart)), (
        "the chart does not draw its data function's frame"
    )


@cache
def _dwfm_ts() -> pd.DataFrame:
    return dwfm.run(dwfm.SMALL_FLEET).timeseries


# --- dwfm ------------------------------------------------------------------------------------------


def test_dwfm_backoff_data_and_channels():
    ts = _dwfm_ts()
    backoff = dwfm.run(replace(dwfm.SMALL_FLEET, retry_policy="backoff_full_jitter")).timeseries
    runs = {"immediate": ts, "backoff": backoff}
    data = charts.dwfm_backoff_data(runs)
    chart = charts.dwfm_backoff_chart(runs)
    _carries(chart, data)
    assert list(data.columns) == ["clock", "run", "place", "count"] and data["count"].dtype == "float64"
    places = [label for _, label in charts.BACKOFF_PLACES]
    for label, frame in runs.items():
        for column, place in charts.BACKOFF_PLACES:
            drawn = data[(data["run"] == label) & (data["place"] == place)]
            np.testing.assert_array_equal(drawn["count"], frame[column].astype("float64"))  # the model's counts
            assert drawn["clock"].tolist() == INCIDENT_CLOCK.wall_clock(frame["time_s"]).tolist()
    assert data.loc[data["run"] == "backoff", "count"].max() > 0 and places[1] in set(data["place"])
    assert data.attrs["bin_s"] is None
    assert {
        ("x", "clock", "temporal"),
        ("y", "count", "quantitative"),
        ("color", "run", "nominal"),
        ("row", "place", "nominal"),
    } <= _channels(chart)


def test_dwfm_backoff_data_bins_long_runs_to_its_share_of_the_rows():
    ts = _dwfm_ts()
    long = pd.concat([ts.assign(time_s=ts["time_s"] + i * (ts["time_s"].max() + 60.0)) for i in range(20)])
    data = charts.dwfm_backoff_data({str(i): long for i in range(7)})
    assert len(data) <= charts.ALTAIR_MAX_ROWS and data.attrs["bin_s"] is not None
    description = charts.dwfm_backoff_chart({str(i): long for i in range(7)}).description
    assert "aggregated to the chart's resolution" in description
    # the peaks it states are the runs' own samples, not the bins' means
    peak = f"0: peak {long['queue_count'].max():,.0f} queued, {long['backoff_count'].max():,.0f} in backoff"
    assert peak in description


def test_dwfm_timeseries_data_and_channels():
    ts = _dwfm_ts()
    data = charts.dwfm_timeseries_data(ts)
    chart = charts.dwfm_timeseries_chart(ts)
    _carries(chart, data)
    np.testing.assert_array_equal(data["leased"], ts["leased_count"])
    assert {
        ("y", "leased", "quantitative"),
        ("y", "per_min", "quantitative"),
        ("y", "queue", "quantitative"),
        ("x", "clock", "temporal"),
        ("color", "kind", "nominal"),
    } <= _channels(chart)
    assert ["goodput", "wasted"] in _folds(chart)


def test_dwfm_timeseries_in_per_cent_of_the_fleet_with_its_marks_named():
    cfg = dwfm.SMALL_FLEET
    ts = _dwfm_ts()
    data = charts.dwfm_timeseries_data(ts, config=cfg)
    chart = charts.dwfm_timeseries_chart(
        ts, config=cfg, outage_s=(cfg.outage_start_s, cfg.outage_end_s), operator_at_s=3_600.0
    )
    _carries(chart, data)
    np.testing.assert_allclose(data["leased_pct"], (ts["leased_count"] / cfg.fleet_droplets_count * 100).round(1))
    assert ("y", "leased_pct", "quantitative") in _channels(chart)  # per cent, as the explorer
    assert cfg.capacity_per_min == cfg.dwfm_hosts_count * cfg.host_concurrency_count * 60 / cfg.lease_establish_s
    level = next(d for d in _datasets(chart) if list(d.columns) == ["y", "text"])
    assert level["y"].tolist() == [cfg.capacity_per_min]  # items per minute, the panel's unit
    assert level["text"].iloc[0].startswith("hosts at capacity")
    texts = {str(t) for d in _datasets(chart) if "text" in d.columns for t in d["text"]}
    assert "DynamoDB\nunreachable" in texts
    assert any(t.startswith("operators throttle and restart, ") for t in texts)
    # Without a config the panel keeps counts, and says nothing it cannot know.
    assert ("y", "leased", "quantitative") in _channels(charts.dwfm_timeseries_chart(ts))
    assert charts.dwfm_timeseries_data(ts)["leased_pct"].isna().all()


def _band_labels(chart) -> list[tuple[str, str]]:
    """(the field a text mark shows, its value) for each text mark drawn from the outage band's data."""
    spec = chart.to_dict()
    found = []
    for node in _nodes(spec):
        mark, data = node.get("mark"), node.get("data")
        rows = spec["datasets"].get(data.get("name"), []) if isinstance(data, dict) else []
        band = bool(rows) and rows[0].get("what") == "DynamoDB unreachable"
        if isinstance(mark, dict) and mark.get("type") == "text" and band:
            field = node["encoding"]["text"]["field"]
            found.append((field, rows[0][field]))
    return found


@pytest.mark.parametrize(
    ("minutes", "operator_at_s", "labels"),
    [
        (165, None, [("text", "DynamoDB\nunreachable")]),  # the incident's outage: two lines inside the band
        (60, None, [("what", "DynamoDB unreachable")]),  # too narrow for them: one line, upright
        # The x axis spans the rule too: a rule far after the run makes the same band narrow.
        (165, 40 * 3_600.0, [("what", "DynamoDB unreachable")]),
        (0, None, []),  # no outage: no band, nothing said of one
    ],
)
def test_dwfm_timeseries_names_the_outage_band_where_its_label_fits(minutes, operator_at_s, labels):
    cfg = replace(dwfm.SMALL_FLEET, outage_end_s=60.0 * minutes)
    ts = _dwfm_ts()
    chart = charts.dwfm_timeseries_chart(
        ts, config=cfg, outage_s=(cfg.outage_start_s, cfg.outage_end_s), operator_at_s=operator_at_s
    )
    assert _band_labels(chart) == labels
    spec = chart.to_dict()
    assert ('"DynamoDB unreachable"' in json.dumps(spec)) == bool(minutes)
    assert ("grey band" in spec["description"]) == bool(minutes)


def test_dwfm_phase_data_and_channels():
    sweep = dwfm.phase_sweep(dwfm.SMALL_FLEET, fleet_sizes=(200, 300), outage_lengths_s=(600.0, 1_200.0))
    data = charts.dwfm_phase_data(sweep)
    chart = charts.dwfm_phase_chart(sweep)
    _carries(chart, data)
    rec = sweep["recovery_after_outage_s"]
    ok = sweep["recovered"].to_numpy()
    np.testing.assert_allclose(data["minutes"][ok], (rec[ok] / 60).round(1))  # minutes, as the cells' labels
    assert data["minutes"][~ok].isna().all()  # a stuck cell is not "fast"
    assert (data["state"][~ok] == dwfm_grids._STUCK).all() and (data["state"][ok] == "").all()
    np.testing.assert_array_equal(data["fleet"], sweep["fleet_droplets_count"])
    assert set(data["guard"]) <= set(dwfm_grids._PHASE_PANELS)  # panels named in words
    assert {
        ("x", "fleet", "ordinal"),
        ("y", "outage", "ordinal"),
        ("color", "minutes", "quantitative"),
        ("opacity", "state", "nominal"),
        ("text", "label", "nominal"),
    } <= _channels(chart)
    spec = chart.to_dict()
    assert "throttle_by_queue_length" not in json.dumps(spec["spec"]) + json.dumps(spec["facet"])
    # The legend's unit is the labels' unit, and "stuck" has its own legend entry.
    colour = next(e["color"] for e in _encodings(spec) if e.get("color", {}).get("field") == "minutes")
    assert "Minutes" in " ".join(colour["title"])
    stuck = next(e["opacity"] for e in _encodings(spec) if e.get("opacity", {}).get("field") == "state")
    assert stuck["scale"]["domain"] == [dwfm_grids._STUCK]
    assert stuck["legend"]["symbolFillColor"] == charts.PALETTE[1]


def test_dwfm_explorer_data_and_channels():
    grid = dwfm.explorer_grid(dwfm.SMALL_FLEET, fleet_sizes=(200,), step_s=600.0)
    data = charts.dwfm_explorer_data(grid)
    chart = charts.dwfm_explorer_chart(grid)
    _carries(chart, data)
    np.testing.assert_allclose(data["leased_pct"], (grid["leased_fraction"] * 100).round(1))  # per cent
    np.testing.assert_allclose(data["goodput"], grid["goodput_per_min"].round(2))
    np.testing.assert_allclose(data["wasted"], grid["wasted_per_min"].round(2))
    assert {
        ("y", "leased_pct", "quantitative"),
        ("y", "per_min", "quantitative"),
        ("x", "clock", "temporal"),
    } <= _channels(chart)
    assert ["goodput", "wasted"] in _folds(chart)

    assert REFLOW_KEY in chart.to_dict()["usermeta"]  # takes its width from the page in the book


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
    assert rule["y"].tolist() == [5.0]  # 300 s drawn on the minutes axis
    delays = next(d for d in frames if "delay_min" in d.columns)
    measured = ts["mean_delay_s"].dropna()
    np.testing.assert_allclose(sorted(delays["delay_min"]), sorted((measured / 60).round(2)))
    y_fields = [enc["y"].get("field") for enc in _encodings(chart.to_dict()) if "y" in enc]
    assert "delay_min" in y_fields and "y" in y_fields


def test_network_backlog_counts_come_from_the_model_columns():
    ts = network.run(network.INCIDENT).timeseries
    data = next(
        d for d in _datasets(charts.network_backlog_chart(ts)) if "Items waiting at Network Manager" in d.columns
    )
    np.testing.assert_array_equal(data["Items waiting at Network Manager"], ts["queue_count"])
    np.testing.assert_array_equal(data["New instances without connectivity"], ts["unconfigured_count"])
    first = network.CLOCK.origin + pd.Timedelta(seconds=float(ts["time_s"].iloc[0]))  # 5:28 AM + t
    assert data["clock"].iloc[0] == f"{first:%Y-%m-%dT%H:%M:%S}"


# --- network and nlb -------------------------------------------------------------------------------


def test_network_backlog_data_and_channels():
    ts = network.run(network.INCIDENT).timeseries
    counts, delays = charts.network_backlog_data(ts)
    chart = charts.network_backlog_chart(ts)
    _carries(chart, counts)
    _carries(chart, delays)
    measured = ts["mean_delay_s"].notna().to_numpy()
    np.testing.assert_allclose(delays["delay_min"], (ts["mean_delay_s"][measured] / 60).round(2))  # minutes
    np.testing.assert_array_equal(counts["Items waiting at Network Manager"], ts["queue_count"])
    assert {
        ("y", "count", "quantitative"),
        ("color", "what", "nominal"),
        ("y", "delay_min", "quantitative"),
        ("detail", "stretch", "nominal"),
        ("x", "clock", "temporal"),
    } <= _channels(chart)
    assert ["Items waiting at Network Manager", "New instances without connectivity"] in _folds(chart)


@cache
def _nlb_ts() -> pd.DataFrame:
    return nlb.run().timeseries


def test_nlb_timeseries_data_and_channels():
    ts = _nlb_ts()
    data = charts.nlb_timeseries_data(ts)
    chart = charts.nlb_timeseries_chart(ts, threshold_s=5.0)
    _carries(chart, data)
    np.testing.assert_allclose(data["Capacity in service"], ts["capacity_fraction"].round(4))
    np.testing.assert_allclose(data["Working capacity in service"], ts["working_capacity_fraction"].round(4))
    np.testing.assert_allclose(data["errors"], ts["error_fraction"].round(4))
    np.testing.assert_allclose(data["flaps"], ts["fleet_flaps_per_min"].round(1))
    np.testing.assert_allclose(data["latency"], ts["check_latency_s"].round(1))  # seconds
    assert {
        ("y", "fraction", "quantitative"),
        ("y", "errors", "quantitative"),
        ("y", "flaps", "quantitative"),
        ("y", "latency", "quantitative"),
        ("color", "what", "nominal"),
        ("y", "y", "quantitative"),
    } <= _channels(chart)
    rule = next(d for d in _datasets(chart) if list(d.columns) == ["y", "label"])
    assert rule["y"].tolist() == [5.0]  # the threshold on the seconds axis
    assert rule["label"].tolist() == ["failover threshold, 5 s"]  # labelled in the axis's unit


def test_nlb_timeseries_names_every_line_and_rule():
    ts = _nlb_ts()
    chart = charts.nlb_timeseries_chart(ts, actions={"Failover disabled": 3_600.0, "Failover re-enabled": 30_000.0})
    colours = charts.legend_colours(chart.to_dict())
    names = ["Capacity in service", "Working capacity in service", "Demand"]
    assert len({colours[n] for n in names}) == 3  # three lines, three colours
    enc = [e for e in _encodings(chart.to_dict()) if e.get("strokeDash", {}).get("field") == "what"]
    assert enc and enc[0]["strokeDash"].get("legend") is not None  # the dashes are in the legend
    labels = next(d for d in _datasets(chart) if "side" in d.columns)
    assert labels["what"].tolist() == ["Failover disabled", "Failover re-enabled"]
    assert labels["side"].tolist() == ["left", "right"] and labels["ypx"].is_unique
    assert ["Capacity in service", "Working capacity in service", "Demand"] in _folds(chart)


def test_nlb_comparison_data_and_channels():
    ts = _nlb_ts()
    runs = {"a": ts, "b": ts.assign(capacity_fraction=ts["capacity_fraction"] / 2)}
    data = charts.nlb_capacity_comparison_data(runs)
    chart = charts.nlb_capacity_comparison_chart(runs, floor=0.5)
    _carries(chart, data)
    np.testing.assert_allclose(data.loc[data["run"] == "b", "fraction"], (ts["capacity_fraction"] / 2).round(4))
    assert {
        ("y", "fraction", "quantitative"),
        ("color", "run", "nominal"),
        ("x", "clock", "temporal"),
        ("y", "y", "quantitative"),
        ("strokeDash", "what", "nominal"),
    } <= _channels(chart)


# --- dns_cache -------------------------------------------------------------------------------------


@cache
def _dns_ts() -> pd.DataFrame:
    return dns_cache.run(dns_cache.INCIDENT).timeseries


def test_dns_failing_data_and_channels():
    ts = _dns_ts()
    data = charts.dns_failing_data({"a": ts})
    chart = charts.dns_failing_chart({"a": ts}, restored_s=9_420.0)
    _carries(chart, data)
    if data.attrs["bin_s"] is None:
        np.testing.assert_allclose(data["failing"], ts["failing_fraction"].round(4))
    else:
        assert data["failing"].between(data["lo"], data["hi"]).all()
    assert data["failing"].between(0, 1).all()  # a fraction, drawn on a % axis
    assert {("y", "failing", "quantitative"), ("color", "run", "nominal"), ("x", "clock", "temporal")} <= _channels(
        chart
    )
    late = charts.dns_failing_data({"a": ts}, start_s=float(ts["time_s"].max()) + 1)
    note = charts.dns_failing_chart({"a": ts}, restored_s=9_420.0, start_s=float(ts["time_s"].max()) + 1)
    assert late.empty and _datasets(note)[0]["text"].iloc[0].startswith("No sample")


def test_dns_ttl_data_and_channels():
    frame = pd.DataFrame({"negative_ttl_s": [60.0, 900.0], "delay_s": [70.0, np.nan], "series": ["s", "s"]})
    data = charts.dns_ttl_data(frame)
    chart = charts.dns_ttl_chart(frame)
    _carries(chart, data)
    assert data["ttl_min"].tolist() == [1.0, 15.0]  # minutes, not seconds
    assert data["delay_min"].iloc[0] == round(70 / 60, 2) and np.isnan(data["delay_min"].iloc[1])
    assert {
        ("x", "ttl_min", "quantitative"),
        ("y", "delay_min", "quantitative"),
        ("color", "series", "nominal"),
    } <= _channels(chart)


# --- race ------------------------------------------------------------------------------------------


@cache
def _race() -> race.RaceResult:
    return race.run(race.INCIDENT)


def test_race_sequence_data_and_channels():
    ev = _race().events
    data = charts.race_sequence_data(ev, start_s=0.0, end_s=600.0)
    chart = charts.race_sequence_chart(ev, start_s=0.0, end_s=600.0)
    _carries(chart, data)
    inside = ev.loc[ev["time_s"].between(0.0, 600.0)]
    np.testing.assert_allclose(data["time_s"], inside["time_s"].round(2))  # seconds, as the axis says
    assert data["group"].tolist() == inside["action"].astype(str).map(charts.RACE_ACTION_GROUPS).tolist()
    assert {
        ("x", "time_s", "quantitative"),
        ("y", "actor", "nominal"),
        ("color", "group", "nominal"),
        ("shape", "group", "nominal"),
    } <= _channels(chart)
    assert charts.race_sequence_data(ev, start_s=-20.0, end_s=-10.0).empty


def test_race_sequence_labels_the_check_the_stale_write_and_the_deletion():
    ev = _race().events
    stale = ev.loc[ev["action"] == "stale_write"].iloc[0]
    deleted = ev.loc[(ev["action"] == "delete_active") & (ev["time_s"] >= stale["time_s"])].iloc[0]
    check = ev.loc[
        (ev["action"] == "check") & (ev["actor"] == stale["actor"]) & (ev["generation"] == stale["generation"])
    ].iloc[-1]
    t0, t1 = float(check["time_s"]) - 5, float(deleted["time_s"]) + 25
    data = charts.race_sequence_data(ev, start_s=t0, end_s=t1)
    chart = charts.race_sequence_chart(ev, start_s=t0, end_s=t1)
    _carries(chart, data)
    steps = data.loc[data["step"] != ""].set_index("step")
    assert list(steps.index) == [
        "1 one-time check",
        "2 stale write",
        "3 clean-up deletes the active plan",
        "then: endpoint empty",
    ]
    assert steps.loc["1 one-time check", "time_s"] == round(float(check["time_s"]), 2)
    assert steps.loc["1 one-time check", "actor"] == steps.loc["2 stale write", "actor"] == stale["actor"]
    assert steps.loc["3 clean-up deletes the active plan", "actor"] == deleted["actor"]
    # The labels give the times the chapter's prose gives (unrounded, to one decimal).
    assert (
        steps.loc["1 one-time check", "short"]
        == f"1 one-time check of plan {int(check['generation'])}, {float(check['time_s']):.1f} s"
    )
    assert steps.loc["2 stale write", "label"].startswith(f"2 stale write: plan {int(stale['generation'])} over plan ")
    assert (data.loc[data["step"] == "", ["short", "label"]] == "").all().all()
    # The wait band counts the writer's lock losses on the endpoint between check and write.
    lost = ev.loc[
        (ev["action"] == "lock_lost")
        & (ev["actor"] == stale["actor"])
        & (ev["endpoint"] == stale["endpoint"])
        & ev["time_s"].between(check["time_s"], stale["time_s"])
    ]
    wait = charts.race_sequence_wait_data(data)
    _carries(chart, wait)
    assert wait["label"].iloc[0].startswith(f"waits {stale['time_s'] - check['time_s']:.0f} s: {len(lost)} lock losses")
    # Two panels: the whole window, and a zoom whose domain holds the stale write and the deletion.
    spec = chart.to_dict()
    assert len(spec["vconcat"]) == 2
    zoom_title = spec["vconcat"][1]["title"]
    assert zoom_title.startswith(f"Zoom on {float(stale['time_s']) - 2.5:.1f}-{float(deleted['time_s']) + 2.5:.1f} s")


def test_race_generation_data_and_channels():
    res = _race()
    states = res.endpoint_states()
    data = charts.race_generation_data(states, res.events, end_s=900.0)
    chart = charts.race_generation_chart(states, res.events, end_s=900.0)
    _carries(chart, data)
    writes = data.loc[data["kind"] != "line"]
    stale = res.events.loc[(res.events["action"] == "stale_write") & (res.events["time_s"] <= 900.0)]
    np.testing.assert_allclose(
        sorted(writes.loc[writes["kind"] == "stale write", "time_min"]), sorted(stale["time_s"] / 60)
    )  # minutes
    assert set(data.loc[data["kind"] == "line", "series"]) == {"served by the endpoint", "newest plan"}
    assert {
        ("x", "time_min", "quantitative"),
        ("y", "generation", "quantitative"),
        ("color", "series", "nominal"),
        ("shape", "kind", "nominal"),
        ("row", "endpoint", "nominal"),
    } <= _channels(chart)


def test_race_records_data_and_channels():
    res = _race()
    line, bands = charts.race_records_data(res.endpoint_states(), res.empty_windows())
    chart = charts.race_records_chart(res.endpoint_states(), res.empty_windows())
    _carries(chart, line)
    _carries(chart, bands)
    regional = res.empty_windows().query("endpoint == 'regional'")
    np.testing.assert_allclose(bands["start"], regional["start_s"] / 60)  # minutes
    np.testing.assert_allclose(bands["end"], regional["end_s"] / 60)
    last_state = res.endpoint_states().query("endpoint == 'regional'")["time_s"].max()
    assert line["records"].min() == 0
    assert line["time_min"].max() == max(last_state, regional["end_s"].max()) / 60
    assert {
        ("x", "time_min", "quantitative"),
        ("y", "records", "quantitative"),
        ("x", "start", "quantitative"),
        ("x2", "end", ""),
        ("text", "label", "nominal"),
    } <= _channels(chart)


def test_race_guard_explorer_data_and_channels():
    table = race.guard_explorer_data(replace(race.INCIDENT, horizon_s=1_200.0), bin_s=60.0)
    series, labels = charts.race_guard_explorer_data(table)
    chart = charts.race_guard_explorer_chart(table)
    _carries(chart, series)
    _carries(chart, labels)
    np.testing.assert_allclose(series["t"], table["time_min"].round(3))
    np.testing.assert_array_equal(series["r"], table["records"])
    assert len(labels) == 16 and set(series.columns) == {"g1", "g2", "g3", "g4", "t", "r"}
    assert {("x", "t", "quantitative"), ("y", "r", "quantitative"), ("text", "label", "nominal")} <= _channels(chart)
    _reflows_and_wraps(chart, labels, "label")


def _reflows_and_wraps(chart, totals: pd.DataFrame, column: str) -> None:
    """An in-page explorer takes its width from the page, and its state line wraps on a narrow plot."""

    spec = chart.to_dict()
    assert REFLOW_KEY in spec.get("usermeta", {})
    for text, lines, px in zip(totals[column], totals[f"{column}_lines"], totals[f"{column}_px"], strict=True):
        assert lines.replace("\n", " ") == text and px > 6 * len(text)
        assert max(len(line) for line in lines.split("\n")) <= 40
    tests = [c for enc in _encodings(spec) for c in [enc.get("text", {}).get("condition", {})] if c]
    assert tests == [{"test": f"width < datum['{column}_px']", "value": {"expr": f"datum['{column}_lines']"}}]


# --- explore and timeline --------------------------------------------------------------------------


def test_explore_sequence_data_and_channels():
    steps = explore.run().events
    data = charts.explore_sequence_data(steps)
    chart = charts.explore_sequence_chart(steps)
    _carries(chart, data)
    own = data.iloc[: len(steps)]
    np.testing.assert_array_equal(own["step"], steps["step"])  # the order, not seconds
    assert own["plan"].tolist() == [f"p{g}" if g else "" for g in steps["plan_generation"]]
    went_empty = int((steps["empty_after"] & ~steps["empty_after"].shift(fill_value=False)).sum())
    assert (data["actor"] == "route53").sum() == went_empty > 0
    assert {
        ("x", "step", "quantitative"),
        ("y", "actor", "nominal"),
        ("color", "group", "nominal"),
        ("text", "plan", "nominal"),
    } <= _channels(chart)


def test_explore_verdict_data_and_channels():
    table = explore.verdict_table(explore.ExploreConfig(enactor_count=2, generation_count=3))
    data = charts.explore_verdict_data(table)
    chart = charts.explore_verdict_chart(table)
    _carries(chart, data)
    assert len(data) == 4 * len(table)
    safe = data.loc[data["key"] == "safe"].set_index("guards")
    for _, row in table.iterrows():
        assert safe.at[row["guards"], "answer"] == ("yes" if row["safe"] else "no")
        assert safe.at[row["guards"], "meaning"] == ("good" if row["safe"] else "bad")
    assert {
        ("x", "property", "nominal"),
        ("y", "guards", "nominal"),
        ("color", "meaning", "nominal"),
        ("text", "answer", "nominal"),
    } <= _channels(chart)


def test_timeline_data_and_channels():
    periods, events = timeline.impact_periods(), timeline.load()
    bars, marks = charts.timeline_data(periods, events)
    chart = charts.timeline_chart(periods, events)
    _carries(chart, bars)
    _carries(chart, marks)
    assert bars["start"].tolist() == periods["start_pdt"].dt.strftime("%Y-%m-%dT%H:%M:%S").tolist()  # PDT
    assert marks["time"].tolist() == events["time_pdt"].dt.strftime("%Y-%m-%dT%H:%M:%S").tolist()
    assert {
        ("x", "start", "temporal"),
        ("x2", "end", ""),
        ("color", "period", "nominal"),
        ("x", "time", "temporal"),
        ("y", "lane", "nominal"),
    } <= _channels(chart)


# --- chain and dependencies ------------------------------------------------------------------------


@cache
def _stop_point_table() -> pd.DataFrame:
    return chain.stop_point_table()


def test_chain_timeline_data_and_channels():
    mine = chain.run(replace(chain.INCIDENT, stop_points=chain.StopPoints.of(5))).stages
    ref = chain.run(chain.INCIDENT).stages
    data = charts.chain_timeline_data(mine, reference=ref)
    chart = charts.chain_timeline_chart(mine, reference=ref)
    _carries(chart, data)
    incident = data.loc[data["run"] == "Incident (no stop points)"]
    assert incident["start"].tolist() == INCIDENT_CLOCK.wall_clock(ref["start_s"]).tolist()  # PDT clock
    assert incident["end"].tolist() == INCIDENT_CLOCK.wall_clock(ref["end_s"]).tolist()
    assert {
        ("x", "start", "temporal"),
        ("x2", "end", ""),
        ("y", "stage", "nominal"),
        ("yOffset", "run", "nominal"),
        ("color", "stage", "nominal"),
        ("opacity", "run", "nominal"),
    } <= _channels(chart)


def test_chain_explorer_data_and_channels():
    table = _stop_point_table()
    bars, totals = charts.chain_explorer_data(table)
    chart = charts.chain_explorer_chart(table)
    _carries(chart, bars)
    _carries(chart, totals)
    none = table.loc[table["stop_points"] == "none"].iloc[0]
    nlb_bar = bars.loc[(bars["run"] == "Incident (no stop points)") & (bars["stage"] == "NLB connection errors")]
    assert nlb_bar["start"].tolist() == INCIDENT_CLOCK.wall_clock([none["nlb_start_s"]]).tolist()
    assert nlb_bar["end"].tolist() == INCIDENT_CLOCK.wall_clock([none["nlb_end_s"]]).tolist()
    assert len(totals) == 64 and {"s1", "s6", "text"} <= set(totals.columns)
    assert {("x", "start", "temporal"), ("y", "stage", "nominal"), ("text", "text", "nominal")} <= _channels(chart)
    _reflows_and_wraps(chart, totals, "text")


def test_chain_impact_data_and_channels():
    impact = chain.run(chain.INCIDENT).impact
    data = charts.chain_impact_data(impact)
    chart = charts.chain_impact_chart(impact)
    _carries(chart, data)
    np.testing.assert_allclose(data["share"], impact["impact_fraction"].round(4))
    assert data["start"].tolist() == INCIDENT_CLOCK.wall_clock(impact["time_s"]).tolist()
    assert {("x", "start", "temporal"), ("y", "share", "quantitative"), ("color", "stage", "nominal")} <= _channels(
        chart
    )


def test_chain_savings_data_and_channels():
    savings = chain.single_point_savings(_stop_point_table())
    data = charts.chain_savings_data(savings)
    chart = charts.chain_savings_chart(savings)
    _carries(chart, data)
    np.testing.assert_allclose(data["hours"], (savings["saved_s"] / 3600).round(2))  # hours, not seconds
    assert (data["best"] == "saves the most").sum() == int(savings["best"].sum())
    assert {
        ("x", "hours", "quantitative"),
        ("y", "name", "nominal"),
        ("color", "best", "nominal"),
        ("text", "saved", "nominal"),
    } <= _channels(chart)


def test_dependency_blast_data_and_channels():
    radius = dependencies.blast_radius("DynamoDB", "us-east-1")
    isolated = dependencies.blast_radius("DynamoDB", "us-east-1", isolate=True)
    data = charts.dependency_blast_data(radius, compare=isolated)
    chart = charts.dependency_blast_chart(radius, compare=isolated)
    _carries(chart, data)
    first = data.loc[data["scenario"] == "As it was"]
    assert first["status"].tolist() == radius["status"].astype(str).tolist()
    assert first["region"].tolist() == radius["region"].astype(str).tolist()
    assert {
        ("x", "region", "nominal"),
        ("y", "service", "nominal"),
        ("color", "status", "nominal"),
        ("fillOpacity", "firm", "nominal"),
        ("column", "scenario", "nominal"),
    } <= _channels(chart)
    # Every name is shown whole: wrapped at spaces into short lines, never cut.
    assert (data["name"].str.replace("\n", " ") == data["service"]).all()
    assert max(len(line) for n in data["name"] for line in n.split("\n")) <= dependencies_charts._LINE_CHARS
    assert "Console sign-in (root or federated via signin.aws.amazon.com)" in set(data["service"])
    # The failing service itself and the services that fail with it have clearly different colours.
    colours = charts.legend_colours(chart.to_dict())
    assert colours["origin"] == charts.PALETTE[6] and colours["fails"] == charts.PALETTE[1]


def test_dwfm_timeseries_capacity_below_one_a_minute_is_not_labelled_zero():
    # 1 host, 1 slot, 600 s to establish a lease: 0.1 items a minute, a level drawn above zero that
    # must not be named "0 items a minute".
    cfg = replace(dwfm.SMALL_FLEET, dwfm_hosts_count=1, host_concurrency_count=1, lease_establish_s=600.0)
    assert cfg.capacity_per_min == 0.1
    chart = charts.dwfm_timeseries_chart(_dwfm_ts(), config=cfg)
    level = next(d for d in _datasets(chart) if list(d.columns) == ["y", "text"])
    assert level["text"].iloc[0] == "hosts at capacity: 0.1 items a minute"
    assert "capacity, 0.1 items a minute" in chart.to_dict()["description"]
    many = replace(dwfm.SMALL_FLEET, dwfm_hosts_count=1, host_concurrency_count=6_172, lease_establish_s=300.0)
    assert many.capacity_per_min == pytest.approx(1234.4)
    big = charts.dwfm_timeseries_chart(_dwfm_ts(), config=many)
    assert "hosts at capacity: 1,234 items a minute" in json.dumps(big.to_dict())
