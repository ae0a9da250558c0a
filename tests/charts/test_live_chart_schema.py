"""What a live panel sends: unvalidated specs that still meet the schema, and runs cached safely.

A panel displays each chart through :class:`labsupport.widgets.panel.LiveChart`, which builds the
spec without Altair's schema validation. Here every chart each lab panel shows at its defaults is
checked against the Vega-Lite JSON schema once, and its live MIME bundle is compared with the one
Altair's own (validating) display gives. The panels' model runs are memoised by config
(:mod:`labsupport._memo`); the cache must return equal results, run each config once,
and hand every caller its own copy.
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import replace

import altair as alt
import jsonschema
import pytest
from altair.utils.schemapi import SchemaBase
from altair.vegalite.v5.schema import core

from labsupport import _memo, dwfm, race, widgets
from labsupport.widgets.panel import LiveChart

FACTORIES = ["timeline_panel", "race_panel", "dwfm_panel", "nlb_panel", "dns_panel", "chain_panel", "explore_panel"]


@pytest.fixture(scope="module")
def vega_lite_schema() -> jsonschema.protocols.Validator:
    schema = core.load_schema()
    return jsonschema.validators.validator_for(schema)(schema)


def _charts(factory: str) -> list[alt.TopLevelMixin]:
    with contextlib.redirect_stdout(io.StringIO()):  # outside a kernel, display() prints
        panel = getattr(widgets, factory)()
        items = panel.update(**panel.values())
    return [item for item in items if isinstance(item, alt.TopLevelMixin)]


@pytest.mark.parametrize("factory", FACTORIES)
def test_every_chart_a_panel_sends_unvalidated_meets_the_vega_lite_schema(factory, vega_lite_schema):
    charts = _charts(factory)
    assert charts, f"{factory} shows no chart at its defaults"
    for chart in charts:
        live = LiveChart(chart)
        errors = [e.message[:200] for e in vega_lite_schema.iter_errors(live.spec())]
        assert not errors, f"{factory}: {type(chart).__name__} breaks the schema: {errors[:3]}"
        assert live.spec() == chart.to_dict()  # the validating build gives the same spec
        assert live._repr_mimebundle_() == chart._repr_mimebundle_()  # and the same bundle


@pytest.mark.parametrize("factory", [*FACTORIES, "game_panel"])
def test_a_panel_update_builds_its_charts_without_altairs_from_dict(factory, monkeypatch):
    # Altair 5.5 turns a channel given as a string or a dict (x="time:T", alt.value(1),
    # alt.condition(...)) into its class through SchemaBase.from_dict, which rebuilds a table of
    # every schema class on each call (vega/altair#3547): 14 ms for three string channels against
    # 0.07 ms for alt.X(...) objects, about a third of a panel's chart build. The charts give their
    # channels as objects; a string channel written again would show up here.
    with contextlib.redirect_stdout(io.StringIO()):
        panel = getattr(widgets, factory)()
    calls: list = []
    original = SchemaBase.from_dict.__func__

    def counting(cls, dct, validate=True):
        calls.append(dct)
        return original(cls, dct, validate)

    monkeypatch.setattr(SchemaBase, "from_dict", classmethod(counting))
    with contextlib.redirect_stdout(io.StringIO()):
        items = panel.update(**panel.values())
    assert any(isinstance(item, alt.TopLevelMixin) for item in items)
    assert not calls, f"{factory}: channels built through from_dict: {calls[:3]}"


def test_a_spec_that_breaks_the_schema_is_caught_here(vega_lite_schema):
    broken = LiveChart(alt.Chart(alt.Data(values=[{"x": 1}])).mark_point().encode(x="x:Q"))
    spec = broken.spec()
    spec["mark"] = {"type": "no-such-mark"}
    assert list(vega_lite_schema.iter_errors(spec))


def test_a_panel_displays_its_charts_unvalidated():
    panel = widgets.make_panel({}, lambda: [alt.Chart(alt.Data(values=[{"x": 1}])).mark_point()], slots=2)
    shown = panel._padded(panel._items)
    assert isinstance(shown[0], LiveChart) and not isinstance(shown[1], LiveChart)


def _counting(calls: list):
    def run(config):
        calls.append(config)
        return race.run(config)

    return run


def test_a_cached_run_runs_each_config_once_and_equals_a_fresh_run():
    _memo.clear_run_cache()
    calls: list = []
    run = _counting(calls)
    cfg = replace(race.INCIDENT, seed=7)
    first, second = _memo.cached_run(run, cfg), _memo.cached_run(run, cfg)
    assert len(calls) == 1
    fresh = race.run(cfg)
    assert second.events.equals(fresh.events) and second.summary == fresh.summary
    _memo.cached_run(run, replace(cfg, seed=8))
    assert len(calls) == 2  # another config is another run
    assert first is not second


def test_a_caller_changing_its_result_cannot_change_the_next_callers():
    _memo.clear_run_cache()
    cfg = replace(dwfm.INCIDENT, fleet_droplets_count=600)
    fresh = dwfm.run(cfg)
    mine = _memo.cached_run(dwfm.run, cfg)
    mine.timeseries.loc[:, "leased_count"] = -1
    mine.events.iloc[0, 0] = -1.0
    del mine.timeseries["time_s"]
    theirs = _memo.cached_run(dwfm.run, cfg)
    assert theirs.timeseries.equals(fresh.timeseries)
    assert theirs.events.equals(fresh.events)


def test_the_cache_can_be_turned_off_and_does_not_keep_failures(monkeypatch):
    _memo.clear_run_cache()
    calls: list = []
    run = _counting(calls)
    monkeypatch.setenv(_memo.RUN_CACHE_ENV, "0")
    _memo.cached_run(run, race.INCIDENT)
    _memo.cached_run(run, race.INCIDENT)
    assert len(calls) == 2
    monkeypatch.delenv(_memo.RUN_CACHE_ENV)

    failures: list = []

    def failing(config):
        failures.append(config)
        raise ValueError("no run")

    for _ in range(2):
        with pytest.raises(ValueError, match="no run"):
            _memo.cached_run(failing, race.INCIDENT)
    assert len(failures) == 2


def test_the_cache_is_bounded():
    _memo.clear_run_cache()
    calls: list = []
    run = _counting(calls)
    seeds = range(_memo.RUN_CACHE_SIZE + 1)
    for seed in seeds:
        _memo.cached_run(run, replace(race.INCIDENT, seed=seed))
    _memo.cached_run(run, replace(race.INCIDENT, seed=0))  # the oldest was dropped: it runs again
    assert len(calls) == len(seeds) + 1
    _memo.clear_run_cache()


def test_a_config_holding_a_strategy_runs_every_time():
    # A student's strategy may read state that changes between calls: its runs are never cached.
    _memo.clear_run_cache()
    calls: list = []
    run = _counting(calls)
    answers = [True]

    def strategy(request):
        return answers[0]

    cfg = replace(race.INCIDENT, guards=replace(race.INCIDENT.guards, check_version_on_write=False))
    cfg = replace(cfg, conditional_write=strategy)
    _memo.cached_run(run, cfg)
    answers[0] = False
    _memo.cached_run(run, cfg)
    assert len(calls) == 2


def test_the_chain_runs_each_distinct_sub_run_once_across_the_64_combinations(monkeypatch):
    # (Network Manager is left out: the NLB model runs it inside its own run, which is cached whole.)
    from labsupport import chain, dns_cache, nlb

    _memo.clear_run_cache()
    calls: dict[str, list] = {}
    for module in (race, dns_cache, dwfm, nlb):
        original = module.run

        def counted(config, _run=original, _name=module.__name__):
            calls.setdefault(_name, []).append(config)
            return _run(config)

        monkeypatch.setattr(module, "run", counted)
    for cfg in chain.all_stop_point_configs():
        chain.run(cfg)
    assert calls, "the chain ran no model"
    for name, configs in calls.items():
        assert len(configs) == len(set(configs)), f"{name}: a config ran twice"
    assert len(calls["labsupport.race"]) == 16  # one per combination of the four race guards
    _memo.clear_run_cache()
