"""Simulation internals of :mod:`labsupport.nlb`: the AZs, their health-check cells, DNS failover.

Not public: :func:`labsupport.nlb.run` calls :func:`simulate`, which builds a :class:`_Nlb` on the
environment :func:`labsupport._engine.simulate` makes, starts the simpy processes below (``prober``
per AZ, ``operator``, ``sampler``), steps them to the horizon and hands back an :class:`NlbRecord`.
See :mod:`labsupport.nlb` for the mechanism and its sources.
"""

from __future__ import annotations

import bisect
import itertools
import random
from dataclasses import dataclass, field

import numpy as np
import simpy

from .. import _engine
from .._validate import tick_s, to_ms
from ..network import NetworkResult
from ..strategy import FailoverRequest, RunBudget, call_strategy
from .checks import flap_transitions_per_check
from .config import NlbConfig

__all__ = ["SERIES", "NlbRecord", "simulate"]


@dataclass
class _Az:
    """One AZ of this NLB and its health-check cell."""

    index: int
    launched: list[float]  # fleet: sorted launch times of admitted launches in this AZ
    configured: list[float]  # fleet: sorted propagation times (inf if never)
    targets: list[tuple[int, float, float]]  # this NLB's new targets: (id, registered_s, configured_s)
    registered: int = 0  # how many of ``targets`` are registered so far
    in_service: list[bool] = field(default_factory=list)
    passes: list[int] = field(default_factory=list)
    fails: list[int] = field(default_factory=list)
    backlog_checks: float = 0.0
    latency_s: float = 0.0
    last_result_ms: int = 0  # probe tick (whole ms) of the newest result delivered
    weight: float = 1.0
    limited: bool = False

    def unconfigured(self, t: float) -> int:
        return bisect.bisect_right(self.launched, t) - bisect.bisect_right(self.configured, t)


