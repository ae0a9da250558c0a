"""Student notebooks: each lab, and each chapter's exercises, as a notebook that reads right without MyST.

Scenario: a student opens a lab in Colab, VS Code, Jupyter Notebook 7 without jupyterlab-myst, or
downloads it from the book. The labs' Markdown holds MyST directives (``{exercise}``,
``{solution}``, ``{admonition}``, ``{note}``) and relative links to the book's Markdown sources,
which those front ends show as raw text and dead links. :func:`convert` writes the same lab in
plain CommonMark and HTML:

* an exercise becomes a numbered heading, ``### Exercise 1 (Simple, predict then run)``;
* a solution becomes an HTML ``<details><summary>Solution (click to show)</summary>`` block (closed); its code
  cells stay code cells right after the exercise, under a comment naming the exercise;
* an admonition or note becomes a block quote with a bold title;
* a relative link (glossary term, chapter, citation, another lab) points at the published book's
  page, derived from ``repository.url`` in ``_config.yml`` (:class:`labsupport.colab.Published`);
* the cells that print the numbers (``Markdown(f"...")``) stay, with their code visible;
* the first code cell installs the course from the published repository, pinned
  (:func:`labsupport.colab.student_install_cell`); book-only tags and metadata are dropped.

A chapter with an Exercises section gets ``student/chapter-<chapter>.ipynb`` from
:func:`convert_chapter`: the section's setup cell, then its exercises converted the same way
(gated ``exercise-start``/``solution-start`` ones too); glossary terms, citations and in-page
references become links to the published book, and MyST-NB's ``glue`` (a book dependency, not a
student's) becomes plain variables and ``Markdown(f"...")`` cells.

Anything else (an unknown directive, a link to a file that is not a page of the book) raises
:class:`~labsupport.errors.ConfigError`, so a new construct in a lab cannot slip through as raw MyST.
:func:`problems` checks a converted notebook by rendering it with markdown-it-py's CommonMark
preset. QuantEcon's ``sphinx-tojupyter`` (0.6.0) does not fit: it drops the hidden-input cells that
print the numbers and the install cell, and writes unnumbered exercises whose solution links break.

::

    labs/NN-x.ipynb ──convert──> student/NN-x.ipynb   (committed: Colab opens it from GitHub)
    chapters/x.md ──convert_chapter──> student/chapter-x.ipynb          │
                                                                       │
        jupyter-book build ────────────────────────────────────────────┴──> _build/html/student/

Command line: ``python -m labsupport.student`` rewrites ``student/`` (``--check`` only reports).
The book build does the same (this module is a Sphinx extension too) and points the download and
launch buttons of each lab page at the student copy. ``tests/book/test_student.py`` fails when
``student/`` is out of date with the labs.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import copy
import keyword
import posixpath
import re
import shutil
import sys
from pathlib import Path
from typing import Any, cast

import nbformat
from markdown_it import MarkdownIt

from .colab import CONFIG_FILE, CONSTRAINTS_PATH, Published, published, student_install_cell
from .errors import ConfigError

__all__ = [
    "EXERCISES_HEADING",
    "KERNEL_PROVIDED",
    "STUDENT_DIR",
    "chapter_notebook_name",
    "chapters_with_exercises",
    "citation_labels",
    "constraints_text",
    "convert",
    "convert_chapter",
    "convert_markdown",
    "glossary_anchors",
    "main",
    "problems",
    "setup",
    "term_anchor",
    "write_all",
]

ROOT = Path(__file__).resolve().parents[1]
#: Where the student notebooks live, relative to the repository root.
STUDENT_DIR = "student"
_SOLUTION_COMMENT = "# Solution to the exercise above"
_DIRECTIVE = re.compile(r"^\{(?P<name>[A-Za-z][\w-]*)\}\s*(?P<args>.*)$")
_OPTION = re.compile(r"^:(?P<key>[\w-]+):\s*(?P<value>.*)$")
_GRADE = re.compile(r"^\*\*\((?P<grade>[^)]+)\)\*\*\s*")
# MyST syntax that a CommonMark renderer would print as text: roles, directives, colon fences,
# targets, and glue or substitution placeholders.
_MYST_LEFTOVERS = re.compile(
    r"(?<!`)\{[A-Za-z][\w:.-]*\}`|^\s*(?:```+|~~~+)\s*\{|^\s*:::|^\s*\([\w-]+\)=\s*$|\{\{|\bglue\b",
    re.MULTILINE,
)
_BOOK_TAGS = {"remove-cell", "remove-input", "remove-output", "hide-cell", "hide-input", "hide-output"}
_md = MarkdownIt("commonmark")


def _directive_parts(content: str) -> tuple[dict[str, str], str]:
    """Split a directive's content into its ``:key: value`` options and its body."""
    lines = content.splitlines()
    options: dict[str, str] = {}
    while lines and (m := _OPTION.match(lines[0])):
        options[m["key"]] = m["value"].strip()
        lines.pop(0)
    return options, "\n".join(lines).strip("\n")


def _quote(title: str, body: str) -> str:
    lines = [f"**{title}**", "", *body.splitlines()]
    return "\n".join(f"> {line}".rstrip() for line in lines)


