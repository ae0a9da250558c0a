"""Page structure: every chapter and lab opens with its objectives, ends its teaching with graded
exercises that have solutions, and links the glossary terms it uses; every lab has the standard
sections and a self-check.

Pages checked (:data:`PAGES`): every ``labs/*.ipynb`` and every ``chapters/*.md`` except the pages
that are not lessons: the glossary and the references (reference pages), the instructor guide
(a part written for teachers), and the concept quiz before and after the course (its questions
are data, checked by tests/book/test_quiz.py). A new chapter or lab is checked as soon as its file exists.

The rules, page by page:

1. **Objectives box.** A chapter's first block after its ``#`` title, and a lab's first markdown
   cell after its title (``## Overview`` and then the box), is an ``{admonition}`` titled
   "In this chapter" (chapters) or "In this lab" (labs) with ``:class: tip``, whose paragraphs
   start with the bold labels ``**Objectives.**``, ``**Prerequisites.**`` and
   ``**Time to learn.**``, in that order.
2. **Exercises.** 3 to 6 ``{exercise}`` or ``{exercise-start}`` blocks, each with a ``:label:``,
   a bold grade at the start of its text, ``**(Simple ...)**``, ``**(Moderate ...)**`` or
   ``**(Advanced ...)**``, and exactly one ``{solution}`` or ``{solution-start}`` for that label,
   with ``:class: dropdown``; every ``{solution-start}`` and ``{exercise-start}`` is closed. Every
   lab has at least one exercise whose grade says "predict then run" and one whose grade says
   "design".
3. **Lab sections.** The ``##`` headings of a lab include Overview, Setup, Predict, Run, Explain,
   Exercises, Self-check, What's next, once each and in that order (others may sit between), and
   the code of the Self-check section has at least one ``assert`` statement.
4. **Glossary links.** Every glossary entry that a page uses in prose is linked from that page at
   least once with a ``{term}`` role (to any of the entry's terms). The course's convention is to
   link the first use; this test only checks that a link exists.

How "uses in prose" is decided (:func:`prose_mask`, :func:`terms_used`), deliberately simple:

* Prose is the Markdown of a chapter, or of a lab's markdown cells, *without*: YAML front matter;
  code cells and fenced code; the opening line of every directive (so admonition and exercise
  titles) and its ``:option:`` lines; the body of code-like directives (``code-cell``, ``code``,
  ``code-block``, ``math``, ``glue``); headings; target lines ``(label)=``; every role in full
  (``{term}``, ``{glue:text}``, ``{cite}``, ``{doc}`` ...: glued text is not prose); code spans;
  Markdown links (text and address); HTML comments. The bodies of prose directives (admonitions,
  notes, exercises, solutions, figure captions) and table cells are prose.
* A term matches case-insensitively as whole words: not preceded or followed by a letter, digit
  or underscore. Inside a term, a space also matches a hyphen ("health-check" uses the term
  "Health check"), and a term may take a plural "s" or "es" ("leases", "TTLs").
* Longer terms win: where "regional endpoint" matches, "endpoint" is not matched again inside it.
* :data:`EXEMPT` may list glossary terms that are also everyday English words, each with the
  reason; a match of one is not a use. It is empty today: every candidate is used in its technical
  sense on the current pages.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from coursetools.student import term_anchor

from .test_glossary import GLOSSARY, parse_glossary

ROOT = Path(__file__).resolve().parents[2]
NOT_LESSONS = {"glossary", "references", "instructor-guide", "quiz-before", "quiz-after", "api-reference"}
CHAPTERS = sorted(p for p in (ROOT / "chapters").glob("*.md") if p.stem not in NOT_LESSONS)
LABS = sorted((ROOT / "labs").glob("*.ipynb"))
PAGES = CHAPTERS + LABS

LAB_SECTIONS = ["Overview", "Setup", "Predict", "Run", "Explain", "Exercises", "Self-check", "What's next"]
LABELS = ["Objectives", "Prerequisites", "Time to learn"]
GRADES = ("simple", "moderate", "advanced")

# Glossary terms that a page may use as ordinary English words, each with its reason; a match of
# one of these words is not a use of the term. Every candidate checked so far ("region",
# "transaction", "lock", "generation", "backlog", "throughput") is used in its technical sense on
# the current pages, so the list is empty: add a word here, with its reason, when a page uses it
# in its everyday sense (write it in lower case).
EXEMPT: dict[str, str] = {}

CODE_DIRECTIVES = {"code-cell", "code", "code-block", "sourcecode", "math", "glue", "raw", "mermaid"}
FENCE = re.compile(r"^\s*(?P<fence>`{3,}|~{3,})\s*(?P<info>.*)$")
INLINE_NON_PROSE = [
    re.compile(r"\{[^{}\s`]+\}(`+).*?\1"),  # roles, all of them: {term}`..`, {glue:text}`..` ...
    re.compile(r"(`+).+?\1"),  # code spans
    re.compile(r"!?\[[^\]\n]*\]\([^)\n]*\)"),  # Markdown links and images
    re.compile(r"<!--.*?-->", re.DOTALL),  # HTML comments
]
TERM_ROLE = re.compile(r"\{term\}`([^`]*)`")
# A lab links a term as a Markdown link to its glossary entry, which also works live in JupyterLab:
# [leases](../chapters/glossary.md#term-Lease).
GLOSSARY_LINK = re.compile(r"\]\((?:\.\./)?(?:chapters/)?glossary\.md#(term-[^)\s]+)\)")
MASK = "\x00"


# --- reading pages --------------------------------------------------------------------------


@dataclass
class Page:
    """One chapter or lab, as the parts this test looks at."""

    path: Path
    markdown: list[str]  # the chapter's text, or the lab's markdown cells in order

    @property
    def is_lab(self) -> bool:
        return self.path.suffix == ".ipynb"

    @property
    def text(self) -> str:
        return "\n\n".join(self.markdown)


def read_page(path: Path) -> Page:
    if path.suffix == ".ipynb":
        nb = nbformat.read(path, as_version=4)
        return Page(path, [c.source for c in nb.cells if c.cell_type == "markdown"])
    return Page(path, [path.read_text(encoding="utf-8")])


def lab_sections(path: Path) -> list[tuple[str, list[str]]]:
    """The lab's ``##`` sections in order, each with the source of the code cells inside it."""
    nb = nbformat.read(path, as_version=4)
    sections: list[tuple[str, list[str]]] = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in _outside_fences(cell.source):
                if m := re.match(r"^##\s+(.+?)\s*$", line):
                    sections.append((m.group(1), []))
        elif sections:
            sections[-1][1].append(cell.source)
    return sections


