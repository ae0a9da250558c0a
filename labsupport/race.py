"""The race in DynamoDB's DNS automation: DNS Planner, three DNS Enactors, Route 53, four guards.

Scenario:
    The DNS Planner writes a new regional plan every ``plan_interval_s``. Three DNS Enactors, one
    per Availability Zone, each pick the newest plan, make a one-time check that it is newer than
    the plan they applied before, then apply it to every endpoint, one Route 53 transaction each
    (see :mod:`labsupport.route53`), and finally clean up plans more than
    ``cleanup_keep_generations`` older than the one they applied. An injected fault makes one
    Enactor lose its endpoint lock again and again, so its check goes stale (TOCTOU, CWE-367).
Covers:
    The PES's DynamoDB section (11:48 PM to 2:25 AM PDT): the stale overwrite, the clean-up that
    deletes the active plan, the empty answer and the inconsistent state that only an operator
    could repair. The lock in a TXT record, the rollback record and the lock-loss streak come from
    the re:Invent talk DAT453, AWS's later explanation. Guards 1-4 are the fixes to compare.

::

    DNS Planner --plan N, N+1, ...--> plan store
         |                |                |
    Enactor a        Enactor b        Enactor c     pick newest, check once, walk endpoints, clean up
         \\_______________|________________/
                          v  one transaction per endpoint (lock, tree, alias flip, rollback record)
    Route 53: regional, ipv6, fips, account-1, account-2        Operator: manual repair

For other modules:

* how long the regional endpoint answered empty: ``run(cfg).summary.regional_empty_s``, with
  start and end per endpoint in ``run(cfg).empty_windows()``;
* a scripted schedule (for replaying a model checker's counterexample): fix each Enactor's start
  with ``enactor_offsets_s``, set ``txn_jitter_fraction=0`` and ``backoff_jitter_fraction=0``, and
  hold Enactors up with :class:`EnactorDelay` (lock losses and extra latency, per endpoint); the
  run is then fully deterministic, as ``tests/test_race.py::SCRIPTED`` shows.
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Executor
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import datetime
from functools import partial

import pandas as pd

from . import _race_sim as _sim
from ._race_sim import ACTIONS, STATE_ACTIONS
from ._sweep import flag_combinations, map_items
from ._validate import check_bool, check_int, check_names, check_number, check_seed, show, store_plain_numbers
from .clock import INCIDENT_START_PDT
from .errors import ConfigError

__all__ = [
    "ACTIONS",
    "EnactorDelay",
    "GUARD_NAMES",
    "Guards",
    "INCIDENT",
    "INCIDENT_DELAY",
    "PES_DNS_RESTORED_PDT",
    "PES_EMPTY_AT_PDT",
    "PES_EMPTY_TO_RESTORED_S",
    "RaceConfig",
    "RaceResult",
    "RaceSummary",
    "STATE_ACTIONS",
    "empty_windows",
    "enactor_names",
    "endpoint_states",
    "guard_configs",
    "guard_explorer_data",
    "guard_table",
    "run",
    "seed_sweep",
    "sweep",
]

#: PES: the race emptied the regional endpoint at 11:48 PM PDT on 19 October 2025 [AWS-verbatim].
PES_EMPTY_AT_PDT = INCIDENT_START_PDT.to_pydatetime()
#: PES: "All DNS information was restored" at 2:25 AM PDT on 20 October 2025 [AWS-paraphrase].
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
class Guards:
    """The four guards (stop points 1-4); all off in :data:`INCIDENT`, as on 19 October.

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

    def __post_init__(self) -> None:
        store_plain_numbers(self)  # numpy and other numbers become plain int/float first
        for f in fields(self):
            check_bool(f.name, getattr(self, f.name))

    def label(self) -> str:
        """Short label of the guards that are on, for example ``"1+3"``; ``"none"`` if none."""
        on = [str(i + 1) for i, f in enumerate(fields(self)) if getattr(self, f.name)]
        return "+".join(on) or "none"


