"""Chart colours meet WCAG 2.1 AA contrast on the charts' white background.

Marks (bars, lines, points) need 3:1 against their background (SC 1.4.11, non-text contrast); axis
and legend text needs 4.5:1 (SC 1.4.3). Charts keep a white background in the theme's dark mode too
(`_base_config`), so white is the background to test against; tests/browser checks it in a browser.
"""

from __future__ import annotations

import altair as alt
import pandas as pd
import pytest

from labsupport.charts import PALETTE, PERIOD_COLOURS, _render

WHITE = "#ffffff"


def _channel(value: int) -> float:
    c = value / 255
    # WCAG 2.1's definition of relative luminance (https://www.w3.org/TR/WCAG21/#dfn-relative-luminance).
    return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4


def relative_luminance(colour: str) -> float:
    """Relative luminance (0 black to 1 white) of a ``#rgb`` or ``#rrggbb`` colour."""
    hexa = colour.lstrip("#")
    if len(hexa) == 3:
        hexa = "".join(ch * 2 for ch in hexa)
    if len(hexa) != 6:
        raise ValueError(f"not a #rrggbb colour: {colour!r}")
    r, g, b = (_channel(int(hexa[i : i + 2], 16)) for i in (0, 2, 4))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: str, b: str) -> float:
    """WCAG contrast ratio between two colours, from 1 (none) to 21 (black on white)."""
    hi, lo = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_contrast_formula_matches_known_values():
    assert contrast_ratio("#000", WHITE) == pytest.approx(21.0)
    assert contrast_ratio(WHITE, WHITE) == pytest.approx(1.0)
    # #767676 is the classic lightest grey that passes 4.5:1 on white; #777777 fails it.
    assert contrast_ratio("#767676", WHITE) >= 4.5 > contrast_ratio("#777777", WHITE)


@pytest.mark.parametrize("colour", PALETTE)
def test_palette_colour_has_non_text_contrast_on_white(colour):
    assert contrast_ratio(colour, WHITE) >= 3.0, f"{colour} has only {contrast_ratio(colour, WHITE):.2f}:1 on white"


def test_palette_colours_are_distinct_and_period_colours_come_from_it():
    assert len(set(c.lower() for c in PALETTE)) == len(PALETTE)
    assert set(PERIOD_COLOURS.values()) <= set(PALETTE)


def test_base_config_keeps_a_white_background_and_readable_axis_text():
    chart = _render._base_config(alt.Chart(pd.DataFrame({"x": [1, 2]})).mark_point().encode(x="x:Q"))
    config = chart.to_dict()["config"]
    assert config["background"] == "white"
    for key in ("labelColor", "titleColor"):
        colour = config["axis"][key]
        assert contrast_ratio(colour, WHITE) >= 4.5, f"axis {key} {colour} is too light for text"