def _outside_fences(text: str) -> list[str]:
    """The lines of ``text`` that are not inside a fenced block (headings live there)."""
    return [line for line, kind in line_kinds(text) if kind in ("text", "heading")]


# --- prose and terms ------------------------------------------------------------------------


def line_kinds(text: str) -> list[tuple[str, str]]:
    """Each line of ``text`` (with its newline) and what it is.

    Kinds: ``front`` (YAML front matter), ``fence`` (a line opening or closing a fenced block or a
    directive, with its title), ``code`` (inside fenced code or a code-like directive),
    ``option`` (a directive's ``:option:`` line), ``heading``, ``target`` (``(label)=``) and
    ``text`` (everything else, including the bodies of prose directives).
    """
    out: list[tuple[str, str]] = []
    stack: list[tuple[str, bool]] = []  # (fence, its body is code)
    in_options = False
    lines = text.splitlines(keepends=True)
    front = bool(lines) and lines[0].strip() == "---"
    for i, line in enumerate(lines):
        body = line.rstrip("\n")
        m = FENCE.match(body)
        if front:
            kind = "front"
            front = not (i > 0 and body.strip() == "---")
        elif (
            m
            and stack
            and not m.group("info").strip()
            and m.group("fence")[0] == stack[-1][0][0]
            and len(m.group("fence")) >= len(stack[-1][0])
        ):
            kind, in_options = "fence", False
            stack.pop()
        elif stack and stack[-1][1]:
            kind = "code"
        elif m:
            name = re.match(r"^\{([^}]+)\}", m.group("info").strip())
            is_code = not name or name.group(1) in CODE_DIRECTIVES
            stack.append((m.group("fence"), is_code))
            kind, in_options = "fence", not is_code
        elif in_options and re.match(r"^\s*:[\w-]+:", body):
            kind = "option"
        else:
            in_options = False
            kind = (
                "heading"
                if re.match(r"^\s*#{1,6}\s", body)
                else "target"
                if re.match(r"^\s*\(.+\)=\s*$", body)
                else "text"
            )
        out.append((line, kind))
    return out


