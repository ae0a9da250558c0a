"""One check: :func:`run`, its result and summary, and :func:`states_table` (the search is in ``engine``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd

from . import engine as proto
from .config import INCIDENT, ExploreConfig
from .engine import ENACTOR_NAMES, ENDPOINT_NAMES, PLANNER

__all__ = ["ExploreResult", "ExploreSummary", "run", "states_table"]


@dataclass(frozen=True)
class ExploreSummary:
    """Headline figures of one check: exact counts and verdicts, a function of the config alone.

    How long a check takes is the machine's, not the model's: ``benchmarks/bench_explore.py``
    measures it (``python benchmarks/run.py explore``).

    Attributes:
        states_count, transitions_count: distinct states reached, and steps explored (one per
            enabled actor step in each state).
        depth_count: the most steps any state needs from the start (breadth-first depth).
        safe: no reachable state has an endpoint whose alias points at a deleted plan tree.
        recovers: every reachable state can still reach "newest plan applied on every endpoint".
        cleans: clean-up still cleans: in no state at rest (the newest plan applied on every
            endpoint, every Enactor idle) does an endpoint keep a plan tree more than
            ``cleanup_keep_generations`` older than the newest plan that neither its alias nor its
            rollback record refers to.
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
    safe: bool
    recovers: bool
    cleans: bool
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
            ``version check``, then ``endpoint write`` and ``cleanup delete``, or for a student's
            step its operations ``read``, ``write`` and ``delete``), ``race_action`` str (the
            step's outcome in ``labsupport.race``'s vocabulary), ``plan_generation`` int64 (0 for
            a read), ``endpoint`` str ("" if none), ``outcome`` str, ``role`` str (``stale check``:
            the check or read that the stale overwrite relied on; ``stale overwrite``, ``active
            plan deleted`` or ""), ``aliases_after`` str, ``trees_after`` str, ``empty_after``
            bool, ``operation`` str (a student's operation as it yielded it, ``write('regional',
            2)``; "" for the built-in protocol) and ``reply`` str (what it got back: ``True``, or a
            read's "alias 2, rollback 1, trees 1,2"; "" for the built-in protocol).
        stuck_path: the shortest path to a state from which the newest plan can never be applied
            everywhere, same columns (empty if every state recovers).
    """

    config: ExploreConfig
    summary: ExploreSummary
    events: pd.DataFrame
    stuck_path: pd.DataFrame


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
    g = proto.search(cfg)
    n, stuck, actions = len(g.states), g.stuck, g.actions
    events = _path_table(cfg, g, g.first_bad)
    stuck_path = _path_table(cfg, g, int(stuck[0]) if stuck.size else -1)
    summary = ExploreSummary(
        states_count=n,
        transitions_count=len(g.src),
        depth_count=max(g.depth),
        safe=g.first_bad < 0,
        recovers=stuck.size == 0,
        cleans=not any(_unclean(s, cfg) for s in g.states),
        violating_states_count=int(g.bad.sum()),
        stuck_states_count=int(stuck.size),
        counterexample_steps_count=len(events),
        stuck_path_steps_count=len(stuck_path),
        empty_reachable=bool(g.bad.any()),
        stale_overwrite_reachable="stale_write" in actions,
        alert_reachable="refused_empty" in actions,
        reachable_actions=tuple(sorted(actions)),
    )
    return ExploreResult(config=cfg, summary=summary, events=events, stuck_path=stuck_path)


def _unclean(s: tuple, cfg: ExploreConfig) -> bool:
    """At rest, some endpoint keeps an unreferenced tree of a plan more than ``keep`` older than the newest."""
    e, generations = cfg.endpoint_count, cfg.generation_count
    if not proto.at_rest(s, e, generations):
        return False
    old = (1 << max(generations - cfg.cleanup_keep_generations, 0)) - 1  # bits of plans g < newest - keep
    return any(s[1 + 2 * e + k] & old & ~(1 << s[1 + k]) & ~(1 << s[1 + e + k]) for k in range(e))


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
    g = proto.search(cfg)
    endpoints = cfg.endpoint_count
    stuck = np.zeros(len(g.states), dtype=bool)
    stuck[g.stuck] = True
    cols: dict[str, object] = {
        "state_id": np.arange(len(g.states)),
        "depth": g.depth,
        "newest_plan": [s[0] for s in g.states],
    }
    for k, name in enumerate(ENDPOINT_NAMES[:endpoints]):
        cols[f"{name}_alias"] = [s[1 + k] for s in g.states]
        cols[f"{name}_rollback"] = [s[1 + endpoints + k] for s in g.states]
        cols[f"{name}_trees"] = [
            ",".join(str(p) for p in range(1, 7) if s[1 + 2 * endpoints + k] >> p & 1) for s in g.states
        ]
        cols[f"{name}_empty"] = [not s[1 + 2 * endpoints + k] >> s[1 + k] & 1 for s in g.states]
    cols["enactors"] = ["; ".join(_describe(c) for c in s[1 + 3 * endpoints :]) for s in g.states]
    cols["safe"] = ~g.bad
    cols["can_recover"] = ~stuck
    ints = ["state_id", "depth", "newest_plan"] + [
        f"{n}_{r}" for n in ENDPOINT_NAMES[:endpoints] for r in ("alias", "rollback")
    ]
    return pd.DataFrame(cols).astype({c: "int64" for c in ints})


def _describe(code: int | tuple) -> str:
    if isinstance(code, tuple):  # an Enactor running a student's step: (phase, plan, last, replies)
        phase, plan, last, replies = code
        now = ("idle", "picked", f"{len(replies)} operations into its step on")[phase]
    else:
        phase, plan, last = code & 3, code >> 2 & 7, code >> 9 & 7
        now = _PHASES[phase]
    return f"{now}{f' plan {plan}' if phase else ''} (applied {last} before)"


_DTYPES: dict[str, Any] = {
    "step": "int64",
    "actor": str,
    "action": str,
    "race_action": str,
    "plan_generation": "int64",
    "endpoint": str,
    "outcome": str,
    "role": str,
    "aliases_after": str,
    "trees_after": str,
    "empty_after": bool,
    "operation": str,
    "reply": str,
}


def _path_table(cfg: ExploreConfig, g: proto.Graph, target: int) -> pd.DataFrame:
    """Replay the breadth-first path to state ``target`` on concrete states, naming each actor.

    The replay takes the search's own :class:`~labsupport.explore.engine.Params`, so a strategy is
    not asked again: its answers during the search are the ones the path follows.
    """
    states, parent, canon = g.states, g.parent, g.canon
    chain = []
    while target > 0:
        chain.append(states[target])
        target = parent[target]
    p, endpoints = g.params, cfg.endpoint_count
    cur, rows = proto.initial(cfg.enactor_count, endpoints, p.step is not None), cast(list[tuple[Any, ...]], [])
    for want in reversed(chain):
        step = next(t for t in proto.successors(cur, p) if canon(t.state) == want)
        cur = step.state
        trees = [
            ", ".join(str(g) for g in range(1, 7) if cur[1 + 2 * endpoints + k] >> g & 1) for k in range(endpoints)
        ]
        rows.append(
            (
                len(rows) + 1,
                PLANNER if step.actor < 0 else ENACTOR_NAMES[step.actor],
                step.kind,
                step.race_action,
                step.plan,
                ENDPOINT_NAMES[step.endpoint] if step.endpoint >= 0 else "",
                step.outcome,
                "; ".join(f"{ENDPOINT_NAMES[k]} -> {cur[1 + k]}" for k in range(endpoints)),
                "; ".join(f"{ENDPOINT_NAMES[k]}: {trees[k]}" for k in range(endpoints)),
                proto.violates(cur, endpoints),
                step.operation,
                step.reply,
            )
        )
    table = pd.DataFrame(rows, columns=[c for c in _DTYPES if c != "role"])
    table.insert(7, "role", _roles(table))
    return table.astype(_DTYPES)


def _roles(t: pd.DataFrame) -> list[str]:
    """Mark the October pattern in a path: the check that goes stale, the overwrite, the delete.

    The stale check is the overwriting Enactor's last look before it wrote: its one-time check, or
    a later read of the same endpoint in a student's step.
    """
    roles = [""] * len(t)
    rows = list(zip(t["actor"], t["race_action"], t["endpoint"], strict=True))
    for i, (actor, action, endpoint) in enumerate(rows):
        if action == "stale_write":
            roles[i] = "stale overwrite"
            looks = [
                j
                for j, (a, r, e) in enumerate(rows[:i])
                if a == actor and (r == "check" or (r, e) == ("read", endpoint))
            ]
            if looks:
                roles[looks[-1]] = "stale check"
        elif action == "delete_active":
            roles[i] = "active plan deleted"
    return roles
