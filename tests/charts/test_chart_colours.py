"""One concept, one colour: every chart of the book gives a legend label the same colour.

Here, the quick local rule: a label of ``charts.CONCEPT_COLOURS`` keeps its colour whatever its
position in a legend, in every chart that compares runs. The whole-book check reads the colour
scale of every chart the built book holds and fails when one label has two colours, naming the
pages: ``tests/browser/test_book_colours.py`` (it needs the built book).
"""

from __future__ import annotations

import pandas as pd
import pytest

from labsupport import charts, presets
from labsupport.charts import legend_colours as colour_map


def _dns(labels: list[str]):
    ts = pd.DataFrame({"time_s": [0.0, 60.0], "failing_fraction": [0.0, 0.5]})
    return charts.dns_failing_chart({label: ts for label in labels}, restored_s=30.0)


def _nlb(labels: list[str]):
    ts = pd.DataFrame({"time_s": [0.0, 60.0], "capacity_fraction": [1.0, 0.5], "demand_fraction": [0.8, 0.8]})
    return charts.nlb_capacity_comparison_chart({label: ts for label in labels})


def _ttl(labels: list[str]):
    return charts.dns_ttl_chart(
        pd.DataFrame({"negative_ttl_s": [60.0] * len(labels), "delay_s": [1.0] * len(labels), "series": labels})
    )


@pytest.mark.parametrize("draw", [_dns, _nlb, _ttl], ids=["dns_failing", "nlb_capacity", "dns_ttl"])
def test_a_concept_keeps_its_colour_in_any_legend_position(draw):
    known = presets.ttl_label(900.0)
    first = colour_map(draw([known, "something else"]).to_dict())
    second = colour_map(draw(["another run", "a third run", known]).to_dict())
    assert first[known] == second[known] == charts.CONCEPT_COLOURS[known]
    # A label the book does not name gets a colour no named label of the same chart has.
    assert second["another run"] != second[known] and second["a third run"] != second[known]


def test_the_book_names_a_ttl_one_way():
    assert presets.ttl_label(900.0) == "negative TTL 15 min"
    assert presets.ttl_label(90.0) == "negative TTL 90 s"
    with pytest.raises(ValueError, match="seconds"):
        presets.ttl_label(0)
