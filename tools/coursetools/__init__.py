"""The course's machinery, for instructors and the book's build: a second package beside ``labsupport``.

* :mod:`coursetools.grading`: graded assignments: the instructor's keys, reference answers and
  hidden checks, and the grader that runs each submission in a sandbox (``python -m
  coursetools.grading build|key|grade``), with its Gradescope autograder and Colab release.
* :mod:`coursetools.quiz`: the concept quiz's key (which options are right, and why), the book's
  quiz pages and the scoring of answers.

``coursetools`` imports ``labsupport``; ``labsupport`` never imports ``coursetools``, so a
student's install (the ``labsupport`` wheel) holds none of this.
"""

from __future__ import annotations

__all__: list[str] = []
