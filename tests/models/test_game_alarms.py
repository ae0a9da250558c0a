"""The pager and the investigations: noise fed by the models' signals, and findings that cost game time."""

from __future__ import annotations

import pandas as pd
import pytest

from labsupport import dependencies, game
from labsupport.errors import ConfigError
from labsupport.game import alarms, investigate
from labsupport.game.alarms import ALARMS

CAUSE = next(a.name for a in ALARMS if a.points_to == "dns:DynamoDB")


def frame(points: dict[tuple[str, str], list[tuple[float, float]]]) -> pd.DataFrame:
    rows = [(t, p, s, v) for (p, s), samples in points.items() for t, v in samples]
    return pd.DataFrame(rows, columns=["time_s", "panel", "signal", "value"])


def test_an_alarm_fires_after_its_datapoints_in_a_row_and_clears_after_as_many_below():
    # "DynamoDB: API error rate above 5 %" needs 3 minutes in a row: a one-minute spike does nothing,
    # and a breach from minute 4 fires at minute 6 and clears at the third minute without one (10, 11, 12).
    sig = frame({("DynamoDB", "API error rate"): [(0, 0.0), (120, 0.5), (180, 0.0), (240, 0.6), (600, 0.0)]})
    ev = alarms.evaluate(sig, 900.0)
    ev = ev[ev["alarm"] == "DynamoDB: API error rate above 5 %"]
    assert list(zip(ev["time_s"], ev["state"], strict=True)) == [(360.0, "ALARM"), (720.0, "OK")]
    assert list(ev.columns) == list(alarms.ALARM_COLUMNS)


def test_the_alarm_that_points_to_the_cause_fires_first_and_is_lost_among_the_symptoms():
    r = game.play(game.GameConfig(actions=game.AWS_ACTIONS, clock_s=game.CLOCK.seconds("11:53 PM")))
    fired = r.alarms[r.alarms["state"] == "ALARM"]
    assert fired["alarm"].iloc[0] == CAUSE and fired["time_s"].iloc[0] == 60.0  # 11:49 PM
    assert len(fired) >= 9  # by the first step of the clock, nine alarms or more
    pointing = [a for a in ALARMS if a.name in set(fired["alarm"]) and a.points_to == "dns:DynamoDB"]
    assert len(pointing) == 1  # one of them points to the cause
    seen = game.screen(r)
    assert seen.firing["alarm"].iloc[-1] == CAUSE  # newest first: the cause's alarm is at the bottom


def test_one_symptom_alarm_per_service_that_requires_dynamodb_in_the_dependency_graph():
    edges = dependencies.load()
    requires = edges[
        (edges["dependency"] == "DynamoDB")
        & (edges["kind"] == "requires")
        & (edges["dependent_region"] == "us-east-1")
        & (edges["tag"] != "UNVERIFIED")
    ]
    services = set(requires["dependent"]) - {"EC2 instance launches"}  # EC2 has its own alarm, on the model
    assert {
        a.system for a in ALARMS if a.reading.startswith("a symptom: ") and a.system not in ("DynamoDB", "EC2")
    } == {alarms._NODE_SYSTEM[s] for s in services if s in alarms._NODE_SYSTEM}
    assert len(services - set(alarms._NODE_SYSTEM)) == 0


def test_the_pager_keeps_ringing_later_in_the_night():
    r = game.play(game.GameConfig(actions=game.AWS_ACTIONS, clock_s=game.HORIZON_S))
    flaps = r.alarms[r.alarms["alarm"] == "NLB: health checks flapping"]
    assert (flaps["state"] == "ALARM").sum() > 10  # it fires and clears again and again
    assert set(r.alarms["alarm"]) <= {a.name for a in ALARMS}


def test_an_investigation_moves_the_clock_and_its_finding_comes_back_then():
    start = game.GameConfig(actions=(), clock_s=600.0)
    looked = start.take("dns_lookup:DynamoDB")
    assert looked.clock_s == 900.0 and looked.actions == ((600.0, "dns_lookup:DynamoDB"),)
    assert start.take("repair_dns").clock_s == 600.0  # a remedy takes no time
    at_end = game.GameConfig(clock_s=game.HORIZON_S - 300.0).take("search_logs:DWFM")
    assert at_end.clock_s == game.HORIZON_S  # the clock stops at the horizon; the finding never comes
    assert game.play(at_end).findings.empty
    r = game.play(looked)
    (f,) = r.findings.itertuples()
    assert (f.time_s, f.started_s, f.points_to) == (900.0, 600.0, "dns:DynamoDB")
    assert "no addresses" in f.text and "NOERROR" in f.text
    assert game.play(game.GameConfig(actions=looked.actions, clock_s=899.0)).findings.empty  # not yet back


def test_findings_tell_the_night_as_the_models_have_it():
    aws = game.AWS_ACTIONS
    after = game.CLOCK.seconds("3:00 AM")
    log = (*aws, (600.0, "search_logs:Lambda"), (after, "dns_lookup:DynamoDB"), (after, "search_logs:DWFM"))
    log += ((game.CLOCK.seconds("6:40 AM"), "search_logs:NLB"), (1200.0, "restart_hosts:Lambda"))
    found = game.play(game.GameConfig(actions=log, clock_s=game.HORIZON_S)).findings.set_index("action")
    assert "dynamodb.us-east-1.amazonaws.com does not resolve" in found.at["search_logs:Lambda", "text"]
    assert found.at["dns_lookup:DynamoDB", "text"].endswith("addresses returned.")  # repaired at 2:25 AM
    assert "timed out and queued again" in found.at["search_logs:DWFM", "text"]  # the collapse, in figures
    assert "targets registered in the last hours (new instances)" in found.at["search_logs:NLB", "text"]
    played = game.play(game.GameConfig(actions=log, clock_s=game.HORIZON_S))
    idle = played.actions.set_index("action").at["restart_hosts:Lambda", "outcome"]
    assert idle == "taken" and "restart_hosts:Lambda" not in set(found.index)  # a remedy finds nothing


def test_every_investigation_and_remedy_pair_is_offered_and_nothing_else():
    for a in game.ACTIONS:
        assert game.action_for(a.verb, a.system) is a
        assert (a.kind == "investigation") == (a.verb in game.INVESTIGATIONS) == (a.cost_s > 0)
        assert a.system in ("", *game.SYSTEMS)
    assert game.action_for("edit_dns", "DWFM") is None
    acting = {a.name for a in game.ACTIONS if a.field}
    assert acting == {
        "stop_automation", "repair_dns", "throttle_ec2", "restart_dwfm", "throttle_network", "disable_failover",
        "reenable_failover",
    }  # fmt: skip
    for a in game.ACTIONS:  # a remedy names what it does to a system, never the night's answer
        assert "DynamoDB's DNS records" not in a.label and "(DWFM admission control)" not in a.label
    with pytest.raises(ConfigError, match=r"actions\[0\] action must be one of the game's actions"):
        game.GameConfig(actions=((0.0, "search_logs:Mars"),))


def test_findings_frame_has_the_documented_columns_and_dtypes():
    r = game.play(game.GameConfig(actions=((0.0, "metrics:DWFM"),), clock_s=600.0))
    assert list(r.findings.columns) == list(investigate.FINDING_COLUMNS)
    assert r.findings["time_s"].dtype == "float64" and str(r.findings["text"].dtype) == "string"
