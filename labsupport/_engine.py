"""The one run loop of the simpy models: step every event up to and including the horizon.

Every simpy model (race, dwfm, network, nlb) runs its environment with :func:`run_until`, so the
package's rules hold in one place: the horizon is closed (an event due at exactly ``horizon_s``
happens; nothing after it is processed), and a run that needs more than its config's
``max_events`` raises :class:`~labsupport.errors.LimitExceeded` naming the bound, the time reached
and what to change.
"""

from __future__ import annotations

from collections.abc import Callable, Sized

import simpy

from .errors import LimitExceeded

__all__ = ["run_until"]


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
