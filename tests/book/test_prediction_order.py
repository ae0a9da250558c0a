"""No page on the learner's path answers a prediction before the course asks it.

The learner's path is the order of ``_toc.yml`` (the root page first). Each part opens with its lab,
so a lab's *Predict* comes before the chapter that explains it: predict, then run, then read.

**What is a question.** Each lab's Predict cell, and the answer cell of each lab exercise whose
grade says "predict", carries the figures that answer it in its metadata::

    "predict": {"answered_by": {"glue": ["whole_event", "after_dns_pct"], "text": ["14 h 32 min"]}}

**What is an answer.** A page gives one of those figures when its visible source holds

* a glue reference to a declared name: a ``{glue:text}`` role or ``{glue}`` directive in a chapter
  (``{glue:text}`key``` or ``{glue:text}`page::key```), a field ``{key}`` of a lab's
  ``Markdown(f"...")`` cell (the labs' glue), or a ``{key}`` placeholder in the concept quiz's data,
  which the quiz pages render under the misconceptions page's glue names; or
* a declared phrase, compared case-insensitively with Markdown emphasis (``*``) removed and white
  space collapsed.

A page's visible source is its prose, its code that the book shows (``hide-cell`` code can be
opened, so it counts; ``remove-cell`` code does not), folded solutions and dropdowns included
(folding hides an answer from nobody who opens it), and, for the two quiz pages, the quiz's text
(each page's own form: the page before the course asks the before form, the page after the other).

**The rule.** No page before the question's page on the path gives an answer, and the question's
own page gives none above the question. :data:`KNOWN` lists the findings that belong to another
branch's work, each with its reason; the test fails on a finding that is not listed and on a listed
one that is no longer found. Declarations must be live: each declared glue name is defined by some
page, and each phrase occurs somewhere in the book, so a typo cannot make a question pass.

``python tests/book/test_prediction_order.py`` prints the path and every finding.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest
import yaml

try:
    from .test_exercises import NOT_YET
except ImportError:  # run as a script: python tests/book/test_prediction_order.py
    from test_exercises import NOT_YET  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parents[2]
QUIZ_DATA = ROOT / "labsupport" / "data" / "quiz.json"
#: The quiz's key, whose explanations the quiz pages show once a question is answered.
QUIZ_KEY = ROOT / "tools" / "coursetools" / "data" / "quiz_key.json"
QUIZ_PAGES = {"chapters/quiz-before", "chapters/quiz-after"}

#: Findings that other work in this wave removes, each with its reason: (question, page, figure).
KNOWN: dict[tuple[str, str, str], str] = {}


@dataclass
class Question:
    """One prediction: where it is asked, and the figures that answer it."""

    id: str
    page: str
    position: int
    glue: list[str]
    text: list[str]


@dataclass
class Page:
    """One page of the path: its visible source, in blocks with a position each."""

    name: str
    blocks: list[tuple[int, str, str]] = field(default_factory=list)  # (position, kind, text)


def toc_path() -> list[str]:
    """The pages in the order of ``_toc.yml``, root first, without suffix (``labs/00-timeline``)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    names = [toc["root"]]

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if "file" in node:
                names.append(node["file"])
            for key in ("chapters", "sections", "parts"):
                walk(node.get(key))
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc.get("parts"))
    return names


def _source(name: str) -> Path:
    for suffix in (".md", ".ipynb"):
        if (ROOT / f"{name}{suffix}").is_file():
            return ROOT / f"{name}{suffix}"
    raise FileNotFoundError(name)


