"""The incident's clocks: one per time origin, and readings that convert both ways exactly."""

from __future__ import annotations

from datetime import datetime

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from labsupport import chain, dns_cache, dwfm, network, nlb
from labsupport.clock import INCIDENT_CLOCK, NETWORK_CLOCK, YEAR_S, Clock
from labsupport.errors import ConfigError
from labsupport.race import PES_EMPTY_AT_PDT, PES_EMPTY_TO_RESTORED_S

CLOCKS = [INCIDENT_CLOCK, NETWORK_CLOCK]


def test_the_two_origins_are_the_summary_times():
    assert INCIDENT_CLOCK.origin == pd.Timestamp("2025-10-19 23:48")  # PES: regional endpoint empty
    assert NETWORK_CLOCK.origin == pd.Timestamp("2025-10-20 05:28")  # PES: DWFM leases re-established


def test_each_model_exposes_its_own_clock():
    for module in (dwfm, dns_cache, chain):
        assert module.CLOCK is INCIDENT_CLOCK
    for module in (network, nlb):
        assert module.CLOCK is NETWORK_CLOCK
    assert INCIDENT_CLOCK.origin.to_pydatetime() == PES_EMPTY_AT_PDT


def test_a_time_of_day_is_read_on_the_origins_own_day():
    assert INCIDENT_CLOCK.seconds("02:25") == -76_980.0  # 2:25 AM on 19 Oct, 21 h 23 min before
    assert INCIDENT_CLOCK.seconds("2025-10-20 02:25") == PES_EMPTY_TO_RESTORED_S == 9_420.0
    assert NETWORK_CLOCK.seconds("02:25") == -(3 * 3600 + 3 * 60)  # 20 Oct, before 5:28 AM
    assert NETWORK_CLOCK.seconds("05:28") == 0.0
    assert NETWORK_CLOCK.seconds("06:21") == 53 * 60
    assert NETWORK_CLOCK.seconds("2025-10-20 14:09") == NETWORK_CLOCK.seconds("14:09") == 8 * 3600 + 41 * 60


def test_midnight_on_either_side_of_the_incident_origin():
    assert INCIDENT_CLOCK.seconds("00:00") == -(23 * 3600 + 48 * 60)  # the start of 19 Oct
    assert INCIDENT_CLOCK.seconds("2025-10-20 00:00") == 12 * 60  # 12 minutes after 11:48 PM
    assert INCIDENT_CLOCK.reading(12 * 60) == "2025-10-20 00:00"
    assert INCIDENT_CLOCK.time_of_day(12 * 60) == "12:00 AM"
    assert INCIDENT_CLOCK.time_of_day(12 * 60 + 12 * 3600) == "12:00 PM"


def test_the_documented_forms_of_a_reading():
    c = NETWORK_CLOCK
    assert c.seconds("7:00") == c.seconds("07:00") == c.seconds(" 07:00 ") == 92 * 60
    assert c.seconds("07:00:30") == 92 * 60 + 30
    assert c.seconds("2025-10-20T07:00") == 92 * 60
    assert c.seconds("2025-10-19 23:48") == -(5 * 3600 + 40 * 60)
    assert c.seconds("2025-10-20 05:28:00.5") == 0.5


def test_a_reading_carries_its_date_and_seconds_only_when_there_are_some():
    assert INCIDENT_CLOCK.reading(0) == "2025-10-19 23:48"
    assert INCIDENT_CLOCK.reading(20_400) == "2025-10-20 05:28"
    assert INCIDENT_CLOCK.reading(-76_980) == "2025-10-19 02:25"
    assert INCIDENT_CLOCK.reading(90.4) == "2025-10-19 23:49:30"  # to the nearest second
    assert NETWORK_CLOCK.reading(-60) == "2025-10-20 05:27"


def test_time_of_day_is_the_short_form_in_whole_minutes():
    assert dwfm.CLOCK.time_of_day(20_400) == "5:28 AM"
    assert INCIDENT_CLOCK.time_of_day(-60) == "11:47 PM"  # before the origin
    assert NETWORK_CLOCK.time_of_day(29) == "5:28 AM" and NETWORK_CLOCK.time_of_day(31) == "5:29 AM"
    assert NETWORK_CLOCK.time_of_day(YEAR_S) == NETWORK_CLOCK.time_of_day(-YEAR_S) == "5:28 AM"


def test_wall_clock_gives_the_iso_strings_charts_draw():
    out = NETWORK_CLOCK.wall_clock(pd.Series([0.0, 92 * 60.0], index=[3, 4]))
    assert out.tolist() == ["2025-10-20T05:28:00", "2025-10-20T07:00:00"] and out.index.tolist() == [3, 4]
    assert INCIDENT_CLOCK.wall_clock([-60.0]).tolist() == ["2025-10-19T23:47:00"]


@pytest.mark.parametrize(
    "when",
    [
        None,
        5,
        9_420.0,
        datetime(2025, 10, 20, 2, 25),
        "",
        "  ",
        "2025-10-20 07:00+00:00",
        "07:00Z",
        "NaT",
        "2025-10-20 NaT",
        "now",
        "today",
        "24:00",
        "7",
        "2025-13-01 00:00",
        "2:25 AM",
        "half past nine",
        "25:61",
    ],
)
def test_a_bad_reading_raises_config_error_naming_it(when):
    with pytest.raises(ConfigError, match="when") as err:
        INCIDENT_CLOCK.seconds(when)
    if isinstance(when, str):
        assert repr(when) in str(err.value)


