"""The one sweep of every model, and the plumbing of the named grids built on it.

Every model's ``sweep(configs, *, executor=None)`` is :func:`sweep`: it checks the configs, runs
each (in this process, or on the ``concurrent.futures.Executor`` given, Dask's included) and
returns one row per config, in the order given, always of the same shape (:func:`sweep_frame`):

1. ``run`` (int64): the config's position in the sweep;
2. the config's fields, in the order the config declares them. A nested config (``guards``,
   ``network``, ``stop_points``) is flattened: its fields become columns named
   ``<field>.<subfield>`` (recursively, ``stop_points.guards.self_repair``), after a column
   ``<field>`` holding its ``label()`` where it has one (``guards``: ``"1+3"``);
3. the summary's fields, in the order the summary declares them.

A tuple (``endpoints``, ``delays``, ``endpoints_emptied``) becomes one text column, its items as
text joined by commas (``""`` when empty); ``None`` becomes NaN in a column of numbers.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor
from dataclasses import fields, is_dataclass
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from .errors import ConfigError


def flag_combinations(count: int) -> list[tuple[bool, ...]]:
    """All ``2**count`` on/off combinations in the course's order: none, each flag alone, pairs, ...

    Within a size, earlier flags come first (1, 2, 3, 4, then 1+2, 1+3, ...), so the race's guard
    table, the explorer's verdict table and the capstone's 64 rows line up.
    """
    return sorted(itertools.product((False, True), repeat=count), key=lambda c: (sum(c), [not x for x in c]))


def map_items(fn: Callable[[Any], Any], items: list[Any], executor: object) -> list[Any]:
    """``[fn(x) for x in items]``, on ``executor`` if one is given; results in the order of ``items``.

    ``fn`` must be a module-level function so that a process pool can pickle it.

    Raises:
        ConfigError: ``executor`` is neither ``None`` nor a ``concurrent.futures.Executor``, or its
            ``map`` gave back a different number of results than it was given items.
    """
    if executor is not None and not isinstance(executor, Executor):
        raise ConfigError(f"executor must be a concurrent.futures.Executor or None, got {type(executor).__name__}")
    if executor is None:
        return [fn(x) for x in items]
    results = list(executor.map(fn, items))
    if len(results) != len(items):
        raise ConfigError(
            f"executor {type(executor).__name__}.map returned {len(results)} results for {len(items)} items;"
            " a sweep needs exactly one per item"
        )
    return results


def check_configs(configs: object, kind: type) -> list[Any]:
    """``configs`` as a list, if it is an iterable of ``kind`` (not a string); else raise ConfigError."""
    name = kind.__name__
    if isinstance(configs, (str, bytes)) or not isinstance(configs, Iterable):
        raise ConfigError(f"configs must be an iterable of {name} objects, got {type(configs).__name__}")
    items = list(configs)
    for c in items:
        if not isinstance(c, kind):
            raise ConfigError(f"configs must hold {name} objects, got {type(c).__name__}")
    return items


def flags_label(flags: Sequence[bool]) -> str:
    """The numbers (from 1) of the flags that are on, joined by ``+``: ``(True, False, True)`` -> ``"1+3"``; ``"none"``.

    The one label of the guards (:class:`labsupport.race.Guards`), the stop points and every table of them.
    """
    return "+".join(str(i + 1) for i, on in enumerate(flags) if on) or "none"


def _cell(value: object) -> object:
    if isinstance(value, (tuple, list)):
        return ",".join(str(v) for v in value)
    return value


def config_columns(config: object, prefix: str = "") -> dict[str, object]:
    """A config's fields as ``{column: value}``, nested configs flattened (see the module docstring)."""
    out: dict[str, object] = {}
    for f in fields(config):  # type: ignore[arg-type]
        value, name = getattr(config, f.name), prefix + f.name
        if is_dataclass(value):
            label = getattr(value, "label", None)
            if callable(label):
                out[name] = label()
            out.update(config_columns(value, name + "."))
        else:
            out[name] = _cell(value)
    return out


def summary_columns(summary: object) -> dict[str, object]:
    """A summary's fields as ``{column: value}``, tuples as text (see the module docstring)."""
    return {f.name: _cell(getattr(summary, f.name)) for f in fields(summary)}  # type: ignore[arg-type]


def _optional_numbers(instance: object, prefix: str = "") -> list[str]:
    """Columns of ``instance``'s fields annotated ``float | None`` or ``int | None`` (nested configs too)."""
    out = []
    for f in fields(instance):  # type: ignore[arg-type]
        value, kind = getattr(instance, f.name), str(f.type)
        if is_dataclass(value):
            out += _optional_numbers(value, f"{prefix}{f.name}.")
        elif "None" in kind and kind.startswith(("float", "int")):
            out.append(prefix + f.name)
    return out


def sweep_frame(configs: Sequence[object], summaries: Sequence[object]) -> pd.DataFrame:
    """The sweep table: ``run``, the configs' columns, the summaries' columns (see the module docstring)."""
    rows = [
        {"run": i, **config_columns(c), **summary_columns(s)}
        for i, (c, s) in enumerate(zip(configs, summaries, strict=False))
    ]
    if not rows:
        return pd.DataFrame({"run": np.zeros(0, dtype="int64")})
    optional = _optional_numbers(configs[0]) + _optional_numbers(summaries[0])
    return pd.DataFrame(rows).astype({"run": "int64", **dict.fromkeys(optional, "float64")})


def _summary_of(run: Callable[[Any], Any], config: object) -> object:
    return run(config).summary


def sweep(run: Callable[[Any], Any], configs: object, kind: type, executor: object) -> pd.DataFrame:
    """Every model's ``sweep``: check ``configs`` (an iterable of ``kind``), run each, one row per config.

    ``run`` is the model's module-level ``run`` (a process pool pickles it by name). Columns as
    in the module docstring.

    Raises:
        ConfigError: ``configs`` is not an iterable of ``kind`` or ``executor`` is neither ``None``
            nor a ``concurrent.futures.Executor``.
    """
    items = check_configs(configs, kind)
    return sweep_frame(items, map_items(partial(_summary_of, run), items, executor))