def prose_mask(text: str) -> str:
    """Return ``text`` with everything that is not prose replaced by NUL characters.

    The result has the same length as ``text`` (newlines are kept), so a match in it is a match at
    the same place in ``text``. The module docstring lists what is not prose.
    """
    masked = "".join(line if kind == "text" else re.sub(r"[^\n]", MASK, line) for line, kind in line_kinds(text))
    for pattern in INLINE_NON_PROSE:
        masked = pattern.sub(lambda m: re.sub(r"[^\n]", MASK, m.group(0)), masked)
    return masked


@dataclass(frozen=True)
class Entry:
    """A glossary entry: its first term names it; any of its terms is a valid link target."""

    name: str
    terms: tuple[str, ...]


def glossary_entries() -> list[Entry]:
    return [Entry(e.terms[0], tuple(e.terms)) for e in parse_glossary(GLOSSARY.read_text(encoding="utf-8"))]


def term_pattern(term: str) -> re.Pattern[str]:
    words = [re.escape(w) for w in re.split(r"[\s-]+", term.strip())]
    return re.compile(r"(?<![\w])" + r"[ \t\n-]+".join(words) + r"(?:e?s)?(?![\w])", re.IGNORECASE)


def find_terms(masked: str, entries: list[Entry], exempt: dict[str, str] | None = None) -> list[tuple[int, int, Entry]]:
    """Every match of a glossary term in masked prose, longest first, without overlaps, in text order.

    Matches of an ``exempt`` term (default :data:`EXEMPT`) take their place, so that a shorter term
    is not matched inside them, but are not returned.
    """
    exempt = EXEMPT if exempt is None else exempt
    candidates = []
    for entry in entries:
        for term in entry.terms:
            for m in term_pattern(term).finditer(masked):
                candidates.append((m.start(), m.end(), entry, term.casefold() in exempt))
    taken: list[tuple[int, int, Entry, bool]] = []
    for start, end, entry, skip in sorted(candidates, key=lambda c: (c[0] - c[1], c[0])):
        if all(end <= s or start >= e for s, e, _, _ in taken):
            taken.append((start, end, entry, skip))
    return sorted(((s, e, entry) for s, e, entry, skip in taken if not skip), key=lambda c: c[0])


def linked_entries(text: str, entries: list[Entry]) -> set[str]:
    """Names of the entries that a ``{term}`` role or a glossary link in ``text`` points at."""
    by_term = {t.casefold(): e.name for e in entries for t in e.terms}
    by_anchor = {term_anchor(t).casefold(): e.name for e in entries for t in e.terms}
    out = {by_anchor[a.casefold()] for a in GLOSSARY_LINK.findall(text) if a.casefold() in by_anchor}
    for role in TERM_ROLE.findall(text):
        target = re.search(r"<([^<>]+)>\s*$", role)
        key = " ".join((target.group(1) if target else role).split()).casefold()
        if key in by_term:
            out.add(by_term[key])
    return out


