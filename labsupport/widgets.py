"""ipywidgets controls for the labs, for readers who run the notebooks live.

This layer only wires controls to a model's ``run`` and to :mod:`labsupport.charts`
(``ipywidgets.interactive_output``); it computes nothing itself. Every control's bounds keep the
model's config valid, so no reachable setting raises. Each lab's panel also exposes its update
function (``panel.update(**values)``) so tests can drive it without a kernel.

The static book has no kernel, so the labs tag their widget cells ``remove-output`` and point the
reader to the in-page charts or to running the lab live.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import ipywidgets as widgets
from IPython.display import display

__all__ = ["Panel", "make_panel", "timeline_panel"]


@dataclass
class Panel:
    """A lab's controls, its output area and the function that redraws it.

    Attributes:
        controls: name -> ipywidget, in display order.
        output: the ``ipywidgets.Output`` that shows the charts and tables.
        update: the callback; ``update(**values)`` re-runs the model and returns what it displayed
            (a list of charts and tables), so a test can call it directly.
    """

    controls: dict[str, widgets.Widget]
    output: widgets.Output
    update: Callable[..., list[Any]]
    box: widgets.Box = field(init=False)

    def __post_init__(self) -> None:
        row = widgets.HBox(list(self.controls.values()), layout=widgets.Layout(flex_flow="row wrap"))
        self.box = widgets.VBox([row, self.output])

    def _ipython_display_(self) -> None:
        display(self.box)

    def values(self) -> dict[str, Any]:
        """Current value of every control."""
        return {name: w.value for name, w in self.controls.items()}


def make_panel(controls: dict[str, widgets.Widget], render: Callable[..., list[Any]]) -> Panel:
    """Wire ``controls`` to ``render`` and return a :class:`Panel`.

    Args:
        controls: name -> widget; the names are ``render``'s keyword arguments.
        render: takes the control values as keywords and returns a list of displayable objects
            (Altair charts, DataFrames, Markdown); it must not display anything itself.

    Returns:
        A Panel. Each change of a control clears the output and displays ``render``'s new result.
    """
    out = widgets.Output()

    def update(**values: Any) -> list[Any]:
        items = render(**values)
        out.clear_output(wait=True)
        with out:
            for item in items:
                display(item)
        return items

    panel = Panel(controls=controls, output=out, update=update)
    for w in controls.values():
        w.observe(lambda _change: update(**panel.values()), names="value")
    update(**panel.values())
    return panel


# --- timeline ---


def timeline_panel() -> Panel:
    """Filter the outage timeline by service and confidence tag; redraw the table and the chart.

    Controls: ``services`` (multiple selection; empty means all) and ``include_unverified``.
    Every reachable setting is valid: the choices come from :func:`labsupport.timeline.services`.
    """
    from . import charts, timeline

    controls = {
        "services": widgets.SelectMultiple(
            options=timeline.services(), value=(), rows=8, description="Services"
        ),
        "include_unverified": widgets.Checkbox(value=True, description="Show unverified rows"),
    }

    def render(services: tuple[str, ...], include_unverified: bool) -> list[Any]:
        rows = timeline.load(services=list(services) or None, include_unverified=include_unverified)
        table = rows[["time_pdt", "service", "event", "tag", "source"]]
        return [charts.timeline_chart(timeline.impact_periods(), rows), table]

    return make_panel(controls, render)
