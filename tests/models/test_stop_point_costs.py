"""The course's stated costs of the six stop points: one table, and the answers the exercises mark."""

from __future__ import annotations

import itertools
from pathlib import Path

from labsupport import chain

ROOT = Path(__file__).resolve().parents[2]


def test_every_stop_point_has_a_declared_cost():
    costs = chain.stop_point_costs()
    assert list(costs["point"]) == [1, 2, 3, 4, 5, 6]
    assert list(costs.columns) == [
        "point",
        "title",
        "effort_points",
        "effort",
        "risk",
        "latency_added",
        "basis",
        "cite",
    ]
    assert costs["effort_points"].between(1, 5).all()
    assert (costs[["effort", "risk", "latency_added"]].apply(lambda c: c.str.len()) > 0).all().all()
    # Every cost is the course's assumption, said so in the row; a cited row names a reference.
    assert costs["basis"].str.startswith("course assumption").all()
    bib = (ROOT / "references.bib").read_text(encoding="utf-8")
    assert all(f"{{{key}," in bib for key in costs["cite"] if key)


def test_stop_point_3_is_the_cheapest_as_the_chapter_says():
    costs = chain.stop_point_costs().set_index("point")["effort_points"]
    assert costs.idxmin() == 3 and (costs.drop(3) > costs[3]).all()


def test_the_half_day_budget_of_eight_admits_exactly_4_5_and_4_6():
    costs = chain.stop_point_costs().set_index("point")["effort_points"]
    fits = {f"{a}+{b}" for a, b in itertools.combinations((4, 5, 6), 2) if costs[a] + costs[b] <= 8}
    assert fits == {"4+5", "4+6"}
    page = (ROOT / "chapters" / "instructor-guide" / "half-day-workshop.md").read_text(encoding="utf-8")
    assert "a budget of 8 effort points" in page and "4 + 5 and 4 + 6" in page
