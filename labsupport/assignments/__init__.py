"""Graded versions of the labs, the student's side: each student's parameters, predictions, public checks.

Modules: ``lab01`` (the race), ``lab02`` (DWFM's congestive collapse), ``lab03`` (NLB failover),
``lab04`` (a resolver's rule for an empty answer), ``lab05`` (Network Manager's launch admission,
run in the whole chain), ``lab06`` (the clean-up, checked over every interleaving), ``lab08`` (the
Enactor's whole step, written by the student) and ``concept_quiz`` (the quiz's questions), each with
the parameters of a student id, its config, the ``Prediction`` and the constants its questions name;
``module`` (the university module's two written assignments: each id's race, protocol and night);
``_shared`` (the id's hash, the prediction's
bookkeeping and the public form check of a design answer, :func:`check_answers_with_a_bool`).

What grades them, the instructor's key, the reference answers and the hidden checks, is not
here: it is the course's second package, ``coursetools`` (``python -m coursetools.grading``),
which a student never installs and this package never imports. The assignment sources live in
``assignments/`` at the repository's root.
"""

from __future__ import annotations

from ._shared import PLACEHOLDER_ID, STRATEGY_BUILTINS, check_answers_with_a_bool, digest, strategy_problems

__all__ = ["PLACEHOLDER_ID", "STRATEGY_BUILTINS", "check_answers_with_a_bool", "digest", "strategy_problems"]
