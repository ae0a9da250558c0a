"""Graded assignments, the instructor's side: keys, reference answers, hidden checks, and the sandboxed grader.

Modules: one per assignment (``concept_quiz``, ``lab01`` ... ``lab06``, ``lab08``: the key, the
reference design answer, the hidden checks and the assignment's :class:`~coursetools.grading.spec.Spec`),
``assignments`` (them all, by name); ``module`` (the model answers of the university module's two
written assignments, for an id); the grader: ``notebook`` (reads a submission's cells on the
host), ``sandbox`` (bubblewrap and limits), ``execute`` and ``_runner`` (phase 1: the notebook runs
and exports data), ``check`` and ``restricted`` (phase 2: a fresh process compiles the design answer
restricted and computes the verdict), ``similarity`` (answers alike after normalising), ``grade``
(a class into a CSV and feedback files); ``gradescope`` (build, and the autograder zip's entry) and
``release`` (a copy for Colab). The command line is ``python -m coursetools.grading build|key|grade``;
the student's side of each assignment is :mod:`labsupport.assignments`.
"""

from __future__ import annotations

__all__: list[str] = []
