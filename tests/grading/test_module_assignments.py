"""The university module's written assignments: each student's own race and night, and the model
answers the instructor prints for an id (``python -m coursetools.grading key module-1-race``).

Every model answer is checked against the run it comes from, and every sentence the module page says
about the answers (which backoff recovers on which fleet) against a sample of students' nights.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from coursetools.grading import __main__ as cli
from coursetools.grading import module as tools_module
from labsupport import dwfm, explore, race
from labsupport.assignments import lab06
from labsupport.assignments import module as student_module
from labsupport.errors import ConfigError

from ._points import both

module = both(student_module, tools_module)

ID, OTHER_ID = "s1234567", "s7654321"
SAMPLE = [f"s{3000000 + n}" for n in range(0, 40, 8)]
PAGE = Path(__file__).parents[2] / "chapters" / "instructor-guide" / "university-module.md"


def test_an_id_gives_its_own_race_and_night_always_the_same():
    assert module.race_params(ID) == module.race_params(f" {ID} ") != module.race_params(OTHER_ID)
    assert module.collapse_params(ID) == module.collapse_params(ID)
    roster = [module.collapse_params(f"s{n:07d}") for n in range(200)]
    assert {p.outage_s for p in roster} == set(module.OUTAGES_S)
    assert {p.dwfm_hosts_count for p in roster} == set(module.HOSTS)
    assert {p.work_deadline_s for p in roster} == set(module.DEADLINES_S)
    for bad in ("", "  "):
        with pytest.raises(ConfigError, match="student_id"):
            module.race_params(bad)
        with pytest.raises(ConfigError, match="student_id"):
            module.collapse_params(bad)


@pytest.mark.parametrize("student_id", SAMPLE)
def test_every_students_race_empties_the_regional_endpoint(student_id):
    p = module.race_params(student_id)
    assert p.bounds in lab06.BOUNDS and p.lock_losses_count in module.LOCK_LOSSES
    s = race.run(module.race_config(student_id)).summary
    assert s.regional_empty_s > 0 and s.stale_overwrites_count > 0
    assert not explore.run(module.explore_config(student_id)).summary.safe


def test_the_fleet_range_brackets_the_threshold_of_every_night():
    """The bisection's ends hold at the assignment's corners: the hardest night recovers the smallest
    fleet, the easiest does not recover the largest (the threshold grows with hosts and deadline and
    falls with the outage, checked on the sample below)."""
    lo, hi = module.FLEET_RANGE
    hardest = replace(
        dwfm.INCIDENT,
        outage_end_s=max(module.OUTAGES_S),
        dwfm_hosts_count=min(module.HOSTS),
        work_deadline_s=min(module.DEADLINES_S),
        operator_throttle_at_s=None,
        operator_restart_at_s=None,
    )
    easiest = replace(
        hardest,
        outage_end_s=min(module.OUTAGES_S),
        dwfm_hosts_count=max(module.HOSTS),
        work_deadline_s=max(module.DEADLINES_S),
    )
    assert dwfm.run(replace(hardest, fleet_droplets_count=lo)).summary.recovered
    assert not dwfm.run(replace(easiest, fleet_droplets_count=hi)).summary.recovered
    with pytest.raises(ConfigError, match="bracket"):
        module.largest_recovering_fleet(replace(easiest, throttle_by_queue_length=True))


def test_the_race_model_answer_is_the_ids_own_run():
    k = module.race_key(ID)
    res = race.run(module.race_config(ID))
    ev = res.events
    reg = race.INCIDENT.regional_endpoint
    stale = ev[(ev["action"] == "stale_write") & (ev["endpoint"] == reg)].iloc[0]
    deleted = ev[(ev["action"] == "delete_active") & (ev["endpoint"] == reg)].iloc[0]
    q1 = k["q1_your_race"]
    assert (q1["stale_writer"], q1["deleter"]) == (stale["actor"], deleted["actor"]) and stale["actor"] != deleted[
        "actor"
    ]
    assert (
        q1["stale_plan"] == int(stale["generation"])
        and q1["stale_overwrites_count"] == res.summary.stale_overwrites_count
    )
    table = race.guard_table(module.race_config(ID)).set_index("guards")
    q2 = k["q2_guard_table"]
    assert list(q2["your_table"]) == list(table.index)
    assert q2["smallest_guard_sets_with_neither"] == ["1"], "the conditional write alone removes both"
    assert (table.loc["1", "stale_overwrites_count"], table.loc["1", "regional_empty_s"]) == (0, 0.0)
    q3 = k["q3_counterexample"]
    events = explore.run(module.explore_config(ID)).events
    assert q3["counterexample_steps"] == len(events) == len(q3["counterexample"])
    assert all(
        line.startswith(f"{n}. {actor}: ")
        for n, (line, actor) in enumerate(zip(q3["counterexample"], events["actor"], strict=True), 1)
    )
    verdicts = explore.verdict_table(module.explore_config(ID)).set_index("guards")
    for g in q3["guards_alone_that_remove_every_counterexample_and_recover"]:
        assert verdicts.loc[g, "safe"] and verdicts.loc[g, "recovers"]


def test_the_collapse_model_answer_is_the_ids_own_runs():
    k = module.collapse_key(ID)
    night = module.dwfm_config(ID)
    th = k["q1_threshold"]["largest_fleet_that_recovers"]
    assert dwfm.run(replace(night, fleet_droplets_count=th)).summary.recovered
    assert not dwfm.run(replace(night, fleet_droplets_count=th + 10)).summary.recovered
    p = module.collapse_params(ID)
    assert night.outage_end_s - night.outage_start_s == p.outage_s and night.operator_restart_at_s is None
    assert (
        k["q1_threshold"]["with_two_more_hosts"] > th and k["q1_threshold"]["with_a_deadline_two_minutes_longer"] > th
    )
    fleet = round(1.5 * th / 100) * 100
    once = k["q2_retries"][f"fleet {fleet}"]["retry at once (the incident's)"]
    assert once == tools_module._summary(replace(night, fleet_droplets_count=fleet))  # noqa: SLF001
    assert not once["recovered"] and once["wasted_fraction"] > 0.9


@pytest.mark.parametrize("student_id", SAMPLE)
def test_what_the_module_page_says_about_backoff_holds_on_students_nights(student_id):
    """Half again the threshold: every backoff recovers, retrying at once does not, admission control
    is sooner; three times: a 30-minute cap does not recover, a 5-minute base does, admission control does."""
    k = module.collapse_key(student_id)
    th = k["q1_threshold"]["largest_fleet_that_recovers"]
    half_again, triple = (k["q2_retries"][f"fleet {f}"] for f in (round(1.5 * th / 100) * 100, 3 * th))
    throttled = k["q3_admission_control"][f"fleet {round(1.5 * th / 100) * 100}, throttle_by_queue_length"]
    assert not half_again.pop("retry at once (the incident's)")["recovered"]
    assert all(r["recovered"] for r in half_again.values())
    assert throttled["recovered"]
    assert all(
        dwfm.CLOCK.seconds(r["recovered_at"]) > dwfm.CLOCK.seconds(throttled["recovered_at"])
        for r in half_again.values()
    )
    assert not triple["backoff with full jitter, base 30 s, cap 30 min"]["recovered"]
    assert triple["backoff with full jitter, base 5 min, cap 4 h"]["recovered"]
    assert k["q3_admission_control"][f"fleet {3 * th}, throttle_by_queue_length"]["recovered"]
    assert not k["q3_admission_control"][f"fleet {3 * th}, no throttle"]["recovered"]


def test_a_4_hour_cap_recovers_three_times_the_threshold_on_some_nights_and_not_others():
    outcomes = {
        module.collapse_key(sid)["q2_retries"][
            f"fleet {3 * module.collapse_key(sid)['q1_threshold']['largest_fleet_that_recovers']}"
        ]["backoff with full jitter, base 30 s, cap 4 h"]["recovered"]
        for sid in [f"s{3000000 + n}" for n in (0, 2, 12, 16)]
    }
    assert outcomes == {True, False}


def test_the_key_command_prints_the_module_answers(capsys):
    assert cli.main(["key", "module-1-race", "--id", ID]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(module.race_key(ID)))
    with pytest.raises(SystemExit) as stopped:
        cli.main(["key", "module-2-collapse", "--id", " "])
    assert stopped.value.code == 2 and "student_id must be a non-empty string" in capsys.readouterr().err


def test_the_module_page_asks_about_the_students_own_problem_and_names_the_model_answers():
    text = " ".join(
        PAGE.read_text(encoding="utf-8").split("## Assignments")[1].split("## Assessment rubric")[0].split()
    )
    for call in (
        "module.race_config(STUDENT_ID)",
        "module.explore_config(STUDENT_ID)",
        "module.dwfm_config(STUDENT_ID",
    ):
        assert call in text, call
    assert "key module-1-race --id" in text and "key module-2-collapse --id" in text
    assert "labs 01 to 06 and 08" in text and "08-write-the-enactor" in text
    assert "Network Manager's launch admission" in text, "lab 05 is among the graded versions"
    # The solutions printed in the book are no longer the assignments: no "Reproduce the incident run".
    assert "Reproduce the incident run" not in text and "find the smallest fleet at which the system" not in text
