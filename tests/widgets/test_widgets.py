"""Every lab's widget panel, driven without a kernel over the corners of its control space.

For each panel in :data:`PANELS` (one line per lab) the tests read the controls' own bounds
(``min``/``max``/``step`` of sliders, ``options`` of dropdowns and multiple selections, both values
of checkboxes) and:

* check that every reachable value of every control, the others at their defaults, builds a valid
  config: the model's ``run`` is replaced by a stub that captures the config the panel's own code
  built, so nothing is re-implemented here and nothing is simulated;
* call the panel's callback (``panel.update(**values)``) at the defaults, at each control's extreme
  values one at a time, at all-low and all-high, and on a pairwise-covering set of corners, and
  assert that a chart (an ``alt.TopLevelMixin``) comes back, that it serialises to a valid Vega-Lite
  spec, and that nothing raises.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import itertools
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

import altair as alt
import ipywidgets
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labsupport import widgets
from labsupport.errors import ConfigError
from labsupport.widgets.panel import dropdown, make_panel


@dataclass(frozen=True)
class Lab:
    """A lab's panel: the factory in :mod:`labsupport.widgets` and the model function it runs."""

    factory: str
    run: str | None  # "module:function" that the panel calls with the config it built; None = no config


PANELS: dict[str, Lab] = {
    "00-timeline": Lab("timeline_panel", None),
    "01-enactor-race": Lab("race_panel", "labsupport.race:run"),
    "02-dwfm-collapse": Lab("dwfm_panel", "labsupport.dwfm:run"),
    "03-nlb-flapping": Lab("nlb_panel", "labsupport.nlb:run"),
    "04-dns-caches": Lab("dns_panel", "labsupport.dns_cache:run"),
    "05-six-stop-points": Lab("chain_panel", "labsupport.chain:run"),
    "06-every-interleaving": Lab("explore_panel", "labsupport.explore:run"),
    "07-game-day": Lab("game_panel", "labsupport.game:play"),
}


@cache
def panel(lab: str) -> widgets.Panel:
    with contextlib.redirect_stdout(io.StringIO()):  # outside a kernel, display() prints
        return getattr(widgets, PANELS[lab].factory)()


def update(lab: str, values: dict[str, Any]) -> list[Any]:
    with contextlib.redirect_stdout(io.StringIO()):
        return panel(lab).update(**values)


# --- what each control can reach -------------------------------------------------------------------


def reachable(w: ipywidgets.Widget) -> list[Any]:
    """Every value a reader can set with this control."""
    if isinstance(w, ipywidgets.Checkbox):
        return [False, True]
    if isinstance(w, ipywidgets.SelectMultiple):
        return [()] + [(v,) for v in option_values(w)] + [tuple(option_values(w))]
    if isinstance(w, (ipywidgets.Dropdown, ipywidgets.RadioButtons, ipywidgets.ToggleButtons, ipywidgets.Select)):
        return option_values(w)
    if isinstance(w, ipywidgets.SelectionSlider):  # its ends are its corners (corners())
        return option_values(w)
    if isinstance(w, (ipywidgets.IntSlider, ipywidgets.BoundedIntText)):
        values = list(range(w.min, w.max + 1, w.step))
        return values if values[-1] == w.max else [*values, w.max]
    if isinstance(w, (ipywidgets.FloatSlider, ipywidgets.BoundedFloatText)):
        values = [float(v) for v in np.arange(w.min, w.max + w.step / 2, w.step)]
        return sorted({min(v, w.max) for v in values} | {float(w.max)})
    raise AssertionError(f"unknown control type {type(w).__name__}: teach reachable() about it")


def option_values(w: ipywidgets.Widget) -> list[Any]:
    return [o[1] if isinstance(o, tuple) else o for o in w.options]


def corners(w: ipywidgets.Widget) -> list[Any]:
    """A control's extremes: low and high ends, both checkbox values, every dropdown option."""
    values = reachable(w)
    if isinstance(w, ipywidgets.SelectMultiple):
        return [(), values[-1]]
    if isinstance(w, (ipywidgets.Dropdown, ipywidgets.RadioButtons, ipywidgets.ToggleButtons, ipywidgets.Select)):
        return values
    return [values[0], values[-1]]


