"""Same config and seed, same run: byte for byte, in this process and in others with other hash seeds.

Every model in ``tests/_registry.py`` is run at its preset (a realistic run, usually the incident).
The fingerprint is the SHA-256 of every table the result holds as CSV, ``events.to_csv()`` first.
Two child processes recompute the fingerprints with ``PYTHONHASHSEED=0`` and ``=12345``, so that a
model that iterates a set of strings or a dict keyed by ``hash()`` would show up here. For the
stochastic models, different seeds must give different runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from _registry import MODELS, digest, uncovered

HERE = Path(__file__).resolve().parent
SEEDS = (1, 2, 3)


def fingerprints(seed_offset: int = 0) -> dict[str, str]:
    """``{model: digest}`` of each model's preset, run once (the seed is the registry's plus 0)."""
    out = {}
    for name, model in MODELS.items():
        mod = model.mod()
        out[name] = digest(model.runner()(model.preset(mod, SEEDS[0] + seed_offset)))
    return out


@cache
def here_twice() -> tuple[dict[str, str], dict[str, str]]:
    return fingerprints(), fingerprints()


@cache
def in_child(hash_seed: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    # This folder (for this module) and the tests' root (for _registry, which it imports).
    code = (
        "import json, sys; sys.path[:0] = sys.argv[1:]; import test_determinism as t; "
        "print(json.dumps(t.fingerprints()))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(HERE), str(HERE.parent)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_every_registered_model_has_test_configs():
    """A model registered in labsupport._models and not here fails: add its TEST_CONFIGS entry."""
    assert uncovered() == set(), "add these models to TEST_CONFIGS in tests/_registry.py (or NOT_COVERED, with why)"


@pytest.mark.parametrize("name", sorted(MODELS))
def test_same_config_same_events_in_one_process(name):
    first, second = here_twice()
    assert first[name] == second[name]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_same_events_across_processes_and_hash_seeds(name):
    here = here_twice()[0][name]
    assert in_child("0")[name] == here
    assert in_child("12345")[name] == here


@pytest.mark.parametrize("name", sorted(n for n, m in MODELS.items() if m.stochastic))
def test_different_seeds_give_different_runs(name):
    model = MODELS[name]
    mod, run = model.mod(), model.runner()
    runs = {seed: digest(run(model.preset(mod, seed))) for seed in SEEDS}
    assert len(set(runs.values())) == len(SEEDS), f"seeds {SEEDS} gave {runs}"


@pytest.mark.parametrize("name", sorted(n for n, m in MODELS.items() if m.stochastic))
def test_the_seed_is_the_only_source_of_randomness(name):
    """Running another model in between (which draws from its own random stream) changes nothing."""
    model = MODELS[name]
    mod, run = model.mod(), model.runner()
    before = digest(run(model.preset(mod, SEEDS[0])))
    import random

    random.seed(99)  # a notebook's own use of the global stream must not leak into a run
    random.random()
    for other, m in MODELS.items():
        if other != name:
            m.runner()(m.base())
    assert digest(run(model.preset(mod, SEEDS[0]))) == before


def test_event_tables_are_not_empty():
    """A fingerprint of empty tables would prove nothing."""
    from _registry import frames

    for name, model in MODELS.items():
        result = model.runner()(model.preset(model.mod(), SEEDS[0]))
        tables = frames(result)
        assert tables and tables[0][0] == "events", name
        assert sum(len(f) for _, f in tables) > 0, name