@dataclass(frozen=True, kw_only=True)
class EnactorDelay:
    """An injected fault: one Enactor is held up while it applies one plan.

    The fault hits the first plan that ``enactor`` picks up at or after ``start_s``. On each affected
    endpoint the Enactor first loses the lock ``lock_losses_count`` times in a row (each loss followed
    by exponential backoff with jitter, as DAT453 describes), and each of its transactions there
    takes ``extra_latency_s`` longer. Both fields can be combined to script an exact schedule.

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

    def __post_init__(self) -> None:
        store_plain_numbers(self)  # numpy and other numbers become plain int/float first
        if not isinstance(self.enactor, str):
            raise ConfigError(f"delays.enactor must be a string, got {show(self.enactor)}")
        check_number("delays.start_s", self.start_s, lo=0, hi=7 * 86400)
        check_int("delays.lock_losses_count", self.lock_losses_count, lo=0, hi=50)
        check_number("delays.extra_latency_s", self.extra_latency_s, lo=0, hi=86400)
        object.__setattr__(self, "endpoints", _str_tuple("delays.endpoints", self.endpoints, allow_empty=True))

    def affects(self, endpoint: str) -> bool:
        """True if the fault applies on ``endpoint``."""
        return not self.endpoints or endpoint in self.endpoints


#: The incident's fault: enactor-a loses the lock 9 times in a row on every endpoint (DAT453).
INCIDENT_DELAY = EnactorDelay(enactor="enactor-a", start_s=120.0, lock_losses_count=9)


@dataclass(frozen=True, kw_only=True)
class RaceConfig:
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
        horizon_s: simulated seconds (1 to 7 days); the run covers the closed interval [0, horizon_s]:
            an event due at exactly horizon_s happens and is kept (the rule of every model, see
            :mod:`labsupport`).
        seed: seed of the run's one ``random.Random`` (an integer from 0 to 2**63 - 1, the rule of every config).
        max_events: the run raises :class:`~labsupport.errors.LimitExceeded` past this many events.
        guards: the four guards.
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

    def __post_init__(self) -> None:
        store_plain_numbers(self)  # numpy and other numbers become plain int/float first
        check_number("plan_interval_s", self.plan_interval_s, lo=1, hi=3600)
        check_int("enactor_count", self.enactor_count, lo=1, hi=9)
        check_number("enactor_poll_interval_s", self.enactor_poll_interval_s, lo=0.5, hi=3600)
        offsets = tuple(self.enactor_offsets_s) if isinstance(self.enactor_offsets_s, (tuple, list)) else None
        if offsets is None or (offsets and len(offsets) != self.enactor_count):
            raise ConfigError(f"enactor_offsets_s must be empty or hold {self.enactor_count} numbers, "
                              f"got {show(self.enactor_offsets_s)}")
        for o in offsets:
            check_number("enactor_offsets_s", o, lo=0, hi=3600)
        object.__setattr__(self, "enactor_offsets_s", offsets)
        object.__setattr__(self, "endpoints", _str_tuple("endpoints", self.endpoints, allow_empty=False))
        check_names("regional_endpoint", [self.regional_endpoint] if isinstance(self.regional_endpoint, str)
                    else [repr(self.regional_endpoint)], self.endpoints)
        check_int("records_per_tree_count", self.records_per_tree_count, lo=1, hi=100_000)
        check_number("records_change_fraction", self.records_change_fraction, lo=0, hi=0.5)
        check_number("txn_latency_s", self.txn_latency_s, lo=0.01, hi=600)
        check_number("txn_jitter_fraction", self.txn_jitter_fraction, lo=0, hi=1, hi_open=True)
        check_number("lock_ttl_s", self.lock_ttl_s, lo=0, hi=600)
        check_number("backoff_base_s", self.backoff_base_s, lo=0.01, hi=3600)
        check_number("backoff_cap_s", self.backoff_cap_s, lo=self.backoff_base_s, hi=86400)
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

    def _check_delays(self) -> None:
        if not isinstance(self.delays, (tuple, list)) or not all(isinstance(d, EnactorDelay) for d in self.delays):
            raise ConfigError(f"delays must be a tuple of EnactorDelay values, got {show(self.delays)}")
        object.__setattr__(self, "delays", tuple(self.delays))
        for d in self.delays:
            check_names("delays.enactor", [d.enactor], enactor_names(self.enactor_count))
            check_names("delays.endpoints", d.endpoints, self.endpoints)


#: The incident as it happened: no guards, enactor-a delayed, manual repair after 2 h 37 min (PES).
INCIDENT = RaceConfig()


@dataclass(frozen=True)
class RaceSummary:
    """Headline figures of one run.

    Attributes:
        regional_empty_s: seconds the regional endpoint answered with zero records (NOERROR, empty).
        empty_started_at_s: when the regional endpoint first went empty (None if never).
        stale_overwrites: writes that replaced a newer plan with an older one, on any endpoint.
        active_plan_deleted: whether clean-up ever deleted the plan an alias pointed at.
        stuck: whether any transaction failed because the active plan was missing (inconsistent state).
        repaired_at_s: time of the operators' manual repair of the regional endpoint (None if none).
        alerts: alerts raised by guard 3.
        self_repairs: active-plan rebuilds done by guard 4.
        max_generation_lag: largest gap, in plan generations, between the newest plan and the plan an
            endpoint served.
        endpoints_emptied: endpoints that answered with zero records at some point.
    """

    regional_empty_s: float
    empty_started_at_s: float | None
    stale_overwrites: int
    active_plan_deleted: bool
    stuck: bool
    repaired_at_s: float | None
    alerts: int
    self_repairs: int
    max_generation_lag: int
    endpoints_emptied: tuple[str, ...]


@dataclass(frozen=True)
class RaceResult:
    """What :func:`run` returns: the config, the events and the summary.

    Attributes:
        config: the :class:`RaceConfig` that was run.
        events: one row per event, columns ``time_s`` (float64, seconds since the start), ``actor``
            and ``action`` (category), ``endpoint`` (string, NA if none), ``generation`` (Int64, the
            plan concerned), ``records`` (Int64, records the endpoint answers with after the event,
            NA if not about an endpoint) and ``detail`` (string).
        summary: a :class:`RaceSummary`.
    """

    config: RaceConfig
    events: pd.DataFrame
    summary: RaceSummary

    def endpoint_states(self) -> pd.DataFrame:
        """Per-endpoint alias generation, record count and lag over time; see :func:`endpoint_states`."""
        return endpoint_states(self.events)

    def empty_windows(self) -> pd.DataFrame:
        """Intervals in which an endpoint answered empty; see :func:`empty_windows`."""
        return empty_windows(self.events, end_s=self.config.horizon_s)


def run(config: RaceConfig = INCIDENT) -> RaceResult:
    """Run the race model once.

    Args:
        config: a :class:`RaceConfig`; the default is :data:`INCIDENT`.

    Returns:
        A :class:`RaceResult` (``.events`` as documented there, ``.summary`` a :class:`RaceSummary`).

    Raises:
        LimitExceeded: if the run produces more than ``config.max_events`` events.
        ConfigError: if ``config`` is not a RaceConfig.

    Follows the PES's account of the DynamoDB DNS race and DAT453's lock and rollback details.
    """
    if not isinstance(config, RaceConfig):
        raise ConfigError(f"config must be a RaceConfig, got {type(config).__name__}")
    names = enactor_names(config.enactor_count)
    w = _sim.simulate(config, names)
    summary = RaceSummary(
        regional_empty_s=float(w.regional_empty_s), empty_started_at_s=w.first_empty,
        stale_overwrites=w.counts["stale"], active_plan_deleted=w.flags["deleted_active"],
        stuck=w.flags["stuck"], repaired_at_s=w.flags["repaired_at"], alerts=w.counts["alerts"],
        self_repairs=w.counts["repairs"], max_generation_lag=w.counts["lag"],
        endpoints_emptied=tuple(w.emptied))
    return RaceResult(config=config, events=_sim.frame(w.rows, names), summary=summary)


def endpoint_states(events: pd.DataFrame) -> pd.DataFrame:
    """Derive each endpoint's state over time from a run's events.

    Args:
        events: ``RaceResult.events``.

    Returns:
        One row per state change, sorted by time: ``time_s`` (float64), ``endpoint`` (string),
        ``generation`` (Int64, the plan the alias points at), ``records`` (Int64, records answered;
        0 = empty), ``newest_generation`` (Int64, newest plan at that moment) and ``lag_generations``
        (Int64, newest minus served).
    """
    _check_events(events, ("time_s", "action", "endpoint", "generation", "records"))
    states = events.loc[events["action"].isin(STATE_ACTIONS), ["time_s", "endpoint", "generation", "records"]]
    plans = events.loc[events["action"] == "plan_created", ["time_s", "generation"]]
    plans = pd.concat([pd.DataFrame({"time_s": [0.0], "generation": [1]}), plans]).astype({"generation": "int64"})
    out = pd.merge_asof(states.reset_index(drop=True), plans.rename(columns={"generation": "newest_generation"}),
                        on="time_s", direction="backward")
    out["newest_generation"] = out["newest_generation"].astype("Int64")
    out["lag_generations"] = out["newest_generation"] - out["generation"]
    return out.reset_index(drop=True)


def empty_windows(events: pd.DataFrame, *, end_s: float) -> pd.DataFrame:
    """Intervals in which an endpoint answered with zero records.

    Args:
        events: ``RaceResult.events``.
        end_s: end of the run in seconds; closes a window still open at the end.

    Returns:
        Columns ``endpoint`` (string), ``start_s``, ``end_s``, ``duration_s`` (float64) and
        ``repaired_by`` (string: ``"operator"``, ``"self_repair"``, another action, or
        ``"still empty"``).
    """
    _check_events(events, ("time_s", "action", "endpoint"))
    end_s = check_number("end_s", end_s, lo=0)
    rows = []
    ev = events.loc[events["action"].isin(["endpoint_empty", "endpoint_restored", "manual_repair", "self_repair"])]
    open_at: dict[str, float] = {}
    last_fix: dict[str, str] = {}
    for t, action, endpoint in zip(ev["time_s"], ev["action"], ev["endpoint"]):
        if action == "endpoint_empty":
            open_at[endpoint] = t
        elif action in ("manual_repair", "self_repair"):
            last_fix[endpoint] = "operator" if action == "manual_repair" else "self_repair"
        elif endpoint in open_at:
            start = open_at.pop(endpoint)
            rows.append((endpoint, start, t, last_fix.pop(endpoint, "enactor")))
    late = {e: s for e, s in open_at.items() if s > end_s}
    if late:
        first = min(late.values())
        raise ConfigError(f"end_s must be >= {first:g}, when an endpoint went empty and stayed empty; got {end_s:g}")
    rows += [(e, s, end_s, "still empty") for e, s in open_at.items()]
    df = pd.DataFrame(rows, columns=["endpoint", "start_s", "end_s", "repaired_by"])
    df["duration_s"] = df["end_s"] - df["start_s"]
    return df.astype({"endpoint": "string", "start_s": "float64", "end_s": "float64",
                      "duration_s": "float64", "repaired_by": "string"})[
        ["endpoint", "start_s", "end_s", "duration_s", "repaired_by"]]


def _check_events(events: object, columns: tuple[str, ...]) -> None:
    if not isinstance(events, pd.DataFrame):
        raise ConfigError(f"events must be a DataFrame (RaceResult.events), got {type(events).__name__}")
    missing = [c for c in columns if c not in events.columns]
    if missing:
        raise ConfigError(f"events is missing columns {missing}; pass RaceResult.events")


#: The guards' field names, guard 1 to 4 (``explore.GUARDS`` is this same tuple).
GUARD_NAMES = tuple(f.name for f in fields(Guards))


def guard_configs(config: RaceConfig = INCIDENT) -> list[RaceConfig]:
    """The 16 variants of ``config``, one per combination of the four guards: none, 1, 2, 3, 4, 1+2, ..., 1+2+3+4."""
    _check_config(config)
    combos = flag_combinations(len(GUARD_NAMES))
    return [replace(config, guards=Guards(**dict(zip(GUARD_NAMES, combo)))) for combo in combos]


def _summary_row(config: RaceConfig) -> dict:
    """Run one config and flatten its guards, seed, fault and summary into a row (picklable worker)."""
    s = run(config).summary
    row: dict = {name: getattr(config.guards, name) for name in GUARD_NAMES}
    row.update(guards=config.guards.label(), seed=config.seed, plan_interval_s=config.plan_interval_s,
               lock_losses_count=sum(d.lock_losses_count for d in config.delays))
    row.update(asdict(s))
    row["endpoints_emptied"] = ",".join(s.endpoints_emptied)
    return row


def _check_config(config: object) -> None:
    if not isinstance(config, RaceConfig):
        raise ConfigError(f"config must be a RaceConfig, got {type(config).__name__}")


def _listed(name: str, values: object) -> list:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ConfigError(f"{name} must be an iterable of values, got {show(values)}")
    return list(values)




def sweep(configs: Iterable[RaceConfig], *, executor: Executor | None = None) -> pd.DataFrame:
    """Run many configs and return one summary row per config, in the order given.

    Args:
        configs: the configs to run.
        executor: optional ``concurrent.futures.Executor`` (threads, processes, a Dask client's
            executor); ``None`` runs in this process. The result is the same either way.

    Returns:
        Columns: the four guard flags (bool), ``guards`` (label), ``seed``, ``plan_interval_s``,
        ``lock_losses_count`` and every :class:`RaceSummary` field (``endpoints_emptied`` joined by
        commas; ``empty_started_at_s`` and ``repaired_at_s`` are NaN when None).
    """
    configs = _listed("configs", configs)
    for c in configs:
        if not isinstance(c, RaceConfig):
            raise ConfigError(f"configs must hold RaceConfig values, got {type(c).__name__}")
    df = pd.DataFrame(map_items(_summary_row, configs, executor))
    return df.astype({"empty_started_at_s": "float64", "repaired_at_s": "float64"}) if len(df) else df


def guard_table(config: RaceConfig = INCIDENT, *, executor: Executor | None = None) -> pd.DataFrame:
    """The 16-row table: :func:`sweep` over :func:`guard_configs` of ``config``."""
    return sweep(guard_configs(config), executor=executor)


def seed_sweep(config: RaceConfig = INCIDENT, seeds: Iterable[int] = range(50), *,
               executor: Executor | None = None) -> pd.DataFrame:
    """:func:`sweep` over ``config`` with each seed in ``seeds`` (how often does the race fire?)."""
    _check_config(config)
    return sweep([replace(config, seed=s) for s in _listed("seeds", seeds)], executor=executor)


def _binned_regional(config: RaceConfig, bin_s: float) -> pd.DataFrame:
    """Regional record count per time bin (minimum within the bin, so short empty spells show)."""
    res = run(config)
    states = res.endpoint_states()
    reg = states.loc[states["endpoint"] == config.regional_endpoint, ["time_s", "records"]]
    edges = pd.DataFrame({"time_s": [i * bin_s for i in range(int(config.horizon_s // bin_s) + 1)]})
    # The state at each bin's start, plus every change inside the bin.
    at_start = pd.merge_asof(edges, reg.astype({"records": "int64"}), on="time_s", direction="backward")
    inside = reg.assign(time_s=(reg["time_s"] // bin_s) * bin_s).astype({"records": "int64"})
    binned = pd.concat([at_start, inside]).groupby("time_s", as_index=False)["records"].min()
    binned["time_min"] = binned["time_s"] / 60.0
    for name in GUARD_NAMES:
        binned[name] = getattr(config.guards, name)
    binned["guards"] = config.guards.label()
    binned["regional_empty_s"] = res.summary.regional_empty_s
    binned["alerts"] = res.summary.alerts
    binned["manual_repair"] = res.summary.repaired_at_s is not None
    return binned[[*GUARD_NAMES, "guards", "time_min", "records", "regional_empty_s", "alerts", "manual_repair"]]


def guard_explorer_data(config: RaceConfig = INCIDENT, *, bin_s: float = 120.0,
                        executor: Executor | None = None) -> pd.DataFrame:
    """Regional record count over time for all 16 guard combinations, binned, as one long table.

    Args:
        config: the base config (its guards are replaced).
        bin_s: bin width in seconds (>= 1); each bin keeps the smallest record count seen in it.
        executor: optional ``concurrent.futures.Executor``; ``None`` runs in this process.

    Returns:
        Columns: the four guard flags (bool), ``guards`` (label), ``time_min`` (float64, bin start
        in minutes), ``records`` (int64, fewest records in the bin), and that combination's
        ``regional_empty_s`` (float64), ``alerts`` (int64) and ``manual_repair`` (bool).
        16 * (horizon_s / bin_s + 1) rows at most.
    """
    _check_config(config)
    bin_s = check_number("bin_s", bin_s, lo=1, hi=86400)
    if config.horizon_s / bin_s > 300:
        raise ConfigError(f"bin_s={bin_s:g} gives more than 300 bins over horizon_s={config.horizon_s:g}; "
                          "use wider bins to keep the chart small")
    parts = map_items(partial(_binned_regional, bin_s=bin_s), guard_configs(config), executor)
    return pd.concat(parts, ignore_index=True)
