"""Sweeps scale out on an existing engine: any ``concurrent.futures.Executor`` gives the same table.

Every sweep helper takes ``executor=`` and runs in this process by default. Here each one runs in
process, through ``ThreadPoolExecutor``, through ``ProcessPoolExecutor(max_workers=2)`` and
through a Dask ``distributed`` local cluster's executor (``client.get_executor()``); the tables
must be identical, row for row, in the same order. Columns that measure wall-clock time are left
out of the comparison. Dask is the optional extra ``pip install .[scale]``; without it the Dask
test is skipped and says so.

Every registered model's ``sweep`` is here without a line of its own (two seeds of its small
config, from ``tests/_registry.py``); adding another sweep helper is one line in :data:`SWEEPS`. A
public function that takes ``executor=`` and is missing from it fails
:func:`test_every_sweep_helper_is_registered`.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import pandas as pd
import pytest
from _registry import MODELS

import labsupport


@dataclass(frozen=True)
class Sweep:
    """A sweep helper called on small inputs: ``call(executor) -> DataFrame``.

    Every column must be the same on every run: a sweep's table is a function of its configs (no
    wall-clock time in any summary; the benchmarks time the runs).
    """

    call: Callable[[Executor | None], pd.DataFrame]


def small(model: str) -> Any:
    return MODELS[model].base()


def _seeds(name: str) -> Sweep:
    """A model's ``sweep`` on its small config at seeds 2 and 1 (out of order on purpose)."""
    model = MODELS[name]
    return Sweep(lambda ex: model.mod().sweep([replace(model.base(), seed=s) for s in (2, 1)], executor=ex))


def _sweeps() -> dict[str, Sweep]:
    from labsupport import chain, dwfm, explore, race

    named = {
        "labsupport.race.sweep": Sweep(
            lambda ex: race.sweep([replace(small("race"), seed=s) for s in (3, 1, 2, 0)], executor=ex)
        ),
        "labsupport.race.guard_table": Sweep(lambda ex: race.guard_table(small("race"), executor=ex)),
        "labsupport.race.seed_sweep": Sweep(lambda ex: race.seed_sweep(small("race"), range(4), executor=ex)),
        "labsupport.race.guard_explorer_data": Sweep(
            lambda ex: race.guard_explorer_data(small("race"), bin_s=60.0, executor=ex)
        ),
        "labsupport.explore.sweep": Sweep(
            lambda ex: explore.sweep([small("explore"), replace(small("explore"), generation_count=2)], executor=ex)
        ),
        "labsupport.explore.verdict_table": Sweep(lambda ex: explore.verdict_table(small("explore"), executor=ex)),
        "labsupport.dwfm.phase_sweep": Sweep(
            lambda ex: dwfm.phase_sweep(
                small("dwfm"), fleet_sizes=(150, 300), outage_lengths_s=(600.0, 1_200.0), executor=ex
            )
        ),
        "labsupport.dwfm.explorer_grid": Sweep(
            lambda ex: dwfm.explorer_grid(small("dwfm"), fleet_sizes=(150, 300), step_s=600.0, executor=ex)
        ),
        "labsupport.dwfm.lever_table": Sweep(lambda ex: dwfm.lever_table(small("dwfm"), executor=ex)),
        "labsupport.dwfm.backoff_sweep": Sweep(lambda ex: dwfm.backoff_sweep((150, 300), small("dwfm"), executor=ex)),
        "labsupport.chain.sweep": Sweep(
            lambda ex: chain.sweep(chain.all_stop_point_configs(small("chain"))[6::-2], executor=ex)
        ),
        "labsupport.chain.stop_point_table": Sweep(lambda ex: chain.stop_point_table(small("chain"), executor=ex)),
    }
    return {**{f"labsupport.{name}.sweep": _seeds(name) for name in MODELS}, **named}


SWEEPS = _sweeps()


def public_functions_with_executor() -> set[str]:
    """``module.function`` of every public function in labsupport that has an ``executor`` parameter."""
    found = set()
    for info in pkgutil.iter_modules(labsupport.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"labsupport.{info.name}")
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            if inspect.isfunction(obj) and "executor" in inspect.signature(obj).parameters:
                found.add(f"labsupport.{info.name}.{attr}")
    return found


def test_every_sweep_helper_is_registered():
    assert public_functions_with_executor() == set(SWEEPS)


def test_every_function_named_like_a_sweep_takes_an_executor():
    for info in pkgutil.iter_modules(labsupport.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"labsupport.{info.name}")
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            if inspect.isfunction(obj) and "sweep" in attr:
                param = inspect.signature(obj).parameters.get("executor")
                assert param is not None, f"labsupport.{info.name}.{attr} takes no executor"
                assert param.default is None, f"labsupport.{info.name}.{attr}: executor must default to None"


@cache
def in_process(name: str) -> pd.DataFrame:
    return SWEEPS[name].call(None)


def assert_same(name: str, got: pd.DataFrame) -> None:
    want = in_process(name)
    assert len(want) > 0
    pd.testing.assert_frame_equal(got, want, check_exact=True)


@pytest.mark.parametrize("name", sorted(SWEEPS))
def test_in_process_is_repeatable(name):
    assert_same(name, SWEEPS[name].call(None))


@pytest.mark.parametrize("name", sorted(SWEEPS))
def test_thread_pool_gives_the_same_table(name):
    with ThreadPoolExecutor(max_workers=2) as pool:
        assert_same(name, SWEEPS[name].call(pool))


@pytest.fixture(scope="module")
def process_pool():
    with ProcessPoolExecutor(max_workers=2) as pool:
        yield pool


@pytest.mark.parametrize("name", sorted(SWEEPS))
def test_process_pool_gives_the_same_table(name, process_pool):
    assert_same(name, SWEEPS[name].call(process_pool))


@pytest.fixture(scope="module")
def dask_executor():
    distributed = pytest.importorskip(
        "dask.distributed", reason="Dask is not installed: pip install -e '.[scale]' to run the Dask test"
    )
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client.get_executor()


@pytest.mark.parametrize("name", sorted(SWEEPS))
def test_dask_cluster_gives_the_same_table(name, dask_executor):
    assert isinstance(dask_executor, Executor)
    assert_same(name, SWEEPS[name].call(dask_executor))


def test_rows_come_back_in_the_order_given(process_pool):
    """Reversing the configs reverses the rows, whichever executor runs them."""
    from labsupport import race

    configs = [replace(small("race"), seed=s) for s in range(4)]
    forward = race.sweep(configs, executor=process_pool)
    backward = race.sweep(configs[::-1], executor=process_pool)
    assert list(forward["seed"]) == [0, 1, 2, 3] and list(backward["run"]) == [0, 1, 2, 3]
    pd.testing.assert_frame_equal(
        backward.iloc[::-1].reset_index(drop=True).drop(columns="run"), forward.drop(columns="run")
    )