def pairwise(factors: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """A small set of rows in which every pair of (factor, level) values appears together at least once."""
    names = list(factors)
    todo = {
        ((a, x), (b, y))
        for a, b in itertools.combinations(names, 2)
        for x in range(len(factors[a]))
        for y in range(len(factors[b]))
    }
    rows = []
    while todo:
        row: dict[str, int] = {}
        for name in names:  # greedy: take the level that covers the most uncovered pairs
            row[name] = max(
                range(len(factors[name])), key=lambda lv: sum(((o, row[o]), (name, lv)) in todo for o in row)
            )
        covered = {((a, row[a]), (b, row[b])) for a, b in itertools.combinations(names, 2)}
        if not covered & todo:  # greedy got stuck: force the first uncovered pair
            (a, x), (b, y) = sorted(todo, key=repr)[0]
            row[a], row[b] = x, y
            covered = {((p, row[p]), (q, row[q])) for p, q in itertools.combinations(names, 2)}
        todo -= covered
        rows.append({n: factors[n][lv] for n, lv in row.items()})
    return rows


def settings_to_try(lab: str) -> list[dict[str, Any]]:
    controls, default = panel(lab).controls, panel(lab).values()
    extremes = {name: corners(w) for name, w in controls.items()}
    rows = [default]
    rows += [{**default, name: v} for name, values in extremes.items() for v in values]
    rows += [{n: v[0] for n, v in extremes.items()}, {n: v[-1] for n, v in extremes.items()}]
    rows += pairwise({n: [v[0], v[-1]] for n, v in extremes.items()})
    unique = []
    for row in rows:
        if row not in unique:
            unique.append(row)
    return unique


# --- every reachable value builds a valid config --------------------------------------------------


class _Captured(Exception):
    def __init__(self, config: Any) -> None:
        self.config = config


@pytest.mark.parametrize("lab", [lab for lab, p in PANELS.items() if p.run])
def test_every_reachable_value_builds_a_valid_config(lab, monkeypatch):
    module_name, function = PANELS[lab].run.split(":")
    module = importlib.import_module(module_name)

    def capture(config):
        raise _Captured(config)

    controls, default = panel(lab).controls, panel(lab).values()  # built (and run once) before the stub
    monkeypatch.setattr(module, function, capture)
    checked = 0
    for name, w in controls.items():
        for value in reachable(w):
            with pytest.raises(_Captured) as got:  # a ConfigError here = a bound that lets the config break
                update(lab, {**default, name: value})
            assert type(got.value.config).__name__.endswith("Config"), (name, value, got.value.config)
            checked += 1
    assert checked >= len(controls) * 2


@pytest.mark.parametrize("lab", sorted(PANELS))
def test_controls_have_bounds(lab):
    for name, w in panel(lab).controls.items():
        values = reachable(w)
        assert len(values) >= 2, f"{lab}: control {name} offers a single value"
        if hasattr(w, "min"):
            assert w.min <= w.value <= w.max, f"{lab}: {name}'s default {w.value} is outside [{w.min}, {w.max}]"


# --- the callback at the corners returns a chart ---------------------------------------------------


def charts_in(items: list[Any]) -> list[alt.TopLevelMixin]:
    return [item for item in items if isinstance(item, alt.TopLevelMixin)]


def stopped_at_bound(items: list[Any]) -> bool:
    """The explorer's one chartless answer: a single message that the state bound was hit."""
    return len(items) == 1 and "Stopped at the bound" in getattr(items[0], "data", "")


@pytest.mark.parametrize("lab", sorted(PANELS))
def test_callback_returns_a_chart_at_every_corner(lab):
    failures = []
    tried = settings_to_try(lab)
    for values in tried:
        try:
            items = update(lab, values)
            drawn = charts_in(items)
            if not drawn and lab == "06-every-interleaving" and stopped_at_bound(items):
                continue  # nothing was verified, and the panel says so instead of drawing an empty chart
            if not drawn:
                failures.append(f"{values}: no chart, got {[type(i).__name__ for i in items]}")
            for chart in drawn:
                chart.to_dict()  # validates the spec against the Vega-Lite schema
        except Exception as err:  # noqa: BLE001 - collect every failing corner
            failures.append(f"{values}: {type(err).__name__}: {err}")
    assert not failures, f"{len(failures)} of {len(tried)} settings failed:\n" + "\n".join(failures)


def test_pairwise_covers_every_pair():
    factors = {"a": [0, 1], "b": [0, 1], "c": [0, 1, 2], "d": [0, 1], "e": [0, 1]}
    rows = pairwise(factors)
    for a, b in itertools.combinations(factors, 2):
        assert {(r[a], r[b]) for r in rows} == set(itertools.product(factors[a], factors[b]))
    assert len(rows) < 2 * 2 * 3 * 2 * 2


@pytest.mark.parametrize("lab", sorted(PANELS))
def test_every_lab_panel_is_registered(lab):
    """Each registered panel is the one its lab notebook builds."""
    import json
    from pathlib import Path

    nb = json.loads((Path(__file__).resolve().parents[2] / "labs" / f"{lab}.ipynb").read_text(encoding="utf-8"))
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert f"widgets.{PANELS[lab].factory}(" in code


def test_every_panel_factory_is_covered():
    factories = {name for name in widgets.__all__ if name.endswith("_panel") and name != "make_panel"}
    assert factories == {p.factory for p in PANELS.values()}


def _widget_tree(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _widget_tree(child)


_PANELS = sorted(name for name in widgets.__all__ if name.endswith("_panel") and name != "make_panel")


@pytest.mark.parametrize("name", _PANELS)
def test_panel_uses_no_output_widget_and_runs_once_per_slider_change(name):
    # No ipywidgets.Output: nbclient (the book build) imitates each Output widget by writing to the
    # kernel's shell socket mid-cell, and the cell's reply then went unnoticed until the timeout.
    panel = getattr(widgets, name)()
    tree = list(_widget_tree(panel.box))
    assert not [w for w in tree if isinstance(w, ipywidgets.Output)]
    sliders = [
        w for w in tree if isinstance(w, (ipywidgets.IntSlider, ipywidgets.FloatSlider, ipywidgets.SelectionSlider))
    ]
    assert all(not w.continuous_update for w in sliders)
    # The outputs hold the initial drawing before the panel is displayed: charts draw at once.
    assert panel._items and len(panel._items) <= panel.slots


class _Handle:
    """A display handle that records what it was given (a panel's output, as the front end gets it)."""

    def __init__(self, first):
        self.shown = [first]

    def update(self, item):
        self.shown.append(item)


def _displayed(panel):
    from labsupport.widgets.panel import _looks

    shown = panel._padded(panel._items)
    panel._handles = [_Handle(item) for item in shown]
    panel._sent = [_looks(item) for item in shown]
    return panel._handles


def test_panel_redraws_its_display_handles_in_place():
    calls = []
    slider = ipywidgets.IntSlider(value=1, min=0, max=5)
    panel = widgets.make_panel({"n": slider}, lambda n: calls.append(n) or [f"n={n}"] * (1 + n % 2), slots=2)
    _displayed(panel)
    slider.value = 2
    assert calls == [1, 2]  # one initial render, one per change
    assert [h.shown[-1] for h in panel._handles] == ["n=2", panel._padded([])[0]]
    slider.value = 3
    assert [h.shown[-1] for h in panel._handles] == ["n=3", "n=3"]
    with pytest.raises(ConfigError, match="3 items to show, more than the panel's 2 outputs"):
        panel._show(["a", "b", "c"])


def test_a_table_or_text_that_did_not_change_is_not_sent_again_and_a_chart_always_is():
    # Lab 07's step of the clock changes its text and chart, not its table of actions: JupyterLab
    # redrew that same table after the chart, last of all. Equal tables and texts stay as they are.
    from IPython.display import Markdown

    slider = ipywidgets.IntSlider(value=0, min=0, max=5)

    def render(n):
        table = pd.DataFrame({"action": ["stop", "repair"][: 1 + n // 3], "at": [1.0, 2.0][: 1 + n // 3]})
        return [Markdown(f"clock {n}"), table, alt.Chart(table).mark_point().encode(x=alt.X("at:Q")), Markdown("")]

    panel = widgets.make_panel({"n": slider}, render)
    text, table, chart, empty = _displayed(panel)
    slider.value = 1  # the same table (one row until n = 3)
    assert [len(h.shown) for h in (text, table, chart, empty)] == [2, 1, 2, 1]
    assert text.shown[-1].data == "clock 1"
    slider.value = 3  # a second row
    assert [len(h.shown) for h in (text, table, chart, empty)] == [3, 2, 3, 1]
    assert list(table.shown[-1]["action"]) == ["stop", "repair"]
    slider.value = 4  # the same text would be sent again only if it changed: it did
    assert [len(h.shown) for h in (text, table, chart, empty)] == [4, 2, 4, 1]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (pd.DataFrame({"a": [1, 2]}), pd.DataFrame({"a": [1.0, 2.0]})),  # int and float print differently
        (pd.DataFrame({"a": [1, True]}, dtype=object), pd.DataFrame({"a": [1, 1]}, dtype=object)),  # True is 1
        (pd.DataFrame({"a": [1]}), pd.DataFrame({"b": [1]})),  # another column
        (pd.DataFrame({"a": [1]}), pd.DataFrame({"a": [1]}, index=pd.Index([0], name="row"))),  # a named index
        (pd.DataFrame({"a": [1]}), pd.DataFrame({"a": [1]}).rename(columns={"a": 1})),  # "a" and 1
        (pd.DataFrame({"a": [float("nan")]}), pd.DataFrame({"a": [0.0]})),
        # Found by trying to break it: values and labels that compare equal and print differently.
        (pd.DataFrame({"a": [0.0]}), pd.DataFrame({"a": [-0.0]})),
        (pd.DataFrame({"a": [1]}, index=[1]), pd.DataFrame({"a": [1]}, index=[1.0])),
        (
            pd.DataFrame([[1]], columns=pd.MultiIndex.from_tuples([(1, "a")])),
            pd.DataFrame([[1]], columns=pd.MultiIndex.from_tuples([(1.0, "a")])),
        ),
        (pd.DataFrame({"a": [[1]]}), pd.DataFrame({"a": [[1.0]]})),
        (pd.DataFrame({"a": [(1, True)]}), pd.DataFrame({"a": [(1, 1)]})),
        (pd.DataFrame({"a": [1]}).rename_axis(columns=1), pd.DataFrame({"a": [1]}).rename_axis(columns=1.0)),
    ],
)
def test_a_table_that_prints_differently_is_sent_again(old, new):
    tables = iter([old, new])
    slider = ipywidgets.IntSlider(value=0, min=0, max=1)
    panel = widgets.make_panel({"n": slider}, lambda n: [next(tables)])
    (handle,) = _displayed(panel)
    slider.value = 1
    assert len(handle.shown) == 2 and handle.shown[-1] is new


def test_a_table_or_text_changed_in_place_after_it_was_shown_is_sent_again():
    # A render that changes one object and returns it again: what was sent is what it looked like.
    from IPython.display import Markdown

    table, text = pd.DataFrame({"x": [0]}), Markdown("n=0")

    def render(n):
        table.loc[0, "x"] = n
        text.data = f"n={n}"
        return [table, text]

    slider = ipywidgets.IntSlider(value=0, min=0, max=5)
    panel = widgets.make_panel({"n": slider}, render)
    handles = _displayed(panel)
    slider.value = 3
    assert [len(h.shown) for h in handles] == [2, 2]


def test_a_panel_shown_twice_redraws_both_copies(monkeypatch):
    # The second copy takes the first's display ids, so the front end redraws every output of both
    # copies on each change (an update_display_data goes to every output with that id); before, it
    # got new ids and the first copy's controls still moved but its outputs stayed as they were.
    from labsupport.widgets import panel as panel_module

    shown, ids = [], itertools.count()

    class Handle(_Handle):
        def __init__(self, first, display_id):
            super().__init__(first)
            self.display_id = display_id

    def fake_display(item, display_id=None):
        if display_id is None:  # the controls' box
            return None
        handle = Handle(item, f"id{next(ids)}" if display_id is True else display_id)
        shown.append((handle.display_id, item))
        return handle

    monkeypatch.setattr(panel_module, "display", fake_display)
    slider = ipywidgets.IntSlider(value=0, min=0, max=5)
    panel = widgets.make_panel({"n": slider}, lambda n: [f"n={n}", pd.DataFrame({"n": [n]})])
    panel._ipython_display_()
    first = list(panel._handles)
    slider.value = 1
    panel._ipython_display_()  # shown again: same ids, the current state
    assert panel._handles == first
    assert [(i, str(item)) for i, item in shown[2:]] == [("id0", "n=1"), ("id1", str(pd.DataFrame({"n": [1]})))]
    slider.value = 2  # one update per output reaches both copies through the shared id
    assert first[0].shown[-1] == "n=2" and first[1].shown[-1].equals(pd.DataFrame({"n": [2]}))


def test_a_panel_shown_where_display_gives_no_handle_still_takes_changes(monkeypatch):
    # Outside an IPython shell display() prints what it is given and returns None: the panel then
    # has no outputs to redraw, and a change of a control still runs without an error.
    from labsupport.widgets import panel as panel_module

    monkeypatch.setattr(panel_module, "display", lambda item, display_id=None: None)
    calls = []
    slider = ipywidgets.IntSlider(value=0, min=0, max=5)
    panel = widgets.make_panel({"n": slider}, lambda n: calls.append(n) or [f"n={n}"])
    panel._ipython_display_()
    slider.value = 1
    assert calls == [0, 1] and panel._handles == [] and panel._items == ["n=1"]


def test_tables_and_texts_are_sent_before_the_charts():
    # The kernel builds a chart's spec as it sends it (its slowest output to build and to draw):
    # sending the tables and texts first lets the front end draw them meanwhile. Each kind keeps
    # its own order, and every output still ends on the panel's current state.
    from IPython.display import Markdown

    sent = []

    class Logged(_Handle):
        def __init__(self, slot, first):
            super().__init__(first)
            self.slot = slot

        def update(self, item):
            sent.append(self.slot)
            super().update(item)

    slider = ipywidgets.IntSlider(value=0, min=0, max=5)

    def render(n):
        table = pd.DataFrame({"n": [n]})
        chart = alt.Chart(table).mark_point().encode(x=alt.X("n:Q"))
        return [chart, table, Markdown(f"n={n}"), chart, pd.DataFrame({"m": [n]})]

    panel = widgets.make_panel({"n": slider}, render)
    _displayed(panel)
    panel._handles = [Logged(slot, h.shown[0]) for slot, h in enumerate(panel._handles)]
    slider.value = 1
    assert sent == [1, 2, 4, 0, 3]
    table, text = panel._handles[1].shown[-1], panel._handles[2].shown[-1]
    assert table.equals(pd.DataFrame({"n": [1]})) and text.data == "n=1"
    assert panel._handles[0].shown[-1].chart.data.equals(table)


def test_lab02_table_shows_the_retry_policy_where_it_acts():
    # With the incident's settings the retry policy leaves every other row of the table as it was
    # (the first wave's peak queue comes before any retry): the backoff row is where it shows.
    from dataclasses import replace

    from labsupport import dwfm

    panel = widgets.dwfm_panel()

    def row(values):
        table = next(i for i in panel.update(**values) if isinstance(i, pd.DataFrame))
        return table.set_index("figure")["value"]

    values = panel.values()
    immediate = row({**values, "retry_policy": "immediate"})
    backoff = row({**values, "retry_policy": "backoff_full_jitter"})
    key = "Peak waiting out a backoff, all hosts (items)"
    assert immediate[key] == "0"
    run = dwfm.run(
        replace(
            dwfm.INCIDENT,
            retry_policy="backoff_full_jitter",
            throttle_by_queue_length=values["throttle_by_queue_length"],
            queue_limit_count=values["queue_limit_count"],
        )
    )
    assert backoff[key] == f"{int(run.timeseries['backoff_count'].max()):,}" != "0"


def test_a_batch_of_control_changes_redraws_once_at_its_end():
    calls = []
    a, b = ipywidgets.IntSlider(value=0, min=0, max=5), ipywidgets.IntSlider(value=0, min=0, max=5)
    panel = widgets.make_panel({"a": a, "b": b}, lambda a, b: calls.append((a, b)) or [f"{a}{b}"])
    with panel.batch():
        a.value, b.value = 1, 2
        with panel.batch():  # nested: still once, at the outer end
            a.value = 3
        assert calls == [(0, 0)]
    assert calls == [(0, 0), (3, 2)]
    with panel.batch():  # nothing changed: no redraw
        pass
    assert len(calls) == 2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.booleans(), st.integers(1, 3)), min_size=1, max_size=12))
