"""The files of ``student/``: the labs' copies and solutions, the chapters' exercises, the constraints.

Each lab's copy and solutions notebook, each chapter's exercises, and the pinned constraints the
install cell uses.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from ..colab import Published, published
from ..repository import course_root
from ._chapter_parts import chapter_notebook_name, chapters_with_exercises, citation_labels, glossary_anchors
from ._chapters import convert_chapter
from ._labs import convert, convert_solutions, solutions_notebook_name
from ._markdown import STUDENT_DIR

__all__ = ["KERNEL_PROVIDED", "constraints_text", "expected_files", "write_all"]


def expected_files(root: Path, where: Published) -> dict[str, str]:
    """File name -> text of every notebook of ``student/`` that the labs, chapters and setting imply."""
    files = {}
    labs = [(path, nbformat.read(path, as_version=4)) for path in sorted((root / "labs").glob("*.ipynb"))]
    for path, lab in labs:
        files[path.name] = nbformat.writes(convert(lab, where, lab=path.name, root=root)) + "\n"
        solutions = convert_solutions(lab, where, lab=path.name, root=root)
        files[solutions_notebook_name(path.name)] = nbformat.writes(solutions) + "\n"
    anchors, cites = glossary_anchors(root), citation_labels(root)
    # The chapters' copies carry the kernel metadata the labs were saved with (read once, here).
    metadata = {k: labs[0][1].metadata[k] for k in ("kernelspec", "language_info")}
    for path in chapters_with_exercises(root):
        text = path.read_text(encoding="utf-8")
        nb = convert_chapter(
            text, where, chapter=path.stem, anchors=anchors, cites=cites, metadata=metadata, root=root
        )
        files[chapter_notebook_name(path.stem)] = nbformat.writes(nb) + "\n"
    return files


def write_all(root: str | Path | None = None, *, check: bool = False) -> list[str]:
    """Rewrite ``student/*.ipynb`` from ``labs/`` (or, with ``check``, only list what differs).

    Args:
        root: the course repository (by default the current directory).
        check: only list what differs; write nothing.

    Returns:
        The names of the files that were (or would be) written or removed.

    Raises:
        ConfigError: ``root`` is not the repository's root, or a lab or chapter does not convert.
    """
    root = course_root(root)
    folder = root / STUDENT_DIR
    expected = expected_files(root, published(root))
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
        "# `python -m coursetools.student --freeze`; requirements.txt installs with it, and the\n"
        "# student notebooks' install cell passes it to pip as --constraint. Not pinned: ipython,\n"
        "# traitlets and comm, which the kernel itself provides.\n"
    )
    return head + "".join(f"{name}=={pins[name]}\n" for name in sorted(pins))
