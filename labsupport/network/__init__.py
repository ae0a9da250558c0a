"""Network Manager's propagation backlog: new EC2 instances that launch but cannot talk.

Scenario:
    20 Oct 2025, 5:28 AM PDT (t = 0 of :data:`CLOCK`) to 2:30 PM. DWFM has just re-established
    leases with every droplet, so launches succeed again, and Network Manager starts working
    through the network configuration that DWFM held back during the lease outage. Every new
    instance's configuration joins the back of that queue: the instance runs, but has no network
    connectivity until its turn comes.
Covers:
    The post-event summary's (PES) EC2 section, Network Manager phase: the significant backlog
    from 5:28 AM, the propagation latency seen at 6:21 AM, propagation normal at 10:36 AM; and the
    two levers, shedding load from Network Manager and (AWS's announced fix for EC2 data
    propagation) admission control by the size of the waiting queue::

        t = drain_start_s: leases are back
              |
        backlog_count items ----------+
                                      v
        EC2 launches ------> [ Network Manager queue (FIFO) ] ---> one item per
        (launch_rate_per_min,   ^                                  60 / propagation_rate_per_min s
         random AZ)             |                                       |
                                |                                       v
        refused: shed_load_fraction from shed_load_at_s;       the instance has connectivity
                 queue at max_queue_count (admission control);  ("propagated")
                 launch_admission(request) is False (a student's rule)

What the model leaves out: Network Manager's internal structure (one FIFO server stands for it),
the appliances the state goes to, and the EC2 API's own throttling, which is folded into the launch
rate. Item counts are a scaled-down sample of the Region: only rates and times matter.

:mod:`labsupport.nlb` takes this model's per-instance propagation times as the moments when new
NLB targets get their network state.

Modules: ``config`` (:class:`NetworkConfig`, the presets), ``engine`` (the simpy actors and
``simulate``, which runs them) and ``model`` (:func:`run`, :func:`sweep`, the result and summary).
"""

from .config import CLOCK, INCIDENT, MAX_ITEMS, SHED_AT_0700, NetworkConfig
from .model import EVENT_KINDS, NetworkResult, NetworkSummary, run, sweep

__all__ = [
    "CLOCK",
    "EVENT_KINDS",
    "INCIDENT",
    "MAX_ITEMS",
    "NetworkConfig",
    "NetworkResult",
    "NetworkSummary",
    "SHED_AT_0700",
    "run",
    "sweep",
]