def test_what_each_output_shows_is_always_the_panels_current_state(moves):
    # Whatever the moves, the last thing sent to each output equals what the panel now holds there
    # (a skipped table or text is one equal to the current one, never a stale one), compared as the
    # front end shows them: a Markdown's text, a table's HTML.
    from IPython.display import Markdown

    def looks(item):
        return item.data if isinstance(item, Markdown) else item.to_html()

    state = {"n": 0, "flag": False, "count": 1}

    def render(n, flag, count):
        items = [Markdown(f"n={n}"), pd.DataFrame({"flag": [flag] * count})]
        return items[: 1 + (n > 0)]

    controls = {
        "n": ipywidgets.IntSlider(value=0, min=0, max=2),
        "flag": ipywidgets.Checkbox(value=False),
        "count": ipywidgets.IntSlider(value=1, min=1, max=3),
    }
    panel = widgets.make_panel(controls, render, slots=2)
    handles = _displayed(panel)
    for n, flag, count in moves:
        for name, value in (("n", n), ("flag", flag), ("count", count)):
            controls[name].value = value
            state[name] = value
        now = panel._padded(render(**state))
        for handle, item in zip(handles, now, strict=True):
            assert looks(handle.shown[-1]) == looks(item)
    assert sum(len(h.shown) for h in handles) < 2 + 2 * 3 * len(moves)  # some were not sent again


