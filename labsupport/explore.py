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
transaction), one cleanup delete. The TXT-record lock serialises the transactions on an endpoint;
here every transaction is atomic already, and an Enactor that loses the lock and backs off is one
that is not scheduled for a while: every such delay is among the interleavings searched.
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Iterable
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from . import _explore_protocol as proto
from . import race
from ._explore_protocol import ENACTOR_NAMES, ENDPOINT_NAMES, PLANNER
from ._sweep import flag_combinations, map_items
from ._validate import check_bool, check_int, store_plain_numbers
from .errors import ConfigError, LimitExceeded

if TYPE_CHECKING:
    from .race import RaceConfig

__all__ = [
    "ENACTOR_NAMES",
    "ENDPOINT_NAMES",
    "ExploreConfig",
    "ExploreResult",
    "ExploreSummary",
    "GUARDS",
    "INCIDENT",
    "PLANNER",
    "Result",
    "Summary",
    "race_replay",
    "race_replay_config",
    "run",
    "states_table",
    "verdict_rows",
    "verdict_table",
]

#: The four guards, in the order of the course's stop points: the same tuple as
#: :data:`labsupport.race.GUARD_NAMES` (one vocabulary for both models).
GUARDS: tuple[str, ...] = race.GUARD_NAMES


@dataclass(frozen=True, kw_only=True)
class ExploreConfig:
    """Bounds and guards of one exhaustive check.

    Attributes:
        enactor_count: DNS Enactors running the protocol (1-3; the PES says three).
        generation_count: plan generations the Planner can make, the initial plan 1 included (2-6).
        endpoint_count: endpoints each plan is applied to, walked in order (1-2: regional, ipv6).
        cleanup_keep_generations: cleanup deletes plans more than this many generations older than
            the plan just applied (0-4).
        check_version_on_write, delete_only_unreferenced, reject_empty_records, self_repair: the
            four guards of :class:`labsupport.race.Guards` (all off, as in October 2025).
        reduce_symmetry: count states that differ only in which Enactor is which as one state.
        max_states: stop with :class:`~labsupport.errors.LimitExceeded` beyond this many states
            (1-3,000,000; about 350 MB of memory per million states).

    Raises:
        ConfigError: (a ValueError) naming the field, the value and the allowed range.
    """

    enactor_count: int = 3
    generation_count: int = 4
    endpoint_count: int = 1
    cleanup_keep_generations: int = 1
    check_version_on_write: bool = False
    delete_only_unreferenced: bool = False
    reject_empty_records: bool = False
    self_repair: bool = False
    reduce_symmetry: bool = True
    max_states: int = 1_000_000

    def __post_init__(self) -> None:
        store_plain_numbers(self)  # numpy and other numbers become plain int/float first
        check_int("enactor_count", self.enactor_count, lo=1, hi=3)
        check_int("generation_count", self.generation_count, lo=2, hi=6)
        check_int("endpoint_count", self.endpoint_count, lo=1, hi=2)
        check_int("cleanup_keep_generations", self.cleanup_keep_generations, lo=0, hi=4)
        for name in (*GUARDS, "reduce_symmetry"):
            check_bool(name, getattr(self, name))
        check_int("max_states", self.max_states, lo=1, hi=3_000_000)


#: The protocol as it ran in October 2025 (no guards), at the issue's default bounds:
#: 3 Enactors, 4 plan generations, 1 endpoint, cleanup of plans more than 1 generation older.
INCIDENT = ExploreConfig()