class _Converter:
    """Converts one lab's Markdown cells, numbering its exercises in order.

    ``folder`` is where the page lives (``labs`` or ``chapters``): relative links resolve from it.
    """

    def __init__(self, where: Published, lab: str, folder: str = "labs") -> None:
        self.where, self.lab, self.folder = where, lab, folder
        self.exercises: dict[str, int] = {}

    def directive(self, name: str, args: str, content: str) -> str:
        options, body = _directive_parts(content)
        body = self.markdown(body)
        if name == "exercise":
            number = len(self.exercises) + 1
            label = options.get("label") or f"exercise-{number}"
            self.exercises[label] = number
            grade = _GRADE.match(body)
            if not grade:
                raise ConfigError(
                    f"{self.lab}: exercise {label} must open with its grade, "
                    f"**(Simple|Moderate|Advanced...)**, got {body[:40]!r}"
                )
            return f"### Exercise {number} ({grade['grade']})\n\n{body[grade.end() :]}"
        if name == "solution":
            if args.strip() not in self.exercises:
                raise ConfigError(f"{self.lab}: solution label must name an exercise above it, got {args.strip()!r}")
            return f"<details>\n<summary>Solution (click to show)</summary>\n\n{body}\n\n</details>"
        if name in ("admonition", "note", "tip", "important", "warning", "caution", "hint", "seealso"):
            title = args.strip() if name == "admonition" else name.capitalize()
            if not title:
                raise ConfigError(f"{self.lab}: an admonition needs a title, got none")
            return _quote(title, body)
        raise ConfigError(f"{self.lab}: directive must be one of exercise, solution, admonition, note; got {name!r}")

    def link(self, href: str) -> str:
        if re.match(r"^[a-z][a-z0-9+.-]*:", href, re.IGNORECASE) or href.startswith("#"):
            return href
        path, _, fragment = href.partition("#")
        target = posixpath.normpath(posixpath.join(self.folder, path))
        if not re.match(r"^(chapters|labs)/[\w/-]+\.(md|ipynb)$", target) or not (ROOT / target).is_file():
            raise ConfigError(f"{self.lab}: a relative link must point at a chapter or lab of the book, got {href!r}")
        return self.where.page_url(target + (f"#{fragment}" if fragment else ""))

    def markdown(self, text: str) -> str:
        """Replace every directive fence, then every relative link, of one piece of Markdown."""
        lines = text.splitlines()
        fences = [t for t in _md.parse(text) if t.type == "fence" and _DIRECTIVE.match(t.info.strip())]
        # Converted top down (exercises are numbered in order), replaced bottom up (line numbers hold).
        done = [
            (cast(list[int], t.map), self.directive(m["name"], m["args"], t.content))
            for t in fences
            if (m := _DIRECTIVE.match(t.info.strip()))
        ]
        for (start, end), replacement in reversed(done):
            before = [""] if start > 0 and lines[start - 1].strip() else []
            after = [""] if end < len(lines) and lines[end].strip() else []
            lines[start:end] = before + replacement.splitlines() + after
        out = "\n".join(lines)
        hrefs = {
            str(t.attrs["href"])
            for tok in _md.parse(out)
            if tok.type == "inline"
            for t in tok.children or []
            if t.type == "link_open"
        }
        for href in sorted(hrefs, key=len, reverse=True):
            new = self.link(str(href))
            if new != href:
                out = out.replace(f"]({href})", f"]({new})")
        return out


def convert_markdown(text: str, where: Published, *, lab: str = "lab") -> str:
    """Convert one Markdown cell's source (directives and relative links) to plain CommonMark."""
    return _Converter(where, lab).markdown(text)


def _intro(where: Published, lab: str, title: str) -> str:
    page = where.page_url(f"labs/{lab}")
    return (
        f"*This is the student copy of **{title}**, written from `labs/{lab}` of the course "
        f"[us-east-1, 19–20 October 2025: an executable course]({where.book_url}); the lab's "
        f"page in the book is [{title}]({page}). Run the cells from the top (Run all): the first installs "
        "the course where it is missing, and the cells that start with `Markdown(` print the paragraphs "
        "that quote the model's numbers. Exercises are numbered; each solution's code follows its "
        "exercise, and its explanation is folded under **Solution**: open it once you have tried.*"
    )


def convert(lab_nb: Any, where: Published, *, lab: str) -> Any:
    """Return the student copy of one lab notebook (the input is not changed).

    Args:
        lab_nb: the lab, an ``nbformat`` v4 notebook.
        where: the published repository (:func:`labsupport.colab.published`).
        lab: the lab's file name, for the intro cell and error messages (``01-enactor-race.ipynb``).

    Raises:
        ConfigError: for a lab without a title cell or install cell, an unknown directive, an
            exercise without a grade, a solution of no exercise, or a link to no page of the book.
    """
    nb = copy.deepcopy(lab_nb)
    cells = nb.cells
    if not cells or cells[0].cell_type != "markdown" or not cells[0].source.startswith("# "):
        raise ConfigError(f"{lab}: the first cell must be the lab's title, '# ...'")
    if len(cells) < 2 or cells[1].cell_type != "code" or "import labsupport" not in cells[1].source:
        raise ConfigError(f"{lab}: the second cell must be the install cell")
    conv = _Converter(where, lab)
    title = cells[0].source[2:].splitlines()[0].strip()
    out = [cells[0], nbformat.v4.new_markdown_cell(_intro(where, lab, title), id="student-copy")]
    install = cells[1]
    install.source = student_install_cell(where)
    out.append(install)
    for cell in cells[2:]:
        if cell.cell_type == "markdown":
            cell.source = conv.markdown(cell.source)
        elif cell.cell_type == "code" and cell.source.startswith(_SOLUTION_COMMENT):
            number = len(conv.exercises)
            cell.source = cell.source.replace(
                _SOLUTION_COMMENT, f"# Solution to Exercise {number}: try the exercise before you run this cell", 1
            )
        out.append(cell)
    for cell in out:
        cell.metadata.pop("mystnb", None)
        cell.metadata.pop("jupyter", None)  # the Markdown(...) cells show their code: it computes the numbers
        tags = [t for t in cell.metadata.get("tags", []) if t not in _BOOK_TAGS]
        if tags:
            cell.metadata["tags"] = tags
        else:
            cell.metadata.pop("tags", None)
    nb.cells = out
    nb.metadata.pop("mystnb", None)
    return nb


