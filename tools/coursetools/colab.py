"""The Colab cell: where the course is published, and the install cells that follow from it.

Scenario: a reader presses a lab's Colab or JupyterHub launch button. The notebook opens in a kernel
that has never seen this repository, so ``import labsupport`` would fail. The launch buttons open
the lab's *student copy* (``student/*.ipynb``, written by :mod:`coursetools.student`), whose first
code cell installs the course package from the published repository with the exact dependency
versions the course is tested with (``student/constraints.txt``), and nothing else. Where
``labsupport`` is already importable (the course's environment, Binder, a hub image built from the
course, the book build, CI) the cell does nothing.

One setting holds the published address: ``repository.url`` (and ``repository.branch``) in
``_config.yml``. Everything else is derived from it by :class:`Published`: the book's address (a
GitHub Pages site), the ``pip`` requirement, the constraints file's raw address, the launch buttons
(Jupyter Book reads the same two keys) and the nbgitpuller links of the instructor guide.

Covers: the launch buttons of every lab, and one setting for the published address, from which a
pinned, tested install follows.

::

    _config.yml repository.url ──> Published ──> book_url          (student notebooks' links)
                                            ├──> pip_requirement   (student install cell)
                                            ├──> constraints_url   (student install cell)
                                            └──> nbgitpuller_link  (instructor guide)

The labs themselves (``labs/*.ipynb``) are the sources of the book and run only where the course is
installed; their first code cell, :data:`LAB_INSTALL_CELL`, holds no address: it tells a reader who
opened a source notebook elsewhere to open the student copy. ``tests/book/test_colab.py`` checks both
cells.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlencode

from labsupport.errors import ConfigError

from .repository import CONFIG_FILE, course_root

__all__ = [
    "CONFIG_FILE",
    "CONSTRAINTS_PATH",
    "INSTALL_CELL_TAGS",
    "LAB_INSTALL_CELL",
    "Published",
    "install_cell",
    "published",
    "student_install_cell",
]

#: The pinned dependency set that the student install cell installs with (relative to the root).
CONSTRAINTS_PATH = "student/constraints.txt"

_GITHUB = re.compile(
    r"^https://github\.com/(?P<owner>[A-Za-z0-9][A-Za-z0-9-]{0,38})/(?P<name>[A-Za-z0-9._-]{1,100})/?$"
)
_BRANCH = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$")


@dataclass(frozen=True, kw_only=True)
class Published:
    """The published repository, and every address derived from it.

    Args:
        repository_url: ``https://github.com/<owner>/<name>``, as ``repository.url`` in ``_config.yml``.
        branch: the branch the launch buttons open, as ``repository.branch``.

    Raises:
        ConfigError: if the address is not a GitHub repository address or the branch name is empty
            or unusual (Colab opens notebooks from GitHub, and the book is published on GitHub Pages).
    """

    repository_url: str
    branch: str = "main"

    def __post_init__(self) -> None:
        if not isinstance(self.repository_url, str) or not _GITHUB.match(self.repository_url):
            raise ConfigError(
                f"repository.url must be a GitHub repository address https://github.com/<owner>/<name>, "
                f"got {self.repository_url!r}"
            )
        if not isinstance(self.branch, str) or not _BRANCH.match(self.branch):
            raise ConfigError(
                f"repository.branch must be a git branch name (letters, digits, . _ / -), got {self.branch!r}"
            )
        object.__setattr__(self, "repository_url", self.repository_url.rstrip("/"))

    @property
    def owner(self) -> str:
        """The GitHub account or organisation."""
        return _GITHUB.match(self.repository_url)["owner"]  # type: ignore[index]

    @property
    def name(self) -> str:
        """The repository's name."""
        return _GITHUB.match(self.repository_url)["name"]  # type: ignore[index]

    @property
    def book_url(self) -> str:
        """The published book (GitHub Pages of the repository), ending in ``/``."""
        return f"https://{self.owner.lower()}.github.io/{self.name}/"

    @property
    def pip_requirement(self) -> str:
        """The requirement that installs the course package from the repository's branch."""
        return f"labsupport @ git+{self.repository_url}@{self.branch}"

    @property
    def constraints_url(self) -> str:
        """The raw address of :data:`CONSTRAINTS_PATH` on the published branch."""
        return f"https://raw.githubusercontent.com/{self.owner}/{self.name}/{self.branch}/{CONSTRAINTS_PATH}"

    def page_url(self, path: str) -> str:
        """The book's page for a source file (``chapters/x.md`` or ``labs/x.ipynb``), fragment kept."""
        path, _, fragment = path.partition("#")
        stem = re.sub(r"\.(md|ipynb)$", "", path)
        return f"{self.book_url}{stem}.html" + (f"#{fragment}" if fragment else "")

    def nbgitpuller_link(self, hub_url: str, path: str, *, interface: str = "lab") -> str:
        """A link that clones this repository on the hub ``hub_url`` and opens ``path`` in it."""
        query = urlencode(
            {"repo": self.repository_url, "branch": self.branch, "urlpath": f"{interface}/tree/{self.name}/{path}"}
        )
        return f"{hub_url.rstrip('/')}/hub/user-redirect/git-pull?{query}"


