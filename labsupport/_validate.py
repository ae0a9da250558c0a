"""Small validators shared by the model configs.

Each raises :class:`~labsupport.errors.ConfigError` (a ``ValueError``) whose message names the
field, the value and the allowed range. They also reject ``bool`` where a number is wanted,
NaN and infinities, so a widget or a typo can never slip a nonsense value into a model.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from numbers import Integral, Real

from .errors import ConfigError

__all__ = ["check_bool", "check_choice", "check_int", "check_number", "check_names"]


def _show(value: object) -> str:
    """``repr(value)``, shortened so that a huge number or string cannot flood the message."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}...({len(text)} characters)"


def _describe(lo: float | None, hi: float | None, lo_open: bool, hi_open: bool) -> str:
    parts = []
    if lo is not None:
        parts.append(f"{'>' if lo_open else '>='} {lo:g}")
    if hi is not None:
        parts.append(f"{'<' if hi_open else '<='} {hi:g}")
    return " and ".join(parts) if parts else "any value"


def check_number(
    name: str,
    value: object,
    *,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    hi_open: bool = False,
) -> float:
    """Return ``value`` as a float if it is a finite real number in range, else raise ConfigError."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ConfigError(
            f"{name} must be a finite number {_describe(lo, hi, lo_open, hi_open)}, "
            f"got {_show(value)} of type {type(value).__name__}"
        )
    try:
        v = float(value)
    except OverflowError:  # an int too large for a float, e.g. 10**400
        raise ConfigError(
            f"{name} must be a finite number {_describe(lo, hi, lo_open, hi_open)}, got {_show(value)}"
        ) from None
    bad = not math.isfinite(v)
    if lo is not None:
        bad = bad or (v <= lo if lo_open else v < lo)
    if hi is not None:
        bad = bad or (v >= hi if hi_open else v > hi)
    if bad:
        raise ConfigError(
            f"{name} must be a finite number {_describe(lo, hi, lo_open, hi_open)}, got {_show(value)}"
        )
    return v


def check_int(name: str, value: object, *, lo: int | None = None, hi: int | None = None) -> int:
    """Return ``value`` if it is an integer (not a bool) in ``[lo, hi]``, else raise ConfigError."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ConfigError(
            f"{name} must be an integer {_describe(lo, hi, False, False)}, "
            f"got {_show(value)} of type {type(value).__name__}"
        )
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ConfigError(f"{name} must be an integer {_describe(lo, hi, False, False)}, got {_show(value)}")
    return int(value)


def check_bool(name: str, value: object) -> bool:
    """Return ``value`` if it is a bool, else raise ConfigError."""
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be True or False, got {_show(value)} of type {type(value).__name__}")
    return value


def check_choice(name: str, value: object, choices: Iterable[object]) -> object:
    """Return ``value`` if it is one of ``choices``, else raise ConfigError listing them."""
    options = list(choices)
    if value not in options:
        raise ConfigError(f"{name} must be one of {options!r}, got {_show(value)}")
    return value


def check_names(name: str, values: Iterable[str], valid: Iterable[str]) -> list[str]:
    """Return ``values`` as a list if every item is in ``valid``, else raise ConfigError listing them."""
    if isinstance(values, str):
        values = [values]
    valid_list = sorted(set(valid))
    got = list(values)
    unknown = [v for v in got if v not in valid_list]
    if unknown:
        raise ConfigError(f"{name}: unknown value(s) {unknown!r}; valid values are {valid_list!r}")
    return got
