"""The race model's configuration: its guards, the injected Enactor delay, and the incident preset."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import datetime

from .._sweep import flags_label
from .._validate import Config, check_bool, check_int, check_names, check_number, check_seed, show
from ..clock import INCIDENT_CLOCK
from ..enactor import StepFunction, check_alone, check_step
from ..errors import ConfigError
from ..strategy import WriteRequest, check_strategy

__all__ = [
    "EnactorDelay",
    "GUARD_NAMES",
    "Guards",
    "INCIDENT",
    "INCIDENT_DELAY",
    "PES_DNS_RESTORED_PDT",
    "PES_EMPTY_AT_PDT",
    "PES_EMPTY_TO_RESTORED_S",
    "RaceConfig",
    "enactor_names",
]

#: PES: the race emptied the regional endpoint at 11:48 PM PDT on 19 October 2025 [AWS-verbatim].
PES_EMPTY_AT_PDT = INCIDENT_CLOCK.origin.to_pydatetime()
#: PES: all DNS information was restored at 2:25 AM PDT on 20 October 2025 [AWS-paraphrase: its
#: exact wording is unconfirmed, so it is not quoted].
PES_DNS_RESTORED_PDT = datetime(2025, 10, 20, 2, 25)
#: 9420 s = 2 h 37 min from empty to restored, computed from the two PES times above.
PES_EMPTY_TO_RESTORED_S = (PES_DNS_RESTORED_PDT - PES_EMPTY_AT_PDT).total_seconds()


def enactor_names(count: int) -> tuple[str, ...]:
    """Names of ``count`` Enactors, one per Availability Zone: ``("enactor-a", "enactor-b", ...)``."""
    check_int("count", count, lo=0, hi=26)
    return tuple(f"enactor-{chr(ord('a') + i)}" for i in range(count))


def _str_tuple(name: str, values: object, *, allow_empty: bool) -> tuple[str, ...]:
    if not isinstance(values, (tuple, list)) or not all(isinstance(v, str) and v for v in values):
        raise ConfigError(f"{name} must be a tuple of non-empty strings, got {show(values)}")
    if not values and not allow_empty:
        raise ConfigError(f"{name} must name at least one endpoint, got {show(values)}")
    if len(set(values)) != len(values):
        raise ConfigError(f"{name} must not repeat a name, got {show(values)}")
    return tuple(values)


@dataclass(frozen=True, kw_only=True)
class Guards(Config):
    """The four guards (stop points 1-4); all off in :data:`INCIDENT`, as on 19 October.

    The one vocabulary of the guards: :attr:`RaceConfig.guards`, :attr:`labsupport.explore.ExploreConfig.guards`
    and :attr:`labsupport.chain.StopPoints.guards` each hold one.

    Attributes:
        check_version_on_write: guard 1, each endpoint write is a conditional write (compare-and-set)
            that applies only if the endpoint's plan is older than the one being written.
        delete_only_unreferenced: guard 2, clean-up never deletes a plan that an alias or rollback
            record refers to, however old it is.
        reject_empty_records: guard 3, refuse (and alert on) any write or delete that would leave an
            endpoint with zero records.
        self_repair: guard 4, an Enactor that finds the active plan missing re-applies the newest
            plan instead of stopping.
    """

    check_version_on_write: bool = False
    delete_only_unreferenced: bool = False
    reject_empty_records: bool = False
    self_repair: bool = False

    def _check(self) -> None:
        for f in fields(self):
            check_bool(f.name, getattr(self, f.name))

    def flags(self) -> tuple[bool, ...]:
        """The four guards as on/off flags, guard 1 to 4."""
        return tuple(getattr(self, f.name) for f in fields(self))

    def label(self) -> str:
        """Short label of the guards that are on, for example ``"1+3"``; ``"none"`` if none."""
        return flags_label(self.flags())


@dataclass(frozen=True, kw_only=True)
class EnactorDelay(Config):
    """An injected fault: one Enactor is held up while it applies one plan.

    The fault hits the first plan that ``enactor`` picks up at or after ``start_s``. On each affected
    endpoint the Enactor first loses the lock ``lock_losses_count`` times in a row (each loss followed
    by a back-off: DAT453 says only that the Enactor retried and backed off; the exponential form with
    jitter is the model's choice), and each of its transactions there takes ``extra_latency_s``
    longer. Both fields can be combined to script an exact schedule.

    Attributes:
        enactor: the Enactor's name (see :func:`enactor_names`).
        start_s: seconds since the scenario start from which the fault waits for a plan (>= 0).
        lock_losses_count: consecutive lock losses forced on each affected endpoint (0-50).
        extra_latency_s: extra seconds added to each affected transaction (0-86400).
        endpoints: affected endpoints; empty means every endpoint.
    """

    enactor: str = "enactor-a"
    start_s: float = 0.0
    lock_losses_count: int = 0
    extra_latency_s: float = 0.0
    endpoints: tuple[str, ...] = ()

    def _check(self) -> None:
        if not isinstance(self.enactor, str):
            raise ConfigError(f"delays.enactor must be a string, got {show(self.enactor)}")
        check_number("delays.start_s", self.start_s, lo=0, hi=7 * 86400)
        check_int("delays.lock_losses_count", self.lock_losses_count, lo=0, hi=50)
        check_number("delays.extra_latency_s", self.extra_latency_s, lo=0, hi=86400)
        object.__setattr__(self, "endpoints", _str_tuple("delays.endpoints", self.endpoints, allow_empty=True))

    def affects(self, endpoint: str) -> bool:
        """True if the fault applies on ``endpoint``."""
        return not self.endpoints or endpoint in self.endpoints


#: The incident's fault, the model's choice: enactor-a loses the lock 9 times in a row on every
#: endpoint. DAT453 says only that one Enactor failed to get the lock several times in a row.
INCIDENT_DELAY = EnactorDelay(enactor="enactor-a", start_s=120.0, lock_losses_count=9)


@dataclass(frozen=True, kw_only=True)
class RaceConfig(Config):
    """Everything one run of the race model depends on. Defaults reproduce 19 October 2025.

    Timings other than ``manual_repair_after_s`` are illustrative: AWS published none of them.

    Attributes:
        plan_interval_s: seconds between two plans of the DNS Planner (1-3600); plan k is made at k *
            plan_interval_s, in whole milliseconds (never a running sum).
        enactor_count: DNS Enactors, one per Availability Zone (1-9; the PES says three).
        enactor_poll_interval_s: seconds between two looks of an Enactor at the plan store (0.5-3600).
        enactor_offsets_s: start offset of each Enactor in seconds; empty = drawn from the seed.
        endpoints: endpoint names, in the order every Enactor walks them.
        regional_endpoint: the public regional endpoint (one of ``endpoints``).
        records_per_tree_count: weighted records in each plan tree (1-100000).
        records_change_fraction: largest change of a tree's size from one plan to the next (0-0.5).
        txn_latency_s: mean duration of one Route 53 transaction (0.01-600).
        txn_jitter_fraction: the duration varies by up to this fraction either way ([0, 1)).
        lock_ttl_s: seconds the lock's TXT record stays valid after a transaction ends (0-600).
        backoff_base_s, backoff_cap_s: exponential backoff after a lost lock, ``base * 2**k`` capped.
        backoff_jitter_fraction: each backoff is cut by a random share up to this fraction ([0, 1]).
        cleanup_keep_generations: clean-up deletes plans more than this many generations older than
            the plan just applied (1-1000).
        max_record_drop_fraction: guard 3 also refuses a change that cuts records by more than this.
        delays: injected faults, see :class:`EnactorDelay`.
        manual_repair_after_s: seconds from an endpoint going empty to the operators' repair;
            default :data:`PES_EMPTY_TO_RESTORED_S` (PES, 11:48 PM to 2:25 AM).
        horizon_s: simulated seconds (1 to 7 days); closed, as in every config
            (:class:`~labsupport._validate.Config`): an event due at exactly ``horizon_s`` happens and is
            kept in the run's events; nothing after it is simulated.
        seed: seed of the run's one ``random.Random`` (every config's rule, :class:`~labsupport._validate.Config`).
        max_events: the run raises :class:`~labsupport.errors.LimitExceeded` past this many events.
        guards: the four guards.
        conditional_write: a strategy, ``f(request: WriteRequest) -> bool``, evaluated atomically
            with each Enactor's change batch on an endpoint (see :class:`~labsupport.strategy.WriteRequest`):
            ``False`` refuses the batch, as guard 1 does. ``None`` (default) keeps guard 1's rule;
            a strategy replaces it, so ``guards.check_version_on_write`` must then be off. A
            strategy that raises, returns a non-``bool`` or does not return stops the run with a
            :class:`~labsupport.errors.ConfigError` naming it (:func:`~labsupport.strategy.call_strategy`).
        enactor_step: a student's Enactor step, the generator function of :mod:`labsupport.enactor`
            (``step(plan, endpoints, keep, read, write, delete)``); ``None`` (default) keeps the
            built-in walk and clean-up. After its one-time check each Enactor runs it; each operation
            it yields takes simulated time: a read one transaction time (``txn_latency_s`` with its
            jitter), a write or a delete one transaction under the endpoint's lock, with lock losses
            and backoff as for a built-in write (an injected fault holds up the step's first write on
            each affected endpoint). It replaces the Enactor's code, so no guard and no
            ``conditional_write`` may be on with it. A step that raises, yields anything but an
            operation, or takes too many steps or operations stops the run with a ConfigError
            naming it.
    """

    plan_interval_s: float = 30.0
    enactor_count: int = 3
    enactor_poll_interval_s: float = 5.0
    enactor_offsets_s: tuple[float, ...] = ()
    endpoints: tuple[str, ...] = ("regional", "ipv6", "fips", "account-1", "account-2")
    regional_endpoint: str = "regional"
    records_per_tree_count: int = 240
    records_change_fraction: float = 0.01
    txn_latency_s: float = 1.0
    txn_jitter_fraction: float = 0.5
    lock_ttl_s: float = 1.0
    backoff_base_s: float = 1.0
    backoff_cap_s: float = 60.0
    backoff_jitter_fraction: float = 0.5
    cleanup_keep_generations: int = 5
    max_record_drop_fraction: float = 1.0
    delays: tuple[EnactorDelay, ...] = (INCIDENT_DELAY,)
    manual_repair_after_s: float = PES_EMPTY_TO_RESTORED_S
    horizon_s: float = 3 * 3600.0
    seed: int = 2
    max_events: int = 200_000
    guards: Guards = field(default_factory=Guards)
    conditional_write: Callable[[WriteRequest], bool] | None = None
    enactor_step: StepFunction | None = None

    def _check(self) -> None:
        check_number("plan_interval_s", self.plan_interval_s, lo=1, hi=3600)
        check_int("enactor_count", self.enactor_count, lo=1, hi=9)
        check_number("enactor_poll_interval_s", self.enactor_poll_interval_s, lo=0.5, hi=3600)
        offsets = tuple(self.enactor_offsets_s) if isinstance(self.enactor_offsets_s, (tuple, list)) else None
        if offsets is None or (offsets and len(offsets) != self.enactor_count):
            raise ConfigError(
                f"enactor_offsets_s must be empty or hold {self.enactor_count} numbers, "
                f"got {show(self.enactor_offsets_s)}"
            )
        for o in offsets:
            check_number("enactor_offsets_s", o, lo=0, hi=3600)
        object.__setattr__(self, "enactor_offsets_s", offsets)
        object.__setattr__(self, "endpoints", _str_tuple("endpoints", self.endpoints, allow_empty=False))
        check_names(
            "regional_endpoint",
            [self.regional_endpoint] if isinstance(self.regional_endpoint, str) else [repr(self.regional_endpoint)],
            self.endpoints,
        )
        check_int("records_per_tree_count", self.records_per_tree_count, lo=1, hi=100_000)
        check_number("records_change_fraction", self.records_change_fraction, lo=0, hi=0.5)
        check_number("txn_latency_s", self.txn_latency_s, lo=0.01, hi=600)
        check_number("txn_jitter_fraction", self.txn_jitter_fraction, lo=0, hi=1, hi_open=True)
        check_number("lock_ttl_s", self.lock_ttl_s, lo=0, hi=600)
        check_number("backoff_base_s", self.backoff_base_s, lo=0.01, hi=3600)
        check_number("backoff_cap_s", self.backoff_cap_s, lo=self.backoff_base_s, lo_name="backoff_base_s", hi=86400)
        check_number("backoff_jitter_fraction", self.backoff_jitter_fraction, lo=0, hi=1)
        check_int("cleanup_keep_generations", self.cleanup_keep_generations, lo=1, hi=1000)
        check_number("max_record_drop_fraction", self.max_record_drop_fraction, lo=0, hi=1, lo_open=True)
        self._check_delays()
        check_number("manual_repair_after_s", self.manual_repair_after_s, lo=0, hi=7 * 86400)
        check_number("horizon_s", self.horizon_s, lo=1, hi=7 * 86400)
        check_seed("seed", self.seed)
        check_int("max_events", self.max_events, lo=1, hi=10**8)
        if not isinstance(self.guards, Guards):
            raise ConfigError(f"guards must be a Guards value, got {show(self.guards)}")
        check_strategy("conditional_write", self.conditional_write)
        if self.conditional_write is not None and self.guards.check_version_on_write:
            raise ConfigError(
                "conditional_write replaces guards.check_version_on_write: turn the guard off "
                "or leave conditional_write None"
            )
        check_step("enactor_step", self.enactor_step)
        check_alone(self.enactor_step, self.guards.label(), conditional_write=self.conditional_write)

    def _check_delays(self) -> None:
        if not isinstance(self.delays, (tuple, list)) or not all(isinstance(d, EnactorDelay) for d in self.delays):
            raise ConfigError(f"delays must be a tuple of EnactorDelay values, got {show(self.delays)}")
        object.__setattr__(self, "delays", tuple(self.delays))
        for d in self.delays:
            check_names("delays.enactor", [d.enactor], enactor_names(self.enactor_count))
            check_names("delays.endpoints", d.endpoints, self.endpoints)


#: The incident as it happened: no guards, enactor-a delayed, manual repair after 2 h 37 min (PES).
INCIDENT = RaceConfig()


#: The guards' field names, guard 1 to 4 (``explore.GUARDS`` is this same tuple).
GUARD_NAMES = tuple(f.name for f in fields(Guards))
