"""Small validators shared by the model configs.

Each raises :class:`~labsupport.errors.ConfigError` (a ``ValueError``) whose message names the
field, the value and the allowed range. They also reject ``bool`` where a number is wanted,
NaN and infinities, so a widget or a typo can never slip a nonsense value into a model.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields
from numbers import Integral, Real

from .errors import ConfigError

__all__ = [
    "SEED_MAX",
    "Config",
    "check_bool",
    "check_choice",
    "check_instance",
    "check_int",
    "check_names",
    "check_number",
    "check_seed",
    "show",
    "store_plain_numbers",
    "tick_s",
    "to_ms",
]

#: Largest seed any config accepts, the same for every model (a seed is an integer in
#: ``[0, SEED_MAX]``). Negative seeds are refused because ``random.Random(-n)`` is the same stream
#: as ``random.Random(n)`` (it seeds with the absolute value) and numpy's generators refuse them.
SEED_MAX = 2**63 - 1


def show(value: object) -> str:
    """``repr(value)``, shortened so that a huge number or string cannot flood the message.

    Never raises: an integer past Python's 4,300-digit ``str()`` limit is described by its size
    (``an integer of about 5001 digits``) instead of being converted, and an object whose
    ``repr`` fails is named by its type.
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits"
    if isinstance(value, (tuple, list)) and len(value) <= 20:
        inner = ", ".join(show(v) for v in value)
        text = f"({inner}{',' if len(value) == 1 else ''})" if isinstance(value, tuple) else f"[{inner}]"
    else:
        try:
            text = repr(value)
        except Exception:  # noqa: BLE001 - a message builder must not fail on odd input
            text = f"<{_type(value)} object>"
    return text if len(text) <= 60 else f"{text[:40]}...({len(text)} characters)"


_show = show


def _type(value: object) -> str:
    """The type's name, with its module when it is not a built-in: ``int``, ``numpy.bool``."""
    t = type(value)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__.split('.')[0]}.{t.__qualname__}"


def _bound(value: object, name: str | None = None) -> str:
    """A bound for a message, exact: ``86400``, ``0.5``, ``1e-300``, ``9223372036854775807``.

    Integers are written in full (a message must not round a limit the reader has to meet), other
    real numbers in the shortest form that reads back as the same float. ``name`` is the field the
    bound comes from, if any: ``horizon_s (1e-300)``.
    """
    if isinstance(value, Integral) and not isinstance(value, bool):
        text = str(int(value))
    else:
        try:
            v = float(value)  # type: ignore[arg-type]
            text = str(int(v)) if v.is_integer() and abs(v) < 1e16 else repr(v)
        except (TypeError, ValueError, OverflowError):
            text = _show(value)
    return f"{name} ({text})" if name else text


def _describe(
    lo: float | None,
    hi: float | None,
    lo_open: bool,
    hi_open: bool,
    lo_name: str | None = None,
    hi_name: str | None = None,
) -> str:
    parts = []
    if lo is not None:
        parts.append(f"{'>' if lo_open else '>='} {_bound(lo, lo_name)}")
    if hi is not None:
        parts.append(f"{'<' if hi_open else '<='} {_bound(hi, hi_name)}")
    return " and ".join(parts) if parts else "any value"


def _is_in(value: object, options: Sequence[object]) -> bool:
    """``value in options``, False where comparing is undefined (``pd.NA``, numpy arrays)."""
    try:
        return bool(value in options)
    except (TypeError, ValueError):
        return False


