"""Lab 05's graded version (six stop points, end to end): the student's side: each student's night.

Scenario:
    Every student id gives its own night (:func:`params`): a seed, how long the DNS record stays
    empty before the operators repair it, Network Manager's propagation rate and the longest a new
    instance should wait for its network configuration, derived from the id with SHA-256
    (:func:`~labsupport.assignments.digest`). The student measures the whole chain on that night, as
    in October and with the course's stop point 5; then writes stop point 5's part at Network
    Manager, the admission rule for launches
    (:attr:`labsupport.network.NetworkConfig.launch_admission`), which the whole chain runs with
    stop point 5's other parts on (DWFM's admission control by queue length and the NLB's velocity
    control). The grader (``coursetools.grading``, which students do not install) holds the key and
    the hidden checks and computes each expected answer from the collected id at grading time.
Covers:
    The PES's EC2 section (Network Manager's backlog of network state delayed new instances'
    connectivity) and its announced fix for EC2's data propagation, to "rate limit incoming work
    based on the size of the waiting queue", which the student's rule stands for; the seed articles'
    stop point 5, throttling work during recovery.

::

    student id --sha256--> Lab05Params(seed, repair, rate, wait limit) --> ChainConfig --> chain.run
    (the grader, coursetools.grading.lab05: key(id) and the hidden checks, from the collected id)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from .. import chain, race
from ..chain import StopPoints
from ..errors import ConfigError
from ..strategy import LaunchRequest
from ._shared import PredictionBase, digest

__all__ = [
    "ASSIGNMENT",
    "END_SLACK_S",
    "NIGHT_VARIANTS",
    "REFUSAL_SLACK_COUNT",
    "REFUSAL_SLACK_FRACTION",
    "Lab05Params",
    "Prediction",
    "config",
    "design_config",
    "night_config",
    "params",
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


def night_config(p: Lab05Params, **network: Any) -> chain.ChainConfig:
    """The chain of the night ``p`` with Network Manager's fields replaced by ``network`` (a variant
    of :data:`NIGHT_VARIANTS`), stop point 5's queue limit matched to its wait limit."""
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
    return night_config(params(student_id))


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