def terms_used(page: Page, entries: list[Entry]) -> dict[str, str]:
    """Entry name -> the first words that use it, for every entry the page uses in prose."""
    used: dict[str, str] = {}
    for part in page.markdown:
        for start, end, entry in find_terms(prose_mask(part), entries):
            used.setdefault(entry.name, part[start:end])
    return used


# --- exercises ------------------------------------------------------------------------------

DIRECTIVE = re.compile(
    r"^(`{3,}|~{3,})\{(?P<name>[\w-]+)\}[ \t]*(?P<arg>[^\n]*)\n(?P<rest>(?:.*\n?)*?)^\1[ \t]*$", re.MULTILINE
)


def directives(text: str, names: set[str]) -> list[tuple[str, str, dict[str, str], str]]:
    """(name, argument, options, body) of each top-level directive called one of ``names``."""
    found = []
    for m in DIRECTIVE.finditer(text):
        if m.group("name") not in names:
            continue
        options, body = {}, []
        for line in m.group("rest").splitlines():
            if not body and (o := re.match(r"^:([\w-]+):\s*(.*)$", line)):
                options[o.group(1)] = o.group(2).strip()
            else:
                body.append(line)
        found.append((m.group("name"), m.group("arg").strip(), options, "\n".join(body)))
    return found


def exercises(text: str) -> list[dict[str, str]]:
    """Each exercise's label and grade text (the bold parenthesis that opens it)."""
    out = []
    for m in DIRECTIVE.finditer(text):
        if m.group("name") not in ("exercise", "exercise-start"):
            continue
        label = re.search(r"^:label:\s*(\S+)", m.group("rest"), re.MULTILINE)
        # A gated exercise's text runs from here to {exercise-end}.
        body = (
            m.group("rest") if m.group("name") == "exercise" else text[m.end() : text.find("{exercise-end}", m.end())]
        )
        body = "\n".join(line for line in body.splitlines() if not re.match(r"^:[\w-]+:", line)).strip()
        grade = re.match(r"^\*\*\(([^)]*)\)\*\*", body)
        out.append(
            {"label": label.group(1) if label else "", "grade": grade.group(1) if grade else "", "opening": body[:60]}
        )
    return out


def solutions(text: str) -> dict[str, list[dict[str, str]]]:
    """Label -> the solutions written for it, with their options."""
    out: dict[str, list[dict[str, str]]] = {}
    for name, arg, options, _ in directives(text, {"solution", "solution-start"}):
        out.setdefault(arg, []).append({"kind": name, **options})
    return out


# --- the tests ------------------------------------------------------------------------------


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def test_the_pages_are_found():
    names = {p.stem for p in PAGES}
    assert {"what-happened", "the-race", "the-cascade", "recovery"} <= names
    assert len(LABS) >= 6 and not names & NOT_LESSONS


@pytest.mark.parametrize("path", PAGES, ids=_id)
def test_page_starts_with_the_objectives_box(path):
    page = read_page(path)
    if page.is_lab:
        assert page.markdown[0].startswith("# "), "a lab's first cell is its # title"
        first = page.markdown[1]
        assert re.match(r"^## Overview\s*\n\s*\n", first), "a lab's second markdown cell starts with ## Overview"
        start = first[first.index("\n") :].lstrip()
        title = "In this lab"
    else:
        body = re.sub(r"\A---\n.*?\n---\n", "", page.text, flags=re.DOTALL).lstrip()
        assert body.startswith("# "), "a chapter starts with its # title"
        start = body[body.index("\n") :].lstrip()
        title = "In this chapter"
    boxes = directives(start, {"admonition"})
    assert boxes and start.startswith("```{admonition}"), f"the page must open with the '{title}' box"
    _, arg, options, box = boxes[0]
    assert arg == title, f"the box is titled {arg!r}, expected {title!r}"
    assert options.get("class") == "tip", "the box needs :class: tip"
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", box) if p.strip()]
    labels = [m.group(1) for p in paragraphs if (m := re.match(r"^\*\*([^*]+)\.\*\* \S", p))]
    assert labels == LABELS, (
        f"the box's paragraphs must open with **Objectives.**, **Prerequisites.**, **Time to learn.**; found {labels}"
    )


