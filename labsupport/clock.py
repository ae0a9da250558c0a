"""The incident's clocks: one per time origin, each with its wall-clock conversions; sampling grids.

Every model counts time in seconds from one of two origins (naive PDT timestamps), each a
:class:`Clock`::

    INCIDENT_CLOCK  11:48 PM, 19 Oct 2025  regional endpoint empty      race, dwfm, dns_cache, chain
    NETWORK_CLOCK    5:28 AM, 20 Oct 2025  DWFM leases re-established   network, nlb

Each model module exposes its clock as ``CLOCK``: ``network.CLOCK.seconds("10:00")`` is 16,320 s,
``dwfm.CLOCK.time_of_day(20_400)`` is ``"5:28 AM"``, and ``dwfm.CLOCK.seconds("5:28 AM")`` reads it
back. Both clocks read a time of day without a date on the same night, from :data:`NIGHT_START`
(10:48 PM on 19 Oct, an hour before the incident began) to 10:48 PM on 20 Oct.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
import pandas as pd

from ._validate import check_number, show
from .errors import ConfigError

__all__ = ["Clock", "INCIDENT_CLOCK", "NETWORK_CLOCK", "NIGHT_START", "Shift", "YEAR_S", "sample_times"]

#: The longest time (s) either side of a clock's origin that a conversion accepts.
YEAR_S = 365 * 86_400.0

_DAY = timedelta(days=1)
#: ``"7:05"``, ``"07:05:30"`` (24-hour) or ``"7:05 AM"``, ``"12:05:30 pm"`` (12-hour).
_TIME = re.compile(r"(?P<h>\d{1,2}):(?P<m>\d{2})(?::(?P<s>\d{2}))?(?:\s?(?P<ampm>[AaPp][Mm]))?")
_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?")


@dataclass(frozen=True)
class Clock:
    """Seconds since ``origin`` <-> PDT wall-clock readings.

    Attributes:
        origin: the naive PDT ``pandas.Timestamp`` of ``time_s = 0``, with a year either side
            within pandas' dates.
        day_start: the first moment a time of day without a date can name (naive PDT ``Timestamp``,
            within a day before ``origin`` or at it); ``None`` (the default) is an hour before
            ``origin``. The course's two clocks share :data:`NIGHT_START`.

    **A time of day without a date names the first such moment at or after** ``day_start``, so on
    both of the course's clocks ``"2:25 AM"`` and ``"02:25"`` are 2:25 AM on 20 Oct (9,420 s on
    :data:`INCIDENT_CLOCK`). :meth:`time_of_day` prints that short form (``"5:28 AM"``,
    ``"5:28:30 AM"`` when there are seconds), and ``seconds(time_of_day(t)) == t`` for every whole
    second ``t`` of the day from ``day_start``. :meth:`reading` prints a dated form
    (``"2025-10-20 05:28"``), and ``seconds(reading(t)) == t`` for every whole second ``t`` within a
    year of the origin, before it (negative) or after it. :meth:`wall_clock` is the vectorised form
    charts draw.

    Raises:
        ConfigError: ``origin`` or ``day_start`` is not a naive ``pandas.Timestamp`` (a string, ``NaT``,
            one with a time zone), ``origin`` is less than a year from the ends of pandas' dates, or
            ``day_start`` is after ``origin`` or more than a day before it.
    """

    origin: pd.Timestamp
    day_start: pd.Timestamp | None = None

    def __post_init__(self) -> None:
        origin = _naive("origin", self.origin)
        try:
            origin - pd.Timedelta(seconds=YEAR_S), origin + pd.Timedelta(seconds=YEAR_S)
        except (OverflowError, ValueError):
            raise ConfigError(f"origin must leave a year either side within pandas' dates, got {origin}") from None
        start = origin - pd.Timedelta(hours=1) if self.day_start is None else _naive("day_start", self.day_start)
        if not origin - pd.Timedelta(days=1) < start <= origin:
            raise ConfigError(
                f"day_start must be at origin {origin} or less than a day before it, got {start}: a time of day"
                " must name the origin's own moment"
            )
        object.__setattr__(self, "day_start", start)

    def seconds(self, when: str) -> float:
        """Seconds from the origin to the PDT wall-clock time ``when`` (negative if before it).

        Args:
            when: a time of day, ``"HH:MM"`` or ``"HH:MM:SS"`` (24-hour) or ``"H:MM AM"`` /
                ``"H:MM:SS PM"`` (12-hour, as :meth:`time_of_day` prints it), naming the first such
                moment at or after :attr:`day_start`; or a dated reading ``"YYYY-MM-DD HH:MM"``
                (seconds optional, ``T`` allowed between date and time). No time zone.

        Raises:
            ConfigError: ``when`` is not one of those forms naming a real time (``""``, ``"24:00"``,
                ``"13:00 PM"``, ``"now"``, a time with a zone), or is more than a year (31,536,000 s)
                from the origin.
        """
        if not isinstance(when, str):
            raise ConfigError(
                f"when must be a string like 'HH:MM', 'H:MM AM' or 'YYYY-MM-DD HH:MM', got {show(when)} "
                f"of type {type(when).__name__}"
            )
        text = when.strip()
        clock = _TIME.fullmatch(text)
        try:
            if clock:
                seconds = self._time_of_day_seconds(clock)
            elif _DATE_TIME.fullmatch(text):
                seconds = float((pd.Timestamp(text) - self.origin).total_seconds())
            else:
                raise ConfigError("not a time of day nor a date and time")
        except (ValueError, TypeError, OverflowError) as exc:
            raise ConfigError(
                f"when must look like 'HH:MM', 'H:MM AM' or 'YYYY-MM-DD HH:MM' (PDT, no time zone), got {show(when)}"
            ) from exc
        if abs(seconds) > YEAR_S:
            raise ConfigError(
                f"when must be within a year (31,536,000 s) of the origin {self.origin}, got {show(when)}"
            )
        return seconds

    def _time_of_day_seconds(self, clock: re.Match[str]) -> float:
        """Seconds from the origin to the first moment at or after ``day_start`` that shows ``clock``."""
        hour, minute, second = int(clock["h"]), int(clock["m"]), int(clock["s"] or 0)
        if clock["ampm"]:
            if not 1 <= hour <= 12:
                raise ConfigError("a 12-hour time runs from 1 to 12")
            hour = hour % 12 + (12 if clock["ampm"].upper() == "PM" else 0)
        if hour > 23 or minute > 59 or second > 59:
            raise ConfigError("no such time of day")
        start = self._start()
        at = datetime.combine(start.date(), datetime.min.time()) + timedelta(hours=hour, minutes=minute, seconds=second)
        if at < start:
            at += _DAY
        return (at - self.origin.to_pydatetime()).total_seconds()

    def _start(self) -> datetime:
        assert self.day_start is not None  # set by __post_init__
        return self.day_start.to_pydatetime()

    def reading(self, time_s: float) -> str:
        """``time_s`` seconds after the origin as a dated PDT reading, to the nearest second.

        ``"2025-10-20 05:28"`` on a whole minute, ``"2025-10-20 05:28:30"`` otherwise; a negative
        ``time_s`` is a time before the origin. :meth:`seconds` reads it back.

        Raises:
            ConfigError: ``time_s`` is not a finite number from -31,536,000 to 31,536,000 s (a year).
        """
        t = (self.origin + pd.Timedelta(seconds=check_number("time_s", time_s, lo=-YEAR_S, hi=YEAR_S))).round("s")
        return f"{t:%Y-%m-%d %H:%M}" + (f":{t.second:02d}" if t.second else "")

    def time_of_day(self, time_s: float) -> str:
        """``time_s`` seconds after the origin as a PDT clock time, to the nearest second, without a date.

        ``"5:28 AM"`` on a whole minute, ``"5:28:30 AM"`` otherwise. :meth:`seconds` reads it back as
        the same moment for every time of the day from :attr:`day_start`.

        Raises:
            ConfigError: ``time_s`` is not a finite number from -31,536,000 to 31,536,000 s (a year).
        """
        whole = round(check_number("time_s", time_s, lo=-YEAR_S, hi=YEAR_S))
        t = self.origin.to_pydatetime() + timedelta(seconds=whole)
        second = f":{t.second:02d}" if t.second else ""
        return f"{t.hour % 12 or 12}:{t.minute:02d}{second} {'AM' if t.hour < 12 else 'PM'}"

    def wall_clock(self, time_s: pd.Series | list[float]) -> pd.Series:
        """Seconds since the origin -> naive PDT ISO strings (``"2025-10-20T05:28:00"``), as charts draw them.

        Returns a string Series with the index of ``time_s`` (if a Series); no range check, the charts
        check their times first.
        """
        times = pd.Series(time_s, dtype="float64")
        return (self.origin + pd.to_timedelta(times, unit="s")).dt.strftime("%Y-%m-%dT%H:%M:%S")


def _naive(name: str, value: object) -> pd.Timestamp:
    if not isinstance(value, pd.Timestamp) or pd.isna(value) or value.tz is not None:
        raise ConfigError(
            f"{name} must be a naive pandas Timestamp (PDT), got {show(value)} of type {type(value).__name__}"
        )
    return value


#: The first moment that a time of day without a date names on both of the course's clocks, an
#: hour before the regional endpoint went empty (10:48 PM on 19 Oct 2025), so that every time of
#: the incident's night, to 10:47:59 PM on 20 Oct, reads as the night it happened.
NIGHT_START = pd.Timestamp("2025-10-19 22:48:00")
#: The clock of the race, DWFM, DNS-cache and chain models, whose t = 0 is
#: 11:48 PM on 19 Oct 2025, when the regional endpoint went empty (PES).
INCIDENT_CLOCK = Clock(pd.Timestamp("2025-10-19 23:48:00"), day_start=NIGHT_START)
#: The clock of the network and NLB models, whose t = 0 is
#: 5:28 AM on 20 Oct 2025, when "DWFM had established leases with all droplets" (PES) and Network
#: Manager began on its backlog.
NETWORK_CLOCK = Clock(pd.Timestamp("2025-10-20 05:28:00"), day_start=NIGHT_START)


def sample_times(start_s: float, horizon_s: float, step_s: float) -> np.ndarray:
    """``start_s, start_s + step_s, ...`` ending exactly at ``horizon_s`` (a shorter last step if needed),
    so that a time series never reports a time that was not simulated."""
    times = np.arange(start_s, horizon_s + step_s / 2, step_s)
    times = times[times <= horizon_s + step_s * 1e-9]
    if len(times) and times[-1] >= horizon_s - step_s * 1e-9:
        times[-1] = horizon_s
    else:
        times = np.append(times, horizon_s)
    return times


@dataclass(frozen=True)
class Shift:
    """A model run's own clock inside a longer one: ``run time = outer time - start_s``, up to ``horizon_s``.

    The chain counts from 11:48 PM (:data:`INCIDENT_CLOCK`); its Network Manager and NLB runs count
    from the moment its DWFM run had every lease back, which differs from run to run. The chain
    moves each time onto such a run's clock with :meth:`into` and back with :meth:`out_of`, so that
    no model reads another's clock by hand.

    Attributes:
        start_s: the run's ``t = 0`` on the outer clock, seconds.
        horizon_s: the run's horizon on its own clock, seconds (>= 0).

    Raises:
        ConfigError: ``start_s`` is not a finite number, or ``horizon_s`` not one >= 0.
    """

    start_s: float
    horizon_s: float

    def __post_init__(self) -> None:
        check_number("start_s", self.start_s)
        check_number("horizon_s", self.horizon_s, lo=0)

    def into(self, time_s: float | None) -> float | None:
        """An outer time on the run's clock: a moment the run can act on, or ``None`` if it never happens in it.

        ``None`` stays ``None``; a time before the run's start is its start, 0 (an action taken
        before the run begins is in force from its first moment); a time after its horizon is
        ``None`` (the run ends first); the horizon itself is kept.
        """
        if time_s is None:
            return None
        t = float(time_s) - self.start_s
        return None if t > self.horizon_s else max(0.0, t)

    def out_of(self, time_s: float | None) -> float | None:
        """A time on the run's clock back on the outer clock (``None`` stays ``None``)."""
        return None if time_s is None else self.start_s + float(time_s)
