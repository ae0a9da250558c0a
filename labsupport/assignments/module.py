"""The university module's two written assignments, the student's side: each student's own race and night.

Scenario:
    The two-week module (``chapters/instructor-guide/university-module.md``) ends each week with an
    assignment graded by hand: a notebook and a memo. Its questions are about a problem of the
    student's own, derived from their id with SHA-256 (:func:`~labsupport.assignments.digest`), so
    that no answer is printed in the book and two students' memos cannot share their numbers:

    * assignment 1, the race (:func:`race_params`): a race of lab 01's model in which the regional
      endpoint does go empty, with its own seed and lock losses (:func:`race_config`), and a
      protocol for lab 06's model checker (:func:`explore_config`);
    * assignment 2, the collapse (:func:`collapse_params`): a night of lab 02's DWFM model with its
      own outage, its own number of DWFM hosts and its own work deadline, no operator acting
      (:func:`dwfm_config`).

    The instructor's model answers come from the same runs, for the same id
    (``python -m coursetools.grading key module-1-race --id <id>``, and ``module-2-collapse``), in
    the course's tools, which students do not install.
Covers:
    The PES's DynamoDB race and DWFM's congestive collapse, as labs 01, 02 and 06 model them.

::

    student id --sha256--> RaceParams(seed, lock losses, bounds) --> race_config, explore_config
    student id --sha256--> CollapseParams(outage, hosts, deadline) --> dwfm_config
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import dwfm, explore, race
from ._shared import digest
from .lab06 import BOUNDS, config_of_bounds

__all__ = [
    "COLLAPSE",
    "DEADLINES_S",
    "HOSTS",
    "LOCK_LOSSES",
    "OUTAGES_S",
    "RACE",
    "RACE_HORIZON_S",
    "CollapseParams",
    "RaceParams",
    "collapse_params",
    "dwfm_config",
    "explore_config",
    "race_config",
    "race_params",
]

#: The assignments' names (the id is hashed with them, so the two give unrelated problems).
RACE = "module-1-race"
COLLAPSE = "module-2-collapse"
#: Lock losses in a row a student's delayed Enactor can get (the incident's is 9, DAT453): from 9 on,
#: about one seed in seven empties the regional endpoint within the hour, so a seed is found quickly.
LOCK_LOSSES: tuple[int, ...] = (9, 10, 11, 12)
#: How long a student's race runs: one hour from the delayed Enactor's first lock loss.
RACE_HORIZON_S = 3_600.0
#: Seeds tried, in the id's order, for a race whose regional endpoint goes empty.
_TRIES = 400
#: A student's outage (DynamoDB unreachable), seconds: 1 h 30 min to 3 h 30 min in quarter hours.
OUTAGES_S: tuple[float, ...] = tuple(5_400.0 + 900.0 * k for k in range(9))
#: A student's number of DWFM hosts (the model's incident has 8).
HOSTS: tuple[int, ...] = (6, 7, 8, 9, 10, 11, 12)
#: A student's work deadline, seconds (the model's incident has 600 s).
DEADLINES_S: tuple[float, ...] = (420.0, 480.0, 540.0, 600.0, 660.0, 720.0)


@dataclass(frozen=True)
class RaceParams:
    """One student's race and protocol (assignment 1).

    Attributes:
        student_id: the id the parameters come from.
        seed: the race's seed: the first, in the id's order, with which the unguarded race empties
            the regional endpoint.
        lock_losses_count: times in a row the delayed Enactor loses the lock on every endpoint.
        bounds: the model checker's protocol: (enactor_count, generation_count, endpoint_count,
            cleanup_keep_generations), one of :data:`labsupport.assignments.lab06.BOUNDS`.
    """

    student_id: str
    seed: int
    lock_losses_count: int
    bounds: tuple[int, int, int, int]


@dataclass(frozen=True)
class CollapseParams:
    """One student's night of the DWFM model (assignment 2).

    Attributes:
        student_id: the id the parameters come from.
        outage_s: how long DynamoDB is unreachable, seconds (from 11:48 PM).
        dwfm_hosts_count: DWFM hosts establishing leases.
        work_deadline_s: how long an item may wait and run before it is abandoned, seconds.
    """

    student_id: str
    outage_s: float
    dwfm_hosts_count: int
    work_deadline_s: float


def _race(seed: int, losses: int) -> race.RaceConfig:
    delay = replace(race.INCIDENT_DELAY, lock_losses_count=losses)
    return replace(race.INCIDENT, seed=seed, delays=(delay,), horizon_s=RACE_HORIZON_S)


def race_params(student_id: str) -> RaceParams:
    """The parameters of ``student_id``'s race (deterministic; raises ConfigError on an empty id).

    The seed is the first of a sequence the id gives whose race, with no guard, empties the
    regional endpoint, so that every student has a stale write and a deletion to explain.
    """
    d = digest(RACE, student_id)
    losses = LOCK_LOSSES[d[0] % len(LOCK_LOSSES)]
    bounds = BOUNDS[d[1] % len(BOUNDS)]
    start = int.from_bytes(d[2:6], "big") >> 1
    seed = next(
        (s for s in range(start, start + _TRIES) if race.run(_race(s, losses)).summary.regional_empty_s > 0), start
    )
    return RaceParams(student_id.strip(), seed, losses, bounds)


def race_config(student_id: str) -> race.RaceConfig:
    """``student_id``'s race: the incident's (no guard) with their seed and lock losses, one hour long."""
    p = race_params(student_id)
    return _race(p.seed, p.lock_losses_count)


def explore_config(student_id: str) -> explore.ExploreConfig:
    """``student_id``'s protocol for the model checker, no guard (as lab 06's graded version builds it)."""
    return config_of_bounds(race_params(student_id).bounds)


def collapse_params(student_id: str) -> CollapseParams:
    """The parameters of ``student_id``'s night of DWFM (deterministic; raises ConfigError on an empty id)."""
    d = digest(COLLAPSE, student_id)
    return CollapseParams(
        student_id.strip(),
        OUTAGES_S[d[0] % len(OUTAGES_S)],
        HOSTS[d[1] % len(HOSTS)],
        DEADLINES_S[d[2] % len(DEADLINES_S)],
    )


def dwfm_config(student_id: str, fleet_droplets_count: int | None = None) -> dwfm.DwfmConfig:
    """``student_id``'s night: the incident's DWFM model with their outage, hosts and deadline, and no
    operator action (no throttle, no restart); the incident's fleet unless ``fleet_droplets_count``."""
    p = collapse_params(student_id)
    return replace(
        dwfm.INCIDENT,
        outage_end_s=dwfm.INCIDENT.outage_start_s + p.outage_s,
        dwfm_hosts_count=p.dwfm_hosts_count,
        work_deadline_s=p.work_deadline_s,
        operator_throttle_at_s=None,
        operator_restart_at_s=None,
        fleet_droplets_count=dwfm.INCIDENT.fleet_droplets_count
        if fleet_droplets_count is None
        else fleet_droplets_count,
    )
