"""Lab 05's graded version (six stop points, end to end): each student's night, the key, the checks.

Scenario:
    Every student id gives its own night (:func:`params`): a seed, how long the DNS record stays
    empty before the operators repair it, Network Manager's propagation rate and the longest a new
    instance should wait for its network configuration, derived from the id with SHA-256
    (:mod:`labsupport.grading._shared`). The student measures the whole chain on that night, as in
    October and with the course's stop point 5; then writes stop point 5's part at Network Manager,
    the admission rule for launches (:attr:`labsupport.network.NetworkConfig.launch_admission`),
    which the whole chain runs with stop point 5's other parts on (DWFM's admission control by queue
    length and the NLB's velocity control). The hidden tests of ``assignments/05-six-stop-points``
    call the ``check_*`` functions below, which compute the expected answer from the id with
    :mod:`labsupport.chain` at grading time: no answer is stored anywhere.
Covers:
    The PES's EC2 section (Network Manager's backlog of network state delayed new instances'
    connectivity) and its announced fix for EC2's data propagation, to "rate limit incoming work
    based on the size of the waiting queue", which the student's rule stands for; the seed articles'
    stop point 5, throttling work during recovery.

::

    student id --sha256--> Lab05Params(seed, repair, rate, wait limit) --> ChainConfig --> chain.run
                                                                        '--> key(id): the answers
    hidden test: check_*(answer or rule, notebook id) --graded_id--> the id the grader was given
"""

from __future__ import annotations

import functools
import math
import numbers
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from .. import chain, race
from .._memo import cached_run
from ..chain import StopPoints
from ..errors import ConfigError
from ..strategy import LaunchRequest, call_strategy
from ._shared import PredictionBase, check_prediction_made, check_seconds, digest, graded_id, recorded_requests

__all__ = [
    "ASSIGNMENT",
    "END_SLACK_S",
    "NIGHT_VARIANTS",
    "REFUSAL_SLACK_COUNT",
    "REFUSAL_SLACK_FRACTION",
    "Lab05Params",
    "Prediction",
    "check_prediction",
    "check_rule_admits_within_the_limit",
    "check_rule_on_other_nights",
    "check_rule_on_your_night",
    "check_rule_refuses_beyond_the_limit",
    "check_saved_by_5_s",
    "check_total_s",
    "config",
    "design_config",
    "key",
    "params",
    "reference_launch_admission",
    "with_rule",
]

#: The assignment's name (its folder under ``assignments/`` and otter's assignment name).
ASSIGNMENT = "05-six-stop-points"
#: A passing rule's chain may end at most this many seconds after the reference rule's (10 minutes).
END_SLACK_S = 600.0
#: A passing rule may refuse at most this share more launches than the reference rule (fraction)...
REFUSAL_SLACK_FRACTION = 0.05
#: ... or this many, whichever is more (count): shedding no more than the limit asks.
REFUSAL_SLACK_COUNT = 5
#: Nights unlike the student's own, on which the rule must also hold: a slow Network Manager with a
#: long limit, and a fast one with a short limit (a queue limit typed in for one night fails here).
NIGHT_VARIANTS: tuple[dict[str, float], ...] = (
    {"propagation_rate_per_min": 5.0, "launch_wait_limit_s": 1_200.0},
    {"propagation_rate_per_min": 12.0, "launch_wait_limit_s": 300.0},
)
#: Slower Network Managers (4 or 5 items a minute) do not drain the incident's backlog within the
#: chain's horizon, so a night as in October would be cut short.
_RATES_PER_MIN = (6.0, 8.0, 10.0, 12.0)
_WAIT_LIMITS_S = (300.0, 450.0, 600.0, 900.0)


@dataclass(frozen=True)
class Lab05Params:
    """One student's night.

    Attributes:
        student_id: the id the parameters come from.
        seed: the chain's seed (0 to 2**31 - 1; :attr:`labsupport.chain.ChainConfig.seed`).
        dns_repair_s: seconds from the first empty record to the operators' repair (2 to 4 h, by 15 min).
        propagation_rate_per_min: items Network Manager completes per minute (6, 8, 10 or 12).
        launch_wait_limit_s: the longest a new instance should wait for its network configuration,
            seconds (5, 7.5, 10 or 15 minutes).
    """

    student_id: str
    seed: int
    dns_repair_s: float
    propagation_rate_per_min: float
    launch_wait_limit_s: float