@pytest.mark.parametrize("path", PAGES, ids=_id)
def test_page_has_graded_exercises_with_solutions(path):
    page = read_page(path)
    text = page.text
    found = exercises(text)
    assert 3 <= len(found) <= 6, f"{len(found)} exercises; a page needs 3 to 6"
    sols = solutions(text)
    labels = [e["label"] for e in found]
    assert all(labels) and len(set(labels)) == len(labels), f"every exercise needs its own :label: ({labels})"
    for e in found:
        grade = e["grade"].casefold()
        assert any(g in grade for g in GRADES), (
            f"{e['label']}: no bold grade (Simple/Moderate/Advanced): {e['opening']!r}"
        )
        assert len(sols.get(e["label"], [])) == 1, f"{e['label']}: needs exactly one solution"
        assert sols[e["label"]][0].get("class") == "dropdown", f"{e['label']}: the solution must be a dropdown"
    assert not set(sols) - set(labels), f"solutions for unknown exercises: {set(sols) - set(labels)}"
    for start, end in (("solution-start", "solution-end"), ("exercise-start", "exercise-end")):
        assert text.count("{" + start + "}") == text.count("{" + end + "}"), f"an unclosed {{{start}}}"
    if page.is_lab:
        grades = [re.sub(r"[^a-z ]", " ", e["grade"].casefold()) for e in found]
        assert any("predict" in g and "run" in g for g in grades), "a lab needs a 'predict then run' exercise"
        assert any("design" in g for g in grades), "a lab needs a design exercise"


@pytest.mark.parametrize("path", LABS, ids=_id)
def test_lab_has_the_sections_in_order(path):
    names = [name for name, _ in lab_sections(path)]
    positions = []
    for wanted in LAB_SECTIONS:
        assert names.count(wanted) == 1, f"'## {wanted}' appears {names.count(wanted)} times; expected once"
        positions.append(names.index(wanted))
    assert positions == sorted(positions), f"sections out of order: {names}"


@pytest.mark.parametrize("path", LABS, ids=_id)
def test_lab_self_check_asserts(path):
    code = dict(lab_sections(path))["Self-check"]
    asserts = sum(isinstance(node, ast.Assert) for src in code for node in ast.walk(ast.parse(src)))
    assert asserts >= 1, "the Self-check section has no assert"


@pytest.mark.parametrize("path", PAGES, ids=_id)
def test_glossary_terms_used_are_linked(path):
    entries = glossary_entries()
    page = read_page(path)
    used = terms_used(page, entries)
    linked = linked_entries(page.text, entries)
    missing = {name: words for name, words in used.items() if name not in linked}
    assert not missing, "glossary terms used in prose but never linked with {term}: " + ", ".join(
        f"{name} (as {words!r})" for name, words in sorted(missing.items())
    )


def test_term_links_point_at_glossary_terms():
    entries = glossary_entries()
    known = {t.casefold() for e in entries for t in e.terms}
    bad = []
    for path in PAGES:
        for role in TERM_ROLE.findall(read_page(path).text):
            target = re.search(r"<([^<>]+)>\s*$", role)
            key = " ".join((target.group(1) if target else role).split()).casefold()
            if key not in known:
                bad.append(f"{_id(path)}: {{term}}`{role}`")
    assert not bad, "term links to no glossary term: " + "; ".join(bad)


def test_glossary_links_point_at_glossary_terms():
    anchors = {term_anchor(t) for e in glossary_entries() for t in e.terms}
    bad = [
        f"{_id(path)}: #{a}" for path in PAGES for a in GLOSSARY_LINK.findall(read_page(path).text) if a not in anchors
    ]
    assert not bad, "glossary links to no glossary term (anchors are case-sensitive): " + "; ".join(bad)


