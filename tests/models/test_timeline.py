"""The timeline data and its durations, checked against the summary's own figures (facts.md §6)."""

from __future__ import annotations

import pandas as pd
import pytest

from labsupport import charts, timeline


def test_columns_and_dtypes():
    tl = timeline.load()
    assert list(tl.columns) == [
        "id",
        "time_pdt",
        "time_utc",
        "end_pdt",
        "end_utc",
        "service",
        "event",
        "impact_period",
        "source",
        "tag",
        "unverified",
        "note",
    ]
    assert str(tl["time_pdt"].dt.tz) == "America/Los_Angeles"
    assert str(tl["time_utc"].dt.tz) == "UTC"
    assert tl["unverified"].dtype == bool
    assert tl["id"].is_unique
    assert tl["time_pdt"].is_monotonic_increasing


def test_pdt_is_utc_minus_seven():
    tl = timeline.load()
    race = tl.set_index("id").loc["ddb-race"]
    assert race["time_pdt"].strftime("%Y-%m-%d %H:%M") == "2025-10-19 23:48"
    assert race["time_utc"].strftime("%Y-%m-%d %H:%M") == "2025-10-20 06:48"  # TALK: 06:48 UTC
    offsets = (tl["time_utc"].dt.tz_localize(None) - tl["time_pdt"].dt.tz_localize(None)).unique()
    assert list(offsets) == [pd.Timedelta(hours=7)]


def test_every_summary_time_is_there():
    times = set(timeline.load()["time_pdt"].dt.strftime("%m-%d %H:%M"))
    pes = [
        "10-19 23:48",
        "10-20 00:38",
        "10-20 01:15",
        "10-20 02:25",
        "10-20 02:40",
        "10-20 04:14",
        "10-20 05:28",
        "10-20 05:30",
        "10-20 06:21",
        "10-20 06:52",
        "10-20 09:36",
        "10-20 10:36",
        "10-20 11:23",
        "10-20 13:50",
        "10-20 14:09",
        "10-20 14:20",
        "10-21 04:05",
    ]
    assert not set(pes) - times


@pytest.mark.parametrize(
    "name, text",
    [
        ("whole_event", "14 h 32 min"),
        ("dynamodb_errors", "2 h 52 min"),
        ("cause_identified", "50 min"),
        ("dns_empty", "2 h 37 min"),
        ("ec2_after_dns", "11 h 25 min"),
        ("launch_failures", "8 h 11 min"),
        ("dwfm_to_intervention", "1 h 49 min"),
        ("dwfm_all_leases", "3 h 03 min"),
        ("network_latency", "4 h 15 min"),
        ("nlb_period", "8 h 39 min"),
        ("nlb_detect_to_failover_off", "2 h 44 min"),
        ("dashboard_whole_event", "15 h 12 min"),
    ],
)
def test_durations_match_the_fact_sheet(name, text):
    assert timeline.durations().at[name, "text"] == text


def test_durations_never_rest_on_unverified_rows():
    assert "UNVERIFIED" not in set(timeline.durations()["weakest_tag"])


def test_unverified_rows_are_marked_and_can_be_dropped():
    tl = timeline.load()
    assert (tl["unverified"] == (tl["tag"] == "UNVERIFIED")).all()
    assert tl["unverified"].any()
    assert not timeline.load(include_unverified=False)["unverified"].any()


def test_impact_periods_are_the_summary_three():
    p = timeline.impact_periods()
    assert p["period"].tolist() == ["DynamoDB API errors", "NLB connection errors", "EC2 launch failures"]
    assert p["text"].tolist() == ["2 h 52 min", "8 h 39 min", "8 h 11 min"]


def test_filter_by_service():
    rows = timeline.load(services=["NLB"])
    assert set(rows["service"]) == {"NLB"} and len(rows) >= 5
    assert set(timeline.load(services="NLB")["id"]) == set(rows["id"])


@pytest.mark.parametrize("bad", [["Dynamo"], ["DynamoDB", "nope"], "EC3"])
def test_unknown_service_lists_valid_ones(bad):
    with pytest.raises(ValueError, match=r"valid values are .*DynamoDB"):
        timeline.load(services=bad)


def test_unknown_tag_and_bad_flag():
    with pytest.raises(ValueError, match="tags"):
        timeline.load(tags=["verified"])
    with pytest.raises(ValueError, match="include_unverified"):
        timeline.load(include_unverified="no")