def test_a_change_that_cannot_be_drawn_says_so_instead_of_keeping_the_old_charts():
    from dataclasses import replace

    from labsupport import nlb

    panel = widgets.nlb_panel(replace(nlb.INCIDENT, max_events=100_000))
    panel.controls["health_check_interval_s"].value = 10  # this base's own event bound is reached
    assert len(panel._items) == 1 and "could not be drawn" in panel._items[0].data
    assert "LimitExceeded" in panel._items[0].data and "max_events" in panel._items[0].data


def test_race_view_shortens_its_automatic_window_and_says_so():
    from dataclasses import replace

    from labsupport import race

    items = widgets.race_view(replace(race.INCIDENT, plan_interval_s=1.0))
    assert "the generation chart shows the first" in items[0].data
    items[2].to_dict()  # draws within the row limit
    with pytest.raises(ConfigError, match="narrow the window"):
        widgets.race_view(replace(race.INCIDENT, plan_interval_s=1.0), window_s=900)


@pytest.mark.parametrize("lab", sorted(PANELS))
def test_every_dropdown_shows_a_label_for_each_of_its_choices(lab):
    # ipywidgets 8 reads a Dropdown value of None as "nothing selected" and shows an empty box
    # (a fresh user found lab 02's "none" and "never" choices blank): every choice must show its label.
    for name, control in panel(lab).controls.items():
        if not isinstance(control, ipywidgets.Dropdown):
            continue
        start = control.value
        assert control.index is not None and control.label, f"{lab} {name}: shows nothing at start"
        for i, label in enumerate(control._options_labels):
            control.index = i
            assert control.label == label and control.index == i, f"{lab} {name}: choice {label!r} shows blank"
        control.value = start


