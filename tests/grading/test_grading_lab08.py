"""Lab 08's graded version: each id's problem, the key, the hidden checks and the restricted compile.

The checks are called directly on the reference step, on the incident's, and on half-right steps
(the lab's exercises: a careful clean-up behind blind writes; compare-and-set writes with the
clean-up by age; a compare-and-set without a re-read; a step that never deletes or never writes),
so that what each point rewards is asserted; each step is also compiled from source as the grader
compiles it (RestrictedPython: ``yield`` and the operation constructors passed as arguments work,
the guards hold). A class graded end to end in the sandbox, with the instructor's command, is in
``test_red_team.py``. The last tests build the assignment with ``otter assign`` and read the copy.
"""

from __future__ import annotations

import functools
import inspect
import json
import textwrap
from pathlib import Path

import pytest
from _steps import cas_write_only_step as cas_once  # lab 08's exercise 2: one compare-and-set, no re-read

from coursetools.grading import __main__ as cli
from coursetools.grading import lab08 as tools_lab08
from coursetools.grading import restricted
from coursetools.grading.notebook import DesignSource
from labsupport import enactor, explore, race
from labsupport.assignments import lab08 as student_lab08
from labsupport.errors import ConfigError

from ._points import both, earned, fails

lab08 = both(student_lab08, tools_lab08)

ID, OTHER_ID = "s1000001", "s1000002"


# -- the steps a class hands in --------------------------------------------------------------------
def careful_cleanup(plan, endpoints, keep, read, write, delete):
    """Lab 08's exercise 3: blind writes, a clean-up that keeps what is referenced (with expect=)."""
    for endpoint in endpoints:
        yield write(endpoint, plan)
    for endpoint in endpoints:
        zone = yield read(endpoint)
        for old in zone.trees:
            if old < plan - keep and old not in (zone.alias, zone.rollback):
                yield delete(endpoint, old, expect=zone)


def cas_then_age(plan, endpoints, keep, read, write, delete):
    """Compare-and-set writes with a re-read, then the incident's clean-up by age (deletes rollbacks)."""
    for endpoint in endpoints:
        zone = yield read(endpoint)
        while zone.alias < plan:
            if (yield write(endpoint, plan, expect=zone)):
                break
            zone = yield read(endpoint)
    for endpoint in endpoints:
        zone = yield read(endpoint)
        for old in zone.trees:
            if old < plan - keep:
                yield delete(endpoint, old)


def never_deletes(plan, endpoints, keep, read, write, delete):
    for endpoint in endpoints:
        zone = yield read(endpoint)
        while zone.alias < plan:
            if (yield write(endpoint, plan, expect=zone)):
                break
            zone = yield read(endpoint)


def never_writes(plan, endpoints, keep, read, write, delete):
    for endpoint in endpoints:
        yield read(endpoint)


@functools.cache
def _design_points(step, student_id: str = ID) -> dict[str, bool]:
    """Which design checks ``step`` passes for ``student_id`` (computed once per step: each takes seconds)."""
    return earned(
        {
            "safe": lambda: lab08.check_step_safe(step, student_id),
            "forward": lambda: lab08.check_step_never_goes_back(step, student_id),
            "cleans": lambda: lab08.check_step_cleans(step, student_id),
            "elsewhere": lambda: lab08.check_step_elsewhere(step, student_id),
        }
    )


def _compiled(step) -> object:
    """``step`` compiled from its source as the grader compiles a design answer."""
    source = textwrap.dedent(inspect.getsource(step)).replace(f"def {step.__name__}(", "def enactor_step(")
    source = "\n".join(line for line in source.splitlines() if '"""' not in line)
    fn, notes = restricted.compile_design(DesignSource("enactor_step", source))
    assert notes == []
    return fn


# -- the problems ----------------------------------------------------------------------------------
@pytest.mark.parametrize("bounds", lab08.BOUNDS + lab08.PROTOCOL_VARIANTS)
def test_the_incident_step_empties_an_endpoint_of_every_protocol_and_the_reference_is_safe(bounds):
    incident = explore.run(lab08.explore_config(bounds)).summary
    assert not incident.safe and 11 <= incident.counterexample_steps_count <= 13
    ref = explore.run(lab08.explore_config(bounds, lab08.reference_enactor_step)).summary
    assert ref.safe and ref.recovers and ref.cleans and not ref.stale_overwrite_reachable
    # Small enough to grade a class: a student's own protocol stays under 60,000 states for the reference.
    assert ref.states_count < 60_000 or bounds in lab08.PROTOCOL_VARIANTS


def test_no_student_has_a_protocol_of_the_other_protocols():
    assert not set(lab08.BOUNDS) & set(lab08.PROTOCOL_VARIANTS)


