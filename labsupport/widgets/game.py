"""The game-day lab's panel (lab 07): action buttons, clock buttons, dashboards, and the debrief."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import pandas as pd
from IPython.display import Markdown

from .. import charts, game
from ..errors import ConfigError
from ..timeline import format_duration
from .panel import Panel, Shown, make_panel

__all__ = ["game_panel", "game_view"]


def _aws_actions() -> pd.DataFrame:
    played = game.play(game.GameConfig(actions=game.AWS_ACTIONS)).actions
    return played.loc[played["in_effect"], ["time_s", "label"]].reset_index(drop=True)


def _when(t: float) -> str:
    return game.CLOCK.time_of_day(t)


def game_view(config: game.GameConfig, *, debrief: bool = False) -> list[Shown]:
    """Play ``config`` and return what the game panel shows.

    Args:
        config: a :class:`labsupport.game.GameConfig`.
        debrief: also show the score and the debrief chart (which reveal AWS's real times).

    Returns:
        ``[Markdown status and posts, dashboard chart, actions table]``, then, with ``debrief``,
        ``[Markdown score, score table, debrief chart]``.
    """
    result = game.play(config)
    c = config.clock_s
    posts = "".join(f"\n- **{r.time}** (Health Dashboard, [{r.tag}]): {r.event}" for r in result.feed.itertuples())
    text = (
        f"**Clock: {_when(c)}** ({format_duration(c)} since 11:48 PM; the game ends at "
        f"{_when(config.horizon_s)}). Dashboards are the chain model's; posts are the real ones, at their "
        f"real times.\n\n**Public posts so far:**{posts or ' none yet.'}"
    )
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
        s = result.summary
        total = format_duration(s.total_s) if s.total_s is not None else "not over by the horizon"
        whole = result.score[result.score["stage"] == "Whole event"]
        aws_total = format_duration(float(whole["aws_end_s"].iloc[0]))
        score = result.score.assign(
            yours=[_when(v) if v == v else "not yet" for v in result.score["player_end_s"]],
            aws=[_when(v) for v in result.score["aws_end_s"]],
            saved=[
                format_duration(abs(v)) + (" sooner" if v >= 0 else " later") if v == v else "n/a"
                for v in result.score["saved_s"]
            ],
        )[["stage", "yours", "aws", "aws_tag", "saved"]]
        items += [
            Markdown(
                f"**Debrief.** Whole event (model): **{total}**; AWS's (summary): {aws_total}. "
                f"Refused launches (model): {s.refused_launches_count:,}; NLB health-check flaps "
                f"(model): {s.health_check_flaps_count:,}."
                + (" Automatic failover was left disabled." if s.failover_left_disabled else "")
            ),
            score,
            charts.game_debrief_chart(result.chain.stages, result.actions, aws_actions=_aws_actions()),
        ]
    return items


def game_panel(config: game.GameConfig | None = None) -> Panel:
    """The game: buttons for the operators' actions and for the clock, dashboards, and a debrief.

    Args:
        config: where to start (default: no actions, 11:48 PM).

    Controls: ``clock_s`` (a slider the clock buttons move, 0 to the horizon in 5-minute steps; a
    facilitator may drag it to jump, an action is taken at the time it shows), ``log`` (the actions taken so far, each
    selected; unselecting one withdraws it), ``debrief`` (checkbox: show the score). Every
    reachable value is a valid :class:`labsupport.game.GameConfig`. Buttons: one per action of
    :data:`labsupport.game.ACTIONS` (taken at the clock's time), and one per clock step.

    Raises:
        ConfigError: ``config`` is not a GameConfig.
    """
    config = game.GameConfig() if config is None else config
    if not isinstance(config, game.GameConfig):
        raise ConfigError(f"config must be a GameConfig, got {type(config).__name__}")
    horizon = config.horizon_s

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
        value=int(config.clock_s) // 300 * 300,
        min=0,
        max=int(horizon) // 300 * 300,
        step=300,
        description="Clock (s since 11:48 PM)",
    )
    debrief = widgets.Checkbox(value=False, description="Debrief (reveals the score)", indent=False)
    controls: dict[str, widgets.Widget] = {"clock_s": clock, "log": log, "debrief": debrief}

    def render(clock_s: int, log: tuple[tuple[float, str], ...], debrief: bool) -> list[Shown]:
        return game_view(
            game.GameConfig(actions=tuple(log), clock_s=float(clock_s), horizon_s=horizon), debrief=debrief
        )

    panel = make_panel(controls, render, slots=6)

    def take(name: str) -> Any:
        def on_click(_button: Any) -> None:
            if name == "undo":
                if log.value:
                    last = max(log.value, key=lambda e: (e[0], list(log.options).index(option(e))))
                    log.value = tuple(e for e in log.value if e != last)
                return
            entry = (float(clock.value), name)
            if entry not in [o[1] for o in log.options]:
                kept = tuple(log.value)
                log.options = [*log.options, option(entry)]
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
    panel.box = widgets.VBox(
        [
            widgets.HTML("<b>Advance the clock:</b>"),
            widgets.Box(steps, layout=row),
            widgets.HTML("<b>Act (at the clock's time):</b>"),
            widgets.Box(buttons, layout=row),
            panel.box,
        ]
    )
    panel.buttons = {a.name: b for a, b in zip(game.ACTIONS, buttons, strict=True)}  # type: ignore[attr-defined]
    panel.steps = dict(zip(game.STEPS_S, steps, strict=True))  # type: ignore[attr-defined]
    return panel