def params(student_id: str) -> Lab05Params:
    """The parameters of ``student_id``'s night (deterministic; raises ConfigError on an empty id)."""
    d = digest(ASSIGNMENT, student_id)
    return Lab05Params(
        student_id.strip(),
        int.from_bytes(d[:4], "big") >> 1,
        7_200.0 + 900.0 * (d[4] % 9),
        _RATES_PER_MIN[d[5] % len(_RATES_PER_MIN)],
        _WAIT_LIMITS_S[d[6] % len(_WAIT_LIMITS_S)],
    )


def _night(p: Lab05Params, **network: Any) -> chain.ChainConfig:
    inc = chain.INCIDENT
    net = replace(
        inc.nlb.network,
        propagation_rate_per_min=p.propagation_rate_per_min,
        launch_wait_limit_s=p.launch_wait_limit_s,
    )
    net = replace(net, **network)
    # Stop point 5's queue limit, in items waiting, that gives the same longest wait as the limit.
    limit = max(1, math.floor(net.launch_wait_limit_s * net.propagation_rate_per_min / 60.0 + 1e-9) - 1)
    return replace(
        inc,
        seed=p.seed,
        race=replace(race.INCIDENT, manual_repair_after_s=p.dns_repair_s, horizon_s=p.dns_repair_s + 3_600.0),
        nlb=replace(inc.nlb, network=net),
        network_queue_limit_count=limit,
    )


def config(student_id: str) -> chain.ChainConfig:
    """The :class:`~labsupport.chain.ChainConfig` of ``student_id``'s night as in October: the
    incident with their seed, DNS repair time and Network Manager, no stop point. Its
    ``network_queue_limit_count`` is the queue that gives their wait limit, so that
    ``replace(cfg, stop_points=StopPoints.of(5))`` is the course's stop point 5 on their night."""
    return _night(params(student_id))


def design_config(cfg: chain.ChainConfig) -> chain.ChainConfig:
    """``cfg`` with stop point 5's parts other than Network Manager's on: DWFM's admission control by
    queue length and the NLB's velocity control (no stop point switched on: the launch rule is the
    student's, :func:`with_rule`)."""
    return replace(
        cfg,
        stop_points=StopPoints(),
        dwfm=replace(cfg.dwfm, throttle_by_queue_length=True),
        nlb=replace(cfg.nlb, limit_capacity_removal=True),
    )


def with_rule(cfg: chain.ChainConfig, rule: Callable[[LaunchRequest], bool] | None) -> chain.ChainConfig:
    """``cfg`` (a :func:`design_config`) with ``rule`` as Network Manager's ``launch_admission``."""
    return replace(cfg, nlb=replace(cfg.nlb, network=replace(cfg.nlb.network, launch_admission=rule)))


def reference_launch_admission(request: LaunchRequest) -> bool:
    """Admit a launch only if everything ahead of it and its own item finish within the wait limit."""
    return (request.queue_count + 1) * request.service_s <= request.wait_limit_s


def key(student_id: str) -> dict[str, object]:
    """The instructor's key for ``student_id``: parameters and the expected measured answers.

    Returns:
        ``{"student_id", "seed", "dns_repair_s", "propagation_rate_per_min", "launch_wait_limit_s",
        "network_queue_limit_count", "total_s", "saved_by_5_s", "total_with_rule_s",
        "refused_with_rule_count"}``: the measured answers come from the night as in October and
        with the course's stop point 5; the last two from the night with
        :func:`reference_launch_admission`, which any rule that passes the checks matches within
        :data:`END_SLACK_S`.
    """
    p, cfg = params(student_id), config(student_id)
    october = cached_run(chain.run, cfg).summary
    five = cached_run(chain.run, replace(cfg, stop_points=StopPoints.of(5))).summary
    ref = _reference_run(student_id)
    return {
        "student_id": p.student_id,
        "seed": p.seed,
        "dns_repair_s": p.dns_repair_s,
        "propagation_rate_per_min": p.propagation_rate_per_min,
        "launch_wait_limit_s": p.launch_wait_limit_s,
        "network_queue_limit_count": cfg.network_queue_limit_count,
        "total_s": october.total_s,
        "saved_by_5_s": october.total_s - five.total_s,
        "total_with_rule_s": ref.summary.total_s,
        "refused_with_rule_count": ref.runs.network.summary.refused_count if ref.runs.network else 0,
    }


