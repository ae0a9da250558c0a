"""Sweeps over the chain model (import them from :mod:`labsupport.chain`).

The 64 combinations of stop points, "which single stop point buys the most time?", and the
calibration table. Every point is one :func:`labsupport.chain.run`, in-process or through any
``concurrent.futures.Executor``, with the same result either way.
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Executor
from dataclasses import replace
from typing import cast

import pandas as pd

from .. import timeline
from .._sweep import check_configs, flag_combinations, map_items, sweep_frame
from .._validate import check_number
from ..errors import ConfigError
from . import engine as _en
from .config import INCIDENT, STOP_POINT_NAMES, STOP_POINT_TITLES, ChainConfig, StopPoints
from .model import STAGES, ChainResult, _assemble, _check, run


def all_stop_point_configs(config: ChainConfig = INCIDENT) -> list[ChainConfig]:
    """The 64 variants of ``config``, one per combination of stop points: none, 1, ..., 6, 1+2, ..., 1+...+6."""
    _check(config)
    combos = flag_combinations(6)
    return [replace(config, stop_points=StopPoints.from_flags(*c)) for c in combos]


def _model_key(config: ChainConfig) -> ChainConfig:
    """The config with stop point 6 off: stop point 6 changes no model run, only the dependency query."""
    return replace(config, stop_points=replace(config.stop_points, isolate_regions=False))


_SLUGS = dict(zip(STAGES, ("dynamodb", "launches", "nlb"), strict=False))


def _results(configs: object, executor: Executor | None) -> tuple[list[ChainConfig], list[ChainResult]]:
    """Check ``configs`` and run them; configs that differ only in stop point 6 share their model runs."""
    configs = check_configs(configs, ChainConfig)
    keys: dict[ChainConfig, int] = {}
    for c in configs:
        keys.setdefault(_model_key(c), len(keys))
    runs = map_items(_en.run_models, list(keys), executor)  # with the default operators, rules A-C
    return configs, [_assemble(c, *runs[keys[_model_key(c)]]) for c in configs]


def sweep(configs: Iterable[ChainConfig], *, executor: Executor | None = None) -> pd.DataFrame:
    """Run many chain configs; one row per config, in the order given (the same shape for every model).

    Configs that differ only in stop point 6 share their model runs (stop point 6 changes only the
    dependency query), so 64 combinations need 32 runs of the models.

    Args:
        configs: the configs to run.
        executor: optional ``concurrent.futures.Executor``; ``None`` runs in this process. The
            result is the same either way.

    Returns:
        ``run`` (int64, the position in ``configs``), then one column per :class:`ChainConfig`
        field, nested configs flattened as ``<field>.<subfield>`` (``stop_points`` is the label,
        ``stop_points.guards.self_repair`` a flag, ``race.horizon_s`` a sub-model's setting), then
        one per :class:`ChainSummary` field (``None`` as NaN; the rule of every sweep, see
        ``labsupport._sweep``).

    Raises:
        ConfigError: an item is not a ChainConfig, or ``executor`` is not an Executor.
    """
    configs, results = _results(configs, executor)
    return sweep_frame(configs, [r.summary for r in results])


def _stage_columns(result: ChainResult) -> dict[str, float]:
    row: dict[str, float] = {"points_count": len(result.config.stop_points.numbers())}
    for name, slug in _SLUGS.items():
        st = result.stages[result.stages["stage"] == name]
        row[f"{slug}_start_s"] = float(st["start_s"].iloc[0]) if len(st) else float("nan")
        row[f"{slug}_end_s"] = float(st["end_s"].iloc[0]) if len(st) else float("nan")
        row[f"{slug}_impact_s"] = float(st["impact_s"].iloc[0]) if len(st) else 0.0
    return row


def stop_point_table(config: ChainConfig = INCIDENT, *, executor: Executor | None = None) -> pd.DataFrame:
    """All 64 combinations of stop points on ``config``, ranked by total duration (shortest first).

    Returns:
        :func:`sweep`'s columns, then the six stop-point flags under :data:`STOP_POINT_NAMES` (bool),
        ``points_count`` (int64), for each stage ``<stage>_start_s``, ``<stage>_end_s`` (float64,
        NaN if it did not happen) and ``<stage>_impact_s`` with ``<stage>`` one of ``dynamodb``,
        ``launches``, ``nlb``, then ``saved_s`` (float64: the no-stop-point total minus this
        total) and ``rank`` (int64, 1 = shortest; ties share a rank), sorted by total, then by the
        number of stop points, then by label.
    """
    configs, results = _results(all_stop_point_configs(config), executor)
    frame = sweep_frame(configs, [r.summary for r in results])
    flags = pd.DataFrame([dict(zip(STOP_POINT_NAMES, c.stop_points.flags(), strict=False)) for c in configs])
    frame = pd.concat([frame, flags, pd.DataFrame([_stage_columns(r) for r in results])], axis=1).copy()
    base = float(frame.loc[frame["stop_points"] == "none", "total_s"].iloc[0])
    frame = frame.assign(saved_s=base - frame["total_s"], rank=frame["total_s"].round(6).rank(method="min")).astype(
        {"points_count": "int64", "rank": "int64"}
    )
    return frame.sort_values(["total_s", "points_count", "stop_points"], kind="stable").reset_index(drop=True)


def single_point_savings(table: pd.DataFrame) -> pd.DataFrame:
    """Which single stop point buys the most time? Computed from a :func:`stop_point_table`.

    Args:
        table: a frame with the rows ``"none"`` and ``"1"`` to ``"6"`` in ``stop_points`` and the
            columns ``total_s`` and ``outside_region_failures_count``.

    Returns:
        Six rows, most time saved first: ``point`` (int64), ``title`` (string), ``total_s``,
        ``saved_s`` (float64), ``saved_fraction`` (float64, of the no-stop-point total),
        ``outside_region_failures_count`` (int64) and ``best`` (bool: saves the most; ties all true).

    Raises:
        ConfigError: a required row or column is missing.
    """
    if not isinstance(table, pd.DataFrame):
        raise ConfigError(f"table must be a pandas DataFrame, got {type(table).__name__}")
    need = {"stop_points", "total_s", "outside_region_failures_count"}
    if missing := sorted(need - set(table.columns)):
        raise ConfigError(f"table is missing columns {missing}")
    by = table.set_index("stop_points")
    labels = ["none", *map(str, range(1, 7))]
    if missing := [x for x in labels if x not in by.index]:
        raise ConfigError(f"table is missing the rows {missing}; use stop_point_table()")
    base = float(cast(float, by.at["none", "total_s"]))
    rows = [
        (
            p,
            STOP_POINT_TITLES[p - 1],
            float(cast(float, by.at[str(p), "total_s"])),
            int(cast(int, by.at[str(p), "outside_region_failures_count"])),
        )
        for p in range(1, 7)
    ]
    frame = pd.DataFrame(rows, columns=["point", "title", "total_s", "outside_region_failures_count"])
    frame["saved_s"] = base - frame["total_s"]
    frame["saved_fraction"] = frame["saved_s"] / base if base > 0 else 0.0
    frame["best"] = frame["saved_s"].round(6) == frame["saved_s"].round(6).max()
    frame = frame.astype({"point": "int64", "title": "string", "outside_region_failures_count": "int64"})
    cols = ["point", "title", "total_s", "saved_s", "saved_fraction", "outside_region_failures_count", "best"]
    return frame.sort_values(["saved_s", "point"], ascending=[False, True], kind="stable")[cols].reset_index(drop=True)


#: Calibration targets: (PES interval in :func:`labsupport.timeline.durations`, summary field, how the
#: model sets it).
_CALIBRATION = (
    ("whole_event", "total_s", "all stages; ends with operator rule C"),
    ("dynamodb_errors", "dynamodb_s", "race empty window + DNS caches (lookup interval calibrated there)"),
    ("dns_empty", "dns_empty_s", "race: manual repair after the PES's 2 h 37 min (an input)"),
    ("dwfm_all_leases", "leases_back_after_dns_s", "DWFM (fleet size calibrated there) + operator rule A"),
    ("launch_failures", "launches_s", "DWFM + Network Manager (backlog and retries calibrated here)"),
    ("nlb_period", "nlb_s", "NLB errors (emergent onset) to failover re-enabled (rule C)"),
)


def calibration(result: ChainResult | None = None, *, tolerance_fraction: float = 0.2) -> pd.DataFrame:
    """Model against summary for each calibrated boundary of the chain.

    Args:
        result: a chain run with no stop points (default: ``run(INCIDENT)``).
        tolerance_fraction: allowed relative error (0 to 1; the course holds the model to 0.2).

    Returns:
        One row per boundary: ``interval`` and ``label`` (string), ``pes_s`` and ``model_s``
        (float64), ``pes_text`` and ``model_text`` (string, "2 h 37 min"), ``error_fraction``
        (float64, model / PES - 1), ``within_tolerance`` (bool) and ``set_by`` (string).

    Raises:
        ConfigError: ``result`` has stop points on, or a bad tolerance.
    """
    check_number("tolerance_fraction", tolerance_fraction, lo=0, hi=1)
    result = run(INCIDENT) if result is None else result
    if not isinstance(result, ChainResult) or result.config.stop_points.numbers():
        raise ConfigError("result must be a ChainResult of a config with no stop points on")
    d = timeline.durations()
    rows = []
    for name, attr, how in _CALIBRATION:
        pes = float(cast(pd.Timedelta, d.at[name, "duration"]).total_seconds())
        model = getattr(result.summary, attr)
        model = float("nan") if model is None else float(model)
        rows.append(
            (
                name,
                str(d.at[name, "label"]),
                pes,
                model,
                str(d.at[name, "text"]),
                timeline.format_duration(model) if model == model else "n/a",
                model / pes - 1,
                how,
            )
        )
    frame = pd.DataFrame(
        rows, columns=["interval", "label", "pes_s", "model_s", "pes_text", "model_text", "error_fraction", "set_by"]
    )
    frame["within_tolerance"] = frame["error_fraction"].abs() <= tolerance_fraction
    return frame.astype(
        {"interval": "string", "label": "string", "pes_text": "string", "model_text": "string", "set_by": "string"}
    )


def stop_point_5_split(config: ChainConfig = INCIDENT) -> pd.DataFrame:
    """Stop point 5's saving, split into what the models produce and what rule C assumes.

    With ``relax_only_after_manual_throttle`` (the incident's reading), a run in which DWFM's leases
    come back before the operators act skips rule C's ``ec2_throttle_relax_s``: nobody throttled
    by hand, so nothing has to be unwound. That skip is an assumption. This function runs ``config``
    without stop points, with stop point 5 and the interval always added, and with stop point 5
    as ``config`` reads rule C, and splits the saving between the last two.

    Args:
        config: the chain config to start from (its ``stop_points`` are replaced).

    Returns:
        Three rows, ``part`` (string): ``"measured"`` (saving with the interval added in every
        run: what the models produce), ``"assumed"`` (the further saving from skipping the interval)
        and ``"total"`` (stop point 5's saving as ``config`` reads rule C); columns ``saved_s``
        (float64, seconds) and ``saved_fraction`` (float64, of the total saving; 0 if it is 0).

    Raises:
        ConfigError: ``config`` is not a ChainConfig.
    """
    _check(config)
    five = StopPoints.of(5)
    base = run(replace(config, stop_points=StopPoints())).summary.total_s
    always = run(replace(config, stop_points=five, relax_only_after_manual_throttle=False)).summary.total_s
    as_read = run(replace(config, stop_points=five)).summary.total_s
    saved = {"measured": base - always, "assumed": always - as_read, "total": base - as_read}
    frame = pd.DataFrame({"part": list(saved), "saved_s": [float(v) for v in saved.values()]})
    total = saved["total"]
    frame["saved_fraction"] = frame["saved_s"] / total if total else 0.0
    return frame.astype({"part": "string", "saved_s": "float64", "saved_fraction": "float64"})