def published(root: str | Path | None = None) -> Published:
    """Read the one setting, ``repository.url`` and ``repository.branch``, from ``_config.yml``.

    Args:
        root: the repository's root folder; by default the current directory (:func:`course_root`).

    Raises:
        ConfigError: if the folder has no ``_config.yml`` or its ``repository`` section is not a
            valid GitHub address and branch.
    """
    import yaml

    path = course_root(root) / CONFIG_FILE
    repository = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("repository") or {}
    # Published checks both values (a missing url is None, refused there by name).
    return Published(repository_url=cast(str, repository.get("url")), branch=repository.get("branch", "main"))


#: The first code cell of every lab in ``labs/``. It holds no address on purpose (see the module doc).
LAB_INSTALL_CELL = """\
# This is the course's source of this lab: it runs where the course is installed (the README's
# set-up, Binder, the book build). In Colab, VS Code or on a JupyterHub, open the student copy
# instead (student/ in the repository, or the launch buttons on the lab's page): it installs the course.
try:
    import labsupport  # noqa: F401
except ModuleNotFoundError as missing:
    raise ModuleNotFoundError(
        "labsupport is not installed here: open this lab's student copy (the student/ folder of the "
        "course repository, or a launch button on the lab's page), whose first cell installs it"
    ) from missing"""

#: The tags of the labs' install cell: hidden in the static book (it has nothing to show there).
INSTALL_CELL_TAGS: tuple[str, ...] = ("remove-cell",)


#: The modules each extra of the package brings, which a student copy that needs it imports first.
_EXTRA_MODULES: dict[str, tuple[str, ...]] = {"grading": ("otter",)}


def student_install_cell(where: Published, *, extra: str | None = None) -> str:
    """The first code cell of every student notebook, for the repository ``where``.

    Args:
        where: the published repository.
        extra: an optional extra of the package to install with it (``"grading"`` for a graded
            assignment's copy, which needs otter-grader), or ``None``.

    Raises:
        ConfigError: ``extra`` is not a bare name (letters, digits, ``-`` and ``_``).
    """
    requirement, imports = where.pip_requirement, "labsupport"
    if extra is not None:
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]{0,39}", extra):
            raise ConfigError(f"extra must be a bare package extra name, got {extra!r}")
        requirement = requirement.replace("labsupport @", f"labsupport[{extra}] @", 1)
        # The course installed without the extra (the README's install) must not skip it.
        imports = ", ".join(("labsupport", *_EXTRA_MODULES.get(extra, ())))
    return f"""\
# Colab, VS Code or a fresh JupyterHub: install the course package, with the exact dependency
# versions the course is tested with ({CONSTRAINTS_PATH}) and nothing else. Where `labsupport`
# is already importable (the course's environment, Binder, a hub image of the course), it does nothing.
try:
    import {imports}  # noqa: F401
except ModuleNotFoundError:
    %pip install --quiet --constraint {where.constraints_url} "{requirement}"
    import importlib, site, sys
    site.addsitedir(site.getusersitepackages())  # where pip puts it when site-packages is read-only
    importlib.invalidate_caches()
    if "google.colab" in sys.modules:  # ipywidgets 8 needs Colab's custom widget manager
        from google.colab import output
        output.enable_custom_widget_manager()"""


def install_cell() -> Any:
    """Return :data:`LAB_INSTALL_CELL` as a clean nbformat v4 code cell (no outputs, no execution count).

    For notebook generator scripts: insert it right after a lab's title cell.

    Raises:
        ModuleNotFoundError: if ``nbformat`` (part of Jupyter) is not installed.
    """
    import nbformat

    return nbformat.v4.new_code_cell(LAB_INSTALL_CELL, metadata={"tags": list(INSTALL_CELL_TAGS)})