@dataclass(frozen=True)
class ExploreSummary:
    """Headline figures of one check. Counts are exact; ``elapsed_s`` is wall-clock seconds.

    Attributes:
        states_count, transitions_count: distinct states reached, and steps explored (one per
            enabled actor step in each state).
        depth_count: the most steps any state needs from the start (breadth-first depth).
        elapsed_s, states_per_s: wall-clock time of the search and its speed.
        safe: no reachable state has an endpoint whose alias points at a deleted plan tree.
        recovers: every reachable state can still reach "newest plan applied on every endpoint".
        violating_states_count, stuck_states_count: states breaking safety, and states that can
            never recover.
        counterexample_steps_count, stuck_path_steps_count: lengths of the two shortest paths.
        empty_reachable, stale_overwrite_reachable, alert_reachable: whether some interleaving
            empties an endpoint, writes an older plan over a newer one, or makes guard 3 alert.
        reachable_actions: every step outcome seen, in the vocabulary of ``labsupport.race``'s
            ``action`` column, plus ``pick``, ``check_dropped`` and ``cleanup_done`` (steps the
            simulation takes without logging them).
    """

    states_count: int
    transitions_count: int
    depth_count: int
    elapsed_s: float
    states_per_s: float
    safe: bool
    recovers: bool
    violating_states_count: int
    stuck_states_count: int
    counterexample_steps_count: int
    stuck_path_steps_count: int
    empty_reachable: bool
    stale_overwrite_reachable: bool
    alert_reachable: bool
    reachable_actions: tuple[str, ...]


@dataclass(frozen=True)
class ExploreResult:
    """What :func:`run` found.

    Attributes:
        config: the checked config.
        summary: the headline figures.
        events: the shortest counterexample to safety, one row per step (empty if safe). Columns:
            ``step`` int64 (from 1), ``actor`` str, ``action`` str (``plan produced``, ``pick plan``,
            ``version check``, ``endpoint write``, ``cleanup delete``), ``race_action`` str (the
            step's outcome in ``labsupport.race``'s vocabulary), ``plan_generation`` int64,
            ``endpoint`` str ("" if none), ``outcome`` str, ``role`` str (``stale check``,
            ``stale overwrite``, ``active plan deleted`` or ""), ``aliases_after`` str,
            ``trees_after`` str and ``empty_after`` bool.
        stuck_path: the shortest path to a state from which the newest plan can never be applied
            everywhere, same columns (empty if every state recovers).
    """

    config: ExploreConfig
    summary: ExploreSummary
    events: pd.DataFrame
    stuck_path: pd.DataFrame



#: Earlier names of :class:`ExploreResult` and :class:`ExploreSummary` (named like
#: ``race.RaceResult`` / ``race.RaceSummary`` now); kept so that existing notebooks still run.
Result = ExploreResult
Summary = ExploreSummary

def _params(cfg: ExploreConfig) -> proto.Params:
    return proto.Params(**{f: getattr(cfg, f) for f in proto.Params._fields})


@dataclass
class _Graph:
    """The explored graph: states in breadth-first order, parent links, edges and what was seen."""

    states: list[tuple[int, ...]]
    parent: list[int]
    depth: list[int]
    src: np.ndarray
    dst: np.ndarray
    actions: set[str]
    first_bad: int
    canon: object
    stuck: np.ndarray
    bad: np.ndarray


def _search(cfg: ExploreConfig) -> _Graph:
    """Breadth-first search over canonical states, then reverse reachability for recovery."""
    if not isinstance(cfg, ExploreConfig):
        raise ConfigError(f"cfg must be an ExploreConfig, got {type(cfg).__name__}")
    t0 = time.perf_counter()
    p, endpoints, generations = _params(cfg), cfg.endpoint_count, cfg.generation_count
    base = 1 + 3 * endpoints
    canon = (lambda s: proto.canon(s, base)) if cfg.reduce_symmetry else (lambda s: s)
    states = [canon(proto.initial(cfg.enactor_count, endpoints))]
    index, parent, depth = {states[0]: 0}, [-1], [0]
    src, dst = array("l"), array("l")
    first_bad, actions, head = -1, set(), 0
    while head < len(states):
        for step in proto.successors(states[head], p):
            c = canon(step.state)
            j = index.get(c)
            if j is None:
                j = len(states)
                if j >= cfg.max_states:
                    raise LimitExceeded(
                        f"max_states={cfg.max_states} reached after {time.perf_counter() - t0:.1f} s: the "
                        f"state space of enactor_count={cfg.enactor_count}, generation_count={generations}, "
                        f"endpoint_count={endpoints} is larger. Lower a bound, or raise max_states (at most 3000000).")
                index[c] = j
                states.append(c)
                parent.append(head)
                depth.append(depth[head] + 1)
                if first_bad < 0 and proto.violates(c, endpoints):
                    first_bad = j
            src.append(head)
            dst.append(j)
            actions.add(step.race_action)
        head += 1
    n = len(states)
    src_a, dst_a = np.frombuffer(src, dtype=np.int_), np.frombuffer(dst, dtype=np.int_)
    goal = np.fromiter((proto.goal(s, endpoints, generations) for s in states), dtype=bool, count=n)
    stuck = np.flatnonzero(~_can_reach(goal, src_a, dst_a))
    bad = np.fromiter((proto.violates(s, endpoints) for s in states), dtype=bool, count=n)
    return _Graph(states, parent, depth, src_a, dst_a, actions, first_bad, canon, stuck, bad)


