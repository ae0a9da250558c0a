"""The pieces of a chapter's student notebook: names, glossary anchors, citations and glue.

A chapter quotes its numbers with MyST-NB's ``glue``, a book dependency that a student's notebook
does not have: :func:`glue_as_variables` turns each ``glue("key", value, display=False)`` statement
of the chapter's exercise code into ``key = value``, and a ``{glue:text}`` role becomes a field of a
``Markdown(f"...")`` cell that prints the paragraph.
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re
from pathlib import Path
from typing import cast

import nbformat

from labsupport.errors import ConfigError

from ..repository import course_root

__all__ = [
    "EXERCISES_HEADING",
    "FORM_TITLE",
    "ROLE",
    "ROLE_TARGET",
    "bound_names",
    "chapter_notebook_name",
    "chapters_with_exercises",
    "citation_labels",
    "f_literal",
    "fenced",
    "glossary_anchors",
    "glue_as_variables",
    "page_title",
    "term_anchor",
]

#: The heading of a chapter's section that becomes its student notebook.
EXERCISES_HEADING = "## Exercises"
ROLE = re.compile(r"(?<!`)\{(?P<name>[a-z][\w:-]*)\}`(?P<body>[^`]+)`")
ROLE_TARGET = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>\s*$", re.DOTALL)


def chapter_notebook_name(chapter: str) -> str:
    """The student notebook of ``chapters/<chapter>.md``: ``chapter-<chapter>.ipynb``."""
    return f"chapter-{Path(chapter).stem}.ipynb"


def chapters_with_exercises(root: str | Path | None = None) -> list[Path]:
    """The chapters (``chapters/*.md``) of the course repository ``root`` (by default the current
    directory) that have an Exercises section, sorted by name."""
    pages = sorted((course_root(root) / "chapters").glob("*.md"))
    return [p for p in pages if f"\n{EXERCISES_HEADING}\n" in p.read_text(encoding="utf-8")]


def glossary_anchors(root: str | Path | None = None) -> dict[str, str]:
    """Each term of ``chapters/glossary.md``, casefolded, -> the id Sphinx gives it (``term-DNS-Planner``).

    Sphinx matches ``{term}`` roles to glossary terms ignoring case; the id is ``term-`` and the term
    as written, other characters as hyphens.

    Args:
        root: the course repository (by default the current directory).

    Raises:
        OSError: if ``chapters/glossary.md`` cannot be read.
        ConfigError: if it holds no ``{glossary}`` directive, or ``root`` is not the repository's root.
    """
    text = (course_root(root) / "chapters" / "glossary.md").read_text(encoding="utf-8")
    if "```{glossary}" not in text:
        raise ConfigError("chapters/glossary.md must hold a {glossary} directive, got none")
    block = text.split("```{glossary}", 1)[1].split("\n```", 1)[0]
    terms = [line.strip() for line in block.splitlines()[1:] if line.strip() and not line[0].isspace()]
    return {t.casefold(): term_anchor(t) for t in terms}


def term_anchor(term: str) -> str:
    """The id Sphinx gives a glossary term: ``term-`` and the term, other characters as hyphens."""
    return "term-" + re.sub(r"[^0-9A-Za-z]+", "-", term).strip("-")


def citation_labels(root: str | Path | None = None) -> dict[str, str]:
    """Each key of ``references.bib`` -> its author-year label (``Howard 2025``, ``Bronson et al. 2021``).

    An entry without author or editor is labelled by its title; without a year, by the name alone.

    Args:
        root: the course repository (by default the current directory).

    Raises:
        OSError: if ``references.bib`` cannot be read; pybtex's ``PybtexError`` if it does not parse.
        ConfigError: ``root`` is not the repository's root.
    """
    from pybtex.database import parse_file

    labels = {}
    for key, entry in parse_file(str(course_root(root) / "references.bib")).entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        names = [" ".join(p.last_names or p.first_names).replace("{", "").replace("}", "") for p in people]
        if not names:
            who = str(entry.fields.get("title", key)).replace("{", "").replace("}", "")
        else:
            who = " and ".join(names) if len(names) <= 2 else f"{names[0]} et al."
        labels[key] = f"{who} {entry.fields['year']}" if "year" in entry.fields else who
    return labels


#: The first line of a cell that prints a solution's explanation (Colab shows it in place of the code).
FORM_TITLE = "#@title Solution: run this cell to print the explanation with your run's numbers"


def fenced(directive: str, body: str, args: str = "") -> str:
    """``body`` in a ``{directive}`` fence longer than any backtick run inside it (an inner fence stays inner)."""
    ticks = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", body)), default=0))
    return f"{ticks}{{{directive}}}{' ' + args if args else ''}\n{body}\n{ticks}"


def f_literal(text: str) -> str:
    """``text`` as the literal part of a triple-quoted f-string (braces doubled, quotes escaped)."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("{", "{{").replace("}", "}}")


def bound_names(tree: ast.AST) -> set[str]:
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


def page_title(path: Path) -> str:
    """The first ``# `` heading of a chapter (``.md``) or lab (``.ipynb``), or ``""``."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        text = "\n".join(c.source for c in nbformat.reads(text, as_version=4).cells if c.cell_type == "markdown")
    m = re.search(r"^# (.+)$", text, re.MULTILINE)
    return m[1].strip() if m else ""


_ONLY_GLUE = "the exercises may take only glue from myst_nb, as 'from myst_nb import glue'"


def _glue_edit(node: ast.stmt, source: str, lab: str, glued: set[str], shares_a_line: bool) -> list[str] | None:
    """What replaces one statement of an exercise's code: ``[]`` (drop it), ``["key = value"]``, or
    None (keep it). A glue call becomes an assignment, and its key joins ``glued``."""
    if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "myst_nb" for a in node.names):
        raise ConfigError(f"{lab}: {_ONLY_GLUE}")
    if isinstance(node, ast.ImportFrom) and node.module == "myst_nb":
        if [(a.name, a.asname) for a in node.names] != [("glue", None)] or shares_a_line:
            raise ConfigError(f"{lab}: {_ONLY_GLUE}")
        return []
    if not (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "glue"
    ):
        return None
    call = node.value
    key = call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) else None
    if not isinstance(key, str) or not key.isidentifier() or len(call.args) != 2 or shares_a_line:
        raise ConfigError(
            f"{lab}: glue must be called as glue('key', value, display=False), alone on its lines, "
            f"got line {node.lineno}"
        )
    if keyword.iskeyword(key) or hasattr(builtins, key) or key in glued or key == "Markdown":
        raise ConfigError(
            f"{lab}: the glue key {key!r} becomes a variable of the student copy, so it must be a "
            "new name: not a keyword, a builtin, Markdown or a key glued before"
        )
    glued.add(key)
    return [f"{key} = {cast(str, ast.get_source_segment(source, call.args[1]))}"]


def glue_as_variables(source: str, lab: str, glued: set[str], bound: set[str]) -> str:
    """The code without MyST-NB: ``glue("key", value, display=False)`` becomes ``key = value``.

    Args:
        source: one code cell of a chapter's Exercises section.
        lab: the chapter's path, for messages.
        glued: the keys glued so far; this cell's keys are added.
        bound: every other name the section's code binds so far; this cell's names are added.

    Raises:
        ConfigError: code that does not parse, an import of anything else from myst_nb, a glue call
            that is not a statement of its own, or a key that clashes with a name.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError as err:
        raise ConfigError(f"{lab}: an exercise's code cell must be plain Python, got {err}") from err
    lines = source.splitlines()
    spans = [(node.lineno, cast(int, node.end_lineno)) for node in tree.body]
    edits: list[tuple[int, int, list[str]]] = []
    for node in tree.body:
        end = cast(int, node.end_lineno)
        shares_a_line = sum(1 for a, b in spans if a <= end and node.lineno <= b) > 1
        new = _glue_edit(node, source, lab, glued, shares_a_line)
        if new is not None:
            edits.append((node.lineno, end, new))
    for start, end, new in reversed(edits):
        blank_around = start > 1 and end < len(lines) and not lines[start - 2].strip() and not lines[end].strip()
        lines[start - 1 : end + (1 if blank_around and not new else 0)] = new
    out = "\n".join(lines).strip("\n")
    if any(isinstance(n, ast.Name) and n.id == "glue" for n in ast.walk(ast.parse(out))):
        raise ConfigError(f"{lab}: glue may only be called as a statement of its own in the exercises")
    bound |= bound_names(tree)  # the chapter's code, where a glue call binds nothing
    clash = sorted(bound & glued)
    if clash:
        raise ConfigError(
            f"{lab}: the glue keys {clash} are also names the exercises' code binds; the student copy "
            "binds each glue key to a variable of its name, so give the key a name of its own"
        )
    return out