@functools.lru_cache(maxsize=64)
def _reference_run(student_id: str, **network: Any) -> chain.ChainResult:
    """``student_id``'s night (or a variant's) with the reference rule (a run with a strategy is
    never in the run cache, so it is kept here, once per night)."""
    cfg = design_config(_night(params(student_id), **network))
    return chain.run(with_rule(cfg, reference_launch_admission))


@dataclass
class Prediction(PredictionBase):
    """A prediction recorded in the notebook before the run it predicts (``Prediction()``, then
    :meth:`record`; its fields are set only by :meth:`record` and :meth:`run`).

    Attributes:
        total_h: the predicted hours of the whole event on the night as in October.
        with_5_h: the predicted hours of the whole event with the course's stop point 5.
        made_before_run: whether it was recorded before :meth:`run` was first called.
    """

    total_h: float | None = field(default=None, init=False)
    with_5_h: float | None = field(default=None, init=False)

    def record(self, total_h: float, with_5_h: float) -> None:
        """Record the prediction; raises ConfigError unless both are numbers from 0 to 48 (hours)."""
        for name, value in (("total_h", total_h), ("with_5_h", with_5_h)):
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 <= float(value) <= 48.0:
                raise ConfigError(f"{name} must be a number of hours from 0 to 48, got {value!r}")
        self.total_h, self.with_5_h = float(total_h), float(with_5_h)
        self._recorded()

    def run(self, student_id: str) -> tuple[chain.ChainResult, chain.ChainResult]:
        """Run ``student_id``'s night as in October and with stop point 5 (the measurements), after
        the prediction; raises ConfigError before it."""
        self._running(self.total_h, "total_h=..., with_5_h=...")
        cfg = config(student_id)
        return chain.run(cfg), chain.run(replace(cfg, stop_points=StopPoints.of(5)))


# -- hidden checks: each raises AssertionError with a message the student can act on -----------------
def check_prediction(prediction: object) -> None:
    """Credit for a prediction made: a :class:`Prediction` recorded before the run."""
    check_prediction_made(prediction, Prediction, "total_h")


def check_total_s(answer: object, notebook_id: str) -> None:
    """The whole event's length as in October equals the model's for the graded id (within 0.5 s)."""
    check_seconds(answer, notebook_id, "total_s", key)


def check_saved_by_5_s(answer: object, notebook_id: str) -> None:
    """The time stop point 5 saves equals the model's for the graded id (within 0.5 s)."""
    check_seconds(answer, notebook_id, "saved_by_5_s", key)


def _ask(rule: Callable[[LaunchRequest], bool], request: LaunchRequest) -> bool:
    return call_strategy("launch_admission", rule, request)


@functools.lru_cache(maxsize=64)
def _seen_requests(student_id: str) -> tuple[LaunchRequest, ...]:
    """Every request the reference rule is asked on ``student_id``'s night, in order."""
    cfg = design_config(config(student_id))

    def run(net: Any) -> object:
        return chain.run(replace(cfg, nlb=replace(cfg.nlb, network=net)))

    seen = recorded_requests(run, cfg.nlb.network, "launch_admission", reference_launch_admission)
    return tuple(dict.fromkeys(seen))  # the chain runs Network Manager twice: each request once


