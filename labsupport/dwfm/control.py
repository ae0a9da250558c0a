"""Load control at DWFM's hosts: admission control and the operators' actions, the part of
:mod:`labsupport.dwfm.engine`'s actors that acts on the load rather than doing the work (private: use
:func:`labsupport.dwfm.run`).

Scenario:
    Every request for a new lease, first or retried, is admitted here before it waits for a host.
    The queue limit refuses it while its host's queue holds ``queue_limit_count`` items, from the
    start with ``throttle_by_queue_length`` (the fix the course's stop point 5 tests) or from
    ``operator_throttle_at_s`` (the operators' throttle); then a student's ``admission_policy``, if
    any, is asked. A refused request is held back: its droplet asks again at its next state check.
    At ``operator_restart_at_s`` the operators restart every host whose queue is over the limit,
    dropping its queue, its round in progress and its retries.
Covers:
    The post-event summary's EC2 section: at 4:14 AM engineers throttled incoming work and began
    selective restarts of DWFM hosts.

::

    lease request --queue limit (throttle_by_queue_length | operator throttle)--> admission_policy?
        |-- refused: held back (lease_held_back), asked again at the droplet's next state check
        '-- admitted: appended to its host's queue, the host woken if it waits
    operator (at operator_throttle_at_s, operator_restart_at_s) --> restart(host) where queue > limit
    operator_throttle_until_s: the queue limit is off again (an operators' throttle relaxed)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import numpy as np
import simpy

from ..strategy import AdmissionRequest, RunBudget, call_strategy
from .config import DwfmConfig

__all__ = ["LoadControl"]


class LoadControl:
    """Admission control and the operators' actions, a part of the engine's ``_Model``, which sets
    the state and provides the methods declared here."""

    cfg: DwfmConfig
    host_of: list[int]  # droplet -> host
    queues: list[deque[tuple[int, float, int]]]  # per host: (droplet, enqueued_at_s, attempt)
    inflight: list[list[tuple[int, float, int]]]  # per host: its round in progress
    backoff: list[list[tuple[float, int, int, int]]]  # per host: retries waiting, (due_s, seq, droplet, attempt)
    wake: list[simpy.Event | None]  # per host: the event it waits on while its queue is empty
    hosts: list[simpy.Process]  # per host: its process (a restart interrupts it)
    outstanding: np.ndarray  # per droplet: an item is queued, in flight or in backoff
    counts: dict[str, int]  # totals since the start: "held_back", ...
    queue_total: int
    peak_queue: int
    inflight_total: int
    backoff_total: int
    strategy_budget: RunBudget  # the steps the run's admission_policy calls may take together
    charge: Callable[[int], None]  # count work against max_events
    record: Callable[..., None]  # record(kind, count=0, host=-1): one event now

    def throttled(self, t: float) -> bool:
        """Whether the queue limit holds at ``t``: from the start with ``throttle_by_queue_length``, else
        over [``operator_throttle_at_s``, ``operator_throttle_until_s``) (the operators' throttle, from
        4:14 AM in the incident; never relaxed there)."""
        at, until = self.cfg.operator_throttle_at_s, self.cfg.operator_throttle_until_s
        return self.cfg.throttle_by_queue_length or (at is not None and t >= at and (until is None or t < until))

    def admits(self, h: int, now: float, attempt: int) -> bool:
        """The config's ``admission_policy`` on an item arriving at host ``h`` (True without one)."""
        policy = self.cfg.admission_policy
        if policy is None:
            return True
        cfg, q = self.cfg, self.queues[h]
        request = AdmissionRequest(
            time_s=now,
            host=h,
            queue_count=len(q),
            in_flight_count=len(self.inflight[h]),
            oldest_wait_s=now - q[0][1] if q else 0.0,  # the left end is the oldest, FIFO or LIFO
            attempt=attempt,
            host_concurrency_count=cfg.host_concurrency_count,
            lease_establish_s=cfg.lease_establish_s,
            work_deadline_s=cfg.work_deadline_s,
        )
        return call_strategy("admission_policy", policy, request, run_budget=self.strategy_budget)

    def enqueue(self, d: int, now: float, attempt: int) -> bool:
        """Admit an item for droplet ``d`` unless admission control (throttle, then policy) refuses it."""
        h = self.host_of[d]
        q = self.queues[h]
        if (self.throttled(now) and len(q) >= self.cfg.queue_limit_count) or not self.admits(h, now, attempt):
            self.outstanding[d] = False  # held back: the droplet asks again at its next check
            self.counts["held_back"] += 1
            return False
        q.append((d, now, attempt))
        self.outstanding[d] = True
        self.queue_total += 1
        self.peak_queue = max(self.peak_queue, self.queue_total)
        w = self.wake[h]
        if w is not None and not w.triggered:
            w.succeed()
        return True

    def enqueue_new(self, droplets: list[int], now: float) -> int:
        """:meth:`enqueue` for each droplet in turn (first attempts, none outstanding); the count admitted.

        The same effects, in the same order, as one ``enqueue(d, now, 0)`` per droplet: within one
        call the throttle's state cannot change, and a host woken by an earlier item cannot run
        before this call returns, so the loop is kept tight and the bookkeeping done once. With an
        ``admission_policy`` (student code, asked item by item) it is exactly that loop.
        """
        if self.cfg.admission_policy is not None:
            return sum(self.enqueue(d, now, 0) for d in droplets)
        queues, host_of, wake = self.queues, self.host_of, self.wake
        limit = self.cfg.queue_limit_count if self.throttled(now) else None
        admitted: list[int] = []
        for d in droplets:
            h = host_of[d]
            q = queues[h]
            if limit is not None and len(q) >= limit:
                continue  # held back (it was not outstanding): the droplet asks again at its next check
            q.append((d, now, 0))
            admitted.append(d)
            w = wake[h]
            if w is not None and not w.triggered:
                w.succeed()
        self.outstanding[admitted] = True
        self.counts["held_back"] += len(droplets) - len(admitted)
        self.queue_total += len(admitted)
        self.peak_queue = max(self.peak_queue, self.queue_total)
        return len(admitted)

    def operator(self, env: simpy.Environment):
        """Throttle incoming work and selectively restart congested hosts, at the configured times."""
        cfg = self.cfg
        actions = [
            (t, name)
            for t, name in (
                (cfg.operator_throttle_at_s, "throttle"),
                (cfg.operator_restart_at_s, "restart"),
                (cfg.operator_throttle_until_s, "relax"),
            )
            if t is not None
        ]
        order = {"restart": 0, "throttle": 1, "relax": 2}  # at one time: as ever, restart then throttle; a relax last
        for t, name in sorted(actions, key=lambda a: (a[0], order[a[1]])):
            yield env.timeout(t - env.now)
            if name != "restart":
                self.record("operator_throttle" if name == "throttle" else "operator_throttle_relaxed")
                continue
            for h in range(cfg.dwfm_hosts_count):
                if len(self.queues[h]) > cfg.queue_limit_count:
                    self.restart(h)

    def restart(self, h: int) -> None:
        """Clear host ``h``'s queue, in-flight round and backoff list; its droplets ask again later."""
        dropped = [d for d, _, _ in self.queues[h]] + [d for d, _, _ in self.inflight[h]]
        dropped += [d for _, _, d, _ in self.backoff[h]]
        self.charge(len(dropped))
        self.queue_total -= len(self.queues[h])
        self.inflight_total -= len(self.inflight[h])
        self.backoff_total -= len(self.backoff[h])
        if self.inflight[h]:
            self.hosts[h].interrupt("operator restart")
        self.queues[h].clear()
        self.inflight[h], self.backoff[h] = [], []
        self.outstanding[dropped] = False
        self.record("host_restarted", len(dropped), h)
