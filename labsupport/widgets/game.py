"""The game-day lab's panel (lab 07): the clock, investigations and remedies on a chosen system, the pager,
the findings, the dashboards and the debrief.

The facilitated game's printable cards are :mod:`labsupport.widgets.game_cards`, the debrief's
rendering :mod:`labsupport.widgets.game_debrief`.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import pandas as pd
from IPython.display import Markdown

from .. import charts, game
from .._validate import check_bool, check_choice, check_number
from ..errors import ConfigError
from ..game import disguise as _disguise
from ..timeline import format_duration
from .game_debrief import debrief_view
from .panel import Panel, Shown, make_panel

__all__ = ["PROJECTOR_CLASS", "PROJECTOR_ZOOM", "game_panel", "game_view", "relapse_note"]

#: The CSS class the panel's *Projector mode* button puts on the whole panel.
PROJECTOR_CLASS = "labsupport-projector"
#: How much projector mode enlarges the panel: type, buttons and charts alike (CSS ``zoom``, a factor).
PROJECTOR_ZOOM = 1.6
# The panel shows its charts and tables as outputs of its own cell, after the box of controls (each
# through a display handle), so the zoom goes on every output of the cell that holds the box:
# JupyterLab's and Notebook 7's output area, found with :has(). Elsewhere the box alone zooms.
_PROJECTOR_CSS = (
    "<style>"
    f".{PROJECTOR_CLASS} {{ zoom: {PROJECTOR_ZOOM}; }}"
    f".jp-OutputArea .{PROJECTOR_CLASS} {{ zoom: 1; }}"
    f".jp-OutputArea:has(.{PROJECTOR_CLASS}) > .jp-OutputArea-child {{ zoom: {PROJECTOR_ZOOM}; }}"
    "</style>"
)
#: What each verb does to a system, in general words (the buttons' tooltips: never the model's answer).
_TIPS = {
    "edit_dns": "Replace a name's DNS records by hand with the addresses you give",
    "restart_hosts": "Restart a fleet's hosts: they drop what they hold in memory and start again",
    "throttle_work": "Refuse a fleet's incoming work beyond what it can take (admission control)",
    "relax_throttles": "End every throttle in force",
    "automation_off": "Turn off one of a system's automations",
    "automation_on": "Turn one of a system's automations back on",
    "communicate": "Post on the public status page",
    "undo": "Withdraw the last action, if it was taken at this same clock time",
}


def _last(dashboards: pd.DataFrame, signal: str, until_s: float) -> float | None:
    """The dashboard's last value of ``signal`` at or before ``until_s`` (None: none yet)."""
    rows = dashboards[(dashboards["signal"] == signal) & (dashboards["time_s"] <= until_s)]
    return None if rows.empty else float(rows["value"].iloc[-1])


def relapse_note(result: game.GameResult, clock_s: float) -> str:
    """What the model shows when DWFM's queues have filled again after a restart ("" otherwise).

    A restart in effect by ``clock_s`` emptied queues that held work; if, at the clock, they hold
    at least half as much again and not every droplet has a lease, the note says so with the
    dashboards' figures and the model's mechanism: a restart drops the queues, and each droplet
    without a lease asks again at its next state check (every ``state_check_interval_s``, 4 minutes
    in the model); the congestion rebuilds itself (a metastable failure). Where no throttle on
    DWFM's incoming work is in force at the clock, it also says that the hosts then admit every
    request. The summary's account of 4:14 AM (throttling and restarts together) in the model's
    terms; it reveals no AWS time. Names and times are the game's (disguised if it is).

    Args:
        result: a :func:`labsupport.game.play` result.
        clock_s: the game's clock, seconds since its start (the dashboards are read up to it).

    Returns:
        One Markdown paragraph, or ``""`` where the dashboards show no such relapse.

    Raises:
        ConfigError: ``result`` is not a GameResult or ``clock_s`` not a finite number >= 0.
    """
    if not isinstance(result, game.GameResult):
        raise ConfigError(f"result must be a labsupport.game.GameResult, got {type(result).__name__}")
    clock_s = check_number("clock_s", clock_s, lo=0.0)
    acts = result.actions[result.actions["in_effect"] & (result.actions["time_s"] <= clock_s)]
    restarts = acts.loc[acts["action"] == "restart_dwfm", "time_s"]
    if restarts.empty:
        return ""
    restart_s, d = float(restarts.max()), result.dashboards
    before = _last(d, "work queued", restart_s - 1e-9)
    queued = _last(d, "work queued", clock_s)
    leased = _last(d, "droplets with a lease", clock_s)
    if not before or queued is None or leased is None or queued < before / 2 or leased >= 1.0:
        return ""
    dwfm = result.chain.runs.dwfm.config
    throttled = dwfm.operator_throttle_at_s is not None and dwfm.operator_throttle_at_s <= clock_s
    throttled = throttled and (dwfm.operator_throttle_until_s is None or dwfm.operator_throttle_until_s > clock_s)
    unthrottled = (
        "; with no throttle on its incoming work the hosts admit every request, leases time out before they "
        "are established,"
        if not throttled
        else ""
    )
    g = _disguise.of(result.config.disguised)
    check = format_duration(dwfm.state_check_interval_s)
    return g.text(
        f"**What the model shows:** DWFM's queues filled again after the restart at {g.time(restart_s)}: "
        f"{queued:,.0f} items wait at {g.time(clock_s)} ({before:,.0f} before the restart) and {leased:.0%} of "
        "droplets hold a lease. In the model a restart empties the queues, but every droplet without a lease "
        f"asks again at its next state check (every {check}){unthrottled} and the congestion rebuilds itself: a "
        "metastable failure, which the restart alone does not end."
    )


