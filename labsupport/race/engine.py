"""The actors of the race model on a simpy clock: DNS Planner, DNS Enactors, operators.

Scenario:
    The engine of :mod:`labsupport.race` (use :func:`labsupport.race.run`). The DNS Planner
    writes plans; each DNS Enactor polls, makes its one-time check, walks the endpoints with one
    Route 53 transaction each (losing the lock means exponential backoff with jitter and a retry of
    that endpoint), then cleans up old plans; operators repair an empty endpoint by hand after
    ``manual_repair_after_s``. Every actor draws from the run's one ``random.Random``.
Covers:
    The PES's DNS Planner / DNS Enactor description and the race sequence; DAT453's lock losses,
    backoff and rollback record (AWS's later explanation).

::

    planner ----every plan_interval_s----> plans{N: records per endpoint}
    Enactor.loop: poll -> check once -> transact(endpoint) x E -> cleanup(plan)
    Enactor.transact: lock? --no--> lock_lost, back off, retry --yes--> batch -> HostedZone.apply_plan
    _World.observe: records hit 0 -> endpoint_empty -> operator(endpoint) after manual_repair_after_s
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any

import pandas as pd
import simpy

from .. import route53 as r53
from .._engine import run_until
from .._validate import tick_s
from ..enactor import StepCall, check_target, race_action
from ..errors import ConfigError
from ..strategy import RunBudget, WriteRequest, call_strategy
from .config import EnactorDelay, RaceConfig

__all__ = ["ACTIONS", "STATE_ACTIONS", "frame", "simulate"]

ACTIONS = (
    "plan_created",
    "initial_state",
    "check",
    "lock_lost",
    "write",
    "stale_write",
    "write_noop",
    "write_refused",
    "inconsistent",
    "self_repair",
    "delete",
    "delete_active",
    "delete_skipped",
    "refused_empty",
    "alert",
    "endpoint_empty",
    "endpoint_restored",
    "manual_repair",
    "read",
)
_KIND_TO_ACTION = {
    r53.APPLIED: "write",
    r53.STALE_APPLIED: "stale_write",
    r53.NOOP: "write_noop",
    r53.REFUSED_NOT_NEWER: "write_refused",
    r53.INCONSISTENT: "inconsistent",
    r53.SELF_REPAIRED: "self_repair",
    r53.DELETED: "delete",
    r53.DELETED_ACTIVE: "delete_active",
    r53.SKIPPED_REFERENCED: "delete_skipped",
    r53.REFUSED_EMPTY: "refused_empty",
}
#: Actions after which an event's ``generation`` is the endpoint's alias target and ``records`` its answer size.
STATE_ACTIONS = ("initial_state", "write", "stale_write", "self_repair", "delete_active", "manual_repair")


class _World:
    """The shared state of one run: clock, random stream, plan store, hosted zones and the log."""

    def __init__(self, cfg: RaceConfig) -> None:
        self.cfg, self.env, self.rng = cfg, simpy.Environment(), random.Random(cfg.seed)
        self.rows: list[tuple] = []
        self.plans: dict[int, tuple[int, ...]] = {1: (cfg.records_per_tree_count,) * len(cfg.endpoints)}
        self.newest = 1
        self.zones = {e: r53.HostedZone(e) for e in cfg.endpoints}
        self.faults = list(cfg.delays)
        self.episode = dict.fromkeys(cfg.endpoints, 0)
        self.empty_since: dict[str, float] = {}
        self.regional_empty_s = 0.0
        self.first_empty: float | None = None
        self.emptied: list[str] = []
        self.counts = dict.fromkeys(("stale", "alerts", "repairs", "lag"), 0)
        self.strategy_budget = RunBudget()  # the steps the run's conditional_write calls may take together
        self.flags: dict[str, Any] = {"deleted_active": False, "stuck": False, "repaired_at": None}
        self.enactors: list[Enactor] = []

    def log(
        self, actor: str, action: str, endpoint: str | None, gen: int | None, records: int | None, detail: str
    ) -> None:
        self.rows.append((self.env.now, actor, action, endpoint, gen, records, detail))

    def records_of(self, gen: int, endpoint: str) -> int:
        return self.plans[gen][self.cfg.endpoints.index(endpoint)]

    def record(self, actor: str, zone: r53.HostedZone, change: r53.Change, action: str = "", detail: str = "") -> None:
        """Log a batch's outcome (action and detail given for a student's operation); keep the summary current."""
        action = action or _KIND_TO_ACTION[change.kind]
        self.log(actor, action, zone.endpoint, change.generation, change.records, detail or change.detail)
        self.counts["stale"] += change.kind == r53.STALE_APPLIED
        self.counts["repairs"] += change.kind == r53.SELF_REPAIRED
        self.flags["deleted_active"] |= change.kind == r53.DELETED_ACTIVE
        self.flags["stuck"] |= change.kind == r53.INCONSISTENT
        if change.kind == r53.REFUSED_EMPTY:
            self.counts["alerts"] += 1
            self.log(
                "alarm",
                "alert",
                zone.endpoint,
                change.generation,
                change.records,
                f"guard 3 refused a change that would empty {zone.endpoint}",
            )
        self.observe(zone)

    def observe(self, zone: r53.HostedZone) -> None:
        e, now, count = zone.endpoint, self.env.now, zone.answer_count()
        if count == 0 and e not in self.empty_since:
            self.empty_since[e] = now
            self.episode[e] += 1
            self.emptied += [] if e in self.emptied else [e]
            if e == self.cfg.regional_endpoint and self.first_empty is None:
                self.first_empty = now
            self.log(
                "route53",
                "endpoint_empty",
                e,
                zone.alias,
                0,
                f"alias -> deleted plan {zone.alias}: NOERROR with 0 answers",
            )
            self.env.process(operator(self, e, self.episode[e]))
        elif count > 0 and e in self.empty_since:
            start = self.empty_since.pop(e)
            if e == self.cfg.regional_endpoint:
                self.regional_empty_s += now - start
            self.log(
                "route53",
                "endpoint_restored",
                e,
                zone.alias,
                count,
                f"answers again with {count} records after {now - start:.0f} s empty",
            )

    def note_lag(self) -> None:
        lag = max(self.newest - (z.alias or 0) for z in self.zones.values())
        self.counts["lag"] = max(self.counts["lag"], lag)


def planner(w: _World):
    """DNS Planner: every ``plan_interval_s`` a new regional plan (one tree size per endpoint)."""
    cfg, f = w.cfg, w.cfg.records_change_fraction
    for k in itertools.count(1):
        # Plan k at k * plan_interval_s in whole ms, computed, not summed (a sum drifts).
        yield w.env.timeout(max(0.0, tick_s(k, cfg.plan_interval_s) - w.env.now))
        prev = w.plans[w.newest]
        w.newest += 1
        w.plans[w.newest] = tuple(max(1, round(n * (1 + f * (2 * w.rng.random() - 1)))) for n in prev)
        w.log("planner", "plan_created", None, w.newest, None, f"plan {w.newest} written to the plan store")
        w.note_lag()


def operator(w: _World, endpoint: str, episode: int):
    """Operators: ``manual_repair_after_s`` after ``endpoint`` went empty, install the newest plan by hand."""
    yield w.env.timeout(w.cfg.manual_repair_after_s)
    zone = w.zones[endpoint]
    if w.episode[endpoint] == episode and zone.answer_count() == 0:
        change = zone.repair(w.newest, w.records_of(w.newest, endpoint))
        w.log("operator", "manual_repair", endpoint, change.generation, change.records, change.detail)
        if endpoint == w.cfg.regional_endpoint and w.flags["repaired_at"] is None:
            w.flags["repaired_at"] = w.env.now
        w.observe(zone)


class Enactor:
    """One DNS Enactor: poll, one-time check, one transaction per endpoint, then clean-up."""

    def __init__(self, w: _World, name: str, offset_s: float) -> None:
        self.w, self.name = w, name
        self.last_applied, self.last_failed = 1, 0
        self.step: StepCall | None = None  # a student's step under way (enactor_step)
        w.enactors.append(self)
        w.env.process(self.loop(offset_s))

    def loop(self, offset_s: float):
        env, cfg = self.w.env, self.w.cfg
        yield env.timeout(offset_s)
        while True:
            gen = self.w.newest
            if gen > self.last_applied and gen != self.last_failed:
                # The one-time check (PES): made here, once, before the loop over endpoints.
                self.w.log(
                    self.name,
                    "check",
                    None,
                    gen,
                    None,
                    f"plan {gen} is newer than plan {self.last_applied}, applied before: go",
                )
                yield from self.apply(gen, self._take_fault())
            yield env.timeout(cfg.enactor_poll_interval_s)

    def _take_fault(self) -> EnactorDelay | None:
        for fault in self.w.faults:
            if fault.enactor == self.name and fault.start_s <= self.w.env.now:
                self.w.faults.remove(fault)
                return fault
        return None

    def apply(self, gen: int, fault: EnactorDelay | None):
        if self.w.cfg.enactor_step is not None:
            yield from self.run_step(gen, fault)
            return
        for endpoint in self.w.cfg.endpoints:
            kind = yield from self.transact(endpoint, gen, fault)
            if kind == r53.INCONSISTENT:
                self.last_failed = gen
                return
        self.last_applied = gen
        yield from self.cleanup(gen)

    def transact(self, endpoint: str, gen: int, fault: EnactorDelay | None):
        """One Route 53 transaction; a lost lock means backoff and a retry of this endpoint."""
        w, cfg, g = self.w, self.w.cfg, self.w.cfg.guards
        zone = w.zones[endpoint]
        hit = fault is not None and fault.affects(endpoint)
        forced = fault.lock_losses_count if fault is not None and hit else 0
        yield from self.locked(zone, gen, forced, fault.extra_latency_s if fault is not None and hit else 0.0)
        holds = (
            None
            if cfg.conditional_write is None
            else call_strategy(
                "conditional_write",
                cfg.conditional_write,
                WriteRequest(endpoint, zone.alias, gen),
                run_budget=w.strategy_budget,
            )
        )
        change = zone.apply_plan(
            gen,
            w.records_of(gen, endpoint),
            newest=(w.newest, w.records_of(w.newest, endpoint)),
            check_version_on_write=g.check_version_on_write,
            reject_empty_records=g.reject_empty_records,
            self_repair=g.self_repair,
            max_record_drop_fraction=cfg.max_record_drop_fraction,
            condition_holds=holds,
        )
        w.record(self.name, zone, change)
        w.note_lag()
        return change.kind

    def locked(self, zone: r53.HostedZone, gen: int, forced: int, extra_s: float):
        """Take ``zone``'s lock (each loss, forced or to another holder: backoff, retry), hold it one transaction."""
        w, cfg = self.w, self.w.cfg
        for attempt in itertools.count():
            blocker = zone.lock_blocker(self.name, w.env.now)
            if attempt < forced or blocker is not None:
                # 2**64 * backoff_base_s is past any cap; a larger power overflows a float.
                wait = min(cfg.backoff_cap_s, cfg.backoff_base_s * 2 ** min(attempt, 64))
                wait *= 1 - cfg.backoff_jitter_fraction * w.rng.random()
                why = f"held by {blocker}" if blocker else "lost again (injected fault)"
                w.log(self.name, "lock_lost", zone.endpoint, gen, None, f"lock {why}; back off {wait:.1f} s")
                yield w.env.timeout(wait)
                continue
            duration = cfg.txn_latency_s * (1 + cfg.txn_jitter_fraction * (2 * w.rng.random() - 1)) + extra_s
            zone.take_lock(self.name, w.env.now + duration + cfg.lock_ttl_s)
            yield w.env.timeout(duration)
            return

    def run_step(self, gen: int, fault: EnactorDelay | None):
        """A student's step (``enactor_step``): each operation it yields, carried out in simulated time.

        A read takes one transaction time; a write or a delete is one transaction under the lock. The
        fault forces its lock losses on the step's first write to each affected endpoint and adds its
        extra latency to every write and delete there.
        """
        w, cfg = self.w, self.w.cfg
        assert cfg.enactor_step is not None
        self.step = call = StepCall(
            "enactor_step", cfg.enactor_step, gen, cfg.endpoints, cfg.cleanup_keep_generations, w.strategy_budget
        )
        held: set[str] = set()  # endpoints whose first write the fault has held up
        reply: r53.ZoneView | bool | None = None
        while (op := call.advance(reply)) is not None:
            zone = w.zones[cfg.endpoints[check_target(call.who, op, cfg.endpoints, w.newest)]]
            if isinstance(op, r53.Read):
                yield w.env.timeout(cfg.txn_latency_s * (1 + cfg.txn_jitter_fraction * (2 * w.rng.random() - 1)))
                reply = zone.view()
                w.log(self.name, "read", zone.endpoint, zone.alias, zone.answer_count(), f"{op} -> {reply}")
                continue
            hit = fault is not None and fault.affects(zone.endpoint)
            first_write = isinstance(op, r53.Write) and zone.endpoint not in held
            losses = fault.lock_losses_count if fault is not None and hit and first_write else 0
            held |= {zone.endpoint} if isinstance(op, r53.Write) else set()
            yield from self.locked(zone, gen, losses, fault.extra_latency_s if fault is not None and hit else 0.0)
            change = zone.perform(op, w.records_of(op.plan, zone.endpoint) if isinstance(op, r53.Write) else 0)
            reply = change.kind in r53.COMMITTED
            w.record(self.name, zone, change, race_action(op, change.kind), f"{op} -> {reply}: {change.detail}")
            w.note_lag()
        self.step, self.last_applied = None, gen

    def cleanup(self, gen: int):
        """Delete the trees of plans more than ``cleanup_keep_generations`` older than ``gen``."""
        w, cfg, g = self.w, self.w.cfg, self.w.cfg.guards
        cutoff = gen - cfg.cleanup_keep_generations
        for endpoint in cfg.endpoints:
            zone = w.zones[endpoint]
            yield w.env.timeout(cfg.txn_latency_s * (1 + cfg.txn_jitter_fraction * (2 * w.rng.random() - 1)))
            for old in sorted(t for t in zone.trees if t < cutoff):
                change = zone.delete_tree(
                    old,
                    delete_only_unreferenced=g.delete_only_unreferenced,
                    reject_empty_records=g.reject_empty_records,
                    max_record_drop_fraction=cfg.max_record_drop_fraction,
                )
                w.record(self.name, zone, change)


