"""The instructor guide's schedules add up, and agree with the labs' own times.

Each lab's overview box gives its time, ``**Time to learn.** N minutes.``: the time to work through
the whole lab, exercises included. The guide (``chapters/instructor-guide.md`` and its pages in
``chapters/instructor-guide/``) uses a lab in one of two ways: *shown live* (Predict, Run and Explain
in front of the group, in the overview table's "Shown live" range) or *worked through* (the whole
lab, in at least its own time). These tests read the guide's Markdown tables and check:

* the overview's "Worked through" column is each lab's own time;
* every clock schedule (``0:00–0:10``) and minute schedule (``0–10``) runs without gaps or overlaps
  from zero to the length its page states;
* a workshop segment that shows a lab live gives it a time inside the overview's range, and one in
  which learners work through a whole lab gives it at least the lab's own time;
* the university module's per-lab budget adds up to each lab's own time;
* the root cause debate's steps add up to its stated full and short lengths.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "chapters" / "instructor-guide"
OVERVIEW = ROOT / "chapters" / "instructor-guide.md"

LAB_TIME = re.compile(r"\*\*Time to learn\.\*\* (\d+) minutes\.")
LAB_REF = re.compile(r"\{doc\}`(?:\.\./)+labs/(\d\d)-[a-z-]+`")
CLOCK = re.compile(r"^(\d+):(\d\d)–(\d+):(\d\d)$")
MINUTES = re.compile(r"^(\d+)–(\d+)$")


def lab_minutes() -> dict[str, int]:
    """Each lab's own time, from its overview box: ``{"00": 20, "01": 45, ...}``."""
    out = {}
    for path in sorted((ROOT / "labs").glob("[0-9][0-9]-*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        found = LAB_TIME.search(text)
        assert found, f"{path.name}: no '**Time to learn.** N minutes.' in its overview"
        out[path.name[:2]] = int(found.group(1))
    return out


def tables(path: Path) -> list[list[list[str]]]:
    """Every Markdown table of a page: a list of rows (header included, separator left out)."""
    found, current = [], []
    for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                current.append(cells)
        elif current:
            found.append(current)
            current = []
    return found


def minutes_of(cell: str) -> int | None:
    """Length in minutes of a ``0:10–0:35`` or ``15–75`` cell; ``None`` for any other cell."""
    if m := CLOCK.match(cell):
        h0, m0, h1, m1 = map(int, m.groups())
        return (h1 * 60 + m1) - (h0 * 60 + m0)
    if m := MINUTES.match(cell):
        return int(m.group(2)) - int(m.group(1))
    return None


def spans(table: list[list[str]]) -> list[tuple[int, int]]:
    """The (start, end) minutes of a schedule table's first column."""
    out = []
    for row in table[1:]:
        cell = row[0]
        if m := CLOCK.match(cell):
            h0, m0, h1, m1 = map(int, m.groups())
            out.append((h0 * 60 + m0, h1 * 60 + m1))
        elif m := MINUTES.match(cell):
            out.append((int(m.group(1)), int(m.group(2))))
    return out


def overview_rows() -> dict[str, tuple[int, int, int]]:
    """The overview's lab table: ``{lab: (shown live from, to, worked through)}`` in minutes."""
    table = next(t for t in tables(OVERVIEW) if t[0][-2:] == ["Shown live", "Worked through"])
    out = {}
    for row in table[1:]:
        lab = LAB_REF.search(row[0]).group(1)
        lo, hi = re.fullmatch(r"(\d+)–(\d+) min", row[-2]).groups()
        own = re.fullmatch(r"(\d+) min", row[-1]).group(1)
        out[lab] = (int(lo), int(hi), int(own))
    return out


# (page, its length in minutes) for the pages with one clock schedule each.
WORKSHOPS = [("workshop-90-minutes.md", 90), ("half-day-workshop.md", 240)]


def test_overview_gives_each_labs_own_time():
    labs, rows = lab_minutes(), overview_rows()
    assert set(rows) == set(labs)
    for lab, (lo, hi, own) in rows.items():
        assert own == labs[lab], f"lab {lab}: the overview says {own} min, its header {labs[lab]}"
        assert lo <= hi <= own, f"lab {lab}: showing it live ({lo}–{hi} min) cannot take longer than working through it"


@pytest.mark.parametrize("page, length", WORKSHOPS)
def test_workshop_schedule_runs_without_gaps_to_its_length(page, length):
    schedule = next(t for t in tables(GUIDE / page) if t[0][0] == "Time")
    s = spans(schedule)
    assert s[0][0] == 0 and s[-1][1] == length, f"{page}: runs {s[0][0]} to {s[-1][1]} min, not 0 to {length}"
    assert all(a[1] == b[0] for a, b in itertools.pairwise(s)), f"{page}: gaps or overlaps in {s}"


@pytest.mark.parametrize("page, length", WORKSHOPS)
def test_workshop_segments_give_each_lab_its_time(page, length):
    rows, schedule = overview_rows(), next(t for t in tables(GUIDE / page) if t[0][0] == "Time")
    for row in schedule[1:]:
        labs = LAB_REF.findall(row[2])
        if not labs:
            continue
        minutes = minutes_of(row[0]) // len(labs)
        for lab in labs:
            lo, hi, own = rows[lab]
            if "whole lab" in row[3]:
                assert minutes >= own, f"{page} {row[0]}: lab {lab} worked through in {minutes} min, needs {own}"
            else:
                assert lo <= minutes <= hi, f"{page} {row[0]}: lab {lab} shown live for {minutes} min, not {lo}–{hi}"


#: A lab the module leaves out says so on the page in these words, right after its link.
OUTSIDE_MODULE = re.compile(r"\{doc\}`(?:\.\./)+labs/(\d\d)-[a-z-]+` is not part of the module's schedule")


def test_university_lab_budget_adds_up_to_each_labs_own_time():
    labs = lab_minutes()
    page = GUIDE / "university-module.md"
    left_out = set(OUTSIDE_MODULE.findall(page.read_text(encoding="utf-8")))
    budget = next(t for t in tables(page) if t[0][:2] == ["Lab", "Its own time"])
    seen = set()
    for row in budget[1:]:
        lab = LAB_REF.search(row[0]).group(1)
        own, in_class, outside = (int(re.match(r"(\d+) min", c).group(1)) for c in row[1:4])
        assert own == labs[lab], f"lab {lab}: the budget says {own} min, its header {labs[lab]}"
        assert in_class + outside == own, f"lab {lab}: {in_class} + {outside} min is not its {own} min"
        seen.add(lab)
    assert not seen & left_out, f"labs both budgeted and left out of the module: {sorted(seen & left_out)}"
    missing = sorted(set(labs) - seen - left_out)
    assert not missing, f"labs neither budgeted nor said to be left out: {missing}"


def test_university_sessions_run_without_gaps_to_their_length():
    page = GUIDE / "university-module.md"
    schedules = [spans(t) for t in tables(page) if t[0][0] == "Minutes"]
    lengths = sorted(s[-1][1] for s in schedules)
    assert lengths == [90, 120, 120], f"expected one lecture (90 min) and two lab sessions (120 min), got {lengths}"
    for s in schedules:
        assert s[0][0] == 0 and all(a[1] == b[0] for a, b in itertools.pairwise(s)), f"gaps or overlaps in {s}"


def test_university_lab_sessions_give_a_worked_lab_its_own_time():
    labs, page = lab_minutes(), GUIDE / "university-module.md"
    for table in (t for t in tables(page) if t[0][0] == "Minutes"):
        for row in table[1:]:
            if "work through" in row[1]:
                (lab,) = LAB_REF.findall(row[1])
                assert minutes_of(row[0]) >= labs[lab], f"lab {lab} gets {minutes_of(row[0])} min, needs {labs[lab]}"


def test_debate_steps_add_up_to_its_stated_lengths():
    page = GUIDE / "root-cause-debate.md"
    text = page.read_text(encoding="utf-8")
    full, short = map(int, re.search(r"(\d+) minutes in full, (\d+) minutes in the short form", text).groups())
    table = next(t for t in tables(page) if t[0][0].startswith("Minutes (full / short)"))
    steps = [tuple(map(int, re.fullmatch(r"(\d+) / (\d+)", row[0]).groups())) for row in table[1:]]
    assert sum(f for f, _ in steps) == full and sum(s for _, s in steps) == short
    # Where a track runs the debate, it gives it the time of the form it names.
    uses = {"half-day-workshop.md": short, "workshop-90-minutes.md": short, "university-module.md": full}
    for name, minutes in uses.items():
        rows = [
            r
            for t in tables(GUIDE / name)
            for r in t[1:]
            if "root-cause-debate" in " ".join(r) and minutes_of(r[0]) is not None
        ]
        assert rows and all(minutes_of(r[0]) == minutes for r in rows), (
            f"{name}: the debate's slot is not {minutes} min"
        )


def test_parsers_on_a_small_page(tmp_path):
    page = tmp_path / "p.md"
    page.write_text(
        "| Time | x |\n|---|---|\n| 0:00–0:10 | a |\n| 0:10–1:05 | b |\n\ntext\n| 0–5 | c |\n", encoding="utf-8"
    )
    found = tables(page)
    assert [len(t) for t in found] == [3, 1]
    assert spans(found[0]) == [(0, 10), (10, 65)] and minutes_of("0:10–1:05") == 55 and minutes_of("x") is None
