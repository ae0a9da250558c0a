"""Lab 01's graded version, the instructor's side: the key, the reference answer and the hidden checks.

Scenario:
    The student's side (each id's race, its config, the prediction) is
    :mod:`labsupport.assignments.lab01`. The checks below compute every expected answer from the
    collected id with :mod:`labsupport.race` and :mod:`labsupport.explore` at grading time (no
    answer is stored anywhere) and run the student's conditional write, compiled from the
    notebook's source, in the race and in the explorer.
Covers:
    The PES's DynamoDB race; the student's conditional write is the course's guard 1 (the summary
    says only that AWS would fix the race and add protections).

::

    collected id --key(id)--> the answers     student's conditional_write --check_conditional_write_*--> pass / fail
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, replace

from labsupport import explore, race
from labsupport.assignments.lab01 import ASSIGNMENT, config, params
from labsupport.strategy import WriteRequest, call_strategy

from ._shared import answer_check, check_prediction, prediction_answers
from .spec import Answer, Check, Question, Spec

__all__ = [
    "SPEC",
    "check_conditional_write_explorer",
    "check_conditional_write_seeds",
    "check_conditional_write_table",
    "check_first_stale_write_s",
    "check_stale_overwrites",
    "key",
    "reference_conditional_write",
]


def reference_conditional_write(request: WriteRequest) -> bool:
    """The compare-and-set the design question asks for: commit only a plan newer than the active one."""
    return request.active_plan is None or request.new_plan > request.active_plan


def _first_stale_write_s(result: race.RaceResult) -> float:
    stale = result.events.loc[result.events["action"] == "stale_write", "time_s"]
    return float(stale.iloc[0]) if len(stale) else float("nan")


def key(student_id: str) -> dict[str, object]:
    """The instructor's key for ``student_id``: parameters and the expected measured answers.

    Returns:
        ``{"student_id", "seed", "lock_losses_count", "stale_overwrites", "first_stale_write_s"}``;
        the design question's answer is :func:`reference_conditional_write` for every id.
    """
    p = params(student_id)
    result = race.run(config(student_id))
    return {
        "student_id": p.student_id,
        "seed": p.seed,
        "lock_losses_count": p.lock_losses_count,
        "stale_overwrites": result.summary.stale_overwrites_count,
        "first_stale_write_s": _first_stale_write_s(result),
    }


def check_stale_overwrites(answer: object, student_id: str) -> None:
    """The measured number of stale overwrites equals the model's for the id."""
    expected = key(student_id)["stale_overwrites"]
    assert isinstance(answer, int) and not isinstance(answer, bool), "stale_overwrites must be an int"
    assert answer == expected, "stale_overwrites is not what your race gives"


def check_first_stale_write_s(answer: object, student_id: str) -> None:
    """The measured time of the first stale overwrite is within 0.5 s of the model's for the id."""
    expected = float(key(student_id)["first_stale_write_s"])  # type: ignore[arg-type]
    assert isinstance(answer, (int, float)) and not isinstance(answer, bool), "first_stale_write_s must be a number"
    assert abs(float(answer) - expected) <= 0.5, "first_stale_write_s is not what your race gives"


def check_conditional_write_table(strategy: Callable[[WriteRequest], bool]) -> None:
    """The strategy refuses every older or equal plan and commits every newer one (plans 1-8)."""
    for active in range(1, 9):
        for new in range(1, 9):
            if new == active:
                continue
            request = WriteRequest("regional", active, new)
            got = call_strategy("conditional_write", strategy, request)
            assert got is (new > active), f"wrong decision for {request}: {got!r}"


def check_conditional_write_seeds(
    strategy: Callable[[WriteRequest], bool], student_id: str, seeds_count: int = 12
) -> None:
    """Over ``seeds_count`` seeds around the id's race: no endpoint ever empty, no stale write,
    and the regional endpoint ends within 2 plans of the newest (the writes still happen)."""
    base = config(student_id)
    for k in range(seeds_count):
        cfg = replace(base, seed=base.seed + 7919 * k, conditional_write=strategy)
        result = race.run(cfg)
        s = result.summary
        assert s.endpoints_emptied == (), f"seed {cfg.seed}: endpoints answered empty: {s.endpoints_emptied}"
        assert s.stale_overwrites_count == 0, f"seed {cfg.seed}: {s.stale_overwrites_count} stale overwrites"
        assert s.max_generation_lag <= 4, f"seed {cfg.seed}: endpoints fell {s.max_generation_lag} plans behind"


def check_conditional_write_explorer(strategy: Callable[[WriteRequest], bool], *, recovers: bool) -> None:
    """The explorer over every interleaving (3 Enactors, 4 plans): never an alias to a deleted plan
    (``recovers=False``), and from every reachable state the newest plan can still be applied everywhere
    (``recovers=True``)."""
    summary = explore.run(replace(explore.INCIDENT, conditional_write=strategy)).summary
    if recovers:
        assert summary.recovers, f"{summary.stuck_states_count} reachable states can never recover"
    else:
        assert summary.safe, (
            f"{summary.violating_states_count} reachable states have an alias to a deleted "
            f"plan (a path of {summary.counterexample_steps_count} steps)"
        )


def _prepare(student_id: str) -> None:
    key(student_id)


SPEC = Spec(
    assignment=ASSIGNMENT,
    questions=(
        Question("q1_predict", 1),
        Question("q2_measure", 2),
        Question("q3_design", 4),
        Question("q4_explain", 3, manual=True),
    ),
    answers=(
        *prediction_answers({"stale_overwrites": ("int", 0, 10_000)}),
        Answer("stale_overwrites", "stale_overwrites", "int", 0, 10_000_000),
        Answer("first_stale_write_s", "first_stale_write_s", "number", 0.0, 1e9),
    ),
    strategy="conditional_write",
    strategy_field="conditional_write",
    checks=(
        Check("q1_predict", "made before the run", 1, "prediction", check_prediction),
        answer_check("q2_measure", "stale_overwrites", 1, check_stale_overwrites, "stale_overwrites"),
        answer_check("q2_measure", "first_stale_write_s", 1, check_first_stale_write_s, "first_stale_write_s"),
        Check(
            "q3_design",
            "decisions for every pair of plans",
            1,
            "strategy",
            lambda s, i: check_conditional_write_table(s),
        ),
        Check("q3_design", "many seeds of your race", 1, "strategy", check_conditional_write_seeds),
        Check(
            "q3_design",
            "every interleaving: safe",
            1,
            "strategy",
            lambda s, i: check_conditional_write_explorer(s, recovers=False),
        ),
        Check(
            "q3_design",
            "every interleaving: recovers",
            1,
            "strategy",
            lambda s, i: check_conditional_write_explorer(s, recovers=True),
        ),
    ),
    references=(reference_conditional_write,),
    prepare=_prepare,
    params=lambda i: {k: v for k, v in asdict(params(i)).items() if k != "student_id"},
    key=key,
    prediction=("stale_overwrites",),
)
