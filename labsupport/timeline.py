"""The outage timeline as data, from the AWS post-event summary and the sources around it.

Scenario:
    19 Oct 2025, 11:48 PM PDT, to 21 Oct, 4:05 AM PDT (the last Redshift clusters).
Covers:
    The summary's three impact periods, its master timeline service by service, the Health
    Dashboard's differing times and one time from AWS's re:Invent talk (DAT453), each row tagged
    with the confidence tag of ``shared/sources/facts.md``. The three periods to scale, one
    character for 10 minutes from 11:48 PM PDT (the ruler marks every other hour)::

         12AM        2AM         4AM         6AM         8AM         10AM        12PM        2PM
        -+-----------+-----------+-----------+-----------+-----------+-----------+-----------+--
        DynamoDB API errors, 11:48 PM to 2:40 AM
        |================|
                        EC2 launch failures, 2:25 AM to 10:36 AM
                        |================================================|
                                          NLB connection errors, 5:30 AM to 2:09 PM
                                          |===================================================|
        whole event, 11:48 PM to 2:20 PM: 14 h 32 min
        |======================================================================================|

Tags: ``AWS-verbatim`` (the summary's passage behind the row was seen, verbatim or nearly, in a
copy or quotation of the summary), ``AWS-paraphrase`` (attributed to the summary, wording not
confirmed), ``UNVERIFIED`` (not confirmed in any available copy: never state it as fact),
``OTHER`` (not from the summary: the Health Dashboard or the talk). A row's words are the
course's own, never a quotation; a clause with weaker support than the row's tag is in its
``note``, with that clause's own tag.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from datetime import timedelta
from pathlib import Path

import numpy as np
import pandas as pd

from ._validate import check_bool, check_names, check_number, show
from .errors import ConfigError

__all__ = [
    "IMPACT_PERIODS",
    "TAGS",
    "TZ",
    "durations",
    "format_duration",
    "impact_periods",
    "load",
    "services",
]

_DATA = Path(__file__).resolve().parent / "data" / "timeline.csv"

#: Time zone of every time in the summary (PDT on these dates).
TZ = "America/Los_Angeles"

#: Confidence tags, strongest first.
TAGS: tuple[str, ...] = ("AWS-verbatim", "AWS-paraphrase", "OTHER", "UNVERIFIED")

#: The "three distinct periods of impact" of the summary's introduction ([AWS-verbatim]), in its order.
IMPACT_PERIODS: tuple[tuple[str, str, str], ...] = (
    ("DynamoDB API errors", "2025-10-19 23:48", "2025-10-20 02:40"),
    ("NLB connection errors", "2025-10-20 05:30", "2025-10-20 14:09"),
    ("EC2 launch failures", "2025-10-20 02:25", "2025-10-20 10:36"),
)

# Intervals the course talks about: (name, label, start row id, end row id). The times come from
# the timeline rows, so a corrected row corrects every duration computed from it.
_INTERVALS: tuple[tuple[str, str, str, str], ...] = (
    ("whole_event", "Whole event", "ddb-race", "event-end"),
    ("dynamodb_errors", "DynamoDB API errors (impact period 1)", "ddb-race", "ddb-end"),
    ("cause_identified", "Race triggered to cause identified", "ddb-race", "ddb-identified"),
    ("dns_empty", "DNS record empty until restored", "ddb-race", "ddb-dns-restored"),
    ("dns_clients", "DNS restored to clients reconnected", "ddb-dns-restored", "ddb-end"),
    ("ec2_after_dns", "EC2 after the DNS fix", "ddb-dns-restored", "ec2-normal"),
    ("launch_failures", "New launches failing (impact period 3)", "ec2-launch-period", "ec2-propagation-normal"),
    ("dwfm_to_intervention", "DWFM collapse until the intervention", "ddb-dns-restored", "dwfm-intervention"),
    ("dwfm_all_leases", "DWFM collapse until all leases", "ddb-dns-restored", "dwfm-all-leases"),
    ("network_latency", "Network Manager propagation latency", "netmgr-latency", "ec2-propagation-normal"),
    ("nlb_period", "NLB connection errors (impact period 2)", "nlb-begin", "nlb-end"),
    ("nlb_detect_to_failover_off", "NLB detection to failover disabled", "nlb-detected", "nlb-failover-off"),
    ("dashboard_whole_event", "Whole event by the Health Dashboard", "dash-start", "dash-end"),
)


def _read() -> pd.DataFrame:
    return _parsed().copy()


@functools.cache
def _parsed() -> pd.DataFrame:
    raw = pd.read_csv(_DATA, dtype=str, keep_default_na=False, encoding="utf-8")
    start = pd.to_datetime(raw["start_pdt"]).dt.tz_localize(TZ)
    end = pd.to_datetime(raw["end_pdt"].replace("", None)).dt.tz_localize(TZ)
    return pd.DataFrame(
        {
            "id": raw["id"].astype("string"),
            "time_pdt": start,
            "time_utc": start.dt.tz_convert("UTC"),
            "end_pdt": end,
            "end_utc": end.dt.tz_convert("UTC"),
            "service": raw["service"].astype("string"),
            "event": raw["event"].astype("string"),
            "impact_period": raw["impact_period"].replace("", None).astype("string"),
            "source": raw["source"].astype("string"),
            "tag": pd.Categorical(raw["tag"], categories=list(TAGS)),
            "unverified": raw["tag"].eq("UNVERIFIED"),
            "note": raw["note"].astype("string"),
        }
    )


def services() -> list[str]:
    """The service names that appear in the timeline, sorted."""
    return sorted(_read()["service"].unique().tolist())


def load(
    *,
    services: Iterable[str] | str | None = None,
    tags: Iterable[str] | str | None = None,
    include_unverified: bool = True,
) -> pd.DataFrame:
    """Return the outage timeline, one row per event, in time order.

    Args:
        services: keep only these services (names as in :func:`services`); ``None`` keeps all.
        tags: keep only these confidence tags (from :data:`TAGS`); ``None`` keeps all.
        include_unverified: ``False`` drops the ``UNVERIFIED`` rows. They are never mixed in
            silently: the ``unverified`` column marks them, and charts draw them faded.

    Returns:
        A DataFrame with columns ``id`` (string), ``time_pdt`` (datetime64, America/Los_Angeles),
        ``time_utc`` (datetime64, UTC), ``end_pdt``/``end_utc`` (same dtypes, NaT for instants),
        ``service``, ``event``, ``impact_period`` (string; <NA> outside the three periods),
        ``source`` (string: the citation), ``tag`` (categorical, :data:`TAGS`), ``unverified``
        (bool) and ``note`` (string).

    Raises:
        ConfigError: an unknown service or tag (the message lists the valid ones), a ``services`` or
            ``tags`` that is neither a name nor an iterable of names (bytes and mappings
            included), or an ``include_unverified`` that is not a bool.

    Follows the summary's timeline and its per-service section (facts.md §1.2–1.4).
    """
    check_bool("include_unverified", include_unverified)
    frame = _read()
    if services is not None:
        keep = check_names("services", services, frame["service"].unique())
        frame = frame[frame["service"].isin(keep)]
    if tags is not None:
        keep = check_names("tags", tags, TAGS)
        frame = frame[frame["tag"].isin(keep)]
    if not include_unverified:
        frame = frame[~frame["unverified"]]
    return frame.sort_values(["time_pdt", "id"], kind="stable").reset_index(drop=True)


def impact_periods() -> pd.DataFrame:
    """The summary's three impact periods, in the summary's order.

    Returns:
        Columns ``period`` (string), ``start_pdt``/``end_pdt`` (datetime64, America/Los_Angeles),
        ``start_utc``/``end_utc`` (datetime64, UTC), ``duration`` (timedelta64), ``text``
        (string, e.g. ``"2 h 52 min"``), ``tag`` (all ``AWS-verbatim``).
    """
    names, starts, ends = zip(*IMPACT_PERIODS, strict=False)
    start = pd.to_datetime(pd.Series(starts)).dt.tz_localize(TZ)
    end = pd.to_datetime(pd.Series(ends)).dt.tz_localize(TZ)
    frame = pd.DataFrame(
        {
            "period": pd.Series(names, dtype="string"),
            "start_pdt": start,
            "end_pdt": end,
            "start_utc": start.dt.tz_convert("UTC"),
            "end_utc": end.dt.tz_convert("UTC"),
            "duration": end - start,
        }
    )
    frame["text"] = frame["duration"].map(format_duration).astype("string")
    frame["tag"] = "AWS-verbatim"
    return frame


def durations() -> pd.DataFrame:
    """Durations the course cites, each computed from two rows of the timeline.

    Returns:
        One row per interval, columns ``name`` (string key, e.g. ``"whole_event"``), ``label``,
        ``start_pdt``, ``end_pdt`` (datetime64, America/Los_Angeles), ``duration``
        (timedelta64), ``minutes`` (float), ``text`` (e.g. ``"14 h 32 min"``) and ``weakest_tag``
        (the weaker confidence tag of the two rows used). Indexed by ``name`` as well.

    Follows facts.md §6, "Durations computed from the summary's times".
    """
    rows = _read().set_index("id")
    out = []
    for name, label, a, b in _INTERVALS:
        start = rows.at[a, "time_pdt"]
        end = rows.at[b, "time_pdt"]
        tag = max(rows.at[a, "tag"], rows.at[b, "tag"], key=TAGS.index)
        out.append((name, label, start, end, tag))
    frame = pd.DataFrame(out, columns=["name", "label", "start_pdt", "end_pdt", "weakest_tag"])
    frame["duration"] = frame["end_pdt"] - frame["start_pdt"]
    frame["minutes"] = frame["duration"].dt.total_seconds() / 60
    frame["text"] = frame["duration"].map(format_duration).astype("string")
    frame["name"] = frame["name"].astype("string")
    frame.index = pd.Index(frame["name"].tolist(), name=None)
    return frame[["name", "label", "start_pdt", "end_pdt", "duration", "minutes", "text", "weakest_tag"]]


def format_duration(value: float | timedelta | pd.Timedelta | np.timedelta64) -> str:
    """Format a duration as the course writes it: ``"14 h 32 min"``, ``"50 min"``, ``"2 h 03 min"``.

    Args:
        value: seconds (a finite real number >= 0) or a duration: ``datetime.timedelta``,
            ``pandas.Timedelta`` or ``numpy.timedelta64``. Rounded to the nearest minute.

    Raises:
        ConfigError: a negative, NaN/NaT or infinite duration, one beyond pandas' range, or a value of
            another type (strings and bools included). The message names ``duration``.
    """
    if isinstance(value, np.timedelta64):
        try:
            value = pd.Timedelta(value)
        except (ValueError, OverflowError):
            raise ConfigError(
                f"duration must be a finite number of seconds >= 0, got {show(value)} "
                "(beyond the range of pandas.Timedelta)"
            ) from None
    if value is pd.NaT or (isinstance(value, (timedelta, pd.Timedelta)) and pd.isna(value)):
        raise ConfigError("duration must be a finite number of seconds >= 0, got NaT")
    if isinstance(value, (timedelta, pd.Timedelta)):
        value = value.total_seconds()
    seconds = check_number("duration", value, lo=0)
    minutes = round(seconds / 60)
    hours, mins = divmod(minutes, 60)
    return f"{hours} h {mins:02d} min" if hours else f"{mins} min"
