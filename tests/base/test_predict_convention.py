"""The prediction convention: empty guesses, answers of every type, a comparison that never raises.

Also checks that every lab follows it: its Predict cell assigns only ``None``, and its comparison
goes through :func:`labsupport.predict.compare`. That no page answers a Predict before the lab asks
it is ``tests/book/test_prediction_order.py``'s check: each part of the course opens with its lab,
so the chapters no longer fold the lab's answers.
"""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import nbformat
import pytest
from hypothesis import given
from hypothesis import strategies as st

from labsupport import predict
from labsupport.errors import ConfigError
from labsupport.predict import NEVER, NO_GUESS, Question

ROOT = Path(__file__).resolve().parents[2]
LABS = sorted((ROOT / "labs").glob("0*.ipynb"))


def test_unanswered_guess_gets_a_message_not_an_error() -> None:
    table = predict.compare([Question("Hours after 2:25 AM", guess=None, model=NEVER, unit="h", allow_never=True)])
    assert list(table.columns) == list(predict.COLUMNS)
    assert table.at[0, "verdict"] == NO_GUESS and table.at[0, "your_guess"] == "—"
    assert table.at[0, "model"] == "never"


def test_never_is_a_guess_and_an_answer() -> None:
    assert predict.Never() is NEVER and pickle.loads(pickle.dumps(NEVER)) is NEVER
    q = Question("Hours after 2:25 AM", guess=NEVER, model=NEVER, unit="h", allow_never=True)
    assert predict.verdict(q) == "right"
    assert predict.verdict(Question("h", guess=3.0, model=NEVER, allow_never=True)) == (
        "wrong: the model's answer is never"
    )
    assert predict.verdict(Question("h", guess=NEVER, model=3.0, allow_never=True)) == "wrong: the model gives a number"
    assert predict.verdict(Question("h", guess=NEVER, model=3.0)).startswith("cannot compare")


def test_numbers_are_close_higher_or_lower() -> None:
    assert predict.verdict(Question("q", guess=10.0, model=9.0, tolerance=0.2)) == "close (within 20%)"
    assert predict.verdict(Question("q", guess=20.0, model=9.0)) == "higher than the model"
    assert predict.verdict(Question("q", guess=1, model=9.0)) == "lower than the model"
    assert predict.verdict(Question("q", guess="ten", model=9.0)).startswith(
        "cannot compare: this question takes a number"
    )


def test_booleans_choices_and_sets() -> None:
    assert predict.verdict(Question("q", guess=True, model=True)) == "right"
    assert predict.verdict(Question("q", guess=False, model=True)) == "wrong"
    assert predict.verdict(Question("q", guess=1, model=True)).startswith(
        "cannot compare: this question takes True or False"
    )
    q = Question("best point", guess=3, model=frozenset({1, 2, 3, 4}), choices=(1, 2, 3, 4, 5, 6))
    assert predict.verdict(q) == "right" and q.show(q.model) == "1 or 2 or 3 or 4"
    assert predict.verdict(Question("best point", guess=5, model=frozenset({1, 2}), choices=(1, 2, 5))) == "wrong"
    assert predict.verdict(Question("best point", guess=7, model=1, choices=(1, 2))).startswith("cannot compare")
    assert predict.verdict(Question("letter", guess=" B ", model="b", choices=("a", "b"))) == "right"


def test_percent_unit_and_nearest() -> None:
    q = Question("goodput", guess=0.5, model=0.004, unit="%")
    assert q.show(q.guess) == "50%" and q.show(q.model) == "0.4%" and q.show(0.00031) == "0.031%"
    assert predict.nearest(1_850, (100, 1_000, 1_000_000)) == 1_000
    for value, options, named in [(0, (1, 10), "value"), (5, (1, -10), r"options\[1\]"), (5, (), "options")]:
        with pytest.raises(ConfigError, match=named):
            predict.nearest(value, options)


def test_bad_question_is_an_error() -> None:
    for tolerance in (-1, float("nan"), "0.2", True):
        with pytest.raises(ConfigError, match=r"Question\.tolerance"):
            Question("q", guess=None, model=1.0, tolerance=tolerance)
    for text in (" ", None, 5):
        with pytest.raises(ConfigError, match=r"Question\.text"):
            Question(text, guess=None, model=1.0)


@given(
    guess=st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=True),
        st.text(max_size=5),
        st.just(NEVER),
        st.lists(st.integers(), max_size=2),
    ),
    model=st.one_of(
        st.booleans(),
        st.floats(min_value=-1e6, max_value=1e6),
        st.just(NEVER),
        st.text(max_size=3),
        st.frozensets(st.integers(1, 6), min_size=1, max_size=3),
    ),
)
def test_compare_never_raises(guess: object, model: object) -> None:
    for allow_never in (False, True):
        table = predict.compare([Question("q", guess=guess, model=model, allow_never=allow_never)])
        assert isinstance(table.at[0, "verdict"], str) and table.at[0, "verdict"]


def _predict_cell(nb: nbformat.NotebookNode) -> str:
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and cell.source.startswith("## Predict"):
            return nb.cells[i + 1].source
    raise AssertionError("no '## Predict' cell")


@pytest.mark.parametrize("lab", LABS, ids=lambda p: p.stem)
def test_every_lab_predicts_before_it_is_told(lab: Path) -> None:
    nb = nbformat.read(lab, as_version=4)
    tree = ast.parse(_predict_cell(nb))
    values = [n.value for n in tree.body if isinstance(n, ast.Assign)]
    assert values, f"{lab.name}: the Predict cell assigns nothing"
    for value in values:
        leaves = value.values if isinstance(value, ast.Dict) else [value]
        for leaf in leaves:
            assert isinstance(leaf, ast.Constant) and leaf.value is None, (
                f"{lab.name}: every guess starts as None, got {ast.unparse(leaf)}"
            )
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "predict.compare(" in code, f"{lab.name}: the comparison goes through predict.compare"
    assert "Your guess" not in code and "you guessed" not in code
