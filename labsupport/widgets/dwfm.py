"""The DWFM lab's panel (lab 02): fleet, outage, deadline, retries, queue, throttle and the operators."""

from __future__ import annotations

from dataclasses import replace
from typing import cast

import ipywidgets as widgets
import pandas as pd

from .. import charts, dwfm
from .._memo import cached_run
from .panel import Panel, Shown, dropdown, int_slider, make_panel

__all__ = ["dwfm_panel"]


def dwfm_panel() -> Panel:
    """The DWFM lab's controls: fleet, outage, deadline, retries, throttle, operators' action time.

    Controls, varying :data:`labsupport.dwfm.INCIDENT`: ``fleet_droplets_count`` (500 to 12,000),
    ``outage_min`` (DynamoDB outage from 11:48 PM, 0 to 240 min), ``work_deadline_s`` (120 to
    1,800 s), ``retry_policy``, ``drop_expired_work``, ``queue_order``, ``retry_budget_per_s`` (none,
    or 0.005 to 0.1 retries per second per host, with a burst of 10), ``throttle_by_queue_length``,
    ``queue_limit_count`` (5 to 400) and ``operators_at_s`` (when operators throttle and restart
    hosts, or never). The panel shows the run's chart and a summary table (when every lease is back,
    the peak queue, the peak number of items waiting out a backoff, the work wasted and the
    insufficient-capacity launches).
    """
    base = dwfm.INCIDENT
    controls = _controls(base)

    def render(
        fleet_droplets_count: int,
        outage_min: int,
        work_deadline_s: int,
        retry_policy: str,
        drop_expired_work: bool,
        queue_order: str,
        retry_budget_per_s: float | None,
        throttle_by_queue_length: bool,
        queue_limit_count: int,
        operators_at_s: float | None,
    ) -> list[Shown]:
        cfg = replace(
            base,
            fleet_droplets_count=fleet_droplets_count,
            outage_end_s=60.0 * outage_min,
            work_deadline_s=float(work_deadline_s),
            retry_policy=retry_policy,
            drop_expired_work=drop_expired_work,
            queue_order=queue_order,
            retry_budget_per_s=retry_budget_per_s,
            retry_budget_burst_count=10,
            throttle_by_queue_length=throttle_by_queue_length,
            queue_limit_count=queue_limit_count,
            operator_restart_at_s=operators_at_s,
            operator_throttle_at_s=operators_at_s,
        )
        result = cached_run(dwfm.run, cfg)
        chart = charts.dwfm_timeseries_chart(
            result.timeseries, config=cfg, outage_s=(cfg.outage_start_s, cfg.outage_end_s), operator_at_s=operators_at_s
        )
        return [chart, _summary_table(result)]

    return make_panel(controls, render)


def _controls(base: dwfm.DwfmConfig) -> dict[str, widgets.Widget]:
    """The panel's controls, each starting at ``base``'s value (see :func:`dwfm_panel`)."""
    times = sorted(
        {
            cast(float, base.operator_restart_at_s),
            *(  # the incident's operators act
                1_800.0 * k + 2_520.0 for k in range(20)
            ),
        }
    )
    style = {"description_width": "initial"}
    return {
        "fleet_droplets_count": int_slider(base.fleet_droplets_count, 500, 12_000, "Fleet (droplets)", step=100),
        "outage_min": int_slider(round(base.outage_end_s / 60), 0, 240, "DynamoDB outage (min)"),
        "work_deadline_s": int_slider(round(base.work_deadline_s), 120, 1_800, "Deadline per item (s)", step=30),
        "retry_policy": widgets.Dropdown(
            options=list(dwfm.RETRY_POLICIES), value=base.retry_policy, description="Retries", style=style
        ),
        "drop_expired_work": widgets.Checkbox(
            value=base.drop_expired_work, description="Drop expired work before starting it", style=style
        ),
        "queue_order": widgets.Dropdown(
            options=list(dwfm.QUEUE_ORDERS), value=base.queue_order, description="Queue order", style=style
        ),
        "retry_budget_per_s": dropdown(
            [("none", None)] + [(f"{r:g} retries/s per host", r) for r in (0.005, 0.02, 0.1)],
            base.retry_budget_per_s,
            "Retry budget",
        ),
        "throttle_by_queue_length": widgets.Checkbox(
            value=False, description="Admission control: refuse work while a queue is full", style=style
        ),
        "queue_limit_count": int_slider(base.queue_limit_count, 5, 400, "Queue limit per host (items)", step=5),
        "operators_at_s": dropdown(
            [("never", None), *[(dwfm.CLOCK.time_of_day(t), t) for t in times]],
            base.operator_restart_at_s,
            "Operators act at",
        ),
    }


def _summary_table(result: dwfm.DwfmResult) -> pd.DataFrame:
    """The figures the panel shows beside its chart: recovery, peak queue and backoff, waste, launches."""
    s = result.summary
    return pd.DataFrame(
        {
            "figure": [
                "All leases back",
                "Peak queue, all hosts (items)",
                # Where the retry policy shows: items out of the queue, waiting out their backoff
                # (0 with immediate retries; the first wave's peak queue comes before any retry).
                "Peak waiting out a backoff, all hosts (items)",
                "Work wasted",
                "Insufficient-capacity launches",
            ],
            "value": [
                dwfm.CLOCK.time_of_day(cast(float, s.recovered_at_s)) if s.recovered else "not within the horizon",
                f"{s.peak_queue_count:,}",
                f"{int(result.timeseries['backoff_count'].max()):,}",
                f"{s.wasted_fraction:.0%}",
                f"{s.insufficient_capacity_count:,} of {s.launch_attempts_count:,}",
            ],
        }
    )
