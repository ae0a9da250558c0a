"""The incident's clocks: one per time origin, and readings that convert both ways exactly."""

from __future__ import annotations

import importlib
from datetime import datetime

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from labsupport import chain, clock, dns_cache, dwfm, game, network, nlb
from labsupport._models import MODELS
from labsupport.clock import INCIDENT_CLOCK, NETWORK_CLOCK, NIGHT_START, YEAR_S, Clock
from labsupport.errors import ConfigError
from labsupport.race import PES_EMPTY_AT_PDT, PES_EMPTY_TO_RESTORED_S

CLOCKS = [INCIDENT_CLOCK, NETWORK_CLOCK]


def test_the_two_origins_are_the_summary_times():
    assert INCIDENT_CLOCK.origin == pd.Timestamp("2025-10-19 23:48")  # PES: regional endpoint empty
    assert NETWORK_CLOCK.origin == pd.Timestamp("2025-10-20 05:28")  # PES: DWFM leases re-established


@pytest.mark.parametrize("entry", MODELS, ids=lambda m: m.name)
def test_each_model_exposes_the_clock_its_registry_entry_names(entry):
    module = importlib.import_module(entry.module)
    if entry.clock is None:
        assert not hasattr(module, "CLOCK")  # times count from an origin of its own
    else:
        assert module.CLOCK is getattr(clock, entry.clock)


def test_the_clocks_of_the_models():
    assert {m.name for m in MODELS if m.clock == "INCIDENT_CLOCK"} == {"dwfm", "dns_cache", "chain", "game"}
    assert {m.name for m in MODELS if m.clock == "NETWORK_CLOCK"} == {"network", "nlb"}
    assert INCIDENT_CLOCK.origin.to_pydatetime() == PES_EMPTY_AT_PDT


def test_a_time_of_day_is_read_on_the_incidents_night():
    assert INCIDENT_CLOCK.seconds("2:25 AM") == INCIDENT_CLOCK.seconds("02:25") == 9_420.0  # 20 Oct, not 19 Oct
    assert INCIDENT_CLOCK.seconds("2025-10-20 02:25") == PES_EMPTY_TO_RESTORED_S == 9_420.0
    assert INCIDENT_CLOCK.time_of_day(9_420) == "2:25 AM"  # and it reads back
    assert INCIDENT_CLOCK.seconds("10:48 PM") == -3_600.0  # the night begins an hour before 11:48 PM
    assert INCIDENT_CLOCK.seconds("10:47:59 PM") == 86_400.0 - 3_601.0  # ... and ends a day later
    assert NETWORK_CLOCK.seconds("02:25") == -(3 * 3600 + 3 * 60)  # 20 Oct, before 5:28 AM
    assert NETWORK_CLOCK.seconds("05:28") == 0.0
    assert NETWORK_CLOCK.seconds("06:21") == 53 * 60
    assert NETWORK_CLOCK.seconds("2025-10-20 14:09") == NETWORK_CLOCK.seconds("14:09") == 8 * 3600 + 41 * 60


def test_the_two_clocks_share_the_night():
    assert INCIDENT_CLOCK.day_start == NETWORK_CLOCK.day_start == NIGHT_START == pd.Timestamp("2025-10-19 22:48")
    assert NETWORK_CLOCK.seconds("11:48 PM") == -(5 * 3600 + 40 * 60)  # 19 Oct, before 5:28 AM
    whole_event_s = NETWORK_CLOCK.seconds("2:20 PM") - NETWORK_CLOCK.seconds("11:48 PM")
    assert whole_event_s == 14 * 3600 + 32 * 60  # PES: 14 h 32 min
    assert Clock(pd.Timestamp("2025-10-20 05:28")).day_start == pd.Timestamp("2025-10-20 04:28")  # default: an hour


def test_midnight_on_either_side_of_the_incident_origin():
    assert INCIDENT_CLOCK.seconds("00:00") == INCIDENT_CLOCK.seconds("12:00 AM") == 12 * 60  # the start of 20 Oct
    assert INCIDENT_CLOCK.seconds("2025-10-19 00:00") == -(23 * 3600 + 48 * 60)  # the start of 19 Oct, dated
    assert INCIDENT_CLOCK.seconds("2025-10-20 00:00") == 12 * 60  # 12 minutes after 11:48 PM
    assert INCIDENT_CLOCK.reading(12 * 60) == "2025-10-20 00:00"
    assert INCIDENT_CLOCK.time_of_day(12 * 60) == "12:00 AM"
    assert INCIDENT_CLOCK.time_of_day(12 * 60 + 12 * 3600) == "12:00 PM"


