"""Practice on the race model: an Enactor with its delays, and whether the endpoint goes empty.

Scenario:
    ``practice(seed)`` draws a schedule unlike the incident's: one of the three DNS Enactors loses
    its lock 3 to 12 times in a row on every endpoint, the DNS Planner writes a plan every 20 to
    45 seconds, clean-up keeps 3 to 6 generations, no guard is on, and the model's own seed is
    drawn too. The question: does the regional endpoint ever answer with no records in the first
    30 minutes, and how many stale overwrites happen on all endpoints? The check runs
    :func:`labsupport.race.run` and says why from its events: whose stale write was deleted by
    whose clean-up, and how soon, or what wrote over the stale plan first.
Covers:
    The post-event summary's race as :mod:`labsupport.race` models it: a one-time check that goes
    stale while an Enactor backs off (TOCTOU), a stale write, and a clean-up that deletes the plan in
    use::

        seed ──rng──> delayed Enactor, lock losses, plan interval, clean-up age, model seed
             ──race.run──> regional endpoint empty? stale overwrites; the events that decided it
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from .. import race as model
from ..feedback import Part, boolean, number
from ._problem import Problem, rng

__all__ = ["RaceProblem", "practice"]

#: Every practice run lasts 30 minutes, long enough for the race to fire or not.
HORIZON_S = 1_800.0


@dataclass(frozen=True)
class RaceProblem(Problem):
    """A race schedule to predict: see :func:`practice`. ``config`` is its :class:`~labsupport.race.RaceConfig`."""

    model = "race"
    fields = (
        ("regional_empties", "True or False: does the regional endpoint ever answer with no records?"),
        ("stale_overwrites", "stale overwrites on all endpoints (a number)"),
    )
    hint = (
        "Run it: s = race.run(problem.config).summary; s.regional_empty_s > 0 and s.stale_overwrites_count. "
        "The events (race.run(...).events) say why."
    )

    def _solve(self) -> Mapping[str, Any]:
        run = model.run(self.config)
        s, ev = run.summary, run.events
        reg = self.config.regional_endpoint
        on_reg = ev[ev["endpoint"] == reg]
        stale = on_reg[on_reg["action"] == "stale_write"]
        why = "No stale write reached the regional endpoint."
        if len(stale):
            first = stale.iloc[0]
            after = on_reg[on_reg["time_s"] > first["time_s"]]
            killed = after[after["action"] == "delete_active"]
            written = after[after["action"] == "write"]
            if len(killed) and (not len(written) or killed.iloc[0]["time_s"] < written.iloc[0]["time_s"]):
                k = killed.iloc[0]
                why = (
                    f"{first['actor']} wrote stale plan {int(first['generation'])} on the regional endpoint at "
                    f"{first['time_s']:.1f} s, and {k['actor']}'s clean-up deleted it "
                    f"{k['time_s'] - first['time_s']:.2f} s later, before any newer plan replaced it."
                )
            elif len(written):
                w = written.iloc[0]
                why = (
                    f"{first['actor']} wrote stale plan {int(first['generation'])} on the regional endpoint at "
                    f"{first['time_s']:.1f} s, but {w['actor']} wrote plan {int(w['generation'])} over it at "
                    f"{w['time_s']:.1f} s, before any clean-up deleted it."
                )
        return {
            "regional_empties": bool(s.regional_empty_s > 0),
            "stale_overwrites": int(s.stale_overwrites_count),
            "why": why,
            "emptied": ", ".join(s.endpoints_emptied) or "none",
        }

    def _parts(self, m: Mapping[str, Any]) -> dict[str, Callable[[Any], Part]]:
        return {
            "regional_empties": lambda v: boolean("regional_empties", v, m["regional_empties"]),
            "stale_overwrites": lambda v: number("stale_overwrites", v, m["stale_overwrites"], tolerance=0),
        }

    def _why(self, m: Mapping[str, Any]) -> str:
        return f"Why: {m['why']} Endpoints that went empty: {m['emptied']}."


def practice(seed: int = 0) -> RaceProblem:
    """A fresh race problem drawn from ``seed`` (the same seed, the same problem).

    Args:
        seed: an integer from 0 to 2**63 - 1.

    Returns:
        A :class:`RaceProblem`. Its config varies :data:`labsupport.race.INCIDENT`: the delayed
        Enactor (``enactor-a`` to ``-c``) and its ``lock_losses_count`` (3 to 12), ``plan_interval_s``
        (20 to 45 s, in fives), ``cleanup_keep_generations`` (3 to 6), the model's ``seed``, and a
        30-minute ``horizon_s``; no guard.

    Raises:
        ConfigError: ``seed`` is not an integer from 0 to 2**63 - 1.
    """
    r = rng(seed, "race")
    enactor = r.choice(model.enactor_names(model.INCIDENT.enactor_count))
    losses, interval = r.randint(3, 12), float(r.randrange(20, 46, 5))
    keep = r.randint(3, 6)
    cfg = replace(
        model.INCIDENT,
        delays=(replace(model.INCIDENT_DELAY, enactor=enactor, lock_losses_count=losses),),
        plan_interval_s=interval,
        cleanup_keep_generations=keep,
        horizon_s=HORIZON_S,
        seed=r.randrange(2**31),
    )
    text = (
        f"{enactor} loses its lock {losses} times in a row on every endpoint (from {cfg.delays[0].start_s:.0f} s); the "
        f"DNS Planner writes a plan every {interval:.0f} s; clean-up deletes plans more than {keep} generations older "
        f"than the one just applied; no guard is on; model seed {cfg.seed}. In the first "
        f"{HORIZON_S / 60:.0f} minutes, does the regional endpoint ever answer with no records, and how many stale "
        "overwrites happen on all endpoints?"
    )
    return RaceProblem(seed=int(seed), config=cfg, text=text)
