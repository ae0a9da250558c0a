"""Lab 08's graded version, the instructor's side: the key, the reference step and the hidden checks.

Scenario:
    The student's side (each id's protocol and race, the configs, the prediction, the public form
    check) is :mod:`labsupport.assignments.lab08`. The checks below compute every expected answer
    from the collected id at grading time (no answer is stored anywhere) and run the student's
    Enactor step, compiled from the notebook's source with RestrictedPython, over every
    interleaving (:func:`labsupport.explore.engine.search`) of their protocol and of two others, and
    in their race (:func:`labsupport.explore.race_seeds`). When a property fails, the feedback
    names the shortest interleaving that breaks it, in words, step by step: which Enactor did which
    operation of the student's own step, and what Route 53 answered (:func:`path_words`).
Covers:
    The PES's DynamoDB section (the stale one-time check, the clean-up that deleted the active
    plan, the inconsistent state); DAT453's rollback record (AWS's later explanation). The
    compare-and-set the reference step uses is the course's guard 1 and guard 2 written as code;
    the summary says only that AWS would fix the race and add protections.

::

    collected id --key(id)--> the answers, and the incident step's counterexample in words
    student's enactor_step --engine.search(their protocol)--> safe? no stale overwrite? cleans?
        --variants, race.seed_sweep(their race)--> the same, elsewhere --> pass / fail (+ a path in words)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import asdict

from labsupport import enactor, explore, race
from labsupport.assignments.lab08 import (
    ASSIGNMENT,
    PROTOCOL_VARIANTS,
    explore_config,
    params,
    race_config,
    seeds,
)
from labsupport.enactor import StepFunction
from labsupport.errors import ConfigError, LimitExceeded
from labsupport.explore import engine

from ._shared import answer_check, check_prediction, prediction_answers
from .spec import Answer, Check, Question, Spec

__all__ = [
    "SPEC",
    "check_counterexample_steps",
    "check_runs_emptied",
    "check_step_cleans",
    "check_step_elsewhere",
    "check_step_never_goes_back",
    "check_step_safe",
    "key",
    "path_words",
    "reference_enactor_step",
]

#: The longest a path in words may be in a check's message (the grader keeps
#: :data:`~coursetools.grading.check.MESSAGE_CHARS` of it).
WORDS_CHARS = 950


def reference_enactor_step(plan, endpoints, keep, read, write, delete):  # noqa: ANN001, ANN201 (the contract)
    """Two compare-and-sets: write only over an older plan, read again when refused; delete only a
    tree that neither the alias nor the rollback record refers to, and only if nothing moved since."""
    for endpoint in endpoints:
        zone = yield read(endpoint)
        while zone.alias < plan:  # never write an older plan
            if (yield write(endpoint, plan, expect=zone)):  # compare-and-set
                break
            zone = yield read(endpoint)  # refused: someone moved it; look again
    for endpoint in endpoints:
        zone = yield read(endpoint)
        for old in zone.trees:
            if old < plan - keep and old not in (zone.alias, zone.rollback):
                yield delete(endpoint, old, expect=zone)


# -- paths in words ---------------------------------------------------------------------------
def _replay(cfg: explore.ExploreConfig, g: engine.Graph, target: int) -> list[engine.Step]:
    """The steps of the breadth-first path to state ``target``, replayed from the start on concrete
    states with the search's own parameters (as ``explore.run`` names its counterexample's actors)."""
    chain = []
    while target > 0:
        chain.append(g.states[target])
        target = g.parent[target]
    cur = engine.initial(cfg.enactor_count, cfg.endpoint_count, cfg.enactor_step is not None)
    steps = []
    for want in reversed(chain):
        step = next(t for t in engine.successors(cur, g.params) if g.canon(t.state) == want)
        steps.append(step)
        cur = step.state
    return steps


def _first(cfg: explore.ExploreConfig, g: engine.Graph, action: str) -> list[engine.Step]:
    """The shortest path whose last step's outcome is ``action`` (``labsupport.race``'s vocabulary)."""
    for i, state in enumerate(g.states):  # breadth-first order: the first found is the shortest
        for step in engine.successors(state, g.params):
            if step.race_action == action:
                return [*_replay(cfg, g, i), step]
    return []


def _said(step: engine.Step) -> str:
    who = "the Planner" if step.actor < 0 else engine.ENACTOR_NAMES[step.actor]
    if step.kind == "plan produced":
        return f"the Planner makes plan {step.plan}"
    if step.kind == "pick plan":
        return f"{who} picks plan {step.plan}"
    if step.kind == "version check":
        return f"{who} checks plan {step.plan} once: {step.outcome}"
    what = step.operation or f"{step.kind} plan {step.plan}"
    why = {
        "stale_write": ", over a NEWER plan",
        "delete_active": ", the tree the alias points at: the endpoint answers with no records",
        "inconsistent": ", rejected: the alias points at a deleted tree",
    }.get(step.race_action, "")
    return f"{who} {what} -> {step.reply or step.outcome}{why}"


def path_words(steps: list[engine.Step], limit: int | None = None) -> str:
    """A path of the model checker in words, numbered: which actor did what, and what it got back.

    Args:
        steps: the path's steps, from the start.
        limit: the most characters; past it the Planner's steps and the picks are left out, then
            the first steps (``None``: the whole path).
    """
    lines = [(n, _said(s), s.kind in ("plan produced", "pick plan")) for n, s in enumerate(steps, start=1)]
    text = "; ".join(f"{n}. {said}" for n, said, _ in lines)
    if limit is None or len(text) <= limit:
        return text
    kept = [(n, said) for n, said, routine in lines if not routine]
    note = "the Planner's steps and the picks left out"
    while len(kept) > 2 and len("; ".join(f"{n}. {s}" for n, s in kept)) > limit - 45:
        kept.pop(0)
        note = f"steps before {kept[0][0]} left out"
    return f"({note}) " + "; ".join(f"{n}. {said}" for n, said in kept)


# -- the key ------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=64)
def _incident(student_id: str) -> tuple[int, int, str]:
    """The incident step on the id's problem: its shortest counterexample's length, the race runs that
    emptied an endpoint, and the counterexample in words."""
    cfg = explore_config(student_id)
    g = engine.search(cfg)
    path = _replay(cfg, g, g.first_bad)
    runs = explore.race_seeds(enactor.incident_step, seeds(student_id), config=race_config(student_id))
    return len(path), int(runs["emptied"].sum()), path_words(path)


def key(student_id: str) -> dict[str, object]:
    """The instructor's key for ``student_id``: the problem, the expected measured answers, and the
    incident step's shortest counterexample in words (the model answer of question 4's part b).

    Returns:
        ``{"student_id", "enactor_count", "generation_count", "endpoint_count",
        "cleanup_keep_generations", "lock_losses_count", "seeds", "counterexample_steps",
        "runs_emptied", "counterexample"}``; the design question's answer is
        :func:`reference_enactor_step` (or any step that passes the checks).
    """
    p = params(student_id)
    steps, runs, words = _incident(student_id)
    s = seeds(student_id)
    return {
        **{k: v for k, v in asdict(p).items() if k != "first_seed"},
        "seeds": f"{s.start} to {s.stop - 1}",
        "counterexample_steps": steps,
        "runs_emptied": runs,
        "counterexample": words,
    }


def _check_count(answer: object, student_id: str, name: str, what: str) -> None:
    expected = key(student_id)[name]
    assert isinstance(answer, int) and not isinstance(answer, bool), (
        f"{name} must be a Python int (int(...) turns a numpy integer into one)"
    )
    assert answer == expected, f"{name} is not what {what} gives"


def check_counterexample_steps(answer: object, student_id: str) -> None:
    """The measured length of the incident step's shortest counterexample equals the checker's for the id."""
    _check_count(answer, student_id, "counterexample_steps", "your protocol")


def check_runs_emptied(answer: object, student_id: str) -> None:
    """The measured number of race runs the incident step empties an endpoint in equals the model's for the id."""
    _check_count(answer, student_id, "runs_emptied", "your race")