class _Nlb:
    """The simulated NLB: AZs, health-check cells, DNS weights, the velocity-control ledger."""

    def __init__(self, env: simpy.Environment, cfg: NlbConfig, net: NetworkResult, rng: random.Random) -> None:
        self.env, self.cfg = env, cfg
        self.log: list[tuple[float, str, int, int, float]] = []
        self.rows: list[tuple] = []
        self.failover_on = cfg.automatic_failover
        self.removals: list[list] = []  # [time_ms, az, DNS weight removed, returned_s or None]
        self.flaps_since_sample = 0
        self.probes = 0
        self.flap_rate = flap_transitions_per_check(
            cfg.unconfigured_pass_fraction, cfg.healthy_threshold_count, cfg.unhealthy_threshold_count
        )
        # Two streams, one per purpose, so that nothing done at time t changes a draw made before it.
        # Target choice takes the run generator's first draws, one per launch of the network run,
        # refused or not: their number is fixed when the run starts (a throttle that refuses later
        # launches shifts no choice). The health checks' stream starts where target choice ends, and
        # its draws come in time order. (The incident's draws are those of the single stream before.)
        self.azs = self._build_azs(net, rng)
        self.rng = random.Random()
        self.rng.setstate(rng.getstate())
        # Times that are compared with each other are whole milliseconds: probe ticks, the failover
        # threshold and the velocity window. Float sums would decide ties by rounding error
        # (12.3 s x 20 ticks is 246.00000000000364 s > 246 s).
        self.interval_ms = to_ms(cfg.health_check_interval_s)
        self.threshold_ms = to_ms(cfg.failover_delay_threshold_s)
        self.window_ms = to_ms(cfg.removal_window_s)
        self.strategy_budget = RunBudget()  # the steps the run's failover_decision calls may take together

    def _build_azs(self, net: NetworkResult, choice: random.Random) -> list[_Az]:
        """The AZs and this NLB's new targets: each launch is one with ``target_share_fraction``'s chance
        (one draw of ``choice`` per launch, in launch order, refused or not), if it was admitted."""
        items = net.items
        every = items[items["is_launch"]]
        drawn = np.array([choice.random() < self.cfg.target_share_fraction for _ in range(len(every))], dtype=bool)
        admitted = ~every["refused"].to_numpy(dtype=bool)
        launches = every[admitted]
        configured_s = launches["propagated_s"].fillna(np.inf).to_numpy()
        chosen = drawn[admitted].tolist()
        azs = []
        for a in range(self.cfg.network.az_count):
            mask = (launches["az"] == a).to_numpy()
            targets = [
                (int(i), float(q), float(c))
                for i, q, c, pick, m in zip(
                    launches["item"], launches["queued_s"], configured_s, chosen, mask, strict=False
                )
                if pick and m
            ]
            azs.append(
                _Az(
                    a,
                    sorted(launches["queued_s"].to_numpy()[mask].tolist()),
                    sorted(configured_s[mask].tolist()),
                    targets,
                )
            )
        return azs

    def record(self, kind: str, az: int = -1, target: int = -1, value: float = 0.0) -> None:
        self.log.append((self.env.now, kind, az, target, value))

    # -- health checks -------------------------------------------------------------------------
    def probe_round(self, az: _Az, tick_ms: int) -> None:
        """Probe every registered target of ``az`` at tick ``tick_ms`` and queue the round's work."""
        cfg, t = self.cfg, tick_ms / 1000
        while az.registered < len(az.targets) and az.targets[az.registered][1] <= t:
            az.in_service.append(False)
            az.passes.append(0)
            az.fails.append(0)
            self.record("target_registered", az.index, az.targets[az.registered][0])
            az.registered += 1
        flapping = az.unconfigured(t) * cfg.fleet_targets_per_launch_count
        normal = cfg.fleet_targets_per_az_count
        work = normal + flapping * (1.0 + cfg.transition_work_checks * self.flap_rate)
        capacity = (1.0 + cfg.checker_headroom_fraction) * normal
        az.backlog_checks = max(0.0, az.backlog_checks + work - capacity)
        az.latency_s = az.backlog_checks / capacity * cfg.health_check_interval_s
        p = cfg.unconfigured_pass_fraction
        results = [t >= az.targets[j][2] or self.rng.random() < p for j in range(az.registered)]
        self.probes += az.registered
        if self.down(az, t):  # a failed AZ: the round's results never arrive (its draws are taken all the same)
            return
        if az.latency_s > 0:
            done = self.env.timeout(az.latency_s)

            def delivered(_ev: object, az: _Az = az, k: int = tick_ms, r: list[bool] = results) -> None:
                self.deliver(az, k, r)

            done.callbacks.append(delivered)
        else:
            self.deliver(az, tick_ms, results)

    def deliver(self, az: _Az, probe_ms: int, results: list[bool]) -> None:
        """Apply a round's results, unless a newer round's results arrived first."""
        if probe_ms < az.last_result_ms:
            return
        az.last_result_ms = probe_ms
        h, u = self.cfg.healthy_threshold_count, self.cfg.unhealthy_threshold_count
        for j, ok in enumerate(results):
            if ok:
                az.passes[j] += 1
                az.fails[j] = 0
                if not az.in_service[j] and az.passes[j] >= h:
                    az.in_service[j] = True
                    self.record("target_in_service", az.index, az.targets[j][0])
            else:
                az.fails[j] += 1
                az.passes[j] = 0
                if az.in_service[j] and az.fails[j] >= u:
                    az.in_service[j] = False
                    self.flaps_since_sample += 1
                    self.record("target_out_of_service", az.index, az.targets[j][0])

    def down(self, az: _Az, t: float) -> bool:
        """Whether ``az`` is really down at ``t`` (the first AZ, over the config's ``az_down_*`` window)."""
        at = self.cfg.az_down_at_s
        return az.index == 0 and at is not None and at <= t < at + self.cfg.az_down_s

    # -- DNS failover --------------------------------------------------------------------------
    def check_failover(self, az: _Az, now_ms: int) -> None:
        """Fail ``az`` over if its newest result is more than the threshold old, in whole ms.

        Tie rule: a result exactly ``failover_delay_threshold_s`` old is still fresh.
        """
        if not self.failover_on:
            return
        stale = now_ms - az.last_result_ms > self.threshold_ms
        decide = self.cfg.failover_decision
        if decide is not None:
            removed = sum((1.0 - a.weight) * self.share(a) for a in self.azs)
            stale = call_strategy(
                "failover_decision",
                decide,
                FailoverRequest(
                    az.index,
                    (now_ms - az.last_result_ms) / 1000,
                    self.cfg.failover_delay_threshold_s,
                    az.latency_s,
                    az.weight,
                    removed,
                ),
                run_budget=self.strategy_budget,
            )
        if stale and az.weight > 0:
            self.remove(az, now_ms)
        elif not stale and az.weight < 1:
            self.restore(az)

    def remove(self, az: _Az, now_ms: int) -> None:
        """Fail the AZ over: take its DNS weight out, within the fail-open and velocity limits."""
        cfg = self.cfg
        total = sum(a.weight for a in self.azs)
        want = min(az.weight, max(0.0, total - 1.0))  # DNS fails open: keep one AZ's worth
        share = self.share(az)
        grant = want
        if cfg.limit_capacity_removal:
            # A removal counts until it is back in DNS and a whole window (in ms) has passed.
            used = sum(
                w * self.share(self.azs[a])
                for t, a, w, back in self.removals
                if back is None or now_ms - t < self.window_ms
            )
            grant = min(want, max(0.0, cfg.max_removal_fraction - used) / share)
            if grant < want - 1e-9 and not az.limited:
                az.limited = True
                self.record("removal_limited", az.index, value=(want - grant) * share)
        if grant > 1e-9:
            az.weight -= grant
            self.removals.append([now_ms, az.index, grant, None])
            self.record("az_failover", az.index, value=grant * share)

    def share(self, az: _Az) -> float:
        """The AZ's fraction of the NLB's registered capacity."""
        est = self.cfg.targets_per_az_count
        return (est + az.registered) / sum(est + a.registered for a in self.azs)

    def restore(self, az: _Az) -> None:
        az.weight, az.limited = 1.0, False
        for r in self.removals:
            if r[1] == az.index and r[3] is None:
                r[3] = self.env.now
        self.record("az_restored", az.index)

    def set_failover(self, on: bool) -> None:
        self.failover_on = on
        self.record("failover_enabled" if on else "failover_disabled")
        if not on:
            for az in self.azs:
                if az.weight < 1:
                    self.restore(az)

    # -- observation ---------------------------------------------------------------------------
    def sample(self, t: float) -> None:
        """Record capacity, errors and load at ``t`` (capacity as a fraction of registered)."""
        cfg = self.cfg
        est = cfg.targets_per_az_count
        registered = sum(est + a.registered for a in self.azs)
        demand = cfg.demand_fraction * registered
        weights = sum(a.weight for a in self.azs)
        cap = work = failed = unconf = fleet_flaps = 0.0
        for az in self.azs:
            good = bad = 0
            for j in range(az.registered):
                configured = t >= az.targets[j][2]
                unconf += not configured
                if az.in_service[j]:
                    good += configured
                    bad += not configured
            up = 0.0 if self.down(az, t) else az.weight  # a failed AZ serves nothing
            cap += up * (est + good + bad)
            work += up * (est + good)
            fleet_flaps += az.unconfigured(t) * cfg.fleet_targets_per_launch_count * self.flap_rate
            if az.weight > 0:
                load = demand * az.weight / weights
                lost = load if self.down(az, t) else load * bad / (est + good + bad)
                failed += lost + max(0.0, load - lost - (est + good))
        per_min = 60.0 / cfg.health_check_interval_s
        removed = sum((1.0 - a.weight) * self.share(a) for a in self.azs)
        self.rows.append(
            (
                t,
                cap / registered,
                work / registered,
                cfg.demand_fraction,
                min(1.0, failed / demand),
                max(a.latency_s for a in self.azs),
                weights,
                removed,
                fleet_flaps * per_min / 2.0,
                self.flaps_since_sample * 60.0 / cfg.sample_interval_s,
                unconf,
            )
        )
        self.flaps_since_sample = 0