def _status(result: game.GameResult, s: game.Screen) -> str:
    config, d = result.config, s.disguise
    posts = "".join(f"\n- **{r.time}** ({d.text('Health Dashboard')}): {r.text}" for r in s.posts.itertuples())
    where = (
        "**A disguised night**: a real outage replayed with its services renamed and its times shifted; the "
        "debrief reveals which. "
        if d.disguised
        else ""
    )
    text = (
        f"{where}**Clock: {s.clock}** ({format_duration(config.clock_s)} since the start; the game ends at "
        f"{d.time(config.horizon_s)}). Dashboards, alarms and findings are the chain model's; posts are "
        f"{'the status page' if d.disguised else 'the Health Dashboard'}'s, made during the night at their times. "
        "An action takes effect from the clock's time; an investigation moves the clock on until its result is "
        f"back.\n\n**Public posts so far:**{posts or ' none yet.'}\n\n**Alarms firing: {len(s.firing)}**"
        + (", newest first:" if len(s.firing) else ".")
    )
    note = relapse_note(result, config.clock_s)
    return text + ("\n\n" + note if note else "")


def _unnumbered(table: pd.DataFrame) -> pd.DataFrame:
    """The table with a blank index: a row number beside an alarm or a finding reads as a rank."""
    return table.set_axis([""] * len(table))


def game_view(config: game.GameConfig, *, debrief: bool = False, system: str = "") -> list[Shown]:
    """Play ``config`` and return what the game panel shows, in the game's names (disguised if it is).

    Args:
        config: a :class:`labsupport.game.GameConfig`.
        debrief: also show the debrief (the verdict, the notes, the impact and the stage ends beside
            AWS's play, the reveal of a disguised night, the night's code, the debrief chart).
        system: the system the panel's buttons apply to (a key of :data:`labsupport.game.SYSTEMS`),
            named with what it is at the top of the status; ``""`` for none.

    Returns:
        ``[Markdown status and posts, the pager (firing alarms, newest first), the findings, dashboard
        chart, the log]``, then, with ``debrief``, :func:`labsupport.widgets.game_debrief.debrief_view`'s four.

    Raises:
        ConfigError: ``config`` is not a GameConfig, ``debrief`` is not a bool, or ``system`` is not
            one of the game's systems (nor ``""``).
    """
    if not isinstance(config, game.GameConfig):
        raise ConfigError(f"config must be a GameConfig, got {type(config).__name__}")
    debrief = check_bool("debrief", debrief)
    if system != "":
        check_choice("system", system, tuple(game.SYSTEMS))
    result = game.play(config)
    s = game.screen(result)
    pager = _unnumbered(s.firing[["since", "alarm"]].rename(columns={"since": "firing since"}))
    findings: Shown = (
        _unnumbered(s.findings[["time", "asked", "finding"]])
        if len(s.findings)
        else Markdown("**Findings:** none yet. Choose a system and investigate: each look costs game time.")
    )
    chart = charts.game_dashboard_chart(s.dashboards, clock=s.disguise.clock, time_title=s.disguise.time_title)
    focus = f"**System:** {s.disguise.text(f'{system}, {game.SYSTEMS[system]}')}.\n\n" if system else ""
    status = Markdown(focus + _status(result, s))
    items: list[Shown] = [status, pager, findings, chart, _unnumbered(s.log[["time", "action", "outcome"]])]
    if debrief:
        items += debrief_view(result)
    return items


def _log_widget(config: game.GameConfig, label: Any) -> widgets.SelectMultiple:
    return widgets.SelectMultiple(
        options=[label(e) for e in config.actions],
        value=tuple(config.actions),
        description="Actions taken",
        style={"description_width": "initial"},  # the whole label, not "Actions ta..."
        rows=6,
        layout=widgets.Layout(width="min(100%, 36rem)"),
    )


