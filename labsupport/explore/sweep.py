"""Many checks: :func:`sweep` (one summary row per config), the 16-row verdict table built on it, and
the public check of a student's Enactor step (:func:`check_step`, with :func:`race_seeds`)."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Executor
from dataclasses import replace
from typing import cast

import pandas as pd

from .. import _sweep, race
from .._sweep import flag_combinations
from ..enactor import StepFunction
from ..enactor import check_step as _check_contract
from ..errors import ConfigError, LimitExceeded
from ..race import Guards
from .config import GUARDS, INCIDENT, INCIDENT_STEP, ExploreConfig
from .model import ExploreResult, run

__all__ = ["STEP_CHECK_BOUNDS", "STEP_RACE", "check_step", "race_seeds", "sweep", "verdict_rows", "verdict_table"]

#: The verdict table's columns after the guard flags and their label, from the summary.
_VERDICT = (
    "safe",
    "recovers",
    "empty_reachable",
    "stale_overwrite_reachable",
    "alert_reachable",
    "states_count",
    "transitions_count",
    "counterexample_steps_count",
    "stuck_states_count",
)


def sweep(configs: Iterable[ExploreConfig], *, executor: Executor | None = None) -> pd.DataFrame:
    """Check many configs; one row per config, in the order given (the same shape for every model).

    Args:
        configs: the configs to check.
        executor: optional ``concurrent.futures.Executor``; ``None`` checks in this process. The
            result is the same either way.

    Returns:
        ``run`` (int64, the position in ``configs``), then one column per :class:`ExploreConfig`
        field (nested configs flattened as ``<field>.<subfield>``), then one per
        :class:`ExploreSummary` field (``reachable_actions`` as comma-joined text; the rule of
        every sweep, see ``labsupport._sweep``).

    Raises:
        ConfigError: ``configs`` is not an iterable of ExploreConfig values, or a bad ``executor``.
        LimitExceeded: a config has more than its ``max_states`` states.
    """
    return _sweep.sweep(run, configs, ExploreConfig, executor)


def verdict_table(base: ExploreConfig = INCIDENT, *, executor: Executor | None = None) -> pd.DataFrame:
    """Check all 16 combinations of the four guards at ``base``'s bounds.

    Args:
        base: bounds (its guard flags are replaced).
        executor: an optional ``concurrent.futures.Executor``; ``None`` checks in this process.

    Returns:
        16 rows: no guard, each guard alone, then pairs, triples and all four (the order of
        ``labsupport.race.guard_table``). Columns: the four guard names (bool), ``guards`` str
        ("none", "1", "1+2", ...), ``safe``, ``recovers``, ``empty_reachable``,
        ``stale_overwrite_reachable``, ``alert_reachable`` (bool), ``states_count``,
        ``transitions_count``, ``counterexample_steps_count``, ``stuck_states_count`` (int64).

    Raises:
        LimitExceeded: if one combination exceeds ``base.max_states``.
    """
    if not isinstance(base, ExploreConfig):
        raise ConfigError(f"base must be an ExploreConfig, got {type(base).__name__}")
    configs = [
        replace(base, guards=Guards(**dict(zip(GUARDS, flags, strict=False))))
        for flags in flag_combinations(len(GUARDS))
    ]
    return _verdict(sweep(configs, executor=executor))


def verdict_rows(results: Iterable[ExploreResult]) -> pd.DataFrame:
    """One row of :func:`verdict_table`'s shape per result, in the order given.

    Args:
        results: explorer results, e.g. from :func:`run`.

    Returns:
        The columns of :func:`verdict_table`.
    """
    results = list(results)
    for res in results:
        if not isinstance(res, ExploreResult):
            raise ConfigError(f"results must hold labsupport.explore.ExploreResult values, got {type(res).__name__}")
    return _verdict(_sweep.sweep_frame([r.config for r in results], [r.summary for r in results]))


def _verdict(frame: pd.DataFrame) -> pd.DataFrame:
    """The verdict table's columns from a :func:`sweep` table: guard flags, their label, the verdicts."""
    flags = frame[[f"guards.{g}" for g in GUARDS]].set_axis(list(GUARDS), axis=1)
    return flags.join(frame[["guards", *_VERDICT]]).reset_index(drop=True)


#: The race a student's step runs in: the incident's (enactor-a loses its lock 9 times in a row on
#: every endpoint, DAT453), for one hour, well past the end of the delayed Enactor's step (about
#: 20 minutes of backoff over five endpoints).
STEP_RACE = replace(race.INCIDENT, horizon_s=3600.0)

#: The bounds :func:`check_step` checks every interleaving at, as (Enactors, plan generations,
#: endpoints, clean-up keeps): :data:`INCIDENT_STEP`'s, and two endpoints with the most eager clean-up.
STEP_CHECK_BOUNDS: tuple[tuple[int, int, int, int], ...] = ((2, 4, 1, 1), (2, 3, 2, 0))


