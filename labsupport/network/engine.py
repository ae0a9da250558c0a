"""The actors of the Network Manager model on a simpy clock, and :func:`simulate`, which runs them
(use :func:`labsupport.network.run`).

Scenario:
    One FIFO queue and one server stand for Network Manager's propagation pipeline. The
    ``network_manager`` process works through the queue in order; ``launcher`` adds new instances
    as a Poisson stream; ``retrier`` replays the launches that failed during the lease outage.
Covers:
    The PES's Network Manager section: the backlog of network state after DWFM recovered.

::

    backlog (at drain_start_s) --+
    launcher (Poisson) ----------+--> queue --network_manager, 60 / rate s each--> propagated
    retrier (thinning out) ------+      (admission: max_queue_count, shed_load_*, launch_admission)
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass

import numpy as np
import simpy

from .. import _engine
from ..strategy import LaunchRequest, RunBudget, call_strategy
from .config import NetworkConfig

__all__ = ["NetworkManager", "NetworkRecord", "launcher", "network_manager", "retrier", "simulate"]


@dataclass(frozen=True)
class NetworkRecord:
    """What one simulated run leaves for :func:`labsupport.network.run` to read.

    Attributes:
        log: the events ``(time_s, kind, item, az)``, as recorded.
        queued_s, propagated_s, az, refused: one entry per item, by item id: when it was queued (a
            launch's launch time), when it was propagated (NaN if not), its AZ (-1 for the backlog),
            whether admission refused it.
        peak_queue_count: most items waiting at once.
        steps: simpy events processed.
    """

    log: list[tuple]
    queued_s: list[float]
    propagated_s: list[float]
    az: list[int]
    refused: list[bool]
    peak_queue_count: int
    steps: int


def simulate(cfg: NetworkConfig) -> NetworkRecord:
    """Run Network Manager, the launcher and the retrier from 0 to ``cfg.horizon_s`` (closed).

    Raises:
        LimitExceeded: the run needed more than ``cfg.max_events`` simulation steps.
        ConfigError: the ``launch_admission`` raised, returned a non-bool or did not return.
    """
    rng = random.Random(cfg.seed)  # arrivals (gaps and AZs); the retries' stream is drawn from it first
    log: list[tuple] = []

    def start(env: simpy.Environment) -> NetworkManager:
        nm = NetworkManager(env, cfg, log, random.Random(f"{cfg.seed}:shed"))
        env.process(network_manager(env, nm))
        env.process(launcher(env, nm, rng))
        env.process(retrier(env, nm, random.Random(rng.random())))
        return nm

    nm, steps = _engine.simulate(
        start,
        cfg.horizon_s,
        max_events=cfg.max_events,
        advice="raise max_events or lower launch_rate_per_min/horizon_s",
    )
    return NetworkRecord(log, nm.queued_s, nm.propagated_s, nm.az, nm.refused, nm.peak, steps)


class NetworkManager:
    """One FIFO queue and one server: the propagation pipeline as a whole."""

    def __init__(self, env: simpy.Environment, cfg: NetworkConfig, log: list[tuple], shed: random.Random) -> None:
        self.env, self.cfg, self.log = env, cfg, log
        self.shed = shed  # the shedding decisions' own stream: a throttle changes no launch's arrival
        self.queue: deque[int] = deque()
        self.wake: simpy.Event | None = None
        self.queued_s: list[float] = []
        self.propagated_s: list[float] = []
        self.az: list[int] = []
        self.refused: list[bool] = []
        self.peak = 0
        self.in_service: int | None = None  # the item being propagated, if any
        self.strategy_budget = RunBudget()  # the steps the run's launch_admission calls may take together

    def new_item(self, az: int, refused: bool) -> int:
        item = len(self.queued_s)
        self.queued_s.append(self.env.now)
        self.propagated_s.append(np.nan)
        self.az.append(az)
        self.refused.append(refused)
        kind = "launch_refused" if refused else ("backlog_queued" if az < 0 else "launch_queued")
        self.log.append((self.env.now, kind, item, az))
        if not refused:
            self.queue.append(item)
            self.peak = max(self.peak, len(self.queue))
            if self.wake is not None and not self.wake.triggered:
                self.wake.succeed()
        return item

    def admits(self) -> bool:
        cfg = self.cfg
        if cfg.max_queue_count is not None and len(self.queue) >= cfg.max_queue_count:
            return False
        shedding = (
            cfg.shed_load_at_s is not None
            and self.env.now >= cfg.shed_load_at_s
            and (cfg.shed_load_until_s is None or self.env.now < cfg.shed_load_until_s)
        )
        if shedding and self.shed.random() < cfg.shed_load_fraction:
            return False
        if cfg.launch_admission is None:
            return True
        waiting = [*([] if self.in_service is None else [self.in_service]), *self.queue]
        oldest = self.env.now - self.queued_s[waiting[0]] if waiting else 0.0
        request = LaunchRequest(
            self.env.now - cfg.drain_start_s,
            len(waiting),
            oldest,
            60.0 / cfg.propagation_rate_per_min,
            cfg.launch_wait_limit_s,
        )
        return call_strategy("launch_admission", cfg.launch_admission, request, run_budget=self.strategy_budget)


def network_manager(env: simpy.Environment, nm: NetworkManager):
    """Work through the queue in order, one item every ``60 / propagation_rate_per_min`` seconds."""
    service_s = 60.0 / nm.cfg.propagation_rate_per_min
    yield env.timeout(nm.cfg.drain_start_s)
    for _ in range(nm.cfg.backlog_count):
        nm.new_item(-1, refused=False)
    while True:
        while not nm.queue:
            nm.wake = env.event()
            yield nm.wake
        item = nm.in_service = nm.queue.popleft()
        yield env.timeout(service_s)
        nm.in_service = None
        nm.propagated_s[item] = env.now
        nm.log.append((env.now, "propagated", item, nm.az[item]))


def launcher(env: simpy.Environment, nm: NetworkManager, rng: random.Random):
    """Launch new instances as a Poisson stream from ``drain_start_s``; each queues one item."""
    cfg = nm.cfg
    yield env.timeout(cfg.drain_start_s)
    if cfg.launch_rate_per_min <= 0:
        return
    mean_gap_s = 60.0 / cfg.launch_rate_per_min
    while True:
        gap_s = rng.expovariate(1.0) * mean_gap_s
        if env.now + gap_s > cfg.horizon_s:  # also ends a stream too slow to matter (gap = inf)
            return
        yield env.timeout(gap_s)
        az = rng.randrange(cfg.az_count)
        nm.new_item(az, refused=not nm.admits())


def retrier(env: simpy.Environment, nm: NetworkManager, rng: random.Random):
    """Replay the launches that failed during the lease outage, thinning out exponentially."""
    cfg = nm.cfg
    offsets = sorted(rng.expovariate(1.0 / cfg.retry_decay_s) for _ in range(cfg.retry_launches_count))
    yield env.timeout(cfg.drain_start_s)
    previous = 0.0
    for offset in offsets:
        yield env.timeout(offset - previous)
        previous = offset
        az = rng.randrange(cfg.az_count)
        nm.new_item(az, refused=not nm.admits())
