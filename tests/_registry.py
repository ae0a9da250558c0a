"""The models the cross-cutting tests cover (robustness, determinism, executors): one entry per model.

A model is registered once, in the package (``labsupport._models``: its module, config class and
run function come from there). What the tests add is here, in :data:`TEST_CONFIGS`: a small valid
config that runs in milliseconds (the base that the robustness tests mutate) and a realistic
preset for the determinism tests; :func:`test_every_registered_model_has_test_configs` fails for a
registered model that has none and is not in :data:`NOT_COVERED`. Config classes nested in a config
(a field typed ``Guards`` or ``tuple[EnactorDelay, ...]``) are found from the type hints and tested
on their own too. ``tests/properties/test_robustness.py``, ``tests/base/test_determinism.py`` and
``tests/base/test_executors.py`` read this registry; ``tests/widgets/test_widgets.py`` keeps its own
one-line registry of panels (one per lab, not per model).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import typing
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from labsupport._models import MODELS as REGISTERED


@dataclass(frozen=True)
class TestConfigs:
    """What the cross-cutting tests run of one registered model.

    Attributes:
        small: ``small(module) -> config``, a valid config that runs in a few milliseconds; bounded
            tightly (``max_events``, ``max_states``, a short horizon) so that any mutation of one
            field still finishes fast.
        strings: extra strings worth trying in string fields (names that exist in some configs but
            not in the base one, e.g. a fourth Enactor).
        stochastic: whether the seed changes the run (False for an exhaustive checker).
        preset: ``preset(module, seed) -> config`` for the determinism tests (a realistic run).
    """

    small: Callable[[Any], Any]
    strings: tuple[str, ...] = ()
    stochastic: bool = True
    preset: Callable[[Any, int], Any] | None = None


@dataclass(frozen=True)
class Model:
    """How the cross-cutting tests reach one model: its registry entry's names and its :class:`TestConfigs`.

    Attributes:
        module: the model's module, e.g. ``"labsupport.race"``.
        config: name of its config class in that module.
        small, strings, stochastic, preset: as in :class:`TestConfigs`.
        run: name of the function that runs a config (``run``).
    """

    module: str
    config: str
    small: Callable[[Any], Any]
    run: str = "run"
    strings: tuple[str, ...] = ()
    stochastic: bool = True
    preset: Callable[[Any, int], Any] | None = None

    def mod(self) -> Any:
        return importlib.import_module(self.module)

    def cls(self) -> type:
        return getattr(self.mod(), self.config)

    def base(self) -> Any:
        return self.small(self.mod())

    def runner(self) -> Callable[[Any], Any]:
        return getattr(self.mod(), self.run)


#: Registered models the cross-cutting tests leave out, and why.
NOT_COVERED = {"game": "played through the chain, step by step; tests/models/test_game.py tests its configs and plays"}

TEST_CONFIGS: dict[str, TestConfigs] = {
    "race": TestConfigs(
        small=lambda m: replace(m.INCIDENT, horizon_s=600.0, max_events=4_000),
        strings=("enactor-b", "enactor-c", "enactor-d", "enactor-i", "enactor-z", "ipv6", "global"),
        preset=lambda m, seed: replace(m.INCIDENT, seed=seed),
    ),
    "explore": TestConfigs(
        small=lambda m: replace(m.INCIDENT, enactor_count=2, max_states=5_000),
        stochastic=False,
        preset=lambda m, seed: m.INCIDENT,
    ),
    "dwfm": TestConfigs(
        small=lambda m: replace(
            m.SMALL_FLEET, fleet_droplets_count=300, horizon_s=7_200.0, outage_end_s=1_800.0, max_events=50_000
        ),
        strings=("immediate", "backoff_full_jitter"),
        preset=lambda m, seed: replace(m.INCIDENT, seed=seed),
    ),
    "network": TestConfigs(
        small=lambda m: replace(
            m.INCIDENT, backlog_count=30, retry_launches_count=60, horizon_s=3_600.0, max_events=20_000
        ),
        preset=lambda m, seed: replace(m.INCIDENT, seed=seed),
    ),
    "nlb": TestConfigs(
        small=lambda m: replace(
            m.INCIDENT,
            network=MODELS["network"].base(),
            disable_failover_at_s=1_800.0,
            reenable_failover_at_s=3_000.0,
            max_events=50_000,
        ),
        preset=lambda m, seed: replace(m.INCIDENT, seed=seed),
    ),
    "dns_cache": TestConfigs(
        small=lambda m: replace(m.INCIDENT, clients_count=200, empty_duration_s=1_800.0, horizon_s=3_600.0),
        preset=lambda m, seed: replace(m.INCIDENT, seed=seed),
    ),
    "chain": TestConfigs(
        small=lambda m: _small_chain(m),
        preset=lambda m, seed: replace(m.INCIDENT, seed=seed),
    ),
}


#: The cross-cutting tests' view of every registered model they cover, in the registry's order.
MODELS: dict[str, Model] = {
    m.name: Model(m.module, m.config, run=m.run, **dataclasses.asdict(TEST_CONFIGS[m.name]))
    for m in REGISTERED
    if m.name in TEST_CONFIGS
}


def uncovered() -> set[str]:
    """Registered models that have no :data:`TEST_CONFIGS` and no reason in :data:`NOT_COVERED`."""
    return {m.name for m in REGISTERED} - set(TEST_CONFIGS) - set(NOT_COVERED)


def _small_chain(m: Any) -> Any:
    """The chain on small sub-models: a 5-minute empty answer, 600 droplets, 200 clients (60 ms)."""
    from labsupport import dns_cache, dwfm, network, nlb, race

    return replace(
        m.INCIDENT,
        race=replace(race.INCIDENT, horizon_s=1_200.0, manual_repair_after_s=300.0),
        dwfm=replace(dwfm.SMALL_FLEET, fleet_droplets_count=600, horizon_s=14_400.0, max_events=100_000),
        dns=replace(dns_cache.INCIDENT, clients_count=200),
        nlb=replace(
            nlb.INCIDENT,
            network=replace(network.INCIDENT, horizon_s=7_200.0),
            disable_failover_at_s=None,
            reenable_failover_at_s=None,
        ),
        dwfm_operator_delay_s=600.0,
    )


def config_classes() -> dict[str, tuple[str, type, Callable[[Any], Any], Any]]:
    """Every config class to test: ``"race.RaceConfig" -> (model name, class, run(instance), base instance)``.

    A nested class (``race.delays:EnactorDelay``) is run by putting the instance in that field of
    its model's small config (as a one-item tuple for a tuple field). A nested class that is
    another registered model's config (``chain.dwfm:DwfmConfig``) is tested as that model.
    """
    out = {}
    models = {m.cls() for m in MODELS.values()}
    for name, model in MODELS.items():
        base, run = model.base(), model.runner()
        out[f"{name}.{model.config}"] = (name, model.cls(), run, base)
        for f, cls, is_tuple in nested_fields(model.cls()):
            if cls in models:
                continue
            value = getattr(base, f)
            default = (value[0] if value else cls()) if is_tuple else value

            def run_nested(inst, f=f, is_tuple=is_tuple, base=base, run=run):
                return run(replace(base, **{f: (inst,) if is_tuple else inst}))

            out[f"{name}.{f}:{cls.__name__}"] = (name, cls, run_nested, default)
    return out


def nested_fields(cls: type) -> list[tuple[str, type, bool]]:
    """``(field, nested config class, is a tuple of them)`` for each config-valued field of ``cls``."""
    out = []
    for name, hint in typing.get_type_hints(cls).items():
        is_tuple = typing.get_origin(hint) is tuple
        inner = typing.get_args(hint)[0] if is_tuple else hint
        if dataclasses.is_dataclass(inner):
            out.append((name, inner, is_tuple))
    return out


def digest(result: Any) -> str:
    """SHA-256 of every DataFrame a result holds, as CSV (``events.to_csv()`` first), recursively."""
    h = hashlib.sha256()
    for name, frame in frames(result):
        h.update(name.encode())
        h.update(frame.to_csv().encode())
    return h.hexdigest()


def frames(result: Any, prefix: str = "") -> list[tuple[str, pd.DataFrame]]:
    """``(path, DataFrame)`` for every DataFrame field of a result dataclass, nested results included."""
    out = []
    for f in dataclasses.fields(result):
        value = getattr(result, f.name)
        if isinstance(value, pd.DataFrame):
            out.append((prefix + f.name, value))
        elif dataclasses.is_dataclass(value) and not isinstance(value, type) and hasattr(value, "summary"):
            out += frames(value, prefix + f.name + ".")
    return sorted(out, key=lambda item: (item[0] != "events", item[0]))
