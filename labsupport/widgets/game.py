"""The game-day lab's panel (lab 07): action buttons, clock buttons, dashboards, and the debrief.

The facilitated game's printable cards are :mod:`labsupport.widgets.game_cards`.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import pandas as pd
from IPython.display import Markdown

from .. import charts, game
from .._validate import check_bool, check_number
from ..chain import STAGES
from ..errors import ConfigError
from ..timeline import format_duration
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


def _aws_actions() -> pd.DataFrame:
    played = game.play(game.GameConfig(actions=game.AWS_ACTIONS)).actions
    return played.loc[played["in_effect"], ["time_s", "label"]].reset_index(drop=True)


def _within(stages: pd.DataFrame, horizon_s: float) -> pd.DataFrame:
    """The game's stages as the players lived them: those begun before the horizon, cut at it."""
    begun = stages[stages["start_s"] < horizon_s]
    return begun.assign(end_s=begun["end_s"].clip(upper=horizon_s))


def _when(t: float) -> str:
    return game.CLOCK.time_of_day(t)


def _last(dashboards: pd.DataFrame, signal: str, until_s: float) -> float | None:
    """The dashboard's last value of ``signal`` at or before ``until_s`` (None: none yet)."""
    rows = dashboards[(dashboards["signal"] == signal) & (dashboards["time_s"] <= until_s)]
    return None if rows.empty else float(rows["value"].iloc[-1])