# --- Chapters: each chapter's Exercises section as a student notebook -----------------------------

#: The heading of a chapter's section that becomes its student notebook.
EXERCISES_HEADING = "## Exercises"
_ROLE = re.compile(r"(?<!`)\{(?P<name>[a-z][\w:-]*)\}`(?P<body>[^`]+)`")
_ROLE_TARGET = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>\s*$", re.DOTALL)
_GATED = ("exercise-start", "exercise-end", "solution-start", "solution-end")
_HIDDEN_CODE = {"remove-cell"}


def chapter_notebook_name(chapter: str) -> str:
    """The student notebook of ``chapters/<chapter>.md``: ``chapter-<chapter>.ipynb``."""
    return f"chapter-{Path(chapter).stem}.ipynb"


def chapters_with_exercises(root: str | Path = ROOT) -> list[Path]:
    """The chapters (``chapters/*.md``) that have an Exercises section, sorted by name."""
    pages = sorted(Path(root, "chapters").glob("*.md"))
    return [p for p in pages if f"\n{EXERCISES_HEADING}\n" in p.read_text(encoding="utf-8")]


def glossary_anchors(root: str | Path = ROOT) -> dict[str, str]:
    """Each term of ``chapters/glossary.md``, casefolded, -> the id Sphinx gives it (``term-DNS-Planner``).

    Sphinx matches ``{term}`` roles to glossary terms ignoring case; the id is ``term-`` and the term
    as written, other characters as hyphens.

    Raises:
        OSError: if ``chapters/glossary.md`` cannot be read.
        ConfigError: if it holds no ``{glossary}`` directive.
    """
    text = Path(root, "chapters", "glossary.md").read_text(encoding="utf-8")
    if "```{glossary}" not in text:
        raise ConfigError("chapters/glossary.md must hold a {glossary} directive, got none")
    block = text.split("```{glossary}", 1)[1].split("\n```", 1)[0]
    terms = [line.strip() for line in block.splitlines()[1:] if line.strip() and not line[0].isspace()]
    return {t.casefold(): term_anchor(t) for t in terms}


def term_anchor(term: str) -> str:
    """The id Sphinx gives a glossary term: ``term-`` and the term, other characters as hyphens."""
    return "term-" + re.sub(r"[^0-9A-Za-z]+", "-", term).strip("-")


def citation_labels(root: str | Path = ROOT) -> dict[str, str]:
    """Each key of ``references.bib`` -> its author-year label (``Howard 2025``, ``Bronson et al. 2021``).

    An entry without author or editor is labelled by its title; without a year, by the name alone.

    Raises:
        OSError: if ``references.bib`` cannot be read; pybtex's ``PybtexError`` if it does not parse.
    """
    from pybtex.database import parse_file

    labels = {}
    for key, entry in parse_file(str(Path(root, "references.bib"))).entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        names = [" ".join(p.last_names or p.first_names).replace("{", "").replace("}", "") for p in people]
        if not names:
            who = str(entry.fields.get("title", key)).replace("{", "").replace("}", "")
        else:
            who = " and ".join(names) if len(names) <= 2 else f"{names[0]} et al."
        labels[key] = f"{who} {entry.fields['year']}" if "year" in entry.fields else who
    return labels


