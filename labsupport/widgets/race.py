"""The race lab's panel (lab 01): guards, the delay, the planner interval and the seed."""

from __future__ import annotations

from dataclasses import replace

import ipywidgets as widgets
from IPython.display import Markdown

from .. import charts, race
from .._memo import cached_run
from .._validate import check_number
from ..errors import ConfigError
from ..timeline import format_duration
from .panel import Panel, Shown, expect, int_slider, make_panel

__all__ = ["race_panel", "race_view"]


def race_view(config: race.RaceConfig, *, window_s: float | None = None) -> list[Shown]:
    """Run the race model once and return what the race panel shows: a summary and two charts.

    Args:
        config: a :class:`labsupport.race.RaceConfig`.
        window_s: end of the generation chart's window in seconds; None = 5 minutes after the first
            stale write (at least 15 minutes), capped at the horizon, and shortened (the summary says
            so) when that window holds more plan steps than the chart draws.

    Returns:
        ``[Markdown summary, records chart of the regional endpoint, generation chart]``.

    Raises:
        ConfigError: for a config that is not a RaceConfig, a bad ``window_s``, or an explicit
            ``window_s`` whose window holds more plan steps than the chart draws.
    """
    expect("config", config, race.RaceConfig)
    if window_s is not None:
        window_s = check_number("window_s", window_s, lo=0, lo_open=True)
    res = cached_run(race.run, config)
    s, ev = res.summary, res.events
    states, windows = res.endpoint_states(), res.empty_windows()

    def when(t: float | None) -> str:
        return "never" if t is None else f"at {t:.0f} s"

    empty = format_duration(s.regional_empty_s) if s.regional_empty_s >= 60 else f"{s.regional_empty_s:.0f} s"
    text = (
        f"**Guards on:** {config.guards.label()} · **regional endpoint empty for {empty}** "
        f"(first {when(s.empty_started_at_s)}) · stale overwrites: {s.stale_overwrites_count} · "
        f"active plan deleted: {'yes' if s.active_plan_deleted else 'no'} · stuck: {'yes' if s.stuck else 'no'} · "
        f"manual repair: {when(s.repaired_at_s)} · alerts: {s.alerts_count} · self-repairs: {s.self_repairs_count} · "
        f"largest lag: {s.max_generation_lag} generations · endpoints that went empty: "
        f"{', '.join(s.endpoints_emptied) or 'none'}"
    )
    automatic, shortened = window_s is None, False
    if window_s is None:
        stale = ev.loc[ev["action"] == "stale_write", "time_s"]
        window_s = max(900.0, (float(stale.min()) + 300.0) if len(stale) else 0.0)
    window_s = min(float(window_s), config.horizon_s)
    generations = None
    while generations is None:
        try:
            generations = charts.race_generation_chart(states, ev, start_s=0.0, end_s=window_s)
        except ConfigError:
            # A fast Planner or many endpoints: draw a shorter window, never a thinned one, and say so.
            if not automatic or window_s <= 60.0:
                raise
            window_s = max(60.0, window_s / 2)
            shortened = True
    if automatic and shortened:
        text += f" · the generation chart shows the first {window_s / 60:.0f} min only"
    return [Markdown(text), charts.race_records_chart(states, windows, endpoint=config.regional_endpoint), generations]


def race_panel(base: race.RaceConfig | None = None) -> Panel:
    """Controls for the race lab: one checkbox per guard, the delay, the planner interval, the seed.

    Args:
        base: the :class:`labsupport.race.RaceConfig` to vary (default ``race.INCIDENT``); its first
            entry in ``delays`` is the delayed Enactor whose lock losses the slider sets.

    Controls: ``check_version_on_write``,
    ``delete_only_unreferenced``, ``reject_empty_records``, ``self_repair`` (checkboxes),
    ``lock_losses_count`` (0-15 lock losses in a row on each endpoint, the delay's size),
    ``plan_interval_s`` (10-120 s) and ``seed`` (0-99).
    """
    base = race.INCIDENT if base is None else expect("base", base, race.RaceConfig)
    fault = base.delays[0] if base.delays else race.EnactorDelay(enactor=race.enactor_names(base.enactor_count)[0])
    controls: dict[str, widgets.Widget] = {
        name: widgets.Checkbox(value=getattr(base.guards, name), description=f"{i + 1}: {name}", indent=False)
        for i, name in enumerate(race.GUARD_NAMES)
    }
    controls["lock_losses_count"] = int_slider(fault.lock_losses_count, 0, 15, f"{fault.enactor}: lock losses in a row")
    controls["plan_interval_s"] = int_slider(base.plan_interval_s, 10, 120, "Planner interval (s)", step=5)
    controls["seed"] = int_slider(base.seed, 0, 99, "Seed")

    def render(lock_losses_count: int, plan_interval_s: int, seed: int, **guards: bool) -> list[Shown]:
        cfg = replace(
            base,
            guards=race.Guards(**guards),
            plan_interval_s=float(plan_interval_s),
            seed=seed,
            delays=(replace(fault, lock_losses_count=lock_losses_count), *base.delays[1:]),
        )
        return race_view(cfg)

    return make_panel(controls, render)