def simulate(cfg: RaceConfig, names: Sequence[str]) -> _World:
    """Set up plan 1 on every endpoint, start the Planner and the Enactors, run to ``cfg.horizon_s``."""
    w = _World(cfg)
    for zone in w.zones.values():
        zone.trees[1] = w.records_of(1, zone.endpoint)
        zone.alias = zone.rollback = 1
        w.log("route53", "initial_state", zone.endpoint, 1, zone.answer_count(), "alias -> plan 1")
    offsets = cfg.enactor_offsets_s or tuple(w.rng.uniform(0, cfg.enactor_poll_interval_s) for _ in names)
    w.env.process(planner(w))
    for name, offset in zip(names, offsets, strict=False):
        Enactor(w, name, offset)
    try:
        run_until(w.env, cfg.horizon_s, max_events=cfg.max_events, log=w.rows, counted="events logged")
    except BaseException:
        _close_steps(w, quietly=True)
        raise
    _close_steps(w)
    for e, start in w.empty_since.items():
        if e == cfg.regional_endpoint:
            w.regional_empty_s += cfg.horizon_s - start
    return w


def _close_steps(w: _World, quietly: bool = False) -> None:
    """Close the students' steps still under way (cut off by the horizon or an error), within the budget."""
    for enactor in w.enactors:
        if enactor.step is None:
            continue
        try:
            enactor.step.close()
        except ConfigError:
            if not quietly:  # while another error is on its way, that one is the one to report
                raise


def frame(rows: list[tuple], names: Sequence[str]) -> pd.DataFrame:
    """The event log as a typed DataFrame (see :class:`labsupport.race.RaceResult`)."""
    cols = ["time_s", "actor", "action", "endpoint", "generation", "records", "detail"]
    df = pd.DataFrame.from_records(rows, columns=cols)
    actors = ["planner", *names, "route53", "alarm", "operator"]
    return df.astype(
        {
            "time_s": "float64",
            "actor": pd.CategoricalDtype(actors),
            "action": pd.CategoricalDtype(list(ACTIONS)),
            "endpoint": "string",
            "generation": "Int64",
            "records": "Int64",
            "detail": "string",
        }
    )
