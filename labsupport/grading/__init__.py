"""Graded versions of the labs: each student's parameters, the instructor's key, grading a class with otter.

Modules: ``lab01`` (the race), ``lab02`` (DWFM's congestive collapse), ``lab03`` (NLB failover),
``lab04`` (a resolver's rule for an empty answer), ``lab05`` (Network Manager's launch admission,
run in the whole chain) and ``lab06`` (the clean-up, checked over every
interleaving), each with the parameters of a student id, the key and the hidden checks; ``_shared``
(what they share: the id's hash and the graded id); ``release`` (a copy for Colab, VS Code or a hub
without the course: ``build --colab``); and ``grade`` (``python -m labsupport.grading``:
build an assignment with ``otter assign``, print the key for an id, and grade a folder of submissions
with ``otter run`` into a CSV and feedback files). The assignment sources live in ``assignments/`` at
the repository's root.
"""

from __future__ import annotations

from ._shared import check_answers_with_a_bool

__all__ = ["check_answers_with_a_bool"]
