"""The chain's operators: a strategy the one pipeline asks before each model what people do.

:class:`Operators` is the protocol; :data:`RULES` (:class:`OperatorRules`, rules A-C relative to the
models' state, the chain's default) and :class:`OperatorActions` (actions at fixed times: the
game-day lab's players) are its two kinds. Import them from :mod:`labsupport.chain`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from .._validate import Config, check_number, show
from ..errors import ConfigError
from .config import ChainConfig, _pes_gap_s

__all__ = ["RULES", "OperatorActions", "OperatorRules", "Operators"]


#: PES interval from the EC2 engineers starting to relax request throttles (11:23 AM) to all EC2 APIs
#: and launches normal (1:50 PM): how long unwinding the throttles takes in an operated run.
def _unwind_default() -> float:
    return _pes_gap_s("ec2-throttles-relaxed", "ec2-normal")


class Operators(Protocol):
    """The operators, as the chain asks them: one question before each model that people act on.

    :func:`labsupport.chain.run` runs its models in order (race, DNS caches, DWFM, Network
    Manager, NLB) through one pipeline and asks its operators, before each, what they do, given
    what the runs before it show. Every time is seconds on the chain clock (11:48 PM PDT); the
    chain moves it onto each model's own clock (:class:`labsupport.clock.Shift`). Two kinds ship:
    :data:`RULES` (rules A-C, relative to the model's state; the default) and
    :class:`OperatorActions` (actions at fixed times: the game's players).
    """

    def run_horizon_s(self, cfg: ChainConfig) -> float | None:
        """How long the operated run lasts (every model is stretched to it), or ``None``: the models' own."""
        ...

    def dns_repair_s(self, cfg: ChainConfig) -> float | None:
        """When DNS is repaired by hand (the race's ``manual_repair_after_s``), or ``None``: the race config's own."""
        ...

    def dwfm_s(self, cfg: ChainConfig, restored_s: float | None) -> tuple[float | None, float | None, float | None]:
        """(throttle, throttle relaxed, restart) of DWFM, given when DNS was restored (``None``: it was
        never empty); a throttle relaxed at ``None`` stays."""
        ...

    def shedding_s(self, cfg: ChainConfig) -> tuple[float | None, float | None] | None:
        """Network Manager sheds new launches over [start, end) (``None`` end: to the horizon), or ``None``:
        the network config's own shedding."""
        ...

    def ec2_recovered_s(
        self, cfg: ChainConfig, normal_s: float | None, run_end_s: float, dwfm_acted: bool
    ) -> float | None:
        """When EC2 counts as recovered, given propagation normal (``None``: not by ``run_end_s``, the network
        run's end) and whether DWFM's operators acted; ``None``: not in this run."""
        ...

    def failover_s(
        self, cfg: ChainConfig, first_failover_s: float | None, ec2_recovered_s: float | None
    ) -> tuple[float | None, float | None]:
        """(disable, re-enable) of NLB automatic AZ failover, given the first AZ failover of a run without
        either (``None``: none seen, or not asked yet) and when EC2 recovered."""
        ...


@dataclass(frozen=True)
class OperatorRules:
    """The chain's operator rules A, B and C, each relative to the model's state (see :mod:`labsupport.chain`).

    Their delays are the :class:`ChainConfig` fields named below, PES intervals by default. Setting a
    sub-config's operator time to ``None`` removes that action: ``dwfm.operator_throttle_at_s`` and
    ``dwfm.operator_restart_at_s`` (rule A), ``nlb.disable_failover_at_s`` (rule B) and
    ``nlb.reenable_failover_at_s`` (the re-enable of rule C).
    """

    def run_horizon_s(self, cfg: ChainConfig) -> float | None:
        return None

    def dns_repair_s(self, cfg: ChainConfig) -> float | None:
        return None

    def dwfm_s(self, cfg: ChainConfig, restored_s: float | None) -> tuple[float | None, float | None, float | None]:
        """Rule A: throttle and restart ``dwfm_operator_delay_s`` after DNS is restored (the throttle stays)."""
        act = None if restored_s is None else restored_s + cfg.dwfm_operator_delay_s
        base = cfg.dwfm
        return (
            None if base.operator_throttle_at_s is None else act,
            None,
            None if base.operator_restart_at_s is None else act,
        )

    def shedding_s(self, cfg: ChainConfig) -> tuple[float | None, float | None] | None:
        return None

    def ec2_recovered_s(
        self, cfg: ChainConfig, normal_s: float | None, run_end_s: float, dwfm_acted: bool
    ) -> float | None:
        """Rule C: propagation normal (or the run's end), plus ``ec2_throttle_relax_s`` if set by hand."""
        manual = dwfm_acted or not cfg.relax_only_after_manual_throttle
        return (run_end_s if normal_s is None else normal_s) + (cfg.ec2_throttle_relax_s if manual else 0.0)

    def failover_s(
        self, cfg: ChainConfig, first_failover_s: float | None, ec2_recovered_s: float | None
    ) -> tuple[float | None, float | None]:
        """Rule B: disable ``nlb_disable_delay_s`` after the first failover, if EC2 has not recovered by then;
        rule C: re-enable ``nlb_reenable_delay_s`` after EC2 recovered."""
        if cfg.nlb.disable_failover_at_s is None or first_failover_s is None or ec2_recovered_s is None:
            return (None, None)
        off = first_failover_s + cfg.nlb_disable_delay_s
        if off >= ec2_recovered_s:
            return (None, None)
        on = None if cfg.nlb.reenable_failover_at_s is None else max(off, ec2_recovered_s + cfg.nlb_reenable_delay_s)
        return (off, on)


#: The chain's default operators: rules A-C.
RULES = OperatorRules()

_ACTION_FIELDS: tuple[str, ...] = (
    "automation_stopped_at_s",
    "dns_repair_at_s",
    "ec2_throttle_at_s",
    "ec2_throttle_relaxed_at_s",
    "dwfm_restart_at_s",
    "network_throttle_at_s",
    "network_throttle_relaxed_at_s",
    "failover_disabled_at_s",
    "failover_reenabled_at_s",
)
#: Each action that ends an earlier one, and the action it ends.
_ENDS: dict[str, str] = {
    "ec2_throttle_relaxed_at_s": "ec2_throttle_at_s",
    "network_throttle_relaxed_at_s": "network_throttle_at_s",
    "failover_reenabled_at_s": "failover_disabled_at_s",
}


@dataclass(frozen=True, kw_only=True)
class OperatorActions(Config):
    """Operators' actions at fixed times, replacing the chain's operator rules A, B and C.

    Every time is seconds on the chain clock (since 11:48 PM PDT, 19 Oct), or ``None`` for an
    action never taken. Passed to :func:`labsupport.chain.run` as ``operators=``; without it the
    chain runs its rules, unchanged. Each action reaches a model at its time on that model's clock
    (:class:`labsupport.clock.Shift`): taken before the model's run starts, it is in force from the
    start; taken after the run's horizon, it never happens.

    Attributes:
        automation_stopped_at_s: the DNS Enactor automation is stopped. In the model the regional
            record, once empty, stays empty whatever the Enactors do (the race model's inconsistent
            state), so stopping them changes nothing downstream; the time is recorded.
        dns_repair_at_s: DynamoDB's DNS records repaired by hand (the race model's
            ``manual_repair_after_s``, counted from 11:48 PM, when the record went empty).
            ``None``: never, so the regional endpoint stays empty until ``horizon_s``.
        ec2_throttle_at_s, ec2_throttle_relaxed_at_s: incoming work to DWFM throttled (DWFM's
            ``operator_throttle_at_s``: admission control on DWFM's queues; new launches meet
            "request limit exceeded") and that throttle relaxed (DWFM's
            ``operator_throttle_until_s``: admission control off again; it also counts for EC2's
            recovery, below).
        dwfm_restart_at_s: DWFM hosts restarted selectively (DWFM's ``operator_restart_at_s``).
        network_throttle_at_s, network_throttle_relaxed_at_s: network propagation work throttled:
            over [throttled, relaxed) a share of new launches is refused before it reaches Network
            Manager (the network model's ``shed_load_*``); relaxed at the throttle's own time, it
            refuses none.
        failover_disabled_at_s, failover_reenabled_at_s: NLB automatic AZ failover disabled and
            re-enabled (the NLB model's ``disable_failover_at_s``/``reenable_failover_at_s``); both
            before the NLB's run starts, failover is back on from its start.
        unwind_s: seconds from relaxing the last request throttle to EC2 normal (default the PES's
            11:23 AM to 1:50 PM, 0 to a week). With any throttle taken, EC2 counts as recovered
            ``unwind_s`` after the later of propagation normal and the last relax, and never if a
            throttle is never relaxed.
        horizon_s: how long the operated run lasts on the chain clock (3,600 s to 2 days); every
            sub-model's horizon is stretched to cover it where needed.

    Raises:
        ConfigError: a time outside [0, ``horizon_s``] (the message names the field), a relax or
            re-enable without its throttle or disable at or before it, a bad ``unwind_s`` or
            ``horizon_s``.
    """

    automation_stopped_at_s: float | None = None
    dns_repair_at_s: float | None = None
    ec2_throttle_at_s: float | None = None
    ec2_throttle_relaxed_at_s: float | None = None
    dwfm_restart_at_s: float | None = None
    network_throttle_at_s: float | None = None
    network_throttle_relaxed_at_s: float | None = None
    failover_disabled_at_s: float | None = None
    failover_reenabled_at_s: float | None = None
    unwind_s: float = field(default_factory=_unwind_default)
    horizon_s: float = 16 * 3600.0

    def _check(self) -> None:
        check_number("horizon_s", self.horizon_s, lo=3600, hi=2 * 86_400)
        check_number("unwind_s", self.unwind_s, lo=0, hi=7 * 86_400)
        for name in _ACTION_FIELDS:
            value = getattr(self, name)
            if value is not None:
                check_number(name, value, lo=0, hi=self.horizon_s, hi_name="horizon_s")
        for end, start in _ENDS.items():
            at, since = getattr(self, end), getattr(self, start)
            if at is not None and (since is None or at < since):
                raise ConfigError(f"{end}={at:g} needs {start} at or before it, got {show(since)}")

    @staticmethod
    def action_fields() -> tuple[str, ...]:
        """The names of the fields that hold an action's time, in the order an operator's night meets them."""
        return _ACTION_FIELDS

    def throttled_at_s(self) -> float | None:
        """The first request throttle (EC2 launches or network work), or ``None``."""
        times = [t for t in (self.ec2_throttle_at_s, self.network_throttle_at_s) if t is not None]
        return min(times) if times else None

    def relaxed_at_s(self) -> float | None:
        """When the last throttle taken was relaxed, or ``None`` if none was taken or one is still in force."""
        pairs = [
            (self.ec2_throttle_at_s, self.ec2_throttle_relaxed_at_s),
            (self.network_throttle_at_s, self.network_throttle_relaxed_at_s),
        ]
        taken = [(a, b) for a, b in pairs if a is not None]
        if not taken or any(b is None for _, b in taken):
            return None
        return max(b for _, b in taken if b is not None)

    # -- the Operators protocol: the same actions whatever the models show ---------------------
    def run_horizon_s(self, cfg: ChainConfig) -> float | None:
        return self.horizon_s

    def dns_repair_s(self, cfg: ChainConfig) -> float | None:
        return self.horizon_s if self.dns_repair_at_s is None else self.dns_repair_at_s

    def dwfm_s(self, cfg: ChainConfig, restored_s: float | None) -> tuple[float | None, float | None, float | None]:
        return (self.ec2_throttle_at_s, self.ec2_throttle_relaxed_at_s, self.dwfm_restart_at_s)

    def shedding_s(self, cfg: ChainConfig) -> tuple[float | None, float | None] | None:
        return (self.network_throttle_at_s, self.network_throttle_relaxed_at_s)

    def ec2_recovered_s(
        self, cfg: ChainConfig, normal_s: float | None, run_end_s: float, dwfm_acted: bool
    ) -> float | None:
        if self.throttled_at_s() is None:
            return normal_s
        relaxed = self.relaxed_at_s()
        return None if relaxed is None or normal_s is None else max(normal_s, relaxed) + self.unwind_s

    def failover_s(
        self, cfg: ChainConfig, first_failover_s: float | None, ec2_recovered_s: float | None
    ) -> tuple[float | None, float | None]:
        return (self.failover_disabled_at_s, self.failover_reenabled_at_s)
