"""The timeline lab's panel (lab 00): filter the incident timeline, redraw the table and chart."""

from __future__ import annotations

import ipywidgets as widgets

from .. import charts, timeline
from .panel import Panel, Shown, make_panel

__all__ = ["timeline_panel"]


def timeline_panel() -> Panel:
    """Filter the outage timeline by service and confidence tag; redraw the table and the chart.

    Controls: ``services`` (multiple selection; empty means all) and ``include_unverified``.
    The choices come from :func:`labsupport.timeline.services`.
    """
    controls = {
        "services": widgets.SelectMultiple(options=timeline.services(), value=(), rows=8, description="Services"),
        "include_unverified": widgets.Checkbox(value=True, description="Show unverified rows"),
    }

    def render(services: tuple[str, ...], include_unverified: bool) -> list[Shown]:
        rows = timeline.load(services=list(services) or None, include_unverified=include_unverified)
        table = rows[["time_pdt", "service", "event", "tag", "source"]]
        return [charts.timeline_chart(timeline.impact_periods(), rows), table]

    return make_panel(controls, render)