# What a front end without the book's Sphinx extensions cannot resolve: in JupyterLab (even with
# jupyterlab-myst) these show as placeholders, links to nowhere or "Start of ..." boxes.
LIVE_UNREADABLE = re.compile(
    r"\{(?:glue(?::\w+)?|term|doc|cite(?::\w+)?|ref|numref|eq)\}`"
    r"|\{(?:exercise|solution)-(?:start|end)\}"
)


@pytest.mark.parametrize("path", LABS, ids=_id)
def test_lab_reads_right_live(path):
    nb = nbformat.read(path, as_version=4)
    found = sorted({m.group(0) for c in nb.cells for m in LIVE_UNREADABLE.finditer(c.source)})
    assert not found, f"MyST syntax that JupyterLab cannot resolve: {found}"
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "glue(" not in code, "numbers reach the prose through Markdown(...) cells, not glue"
    for link in re.findall(r"\]\(([^)\s#]+\.(?:md|ipynb))(?:#[^)]*)?\)", "\n".join(read_page(path).markdown)):
        assert (path.parent / link).resolve().is_file(), f"link to a missing file: {link}"


def test_exemptions_are_glossary_terms():
    known = {t.casefold() for e in glossary_entries() for t in e.terms}
    assert set(EXEMPT) <= known, f"exempt words that are not glossary terms: {set(EXEMPT) - known}"


# The helpers above must be able to fail: small pages that break each rule.

_CHAPTER = """\
---
kernelspec:
  name: python3
---

# A chapter

```{admonition} In this chapter
:class: tip

**Objectives.** Learn what a {term}`lease` is.

**Prerequisites.** None.

**Time to learn.** 5 minutes.
```

A lease lapses. The `lease` in code and the {doc}`lease` role are not prose.

```{code-cell} ipython3
lease = 1  # code
```
"""


def test_prose_mask_keeps_length_and_hides_code_roles_headings_and_titles():
    text = "# Lease\n\n```{admonition} Lease\n:class: tip\n\nA lease `lease` {term}`lease`.\n```\n"
    masked = prose_mask(text)
    assert len(masked) == len(text)
    visible = masked.replace(MASK, "")
    assert visible.split() == ["A", "lease", "."]


def test_exempt_words_are_not_uses():
    entries = [Entry("Region", ("Region",)), Entry("Regional endpoint", ("Regional endpoint",))]
    text = "a region of the chart, the regional endpoint"
    found = [text[s:e] for s, e, _ in find_terms(prose_mask(text), entries, exempt={"region": "everyday word"})]
    assert found == ["regional endpoint"]
    assert [text[s:e] for s, e, _ in find_terms(prose_mask(text), entries, exempt={})] == [
        "region",
        "regional endpoint",
    ]


def test_term_matching_rules():
    entries = [
        Entry("Endpoint", ("Endpoint",)),
        Entry("Regional endpoint", ("Regional endpoint",)),
        Entry("Health check", ("Health check",)),
        Entry("TTL", ("TTL",)),
    ]
    text = "the regional endpoint, two endpoints, a health-check cell, TTLs, endpointless, sTTL"
    found = [(text[s:e], entry.name) for s, e, entry in find_terms(prose_mask(text), entries)]
    assert found == [
        ("regional endpoint", "Regional endpoint"),
        ("endpoints", "Endpoint"),
        ("health-check", "Health check"),
        ("TTLs", "TTL"),
    ]


def test_an_unlinked_term_is_found_and_a_link_satisfies_it():
    entries = [Entry("Lease", ("Lease",)), Entry("Droplet", ("Droplet", "Droplets server"))]
    page = Page(Path("x.md"), [_CHAPTER])
    assert set(terms_used(page, entries)) == {"Lease"}
    assert linked_entries(page.text, entries) == {"Lease"}
    unlinked = Page(Path("x.md"), [_CHAPTER.replace("{term}`lease`", "lease")])
    assert "Lease" not in linked_entries(unlinked.text, entries)
    assert linked_entries("{term}`leases <Lease>` and {term}`Droplets server`", entries) == {"Lease", "Droplet"}