class _ChapterConverter(_Converter):
    """Converts one chapter's Exercises section: roles, gated exercises and solutions, and glue."""

    def __init__(self, where: Published, chapter: str, text: str, anchors: dict[str, str], cites: dict[str, str]):
        super().__init__(where, f"chapters/{chapter}.md", folder="chapters")
        self.chapter, self.text, self.anchors, self.cites = chapter, text, anchors, cites
        #: The glue keys glued so far: the student copy binds each to a variable of that name.
        self.glued: set[str] = set()
        #: Every other name the section's code binds (a glue key must not be one of them).
        self.bound: set[str] = set()

    def link(self, href: str) -> str:
        if href.startswith("#"):  # an anchor of the chapter's page, which the notebook is not
            return self.where.page_url(f"chapters/{self.chapter}.md{href}")
        return super().link(href)

    def role(self, m: re.Match[str]) -> str:
        name, body = m["name"], m["body"]
        target = _ROLE_TARGET.match(body)
        text, key = (target["text"], target["target"]) if target else (body, body)
        if name.startswith("glue"):
            return m.group(0)  # left for cell(), which prints it from a Markdown(f"...") cell
        if name == "term":
            anchor = self.anchors.get(" ".join(key.split()).casefold())
            if anchor is None:
                raise ConfigError(f"{self.lab}: {{term}} must name a glossary term, got {key!r}")
            return f"[{text}]({self.where.page_url('chapters/glossary.md#' + anchor)})"
        if name == "cite":
            keys = [k.strip() for k in body.split(",")]
            unknown = [k for k in keys if k not in self.cites]
            if unknown:
                raise ConfigError(f"{self.lab}: {{cite}} must name entries of references.bib, got {unknown}")
            refs = self.where.page_url("chapters/references.md")
            return "(" + "; ".join(f"[{self.cites[k]}]({refs})" for k in keys) + ")"
        if name == "ref":
            heading = re.search(rf"^\({re.escape(key)}\)=\s*\n+#+\s+(?P<title>.+)$", self.text, re.MULTILINE)
            if heading is None:
                raise ConfigError(f"{self.lab}: {{ref}} must name a section of this chapter, got {key!r}")
            label = text if target else heading["title"].strip()
            return f"[{label}]({self.where.page_url(f'chapters/{self.chapter}.md#{key}')})"
        if name == "doc":
            path = posixpath.normpath(posixpath.join("chapters", key))
            candidates = [path] if path.endswith((".md", ".ipynb")) else [f"{path}.md", f"{path}.ipynb"]
            found = [c for c in candidates if (ROOT / c).is_file()]
            if not found:
                raise ConfigError(f"{self.lab}: {{doc}} must name a chapter or lab of the book, got {key!r}")
            if not target:
                text = _page_title(ROOT / found[0]) or text
            return f"[{text}]({self.link(posixpath.relpath(found[0], 'chapters'))})"
        raise ConfigError(
            f"{self.lab}: a role in the exercises must be term, cite, ref, doc or glue:text, got {name!r}"
        )

    def prose(self, text: str) -> str:
        """Roles first (a directive's body holds them too), then directives and links."""
        return self.markdown(_ROLE.sub(self.role, text))

    def cell(self, text: str) -> Any:
        """A Markdown cell, or, where the text quotes glued numbers, a code cell that prints it."""
        glue_roles = [m for m in _ROLE.finditer(text) if m["name"].startswith("glue")]
        if not glue_roles:
            return nbformat.v4.new_markdown_cell(text)
        parts, pos = [], 0
        for m in glue_roles:
            key, _, spec = m["body"].partition(":")
            if m["name"] != "glue:text":
                raise ConfigError(
                    f"{self.lab}: the exercises may quote glued values with {{glue:text}} only, got {m[0]!r}"
                )
            if key not in self.glued:
                raise ConfigError(
                    f"{self.lab}: the exercises quote glue key {key!r} ({{{m['name']}}}), which no cell of the "
                    "Exercises section above it glues as a statement glue('key', value, display=False)"
                )
            parts.append(_f_literal(text[pos : m.start()]) + "{" + key + (f":{spec}" if spec else "") + "}")
            pos = m.end()
        parts.append(_f_literal(text[pos:]))
        return nbformat.v4.new_code_cell('Markdown(f"""' + "".join(parts) + '""")')

    def code(self, source: str) -> str:
        """The code without MyST-NB: ``glue("key", value, display=False)`` becomes ``key = value``."""
        try:
            tree = ast.parse(source)
        except SyntaxError as err:
            raise ConfigError(f"{self.lab}: an exercise's code cell must be plain Python, got {err}") from err
        lines = source.splitlines()
        edits: list[tuple[int, int, list[str]]] = []
        spans = [(node.lineno, cast(int, node.end_lineno)) for node in tree.body]
        for node in tree.body:
            end = cast(int, node.end_lineno)
            shares_a_line = sum(1 for a, b in spans if a <= end and node.lineno <= b) > 1
            if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "myst_nb" for a in node.names):
                raise ConfigError(
                    f"{self.lab}: the exercises may take only glue from myst_nb, as 'from myst_nb import glue'"
                )
            if isinstance(node, ast.ImportFrom) and node.module == "myst_nb":
                if [(a.name, a.asname) for a in node.names] != [("glue", None)] or shares_a_line:
                    raise ConfigError(
                        f"{self.lab}: the exercises may take only glue from myst_nb, as 'from myst_nb import glue'"
                    )
                edits.append((node.lineno, end, []))
            elif (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name)
                and node.value.func.id == "glue"
            ):
                call = node.value
                key = call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) else None
                if not isinstance(key, str) or not key.isidentifier() or len(call.args) != 2 or shares_a_line:
                    raise ConfigError(
                        f"{self.lab}: glue must be called as glue('key', value, display=False), alone on its "
                        f"lines, got line {node.lineno}"
                    )
                if keyword.iskeyword(key) or hasattr(builtins, key) or key in self.glued or key == "Markdown":
                    raise ConfigError(
                        f"{self.lab}: the glue key {key!r} becomes a variable of the student copy, so it must be a "
                        "new name: not a keyword, a builtin, Markdown or a key glued before"
                    )
                value = cast(str, ast.get_source_segment(source, call.args[1]))
                edits.append((node.lineno, end, [f"{key} = {value}"]))
                self.glued.add(key)
        for start, end, new in reversed(edits):
            blank_around = start > 1 and end < len(lines) and not lines[start - 2].strip() and not lines[end].strip()
            lines[start - 1 : end + (1 if blank_around and not new else 0)] = new
        out = "\n".join(lines).strip("\n")
        if any(isinstance(n, ast.Name) and n.id == "glue" for n in ast.walk(ast.parse(out))):
            raise ConfigError(f"{self.lab}: glue may only be called as a statement of its own in the exercises")
        self.bound |= _bound_names(tree)  # the chapter's code, where a glue call binds nothing
        clash = sorted(self.bound & self.glued)
        if clash:
            raise ConfigError(
                f"{self.lab}: the glue keys {clash} are also names the exercises' code binds; the student copy "
                "binds each glue key to a variable of its name, so give the key a name of its own"
            )
        return out