def test_the_documented_forms_of_a_reading():
    c = NETWORK_CLOCK
    assert c.seconds("7:00") == c.seconds("07:00") == c.seconds(" 07:00 ") == 92 * 60
    assert c.seconds("7:00 AM") == c.seconds("7:00am") == c.seconds("07:00 am") == 92 * 60
    assert c.seconds("07:00:30") == c.seconds("7:00:30 AM") == 92 * 60 + 30
    assert c.seconds("12:00 PM") == c.seconds("12:00") == 6 * 3600 + 32 * 60
    assert c.seconds("2025-10-20T07:00") == 92 * 60
    assert c.seconds("2025-10-19 23:48") == -(5 * 3600 + 40 * 60)
    assert c.seconds("2025-10-20 05:28:00.5") == 0.5


def test_a_reading_carries_its_date_and_seconds_only_when_there_are_some():
    assert INCIDENT_CLOCK.reading(0) == "2025-10-19 23:48"
    assert INCIDENT_CLOCK.reading(20_400) == "2025-10-20 05:28"
    assert INCIDENT_CLOCK.reading(-76_980) == "2025-10-19 02:25"
    assert INCIDENT_CLOCK.reading(90.4) == "2025-10-19 23:49:30"  # to the nearest second
    assert NETWORK_CLOCK.reading(-60) == "2025-10-20 05:27"


def test_time_of_day_is_the_short_form_to_the_second():
    assert dwfm.CLOCK.time_of_day(20_400) == "5:28 AM"
    assert INCIDENT_CLOCK.time_of_day(-60) == "11:47 PM"  # before the origin
    assert NETWORK_CLOCK.time_of_day(29) == "5:28:29 AM" and NETWORK_CLOCK.time_of_day(30.4) == "5:28:30 AM"
    assert NETWORK_CLOCK.time_of_day(59.6) == "5:29 AM"  # to the nearest second
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
        "13:00 PM",
        "0:30 AM",
        "2:25 XM",
        "2:25 AMM",
        "2025-10-20 2:25 AM",
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


@pytest.mark.parametrize(
    "day_start",
    [
        "2025-10-19 22:48",
        pd.NaT,
        pd.Timestamp("2025-10-19 22:48", tz="US/Pacific"),
        pd.Timestamp("2025-10-19 23:48:01"),  # after the origin
        pd.Timestamp("2025-10-18 23:48"),  # a whole day before it
    ],
)
def test_a_bad_day_start_raises_config_error_naming_it(day_start):
    with pytest.raises(ConfigError, match="day_start"):
        Clock(pd.Timestamp("2025-10-19 23:48"), day_start=day_start)


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
def test_a_time_of_day_names_the_first_such_moment_from_the_day_start(clock, minutes):
    hh_mm = f"{minutes // 60:02d}:{minutes % 60:02d}"
    t = clock.seconds(hh_mm)
    at = clock.origin + pd.Timedelta(seconds=t)
    assert clock.day_start <= at < clock.day_start + pd.Timedelta(days=1) and f"{at:%H:%M}" == hh_mm
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


# --- the clock reads what it prints: every whole second of the incident's night ----------------------


def _night(clock: Clock) -> range:
    """Every whole second (on ``clock``) from an hour before 11:48 PM to the end of the longest horizon."""
    before = int((INCIDENT_CLOCK.origin - clock.origin).total_seconds())
    return range(before - 3_600, before + int(LONGEST_HORIZON_S) + 1)


#: The end of the longest horizon of the models' presets, in seconds after 11:48 PM (the chain and
#: the game: 16 h, to 3:48 PM on 20 Oct).
LONGEST_HORIZON_S = max(
    chain.OperatorActions().horizon_s,
    game.HORIZON_S,
    dwfm.INCIDENT.horizon_s,
    dns_cache.INCIDENT.horizon_s,
    (NETWORK_CLOCK.origin - INCIDENT_CLOCK.origin).total_seconds() + network.INCIDENT.horizon_s,
    (NETWORK_CLOCK.origin - INCIDENT_CLOCK.origin).total_seconds() + nlb.INCIDENT.network.horizon_s,
)


@given(data=st.data(), clock=st.sampled_from(CLOCKS))
def test_seconds_of_the_time_of_day_of_a_whole_second_of_the_night_is_that_second(data, clock):
    night = _night(clock)
    t = data.draw(st.integers(night.start, night.stop - 1))
    assert clock.seconds(clock.time_of_day(t)) == t


@pytest.mark.parametrize("clock", CLOCKS, ids=["INCIDENT_CLOCK", "NETWORK_CLOCK"])
def test_every_whole_second_of_the_night_reads_back(clock):
    """Exhaustive: 61,201 seconds a clock, about half a second each."""
    night = _night(clock)
    assert LONGEST_HORIZON_S == 16 * 3600 and len(night) == 61_201
    wrong = [t for t in night if clock.seconds(clock.time_of_day(t)) != t]
    assert wrong == [], f"{len(wrong)} seconds do not read back, the first {wrong[:3]}"
