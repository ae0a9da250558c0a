"""The one registry of the package's models: a new model is registered here, and only here.

Each entry names a model package under ``labsupport`` and what the rest of the code must know about
it without importing it (this module is in the base layer and imports nothing of the package).
Read by:

* ``labsupport/__init__.py``: the modules ``labsupport.<name>`` gives on first use;
* ``tests/_registry.py``: the cross-cutting tests (robustness, determinism, executors), which
  fail for a registered model that has no small test config there;
* ``tests/base/test_import_graph.py``: each model's layer and the parts of its package, in order;
* ``tests/base/test_clock.py``, ``tests/base/test_executors.py`` and
  ``tests/book/test_api_reference_page.py``: each model's clock, its ``sweep`` and its API page.

A model's parts, in import order (a part imports only the parts before it in its entry)::

    config      the frozen config and its presets (every model)
    engine      the simpy actors and simulate(config), run on labsupport._engine's one loop
    <named>     an engine that is not a simpy model is named for what it is (dns_cache.resolvers:
                numpy draws), and so is a part of an engine (dwfm.control: admission control and
                the operators' actions), and so is a part of a composed model (chain.operators: the
                strategy asked before each model; chain.stages: the stages read off the runs)
    model       run(config), its result and summary; sweep(configs) where the model has no grids
    sweep       sweep(configs) beside the model's named grids (race.guard_table, dwfm.phase_sweep)
    replay      explore's counterexamples replayed on the race
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MODELS", "ModelEntry", "model_names"]


@dataclass(frozen=True)
class ModelEntry:
    """One model package, ``labsupport.<name>``.

    Attributes:
        name: the package's name under ``labsupport`` (``"dns_cache"``).
        config: the name of its config class (``"DnsCacheConfig"``).
        parts: its modules, in import order (see the module docstring).
        on: the models it is composed on (its layer is "composed" if any, else "models").
        clock: the :mod:`labsupport.clock` clock its ``CLOCK`` is (``"INCIDENT_CLOCK"``), or ``None``
            if its times count from an origin of its own (the race, the explorer).
        simpy: whether its engine runs on simpy (through :mod:`labsupport._engine`).
        run: the function that runs a config (``"run"``; the game is ``"play"``ed).
        api_page: its page of the book's API reference, ``chapters/api/<api_page>.md``.
    """

    name: str
    config: str
    parts: tuple[str, ...]
    on: tuple[str, ...] = ()
    clock: str | None = "INCIDENT_CLOCK"
    simpy: bool = False
    run: str = "run"
    api_page: str = ""

    @property
    def module(self) -> str:
        """The package's dotted name, ``labsupport.<name>``."""
        return f"labsupport.{self.name}"


_SUB_MODELS = ("race", "dns_cache", "dwfm", "network", "nlb")

#: Every model, base models first, each composed model after the models it is built on.
MODELS: tuple[ModelEntry, ...] = (
    ModelEntry("race", "RaceConfig", ("config", "engine", "model", "sweep"), clock=None, simpy=True, api_page="race"),
    ModelEntry("dwfm", "DwfmConfig", ("config", "control", "engine", "model", "sweep"), simpy=True, api_page="dwfm"),
    ModelEntry(
        "network", "NetworkConfig", ("config", "engine", "model"), clock="NETWORK_CLOCK", simpy=True, api_page="network"
    ),
    ModelEntry("dns_cache", "DnsCacheConfig", ("config", "resolvers", "model"), api_page="dns-cache"),
    ModelEntry(
        "nlb",
        "NlbConfig",
        ("config", "checks", "engine", "model"),
        on=("network",),
        clock="NETWORK_CLOCK",
        simpy=True,
        api_page="nlb",
    ),
    ModelEntry(
        "explore",
        "ExploreConfig",
        ("config", "engine", "model", "sweep", "replay"),
        on=("race",),
        clock=None,
        api_page="explore",
    ),
    ModelEntry(
        "chain",
        "ChainConfig",
        ("config", "operators", "engine", "stages", "model", "sweep"),
        on=_SUB_MODELS,
        api_page="chain",
    ),
    ModelEntry(
        "game",
        "GameConfig",
        (
            "config",
            "night",
            "players",
            "disguise",
            "engine",
            "alarms",
            "investigate",
            "score",
            "cards",
            "model",
            "debrief",
            "screen",
            "room",
            "sweep",
        ),
        on=("chain",),
        run="play",
        api_page="game",
    ),
)


def model_names() -> tuple[str, ...]:
    """The registered models' names, in :data:`MODELS` order."""
    return tuple(m.name for m in MODELS)