def race_seeds(
    step: StepFunction | None, seeds: Iterable[int] = range(50), *, config: race.RaceConfig = STEP_RACE
) -> pd.DataFrame:
    """Run a student's Enactor step in the race simulation once per seed: does an endpoint go empty?

    Args:
        step: the step (:mod:`labsupport.enactor`'s contract).
        seeds: the seeds, one run each.
        config: the race (default :data:`STEP_RACE`); its ``enactor_step`` is replaced by ``step``.

    Returns:
        One row per seed: ``seed`` (int64), ``emptied`` (bool: a clean-up deleted the tree an
        alias pointed at, so some endpoint answered with no records), ``endpoints_emptied`` (str,
        comma-joined), ``stale_overwrites_count`` (int64) and ``empty_started_at_s`` (float64,
        seconds from the start until the regional endpoint first went empty; NaN if never).

    Raises:
        ConfigError: the step breaks its contract (raises, yields something that is not an
            operation, takes too many steps), or a bad ``config`` or ``seeds``.

    Follows the PES's race as :mod:`labsupport.race` does, with the step in place of the Enactor's code.
    """
    if not isinstance(config, race.RaceConfig):
        raise ConfigError(f"config must be a labsupport.race.RaceConfig, got {type(config).__name__}")
    table = race.seed_sweep(replace(config, enactor_step=step), seeds)
    return pd.DataFrame(
        {
            "seed": table["seed"].astype("int64"),
            "emptied": table["active_plan_deleted"].astype(bool),
            "endpoints_emptied": table["endpoints_emptied"].astype(str),
            "stale_overwrites_count": table["stale_overwrites_count"].astype("int64"),
            "empty_started_at_s": table["empty_started_at_s"].astype("float64"),
        }
    )


def check_step(step: object, *, seeds: Iterable[int] = range(50)) -> pd.DataFrame:
    """The public check of a student's Enactor step: every interleaving at :data:`STEP_CHECK_BOUNDS`, then the race.

    Each bound gives three rows: safe (no interleaving empties an endpoint), recovers (from every
    state the newest plan can still be applied everywhere) and cleans (at rest, clean-up has left no
    old tree that nothing refers to). The last row runs :func:`race_seeds` over ``seeds``.

    Args:
        step: the student's step, or ``None`` while the exercise is unanswered.
        seeds: the race's seeds.

    Returns:
        One row per check: ``check`` (str), ``passed`` (bool) and ``why`` (str: the figures, or the
        shortest counterexample's last operation, or the error the step caused). The check raises
        nothing for any ``step``: a step that breaks its contract fails its rows with the message.
    """
    if step is None:
        return _checks([("your step is defined", False, "not answered yet: write your step in the cell above")])
    try:
        _check_contract("step", step)
    except ConfigError as err:
        return _checks([("a generator function of (plan, endpoints, keep, read, write, delete)", False, str(err))])
    fn = cast(StepFunction, step)
    rows = []
    for n, g, e, keep in STEP_CHECK_BOUNDS:
        where = f"{n} Enactors, {g} plans, {e} endpoint{'s' if e > 1 else ''}, clean-up keeps {keep}"
        cfg = replace(
            INCIDENT_STEP, enactor_count=n, generation_count=g, endpoint_count=e, cleanup_keep_generations=keep
        )
        try:
            res = run(replace(cfg, enactor_step=fn, max_states=200_000))
        except (ConfigError, LimitExceeded) as err:
            rows.append((f"every interleaving ({where})", False, str(err)))
            continue
        rows += _verdicts(res, where)
    try:
        seen = race_seeds(fn, seeds)
    except ConfigError as err:
        return _checks([*rows, ("the race simulation", False, str(err))])
    bad = seen.loc[seen["emptied"], "seed"].tolist()
    listed = ", ".join(map(str, bad[:8])) + (", ..." if len(bad) > 8 else "")
    why = f"an endpoint went empty in {len(bad)} of {len(seen)} runs (seeds {listed})"
    return _checks(
        [*rows, (f"the race: no endpoint goes empty in {len(seen)} seeds", not bad, why if bad else "none went empty")]
    )


def _verdicts(res: ExploreResult, where: str) -> list[tuple[str, bool, str]]:
    """The safe, recovers and cleans rows of one check, each with the figures behind it."""
    s, ev = res.summary, res.events
    safe = f"{s.states_count:,} states, no endpoint empty in any"
    if len(ev):
        last = ev.iloc[-1]
        did = last["operation"] or last["action"]
        safe = f"shortest counterexample: {len(ev)} steps, ending with {last['actor']}'s {did}: {last['outcome']}"
    recovers = "from every state the newest plan can still be applied everywhere"
    if not s.recovers:
        path = (
            f"shortest path to one: {s.stuck_path_steps_count} steps" if s.stuck_path_steps_count else "the start too"
        )
        recovers = (
            f"{s.stuck_states_count:,} states from which the newest plan can never be applied everywhere ({path})"
        )
    cleans = "at rest, no old plan tree that nothing refers to is left"
    if not s.cleans:
        cleans = "at rest an endpoint still keeps an old plan tree that no record refers to: clean-up does not clean"
    return [
        (f"safe ({where})", s.safe, safe),
        (f"recovers ({where})", s.recovers, recovers),
        (f"cleans ({where})", s.cleans, cleans),
    ]


def _checks(rows: list[tuple[str, bool, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["check", "passed", "why"]).astype({"check": str, "passed": bool, "why": str})