def _table(notebook_id: str) -> list[LaunchRequest]:
    """Made-up requests over service times of 1 s to 10 min and limits of 1 min to 1 day, queues on
    both sides of each limit, then a sample of those a real run of the graded id's night asks.

    The made-up requests' times and oldest waits are drawn from continuous ranges (seeded by the
    graded id), and a queue that is not empty has waited, as in a real run, so that a rule cannot
    tell them from the real ones by their values."""
    student = graded_id(notebook_id)
    rng = random.Random(digest(ASSIGNMENT + ":table", student))
    made_up = []
    for service in (1.0, 5.0, 6.0, 7.5, 10.0, 600.0):
        for limit in (60.0, 450.0, 600.0, 86_400.0):
            edge = int(limit // service)
            for queue in sorted({0, 1, edge // 2, max(edge - 2, 0), max(edge - 1, 0), edge, edge + 1, 3 * edge + 5}):
                for _ in range(3):
                    time_s = rng.uniform(0.0, 40_000.0)
                    oldest = 0.0 if queue == 0 else rng.uniform(0.0, min(time_s, 3 * limit))
                    made_up.append(LaunchRequest(time_s, queue, oldest, service, limit))
    seen = _seen_requests(student)
    return made_up + list(seen[:: max(1, len(seen) // 2_000)])


def _within(request: LaunchRequest) -> bool:
    return (request.queue_count + 1) * request.service_s <= request.wait_limit_s


def check_rule_admits_within_the_limit(rule: Callable[[LaunchRequest], bool], notebook_id: str) -> None:
    """Never shed a short queue: admit (``True``) every launch whose item would be done within the limit."""
    for request in _table(notebook_id):
        if _within(request):
            assert _ask(rule, request) is True, f"refused a launch that would finish within the limit: {request}"


def check_rule_refuses_beyond_the_limit(rule: Callable[[LaunchRequest], bool], notebook_id: str) -> None:
    """Refuse (``False``) every launch whose item could not be done within the limit."""
    for request in _table(notebook_id):
        if not _within(request):
            assert _ask(rule, request) is False, f"admitted a launch that waits past the limit: {request}"


def _assert_night(rule: Callable[[LaunchRequest], bool], student_id: str, label: str, **network: Any) -> None:
    """The chain with the rule: no admitted launch waits past the limit (plus one item's service),
    it refuses at most :data:`REFUSAL_SLACK_FRACTION` (or :data:`REFUSAL_SLACK_COUNT`) more launches
    than the reference rule, and the whole event ends at most :data:`END_SLACK_S` after the
    reference rule's."""
    ref = _reference_run(student_id, **network)
    cfg = with_rule(ref.config, rule)
    result = chain.run(cfg)
    net = cfg.nlb.network
    assert result.runs.network is not None, f"{label}: the leases never came back"
    longest = result.runs.network.summary.max_delay_s or 0.0
    bound = net.launch_wait_limit_s + 60.0 / net.propagation_rate_per_min
    assert longest <= bound, (
        f"{label}: a launch waited {longest:.0f} s for its configuration (limit {net.launch_wait_limit_s:.0f} s)"
    )
    refused = result.runs.network.summary.refused_count
    ref_refused = ref.runs.network.summary.refused_count if ref.runs.network is not None else 0
    allowed = ref_refused + max(REFUSAL_SLACK_COUNT, math.ceil(REFUSAL_SLACK_FRACTION * ref_refused))
    assert refused <= allowed, (
        f"{label}: {refused} launches were refused; a rule that admits every launch that finishes within "
        f"the limit refuses {ref_refused} (at most {allowed} pass)"
    )
    late = result.summary.total_s - ref.summary.total_s
    assert late <= END_SLACK_S, (
        f"{label}: the event lasted {late / 60:.0f} min longer than with a rule that admits every launch "
        "that finishes within the limit"
    )


def check_rule_on_your_night(rule: Callable[[LaunchRequest], bool], notebook_id: str) -> None:
    """The graded id's night with the rule: see :func:`_assert_night`."""
    _assert_night(rule, graded_id(notebook_id), "your night")


def check_rule_on_other_nights(rule: Callable[[LaunchRequest], bool], notebook_id: str) -> None:
    """The same on the Network Managers of :data:`NIGHT_VARIANTS` (the graded id's night otherwise)."""
    student = graded_id(notebook_id)
    for shape in NIGHT_VARIANTS:
        label = ", ".join(f"{k}={v:g}" for k, v in shape.items())
        _assert_night(rule, student, label, **shape)
