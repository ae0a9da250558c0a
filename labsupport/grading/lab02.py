"""Lab 02's graded version (DWFM's congestive collapse): each student's fleet, the key, the hidden checks.

Scenario:
    Every student id gives its own night (:func:`params`): a seed, a fleet size and an outage
    length, derived from the id with SHA-256 (:mod:`labsupport.grading._shared`). The operators do not
    act (no throttle, no restarts), so the only way out of the collapse is the admission policy the
    student writes. The hidden tests of ``assignments/02-dwfm-collapse`` call the ``check_*``
    functions below, which compute the expected answer from the id with :mod:`labsupport.dwfm` at
    grading time: no answer is stored anywhere.
Covers:
    The PES's DWFM section: droplet leases lapse while DynamoDB is unreachable, the backlog of
    lease re-establishments takes longer than the work's timeout, the work is retried and DWFM
    enters congestive collapse. For DWFM the summary announces a test suite of its recovery
    workflow; the throttling by the size of the waiting queue it announces is for EC2's data
    propagation systems. The student writes admission control for DWFM, the course's stop point 5
    (:attr:`labsupport.dwfm.DwfmConfig.admission_policy`).

::

    student id --sha256--> Lab02Params(seed, fleet, outage) --> DwfmConfig (operators off) --> dwfm.run
                                                                '--> key(id): the answers
    hidden test: check_*(answer or policy, notebook id) --graded_id--> the id the grader was given
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from .. import dwfm
from .._memo import cached_run
from ..errors import ConfigError
from ..strategy import AdmissionRequest, call_strategy
from ._shared import PredictionBase, check_prediction_made, digest, graded_id, recorded_requests

__all__ = [
    "ASSIGNMENT",
    "CAPACITY_VARIANTS",
    "Lab02Params",
    "Prediction",
    "RECOVERY_SLACK",
    "WASTE_LIMIT",
    "check_policy_admits_a_short_queue",
    "check_policy_on_other_hosts",
    "check_policy_recovers",
    "check_policy_wastes_little",
    "check_prediction",
    "check_leased_at_horizon",
    "check_wasted_fraction",
    "config",
    "key",
    "params",
    "recovery_bound_s",
    "reference_admission_policy",
]

#: The assignment's name (its folder under ``assignments/`` and otter's assignment name).
ASSIGNMENT = "02-dwfm-collapse"
#: A recovery counts if every lease is back within this many times the ideal drain time (see
#: :func:`recovery_bound_s`).
RECOVERY_SLACK = 1.5
#: Most wasted fraction of started work (timed out after the host worked on it) a passing policy may have.
WASTE_LIMIT = 0.05
#: Hosts unlike the student's own, on which the policy must also work: a 240 s deadline (four
#: rounds), and 40 slots per host. No constant queue limit passes every check: below 40 it refuses
#: a short queue on the 40-slot hosts; from 40 on, work waits past the 240 s deadline (the tests
#: check 30, 40, 50 and 1,000).
CAPACITY_VARIANTS: tuple[dict[str, Any], ...] = ({"work_deadline_s": 240.0}, {"host_concurrency_count": 40})


@dataclass(frozen=True)
class Lab02Params:
    """One student's night.

    Attributes:
        student_id: the id the parameters come from.
        seed: the run's seed (0 to 2**31 - 1).
        fleet_droplets_count: droplets whose leases DWFM holds (5,000 to 8,000, by 100).
        outage_end_s: when DynamoDB is reachable again, seconds after 11:48 PM (7,200 to 10,800, by 300).
    """

    student_id: str
    seed: int
    fleet_droplets_count: int
    outage_end_s: float


def params(student_id: str) -> Lab02Params:
    """The parameters of ``student_id``'s night (deterministic; raises ConfigError on an empty id)."""
    d = digest(ASSIGNMENT, student_id)
    return Lab02Params(
        student_id.strip(),
        int.from_bytes(d[:4], "big") >> 1,
        5_000 + 100 * (d[4] % 31),
        7_200.0 + 300.0 * (d[5] % 13),
    )


def config(student_id: str) -> dwfm.DwfmConfig:
    """The :class:`~labsupport.dwfm.DwfmConfig` of ``student_id``'s night: the incident with their
    fleet, outage and seed, and no operator action (no throttle, no restart)."""
    p = params(student_id)
    return replace(
        dwfm.INCIDENT,
        seed=p.seed,
        fleet_droplets_count=p.fleet_droplets_count,
        outage_end_s=p.outage_end_s,
        operator_throttle_at_s=None,
        operator_restart_at_s=None,
    )


def recovery_bound_s(cfg: dwfm.DwfmConfig) -> float:
    """Seconds after DynamoDB's return within which a passing policy gets every lease back.

    :data:`RECOVERY_SLACK` times the ideal drain time (every droplet needs one lease
    establishment, at the hosts' full capacity, ``fleet / capacity``), plus one state-check
    interval (a droplet asks only when it is checked).
    """
    drain_s = cfg.fleet_droplets_count / (cfg.capacity_per_min / 60.0)
    return RECOVERY_SLACK * drain_s + cfg.state_check_interval_s


