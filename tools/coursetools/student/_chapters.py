"""A chapter's Exercises section as a student notebook (``student/chapter-<chapter>.ipynb``).

The section's setup cell comes first, then each exercise, gated (``exercise-start``/``-end``) or
not, as a numbered heading; each solution's code follows it under a comment naming the exercise,
and its explanation is folded under **Solution**. Glossary terms, citations and in-page references
become links to the published book, and ``glue`` becomes plain variables and ``Markdown(f"...")``
cells (:mod:`._chapter_parts`).
"""

from __future__ import annotations

import ast
import copy
import posixpath
import re
from pathlib import Path
from typing import Any, cast

import nbformat

from labsupport.errors import ConfigError

from ..colab import Published, student_install_cell
from ._chapter_parts import (
    EXERCISES_HEADING,
    FORM_TITLE,
    ROLE,
    ROLE_TARGET,
    f_literal,
    fenced,
    glue_as_variables,
    page_title,
)
from ._markdown import BOOK_TAGS, DIRECTIVE, Converter, md, printed_markdown

__all__ = ["ChapterConverter", "convert_chapter"]

_GATED = ("exercise-start", "exercise-end", "solution-start", "solution-end")
_HIDDEN_CODE = {"remove-cell"}


class ChapterConverter(Converter):
    """Converts one chapter's Exercises section: roles, gated exercises and solutions, and glue."""

    def __init__(
        self,
        where: Published,
        chapter: str,
        text: str,
        anchors: dict[str, str],
        cites: dict[str, str],
        *,
        root: str | Path | None = None,
    ):
        super().__init__(where, f"chapters/{chapter}.md", folder="chapters", root=root)
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
        target = ROLE_TARGET.match(body)
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
            found = [c for c in candidates if (self.root / c).is_file()]
            if not found:
                raise ConfigError(f"{self.lab}: {{doc}} must name a chapter or lab of the book, got {key!r}")
            if not target:
                text = page_title(self.root / found[0]) or text
            return f"[{text}]({self.link(posixpath.relpath(found[0], 'chapters'))})"
        raise ConfigError(
            f"{self.lab}: a role in the exercises must be term, cite, ref, doc or glue:text, got {name!r}"
        )

    def prose(self, text: str) -> str:
        """Roles first (a directive's body holds them too), then directives and links."""
        return self.markdown(ROLE.sub(self.role, text))

    def cell(self, text: str) -> Any:
        """A Markdown cell, or, where the text quotes glued numbers, a code cell that prints it."""
        glue_roles = [m for m in ROLE.finditer(text) if m["name"].startswith("glue")]
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
            parts.append(f_literal(text[pos : m.start()]) + "{" + key + (f":{spec}" if spec else "") + "}")
            pos = m.end()
        parts.append(f_literal(text[pos:]))
        return nbformat.v4.new_code_cell('Markdown(f"""' + "".join(parts) + '""")')

    def code(self, source: str) -> str:
        """The code without MyST-NB: ``glue("key", value, display=False)`` becomes ``key = value``."""
        return glue_as_variables(source, self.lab, self.glued, self.bound)


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
    if any(DIRECTIVE.match(t.info.strip()) for c in out[:first_code] for t in md.parse(c.source) if t.type == "fence"):
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


class _Walker:
    """Walks the Exercises section's cells in order, holding the open gated exercise or solution."""

    def __init__(self, conv: ChapterConverter) -> None:
        self.conv = conv
        self.body: list[Any] = []
        self.question: list[str] | None = None  # the open gated exercise: its option lines and text
        self.answer: list[str] | None = None  # the open gated solution's text
        self.label = ""

    def code_cell(self, cell: Any) -> None:
        tags = [t for t in cell.metadata.get("tags", []) if t not in BOOK_TAGS]
        if _HIDDEN_CODE & set(cell.metadata.get("tags", [])):
            return
        if self.question is not None:
            raise ConfigError(f"{self.conv.lab}: a code cell inside an exercise's text (exercise-start/-end)")
        code = self.conv.code(cell.source)
        if self.answer is not None:
            number = self.conv.exercises[self.label]
            code = f"# Solution to Exercise {number}: try the exercise before you run this cell\n{code}"
        self.body.append(nbformat.v4.new_code_cell(code, metadata={"tags": tags} if tags else {}))

    def markdown_cell(self, cell: Any) -> None:
        lines = cell.source.splitlines()
        fences = [t for t in md.parse(cell.source) if t.type == "fence" and DIRECTIVE.match(t.info.strip())]
        pos = 0
        for t in fences:
            start, end = cast(list[int], t.map)
            m = cast(re.Match[str], DIRECTIVE.match(t.info.strip()))
            if m["name"] in _GATED:
                self.text("\n".join(lines[pos:start]))
                self.gate(m["name"], t.content, m["args"].strip())
                pos = end
        self.text("\n".join(lines[pos:]))

    def text(self, piece: str) -> None:
        conv = self.conv
        if self.question is not None:
            self.question.append(piece)
        elif self.answer is not None:
            self.answer.append(piece)
        elif piece.strip():
            converted = conv.cell(conv.prose(piece.strip("\n")))
            if converted.cell_type == "code" and re.search(r"^\s*(`{3,}|~{3,})\{solution\}", piece, re.M):
                raise ConfigError(
                    f"{conv.lab}: a {{solution}} that quotes glued numbers would print unfolded; "
                    "write it as solution-start/-end around the code that glues them"
                )
            self.body.append(converted)

    def gate(self, kind: str, piece: str, args: str) -> None:
        conv = self.conv
        if kind in ("exercise-start", "solution-start") and (self.question is not None or self.answer is not None):
            raise ConfigError(f"{conv.lab}: {kind} inside an open exercise or solution")
        if kind == "exercise-start":
            self.question = [piece.strip("\n")]
        elif kind == "exercise-end":
            if self.question is None:
                raise ConfigError(f"{conv.lab}: exercise-end without exercise-start")
            converted = conv.prose(fenced("exercise", "\n".join(self.question).strip()))
            heading, _, rest = converted.partition("\n\n")
            if ROLE.search(rest):  # quotes glued numbers: the heading stays Markdown
                self.body += [nbformat.v4.new_markdown_cell(heading), conv.cell(rest.strip("\n"))]
            else:
                self.body.append(nbformat.v4.new_markdown_cell(converted.strip("\n")))
            self.question = None
        elif kind == "solution-start":
            if args not in conv.exercises:
                raise ConfigError(f"{conv.lab}: solution label must name an exercise above it, got {args!r}")
            self.label, self.answer = args, []
        else:  # solution-end
            if self.answer is None:
                raise ConfigError(f"{conv.lab}: solution-end without solution-start")
            self.close_solution(self.answer)
            self.answer = None

    def close_solution(self, answer: list[str]) -> None:
        conv = self.conv
        explanation = "\n\n".join(p.strip("\n") for p in answer if p.strip())
        if explanation:
            cell = conv.cell(conv.prose(fenced("solution", explanation, self.label)))
            if cell.cell_type == "code":  # its code would show the folded explanation: collapse it
                # JupyterLab, Notebook 7 and VS Code collapse the input; Colab shows a form's title.
                cell.source = f"{FORM_TITLE}\n{cell.source}"
                cell.metadata["jupyter"] = {"source_hidden": True}
                cell.metadata["cellView"] = "form"
            self.body.append(cell)