def relapse_note(result: game.GameResult, clock_s: float) -> str:
    """What the model shows when DWFM's queues have filled again after a restart ("" otherwise).

    A restart in effect by ``clock_s`` emptied queues that held work; if, at the clock, they hold
    at least half as much again and not every droplet has a lease, the note says so with the
    dashboards' figures and the model's mechanism (congestion that rebuilds itself: a metastable
    failure). Where no throttle on incoming work was taken (in the model DWFM's throttle, once
    taken, stays: relaxing the throttles unwinds EC2's refused launches), it also says that the
    hosts then admit every request. The summary's account of 4:14 AM (throttling and restarts
    together) in the model's terms; it reveals no AWS time.

    Args:
        result: a :func:`labsupport.game.play` result.
        clock_s: the game's clock, seconds since 11:48 PM (the dashboards are read up to it).

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
    unthrottled = (
        "; with no throttle on incoming work the hosts admit every request, leases time out before they "
        "are established,"
        if not (acts["action"] == "throttle_ec2").any()
        else ""
    )
    return (
        f"**What the model shows:** DWFM's queues filled again after the restart at {_when(restart_s)}: "
        f"{queued:,.0f} items wait at {_when(clock_s)} ({before:,.0f} before the restart) and {leased:.0%} of "
        "droplets hold a lease. In the model a restart empties the queues, but every droplet without a lease "
        f"asks again at once{unthrottled} and the congestion rebuilds itself: a metastable failure, which the "
        "restart alone does not end."
    )


def game_view(config: game.GameConfig, *, debrief: bool = False) -> list[Shown]:
    """Play ``config`` and return what the game panel shows.

    Args:
        config: a :class:`labsupport.game.GameConfig`.
        debrief: also show the score and the debrief chart (which reveal AWS's real times).

    Returns:
        ``[Markdown status and posts, dashboard chart, actions table]``, then, with ``debrief``,
        ``[Markdown score, score table, debrief chart]``.

    Raises:
        ConfigError: ``config`` is not a GameConfig, or ``debrief`` is not a bool.
    """
    if not isinstance(config, game.GameConfig):
        raise ConfigError(f"config must be a GameConfig, got {type(config).__name__}")
    debrief = check_bool("debrief", debrief)
    result = game.play(config)
    c = config.clock_s
    posts = "".join(f"\n- **{r.time}** (Health Dashboard, [{r.tag}]): {r.event}" for r in result.feed.itertuples())
    text = (
        f"**Clock: {_when(c)}** ({format_duration(c)} since 11:48 PM; the game ends at "
        f"{_when(config.horizon_s)}). Dashboards are the chain model's; posts are the Health Dashboard's "
        f"real posts of the night, at their real times. An action takes effect from the clock's time: "
        f"advance the clock to see it on the dashboards.\n\n**Public posts so far:**{posts or ' none yet.'}"
    )
    note = relapse_note(result, c)
    if note:
        text += "\n\n" + note
    acts = result.actions
    table = pd.DataFrame(
        {
            "time": acts["time_s"].map(_when),
            "action": acts["label"],
            "outcome": acts["outcome"],
            "effect in the model": acts["effect"],
        }
    )
    items: list[Shown] = [Markdown(text), charts.game_dashboard_chart(result.dashboards), table]
    if debrief:
        items += _debrief(result, config.horizon_s)
    return items


def _debrief(result: game.GameResult, horizon_s: float) -> list[Shown]:
    """The debrief's score text, score table and chart (they reveal AWS's real times)."""
    s = result.summary
    total = (
        format_duration(s.total_s)
        if s.total_s is not None
        else f"not over by the game's end ({_when(horizon_s)}) with the actions taken so far"
    )
    whole = result.score[result.score["stage"] == "Whole event"]
    absent = set(STAGES) - set(result.chain.stages["stage"].astype(str))
    aws_total = format_duration(float(whole["aws_end_s"].iloc[0]))
    score = result.score.assign(
        yours=[
            _yours(stage, v, absent, horizon_s)
            for stage, v in zip(result.score["stage"], result.score["player_end_s"], strict=True)
        ],
        aws=[_when(v) for v in result.score["aws_end_s"]],
        saved=[
            format_duration(abs(v)) + (" sooner" if v >= 0 else " later") if v == v else "n/a"
            for v in result.score["saved_s"]
        ],
    )[["stage", "yours", "aws", "aws_tag", "saved"]]
    return [
        Markdown(
            f"**Debrief.** Whole event (model): **{total}**; AWS's (summary): {aws_total}. "
            f"Refused launches (model): {s.refused_launches_count:,}; NLB health-check flaps "
            f"(model): {s.health_check_flaps_count:,}."
            + (" Automatic failover was left disabled." if s.failover_left_disabled else "")
            + "\n\n"
            + _afterwards()
        ),
        score,
        charts.game_debrief_chart(_within(result.chain.stages, horizon_s), result.actions, aws_actions=_aws_actions()),
    ]


def _yours(stage: str, end_s: float, absent: set[str], horizon_s: float) -> str:
    """The debrief's words for the team's end of one score row."""
    if end_s == end_s:
        return _when(end_s)
    if stage == "First status update":
        return "none posted"
    return "never began" if stage in absent else f"not over by {_when(horizon_s)}"


def _afterwards() -> str:
    """What the debrief adds that nobody had on the night: the Dashboard's final summary, AWS's undated actions."""
    lines = "".join(
        f"\n- **{r.time}** ({r.source}, [{r.tag}]): {r.event}" for r in game.engine.final_summary().itertuples()
    )
    unconfirmed = "".join(f"\n- {a.label}: {a.aws_note}" for a in game.ACTIONS if a.aws_note)
    return (
        "**Written afterwards.** The Health Dashboard's final summary, not posted during the night (its times "
        f"differ from the post-event summary's):{lines}"
        + (f"\n\n**No time in the sources:**{unconfirmed}" if unconfirmed else "")
    )


def game_panel(config: game.GameConfig | None = None, *, projector: bool = False) -> Panel:
    """The game: buttons for the operators' actions and for the clock, dashboards, and a debrief.

    Args:
        config: where to start (default: no actions, 11:48 PM).
        projector: start in projector mode (the *Projector mode* button pressed).

    Controls: ``clock_s`` (a slider the clock buttons move, 0 to the horizon in 5-minute steps; a
    facilitator may drag it to jump, an action is taken at the time it shows), ``log`` (the actions taken so far, each
    selected; unselecting one withdraws it), ``debrief`` (checkbox: show the score). Every
    reachable value is a valid :class:`labsupport.game.GameConfig`. Beside them, ``panel.projector``
    (a toggle button, *Projector mode*) enlarges the whole panel :data:`PROJECTOR_ZOOM` times for a room
    that reads it from one screen (the :data:`PROJECTOR_CLASS` class on ``panel.box``): in JupyterLab
    and Notebook 7 its controls, charts and tables; in other front ends its controls only. It changes
    no result. Buttons: one per action of
    :data:`labsupport.game.ACTIONS` (taken at the clock's time), and one per clock step.

    Raises:
        ConfigError: ``config`` is not a GameConfig, or ``projector`` is not a bool.
    """
    config = game.GameConfig() if config is None else config
    if not isinstance(config, game.GameConfig):
        raise ConfigError(f"config must be a GameConfig, got {type(config).__name__}")
    projector = check_bool("projector", projector)
    horizon = config.horizon_s
    grid_s = int(min(game.STEPS_S))  # the clock slider moves in the game's smallest step
    for name, value in (("clock_s", config.clock_s), ("horizon_s", horizon)):
        if value % grid_s:
            raise ConfigError(
                f"the panel's {name} must be a whole number of {grid_s // 60}-minute steps ({grid_s} s), got {value:g}"
            )
    if len(set(config.actions)) < len(config.actions):
        raise ConfigError("the panel's log cannot show the same (time_s, action) entry twice; give each once")

    def option(entry: tuple[float, str]) -> tuple[str, tuple[float, str]]:
        label = {a.name: a.label for a in game.ACTIONS}[entry[1]]
        return (f"{_when(entry[0])} · {label}", entry)

    log = widgets.SelectMultiple(
        options=[option(e) for e in config.actions],
        value=tuple(config.actions),
        description="Actions taken",
        style={"description_width": "initial"},  # the whole label, not "Actions ta..."
        rows=6,
        layout=widgets.Layout(width="min(100%, 36rem)"),
    )
    clock = widgets.IntSlider(
        value=int(config.clock_s),
        min=0,
        max=int(horizon),
        step=grid_s,
        description="Clock (s since 11:48 PM)",
    )
    debrief = widgets.Checkbox(value=False, description="Debrief (reveals the score)", indent=False)
    controls: dict[str, widgets.Widget] = {"clock_s": clock, "log": log, "debrief": debrief}

    def place(entry: tuple[float, str]) -> int:
        """The entry's place in the log's list. That order is the order of play and of the clicks (an
        action taken again moves to the end): a browser sends a selection back in list order, the
        kernel in the order it was set, and actions at one time are played in the order given."""
        return [value for _, value in log.options].index(entry)

    def render(clock_s: int, log: tuple[tuple[float, str], ...], debrief: bool) -> list[Shown]:
        actions = tuple(sorted(log, key=place))
        return game_view(game.GameConfig(actions=actions, clock_s=float(clock_s), horizon_s=horizon), debrief=debrief)

    panel = make_panel(controls, render, slots=6)

    def take(name: str) -> Any:
        def on_click(_button: Any) -> None:
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
            # New, or taken at this time before and then undone: at the end of the list, as the
            # latest click. Changing the options empties the selection: one redraw, at the end.
            kept = tuple(log.value)
            with panel.batch():
                log.options = [o for o in log.options if o[1] != entry] + [option(entry)]
                log.value = (*kept, entry)

        return on_click

    def step(seconds: int) -> Any:
        def on_click(_button: Any) -> None:
            clock.value = min(clock.value + seconds, clock.max)

        return on_click

    buttons = []
    for a in game.ACTIONS:
        b = widgets.Button(description=a.label, tooltip=a.effect, layout=widgets.Layout(width="auto"))
        b.on_click(take(a.name))
        buttons.append(b)
    steps = []
    for s in game.STEPS_S:
        b = widgets.Button(description=f"+{int(s) // 60} min", button_style="info", layout=widgets.Layout(width="auto"))
        b.on_click(step(int(s)))
        steps.append(b)
    row = widgets.Layout(display="flex", flex_flow="row wrap", width="100%")
    projector_box = widgets.ToggleButton(
        value=projector,
        description="Projector mode",
        tooltip="Enlarge the whole panel for a room that reads one screen (close JupyterLab's left sidebar "
        "so that the charts fit); changes no result",
        icon="expand",
        layout=widgets.Layout(width="auto"),
    )
    panel.box = widgets.VBox(
        [
            widgets.HTML(_PROJECTOR_CSS),
            projector_box,
            widgets.HTML("<b>Advance the clock:</b>"),
            widgets.Box(steps, layout=row),
            widgets.HTML("<b>Act (at the clock's time):</b>"),
            widgets.Box(buttons, layout=row),
            panel.box,
        ]
    )

    def show_projector(change: dict[str, Any]) -> None:
        (panel.box.add_class if change["new"] else panel.box.remove_class)(PROJECTOR_CLASS)

    projector_box.observe(show_projector, names="value")
    show_projector({"new": projector_box.value})
    panel.projector = projector_box  # type: ignore[attr-defined]
    panel.buttons = {a.name: b for a, b in zip(game.ACTIONS, buttons, strict=True)}  # type: ignore[attr-defined]
    panel.steps = dict(zip(game.STEPS_S, steps, strict=True))  # type: ignore[attr-defined]
    return panel
