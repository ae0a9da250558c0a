"""The charts' colours: one palette, one colour per impact period, one per concept compared across pages."""

from __future__ import annotations

from .. import presets as _presets

__all__ = ["CONCEPT_COLOURS", "PALETTE", "PERIOD_COLOURS", "legend_colours"]


#: Colours for categorical marks. Each has a contrast ratio of at least 3:1 against white (WCAG 2.1
#: SC 1.4.11, non-text contrast; ``tests/charts/test_accessibility.py`` checks it). They are not all
#: distinguishable under every colour-vision deficiency (PALETTE[1] and PALETTE[4] are close under
#: deuteranopia), so a chart that must tell categories apart also varies shape or dash, or labels them.
PALETTE: tuple[str, ...] = ("#0b5cad", "#b3471b", "#1b7a4c", "#7a3f98", "#8a6d00", "#b0245e", "#3d3d3d")


#: One colour per impact period of the post-event summary, shared by every chart that shows them.
PERIOD_COLOURS: dict[str, str] = {
    "DynamoDB API errors": PALETTE[0],
    "EC2 launch failures": PALETTE[1],
    "NLB connection errors": PALETTE[2],
}


#: One colour per concept that charts on several pages compare run against run (a negative TTL,
#: an NLB run), whatever its position in a chart's legend. Labels come from :mod:`labsupport.presets`;
#: ``tests/charts/test_chart_colours.py`` checks that no two charts of the book colour one label differently.
CONCEPT_COLOURS: dict[str, str] = {
    _presets.ttl_label(900.0): PALETTE[0],
    _presets.ttl_label(3_600.0): PALETTE[1],
    _presets.ttl_label(300.0): PALETTE[2],
    _presets.NLB_RUN_LABELS["nobody"]: PALETTE[1],
    _presets.NLB_RUN_LABELS["incident"]: PALETTE[0],
    _presets.NLB_RUN_LABELS["velocity"]: PALETTE[2],
}


def _series_range(labels: list[str]) -> list[str]:
    """Colours for a legend: a label of :data:`CONCEPT_COLOURS` keeps its colour; the others take
    the palette's colours in order, skipping those already used in this chart."""
    taken = {CONCEPT_COLOURS[label] for label in labels if label in CONCEPT_COLOURS}
    free = iter([c for c in PALETTE if c not in taken] + [c for c in PALETTE if c in taken])
    return [CONCEPT_COLOURS.get(label) or next(free) for label in labels]


def legend_colours(spec: object) -> dict[str, str]:
    """Label -> colour of every ``color`` encoding of a Vega-Lite ``spec`` that lists its domain and range.

    Args:
        spec: a chart's ``to_dict()``, or any part of one.

    Returns:
        A dict from each label (str) to its colour (str, as written in the spec); labels of scales
        without an explicit domain and range are not included. Used to check that one concept keeps
        one colour across the book's charts (``tests/browser/test_book_colours.py``).
    """
    found: dict[str, str] = {}

    def walk(node: object) -> None:
        if isinstance(node, dict):
            colour = node.get("color")
            if isinstance(colour, dict):
                scale = colour.get("scale") or {}
                domain, rng = scale.get("domain"), scale.get("range")
                if isinstance(domain, list) and isinstance(rng, list) and len(domain) == len(rng):
                    found.update({str(d): str(r) for d, r in zip(domain, rng, strict=False) if isinstance(r, str)})
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    return found
