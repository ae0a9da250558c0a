"""labsupport._engine.run_until: the one run loop, its closed horizon and its ``max_events`` bound."""

from __future__ import annotations

import pytest
import simpy

from labsupport._engine import run_until
from labsupport.errors import LimitExceeded


def _ticking(every_s: float = 1.0) -> tuple[simpy.Environment, list[float]]:
    env, seen = simpy.Environment(), []

    def tick():
        while True:
            seen.append(env.now)
            yield env.timeout(every_s)

    env.process(tick())
    return env, seen


def test_the_horizon_is_closed_an_event_at_it_happens():
    env, seen = _ticking()
    run_until(env, 5.0)
    assert seen == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert env.peek() == 6.0


def test_the_same_steps_with_and_without_a_bound_that_holds():
    free_env, free_seen = _ticking()
    bounded_env, bounded_seen = _ticking()
    assert run_until(free_env, 5.0) == run_until(bounded_env, 5.0, max_events=1_000)
    assert free_seen == bounded_seen


def test_max_events_bounds_the_steps_and_the_message_says_what_to_change():
    env, _ = _ticking()
    with pytest.raises(LimitExceeded) as err:
        run_until(env, 100.0, max_events=5)
    message = str(err.value)
    assert message.startswith("max_events=5 (simulation steps) reached at t=")
    assert "horizon_s=100" in message and message.endswith("raise max_events or shorten horizon_s")
    assert isinstance(err.value, ValueError)  # a LimitExceeded is a ConfigError


def test_a_count_is_bounded_instead_of_the_steps():
    env, _ = _ticking()
    with pytest.raises(LimitExceeded, match=r"max_events=30 \(steps plus probes\) reached at t=\d+ s"):
        run_until(env, 100.0, max_events=30, count=lambda steps: steps * 3, counted="steps plus probes")


def test_a_log_is_bounded_by_its_length():
    env, seen = _ticking()
    with pytest.raises(LimitExceeded, match=r"max_events=4 \(events logged\).*; shorten horizon_s"):
        run_until(env, 100.0, max_events=4, log=seen, counted="events logged", advice="shorten horizon_s")
    assert len(seen) == 5