def check_number(
    name: str,
    value: object,
    *,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    hi_open: bool = False,
    lo_name: str | None = None,
    hi_name: str | None = None,
) -> float:
    """Return ``value`` as a float if it is a finite real number in range, else raise ConfigError.

    ``lo_name``/``hi_name`` name the field a bound comes from (another field of the same config),
    so that the message says which setting to change: ``< horizon_s (1e-300)``.
    """
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ConfigError(
            f"{name} must be a finite number {_describe(lo, hi, lo_open, hi_open, lo_name, hi_name)}, "
            f"got {_show(value)} of type {_type(value)}"
        )
    try:
        v = float(value)
    except OverflowError:  # an int too large for a float, e.g. 10**400
        raise ConfigError(
            f"{name} must be a finite number {_describe(lo, hi, lo_open, hi_open, lo_name, hi_name)}, "
            f"got {_show(value)}"
        ) from None
    bad = not math.isfinite(v)
    if lo is not None:
        bad = bad or (v <= lo if lo_open else v < lo)
    if hi is not None:
        bad = bad or (v >= hi if hi_open else v > hi)
    if bad:
        raise ConfigError(
            f"{name} must be a finite number {_describe(lo, hi, lo_open, hi_open, lo_name, hi_name)}, "
            f"got {_show(value)}"
        )
    return v


