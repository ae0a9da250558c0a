"""The incident's clocks: one per time origin, each with its wall-clock conversions; sampling grids.

Every model counts time in seconds from one of two origins (naive PDT timestamps), each a
:class:`Clock`::

    INCIDENT_CLOCK  11:48 PM, 19 Oct 2025  regional endpoint empty      race, dwfm, dns_cache, chain
    NETWORK_CLOCK    5:28 AM, 20 Oct 2025  DWFM leases re-established   network, nlb

Each model module exposes its clock as ``CLOCK``: ``network.CLOCK.seconds("10:00")`` is 16,320 s,
``dwfm.CLOCK.time_of_day(20_400)`` is ``"5:28 AM"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._validate import check_number, show
from .errors import ConfigError

__all__ = ["Clock", "INCIDENT_CLOCK", "NETWORK_CLOCK", "Shift", "YEAR_S", "sample_times"]

#: The longest time (s) either side of a clock's origin that a conversion accepts.
YEAR_S = 365 * 86_400.0

_TIME = r"\d{1,2}:\d{2}(:\d{2})?"
_DATE_TIME = r"\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?"


@dataclass(frozen=True)
class Clock:
    """Seconds since ``origin`` <-> PDT wall-clock readings.

    Attributes:
        origin: the naive PDT ``pandas.Timestamp`` of ``time_s = 0``, with a year either side
            within pandas' dates.

    The pair :meth:`seconds` and :meth:`reading` are inverse to each other: a reading carries its
    date (``"2025-10-20 05:28"``), and ``seconds(reading(t)) == t`` for every whole second ``t``
    within a year of the origin, before it (negative) or after it. :meth:`time_of_day` is the short
    form the course prints (``"5:28 AM"``, no date) and :meth:`wall_clock` the vectorised form charts
    draw.

    Raises:
        ConfigError: ``origin`` is not a naive ``pandas.Timestamp`` (a string, ``NaT``, one with a
            time zone), or is less than a year from the ends of pandas' dates.
    """

    origin: pd.Timestamp

    def __post_init__(self) -> None:
        origin = self.origin
        if not isinstance(origin, pd.Timestamp) or pd.isna(origin) or origin.tz is not None:
            raise ConfigError(
                f"origin must be a naive pandas Timestamp (PDT), got {show(origin)} of type {type(origin).__name__}"
            )
        try:
            origin - pd.Timedelta(seconds=YEAR_S), origin + pd.Timedelta(seconds=YEAR_S)
        except (OverflowError, ValueError):
            raise ConfigError(f"origin must leave a year either side within pandas' dates, got {origin}") from None

    def seconds(self, when: str) -> float:
        """Seconds from the origin to the PDT wall-clock time ``when`` (negative if before it).

        Args:
            when: ``"HH:MM"`` or ``"HH:MM:SS"``, read on the origin's own day (so ``"02:25"`` on
                :data:`INCIDENT_CLOCK` is 2:25 AM on 19 Oct, -76,980 s), or ``"YYYY-MM-DD HH:MM"``
                (seconds optional, ``T`` allowed between date and time); no time zone.

        Raises:
            ConfigError: ``when`` is not one of those forms naming a real time (``""``, ``"24:00"``,
                ``"now"``, a time with a zone), or is more than a year (31,536,000 s) from the origin.
        """
        if not isinstance(when, str):
            raise ConfigError(
                f"when must be a string like 'HH:MM' or 'YYYY-MM-DD HH:MM', got {show(when)} "
                f"of type {type(when).__name__}"
            )
        text = when.strip()
        if re.fullmatch(_TIME, text):
            text = f"{self.origin:%Y-%m-%d} {text}"
        try:
            if not re.fullmatch(_DATE_TIME, text):
                raise ConfigError("not a date and time")
            seconds = float((pd.Timestamp(text) - self.origin).total_seconds())
        except (ValueError, TypeError, OverflowError) as exc:
            raise ConfigError(
                f"when must look like 'HH:MM' or 'YYYY-MM-DD HH:MM' (PDT, no time zone), got {show(when)}"
            ) from exc
        if abs(seconds) > YEAR_S:
            raise ConfigError(
                f"when must be within a year (31,536,000 s) of the origin {self.origin}, got {show(when)}"
            )
        return seconds

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
        """``time_s`` seconds after the origin as a PDT clock time, e.g. ``"5:28 AM"`` (whole minutes, no date).

        Raises:
            ConfigError: ``time_s`` is not a finite number from -31,536,000 to 31,536,000 s (a year).
        """
        minutes = round(check_number("time_s", time_s, lo=-YEAR_S, hi=YEAR_S) / 60)
        t = self.origin + pd.Timedelta(minutes=minutes)
        return f"{t.hour % 12 or 12}:{t.minute:02d} {'AM' if t.hour < 12 else 'PM'}"

    def wall_clock(self, time_s: pd.Series | list[float]) -> pd.Series:
        """Seconds since the origin -> naive PDT ISO strings (``"2025-10-20T05:28:00"``), as charts draw them.

        Returns a string Series with the index of ``time_s`` (if a Series); no range check, the charts
        check their times first.
        """
        times = pd.Series(time_s, dtype="float64")
        return (self.origin + pd.to_timedelta(times, unit="s")).dt.strftime("%Y-%m-%dT%H:%M:%S")


#: The clock of the race, DWFM, DNS-cache and chain models, whose t = 0 is
#: 11:48 PM on 19 Oct 2025, when the regional endpoint went empty (PES).
INCIDENT_CLOCK = Clock(pd.Timestamp("2025-10-19 23:48:00"))
#: The clock of the network and NLB models, whose t = 0 is
#: 5:28 AM on 20 Oct 2025, when "DWFM had established leases with all droplets" (PES) and Network
#: Manager began on its backlog.
NETWORK_CLOCK = Clock(pd.Timestamp("2025-10-20 05:28:00"))


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