def _finish(body: list[Any], lab: str) -> None:
    """Import ``Markdown`` where a cell prints a paragraph, and refuse a converted cell that does not parse."""
    if any(c.cell_type == "code" and printed_markdown(c.source) is not None for c in body):
        setup = next(c for c in body if c.cell_type == "code")
        setup.source = (
            "from IPython.display import Markdown  # prints the paragraphs that quote numbers\n\n" + setup.source
        )
    for cell in body:
        if cell.cell_type == "code":
            try:
                ast.parse(cell.source)
            except SyntaxError as err:
                raise ConfigError(f"{lab}: a converted cell is not valid Python ({err}): {cell.source[:80]!r}") from err


def convert_chapter(
    text: str,
    where: Published,
    *,
    chapter: str,
    anchors: dict[str, str],
    cites: dict[str, str],
    metadata: dict[str, Any] | None = None,
    root: str | Path | None = None,
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
        where: the published repository (:func:`coursetools.colab.published`).
        chapter: the chapter's file stem (``the-race``).
        anchors: :func:`glossary_anchors`; cites: :func:`citation_labels`.
        metadata: the notebook's ``kernelspec`` and ``language_info``, as Jupyter saves them (so that
            opening and saving the copy changes nothing); by default the labs' (``labs/00-*.ipynb``).
        root: the course repository whose pages its links name (by default the current directory).

    Raises:
        ConfigError: for a chapter without a title or an Exercises section that opens with its setup
            cell; an unknown directive, role, glossary term, citation or section; an exercise without
            a grade; a solution of no exercise; a glue key the section does not glue before quoting it;
            a ``root`` that is not the repository's root.
    """
    from myst_nb.core.read import read_myst_markdown_notebook

    source = read_myst_markdown_notebook(text)
    first = source.cells[0].source if source.cells and source.cells[0].cell_type == "markdown" else ""
    if not first.startswith("# "):
        raise ConfigError(f"chapters/{chapter}.md: the first cell must be the chapter's title, '# ...'")
    title = first[2:].splitlines()[0].strip()
    conv = ChapterConverter(where, chapter, text, anchors, cites, root=root)
    head = [
        nbformat.v4.new_markdown_cell(f"# Exercises: {title}"),
        nbformat.v4.new_markdown_cell(_chapter_intro(where, chapter, title), id="student-copy"),
        nbformat.v4.new_code_cell(student_install_cell(where)),
    ]
    walker = _Walker(conv)
    for cell in _section(source.cells, chapter):
        (walker.code_cell if cell.cell_type == "code" else walker.markdown_cell)(cell)
    if walker.question is not None or walker.answer is not None:
        raise ConfigError(f"{conv.lab}: an exercise or solution is not closed before the section ends")
    _finish(walker.body, conv.lab)
    cells = head + walker.body
    for i, cell in enumerate(cells):  # nbformat's ids are random; the committed copy must not change
        cell.id = "student-copy" if i == 1 else f"cell-{i}"
    nb = nbformat.v4.new_notebook(cells=cells)
    if metadata is None:
        lab = nbformat.read(sorted((conv.root / "labs").glob("*.ipynb"))[0], as_version=4)
        metadata = {k: lab.metadata[k] for k in ("kernelspec", "language_info")}
    nb.metadata.update(copy.deepcopy(metadata))
    return nb
