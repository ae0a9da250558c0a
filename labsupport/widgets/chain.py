"""The capstone lab's panel (lab 05): one checkbox per stop point, the incident beside every choice."""

from __future__ import annotations

from dataclasses import replace

import ipywidgets as widgets
import pandas as pd
from IPython.display import Markdown

from .. import chain, charts
from ..errors import ConfigError
from ..timeline import format_duration
from .panel import Panel, Shown, expect, make_panel

__all__ = ["chain_panel", "chain_view"]


def chain_view(config: chain.ChainConfig, *, reference: chain.ChainResult | None = None) -> list[Shown]:
    """Run the chain once; return what the capstone panel shows.

    Args:
        config: a :class:`labsupport.chain.ChainConfig`.
        reference: a :class:`labsupport.chain.ChainResult` to draw beside it (usually the
            incident's, computed once by the caller), or ``None``.

    Returns:
        ``[Markdown summary, stage timeline chart, stage table]``.
    """
    expect("config", config, chain.ChainConfig)
    if reference is not None:
        expect("reference", reference, chain.ChainResult)
    result = chain.run(config)  # its sub-models' runs are memoised (labsupport._memo)
    s = result.summary
    total = format_duration(s.total_s) if s.total_s > 0 else "no stage at all"
    text = (
        f"**Stop points on:** {s.stop_points} · **whole event: {total}** · DynamoDB unreachable "
        f"{format_duration(s.dynamodb_s)} · launches failing {format_duration(s.launches_s)} · NLB "
        f"connection errors {format_duration(s.nlb_s)} · failing outside us-east-1: "
        f"{s.outside_region_failures_count} services or features"
    )
    table = pd.DataFrame(
        {
            "stage": result.stages["stage"].astype(str),
            "from": result.stages["start_s"].map(chain.CLOCK.time_of_day),
            "to": result.stages["end_s"].map(chain.CLOCK.time_of_day),
            "length": result.stages["duration_s"].map(format_duration),
            "worst share failing": result.stages["peak_impact_fraction"].map("{:.0%}".format),
            "what clients see": result.stages["client_view"],
        }
    )
    ref = None if reference is None else reference.stages
    return [Markdown(text), charts.chain_timeline_chart(result.stages, reference=ref), table]


def chain_panel(base: chain.ChainConfig | None = None) -> Panel:
    """Controls for the capstone lab: one checkbox per stop point.

    Args:
        base: the :class:`labsupport.chain.ChainConfig` to vary (default ``chain.INCIDENT``); its
            stop points set the boxes' starting values. The incident (``base`` with no stop points)
            is run once and drawn beside every choice.

    Controls: ``check_version_on_write``, ``delete_only_unreferenced``, ``reject_empty_records``,
    ``self_repair``, ``throttle_recovery_work``, ``isolate_regions`` (checkboxes; every
    combination is a valid config).

    Raises:
        ConfigError: ``base`` is not a ChainConfig.
    """
    base = chain.INCIDENT if base is None else base
    if not isinstance(base, chain.ChainConfig):
        raise ConfigError(f"base must be a ChainConfig, got {type(base).__name__}")
    incident = chain.run(replace(base, stop_points=chain.StopPoints()))
    controls: dict[str, widgets.Widget] = {
        name: widgets.Checkbox(
            value=base.stop_points.flags()[i],
            indent=False,
            description=f"{i + 1}: {chain.STOP_POINT_TITLES[i]}",
            layout=widgets.Layout(width="auto"),
        )
        for i, name in enumerate(chain.STOP_POINT_NAMES)
    }

    def render(**flags: bool) -> list[Shown]:
        return chain_view(
            replace(base, stop_points=chain.StopPoints.from_flags(*(flags[n] for n in chain.STOP_POINT_NAMES))),
            reference=incident,
        )

    return make_panel(controls, render)
