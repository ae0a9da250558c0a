"""The checker's engine: the DNS Planner/Enactor transition system and the breadth-first search over it.

Scenario:
    The engine of :mod:`labsupport.explore` (use :func:`labsupport.explore.run`). A state is a
    flat tuple of small ints; :func:`successors` lists every atomic step enabled in it. The rules
    are those of :mod:`labsupport.race` and :mod:`labsupport.route53`, re-stated without a clock.
Covers:
    The PES's one-time check, per-endpoint Route 53 transactions and clean-up; DAT453's rollback
    record (AWS's later explanation).

::

    state = (newest plan,
             alias[e] ..., rollback[e] ...,           plan generation per endpoint
             trees[e] ...,                            bitmask of plan trees present per endpoint
             enactor[i] ...)                          phase | plan<<2 | endpoint<<5 | cursor<<6
                                                      | last applied<<9 | last failed<<12

    endpoint write on e (guards in labsupport.route53's order):
      guard 1 and alias >= plan        -> refused, next endpoint (a conditional_write strategy,
                                          if given, decides instead)
      alias tree missing               -> guard 4: rebuild newest plan; else rejected (stuck)
      alias == plan                    -> no-op, next endpoint
      otherwise                        -> build tree, rollback := alias, alias := plan
    cleanup (plan p): each tree g < p - keep on each endpoint, one deletion per step
      guard 2 and g is alias/rollback  -> kept;  guard 3 and g is alias -> refused (alert)
      (a cleanup_delete strategy, if given, decides instead: False -> kept)
    a student's step (enactor_step): enactor[i] = (phase, plan, applied before, replies so far);
      each step is one operation it yields, carried out by route53.HostedZone (labsupport.enactor)
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..enactor import StepReplayer, operate
from ..errors import ConfigError, LimitExceeded
from ..race import Guards
from ..route53 import Read
from ..strategy import DeleteRequest, RunBudget, WriteRequest, call_strategy
from .config import ExploreConfig

__all__ = [
    "ENACTOR_NAMES",
    "ENDPOINT_NAMES",
    "PLANNER",
    "Graph",
    "Params",
    "Step",
    "at_rest",
    "canon",
    "goal",
    "initial",
    "most_trees",
    "params",
    "rollback_dangles",
    "search",
    "successors",
    "violates",
]

#: Names as in labsupport.race (its Enactors and its first two endpoints).
ENACTOR_NAMES: tuple[str, ...] = ("enactor-a", "enactor-b", "enactor-c")
ENDPOINT_NAMES: tuple[str, ...] = ("regional", "ipv6")
PLANNER = "planner"

# Enactor local state packed in one int (sortable, so symmetric states compare equal):
# phase | plan << 2 | endpoint << 5 | cleanup cursor << 6 | last applied << 9 | last failed << 12.
IDLE, PICKED, WRITING, CLEANUP = 0, 1, 2, 3
STEPPING = WRITING  # an Enactor in the middle of a student's step: (STEPPING, plan, applied before, replies)
_M = 7  # three bits per generation field


class Params(NamedTuple):
    """The bounds and guards the steps depend on (``explore.ExploreConfig``'s)."""

    endpoint_count: int
    generation_count: int
    cleanup_keep_generations: int
    #: The four guards: :class:`labsupport.race.Guards`, the course's one guards type.
    guards: Guards
    #: (endpoint index, active plan, new plan) -> may the write commit; None: guard 1's rule.
    write_allowed: Callable[[int, int, int], bool] | None = None
    #: (endpoint index, plan, active plan, rollback plan, applied plan) -> may the tree be deleted;
    #: None: guards 2 and 3's rules.
    delete_allowed: Callable[[int, int, int, int, int], bool] | None = None
    #: A student's Enactor step (``ExploreConfig.enactor_step``), replayed; None: the built-in steps.
    step: StepReplayer | None = None


class Step(NamedTuple):
    """One atomic step enabled in a state, and the state it leads to."""

    actor: int  # Enactor index, or -1 for the DNS Planner
    kind: str  # plan produced, pick plan, version check, endpoint write, cleanup delete
    race_action: str  # the outcome in labsupport.race's ``action`` vocabulary
    plan: int  # plan generation concerned
    endpoint: int  # endpoint index, or -1 if none
    outcome: str  # one sentence
    state: tuple[Any, ...]
    operation: str = ""  # a student's step: the operation as it yielded it, "write('regional', 2)"
    reply: str = ""  # a student's step: what the operation gave back, "True"


def initial(enactor_count: int, endpoint_count: int, stepping: bool = False) -> tuple[Any, ...]:
    """(newest plan, alias per endpoint, rollback per endpoint, trees per endpoint, Enactors).

    With ``stepping`` (a student's step), each Enactor is ``(phase, plan, applied before, replies)``.
    """
    # Plan 1 exists and is applied everywhere (alias and rollback -> 1, as in labsupport.race);
    # every Enactor is idle and remembers plan 1 as the plan it applied before.
    e = endpoint_count
    enactor = (IDLE, 0, 1, ()) if stepping else 1 << 9
    return (1,) + (1,) * e + (1,) * e + (1 << 1,) * e + (enactor,) * enactor_count


def _enactor(phase: int, plan: int, ep: int, cur: int, last: int, failed: int) -> int:
    return phase | plan << 2 | ep << 5 | cur << 6 | last << 9 | failed << 12


def _cursor(s: tuple[int, ...], endpoints: int, ep: int, g: int, cutoff: int) -> tuple[int, int] | None:
    """First (endpoint, plan) at or after (ep, g) whose tree exists and is older than ``cutoff``."""
    while ep < endpoints:
        trees = s[1 + 2 * endpoints + ep]
        while g < cutoff:
            if trees >> g & 1:
                return ep, g
            g += 1
        ep, g = ep + 1, 1
    return None


def _after_write(s: tuple, endpoints: int, k: int, plan: int, last: int, failed: int, keep: int) -> int:
    """Enactor code after its write on endpoint ``k``: next endpoint, else cleanup, else idle."""
    if k + 1 < endpoints:
        return _enactor(WRITING, plan, k + 1, 0, last, failed)
    nxt = _cursor(s, endpoints, 0, 1, plan - keep)  # the walk is done: this plan is now "applied before"
    return _enactor(CLEANUP, plan, nxt[0], nxt[1], plan, failed) if nxt else _enactor(IDLE, 0, 0, 0, plan, failed)


def successors(s: tuple[int, ...], p: Params) -> list[Step]:
    """Every atomic step enabled in concrete state ``s``, in a fixed order.

    A step's ``race_action`` uses ``labsupport.race``'s vocabulary, plus ``pick``,
    ``check_dropped`` and ``cleanup_done``, three steps the simulation does without logging an event.
    """
    endpoints, generations = p.endpoint_count, p.generation_count
    produced, base = s[0], 1 + 3 * endpoints
    out: list[Step] = []
    if produced < generations:
        out.append(
            Step(-1, "plan produced", "plan_created", produced + 1, -1, "new newest plan", (produced + 1, *s[1:]))
        )
    if p.step is not None:
        return out + [t for i in range(len(s) - base) for t in _stepping(s, p, base + i, i)]
    for i in range(len(s) - base):
        at = base + i
        code = s[at]
        phase, plan, last, failed = code & 3, code >> 2 & _M, code >> 9 & _M, code >> 12 & _M
        if phase == IDLE:
            if produced > last:
                new = _enactor(PICKED, produced, 0, 0, last, failed)
                out.append(
                    Step(i, "pick plan", "pick", produced, -1, "took the newest plan", (*s[:at], new, *s[at + 1 :]))
                )
        elif phase == PICKED:  # the one-time check, against the plan this Enactor applied before
            if plan > last and plan != failed:
                new, action = _enactor(WRITING, plan, 0, 0, last, failed), "check"
                what = f"newer than plan {last}, applied before: go"
            else:
                new, action = _enactor(IDLE, 0, 0, 0, last, failed), "check_dropped"
                what = f"plan {plan} failed before: dropped"
            out.append(Step(i, "version check", action, plan, -1, what, (*s[:at], new, *s[at + 1 :])))
        elif phase == WRITING:
            out.append(Step(i, "endpoint write", *_write(s, p, at, code)))
        else:
            out.append(Step(i, "cleanup delete", *_cleanup(s, p, at, code)))
    return out


def _write(s: tuple[int, ...], p: Params, at: int, code: int) -> tuple:
    """One Route 53 transaction of the Enactor at ``at`` on its current endpoint."""
    endpoints, keep = p.endpoint_count, p.cleanup_keep_generations
    plan, ep, last, failed = code >> 2 & _M, code >> 5 & 1, code >> 9 & _M, code >> 12 & _M
    alias_at, rollback_at, trees_at = 1 + ep, 1 + endpoints + ep, 1 + 2 * endpoints + ep  # this endpoint's
    t, a, trees, newest, g = list(s), s[alias_at], s[trees_at], s[0], p.guards
    if not p.write_allowed(ep, a, plan) if p.write_allowed is not None else g.check_version_on_write and a >= plan:
        action, what = "write_refused", f"conditional write refused: endpoint on plan {a}"
        t[at] = _after_write(s, endpoints, ep, plan, last, failed, keep)
    elif not trees >> a & 1:  # the rollback record cannot point at the missing active plan
        if g.self_repair:
            t[alias_at], t[rollback_at], t[trees_at] = newest, newest, trees | 1 << newest
            action, what = "self_repair", f"active plan {a} missing: rebuilt newest plan {newest}"
            t[at] = _after_write(s, endpoints, ep, plan, last, failed, keep)
        else:
            action, what = "inconsistent", f"rejected: rollback cannot point at deleted plan {a}"
            t[at] = _enactor(IDLE, 0, 0, 0, last, plan)
    elif a == plan:
        action, what = "write_noop", f"plan {plan} already active"
        t[at] = _after_write(s, endpoints, ep, plan, last, failed, keep)
    else:
        t[alias_at], t[rollback_at], t[trees_at] = plan, a, trees | 1 << plan
        action = "stale_write" if plan < a else "write"
        what = f"overwrote newer plan {a}" if plan < a else f"replaced plan {a}"
        t[at] = _after_write(tuple(t), endpoints, ep, plan, last, failed, keep)
    return action, plan, ep, what, tuple(t)


def _cleanup(s: tuple[int, ...], p: Params, at: int, code: int) -> tuple:
    """One clean-up deletion (or the end of clean-up) of the Enactor at ``at``."""
    endpoints, keep = p.endpoint_count, p.cleanup_keep_generations
    plan, ep, cur, last, failed = code >> 2 & _M, code >> 5 & 1, code >> 6 & _M, code >> 9 & _M, code >> 12 & _M
    nxt = _cursor(s, endpoints, ep, cur, plan - keep)
    if nxt is None:  # another Enactor deleted what was left
        return "cleanup_done", 0, -1, "nothing left to delete", _put(s, at, _enactor(IDLE, 0, 0, 0, last, failed))
    k, g = nxt
    t = list(s)
    active = s[1 + k] == g
    # A cleanup_delete strategy replaces guards 2 and 3 (the config refuses both at once).
    if p.delete_allowed is not None and not p.delete_allowed(k, g, s[1 + k], s[1 + endpoints + k], plan):
        action, what = "delete_skipped", f"kept plan {g}: cleanup_delete kept it"
    elif p.guards.delete_only_unreferenced and (active or s[1 + endpoints + k] == g):
        action, what = "delete_skipped", f"kept plan {g}: still referenced"
    elif p.guards.reject_empty_records and active:
        action, what = "refused_empty", f"refused: deleting plan {g} would empty the endpoint (alert)"
    else:
        t[1 + 2 * endpoints + k] &= ~(1 << g)
        action = "delete_active" if active else "delete"
        what = f"deleted plan {g}, the ACTIVE plan: endpoint empty" if active else f"deleted plan {g}"
    after = _cursor(tuple(t), endpoints, k, g + 1, plan - keep)
    t[at] = (
        _enactor(CLEANUP, plan, after[0], after[1], last, failed) if after else _enactor(IDLE, 0, 0, 0, last, failed)
    )
    return action, g, k, what, tuple(t)


def _put(s: tuple[Any, ...], at: int, enactor: Any) -> tuple[Any, ...]:
    """``s`` with the Enactor at ``at`` replaced."""
    return (*s[:at], enactor, *s[at + 1 :])


def _stepping(s: tuple[Any, ...], p: Params, at: int, i: int) -> list[Step]:
    """The step enabled for the Enactor at ``at`` that runs a student's step (``p.step``), if any.

    Pick and check as in the built-in protocol; then one :mod:`labsupport.enactor` operation per
    step, carried out with :class:`~labsupport.route53.HostedZone`'s rules; the Enactor is idle
    again, with ``plan`` applied before, once its step returns.
    """
    assert p.step is not None
    phase, plan, last, replies = s[at]
    if phase == IDLE:
        new = (PICKED, s[0], last, ())
        return [Step(i, "pick plan", "pick", s[0], -1, "took the newest plan", _put(s, at, new))] if s[0] > last else []
    if phase == PICKED:  # the one-time check; the step begins at once (its first operation is known)
        new = (STEPPING, plan, last, ()) if p.step.next_op(plan, ()) is not None else (IDLE, 0, plan, ())
        what = f"newer than plan {last}, applied before: go"
        return [Step(i, "version check", "check", plan, -1, what, _put(s, at, new))]
    e, op = p.endpoint_count, p.step.next_op(plan, replies)
    assert op is not None  # an Enactor whose step returned is idle
    k = p.step.check_target(op, s[0])
    done, t = operate(op, ENDPOINT_NAMES[k], (s[1 + k], s[1 + e + k], s[1 + 2 * e + k])), list(s)
    t[1 + k], t[1 + e + k], t[1 + 2 * e + k] = done.zone
    replies = (*replies, done.reply)
    t[at] = (STEPPING, plan, last, replies) if p.step.next_op(plan, replies) is not None else (IDLE, 0, plan, ())
    what, plan_of = type(op).__name__.lower(), 0 if isinstance(op, Read) else op.plan
    return [Step(i, what, done.race_action, plan_of, k, done.detail, tuple(t), str(op), done.reply_text)]


def canon(s: tuple[int, ...], base: int) -> tuple[int, ...]:
    """The state with its Enactors sorted: Enactors run the same code, so which is which is irrelevant."""
    return s[:base] + tuple(sorted(s[base:]))


def violates(s: tuple[int, ...], endpoints: int) -> bool:
    """Safety is broken: some endpoint's alias points at a tree that no longer exists (empty)."""
    return any(not s[1 + 2 * endpoints + k] >> s[1 + k] & 1 for k in range(endpoints))


def rollback_dangles(s: tuple[int, ...], endpoints: int) -> bool:
    """Some endpoint's rollback record points at a tree that no longer exists (a rollback would empty it)."""
    return any(not s[1 + 2 * endpoints + k] >> s[1 + endpoints + k] & 1 for k in range(endpoints))


def most_trees(s: tuple[int, ...], endpoints: int) -> int:
    """The most plan trees any one endpoint holds."""
    return max(bin(s[1 + 2 * endpoints + k]).count("1") for k in range(endpoints))


def at_rest(s: tuple[int, ...], endpoints: int, generations: int) -> bool:
    """The newest possible plan is applied everywhere (:func:`goal`) and every Enactor is idle."""
    return goal(s, endpoints, generations) and all(
        (c[0] if isinstance(c, tuple) else c & 3) == IDLE for c in s[1 + 3 * endpoints :]
    )


def goal(s: tuple[int, ...], endpoints: int, generations: int) -> bool:
    """The newest possible plan is made and applied on every endpoint."""
    return s[0] == generations and all(
        s[1 + k] == generations and s[1 + 2 * endpoints + k] >> generations & 1 for k in range(endpoints)
    )


# -- the search ------------------------------------------------------------------------------
def params(cfg: ExploreConfig) -> Params:
    """The bounds and guards of ``cfg`` as the steps read them, its strategies memoised, its step replayed."""
    e, keep, fn = cfg.endpoint_count, cfg.cleanup_keep_generations, cfg.enactor_step
    step = None if fn is None else StepReplayer("enactor_step", fn, ENDPOINT_NAMES[:e], keep, RunBudget())
    write, delete = (_memoised(f, getattr(cfg, f), r) for f, r in _STRATEGIES)
    return Params(e, cfg.generation_count, keep, cfg.guards, write, delete, step)


_STRATEGIES = (("conditional_write", WriteRequest), ("cleanup_delete", DeleteRequest))


def _memoised(name: str, strategy: Callable | None, request: type) -> Callable[..., bool] | None:
    """The config's strategy ``name`` asked once per request (endpoint index, then the request's numbers), or None."""
    if strategy is None:
        return None
    memo: dict[tuple[int, ...], bool] = {}

    def allowed(ep: int, *numbers: int) -> bool:
        key = (ep, *numbers)
        if key not in memo:
            memo[key] = call_strategy(name, strategy, request(ENDPOINT_NAMES[ep], *numbers))
        return memo[key]

    return allowed


@dataclass
class Graph:
    """The explored graph: states in breadth-first order, parent links, edges and what was seen, and
    the :class:`Params` the search stepped with (their strategies' answers memoised)."""

    states: list[tuple[int, ...]]
    parent: list[int]
    depth: list[int]
    src: np.ndarray
    dst: np.ndarray
    actions: set[str]
    first_bad: int
    canon: Callable[[tuple[int, ...]], tuple[int, ...]]
    stuck: np.ndarray
    bad: np.ndarray
    params: Params  # the steps' rules, with the strategies' memoised answers


def search(cfg: ExploreConfig) -> Graph:
    """Breadth-first search over canonical states, then reverse reachability for recovery."""
    if not isinstance(cfg, ExploreConfig):
        raise ConfigError(f"cfg must be an ExploreConfig, got {type(cfg).__name__}")
    p, endpoints, generations = params(cfg), cfg.endpoint_count, cfg.generation_count
    key = (lambda s: canon(s, 1 + 3 * endpoints)) if cfg.reduce_symmetry else (lambda s: s)
    states = [key(initial(cfg.enactor_count, endpoints, cfg.enactor_step is not None))]
    index, parent, depth = {states[0]: 0}, [-1], [0]
    src, dst = array("l"), array("l")
    actions, head = set(), 0
    while head < len(states):
        for step in successors(states[head], p):
            c = key(step.state)
            j = index.get(c)
            if j is None:
                j = len(states)
                if j >= cfg.max_states:
                    raise LimitExceeded(
                        f"max_states={cfg.max_states} reached in the search: the "
                        f"state space of enactor_count={cfg.enactor_count}, generation_count={generations}, "
                        f"endpoint_count={endpoints} is larger. Lower a bound, or raise max_states (at most 3000000)."
                    )
                index[c] = j
                states.append(c)
                parent.append(head)
                depth.append(depth[head] + 1)
            src.append(head)
            dst.append(j)
            actions.add(step.race_action)
        head += 1
    src_a, dst_a = np.frombuffer(src, dtype=np.int_), np.frombuffer(dst, dtype=np.int_)
    done = np.fromiter((goal(s, endpoints, generations) for s in states), dtype=bool, count=len(states))
    stuck = np.flatnonzero(~_can_reach(done, src_a, dst_a))
    bad = np.fromiter((violates(s, endpoints) for s in states), dtype=bool, count=len(states))
    first_bad = int(np.argmax(bad)) if bad.any() else -1  # breadth-first order: the closest to the start
    return Graph(states, parent, depth, src_a, dst_a, actions, first_bad, key, stuck, bad, p)


def _can_reach(goal: np.ndarray, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """States from which some path reaches a goal state: a fixpoint over the reversed edges."""
    reach = goal.copy()
    while True:
        grow = reach[dst] & ~reach[src]
        if not grow.any():
            return reach
        reach[src[grow]] = True