@dataclass(frozen=True)
class NlbRecord:
    """What one simulated run leaves for :func:`labsupport.nlb.run` to read.

    Attributes:
        log: the events ``(time_s, kind, az, target, value)``, as recorded.
        rows: the time-series rows ``(time_s, *SERIES)``, one per ``sample_interval_s``.
        steps: simpy events processed.
    """

    log: list[tuple[float, str, int, int, float]]
    rows: list[tuple]
    steps: int


def simulate(cfg: NlbConfig, net: NetworkResult) -> NlbRecord:
    """Run the NLB's probers, its operator and its sampler from 0 to ``cfg.network.horizon_s`` (closed).

    Args:
        cfg: the run's config.
        net: the Network Manager run whose propagation times the new targets get their network state at.

    Raises:
        LimitExceeded: the run needed more than ``cfg.max_events`` simulation steps plus target probes.
        ConfigError: the ``failover_decision`` raised, returned a non-bool or did not return.
    """

    def start(env: simpy.Environment) -> _Nlb:
        nlb = _Nlb(env, cfg, net, random.Random(cfg.seed))
        for az in nlb.azs:
            env.process(prober(env, nlb, az))
        env.process(operator(env, nlb))
        env.process(sampler(env, nlb))
        return nlb

    nlb, steps = _engine.simulate(
        start,
        cfg.network.horizon_s,
        max_events=cfg.max_events,
        count=lambda nlb, steps: steps + nlb.probes,
        counted="simulation steps plus target probes",
        advice="raise max_events, health_check_interval_s or lower target_share_fraction",
    )
    return NlbRecord(nlb.log, nlb.rows, steps)


