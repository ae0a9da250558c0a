"""The core of every lab panel: :class:`Panel` and :func:`make_panel` (controls -> render -> outputs)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import altair as alt
import ipywidgets as widgets
import pandas as pd
from IPython.display import DisplayHandle, Markdown, display

from ..errors import ConfigError

__all__ = ["LiveChart", "Panel", "Shown", "dropdown", "expect", "int_slider", "make_panel"]

#: What a panel's render function returns, item by item: charts, tables and Markdown text.
Shown = alt.TopLevelMixin | pd.DataFrame | Markdown

_T = TypeVar("_T")


def expect(name: str, value: object, kind: type[_T]) -> _T:
    """Return ``value`` if it is a ``kind``; otherwise raise ConfigError naming the argument."""
    if not isinstance(value, kind):
        raise ConfigError(f"{name} must be a {kind.__module__}.{kind.__name__}, got {type(value).__name__}")
    return value


def int_slider(value: float, lo: int, hi: int, description: str, *, step: int = 1) -> widgets.IntSlider:
    """An integer slider from ``lo`` to ``hi`` (in the unit its description names) that starts at ``value``.

    A ``value`` outside the range (a base config of the learner's own) starts the slider at the
    nearer end, so the control never shows a setting it cannot produce. :class:`Panel` makes every
    slider run the model once per release, not once per drag step.
    """
    return widgets.IntSlider(value=int(min(max(value, lo), hi)), min=lo, max=hi, step=step, description=description)


class _NoneChoice:
    """The option value a :func:`dropdown` gives its ``None`` choice (ipywidgets 8 shows ``None`` as blank)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<the None choice>"


_NONE = _NoneChoice()


def dropdown(choices: list[tuple[str, Any]], value: Any, description: str) -> widgets.Dropdown:
    """A dropdown of ``(label, value)`` choices that starts at ``value``; a choice's value may be ``None``.

    ipywidgets 8 reads a Dropdown whose value is ``None`` as "nothing selected" and shows an empty
    box, so a choice such as "none" or "never" would show blank. The dropdown holds a stand-in for
    ``None``; :func:`make_panel` hands the render function ``None`` itself.

    Raises:
        ConfigError: when ``value`` is not one of the choices' values, or two choices' values compare
            equal (``0 == False``, ``1 == 1.0``): ipywidgets finds a choice by its value and would
            show and hand on the first of them.
    """
    values = [v for _, v in choices]
    if value not in values:
        raise ConfigError(f"{description}: the start value {value!r} is not one of the choices {values!r}")
    held = [_NONE if v is None else v for v in values]  # what the widget holds: no None
    for i, j in itertools.combinations(range(len(held)), 2):
        if held[i] == held[j]:
            raise ConfigError(
                f"{description}: the choices {choices[i][0]!r} and {choices[j][0]!r} have equal values"
                f" ({values[i]!r} == {values[j]!r}), which a dropdown cannot tell apart"
            )
    return widgets.Dropdown(
        options=[(label, v) for (label, _), v in zip(choices, held, strict=True)],
        value=held[values.index(value)],
        description=description,
    )


@dataclass
class Panel:
    """A lab's controls, the outputs they redraw, and the function that redraws them.

    Displaying a panel shows its controls, then one output per item that ``update`` returns, each
    through an IPython display handle (``display(item, display_id=True)``). A change of a control
    replaces those outputs in place (``update_display_data``), which every notebook front end
    supports (JupyterLab, Notebook 7, VS Code, Colab). A table or a Markdown text that would show
    exactly what its output already shows (the same HTML and plain text) is not sent again, as lab
    07's table of actions on a step of the clock: the front end would only redraw the same thing,
    and in JupyterLab that redraw came after the chart's and was the last thing a learner waited
    for. A chart is always sent again, so every move of a control shows as a new drawing even where
    the model's result is the same. :meth:`batch` changes several controls with one redraw. Tables
    and texts are sent before charts. A panel shown again (another cell) reuses its display ids, so
    every copy is redrawn.

    The panel deliberately uses no ``ipywidgets.Output``: when a notebook is executed headless (the
    book build through MyST-NB and nbclient), nbclient imitates every Output widget by sending a
    ``comm_msg`` on the kernel's shell socket while it is still waiting on that socket for the
    cell's ``execute_reply``; with pyzmq's edge-triggered sockets that reply can then go unnoticed
    until the cell's timeout (300 s for each panel cell of a book build).

    Attributes:
        controls: name -> ipywidget, in display order.
        update: the callback; ``update(**values)`` re-runs the model, redraws the outputs and
            returns the items it drew (charts, tables, Markdown), so a test can call it directly.
        box: the controls' container (wrapping rows, full width).
        slots: how many outputs the panel shows; ``update`` fills the unused ones with nothing.
    """

    controls: dict[str, widgets.Widget]
    update: Callable[..., list[Shown]]
    slots: int
    box: widgets.Box = field(init=False)
    _handles: list[DisplayHandle] = field(init=False, default_factory=list)
    _items: list[Shown] = field(init=False, default_factory=list)
    #: What each output shows now (:func:`_looks`), beside ``_handles``; ``None``: send it whatever comes.
    _sent: list[tuple[str, ...] | None] = field(init=False, default_factory=list)
    _held: int = field(init=False, default=0)
    _missed: bool = field(init=False, default=False)
    _redraw: Callable[[], None] = field(init=False, default=lambda: None)

    def __post_init__(self) -> None:
        for w in self.controls.values():
            if isinstance(w, _SLIDERS):
                # One model run per change, not per drag step; and a track that stays usable
                # beside a long description (ipywidgets' default width leaves it a few pixels).
                w.continuous_update = False
                w.style.description_width = "initial"
                w.layout.width = _SLIDER_WIDTH
            elif isinstance(w, widgets.Dropdown):
                if any(v is None for v in w._options_values):
                    raise ConfigError(
                        f"the dropdown {w.description!r} has a choice whose value is None, which ipywidgets 8"
                        " shows as an empty box: build it with labsupport.widgets.panel.dropdown()"
                    )
                w.style.description_width = "initial"
                w.layout.width = "auto"
        self.box = widgets.Box(
            list(self.controls.values()),
            layout=widgets.Layout(display="flex", flex_flow="row wrap", width="100%", align_items="center"),
        )

    def _ipython_display_(self) -> None:
        display(self.box)
        shown = self._padded(self._items)
        if self._handles:
            # Shown again (a second cell, or display(panel) twice): the new copy takes the same
            # display ids, so each change redraws every copy, not only the last one shown.
            for handle, item in zip(self._handles, shown, strict=True):
                display(item, display_id=handle.display_id)
        else:
            handles = [display(item, display_id=True) for item in shown]
            # Outside an IPython shell display() prints and returns no handle: nothing to redraw later.
            self._handles = handles if None not in handles else []
        self._sent = [_looks(item) for item in shown] if self._handles else []

    def _padded(self, items: list[Shown]) -> list[object]:
        shown: list[object] = [LiveChart(item) if isinstance(item, alt.TopLevelMixin) else item for item in items]
        return shown + [_NOTHING] * (self.slots - len(items))

    def _show(self, items: list[Shown]) -> None:
        if len(items) > self.slots:
            raise ConfigError(
                f"render returned {len(items)} items to show, more than the panel's {self.slots} outputs (slots)"
            )
        self._items = list(items)
        shown = self._padded(items)
        looks = [_looks(item) for item in shown]
        # Tables and texts first, then charts (each kind in its own order): a chart's spec is built as
        # it is sent, and the front end draws the tables and texts meanwhile instead of after the charts.
        for slot in sorted(range(len(self._handles)), key=lambda s: isinstance(shown[s], LiveChart)):
            if looks[slot] is None or looks[slot] != self._sent[slot]:
                self._handles[slot].update(shown[slot])
        if self._handles:
            self._sent = looks

    def batch(self) -> _Batch:
        """Change several controls at once and redraw once, when the ``with`` block ends (if any changed).

        Without it each control's change redraws, and a change that passes through a state nobody
        chose (ipywidgets empties a SelectMultiple's selection when its options change) would run the
        model for that state and show it for a moment. Blocks may nest; the outermost redraws.
        """
        return _Batch(self)

    def values(self) -> dict[str, Any]:
        """Current value of every control (``None`` for a :func:`dropdown`'s ``None`` choice)."""
        return {name: _real(w.value) for name, w in self.controls.items()}


def _items(items: object) -> list[Shown]:
    """``items`` if it is a list (what a render function must return); else a ConfigError saying so."""
    if not isinstance(items, list):
        raise ConfigError(
            f"a panel's render function must return a list of charts, tables or Markdown, got {type(items).__name__}"
        )
    return items


class _Batch:
    """:meth:`Panel.batch`'s context manager (a class, not ``contextlib.contextmanager``)."""

    __slots__ = ("panel",)

    def __init__(self, panel: Panel) -> None:
        self.panel = panel

    def __enter__(self) -> None:
        self.panel._held += 1

    def __exit__(self, *exc: object) -> None:
        panel = self.panel
        panel._held -= 1
        if not panel._held and panel._missed:
            panel._missed = False
            panel._redraw()


def _looks(item: object) -> tuple[str, ...] | None:
    """What a table or a Markdown text shows, as the front end gets it (``None`` for a chart or
    anything else: always sent again).

    A table's whole HTML and its plain text, a Markdown's text: two items that look the same here show
    the same (values that compare equal may print differently: 0.0 and -0.0, 1 and 1.0 and True),
    and a table changed in place after it was shown no longer looks as it was sent.
    """
    if isinstance(item, Markdown):
        return ("markdown", str(item.data), str(item.url), str(item.filename), repr(item.metadata))
    if isinstance(item, pd.DataFrame):
        return ("table", item.to_html(), repr(item))
    return None


def _real(value: Any) -> Any:
    """A control's value as the render function takes it: the :func:`dropdown` stand-in becomes ``None``."""
    return None if value is _NONE else value


class LiveChart:
    """A chart as a live panel sends it: its Vega-Lite spec built without Altair's schema validation.

    Displaying an Altair chart validates its whole spec against the Vega-Lite JSON schema, which
    took about half of a chart's build time on every change of a control. The specs a panel shows
    come from :mod:`labsupport.charts`, whose every chart kind the tests validate against the
    schema (``tests/charts/test_live_chart_schema.py``), so the live path skips that check and sends the
    same spec (``chart.to_dict(validate=False)``) through the active Altair renderer.

    Attributes:
        chart: the Altair chart, as the panel's ``update`` returned it.
    """

    __slots__ = ("chart",)

    def __init__(self, chart: alt.TopLevelMixin) -> None:
        self.chart = chart

    def spec(self) -> dict[str, Any]:
        """The chart's Vega-Lite spec, as Altair's own display builds it, unvalidated."""
        return self.chart.to_dict(validate=False, context={"pre_transform": False})

    def _repr_mimebundle_(self, *args: Any, **kwargs: Any) -> Any:
        """The MIME bundle of the active Altair renderer (as ``alt.Chart._repr_mimebundle_`` gives)."""
        renderer = alt.renderers.get()
        return renderer(self.spec()) if renderer else {}


_SLIDERS = (widgets.IntSlider, widgets.FloatSlider, widgets.SelectionSlider, widgets.FloatLogSlider)
#: A slider's whole width (description, track and readout), never wider than the notebook.
_SLIDER_WIDTH = "min(100%, 36rem)"

#: What an unused output slot shows: nothing.
_NOTHING = Markdown("")


def make_panel(
    controls: dict[str, widgets.Widget], render: Callable[..., list[Shown]], *, slots: int | None = None
) -> Panel:
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
        ConfigError: when a Dropdown has a choice whose value is ``None`` (use :func:`dropdown`),
            ``slots`` is not a whole number >= 1, ``slots`` is not given and ``render`` returns no item
            for the initial values, or ``render`` returns something other than a list, or more items
            than ``slots`` (after the panel is built, such a change shows the error in the panel).
    """
    if slots is not None and (type(slots) is not int or slots < 1):
        raise ConfigError(f"slots must be a whole number >= 1 (the most items render returns), got {slots!r}")
    panel = Panel(controls=controls, update=lambda **_: [], slots=slots or 0)
    first = _items(render(**panel.values()))
    if slots is None and not first:
        raise ConfigError("render returned no item for the initial values: pass slots=, the most items it returns")
    panel.slots = len(first) if slots is None else slots

    def update(**values: Any) -> list[Shown]:
        items = _items(render(**{name: _real(value) for name, value in values.items()}))
        panel._show(items)
        return items

    def redraw() -> None:
        # A widget callback's exception only reaches Jupyter's log, and the old charts would stay on
        # screen as if they were the new setting's: show what went wrong instead.
        try:
            update(**panel.values())
        except Exception as err:  # noqa: BLE001 - every failure must be visible to the learner
            panel._show([Markdown(f"**This setting could not be drawn.** {type(err).__name__}: {err}")])

    def on_change(_change: Any) -> None:
        if panel._held:  # inside panel.batch(): once, at its end
            panel._missed = True
        else:
            redraw()

    panel.update = update
    panel._redraw = redraw
    panel._show(first)
    for w in controls.values():
        w.observe(on_change, names="value")
    return panel