@pytest.mark.parametrize(
    "value, text",
    [
        (0, "0 min"),
        (59 * 60, "59 min"),
        (3600, "1 h 00 min"),
        (14 * 3600 + 32 * 60, "14 h 32 min"),
        (pd.Timedelta(minutes=183), "3 h 03 min"),
        (89.9, "1 min"),
    ],
)
def test_format_duration(value, text):
    assert timeline.format_duration(value) == text


@pytest.mark.parametrize("bad", [-1, float("nan"), float("inf"), "2h", True, pd.NaT])
def test_format_duration_rejects_bad_input(bad):
    with pytest.raises(ValueError, match="duration"):
        timeline.format_duration(bad)


def test_chart_draws_periods_and_events():
    tl = timeline.load(services=["DynamoDB"])
    spec = charts.timeline_chart(timeline.impact_periods(), tl).to_dict()
    bars, marks = spec["layer"]
    assert spec["description"] and spec["title"]
    datasets = spec["datasets"]
    assert len(datasets[bars["data"]["name"]]) == 3
    assert len(datasets[marks["data"]["name"]]) == len(tl)


def test_chart_rejects_missing_columns():
    with pytest.raises(ValueError, match="missing columns"):
        charts.timeline_chart(timeline.impact_periods(), pd.DataFrame({"x": [1]}))


# --- regression: bad arguments are named, numpy durations are durations ---------------------------


@pytest.mark.parametrize(
    "arg, bad",
    [
        ("services", 5),
        ("services", 3.5),
        ("tags", b"AWS"),
        ("tags", bytearray(b"OTHER")),
        ("services", {"DynamoDB": 1}),
    ],
)
def test_names_that_are_not_names_are_refused_by_argument(arg, bad):
    with pytest.raises(ValueError, match=rf"^{arg} must be a name or a list of names") as info:
        timeline.load(**{arg: bad})
    assert "[65, 87, 83]" not in str(info.value)  # bytes are not iterated into numbers


def test_numpy_bool_flag_is_refused_with_a_true_message():
    import numpy as np

    with pytest.raises(ValueError, match=r"include_unverified .* of type numpy\.bool; convert it with bool\(\)"):
        timeline.load(include_unverified=np.bool_(True))
    assert len(timeline.load(include_unverified=bool(np.bool_(False)))) == len(timeline.load(include_unverified=False))


def test_format_duration_accepts_numpy_timedelta64():
    import numpy as np

    assert timeline.format_duration(np.timedelta64(183, "m")) == "3 h 03 min"
    assert timeline.format_duration(np.timedelta64(5, "s")) == "0 min"
    assert timeline.format_duration(np.timedelta64(90, "s")) == timeline.format_duration(90.0)
    for bad in (np.timedelta64("NaT"), np.timedelta64(-5, "s"), np.timedelta64(10**18, "D")):
        with pytest.raises(ValueError, match="duration"):
            timeline.format_duration(bad)


# --- a row's tag covers the row's words ----------------------------------------------------------


@pytest.mark.parametrize(
    "row_id, clause",
    [
        ("ec2-launch-period", "re-establishing leases"),  # fact sheet §1.2, 2:25 AM: [AWS-paraphrase]
        ("ec2-propagation-normal", "propagation is back to normal"),  # §3: [AWS-paraphrase]
        ("event-end", "ECS, EKS and Fargate"),  # §1.2, 2:20 PM: [AWS-paraphrase] (MD)
    ],
)
def test_a_verbatim_row_keeps_a_paraphrased_clause_in_its_note(row_id, clause):
    # An AWS-verbatim row states only what quotations of the summary confirm (here the
    # introduction's impact periods and end time); the clause the fact sheet has only as a
    # paraphrase moves to the note, tagged there.
    row = timeline.load().set_index("id").loc[row_id]
    assert row["tag"] == "AWS-verbatim"
    assert clause not in row["event"]
    assert clause in row["note"] and "[AWS-paraphrase]" in row["note"]


def test_the_dashboards_224_is_read_one_way():
    # The Dashboard's 2:24 AM ends its window of increased error rates and latencies, its time for
    # the DNS fix (fact sheet §1.4 and §7); it is set beside the summary's 2:25 AM DNS restore, not
    # read as the end of DynamoDB's error period (2:40 AM).
    rows = timeline.load().set_index("id")
    dash, restored = rows.loc["dash-ddb-end"], rows.loc["ddb-dns-restored"]
    assert dash["time_pdt"].strftime("%H:%M") == "02:24" and dash["tag"] == "OTHER"
    assert "DNS fix" in dash["event"] and "DynamoDB error window" not in dash["event"]
    assert "2:25 AM" in dash["note"]
    assert "2:24 AM" in restored["note"] and "DNS fix" in restored["note"]
