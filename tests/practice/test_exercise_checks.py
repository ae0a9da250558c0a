"""labsupport.exercises: each lab's public checks say right to the model's own answer and wrong to another.

The right answers here are built from each module's ``model_exN()`` (the runs the check itself
compares with), so a check that could not say "right", or one that says "right" to anything, fails.
"""

from __future__ import annotations

import importlib

import pytest

from labsupport import enactor, predict
from labsupport.exercises import lab08

WORDS = (
    "a written answer long enough for the check to call it answered, whatever a person who reads it "
    "thinks of its content, which no check can judge"
)
#: Wrong values where a generic change would still be right (another limit too high, say).
WRONG = {
    ("08", 1, "step"): enactor.incident_step,
    ("08", 2, "step"): enactor.incident_step,
    ("08", 3, "step"): lab08.cas_only_reference,
    ("00", 2, "service"): "Lambda",
    ("05", 5, "wrong_answer_case"): "Redshift queries with IAM user credentials",
    ("02", 5, "limit_too_high"): 50,
    ("02", 5, "limit_that_works"): 100,
}


def _right(lab: str, n: int) -> dict:
    m = importlib.import_module(f"labsupport.exercises.lab{lab}")
    e = getattr(m, f"model_ex{n}")()
    return {
        ("00", 1): lambda: {k: e[k] for k in ("summary_min", "dashboard_min", "gap_min")},
        ("00", 2): lambda: {"service": e["service"], "rows": e["rows"]},
        ("00", 3): lambda: {"covered_min": e["covered_min"]},
        ("00", 4): lambda: {"columns": ["id", "time_pdt", "observer", "noticed_or_happened", "source", "tag"]},
        ("01", 1): lambda: {"regional_empties": e["regional_empty_s"] > 0, "is_fix": e["is_fix"]},
        ("01", 2): lambda: {f"regional_{k}": e["regional"][k] for k in (6, 9, 12)},
        ("01", 3): lambda: {"seconds_in_past": e["seconds_in_past"], "generations_back": e["generations_back"]},
        ("01", 4): lambda: {"example_1": WORDS, "example_2": WORDS},
        ("02", 1): lambda: {"recovers": e["recovers"], "hours_after_dns": e["hours_after_dns"]},
        ("02", 2): lambda: {"recovers": e["recovers"], "missing_at_restart": e["missing_at_restart"]},
        ("02", 3): lambda: {"any_recovers": any(e["recovered"]), "leases_with_4h_cap": e["leases"][-1]},
        ("02", 4): lambda: {"threshold_fleet": e["threshold"]},
        ("02", 5): lambda: {"limit_that_works": 50, "limit_too_high": 100, "dashboard": WORDS},
        ("03", 1): lambda: {"flaps_10s": e["flaps"][10], "flaps_60s": e["flaps"][60], "failover_moves": False},
        ("03", 2): lambda: {
            "failover_without_backlog": e["failovers"][0] > 0,
            "failover_with_600": e["failovers"][600] > 0,
            "normal_600_min": e["normal_min"][600],
        },
        ("03", 3): lambda: {"largest_cap": e["largest_cap"]},
        ("03", 4): lambda: {"evidence": WORDS, "limits": WORDS, "page_when": WORDS},
        ("04", 1): lambda: {"half_failing_5s": e["half_failing_s"][5], "half_failing_600s": e["half_failing_s"][600]},
        ("04", 2): lambda: {
            "shared_spreads": "more" if e["spread_min"][200] > e["spread_min"][1] else "less",
            "spread_200_min": e["spread_min"][200],
        },
        ("04", 3): lambda: {"largest_ttl_min": e["largest_min"]},
        ("04", 4): lambda: {"serve_stale_helps": e["serve_stale_helps"], "rule": WORDS, "risks": WORDS},
        ("05", 1): lambda: {"dynamodb_min": e["dynamodb_min"]},
        ("05", 2): lambda: {
            "launches_longer": True,
            "nlb_longer": True,
            "launches_min_x10": max(e["launches_min"].values()),
        },
        ("05", 3): lambda: {
            "shortest_h": min(e["totals_h"]),
            "longest_h": max(e["totals_h"]),
            "all_within_20pct": e["all_within"],
        },
        ("05", 4): lambda: {"gains_most": e["gains_most"], "four_h": e["four_h"]},
        ("05", 5): lambda: {
            "cross_region_rows": len(e["cross_region"]),
            "wrong_answer_case": e["wrong_answer"],
            "designs": WORDS,
        },
        ("06", 1): lambda: {"safe": e["safe"], "stale_overwrite_reachable": e["stale_overwrite_reachable"]},
        ("06", 2): lambda: {"safe_with_4": e["safe"][4], "safe_with_5": e["safe"][5]},
        ("06", 3): lambda: {
            "guards_that_keep_it": list(e["keeps"]),
            "guard_3_keeps_it": "reject_empty_records" in e["keeps"],
        },
        ("06", 4): lambda: {"mechanism_1": WORDS, "mechanism_2": WORDS},
        ("07", 1): lambda: {"over": e["over"], "why": WORDS},
        ("07", 2): lambda: {
            "fewer_nlb_errors": e["nlb_minutes"]["early"] < e["nlb_minutes"]["aws"],
            "verdict": e["verdict"],
        },
        ("07", 3): lambda: {"signal": WORDS, "threshold": WORDS, "evidence": WORDS},
        ("08", 1): lambda: {"step": compare_and_set_step},
        ("08", 2): lambda: {
            "step": lab08.cas_only_reference,
            "safe": e["safe"],
            "stale_overwrite_reachable": e["stale_overwrite_reachable"],
        },
        ("08", 3): lambda: {
            "step": lab08.cleanup_careful_reference,
            "safe_with_expect": e["safe_with_expect"],
            "safe_without_expect": e["safe_without_expect"],
            "stale_overwrite_reachable": e["stale_overwrite_reachable"],
        },
    }[(lab, n)]()


