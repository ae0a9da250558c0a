"""Quantities and labels that the book shows on several pages, each defined once.

A chapter and a lab that show the same quantity (the fleet sizes swept in the DWFM model, the
negative-caching TTLs compared, the names of the NLB runs) take it from here, so that a change
reaches every page at once and no two pages disagree. The incident's own numbers stay in each
model's ``INCIDENT`` preset (for example ``race.INCIDENT_DELAY.lock_losses_count``) and the
durations in :func:`labsupport.timeline.durations`; this module holds only what sits between models
and pages. Colours for these labels are in ``labsupport.charts.CONCEPT_COLOURS``.
"""

from __future__ import annotations

from .errors import ConfigError

__all__ = [
    "DWFM_FLEET_SIZES",
    "NEGATIVE_TTLS_S",
    "NEGATIVE_TTL_VARIANTS_S",
    "NLB_RUN_LABELS",
    "ttl_label",
]

#: Fleet sizes (droplets, on the incident's DWFM hosts) of every DWFM sweep in the book, in the
#: chapter's heat map, the lab's heat map and the lab's in-page explorer (which takes at most 8).
DWFM_FLEET_SIZES: tuple[int, ...] = (600, 1_200, 2_400, 3_600, 4_800, 6_600, 9_000)

#: Negative-caching TTLs (s) of the TTL sweep in lab 04.
NEGATIVE_TTLS_S: tuple[float, ...] = (60.0, 120.0, 300.0, 600.0, 900.0, 1_200.0, 1_800.0, 2_700.0, 3_600.0)

#: Negative TTLs (s) that pages compare run against run, 5 min, the incident's assumed 15 min and 1 h.
NEGATIVE_TTL_VARIANTS_S: tuple[float, ...] = (300.0, 900.0, 3_600.0)

#: One name per NLB run that several pages compare (chapter Recovery, lab 03).
NLB_RUN_LABELS: dict[str, str] = {
    "nobody": "nobody intervenes",
    "incident": "incident (failover off 9:36 AM, on 2:09 PM)",
    "velocity": "velocity control",
}


def ttl_label(seconds: float) -> str:
    """The one way the book names a negative-caching TTL: ``"negative TTL 15 min"``.

    Args:
        seconds: the TTL in seconds (whole minutes are shown in minutes, longer ones too).

    Returns:
        ``"negative TTL N min"`` for a whole number of minutes, else ``"negative TTL N s"``.

    Raises:
        ConfigError: ``seconds`` is not a positive number.
    """
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
        raise ConfigError(f"seconds must be a number > 0, got {seconds!r}")
    minutes = seconds / 60
    return f"negative TTL {minutes:.0f} min" if minutes == int(minutes) else f"negative TTL {seconds:.0f} s"
