"""The every-interleaving lab's panel (lab 06): guards and the explorer's bounds."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import ipywidgets as widgets
import pandas as pd
from IPython.display import Markdown

from .. import charts, explore
from .._memo import cached_run
from .._validate import check_int
from ..errors import LimitExceeded
from .panel import Panel, Shown, expect, make_panel

__all__ = ["explore_panel"]


def explore_panel(base: explore.ExploreConfig | None = None, *, max_states: int = 400_000) -> Panel:
    """Controls for the every-interleaving lab: one checkbox per guard and the explorer's bounds.

    Args:
        base: the :class:`labsupport.explore.ExploreConfig` to vary (default ``explore.INCIDENT``).
        max_states: state bound of each check (1-3,000,000); a larger state space is reported in the
            output as a :class:`~labsupport.errors.LimitExceeded` message, never a hang.

    Controls: ``check_version_on_write``,
    ``delete_only_unreferenced``, ``reject_empty_records``, ``self_repair`` (checkboxes),
    ``enactor_count`` (1-3), ``generation_count`` (2-6), ``endpoint_count`` (1-2) and
    ``cleanup_keep_generations`` (0-4). The panel shows the exhaustive check's verdict, the states
    explored and, if safety fails, the shortest counterexample.
    """
    base = explore.INCIDENT if base is None else expect("base", base, explore.ExploreConfig)
    base = replace(base, max_states=check_int("max_states", max_states, lo=1, hi=3_000_000))
    style = {"description_width": "initial"}
    controls: dict[str, widgets.Widget] = {
        name: widgets.Checkbox(value=getattr(base.guards, name), description=f"{i + 1}: {name}", indent=False)
        for i, name in enumerate(explore.GUARDS)
    }
    for name, lo, hi, label in (
        ("enactor_count", 1, 3, "Enactors"),
        ("generation_count", 2, 6, "Plan generations"),
        ("endpoint_count", 1, 2, "Endpoints"),
        ("cleanup_keep_generations", 0, 4, "Cleanup keeps (generations)"),
    ):
        controls[name] = widgets.IntSlider(
            value=getattr(base, name), min=lo, max=hi, description=label, style=style, continuous_update=False
        )

    def render(**values: Any) -> list[Shown]:
        guards = replace(base.guards, **{g: values.pop(g) for g in explore.GUARDS})
        cfg = replace(base, guards=guards, **values)
        try:
            result = cached_run(explore.run, cfg)
        except LimitExceeded as err:
            # Nothing was verified, so there is nothing to draw: say so instead of an empty chart.
            return [Markdown(f"**Stopped at the bound.** {err}")]
        s = result.summary
        verdict = (
            f"**{'Safe' if s.safe else 'Unsafe'}; {'recovers' if s.recovers else 'can get stuck'}.** "
            f"{s.states_count:,} states and {s.transitions_count:,} transitions explored."
        )
        grid = charts.explore_verdict_chart(explore.verdict_rows([result]))
        if s.safe:
            return [Markdown(verdict + " No interleaving empties an endpoint."), grid]
        steps = result.events[["step", "actor", "action", "plan_generation", "endpoint", "outcome", "role"]]
        return [
            Markdown(verdict + f" Shortest counterexample: {s.counterexample_steps_count} steps."),
            grid,
            charts.explore_sequence_chart(result.events),
            pd.DataFrame(steps),
        ]

    return make_panel(controls, render, slots=4)
