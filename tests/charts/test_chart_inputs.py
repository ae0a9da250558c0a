"""Chart inputs: one checker for every chart, one rule for empty data, no silent NaN, data as modelled.

What every chart of ``labsupport.charts`` promises about its arguments:

* every chart refuses a bad argument with a ``ValueError`` that names it (never ``TypeError``,
  ``AttributeError`` or ``IndexError``);
* an empty input a reader can reach (a filter, a time window, a run in which nothing fails) gives a
  chart that says so in a text mark and in its description; any other empty frame is refused;
* ``network_backlog_chart`` draws the intervals without a delay as gaps and says so;
* ``dns_failing_chart`` keeps every sample or aggregates into stated bins (no decimation);
  ``dns_ttl_chart`` refuses more series than colours; ``chain_savings_chart`` draws a stop point
  that costs time below 0 with a true label;
* every chart built with its default width fits the book's 680 px content column.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
from dataclasses import replace
from functools import cache
from typing import Any

import numpy as np
import pandas as pd
import pytest

from labsupport import chain, charts, dependencies, dns_cache, dwfm, explore, game, network, nlb, race, timeline
from labsupport._validate import check_bool, check_int, check_number
from labsupport.charts import _render

#: Width of the book's content column at the browser test's 1280 px viewport.
CONTENT_COLUMN_PX = 680


# --- model output, computed once ----------------------------------------------------------------------


@cache
def game_played() -> game.GameResult:
    return game.play(game.GameConfig(actions=game.AWS_ACTIONS[:3], clock_s=4 * 3600.0))


@cache
@functools.cache
def room() -> tuple[pd.DataFrame, pd.DataFrame]:
    nights = {"Team": game.GameConfig(actions=game.AWS_ACTIONS[:3], clock_s=game.HORIZON_S)}
    return game.room.stages(nights), game.room.compare(nights)


def race_run() -> Any:
    return race.run()


@cache
def dwfm_run() -> Any:
    return dwfm.run(dwfm.SMALL_FLEET)


@cache
def dwfm_sweep_frame() -> pd.DataFrame:
    return dwfm.phase_sweep(dwfm.SMALL_FLEET, fleet_sizes=(200, 300), outage_lengths_s=(600.0, 1_200.0))


@cache
def dwfm_grid() -> pd.DataFrame:
    return dwfm.explorer_grid(dwfm.SMALL_FLEET, fleet_sizes=(200,), step_s=600.0)


@cache
def explore_run() -> Any:
    return explore.run()


@cache
def verdicts() -> pd.DataFrame:
    return explore.verdict_table(explore.ExploreConfig(enactor_count=2, generation_count=3))


@cache
def network_run() -> Any:
    return network.run()


@cache
def nlb_run() -> Any:
    return nlb.run()


@cache
def dns_run(sample_interval_s: float = dns_cache.INCIDENT.sample_interval_s, soa_ttl_s: float | None = None) -> Any:
    cfg = replace(dns_cache.INCIDENT, sample_interval_s=sample_interval_s)
    return dns_cache.run(cfg if soa_ttl_s is None else replace(cfg, soa_ttl_s=soa_ttl_s))


@cache
def stop_point_table() -> pd.DataFrame:
    return chain.stop_point_table()


@cache
def chain_run(*points: int) -> Any:
    return chain.run(replace(chain.INCIDENT, stop_points=chain.StopPoints.of(*points)) if points else chain.INCIDENT)


def savings(saved_s: list[float]) -> pd.DataFrame:
    best = [v == max(saved_s) for v in saved_s]
    return pd.DataFrame(
        {
            "point": range(1, len(saved_s) + 1),
            "title": [f"stop point {i + 1}" for i in range(len(saved_s))],
            "saved_s": [float(v) for v in saved_s],
            "best": best,
        }
    )


def ttl_frame(series: int = 2) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "negative_ttl_s": [60.0, 900.0] * series,
            "delay_s": [70.0, 910.0] * series,
            "series": [f"s{i}" for i in range(series) for _ in range(2)],
        }
    )


def chain_table_columns() -> list[str]:
    times = [f"{s}_{e}_s" for s in ("dynamodb", "launches", "nlb") for e in ("start", "end")]
    return [*chain.STOP_POINT_NAMES, "stop_points", "total_s", *times]


#: Valid keyword arguments of every chart function, and which of them are frames (or run mappings).
VALID: dict[str, tuple[Any, ...]] = {
    "timeline_chart": (
        lambda: {"periods": timeline.impact_periods(), "events": timeline.load()},
        ("periods", "events"),
    ),
    "race_sequence_chart": (lambda: {"events": race_run().events, "start_s": 0.0, "end_s": 600.0}, ("events",)),
    "race_generation_chart": (
        lambda: {"states": race_run().endpoint_states(), "events": race_run().events, "end_s": 900.0},
        ("states", "events"),
    ),
    "race_records_chart": (
        lambda: {"states": race_run().endpoint_states(), "windows": race_run().empty_windows()},
        ("states", "windows"),
    ),
    "race_guard_explorer_chart": (
        lambda: {"data": race.guard_explorer_data(replace(race.INCIDENT, horizon_s=1_200.0), bin_s=60.0)},
        ("data",),
    ),
    "dwfm_timeseries_chart": (
        lambda: {"timeseries": dwfm_run().timeseries, "config": dwfm.SMALL_FLEET, "outage_s": (0.0, 1_800.0)},
        ("timeseries",),
    ),
    "dwfm_backoff_chart": (lambda: {"runs": {"a": dwfm_run().timeseries}}, ("runs",)),
    "dwfm_phase_chart": (lambda: {"sweep": dwfm_sweep_frame()}, ("sweep",)),
    "dwfm_explorer_chart": (lambda: {"grid": dwfm_grid()}, ("grid",)),
    "explore_sequence_chart": (lambda: {"steps": explore_run().events}, ("steps",)),
    "explore_verdict_chart": (lambda: {"table": verdicts()}, ("table",)),
    "network_backlog_chart": (lambda: {"timeseries": network_run().timeseries}, ("timeseries",)),
    "nlb_timeseries_chart": (lambda: {"timeseries": nlb_run().timeseries}, ("timeseries",)),
    "nlb_capacity_comparison_chart": (lambda: {"runs": {"a": nlb_run().timeseries}}, ("runs",)),
    "dns_failing_chart": (lambda: {"runs": {"a": dns_run().timeseries}, "restored_s": 9_420.0}, ("runs",)),
    "dns_ttl_chart": (lambda: {"frame": ttl_frame()}, ("frame",)),
    "chain_timeline_chart": (
        lambda: {"stages": chain_run().stages, "reference": chain_run().stages},
        ("stages", "reference"),
    ),
    "chain_explorer_chart": (
        lambda: {"table": pd.DataFrame({c: pd.Series(dtype=float) for c in chain_table_columns()})},
        ("table",),
    ),
    "chain_impact_chart": (lambda: {"impact": chain_run().impact}, ("impact",)),
    "chain_savings_chart": (lambda: {"savings": savings([3_600.0, 0.0])}, ("savings",)),
    "game_dashboard_chart": (lambda: {"dashboards": game_played().dashboards}, ("dashboards",)),
    "game_debrief_chart": (
        lambda: {
            "stages": game_played().chain.stages,
            "actions": game_played().actions,
            "aws_actions": game_played().actions,
        },
        ("stages", "actions", "aws_actions"),
    ),
    "game_room_chart": (lambda: {"stages": room()[0], "scores": room()[1]}, ("stages", "scores")),
    "dependency_blast_chart": (
        lambda: {
            "radius": dependencies.blast_radius("DynamoDB", "us-east-1"),
            "compare": dependencies.blast_radius("DynamoDB", "us-east-1", isolate=True),
        },
        ("radius", "compare"),
    ),
}

#: (chart, frame argument) pairs that may be empty: a reader reaches them (tested below one by one).
MAY_BE_EMPTY = {
    ("timeline_chart", "events"),
    ("race_records_chart", "windows"),
    ("chain_timeline_chart", "stages"),
    ("chain_timeline_chart", "reference"),
    ("chain_impact_chart", "impact"),
    ("game_dashboard_chart", "dashboards"),
    ("game_debrief_chart", "stages"),  # a game whose DNS was repaired at 11:48 PM has no stage
    ("game_debrief_chart", "actions"),
    ("game_debrief_chart", "aws_actions"),
}


def call(name: str, **override: Any) -> Any:
    kwargs = {**VALID[name][0](), **override}
    return getattr(charts, name)(**kwargs)


def text_marks(spec: dict) -> list[str]:
    """Every string drawn by a text mark of ``spec`` (its layers' inline or named data)."""
    found = []
    for layer in spec.get("layer", [spec]):
        mark = layer.get("mark")
        if (mark if isinstance(mark, str) else (mark or {}).get("type")) != "text":
            continue
        field = layer["encoding"]["text"]["field"]
        data = layer.get("data", spec.get("data", {}))
        rows = data.get("values") or spec.get("datasets", {}).get(data.get("name"), [])
        found += [r[field] for r in rows]
    return found


def dataset(spec: dict, column: str) -> list[dict]:
    """The one dataset of ``spec`` whose rows have ``column``."""
    sets = [rows for rows in spec["datasets"].values() if rows and column in rows[0]]
    assert len(sets) == 1, [list(r[0]) for r in spec["datasets"].values() if r]
    return sets[0]


# --- one checker, a ValueError that names the argument ------------------------------------------------


def test_every_chart_function_is_covered():
    public = {n for n in charts.__all__ if n.endswith("_chart")}
    assert public == set(VALID)


def _documented_columns(fn) -> str:
    """``fn``'s docstring, with ``x1`` .. ``x4`` spelled out and the docstring of any function whose
    columns it says it has appended."""
    doc = fn.__doc__ or ""
    for prefix, lo, hi in re.findall(r"``([a-z]+)(\d)`` \.\. ``\1(\d)``", doc):
        doc += " " + " ".join(f"``{prefix}{i}``" for i in range(int(lo), int(hi) + 1))
    for other in re.findall(r"the columns of :func:`(\w+)`", doc):
        doc += _documented_columns(getattr(charts, other))
    return doc


@pytest.mark.parametrize("name", sorted(VALID))
def test_every_chart_has_a_public_data_function_that_names_its_columns(name):
    fn = getattr(charts, name.removesuffix("_chart") + "_data")
    accepted = inspect.signature(fn).parameters
    # The explorer's valid table is empty (its columns are what the input checks need); this needs rows.
    kwargs = {"table": stop_point_table()} if name == "chain_explorer_chart" else VALID[name][0]()
    out = fn(**{k: v for k, v in kwargs.items() if k in accepted})
    doc = _documented_columns(fn)
    for frame in out if isinstance(out, tuple) else (out,):
        assert isinstance(frame, pd.DataFrame) and len(frame.columns)
        missing = [c for c in frame.columns if f"``{c}``" not in doc and f'"{c}"' not in doc]
        assert not missing, f"{fn.__name__}'s docstring does not name its columns {missing}"
    assert "Returns:" in doc and "Raises:" in doc


def test_the_data_functions_are_exported_in_order():
    data = [n for n in charts.__all__ if n.endswith("_data")]
    assert set(data) == {n.removesuffix("_chart") + "_data" for n in VALID} | {"race_sequence_wait_data"}
    for n in data:
        module = getattr(charts, n).__module__
        assert n in importlib.import_module(module).__all__, f"{module}.__all__ does not list {n}"


#: Frame arguments for which ``None`` means "none" (no reference run, no second panel).
OPTIONAL = {
    ("chain_timeline_chart", "reference"),
    ("dependency_blast_chart", "compare"),
    ("game_debrief_chart", "aws_actions"),
}


@pytest.mark.parametrize("name, arg", [(n, a) for n, (_, args) in VALID.items() for a in args])
@pytest.mark.parametrize("bad", [None, 5, "frame", [1, 2]])
def test_a_frame_argument_that_is_not_a_frame_is_named(name, arg, bad):
    if bad is None and (name, arg) in OPTIONAL:
        assert call(name, **{arg: None}).to_dict()["description"]
        return
    with pytest.raises(ValueError, match=rf"^{arg} must be a "):
        call(name, **{arg: bad})


@pytest.mark.parametrize("name, arg", [(n, a) for n, (_, args) in VALID.items() for a in args if a != "runs"])
def test_a_frame_without_its_columns_is_named(name, arg):
    with pytest.raises(ValueError, match=rf"^{arg} is missing columns"):
        call(name, **{arg: pd.DataFrame({"unrelated": [1.0]})})


def test_run_mappings_are_checked_like_frames():
    ts = nlb_run().timeseries
    with pytest.raises(ValueError, match="runs must be a dict"):
        charts.dns_failing_chart([dns_run().timeseries], restored_s=1)
    with pytest.raises(ValueError, match=re.escape("runs['a'] is empty")):
        charts.nlb_capacity_comparison_chart({"a": ts.iloc[:0]})
    with pytest.raises(ValueError, match=re.escape("runs['a'] must be a pandas DataFrame")):
        charts.nlb_capacity_comparison_chart({"a": None})
    with pytest.raises(ValueError, match="runs must hold 1 to 7"):
        charts.nlb_capacity_comparison_chart({str(i): ts for i in range(8)})
    with pytest.raises(ValueError, match="runs must hold 1 to 7"):
        charts.dwfm_backoff_chart({str(i): dwfm_run().timeseries for i in range(8)})
    with pytest.raises(ValueError, match=re.escape("runs['a'] lacks") + "|" + re.escape("backoff_count")):
        charts.dwfm_backoff_chart({"a": dwfm_run().timeseries.drop(columns=["backoff_count"])})
    ts = dwfm_run().timeseries
    for bad, message in [
        (ts.assign(queue_count=-1), r"runs\['a'\]\['queue_count'\] must hold counts >= 0"),
        (ts.assign(backoff_count=float("nan")), r"runs\['a'\]\['backoff_count'\] must hold counts >= 0"),
        (ts.assign(queue_count=True), r"runs\['a'\]\['queue_count'\] must hold counts of items"),
        (ts.assign(time_s=ts["time_s"] - 10), r"runs\['a'\]\['time_s'\] must hold distinct times from 0 to a year"),
        (ts.assign(time_s=0.0), "180 repeated"),
    ]:
        with pytest.raises(ValueError, match=message):
            charts.dwfm_backoff_chart({"a": bad})
    with pytest.raises(ValueError, match="runs must be labelled"):
        charts.dns_failing_chart({5: dns_run().timeseries}, restored_s=1)


@pytest.mark.parametrize(
    "name, kwargs, arg",
    [
        ("race_sequence_chart", {"start_s": "a", "end_s": 5}, "start_s"),
        ("race_sequence_chart", {"start_s": 0, "end_s": float("nan")}, "end_s"),
        ("race_generation_chart", {"start_s": None}, "start_s"),
        ("network_backlog_chart", {"clock": "x"}, "clock"),
        ("network_backlog_chart", {"clock": pd.Timestamp("2025-10-20 05:28")}, "clock"),
        ("network_backlog_chart", {"normal_delay_s": float("nan")}, "normal_delay_s"),
        ("network_backlog_chart", {"normal_delay_s": 0}, "normal_delay_s"),
        ("network_backlog_chart", {"width": 2.5}, "width"),
        ("dwfm_timeseries_chart", {"outage_s": (float("nan"), 5)}, "outage_s"),
        ("dwfm_timeseries_chart", {"outage_s": "ab"}, "outage_s"),
        ("dwfm_timeseries_chart", {"outage_s": (10.0, 5.0)}, "outage_s"),
        ("dwfm_timeseries_chart", {"operator_at_s": 1e300}, "operator_at_s"),
        ("dwfm_timeseries_chart", {"config": dwfm.SMALL_FLEET.__dict__}, "config"),
        ("dwfm_timeseries_chart", {"config": network.INCIDENT}, "config"),
        ("nlb_timeseries_chart", {"actions": {"x": "noon"}}, "actions"),
        ("nlb_timeseries_chart", {"actions": ["x"]}, "actions"),
        ("nlb_timeseries_chart", {"threshold_s": True}, "threshold_s"),
        ("nlb_capacity_comparison_chart", {"floor": 2.0}, "floor"),
        ("dns_failing_chart", {"restored_s": None}, "restored_s"),
        ("dns_failing_chart", {"start_s": float("inf")}, "start_s"),
        ("dns_failing_chart", {"clock": 5}, "clock"),
        ("explore_sequence_chart", {"title": 5}, "title"),
        ("race_records_chart", {"endpoint": ["regional"]}, "endpoint"),
    ],
)
def test_a_bad_number_or_option_is_named(name, kwargs, arg):
    with pytest.raises(ValueError, match=re.escape(arg)):
        call(name, **kwargs)


def test_frames_with_text_where_numbers_belong_are_named():
    ts = network_run().timeseries.assign(time_s=lambda f: f["time_s"].astype(str))
    with pytest.raises(ValueError, match=r"timeseries has non-numeric columns \['time_s'\]"):
        charts.network_backlog_chart(ts)


def _frame_args_with(column: str) -> list[tuple[str, str]]:
    """(chart, frame argument) pairs whose valid frame (every run of a mapping) has ``column``, with rows."""
    out = []
    for name, (make, args) in VALID.items():
        for arg in args:
            value = make()[arg]
            frames = list(value.values()) if isinstance(value, dict) else [value]
            if frames and all(isinstance(f, pd.DataFrame) and column in f.columns and len(f) for f in frames):
                out.append((name, arg))
    return out


@pytest.mark.parametrize("name, arg", _frame_args_with("time_s"))
@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_a_time_that_is_not_finite_is_refused_not_dropped(name, arg, bad):
    # A hand-made frame with an infinite or missing time must not draw a chart with the point
    # silently missing, nor raise pandas' own error: a ConfigError names the column.
    value = VALID[name][0]()[arg]

    def spoil(frame: pd.DataFrame) -> pd.DataFrame:
        frame = frame.copy()
        frame["time_s"] = frame["time_s"].astype("float64")
        frame.loc[frame.index[len(frame) // 2], "time_s"] = bad
        return frame

    spoiled = {k: spoil(f) for k, f in value.items()} if isinstance(value, dict) else spoil(value)
    with pytest.raises(ValueError, match=r"\['time_s'\] must hold finite numbers"):
        call(name, **{arg: spoiled})


def test_an_infinite_value_in_any_plotted_number_is_refused():
    ts = nlb_run().timeseries.copy()
    column = next(c for c in ts.columns if c != "time_s" and pd.api.types.is_float_dtype(ts[c]))
    ts.loc[ts.index[1], column] = np.inf
    with pytest.raises(ValueError, match=rf"timeseries\[{column!r}\] must hold finite numbers, got inf at index"):
        charts.nlb_timeseries_chart(ts)


def test_a_bad_number_is_named_when_the_index_repeats_or_the_column_is_nullable():
    # Two runs concatenated without ignore_index repeat index labels: the message's value lookup
    # (value.loc[label, column]) returned a Series and raised TypeError. A nullable Int64 time with
    # a missing value raised TypeError from float(pd.NA). Both are ConfigErrors naming the column.
    ts = nlb_run().timeseries
    twice = pd.concat([ts.iloc[:3], ts.iloc[:3]])
    column = next(c for c in ts.columns if c != "time_s" and pd.api.types.is_float_dtype(ts[c]))
    twice[column] = twice[column].to_numpy()
    twice.iloc[4, twice.columns.get_loc(column)] = np.inf
    with pytest.raises(ValueError, match=rf"timeseries\[{column!r}\] must hold finite numbers, got inf at index 1 "):
        charts.nlb_timeseries_chart(twice)
    nullable = ts.iloc[:3].copy()
    nullable["time_s"] = pd.array([0, None, 120], dtype="Int64")
    with pytest.raises(ValueError, match=r"timeseries\['time_s'\] must hold finite numbers \(no NaN\), got nan"):
        charts.nlb_timeseries_chart(nullable)


def test_complex_numbers_and_repeated_columns_are_refused():
    # pandas counts complex as numeric; the chart would have drawn the real part only. A column
    # present twice made value[c] a DataFrame and raised AttributeError.
    ts = nlb_run().timeseries.iloc[:3]
    column = next(c for c in ts.columns if c != "time_s" and pd.api.types.is_float_dtype(ts[c]))
    odd = ts.copy()
    odd[column] = odd[column] + 1j
    with pytest.raises(ValueError, match=rf"timeseries has non-numeric columns \[{column!r}\]"):
        charts.nlb_timeseries_chart(odd)
    with pytest.raises(ValueError, match=r"timeseries has columns \['time_s'\] more than once"):
        charts.nlb_timeseries_chart(pd.concat([ts, ts[["time_s"]]], axis=1))


# --- one rule for empty data --------------------------------------------------------------------------

PROGRAMMING_EMPTY = [(n, a) for n, (_, args) in VALID.items() for a in args if (n, a) not in MAY_BE_EMPTY]


@pytest.mark.parametrize("name, arg", PROGRAMMING_EMPTY)
def test_an_empty_frame_no_run_can_give_is_refused(name, arg):
    value = VALID[name][0]()[arg]
    empty = {k: v.iloc[:0] for k, v in value.items()} if arg == "runs" else value.iloc[:0]
    named = "runs['a']" if arg == "runs" else arg
    with pytest.raises(ValueError, match=re.escape(f"{named} is empty: ")):
        call(name, **{arg: empty})


def test_race_generation_chart_names_empty_events_not_a_nan_window():
    run = race_run()
    with pytest.raises(ValueError, match="events is empty") as info:
        charts.race_generation_chart(run.endpoint_states(), run.events.iloc[:0])
    assert "nan" not in str(info.value) and "end_s" not in str(info.value)


def test_a_window_with_no_event_says_so():
    events = race_run().events
    assert events["time_s"].max() < 20_000
    spec = charts.race_sequence_chart(events, start_s=20_000, end_s=30_000).to_dict()
    assert text_marks(spec) == ["No events between 20000 s and 30000 s"]
    assert "no events between 20000 s and 30000 s" in spec["description"]
    assert "lanes for ;" not in spec["description"] and "()" not in spec["description"]
    # One event in the window is drawn as usual.
    t = float(events["time_s"].iloc[-1])
    spec = charts.race_sequence_chart(events, start_s=t - 1e-6, end_s=t + 1).to_dict()
    assert not [s for s in text_marks(spec) if s.startswith("No events")]


def test_every_action_in_a_window_has_a_named_group():
    spec = charts.race_sequence_chart(race_run().events, start_s=0.0, end_s=1.0).to_dict()
    assert "each mark is one action (initial state)" in spec["description"]
    assert all(r["group"] for r in dataset(spec, "group"))


def test_a_filter_that_keeps_no_timeline_event_says_so():
    spec = charts.timeline_chart(timeline.impact_periods(), timeline.load().iloc[:0]).to_dict()
    assert "No timeline event matches the filter" in text_marks(spec)
    assert "no timeline event matches the filter" in spec["description"]
    spec = charts.timeline_chart(timeline.impact_periods(), timeline.load()).to_dict()
    assert not any("No timeline event" in s for s in text_marks(spec))


def test_a_zoom_past_the_last_dns_sample_says_so():
    ts = dns_run().timeseries
    spec = charts.dns_failing_chart({"a": ts}, restored_s=9_420.0, start_s=float(ts["time_s"].max()) + 60).to_dict()
    [text] = text_marks(spec)
    assert text.startswith("No sample from ") and "the run ends at" in text
    assert "nothing to draw" in spec["description"]


def test_a_run_in_which_nothing_fails_says_so_in_the_impact_chart():
    everything = chain_run(1, 2, 3, 4, 5, 6)
    assert everything.impact.empty and everything.stages.empty
    spec = charts.chain_impact_chart(everything.impact).to_dict()
    assert text_marks(spec) == ["Nothing fails: no stage happens in this run"]
    assert "Nothing fails" in spec["description"]


def test_an_endpoint_that_never_went_empty_is_described_so():
    run = race_run()
    spec = charts.race_records_chart(run.endpoint_states(), run.empty_windows().iloc[:0]).to_dict()
    assert "never answered with zero records" in spec["description"]


def test_the_rule_is_documented():
    doc = charts.__doc__
    assert "Empty data: one rule" in doc and "ValueError" in doc


# --- no NaN plotted without a word --------------------------------------------------------------------


def test_network_delay_gaps_are_drawn_and_described():
    import vl_convert

    ts = network_run().timeseries
    measured = ts["mean_delay_s"].notna()
    missing = int((~measured).sum())
    assert missing > 0  # bins with no delivery exist in the incident run
    spec = charts.network_backlog_chart(ts).to_dict()
    assert (
        f"the {missing} of {len(ts)} intervals in which no instance received its configuration" in spec["description"]
    )
    # No null reaches the chart: the delay data holds the measured intervals only, as the model gave them.
    assert not [k for rows in spec["datasets"].values() for r in rows for k, v in r.items() if v is None]
    delays = dataset(spec, "stretch")
    assert [r["delay_min"] for r in delays] == (ts.loc[measured, "mean_delay_s"] / 60).round(2).tolist()
    # Both panels share one time domain, so that the gap before the first delivery shows as one.
    top = spec["vconcat"][0]["encoding"]["x"]["scale"]
    line = spec["vconcat"][1]["layer"][0]
    assert line["encoding"]["x"]["scale"] == top and top["domain"][0] < delays[0]["clock"]
    # Rendered, the line is broken: one path per stretch of measured intervals.
    stretches = int((measured & ~measured.shift(fill_value=False)).sum())
    assert stretches > 1
    svg = vl_convert.vegalite_to_svg(spec)
    paths = re.findall(r'<path aria-label="[^"]*Launch to connectivity[^"]*"[^>]*aria-roledescription="line mark"', svg)
    assert len(paths) == stretches


def test_a_lone_measured_interval_is_drawn_as_a_dot():
    ts = network_run().timeseries.copy()
    ts.loc[ts.index[-3], "mean_delay_s"] = np.nan
    ts.loc[ts.index[-1], "mean_delay_s"] = np.nan
    spec = charts.network_backlog_chart(ts).to_dict()
    dots = spec["vconcat"][1]["layer"][1]
    assert dots["mark"]["type"] == "point"
    assert [r["delay_min"] for r in spec["datasets"][dots["data"]["name"]]] == [
        round(float(ts["mean_delay_s"].iloc[-2]) / 60, 2)
    ]


def test_a_network_run_with_no_gap_says_nothing_about_gaps():
    ts = network_run().timeseries.assign(mean_delay_s=lambda f: f["mean_delay_s"].fillna(0.0))
    assert "Gaps" not in charts.network_backlog_chart(ts).to_dict()["description"]


# --- chart data matches the model ---------------------------------------------------------------------


def test_dns_chart_keeps_every_sample_when_they_fit():
    ts = dns_run().timeseries
    assert len(ts) <= 3_000
    spec = charts.dns_failing_chart({"a": ts}, restored_s=9_420.0).to_dict()
    rows = dataset(spec, "failing")
    assert len(rows) == len(ts)
    assert [r["failing"] for r in rows] == ts["failing_fraction"].round(4).tolist()
    assert "bin" not in spec["description"]


def test_dns_chart_aggregates_fine_samples_into_stated_bins():
    fine = dns_run(1.0).timeseries
    slow = dns_run(1.0, 3_600.0).timeseries
    assert len(fine) + len(slow) > 5_000
    spec = charts.dns_failing_chart({"a": fine, "b": slow}, restored_s=9_420.0).to_dict()
    rows = pd.DataFrame(dataset(spec, "failing"))
    assert len(rows) <= 3_000
    m = re.search(r"aggregated into (\d+) s bins", spec["description"])
    assert m, spec["description"]
    bin_s = float(m.group(1))
    y_title = next(layer["encoding"]["y"]["title"] for layer in spec["layer"] if layer["mark"]["type"] == "line")
    assert y_title == f"Clients failing (mean per {bin_s:.0f} s bin)"
    # Each bin holds the mean, the lowest and the highest of the model's samples in it.
    for label, ts in (("a", fine), ("b", slow)):
        g = ts.groupby((ts["time_s"] // bin_s) * bin_s)["failing_fraction"]
        got = rows.loc[rows["run"] == label]
        assert len(got) == g.ngroups
        assert got["failing"].tolist() == g.mean().round(4).tolist()
        assert got["lo"].tolist() == g.min().round(4).tolist() and got["hi"].tolist() == g.max().round(4).tolist()
    # The peak survives aggregation (decimation could drop it).
    assert rows["hi"].max() == round(float(fine["failing_fraction"].max()), 4)


def test_dns_ttl_chart_refuses_more_series_than_colours():
    spec = charts.dns_ttl_chart(ttl_frame(len(charts.PALETTE))).to_dict()
    colours = spec["encoding"]["color"]["scale"]["range"]
    assert len(set(colours)) == len(charts.PALETTE)
    with pytest.raises(ValueError, match="8 series; at most 7"):
        charts.dns_ttl_chart(ttl_frame(len(charts.PALETTE) + 1))


def test_a_stop_point_that_costs_time_is_drawn_below_zero():
    spec = charts.chain_savings_chart(savings([3 * 3_600.0, -7_200.0, 0.0])).to_dict()
    rows = dataset(spec, "hours")
    assert [r["saved"] for r in rows] == ["3 h 00 min", "adds 2 h 00 min", "0 min"]
    assert [r["best"] for r in rows] == ["saves the most", "costs time", "saves less"]
    bars = spec["layer"][0]
    lo, hi = bars["encoding"]["x"]["scale"]["domain"]
    assert lo < -2 and hi > 3
    assert "stop point 2 adds 2 h 00 min" in spec["description"]
    # Without a negative saving the domain starts at 0, as before.
    spec = charts.chain_savings_chart(savings([3_600.0, 0.0])).to_dict()
    assert spec["layer"][0]["encoding"]["x"]["scale"]["domain"][0] == 0
    with pytest.raises(ValueError, match=r"savings\['saved_s'\] must be finite"):
        charts.chain_savings_chart(savings([3_600.0, float("nan")]))


# --- messages that say what happened ------------------------------------------------------------------


def test_check_bool_names_the_numpy_type():
    with pytest.raises(ValueError, match=r"of type numpy\.bool; convert it with bool\(\)"):
        check_bool("flag", np.bool_(True))
    assert check_bool("flag", True) is True
    with pytest.raises(ValueError, match=r"of type numpy\.float64"):
        check_int("count", np.float64(2.5))
    with pytest.raises(ValueError, match=r"got 'x' of type str"):
        check_number("x_s", "x")


# --- the content column -------------------------------------------------------------------------------


def svg_width(chart: Any) -> float:
    import vl_convert

    svg = vl_convert.vegalite_to_svg(chart.to_dict())
    return float(re.search(r'<svg[^>]*\swidth="([\d.]+)"', svg).group(1))


@pytest.mark.parametrize(
    "make",
    [
        lambda: charts.race_sequence_chart(race_run().events, start_s=20_000, end_s=30_000),
        lambda: charts.timeline_chart(timeline.impact_periods(), timeline.load().iloc[:0]),
        lambda: charts.network_backlog_chart(network_run().timeseries),
        lambda: charts.dns_failing_chart(
            {
                "negative TTL 15 min (assumed)": dns_run(1.0).timeseries,
                "negative TTL 60 min": dns_run(1.0, 3_600.0).timeseries,
            },
            restored_s=9_420.0,
        ),
        lambda: charts.dns_failing_chart({"a": dns_run().timeseries}, restored_s=9_420.0, start_s=1e6),
        lambda: charts.chain_impact_chart(chain_run(1, 2, 3, 4, 5, 6).impact),
        lambda: charts.chain_savings_chart(
            chain.single_point_savings(
                pd.DataFrame(
                    {
                        "stop_points": ["none", *map(str, range(1, 7))],
                        "total_s": [50_000.0, 60_000.0, 10_000.0, 40_000.0, 45_000.0, 20_000.0, 52_000.0],
                        "outside_region_failures_count": [3, 3, 0, 1, 2, 3, 3],
                    }
                )
            )
        ),
        lambda: charts.dns_ttl_chart(ttl_frame(len(charts.PALETTE))),
    ],
    ids=[
        "race-window-empty",
        "timeline-no-event",
        "network-gaps",
        "dns-binned",
        "dns-window-empty",
        "impact-nothing-fails",
        "savings-negative",
        "ttl-seven-series",
    ],
)
def test_changed_charts_fit_the_content_column(make):
    assert svg_width(make()) <= CONTENT_COLUMN_PX


# --- every chart draws within the row limit or refuses with ConfigError -------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from labsupport.errors import ConfigError  # noqa: E402

#: Examples of each property test below (bounded for CI: each example runs a model or two).
CHART_EXAMPLES = 40


def assert_draws_within_the_limit(chart) -> None:
    rows = [len(d) for d in _render._datasets(chart)]
    assert rows and max(rows) <= charts.ALTAIR_MAX_ROWS
    chart.to_dict()  # no MaxRowsError, no schema error


def test_dwfm_timeseries_at_10_s_reports_is_aggregated_and_says_so():
    ts = dwfm.run(replace(dwfm.INCIDENT, report_interval_s=10)).timeseries
    assert len(ts) == 5_401  # more rows than Altair draws
    chart = charts.dwfm_timeseries_chart(ts)
    assert_draws_within_the_limit(chart)
    data = _render._datasets(chart)[0]
    bin_s = float(re.search(r"resolution, (\d+) s bins", chart.description).group(1))
    assert len(data) <= 3_000 and bin_s == 20.0  # 54,000 s in at most 3,000 bins
    # Finished work is a rate over the bin: the total is kept.
    per_bin_min = bin_s / 60
    assert (data["goodput"].iloc[1:] * per_bin_min).sum() == pytest.approx(ts["goodput_count"].sum(), rel=1e-3)


@pytest.mark.parametrize("chart_name", ["nlb_timeseries_chart", "network_backlog_chart"])
def test_recovery_series_at_5_s_samples_are_aggregated(chart_name):
    if chart_name == "nlb_timeseries_chart":
        ts = nlb.run(replace(nlb.INCIDENT, sample_interval_s=5)).timeseries
    else:
        ts = network.run(replace(network.INCIDENT, sample_interval_s=5)).timeseries
    assert len(ts) == 6_504
    chart = getattr(charts, chart_name)(ts)
    assert_draws_within_the_limit(chart)
    assert "aggregated to the chart's resolution, 15 s bins" in chart.description  # 32,520 s


def test_race_generation_chart_over_a_whole_fast_run_refuses_naming_the_window():
    r = race.run(replace(race.INCIDENT, plan_interval_s=2))
    with pytest.raises(ConfigError, match=r"start_s=0 to end_s=10800 holds [\d,]+ plan steps .*narrow the window"):
        charts.race_generation_chart(r.endpoint_states(), r.events)
    assert_draws_within_the_limit(charts.race_generation_chart(r.endpoint_states(), r.events, end_s=600))


@st.composite
def resolution_configs(draw):
    """A chart and a model config at any sampling resolution the model accepts."""
    which = draw(st.sampled_from(["dwfm", "network", "nlb", "race", "dns"]))
    if which == "dwfm":
        horizon = draw(st.sampled_from([7_200.0, 54_000.0]))
        return which, replace(
            dwfm.SMALL_FLEET,
            fleet_droplets_count=300,
            horizon_s=horizon,
            outage_end_s=1_800.0,
            report_interval_s=draw(st.floats(horizon / 100_000, horizon)),
        )
    if which in ("network", "nlb"):
        net = replace(network.INCIDENT, horizon_s=draw(st.sampled_from([3_600.0, 32_520.0])))
        step = draw(st.floats(max(1.0, net.horizon_s / 20_000), net.horizon_s))
        if which == "network":
            return which, replace(net, sample_interval_s=step)
        return which, replace(
            nlb.INCIDENT, network=net, sample_interval_s=step, disable_failover_at_s=None, reenable_failover_at_s=None
        )
    if which == "race":
        return which, replace(
            race.INCIDENT,
            plan_interval_s=draw(st.floats(1.0, 120.0)),
            horizon_s=draw(st.sampled_from([1_800.0, 10_800.0])),
        )
    horizon = 13_020.0
    return which, replace(
        dns_cache.INCIDENT, clients_count=500, sample_interval_s=draw(st.floats(horizon / 20_000, horizon))
    )


def _charts_of(which: str, cfg) -> list:
    """Every public chart of that model's output, as a zero-argument callable."""
    if which == "dwfm":
        ts = dwfm.run(cfg).timeseries
        return [lambda: charts.dwfm_timeseries_chart(ts)]
    if which == "network":
        ts = network.run(cfg).timeseries
        return [lambda: charts.network_backlog_chart(ts)]
    if which == "nlb":
        ts = nlb.run(cfg).timeseries
        return [
            lambda: charts.nlb_timeseries_chart(ts),
            lambda: charts.nlb_capacity_comparison_chart({"a": ts, "b": ts}),
        ]
    if which == "race":
        r = race.run(cfg)
        st_, w = r.endpoint_states(), r.empty_windows()
        return [
            lambda: charts.race_generation_chart(st_, r.events),
            lambda: charts.race_sequence_chart(r.events, start_s=0, end_s=cfg.horizon_s),
            lambda: charts.race_records_chart(st_, w),
        ]
    ts = dns_cache.run(cfg).timeseries
    return [lambda: charts.dns_failing_chart({"a": ts, "b": ts}, restored_s=cfg.restored_s)]


@settings(max_examples=CHART_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(resolution_configs())
def test_every_chart_of_any_accepted_config_draws_within_the_limit_or_refuses(case):
    which, cfg = case
    for make in _charts_of(which, cfg):
        try:
            chart = make()
        except ConfigError as err:
            assert re.search(r"start_s|end_s|rows|window|timeseries|events", str(err)), str(err)
            continue
        assert_draws_within_the_limit(chart)