_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(?P<body>.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def _quiz_strings(stage: str | None = None) -> list[str]:
    """The quiz's text as its pages show it: the questions, their options and, from the key, every
    option's explanation (the pages reveal them once a question is answered). ``stage`` (``"before"``
    or ``"after"``) keeps the questions of that page's form; ``None`` keeps both forms."""
    data = json.loads(QUIZ_DATA.read_text(encoding="utf-8"))
    shown = set(data["forms"][stage]) if stage else {q["id"] for q in data["questions"]}
    out = []
    for q in data["questions"]:
        if q["id"] not in shown:
            continue
        out.append(q["prompt"])
        for option in q["options"]:
            out += [v for k, v in option.items() if k in ("text", "explanation") and isinstance(v, str)]
    if QUIZ_KEY.is_file():
        for qid, options in json.loads(QUIZ_KEY.read_text(encoding="utf-8"))["answers"].items():
            if qid in shown:
                out += [o["explanation"] for o in options.values() if isinstance(o.get("explanation"), str)]
    return out


def read_page(name: str) -> Page:
    """A page's visible source (see the module's docstring), in positioned blocks."""
    path, page = _source(name), Page(name)
    if path.suffix == ".ipynb":
        nb = nbformat.read(path, as_version=4)
        for i, cell in enumerate(nb.cells):
            if cell.cell_type == "code" and "remove-cell" in cell.metadata.get("tags", []):
                continue
            kind = "fstring" if cell.cell_type == "code" and cell.source.startswith('Markdown(f"""') else cell.cell_type
            page.blocks.append((i, kind, cell.source))
        return page
    text = path.read_text(encoding="utf-8")
    removed = [m.span() for m in _CELL.finditer(text) if re.search(r"^:tags:.*\bremove-cell\b", m["body"], re.M)]
    pos = 0
    for start, end in [*removed, (len(text), len(text))]:
        page.blocks.append((pos, "markdown", text[pos:start]))
        pos = end
    if name in QUIZ_PAGES:
        at = text.find("quiz.render_html")
        page.blocks += [(at, "quiz", s) for s in _quiz_strings(name.rsplit("-", 1)[-1])]
    return page


def questions(path: list[str]) -> list[Question]:
    """Every lab's Predict and its "predict" exercises, from the cells' ``predict`` metadata."""
    out = []
    for name in path:
        if not name.startswith("labs/"):
            continue
        nb = nbformat.read(_source(name), as_version=4)
        label, asked = "", 0
        for i, cell in enumerate(nb.cells):
            if cell.cell_type == "markdown" and (m := re.search(r"^:label: ([\w-]+)", cell.source, re.MULTILINE)):
                label, asked = m.group(1), i
            declared = cell.metadata.get("predict", {}).get("answered_by")
            if declared is None:
                continue
            # An exercise asks in its own text, above its answer cell; a Predict cell asks where it is.
            exercise = "exercise-answer" in cell.metadata.get("tags", [])
            qid, at = (f"{name}#{label}", asked) if exercise else (f"{name}#predict", i)
            out.append(Question(qid, name, at, list(declared.get("glue", [])), list(declared.get("text", []))))
    return out


def _normal(text: str) -> str:
    return " ".join(text.replace("*", "").split()).casefold()


def gives(kind: str, text: str, q: Question) -> list[str]:
    """The declared figures of ``q`` that a block of this kind shows."""
    found = []
    for key in q.glue:
        k = re.escape(key)
        if kind == "markdown":
            pattern = rf"\{{glue(?::\w+)?\}}`(?:[^`]*::)?{k}(?::[^`]*)?`|```\{{glue(?::\w+)?\}}\s+{k}\b"
        elif kind in ("fstring", "quiz"):
            pattern = rf"\{{{k}(?:[:!][^{{}}]*)?\}}"
        else:
            continue
        if re.search(pattern, text):
            found.append(f"glue:{key}")
    normal = _normal(text)
    found += [f"text:{t}" for t in q.text if _normal(t) in normal]
    return found


def findings(path: list[str]) -> dict[tuple[str, str, str], int]:
    """(question, page, figure) -> the position on that page of each answer given before its question."""
    pages = {name: read_page(name) for name in path}
    out: dict[tuple[str, str, str], int] = {}
    for q in questions(path):
        for name in path[: path.index(q.page) + 1]:
            for pos, kind, text in pages[name].blocks:
                if name == q.page and pos >= q.position:
                    continue
                for figure in gives(kind, text, q):
                    out.setdefault((q.id, name, figure), pos)
    return out


PATH = toc_path()


def test_the_path_opens_each_part_with_its_lab():
    labs = [p for p in PATH if p.startswith("labs/")]
    assert PATH[:2] == ["intro", "chapters/quiz-before"] and len(labs) >= 8
    for lab, chapter in [("labs/00-timeline", "chapters/what-happened"), ("labs/01-enactor-race", "chapters/the-race"),
                         ("labs/02-dwfm-collapse", "chapters/the-cascade"), ("labs/04-dns-caches", "chapters/recovery"),
                         ("labs/05-six-stop-points", "chapters/six-stop-points"),
                         ("labs/06-every-interleaving", "chapters/appendix-formal-models")]:  # fmt: skip
        assert PATH.index(lab) < PATH.index(chapter), f"{chapter} comes before {lab}, which asks what it answers"


def test_every_prediction_declares_its_answers():
    qs = {q.id for q in questions(PATH)}
    labs = [p for p in PATH if p.startswith("labs/")]
    assert {f"{lab}#predict" for lab in labs} <= qs, "every lab's Predict cell declares what answers it"
    for lab in labs:
        nb = nbformat.read(_source(lab), as_version=4)
        graded = re.findall(r":label: ([\w-]+)\n\n\*\*\(([^)]*)\)", "\n".join(c.source for c in nb.cells))
        for label, grade in graded:
            if "predict" in grade.casefold() and f"{Path(lab).name}.ipynb" not in NOT_YET:
                assert f"{lab}#{label}" in qs, f"{lab}: the predict exercise {label} declares what answers it"


def _book_text() -> str:
    parts = [_source(n).read_text(encoding="utf-8") for n in PATH]
    return "\n".join(parts + _quiz_strings())


def test_declared_answers_are_live():
    book = _book_text()
    normal = _normal(book)
    for q in questions(PATH):
        for key in q.glue:
            # Glued by a call, quoted by a role (which the -W build proves defined), or a lab's or the
            # quiz's field.
            k = re.escape(key)
            defined = (
                re.search(rf"""glue\(\s*["']{k}["']""", book)
                or re.search(rf"\{{glue(?::\w+)?\}}`(?:[^`]*::)?{k}(?::[^`]*)?`", book)
                or re.search(rf"\{{{k}(?:[:!][^{{}}]*)?\}}", book)
            )
            assert defined, f"{q.id}: no page glues {key!r}, so it can never be found"
        for text in q.text:
            assert _normal(text) in normal, f"{q.id}: no page says {text!r}, so it can never be found"


def test_no_page_answers_a_prediction_before_it_is_asked():
    found = findings(PATH)
    new = sorted(set(found) - set(KNOWN))
    stale = sorted(set(KNOWN) - set(found))
    assert not new, "answered before asked (question, page, figure): " + "; ".join(map(str, new))
    assert not stale, "listed in KNOWN but no longer found, remove them: " + "; ".join(map(str, stale))


def test_the_check_finds_an_answer_on_an_earlier_page_and_above_the_question(tmp_path, monkeypatch):
    q = Question("labs/x#predict", "labs/x", 3, ["whole_event"], ["fourteen-hour"])
    assert gives("markdown", "It lasted {glue:text}`whole_event`.", q) == ["glue:whole_event"]
    assert gives("markdown", "{glue:text}`labs/00.ipynb::whole_event:.1f`", q) == ["glue:whole_event"]
    assert gives("fstring", 'Markdown(f"""{whole_event} long""")', q) == ["glue:whole_event"]
    assert gives("quiz", "It lasted {whole_event}.", q) == ["glue:whole_event"]
    assert gives("markdown", "A **Fourteen-hour**\nevent", q) == ["text:fourteen-hour"]
    assert gives("markdown", "whole_event, not glued", q) == [] and gives("code", "{whole_event}", q) == []
    pages = {
        "a": Page("a", [(0, "markdown", "Intro")]),
        "b": Page("b", [(0, "markdown", "A {glue:text}`whole_event` event")]),
        "labs/x": Page("labs/x", [(1, "markdown", "fourteen-hour"), (5, "markdown", "fourteen-hour, after")]),
    }
    monkeypatch.setattr(__import__(__name__), "read_page", lambda name: pages[name], raising=False)
    monkeypatch.setitem(globals(), "read_page", lambda name: pages[name])
    monkeypatch.setitem(globals(), "questions", lambda path: [q])
    assert findings(["a", "b", "labs/x"]) == {
        ("labs/x#predict", "b", "glue:whole_event"): 0,
        ("labs/x#predict", "labs/x", "text:fourteen-hour"): 1,
    }
    assert findings(["labs/x", "a", "b"]) == {("labs/x#predict", "labs/x", "text:fourteen-hour"): 1}


def report() -> str:
    """The path, each question, and every finding, as ``python tests/book/test_prediction_order.py`` prints."""
    lines = ["Path: " + " > ".join(PATH[: PATH.index("chapters/quiz-after") + 1]), ""]
    qs = questions(PATH)
    lines.append(f"{len(qs)} predictions declare their answers:")
    lines += [f"  {q.id} (page {PATH.index(q.page) + 1} of the path): {len(q.glue)} glue names, {len(q.text)} phrases"
              for q in qs]  # fmt: skip
    found = findings(PATH)
    lines += ["", f"{len(found)} answers found before their question:"]
    for key, pos in sorted(found.items()):
        lines.append(f"  {key[0]} <- {key[1]} (at {pos}): {key[2]}" + ("  [KNOWN]" if key in KNOWN else "  [NEW]"))
    return "\n".join(lines)


if __name__ == "__main__":
    print(report())
    pytest.main([__file__, "-q"])
