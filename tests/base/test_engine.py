"""labsupport._engine: the one owner of the simpy set-up (simulate) and run loop (run_until), its
closed horizon and its ``max_events`` bound; the models' engines go through it."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest
import simpy

import labsupport
from labsupport._engine import run_until, simulate
from labsupport._models import MODELS
from labsupport.errors import LimitExceeded

PACKAGE = Path(labsupport.__file__).parent
#: Modules that still make a simpy environment themselves, and why.
OWN_ENVIRONMENT = {"race/engine.py": "the race is being reworked on the student-enactor branch (lab 08)"}


def _ticking(every_s: float = 1.0) -> tuple[simpy.Environment, list[float]]:
    env, seen = simpy.Environment(), []

    def tick():
        while True:
            seen.append(env.now)
            yield env.timeout(every_s)

    env.process(tick())
    return env, seen


def test_the_horizon_is_closed_an_event_at_it_happens():
    env, seen = _ticking()
    run_until(env, 5.0)
    assert seen == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert env.peek() == 6.0


def test_the_same_steps_with_and_without_a_bound_that_holds():
    free_env, free_seen = _ticking()
    bounded_env, bounded_seen = _ticking()
    assert run_until(free_env, 5.0) == run_until(bounded_env, 5.0, max_events=1_000)
    assert free_seen == bounded_seen


def test_max_events_bounds_the_steps_and_the_message_says_what_to_change():
    env, _ = _ticking()
    with pytest.raises(LimitExceeded) as err:
        run_until(env, 100.0, max_events=5)
    message = str(err.value)
    assert message.startswith("max_events=5 (simulation steps) reached at t=")
    assert "horizon_s=100" in message and message.endswith("raise max_events or shorten horizon_s")
    assert isinstance(err.value, ValueError)  # a LimitExceeded is a ConfigError


def test_a_count_is_bounded_instead_of_the_steps():
    env, _ = _ticking()
    with pytest.raises(LimitExceeded, match=r"max_events=30 \(steps plus probes\) reached at t=\d+ s"):
        run_until(env, 100.0, max_events=30, count=lambda steps: steps * 3, counted="steps plus probes")


def test_a_log_is_bounded_by_its_length():
    env, seen = _ticking()
    with pytest.raises(LimitExceeded, match=r"max_events=4 \(events logged\).*; shorten horizon_s"):
        run_until(env, 100.0, max_events=4, log=seen, counted="events logged", advice="shorten horizon_s")
    assert len(seen) == 5


def test_simulate_makes_the_environment_starts_the_actors_and_runs_to_the_closed_horizon():
    def start(env):
        seen = []

        def tick():
            while True:
                seen.append(env.now)
                yield env.timeout(1.0)

        env.process(tick())
        return seen

    seen, steps = simulate(start, 3.0)
    assert seen == [0.0, 1.0, 2.0, 3.0] and steps == 4  # the process starts, then one timeout a tick to 3 s


def test_simulate_bounds_a_count_of_the_actors_state():
    def start(env):
        state = {"probes": 0}

        def probe():
            while True:
                state["probes"] += 10
                yield env.timeout(1.0)

        env.process(probe())
        return state

    with pytest.raises(LimitExceeded, match=r"max_events=25 \(probes plus steps\)"):
        simulate(start, 100.0, max_events=25, count=lambda s, steps: s["probes"] + steps, counted="probes plus steps")


def _environments_made() -> set[str]:
    """Modules of labsupport that call ``simpy.Environment(...)``."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "Environment":
                found.add(path.relative_to(PACKAGE).as_posix())
    return found


def test_only_the_engine_owner_makes_a_simpy_environment():
    assert _environments_made() - set(OWN_ENVIRONMENT) == {"_engine.py"}


@pytest.mark.parametrize("entry", [m for m in MODELS if m.simpy], ids=lambda m: m.name)
def test_a_simpy_model_has_an_engine_whose_simulate_runs_a_config(entry):
    engine = importlib.import_module(f"{entry.module}.engine")
    assert "simpy" in (engine.__doc__ or "") and (callable(getattr(engine, "simulate", None)))


@pytest.mark.parametrize("entry", [m for m in MODELS if not m.simpy], ids=lambda m: m.name)
def test_a_model_that_is_not_simpy_imports_no_simpy(entry):
    for part in entry.parts:
        source = (PACKAGE / entry.name / f"{part}.py").read_text(encoding="utf-8")
        assert "import simpy" not in source, f"{entry.name}.{part} imports simpy; register the model as simpy=True"
