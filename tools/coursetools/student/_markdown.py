"""Plain CommonMark from the book's MyST: directives, links, and the check that nothing is left.

:class:`Converter` turns one page's Markdown into text any front end renders: an ``{exercise}``
becomes a numbered heading, a ``{solution}`` a closed ``<details>`` block, an admonition a block
quote, and a relative link an absolute one into the published book. :func:`problems` renders a
converted notebook with markdown-it-py's CommonMark preset and lists what would still show as raw
MyST or a dead link.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any, cast

from markdown_it import MarkdownIt

from labsupport.errors import ConfigError

from ..colab import Published
from ..repository import course_root

__all__ = [
    "BOOK_TAGS",
    "DIRECTIVE",
    "STUDENT_DIR",
    "Converter",
    "convert_markdown",
    "md",
    "printed_markdown",
    "problems",
]

#: Where the student notebooks live, relative to the repository root.
STUDENT_DIR = "student"
DIRECTIVE = re.compile(r"^\{(?P<name>[A-Za-z][\w-]*)\}\s*(?P<args>.*)$")
_OPTION = re.compile(r"^:(?P<key>[\w-]+):\s*(?P<value>.*)$")
_GRADE = re.compile(r"^\*\*\((?P<grade>[^)]+)\)\*\*\s*")
# MyST syntax that a CommonMark renderer would print as text: roles, directives, colon fences,
# targets, and glue or substitution placeholders.
_MYST_LEFTOVERS = re.compile(
    r"(?<!`)\{[A-Za-z][\w:.-]*\}`|^\s*(?:```+|~~~+)\s*\{|^\s*:::|^\s*\([\w-]+\)=\s*$|\{\{|\bglue\b",
    re.MULTILINE,
)
#: Cell tags that only the book reads; a student notebook drops them.
BOOK_TAGS = frozenset({"remove-cell", "remove-input", "remove-output", "hide-cell", "hide-input", "hide-output"})
md = MarkdownIt("commonmark")


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


class Converter:
    """Converts one lab's Markdown cells, numbering its exercises in order.

    ``folder`` is where the page lives (``labs`` or ``chapters``): relative links resolve from it,
    and must name a page in the course repository ``root`` (:func:`~coursetools.repository.course_root`:
    by default the current directory).
    """

    def __init__(
        self,
        where: Published,
        lab: str,
        folder: str = "labs",
        *,
        fold_solutions: bool = True,
        root: str | Path | None = None,
    ) -> None:
        self.where, self.lab, self.folder = where, lab, folder
        self.root = course_root(root)
        #: A solution becomes a closed ``<details>`` block; without folding, a block quote
        #: titled with its exercise (a solutions notebook shows them open).
        self.fold_solutions = fold_solutions
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
            if not self.fold_solutions:
                return _quote(f"Solution to Exercise {self.exercises[args.strip()]}", body)
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
        if not re.match(r"^(chapters|labs)/[\w/-]+\.(md|ipynb)$", target) or not (self.root / target).is_file():
            raise ConfigError(f"{self.lab}: a relative link must point at a chapter or lab of the book, got {href!r}")
        return self.where.page_url(target + (f"#{fragment}" if fragment else ""))

    def markdown(self, text: str) -> str:
        """Replace every directive fence, then every relative link, of one piece of Markdown."""
        lines = text.splitlines()
        fences = [t for t in md.parse(text) if t.type == "fence" and DIRECTIVE.match(t.info.strip())]
        # Converted top down (exercises are numbered in order), replaced bottom up (line numbers hold).
        done = [
            (cast(list[int], t.map), self.directive(m["name"], m["args"], t.content))
            for t in fences
            if (m := DIRECTIVE.match(t.info.strip()))
        ]
        for (start, end), replacement in reversed(done):
            before = [""] if start > 0 and lines[start - 1].strip() else []
            after = [""] if end < len(lines) and lines[end].strip() else []
            lines[start:end] = before + replacement.splitlines() + after
        out = "\n".join(lines)
        hrefs = {
            str(t.attrs["href"])
            for tok in md.parse(out)
            if tok.type == "inline"
            for t in tok.children or []
            if t.type == "link_open"
        }
        for href in sorted(hrefs, key=len, reverse=True):
            new = self.link(str(href))
            if new != href:
                out = out.replace(f"]({href})", f"]({new})")
        return out


def convert_markdown(text: str, where: Published, *, lab: str = "lab", root: str | Path | None = None) -> str:
    """Convert one Markdown cell's source (directives and relative links) to plain CommonMark.

    ``root`` is the course repository whose pages the links must name (by default the current directory).
    """
    return Converter(where, lab, root=root).markdown(text)


def printed_markdown(source: str) -> str | None:
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
        if cell.cell_type == "code" and (text := printed_markdown(cell.source)) is not None:
            found += [f"cell {i} (printed): MyST syntax {m.group(0).strip()!r}" for m in _MYST_LEFTOVERS.finditer(text)]
            continue
        if cell.cell_type != "markdown":
            continue
        html = md.render(cell.source)
        for where, text in (("source", cell.source), ("rendered", html)):
            for m in _MYST_LEFTOVERS.finditer(text):
                found.append(f"cell {i} ({where}): MyST syntax {m.group(0).strip()!r}")
        for token in md.parse(cell.source):
            for child in token.children or []:
                href = child.attrs.get("href") if child.type == "link_open" else None
                if href is not None and not (str(href).startswith("https://") or str(href).startswith("#")):
                    found.append(f"cell {i}: link {href!r} is not an absolute https address")
    return found