def prober(env: simpy.Environment, nlb: _Nlb, az: _Az):
    """Every ``health_check_interval_s``, probe the AZ's targets and review its DNS failover.

    AZ ``i`` of ``n`` probes at ticks ``offset + k * interval`` (whole milliseconds, offset
    ``interval * i / n``), computed from ``k``, never by adding intervals up.
    """
    start_ms = round(nlb.interval_ms * az.index / len(nlb.azs))
    for k in itertools.count():
        tick_ms = start_ms + k * nlb.interval_ms
        yield env.timeout(max(0.0, tick_ms / 1000 - env.now))
        nlb.probe_round(az, tick_ms)
        nlb.check_failover(az, tick_ms)


def operator(env: simpy.Environment, nlb: _Nlb):
    """Turn automatic failover off and on at the configured times (9:36 AM and 2:09 PM)."""
    cfg = nlb.cfg
    actions = [
        (t, on) for t, on in ((cfg.disable_failover_at_s, False), (cfg.reenable_failover_at_s, True)) if t is not None
    ]
    for t, on in sorted(actions, key=lambda a: a[0]):
        yield env.timeout(t - env.now)
        nlb.set_failover(on)


def sampler(env: simpy.Environment, nlb: _Nlb):
    """Record one time-series row at ``k * sample_interval_s`` (whole ms), k = 1, 2, ... (not a running sum)."""
    for k in itertools.count(1):
        t = tick_s(k, nlb.cfg.sample_interval_s)
        yield env.timeout(max(0.0, t - env.now))
        nlb.sample(t)


SERIES = (
    "capacity_fraction",
    "working_capacity_fraction",
    "demand_fraction",
    "error_fraction",
    "check_latency_s",
    "dns_weight",
    "failover_removed_fraction",
    "fleet_flaps_per_min",
    "nlb_flaps_per_min",
    "unconfigured_targets_count",
)