def _button(words: str, tip: str, style: str = "") -> widgets.Button:
    return widgets.Button(description=words, tooltip=tip, button_style=style, layout=widgets.Layout(width="auto"))


def _check(config: object, projector: object) -> game.GameConfig:
    config = game.GameConfig() if config is None else config
    if not isinstance(config, game.GameConfig):
        raise ConfigError(f"config must be a GameConfig, got {type(config).__name__}")
    check_bool("projector", projector)
    grid_s = int(min(game.STEPS_S))  # the clock slider moves in the game's smallest step
    for name, value in (("clock_s", config.clock_s), ("horizon_s", config.horizon_s)):
        if value % grid_s:
            raise ConfigError(
                f"the panel's {name} must be a whole number of {grid_s // 60}-minute steps ({grid_s} s), got {value:g}"
            )
    if len(set(config.actions)) < len(config.actions):
        raise ConfigError("the panel's log cannot show the same (time_s, action) entry twice; give each once")
    return config


def game_panel(config: game.GameConfig | None = None, *, projector: bool = False) -> Panel:
    """The game: the clock, a system to look at or act on, investigations, remedies, and a debrief.

    Args:
        config: where to start (default: no actions, the night's start); ``config.disguised`` plays
            the disguised night (names and times changed, revealed at the debrief).
        projector: start in projector mode (the *Projector mode* button pressed).

    Controls: ``clock_s`` (a slider the clock buttons move, 0 to the horizon in 5-minute steps, its
    value in seconds and its readout the game's clock time, "1:23 AM"; a facilitator may drag it to
    jump; an action is taken at the time it shows), ``log`` (the actions
    taken so far, each selected; unselecting one withdraws it), ``debrief`` (checkbox: show the
    debrief), ``system`` (the system the investigation and remedy buttons apply to, named at the top of
    the status; a button the game has no such pair for is greyed out; also ``panel.system``). Every
    reachable value is a valid :class:`labsupport.game.GameConfig`. Beside them: ``panel.verbs`` (verb
    -> button: the investigations of :data:`labsupport.game.INVESTIGATIONS`, which take an entry and
    move the clock on by their cost, and the remedies of :data:`labsupport.game.REMEDIES`, relax, a
    status update and undo), ``panel.steps`` (clock steps) and ``panel.projector`` (a toggle button,
    *Projector mode*, that enlarges the whole panel :data:`PROJECTOR_ZOOM` times, the
    :data:`PROJECTOR_CLASS` class on ``panel.box``; it changes no result).

    Raises:
        ConfigError: ``config`` is not a GameConfig (or one the panel cannot show: off its 5-minute
            grid, or an entry twice), or ``projector`` is not a bool.
    """
    config = _check(config, projector)
    d = _disguise.of(config.disguised)
    labels = {a.name: d.text(a.label) for a in game.ACTIONS}

    def option(entry: tuple[float, str]) -> tuple[str, tuple[float, str]]:
        return (f"{d.time(entry[0])} · {labels[entry[1]]}", entry)

    log = _log_widget(config, option)
    step_s = int(min(game.STEPS_S))
    clock = widgets.SelectionSlider(  # its value in seconds, its readout the game's clock time
        options=[(d.time(float(t)), t) for t in range(0, int(config.horizon_s) + 1, step_s)],
        index=int(config.clock_s) // step_s,  # by index: given value=0, ipywidgets 8 leaves its label empty
        description="Clock",
    )
    controls: dict[str, widgets.Widget] = {
        "clock_s": clock,
        "log": log,
        "debrief": widgets.Checkbox(value=False, description="Debrief (reveals the score)", indent=False),
        "system": widgets.Dropdown(
            options=[(d.text(s), s) for s in game.SYSTEMS], value="DynamoDB", description="System"
        ),
    }

    def render(clock_s: int, log: tuple[tuple[float, str], ...], debrief: bool, system: str) -> list[Shown]:
        actions = tuple(sorted(log, key=place))
        played = game.GameConfig(
            actions=actions, clock_s=float(clock_s), horizon_s=config.horizon_s, disguised=config.disguised
        )
        return game_view(played, debrief=debrief, system=system)

    def place(entry: tuple[float, str]) -> int:
        """The entry's place in the log's list. That order is the order of play and of the clicks (an
        action taken again moves to the end): a browser sends a selection back in list order, the
        kernel in the order it was set, and actions at one time are played in the order given."""
        return [value for _, value in log.options].index(entry)

    panel = make_panel(controls, render, slots=9)
    _wire(panel, d, option, place, projector)
    return panel


def _horizon(clock: widgets.SelectionSlider) -> int:
    """The clock slider's last value: the game's horizon, seconds."""
    return int(clock.options[-1][1])


