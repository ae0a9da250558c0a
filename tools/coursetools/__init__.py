"""coursetools is the course's machinery (book, student copies, PDF, grading); labsupport is what a learner imports.

``coursetools`` imports ``labsupport``; ``labsupport`` never imports ``coursetools``, so a
student's install (the ``labsupport`` wheel) holds none of this. Modules, bottom layer first
(``tests/base/test_import_graph.py`` prints and checks them with ``labsupport``'s)::

    tools      repository (the course repository a command works on), colab, quiz (+ _quiz_html)
    machinery  student/ (the student-copy writer), apidoc, grading/ (the grader and its keys)
    book       book (the Sphinx extension and its assets; it reads student's marks), pdf

* :mod:`coursetools.repository`: the course repository's root, from an argument or the current
  directory, checked at run time (nothing here finds it from where the package is installed).
* :mod:`coursetools.colab`: the Colab cell: the one setting (the published repository) and the
  install cells derived from it.
* :mod:`coursetools.quiz`: the concept quiz's key (which options are right, and why), the book's
  quiz pages and the scoring of answers.
* :mod:`coursetools.student`: the student-copy writer, ``python -m coursetools.student [--check]
  [--freeze]``: each lab and each chapter's exercises in plain CommonMark for any front end (also a
  Sphinx extension).
* :mod:`coursetools.apidoc`: the API page's helpers, a Sphinx extension that documents the
  constants a package re-exports.
* :mod:`coursetools.book`: the book's Sphinx extension with its JavaScript (``book_js/``), CSS
  (``book_css/``) and theme templates (``book_templates/``): the Vega bundle served offline, the
  pages kept offline and accessible.
* :mod:`coursetools.pdf`: the PDF tool, ``python -m coursetools.pdf``: the whole built book as one
  PDF (Chromium, pypdf).
* :mod:`coursetools.grading`: graded assignments: the instructor's keys, reference answers and
  hidden checks, and the grader that runs each submission in a sandbox (``python -m
  coursetools.grading build|key|grade``), with its Gradescope autograder and Colab release.
"""

from __future__ import annotations

__all__: list[str] = []
