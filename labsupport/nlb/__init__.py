"""NLB health checks during the propagation backlog: flapping targets, delayed checks, AZ failover.

Scenario:
    20 Oct 2025, 5:28 AM PDT (t = 0) to 2:30 PM. New EC2 instances join NLB target groups while
    their network state is still queued at Network Manager (:mod:`labsupport.network`). Health
    checks to them sometimes pass, so they enter service, fail, leave, pass, return: flapping.
    Every such change is extra work for the health-check subsystem; once that work exceeds its
    headroom, checks queue and their results arrive late; results older than a threshold trigger
    automatic AZ DNS failover, which takes healthy capacity out of DNS. Engineers turn automatic
    failover off at 9:36 AM and back on at 2:09 PM.
Covers:
    The PES's NLB section (5:30 AM to 2:09 PM): health checks that failed "even though the
    underlying NLB node and backend targets were healthy", results "alternating between failing
    and healthy", delayed checks triggering AZ DNS failover, the 9:36 AM and 2:09 PM actions, and
    AWS's announced fix, a velocity control on the capacity one NLB may remove::

        Network Manager result ──> fleet: U(t) launched instances without network state per AZ
               │                          │ x fleet_targets_per_launch_count, each flapping
               │ this NLB's new targets   v
               │ (target_share_fraction)  health-check cell of the AZ: work per round =
               v                          fleet targets + flapping targets x (1 + transition work)
        this NLB, per AZ:                 capacity (1 + checker_headroom_fraction) x normal work
          established targets (healthy)   backlog Q -> check latency Q / capacity
          new targets: probe passes if    │
          configured, else with prob. p   v results delivered late; if the newest result is
          h passes -> in service          older than failover_delay_threshold_s: AZ failover,
          u fails  -> out (a flap)        DNS weight of the AZ -> 0 (never below one AZ in total),
                                          at most max_removal_fraction per removal_window_s
                                          when limit_capacity_removal (velocity control)
        clients: demand_fraction of established capacity, spread over AZs by DNS weight

The fleet-wide flapping that loads the checker is computed in expectation (a mean field): each
unconfigured target changes state :func:`flap_transitions_per_check` times per check on average.
This NLB's own targets are simulated probe by probe, so their flaps are a sample of the same
process. What the model leaves out: NLB nodes as separate from targets (a node is folded into its
AZ's DNS weight), cross-zone load balancing (off, the NLB default), and the Lambda, STS and
Connect knock-on effects. Modules: ``config`` (:class:`NlbConfig`, the presets), ``engine`` (the
simpy actors and ``simulate``, which runs them) and ``model`` (:func:`run`, :func:`sweep`, the result
and summary).
"""

from .checks import flap_transitions_per_check
from .config import CLOCK, INCIDENT, VELOCITY_CONTROL, NlbConfig
from .model import EVENT_KINDS, NlbResult, NlbSummary, run, sweep

__all__ = [
    "CLOCK",
    "EVENT_KINDS",
    "INCIDENT",
    "NlbConfig",
    "NlbResult",
    "NlbSummary",
    "VELOCITY_CONTROL",
    "flap_transitions_per_check",
    "run",
    "sweep",
]
