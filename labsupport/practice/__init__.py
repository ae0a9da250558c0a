"""Practice problems, one generator per model: a fresh problem from a seed, and its check.

Scenario:
    OSTEP's homework simulators draw a new problem from ``-s SEED`` and print the answer with
    ``-c``; these do the same inside a notebook. ``practice(seed)`` draws a setting of the model
    unlike the incident's and asks about it; ``problem.check(answer)`` runs the model and says
    right or wrong for each part of the answer, and why, from that run. The same seed always gives
    the same problem; a bad seed raises :class:`~labsupport.errors.ConfigError`::

        problem = practice.dwfm.practice(seed=3)    # shows its text and the answer's fields
        answer = {"recovers": ..., "hours_after_dns": ...}
        problem.check(answer)                       # a labsupport.feedback.Feedback
Covers:
    ``timeline`` (durations between the summary's events), ``race`` (a race with its delays),
    ``dwfm`` (a fleet and an outage), ``nlb`` (an NLB and its failover), ``dns_cache`` (a DNS
    cache and its TTLs), ``explore`` (a protocol's bounds and a guard) and ``chain`` (stop points
    switched on). Each module is imported on first use: ``practice.dwfm`` needs no import of its own.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from . import chain, dns_cache, dwfm, explore, nlb, race, timeline

__all__ = ["chain", "dns_cache", "dwfm", "explore", "nlb", "race", "timeline"]


def __getattr__(name: str) -> object:
    """``practice.dwfm`` and the other generators of :data:`__all__`, imported when first used (PEP 562)."""
    if name in __all__:
        module = importlib.import_module(f".{name}", __name__)
        vars(sys.modules[__name__])[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
