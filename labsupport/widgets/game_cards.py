"""The facilitated game-day's deck as printable cards (lab 07 and the cards page of the facilitator pack)."""

from __future__ import annotations

import html

import pandas as pd
from IPython.display import HTML

from .. import game
from ..charts._inputs import _frame
from ..errors import ConfigError

__all__ = ["game_cards"]

# The cards' look travels with them (JupyterLab, Colab and the book alike): a dashed border to cut
# along, two to a row where the column is wide enough, dark text on white in either colour mode.
_CARDS_CSS = (
    "<style>"
    ".labsupport-cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 20rem), 1fr));"
    " gap: 1rem; }"
    ".labsupport-card { border: 2px dashed #555; border-radius: 0.4rem; padding: 0.8rem 1rem; background: #fff;"
    " color: #1a1a1a; break-inside: avoid; }"
    ".labsupport-card p { margin: 0 0 0.5rem; }"
    ".labsupport-card__head { font-size: 1.1rem; }"
    ".labsupport-card--debrief, .labsupport-card--afterwards { border-color: #8a2be2; }"
    "</style>"
)
_KIND_WORDS = {
    "start": "Start",
    "post": "Inject",
    "debrief": "Debrief card (keep face down)",
    "afterwards": "Written afterwards (keep face down)",
}


def game_cards(cards: pd.DataFrame | None = None) -> HTML:
    """The facilitated game's deck as printable cards, one box per row of :func:`labsupport.game.inject_cards`.

    Args:
        cards: a frame with ``inject_cards``' columns (default: the whole deck).

    Returns:
        An ``IPython.display.HTML`` of ``<section class="labsupport-card">`` boxes, in the frame's
        order: a card's kind, number and time, its title, its text with the source and confidence tag,
        the model's effect (debrief cards) and the facilitator's prompt. Each box has a dashed border to
        cut along, and the book's print style keeps it whole on one printed page.

    Raises:
        ConfigError: ``cards`` is not a DataFrame, is empty or lacks one of ``inject_cards``' columns;
            ``card`` is not an integer column; a ``kind`` is not one of :data:`labsupport.game.CARD_KINDS`;
            a text column holds a missing value or a non-string.
    """
    cards = game.inject_cards() if cards is None else cards
    need = tuple(c for c in game.CARD_COLUMNS if c != "time_s")  # a card prints its time, not seconds
    cards = _frame("cards", cards, need, numeric=("card",), empty="a deck has at least its start card")
    if not pd.api.types.is_integer_dtype(cards["card"]):
        raise ConfigError(f"cards['card'] must hold whole card numbers (an integer dtype), got {cards['card'].dtype}")
    unknown = sorted(set(map(str, cards["kind"])) - set(game.CARD_KINDS))
    if unknown:
        raise ConfigError(f"cards['kind'] must be one of {list(game.CARD_KINDS)}, got {unknown}")
    for column in need[1:]:
        text = cards[column]
        if text.isna().any() or not all(isinstance(v, str) for v in text):
            raise ConfigError(
                f"cards[{column!r}] must hold text in every row (use '' for none), got {text.tolist()[:3]}"
            )
    boxes = []
    for c in cards.itertuples():
        e = {k: html.escape(str(getattr(c, k))) for k in need}
        cite = f" ({e['source']}, [{e['tag']}])" if e["source"] else ""
        effect = f"<p><b>In the model:</b> {e['effect']}.</p>" if e["effect"] else ""
        boxes.append(
            f'<section class="labsupport-card labsupport-card--{e["kind"]}" '
            f'aria-label="Card {e["card"]}, {e["time"]}">'
            f'<p class="labsupport-card__head"><b>{html.escape(_KIND_WORDS.get(str(c.kind), str(c.kind)))} '
            f"{e['card']} · {e['time']}</b></p>"
            f"<p><b>{e['title']}.</b> {e['text']}{cite}</p>{effect}"
            f'<p class="labsupport-card__prompt"><i>{e["prompt"]}</i></p></section>'
        )
    return HTML(_CARDS_CSS + '<div class="labsupport-cards">' + "".join(boxes) + "</div>")