@pytest.mark.parametrize("when", ["2026-10-20 23:48", "2024-10-19 23:47", "1900-01-01 00:00"])
def test_a_reading_more_than_a_year_from_the_origin_is_refused_naming_the_range(when):
    with pytest.raises(ConfigError, match=r"when must be within a year \(31,536,000 s\)") as err:
        INCIDENT_CLOCK.seconds(when)
    assert repr(when) in str(err.value)


def test_a_year_either_side_is_the_range_of_both_directions():
    assert INCIDENT_CLOCK.seconds("2026-10-19 23:48") == YEAR_S
    assert INCIDENT_CLOCK.seconds("2024-10-19 23:48") == -YEAR_S
    assert INCIDENT_CLOCK.reading(YEAR_S) == "2026-10-19 23:48"
    assert INCIDENT_CLOCK.reading(-YEAR_S) == "2024-10-19 23:48"


@pytest.mark.parametrize(
    "time_s", [YEAR_S + 1, -YEAR_S - 1, 1e18, float("nan"), float("inf"), None, "60", True, 10**400]
)
@pytest.mark.parametrize("convert", ["reading", "time_of_day"])
def test_a_bad_time_raises_config_error_naming_time_s_and_the_range(time_s, convert):
    with pytest.raises(ConfigError, match=r"time_s must be a finite number .*31536000"):
        getattr(INCIDENT_CLOCK, convert)(time_s)


@pytest.mark.parametrize(
    "origin",
    [
        "2025-10-19 23:48",
        datetime(2025, 10, 19, 23, 48),
        pd.NaT,
        None,
        pd.Timestamp("2025-10-19 23:48", tz="US/Pacific"),
        pd.Timestamp.max,
    ],
)
def test_a_bad_origin_raises_config_error_naming_it(origin):
    with pytest.raises(ConfigError, match="origin"):
        Clock(origin)


def test_a_clock_is_frozen_and_compares_by_origin():
    assert Clock(pd.Timestamp("2025-10-19 23:48")) == INCIDENT_CLOCK != NETWORK_CLOCK
    with pytest.raises(AttributeError):
        INCIDENT_CLOCK.origin = NETWORK_CLOCK.origin  # type: ignore[misc]


# --- properties: the two conversions are inverse to each other --------------------------------------

#: Whole minutes within ten days either side of an origin: both sides of several midnights.
MINUTES = st.integers(-10 * 1440, 10 * 1440)


@given(clock=st.sampled_from(CLOCKS), minutes=MINUTES)
def test_seconds_of_the_reading_of_a_whole_minute_is_that_minute(clock, minutes):
    t = 60.0 * minutes
    assert clock.seconds(clock.reading(t)) == t


@given(clock=st.sampled_from(CLOCKS), t=st.integers(-int(YEAR_S), int(YEAR_S)))
def test_seconds_of_the_reading_of_a_whole_second_is_that_second(clock, t):
    assert clock.seconds(clock.reading(t)) == t


@given(
    clock=st.sampled_from(CLOCKS), when=st.datetimes(min_value=datetime(2025, 10, 9), max_value=datetime(2025, 10, 31))
)
def test_the_reading_of_the_seconds_of_a_reading_is_that_reading(clock, when):
    reading = f"{when:%Y-%m-%d %H:%M}" + (f":{when.second:02d}" if when.second else "")
    assert clock.reading(clock.seconds(reading)) == reading


@given(clock=st.sampled_from(CLOCKS), minutes=st.integers(0, 1439))
def test_a_time_of_day_is_on_the_origins_day_and_has_its_clock_time(clock, minutes):
    hh_mm = f"{minutes // 60:02d}:{minutes % 60:02d}"
    t = clock.seconds(hh_mm)
    assert clock.reading(t) == f"{clock.origin:%Y-%m-%d} {hh_mm}"
    assert clock.time_of_day(t) == f"{(minutes // 60) % 12 or 12}:{minutes % 60:02d} {'AM' if minutes < 720 else 'PM'}"


def test_a_shift_moves_times_onto_a_run_that_starts_later_and_back():
    from labsupport.clock import Shift

    run = Shift(start_s=20_400.0, horizon_s=37_200.0)  # a network run from 5:28 AM
    assert run.into(None) is None and run.out_of(None) is None
    assert run.into(32_100.0) == 11_700.0 and run.out_of(11_700.0) == 32_100.0
    assert run.into(9_420.0) == 0.0  # taken before the run starts: in force from its start
    assert run.into(20_400.0 + 37_200.0) == 37_200.0  # the horizon itself is in the run
    assert run.into(20_400.0 + 37_200.5) is None  # after it: never happens in the run
    with pytest.raises(ConfigError, match="start_s"):
        Shift(start_s=float("nan"), horizon_s=1.0)
    with pytest.raises(ConfigError, match="horizon_s"):
        Shift(start_s=0.0, horizon_s=-1.0)