def test_a_dropdown_with_a_none_choice_is_refused_and_dropdown_hands_render_none():
    # A raw Dropdown with a None choice would show blank; the panel refuses it and names the cure.
    raw = ipywidgets.Dropdown(options=[("never", None), ("now", 1.0)], index=1, description="Operators")
    with pytest.raises(ConfigError, match=r"'Operators'.*panel\.dropdown\(\)"):
        make_panel({"at": raw}, lambda at: [])
    with pytest.raises(ConfigError, match=r"start value 2\.0 is not one of the choices"):
        dropdown([("never", None), ("now", 1.0)], 2.0, "Operators")
    seen = []
    p = make_panel(
        {"at": dropdown([("never", None), ("now", 1.0)], None, "Operators")},
        lambda at: seen.append(at) or [],
        slots=1,
    )
    p.controls["at"].index = 1
    p.controls["at"].index = 0
    assert seen == [None, 1.0, None] and p.values() == {"at": None} and p.controls["at"].label == "never"


def test_a_dropdown_refuses_choices_it_cannot_tell_apart():
    # ipywidgets finds a choice by value: with 0 and False it showed "zero" for "off" and handed on 0.
    with pytest.raises(ConfigError, match=r"'zero' and 'off' have equal values \(0 == False\)"):
        dropdown([("zero", 0), ("off", False), ("never", None)], False, "x")


