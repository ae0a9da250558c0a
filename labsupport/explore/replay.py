"""A counterexample replayed in the race simulation: the explorer's steps as a scripted race run."""

from __future__ import annotations

from typing import cast

import pandas as pd

from .. import race
from ..errors import ConfigError
from ..race import RaceConfig
from .engine import ENDPOINT_NAMES
from .model import ExploreResult

__all__ = ["race_replay", "race_replay_config"]

_REPLAY_INTERVAL_S = 30.0
#: Explorer steps that the simulation takes without logging an event of their own.
_NOT_LOGGED = ("pick", "check_dropped", "cleanup_done")


def race_replay_config(result: ExploreResult) -> RaceConfig:
    """Script ``result``'s counterexample as a :class:`labsupport.race.RaceConfig`.

    Timing is made deterministic (no jitter, lock TTL 0, 1 s transactions, plans every 30 s). The
    Enactor that overwrites (the stale one) polls just after its plan appears; the one that
    deletes the active plan polls just after its own, newer plan appears; the others never start.
    One injected lock loss, with a backoff computed from the schedule, holds the stale Enactor back
    until the other has written the endpoint and before its clean-up reaches it.

    Args:
        result: a :func:`run` result whose counterexample has the October shape (one stale
            overwrite on the first endpoint, then the deletion of that plan by another Enactor)
            and ``endpoint_count=2``: with one endpoint the simulation's lock leaves no gap
            between an Enactor's write and its clean-up for a one-second transaction to fit in.

    Returns:
        A ``labsupport.race.RaceConfig`` with the same guards and ``cleanup_keep_generations``.

    Raises:
        ConfigError: if the counterexample is empty or not of that shape, ``cleanup_keep_generations`` is 0,
            or the result is of a student's step (``enactor_step``).
    """
    if not isinstance(result, ExploreResult):
        raise ConfigError(f"result must be a labsupport.explore.ExploreResult, got {type(result).__name__}")
    ev, cfg = result.events, result.config
    if cfg.enactor_step is not None:
        raise ConfigError(
            "race_replay_config scripts the built-in protocol's counterexample; run a student's step in the "
            "simulation with explore.race_seeds (or race.RaceConfig(enactor_step=...))"
        )
    stale = ev.loc[ev["role"] == "stale overwrite"]
    killed = ev.loc[ev["role"] == "active plan deleted"]
    if stale.empty or killed.empty or cfg.endpoint_count != 2 or cfg.cleanup_keep_generations < 1:
        raise ConfigError(
            "race_replay_config needs a counterexample with a stale overwrite and a deleted "
            "active plan, endpoint_count=2 and cleanup_keep_generations >= 1"
        )
    slow, fast = cast(str, stale["actor"].iat[0]), cast(str, killed["actor"].iat[0])
    writes = ev.loc[(ev["actor"] == slow) & (ev["action"] == "endpoint write")]
    if slow == fast or writes["endpoint"].iat[0] != ENDPOINT_NAMES[0] or writes.index[0] != stale.index[0]:
        raise ConfigError("race_replay_config needs the stale overwrite to be the slow Enactor's first write")
    k = int(cast(int, stale["plan_generation"].iat[0]))
    p = int(cast(int, ev.loc[(ev["actor"] == fast) & (ev["action"] == "version check"), "plan_generation"].iat[-1]))
    t_slow, t_fast = _REPLAY_INTERVAL_S * (k - 1) + 1, _REPLAY_INTERVAL_S * (p - 1) + 1
    backoff = t_fast + 1.5 - t_slow  # the slow Enactor's lock attempt lands 0.5 s after the fast one's write
    names = race.enactor_names(cfg.enactor_count)
    offsets = tuple(t_slow if n == slow else t_fast if n == fast else 3600.0 for n in names)
    return race.RaceConfig(
        plan_interval_s=_REPLAY_INTERVAL_S,
        enactor_count=cfg.enactor_count,
        enactor_offsets_s=offsets,
        endpoints=ENDPOINT_NAMES[:2],
        regional_endpoint=ENDPOINT_NAMES[0],
        txn_latency_s=1.0,
        txn_jitter_fraction=0.0,
        lock_ttl_s=0.0,
        backoff_base_s=backoff,
        backoff_cap_s=backoff,
        backoff_jitter_fraction=0.0,
        cleanup_keep_generations=cfg.cleanup_keep_generations,
        delays=(race.EnactorDelay(enactor=slow, start_s=0.0, lock_losses_count=1, endpoints=(ENDPOINT_NAMES[0],)),),
        horizon_s=t_fast + 30.0,
        seed=0,
        guards=cfg.guards,
    )


def race_replay(result: ExploreResult) -> pd.DataFrame:
    """Run :func:`race_replay_config` in ``labsupport.race`` and find each counterexample step in it.

    Steps are matched per actor, in order. Picking a plan, a dropped check and the end of clean-up
    have no event of their own in the simulation (there, picking and the one-time check are one
    event), so they are left out. Independent steps of different actors
    may appear in another order in the simulation; each actor's own order must be the same.

    Args:
        result: as for :func:`race_replay_config`.

    Returns:
        The counterexample's logged steps, columns ``step``, ``actor``, ``race_action``,
        ``plan_generation``, ``endpoint`` (as in ``ExploreResult.events``), ``race_time_s`` (float64,
        seconds since the start at which the simulation did the same thing, NaN if it never did)
        and ``race_endpoint_empty_s`` (float64, when the simulated endpoint went empty, NaN if never;
        the same on every row).
    """
    sim = race.run(race_replay_config(result)).events
    steps = result.events.loc[
        ~result.events["race_action"].isin(_NOT_LOGGED), ["step", "actor", "race_action", "plan_generation", "endpoint"]
    ].copy()
    done: dict[str, float] = {}
    times = []
    for actor, action, gen, endpoint in zip(
        steps["actor"], steps["race_action"], steps["plan_generation"], steps["endpoint"], strict=False
    ):
        hit = sim.loc[
            (sim["actor"].astype(str) == actor)
            & (sim["action"].astype(str) == action)
            & (sim["generation"] == gen)
            & (sim["endpoint"].fillna("").astype(str) == endpoint)
            & (sim["time_s"] >= done.get(actor, 0.0))
        ]
        times.append(float(hit["time_s"].iat[0]) if len(hit) else float("nan"))
        done[actor] = times[-1] if len(hit) else float("inf")
    empty = sim.loc[sim["action"].astype(str) == "endpoint_empty", "time_s"]
    empty_s = float(cast(float, empty.iat[0])) if len(empty) else float("nan")
    return (
        steps.assign(race_time_s=times, race_endpoint_empty_s=empty_s)
        .astype({"race_time_s": "float64", "race_endpoint_empty_s": "float64"})
        .reset_index(drop=True)
    )