def reference_admission_policy(request: AdmissionRequest) -> bool:
    """Deadline-aware admission control: admit an item only if it can finish within its deadline.

    An item admitted now waits for the round in progress (at most ``lease_establish_s``), then for
    the ``queue_count // host_concurrency_count`` full rounds ahead of it, then for its own round.
    """
    rounds = request.queue_count // request.host_concurrency_count + 2
    return rounds * request.lease_establish_s <= request.work_deadline_s


def key(student_id: str) -> dict[str, object]:
    """The instructor's key for ``student_id``: parameters and the expected measured answers.

    Returns:
        ``{"student_id", "seed", "fleet_droplets_count", "outage_end_s", "recovers",
        "wasted_fraction", "leased_at_horizon_count", "recovery_bound_s"}``; the design question's
        answer is :func:`reference_admission_policy` (or any policy that passes the checks).
    """
    p, cfg = params(student_id), config(student_id)
    result = cached_run(dwfm.run, cfg)
    return {
        "student_id": p.student_id,
        "seed": p.seed,
        "fleet_droplets_count": p.fleet_droplets_count,
        "outage_end_s": p.outage_end_s,
        "recovers": result.summary.recovered,
        "wasted_fraction": result.summary.wasted_fraction,
        "leased_at_horizon_count": int(result.timeseries["leased_count"].iloc[-1]),
        "recovery_bound_s": recovery_bound_s(cfg),
    }


@dataclass
class Prediction(PredictionBase):
    """A prediction recorded in the notebook before the run it predicts (``Prediction()``, then
    :meth:`record`; its fields are set only by :meth:`record` and :meth:`run`).

    Attributes:
        recovers: whether the fleet gets every lease back by itself within the 15-hour horizon.
        wasted_fraction: the predicted share of started work that is wasted (fraction, 0 to 1).
        made_before_run: whether it was recorded before :meth:`run` was first called.
    """

    recovers: bool | None = field(default=None, init=False)
    wasted_fraction: float | None = field(default=None, init=False)

    def record(self, recovers: bool, wasted_fraction: float) -> None:
        """Record the prediction; raises ConfigError unless ``recovers`` is a bool and the fraction in [0, 1]."""
        if not isinstance(recovers, bool):
            raise ConfigError(f"recovers must be True or False, got {recovers!r}")
        if (
            isinstance(wasted_fraction, bool)
            or not isinstance(wasted_fraction, numbers.Real)  # numpy's numbers too
            or not 0.0 <= float(wasted_fraction) <= 1.0
        ):
            raise ConfigError(f"wasted_fraction must be a number from 0 to 1, got {wasted_fraction!r}")
        self.recovers, self.wasted_fraction = recovers, float(wasted_fraction)
        self._recorded()

    def run(self, student_id: str) -> dwfm.DwfmResult:
        """Run ``student_id``'s night (the measurement), after the prediction; raises ConfigError before it."""
        self._running(self.recovers, "recovers=..., wasted_fraction=...")
        return dwfm.run(config(student_id))


# -- hidden checks: each raises AssertionError with a message the student can act on -----------------
def check_prediction(prediction: object) -> None:
    """Credit for a prediction made: a :class:`Prediction` recorded before the run."""
    check_prediction_made(prediction, Prediction, "recovers")


def check_wasted_fraction(answer: object, notebook_id: str) -> None:
    """The measured wasted fraction equals the model's for the graded id (within 1e-9)."""
    expected = float(key(graded_id(notebook_id))["wasted_fraction"])  # type: ignore[arg-type]
    assert isinstance(answer, float), "wasted_fraction must be a float"
    assert math.isclose(answer, expected, abs_tol=1e-9), "wasted_fraction is not what your night gives"


def check_leased_at_horizon(answer: object, notebook_id: str) -> None:
    """The measured leased count at the horizon equals the model's for the graded id."""
    expected = key(graded_id(notebook_id))["leased_at_horizon_count"]
    assert isinstance(answer, int) and not isinstance(answer, bool), "leased_at_horizon_count must be an int"
    assert answer == expected, "leased_at_horizon_count is not what your night gives"


def _ask(policy: Callable[[AdmissionRequest], bool], request: AdmissionRequest) -> bool:
    return call_strategy("admission_policy", policy, request)


@functools.lru_cache(maxsize=16)
def _seen_requests(student_id: str) -> tuple[AdmissionRequest, ...]:
    """Every request the reference policy is asked in ``student_id``'s night (graded horizon), in order."""
    cfg = _graded(config(student_id), None)  # recorded_requests puts its recorder in the field
    return recorded_requests(dwfm.run, cfg, "admission_policy", reference_admission_policy)


