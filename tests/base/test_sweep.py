"""labsupport._sweep: one sweep table shape for every model (``run``, the config's fields, the summary's)."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, fields, replace

import numpy as np
import pandas as pd
import pytest

from labsupport import _sweep, race
from labsupport.errors import ConfigError


@dataclass(frozen=True)
class _Flags:
    first: bool = False
    second: bool = False

    def label(self) -> str:
        return _sweep.flags_label((self.first, self.second))


@dataclass(frozen=True)
class _Config:
    size: int = 1
    flags: _Flags = field(default_factory=_Flags)
    names: tuple[str, ...] = ()
    limit_s: float | None = None


@dataclass(frozen=True)
class _Summary:
    total_count: int
    done_s: float | None


@dataclass(frozen=True)
class _Result:
    summary: _Summary


def _run(config: _Config) -> _Result:
    return _Result(_Summary(total_count=config.size * 10, done_s=None if config.limit_s is None else 2.0))


CONFIGS = [
    _Config(size=1),
    _Config(size=2, flags=_Flags(first=True), names=("a", "b"), limit_s=5.0),
    _Config(size=3, flags=_Flags(True, True)),
]


def test_the_table_has_run_then_config_fields_then_summary_fields():
    table = _sweep.sweep(_run, CONFIGS, _Config, None)
    assert list(table.columns) == [
        "run",
        "size",
        "flags",
        "flags.first",
        "flags.second",
        "names",
        "limit_s",
        "total_count",
        "done_s",
    ]
    assert table["run"].dtype == np.int64 and table["run"].tolist() == [0, 1, 2]
    assert table["flags"].tolist() == ["none", "1", "1+2"]
    assert table["names"].tolist() == ["", "a,b", ""]
    assert table["total_count"].tolist() == [10, 20, 30]


def test_none_in_an_optional_number_becomes_nan_in_a_float_column():
    table = _sweep.sweep(_run, CONFIGS, _Config, None)
    for column in ("limit_s", "done_s"):
        assert table[column].dtype == np.float64
    assert table["limit_s"].isna().tolist() == [True, False, True]
    assert table["done_s"].tolist()[1] == 2.0


def test_an_executor_gives_the_same_table_in_the_same_order():
    with ThreadPoolExecutor(max_workers=2) as pool:
        pd.testing.assert_frame_equal(
            _sweep.sweep(_run, CONFIGS, _Config, pool), _sweep.sweep(_run, CONFIGS, _Config, None)
        )


def test_an_empty_sweep_has_an_int64_run_column():
    table = _sweep.sweep(_run, [], _Config, None)
    assert list(table.columns) == ["run"] and table["run"].dtype == np.int64 and len(table) == 0


@pytest.mark.parametrize(
    ("configs", "message"),
    [
        ("configs", "configs must be an iterable of _Config objects, got str"),
        (5, "configs must be an iterable of _Config objects, got int"),
        ([_Config(), "x"], "configs must hold _Config objects, got str"),
    ],
)
def test_bad_configs_are_refused_by_name(configs, message):
    with pytest.raises(ConfigError) as err:
        _sweep.sweep(_run, configs, _Config, None)
    assert str(err.value) == message


def test_a_bad_executor_is_refused_by_name():
    with pytest.raises(ConfigError, match=re.escape("executor must be a concurrent.futures.Executor or None, got str")):
        _sweep.sweep(_run, CONFIGS, _Config, "pool")


def test_an_executor_that_drops_results_is_refused_not_truncated():
    # An adversarial run found a short table with no error: zip() stopped at the shorter list.
    class Short(ThreadPoolExecutor):
        def map(self, fn, *iterables, **kwargs):
            return iter([])

    with Short(1) as pool, pytest.raises(ConfigError, match=r"Short\.map returned 0 results for 3 items"):
        _sweep.sweep(_run, CONFIGS, _Config, pool)


def test_flag_combinations_come_in_the_course_order():
    assert _sweep.flag_combinations(2) == [(False, False), (True, False), (False, True), (True, True)]
    combos = _sweep.flag_combinations(4)
    assert len(combos) == 16 == len(set(combos))
    assert [_sweep.flags_label(c) for c in combos[:7]] == ["none", "1", "2", "3", "4", "1+2", "1+3"]


def test_a_model_sweep_has_the_same_shape():
    configs = [race.INCIDENT, replace(race.INCIDENT, guards=race.Guards(check_version_on_write=True))]
    table = race.sweep(configs)
    config_names = list(_sweep.config_columns(race.INCIDENT))
    summary_names = [f.name for f in fields(race.run(race.INCIDENT).summary)]
    assert list(table.columns) == ["run", *config_names, *summary_names]
    assert table["run"].dtype == np.int64 and len(table) == len(configs)
    assert "guards" in table.columns and "guards.check_version_on_write" in table.columns
