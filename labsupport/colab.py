"""The first code cell of every lab: install the course where it is missing (Colab, a fresh JupyterHub).

Scenario: a reader presses a lab's Colab or JupyterHub launch button. The notebook opens in a kernel
that has never seen this repository, so ``import labsupport`` would fail. The cell below, the same
in every lab, installs the course package from the repository named in ``_config.yml`` (plus
MyST-NB, whose ``glue`` the labs call), and does nothing at all where ``labsupport`` is already
importable: the course's own environment, Binder (it installs ``requirements.txt``), the book build
and CI. It is tagged ``remove-cell``, so the built book does not show it.

Covers: launch buttons of issue 8 ("a lab opened in Colab or on a fresh JupyterHub installs what it
needs in its first cell").

::

    launch button ──> kernel ──> import labsupport ──ok──> (nothing)
                                        │
                                        └─ ModuleNotFoundError ──> %pip install "labsupport @ git+URL@BRANCH"

``tests/test_colab.py`` checks that every ``labs/*.ipynb`` starts with exactly :data:`INSTALL_CELL`
and that :data:`REPOSITORY_URL` and :data:`BRANCH` match ``_config.yml``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BRANCH", "INSTALL_CELL", "INSTALL_CELL_TAGS", "REPOSITORY_URL", "install_cell"]

#: The course repository, as ``repository.url`` in ``_config.yml`` (a test keeps the two equal).
REPOSITORY_URL = "https://github.com/us-east-1-course/oct-2025-outage"
#: The branch that the launch buttons open, as ``repository.branch`` in ``_config.yml``.
BRANCH = "main"

#: The source of the first code cell of every lab. Edit it here only, then update the labs.
INSTALL_CELL = f"""\
# Colab or a fresh JupyterHub: install the course package. This cell does nothing where
# `labsupport` is already importable (the course's environment, Binder, the book build).
try:
    import labsupport  # noqa: F401
except ModuleNotFoundError:
    %pip install --quiet "labsupport @ git+{REPOSITORY_URL}@{BRANCH}" "myst-nb>=1,<2"
    import importlib, site, sys
    site.addsitedir(site.getusersitepackages())  # where pip puts it when site-packages is read-only
    importlib.invalidate_caches()
    if "google.colab" in sys.modules:  # ipywidgets 8 needs Colab's custom widget manager
        from google.colab import output
        output.enable_custom_widget_manager()"""

#: The cell's tags: hidden in the static book (it has nothing to show there).
INSTALL_CELL_TAGS: tuple[str, ...] = ("remove-cell",)


def install_cell() -> Any:
    """Return :data:`INSTALL_CELL` as a clean nbformat v4 code cell (no outputs, no execution count).

    For notebook generator scripts: insert it right after a lab's title cell.

    Returns:
        An ``nbformat.NotebookNode`` code cell tagged with :data:`INSTALL_CELL_TAGS`.

    Raises:
        ModuleNotFoundError: if ``nbformat`` (part of Jupyter) is not installed.
    """
    import nbformat

    return nbformat.v4.new_code_cell(INSTALL_CELL, metadata={"tags": list(INSTALL_CELL_TAGS)})