def run(cfg: ExploreConfig = INCIDENT) -> ExploreResult:
    """Search every interleaving of ``cfg``'s protocol; check safety and recovery.

    Safety: no endpoint's alias refers to a deleted plan tree (exactly when the endpoint answers
    with no records). Recovery: from every reachable state some path applies the newest plan
    (``generation_count``) on every endpoint; states without such a path are *stuck*, found by
    reverse reachability over the explored graph.

    Args:
        cfg: bounds and guards.

    Returns:
        A :class:`ExploreResult`; ``events`` is the shortest counterexample (breadth-first order).

    Raises:
        LimitExceeded: if more than ``cfg.max_states`` states are reachable.
        ConfigError: if ``cfg`` is not an ExploreConfig.
    """
    t0 = time.perf_counter()
    g = _search(cfg)
    n, stuck, actions = len(g.states), g.stuck, g.actions
    events = _path_table(cfg, g.states, g.parent, g.first_bad, g.canon)
    stuck_path = _path_table(cfg, g.states, g.parent, int(stuck[0]) if stuck.size else -1, g.canon)
    elapsed = time.perf_counter() - t0
    summary = ExploreSummary(
        states_count=n, transitions_count=len(g.src), depth_count=max(g.depth), elapsed_s=elapsed,
        states_per_s=n / elapsed if elapsed > 0 else float("inf"), safe=g.first_bad < 0,
        recovers=stuck.size == 0, violating_states_count=int(g.bad.sum()),
        stuck_states_count=int(stuck.size), counterexample_steps_count=len(events),
        stuck_path_steps_count=len(stuck_path), empty_reachable=bool(g.bad.any()),
        stale_overwrite_reachable="stale_write" in actions, alert_reachable="refused_empty" in actions,
        reachable_actions=tuple(sorted(actions)))
    return ExploreResult(config=cfg, summary=summary, events=events, stuck_path=stuck_path)


_PHASES = ("idle", "picked", "writing", "cleaning up")


def states_table(cfg: ExploreConfig = INCIDENT) -> pd.DataFrame:
    """Every reachable state of ``cfg`` as one row, so invariants can be written as pandas filters.

    Args:
        cfg: bounds and guards (with ``reduce_symmetry``, the Enactors of a row are unnamed).

    Returns:
        One row per state in breadth-first order. Columns: ``state_id``, ``depth`` (steps from
        the start), ``newest_plan`` (int64); per endpoint ``<name>_alias``, ``<name>_rollback``
        (int64, plan generations), ``<name>_trees`` (str, plans whose record tree exists, e.g.
        "1,2,4") and ``<name>_empty`` (bool); ``enactors`` (str, each Enactor's phase, plan and
        the plan it applied before); ``safe`` and ``can_recover`` (bool).

    Raises:
        LimitExceeded: if more than ``cfg.max_states`` states are reachable.
    """
    g = _search(cfg)
    endpoints = cfg.endpoint_count
    stuck = np.zeros(len(g.states), dtype=bool)
    stuck[g.stuck] = True
    cols: dict[str, object] = {"state_id": np.arange(len(g.states)), "depth": g.depth,
                               "newest_plan": [s[0] for s in g.states]}
    for k, name in enumerate(ENDPOINT_NAMES[:endpoints]):
        cols[f"{name}_alias"] = [s[1 + k] for s in g.states]
        cols[f"{name}_rollback"] = [s[1 + endpoints + k] for s in g.states]
        cols[f"{name}_trees"] = [",".join(str(p) for p in range(1, 7) if s[1 + 2 * endpoints + k] >> p & 1) for s in g.states]
        cols[f"{name}_empty"] = [not s[1 + 2 * endpoints + k] >> s[1 + k] & 1 for s in g.states]
    cols["enactors"] = ["; ".join(_describe(c) for c in s[1 + 3 * endpoints:]) for s in g.states]
    cols["safe"] = ~g.bad
    cols["can_recover"] = ~stuck
    ints = ["state_id", "depth", "newest_plan"] + [f"{n}_{r}" for n in ENDPOINT_NAMES[:endpoints] for r in ("alias", "rollback")]
    return pd.DataFrame(cols).astype({c: "int64" for c in ints})