def test_make_panel_refuses_what_it_cannot_show():
    box = ipywidgets.Checkbox(value=False)
    # A render that shows nothing at first would leave a panel of no outputs, and a later item
    # would have nowhere to go (an adversarial run saw the error escape the widget's callback).
    with pytest.raises(ConfigError, match="pass slots="):
        make_panel({"c": box}, lambda c: [] if not c else [alt.Chart()])
    for slots in (0, 2.5, "2", -1, True):
        with pytest.raises(ConfigError, match="slots must be a whole number"):
            make_panel({"c": box}, lambda c: [], slots=slots)
    with pytest.raises(ConfigError, match="must return a list of charts, tables or Markdown, got NoneType"):
        make_panel({"c": box}, lambda c: None)
    p = make_panel({"c": box}, lambda c: [] if not c else [alt.Chart()], slots=1)
    box.value = True  # fills the one slot; nothing escapes
    assert p.values() == {"c": True}


def test_game_projector_mode_enlarges_the_panel_and_changes_no_result():
    from labsupport.widgets.game import PROJECTOR_CLASS, PROJECTOR_ZOOM

    panel = widgets.game_panel()
    css = panel.box.children[0].value
    assert f".{PROJECTOR_CLASS}" in css and f"zoom: {PROJECTOR_ZOOM}" in css

    def shown() -> list[object]:
        return [o.to_dict() if hasattr(o, "to_dict") else o.data for o in panel.update(**panel.values())]

    before = shown()
    assert PROJECTOR_CLASS not in panel.box._dom_classes
    panel.projector.value = True
    assert PROJECTOR_CLASS in panel.box._dom_classes
    assert shown() == before
    panel.projector.value = False
    assert PROJECTOR_CLASS not in panel.box._dom_classes
    assert PROJECTOR_CLASS in widgets.game_panel(projector=True).box._dom_classes
    with pytest.raises(ConfigError, match=r"projector must be True or False \(a Python bool\), got 'yes'"):
        widgets.game_panel(projector="yes")  # type: ignore[arg-type]


def test_game_cards_show_every_card_escaped_and_refuse_a_frame_without_the_decks_columns():
    from labsupport import game

    cards = game.inject_cards()
    page = widgets.game_cards(cards).data
    assert page.count('<section class="labsupport-card ') == len(cards)
    for c in cards.itertuples():
        assert f'aria-label="Card {c.card}, {c.time}"' in page
    heads = re.findall(r'card__head"><b>([^<·]+?) \d+ ·', page)
    assert heads.count("Written afterwards (keep face down)") == int((cards["kind"] == "afterwards").sum()) > 0
    assert not set(heads) & set(game.CARD_KINDS)  # every kind is named in words, never by its key
    odd = cards.head(1).assign(text="<script>alert(1)</script> & more")
    shown = widgets.game_cards(odd).data
    assert "<script>" not in shown and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in shown
    assert page.startswith("<style>") and ".labsupport-card {" in page  # the cut line travels with the cards
    with pytest.raises(ConfigError, match=r"missing columns \['prompt'\]"):
        widgets.game_cards(cards.drop(columns=["prompt"]))
    with pytest.raises(ConfigError, match="cards must be a pandas DataFrame, got str"):
        widgets.game_cards("not a frame")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="cards is empty"):
        widgets.game_cards(cards.iloc[:0])
    with pytest.raises(ConfigError, match=r"cards\['effect'\] must hold text in every row"):
        widgets.game_cards(cards.assign(effect=float("nan")))
    with pytest.raises(ConfigError, match=r"cards\['source'\] must hold text in every row"):
        widgets.game_cards(cards.astype({"source": object}).assign(source=None))
    with pytest.raises(
        ConfigError,
        match=r"cards\['kind'\] must be one of \['start', 'post', 'debrief', 'afterwards'\], got \['bad kind'\]",
    ):
        widgets.game_cards(cards.assign(kind="bad kind"))
    with pytest.raises(ConfigError, match=r"cards\['card'\] must hold whole card numbers"):
        widgets.game_cards(cards.assign(card=cards["card"].astype(float)))


def press(panel, name: str) -> None:
    """Click the game panel as a player does: choose the action's system, then its verb's button."""
    from labsupport import game

    action = next(a for a in game.ACTIONS if a.name == name)
    if action.system:
        panel.system.value = action.system
    panel.verbs[action.verb].click()


def test_game_clock_slider_reads_the_clock_time_not_seconds():
    # It read "Clock (s) 57600".
    from labsupport import game

    clock = widgets.game_panel().controls["clock_s"]
    assert clock.description == "Clock" and clock.label == "11:48 PM" and clock.value == 0
    clock.value = int(game.HORIZON_S)
    assert clock.label == "3:48 PM"
    masked = widgets.game_panel(game.GameConfig(disguised=True, clock_s=600.0)).controls["clock_s"]
    assert masked.value == 600 and masked.label == game.disguise.of(True).time(600.0)


