"""Errors raised by the ``labsupport`` package.

::

    Exception
     └── LabSupportError            base of everything this package raises on purpose
          └── ConfigError           (also a ValueError) a config field or argument is out of range
               ├── LimitExceeded    a run hit its own bound (max_events, max_states, horizon)
               └── StrategyTimeout  a student's strategy did not return within its step budget

Every refusal the package makes on purpose is one of these, defined here and nowhere else.
Catch ``ValueError`` to handle bad input in general; catch :class:`LimitExceeded` where a notebook
wants to tell the reader that a bound was hit rather than that the input was wrong, and
:class:`StrategyTimeout` where it wants to say that the learner's own code never answered.
"""

from __future__ import annotations

__all__ = ["ConfigError", "LabSupportError", "LimitExceeded", "StrategyTimeout"]


class LabSupportError(Exception):
    """Base class of every error this package raises deliberately."""


class ConfigError(LabSupportError, ValueError):
    """A configuration field or function argument is invalid.

    The message names the field, the value given and the allowed range, for example
    ``plan_interval_s must be a finite number > 0, got -3``.
    """


class LimitExceeded(ConfigError):
    """A run stopped at one of its own bounds (``max_events``, ``max_states``, a horizon)."""


class StrategyTimeout(ConfigError):
    """A student's strategy took more steps (Python lines and instructions) than its budget allows.

    A call may take at most :data:`labsupport.strategy.STEP_BUDGET` steps and one run's calls
    together at most :data:`labsupport.strategy.RUN_STEP_BUDGET`: past that it would not return
    (a loop that waits), or would take minutes. Raised by :func:`labsupport.strategy.call_strategy`.
    """