def test_an_id_gives_its_own_problem_always_the_same():
    p = lab08.params(ID)
    assert p == lab08.params(f" {ID}\n") and p != lab08.params(OTHER_ID)
    roster = [lab08.params(f"s{k:07d}") for k in range(300)]
    assert {(q.enactor_count, q.generation_count, q.endpoint_count, q.cleanup_keep_generations) for q in roster} == set(
        lab08.BOUNDS
    )
    assert {q.lock_losses_count for q in roster} == set(lab08.LOCK_LOSSES)
    assert len({q.first_seed for q in roster}) > 290
    assert list(lab08.seeds(ID)) == list(range(p.first_seed, p.first_seed + lab08.SEEDS_COUNT))
    cfg = lab08.race_config(ID)
    assert cfg.delays[0].lock_losses_count == p.lock_losses_count and cfg.enactor_step is enactor.incident_step
    with pytest.raises(ConfigError, match="student_id"):
        lab08.params("")


def test_the_key_is_the_ids_own_runs_and_tells_the_counterexample():
    k = lab08.key(ID)
    checked = explore.run(lab08.explore_config(ID))
    runs = explore.race_seeds(enactor.incident_step, lab08.seeds(ID), config=lab08.race_config(ID))
    assert k["counterexample_steps"] == len(checked.events) and k["runs_emptied"] == int(runs["emptied"].sum())
    # The counterexample in words is the checker's own, actor by actor and operation by operation.
    words = k["counterexample"]
    for row in checked.events.itertuples():
        assert f"{row.step}. " in words and (row.operation or "") in words
        if row.actor != "planner":
            assert f"{row.step}. {row.actor} " in words
    assert "over a NEWER plan" in words and "the endpoint answers with no records" in words
    assert lab08.key(OTHER_ID)["counterexample"] != words or lab08.params(OTHER_ID) != lab08.params(ID)


def test_the_measured_answers_are_checked_against_the_collected_ids_runs():
    k = lab08.key(ID)
    lab08.check_counterexample_steps(k["counterexample_steps"], ID)
    lab08.check_runs_emptied(k["runs_emptied"], ID)
    assert "not what your protocol gives" in fails(lab08.check_counterexample_steps, k["counterexample_steps"] + 1, ID)
    assert "not what your race gives" in fails(lab08.check_runs_emptied, k["runs_emptied"] + 1, ID)
    assert "must be a Python int" in fails(lab08.check_runs_emptied, float(k["runs_emptied"]), ID)


def test_the_prediction_refuses_to_run_before_it_is_recorded_and_checks_its_values():
    prediction = lab08.Prediction()
    with pytest.raises(ConfigError, match="record your prediction first"):
        prediction.run(ID)
    for bad in ({"steps": 0, "runs": 3}, {"steps": 12, "runs": 21}, {"steps": True, "runs": 3}):
        with pytest.raises(ConfigError, match="must be a whole number"):
            prediction.record(**bad)
    prediction.record(steps=12, runs=3)
    checked, runs = prediction.run(ID)
    assert prediction.made_before_run and len(runs) == lab08.SEEDS_COUNT and not checked.summary.safe


# -- the design checks: what each point rewards ----------------------------------------------------
def test_the_reference_step_earns_every_design_point_and_the_incidents_none():
    assert _design_points(lab08.reference_enactor_step) == dict.fromkeys(
        ("safe", "forward", "cleans", "elsewhere"), True
    )
    assert not any(_design_points(enactor.incident_step).values())


def test_a_careful_clean_up_behind_blind_writes_earns_half():
    """Lab 08's exercise 3: never empty, cleans, keeps rollbacks; but endpoints still go back."""
    assert _design_points(careful_cleanup) == {"safe": True, "forward": False, "cleans": True, "elsewhere": False}
    assert "an Enactor writes an older plan over a newer one" in fails(
        lab08.check_step_never_goes_back, careful_cleanup, ID
    )


def test_compare_and_set_writes_with_the_clean_up_by_age_lose_the_rollback():
    assert _design_points(cas_then_age) == {"safe": True, "forward": True, "cleans": False, "elsewhere": False}
    assert "a rollback record points at a deleted plan" in fails(lab08.check_step_cleans, cas_then_age, ID)


def test_one_compare_and_set_without_a_re_read_empties_an_endpoint_and_earns_nothing():
    assert not any(_design_points(cas_once).values())
    message = fails(lab08.check_step_safe, cas_once, ID)
    assert "an endpoint goes empty" in message and "-> False" in message, "the refused compare-and-set is named"


