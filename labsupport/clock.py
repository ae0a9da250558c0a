"""The incident's clock: its time origins, wall-clock conversions and sampling grids, defined once.

Every model counts time in seconds from one of two origins (naive PDT timestamps)::

    INCIDENT_START_PDT  11:48 PM, 19 Oct 2025  regional endpoint empty   race, dwfm, dns_cache, chain
    NETWORK_START_PDT    5:28 AM, 20 Oct 2025  DWFM leases re-established  network, nlb

Each model module re-exports its origin as ``START_PDT``.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ._validate import check_number, show
from .errors import ConfigError

__all__ = ["INCIDENT_START_PDT", "NETWORK_START_PDT", "YEAR_S", "clock_pdt", "pdt_seconds", "sample_times",
           "wall_clock"]

#: t = 0 of the race, DWFM, DNS-cache and chain models: when the regional endpoint went empty (PES).
INCIDENT_START_PDT = pd.Timestamp("2025-10-19 23:48:00")
#: t = 0 of the network and NLB models: 5:28 AM, when "DWFM had established leases with all
#: droplets" (PES) and Network Manager began on its backlog.
NETWORK_START_PDT = pd.Timestamp("2025-10-20 05:28:00")
#: The longest time (s) a clock conversion accepts.
YEAR_S = 365 * 86_400.0


def clock_pdt(time_s: float, *, origin: pd.Timestamp = INCIDENT_START_PDT) -> str:
    """``time_s`` seconds after ``origin`` as a PDT clock reading, e.g. ``"5:28 AM"`` (whole minutes).

    Raises:
        ConfigError: ``time_s`` is not a finite number from 0 to one year (31,536,000 s).
    """
    t = origin + pd.Timedelta(minutes=round(check_number("time_s", time_s, lo=0, hi=YEAR_S) / 60))
    return f"{t.hour % 12 or 12}:{t.minute:02d} {'AM' if t.hour < 12 else 'PM'}"


def wall_clock(time_s: pd.Series | list[float], origin: pd.Timestamp = INCIDENT_START_PDT) -> pd.Series:
    """Seconds since ``origin`` -> naive PDT ISO strings (``"2025-10-20T05:28:00"``), as charts draw them."""
    return (origin + pd.to_timedelta(pd.Series(time_s, dtype="float64"), unit="s")).dt.strftime("%Y-%m-%dT%H:%M:%S")


def pdt_seconds(when: str, *, origin: pd.Timestamp = NETWORK_START_PDT) -> float:
    """Seconds from ``origin`` to the PDT wall-clock time ``when`` (negative if before it).

    Args:
        when: ``"HH:MM"`` (on the origin's day, seconds optional) or ``"YYYY-MM-DD HH:MM"``, no zone.
        origin: a naive PDT timestamp; default :data:`NETWORK_START_PDT`.

    Raises:
        ConfigError: ``when`` is not one of those forms naming a real time (``""``, ``"24:00"``,
            ``"now"``, a time with a zone), or ``origin`` is not a naive ``pandas.Timestamp``.
    """
    if not isinstance(origin, pd.Timestamp) or origin.tz is not None:
        raise ConfigError(f"origin must be a naive pandas Timestamp (PDT), got {show(origin)}")
    if not isinstance(when, str):
        raise ConfigError(f"when must be a string like 'HH:MM' or 'YYYY-MM-DD HH:MM', got {show(when)} "
                          f"of type {type(when).__name__}")
    text = when.strip()
    if re.fullmatch(r"\d{1,2}:\d{2}(:\d{2})?", text):
        text = f"{origin:%Y-%m-%d} {text}"
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?", text):
            raise ConfigError("not a date and time")
        seconds = float((pd.Timestamp(text) - origin).total_seconds())
    except (ValueError, TypeError, OverflowError) as exc:
        raise ConfigError(f"when must look like 'HH:MM' or 'YYYY-MM-DD HH:MM' (PDT, no time zone), "
                          f"got {show(when)}") from exc
    return seconds


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