# -- the design checks ----------------------------------------------------------------------------
def _label(bounds: tuple[int, int, int, int]) -> str:
    n, g, e, keep = bounds
    return f"{n} Enactors, plans 1 to {g}, {e} endpoint{'s' if e > 1 else ''}, clean-up keeps {keep}"


def _search(step: StepFunction, where: str | tuple[int, int, int, int]) -> tuple[explore.ExploreConfig, engine.Graph]:
    cfg = explore_config(where, step)
    try:
        return cfg, engine.search(cfg)
    except LimitExceeded:
        raise AssertionError(
            f"your step's protocol has more than {cfg.max_states:,} states at {_label(_bounds_of(cfg))}: "
            "a step that reads or retries more than it needs multiplies the interleavings"
        ) from None


def _bounds_of(cfg: explore.ExploreConfig) -> tuple[int, int, int, int]:
    return (cfg.enactor_count, cfg.generation_count, cfg.endpoint_count, cfg.cleanup_keep_generations)


def _faults(
    cfg: explore.ExploreConfig, g: engine.Graph, kinds: tuple[str, ...]
) -> Iterator[tuple[str, Callable[[], list[engine.Step]] | None]]:
    """What the search ``g`` of ``cfg`` finds wrong, for each of ``kinds`` asked: a sentence, and how
    to find the shortest path that shows it (``None`` where no single path does)."""
    e, keep = cfg.endpoint_count, cfg.cleanup_keep_generations
    if "safe" in kinds and g.first_bad >= 0:
        yield "an endpoint goes empty", lambda: _replay(cfg, g, g.first_bad)
    if "recovers" in kinds and len(g.stuck):
        yield "the newest plan can then never be applied everywhere", lambda: _replay(cfg, g, int(g.stuck[0]))
    if "stale" in kinds and "stale_write" in g.actions:
        yield "an Enactor writes an older plan over a newer one", lambda: _first(cfg, g, "stale_write")
    if "rollback" in kinds:
        dangling = next((i for i, s in enumerate(g.states) if engine.rollback_dangles(s, e)), -1)
        if dangling >= 0:
            yield (
                "a rollback record points at a deleted plan (a rollback would empty the endpoint)",
                lambda: _replay(cfg, g, dangling),
            )
    if "cleans" in kinds:
        rest = [engine.most_trees(s, e) for s in g.states if engine.at_rest(s, e, cfg.generation_count)]
        if not rest:
            yield "no interleaving gets the newest plan applied everywhere with every Enactor idle", None
        elif max(rest) > keep + 2:
            yield (
                f"at rest an endpoint still holds {max(rest)} plan trees (at most {keep + 2}): clean-up does not clean",
                None,
            )