def check_int(name: str, value: object, *, lo: int | None = None, hi: int | None = None) -> int:
    """Return ``value`` if it is an integer (not a bool) in ``[lo, hi]``, else raise ConfigError."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ConfigError(
            f"{name} must be an integer {_describe(lo, hi, False, False)}, got {_show(value)} of type {_type(value)}"
        )
    number = int(value)
    if (lo is not None and number < lo) or (hi is not None and number > hi):
        raise ConfigError(f"{name} must be an integer {_describe(lo, hi, False, False)}, got {_show(value)}")
    return number


def check_seed(name: str, value: object) -> int:
    """Return ``value`` as a Python ``int`` if it is an integer in ``[0, SEED_MAX]``, else raise ConfigError.

    The same rule for every config (see :data:`SEED_MAX`); numpy integers are accepted and stored
    as ``int`` (``random.Random`` refuses numpy integers).
    """
    return check_int(name, value, lo=0, hi=SEED_MAX)


def store_plain_numbers(config: object) -> None:
    """Replace validated numbers (numpy scalars, Fractions, Decimals) by plain ``float``/``int``.

    :class:`Config` calls it first, before ``_check``, so that every check (and every
    cross-field bound) sees plain numbers; values of the wrong kind are left for the checks to refuse.
    A field annotated ``float`` (or ``float | None``) becomes a ``float``, one annotated ``int``
    an ``int``, and a ``tuple[float, ...]`` a tuple of floats. A config then holds exactly what the
    equivalent Python numbers would give it, so a run cannot tell ``np.uint16(5)`` from ``5``
    (numpy's fixed-width arithmetic would otherwise wrap, overflow or change precision mid-run).
    """
    for f in fields(config):  # type: ignore[arg-type]
        value, kind = getattr(config, f.name), str(f.type)
        if kind.startswith("tuple[float") and isinstance(value, (tuple, list)):
            object.__setattr__(config, f.name, tuple(_plain(v, float) for v in value))
        elif kind.startswith(("float", "int")):
            object.__setattr__(config, f.name, _plain(value, float if kind.startswith("float") else int))


def _plain(value: object, to: type) -> object:
    """``to(value)`` for a real (``float``) or integral (``int``) non-bool ``value``; else ``value``.

    A value that cannot be converted (an int too large for a float) is left for the checks to refuse.
    A negative zero becomes ``0.0``: ``-0.0 == 0.0``, so two equal configs must give the same tables
    (a table would otherwise print ``-0.0`` in one run and ``0.0`` in the other).
    """
    wanted = Real if to is float else Integral
    if isinstance(value, bool) or not isinstance(value, wanted) or (type(value) is to and to is int):
        return value
    try:
        out = to(value)
    except (OverflowError, ValueError):
        return value
    return out + 0.0 if to is float else out  # -0.0 + 0.0 is 0.0; every other float is unchanged


class Config:
    """Base of every model config: the rules every config follows, written once.

    A config is a frozen, keyword-only dataclass (``@dataclass(frozen=True, kw_only=True)``) that
    subclasses this class and puts its checks in ``_check()``. On construction:

    1. **Numbers become plain.** :func:`store_plain_numbers` replaces numpy scalars, Fractions and
       Decimals in the fields annotated ``int`` / ``float`` by the equivalent Python ``int`` /
       ``float`` first, so every check and every run sees plain numbers (``np.uint16(5)`` and ``5``
       give the same run).
    2. **Every field is checked** by ``_check()``; the first bad value raises
       :class:`~labsupport.errors.ConfigError` (a ``ValueError``) naming the field, the value and
       the allowed range.
    3. **Seeds** are integers from 0 to :data:`SEED_MAX` (:func:`check_seed`); **horizons** are
       closed: a run covers ``[0, horizon_s]`` and an event due at exactly ``horizon_s`` happens
       (see the ``labsupport`` package docstring).

    Variants come from ``dataclasses.replace(INCIDENT, ...)``, which validates again.
    """

    def __post_init__(self) -> None:
        store_plain_numbers(self)
        self._check()

    def _check(self) -> None:
        """Raise :class:`~labsupport.errors.ConfigError` on the first invalid field (override)."""


def check_instance(name: str, value: object, kind: type) -> object:
    """Return ``value`` if it is a ``kind`` (a nested config, say), else raise ConfigError naming both types."""
    if not isinstance(value, kind):
        raise ConfigError(f"{name} must be a {kind.__name__}, got {type(value).__name__}")
    return value


def to_ms(seconds: float) -> int:
    """``seconds`` as whole milliseconds (round half to even): the resolution at which models compare times."""
    return round(seconds * 1000)


def tick_s(k: int, interval_s: float) -> float:
    """Time of tick ``k`` of a clock that ticks every ``interval_s``: ``k * interval`` in whole ms.

    Computed from ``k``, never by adding intervals up, and in integer milliseconds, so that tick
    100 of a 1.1 s clock is exactly 110.0 s (``100 * 1.1`` is 110.00000000000001 and would fall
    after a 110 s horizon). The interval is taken to the millisecond.
    """
    return k * to_ms(interval_s) / 1000


def check_bool(name: str, value: object) -> bool:
    """Return ``value`` if it is a Python bool, else raise ConfigError.

    A numpy bool is refused, with a message that says so and how to convert it: a config stores
    what it is given, and ``np.True_`` is not ``True`` (``is``, JSON, ``repr``).
    """
    if not isinstance(value, bool):
        hint = "; convert it with bool()" if _type(value) in ("numpy.bool", "numpy.bool_") else ""
        raise ConfigError(
            f"{name} must be True or False (a Python bool), got {_show(value)} of type {_type(value)}{hint}"
        )
    return value


def check_choice(name: str, value: object, choices: Iterable[object]) -> object:
    """Return ``value`` if it is one of ``choices``, else raise ConfigError listing them."""
    options = list(choices)
    if not _is_in(value, options):
        raise ConfigError(f"{name} must be one of {options!r}, got {_show(value)}")
    return value


def check_names(name: str, values: Iterable[str] | str, valid: Iterable[str]) -> list[str]:
    """Return ``values`` as a list if every item is in ``valid``, else raise ConfigError listing them.

    ``values`` is one name (a ``str``) or an iterable of names; bytes, mappings and other
    non-iterables are refused by name rather than iterated.
    """
    valid_list = sorted(set(valid))
    if isinstance(values, str):
        values = [values]
    if isinstance(values, (bytes, bytearray, Mapping)) or not isinstance(values, Iterable):
        raise ConfigError(
            f"{name} must be a name or a list of names from {valid_list!r}, got {_show(values)} of type {_type(values)}"
        )
    got = list(values)
    unknown = [v for v in got if not _is_in(v, valid_list)]
    if unknown:
        raise ConfigError(f"{name}: unknown value(s) {show(unknown)}; valid values are {valid_list!r}")
    return got
