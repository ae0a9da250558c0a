"""The checker's configuration: :class:`ExploreConfig` (bounds and guards) and :data:`INCIDENT`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .. import race
from .._validate import Config, check_bool, check_instance, check_int
from ..enactor import StepFunction, check_alone, check_step, incident_step
from ..errors import ConfigError
from ..race import Guards
from ..strategy import DeleteRequest, WriteRequest, check_strategy

__all__ = ["ExploreConfig", "GUARDS", "INCIDENT", "INCIDENT_STEP"]

#: The four guards, in the order of the course's stop points: the same tuple as
#: :data:`labsupport.race.GUARD_NAMES` (one vocabulary for both models).
GUARDS: tuple[str, ...] = race.GUARD_NAMES


@dataclass(frozen=True, kw_only=True)
class ExploreConfig(Config):
    """Bounds and guards of one exhaustive check.

    Attributes:
        enactor_count: DNS Enactors running the protocol (1-3; the PES says three).
        generation_count: plan generations the Planner can make, the initial plan 1 included (2-6).
        endpoint_count: endpoints each plan is applied to, walked in order (1-2: regional, ipv6).
        cleanup_keep_generations: cleanup deletes plans more than this many generations older than
            the plan just applied (0-4).
        guards: the four guards, a :class:`labsupport.race.Guards` (all off, as in October 2025).
        reduce_symmetry: count states that differ only in which Enactor is which as one state.
        max_states: stop with :class:`~labsupport.errors.LimitExceeded` beyond this many states
            (1-3,000,000; about 350 MB of memory per million states).
        conditional_write: the Enactor's write strategy, as :attr:`labsupport.race.RaceConfig.conditional_write`
            (``f(request: WriteRequest) -> bool``; ``None`` keeps guard 1's rule). The checker asks it
            once per (endpoint, active plan, new plan) in a run and keeps that answer, so a strategy
            that would answer differently a second time is checked on its first answers.
        cleanup_delete: the clean-up's delete strategy, a conditional delete (``f(request:
            DeleteRequest) -> bool``: ``True`` deletes the plan tree, ``False`` keeps it); ``None``
            keeps guards 2 and 3's rules. It replaces both guards, so neither may be on with it. The
            checker asks it once per (endpoint, plan, active plan, rollback plan, applied plan) in a
            run and keeps that answer, as for ``conditional_write``.
        enactor_step: a student's Enactor step, the generator function of :mod:`labsupport.enactor`
            (``step(plan, endpoints, keep, read, write, delete)``); ``None`` keeps the built-in
            walk and clean-up. It replaces the Enactor's code after its one-time check, so no guard
            and neither strategy may be on with it. The checker re-runs it from its start along
            the replies each Enactor got (replaying its prefix, as CHESS does) and refuses a step
            that yields other operations for the same replies.

    Raises:
        ConfigError: the first invalid field, its value and its range (every config's rule,
            :class:`~labsupport._validate.Config`).
    """

    enactor_count: int = 3
    generation_count: int = 4
    endpoint_count: int = 1
    cleanup_keep_generations: int = 1
    guards: Guards = field(default_factory=Guards)
    reduce_symmetry: bool = True
    max_states: int = 1_000_000
    conditional_write: Callable[[WriteRequest], bool] | None = None
    cleanup_delete: Callable[[DeleteRequest], bool] | None = None
    enactor_step: StepFunction | None = None

    def _check(self) -> None:
        check_int("enactor_count", self.enactor_count, lo=1, hi=3)
        check_int("generation_count", self.generation_count, lo=2, hi=6)
        check_int("endpoint_count", self.endpoint_count, lo=1, hi=2)
        check_int("cleanup_keep_generations", self.cleanup_keep_generations, lo=0, hi=4)
        check_instance("guards", self.guards, Guards)
        check_bool("reduce_symmetry", self.reduce_symmetry)
        check_int("max_states", self.max_states, lo=1, hi=3_000_000)
        check_strategy("conditional_write", self.conditional_write)
        if self.conditional_write is not None and self.guards.check_version_on_write:
            raise ConfigError(
                "conditional_write replaces guards.check_version_on_write: turn the guard off "
                "or leave conditional_write None"
            )
        check_strategy("cleanup_delete", self.cleanup_delete)
        on = [g for g in ("delete_only_unreferenced", "reject_empty_records") if getattr(self.guards, g)]
        if self.cleanup_delete is not None and on:
            raise ConfigError(
                f"cleanup_delete replaces guards.delete_only_unreferenced and guards.reject_empty_records: "
                f"turn {' and '.join(on)} off or leave cleanup_delete None"
            )
        check_step("enactor_step", self.enactor_step)
        check_alone(
            self.enactor_step,
            self.guards.label(),
            conditional_write=self.conditional_write,
            cleanup_delete=self.cleanup_delete,
        )


#: The protocol as it ran in October 2025 (no guards), at the course's default bounds:
#: 3 Enactors, 4 plan generations, 1 endpoint, cleanup of plans more than 1 generation older.
INCIDENT = ExploreConfig()

#: The protocol as it ran, written as a student's step (:func:`labsupport.enactor.incident_step`),
#: at bounds a replayed step can afford: 2 Enactors (the race needs two), 4 plan generations,
#: 1 endpoint, clean-up of plans more than 1 generation older. Lab 8's starting point.
INCIDENT_STEP = replace(INCIDENT, enactor_count=2, enactor_step=incident_step)
