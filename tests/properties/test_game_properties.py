"""The game as properties: causality for random plays, and random players that never break it.

* **Causality.** For a random play and a random time ``t``, actions added at or after ``t`` change
  no signal (dashboards and every signal an alarm could read), no alarm, no investigation's finding,
  no post and no earlier action's outcome shown before ``t``, on the real night's screen and on the
  disguised one's. Hypothesis draws the plays (derandomized: the same examples in every run,
  ``tests/conftest.py``), investigations and remedies that do nothing in the model among them;
  each example plays two nights.
* **Random players.** Seeded players step the clock, act, repeat themselves, undo (at once and
  too late) and act at the horizon, as the panel lets them: every night gives a result that keeps
  the game's own rules, or the course's ``ConfigError``, never another exception.

Run time: the file plays about 280 nights of the chain model (40 examples x 2, 200 players);
sub-model runs are shared through the package's run memo, which the players' common actions
hit. Measured on the project's 2-core machine while other jobs shared it: 43-59 s of CPU for
the file (74-200 s wall), the causality property a sixth of it, the rest four even chunks of 50
players (pytest-xdist can run the chunks on two workers).
"""

from __future__ import annotations

import random

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labsupport import game
from labsupport.errors import ConfigError
from labsupport.game import ACTION_NAMES, HORIZON_S, SCORE_ROWS, STEPS_S, GameConfig, play
from labsupport.game.engine import OUTCOMES

STEP_S = 300.0
#: Moments a night often turns on: the posts, AWS's times, the leases' return, the horizon.
MOMENTS_S = sorted({0.0, HORIZON_S, *game.engine.feed()["time_s"], *(t for t, _ in game.AWS_ACTIONS)})

times = st.one_of(st.integers(0, int(HORIZON_S // STEP_S)).map(lambda k: k * STEP_S), st.sampled_from(MOMENTS_S))
COST = {a.name: a.cost_s for a in game.ACTIONS}
#: The actions that act on the models, drawn as often as all the others together.
ACTING = tuple(a.name for a in game.ACTIONS if a.field or a.name in ("relax_throttles", "undo", "communicate"))
entries = st.tuples(times, st.one_of(st.sampled_from(ACTING), st.sampled_from(ACTION_NAMES)))
#: A night: a few entries, and usually a DNS repair in the first hours (without one nothing recovers).
nights = st.tuples(
    st.lists(entries, max_size=6),
    st.one_of(st.none(), st.integers(0, 48).map(lambda k: (k * STEP_S, "repair_dns"))),
).map(lambda p: tuple(p[0]) + ((p[1],) if p[1] else ()))


def _before(result: game.GameResult, cut_s: float) -> list[pd.DataFrame]:
    """Everything the model shows before ``cut_s``, and everything the (disguised) screen shows then."""

    def early(frame: pd.DataFrame, column: str = "time_s") -> pd.DataFrame:
        return frame[frame[column] < cut_s].reset_index(drop=True)

    acts = result.actions
    seen = game.screen(result)
    return [
        early(result.signals),
        early(result.alarms),
        early(result.findings),
        early(result.feed),
        acts.loc[acts["time_s"] < cut_s, ["time_s", "action", "outcome", "in_effect"]].reset_index(drop=True),
        *(early(f) for f in (seen.posts, seen.pager, seen.findings, seen.dashboards, seen.log)),
    ]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(night=nights, later=st.lists(entries, min_size=1, max_size=4), cut=times, disguised=st.booleans())
def test_an_action_at_t_changes_nothing_shown_before_t(night, later, cut, disguised):
    earlier = tuple(e for e in night if e[0] < cut)
    after = tuple((max(t, cut), name) for t, name in later)
    a = play(GameConfig(actions=earlier, clock_s=HORIZON_S, disguised=disguised))
    b = play(GameConfig(actions=earlier + after, clock_s=HORIZON_S, disguised=disguised))
    for seen, again in zip(_before(a, cut), _before(b, cut), strict=True):
        pd.testing.assert_frame_equal(seen, again)


def random_player(seed: int) -> GameConfig:
    """One player's night, played as the panel lets it: clock steps, actions and investigations (which move
    the clock on), repeats, undos, the horizon; every other player on the disguised night."""
    rng = random.Random(seed)
    clock, log = 0.0, []
    if rng.random() < 0.7:  # most teams repair DNS at some point in the first hours
        log.append((float(rng.randrange(0, 49)) * STEP_S, "repair_dns"))
    while len(log) < 9:
        move = rng.random()
        if move < 0.35:
            clock = min(clock + rng.choice(STEPS_S), HORIZON_S)
        elif move < 0.4:
            clock = HORIZON_S  # the facilitator drags the clock to the end
        elif move < 0.55 and log:
            log.append((clock, log[-1][1]))  # the same action again
        elif move < 0.65:
            log.append((clock, "undo"))
        else:
            name = rng.choice(ACTING if rng.random() < 0.5 else ACTION_NAMES)
            log.append((clock, name))
            clock = min(clock + COST[name], HORIZON_S)  # an investigation moves the clock on, as the panel does
        if clock >= HORIZON_S and rng.random() < 0.5:
            break
    return GameConfig(actions=tuple(log), clock_s=clock, disguised=bool(seed % 2))


def _keeps_the_rules(config: GameConfig, result: game.GameResult) -> None:
    s, h = result.summary, config.horizon_s
    assert list(result.score["stage"]) == list(SCORE_ROWS)
    assert len(result.actions) == len(config.actions) and set(result.actions["outcome"]) <= set(OUTCOMES)
    for shown in (result.signals, result.feed, result.alarms, result.findings):
        assert (shown["time_s"] <= config.clock_s).all()
    assert s.verdict in game.VERDICTS and 0 <= s.hindsight_count <= len(config.actions)
    assert s.over == (s.total_s is not None) == (s.over_at_s is not None)
    if s.over:
        assert 0.0 <= s.total_s <= s.over_at_s <= h
    for end in (s.dynamodb_end_s, s.launches_end_s, s.nlb_end_s):
        assert end is None or 0.0 <= end <= h
    posted = result.actions[(result.actions["action"] == "communicate") & result.actions["in_effect"]]
    assert s.first_update_s == (float(posted["time_s"].min()) if len(posted) else None)


@pytest.mark.parametrize("chunk", range(4))
def test_random_players_get_a_result_or_a_config_error(chunk):
    """Four chunks of 50 seeded players: 200 nights."""
    for seed in range(chunk * 50, (chunk + 1) * 50):
        config = random_player(seed)
        try:
            result = play(config)
        except ConfigError as err:  # the course's refusal, naming what it refuses
            assert str(err), seed
            continue
        _keeps_the_rules(config, result)
        assert game.screen(result).clock == game.disguise.of(config.disguised).time(config.clock_s)
        earlier = play(GameConfig(actions=config.actions, clock_s=config.clock_s / 2))  # the same run, earlier
        pd.testing.assert_frame_equal(earlier.score, result.score)
