"""The simpy actors behind :mod:`labsupport.dwfm`, and :func:`simulate`, which runs them (private:
use :func:`labsupport.dwfm.run`).

:func:`simulate` builds one ``_Model`` on the environment :func:`labsupport._engine.simulate` makes,
runs it to the horizon and hands back a :class:`DwfmRecord`, all that :func:`labsupport.dwfm.run`
reads. Actors, each a generator that takes ``env`` first:

* :meth:`_Model.state_checker`: every ``state_check_interval_s / COHORTS`` seconds it checks one
  cohort of droplets (renew the lease, notice an expired one, ask for a new one) and releases the
  backoff retries that are due;
* :meth:`_Model.dwfm_host`: one per DWFM host; takes up to ``host_concurrency_count`` waiting
  items (oldest or newest first, dropping expired ones if configured), works on them for
  ``lease_establish_s``, then commits each lease or wastes the work; failed items go through the
  optional retry budget (a token bucket per host) to the retry policy;
* :meth:`_Model.monitor`: one time-series row every ``report_interval_s``.

What acts on the load rather than doing the work is in :mod:`labsupport.dwfm.control`, a part of
``_Model``: admission control, which every lease request passes first (the queue limit, then the
``admission_policy``), and the ``operator`` actor (throttle, selective restart).

Per-droplet state lives in numpy arrays; work items are ``(droplet, enqueued_at_s, attempt)``
tuples in one ``collections.deque`` per host.
"""

from __future__ import annotations

import heapq
import random
from array import array
from collections import deque
from dataclasses import dataclass

import numpy as np
import simpy

from .. import _engine
from .._validate import to_ms
from ..errors import LimitExceeded
from ..strategy import RunBudget
from .config import RETRY_POLICIES, DwfmConfig
from .control import LoadControl

__all__ = ["EVENT_KINDS", "SERIES_COLUMNS", "DwfmRecord", "simulate"]

#: State checks are aggregated into this many cohorts per state-check interval.
COHORTS = 30

#: ``max_events`` counts work, not just simulation steps: one unit per step, one per work item a
#: step handles in Python (queued, started, finished, released from backoff, cleared), and one per
#: this many droplets a state check or a report reads with numpy (about as costly as one item).
DROPLETS_PER_UNIT = 64

#: Event kinds, in a fixed order (the categories of ``Result.events["kind"]``).
EVENT_KINDS: tuple[str, ...] = (
    "dynamodb_unreachable",
    "dynamodb_restored",
    "lease_expired",
    "lease_requested",
    "lease_held_back",
    "work_started",
    "lease_established",
    "work_timed_out",
    "retry_queued",
    "operator_throttle",
    "host_restarted",
    "leases_restored",
    "work_dropped_expired",
    "retry_refused",
    "operator_throttle_relaxed",
)

_KIND_CODE = {kind: code for code, kind in enumerate(EVENT_KINDS)}

#: The retry strategy of each :attr:`DwfmConfig.retry_policy` value: the ``_Model`` method that
#: takes a host's timed-out items ``(droplet, attempt)`` and queues them again.
RETRY_STRATEGIES: dict[str, str] = dict(zip(RETRY_POLICIES, ("retry_immediately", "retry_after_backoff"), strict=False))

#: Time-series columns after ``time_s`` (all counts).
SERIES_COLUMNS: tuple[str, ...] = (
    "leased_count",
    "queue_count",
    "in_flight_count",
    "backoff_count",
    "started_count",
    "goodput_count",
    "wasted_count",
    "requested_count",
    "held_back_count",
    "launch_attempts_count",
    "insufficient_capacity_count",
)


@dataclass(frozen=True)
class DwfmRecord:
    """What one simulated run leaves for :func:`labsupport.dwfm.run` to read.

    Attributes:
        events: the event columns ``(time_s, kind code in EVENT_KINDS, host, count)``, as recorded
            (in time order but for ``leases_restored``, added last).
        series: the time-series rows ``(time_s, *SERIES_COLUMNS)``, one per ``report_interval_s``
            and one at the horizon.
        peak_queue_count: most items waiting in all hosts' queues at once.
        restored_at_s: when every droplet held a lease again (``outage_end_s`` if none was lost), or
            ``None`` if some droplet has none at the horizon.
    """

    events: tuple[array, array, array, array]
    series: list[tuple]
    peak_queue_count: int
    restored_at_s: float | None


