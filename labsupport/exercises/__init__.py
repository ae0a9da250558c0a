"""The labs' exercises, checked: one module per lab, one public check per exercise.

Scenario:
    A learner reads an exercise, writes an answer into the cell under it (a dict whose skeleton
    holds ``...``), and runs the check cell: ``check.ex2(answer_2)``. The check runs the course's
    model (or reads its data) for the exercise's setting, compares each part of the answer and says
    why, from the same run (:class:`labsupport.feedback.Feedback`). Nothing is stored: every model
    answer is computed. Each module also gives the model's answers themselves, ``model_ex2()``,
    which the lab's self-check asserts on, so that no cell after an exercise depends on the names
    its solution defines.
Covers:
    Labs 00 to 08 (``lab00`` ... ``lab08``). Lab 08's answers are code, the learner's Enactor
    step, which its checks run in the race simulation and the model checker::

        answer cell ──> check.exN(answer) ──> model_exN() (cached run) ──> Feedback (right / wrong, and why)
                                                   └──> the lab's Self-check asserts the prose's claims

Import the lab's module, not this package: ``from labsupport.exercises import lab02 as check``.
A design exercise's written parts are answered, not graded: their check confirms that each part
holds an answer and lists what a strong one covers (:func:`labsupport.feedback.review`).
"""

from __future__ import annotations

__all__: list[str] = []