def test_exercise_parsing_finds_grades_labels_and_solutions():
    text = (
        "```{exercise-start}\n:label: a-ex1\n```\n**(Simple, predict then run)** Do it.\n```{exercise-end}\n```\n"
        "```{solution-start} a-ex1\n:class: dropdown\n```\n```{solution-end}\n```\n"
        "```{exercise}\n:label: a-ex2\n\nNo grade here.\n```\n"
    )
    found = exercises(text)
    assert [(e["label"], e["grade"]) for e in found] == [("a-ex1", "Simple, predict then run"), ("a-ex2", "")]
    assert solutions(text) == {"a-ex1": [{"kind": "solution-start", "class": "dropdown"}]}


def test_objectives_check_rejects_other_shapes(tmp_path):
    good = tmp_path / "good.md"
    good.write_text(_CHAPTER, encoding="utf-8")
    test_page_starts_with_the_objectives_box(good)
    for old, new in (
        ("**Objectives.**", "**You will learn**"),
        (":class: tip", ":class: note"),
        ("In this chapter", "In this appendix"),
        ("**Time to learn.**", "**Time:**"),
    ):
        bad = tmp_path / "bad.md"
        bad.write_text(_CHAPTER.replace(old, new), encoding="utf-8")
        with pytest.raises(AssertionError):
            test_page_starts_with_the_objectives_box(bad)


def _lab(tmp_path, sections: list[str], self_check: str) -> Path:
    cells = [nbformat.v4.new_markdown_cell("# A lab")]
    for name in sections:
        cells.append(nbformat.v4.new_markdown_cell(f"## {name}"))
        if name == "Self-check":
            cells.append(nbformat.v4.new_code_cell(self_check))
    path = tmp_path / "lab.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    return path


def test_lab_checks_find_missing_misordered_sections_and_a_self_check_without_assert(tmp_path):
    good = _lab(tmp_path, LAB_SECTIONS, "assert 1 + 1 == 2")
    test_lab_has_the_sections_in_order(good)
    test_lab_self_check_asserts(good)
    swapped = [*LAB_SECTIONS[:2], LAB_SECTIONS[3], LAB_SECTIONS[2], *LAB_SECTIONS[4:]]
    for sections in (LAB_SECTIONS[1:], swapped, [*LAB_SECTIONS, "Run"]):
        with pytest.raises(AssertionError):
            test_lab_has_the_sections_in_order(_lab(tmp_path, sections, "assert True"))
    with pytest.raises(AssertionError):
        test_lab_self_check_asserts(_lab(tmp_path, LAB_SECTIONS, "print('no checks')"))


def _exercise(n: int, grade: str = "Simple", solution: str = "solution", cls: str = "dropdown") -> str:
    return (
        f"```{{exercise}}\n:label: x-ex{n}\n\n**({grade})** Question {n}.\n```\n\n"
        f"```{{{solution}}} x-ex{n}\n:class: {cls}\n\nAnswer.\n```\n\n"
    )


def test_exercise_check_finds_too_few_ungraded_and_unsolved_exercises(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(_CHAPTER + "".join(_exercise(n) for n in range(3)), encoding="utf-8")
    test_page_has_graded_exercises_with_solutions(page)
    broken = [
        "".join(_exercise(n) for n in range(2)),  # too few
        "".join(_exercise(n) for n in range(7)),  # too many
        _exercise(0) + _exercise(1) + _exercise(2, grade="Hard"),  # no grade word
        _exercise(0) + _exercise(1) + _exercise(2, cls="note"),  # not a dropdown
        _exercise(0) + _exercise(1) + _exercise(2).split("```{solution}")[0],  # no solution
    ]
    for exercises in broken:
        page.write_text(_CHAPTER + exercises, encoding="utf-8")
        with pytest.raises(AssertionError):
            test_page_has_graded_exercises_with_solutions(page)
