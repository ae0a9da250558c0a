"""The student-copy writer: each lab, and each chapter's exercises, as a notebook that reads right without MyST.

Scenario: a student opens a lab in Colab, VS Code, Jupyter Notebook 7 without jupyterlab-myst, or
downloads it from the book. The labs' Markdown holds MyST directives (``{exercise}``,
``{solution}``, ``{admonition}``, ``{note}``) and relative links to the book's Markdown sources,
which those front ends show as raw text and dead links. :func:`convert` writes the same lab in
plain CommonMark and HTML:

* an exercise becomes a numbered heading, ``### Exercise 1 (Simple, predict then run)``, followed by
  the lab's answer cell (``answer_1 = {...}`` with ``...`` to replace) and the cell that runs the
  exercise's public check (:mod:`labsupport.exercises`);
* the solution (its code and its folded explanation) leaves the copy for the lab's solutions
  notebook, ``student/<lab>-solutions.ipynb`` (:func:`convert_solutions`), and a line in its place
  points there and at the lab's page, where it is folded;
* an admonition or note becomes a block quote with a bold title;
* a relative link (glossary term, chapter, citation, another lab) points at the published book's
  page, derived from ``repository.url`` in ``_config.yml`` (:class:`coursetools.colab.Published`);
* the cells that print the numbers (``Markdown(f"...")``) stay, with their code visible;
* the first code cell installs the course from the published repository, pinned
  (:func:`coursetools.colab.student_install_cell`); book-only tags and metadata are dropped.

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
                    └─convert_solutions──> student/NN-x-solutions.ipynb │
    chapters/x.md ──convert_chapter──> student/chapter-x.ipynb          │
                                                                       │
        jupyter-book build ────────────────────────────────────────────┴──> _build/html/student/

Command line: ``python -m coursetools.student`` rewrites ``student/`` of the course repository in
the current directory (``--root DIR`` names another; ``--check`` only reports; ``--freeze`` also
rewrites ``student/constraints.txt`` from this environment).
The book build does the same (this module is a Sphinx extension too) and points the download and
launch buttons of each lab page at the student copy. ``tests/book/test_student.py`` fails when
``student/`` is out of date with the labs.

Modules: ``_markdown`` (MyST to CommonMark, :func:`problems`), ``_labs`` (a lab's copy and its
solutions notebook), ``_chapter_parts`` and ``_chapters`` (a chapter's exercises), ``_files``
(``student/`` as a whole, and the pinned constraints); this one holds the command line and the
Sphinx extension.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path
from typing import Any

from labsupport.errors import ConfigError

from ..colab import CONFIG_FILE, CONSTRAINTS_PATH
from ..repository import course_root
from ._chapter_parts import (
    EXERCISES_HEADING,
    chapter_notebook_name,
    chapters_with_exercises,
    citation_labels,
    glossary_anchors,
    term_anchor,
)
from ._chapters import convert_chapter
from ._files import KERNEL_PROVIDED, constraints_text, write_all
from ._labs import convert, convert_solutions, solutions_notebook_name
from ._markdown import STUDENT_DIR, convert_markdown, problems

__all__ = [
    "EXERCISES_HEADING",
    "KERNEL_PROVIDED",
    "STUDENT_COPY_KEY",
    "STUDENT_DIR",
    "chapter_notebook_name",
    "chapters_with_exercises",
    "citation_labels",
    "constraints_text",
    "convert",
    "convert_chapter",
    "convert_markdown",
    "convert_solutions",
    "glossary_anchors",
    "main",
    "problems",
    "setup",
    "solutions_notebook_name",
    "term_anchor",
    "write_all",
]


def main(argv: list[str] | None = None) -> int:
    """``python -m coursetools.student [--root DIR] [--check] [--freeze]``; exits 2 naming a wrong root."""
    parser = argparse.ArgumentParser(prog="python -m coursetools.student", description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=None, help="the course repository's root folder (default: the current one)")
    parser.add_argument("--check", action="store_true", help="only report out-of-date student notebooks; exit 1 if any")
    parser.add_argument("--freeze", action="store_true", help=f"also rewrite {CONSTRAINTS_PATH} from this environment")
    args = parser.parse_args(argv)
    try:
        root = course_root(args.root)
    except ConfigError as err:
        parser.error(str(err))
    if args.freeze and not args.check:
        (root / CONSTRAINTS_PATH).write_text(constraints_text(), encoding="utf-8")
        print(f"{CONSTRAINTS_PATH}: written")
    changed = write_all(root, check=args.check)
    verb = "out of date" if args.check else "written"
    for name in changed:
        print(f"{STUDENT_DIR}/{name}: {verb}")
    if not changed:
        print(f"{STUDENT_DIR}/: up to date with labs/ and {CONFIG_FILE}")
    return 1 if (args.check and changed) else 0


# --- Sphinx extension: the build writes student/ and the lab pages' buttons serve it -------------


def _write_student(app: Any) -> None:
    for name in write_all(app.srcdir):
        print(f"coursetools.student: wrote {STUDENT_DIR}/{name}")


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


#: The context key that names a page's student copy (``student/<name>.ipynb``); coursetools.book
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
    # Before coursetools.book's page filter (900), which keeps a marked page's launch buttons ...
    app.connect("html-page-context", _mark_student_copy, priority=800)
    # ... and after it and the book theme's buttons (priority 501).
    app.connect("html-page-context", _page_buttons, priority=950)
    app.connect("build-finished", _copy_student)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "0.1"}
