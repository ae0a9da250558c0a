"""A DNS Enactor's apply-and-clean-up step written by a student, and how both engines run it.

Scenario:
    A DNS Enactor picks the newest plan and makes its one-time check that the plan is newer than
    the one it applied before. Then comes the *step*: apply the plan to every endpoint and clean up
    old plans. Here the step is a generator function that a student writes. Each ``yield`` hands
    the engine one operation on one endpoint's hosted zone (the vocabulary of
    :mod:`labsupport.route53`: ``read``, ``write``, ``delete``), which the engine carries out
    atomically before it sends the reply back. Between two operations the other Enactors and the
    DNS Planner may act. The race simulation (:mod:`labsupport.race`) lets its clock decide the
    order; the model checker (:mod:`labsupport.explore`) tries every order. A generator cannot be
    copied, so the checker re-runs the step from its start along the replies it got, as stateless
    model checkers such as CHESS replay a schedule's prefix (:class:`StepReplayer`).
Covers:
    The PES's DNS Enactor: the one-time check, one Route 53 transaction per endpoint, the clean-up
    of plans "significantly older" than the one just applied, and the inconsistent state; the
    rollback record every write moves is from AWS's re:Invent talk DAT453.

::

    engine                                          the student's step
      pick the newest plan, one-time check
      gen = step(plan, endpoints, keep,             def step(plan, endpoints, keep, read, write, delete):
                 read, write, delete)
      next(gen)                            <------      zone = yield read("regional")
      HostedZone.view(), atomically        ------>      (a ZoneView: alias, rollback, trees)
      gen.send(zone)                       <------      ok = yield write("regional", plan, expect=zone)
      HostedZone.perform(), atomically     ------>      (True: the batch committed)
      ...                                  <------      return: this Enactor now counts plan as applied

The contract. ``step(plan, endpoints, keep, read, write, delete)``: ``plan`` (int) is the plan
generation this Enactor picked, ``endpoints`` (tuple of str) the endpoints in the order it walks
them, ``keep`` (int) the config's ``cleanup_keep_generations``, and ``read``, ``write`` and
``delete`` the constructors of :class:`~labsupport.route53.Read`, :class:`~labsupport.route53.Write`
and :class:`~labsupport.route53.Delete`. It is a generator function that uses only its arguments
and plain Python (no imports, no state kept from one call to the next, no randomness), so that
RestrictedPython can compile it for grading and the checker can replay it: the same replies must
give the same operations. Each resumption may take :data:`~labsupport.strategy.STEP_BUDGET`
steps (Python lines and instructions; the calls of one run share its
:class:`~labsupport.strategy.RunBudget`), and one step at most :data:`OPERATION_BUDGET` operations.

Errors: a step that raises, yields anything but an operation, names an endpoint the run does not
have, writes a plan the DNS Planner has not made, or yields other operations when replayed raises
:class:`~labsupport.errors.ConfigError` naming the config field and the function; one that takes
too many steps or operations raises :class:`~labsupport.errors.StrategyTimeout` (a ConfigError).
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import NoReturn

from . import route53 as r53
from .errors import ConfigError, StrategyTimeout
from .route53 import Delete, HostedZone, Read, Write, ZoneView
from .strategy import STEP_BUDGET, RunBudget, bounded_call, strategy_name

__all__ = [
    "OPERATION_BUDGET",
    "Operated",
    "STEP_ARGUMENTS",
    "StepCall",
    "StepFunction",
    "StepReplayer",
    "check_alone",
    "check_step",
    "check_target",
    "incident_step",
    "operate",
    "race_action",
]

#: The arguments of a step, in order.
STEP_ARGUMENTS = ("plan", "endpoints", "keep", "read", "write", "delete")

#: Operations one step may yield before it is stopped. The incident's step over the race's five
#: endpoints yields about 15 (five writes, five reads, the deletions); the budget leaves room for
#: retries, not for a loop that waits for another Enactor.
OPERATION_BUDGET = 100

Operation = Read | Write | Delete
Reply = ZoneView | bool
#: A step as the engines call it (see the module docstring).
StepFunction = Callable[..., Generator[Operation, Reply | None, object]]


def incident_step(plan, endpoints, keep, read, write, delete):
    """The Enactor's step as it ran in October 2025: blind writes, then a clean-up by age alone.

    Every endpoint gets one unconditional write of ``plan`` (a rejected batch, the inconsistent
    state, ends the step, as in the built-in Enactor); then, endpoint by endpoint, every plan tree
    more than ``keep`` generations older than ``plan`` is deleted, whatever still refers to it.
    The PES: the clean-up deletes plans "significantly older" than the one just applied.
    """
    for endpoint in endpoints:
        committed = yield write(endpoint, plan)
        if not committed:
            return
    for endpoint in endpoints:
        zone = yield read(endpoint)
        for old in zone.trees:
            if old < plan - keep:
                yield delete(endpoint, old)


def check_step(name: str, fn: object) -> None:
    """Raise ConfigError unless ``fn`` is None or a generator function taking the six step arguments.

    Args:
        name: the config field, for the message (``"enactor_step"``).
        fn: the step.

    Raises:
        ConfigError: ``fn`` is not a generator function (a function with ``yield`` in it), or
            cannot be called with :data:`STEP_ARGUMENTS`.
    """
    if fn is None:
        return
    if not inspect.isgeneratorfunction(fn):
        what = f"function {strategy_name(fn)} has no yield" if inspect.isfunction(fn) else type(fn).__name__
        raise ConfigError(
            f"{name} must be None or a generator function that yields one operation at a time "
            f"(read, write or delete), got {what}"
        )
    try:
        inspect.signature(fn).bind(*STEP_ARGUMENTS)
    except TypeError as exc:
        raise ConfigError(
            f"{name} must take the six arguments ({', '.join(STEP_ARGUMENTS)}), {strategy_name(fn)} does not: {exc}"
        ) from None


def check_alone(step: object, guards: str, **strategies: object) -> None:
    """Raise ConfigError if a step comes with guards on or with a strategy for the same code.

    A step replaces the Enactor's code after the one-time check: its writes, its clean-up and
    any repair. The guards and the write and delete strategies change that code, so they cannot
    be combined with a step: the student writes them into it.

    Args:
        step: the config's ``enactor_step`` (nothing is checked if it is None).
        guards: the label of the guards that are on (``Guards.label()``: ``"none"``, ``"1+3"``).
        strategies: the config's other strategy fields, by name.

    Raises:
        ConfigError: naming the guards or the strategies to turn off.
    """
    if step is None:
        return
    if guards != "none":
        raise ConfigError(
            f"enactor_step replaces the Enactor's writes, clean-up and repair, and with them guards {guards}: "
            "turn every guard off (write what they do into the step)"
        )
    on = [name for name, fn in strategies.items() if fn is not None]
    if on:
        raise ConfigError(f"enactor_step replaces the Enactor's writes and clean-up: leave {' and '.join(on)} None")


_DONE = object()


class StepCall:
    """One call of a step: its generator, resumed one operation at a time within the budgets.

    Args:
        name: the config field the step came from (``"enactor_step"``), for messages.
        fn: the step (checked by :func:`check_step`).
        plan: the plan generation the Enactor picked.
        endpoints: the endpoints in walk order.
        keep: the config's ``cleanup_keep_generations``.
        run_budget: the run's shared step budget.
    """

    def __init__(
        self, name: str, fn: StepFunction, plan: int, endpoints: tuple[str, ...], keep: int, run_budget: RunBudget
    ) -> None:
        self.who, self.plan, self.run_budget = f"{name}={strategy_name(fn)}", plan, run_budget
        self.done: list[Operation] = []
        # Calling a generator function runs none of its code: the first resumption does.
        self.gen = fn(plan, endpoints, keep, Read, Write, Delete)

    def advance(self, reply: Reply | None = None) -> Operation | None:
        """Send ``reply`` to the step (``None`` to start it); return its next operation, or None once it returned.

        Raises:
            ConfigError: the step raised or yielded something that is not an operation.
            StrategyTimeout: a resumption took more than ``STEP_BUDGET`` steps, the run more than its
                budget, or the step more than :data:`OPERATION_BUDGET` operations.
        """
        gen = self.gen

        def resume() -> object:
            try:
                return gen.send(reply)
            except StopIteration:
                return _DONE

        where = f"plan {self.plan}, after {len(self.done)} operations"
        op = bounded_call(
            self.who,
            resume,
            on=where,
            budget=STEP_BUDGET,
            run_budget=self.run_budget,
            finish="yield its next operation",
            hint="a step may retry an operation, but must not wait in a loop for another Enactor",
        )
        if op is _DONE:
            return None
        if isinstance(op, type) and issubclass(op, (Read, Write, Delete)):
            self.abandon(
                ConfigError(f"{self.who} yielded {op.__name__.lower()} itself on {where}: call it, read(endpoint)")
            )
        if not isinstance(op, (Read, Write, Delete)):
            self.abandon(
                ConfigError(
                    f"{self.who} yielded {op!r} ({type(op).__name__}) on {where}, not an operation: "
                    "yield read(endpoint), write(endpoint, plan) or delete(endpoint, plan)"
                )
            )
        if len(self.done) >= OPERATION_BUDGET:
            self.abandon(
                StrategyTimeout(
                    f"{self.who} yielded more than {OPERATION_BUDGET} operations on plan {self.plan} without "
                    "returning: a step must end (it may retry, but must not wait for another Enactor)"
                )
            )
        self.done.append(op)
        return op

    def close(self) -> None:
        """Stop the step where it is; its ``finally`` blocks run within the budget too.

        A step left suspended would otherwise be closed by the garbage collector, outside any budget.

        Raises:
            StrategyTimeout, ConfigError: the step's clean-up code took too long or raised.
        """
        bounded_call(self.who, self.gen.close, on=f"plan {self.plan}, closing it", run_budget=self.run_budget)

    def abandon(self, error: ConfigError) -> NoReturn:
        """Close the step (within the budget, quietly) and raise ``error``."""
        with contextlib.suppress(ConfigError):
            self.close()
        raise error


def check_target(who: str, op: Operation, endpoints: tuple[str, ...], newest: int) -> int:
    """The index of ``op``'s endpoint in ``endpoints``; ConfigError for an unknown endpoint or an unmade plan.

    Args:
        who: the step as messages name it (``"enactor_step=my_step"``).
        op: the operation the step yielded.
        endpoints: the run's endpoints.
        newest: the newest plan generation the DNS Planner has made (the plan store holds 1 to it).
    """
    if op.endpoint not in endpoints:
        raise ConfigError(f"{who} yielded {op}: this run's endpoints are {', '.join(endpoints)}")
    if isinstance(op, Write) and op.plan > newest:
        raise ConfigError(f"{who} yielded {op}: the DNS Planner has made plans 1 to {newest} so far")
    return endpoints.index(op.endpoint)


def _encode(reply: Reply) -> tuple:
    """A reply as a small sortable tuple: a ZoneView as (alias, rollback, trees), a bool as (0,) or (1,)."""
    return (reply.alias, reply.rollback, reply.trees) if isinstance(reply, ZoneView) else (int(reply),)


def _decode(op: Operation, code: tuple) -> Reply:
    return ZoneView(op.endpoint, *code) if isinstance(op, Read) else bool(code[0])


class StepReplayer:
    """A step's next operation after a history of replies, for the model checker: replayed, memoised.

    The checker keeps, for each Enactor in the middle of its step, the plan and the replies the step
    has had (a sortable tuple). :meth:`next_op` re-runs the step from its start with those replies,
    as stateless model checkers such as CHESS replay a prefix, and memoises the answer. A step
    whose operations differ from one replay to another is refused: it keeps state of its own.

    Args:
        name, fn, endpoints, keep, run_budget: as for :class:`StepCall`.
    """

    def __init__(
        self, name: str, fn: StepFunction, endpoints: tuple[str, ...], keep: int, run_budget: RunBudget
    ) -> None:
        self.name, self.fn, self.endpoints, self.keep, self.run_budget = name, fn, endpoints, keep, run_budget
        self.memo: dict[tuple[int, tuple], Operation | None] = {}

    def check_target(self, op: Operation, newest: int) -> int:
        """The index of ``op``'s endpoint; ConfigError for an endpoint the run lacks or a plan not yet made.

        Args:
            op: an operation the step yielded.
            newest: the newest plan generation the DNS Planner has made (the plan store holds 1 to it).
        """
        return check_target(f"{self.name}={strategy_name(self.fn)}", op, self.endpoints, newest)

    def call(self, plan: int) -> StepCall:
        """A fresh call of the step on ``plan``."""
        return StepCall(self.name, self.fn, plan, self.endpoints, self.keep, self.run_budget)

    def next_op(self, plan: int, replies: tuple[tuple, ...]) -> Operation | None:
        """The operation the step yields on ``plan`` after ``replies`` (encoded), or None if it returns then.

        Raises:
            ConfigError: as :meth:`StepCall.advance`, or the step yields other operations for the same replies.
        """
        key = (plan, replies)
        if key not in self.memo:
            call = self.call(plan)
            op = call.advance()
            for i, code in enumerate(replies):
                before = self.memo.get((plan, replies[:i]))
                if before is not None and op != before:
                    call.abandon(
                        ConfigError(
                            f"{call.who} yielded {op} where, on the same plan and replies, it yielded {before}: "
                            "a step must depend only on its arguments and the replies it gets"
                        )
                    )
                assert op is not None  # the history holds a reply to it
                op = call.advance(_decode(op, code))
            call.close()
            self.memo[key] = op
        return self.memo[key]


@dataclass(frozen=True)
class Operated:
    """One operation carried out on a packed hosted zone (the checker's form of an endpoint).

    Attributes:
        zone: the endpoint after the operation, packed as (alias, rollback, bitmask of the plan
            trees that exist: bit g for plan g).
        reply: what the step gets back, encoded (see :class:`StepReplayer`).
        race_action: the outcome in ``labsupport.race``'s ``action`` vocabulary (:func:`race_action`).
        detail: one sentence, what Route 53 did.
        reply_text: the reply as a reader sees it ("alias 2, rollback 1, trees 1,2"; "True").
    """

    zone: tuple[int, int, int]
    reply: tuple
    race_action: str
    detail: str
    reply_text: str


def operate(op: Operation, endpoint: str, zone: tuple[int, int, int]) -> Operated:
    """Carry out ``op`` on a packed zone with :class:`~labsupport.route53.HostedZone`'s own rules.

    Args:
        op: the operation.
        endpoint: the endpoint's name.
        zone: (alias, rollback, bitmask of existing trees) before the operation.

    Returns:
        An :class:`Operated`.
    """
    alias, rollback, mask = zone
    hz = HostedZone(endpoint, {g: 1 for g in range(mask.bit_length()) if mask >> g & 1}, alias, rollback)
    if isinstance(op, Read):
        view = hz.view()
        return Operated(zone, _encode(view), "read", f"{op} -> {view}", str(view))
    change = hz.perform(op, 1)
    packed = (hz.alias or 0, hz.rollback or 0, sum(1 << g for g in hz.trees))
    committed = change.kind in r53.COMMITTED
    return Operated(packed, _encode(committed), race_action(op, change.kind), change.detail, str(committed))


def race_action(op: Operation, kind: str) -> str:
    """The outcome of ``op`` (a :class:`~labsupport.route53.Change`'s kind) in ``labsupport.race``'s actions.

    ``read`` for a read; for a write ``write``, ``stale_write``, ``write_noop``, ``inconsistent``
    or ``write_refused`` (``expect`` no longer held); for a delete ``delete``, ``delete_active`` or
    ``delete_skipped`` (``expect`` no longer held, or no such tree).
    """
    if isinstance(op, Read):
        return "read"
    if kind in (r53.CONDITION_FAILED, r53.MISSING):
        return "write_refused" if isinstance(op, Write) else "delete_skipped"
    return _ACTIONS[kind]


_ACTIONS = {
    r53.APPLIED: "write",
    r53.STALE_APPLIED: "stale_write",
    r53.NOOP: "write_noop",
    r53.INCONSISTENT: "inconsistent",
    r53.DELETED: "delete",
    r53.DELETED_ACTIVE: "delete_active",
}
