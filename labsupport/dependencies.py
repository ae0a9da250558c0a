"""Stop point 6: hidden dependencies on one Region, as a graph you can question with pandas.

Scenario:
    19-20 Oct 2025. DynamoDB's regional endpoint in us-east-1 goes empty. Which services and
    features fail with it, and where? Most of the blast radius stays inside us-east-1, but some
    features in *other* Regions fail too, because they quietly depend on something in us-east-1;
    DynamoDB global tables, served from a replica in each Region, keep working.
Covers:
    The post-event summary's (PES) section on other services, as facts.md section 1.3 records it:
    console sign-in with root or federated credentials outside us-east-1, the Redshift defect that
    resolved user groups through an IAM API in us-east-1 (all Regions), Support Center's failover
    to another Region and the account-metadata subsystem that returned invalid responses, and
    (from the seed articles) DynamoDB global tables::

        other Regions                              us-east-1
        root / federated sign-in ──requires──────> console sign-in ──requires──> DynamoDB
        Redshift queries (IAM users) ──requires──> IAM API: user-group lookup ··affected by··┘
        Support Center <──fails over to────────── Support Center ──requires──> DynamoDB
           └─requires─> account metadata ··affected by (inferred)··> DynamoDB
        global tables: replica ──requires──> DynamoDB (own Region);  replication ~~> us-east-1

Edges are data (``data/dependencies.csv``), one row per dependency, each with its source and its
confidence tag. Tags are those of the course's fact sheet (``AWS-verbatim``, ``AWS-paraphrase``,
``OTHER``, ``UNVERIFIED``) plus ``inferred``: a link this course draws between two tagged facts
that the summary does not state. ``UNVERIFIED`` edges are left out of every query unless asked
for, and every answer carries the weakest tag on its path, so no unconfirmed link is ever stated
as fact. Regions are ``"us-east-1"`` and ``"other Regions"`` (any other Region, one node each).

Semantics of the query: a node fails if a dependency it ``requires`` (or is ``affected by``) has
failed, unless it ``fails over to`` a copy that has not; a node that ``replicates with`` a failed
node is ``degraded`` (it works, its replication lags). :func:`isolate_regions` is stop point 6 as
a counterfactual: every ``requires`` / ``affected by`` edge points at the dependent's own Region.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import cast

import pandas as pd

from ._validate import check_bool, check_names
from .errors import ConfigError

__all__ = [
    "HOME_REGION",
    "KINDS",
    "REGIONS",
    "STATUSES",
    "TAGS",
    "blast_radius",
    "isolate_regions",
    "load",
    "services",
    "what_fails_with",
]

_DATA = Path(__file__).resolve().parent / "data" / "dependencies.csv"

#: Region names, us-east-1 and one node that stands for every other Region.
REGIONS: tuple[str, ...] = ("us-east-1", "other Regions")
#: The Region whose failure the course studies.
HOME_REGION = "us-east-1"
#: Edge kinds (see the module docstring for what each one propagates).
KINDS: tuple[str, ...] = ("requires", "affected by", "fails over to", "replicates with")
#: Confidence tags, strongest first; ``inferred`` is the course's own link between tagged facts.
TAGS: tuple[str, ...] = ("AWS-verbatim", "AWS-paraphrase", "OTHER", "inferred", "UNVERIFIED")
#: Values of the ``status`` column of :func:`blast_radius`.
STATUSES: tuple[str, ...] = ("origin", "fails", "fails over", "degraded", "keeps working")

_PROPAGATING = ("requires", "affected by")


@functools.cache
def _edges() -> pd.DataFrame:
    raw = pd.read_csv(_DATA, dtype=str, keep_default_na=False, encoding="utf-8")
    frame = raw.astype("string")
    bad = sorted(set(raw["kind"]) - set(KINDS)) + sorted(set(raw["tag"]) - set(TAGS))
    bad += sorted((set(raw["dependent_region"]) | set(raw["dependency_region"])) - set(REGIONS))
    if bad:  # a broken data file, not a user error
        raise RuntimeError(f"dependencies.csv holds unknown kinds, tags or Regions: {bad}")
    frame["kind"] = pd.Categorical(raw["kind"], categories=list(KINDS))
    frame["tag"] = pd.Categorical(raw["tag"], categories=list(TAGS), ordered=True)
    frame["unverified"] = raw["tag"].eq("UNVERIFIED")
    frame["cross_region"] = raw["dependent_region"].ne(raw["dependency_region"])
    return frame


def load(*, include_unverified: bool = True) -> pd.DataFrame:
    """The dependency edges, one row per dependency.

    Args:
        include_unverified: ``False`` drops the ``UNVERIFIED`` edges (they are flagged either way).

    Returns:
        Columns ``dependent``, ``dependent_region``, ``dependency``, ``dependency_region``
        (string), ``kind`` (categorical, :data:`KINDS`), ``effect`` (string: what the summary says
        failed), ``tag`` (ordered categorical, :data:`TAGS`), ``cite`` (string: bibliography keys,
        comma-separated), ``source`` (string), ``note`` (string), ``unverified`` and
        ``cross_region`` (bool).

    Raises:
        ConfigError: ``include_unverified`` is not a bool.
    """
    check_bool("include_unverified", include_unverified)
    frame = _edges().copy()
    return frame if include_unverified else frame[~frame["unverified"]].reset_index(drop=True)


def services() -> list[str]:
    """Every service or feature named in the graph, sorted."""
    e = _edges()
    return sorted(set(e["dependent"]) | set(e["dependency"]))


def isolate_regions(edges: pd.DataFrame) -> pd.DataFrame:
    """Stop point 6 as a counterfactual: every ``requires`` and ``affected by`` edge stays in its Region.

    Args:
        edges: a frame like :func:`load`'s.

    Returns:
        A copy in which each propagating edge's ``dependency_region`` is its ``dependent_region``
        (each Region uses its own copy); ``fails over to`` and ``replicates with`` edges, which
        cross Regions by design, are kept. ``cross_region`` is recomputed.

    Raises:
        ConfigError: ``edges`` is not such a frame.
    """
    cols = {"kind", "dependent_region", "dependency_region"}
    if not isinstance(edges, pd.DataFrame) or cols - set(edges.columns):
        raise ConfigError(f"edges must be a DataFrame like load()'s, with columns {sorted(cols)}")
    out = edges.copy()
    local = out["kind"].isin(_PROPAGATING)
    out.loc[local, "dependency_region"] = out.loc[local, "dependent_region"]
    out["cross_region"] = out["dependent_region"].ne(out["dependency_region"])
    return out


def _check_query(service: object, region: object) -> None:
    check_names("service", [service] if isinstance(service, str) else [repr(service)], services())
    check_names("region", [region] if isinstance(region, str) else [repr(region)], REGIONS)


def _failed_set(edges: pd.DataFrame, origin: tuple[str, str]) -> tuple[set[tuple[str, str]], dict]:
    """Least fixpoint of 'fails'. Returns the failed nodes and, for each, ``(dependency, tag,
    failover target or None, failover edge's tag or None)``: what failed it."""
    deps = cast(
        list[tuple[str, str, str, str, str, str]],
        sorted(
            (r.dependent, r.dependent_region, r.dependency, r.dependency_region, r.kind, r.tag)
            for r in edges.itertuples(index=False)
        ),
    )
    failover = {(a, ar): ((b, br), tag) for a, ar, b, br, k, tag in deps if k == "fails over to"}
    failed, cause = {origin}, {}
    changed = True
    while changed:
        changed = False
        for a, ar, b, br, kind, tag in deps:
            node = (a, ar)
            if kind not in _PROPAGATING or node in failed or (b, br) not in failed:
                continue
            alt, alt_tag = failover.get(node, (None, None))
            if alt is not None and alt not in failed:
                continue
            failed.add(node)
            cause[node] = ((b, br), tag, alt, alt_tag)
            changed = True
    return failed, cause


def _trace(node: tuple[str, str], cause: dict) -> tuple[list, list]:
    """The chain of nodes from ``node`` back to the origin, and every tag its failure rests on."""
    chain, tags, at = [node], [], node
    while at in cause:
        dep, tag, alt, alt_tag = cause[at]
        tags.append(tag)
        if alt is not None:  # it failed only because its failover target failed too
            tags += [alt_tag, *_trace(alt, cause)[1]]
        chain.append(dep)
        at = dep
    return chain, tags


def blast_radius(
    service: str, region: str, *, isolate: bool = False, include_unverified: bool = False, include_inferred: bool = True
) -> pd.DataFrame:
    """If ``service`` fails in ``region``, the status of every node of the graph.

    Args:
        service: a name from :func:`services`, e.g. ``"DynamoDB"``.
        region: one of :data:`REGIONS`.
        isolate: apply :func:`isolate_regions` first (stop point 6 switched on).
        include_unverified: also follow ``UNVERIFIED`` edges (off by default: never state them as fact).
        include_inferred: also follow the course's ``inferred`` edges (on by default; flagged).

    Returns:
        One row per (service, Region) node, sorted by status, hops and name: ``service``,
        ``region`` (string), ``status`` (categorical, :data:`STATUSES`), ``hops`` (Int64: edges
        from the origin, NA unless it fails), ``path`` (string: the chain of failures, empty if
        none), ``weakest_tag`` (ordered categorical of :data:`TAGS`, NA unless it fails; the
        weakest tag on the path), ``outside_region`` (bool: a node in another Region than
        ``region``).

    Raises:
        ConfigError: an unknown service or Region (the message lists the valid ones) or a flag
            that is not a bool.
    """
    _check_query(service, region)
    for name, flag in (
        ("isolate", isolate),
        ("include_unverified", include_unverified),
        ("include_inferred", include_inferred),
    ):
        check_bool(name, flag)
    edges = load(include_unverified=include_unverified)
    if not include_inferred:
        edges = edges[edges["tag"] != "inferred"]
    if isolate:
        edges = isolate_regions(edges)
    origin = (service, region)
    failed, cause = _failed_set(edges, origin)
    nodes = cast(
        list[tuple[str, str]],
        sorted(
            {(r.dependent, r.dependent_region) for r in edges.itertuples()}
            | {(r.dependency, r.dependency_region) for r in edges.itertuples()}
            | {origin}
        ),
    )
    rows = []
    for node in nodes:
        rows.append((*node, *_status(node, origin, failed, cause, edges)))
    frame = pd.DataFrame(rows, columns=["service", "region", "status", "hops", "path", "weakest_tag"])
    frame = frame.astype({"service": "string", "region": "string", "path": "string", "hops": "Int64"})
    frame["status"] = pd.Categorical(frame["status"], categories=list(STATUSES), ordered=True)
    frame["weakest_tag"] = pd.Categorical(frame["weakest_tag"], categories=list(TAGS), ordered=True)
    frame["outside_region"] = frame["region"].ne(region).astype(bool)
    return frame.sort_values(["status", "hops", "region", "service"], kind="stable", na_position="last").reset_index(
        drop=True
    )


def _status(node: tuple[str, str], origin: tuple[str, str], failed: set, cause: dict, edges: pd.DataFrame) -> tuple:
    if node == origin:
        return "origin", 0, f"{node[0]} ({node[1]})", None
    if node in failed:
        chain, tags = _trace(node, cause)
        path = " ← ".join(f"{s} ({r})" for s, r in chain)
        alt = cause[node][2]
        if alt is not None:
            path += f"; its failover to {alt[0]} ({alt[1]}) failed too"
        return "fails", len(chain) - 1, path, max(tags, key=TAGS.index)
    mine = edges[(edges["dependent"] == node[0]) & (edges["dependent_region"] == node[1])]
    down = [
        (d, r) in failed
        for d, r, k in zip(mine["dependency"], mine["dependency_region"], mine["kind"], strict=False)
        if k in _PROPAGATING
    ]
    if any(down):
        return "fails over", pd.NA, "", None
    lagging = [
        (d, r) in failed
        for d, r, k in zip(mine["dependency"], mine["dependency_region"], mine["kind"], strict=False)
        if k == "replicates with"
    ]
    return ("degraded" if any(lagging) else "keeps working"), pd.NA, "", None


def what_fails_with(
    service: str, region: str, *, isolate: bool = False, include_unverified: bool = False, include_inferred: bool = True
) -> pd.DataFrame:
    """Answer "if ``service`` fails in ``region``, what fails with it, and where?".

    Args:
        service, region, isolate, include_unverified, include_inferred: as for :func:`blast_radius`.

    Returns:
        The rows of :func:`blast_radius` whose status is ``"fails"`` (the origin left out), same
        columns, fewest hops first.

    Raises:
        ConfigError: as :func:`blast_radius`.
    """
    radius = blast_radius(
        service, region, isolate=isolate, include_unverified=include_unverified, include_inferred=include_inferred
    )
    return radius[radius["status"] == "fails"].reset_index(drop=True)