def check_policy_admits_a_short_queue(policy: Callable[[AdmissionRequest], bool], notebook_id: str) -> None:
    """Never shed a short queue: with fewer items waiting than one round, every item is admitted.

    Asked over made-up requests (queues of 0 to ``host_concurrency_count - 1`` items, first
    requests and retries, idle and busy hosts, several hosts and times, each host shape the
    assignment uses), then over every such request a real run of the graded id's night makes.
    """
    made_up = [
        AdmissionRequest(
            time_s=time_s,
            host=host,
            queue_count=queue,
            in_flight_count=in_flight,
            oldest_wait_s=0.0 if queue == 0 else 30.0 + queue,
            attempt=attempt,
            host_concurrency_count=cfg.host_concurrency_count,
            lease_establish_s=cfg.lease_establish_s,
            work_deadline_s=cfg.work_deadline_s,
        )
        for cfg in (replace(dwfm.INCIDENT, **shape) for shape in ({}, *CAPACITY_VARIANTS))
        for queue in range(cfg.host_concurrency_count)
        for attempt in (0, 1, 5)
        for in_flight in (0, cfg.host_concurrency_count)
        for host, time_s in ((0, 9_500.0), (3, 12_000.0), (7, 20_123.0))
    ]
    for request in made_up + list(_seen_requests(graded_id(notebook_id))):
        if request.queue_count < request.host_concurrency_count:
            assert _ask(policy, request) is True, f"a short queue was refused: {request}"


def _graded(cfg: dwfm.DwfmConfig, policy: Callable[[AdmissionRequest], bool] | None) -> dwfm.DwfmConfig:
    """``cfg`` with the policy, its horizon cut to the end of the recovery bound (plus one report):
    a later recovery fails anyway, and a policy that sheds everything costs a shorter run."""
    horizon_s = min(cfg.horizon_s, cfg.outage_end_s + recovery_bound_s(cfg) + cfg.report_interval_s)
    return replace(cfg, admission_policy=policy, horizon_s=horizon_s)


def _assert_recovers(summary: dwfm.DwfmSummary, cfg: dwfm.DwfmConfig, label: str) -> None:
    bound = recovery_bound_s(cfg)
    after = summary.recovery_after_outage_s
    assert summary.recovered and after is not None, (
        f"{label}: not every lease came back within {bound:,.0f} s of DynamoDB's return"
    )
    assert after <= bound, (
        f"{label}: every lease came back {after:,.0f} s after DynamoDB's return; the bound is {bound:,.0f} s"
    )


def _assert_wastes_little(summary: dwfm.DwfmSummary, label: str) -> None:
    assert summary.started_count > 0, f"{label}: no work was started: the policy refused everything"
    assert summary.wasted_fraction <= WASTE_LIMIT, (
        f"{label}: {summary.wasted_fraction:.1%} of the started work was wasted (at most {WASTE_LIMIT:.0%})"
    )
    assert summary.goodput_count >= summary.leases_lost_count, (
        f"{label}: only {summary.goodput_count:,} leases were established, fewer than the "
        f"{summary.leases_lost_count:,} lost: little waste earns the point only while the fleet's leases come back"
    )


def check_policy_recovers(policy: Callable[[AdmissionRequest], bool], notebook_id: str, seeds_count: int = 2) -> None:
    """The graded id's night, with the policy, on ``seeds_count`` seeds: every lease back within
    :func:`recovery_bound_s` of DynamoDB's return."""
    base = config(graded_id(notebook_id))
    for k in range(seeds_count):
        cfg = replace(base, seed=base.seed + 7919 * k)
        _assert_recovers(dwfm.run(_graded(cfg, policy)).summary, cfg, f"seed {cfg.seed}")


def check_policy_wastes_little(policy: Callable[[AdmissionRequest], bool], notebook_id: str) -> None:
    """The graded id's night, with the policy, on a third seed: at most :data:`WASTE_LIMIT` of the
    started work wasted (timed out after a host worked on it), while establishing at least as many
    leases as the fleet lost (so that shedding nearly everything does not pass)."""
    base = config(graded_id(notebook_id))
    cfg = replace(base, seed=base.seed + 7919 * 2)
    _assert_wastes_little(dwfm.run(_graded(cfg, policy)).summary, f"seed {cfg.seed}")


def check_policy_on_other_hosts(policy: Callable[[AdmissionRequest], bool], notebook_id: str) -> None:
    """The graded id's night on the hosts of :data:`CAPACITY_VARIANTS`: recovers within the bound,
    wasting at most :data:`WASTE_LIMIT` (the policy must read the request, not a constant tuned to one fleet)."""
    base = config(graded_id(notebook_id))
    for shape in CAPACITY_VARIANTS:
        label = ", ".join(f"{k}={v:g}" for k, v in shape.items())
        cfg = replace(base, **shape)
        summary = dwfm.run(_graded(cfg, policy)).summary
        _assert_recovers(summary, cfg, label)
        _assert_wastes_little(summary, label)
