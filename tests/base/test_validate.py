"""labsupport._validate: every check names the field, the value and the allowed range; configs get plain numbers."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np
import pytest

from labsupport._validate import (
    SEED_MAX,
    Config,
    check_bool,
    check_choice,
    check_int,
    check_names,
    check_number,
    check_seed,
)
from labsupport.errors import ConfigError


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (-1.0, "horizon_s must be a finite number >= 0 and <= 10, got -1.0"),
        (10.5, "horizon_s must be a finite number >= 0 and <= 10, got 10.5"),
        (math.inf, "horizon_s must be a finite number >= 0 and <= 10, got inf"),
        (math.nan, "horizon_s must be a finite number >= 0 and <= 10, got nan"),
        ("5", "horizon_s must be a finite number >= 0 and <= 10, got '5' of type str"),
        (True, "horizon_s must be a finite number >= 0 and <= 10, got True of type bool"),
    ],
)
def test_check_number_names_the_field_the_value_and_the_range(value, message):
    with pytest.raises(ConfigError) as err:
        check_number("horizon_s", value, lo=0, hi=10)
    assert str(err.value) == message
    assert isinstance(err.value, ValueError)


def test_check_number_returns_a_plain_float_and_keeps_closed_bounds_closed():
    assert check_number("x", 0, lo=0, hi=10) == 0.0
    assert type(check_number("x", np.float32(2.5), lo=0, hi=10)) is float
    assert check_number("x", 10, lo=0, hi=10) == 10.0


def test_open_bounds_refuse_the_bound_itself():
    with pytest.raises(ConfigError, match=r"rate must be a finite number > 0, got 0"):
        check_number("rate", 0, lo=0, lo_open=True)
    with pytest.raises(ConfigError, match=r"delay_s must be a finite number >= 0 and < horizon_s \(10\), got 10.0"):
        check_number("delay_s", 10.0, lo=0, hi=10.0, hi_open=True, hi_name="horizon_s")


def test_an_integer_too_large_for_a_float_is_refused_by_size_not_printed():
    with pytest.raises(ConfigError, match=r"x must be a finite number >= 0, got an integer of about 401 digits"):
        check_number("x", 10**400, lo=0)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (7, "count must be an integer >= 1 and <= 5, got 7"),
        (0, "count must be an integer >= 1 and <= 5, got 0"),
        (2.5, "count must be an integer >= 1 and <= 5, got 2.5 of type float"),
        (True, "count must be an integer >= 1 and <= 5, got True of type bool"),
    ],
)
def test_check_int_names_the_field_the_value_and_the_range(value, message):
    with pytest.raises(ConfigError) as err:
        check_int("count", value, lo=1, hi=5)
    assert str(err.value) == message


def test_check_int_returns_a_plain_int():
    value = check_int("count", np.int64(3), lo=1, hi=5)
    assert value == 3 and type(value) is int


def test_seeds_run_from_zero_to_seed_max():
    assert check_seed("seed", 0) == 0 and check_seed("seed", SEED_MAX) == SEED_MAX
    with pytest.raises(ConfigError, match=rf"seed must be an integer >= 0 and <= {SEED_MAX}, got -1"):
        check_seed("seed", -1)


def test_bools_choices_and_names_are_refused_by_name():
    with pytest.raises(ConfigError, match=r"flag must be True or False \(a Python bool\), got 1 of type int"):
        check_bool("flag", 1)
    with pytest.raises(ConfigError, match=r"policy must be one of \['a', 'b'\], got 'x'"):
        check_choice("policy", "x", ("a", "b"))
    with pytest.raises(ConfigError, match=r"services: unknown value\(s\) \['x'\]; valid values are \['a', 'b'\]"):
        check_names("services", ["x", "a"], ["b", "a"])
    assert check_names("services", "a", ["a", "b"]) == ["a"]


@dataclass(frozen=True, kw_only=True)
class _Small(Config):
    count: int = 2
    share: float = 0.5

    def _check(self) -> None:
        check_int("count", self.count, lo=1, hi=3)
        check_number("share", self.share, lo=0, hi=1)


def test_a_config_stores_plain_numbers_before_its_checks():
    c = _Small(count=np.int64(3), share=Fraction(1, 4))
    assert (type(c.count), type(c.share)) == (int, float)
    assert c == _Small(count=3, share=0.25)


def test_a_config_checks_every_construction_replace_included():
    with pytest.raises(ConfigError, match=r"count must be an integer >= 1 and <= 3, got 4"):
        _Small(count=4)
    with pytest.raises(ConfigError, match=r"share must be a finite number >= 0 and <= 1, got 1.5"):
        replace(_Small(), share=1.5)
