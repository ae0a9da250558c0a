"""A score that cannot be gamed: AWS's play, the posts' follower and every degenerate play, with their debriefs.

Each scripted player (``labsupport.game.PLAYERS``) is played to the end; its verdict and the
debrief's notes are asserted. The issue's rule: every degenerate play scores no better than AWS's
play, or the debrief says exactly why it would not have worked on the night.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from labsupport import chain, game, timeline
from labsupport.game import score

SAME, BETTER, WORSE = game.VERDICTS[3], game.VERDICTS[2], game.VERDICTS[4]


@pytest.fixture(scope="module")
def nights() -> dict[str, game.GameResult]:
    return {name: game.play(config) for name, config in game.players().items()}


def notes_of(nights, name: str) -> str:
    return "\n".join(game.notes(nights[name]))


def test_awss_play_is_its_own_yardstick_within_the_band_and_told_so(nights):
    aws = nights["AWS's play"]
    assert aws.summary.verdict == SAME and aws.summary.hindsight_count == 0
    assert (aws.impact["yours"] == aws.impact["aws_play"]).all()
    assert set(aws.score["verdict"]) == {"within the band"}  # no "47 min later" with no band
    # The band is the chain's calibration tolerance applied to the summary's impact periods.
    d = timeline.durations()
    ends = aws.score.set_index("stage")
    launches = d.at["launch_failures", "duration"].total_seconds()
    assert ends.at["Launches failing", "band_s"] == pytest.approx(0.2 * launches)
    assert ends.at["First status update", "band_s"] == 0.0
    assert chain.calibration()["within_tolerance"].all() and score.BAND_FRACTION == 0.2
    # Each stage's real end is within the band of the model's.
    for stage in chain.STAGES:
        assert abs(ends.at[stage, "aws_end_s"] - ends.at[stage, "aws_play_end_s"]) <= ends.at[stage, "band_s"], stage
    # AWS's own night has one note: what its failover window cost, shown by the NLB model.
    (note,) = game.notes(aws)
    assert "off from 9:36 AM to 2:09 PM" in note and "really failed for 30 minutes from 10:06 AM" in note
    cost = game.debrief.failover_cost(aws)
    assert cost is not None and cost.cost_off > cost.cost_on > 0  # the protection given up, in the model
    assert f"{cost.cost_off:.1f} connection-minutes with failover as you left it" in note


def test_a_team_that_follows_the_posts_is_not_over_and_learns_the_repair_was_quick_only_in_the_model(nights):
    posts = nights["A team that follows the posts"]
    assert posts.summary.verdict == "not over" and posts.summary.hindsight_count == 0  # every act had a post
    assert posts.score.set_index("stage").at["DynamoDB unreachable", "verdict"] == "within the band"
    # It never restarted DWFM and threw away its NLB failover for hours: more impact than AWS's play.
    impact = posts.impact.set_index("measure")
    assert impact.at["Customers' requests failing", "verdict"] == "more"
    assert impact.at["NLB connection errors", "verdict"] == "more"
    text = notes_of(nights, "A team that follows the posts")
    assert "DNS repaired at 2:01 AM, at once in the model" in text and "restored at 2:25 AM" in text
    assert "Automatic NLB failover was off" in text


def test_the_hindsight_player_is_better_in_the_model_and_told_why_it_would_not_have_been_on_the_night(nights):
    h = nights["Hindsight: DNS at 12:38 AM, DWFM restarted 15 minutes later"]
    assert h.summary.verdict == BETTER and h.summary.hindsight_count == 0  # the DNS alarm was on screen
    text = "\n".join(game.notes(h))
    assert "DNS repaired at 12:38 AM, at once in the model" in text and "15 minutes to find in the noise" in text


@pytest.mark.parametrize("name", game.DEGENERATE)
def test_every_degenerate_play_scores_no_better_than_awss_or_the_debrief_says_why(nights, name):
    r = nights[name]
    assert r.summary.verdict in game.VERDICTS
    if r.summary.verdict == BETTER:  # allowed only with the debrief's reason
        assert any("On the night" in n or "at once in the model" in n for n in game.notes(r)), name
    else:
        assert r.summary.verdict in ("hindsight", "not over", SAME, WORSE), name


def test_never_touching_failover_ends_the_nlb_stage_early_at_more_impact_and_says_so(nights):
    r, aws = nights["Never touches NLB failover"], nights["AWS's play"]
    ends, impact = r.score.set_index("stage"), r.impact.set_index("measure")
    assert ends.at["NLB connection errors", "verdict"] == "sooner"  # the stage end alone would reward it
    assert impact.at["NLB connection errors", "verdict"] == "more"  # the impact does not
    assert r.summary.verdict == WORSE  # customers' impact within the band, more NLB errors: worse
    (note,) = game.notes(r)
    assert "NLB failover on all through the NLB stage" in note and "ran to 2:09 PM" in note
    assert f"{impact.at['NLB connection errors', 'yours']:.0f} connection-minutes" in note
    assert aws.summary.nlb_end_s > r.summary.nlb_end_s


def test_a_network_throttle_is_no_better_and_its_stage_ends_at_the_relax(nights):
    r = nights["Takes a network throttle at 8:43 AM"]
    assert r.summary.verdict == SAME
    assert r.score.set_index("stage").at["Launches failing", "player_end_s"] == pytest.approx(
        game.CLOCK.seconds("11:21:08 AM"), abs=120
    )


def test_relaxing_a_minute_after_throttling_costs_what_the_model_says(nights):
    r = nights["Relaxes the throttle a minute after taking it"]
    assert r.summary.verdict == "not over" and not r.summary.over
    assert r.impact.set_index("measure").at["Customers' requests failing", "verdict"] == "more"
    assert r.chain.times.leases_back_s is None  # DWFM never recovers once its throttle is gone
    (note,) = game.notes(r)
    assert "relaxed at 4:15 AM" in note and "never all came back" in note


@pytest.mark.parametrize(
    ("name", "actions"),
    [
        ("Repairs DNS at 11:48 PM", ["Edit DNS records by hand: DynamoDB"]),
        (
            "Prevents the outage, throttles and relaxes a minute later",
            ["Edit DNS records by hand: DynamoDB", "Throttle incoming work: DWFM"],
        ),
        ("Turns NLB failover off at 5:30 AM", ["Turn off an automation: NLB, automatic AZ DNS failover"]),
        ("Turns NLB failover off and on before 5:28 AM", ["Turn off an automation: NLB, automatic AZ DNS failover"]),
    ],
)
def test_acting_before_anything_on_the_screen_points_to_it_is_hindsight(nights, name, actions):
    r = nights[name]
    assert r.summary.verdict == "hindsight"
    late = r.hindsight[r.hindsight["hindsight"]]
    assert list(late["label"]) == actions and late["evidence_s"].isna().all()
    text = "\n".join(game.notes(r))
    assert text.count("**Hindsight:**") == len(actions) and "does not compare this night" in text


def test_a_status_update_is_never_hindsight_and_never_ranks_a_night(nights):
    # A post acts on no model: at 11:48 PM, before any alarm, it made AWS's play "hindsight", and made a night
    # of doing nothing (960 customer-minutes, "not over") read "hindsight" instead of "not over".
    early, aws = nights["Posts a status update at 11:48 PM"], nights["AWS's play"]
    assert early.summary.verdict == aws.summary.verdict == SAME and early.summary.hindsight_count == 0
    assert "communicate" not in set(early.hindsight["action"]) and game.notes(early) == game.notes(aws)
    assert early.score.set_index("stage").at["First status update", "verdict"] == "sooner"  # beside it, unranked
    idle = game.play(game.GameConfig(clock_s=game.HORIZON_S))
    posted = game.play(game.GameConfig(actions=((0.0, "communicate"),), clock_s=game.HORIZON_S))
    assert idle.summary.verdict == posted.summary.verdict == "not over"
    assert posted.summary.customer_minutes == idle.summary.customer_minutes
    assert posted.impact.at[0, "verdict"] == "more"


def test_a_prevented_outage_scores_its_throttle_but_is_never_compared(nights):
    # The first half's note: a prevented outage plus a throttle relaxed a minute later read as a 2 h 28
    # min "whole event" (the throttle's unwinding). It still does; the verdict is hindsight, not a win.
    r = nights["Prevents the outage, throttles and relaxes a minute later"]
    assert r.chain.stages.empty and r.summary.over and r.summary.total_s == pytest.approx(2 * 3600 + 28 * 60, abs=60)
    assert r.summary.verdict == "hindsight"
    assert "restored at 2:25 AM" in "\n".join(game.notes(r))


def test_the_failover_what_if_costs_more_the_earlier_failover_goes_off(nights):
    early = game.debrief.failover_cost(nights["Turns NLB failover off at 5:30 AM"])
    aws = game.debrief.failover_cost(nights["AWS's play"])
    assert early is not None and aws is not None and early.off_s > aws.off_s
    assert early.cost_off > 0 and aws.cost_off > 0
    assert game.debrief.failover_cost(nights["Never touches NLB failover"]) is None


def test_impact_rows_and_verdicts_follow_the_band():
    hundred = dict.fromkeys((m for m, _ in score.IMPACT_ROWS), 100.0)
    t = score.impact_table(hundred, hundred)
    assert set(t["verdict"]) == {"within the band"}
    yours = {m: v for (m, _), v in zip(score.IMPACT_ROWS, (79.0, 81.0, 120.0, 121.0, 0.0), strict=True)}
    t = score.impact_table(yours, dict.fromkeys(yours, 100.0))
    assert list(t["verdict"]) == ["less", "within the band", "within the band", "more", "less"]
    assert score.compare(math.nan, 1.0, 5.0) == "n/a" and score.compare(0.0, 10.0, 5.0) == "sooner"
    assert list(t.columns) == ["measure", "unit", "yours", "aws_play", "band_low", "band_high", "verdict"]


def test_score_and_impact_frames_have_the_documented_columns(nights):
    r = nights["AWS's play"]
    assert list(r.score.columns) == [
        "stage", "player_end_s", "aws_end_s", "aws_id", "aws_tag", "saved_s", "impact_s", "aws_play_end_s", "band_s",
        "verdict",
    ]  # fmt: skip
    columns = ["time_s", "action", "label", "evidence", "evidence_s", "hindsight", "first_sign"]
    assert list(r.hindsight.columns) == columns
    assert r.hindsight["hindsight"].dtype == bool and str(r.hindsight["evidence"].dtype) == "string"
    pd.testing.assert_frame_equal(game.play(game.players()["AWS's play"]).impact, r.impact)