def _describe(code: int) -> str:
    phase, plan, last = code & 3, code >> 2 & 7, code >> 9 & 7
    now = _PHASES[phase] + (f" plan {plan}" if phase else "")
    return f"{now} (applied {last} before)"


def _can_reach(goal: np.ndarray, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """States from which some path reaches a goal state: a fixpoint over the reversed edges."""
    reach = goal.copy()
    while True:
        grow = reach[dst] & ~reach[src]
        if not grow.any():
            return reach
        reach[src[grow]] = True


_DTYPES = {"step": "int64", "actor": str, "action": str, "race_action": str, "plan_generation": "int64",
           "endpoint": str, "outcome": str, "role": str, "aliases_after": str, "trees_after": str,
           "empty_after": bool}


def _path_table(cfg: ExploreConfig, states: list, parent: list[int], target: int, canon) -> pd.DataFrame:
    """Replay the breadth-first path to state ``target`` on concrete states, naming each actor."""
    chain = []
    while target > 0:
        chain.append(states[target])
        target = parent[target]
    p, endpoints = _params(cfg), cfg.endpoint_count
    cur, rows = proto.initial(cfg.enactor_count, endpoints), []
    for want in reversed(chain):
        step = next(t for t in proto.successors(cur, p) if canon(t.state) == want)
        cur = step.state
        trees = [", ".join(str(g) for g in range(1, 7) if cur[1 + 2 * endpoints + k] >> g & 1) for k in range(endpoints)]
        rows.append((len(rows) + 1, PLANNER if step.actor < 0 else ENACTOR_NAMES[step.actor], step.kind,
                     step.race_action, step.plan, ENDPOINT_NAMES[step.endpoint] if step.endpoint >= 0 else "",
                     step.outcome,
                     "; ".join(f"{ENDPOINT_NAMES[k]} -> {cur[1 + k]}" for k in range(endpoints)),
                     "; ".join(f"{ENDPOINT_NAMES[k]}: {trees[k]}" for k in range(endpoints)), proto.violates(cur, endpoints)))
    table = pd.DataFrame(rows, columns=[c for c in _DTYPES if c != "role"])
    table.insert(7, "role", _roles(table))
    return table.astype(_DTYPES)


def _roles(t: pd.DataFrame) -> list[str]:
    """Mark the October pattern in a path: the check that goes stale, the overwrite, the delete."""
    roles = [""] * len(t)
    for i, (actor, action) in enumerate(zip(t["actor"], t["race_action"])):
        if action == "stale_write":
            roles[i] = "stale overwrite"
            checks = [j for j in range(i) if t["actor"].iat[j] == actor and t["race_action"].iat[j] == "check"]
            if checks:
                roles[checks[-1]] = "stale check"
        elif action == "delete_active":
            roles[i] = "active plan deleted"
    return roles


def verdict_table(base: ExploreConfig = INCIDENT, *, executor: Executor | None = None) -> pd.DataFrame:
    """Check all 16 combinations of the four guards at ``base``'s bounds.

    Args:
        base: bounds (its guard flags are replaced).
        executor: an optional ``concurrent.futures.Executor``; ``None`` checks in this process.

    Returns:
        16 rows: no guard, each guard alone, then pairs, triples and all four (the order of
        ``labsupport.race.guard_table``). Columns: the four guard names (bool), ``guards`` str
        ("none", "1", "1+2", ...), ``safe``, ``recovers``, ``empty_reachable``,
        ``stale_overwrite_reachable``, ``alert_reachable`` (bool), ``states_count``,
        ``transitions_count``, ``counterexample_steps_count``, ``stuck_states_count`` (int64),
        ``elapsed_s`` (float64, wall clock).

    Raises:
        LimitExceeded: if one combination exceeds ``base.max_states``.
    """
    if not isinstance(base, ExploreConfig):
        raise ConfigError(f"base must be an ExploreConfig, got {type(base).__name__}")
    configs = [replace(base, **dict(zip(GUARDS, flags))) for flags in flag_combinations(len(GUARDS))]
    results = map_items(run, configs, executor)
    return verdict_rows(results)


def verdict_rows(results: Iterable[ExploreResult]) -> pd.DataFrame:
    """One row of :func:`verdict_table`'s shape per result, in the order given.

    Args:
        results: explorer results, e.g. from :func:`run`.

    Returns:
        The columns of :func:`verdict_table`.
    """
    rows = []
    for res in results:
        if not isinstance(res, ExploreResult):
            raise ConfigError(f"results must hold labsupport.explore.ExploreResult values, got {type(res).__name__}")
        flags, s = {g: getattr(res.config, g) for g in GUARDS}, res.summary
        rows.append({**flags, "guards": "+".join(str(k + 1) for k, g in enumerate(GUARDS) if flags[g]) or "none",
                     "safe": s.safe, "recovers": s.recovers, "empty_reachable": s.empty_reachable,
                     "stale_overwrite_reachable": s.stale_overwrite_reachable,
                     "alert_reachable": s.alert_reachable, "states_count": s.states_count,
                     "transitions_count": s.transitions_count,
                     "counterexample_steps_count": s.counterexample_steps_count,
                     "stuck_states_count": s.stuck_states_count, "elapsed_s": s.elapsed_s})
    ints = ("states_count", "transitions_count", "counterexample_steps_count", "stuck_states_count")
    return pd.DataFrame(rows).astype({**{c: "int64" for c in ints}, "elapsed_s": "float64"})


# --- replaying a counterexample in labsupport.race (glue only: the search above never uses race) ---

_REPLAY_INTERVAL_S = 30.0
#: Explorer steps that the simulation takes without logging an event of their own.
_NOT_LOGGED = ("pick", "check_dropped", "cleanup_done")


def race_replay_config(result: ExploreResult) -> RaceConfig:
    """Script ``result``'s counterexample as a :class:`labsupport.race.RaceConfig`.

    Timing is made deterministic (no jitter, lock TTL 0, 1 s transactions, plans every 30 s). The
    Enactor that overwrites (the stale one) polls just after its plan appears; the one that
    deletes the active plan polls just after its own, newer plan appears; the others never start.
    One injected lock loss, with a backoff computed from the schedule, holds the stale Enactor back
    until the other has written the endpoint and before its clean-up reaches it.

    Args:
        result: a :func:`run` result whose counterexample has the October shape (one stale
            overwrite on the first endpoint, then the deletion of that plan by another Enactor)
            and ``endpoint_count=2``: with one endpoint the simulation's lock leaves no gap
            between an Enactor's write and its clean-up for a one-second transaction to fit in.

    Returns:
        A ``labsupport.race.RaceConfig`` with the same guards and ``cleanup_keep_generations``.

    Raises:
        ConfigError: if the counterexample is empty or not of that shape, or ``cleanup_keep_generations`` is 0.
    """
    if not isinstance(result, ExploreResult):
        raise ConfigError(f"result must be a labsupport.explore.ExploreResult, got {type(result).__name__}")
    ev, cfg = result.events, result.config
    stale = ev.loc[ev["role"] == "stale overwrite"]
    killed = ev.loc[ev["role"] == "active plan deleted"]
    if stale.empty or killed.empty or cfg.endpoint_count != 2 or cfg.cleanup_keep_generations < 1:
        raise ConfigError("race_replay_config needs a counterexample with a stale overwrite and a deleted "
                          "active plan, endpoint_count=2 and cleanup_keep_generations >= 1")
    slow, fast = stale["actor"].iat[0], killed["actor"].iat[0]
    writes = ev.loc[(ev["actor"] == slow) & (ev["action"] == "endpoint write")]
    if slow == fast or writes["endpoint"].iat[0] != ENDPOINT_NAMES[0] or writes.index[0] != stale.index[0]:
        raise ConfigError("race_replay_config needs the stale overwrite to be the slow Enactor's first write")
    k = int(stale["plan_generation"].iat[0])
    p = int(ev.loc[(ev["actor"] == fast) & (ev["action"] == "version check"), "plan_generation"].iat[-1])
    t_slow, t_fast = _REPLAY_INTERVAL_S * (k - 1) + 1, _REPLAY_INTERVAL_S * (p - 1) + 1
    backoff = t_fast + 1.5 - t_slow  # the slow Enactor's lock attempt lands 0.5 s after the fast one's write
    names = race.enactor_names(cfg.enactor_count)
    offsets = tuple(t_slow if n == slow else t_fast if n == fast else 3600.0 for n in names)
    return race.RaceConfig(
        plan_interval_s=_REPLAY_INTERVAL_S, enactor_count=cfg.enactor_count, enactor_offsets_s=offsets,
        endpoints=ENDPOINT_NAMES[:2], regional_endpoint=ENDPOINT_NAMES[0], txn_latency_s=1.0,
        txn_jitter_fraction=0.0, lock_ttl_s=0.0, backoff_base_s=backoff, backoff_cap_s=backoff,
        backoff_jitter_fraction=0.0, cleanup_keep_generations=cfg.cleanup_keep_generations,
        delays=(race.EnactorDelay(enactor=slow, start_s=0.0, lock_losses_count=1, endpoints=(ENDPOINT_NAMES[0],)),),
        horizon_s=t_fast + 30.0, seed=0,
        guards=race.Guards(**{g: getattr(cfg, g) for g in GUARDS}))


def race_replay(result: ExploreResult) -> pd.DataFrame:
    """Run :func:`race_replay_config` in ``labsupport.race`` and find each counterexample step in it.

    Steps are matched per actor, in order. Picking a plan, a dropped check and the end of clean-up
    have no event of their own in the simulation (there, picking and the one-time check are one
    event), so they are left out. Independent steps of different actors
    may appear in another order in the simulation; each actor's own order must be the same.

    Args:
        result: as for :func:`race_replay_config`.

    Returns:
        The counterexample's logged steps, columns ``step``, ``actor``, ``race_action``,
        ``plan_generation``, ``endpoint`` (as in ``ExploreResult.events``), ``race_time_s`` (float64,
        seconds since the start at which the simulation did the same thing, NaN if it never did)
        and ``race_endpoint_empty_s`` (float64, when the simulated endpoint went empty, NaN if never;
        the same on every row).
    """
    sim = race.run(race_replay_config(result)).events
    steps = result.events.loc[~result.events["race_action"].isin(_NOT_LOGGED),
                              ["step", "actor", "race_action", "plan_generation", "endpoint"]].copy()
    done: dict[str, float] = {}
    times = []
    for actor, action, gen, endpoint in zip(steps["actor"], steps["race_action"], steps["plan_generation"],
                                            steps["endpoint"]):
        hit = sim.loc[(sim["actor"].astype(str) == actor) & (sim["action"].astype(str) == action)
                      & (sim["generation"] == gen) & (sim["endpoint"].fillna("").astype(str) == endpoint)
                      & (sim["time_s"] >= done.get(actor, 0.0))]
        times.append(float(hit["time_s"].iat[0]) if len(hit) else float("nan"))
        done[actor] = times[-1] if len(hit) else float("inf")
    empty = sim.loc[sim["action"].astype(str) == "endpoint_empty", "time_s"]
    return steps.assign(race_time_s=times, race_endpoint_empty_s=float(empty.iat[0]) if len(empty) else float("nan")
                        ).astype({"race_time_s": "float64", "race_endpoint_empty_s": "float64"}).reset_index(drop=True)
