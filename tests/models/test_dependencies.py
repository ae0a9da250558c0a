"""Stop point 6: the dependency graph as data, its sources, and the blast-radius query."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from labsupport import charts
from labsupport import dependencies as deps

ROOT = Path(__file__).resolve().parents[2]


def failing(radius: pd.DataFrame, region: str | None = None) -> set[str]:
    rows = radius[radius["status"] == "fails"]
    if region is not None:
        rows = rows[rows["region"] == region]
    return set(rows["service"])


@pytest.fixture(scope="module")
def radius():
    return deps.blast_radius("DynamoDB", "us-east-1")


def test_edges_are_typed_tagged_and_sourced():
    edges = deps.load()
    assert str(edges["tag"].dtype) == "category" and list(edges["tag"].cat.categories) == list(deps.TAGS)
    assert set(edges["kind"]) <= set(deps.KINDS)
    assert set(edges["dependent_region"]) | set(edges["dependency_region"]) <= set(deps.REGIONS)
    bib = set(re.findall(r"^@\w+\{([^,]+),", (ROOT / "references.bib").read_text(encoding="utf-8"), re.M))
    for row in edges.itertuples():
        assert row.source.strip(), row
        if row.tag != "UNVERIFIED":
            keys = row.cite.split(",")
            assert keys and set(keys) <= bib, row


def test_the_summary_named_features_are_in_the_graph():
    edges = deps.load()
    pairs = set(zip(edges["dependent"], edges["dependent_region"], strict=True))
    assert ("Console sign-in (root or federated via signin.aws.amazon.com)", "other Regions") in pairs
    assert {("Redshift queries with IAM user credentials", r) for r in deps.REGIONS} <= pairs
    support = edges[edges["dependent"] == "AWS Support Center"]
    assert "fails over to" in set(support["kind"])
    assert "Account-metadata subsystem" in set(support["dependency"])
    glob = edges[edges["dependent"].str.startswith("DynamoDB global tables")]
    assert len(glob) == 2 and (glob["tag"] == "OTHER").all()
    assert all("seed-ja" in c for c in glob["cite"])


def test_unverified_items_are_flagged_and_left_out_by_default(radius):
    edges = deps.load()
    identity = edges[edges["dependent"].str.contains("Identity Center")]
    assert len(identity) == 1 and identity["unverified"].all()
    assert not deps.load(include_unverified=False)["unverified"].any()
    assert not radius["service"].str.contains("Identity Center").any()
    flagged = deps.what_fails_with("DynamoDB", "us-east-1", include_unverified=True)
    row = flagged[flagged["service"].str.contains("Identity Center")]
    assert list(row["weakest_tag"].astype(str)) == ["UNVERIFIED"]


def test_dynamodb_in_us_east_1_fails_features_in_other_regions(radius):
    outside = failing(radius, "other Regions")
    assert outside == {
        "Console sign-in (root or federated via signin.aws.amazon.com)",
        "Redshift queries with IAM user credentials",
        "AWS Support Center",
        "Account-metadata subsystem",
    }
    status = radius.set_index(["service", "region"])["status"]
    assert status[("DynamoDB global tables: reads and writes at a replica", "other Regions")] == "keeps working"
    assert status[("DynamoDB global tables: replication with us-east-1", "other Regions")] == "degraded"
    assert status[("Redshift queries as local database users", "other Regions")] == "keeps working"
    assert status[("NLB health checks", "us-east-1")] == "fails"


def test_every_answer_carries_the_weakest_tag_on_its_path(radius):
    rows = radius.set_index(["service", "region"])
    # The summary reports these failures; that they ran through IAM-user sign-in in us-east-1 is inferred.
    assert (
        rows.at[("Console sign-in (root or federated via signin.aws.amazon.com)", "other Regions"), "weakest_tag"]
        == "inferred"
    )
    assert rows.at[("Redshift queries with IAM user credentials", "other Regions"), "weakest_tag"] == "inferred"
    # Support Center in us-east-1 fails only because its failover target fails too (an inferred link).
    assert rows.at[("AWS Support Center", "us-east-1"), "weakest_tag"] == "inferred"
    assert "failover" in rows.at[("AWS Support Center", "us-east-1"), "path"]
    assert rows.at[("NLB health checks", "us-east-1"), "hops"] == 2


def test_iam_lookup_failure_is_stated_verbatim_in_every_region():
    out = deps.what_fails_with("IAM API: user-group lookup", "us-east-1")
    assert set(zip(out["service"], out["region"], strict=True)) == {
        ("Redshift queries with IAM user credentials", r) for r in deps.REGIONS
    }
    assert (out["weakest_tag"] == "AWS-verbatim").all()


def test_without_inferred_links_only_stated_paths_remain():
    out = deps.what_fails_with("DynamoDB", "us-east-1", include_inferred=False)
    assert (out["weakest_tag"] != "inferred").all()
    # Every failure outside us-east-1 rests on at least one inferred link.
    assert not out["outside_region"].any()
    radius = deps.blast_radius("DynamoDB", "us-east-1", include_inferred=False)
    status = radius.set_index(["service", "region"])["status"]
    assert status[("AWS Support Center", "us-east-1")] == "fails over"


def test_isolation_keeps_the_failure_in_its_region():
    iso = deps.blast_radius("DynamoDB", "us-east-1", isolate=True)
    assert not failing(iso, "other Regions")
    assert failing(iso, "us-east-1") >= {"EC2 instance launches", "STS", "Lambda", "NLB health checks"}
    status = iso.set_index(["service", "region"])["status"]
    assert status[("AWS Support Center", "us-east-1")] == "fails over"
    edges = deps.isolate_regions(deps.load())
    local = edges["kind"].isin(["requires", "affected by"])
    assert not edges.loc[local, "cross_region"].any() and edges.loc[~local, "cross_region"].all()


def test_a_failure_elsewhere_leaves_us_east_1_alone():
    out = deps.what_fails_with("DynamoDB", "other Regions")
    assert set(out["region"]) == {"other Regions"}
    assert "DynamoDB global tables: reads and writes at a replica" in set(out["service"])


@pytest.mark.parametrize(
    "service, region, match",
    [
        ("DynamoDBB", "us-east-1", "valid values are .*'DynamoDB'"),
        ("DynamoDB", "eu-west-1", "valid values are .*'other Regions'"),
        (None, "us-east-1", "service"),
    ],
)
def test_unknown_names_raise_listing_the_valid_ones(service, region, match):
    with pytest.raises(ValueError, match=match):
        deps.blast_radius(service, region)


def test_flags_must_be_bools():
    with pytest.raises(ValueError, match="isolate"):
        deps.blast_radius("DynamoDB", "us-east-1", isolate=1)
    with pytest.raises(ValueError, match="include_unverified"):
        deps.load(include_unverified="no")


def test_query_is_deterministic_and_typed(radius):
    again = deps.blast_radius("DynamoDB", "us-east-1")
    assert again.to_csv() == radius.to_csv()
    assert str(radius["hops"].dtype) == "Int64" and str(radius["status"].dtype) == "category"
    assert radius.loc[0, "status"] == "origin"


def test_blast_chart_describes_what_it_draws(radius):
    iso = deps.blast_radius("DynamoDB", "us-east-1", isolate=True)
    spec = charts.dependency_blast_chart(radius, compare=iso, title="DynamoDB fails in us-east-1").to_dict()
    n_fail, n_iso = int((radius["status"] == "fails").sum()), int((iso["status"] == "fails").sum())
    assert f"As it was: origin 1, fails {n_fail}" in spec["description"]
    assert f"Isolated: origin 1, fails {n_iso}" in spec["description"] and n_iso < n_fail
    with pytest.raises(ValueError, match="title"):
        charts.dependency_blast_chart(radius, title=" ")
    with pytest.raises(ValueError, match="labels"):
        charts.dependency_blast_chart(radius, labels=("same", "same"))