def test_a_step_that_never_deletes_or_never_writes_earns_what_it_does():
    assert _design_points(never_deletes) == {"safe": True, "forward": True, "cleans": False, "elsewhere": False}
    assert "clean-up does not clean" in fails(lab08.check_step_cleans, never_deletes, ID)
    assert not any(_design_points(never_writes).values())


def test_the_feedback_tells_the_students_own_counterexample_step_by_step():
    message = fails(lab08.check_step_safe, enactor.incident_step, ID)
    events = explore.run(lab08.explore_config(ID)).events
    n, g, e, keep = _bounds(ID)
    assert message.startswith(f"{n} Enactors, plans 1 to {g}, {e} endpoint")
    assert f"clean-up keeps {keep}: an endpoint goes empty, in {len(events)} steps: 1. " in message
    for row in events.itertuples():  # every step of the checker's counterexample, named by its Enactor
        if row.operation:
            assert f"{row.step}. {row.actor} {row.operation} -> {row.reply}" in message
    from coursetools.grading.check import MESSAGE_CHARS

    assert len(message) <= MESSAGE_CHARS, "the whole path reaches the student's feedback"


def test_a_long_path_is_shortened_to_the_enactors_last_steps():
    cfg = lab08.explore_config((2, 4, 2, 1))
    g = tools_lab08.engine.search(cfg)
    steps = tools_lab08._replay(cfg, g, g.first_bad)  # noqa: SLF001
    whole = lab08.path_words(steps)
    short = lab08.path_words(steps, 300)
    assert len(short) <= 300 < len(whole) and short.startswith("(") and short.endswith(whole[-60:])


def test_the_race_check_names_the_seeds_where_an_endpoint_went_empty():
    message = fails(lab08.check_step_elsewhere, careful_cleanup, ID)
    assert "went back to an older plan" in message or "writes an older plan" in message


def _bounds(student_id: str) -> tuple[int, int, int, int]:
    p = lab08.params(student_id)
    return (p.enactor_count, p.generation_count, p.endpoint_count, p.cleanup_keep_generations)


# -- compiled restricted, as the grader compiles it -------------------------------------------------
@pytest.mark.parametrize("step", [lab08.reference_enactor_step, careful_cleanup, cas_then_age])
def test_a_step_compiled_restricted_earns_what_the_plain_step_earns(step):
    assert inspect.isgeneratorfunction(_compiled(step))
    assert _design_points(_compiled(step)) == _design_points(step)


def test_yield_from_a_helper_compiles_and_runs():
    helper = (
        "def apply(plan, endpoints, read, write):\n"
        "    for e in endpoints:\n"
        "        z = yield read(e)\n"
        "        while z.alias < plan:\n"
        "            if (yield write(e, plan, expect=z)):\n"
        "                break\n"
        "            z = yield read(e)\n"
    )
    main = (
        "def enactor_step(plan, endpoints, keep, read, write, delete):\n"
        "    yield from apply(plan, endpoints, read, write)\n"
        "    for e in endpoints:\n"
        "        z = yield read(e)\n"
        "        for old in z.trees:\n"
        "            if old < plan - keep and old not in (z.alias, z.rollback):\n"
        "                yield delete(e, old, expect=z)\n"
    )
    fn, notes = restricted.compile_design(DesignSource("enactor_step", main, helpers={"apply": helper}))
    assert notes == [] and all(_design_points(fn).values())


@pytest.mark.parametrize(
    "body, words",
    [
        ("    yield read.__init__", "_"),
        ("    g = (x for x in [])\n    yield g.gi_frame", "gi_frame"),
        ("    yield write.mro()[0].__subclasses__()", "_"),
        ("    import os\n    yield read(os.name)", None),
    ],
)
def test_a_step_that_reaches_beyond_its_arguments_fails(body, words):
    source = f"def enactor_step(plan, endpoints, keep, read, write, delete):\n{body}\n"
    if words is not None:
        with pytest.raises(restricted.RestrictedError, match=words):
            restricted.compile_design(DesignSource("enactor_step", source))
        return
    fn, _ = restricted.compile_design(DesignSource("enactor_step", source))
    assert "broke the contract" in fails(lab08.check_step_safe, fn, ID)  # the import fails when run


def test_a_step_cannot_change_what_the_engine_hands_it():
    source = (
        "def enactor_step(plan, endpoints, keep, read, write, delete):\n"
        "    zone = yield read(endpoints[0])\n"
        "    zone.alias = 99\n"
        "    write.plan = 1\n"
        "    yield write(endpoints[0], plan)\n"
    )
    fn, _ = restricted.compile_design(DesignSource("enactor_step", source))
    assert "broke the contract" in fails(lab08.check_step_safe, fn, ID)
    assert race.Guards().label() == "none" and enactor.incident_step.__name__ == "incident_step"


