"""labsupport.practice: one generator per model; the same seed gives the same problem; its check runs the model.

For every generator and a few seeds: the problem is deterministic, its text names what it asks,
the model's own answer checks right, a wrong answer checks wrong with the model's reason, an
unanswered or malformed answer gets feedback rather than an exception, and a bad seed raises
ConfigError.
"""

from __future__ import annotations

import importlib

import pytest

from labsupport import practice, predict
from labsupport.errors import ConfigError

MODELS = ("timeline", "race", "dwfm", "nlb", "dns_cache", "explore", "chain")
SEEDS = (0, 1, 2)


def _wrong(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, predict.Never):
        return 1.0
    return value + 1_000


@pytest.mark.parametrize("model", MODELS)
def test_every_model_has_a_generator(model):
    module = importlib.import_module(f"labsupport.practice.{model}")
    assert getattr(practice, model) is module and callable(module.practice)
    assert set(practice.__all__) == set(MODELS)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("seed", SEEDS)
def test_a_problem_is_a_function_of_its_seed_and_its_check_runs_the_model(model, seed):
    gen = getattr(practice, model).practice
    problem = gen(seed)
    assert problem == gen(seed) and problem.config == gen(seed).config
    assert problem.model == model and f"seed {seed}" in problem.title
    fields = [name for name, _ in problem.fields]
    assert all(f'"{name}": ...' in problem.skeleton() for name in fields)
    right = problem.answer()
    assert list(right) == fields
    good = problem.check(right)
    assert good.passed and good.status == "right", str(good)
    assert good.note.startswith("Why:")
    bad = problem.check({k: _wrong(v) for k, v in right.items()})
    assert bad.status == "wrong" and all(p.verdict == "wrong" for p in bad.parts), str(bad)
    assert problem.check(...).status == "not answered"
    assert problem.check("nonsense").status == "not answered"
    assert problem.check({fields[0]: "maybe"}).status == "wrong"
    assert str(problem).startswith(problem.title) and problem._repr_markdown_().startswith(f"**{problem.title}**")


def test_different_seeds_give_different_problems():
    for model in MODELS:
        gen = getattr(practice, model).practice
        assert len({gen(s).text for s in range(6)}) > 1, model


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("seed", [-1, 2**63, 1.5, "3", True, None])
def test_a_bad_seed_is_a_config_error(model, seed):
    with pytest.raises(ConfigError, match="seed"):
        getattr(practice, model).practice(seed)


def test_unknown_generator():
    with pytest.raises(AttributeError):
        practice.no_such_model  # noqa: B018
