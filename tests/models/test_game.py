"""The game-day model: the players' log through the chain, scored against the real night."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labsupport import chain, game, network, timeline
from labsupport._memo import clear_run_cache
from labsupport.errors import ConfigError
from labsupport.game import (
    ACTION_NAMES,
    ACTIONS,
    AWS_ACTIONS,
    FINAL_SUMMARY,
    HORIZON_S,
    SCORE_ROWS,
    SIGNALS,
    STEPS_S,
    GameConfig,
    play,
    search,
)
from labsupport.game import model as game_model
from labsupport.game import night as game_night

END = GameConfig(clock_s=HORIZON_S)


@pytest.fixture(scope="module")
def aws() -> object:
    return play(replace(END, actions=AWS_ACTIONS))


@pytest.fixture(scope="module")
def idle() -> object:
    return play(END)


def test_scripted_aws_player_reproduces_each_stage_within_the_chains_calibration(aws):
    d = timeline.durations()
    stages = aws.chain.stages.set_index(aws.chain.stages["stage"].astype(str))
    tolerance = 0.2  # the chain's calibration tolerance (labsupport.chain.calibration)
    for stage, interval in (
        ("DynamoDB unreachable", "dynamodb_errors"),
        ("Launches failing", "launch_failures"),
        ("NLB connection errors", "nlb_period"),
    ):
        pes = d.at[interval, "duration"].total_seconds()
        model = stages.at[stage, "duration_s"]
        assert abs(model / pes - 1) <= tolerance, (stage, model, pes)
    assert aws.summary.over
    assert abs(aws.summary.total_s / d.at["whole_event", "duration"].total_seconds() - 1) <= tolerance
    score = aws.score.set_index("stage")
    for row in SCORE_ROWS:
        assert abs(score.at[row, "saved_s"]) <= tolerance * score.at[row, "aws_end_s"], row
    assert score.at["First status update", "player_end_s"] == score.at["First status update", "aws_end_s"]


def test_scripted_player_matches_the_chains_own_operator_rules(aws):
    ruled = chain.run(chain.INCIDENT)
    for a, b in zip(aws.chain.stages["end_s"], ruled.stages["end_s"], strict=True):
        assert abs(a - b) <= 0.2 * b


def test_idle_player_gets_the_unattended_outcome(idle):
    unattended = chain.run(chain.INCIDENT, operators=chain.OperatorActions(horizon_s=HORIZON_S))
    pd.testing.assert_frame_equal(idle.chain.stages, unattended.stages)
    assert not idle.summary.over and idle.summary.total_s is None
    assert idle.summary.dynamodb_end_s is None
    dynamo = idle.chain.stages.set_index(idle.chain.stages["stage"].astype(str)).loc["DynamoDB unreachable"]
    assert dynamo["end_s"] >= HORIZON_S
    assert idle.chain.summary.truncated and not idle.chain.summary.dwfm_operators_acted
    assert idle.score["player_end_s"].isna().all()


def test_player_who_acts_earlier_than_aws_ends_the_dynamodb_stage_earlier(aws):
    early = tuple((t - 3600 if n == "repair_dns" else t, n) for t, n in AWS_ACTIONS)
    res = play(replace(END, actions=early))
    assert res.summary.dynamodb_end_s < aws.summary.dynamodb_end_s - 3000


def test_throttling_without_relaxing_never_ends_the_event(aws):
    log = tuple(e for e in AWS_ACTIONS if e[1] != "relax_throttles")
    res = play(replace(END, actions=log))
    assert not res.summary.over and res.summary.total_s is None and res.summary.over_at_s is None
    assert res.chain.times.ec2_recovered_s is None  # a throttle in force: EC2 never counts as recovered
    assert aws.chain.times.ec2_recovered_s is not None


def test_failover_left_disabled_is_flagged_and_not_over():
    log = tuple(e for e in AWS_ACTIONS if e[1] != "reenable_failover")
    s = play(replace(END, actions=log)).summary
    assert s.failover_left_disabled and not s.over


def test_actions_in_any_order_give_the_same_score(aws):
    shuffled = list(AWS_ACTIONS)
    random.Random(3).shuffle(shuffled)
    again = play(replace(END, actions=tuple(shuffled)))
    pd.testing.assert_frame_equal(again.score, aws.score)


def test_an_action_taken_twice_counts_once(aws):
    twice = play(replace(END, actions=(*AWS_ACTIONS, (40_000.0, "repair_dns"), (40_000.0, "throttle_ec2"))))
    pd.testing.assert_frame_equal(twice.score, aws.score)
    repeats = twice.actions[twice.actions["time_s"] == 40_000.0]
    assert list(repeats["outcome"]) == ["already taken", "already in force"]


def test_an_undo_withdraws_an_action_taken_at_its_own_clock_time(idle):
    undone = play(replace(END, actions=((600.0, "repair_dns"), (600.0, "undo"))))
    pd.testing.assert_frame_equal(undone.score, idle.score)
    assert list(undone.actions["outcome"]) == ["withdrawn", "undo"]
    nothing = play(replace(END, actions=((0.0, "undo"),)))
    assert list(nothing.actions["outcome"]) == ["nothing to undo"]


def test_relax_and_reenable_out_of_order_are_ignored_with_a_reason(idle):
    res = play(replace(END, actions=((0.0, "relax_throttles"), (0.0, "reenable_failover"))))
    assert list(res.actions["outcome"]) == ["no throttle to relax", "failover not disabled"]
    pd.testing.assert_frame_equal(res.score, idle.score)


def test_every_action_at_1148_pm_gives_the_models_result():
    res = play(replace(END, actions=tuple((0.0, n) for n in ACTION_NAMES if n != "undo")))
    assert set(res.score["stage"]) == set(SCORE_ROWS)
    assert res.summary.first_update_s == 0.0


@pytest.mark.parametrize(
    "bad, field",
    [
        ({"clock_s": HORIZON_S + 1}, "clock_s"),
        ({"clock_s": -1.0}, "clock_s"),
        ({"actions": ((0.0, "panic"),)}, "action"),
        ({"actions": ((HORIZON_S + 60, "repair_dns"),)}, "time_s"),
        ({"actions": ((float("nan"), "repair_dns"),)}, "time_s"),
        ({"actions": ("repair_dns",)}, "actions[0]"),
        ({"actions": "repair_dns"}, "actions"),
        ({"horizon_s": 10.0}, "horizon_s"),
        ({"horizon_s": HORIZON_S + 1.0}, "horizon_s"),  # the charts draw 16 hours
    ],
)
def test_bad_configs_raise_config_error_naming_the_field(bad, field):
    with pytest.raises(ConfigError, match=field.replace("[", r"\[").replace("]", r"\]")):
        GameConfig(**bad)


def test_clock_stops_at_the_horizon_and_steps_are_the_three_allowed():
    g = GameConfig(clock_s=HORIZON_S - 300)
    assert g.advance(3600).clock_s == HORIZON_S
    assert g.advance(3600).advance(300).clock_s == HORIZON_S
    with pytest.raises(ConfigError, match="step_s"):
        g.advance(120)
    assert STEPS_S == (300.0, 900.0, 3600.0)
    assert g.take("communicate").actions == ((HORIZON_S - 300, "communicate"),)


def test_play_refuses_what_is_not_a_game_config():
    with pytest.raises(ConfigError, match="GameConfig"):
        play({"actions": ()})  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="operators"):
        chain.run(chain.INCIDENT, operators={"dns_repair_at_s": 0})  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="dns_repair_at_s"):
        chain.OperatorActions(dns_repair_at_s=-5)


def test_runs_are_deterministic(aws):
    clear_run_cache()
    for cached in (game_model._signals, game_model._alarms, game_model._series, game_model._night, game_model._scored):
        cached.cache_clear()
    again = play(replace(END, actions=AWS_ACTIONS))
    pd.testing.assert_frame_equal(again.score, aws.score)
    pd.testing.assert_frame_equal(again.dashboards, aws.dashboards)
    pd.testing.assert_frame_equal(again.signals, aws.signals)
    assert again.summary == aws.summary


def test_dashboards_show_only_operator_signals_up_to_the_clock():
    res = play(GameConfig(actions=AWS_ACTIONS, clock_s=4 * 3600.0))
    d = res.dashboards
    assert list(d.columns) == ["time_s", "time_pdt", "panel", "signal", "unit", "value", "source", "note"]
    assert d["time_s"].dtype == "float64" and d["value"].dtype == "float64"
    assert d["time_s"].max() <= 4 * 3600.0
    assert set(zip(d["panel"], d["signal"], d["unit"], strict=True)) <= set(SIGNALS)
    assert set(d["source"]) == {"model"}
    assert (res.feed["time_s"] <= 4 * 3600.0).all() and set(res.feed["tag"]) == {"OTHER"}
    assert not res.feed["event"].str.contains("final summary").any()
    assert d.loc[d["signal"] == "API error rate", "value"].max() == pytest.approx(1.0)


def test_every_action_row_is_tagged_with_awss_source_or_as_the_models(aws):
    a = aws.actions
    assert a["aws_time_s"].notna().all() and a["aws_tag"].isin(list(timeline.TAGS)).all()
    assert (a["effect"].str.len() > 0).all()
    assert (aws.score["aws_tag"].isin(list(timeline.TAGS))).all()


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.sampled_from([0.0, 3600.0, 9000.0, 20_000.0, 40_000.0, HORIZON_S]), st.sampled_from(ACTION_NAMES)),
        max_size=8,
    )
)
def test_any_log_of_valid_actions_plays_to_a_result(log):
    res = play(GameConfig(actions=tuple(log), clock_s=HORIZON_S))
    assert list(res.score["stage"]) == list(SCORE_ROWS)
    assert len(res.actions) == len(log)


def test_network_shedding_stops_when_the_throttle_is_relaxed():
    cfg = replace(network.INCIDENT, shed_load_at_s=3600.0, shed_load_until_s=7200.0)
    items = network.run(cfg).items
    refused = items.loc[items["refused"], "queued_s"]
    assert len(refused) and refused.min() >= 3600.0 and refused.max() < 7200.0
    with pytest.raises(ConfigError, match="shed_load_until_s"):
        replace(network.INCIDENT, shed_load_at_s=3600.0, shed_load_until_s=1800.0)


def test_search_finds_a_player_at_least_as_fast_as_the_real_night(aws):
    found = search(budget=6)
    assert len(found) == 6 and found["tried"].iloc[0] >= 0
    best = found.iloc[0]
    assert best["over"] and best["total_s"] <= aws.summary.total_s
    assert found.loc[found["tried"] == 0, "total_s"].iloc[0] == pytest.approx(aws.summary.total_s)


def test_search_respects_the_earliest_times_it_is_given():
    found = search(budget=4, not_before={"repair_dns": 3000.0})
    for log in found["log"]:
        assert all(t >= 3000.0 for t, n in log if n == "repair_dns")
    with pytest.raises(ConfigError, match="not_before"):
        search(budget=2, not_before={"panic": 0.0})
    with pytest.raises(ConfigError, match="budget"):
        search(budget=0)


def test_facilitator_plans_run_without_gaps_to_60_and_90_minutes():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "chapters" / "instructor-guide" / "game-day.md").read_text(
        encoding="utf-8"
    )
    for length in (60, 90):
        section = text.split(f"## The {length}-minute plan", 1)[1].split("\n## ", 1)[0]
        spans = [
            tuple(int(h) * 60 + int(m) for h, m in re.findall(r"(\d+):(\d\d)", row.split("|")[1]))
            for row in section.splitlines()
            if re.match(r"\| \d+:\d\d–\d+:\d\d \|", row)
        ]
        assert spans and spans[0][0] == 0 and spans[-1][1] == length, (length, spans)
        assert all(a[1] == b[0] for a, b in itertools.pairwise(spans)), spans


def test_inject_cards_are_the_start_each_post_and_each_of_awss_actions_in_deck_order(aws):
    from labsupport.game import CARD_KINDS, inject_cards

    cards = inject_cards()
    assert list(cards.columns) == [
        "card", "time_s", "time", "kind", "title", "text", "source", "tag", "effect", "prompt"
    ]  # fmt: skip
    assert cards["card"].dtype == "int64" and cards["time_s"].dtype == "float64"
    assert all(str(cards[c].dtype) == "string" for c in cards.columns[2:] if c != "time_s")
    assert cards["card"].tolist() == list(range(1, len(cards) + 1))
    assert list(cards["kind"].unique()) == list(CARD_KINDS)
    for kind in CARD_KINDS:  # within a kind, by time; a card with no time last
        times = cards.loc[cards["kind"] == kind, "time_s"]
        timed = times.dropna()
        assert timed.is_monotonic_increasing and times.iloc[: len(timed)].notna().all(), kind
    start = cards[cards["kind"] == "start"]
    assert len(start) == 1 and start["time_s"].iloc[0] == 0.0
    # one card per post the players see over the whole game, at the post's time, with its text and tag
    posts, feed = cards[cards["kind"] == "post"], aws.feed
    assert posts["time_s"].tolist() == feed["time_s"].tolist()
    assert posts["text"].tolist() == feed["event"].tolist() and posts["tag"].tolist() == feed["tag"].tolist()
    # one face-down card per action of AWS's night, at AWS's time, tagged as the timeline row is ...
    debrief = cards[cards["kind"] == "debrief"]
    timed = debrief[debrief["time_s"].notna()]
    assert sorted(timed["time_s"].tolist()) == sorted(t for t, _ in AWS_ACTIONS)
    played = aws.actions[aws.actions["in_effect"]]
    assert sorted(zip(timed["time_s"], timed["tag"], strict=True)) == sorted(
        zip(played["aws_time_s"], played["aws_tag"], strict=True)
    )
    # ... and one, with no time, per action the sources give no time for: tagged UNVERIFIED, undated
    undated = debrief[debrief["time_s"].isna()]
    assert list(undated["time"]) == ["no time given"] * len(undated) and set(undated["tag"]) == {"UNVERIFIED"}
    assert len(undated) == sum(1 for a in ACTIONS if a.aws_note) == 1
    assert (debrief["effect"].str.len() > 0).all() and (cards.loc[cards["kind"] != "debrief", "effect"] == "").all()
    assert cards["prompt"].notna().all() and cards.groupby("kind")["prompt"].nunique().eq(1).all()
    # the Dashboard's final summary only face down, for the debrief, said to be written afterwards
    later = cards[cards["kind"] == "afterwards"]
    assert len(later) == len(FINAL_SUMMARY) and later["title"].str.contains("Written afterwards").all()
    assert not posts["text"].str.contains("12:26|3:01 PM").any() and later["text"].str.contains("12:26").any()


def test_the_facilitator_packs_posts_are_the_games_feed_and_the_final_summary_is_only_the_debriefs():
    import re
    from pathlib import Path

    from labsupport.game.engine import feed, final_summary

    text = (Path(__file__).resolve().parents[2] / "chapters" / "instructor-guide" / "game-day.md").read_text(
        encoding="utf-8"
    )
    step = text.split("- **At each post:**", 1)[1].split("\n- **", 1)[0]
    listed = re.findall(r"^  - (\d{1,2}:\d\d [AP]M):", step, re.M)
    assert listed == list(feed()["time"])  # the posts made during the event, in order
    later = set(final_summary()["time"])
    assert later.isdisjoint(listed) and "12:26 AM" in later


def test_every_health_dashboard_row_is_a_post_or_a_line_of_the_final_summary():
    rows = timeline.load(services="Health Dashboard")
    posts = {i for i, _ in game_night.POSTS}
    afterwards = {i for ids, _ in FINAL_SUMMARY for i in ids}
    assert set(rows["id"]) == posts | afterwards and posts.isdisjoint(afterwards)
    tagged = rows.set_index("id")
    assert set(tagged["tag"]) == {"OTHER"}
    assert tagged.loc[sorted(afterwards), "event"].str.contains("final summary").all()
    assert not tagged.loc[sorted(posts), "event"].str.contains("final summary").any()


def test_no_unverified_action_is_given_a_time():
    rows = timeline.load().set_index("id")
    for action in ACTIONS:
        if action.aws_id:
            assert rows.at[action.aws_id, "tag"] != "UNVERIFIED", action.name
        assert bool(action.aws_note) <= (not action.aws_id), action.name
    throttle = next(a for a in ACTIONS if a.name == "throttle_network")
    assert throttle.aws_id == "" and "[UNVERIFIED]" in throttle.aws_note
    assert "throttle_network" not in {n for _, n in AWS_ACTIONS}


def test_the_facilitator_packs_reading_of_the_score_says_what_the_model_does():
    from pathlib import Path

    from labsupport.game import debrief

    text = (Path(__file__).resolve().parents[2] / "chapters" / "instructor-guide" / "game-day.md").read_text(
        encoding="utf-8"
    )
    section = text.split("## Reading the score", 1)[1].split("\n## ", 1)[0]
    assert f"({game.BAND_FRACTION:.0%} :".replace("% :", " %:") in section.replace("\n", " ")
    plays = game.players()
    never = play(plays["Never touches NLB failover"])
    aws = play(plays["AWS's play"])
    assert "ends the NLB stage hours earlier, at more connection errors" in " ".join(section.split())
    assert aws.summary.nlb_end_s - never.summary.nlb_end_s > 3 * 3600
    assert never.impact.set_index("measure").at["NLB connection errors", "verdict"] == "more"
    assert "identified at 12:38 AM and DNS restored at 2:25 AM" in " ".join(section.split())
    early = play(plays["Repairs DNS at 11:48 PM"])
    assert any("12:38 AM" in n and "2:25 AM" in n for n in debrief.notes(early))
    for verdict in ("better than", "the same as", "worse than AWS's play", "not over", "hindsight"):
        assert verdict in " ".join(section.split())