def simulate(cfg: DwfmConfig) -> DwfmRecord:
    """Run DWFM's actors on a simpy clock from 0 to ``cfg.horizon_s`` (closed); see :class:`DwfmRecord`.

    Raises:
        LimitExceeded: the run needed more than ``cfg.max_events`` units of work (charged as it goes).
        ConfigError: the ``admission_policy`` raised, returned a non-bool or did not return.
    """
    model, _ = _engine.simulate(lambda env: _Model(env, cfg, random.Random(cfg.seed)), cfg.horizon_s)
    model.sample(cfg.horizon_s)  # the last row, after every event at the horizon
    restored_at = None
    if bool(np.all(model.leased_until > cfg.horizon_s)):
        restored_at = max(cfg.outage_end_s, model.last_established_s or 0.0)
        model.add_event(restored_at, _KIND_CODE["leases_restored"], -1, 0)
    return DwfmRecord(model.events, model.series, model.peak_queue, restored_at)


class _Model(LoadControl):
    """All state of one run, its actors and their processes, started on ``env``."""

    def __init__(self, env: simpy.Environment, cfg: DwfmConfig, rng: random.Random) -> None:
        self.cfg, self.rng, self.env = cfg, rng, env
        n, k = cfg.fleet_droplets_count, COHORTS
        lo, hi = cfg.lease_ttl_min_s, cfg.lease_ttl_max_s
        self.ttl = [lo + (hi - lo) * rng.random() for _ in range(n)]
        self.ttl_arr = ttl = np.array(self.ttl, dtype=float)
        ids = np.arange(n)
        # Droplet i is checked in cohort i % k, at k-th ticks; its last check before t=0 renewed it.
        self.leased_until = (ids % k) * (cfg.state_check_interval_s / k) - cfg.state_check_interval_s + ttl
        self.host_of = ((ids // k) % cfg.dwfm_hosts_count).tolist()
        self.outstanding = np.zeros(n, dtype=bool)  # an item is queued, in flight or in backoff
        self.noticed = np.zeros(n, dtype=bool)  # its lapse has been recorded as an event
        h = cfg.dwfm_hosts_count
        self.queues: list[deque[tuple[int, float, int]]] = [deque() for _ in range(h)]
        self.inflight: list[list[tuple[int, float, int]]] = [[] for _ in range(h)]
        self.backoff: list[list[tuple[float, int, int, int]]] = [[] for _ in range(h)]
        self.wake: list[simpy.Event | None] = [None] * h
        self.queue_total = self.peak_queue = self.inflight_total = self.backoff_total = 0
        self.seq = self.steps = 0
        self.last_established_s: float | None = None
        self.counts = dict.fromkeys(("started", "goodput", "wasted", "requested", "held_back"), 0)
        self.sampled = dict(self.counts)
        # Event columns (time_s, kind code, host, count), kept compact: a run may record millions.
        self.events: tuple[array, array, array, array] = (array("d"), array("b"), array("q"), array("q"))
        self.series: list[tuple] = []
        self.retry = getattr(self, RETRY_STRATEGIES[cfg.retry_policy])
        self.dropped_total = self.refused_total = 0
        # Retry budget: one token bucket per host, full at the start.
        self.tokens = [float(cfg.retry_budget_burst_count)] * h
        self.tokens_at = [0.0] * h
        self.strategy_budget = RunBudget()  # the steps the run's admission_policy calls may take together
        self.env.process(self.dynamodb(self.env))
        self.hosts = [self.env.process(self.dwfm_host(self.env, i)) for i in range(h)]
        for proc in (self.state_checker, self.operator, self.monitor):
            self.env.process(proc(self.env))

    # -- helpers -------------------------------------------------------------------------------
    def dynamodb_up(self, t: float) -> bool:
        return not (self.cfg.outage_start_s <= t < self.cfg.outage_end_s)

    def record(self, kind: str, count: int = 0, host: int = -1) -> None:
        self.add_event(self.env.now, _KIND_CODE[kind], host, count)

    def add_event(self, time_s: float, code: int, host: int, count: int) -> None:
        for column, value in zip(self.events, (time_s, code, host, count), strict=False):
            column.append(value)

    def step(self, items: int = 0, droplets: int = 0) -> None:
        """Count one simulation step and its work (see :data:`DROPLETS_PER_UNIT`) against ``max_events``."""
        self.charge(1 + items + droplets // DROPLETS_PER_UNIT)

    def charge(self, units: int) -> None:
        """Add ``units`` of work; raise ``LimitExceeded`` once the run's total exceeds ``max_events``."""
        self.steps += units
        if self.steps > self.cfg.max_events:
            raise LimitExceeded(
                f"max_events: the run needed more than {self.cfg.max_events} units of work (simulation "
                f"steps, work items handled, droplets read / {DROPLETS_PER_UNIT}) before its horizon of "
                f"{self.cfg.horizon_s:g} s (stopped at t={self.env.now:.0f} s); raise max_events, lower "
                "host_concurrency_count or fleet_droplets_count, or shorten horizon_s"
            )

    # -- actors --------------------------------------------------------------------------------
    def dynamodb(self, env: simpy.Environment):
        """Record DynamoDB's outage window (the other actors read :meth:`dynamodb_up`)."""
        start, end = self.cfg.outage_start_s, self.cfg.outage_end_s
        if end > start:
            yield env.timeout(start)
            self.record("dynamodb_unreachable")
            yield env.timeout(end - start)
            self.record("dynamodb_restored")

    def state_checker(self, env: simpy.Environment):
        """Check one cohort per tick: renew live leases, notice lapsed ones, request new ones."""
        cfg, k, j = self.cfg, COHORTS, 0
        n, tick = cfg.fleet_droplets_count, cfg.state_check_interval_s / COHORTS
        # Each cohort's views of the per-droplet arrays (written through in place), made once.
        cohorts = [
            (c, self.leased_until[c:n:k], self.noticed[c:n:k], self.outstanding[c:n:k], self.ttl_arr[c:n:k])
            for c in range(k)
        ]
        while True:
            now = env.now
            c, lu, noticed, outstanding, ttl = cohorts[j % k]
            self.step(droplets=len(lu))
            up = self.dynamodb_up(now)
            lapsed = lu <= now
            new = lapsed > noticed  # lapsed and not yet noticed
            if new.any():
                noticed |= new
                self.record("lease_expired", int(np.count_nonzero(new)))
            if up:
                np.add(ttl, now, out=lu, where=~lapsed)  # renew the live leases
                held = self.counts["held_back"]
                ask = np.flatnonzero(lapsed > outstanding)  # lapsed and nothing outstanding
                self.charge(len(ask))
                asked = self.enqueue_new((ask * k + c).tolist(), now) if len(ask) else 0
                self.counts["requested"] += asked
                self._flush(asked, self.counts["held_back"] - held, "lease_requested")
                if self.backoff_total:
                    self.release_retries(now)
            j += 1
            yield env.timeout(j * tick - now)

    def release_retries(self, now: float) -> None:
        held, queued, released = self.counts["held_back"], 0, 0
        for heap in self.backoff:
            while heap and heap[0][0] <= now:
                _, _, d, attempt = heapq.heappop(heap)
                self.backoff_total -= 1
                queued += self.enqueue(d, now, attempt)
                released += 1
        self.charge(released)
        self._flush(queued, self.counts["held_back"] - held, "retry_queued")

    def _flush(self, admitted: int, refused: int, kind: str, host: int = -1) -> None:
        if admitted:
            self.record(kind, admitted, host)
        if refused:
            self.record("lease_held_back", refused, host)

    def dwfm_host(self, env: simpy.Environment, h: int):
        """Work in rounds: start up to ``host_concurrency_count`` items, finish them together."""
        cfg, q = self.cfg, self.queues[h]
        while True:
            try:
                while not q:
                    self.wake[h] = env.event()
                    yield self.wake[h]
                self.wake[h] = None
                batch = self.take(h, env.now)
                if not batch:
                    continue  # every item it looked at had expired
                self.inflight[h] = batch
                self.inflight_total += len(batch)
                self.counts["started"] += len(batch)
                self.record("work_started", len(batch), h)
                yield env.timeout(cfg.lease_establish_s)
            except simpy.Interrupt:  # restarted by an operator: its work is gone
                continue
            self.inflight[h] = []
            self.inflight_total -= len(batch)
            self.finish(h, batch, env.now)

    def take(self, h: int, now: float) -> list[tuple[int, float, int]]:
        """Take host ``h``'s next round from its queue, in ``queue_order``.

        With ``drop_expired_work``, items whose deadline has already passed are dropped instead of
        taken (without host time) and handed to :meth:`fail`; the round is then filled from the
        remaining items, and may be empty.
        """
        cfg, q = self.cfg, self.queues[h]
        pop = q.pop if cfg.queue_order == "lifo" else q.popleft
        batch: list[tuple[int, float, int]] = []
        if not cfg.drop_expired_work:
            take = min(cfg.host_concurrency_count, len(q))
            self.step(items=take)
            batch = [pop() for _ in range(take)]
            self.queue_total -= len(batch)
            return batch
        expired: list[tuple[int, float, int]] = []
        now_ms, deadline_ms = to_ms(now), to_ms(cfg.work_deadline_s)
        while q and len(batch) < cfg.host_concurrency_count:
            item = pop()
            (expired if now_ms > to_ms(item[1]) + deadline_ms else batch).append(item)
        self.step(items=len(batch) + len(expired))
        self.queue_total -= len(batch) + len(expired)
        if expired:
            self.dropped_total += len(expired)
            self.record("work_dropped_expired", len(expired), h)
            self.fail(h, [(d, attempt + 1) for d, _, attempt in expired], now)
        return batch

    def fail(self, h: int, failed: list[tuple[int, int]], now: float) -> None:
        """Hand failed items ``(droplet, attempt)`` to the retry policy, within the retry budget.

        Without a budget every item is retried. With one, host ``h``'s bucket first refills at
        ``retry_budget_per_s`` tokens per second up to ``retry_budget_burst_count``; each retry
        takes a whole token, and the items left when the bucket is empty are not retried: their
        droplets ask again at their next state check.
        """
        cfg = self.cfg
        if cfg.retry_budget_per_s is not None:
            tokens = min(
                float(cfg.retry_budget_burst_count), self.tokens[h] + cfg.retry_budget_per_s * (now - self.tokens_at[h])
            )
            allowed = min(len(failed), int(tokens))
            self.tokens[h], self.tokens_at[h] = tokens - allowed, now
            refused = failed[allowed:]
            failed = failed[:allowed]
            if refused:
                self.outstanding[[d for d, _ in refused]] = False
                self.refused_total += len(refused)
                self.record("retry_refused", len(refused), h)
        if failed:
            self.retry(h, failed, now)

    def finish(self, h: int, batch: list[tuple[int, float, int]], now: float) -> None:
        """Commit the leases whose deadline still holds; waste and retry the others."""
        cfg, up, failed = self.cfg, self.dynamodb_up(now), []
        # Tie rule: work that finishes exactly at its deadline is in time. Compared in whole
        # milliseconds, so that float sums of round starts cannot decide the tie.
        now_ms, deadline_ms = to_ms(now), to_ms(cfg.work_deadline_s)
        for d, enqueued, attempt in batch:
            if up and now_ms <= to_ms(enqueued) + deadline_ms:
                self.leased_until[d] = now + self.ttl[d]
                self.outstanding[d] = self.noticed[d] = False
            else:
                failed.append((d, attempt + 1))
        ok = len(batch) - len(failed)
        self.counts["goodput"] += ok
        self.counts["wasted"] += len(failed)
        if ok:
            self.record("lease_established", ok, h)
            self.last_established_s = now
        if failed:
            self.record("work_timed_out", len(failed), h)
            self.fail(h, failed, now)

    # -- retry strategies (DwfmConfig.retry_policy picks one; see RETRY_STRATEGIES) -------------
    def retry_immediately(self, h: int, failed: list[tuple[int, int]], now: float) -> None:
        """``"immediate"``: each timed-out item joins the back of its host's queue at once."""
        held = self.counts["held_back"]
        queued = sum(self.enqueue(d, now, a) for d, a in failed)
        self._flush(queued, self.counts["held_back"] - held, "retry_queued", h)

    def retry_after_backoff(self, h: int, failed: list[tuple[int, int]], now: float) -> None:
        """``"backoff_full_jitter"``: wait uniformly in ``[0, min(cap, base * 2**attempt)]``, then queue."""
        cfg = self.cfg
        for d, attempt in failed:
            ceiling = min(cfg.retry_cap_s, cfg.retry_base_s * 2.0 ** min(attempt, 60))
            self.seq += 1
            heapq.heappush(self.backoff[h], (now + self.rng.random() * ceiling, self.seq, d, attempt))
        self.backoff_total += len(failed)

    def monitor(self, env: simpy.Environment):
        """Append one time-series row per ``report_interval_s`` (counts since the previous row)."""
        j = 0
        while True:
            self.step(droplets=self.cfg.fleet_droplets_count)
            self.sample(env.now)
            j += 1
            if j * self.cfg.report_interval_s >= self.cfg.horizon_s:
                return  # run() takes the row at the horizon, after every event there
            yield env.timeout(j * self.cfg.report_interval_s - env.now)

    def sample(self, now: float) -> None:
        """Append the time-series row for ``now``; launches split by the mean leased fraction."""
        cfg, n = self.cfg, self.cfg.fleet_droplets_count
        leased = int(np.count_nonzero(self.leased_until > now))
        if self.series:
            last = self.series[-1]
            attempts = round(cfg.launch_attempts_per_s * (now - last[0]))
            prev_leased = last[1]
        else:
            attempts, prev_leased = 0, leased
        refused = round(attempts * (1 - (leased + prev_leased) / (2 * n)))
        delta = [self.counts[key] - self.sampled[key] for key in self.counts]
        self.sampled = dict(self.counts)
        self.series.append(
            (now, leased, self.queue_total, self.inflight_total, self.backoff_total, *delta, attempts, refused)
        )
