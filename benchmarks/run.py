"""Measure the course's speed figures and print them as a table (and a JSON copy).

Usage::

    python benchmarks/run.py            # everything
    python benchmarks/run.py race dwfm  # only the named groups

Each ``benchmarks/bench_<group>.py`` module exposes ``figures() -> list[dict]``; every row has
``figure`` (what was measured), ``value``, ``unit``, ``target`` (a number or None), ``better``
(``"lower"`` or ``"higher"``) and optionally ``note``. Timings are medians of repeated runs.
Nothing here asserts absolute speed: a miss is printed as ``MISS`` for a person to explain.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _groups() -> dict[str, Path]:
    return {p.stem.removeprefix("bench_"): p for p in sorted(HERE.glob("bench_*.py"))}


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def _mark(row: dict) -> str:
    target = row.get("target")
    if target is None:
        return ""
    ok = row["value"] <= target if row.get("better", "lower") == "lower" else row["value"] >= target
    return "pass" if ok else "MISS"


def main(argv: list[str] | None = None) -> int:
    groups = _groups()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("only", nargs="*", help=f"groups to run (default: all of {sorted(groups)})")
    parser.add_argument("--json", default=str(HERE / "results.json"), help="where to write the JSON copy")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.only) - set(groups))
    if unknown:
        parser.error(f"unknown group(s) {unknown}; valid groups are {sorted(groups)}")
    chosen = args.only or list(groups)
    rows: list[dict] = []
    for name in chosen:
        started = time.perf_counter()
        for row in _load(groups[name]).figures():
            rows.append({"group": name, **row, "mark": ""})
            rows[-1]["mark"] = _mark(rows[-1])
            _print_row(rows[-1])
        print(f"  ({name}: {time.perf_counter() - started:.1f} s to measure)", file=sys.stderr)
    meta = {"python": sys.version.split()[0], "machine": platform.machine(), "cpus": _cpus()}
    Path(args.json).write_text(json.dumps({"meta": meta, "rows": rows}, indent=2))
    misses = [r for r in rows if r["mark"] == "MISS"]
    print(f"\n{len(rows)} figures, {len(misses)} missed targets; JSON copy in {args.json}")
    return 0


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


_header_printed = False


def _print_row(row: dict) -> None:
    global _header_printed
    if not _header_printed:
        print(f"{'group':<10} {'figure':<58} {'value':>12} {'unit':<10} {'target':>10}  mark")
        print("-" * 110)
        _header_printed = True
    target = "" if row.get("target") is None else f"{row['target']:g}"
    print(f"{row['group']:<10} {row['figure']:<58} {row['value']:>12.4g} {row['unit']:<10} {target:>10}  {row['mark']}")
    if row.get("note"):
        print(f"{'':<10}   note: {row['note']}")


if __name__ == "__main__":
    raise SystemExit(main())
