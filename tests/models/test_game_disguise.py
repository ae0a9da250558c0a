"""The disguised night: the same models and numbers, no real name or time on the screen until the debrief."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from labsupport import game
from labsupport.errors import ConfigError
from labsupport.game import disguise

#: Words that give the story away; none may reach a disguised screen before the debrief.
TELLS = re.compile(
    r"DynamoDB|dynamodb|DWFM|EC2|\bNLB|Lambda|\bSTS\b|Redshift|\bConnect\b|Support Center|us-east-1|AWS|Amazon|"
    r"droplet|Health Dashboard|October|11:48|PDT|Route 53|SQS",
)
LOG = (
    *game.AWS_ACTIONS,
    (300.0, "search_logs:Lambda"),
    (1200.0, "dependencies:DWFM"),
    (1800.0, "dns_lookup:DynamoDB"),
    (game.CLOCK.seconds("6:40 AM"), "metrics:NLB"),
    (game.CLOCK.seconds("7:00 AM"), "search_logs:Connect"),
    (game.CLOCK.seconds("4:30 AM"), "restart_hosts:STS"),
)


def shown_text(config: game.GameConfig) -> str:
    """Every word the panel shows before the debrief: its Markdown, its tables, its chart's spec."""
    from labsupport.widgets import game_view

    parts = []
    for item in game_view(config):
        if isinstance(item, pd.DataFrame):
            parts.append(item.to_csv())
        elif hasattr(item, "to_dict"):
            parts.append(json.dumps(item.to_dict()))
        else:
            parts.append(item.data)
    return "\n".join(parts)


@pytest.mark.parametrize("clock", ["12:30 AM", "5:00 AM", "9:00 AM", "3:48 PM"])
def test_a_disguised_screen_names_no_real_service_place_or_time(clock):
    config = game.GameConfig(actions=LOG, clock_s=game.CLOCK.seconds(clock), disguised=True)
    text = shown_text(config)
    assert TELLS.findall(text) == []
    assert "Ledger" in text and "Hostkeeper" in text  # the renamed services are there
    real = shown_text(game.GameConfig(actions=LOG, clock_s=game.CLOCK.seconds(clock)))
    assert "DynamoDB" in real  # and the real night does name them


def test_the_disguise_changes_names_and_times_never_a_number():
    night = game.play(game.GameConfig(actions=LOG, clock_s=game.HORIZON_S))
    masked = game.play(game.GameConfig(actions=LOG, clock_s=game.HORIZON_S, disguised=True))
    pd.testing.assert_frame_equal(night.signals, masked.signals)
    pd.testing.assert_frame_equal(night.score, masked.score)
    a, b = game.screen(night), game.screen(masked)
    pd.testing.assert_frame_equal(a.dashboards[["time_s", "value"]], b.dashboards[["time_s", "value"]])
    assert list(a.pager["time_s"]) == list(b.pager["time_s"]) and len(a.findings) == len(b.findings) == 5
    assert a.clock == "3:48 PM" and b.clock == "5:22 AM"  # 16 hours after 1:22 PM
    assert b.posts["text"].str.contains('"').sum() == 0  # no quotation marks: not a source's words


def test_the_debrief_reveals_the_night_with_every_name():
    from labsupport.widgets import game_view

    items = game_view(game.GameConfig(actions=LOG, clock_s=game.HORIZON_S, disguised=True), debrief=True)
    reveal = items[5].data
    assert reveal.startswith("**The night you played** was the AWS us-east-1 outage of 19–20 October 2025")
    for shown, real in disguise.reveal().itertuples(index=False):
        assert f"{shown} = {real}" in reveal or f"{shown} was {real}" in reveal
    assert "2026-03-04 13:22 (local time) was 2025-10-19 23:48 PDT" in reveal


def test_the_disguised_deck_hides_the_posts_sources_until_the_debrief_cards():
    cards = game.inject_cards(disguised=True)
    face_up = cards[cards["kind"].isin(["start", "post"])]
    text = " ".join(face_up[c].str.cat(sep=" ") for c in ("title", "text", "source", "tag", "prompt", "time"))
    assert TELLS.findall(text) == [] and (face_up["tag"] == "").all()
    real = game.inject_cards()
    face_down = cards[~cards["kind"].isin(["start", "post"])].reset_index(drop=True)
    pd.testing.assert_frame_equal(face_down, real[~real["kind"].isin(["start", "post"])].reset_index(drop=True))
    assert cards["time_s"].equals(real["time_s"])  # the same moments of the night
    assert list(cards.loc[cards["kind"] == "post", "time"]) == [
        disguise.DISGUISED.time(t) for t in game.engine.feed()["time_s"]
    ]
    with pytest.raises(ConfigError, match="disguised"):
        game.inject_cards(disguised="yes")  # type: ignore[arg-type]


def test_disguise_text_renames_whole_words_only():
    d = disguise.DISGUISED
    assert d.text("NLB connection errors; Connection; connected") == "EdgeLB connection errors; Connection; connected"
    assert d.text("dynamodb.us-east-1.amazonaws.com") == "ledger.north-2.example.net"
    assert d.text("AWS's operators") == "The provider's operators"
    assert disguise.NIGHT.text("AWS's operators") == "AWS's operators"
    with pytest.raises(ConfigError, match=r"result must be a labsupport\.game\.GameResult"):
        game.screen("not a result")  # type: ignore[arg-type]
