"""labsupport: the simulations, data and charts behind the course on the AWS us-east-1 outage.

It is what a learner imports, and all that a student's install holds: the models, their charts and
widgets, predictions, practice problems and exercise checks, the concept quiz's questions and the
student's side of the graded assignments. The course's own machinery (the book's Sphinx extension
and assets, the student-copy writer, the PDF tool, the Colab cell, the API page's helpers, the
grader and its keys) is ``coursetools``, a second package in the repository's ``tools/`` folder
that imports this one and that this one never imports.

Modules, bottom layer first (nothing imports upward; ``tests/base/test_import_graph.py`` checks it)::

    base      errors, clock, presets, timeline, route53, dependencies, quiz, strategy, enactor, predict,
              feedback (+ private _validate, _sweep, _engine, _models, _lazy, _memo)
    models    race/, dwfm/, network/, dns_cache/          config -> engine -> model (run) [-> sweep]
    composed  nlb/ (on network), explore/ (on race), chain/ (on all)     the same parts each
              game/ (on chain)
    charts    charts/ (one module per model)                        data -> DataFrame -> encoding
              practice/ (one generator per model), exercises/ (one module of checks per lab)
    wiring    widgets/ (panel, one module per lab), assignments/   (controls -> run -> charts)

The models are registered once, in ``labsupport._models`` (their parts, layer, clock, API page),
which this package and the tests read.

* :mod:`labsupport.errors`: the errors this package raises.
* :mod:`labsupport.clock`: the incident's time origins, wall-clock conversions and sampling grids.
* :mod:`labsupport.presets`: quantities and labels that several pages show, defined once.
* :mod:`labsupport.timeline`: the incident timeline as data, from the AWS post-event summary.
* :mod:`labsupport.route53`: the Route 53 hosted-zone rules the race's Enactors write through.
* :mod:`labsupport.dependencies`: hidden single-Region dependencies as a graph (stop point 6).
* :mod:`labsupport.quiz`: the concept quiz's questions, one per common misconception (its key is the
  grader's, in ``coursetools``).
* :mod:`labsupport.predict`: a lab's predictions, kept before the runs and compared after them.
* :mod:`labsupport.feedback`: what a check says about a learner's answer, part by part, and why.
* :mod:`labsupport.strategy`: student code the engines run (a conditional write, a failover decision), bounded.
* :mod:`labsupport.enactor`: a DNS Enactor's step written by a student, one Route 53 operation per ``yield``.
* :mod:`labsupport.race`: the DNS Planner/Enactor race (simpy), its guards and sweeps.
* :mod:`labsupport.dwfm`: EC2's DropletWorkflow Manager: lease expiry, congestive collapse, sweeps.
* :mod:`labsupport.network`: Network Manager's propagation queue and its backlog.
* :mod:`labsupport.dns_cache`: resolver caches, positive and negative TTLs, and what clients see.
* :mod:`labsupport.nlb`: NLB health checks, flapping, AZ DNS failover and the velocity control.
* :mod:`labsupport.explore`: an explicit-state model checker of the same Enactor protocol.
* :mod:`labsupport.chain`: the whole chain end to end, and the six stop points.
* :mod:`labsupport.game`: the night played as the operators saw it, scored against the real timeline.
* :mod:`labsupport.charts`: Altair charts of model output, and the offline renderer.
* :mod:`labsupport.practice`: practice problems, a fresh one per seed for each model, with their checks.
* :mod:`labsupport.exercises`: the labs' exercises' public checks, computed from the models.
* :mod:`labsupport.widgets`: ipywidgets panels for readers who run the labs live.
* :mod:`labsupport.assignments`: graded assignments, the student's side: each student's parameters,
  predictions and public checks (the key, the hidden checks and the grader are ``coursetools``, a
  second package that this one never imports).

Every model's ``sweep(configs, *, executor=None)`` runs configs and returns one summary row each.

Conventions shared by every model:

* **Horizon.** A run covers the closed interval ``[0, horizon_s]``: an event due at exactly
  ``horizon_s`` happens and is kept in ``.events``; nothing after it is simulated or reported, and
  a time series ends with a row at ``horizon_s``.
* **Clocks and ties.** Periodic ticks (the race's plans, NLB probes and samples) are at
  ``k * interval`` computed from ``k`` in whole milliseconds, never by adding intervals up; times
  that decide a tie (the NLB failover threshold and velocity window, DWFM's work deadline) are
  compared in whole milliseconds, and each docstring states which side of the tie wins.
* **Seeds.** ``seed`` is an integer from 0 to ``2**63 - 1`` in every config; the same config gives
  the same events.
* **Numbers.** Every numeric field takes Python or numpy integers and floats of any width and
  stores the equivalent Python ``int`` / ``float``; every bad value raises
  :class:`~labsupport.errors.ConfigError` naming the field, the value and the allowed range. Every
  config is built on one base, ``labsupport._validate.Config``, which applies these rules.
"""

from __future__ import annotations

import importlib

from ._models import model_names
from .errors import ConfigError, LabSupportError, LimitExceeded, StrategyTimeout

__version__ = "0.1.0"

#: The modules ``labsupport.<name>`` gives without an import of its own (imported on first use):
#: every registered model, and these.
_LAZY = tuple(
    sorted({*model_names(), "charts", "clock", "dependencies", "enactor", "presets", "route53", "timeline", "widgets"})
)

__all__ = ["ConfigError", "LabSupportError", "LimitExceeded", "StrategyTimeout", "__version__", *_LAZY]


def __getattr__(name: str) -> object:
    """``labsupport.race`` and the other modules of :data:`_LAZY`, imported when first used (PEP 562).

    ``import labsupport`` stays light (it imports only the errors), and ``labsupport.race.run()``
    works without ``from labsupport import race``.
    """
    if name in _LAZY:
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The package's names, the lazily imported modules included."""
    return sorted(set(globals()) | set(_LAZY))