def _assert_none(step: StepFunction, where: str | tuple[int, int, int, int], kinds: tuple[str, ...]) -> None:
    """Fail with the first fault found and the shortest path that shows it, in words; name the others."""
    try:
        cfg, g = _search(step, where)
    except ConfigError as exc:
        raise AssertionError(f"your step broke the contract when the model checker ran it: {exc}") from None
    found = list(_faults(cfg, g, kinds))
    if not found:
        return
    (first, path), others = found[0], [f for f, _ in found[1:]]
    message = f"{_label(_bounds_of(cfg))}: {first}"
    if path is not None:
        steps = path()
        message += f", in {len(steps)} steps: {path_words(steps, WORDS_CHARS - len(message))}"
    if others:
        message += ". Also: " + "; ".join(others)
    raise AssertionError(message)


def check_step_safe(step: StepFunction, student_id: str) -> None:
    """Over every interleaving of the id's protocol, no endpoint goes empty and the newest plan can
    always still be applied everywhere."""
    _assert_none(step, student_id, ("safe", "recovers"))


def check_step_never_goes_back(step: StepFunction, student_id: str) -> None:
    """Over every interleaving of the id's protocol, no Enactor writes an older plan over a newer one
    (no stale overwrite), and the newest plan can always still be applied everywhere."""
    _assert_none(step, student_id, ("stale", "recovers"))


