"""Golden summaries: every model's incident preset and all 64 capstone stop-point combinations.

The expected values are data, in ``tests/golden/*.json``, reviewed once and diffed field by field.
A change of behaviour fails here with one line per changed field. When the change is intended,
regenerate them, review the diff with ``git diff tests/golden`` and commit it with the change::

    python tests/models/test_golden.py --regenerate
"""

from __future__ import annotations

import dataclasses
import json
import math
import sys
from pathlib import Path

import pytest

from labsupport import chain, dns_cache, dwfm, explore, network, nlb, race

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def _plain(value: object) -> object:
    """A summary field as JSON can hold it (tuples as lists, numpy scalars as Python numbers)."""
    if dataclasses.is_dataclass(value):
        return {k: _plain(v) for k, v in dataclasses.asdict(value).items()}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item"):
        return value.item()
    return value


def incident_summaries() -> dict[str, object]:
    """``{model: summary}`` of each model's ``INCIDENT`` preset."""
    return {
        "race": _plain(race.run(race.INCIDENT).summary),
        "dwfm": _plain(dwfm.run(dwfm.INCIDENT).summary),
        "network": _plain(network.run(network.INCIDENT).summary),
        "nlb": _plain(nlb.run(nlb.INCIDENT).summary),
        "dns_cache": _plain(dns_cache.run(dns_cache.INCIDENT).summary),
        "explore": _plain(explore.run(explore.INCIDENT).summary),
        "chain": _plain(chain.run(chain.INCIDENT).summary),
        # Stop point 5's saving, split into what the models measure and what the throttle-relaxation
        # setting assumes (issue 23): a change to either part shows here.
        "chain_stop_point_5_split": {
            str(row.part): float(row.saved_s) for row in chain.stop_point_5_split().itertuples(index=False)
        },
    }


def stop_point_summaries() -> dict[str, object]:
    """``{stop-point label: ChainSummary}`` for all 64 combinations of the six stop points."""
    return {cfg.stop_points.label(): _plain(chain.run(cfg).summary) for cfg in chain.all_stop_point_configs()}


FILES = {"incident_summaries.json": incident_summaries, "stop_point_summaries.json": stop_point_summaries}


def differences(expected: object, actual: object, where: str = "") -> list[str]:
    """One readable line per field that differs (floats within a relative 1e-9 count as equal)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = []
        for key in sorted(set(expected) | set(actual)):
            path = f"{where}.{key}" if where else key
            if key not in actual:
                out.append(f"{path}: in the golden file, gone from the run")
            elif key not in expected:
                out.append(f"{path}: new in the run ({actual[key]!r}), not in the golden file")
            else:
                out += differences(expected[key], actual[key], path)
        return out
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [
            d for i, (e, a) in enumerate(zip(expected, actual, strict=True)) for d in differences(e, a, f"{where}[{i}]")
        ]
    if isinstance(expected, float) and isinstance(actual, (int, float)) and not isinstance(actual, bool):
        if math.isclose(expected, actual, rel_tol=1e-9, abs_tol=1e-9):
            return []
    elif expected == actual and type(expected) is type(actual):
        return []
    return [f"{where}: golden {expected!r}, now {actual!r}"]


@pytest.mark.parametrize("name", sorted(FILES))
def test_summaries_match_the_golden_file(name):
    expected = json.loads((GOLDEN / name).read_text(encoding="utf-8"))
    actual = json.loads(json.dumps(FILES[name]()))
    diff = differences(expected, actual)
    assert not diff, (
        f"{len(diff)} field(s) differ from tests/golden/{name} "
        "(if intended: python tests/models/test_golden.py --regenerate):\n  " + "\n  ".join(diff[:40])
    )


def test_the_stop_point_file_holds_all_64_combinations():
    data = json.loads((GOLDEN / "stop_point_summaries.json").read_text(encoding="utf-8"))
    assert (
        len(data)
        == 64
        == len(
            {tuple(v["stop_points"]) if isinstance(v["stop_points"], list) else v["stop_points"] for v in data.values()}
        )
    )


def test_the_diff_names_the_field_and_both_values():
    assert differences({"chain": {"nlb_s": 1.0}}, {"chain": {"nlb_s": 2.0}}) == ["chain.nlb_s: golden 1.0, now 2.0"]


if __name__ == "__main__":
    if sys.argv[1:] != ["--regenerate"]:
        sys.exit(__doc__)
    GOLDEN.mkdir(exist_ok=True)
    for name, make in FILES.items():
        (GOLDEN / name).write_text(json.dumps(make(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print("wrote", GOLDEN / name)
