"""Rule C's throttle-relaxation interval as its own setting, and stop point 5's saving split by it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from labsupport import chain
from labsupport.chain import INCIDENT, StopPoints

FIVE = replace(INCIDENT, stop_points=StopPoints.of(5))


def test_the_incident_reading_is_the_default():
    assert INCIDENT.relax_only_after_manual_throttle is True


def test_the_incident_is_the_same_either_way_because_its_operators_acted():
    as_read = chain.run(INCIDENT).summary
    always = chain.run(replace(INCIDENT, relax_only_after_manual_throttle=False)).summary
    assert as_read.dwfm_operators_acted and as_read == always


def test_with_stop_point_5_the_setting_moves_only_the_ec2_recovered_time():
    as_read = chain.run(FIVE).summary
    always = chain.run(replace(FIVE, relax_only_after_manual_throttle=False)).summary
    assert not as_read.dwfm_operators_acted
    # Skipping the interval moves "EC2 recovered" by exactly the interval ...
    assert always.ec2_recovered_at_s - as_read.ec2_recovered_at_s == INCIDENT.ec2_throttle_relax_s
    assert as_read.ec2_recovered_at_s == as_read.propagation_normal_at_s
    # ... but no stage ends on it: failover was never disabled, so the NLB stage does not wait for it.
    assert not as_read.nlb_failover_disabled and not always.nlb_failover_disabled
    assert (always.total_s, always.launches_s, always.nlb_s) == (as_read.total_s, as_read.launches_s, as_read.nlb_s)


def test_stop_point_5_split_adds_up_and_names_its_parts():
    split = chain.stop_point_5_split()
    assert list(split.columns) == ["part", "saved_s", "saved_fraction"]
    assert list(split["part"]) == ["measured", "assumed", "total"]
    assert [str(t) for t in split.dtypes] == ["string", "float64", "float64"]
    by = split.set_index("part")["saved_s"]
    incident, five = chain.run(INCIDENT).summary.total_s, chain.run(FIVE).summary.total_s
    assert by["total"] == pytest.approx(incident - five) and by["total"] > 0
    assert by["measured"] + by["assumed"] == pytest.approx(by["total"])
    # In this model the whole saving is measured: the interval switched off shortens no stage.
    assert by["assumed"] == 0 and by["measured"] == by["total"]


def test_bad_values_are_refused_naming_the_field():
    with pytest.raises(ValueError, match="relax_only_after_manual_throttle"):
        replace(INCIDENT, relax_only_after_manual_throttle=1)
    with pytest.raises(ValueError, match="ChainConfig"):
        chain.stop_point_5_split("incident")