def test_game_log_says_when_an_investigation_is_back():
    # The log table kept "investigating" after the result was back.
    from labsupport import game

    log = ((0.0, "dns_lookup:DynamoDB"), (300.0, "search_logs:DWFM"))
    shown = game.screen(game.play(game.GameConfig(actions=log, clock_s=900.0))).log
    assert list(shown["outcome"]) == ["result back at 11:53 PM", "investigating"]
    shown = game.screen(game.play(game.GameConfig(actions=log, clock_s=1200.0))).log
    assert list(shown["outcome"]) == ["result back at 11:53 PM", "result back at 12:08 AM"]


def test_game_buttons_take_undo_and_retake_an_action_at_the_same_clock_time():
    panel = widgets.game_panel()
    log = panel.controls["log"]
    panel.steps[3600.0].click()
    assert panel.controls["clock_s"].value == 3600
    press(panel, "restart_dwfm")
    assert log.value == ((3600.0, "restart_dwfm"),)
    press(panel, "undo")
    assert log.value == ()
    press(panel, "restart_dwfm")  # the same action at the same time, taken again after its undo
    assert log.value == ((3600.0, "restart_dwfm"),) and len(log.options) == 1
    press(panel, "restart_dwfm")  # twice in a row: still once
    assert log.value == ((3600.0, "restart_dwfm"),)


def test_game_undo_after_the_clock_moved_changes_nothing_back_in_time():
    panel = widgets.game_panel()
    log = panel.controls["log"]
    press(panel, "repair_dns")
    panel.steps[3600.0].click()
    press(panel, "undo")  # the repair has been in force for an hour: it stays, and the log says so
    assert log.value == ((0.0, "repair_dns"), (3600.0, "undo"))
    assert list(panel._items[4]["outcome"]) == ["taken", "too late to undo: take its opposite"]
    press(panel, "undo")  # twice at one time: still one entry
    assert log.value == ((0.0, "repair_dns"), (3600.0, "undo"))


def test_game_plays_actions_at_one_time_in_click_order_whatever_order_the_selection_comes_back_in(monkeypatch):
    # Found by trying to break it: a browser sends a SelectMultiple's selection back in list order,
    # the kernel had it in the order set, and the model plays actions at one time in the order given.
    from labsupport import game
    from labsupport.widgets import game as game_widgets

    views = []
    view = game_widgets.game_view
    monkeypatch.setattr(game_widgets, "game_view", lambda *a, **k: views.append(1) or view(*a, **k))
    panel = widgets.game_panel()
    log = panel.controls["log"]
    views.clear()  # the panel's first drawing
    for name in ("repair_dns", "throttle_ec2", "relax_throttles"):
        action = next(a for a in game.ACTIONS if a.name == name)
        panel.system.value = action.system or panel.system.value  # choosing the system redraws, once
        views.clear()
        panel.verbs[action.verb].click()
        assert len(views) == 1  # one run per click: never one for the empty selection the new option causes
    log.value = ((0.0, "repair_dns"), (0.0, "relax_throttles"))  # throttle withdrawn in the log
    press(panel, "throttle_ec2")  # and taken again: now after the relax
    assert [o[1][1] for o in log.options] == ["repair_dns", "relax_throttles", "throttle_ec2"]
    outcomes = list(panel._items[4]["outcome"])
    assert outcomes[1] == "no throttle to relax"  # relaxed before anything was throttled
    log.index = tuple(sorted(log.index))  # as the browser sends it back
    assert list(panel._items[4]["outcome"]) == outcomes


def test_game_view_refuses_what_is_not_a_game_config_or_a_bool():
    from labsupport import game
    from labsupport.widgets.game import game_view

    with pytest.raises(ConfigError, match="config must be a GameConfig, got NoneType"):
        game_view(None)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="debrief must be True or False"):
        game_view(game.GameConfig(), debrief="no")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("actions", "relapse"),
    [
        (((10_800.0, "repair_dns"), (14_400.0, "restart_dwfm")), True),  # a restart alone
        (((10_800.0, "repair_dns"), (14_400.0, "throttle_ec2"), (14_460.0, "restart_dwfm")), False),
        (((10_800.0, "repair_dns"),), False),  # no restart
        (((3_600.0, "restart_dwfm"), (10_800.0, "repair_dns")), False),  # nothing queued to empty yet
    ],
)
def test_the_game_says_when_dwfms_queues_fill_again_after_a_restart(actions, relapse):
    # A restart alone leaves the launches failing: the status says why, in the model's terms, with
    # the dashboards' own figures, and only where they show the queues full again.
    from dataclasses import replace

    from labsupport import game
    from labsupport.widgets.game import game_view, relapse_note

    clock = 18_000.0
    config = replace(game.GameConfig(), clock_s=clock, actions=actions)
    result = game.play(config)
    note = relapse_note(result, clock)
    d = result.dashboards

    def last(signal, until):
        rows = d[(d["signal"] == signal) & (d["time_s"] <= until)]
        return float(rows["value"].iloc[-1])

    queued, leased = last("work queued", clock), last("droplets with a lease", clock)
    assert bool(note) == relapse
    if relapse:
        before = last("work queued", 14_400.0 - 1)
        assert before > 0 and queued >= before / 2 and leased < 1  # what the note reports is so
        assert f"{queued:,.0f} items wait at 4:48 AM ({before:,.0f} before the restart)" in note
        assert f"{leased:.0%} of droplets hold a lease" in note and "no throttle" in note
        assert "metastable failure" in note
    else:  # the dashboards show no relapse: no restart, nothing queued before it, or queues that stayed low
        restarts = [t for t, name in actions if name == "restart_dwfm"]
        before = last("work queued", max(restarts) - 1) if restarts else 0.0
        assert before == 0 or queued < before / 2 or leased == 1.0
    assert (note in game_view(config)[0].data) if note else ("What the model shows" not in game_view(config)[0].data)


