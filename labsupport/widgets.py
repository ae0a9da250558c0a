"""ipywidgets controls for the labs, for readers who run the notebooks live.

This layer only wires controls to a model's ``run`` and to :mod:`labsupport.charts` (see
:func:`make_panel`); it computes nothing itself. Every control's bounds keep the
model's config valid, so no reachable setting raises. Each lab's panel also exposes its update
function (``panel.update(**values)``) so tests can drive it without a kernel.

The static book has no kernel, so the labs tag their widget cells ``remove-output`` and point the
reader to the in-page charts or to running the lab live.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import ipywidgets as widgets
import pandas as pd
from IPython.display import Markdown, display

from . import chain, charts, dns_cache, dwfm, explore, nlb, race, timeline
from ._validate import check_choice, check_int, check_number
from .errors import ConfigError, LimitExceeded
from .network import START_PDT, pdt_seconds
from .timeline import format_duration

def _expect(name: str, value: Any, kind: type) -> Any:
    """Return ``value`` if it is a ``kind``; otherwise raise ConfigError naming the argument."""
    if not isinstance(value, kind):
        raise ConfigError(f"{name} must be a {kind.__module__}.{kind.__name__}, got {type(value).__name__}")
    return value


__all__ = [
    "NLB_FAILOVER_CHOICES",
    "Panel",
    "chain_panel",
    "chain_view",
    "dns_config",
    "dns_panel",
    "dns_view",
    "dwfm_panel",
    "explore_panel",
    "make_panel",
    "nlb_config",
    "nlb_panel",
    "nlb_view",
    "race_panel",
    "race_view",
    "timeline_panel",
]


@dataclass
class Panel:
    """A lab's controls, the outputs they redraw, and the function that redraws them.

    Displaying a panel shows its controls, then one output per item that ``update`` returns, each
    through an IPython display handle (``display(item, display_id=True)``). A change of a control
    replaces those outputs in place (``update_display_data``), which every notebook front end
    supports (JupyterLab, Notebook 7, VS Code, Colab).

    The panel deliberately uses no ``ipywidgets.Output``: when a notebook is executed headless (the
    book build through MyST-NB and nbclient), nbclient imitates every Output widget by sending a
    ``comm_msg`` on the kernel's shell socket while it is still waiting on that socket for the
    cell's ``execute_reply``; with pyzmq's edge-triggered sockets that reply can then go unnoticed
    until the cell's timeout, which made the book build wait 300 s per panel cell.

    Attributes:
        controls: name -> ipywidget, in display order.
        update: the callback; ``update(**values)`` re-runs the model, redraws the outputs and
            returns the items it drew (charts, tables, Markdown), so a test can call it directly.
        box: the controls' container (wrapping rows, full width).
        slots: how many outputs the panel shows; ``update`` fills the unused ones with nothing.
    """

    controls: dict[str, widgets.Widget]
    update: Callable[..., list[Any]]
    slots: int
    box: widgets.Box = field(init=False)
    _handles: list[Any] = field(init=False, default_factory=list)
    _items: list[Any] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        for w in self.controls.values():
            if isinstance(w, _SLIDERS):
                # One model run per change, not per drag step; and a track that stays usable
                # beside a long description (ipywidgets' default width leaves it a few pixels).
                w.continuous_update = False
                w.style.description_width = "initial"
                w.layout.width = _SLIDER_WIDTH
            elif isinstance(w, widgets.Dropdown):
                w.style.description_width = "initial"
                w.layout.width = "auto"
        self.box = widgets.Box(list(self.controls.values()),
                               layout=widgets.Layout(display="flex", flex_flow="row wrap", width="100%",
                                                     align_items="center"))

    def _ipython_display_(self) -> None:
        display(self.box)
        self._handles = [display(item, display_id=True) for item in self._padded(self._items)]

    def _padded(self, items: list[Any]) -> list[Any]:
        return list(items) + [_NOTHING] * (self.slots - len(items))

    def _show(self, items: list[Any]) -> None:
        if len(items) > self.slots:
            raise RuntimeError(f"a panel with {self.slots} outputs was given {len(items)} items to show")
        self._items = list(items)
        for handle, item in zip(self._handles, self._padded(items)):
            handle.update(item)

    def values(self) -> dict[str, Any]:
        """Current value of every control."""
        return {name: w.value for name, w in self.controls.items()}


_SLIDERS = (widgets.IntSlider, widgets.FloatSlider, widgets.SelectionSlider, widgets.FloatLogSlider)
#: A slider's whole width (description, track and readout), never wider than the notebook.
_SLIDER_WIDTH = "min(100%, 36rem)"

#: What an unused output slot shows: nothing.
_NOTHING = Markdown("")


def make_panel(controls: dict[str, widgets.Widget], render: Callable[..., list[Any]], *,
               slots: int | None = None) -> Panel:
    """Wire ``controls`` to ``render`` and return a :class:`Panel`.

    Args:
        controls: name -> widget; the names are ``render``'s keyword arguments. Sliders should be
            made with ``continuous_update=False`` so that one drag runs the model once.
        render: takes the control values as keywords and returns a list of displayable objects
            (Altair charts, DataFrames, Markdown); it must not display anything itself.
        slots: the most items ``render`` ever returns (default: as many as it returns for the
            initial values).

    Returns:
        A Panel whose outputs already hold ``render``'s result for the initial values, so its
        charts draw as soon as it is displayed. Each change of a control redraws them; a change
        whose ``render`` raises replaces them with a message naming the error.

    Raises:
        RuntimeError: when ``render`` returns more items than ``slots``.
    """
    first = render(**{name: w.value for name, w in controls.items()})
    panel = Panel(controls=controls, update=lambda **_: [], slots=len(first) if slots is None else slots)

    def update(**values: Any) -> list[Any]:
        items = render(**values)
        panel._show(items)
        return items

    def on_change(_change: Any) -> None:
        # A widget callback's exception only reaches Jupyter's log, and the old charts would stay on
        # screen as if they were the new setting's: show what went wrong instead.
        try:
            update(**panel.values())
        except Exception as err:  # noqa: BLE001 - every failure must be visible to the learner
            panel._show([Markdown(f"**This setting could not be drawn.** {type(err).__name__}: {err}")])

    panel.update = update
    panel._show(first)
    for w in controls.values():
        w.observe(on_change, names="value")
    return panel


# --- timeline ---


def timeline_panel() -> Panel:
    """Filter the outage timeline by service and confidence tag; redraw the table and the chart.

    Controls: ``services`` (multiple selection; empty means all) and ``include_unverified``.
    Every reachable setting is valid: the choices come from :func:`labsupport.timeline.services`.
    """

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


# --- race ---


def race_view(config: Any, *, window_s: float | None = None) -> list[Any]:
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


    _expect("config", config, race.RaceConfig)
    if window_s is not None:
        window_s = check_number("window_s", window_s, lo=0, lo_open=True)
    res = race.run(config)
    s, ev = res.summary, res.events
    states, windows = res.endpoint_states(), res.empty_windows()
    def when(t: float | None) -> str:
        return "never" if t is None else f"at {t:.0f} s"

    empty = format_duration(s.regional_empty_s) if s.regional_empty_s >= 60 else f"{s.regional_empty_s:.0f} s"
    text = (
        f"**Guards on:** {config.guards.label()} · **regional endpoint empty for {empty}** "
        f"(first {when(s.empty_started_at_s)}) · stale overwrites: {s.stale_overwrites} · "
        f"active plan deleted: {'yes' if s.active_plan_deleted else 'no'} · stuck: {'yes' if s.stuck else 'no'} · "
        f"manual repair: {when(s.repaired_at_s)} · alerts: {s.alerts} · self-repairs: {s.self_repairs} · "
        f"largest lag: {s.max_generation_lag} generations · endpoints that went empty: "
        f"{', '.join(s.endpoints_emptied) or 'none'}"
    )
    automatic, shortened = window_s is None, False
    if automatic:
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
    return [Markdown(text), charts.race_records_chart(states, windows, endpoint=config.regional_endpoint),
            generations]


def race_panel(base: Any = None) -> Panel:
    """Controls for the race lab: one checkbox per guard, the delay, the planner interval, the seed.

    Args:
        base: the :class:`labsupport.race.RaceConfig` to vary (default ``race.INCIDENT``); its first
            entry in ``delays`` is the delayed Enactor whose lock losses the slider sets.

    Controls (every reachable value is a valid config): ``check_version_on_write``,
    ``delete_only_unreferenced``, ``reject_empty_records``, ``self_repair`` (checkboxes),
    ``lock_losses_count`` (0-15 lock losses in a row on each endpoint, the delay's size),
    ``plan_interval_s`` (10-120 s) and ``seed`` (0-99).
    """


    base = race.INCIDENT if base is None else _expect("base", base, race.RaceConfig)
    fault = base.delays[0] if base.delays else race.EnactorDelay(enactor=race.enactor_names(base.enactor_count)[0])
    style = {"description_width": "initial"}
    controls: dict[str, widgets.Widget] = {
        name: widgets.Checkbox(value=getattr(base.guards, name), description=f"{i + 1}: {name}", indent=False)
        for i, name in enumerate(race.GUARD_NAMES)
    }
    controls["lock_losses_count"] = widgets.IntSlider(
        value=fault.lock_losses_count, min=0, max=15, description=f"{fault.enactor}: lock losses in a row",
        style=style, continuous_update=False)
    controls["plan_interval_s"] = widgets.IntSlider(
        value=int(min(max(base.plan_interval_s, 10), 120)), min=10, max=120, step=5,
        description="Planner interval (s)", style=style, continuous_update=False)
    controls["seed"] = widgets.IntSlider(value=min(base.seed, 99), min=0, max=99, description="Seed",
                                         style=style, continuous_update=False)

    def render(lock_losses_count: int, plan_interval_s: int, seed: int, **guards: bool) -> list[Any]:
        cfg = replace(base, guards=race.Guards(**guards), plan_interval_s=float(plan_interval_s), seed=seed,
                      delays=(replace(fault, lock_losses_count=lock_losses_count), *base.delays[1:]))
        return race_view(cfg)

    return make_panel(controls, render)


# --- dwfm ---


def dwfm_panel() -> Panel:
    """The DWFM lab's controls: fleet, outage, deadline, retries, throttle, operators' action time.

    Controls (all bounded so that every reachable setting is a valid
    :class:`labsupport.dwfm.DwfmConfig`): ``fleet_droplets_count`` (500 to 12,000),
    ``outage_min`` (DynamoDB outage from 11:48 PM, 0 to 240 min), ``work_deadline_s`` (120 to
    1,800 s), ``retry_policy``, ``throttle_by_queue_length``, ``queue_limit_count`` (5 to 400) and
    ``operators_at_s`` (when operators throttle and restart hosts, or never). Everything else is
    :data:`labsupport.dwfm.INCIDENT`. Each change re-runs the model and redraws the chart and the
    summary table.
    """



    base = dwfm.INCIDENT
    times = sorted({base.operator_restart_at_s, *(1_800.0 * k + 2_520.0 for k in range(20))})
    style = {"description_width": "initial"}
    controls = {
        "fleet_droplets_count": widgets.IntSlider(value=base.fleet_droplets_count, min=500, max=12_000,
                                                  step=100, description="Fleet (droplets)", style=style),
        "outage_min": widgets.IntSlider(value=round(base.outage_end_s / 60), min=0, max=240,
                                        description="DynamoDB outage (min)", style=style),
        "work_deadline_s": widgets.IntSlider(value=round(base.work_deadline_s), min=120, max=1_800,
                                             step=30, description="Deadline per item (s)", style=style),
        "retry_policy": widgets.Dropdown(options=list(dwfm.RETRY_POLICIES), value=base.retry_policy,
                                         description="Retries", style=style),
        "throttle_by_queue_length": widgets.Checkbox(value=False, description="throttle_by_queue_length"),
        "queue_limit_count": widgets.IntSlider(value=base.queue_limit_count, min=5, max=400, step=5,
                                               description="Queue limit (items)", style=style),
        "operators_at_s": widgets.Dropdown(
            options=[("never", None)] + [(dwfm.clock_pdt(t), t) for t in times],
            value=base.operator_restart_at_s, description="Operators act at", style=style),
    }

    def render(fleet_droplets_count: int, outage_min: int, work_deadline_s: int, retry_policy: str,
               throttle_by_queue_length: bool, queue_limit_count: int,
               operators_at_s: float | None) -> list[Any]:
        cfg = replace(base, fleet_droplets_count=fleet_droplets_count, outage_end_s=60.0 * outage_min,
                      work_deadline_s=float(work_deadline_s), retry_policy=retry_policy,
                      throttle_by_queue_length=throttle_by_queue_length,
                      queue_limit_count=queue_limit_count, operator_restart_at_s=operators_at_s,
                      operator_throttle_at_s=operators_at_s)
        result = dwfm.run(cfg)
        s = result.summary
        table = pd.DataFrame({
            "figure": ["All leases back", "Peak queue (items)", "Work wasted", "Insufficient-capacity launches"],
            "value": [dwfm.clock_pdt(s.recovered_at_s) if s.recovered else "not within the horizon",
                      f"{s.peak_queue_count:,}", f"{s.wasted_fraction:.0%}",
                      f"{s.insufficient_capacity_count:,} of {s.launch_attempts_count:,}"],
        })
        chart = charts.dwfm_timeseries_chart(result.timeseries, outage_s=(cfg.outage_start_s, cfg.outage_end_s),
                                             operator_at_s=operators_at_s)
        return [chart, table]

    return make_panel(controls, render)


# --- explore ---


def explore_panel(base: Any = None, *, max_states: int = 400_000) -> Panel:
    """Controls for the every-interleaving lab: one checkbox per guard and the explorer's bounds.

    Args:
        base: the :class:`labsupport.explore.ExploreConfig` to vary (default ``explore.INCIDENT``).
        max_states: state bound of each check (1-3,000,000); a larger state space is reported in the
            output as a :class:`~labsupport.errors.LimitExceeded` message, never a hang.

    Controls (every reachable value is a valid config): ``check_version_on_write``,
    ``delete_only_unreferenced``, ``reject_empty_records``, ``self_repair`` (checkboxes),
    ``enactor_count`` (1-3), ``generation_count`` (2-6), ``endpoint_count`` (1-2) and
    ``cleanup_keep_generations`` (0-4). Each change re-runs the exhaustive check and shows the
    verdict, the states explored and, if safety fails, the shortest counterexample.
    """



    base = explore.INCIDENT if base is None else _expect("base", base, explore.ExploreConfig)
    base = replace(base, max_states=check_int("max_states", max_states, lo=1, hi=3_000_000))
    style = {"description_width": "initial"}
    controls: dict[str, widgets.Widget] = {
        name: widgets.Checkbox(value=getattr(base, name), description=f"{i + 1}: {name}", indent=False)
        for i, name in enumerate(explore.GUARDS)
    }
    for name, lo, hi, label in (("enactor_count", 1, 3, "Enactors"), ("generation_count", 2, 6, "Plan generations"),
                                ("endpoint_count", 1, 2, "Endpoints"),
                                ("cleanup_keep_generations", 0, 4, "Cleanup keeps (generations)")):
        controls[name] = widgets.IntSlider(value=getattr(base, name), min=lo, max=hi, description=label,
                                           style=style, continuous_update=False)

    def render(**values: Any) -> list[Any]:
        cfg = replace(base, **values)
        try:
            result = explore.run(cfg)
        except LimitExceeded as err:
            # Nothing was verified, so there is nothing to draw: say so instead of an empty chart.
            return [Markdown(f"**Stopped at the bound.** {err}")]
        s = result.summary
        verdict = (f"**{'Safe' if s.safe else 'Unsafe'}; {'recovers' if s.recovers else 'can get stuck'}.** "
                   f"{s.states_count:,} states and {s.transitions_count:,} transitions explored in "
                   f"{s.elapsed_s:.2f} s.")
        grid = charts.explore_verdict_chart(explore.verdict_rows([result]))
        if s.safe:
            return [Markdown(verdict + " No interleaving empties an endpoint."), grid]
        steps = result.events[["step", "actor", "action", "plan_generation", "endpoint", "outcome", "role"]]
        return [Markdown(verdict + f" Shortest counterexample: {s.counterexample_steps_count} steps."),
                grid, charts.explore_sequence_chart(result.events), pd.DataFrame(steps)]

    return make_panel(controls, render, slots=4)


# --- recovery (network, nlb, dns_cache) ---

#: Choices of the NLB lab's failover control: label -> (on at the start, disabled at, re-enabled at).
NLB_FAILOVER_CHOICES: dict[str, tuple[bool, str | None, str | None]] = {
    "on; off 09:36, on again 14:09 (incident)": (True, "09:36", "14:09"),
    "on all day (nobody intervenes)": (True, None, None),
    "off all day": (False, None, None),
}


def nlb_config(base: Any = None, *, backlog_count: int, health_check_interval_s: float,
               limit_capacity_removal: bool, max_removal_fraction: float, failover: str) -> Any:
    """The :class:`labsupport.nlb.NlbConfig` that the NLB lab's controls describe.

    Args:
        base: the config to vary (default ``nlb.INCIDENT``).
        backlog_count: Network Manager's backlog at 5:28 AM (items, 0 to 1,000,000).
        health_check_interval_s: seconds between probes of one target (5 to 300).
        limit_capacity_removal: the velocity control on or off.
        max_removal_fraction: its cap per window (0 to 1).
        failover: a key of :data:`NLB_FAILOVER_CHOICES`. An operator action whose time falls
            after the run's horizon (``base.network.horizon_s``) is left out: within the run it
            never happens, so every choice is valid for any base.

    Raises:
        ValueError: an unknown ``failover`` choice or an out-of-range value.
    """


    base = nlb.INCIDENT if base is None else base
    if not isinstance(base, nlb.NlbConfig):
        raise ConfigError(f"base must be an NlbConfig or None, got {type(base).__name__}")
    check_choice("failover", failover, NLB_FAILOVER_CHOICES)
    health_check_interval_s = check_number("health_check_interval_s", health_check_interval_s, lo=5, hi=300)
    max_removal_fraction = check_number("max_removal_fraction", max_removal_fraction, lo=0, hi=1)
    on, off_at, on_at = NLB_FAILOVER_CHOICES[failover]

    def within_run(clock: str | None) -> float | None:
        t = None if clock is None else pdt_seconds(clock)
        return t if t is not None and t <= base.network.horizon_s else None

    return replace(base, network=replace(base.network, backlog_count=backlog_count),
                   health_check_interval_s=float(health_check_interval_s),
                   limit_capacity_removal=limit_capacity_removal,
                   max_removal_fraction=float(max_removal_fraction), automatic_failover=on,
                   disable_failover_at_s=within_run(off_at), reenable_failover_at_s=within_run(on_at))


def nlb_view(config: Any) -> list[Any]:
    """Run the NLB model once; return ``[chart, summary table]`` for the NLB lab.

    Args:
        config: a :class:`labsupport.nlb.NlbConfig`.
    """


    result = nlb.run(config)
    s, ns = result.summary, result.network.summary

    def clock(t: float | None) -> str:
        return "never" if t is None else f"{START_PDT + pd.Timedelta(seconds=t):%H:%M}"

    table = pd.DataFrame({
        "figure": ["Propagation normal again", "First AZ failover", "Lowest capacity in service",
                   "Highest connection-error rate", f"Time with > {config.error_threshold_fraction:.0%} errors",
                   "Flaps of this NLB's targets", "Worst health-check latency"],
        "value": [clock(ns.propagation_normal_s), clock(s.first_failover_s), f"{s.min_capacity_fraction:.0%}",
                  f"{s.peak_error_fraction:.0%}", f"{s.error_s / 60:.0f} min", f"{s.flaps_count}",
                  f"{s.peak_check_latency_s:.0f} s"],
    })
    actions = {"Failover disabled": config.disable_failover_at_s,
               "Failover re-enabled": config.reenable_failover_at_s}
    chart = charts.nlb_timeseries_chart(result.timeseries, actions=actions,
                                        threshold_s=config.failover_delay_threshold_s)
    return [chart, table]


def nlb_panel(base: Any = None) -> Panel:
    """Controls for the NLB flapping lab.

    Controls (every reachable setting is a valid config for any valid ``base``; a base whose own
    ``max_events`` is lowered can make a fine health-check interval reach that bound, and the panel
    then shows the model's message instead of charts): ``backlog_count``
    (0 to 1,200 items, or to the base network's ``max_events`` if lower),
    ``health_check_interval_s`` (10 to 120 s), ``limit_capacity_removal`` (checkbox),
    ``max_removal_fraction`` (0.05 to 1) and ``failover`` (see :data:`NLB_FAILOVER_CHOICES`; an
    action after the base's horizon is left out, see :func:`nlb_config`).
    Each change re-runs :func:`labsupport.nlb.run` and redraws the chart and the table.

    Args:
        base: the :class:`labsupport.nlb.NlbConfig` to vary (default ``nlb.INCIDENT``).
    """

    base = nlb.INCIDENT if base is None else base
    if not isinstance(base, nlb.NlbConfig):
        raise ConfigError(f"base must be an NlbConfig or None, got {type(base).__name__}")
    top = min(1_200, base.network.max_events)  # a larger backlog would stop at max_events
    style = {"description_width": "initial"}
    controls: dict[str, widgets.Widget] = {
        "backlog_count": widgets.IntSlider(value=min(base.network.backlog_count, top), min=0, max=top,
                                           step=20, description="Backlog at 5:28 (items)", style=style,
                                           continuous_update=False),
        "health_check_interval_s": widgets.IntSlider(
            value=int(min(max(base.health_check_interval_s, 10), 120)), min=10, max=120, step=5,
            description="Health-check interval (s)", style=style, continuous_update=False),
        "limit_capacity_removal": widgets.Checkbox(value=base.limit_capacity_removal,
                                                   description="limit_capacity_removal", indent=False),
        "max_removal_fraction": widgets.FloatSlider(
            value=min(max(base.max_removal_fraction, 0.05), 1.0), min=0.05, max=1.0, step=0.05,
            description="Cap per 15 min", readout_format=".0%", style=style, continuous_update=False),
        "failover": widgets.Dropdown(options=list(NLB_FAILOVER_CHOICES),
                                     value=next(iter(NLB_FAILOVER_CHOICES)),
                                     description="Automatic AZ failover", style=style),
    }

    def render(**values: Any) -> list[Any]:
        return nlb_view(nlb_config(base, **values))

    return make_panel(controls, render)


#: The DNS-cache model's longest horizon (``DnsCacheConfig.horizon_s`` <= 7 days).
_DNS_MAX_HORIZON_S = 7 * 86_400.0


def dns_config(base: Any = None, *, positive_ttl_s: float, negative_ttl_s: float, empty_min: float,
               clients_count: int) -> Any:
    """The :class:`labsupport.dns_cache.DnsCacheConfig` that the DNS lab's controls describe.

    The negative TTL is set through the SOA record's TTL (the SOA MINIMUM stays at its default, so
    ``min(MINIMUM, TTL)`` is the slider's value) and the resolvers' cap is raised to match.

    Args:
        base: the config to vary (default ``dns_cache.INCIDENT``).
        positive_ttl_s: TTL of the address records (1 s to 1 day).
        negative_ttl_s: the negative-caching TTL wanted (1 s to 1 day).
        empty_min: minutes the authoritative answer stays empty (> 0); the horizon is the restore
            plus one hour or two negative TTLs, whichever is longer, but at most the model's 7 days
            (the answer must be restored before that).
        clients_count: clients (1 to 1,000,000).

    Raises:
        ValueError: an out-of-range value.
    """


    base = dns_cache.INCIDENT if base is None else base
    if not isinstance(base, dns_cache.DnsCacheConfig):
        raise ConfigError(f"base must be a DnsCacheConfig or None, got {type(base).__name__}")
    positive_ttl_s = check_number("positive_ttl_s", positive_ttl_s, lo=1, hi=86_400)
    negative_ttl_s = check_number("negative_ttl_s", negative_ttl_s, lo=1, hi=86_400)
    empty_min = check_number("empty_min", empty_min, lo=0, hi=_DNS_MAX_HORIZON_S / 60, lo_open=True)
    clients_count = check_int("clients_count", clients_count, lo=1, hi=1_000_000)
    empty_s = 60.0 * float(empty_min)
    horizon = min(_DNS_MAX_HORIZON_S, base.empty_start_s + empty_s + max(3_600.0, 2.0 * float(negative_ttl_s)))
    return replace(base, positive_ttl_s=float(positive_ttl_s), soa_ttl_s=float(negative_ttl_s),
                   soa_minimum_s=max(base.soa_minimum_s, float(negative_ttl_s)),
                   negative_ttl_cap_s=max(base.negative_ttl_cap_s, float(negative_ttl_s)),
                   empty_duration_s=empty_s, clients_count=int(clients_count), horizon_s=horizon,
                   sample_interval_s=max(10.0, horizon / 4_000))


def dns_view(config: Any) -> list[Any]:
    """Run the DNS-cache model once; return ``[whole-run chart, recovery close-up, summary table]``.

    Args:
        config: a :class:`labsupport.dns_cache.DnsCacheConfig`.
    """


    result = dns_cache.run(config)
    s = result.summary

    def minutes(v: float | None) -> str:
        return "not within the run" if v is None else f"{v / 60:.1f} min"

    label = f"negative TTL {config.negative_ttl_s:.0f} s"
    table = pd.DataFrame({
        "figure": ["Negative-caching TTL", "Clients that failed", "Half failing after",
                   "Restore to half recovered", "Restore to 99 % recovered", "Restore to all recovered"],
        "value": [f"{s.negative_ttl_s:.0f} s", f"{s.failed_count:,} of {config.clients_count:,}",
                  minutes(s.half_failing_after_s), minutes(s.recovery_half_s),
                  minutes(s.recovery_most_s), minutes(s.recovery_all_s)],
    })
    whole = charts.dns_failing_chart({label: result.timeseries}, restored_s=s.restored_s)
    close = charts.dns_failing_chart({label: result.timeseries}, restored_s=s.restored_s,
                                     start_s=max(0.0, s.restored_s - 300.0))
    return [whole, close, table]


def dns_panel(base: Any = None) -> Panel:
    """Controls for the DNS-cache lab.

    Controls (every reachable setting is a valid config for any valid ``base``; a base with lowered
    ``max_refresh_cycles`` or ``max_cache_refreshes`` can reach those bounds, and the panel then
    shows the model's message instead of charts): ``positive_ttl_s`` (5 to 600 s), ``negative_ttl_s`` (60 to 7,200 s), ``empty_min`` (5 to 240
    min, fewer if ``base.empty_start_s`` is so late that the restore must come sooner to fall
    within the model's 7 days) and ``clients_count`` (100 to 50,000). Each change re-runs
    :func:`labsupport.dns_cache.run` and redraws.

    Args:
        base: the :class:`labsupport.dns_cache.DnsCacheConfig` to vary (default the incident).

    Raises:
        ValueError: ``base`` is not a DnsCacheConfig, or its ``empty_start_s`` leaves less than
            two minutes before the 7-day limit (no empty window of a whole minute fits).
    """

    base = dns_cache.INCIDENT if base is None else base
    if not isinstance(base, dns_cache.DnsCacheConfig):
        raise ConfigError(f"base must be a DnsCacheConfig or None, got {type(base).__name__}")
    # The restore must come at least a minute before the 7-day limit, so that some aftermath is run.
    longest = min(240, int((_DNS_MAX_HORIZON_S - base.empty_start_s - 60.0) // 60))
    if longest < 1:
        raise ConfigError(f"base.empty_start_s={base.empty_start_s:g} leaves no room for an empty window of a "
                         f"minute before the model's {_DNS_MAX_HORIZON_S:g} s limit; start it earlier")
    shortest = min(5, longest)
    style = {"description_width": "initial"}
    controls: dict[str, widgets.Widget] = {
        "positive_ttl_s": widgets.IntSlider(value=int(min(max(base.positive_ttl_s, 5), 600)), min=5, max=600,
                                            step=5, description="TTL of the records (s)", style=style,
                                            continuous_update=False),
        "negative_ttl_s": widgets.IntSlider(value=int(min(max(base.negative_ttl_s, 60), 7_200)), min=60,
                                            max=7_200, step=60, description="Negative TTL (s)", style=style,
                                            continuous_update=False),
        "empty_min": widgets.IntSlider(value=int(min(max(round(base.empty_duration_s / 60), shortest), longest)),
                                       min=shortest, max=longest, description="Empty window (min)", style=style,
                                       continuous_update=False),
        "clients_count": widgets.IntSlider(value=min(max(base.clients_count, 100), 50_000), min=100,
                                           max=50_000, step=100, description="Clients", style=style,
                                           continuous_update=False),
    }

    def render(**values: Any) -> list[Any]:
        return dns_view(dns_config(base, **values))

    return make_panel(controls, render)


# --- chain ---


def chain_view(config: Any, *, reference: Any = None) -> list[Any]:
    """Run the chain once; return what the capstone panel shows.

    Args:
        config: a :class:`labsupport.chain.ChainConfig`.
        reference: a :class:`labsupport.chain.ChainResult` to draw beside it (usually the
            incident's, computed once by the caller), or ``None``.

    Returns:
        ``[Markdown summary, stage timeline chart, stage table]``.
    """


    _expect("config", config, chain.ChainConfig)
    if reference is not None:
        _expect("reference", reference, chain.ChainResult)
    result = chain.run(config)
    s = result.summary
    total = format_duration(s.total_s) if s.total_s > 0 else "no stage at all"
    text = (f"**Stop points on:** {s.stop_points} · **whole event: {total}** · DynamoDB unreachable "
            f"{format_duration(s.dynamodb_s)} · launches failing {format_duration(s.launches_s)} · NLB "
            f"connection errors {format_duration(s.nlb_s)} · failing outside us-east-1: "
            f"{s.outside_region_failures_count} services or features")
    table = pd.DataFrame({
        "stage": result.stages["stage"].astype(str),
        "from": result.stages["start_s"].map(chain.clock_pdt),
        "to": result.stages["end_s"].map(chain.clock_pdt),
        "length": result.stages["duration_s"].map(format_duration),
        "worst share failing": result.stages["peak_impact_fraction"].map("{:.0%}".format),
        "what clients see": result.stages["client_view"],
    })
    ref = None if reference is None else reference.stages
    return [Markdown(text), charts.chain_timeline_chart(result.stages, reference=ref), table]


def chain_panel(base: Any = None) -> Panel:
    """Controls for the capstone lab: one checkbox per stop point.

    Args:
        base: the :class:`labsupport.chain.ChainConfig` to vary (default ``chain.INCIDENT``); its
            stop points set the boxes' starting values. The incident (``base`` with no stop points)
            is run once and drawn beside every choice.

    Controls: ``check_version_on_write``, ``delete_only_unreferenced``, ``reject_empty_records``,
    ``self_repair``, ``throttle_recovery_work``, ``isolate_regions`` (checkboxes; every
    combination is a valid config).

    Raises:
        ValueError: ``base`` is not a ChainConfig.
    """


    base = chain.INCIDENT if base is None else base
    if not isinstance(base, chain.ChainConfig):
        raise ConfigError(f"base must be a ChainConfig, got {type(base).__name__}")
    incident = chain.run(replace(base, stop_points=chain.StopPoints()))
    controls: dict[str, widgets.Widget] = {
        name: widgets.Checkbox(value=getattr(base.stop_points, name), indent=False,
                               description=f"{i + 1}: {chain.STOP_POINT_TITLES[i]}",
                               layout=widgets.Layout(width="auto"))
        for i, name in enumerate(chain.STOP_POINT_NAMES)
    }

    def render(**flags: bool) -> list[Any]:
        return chain_view(replace(base, stop_points=chain.StopPoints(**flags)), reference=incident)

    return make_panel(controls, render)
