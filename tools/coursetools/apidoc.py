"""The API page's helpers: a Sphinx extension that documents the presets and constants each model exports.

Each model is a package whose ``__init__`` re-exports, from its ``config`` and ``model`` modules,
the presets and constants a learner uses (``race.INCIDENT``, ``dwfm.CLOCK``, ``nlb.EVENT_KINDS``).
Their documentation is a ``#:`` comment where they are defined. Sphinx's autodoc documents a module
attribute only from a comment in the module it documents, so ``automodule:: labsupport.race``
would leave out ``INCIDENT``, and every docstring that refers to :data:`INCIDENT` would point at
nothing. :class:`ExportedDataDocumenter` documents each such name listed in the package's
``__all__`` with the ``#:`` comment from the submodule that defines it.

Enable it in ``_config.yml`` (next to ``sphinx.ext.autodoc`` and ``sphinx.ext.napoleon``)::

    sphinx:
      extra_extensions: [sphinx.ext.autodoc, sphinx.ext.napoleon, coursetools.apidoc]
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys
from types import ModuleType
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import PycodeError
from sphinx.ext.autodoc import DataDocumenter, ModuleDocumenter
from sphinx.pycode import ModuleAnalyzer

__all__ = ["ExportedDataDocumenter", "defining_comment", "setup"]


def defining_comment(package: ModuleType, name: str) -> list[str] | None:
    """The ``#:`` comment of ``name`` in the submodule of ``package`` that defines it, or None.

    Args:
        package: an imported package (``labsupport.race``).
        name: a name the package exports (``"INCIDENT"``).

    Returns:
        The comment's lines, from the first submodule (in ``pkgutil`` order) that assigns ``name``
        with a ``#:`` comment and holds the same object as the package; None if there is none.
    """
    value = getattr(package, name, None)
    for info in pkgutil.iter_modules(getattr(package, "__path__", [])):
        modname = f"{package.__name__}.{info.name}"
        try:
            module = importlib.import_module(modname)
            analyzer = ModuleAnalyzer.for_module(modname)
            analyzer.analyze()
        except (ImportError, PycodeError):
            continue
        comment = analyzer.attr_docs.get(("", name))
        if comment and getattr(module, name, object()) is value:
            return list(comment)
    return None


class ExportedDataDocumenter(DataDocumenter):
    """Documents a constant that a package re-exports in ``__all__``, from its defining comment."""

    objtype = "exporteddata"
    directivetype = "data"
    priority = DataDocumenter.priority + 1

    @classmethod
    def can_document_member(cls, member: Any, membername: str, isattr: bool, parent: Any) -> bool:
        if not isinstance(parent, ModuleDocumenter) or inspect.isroutine(member) or inspect.isclass(member):
            return False
        package = parent.object
        exported = getattr(package, "__all__", ())
        return (
            membername in exported
            and hasattr(package, "__path__")
            and defining_comment(package, membername) is not None
        )

    def get_doc(self) -> list[list[str]] | None:
        package = importlib.import_module(self.modname)
        comment = defining_comment(package, self.objpath[-1])
        return [comment] if comment else []


def _keep_exported_data(app: Sphinx, what: str, name: str, obj: Any, skip: bool, options: Any) -> bool | None:
    """Keep a package's exported constant that autodoc would skip as undocumented (its docstring
    is the ``#:`` comment in another module); leave every other decision to autodoc."""
    if what != "module" or not skip or inspect.isroutine(obj) or inspect.isclass(obj) or inspect.ismodule(obj):
        return None
    for modname, module in list(sys.modules.items()):
        if (
            modname.startswith("labsupport.")
            and hasattr(module, "__path__")
            and name in getattr(module, "__all__", ())
            and getattr(module, name, None) is obj
            and defining_comment(module, name) is not None
        ):
            return False
    return None


def setup(app: Sphinx) -> dict[str, object]:
    """Register the extension with Sphinx (called by Sphinx; not for direct use)."""
    app.setup_extension("sphinx.ext.autodoc")
    app.add_autodocumenter(ExportedDataDocumenter)
    app.connect("autodoc-skip-member", _keep_exported_data)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "0.1"}