def _take(panel: Panel, option: Any, place: Any, name: str, cost_s: float) -> None:
    """One click of an action: an entry at the clock's time (an undo withdraws instead), and the clock
    moved on by an investigation's cost; one redraw."""
    log, clock = panel.controls["log"], panel.controls["clock_s"]
    entry = (float(clock.value), name)
    if name == "undo":
        taken = [e for e in log.value if e[1] != "undo"]  # an "undo" in a given log is not undone
        last = max(taken, key=lambda e: (e[0], place(e))) if taken else None
        if last is not None and last[0] == entry[0]:  # taken at this clock time: nothing shown since
            log.value = tuple(e for e in log.value if e != last)
            return
        # Taken earlier (it has been in force since) or nothing to undo: the log says so
        # (labsupport.game.engine.fold); nothing changes back in time.
    if entry in log.value:  # taken at this time already
        return
    # New, or taken at this time before and then undone: at the end of the list, as the latest click.
    # Changing the options empties the selection: one redraw, at the end.
    kept = tuple(log.value)
    with panel.batch():
        log.options = [o for o in log.options if o[1] != entry] + [option(entry)]
        log.value = (*kept, entry)
        clock.value = min(clock.value + int(cost_s), _horizon(clock))


def _verb_buttons(d: _disguise.Disguise) -> dict[str, widgets.Button]:
    """One button per verb: the investigations (with their cost), the remedies, then relax, update, undo."""
    buttons = {
        v: _button(f"{game.VERBS[v]} ({int(c // 60)} min)", "Takes game time: the clock moves on until it is back", "")
        for v, c in game.INVESTIGATIONS.items()
    }
    for v in (*game.REMEDIES, "communicate", "undo"):
        buttons[v] = _button(game.VERBS[v], d.text(_TIPS[v]), "warning" if v in game.REMEDIES else "")
    return buttons


def _wire(panel: Panel, d: _disguise.Disguise, option: Any, place: Any, projector: bool) -> None:
    """The panel's buttons, system dropdown and projector toggle, around its controls."""
    system = panel.controls["system"]
    verbs = _verb_buttons(d)

    def chosen(verb: str) -> game.Action | None:
        return game.action_for(verb, "") or game.action_for(verb, system.value)

    def click(verb: str) -> Any:
        def on_click(_button: Any) -> None:
            action = chosen(verb)
            if action is not None:
                _take(panel, option, place, action.name, action.cost_s)

        return on_click

    def enable(_change: Any = None) -> None:
        for verb, b in verbs.items():
            b.disabled = chosen(verb) is None

    for verb, b in verbs.items():
        b.on_click(click(verb))
    system.observe(enable, names="value")
    enable()
    clock = panel.controls["clock_s"]

    def step(seconds: int) -> Any:
        def on_click(_button: Any) -> None:
            clock.value = min(clock.value + seconds, _horizon(clock))

        return on_click

    steps = {s: _button(f"+{int(s) // 60} min", "Advance the clock", "info") for s in game.STEPS_S}
    for s, b in steps.items():
        b.on_click(step(int(s)))
    toggle = widgets.ToggleButton(
        value=projector,
        description="Projector mode",
        tooltip="Enlarge the whole panel for a room that reads one screen (close JupyterLab's left sidebar "
        "so that the charts fit); changes no result",
        icon="expand",
        layout=widgets.Layout(width="auto"),
    )
    row = widgets.Layout(display="flex", flex_flow="row wrap", width="100%", align_items="center")
    investigations = [verbs[v] for v in game.INVESTIGATIONS]
    remedies = [verbs[v] for v in (*game.REMEDIES, "communicate", "undo")]
    panel.box = widgets.VBox(
        [
            widgets.HTML(_PROJECTOR_CSS),
            toggle,
            widgets.Box([widgets.HTML("<b>Advance the clock:</b>"), *steps.values()], layout=row),
            widgets.Box([system, widgets.HTML("<b>Investigate it (takes time):</b>"), *investigations], layout=row),
            widgets.Box([widgets.HTML("<b>Act (at the clock's time):</b>"), *remedies], layout=row),
            widgets.Box([panel.controls[n] for n in ("clock_s", "log", "debrief")], layout=row),
        ]
    )

    def show_projector(change: dict[str, Any]) -> None:
        (panel.box.add_class if change["new"] else panel.box.remove_class)(PROJECTOR_CLASS)

    toggle.observe(show_projector, names="value")
    show_projector({"new": toggle.value})
    panel.projector = toggle  # type: ignore[attr-defined]
    panel.system = system  # type: ignore[attr-defined]
    panel.verbs = verbs  # type: ignore[attr-defined]
    panel.steps = steps  # type: ignore[attr-defined]
