"""The whole chain, end to end, with the six stop points: the course's capstone model.

Scenario:
    19 Oct 2025, 11:48 PM PDT (t = 0 of :data:`CLOCK`) to 20 Oct, afternoon. The DNS race
    empties DynamoDB's regional endpoint; DWFM's leases lapse and collapse on recovery; Network
    Manager's backlog delays new instances' network state; NLB health checks flap and fail AZs
    over; DNS caches decide when clients see each change. Each of the six stop points of the seed
    articles can be switched on, and the chain shows how much of the event each one removes.
Covers:
    The post-event summary's (PES) three impact periods and the remediations it announces. Nothing
    is re-implemented: every stage is a run of an existing model, fed by the one before::

        race (guards = stop points 1-4) --empty window--> dns_cache (what clients see)
              |                                              = stage "DynamoDB unreachable"
              +--DynamoDB outage--> dwfm (stop 5: throttle_by_queue_length; operators: rule A)
                                      |  unleased droplet-hours, refused launches (calibrated)
                                      v
                              network (stop 5: max_queue_count), from the last lease
                                      |  = stage "Launches failing" (DNS restored to propagation normal)
                                      v
                              nlb (stop 5: limit_capacity_removal; operators: rules B, C)
                                         = stage "NLB connection errors"
        dependencies (stop 6: isolate_regions): what fails outside us-east-1 meanwhile

The operators enter the chain as a strategy (:class:`Operators`), asked before each model what
they do. By default (:data:`RULES`) their actions are rules relative to the model's own state,
never clock times, so that a stop point that changes the state also moves them. Their delays are
PES intervals read from :func:`labsupport.timeline.load`:

* A: DWFM's operators throttle and restart hosts ``dwfm_operator_delay_s`` after DNS is restored
  (2:25 to 4:14 AM); if DWFM recovered before that, they had nothing to do.
* B: NLB's operators disable automatic AZ failover ``nlb_disable_delay_s`` after the first AZ
  failover (the model's detection; 6:52 to 9:36 AM), if EC2 has not recovered by then.
* C: EC2 counts as recovered when propagation is normal plus, if operators throttled EC2 by hand
  (rule A fired), ``ec2_throttle_relax_s`` to unwind those throttles (10:36 AM to 1:50 PM); NLB
  failover is re-enabled ``nlb_reenable_delay_s`` after that (1:50 to 2:09 PM).

:class:`OperatorActions` replaces the rules with actions at fixed times (the game-day lab's players).

Calibrated (see :data:`INCIDENT` and :func:`calibration`): ``race_lead_s``, which puts the race's
empty record at 11:48 PM, and the two factors that turn DWFM's damage into Network Manager's work.
Everything else is either a sub-model's own calibrated preset or a PES interval used as a rule.
Sweeps: :func:`sweep`, :func:`stop_point_table` (all 64 combinations) and
:func:`single_point_savings` ("which single stop point buys the most time?").

Modules: ``config`` (:class:`StopPoints`, :class:`ChainConfig`, :data:`INCIDENT`), ``operators``
(:class:`Operators`, :data:`RULES`, :class:`OperatorActions`), ``engine`` (the one pipeline that
runs the five models in order), ``stages`` (the stages, impact and milestones read off its runs),
``model`` (:func:`run`, the result and summary) and ``sweep``.
"""

from __future__ import annotations

from .config import (
    CLOCK,
    INCIDENT,
    STOP_POINT_NAMES,
    STOP_POINT_TITLES,
    ChainConfig,
    StopPoints,
)
from .model import EVENT_KINDS, STAGES, ChainResult, ChainSummary, run, stop_point_costs, stop_point_levers
from .operators import RULES, OperatorActions, OperatorRules, Operators
from .sweep import (
    all_stop_point_configs,
    calibration,
    single_point_savings,
    stop_point_5_split,
    stop_point_table,
    sweep,
)

__all__ = [
    "CLOCK",
    "ChainConfig",
    "ChainResult",
    "ChainSummary",
    "EVENT_KINDS",
    "INCIDENT",
    "OperatorActions",
    "OperatorRules",
    "Operators",
    "RULES",
    "STAGES",
    "STOP_POINT_NAMES",
    "STOP_POINT_TITLES",
    "StopPoints",
    "all_stop_point_configs",
    "calibration",
    "run",
    "single_point_savings",
    "stop_point_5_split",
    "stop_point_costs",
    "stop_point_levers",
    "stop_point_table",
    "sweep",
]
