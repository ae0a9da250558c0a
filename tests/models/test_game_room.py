"""The room: a team's night as a short code, read back exactly, and every team's night set beside AWS's."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labsupport import charts, game
from labsupport.errors import ConfigError
from labsupport.game import room

STEP = 300.0
entries = st.tuples(
    st.integers(0, int(game.HORIZON_S // STEP)).map(lambda k: k * STEP), st.sampled_from(game.ACTION_NAMES)
)


@settings(max_examples=60, deadline=None)
@given(log=st.lists(entries, max_size=25), clock=st.integers(0, 192), disguised=st.booleans())
def test_a_code_reads_back_the_night_exactly(log, clock, disguised):
    config = game.GameConfig(actions=tuple(log), clock_s=clock * STEP, disguised=disguised)
    code = room.export(config)
    assert code.startswith("GD1-") and room.load(code) == config
    assert room.load(code.lower().replace("-", " ")) == config  # read aloud, typed in lower case with spaces


def test_a_mistyped_altered_or_foreign_code_is_refused_by_name():
    code = room.export(game.GameConfig(actions=game.AWS_ACTIONS, clock_s=game.HORIZON_S))
    flipped = code[:-1] + ("A" if code[-1] != "A" else "B")
    for bad, message in [
        (flipped, "fails its check"),
        (code[:-3], "fails its check|length|letters"),
        ("GD2-" + code[4:], "starts with 'GD1'"),
        ("GD1-!!!!!", "letters A-Z"),
        ("", "starts with"),
        (42, "must be a string"),
        ("GD1-" + "A" * 5000, "at most 4000"),
    ]:
        with pytest.raises(ConfigError, match=message):
            room.load(bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="whole seconds"):
        room.export(game.GameConfig(actions=((1.5, "communicate"),)))


def test_a_code_cannot_claim_a_score_its_actions_did_not_earn():
    # A code holds only the log: the facilitator's machine replays it, so the score is the model's.
    night = game.players()["Never touches NLB failover"]
    compared = room.compare({"Team": room.export(night)}).set_index("team")
    assert compared.at["Team", "customer_minutes"] == pytest.approx(game.play(night).summary.customer_minutes)


def test_the_room_sets_every_team_beside_awss_play_and_draws_them_on_its_axis():
    plays = game.players()
    nights = {
        "Posts": room.export(plays["A team that follows the posts"]),
        "Early DNS": plays["Repairs DNS at 11:48 PM"],
        "Hindsight": plays["Hindsight: DNS at 12:38 AM, DWFM restarted 15 minutes later"],
    }
    table = room.compare(nights)
    assert list(table["team"]) == [room.AWS_TEAM, "Posts", "Early DNS", "Hindsight"]
    assert list(table.columns) == list(room.ROOM_COLUMNS)
    verdicts = dict(zip(table["team"], table["verdict"], strict=True))
    assert verdicts["Early DNS"] == "hindsight" and verdicts["Hindsight"] == game.VERDICTS[2]
    stages = room.stages(nights)
    assert set(stages["team"]) == set(table["team"]) - {"Early DNS"}  # a prevented outage has no stage
    chart = charts.game_room_chart(stages, table)
    bars, labels = charts.game_room_data(stages, table)
    assert bars["lane"].iloc[0] == "AWS, 19–20 Oct (summary)" and len(labels) == 4
    assert labels["lane"].iloc[2] == "Early DNS\n0 customer-min · hindsight"  # the score on a line of its own
    assert "The room" in chart.to_dict()["title"]["text"]
    with pytest.raises(ConfigError, match="team 'Bad'"):
        room.compare({"Bad": "GD1-AAAAA"})
    with pytest.raises(ConfigError, match="non-empty mapping"):
        room.compare({})
    with pytest.raises(ConfigError, match="scores lacks"):
        charts.game_room_data(stages, table.iloc[:1])
    assert isinstance(table, pd.DataFrame) and table["disguised"].dtype == bool


def test_the_room_chart_fits_a_book_column_with_every_verdict_shown():
    # Lab 07's room (every scripted player) drew 998 px wide in the book's ~690 px column, its lane labels
    # cut with "…" so that 4 of 12 verdicts were hidden.
    import re

    import vl_convert

    plays = {n: c for n, c in game.players().items() if n != "AWS's play"}
    table = room.compare(plays)
    svg = vl_convert.vegalite_to_svg(charts.game_room_chart(room.stages(plays), table).to_dict())
    assert float(re.search(r'<svg[^>]*\swidth="([\d.]+)"', svg).group(1)) <= 690
    texts = re.findall(r">([^<>]+)</(?:text|tspan)>", svg)  # a multi-line label: one tspan a line
    assert not [t for t in texts if "…" in t]
    _, labels = charts.game_room_data(room.stages(plays), table)
    for lane in labels["lane"]:
        assert lane.split("\n")[-1].replace("'", "&#39;") in texts  # the score line, whole
