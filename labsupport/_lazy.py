"""A package's public names, each imported from its module when first used (PEP 562).

``labsupport.charts`` and ``labsupport.widgets`` export every chart and every lab's panel, and each
of their modules imports its model. Imported eagerly, a learner's first ``import labsupport.charts,
labsupport.widgets`` loaded every model of the course (the chain, the game, the model checker) for a
lab that shows one. With :func:`lazy_exports`, a package imports a module the first time one of its
names is used; a test checks that the names a package declares here are the ones it imports under
``if TYPE_CHECKING:`` (what mypy, the import-graph test and a reader see).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, tuple[str, ...]]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose ``exports`` map a module to its public names.

    Args:
        package: the package's dotted name (``"labsupport.charts"``).
        exports: module name within the package (``"dwfm"``) -> the names it gives the package.

    Returns:
        ``(__getattr__, __dir__)``: the first imports the name's module, keeps the value in the
        package's namespace (so the next use is an ordinary lookup) and returns it; the second lists
        the package's names, those not yet imported included.
    """
    where = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        vars(sys.modules[package])[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__
