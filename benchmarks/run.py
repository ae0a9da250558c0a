"""Measure the course's speed figures and print them as a table (and a JSON copy).

Usage::

    python benchmarks/run.py              # every group but the opt-in ones (6 to 8 minutes on 2 cores)
    python benchmarks/run.py --skip-book  # the same without the cold book build
    python benchmarks/run.py race dwfm    # only the named groups
    python benchmarks/run.py ci           # opt-in: the whole of .ci/run in a fresh copy
    python benchmarks/run.py --json -     # also print the JSON copy on stdout

Each ``benchmarks/bench_<group>.py`` module exposes ``figures() -> list[dict]``; every row has
``figure`` (what was measured), ``value``, ``unit``, ``target`` (a number or None), ``better``
(``"lower"`` or ``"higher"``) and optionally ``note``. Timings are medians of repeated runs
unless a row's note says otherwise. Nothing here asserts absolute speed: a miss is printed as
``MISS`` for a person to explain, and the misses are listed again at the end.

Groups: the models' own figures (``race``, ``explore``, ``dwfm``, ``recovery``: sweeps, the
explorer's states per second), ``simpy`` (events per second of each simpy model next to a bare
simpy loop), ``scale`` (each model at region scale: time and peak memory), ``imports`` (a
learner's first import of the charts and widgets, and each lab's kernel start), ``labs`` (each lab's
widget update, median and p90, and each notebook top to bottom in a fresh kernel), ``live`` (each
lab's widget panel in a real JupyterLab in headless Chromium, per control kind: from the move
until every output of the panel is redrawn, beside the Python-side update and the model alone), ``book``
(cold build of the whole book) and, opt-in, ``ci``.
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


#: Groups run only when named: they download packages or take a long time.
OPT_IN = {"ci"}
#: Slow groups run last, in this order, so that the quick figures print first.
LAST = ("labs", "live", "book", "ci")


def _groups() -> dict[str, Path]:
    found = {p.stem.removeprefix("bench_"): p for p in sorted(HERE.glob("bench_*.py"))}
    return dict(sorted(found.items(), key=lambda item: (LAST.index(item[0]) if item[0] in LAST else -1, item[0])))


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
    parser.add_argument(
        "only", nargs="*", help=f"groups to run, of {list(groups)} (default: all but the opt-in {sorted(OPT_IN)})"
    )
    parser.add_argument(
        "--json",
        default=str(HERE / "results.json"),
        help="where to write the JSON copy ('-' prints it on stdout; default: %(default)s)",
    )
    parser.add_argument("--skip-book", action="store_true", help="leave out the cold book build (group 'book')")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.only) - set(groups))
    if unknown:
        parser.error(f"unknown group(s) {unknown}; valid groups are {sorted(groups)}")
    chosen = [g for g in groups if g in args.only] if args.only else [g for g in groups if g not in OPT_IN]
    if args.skip_book:
        chosen = [g for g in chosen if g != "book"]
    rows: list[dict] = []
    for name in chosen:
        started = time.perf_counter()
        for row in _load(groups[name]).figures():
            rows.append({"group": name, **row, "mark": ""})
            rows[-1]["mark"] = _mark(rows[-1])
            _print_row(rows[-1])
        print(f"  ({name}: {time.perf_counter() - started:.1f} s to measure)", file=sys.stderr)
    meta = {
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "cpus": _cpus(),
        "groups": chosen,
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
    }
    text = json.dumps({"meta": meta, "rows": rows}, indent=2, default=float)
    misses = [r for r in rows if r["mark"] == "MISS"]
    if misses:
        print("\nMissed targets (each needs the explanation in its note or in the report):")
        for r in misses:
            print(f"  MISS {r['group']}: {r['figure']}: {r['value']:.4g} {r['unit']} (target {r['target']:g})")
    if args.json == "-":
        print(text)
        where = "printed above"
    else:
        Path(args.json).write_text(text)
        where = f"in {args.json}"
    skipped = sorted(set(groups) - set(chosen))
    print(
        f"\n{len(rows)} figures, {len(misses)} missed targets; JSON copy {where}"
        + (f"; not run: {', '.join(skipped)}" if skipped else "")
    )
    return 0


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


_header_printed = False


def _print_row(row: dict) -> None:
    global _header_printed
    if not _header_printed:
        print(f"{'group':<9} {'figure':<70} {'value':>11} {'unit':<9} {'target':>7}  mark")
        print("-" * 116)
        _header_printed = True
    target = "" if row.get("target") is None else f"{row['target']:g}"
    print(
        f"{row['group']:<9} {row['figure'][:70]:<70} {row['value']:>11.4g} {row['unit']:<9} {target:>7}  {row['mark']}"
    )
    if row.get("note"):
        print(f"{'':<9}   note: {row['note']}")


if __name__ == "__main__":
    raise SystemExit(main())
