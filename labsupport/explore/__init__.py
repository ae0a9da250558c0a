"""Every interleaving: an explicit-state model checker for the DNS Planner/Enactor protocol.

Scenario:
    The protocol of :mod:`labsupport.race`, shrunk to a transition system small enough to search
    exhaustively. A breadth-first search over canonical (hashed) states visits every state that
    any interleaving of the DNS Planner and the DNS Enactors can reach, checks safety in each,
    works out by reverse reachability which states can still get the newest plan applied, and
    returns the shortest path to a violation.
Covers:
    The DynamoDB section of the AWS post-event summary (PES): the one-time staleness check, one
    Route 53 transaction per endpoint, clean-up of plans "significantly older" than the one just
    applied, the deleted active plan that left the regional endpoint empty, and automation that
    could not recover. The rollback record that blocks later transactions comes from AWS's
    re:Invent talk DAT453.

::

    planner --plan N+1--> plan store {1 .. generation_count}
      enactor-x:  idle --pick newest--> picked --one-time check--> write endpoint 0 .. E-1
                   ^                                                        |
                   +------ cleanup: delete trees g < plan - keep, one by one <+
      endpoint e:  alias --> plan tree,  rollback --> previous alias    (empty: alias tree deleted)

Atomic steps: plan produced, Enactor picks plan, version check, endpoint write (one Route 53
transaction), one cleanup delete. With ``enactor_step`` (:data:`INCIDENT_STEP`), the Enactor's code
after its check is a student's generator (:mod:`labsupport.enactor`), and each operation it yields
(read, write, delete) is one atomic step; the checker replays the step's prefix to reach each state.
The TXT-record lock serialises the transactions on an endpoint; here every transaction is atomic
already, and an Enactor that loses the lock and backs off is one that is not scheduled for a while:
every such delay is among the interleavings searched.

Modules: ``config`` (:class:`ExploreConfig`, :data:`INCIDENT`), ``engine`` (the protocol's states
and atomic steps, and the breadth-first search), ``model`` (:func:`run`, :func:`states_table`),
``sweep`` (the 16-row verdict table; :func:`check_step`, the public check of a student's step)
and ``replay`` (a counterexample replayed in :mod:`labsupport.race`).
"""

from __future__ import annotations

from .config import GUARDS, INCIDENT, INCIDENT_STEP, ExploreConfig
from .engine import ENACTOR_NAMES, ENDPOINT_NAMES, PLANNER
from .model import ExploreResult, ExploreSummary, run, states_table
from .replay import race_replay, race_replay_config
from .sweep import STEP_CHECK_BOUNDS, STEP_RACE, check_step, race_seeds, sweep, verdict_rows, verdict_table

__all__ = [
    "ENACTOR_NAMES",
    "ENDPOINT_NAMES",
    "ExploreConfig",
    "ExploreResult",
    "ExploreSummary",
    "GUARDS",
    "INCIDENT",
    "INCIDENT_STEP",
    "PLANNER",
    "STEP_CHECK_BOUNDS",
    "STEP_RACE",
    "check_step",
    "race_replay",
    "race_replay_config",
    "race_seeds",
    "run",
    "states_table",
    "sweep",
    "verdict_rows",
    "verdict_table",
]
