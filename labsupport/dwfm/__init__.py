"""Lease collapse in EC2's DropletWorkflow Manager (DWFM): a congestive collapse that outlives its trigger.

Scenario:
    19 Oct 2025, 11:48 PM PDT (t = 0) to 20 Oct, 2:48 PM (t = 15 h). DynamoDB is unreachable from
    t = 0 to 2:25 AM. DWFM's state checks depend on it, so droplet leases lapse one by one. When it
    returns, every lapsed droplet needs a new lease at once; the work times out, is queued again, and
    DWFM makes no progress until engineers throttle incoming work and restart hosts (4:14 AM).
Covers:
    The post-event summary's EC2 section: leases, state checks "every few minutes", "insufficient
    capacity" errors, congestive collapse, the 4:14 AM throttling and selective restarts, and the
    5:28 AM milestone, plus the announced fix, admission control by the length of the waiting queue::

        droplets ──state check every state_check_interval_s──> DWFM host h (one of dwfm_hosts_count)
           │  (needs DynamoDB)                                   │
           │ lease lapsed: ask for a new one ──admission──> [ queue ... ] ──> up to
           │                        (throttle_by_queue_length)   host_concurrency_count at a time,
           │                                                     lease_establish_s each
           │ <───────── lease, if finished before enqueued_at + work_deadline_s ┘
           └─ otherwise the work is wasted and the item queued again (retry_policy)

Mechanism, never scripted: a deadline counts from the moment an item joins the queue, and a host
cannot tell that a waiting item has expired until it has done the work. Once a host's queue takes
longer than the deadline to drain, every item it works on has expired, goes back to the end of the
queue, and the queue never shrinks: the hosts are busy and goodput is zero. A small backlog drains;
a large one sustains itself (a metastable failure).

What is aggregated (so that 100,000 droplets over 15 h run in seconds):

* **State checks by cohort.** Droplet ``i`` belongs to cohort ``i % 30``; one simpy process checks
  one cohort per tick (``state_check_interval_s / 30``) with numpy operations on the cohort's
  slice. Lease renewals of live leases are not queued work: they succeed whenever DynamoDB is up.
* **Host concurrency in rounds.** A host starts up to ``host_concurrency_count`` waiting items
  together and finishes them together ``lease_establish_s`` later (one simpy timeout per round,
  not per item). An item that arrives mid-round waits for the next round.
* **Backoff retries** wait in a per-host heap and rejoin the queue at the next cohort tick.
* **Launch attempts** are not simulated one by one: per report interval,
  ``launch_attempts_per_s × interval`` attempts fail with "insufficient capacity" in proportion to
  the droplets without a lease (mean of the interval's two samples), as if each attempt were placed
  on a uniformly random droplet.
* **Events** are counts per tick or per host round, not one row per work item.

Not modelled: the EC2 API's own request throttling ("request limit exceeded"), Network Manager
and the NLB (see the recovery models), and any slowdown of DynamoDB itself.

Modules: ``config`` (:class:`DwfmConfig`, :data:`INCIDENT`, :data:`SMALL_FLEET`), ``engine`` (the
simpy actors), ``model`` (:func:`run`, the result and summary) and ``sweep`` (:func:`sweep` and
the named grids :func:`phase_sweep` and :func:`explorer_grid`).
"""

from __future__ import annotations

from .config import CLOCK, INCIDENT, RETRY_POLICIES, SMALL_FLEET, DwfmConfig
from .model import EVENT_KINDS, DwfmResult, DwfmSummary, goodput_fraction, run
from .sweep import (
    EXPLORER_FLEETS,
    explorer_grid,
    phase_sweep,
    sweep,
)

__all__ = [
    "CLOCK",
    "DwfmConfig",
    "DwfmResult",
    "DwfmSummary",
    "EVENT_KINDS",
    "EXPLORER_FLEETS",
    "INCIDENT",
    "RETRY_POLICIES",
    "SMALL_FLEET",
    "explorer_grid",
    "goodput_fraction",
    "phase_sweep",
    "run",
    "sweep",
]