#: The first line of a cell that prints a solution's explanation (Colab shows it in place of the code).
_FORM_TITLE = "#@title Solution: run this cell to print the explanation with your run's numbers"


def _fenced(directive: str, body: str, args: str = "") -> str:
    """``body`` in a ``{directive}`` fence longer than any backtick run inside it (an inner fence stays inner)."""
    ticks = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", body)), default=0))
    return f"{ticks}{{{directive}}}{' ' + args if args else ''}\n{body}\n{ticks}"


def _f_literal(text: str) -> str:
    """``text`` as the literal part of a triple-quoted f-string (braces doubled, quotes escaped)."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("{", "{{").replace("}", "}}")


def _bound_names(tree: ast.AST) -> set[str]:
    """Names a piece of code binds: assignments, imports, functions, classes, loop variables."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
    return out


def _page_title(path: Path) -> str:
    """The first ``# `` heading of a chapter (``.md``) or lab (``.ipynb``), or ``""``."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        text = "\n".join(c.source for c in nbformat.reads(text, as_version=4).cells if c.cell_type == "markdown")
    m = re.search(r"^# (.+)$", text, re.MULTILINE)
    return m[1].strip() if m else ""


def _section(cells: list[Any], chapter: str) -> list[Any]:
    """The cells of the Exercises section, its heading and the prose before its first code cell dropped."""
    out: list[Any] = []
    inside = False
    for cell in cells:
        if cell.cell_type != "markdown":
            if inside:
                out.append(cell)
            continue
        lines = cell.source.splitlines()
        if not inside:
            if EXERCISES_HEADING not in lines:
                continue
            inside, lines = True, lines[lines.index(EXERCISES_HEADING) + 1 :]
        end = next((i for i, line in enumerate(lines) if line.startswith("## ")), None)
        out.append(nbformat.v4.new_markdown_cell("\n".join(lines[:end])))
        if end is not None:
            break
    if not inside:
        raise ConfigError(f"chapters/{chapter}.md: has no {EXERCISES_HEADING!r} section")
    first_code = next((i for i, c in enumerate(out) if c.cell_type == "code"), None)
    if first_code is None or "exercise-setup" not in out[first_code].metadata.get("tags", []):
        raise ConfigError(f"chapters/{chapter}.md: the Exercises section must open with its exercise-setup cell")
    if any(
        _DIRECTIVE.match(t.info.strip()) for c in out[:first_code] for t in _md.parse(c.source) if t.type == "fence"
    ):
        raise ConfigError(
            f"chapters/{chapter}.md: only prose may come between {EXERCISES_HEADING!r} and the setup cell "
            "(the student copy replaces it with its own introduction)"
        )
    return out[first_code:]


def _chapter_intro(where: Published, chapter: str, title: str) -> str:
    return (
        f"*This is the student copy of the exercises of **{title}**, written from `chapters/{chapter}.md` of "
        f"the course [us-east-1, 19–20 October 2025: an executable course]({where.book_url}). Read the "
        f"chapter first: [{title}]({where.page_url(f'chapters/{chapter}.md')}). Run the first two code "
        "cells: the first installs the course where it is missing, the second computes what the exercises "
        "use, the same way the chapter does. Then take the exercises in order, one cell at a time "
        "(Shift+Enter): try each exercise, and predict where it asks you to, before you run the solution "
        "cell under it (Run all would print every answer at once). Exercises are numbered as in the "
        "chapter; each solution's explanation is folded under **Solution**: open it once you have tried. "
        "An explanation that quotes the model's numbers is printed by a `Markdown(` cell whose code is "
        "collapsed, so that the code does not show it.*"
    )


def convert_chapter(
    text: str,
    where: Published,
    *,
    chapter: str,
    anchors: dict[str, str],
    cites: dict[str, str],
    metadata: dict[str, Any] | None = None,
) -> Any:
    """Return the student notebook of one chapter's Exercises section.

    The section's setup cell (tagged ``exercise-setup``) comes right after the install cell; each
    exercise, gated (``exercise-start``) or not, becomes a numbered heading, and its solution's code
    cells follow it under a comment naming the exercise, with the explanation folded under
    **Solution**. Cells the book hides (``remove-cell``: the page's self-checks) are left out.
    MyST-NB's ``glue`` is not a student dependency: a statement ``glue("key", value, ...)`` becomes
    ``key = value``, and a paragraph quoting it with a ``{glue:text}`` role becomes a ``Markdown(f"...")`` cell.

    Args:
        text: the chapter's MyST Markdown source.
        where: the published repository (:func:`labsupport.colab.published`).
        chapter: the chapter's file stem (``the-race``).
        anchors: :func:`glossary_anchors`; cites: :func:`citation_labels`.
        metadata: the notebook's ``kernelspec`` and ``language_info``, as Jupyter saves them (so that
            opening and saving the copy changes nothing); by default the labs' (``labs/00-*.ipynb``).

    Raises:
        ConfigError: for a chapter without a title or an Exercises section that opens with its setup
            cell; an unknown directive, role, glossary term, citation or section; an exercise without
            a grade; a solution of no exercise; a glue key the section does not glue before quoting it.
    """
    from myst_nb.core.read import read_myst_markdown_notebook

    source = read_myst_markdown_notebook(text)
    first = source.cells[0].source if source.cells and source.cells[0].cell_type == "markdown" else ""
    if not first.startswith("# "):
        raise ConfigError(f"chapters/{chapter}.md: the first cell must be the chapter's title, '# ...'")
    title = first[2:].splitlines()[0].strip()
    conv = _ChapterConverter(where, chapter, text, anchors, cites)
    head = [
        nbformat.v4.new_markdown_cell(f"# Exercises: {title}"),
        nbformat.v4.new_markdown_cell(_chapter_intro(where, chapter, title), id="student-copy"),
        nbformat.v4.new_code_cell(student_install_cell(where)),
    ]
    body: list[Any] = []
    question: list[str] | None = None  # the open gated exercise: its option lines and text
    answer: list[str] | None = None  # the open gated solution's text
    label = ""
    for cell in _section(source.cells, chapter):
        if cell.cell_type == "code":
            tags = [t for t in cell.metadata.get("tags", []) if t not in _BOOK_TAGS]
            if _HIDDEN_CODE & set(cell.metadata.get("tags", [])):
                continue
            if question is not None:
                raise ConfigError(f"{conv.lab}: a code cell inside an exercise's text (exercise-start/-end)")
            code = conv.code(cell.source)
            if answer is not None:
                code = (
                    f"# Solution to Exercise {conv.exercises[label]}: try the exercise before you run this cell\n{code}"
                )
            body.append(nbformat.v4.new_code_cell(code, metadata={"tags": tags} if tags else {}))
            continue
        lines = cell.source.splitlines()
        fences = [t for t in _md.parse(cell.source) if t.type == "fence" and _DIRECTIVE.match(t.info.strip())]
        pos = 0
        pieces: list[tuple[str, str, str]] = []  # (kind, text, directive args)
        for t in fences:
            start, end = cast(list[int], t.map)
            m = cast(re.Match[str], _DIRECTIVE.match(t.info.strip()))
            if m["name"] in _GATED:
                pieces.append(("text", "\n".join(lines[pos:start]), ""))
                pieces.append((m["name"], t.content, m["args"].strip()))
                pos = end
        pieces.append(("text", "\n".join(lines[pos:]), ""))
        for kind, piece, args in pieces:
            if kind == "text":
                if question is not None:
                    question.append(piece)
                elif answer is not None:
                    answer.append(piece)
                elif piece.strip():
                    converted_cell = conv.cell(conv.prose(piece.strip("\n")))
                    if converted_cell.cell_type == "code" and re.search(r"^\s*(`{3,}|~{3,})\{solution\}", piece, re.M):
                        raise ConfigError(
                            f"{conv.lab}: a {{solution}} that quotes glued numbers would print unfolded; "
                            "write it as solution-start/-end around the code that glues them"
                        )
                    body.append(converted_cell)
            elif kind in ("exercise-start", "solution-start") and (question is not None or answer is not None):
                raise ConfigError(f"{conv.lab}: {kind} inside an open exercise or solution")
            elif kind == "exercise-start":
                question = [piece.strip("\n")]
            elif kind == "exercise-end":
                if question is None:
                    raise ConfigError(f"{conv.lab}: exercise-end without exercise-start")
                converted = conv.prose(_fenced("exercise", "\n".join(question).strip()))
                heading, _, rest = converted.partition("\n\n")
                if _ROLE.search(rest):  # quotes glued numbers: the heading stays Markdown
                    body += [nbformat.v4.new_markdown_cell(heading), conv.cell(rest.strip("\n"))]
                else:
                    body.append(nbformat.v4.new_markdown_cell(converted.strip("\n")))
                question = None
            elif kind == "solution-start":
                if args not in conv.exercises:
                    raise ConfigError(f"{conv.lab}: solution label must name an exercise above it, got {args!r}")
                label, answer = args, []
            else:  # solution-end
                if answer is None:
                    raise ConfigError(f"{conv.lab}: solution-end without solution-start")
                explanation = "\n\n".join(p.strip("\n") for p in answer if p.strip())
                if explanation:
                    cell = conv.cell(conv.prose(_fenced("solution", explanation, label)))
                    if cell.cell_type == "code":  # its code would show the folded explanation: collapse it
                        # JupyterLab, Notebook 7 and VS Code collapse the input; Colab shows a form's title.
                        cell.source = f"{_FORM_TITLE}\n{cell.source}"
                        cell.metadata["jupyter"] = {"source_hidden": True}
                        cell.metadata["cellView"] = "form"
                    body.append(cell)
                answer = None
    if question is not None or answer is not None:
        raise ConfigError(f"{conv.lab}: an exercise or solution is not closed before the section ends")
    if any(c.cell_type == "code" and _printed_markdown(c.source) is not None for c in body):
        setup = next(c for c in body if c.cell_type == "code")
        setup.source = (
            "from IPython.display import Markdown  # prints the paragraphs that quote numbers\n\n" + setup.source
        )
    for cell in body:
        if cell.cell_type == "code":
            try:
                ast.parse(cell.source)
            except SyntaxError as err:
                raise ConfigError(
                    f"{conv.lab}: a converted cell is not valid Python ({err}): {cell.source[:80]!r}"
                ) from err
    cells = head + body
    for i, cell in enumerate(cells):  # nbformat's ids are random; the committed copy must not change
        cell.id = "student-copy" if i == 1 else f"cell-{i}"
    nb = nbformat.v4.new_notebook(cells=cells)
    if metadata is None:
        lab = nbformat.read(sorted((ROOT / "labs").glob("*.ipynb"))[0], as_version=4)
        metadata = {k: lab.metadata[k] for k in ("kernelspec", "language_info")}
    nb.metadata.update(copy.deepcopy(metadata))
    return nb


def _printed_markdown(source: str) -> str | None:
    """The text a ``Markdown(f\"\"\"...\"\"\")`` cell prints, its values left out; None for other cells."""
    m = re.fullmatch(r'(?:#@title[^\n]*\n)?Markdown\(f"""(?P<body>.*)"""\)', source, re.DOTALL)
    if m is None:
        return None
    text = re.sub(r"(?<!\{)\{[A-Za-z_]\w*(?::[^{}]*)?\}(?!\})", "", m["body"])
    return text.replace("{{", "{").replace("}}", "}").replace('\\"', '"').replace("\\\\", "\\")


def problems(nb: Any) -> list[str]:
    """What would not read right without MyST: leftovers in the Markdown, relative or dead links.

    Each Markdown cell is rendered with markdown-it-py's CommonMark preset; the rendered HTML and
    the source (and the text each ``Markdown(f"...")`` cell prints) are searched for MyST roles,
    directive fences, colon fences, targets, glue or
    substitution placeholders, and links that are neither absolute ``https`` nor in-page.
    """
    found = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and (text := _printed_markdown(cell.source)) is not None:
            found += [f"cell {i} (printed): MyST syntax {m.group(0).strip()!r}" for m in _MYST_LEFTOVERS.finditer(text)]
            continue
        if cell.cell_type != "markdown":
            continue
        html = _md.render(cell.source)
        for where, text in (("source", cell.source), ("rendered", html)):
            for m in _MYST_LEFTOVERS.finditer(text):
                found.append(f"cell {i} ({where}): MyST syntax {m.group(0).strip()!r}")
        for token in _md.parse(cell.source):
            for child in token.children or []:
                href = child.attrs.get("href") if child.type == "link_open" else None
                if href is not None and not (str(href).startswith("https://") or str(href).startswith("#")):
                    found.append(f"cell {i}: link {href!r} is not an absolute https address")
    return found


def _expected(root: Path, where: Published) -> dict[str, str]:
    """File name -> text of every file of ``student/`` that the labs and the setting imply."""
    files = {}
    labs = [(path, nbformat.read(path, as_version=4)) for path in sorted((root / "labs").glob("*.ipynb"))]
    for path, lab in labs:
        files[path.name] = nbformat.writes(convert(lab, where, lab=path.name)) + "\n"
    anchors, cites = glossary_anchors(root), citation_labels(root)
    # The chapters' copies carry the kernel metadata the labs were saved with (read once, here).
    metadata = {k: labs[0][1].metadata[k] for k in ("kernelspec", "language_info")}
    for path in chapters_with_exercises(root):
        text = path.read_text(encoding="utf-8")
        nb = convert_chapter(text, where, chapter=path.stem, anchors=anchors, cites=cites, metadata=metadata)
        files[chapter_notebook_name(path.stem)] = nbformat.writes(nb) + "\n"
    return files


def write_all(root: str | Path = ROOT, *, check: bool = False) -> list[str]:
    """Rewrite ``student/*.ipynb`` from ``labs/`` (or, with ``check``, only list what differs).

    Returns:
        The names of the files that were (or would be) written or removed.
    """
    root = Path(root)
    folder = root / STUDENT_DIR
    expected = _expected(root, published(root))
    stale = [
        name
        for name, text in expected.items()
        if not (folder / name).is_file() or (folder / name).read_text(encoding="utf-8") != text
    ]
    extra = sorted(p.name for p in folder.glob("*.ipynb") if p.name not in expected)
    if not check:
        folder.mkdir(exist_ok=True)
        for name in stale:
            (folder / name).write_text(expected[name], encoding="utf-8")
        for name in extra:
            (folder / name).unlink()
    return stale + extra


#: Packages every Jupyter kernel already has (ipykernel needs them): the install cell never
#: replaces them, so they are not pinned (pinning IPython would swap Colab's own kernel's IPython).
KERNEL_PROVIDED = frozenset({"ipython", "traitlets", "comm"})


def constraints_text() -> str:
    """``student/constraints.txt`` for this environment: labsupport's dependency closure, pinned.

    Walks the installed metadata from ``labsupport`` down (markers evaluated for this Python,
    extras left out), skipping :data:`KERNEL_PROVIDED` and what only they need, and pins each
    package to the version installed here, the one the tests ran with.
    """
    from importlib.metadata import distribution

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    pins: dict[str, str] = {}
    todo = ["labsupport"]
    while todo:
        for line in distribution(todo.pop()).requires or []:
            req = Requirement(line)
            name = canonicalize_name(req.name)
            if (req.marker and not req.marker.evaluate({"extra": ""})) or name in KERNEL_PROVIDED or name in pins:
                continue
            pins[name] = distribution(name).version
            todo.append(name)
    head = (
        "# labsupport's dependencies, pinned to the versions the course's tests run with. Written by\n"
        "# `python -m labsupport.student --freeze`; requirements.txt installs with it, and the\n"
        "# student notebooks' install cell passes it to pip as --constraint. Not pinned: ipython,\n"
        "# traitlets and comm, which the kernel itself provides.\n"
    )
    return head + "".join(f"{name}=={pins[name]}\n" for name in sorted(pins))


def main(argv: list[str] | None = None) -> int:
    """``python -m labsupport.student [--check]``."""
    parser = argparse.ArgumentParser(prog="python -m labsupport.student", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report out-of-date student notebooks; exit 1 if any")
    parser.add_argument("--freeze", action="store_true", help=f"also rewrite {CONSTRAINTS_PATH} from this environment")
    args = parser.parse_args(argv)
    if args.freeze and not args.check:
        (ROOT / CONSTRAINTS_PATH).write_text(constraints_text(), encoding="utf-8")
        print(f"{CONSTRAINTS_PATH}: written")
    changed = write_all(check=args.check)
    verb = "out of date" if args.check else "written"
    for name in changed:
        print(f"{STUDENT_DIR}/{name}: {verb}")
    if not changed:
        print(f"{STUDENT_DIR}/: up to date with labs/ and {CONFIG_FILE}")
    return 1 if (args.check and changed) else 0


# --- Sphinx extension: the build writes student/ and the lab pages' buttons serve it -------------


def _write_student(app: Any) -> None:
    for name in write_all(app.srcdir):
        print(f"labsupport.student: wrote {STUDENT_DIR}/{name}")


def _swap(value: Any, source: str, copy: str) -> Any:
    """Point every launch address at ``student/<copy>`` instead of ``source`` (plain or URL-encoded)."""
    if isinstance(value, dict):
        return {k: _swap(v, source, copy) for k, v in value.items()}
    if isinstance(value, list):
        return [_swap(v, source, copy) for v in value]
    if isinstance(value, str):
        encoded = source.replace("/", "%2F")
        return value.replace(source, f"{STUDENT_DIR}/{copy}").replace(encoded, f"{STUDENT_DIR}%2F{copy}")
    return value


#: The context key that names a page's student copy (``student/<name>.ipynb``); labsupport.book
#: keeps a Markdown page's launch buttons when it is set.
STUDENT_COPY_KEY = "labsupport_student_copy"


def _student_copy(app: Any, pagename: str, context: dict[str, Any]) -> tuple[str, str] | None:
    """``(the page's source, its student copy's file name)``, or None for a page without one."""
    folder, _, stem = pagename.partition("/")
    suffix = context.get("page_source_suffix")
    if folder == "labs" and suffix == ".ipynb":
        source, copy = f"{pagename}.ipynb", f"{stem}.ipynb"
    elif folder == "chapters" and suffix == ".md" and "/" not in stem:
        source, copy = f"{pagename}.md", chapter_notebook_name(stem)
    else:
        return None
    return (source, copy) if (Path(app.srcdir) / STUDENT_DIR / copy).is_file() else None


def _mark_student_copy(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: object) -> None:
    found = _student_copy(app, pagename, context)
    if found:
        context[STUDENT_COPY_KEY] = f"{STUDENT_DIR}/{found[1]}"


def _page_buttons(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: object) -> None:
    """Point a page's launch buttons, and its notebook download, at its student copy.

    A lab's copy replaces both downloads (its source is the MyST notebook); a chapter keeps its
    Markdown source download, and its notebook download becomes the copy of its exercises.
    """
    found = _student_copy(app, pagename, context)
    buttons = context.get("header_buttons")
    if not found or not isinstance(buttons, list):
        return
    source, copy = found
    download = context["pathto"](f"{STUDENT_DIR}/{copy}", 1)
    replaced = (
        ("download-notebook-button",)
        if source.endswith(".md")
        else (
            "download-source-button",
            "download-notebook-button",
        )
    )
    for i, button in enumerate(buttons):
        if isinstance(button, dict) and button.get("label") == "launch-buttons":
            buttons[i] = _swap(button, source, copy)
        if isinstance(button, dict) and button.get("label") == "download-buttons":
            for item in button.get("buttons", []):
                if isinstance(item, dict) and item.get("label") in replaced:
                    item["url"] = download
                    if source.endswith(".md"):
                        item.update(text=".ipynb (exercises)", tooltip="The chapter's exercises as a notebook")


def _copy_student(app: Any, exception: Exception | None) -> None:
    if exception is None and app.builder.format == "html":
        target = Path(app.outdir) / STUDENT_DIR
        target.mkdir(exist_ok=True)
        for path in (Path(app.srcdir) / STUDENT_DIR).glob("*"):
            if path.suffix in (".ipynb", ".txt"):
                shutil.copy2(path, target / path.name)


def setup(app: Any) -> dict[str, object]:
    """Register the extension with Sphinx (called by Sphinx; not for direct use)."""
    app.connect("builder-inited", _write_student)
    # Before labsupport.book's page filter (900), which keeps a marked page's launch buttons ...
    app.connect("html-page-context", _mark_student_copy, priority=800)
    # ... and after it and the book theme's buttons (priority 501).
    app.connect("html-page-context", _page_buttons, priority=950)
    app.connect("build-finished", _copy_student)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "0.1"}


if __name__ == "__main__":
    sys.exit(main())
