"""Sweeps over the DWFM model: where the collapse sustains itself, and the in-page explorer's data.

Scenario:
    The :data:`labsupport.dwfm.INCIDENT` preset with the operators removed (by default), varied over
    fleet size, outage length and the ``throttle_by_queue_length`` guard.
Covers:
    The threshold the design asks for: a small fleet recovers by itself, a large one does not
    (a metastable failure), and admission control moves the boundary::

        outage length
            ^  recovers   :  stuck (no recovery
            |  by itself  :  within the horizon)
            |             :
            +-------------:-------------> fleet size (droplets per DWFM host)

Every point is one :func:`labsupport.dwfm.run`; points run through any
``concurrent.futures.Executor`` (in-process by default) and come back in the same order with the
same values, because each run depends only on its config.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import Executor
from dataclasses import replace
from typing import Any

import pandas as pd

from .. import _sweep
from .._sweep import map_items
from .._validate import check_bool, check_int, check_number, show
from ..errors import ConfigError
from ..presets import DWFM_FLEET_SIZES
from .config import INCIDENT, DwfmConfig
from .model import run

__all__ = [
    "BACKOFF_SETTINGS",
    "EXPLORER_FLEETS",
    "LEVER_BUDGET_PER_S",
    "backoff_sweep",
    "explorer_grid",
    "lever_table",
    "phase_sweep",
    "sweep",
]

#: The retry settings :func:`backoff_sweep` compares: ``(label, fields changed)``.
BACKOFF_SETTINGS: tuple[tuple[str, dict], ...] = (
    ("immediate retries", {}),
    ("backoff, base 30 s, cap 30 min", {"retry_policy": "backoff_full_jitter"}),
    ("backoff, base 30 s, cap 4 h", {"retry_policy": "backoff_full_jitter", "retry_cap_s": 14_400.0}),
    (
        "backoff, base 5 min, cap 4 h",
        {"retry_policy": "backoff_full_jitter", "retry_base_s": 300.0, "retry_cap_s": 14_400.0},
    ),
    ("admission control", {"throttle_by_queue_length": True}),
)

#: The retry budget :func:`lever_table` gives each DWFM host: 0.02 retries per second (72 an hour),
#: about an eighth of what one incident host finishes (10 items per 60 s), with a burst of 10.
LEVER_BUDGET_PER_S: float = 0.02

#: Fleet sizes of the in-page explorer (the incident's 8 DWFM hosts throughout): the same sizes as
#: every other DWFM sweep of the book, :data:`labsupport.presets.DWFM_FLEET_SIZES`.
EXPLORER_FLEETS: tuple[int, ...] = DWFM_FLEET_SIZES

_SWEEP_COLUMNS = {
    "throttle_by_queue_length": "bool",
    "fleet_droplets_count": "int64",
    "outage_s": "float64",
    "recovered": "bool",
    "recovered_at_s": "float64",
    "recovery_after_outage_s": "float64",
    "peak_queue_count": "int64",
    "goodput_count": "int64",
    "wasted_count": "int64",
    "wasted_fraction": "float64",
}


def _values(name: str, values: Iterable[object], check) -> list:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ConfigError(f"{name} must be a sequence of values, got {show(values)} of type {type(values).__name__}")
    got = [check(f"{name}[{i}]", v) for i, v in enumerate(values)]
    if not got:
        raise ConfigError(f"{name} must hold at least one value, got none")
    return got


def phase_sweep(
    base: DwfmConfig = INCIDENT,
    *,
    fleet_sizes: Sequence[int] = DWFM_FLEET_SIZES,
    outage_lengths_s: Sequence[float] = (1_800.0, 3_600.0, 5_400.0, 7_200.0, 9_420.0),
    throttle: Sequence[bool] = (False, True),
    operators: bool = False,
    executor: Executor | None = None,
) -> pd.DataFrame:
    """Map the metastable region: fleet size × outage length → recovered by itself, and how fast.

    Args:
        base: the config every point starts from (DynamoDB's outage starts at its
            ``outage_start_s``).
        fleet_sizes: droplet counts (each 1 to 1,000,000).
        outage_lengths_s: DynamoDB outage lengths in seconds (each >= 0, ending before the horizon).
        throttle: values of ``throttle_by_queue_length`` to try.
        operators: keep the base's operator actions; ``False`` (default) removes them, so a point
            recovers only by itself or through the throttle.
        executor: runs the points (``executor.map``); ``None`` runs them here, one after another.

    Returns:
        One row per point, ordered throttle, then fleet size, then outage length, with columns
        ``throttle_by_queue_length`` (bool), ``fleet_droplets_count`` (int64), ``outage_s``
        (float64), ``recovered`` (bool), ``recovered_at_s`` and ``recovery_after_outage_s``
        (float64, NaN when not recovered within the horizon), ``peak_queue_count``,
        ``goodput_count``, ``wasted_count`` (int64), ``wasted_fraction`` (float64).

    Raises:
        ConfigError: an empty or invalid list, a bad executor, or a point whose config is invalid
            (the message names the field).
    """
    if not isinstance(base, DwfmConfig):
        raise ConfigError(f"base must be a DwfmConfig, got {type(base).__name__}")
    check_bool("operators", operators)
    fleets = _values("fleet_sizes", fleet_sizes, lambda n, v: check_int(n, v, lo=1, hi=1_000_000))
    outages = _values("outage_lengths_s", outage_lengths_s, lambda n, v: check_number(n, v, lo=0))
    throttles = _values("throttle", throttle, check_bool)
    ops: dict[str, Any] = {} if operators else {"operator_restart_at_s": None, "operator_throttle_at_s": None}
    configs = [
        replace(
            base, fleet_droplets_count=n, outage_end_s=base.outage_start_s + length, throttle_by_queue_length=t, **ops
        )
        for t in throttles
        for n in fleets
        for length in outages
    ]
    frame = sweep(configs, executor=executor)
    frame["outage_s"] = frame["outage_end_s"] - frame["outage_start_s"]
    return frame[list(_SWEEP_COLUMNS)].astype(_SWEEP_COLUMNS)


def _explorer_point(args: tuple[DwfmConfig, float]) -> pd.DataFrame:
    """One run's time series, resampled for the explorer chart (top level, so that it pickles)."""
    cfg, step_s = args
    ts = run(cfg).timeseries
    ts = ts.assign(bucket=(ts["time_s"] // step_s).astype("int64"))
    grouped = ts.groupby("bucket", sort=True)
    per_min = 60.0 / step_s
    frame = pd.DataFrame(
        {
            "time_s": grouped["time_s"].max(),
            "leased_fraction": grouped["leased_count"].last() / cfg.fleet_droplets_count,
            "goodput_per_min": grouped["goodput_count"].sum() * per_min,
            "wasted_per_min": grouped["wasted_count"].sum() * per_min,
        }
    ).reset_index(drop=True)
    frame.insert(0, "fleet_droplets_count", cfg.fleet_droplets_count)
    frame.insert(1, "throttle_by_queue_length", cfg.throttle_by_queue_length)
    return frame


def explorer_grid(
    base: DwfmConfig = INCIDENT,
    *,
    fleet_sizes: Sequence[int] = EXPLORER_FLEETS,
    step_s: float = 600.0,
    executor: Executor | None = None,
) -> pd.DataFrame:
    """Precompute the in-page explorer: throttle off/on × a few fleet sizes, operators removed.

    Args:
        base: the starting config (its operator actions are removed).
        fleet_sizes: droplet counts, at most 8 (each 1 to 1,000,000).
        step_s: time resolution of the returned series, seconds (>= the base's report interval).
        executor: as for :func:`sweep`.

    Returns:
        One row per (throttle, fleet, time step): ``fleet_droplets_count`` (int64),
        ``throttle_by_queue_length`` (bool), ``time_s`` (float64, end of the step),
        ``leased_fraction``, ``goodput_per_min``, ``wasted_per_min`` (float64; work items finished
        in time or wasted, per minute, averaged over the step).

    Raises:
        ConfigError: bad fleet sizes (not a sequence, empty, or a value out of range), step or
            executor.
    """
    if not isinstance(base, DwfmConfig):
        raise ConfigError(f"base must be a DwfmConfig, got {type(base).__name__}")
    fleets = _values("fleet_sizes", fleet_sizes, lambda n, v: check_int(n, v, lo=1, hi=1_000_000))
    if len(fleets) > 8:
        raise ConfigError(f"fleet_sizes must hold at most 8 values, got {len(fleets)}")
    check_number("step_s", step_s, lo=base.report_interval_s, hi=base.horizon_s)
    configs = [
        (
            replace(
                base,
                fleet_droplets_count=n,
                throttle_by_queue_length=t,
                operator_restart_at_s=None,
                operator_throttle_at_s=None,
            ),
            float(step_s),
        )
        for t in (False, True)
        for n in fleets
    ]
    frames = map_items(_explorer_point, configs, executor)
    return pd.concat(frames, ignore_index=True).astype(
        {"fleet_droplets_count": "int64", "throttle_by_queue_length": "bool", "time_s": "float64"}
    )


def sweep(configs: Iterable[DwfmConfig], *, executor: Executor | None = None) -> pd.DataFrame:
    """Run many configs; one row per config, in the order given (the same shape for every model).

    Args:
        configs: the configs to run.
        executor: optional ``concurrent.futures.Executor`` (threads, processes, a Dask client's
            executor); ``None`` runs in this process. The result is the same either way.

    Returns:
        ``run`` (int64, the position in ``configs``), then one column per :class:`DwfmConfig` field (nested
        configs flattened as ``<field>.<subfield>``), then one per :class:`DwfmSummary` field; tuples as
        comma-joined text, ``None`` as NaN in number columns (the rule of every sweep, see
        ``labsupport._sweep``).

    Raises:
        ConfigError: ``configs`` is not an iterable of DwfmConfig values, or ``executor`` is neither
            ``None`` nor a ``concurrent.futures.Executor``.
    """
    return _sweep.sweep(run, configs, DwfmConfig, executor)


_LEVER_COLUMNS = {
    "lever": "string",
    "setting": "string",
    "recovered": "bool",
    "recovered_at_s": "float64",
    "peak_queue_count": "int64",
    "wasted_fraction": "float64",
    "dropped_count": "int64",
    "retries_refused_count": "int64",
}


def _lever_row(args: tuple[str, str, DwfmConfig]) -> dict:
    lever, setting, cfg = args
    result = run(cfg)
    s, by_kind = result.summary, result.events.groupby("kind", observed=False)["count"].sum()
    return {
        "lever": lever,
        "setting": setting,
        "recovered": s.recovered,
        "recovered_at_s": float("nan") if s.recovered_at_s is None else s.recovered_at_s,
        "peak_queue_count": s.peak_queue_count,
        "wasted_fraction": s.wasted_fraction,
        "dropped_count": int(by_kind["work_dropped_expired"]),
        "retries_refused_count": int(by_kind["retry_refused"]),
    }


def lever_table(config: DwfmConfig = INCIDENT, *, executor: Executor | None = None) -> pd.DataFrame:
    """Every remedy the course discusses, one at a time, on ``config`` without its operators.

    Rows: ``config`` as given (with its operators, if any), then without operators: no lever;
    admission control (``throttle_by_queue_length``); exponential backoff with full jitter
    (``retry_policy="backoff_full_jitter"``); dropping expired work (``drop_expired_work``); a LIFO
    queue (``queue_order="lifo"``); a retry budget (``retry_budget_per_s`` =
    :data:`LEVER_BUDGET_PER_S` per host, burst 10); and dropping expired work with a LIFO queue.

    Args:
        config: the starting config (the incident preset by default).
        executor: optional ``concurrent.futures.Executor``; ``None`` runs in this process.

    Returns:
        One row per lever: ``lever``, ``setting`` (string: the fields changed), ``recovered``
        (bool), ``recovered_at_s`` (float64, seconds since 11:48 PM PDT; NaN if not recovered
        within the horizon), ``peak_queue_count`` (int64), ``wasted_fraction`` (float64),
        ``dropped_count`` (int64, items dropped unworked because their deadline had passed) and
        ``retries_refused_count`` (int64, failed items the retry budget did not retry).

    Raises:
        ConfigError: ``config`` is not a DwfmConfig, or a bad ``executor``.
    """
    if not isinstance(config, DwfmConfig):
        raise ConfigError(f"config must be a DwfmConfig, got {type(config).__name__}")
    alone = replace(config, operator_restart_at_s=None, operator_throttle_at_s=None)
    rows = [
        ("as configured", "operators as in the config", config),
        ("no operators", "operator_restart_at_s=None, operator_throttle_at_s=None", alone),
        ("admission control", "throttle_by_queue_length=True", replace(alone, throttle_by_queue_length=True)),
        (
            "backoff with full jitter",
            'retry_policy="backoff_full_jitter"',
            replace(alone, retry_policy="backoff_full_jitter"),
        ),
        ("drop expired work", "drop_expired_work=True", replace(alone, drop_expired_work=True)),
        ("LIFO queue", 'queue_order="lifo"', replace(alone, queue_order="lifo")),
        (
            "retry budget",
            f"retry_budget_per_s={LEVER_BUDGET_PER_S:g}, retry_budget_burst_count=10",
            replace(alone, retry_budget_per_s=LEVER_BUDGET_PER_S, retry_budget_burst_count=10),
        ),
        (
            "drop expired work + LIFO queue",
            'drop_expired_work=True, queue_order="lifo"',
            replace(alone, drop_expired_work=True, queue_order="lifo"),
        ),
    ]
    return pd.DataFrame(map_items(_lever_row, rows, executor)).astype(_LEVER_COLUMNS)


_BACKOFF_COLUMNS = {
    "fleet_droplets_count": "int64",
    "setting": "string",
    "recovered": "bool",
    "recovered_at_s": "float64",
    "peak_queue_per_host": "float64",
    "mean_queue_per_host": "float64",
    "mean_wait_s": "float64",
    "peak_backoff_count": "int64",
    "wasted_fraction": "float64",
}


def _backoff_row(args: tuple[str, DwfmConfig]) -> dict:
    label, cfg = args
    result = run(cfg)
    s, ts = result.summary, result.timeseries
    after = ts[ts["time_s"] > cfg.outage_end_s]
    mean_q = float(after["queue_count"].mean()) / cfg.dwfm_hosts_count if len(after) else 0.0
    return {
        "fleet_droplets_count": cfg.fleet_droplets_count,
        "setting": label,
        "recovered": s.recovered,
        "recovered_at_s": float("nan") if s.recovered_at_s is None else s.recovered_at_s,
        "peak_queue_per_host": s.peak_queue_count / cfg.dwfm_hosts_count,
        "mean_queue_per_host": mean_q,
        "mean_wait_s": mean_q * cfg.lease_establish_s / cfg.host_concurrency_count,
        "peak_backoff_count": int(after["backoff_count"].max()) if len(after) else 0,
        "wasted_fraction": s.wasted_fraction,
    }


def backoff_sweep(
    fleet_sizes: Iterable[int] = (3_000, 6_600, 9_000),
    config: DwfmConfig = INCIDENT,
    *,
    executor: Executor | None = None,
) -> pd.DataFrame:
    """Backoff against admission control, over fleet sizes and backoff parameters, without operators.

    Each fleet size runs every :data:`BACKOFF_SETTINGS` entry on ``config`` with its operators
    removed. The queue columns show the mechanism: backoff moves items from the queue into waiting
    (``peak_backoff_count``), which shortens the mean queue, while the first wave of requests,
    which no retry policy touches, still fills it (``peak_queue_per_host``).

    Args:
        fleet_sizes: droplet counts (each valid for ``fleet_droplets_count``).
        config: the starting config (the incident preset by default).
        executor: optional ``concurrent.futures.Executor``; ``None`` runs in this process.

    Returns:
        One row per fleet size and setting: ``fleet_droplets_count`` (int64), ``setting`` (string),
        ``recovered`` (bool, within ``horizon_s``), ``recovered_at_s`` (float64, seconds since
        11:48 PM PDT, NaN if not recovered), ``peak_queue_per_host`` and ``mean_queue_per_host``
        (float64, items waiting per DWFM host: the peak over the run, the mean over the rows after
        DynamoDB returns), ``mean_wait_s`` (float64, seconds: that mean queue times
        ``lease_establish_s / host_concurrency_count``, the wait it implies), ``peak_backoff_count``
        (int64, items waiting out a backoff at once, after DynamoDB returns) and ``wasted_fraction``
        (float64).

    Raises:
        ConfigError: a bad fleet size, ``config`` not a DwfmConfig, or a bad ``executor``.
    """
    if not isinstance(config, DwfmConfig):
        raise ConfigError(f"config must be a DwfmConfig, got {type(config).__name__}")
    fleets = _values("fleet_sizes", fleet_sizes, lambda n, v: check_int(n, v, lo=1, hi=1_000_000))
    alone = replace(config, operator_restart_at_s=None, operator_throttle_at_s=None)
    items = [
        (label, replace(alone, fleet_droplets_count=n, **fields)) for n in fleets for label, fields in BACKOFF_SETTINGS
    ]
    return pd.DataFrame(map_items(_backoff_row, items, executor)).astype(_BACKOFF_COLUMNS)