def check_step_cleans(step: StepFunction, student_id: str) -> None:
    """Over every interleaving of the id's protocol, no rollback record points at a deleted plan, at
    rest no endpoint holds more than ``cleanup_keep_generations + 2`` plan trees, and the newest plan
    can always still be applied everywhere."""
    _assert_none(step, student_id, ("rollback", "cleans", "recovers"))


def check_step_elsewhere(step: StepFunction, student_id: str) -> None:
    """The three checks above on the protocols of :data:`~labsupport.assignments.lab08.PROTOCOL_VARIANTS`,
    and the id's race: in each of its seeds no endpoint goes empty, no stale overwrite, and no
    endpoint falls more than 4 plans behind."""
    for bounds in PROTOCOL_VARIANTS:
        _assert_none(step, bounds, ("safe", "recovers", "stale", "rollback", "cleans"))
    try:
        runs = race.seed_sweep(race_config(student_id, step), seeds(student_id))
    except ConfigError as exc:
        raise AssertionError(f"your step broke the contract in the race simulation: {exc}") from None
    where = f"your race (seeds {seeds(student_id).start} to {seeds(student_id).stop - 1}, {len(runs)} runs)"
    for what, bad in (
        ("an endpoint went empty", runs["active_plan_deleted"]),
        ("an endpoint went back to an older plan", runs["stale_overwrites_count"] > 0),
        ("an endpoint fell more than 4 plans behind the newest", runs["max_generation_lag"] > 4),
    ):
        listed = runs.loc[bad, "seed"].tolist()
        assert not listed, (
            f"{where}: {what} with seed{'s' if len(listed) > 1 else ''} {', '.join(map(str, listed[:5]))}"
        )


def _prepare(student_id: str) -> None:
    key(student_id)


def _design(name: str, fn: Callable[[StepFunction, str], None]) -> Check:
    return Check("q3_design", name, 1, "strategy", fn)


SPEC = Spec(
    assignment=ASSIGNMENT,
    questions=(
        Question("q1_predict", 1),
        Question("q2_measure", 2),
        Question("q3_design", 4),
        Question("q4_explain", 3, manual=True),
    ),
    answers=(
        *prediction_answers({"steps": ("int", 1, 10**6), "runs": ("int", 0, 10**6)}),
        Answer("counterexample_steps", "counterexample_steps", "int", 1, 10**6),
        Answer("runs_emptied", "runs_emptied", "int", 0, 10**6),
    ),
    strategy="enactor_step",
    strategy_field="enactor_step",
    checks=(
        Check("q1_predict", "made before the run", 1, "prediction", check_prediction),
        answer_check("q2_measure", "counterexample_steps", 1, check_counterexample_steps, "counterexample_steps"),
        answer_check("q2_measure", "runs_emptied", 1, check_runs_emptied, "runs_emptied"),
        _design("every interleaving of your protocol: no endpoint empty, always recovers", check_step_safe),
        _design("every interleaving of your protocol: never back to an older plan", check_step_never_goes_back),
        _design("every interleaving of your protocol: clean-up cleans, rollback kept", check_step_cleans),
        _design("two other protocols and your race", check_step_elsewhere),
    ),
    references=(reference_enactor_step,),
    prepare=_prepare,
    params=lambda i: {k: v for k, v in asdict(params(i)).items() if k != "student_id"},
    key=key,
    prediction=("steps", "runs"),
)
