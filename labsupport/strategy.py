"""Student code the engines run: the strategy requests, their checks and the bounded call.

A strategy is a small callable a student writes and passes through a model's config: the
engine calls it with one frozen request and expects a ``bool`` back. Four things can go
wrong with code written by someone else, and each becomes the course's
:class:`~labsupport.errors.ConfigError` naming the strategy's field and function:

* it raises: the error names the exception (the student's traceback is chained as ``__cause__``);
* it returns something other than a ``bool`` (``1``, ``None``, ``"yes"``, ``numpy.True_``);
* it never returns, or is so slow that a run would take minutes: each call may take at most
  :data:`STEP_BUDGET` steps, and all the calls of one run together at most
  :data:`RUN_STEP_BUDGET` (each engine gives its run one :class:`RunBudget`): past either, the
  call raises :class:`~labsupport.errors.StrategyTimeout`, a ConfigError. A step is one
  Python line or one bytecode instruction (counted with ``sys.settrace`` and
  ``frame.f_trace_opcodes``: a loop written on one line, ``while True: pass``, starts no new
  line and is counted by its instructions);
* it calls ``sys.exit()``: that too is a ConfigError (``KeyboardInterrupt``, the learner stopping
  the kernel, is let through).

Limits: a loop inside C code (``sum(range(10**12))``, ``time.sleep``) executes no Python step
and is not counted. The stop is raised as a ``BaseException``, so ``except Exception`` cannot catch
it; a strategy that catches everything (``except BaseException``, a bare ``except``) can swallow it,
and CPython then stops tracing (a trace function that raises is removed). The grader refuses such
handlers when it compiles a design answer, and a check's time limit is the last line of defence.

::

    engine --WriteRequest / DeleteRequest / FailoverRequest / AdmissionRequest / EmptyAnswerRequest
           / LaunchRequest-->
        call_strategy(field, fn, request)
          |-- settrace: count lines and opcodes, stop at STEP_BUDGET
          |-- raises?       -> ConfigError(field, fn, error)
          '-- not a bool?   -> ConfigError(field, fn, type)
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import Any

from .errors import ConfigError, StrategyTimeout

__all__ = [
    "AdmissionRequest",
    "DeleteRequest",
    "EmptyAnswerRequest",
    "FailoverRequest",
    "LaunchRequest",
    "RUN_STEP_BUDGET",
    "RunBudget",
    "STEP_BUDGET",
    "WriteRequest",
    "bounded_call",
    "call_strategy",
    "check_strategy",
    "strategy_name",
]

#: Steps (Python lines and bytecode instructions) one strategy call may take before it is stopped
#: (a correct strategy needs a few hundred).
STEP_BUDGET = 100_000

#: Steps all strategy calls of one run may take together, about 20 s of tracing (20 million steps
#: took 4 s on a 2-core machine). The reference admission policy of the graded lab 02 takes about
#: 700,000 steps over a night (18 a call, some 65,000 calls); this leaves a policy about 1,500
#: steps a call there (one that builds ``dataclasses.asdict(request)`` takes 1,419).
RUN_STEP_BUDGET = 100_000_000


class RunBudget:
    """The steps left to one run's strategy calls (an engine makes one per run and passes it to
    :func:`call_strategy`).

    Attributes:
        total: the run's budget (steps, :data:`RUN_STEP_BUDGET` by default).
        left: steps not yet taken.
        calls: strategy calls made so far (count).
    """

    __slots__ = ("calls", "left", "total")

    def __init__(self, steps: int = RUN_STEP_BUDGET) -> None:
        self.total = self.left = steps
        self.calls = 0


@dataclass(frozen=True)
class WriteRequest:
    """What the DNS Enactor's write strategy sees when its change batch commits on one endpoint.

    The strategy answers the compare-and-set question: commit this batch (``True``) or refuse it
    (``False``). Route 53 evaluates it atomically with the batch, under the endpoint's lock
    (:mod:`labsupport.route53`), so nothing changes between the look and the write.

    Attributes:
        endpoint: the endpoint's name (``"regional"``, ``"ipv6"``, ...).
        active_plan: generation the endpoint's alias points at now (None before the first plan).
        new_plan: generation the Enactor is writing.
    """

    endpoint: str
    active_plan: int | None
    new_plan: int


@dataclass(frozen=True)
class DeleteRequest:
    """What the DNS Enactor's clean-up strategy sees when it is about to delete one old plan tree.

    The strategy answers a conditional delete: delete this plan's tree from the endpoint
    (``True``) or keep it (``False``). Route 53 evaluates it atomically with the deletion, so the
    endpoint's alias and rollback record cannot change between the look and the delete (the model
    checker's steps are atomic: :mod:`labsupport.explore`).

    Attributes:
        endpoint: the endpoint's name (``"regional"``, ``"ipv6"``).
        plan: generation of the plan tree the clean-up would delete.
        active_plan: generation the endpoint's alias points at now.
        rollback_plan: generation the endpoint's rollback record points at now.
        applied_plan: generation the cleaning Enactor has just applied; its clean-up reaches only
            plans more than ``cleanup_keep_generations`` older than this one.
    """

    endpoint: str
    plan: int
    active_plan: int
    rollback_plan: int
    applied_plan: int


@dataclass(frozen=True)
class FailoverRequest:
    """What the NLB's failover strategy sees when it reviews one Availability Zone's DNS weight.

    The strategy answers: is this AZ's health-check data too old to trust, so that its DNS
    weight should be removed (``True``, within the fail-open and velocity limits), or is it fresh
    (``False``, its weight is restored)?

    Attributes:
        az: the AZ's index (0-based).
        result_age_s: seconds since the probe tick of the newest health-check result delivered.
        threshold_s: the config's ``failover_delay_threshold_s``.
        check_latency_s: the AZ's current health-check delay, seconds.
        dns_weight: the AZ's DNS weight now, in [0, 1].
        removed_fraction: share of the NLB's capacity that failover has removed now, in [0, 1].
    """

    az: int
    result_age_s: float
    threshold_s: float
    check_latency_s: float
    dns_weight: float
    removed_fraction: float


@dataclass(frozen=True)
class AdmissionRequest:
    """What DWFM's admission strategy sees when one lease-establishment item arrives at a DWFM host.

    The strategy answers the admission-control question: let the item join this host's waiting
    queue (``True``), or refuse it now (``False``: load shedding; the droplet asks again at its next
    state check, and the refusal is counted as ``lease_held_back``). It is asked for first requests
    and for retries alike, after the built-in throttle (if one is on) has admitted the item.

    Attributes:
        time_s: seconds since 11:48 PM PDT on 19 October (the DWFM model's clock).
        host: the DWFM host's index (0-based).
        queue_count: items waiting in this host's queue now (count).
        in_flight_count: items this host is working on now (count).
        oldest_wait_s: seconds the oldest waiting item of this host has waited (0.0 when none waits).
        attempt: 0 for a droplet's first request since its lease lapsed, n for its n-th retry.
        host_concurrency_count: items one host works on at once (the config's).
        lease_establish_s: host time to establish one lease, seconds (the config's).
        work_deadline_s: an item must finish within this many seconds of joining the queue (the config's).
    """

    time_s: float
    host: int
    queue_count: int
    in_flight_count: int
    oldest_wait_s: float
    attempt: int
    host_concurrency_count: int
    lease_establish_s: float
    work_deadline_s: float


@dataclass(frozen=True)
class LaunchRequest:
    """What Network Manager's launch admission strategy sees when a new instance's network
    configuration arrives at the propagation queue (a new launch or a retried one).

    The strategy answers the admission-control question at Network Manager: let the item join the
    queue (``True``), or refuse the launch now (``False``: load shedding; the launch fails at once
    with a capacity error the caller can retry, and the model counts it as refused). It is asked
    after the built-in limits (``max_queue_count``, ``shed_load_*``) have admitted the item; the
    backlog of existing configuration is never asked about. AWS's announced fix for EC2's data
    propagation is to "rate limit incoming work based on the size of the waiting queue" (the
    post-event summary); a rule the student writes stands for it in the model. The summary's wording
    on engineers reducing Network Manager's load by hand is unverified.

    Attributes:
        time_s: seconds since Network Manager started draining (the model's ``drain_start_s``).
        queue_count: items waiting or in service at Network Manager now (count).
        oldest_wait_s: seconds the oldest of those items has waited (0.0 when none waits).
        service_s: seconds Network Manager takes per item (``60 / propagation_rate_per_min``).
        wait_limit_s: the longest a launch should wait for its network configuration, seconds
            (the config's ``launch_wait_limit_s``; the model enforces nothing with it).
    """

    time_s: float
    queue_count: int
    oldest_wait_s: float
    service_s: float
    wait_limit_s: float


@dataclass(frozen=True)
class EmptyAnswerRequest:
    """What a DNS resolver's empty-answer rule sees when a refresh of a name it holds records for
    comes back empty (NOERROR with no records, as DynamoDB's endpoint did from 11:48 PM).

    The rule answers: keep answering clients with the last records this cache held, now expired
    (``True``: serve stale, and ask the authoritative servers again ``recheck_s`` later), or accept
    the empty answer (``False``: cache it for the negative TTL, as RFC 2308 says, and drop the old
    records, so the rule is not asked again until the name has records). RFC 8767's serve-stale
    covers an authoritative server that cannot be reached, not an empty answer: serving stale here
    is the course's extension, not a standard.

    Attributes:
        resolver: the resolver cache's index (0-based).
        stale_for_s: seconds since this cache's first empty answer, that is, how long it has
            served the old records past their TTL (0.0 the first time it is asked).
        records_ttl_s: TTL of the records it holds, seconds (the config's ``positive_ttl_s``).
        negative_ttl_s: how long it would cache the empty answer, seconds (RFC 2308).
        recheck_s: seconds until it asks again if it serves stale (RFC 8767's failure recheck timer).
        max_stale_s: the longest this resolver's operator allows records past their TTL, seconds
            (RFC 8767's maximum stale timer).
    """

    resolver: int
    stale_for_s: float
    records_ttl_s: float
    negative_ttl_s: float
    recheck_s: float
    max_stale_s: float


class _StepLimit(BaseException):
    """Raised inside a strategy at the step budget; a ``BaseException``, so that a strategy's
    ``except Exception`` cannot swallow it (:func:`call_strategy` turns it into StrategyTimeout)."""


def strategy_name(fn: object) -> str:
    """A readable name of a strategy: its qualified name, else its type's."""
    return getattr(fn, "__qualname__", None) or type(fn).__name__


def check_strategy(name: str, fn: object) -> None:
    """Raise ConfigError unless ``fn`` is None or a callable that takes exactly one positional argument.

    Args:
        name: the config field, for the message (``"write_strategy"``).
        fn: the strategy.

    Raises:
        ConfigError: ``fn`` is not callable, or cannot be called with one argument.
    """
    if fn is None:
        return
    if not callable(fn):
        raise ConfigError(f"{name} must be None or a function of one request, got {type(fn).__name__}")
    try:
        inspect.signature(fn).bind(None)
    except TypeError as exc:
        raise ConfigError(
            f"{name} must take exactly one argument (the request), {strategy_name(fn)} does not: {exc}"
        ) from None
    except ValueError:  # builtins without a signature: let the call decide
        return


def bounded_call(
    who: str,
    call: Callable[[], object],
    *,
    on: str,
    budget: int = STEP_BUDGET,
    run_budget: RunBudget | None = None,
    finish: str = "return",
    hint: str = "a strategy must answer at once (no loops that wait)",
) -> object:
    """Run ``call()``, which runs a student's code, within a step budget; return what it returns.

    The one bounded call: :func:`call_strategy` and each resumption of an Enactor step (:mod:`labsupport.enactor`).

    Args:
        who: the student's code as messages name it (``"conditional_write=my_rule"``).
        call: a function of no arguments that runs the student's code once.
        on: what the code was run on, for messages (a request's ``repr``).
        budget: the most steps (Python lines plus bytecode instructions) the call may take (count).
        run_budget: the run's budget, shared by all its calls (``None``: only ``budget`` applies).
        finish, hint: what the code must do within ``budget`` steps (``"return"``), and what it should do
            instead, for the timeout's message.

    Raises:
        StrategyTimeout: the call took more than ``budget`` steps, or the run's calls together
            more than ``run_budget.total``.
        ConfigError: the code raised or called ``sys.exit`` (chained as ``__cause__``).
    """
    limit = budget if run_budget is None else min(budget, max(run_budget.left, 0))
    if limit < budget and run_budget is not None:
        over_budget = (
            f"{who}: this run's {run_budget.calls + 1:,} calls took more than {run_budget.total:,} steps "
            "(Python lines and instructions) together; a strategy must answer in a few lines, or the run "
            "must be smaller"
        )
        hint = ""
    else:
        over_budget = f"{who} did not {finish} within {budget:,} steps (Python lines and instructions) on {on}"
        hint = f"; {hint}"
    steps, own = 0, getattr(call, "__code__", None)

    def tracer(frame: FrameType, event: str, arg: object) -> Callable | None:
        nonlocal steps
        if event == "call":
            if frame.f_code is own:  # the course's own wrapper: only the student's code counts
                return None
            frame.f_trace_opcodes = True  # a one-line loop starts no new line: count its instructions
        elif event in ("line", "opcode"):
            steps += 1
            if steps > limit:
                raise _StepLimit
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        answer = call()
    except _StepLimit:
        raise StrategyTimeout(over_budget + hint) from None
    except StrategyTimeout:
        raise
    except (Exception, SystemExit) as exc:
        raise ConfigError(f"{who} raised {type(exc).__name__}: {exc} on {on}") from exc
    finally:
        sys.settrace(previous)
        if run_budget is not None:
            run_budget.left -= steps
            run_budget.calls += 1
    if steps > limit:  # the student's code caught the stop and went on: still a timeout
        raise StrategyTimeout(over_budget)
    return answer


def call_strategy(
    name: str,
    fn: Callable[[Any], object],
    request: object,
    *,
    budget: int = STEP_BUDGET,
    run_budget: RunBudget | None = None,
) -> bool:
    """Call a student's strategy on ``request`` within a step budget; return its ``bool``.

    Args:
        name: the config field the strategy came from, for messages.
        fn: the strategy.
        request: the frozen request (:class:`WriteRequest`, :class:`DeleteRequest`,
            :class:`FailoverRequest`, :class:`AdmissionRequest`, :class:`EmptyAnswerRequest`,
            :class:`LaunchRequest`).
        budget: the most steps (Python lines plus bytecode instructions) the call may take (count).
        run_budget: the run's budget, shared by all its calls (``None``: only ``budget`` applies).

    Returns:
        The strategy's answer, exactly ``True`` or ``False``.

    Raises:
        StrategyTimeout: the call took more than ``budget`` steps, or the run's calls together
            more than ``run_budget.total``.
        ConfigError: the strategy raised or called ``sys.exit`` (chained as ``__cause__``), or
            returned a non-``bool``.
    """
    who = f"{name}={strategy_name(fn)}"
    answer = bounded_call(who, lambda: fn(request), on=repr(request), budget=budget, run_budget=run_budget)
    if type(answer) is not bool:
        kind = type(answer)
        named = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
        raise ConfigError(f"{who} must return True or False, got {named} {answer!r} on {request!r}")
    return answer
