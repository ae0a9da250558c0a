"""Lab 1's exercises (the Enactor race), checked against the race model.

Every answer comes from :func:`labsupport.race.run` or :func:`labsupport.race.seed_sweep` on the
incident preset (:data:`labsupport.race.INCIDENT`) or a variant of it; the model follows the
post-event summary's DNS section and, for the lock, AWS's later talk, as :mod:`labsupport.race`
says. Each ``exN(answer)`` returns a :class:`~labsupport.feedback.Feedback` and never raises; each
``model_exN()`` returns the model's answer as a read-only dict (cached).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from .. import race
from ..feedback import Feedback, boolean, feedback, number, review

__all__ = ["SWEEP_SEEDS", "ex1", "ex2", "ex3", "ex4", "model_ex1", "model_ex2", "model_ex3", "model_ex4"]

#: Seeds in the exercises' sweeps, and the sweeps' horizon (30 minutes keeps them quick).
SWEEP_SEEDS, SWEEP_HORIZON_S = 40, 1_800.0


def _sweep(cfg: race.RaceConfig) -> Any:
    return race.seed_sweep(replace(cfg, horizon_s=SWEEP_HORIZON_S), seeds=range(SWEEP_SEEDS))


@functools.cache
def model_ex1() -> Mapping[str, Any]:
    """Clean-up keeping 6 generations, no guards: on the incident's seed, ``regional_empty_s``
    (float) and ``stale_overwrites`` (int); over :data:`SWEEP_SEEDS` seeds, ``sweep_regional`` and
    ``sweep_any`` (runs that empty the regional endpoint, or any endpoint) and ``sweep_stale``
    (runs with a stale write); ``is_fix`` (False while any run still empties an endpoint)."""
    cfg = replace(race.INCIDENT, cleanup_keep_generations=6)
    s = race.run(cfg).summary
    sw = _sweep(cfg)
    regional = int((sw["regional_empty_s"] > 0).sum())
    anywhere = int((sw["endpoints_emptied"] != "").sum())
    return MappingProxyType(
        {
            "regional_empty_s": float(s.regional_empty_s),
            "stale_overwrites": int(s.stale_overwrites_count),
            "sweep_regional": regional,
            "sweep_any": anywhere,
            "sweep_stale": int((sw["stale_overwrites_count"] > 0).sum()),
            "is_fix": anywhere == 0,
        }
    )


def ex1(answer: object) -> Feedback:
    """Check Exercise 1: ``{"regional_empties": True/False, "is_fix": True/False}``."""
    m = model_ex1()
    on_seed = "goes empty" if m["regional_empty_s"] > 0 else "never goes empty"
    why_fix = (
        f"On the incident's seed the regional endpoint {on_seed}, but one seed is one schedule: over {SWEEP_SEEDS} "
        f"seeds with the same setting, the stale write happens in {m['sweep_stale']}, the regional endpoint still "
        f"goes empty in {m['sweep_regional']} and some endpoint in {m['sweep_any']}."
    )
    checks = {
        "regional_empties": lambda v: boolean(
            "regional_empties",
            v,
            m["regional_empty_s"] > 0,
            why=f"On the incident's seed it {on_seed}, with {m['stale_overwrites']} stale overwrites still made.",
        ),
        "is_fix": lambda v: boolean("is_fix", v, m["is_fix"], why=why_fix),
    }
    return feedback("Exercise 1", answer, checks)


@functools.cache
def model_ex2() -> Mapping[str, Any]:
    """For 6, 9 and 12 lock losses, runs of :data:`SWEEP_SEEDS` that empty the regional endpoint
    (``regional``), some endpoint (``anywhere``) and that make a stale write (``stale``): dicts keyed
    by the number of lock losses."""
    out: dict[str, dict[int, int]] = {"regional": {}, "anywhere": {}, "stale": {}}
    for losses in (6, 9, 12):
        cfg = replace(race.INCIDENT, delays=(replace(race.INCIDENT_DELAY, lock_losses_count=losses),))
        sw = _sweep(cfg)
        out["regional"][losses] = int((sw["regional_empty_s"] > 0).sum())
        out["anywhere"][losses] = int((sw["endpoints_emptied"] != "").sum())
        out["stale"][losses] = int((sw["stale_overwrites_count"] > 0).sum())
    return MappingProxyType(out)


def ex2(answer: object) -> Feedback:
    """Check Exercise 2: ``{"regional_6": ..., "regional_9": ..., "regional_12": ...}``, runs of 40."""
    m = model_ex2()
    why = (
        f"A stale write happens in every run ({m['stale'][6]}, {m['stale'][9]}, {m['stale'][12]} of {SWEEP_SEEDS}); "
        f"some endpoint goes empty in {m['anywhere'][6]}, {m['anywhere'][9]} and {m['anywhere'][12]}."
    )
    checks = {
        f"regional_{n}": (
            lambda v, n=n: number(f"regional_{n}", v, m["regional"][n], tolerance=0, unit=f"runs of {SWEEP_SEEDS}")
        )
        for n in (6, 9, 12)
    }
    return feedback("Exercise 2", answer, checks, note=why)


@functools.cache
def model_ex3() -> Mapping[str, Any]:
    """Guard 2 alone on the incident's schedule: ``seconds_in_past`` (float, s the regional endpoint
    served a plan older than one it had served) and ``generations_back`` (int, how far back)."""
    g2 = race.run(replace(race.INCIDENT, guards=race.Guards(delete_only_unreferenced=True)))
    r = g2.endpoint_states().query("endpoint == @race.INCIDENT.regional_endpoint").reset_index(drop=True)
    high = r["generation"].cummax()
    nxt = r["time_s"].shift(-1).fillna(g2.config.horizon_s)
    back = r["generation"] < high
    return MappingProxyType(
        {
            "seconds_in_past": float((nxt[back] - r["time_s"][back]).sum()),
            "generations_back": int((high[back] - r["generation"][back]).max()),
            "plan_interval_s": float(race.INCIDENT.plan_interval_s),
        }
    )


def ex3(answer: object) -> Feedback:
    """Check Exercise 3: ``{"seconds_in_past": seconds, "generations_back": generations}``."""
    m = model_ex3()
    why = f"Less than one planner interval ({m['plan_interval_s']:.0f} s): the next plan replaces the old one."
    checks = {
        "seconds_in_past": lambda v: number(
            "seconds_in_past", v, m["seconds_in_past"], tolerance=0.5, unit="s", why=why
        ),
        "generations_back": lambda v: number("generations_back", v, m["generations_back"], tolerance=0),
    }
    return feedback("Exercise 3", answer, checks)


@functools.cache
def model_ex4() -> Mapping[str, Any]:
    """Exercise 4 is a design question: no model answer (an empty dict)."""
    return MappingProxyType({})


def ex4(answer: object) -> Feedback:
    """Check Exercise 4's form: ``{"example_1": "...", "example_2": "..."}``, each in words."""
    checks = {name: (lambda v, name=name: review(name, v, min_words=15)) for name in ("example_1", "example_2")}
    note = (
        "For each example, a strong answer names the check, the act, what can change in between, and the guard that "
        "closes the gap: open a file and check the handle, not the path (CWE-367); a conditional write on a version "
        "number or a fencing token (guard 1); a reference check at delete time (guard 2); and where the check cannot "
        "move to the moment of use, a last-moment refusal of dangerous results (guard 3) or fast recovery (guard 4)."
    )
    return feedback("Exercise 4", answer, checks, note=note)
