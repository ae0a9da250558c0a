"""The course repository a command works on: its root folder, named at run time and checked.

Nothing in ``coursetools`` finds the repository from where its own files are installed (an
installed ``coursetools`` may sit anywhere). A command takes the root from its ``--root`` option, a
function from its ``root`` argument, and the Sphinx extensions from the book's source folder; by
default it is the current directory. :func:`course_root` checks that the folder holds the book's
configuration (:data:`CONFIG_FILE`) and says how to name the right one when it does not.
"""

from __future__ import annotations

from pathlib import Path

from labsupport.errors import ConfigError

__all__ = ["CONFIG_FILE", "course_root"]

#: The book's configuration file, at the repository root: it marks the root, and holds the one
#: setting of where the course is published (:func:`coursetools.colab.published`).
CONFIG_FILE = "_config.yml"


def course_root(root: str | Path | None = None) -> Path:
    """The course repository's root folder: ``root``, or the current directory, made absolute.

    Args:
        root: the folder (a path string or :class:`~pathlib.Path`), or ``None`` for the current directory.

    Returns:
        The folder, resolved.

    Raises:
        ConfigError: the folder holds no :data:`CONFIG_FILE` (it is not the repository's root).
    """
    folder = (Path.cwd() if root is None else Path(root)).resolve()
    if not (folder / CONFIG_FILE).is_file():
        where = "the current directory" if root is None else "root"
        raise ConfigError(
            f"{where} must be the course repository's root folder (the one with {CONFIG_FILE}), got {folder}, "
            f"which has no {CONFIG_FILE}: run the command from the repository's root or name it (--root DIR)"
        )
    return folder