def test_the_relapse_note_says_no_throttle_only_where_none_was_taken_and_refuses_bad_input():
    from dataclasses import replace

    from labsupport import game
    from labsupport.errors import ConfigError
    from labsupport.widgets.game import relapse_note

    # A throttle taken 5 minutes after the restart: 10 minutes on, the queues are still full, and
    # the note no longer says that nothing throttles the incoming work.
    actions = ((10_800.0, "repair_dns"), (14_400.0, "restart_dwfm"), (14_700.0, "throttle_ec2"))
    result = game.play(replace(game.GameConfig(), clock_s=15_000.0, actions=actions))
    note = relapse_note(result, 15_000.0)
    assert "filled again after the restart at 3:48 AM" in note and "no throttle" not in note
    with pytest.raises(ConfigError, match="GameResult"):
        relapse_note(None, 0.0)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="clock_s"):
        relapse_note(result, float("nan"))


def test_game_undo_never_takes_back_an_undo_of_the_given_log():
    from labsupport import game

    panel = widgets.game_panel(game.GameConfig(actions=((0.0, "repair_dns"), (0.0, "undo"))))
    press(panel, "undo")  # the repair, already withdrawn by the log's own undo, stays withdrawn
    played = game.play(game.GameConfig(actions=tuple(panel.controls["log"].value)))
    assert not played.actions.loc[played.actions["action"] == "repair_dns", "in_effect"].any()


def test_game_with_dns_repaired_at_1148_pm_debriefs_with_no_stage():
    from labsupport import game

    config = game.GameConfig(actions=((0.0, "repair_dns"),), clock_s=game.HORIZON_S)
    result = game.play(config)
    assert result.chain.stages.empty and result.summary.over and result.summary.total_s == 0.0
    items = widgets.game_view(config, debrief=True)
    score = items[7].set_index("stage")
    assert (score.loc[list(game.model.chain.STAGES), "yours"] == "never began").all()
    assert score.loc["Whole event", "yours"] == "11:48 PM"
    assert "Stages: none" in items[8].to_dict()["description"]
    assert "**Verdict: hindsight.**" in items[5].data  # nothing on the screen at 11:48 PM pointed to DNS


def test_game_panel_refuses_what_its_widgets_cannot_show_and_the_debrief_stays_within_the_game():
    from labsupport import game

    with pytest.raises(ConfigError, match="clock_s must be a whole number of 5-minute steps"):
        widgets.game_panel(game.GameConfig(clock_s=450.0))  # the slider would start at 300 s
    with pytest.raises(ConfigError, match="horizon_s must be a whole number of 5-minute steps"):
        widgets.game_panel(game.GameConfig(horizon_s=3_700.0))  # the slider could not reach the end
    with pytest.raises(ConfigError, match="cannot show the same"):
        widgets.game_panel(game.GameConfig(actions=((0.0, "repair_dns"), (0.0, "repair_dns"))))
    # an idle game: the stage that outlives the horizon is drawn to the horizon, and no later stage
    idle = game.GameConfig(clock_s=game.HORIZON_S)
    debrief = widgets.game_view(idle, debrief=True)[-1]
    stages = game.play(idle).chain.stages
    assert (stages["end_s"] > game.HORIZON_S).any()  # the model's run goes on past the game's end
    assert "16 h 00 min" in debrief.to_dict()["description"]


def test_game_panel_offers_a_verb_only_on_the_systems_it_applies_to_and_an_investigation_takes_time():
    from labsupport import game

    panel = widgets.game_panel()
    panel.system.value = "DWFM"
    assert panel.verbs["edit_dns"].disabled and not panel.verbs["restart_hosts"].disabled
    assert not panel.verbs["relax_throttles"].disabled and not panel.verbs["search_logs"].disabled
    panel.system.value = "Lambda"
    assert not panel.verbs["restart_hosts"].disabled and panel.verbs["metrics"].disabled
    panel.verbs["search_logs"].click()  # 15 minutes of game time: the clock moves on, the finding is back
    assert panel.controls["clock_s"].value == 900 and panel.controls["log"].value == ((0.0, "search_logs:Lambda"),)
    finding = panel._items[2]
    assert list(finding["asked"]) == ["Search its logs: Lambda"] and "does not resolve" in finding["finding"].iloc[0]
    assert panel._items[0].data.startswith("**System:** Lambda, functions run on demand.")
    masked = widgets.game_panel(game.GameConfig(disguised=True))
    assert [label for label, _ in masked.system.options][:3] == ["Ledger", "Compute", "Hostkeeper"]
    assert "A disguised night" in masked._items[0].data