def compare_and_set_step(plan, endpoints, keep, read, write, delete):
    """A step that passes lab 08's Exercise 1 (its check is what this asserts): both compare-and-sets."""
    for endpoint in endpoints:
        zone = yield read(endpoint)
        while zone.alias < plan:
            if (yield write(endpoint, plan, expect=zone)):
                break
            zone = yield read(endpoint)
    for endpoint in endpoints:
        zone = yield read(endpoint)
        for old in zone.trees:
            if old < plan - keep and old not in (zone.alias, zone.rollback):
                yield delete(endpoint, old, expect=zone)


CASES = [
    ("00", 1), ("00", 2), ("00", 3), ("00", 4), ("01", 1), ("01", 2), ("01", 3), ("01", 4),
    ("02", 1), ("02", 2), ("02", 3), ("02", 4), ("02", 5), ("03", 1), ("03", 2), ("03", 3), ("03", 4),
    ("04", 1), ("04", 2), ("04", 3), ("04", 4), ("05", 1), ("05", 2), ("05", 3), ("05", 4), ("05", 5),
    ("06", 1), ("06", 2), ("06", 3), ("06", 4), ("07", 1), ("07", 2), ("07", 3), ("08", 1), ("08", 2), ("08", 3),
]  # fmt: skip


def _wrong(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value * 3 + 7
    if isinstance(value, list):
        return ["check_version_on_write"] if value != ["check_version_on_write"] else ["self_repair"]
    return {"more": "less", "less": "more", "4": "5", "5": "4", "hindsight": "not over"}.get(value, value)


@pytest.mark.parametrize("lab, n", CASES, ids=lambda x: str(x))
def test_a_check_says_right_to_the_models_answer_and_wrong_to_another(lab, n):
    check = getattr(importlib.import_module(f"labsupport.exercises.lab{lab}"), f"ex{n}")
    right = _right(lab, n)
    good = check(right)
    assert good.passed, str(good)
    # Each measured part, changed alone, is no longer right; the others stay right.
    for name in (k for k, v in right.items() if v is not WORDS and k != "columns"):
        changed = {**right, name: WRONG.get((lab, n, name), _wrong(right[name]))}
        verdicts = {p.name: p.verdict for p in check(changed).parts}
        assert verdicts[name] in ("wrong", "cannot check"), (name, str(check(changed)))
        assert all(v in ("right", "reviewed") for k, v in verdicts.items() if k != name), str(check(changed))
    # Nothing a learner types makes a check raise.
    for junk in (..., None, "answer", [1, 2], {k: object() for k in right}, {k: predict.NEVER for k in right}):
        assert check(junk).status in ("not answered", "wrong", "incomplete")


def test_a_design_checks_written_parts_are_only_reviewed():
    from labsupport.exercises import lab02

    fb = lab02.ex5({"limit_that_works": 50, "limit_too_high": 100, "dashboard": WORDS})
    assert fb.status == "reviewed" and [p.verdict for p in fb.parts] == ["right", "right", "reviewed"]
    assert "goodput" in fb.note


def _ordered_steps(careful: bool):
    """Exercise 3's step with each endpoint written and cleaned before the next: not the step described."""

    def step(plan, endpoints, keep, read, write, delete):
        for endpoint in endpoints:
            yield write(endpoint, plan)
            zone = yield read(endpoint)
            for old in zone.trees:
                if old < plan - keep and old not in (zone.alias, zone.rollback):
                    yield delete(endpoint, old, expect=zone) if careful else delete(endpoint, old)

    return step


def retrying_step(plan, endpoints, keep, read, write, delete):
    """Exercise 2's step with a retry after a refused write (the fix), which Exercise 2 does not ask for."""
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


def test_lab08_steps_are_compared_with_the_step_the_exercise_describes():
    # Either delete of Exercise 3, and a write loop that stops on a refusal or goes on, is the step described.
    refs = lab08.REFERENCE_STEPS[3]
    assert lab08.first_difference(lab08.cleanup_careless_reference, lab08.cleanup_careful_reference) is not None
    assert all(lab08.ex3({"step": ref}).parts[0].verdict == "right" for ref in refs.values())
    # A retry is where Exercise 2's step and the fix part: after a refused write and a read, the fix writes again.
    history, want, got = lab08.first_difference(retrying_step, lab08.cas_only_reference)
    assert (str(history[1][0]).startswith("write("), history[1][1]) == (True, False)
    assert str(want).startswith("delete(") and str(got).startswith("write(")
    part = lab08.ex2({"step": retrying_step}).parts[0]
    assert part.verdict == "wrong" and "-> False" in part.message
    # One endpoint cannot tell the order of writes and clean-ups apart; the two-endpoint state space can.
    for careful in (True, False):
        step = _ordered_steps(careful)
        assert (
            lab08.first_difference(
                step,
                lab08.REFERENCE_STEPS[3][
                    "with expect=zone on its delete, going on after a refused write"
                    if careful
                    else "without expect= on its delete, going on after a refused write"
                ],
            )
            is None
        )
        part = lab08.ex3({"step": step}).parts[0]
        assert part.verdict == "wrong" and "two endpoints" in part.message, part.message


def test_lab08_exercise_1_lists_the_counterexample_of_the_learners_step():
    fb = lab08.ex1({"step": enactor.incident_step})
    assert fb.status == "wrong" and "delete('regional', 2) -> True" in fb.note
    assert fb.note.count("\n") >= 12 and "the ACTIVE plan" in fb.note.splitlines()[-1]
    skeleton = lab08.ex2({"step": lambda plan, endpoints, keep, read, write, delete: None}).parts[0]
    assert skeleton.verdict == "cannot check" and "generator function" in skeleton.message
