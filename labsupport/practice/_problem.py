"""What every practice problem shares: its statement, its answer's fields, and the check."""

from __future__ import annotations

import functools
import html
import random
import textwrap
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .._validate import check_seed
from ..feedback import Feedback, Part, answered, feedback
from ..predict import NEVER, Never

__all__ = ["Problem", "never_or_number", "rng"]


def rng(seed: object, model: str) -> random.Random:
    """The problem's one random stream: ``seed`` checked, and tied to ``model``, so that seed 7 of
    two generators draws two unrelated problems.

    Raises:
        ConfigError: ``seed`` is not an integer from 0 to 2**63 - 1.
    """
    value = check_seed("seed", seed)
    return random.Random(f"{model}:{value}")


@dataclass(frozen=True)
class Problem(ABC):
    """One practice problem: a setting of a model, a question about it, and its check.

    A model's module subclasses it and draws it in ``practice(seed)``. The model's answer is
    computed once, on the first :meth:`check` or :meth:`answer`, by running :attr:`config`.

    Attributes:
        seed: the seed that drew it; ``practice(seed)`` gives the same problem again.
        config: the model config the check runs (look at it, or run it yourself).
        text: the problem, in words, with every number the learner needs.
    """

    seed: int
    config: Any
    text: str

    #: The model it exercises ("dwfm").
    model: ClassVar[str] = ""
    #: Each field of the answer and what it takes, in order.
    fields: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: How to compute the answer with the course's package.
    hint: ClassVar[str] = ""

    @abstractmethod
    def _solve(self) -> Mapping[str, Any]:
        """The model's answer, field by field, plus anything :meth:`_why` needs."""

    @abstractmethod
    def _parts(self, model: Mapping[str, Any]) -> dict[str, Callable[[Any], Part]]:
        """For each field, the function that checks the learner's value against ``model``."""

    @abstractmethod
    def _why(self, model: Mapping[str, Any]) -> str:
        """Why the model gives its answer, in words computed from the run."""

    @functools.cached_property
    def _solved(self) -> Mapping[str, Any]:
        return self._solve()

    @property
    def title(self) -> str:
        """ "Practice (dwfm, seed 7)"."""
        return f"Practice ({self.model}, seed {self.seed})"

    def skeleton(self) -> str:
        """The answer's skeleton as Python source: ``answer = {...}``, each field under a comment
        that says what it takes."""
        rows = []
        for name, takes in self.fields:
            rows += ["    # " + line for line in textwrap.wrap(takes, 72)] + [f'    "{name}": ...,']
        return "answer = {\n" + "\n".join(rows) + "\n}"

    def answer(self) -> dict[str, Any]:
        """The model's answer to each field (run it yourself first: this gives the answer away).

        A field whose answer is "never within the run" holds :data:`labsupport.predict.NEVER`.
        """
        return {name: NEVER if self._solved[name] is None else self._solved[name] for name, _ in self.fields}

    def check(self, answer: object) -> Feedback:
        """Compare ``answer`` (a dict with the :attr:`fields`) with the model's run, and say why.

        Never raises for an answer: ``...`` is "not answered", a wrong kind of value "cannot check".
        """
        return feedback(self.title, answer, self._parts(self._solved), note=self._why(self._solved))

    def __str__(self) -> str:
        fields = "\n".join(f"  {name}: {takes}" for name, takes in self.fields)
        return f"{self.title}\n{self.text}\nAnswer with a dict:\n{fields}\nHint: {self.hint}"

    def _repr_markdown_(self) -> str:
        def esc(text: str) -> str:
            return html.escape(text, quote=False)

        rows = "\n".join(f"- `{name}`: {esc(takes)}" for name, takes in self.fields)
        return f"**{esc(self.title)}**\n\n{esc(self.text)}\n\nAnswer with a dict:\n\n{rows}\n\n*Hint:* {esc(self.hint)}"


def never_or_number(name: str, got: object, want: float | None, *, tolerance: float, unit: str, why: str = "") -> Part:
    """A part that takes a number, or ``predict.NEVER`` when the model's answer is "never" (``want`` None)."""
    if not answered(got):
        return Part(name, "not answered", f"give a number in {unit}, or predict.NEVER.")
    if isinstance(got, Never):
        if want is None:
            return Part(name, "right", f"the model never gets there within its run. {why}".strip())
        return Part(name, "wrong", f"you said never; the model gets there after {want:,.3g} {unit}. {why}".strip())
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        return Part(name, "cannot check", f"this part takes a number in {unit}, or predict.NEVER, got {got!r}.")
    if want is None:
        return Part(name, "wrong", f"you said {got:,.3g} {unit}; the model never gets there within its run.")
    if abs(float(got) - want) <= tolerance:
        return Part(name, "right", f"the model gives {want:,.3g} {unit}. {why}".strip())
    side = "high" if got > want else "low"
    return Part(name, "wrong", f"you said {got:,.3g} {unit}, too {side}: the model gives {want:,.3g} {unit}.")
