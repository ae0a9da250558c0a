"""The race in DynamoDB's DNS automation: DNS Planner, three DNS Enactors, Route 53, four guards.

Scenario:
    The DNS Planner writes a new regional plan every ``plan_interval_s``. Three DNS Enactors, one
    per Availability Zone, each pick the newest plan, make a one-time check that it is newer than
    the plan they applied before, then apply it to every endpoint, one Route 53 transaction each
    (see :mod:`labsupport.route53`), and finally clean up plans more than
    ``cleanup_keep_generations`` older than the one they applied. An injected fault makes one
    Enactor lose its endpoint lock again and again, so its check goes stale (TOCTOU, CWE-367).
Covers:
    The PES's DynamoDB section (11:48 PM to 2:25 AM PDT): the stale overwrite, the clean-up that
    deletes the active plan, the empty answer and the inconsistent state that only an operator
    could repair. The lock in a TXT record, the rollback record and the lock-loss streak come from
    the re:Invent talk DAT453, AWS's later explanation. Guards 1-4 are the fixes to compare.

::

    DNS Planner --plan N, N+1, ...--> plan store
         |                |                |
    Enactor a        Enactor b        Enactor c     pick newest, check once, walk endpoints, clean up
         \\_______________|________________/
                          v  one transaction per endpoint (lock, tree, alias flip, rollback record)
    Route 53: regional, ipv6, fips, account-1, account-2        Operator: manual repair

Horizon: a run covers ``[0, horizon_s]``, closed. An event due at exactly ``horizon_s`` happens and
is kept in ``run(cfg).events`` (a plan due then is made and logged); nothing after it is simulated.
An endpoint still empty at ``horizon_s`` counts as empty up to ``horizon_s``.

For other modules:

* how long the regional endpoint answered empty: ``run(cfg).summary.regional_empty_s``, with
  start and end per endpoint in ``run(cfg).empty_windows()``;
* a scripted schedule (for replaying a model checker's counterexample): fix each Enactor's start
  with ``enactor_offsets_s``, set ``txn_jitter_fraction=0`` and ``backoff_jitter_fraction=0``, and
  hold Enactors up with :class:`EnactorDelay` (lock losses and extra latency, per endpoint); the
  run is then fully deterministic, as ``tests/models/test_race.py::SCRIPTED`` shows.

Modules: ``config`` (guards, delay, :class:`RaceConfig`, :data:`INCIDENT`), ``engine`` (the simpy
actors: planner, Enactor, operator), ``model`` (:func:`run`, the result and its derived tables) and
``sweep`` (guard combinations, seeds, the guard explorer's data).
"""

from __future__ import annotations

from .config import (
    GUARD_NAMES,
    INCIDENT,
    INCIDENT_DELAY,
    PES_DNS_RESTORED_PDT,
    PES_EMPTY_AT_PDT,
    PES_EMPTY_TO_RESTORED_S,
    EnactorDelay,
    Guards,
    RaceConfig,
    enactor_names,
)
from .engine import ACTIONS, STATE_ACTIONS
from .model import RaceResult, RaceSummary, empty_windows, endpoint_states, run
from .sweep import guard_configs, guard_explorer_data, guard_table, seed_sweep, sweep

__all__ = [
    "ACTIONS",
    "EnactorDelay",
    "GUARD_NAMES",
    "Guards",
    "INCIDENT",
    "INCIDENT_DELAY",
    "PES_DNS_RESTORED_PDT",
    "PES_EMPTY_AT_PDT",
    "PES_EMPTY_TO_RESTORED_S",
    "RaceConfig",
    "RaceResult",
    "RaceSummary",
    "STATE_ACTIONS",
    "empty_windows",
    "enactor_names",
    "endpoint_states",
    "guard_configs",
    "guard_explorer_data",
    "guard_table",
    "run",
    "seed_sweep",
    "sweep",
]