# -- the public form check ------------------------------------------------------------------------
def test_the_public_form_check_says_what_to_change():
    lab08.check_form(lab08.reference_enactor_step)
    lab08.check_form(enactor.incident_step)  # wrong, but of the right form: decided at grading time

    def not_a_generator(plan, endpoints, keep, read, write, delete):
        return None

    def yields_text(plan, endpoints, keep, read, write, delete):
        yield "write regional"

    def imports(plan, endpoints, keep, read, write, delete):
        import math as m

        yield read(endpoints[m.floor(0.5)])

    assert "has no yield" in fails(lab08.check_form, not_a_generator)
    assert "six arguments" in fails(lab08.check_form, lambda plan: (yield plan))
    assert "broke the contract" in fails(lab08.check_form, yields_text)
    assert "imports math" in fails(lab08.check_form, imports)


# -- the command line, the student copy, the instructor guide ---------------------------------------
def test_the_grading_command_knows_the_assignment(capsys):
    assert cli.main(["key", lab08.ASSIGNMENT, "--id", ID]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(lab08.key(ID)))


def test_the_student_copy_holds_no_solution_and_no_hidden_test(built):
    text = (built(lab08.ASSIGNMENT, student_only=True) / "student" / f"{lab08.ASSIGNMENT}.ipynb").read_text(
        encoding="utf-8"
    )
    for leak in ("SOLUTION", "hidden=True", "check_step_", "expect=zone", "int(len(checked.events))", "Model answer"):
        assert leak not in text, leak
    assert "def enactor_step(plan, endpoints, keep, read, write, delete):" in text and "STUDENT_ID" in text


def test_the_solution_notebooks_step_is_the_reference():
    source = json.loads(
        (Path(__file__).parents[2] / "assignments" / lab08.ASSIGNMENT / f"{lab08.ASSIGNMENT}.ipynb").read_text(
            encoding="utf-8"
        )
    )
    cell = next("".join(c["source"]) for c in source["cells"] if "def enactor_step(" in "".join(c["source"]))
    body = [line for line in cell.splitlines() if "SOLUTION" not in line and '"""' not in line]
    fn, _ = restricted.compile_design(DesignSource("enactor_step", "\n".join(body)))
    assert all(_design_points(fn).values())


def test_the_instructor_guide_states_what_the_assignment_does():
    page = (Path(__file__).parents[2] / "chapters" / "instructor-guide" / "grading.md").read_text(encoding="utf-8")
    section = " ".join(page.split("## What the lab 08 assignment asks")[1].split("\n## ")[0].split())
    ranges = [sorted(set(c)) for c in zip(*lab08.BOUNDS, strict=True)]
    assert ranges == [[2, 3], [3, 4, 5], [1, 2], [0, 1, 2]]
    assert "2 or 3 DNS Enactors, 3 to 5 plan generations, 1 or 2 endpoints" in section
    assert f"one of {len(lab08.BOUNDS)} protocols" in section
    assert f"{min(lab08.LOCK_LOSSES)} to {max(lab08.LOCK_LOSSES)} times in a row" in section
    assert f"{lab08.SEEDS_COUNT} seeds" in section
    steps = {explore.run(lab08.explore_config(b)).summary.counterexample_steps_count for b in lab08.BOUNDS}
    assert steps == {11, 12, 13} and "11 to 13 steps" in section
    assert "The incident's step earns none" in section and not any(_design_points(enactor.incident_step).values())
    assert "earns two of the four" in section
    assert sum(_design_points(careful_cleanup).values()) == sum(_design_points(cas_then_age).values()) == 2
    assert "without a re-read, earns none" in section and not any(_design_points(cas_once).values())


def test_the_model_answer_says_how_often_the_race_goes_empty():
    """Question 4 (a)'s model answer and the rubric: the race empties an endpoint in some runs and not
    others, about half of them, and about as often with the fewest lock losses as with the most."""
    from dataclasses import replace

    emptied = {}
    for losses in (min(lab08.LOCK_LOSSES), max(lab08.LOCK_LOSSES)):
        cfg = replace(lab08.race_config(ID), delays=(replace(race.INCIDENT_DELAY, lock_losses_count=losses),))
        runs = explore.race_seeds(enactor.incident_step, range(1_000, 1_040), config=cfg)
        emptied[losses] = int(runs["emptied"].sum())
    assert all(10 <= n <= 30 for n in emptied.values()), emptied
    assert abs(emptied[min(emptied)] - emptied[max(emptied)]) <= 6, emptied
