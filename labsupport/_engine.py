"""The one owner of the simpy models' set-up and run loop: make the environment, step every event
up to and including the horizon.

Each simpy model's ``engine.simulate(config)`` hands :func:`simulate` a function that builds its
actors on a new environment and starts their processes; :func:`simulate` makes that environment and
runs it with :func:`run_until`, so the package's rules hold in one place: the horizon is closed (an
event due at exactly ``horizon_s`` happens; nothing after it is processed), and a run that needs
more than its config's ``max_events`` raises :class:`~labsupport.errors.LimitExceeded` naming the
bound, the time reached and what to change::

    model.run(config) -> engine.simulate(config) -> _engine.simulate(start, horizon_s, bounds)
                                                       env = simpy.Environment(); start(env)
                                                       run_until(env, horizon_s, ...)
                         <- the engine's record <-      <- (actors, steps)

DWFM, Network Manager and the NLB run through :func:`simulate`; the race's engine (being reworked
on its own branch) still makes its environment and calls :func:`run_until` itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sized
from typing import TypeVar

import simpy

from .errors import LimitExceeded

__all__ = ["run_until", "simulate"]

_Actors = TypeVar("_Actors")


def simulate(
    start: Callable[[simpy.Environment], _Actors],
    horizon_s: float,
    *,
    max_events: int | None = None,
    count: Callable[[_Actors, int], int] | None = None,
    counted: str = "simulation steps",
    advice: str = "raise max_events or shorten horizon_s",
) -> tuple[_Actors, int]:
    """Make a simpy environment, start a model's actors on it, run it to ``horizon_s`` (closed).

    Args:
        start: builds the run's actors on the environment it is given and starts their processes;
            what it returns (the actors' shared state) is handed back.
        horizon_s: the end of the run, seconds (events at exactly ``horizon_s`` happen).
        max_events, counted, advice: as for :func:`run_until`.
        count: what is bounded, from the actors and the steps taken so far (the NLB: steps plus
            target probes); ``None`` bounds the steps themselves.

    Returns:
        ``(actors, steps)``: what ``start`` returned, after the run, and the simulation steps taken.

    Raises:
        LimitExceeded: the count exceeded ``max_events`` before the horizon.
    """
    env = simpy.Environment()
    actors = start(env)
    bound = None if count is None else (lambda steps: count(actors, steps))
    steps = run_until(env, horizon_s, max_events=max_events, count=bound, counted=counted, advice=advice)
    return actors, steps


def run_until(
    env: simpy.Environment,
    horizon_s: float,
    *,
    max_events: int | None = None,
    count: Callable[[int], int] | None = None,
    log: Sized | None = None,
    counted: str = "simulation steps",
    advice: str = "raise max_events or shorten horizon_s",
) -> int:
    """Process every event of ``env`` due at or before ``horizon_s``; return the simulation steps taken.

    Args:
        env: the run's environment, its processes started.
        horizon_s: the end of the run, seconds (closed: events at exactly ``horizon_s`` happen).
        max_events: the bound; ``None`` when the model charges its own work as it goes (DWFM counts
            work items and droplets read, not steps, and raises from inside its processes).
        count: what is bounded, computed after every step from the steps taken so far (the NLB:
            steps plus target probes); ``None`` bounds the steps themselves.
        log: bound the length of this log instead (the race bounds the events it logged); read
            with ``len()`` after every step, cheaper than a ``count`` call.
        counted: what ``count`` counts, for the message (``"events logged"``).
        advice: what the reader can change, for the message.

    Raises:
        LimitExceeded: the count exceeded ``max_events`` before the horizon.
    """
    step, peek, steps = env.step, env.peek, 0
    if max_events is None:  # the fast path: nothing to check per step
        while peek() <= horizon_s:
            step()
            steps += 1
        return steps
    if log is not None:
        while peek() <= horizon_s:
            step()
            steps += 1
            if len(log) > max_events:
                _limit(env, horizon_s, max_events, counted, advice)
        return steps
    if count is None:  # bound the steps themselves: no call per step
        while peek() <= horizon_s:
            step()
            steps += 1
            if steps > max_events:
                _limit(env, horizon_s, max_events, counted, advice)
        return steps
    while peek() <= horizon_s:
        step()
        steps += 1
        if count(steps) > max_events:
            _limit(env, horizon_s, max_events, counted, advice)
    return steps


def _limit(env: simpy.Environment, horizon_s: float, max_events: int, counted: str, advice: str) -> None:
    raise LimitExceeded(
        f"max_events={max_events} ({counted}) reached at t={env.now:.0f} s of horizon_s={horizon_s:g}; {advice}"
    )
