"""Sphinx extension: serve the Vega JavaScript from the book itself, never from a CDN.

At build time it asks ``vl_convert.javascript_bundle()`` (a Python dependency) for one bundle of
Vega, Vega-Lite and Vega-Embed, writes it next to the build output, and adds it to every page as a
script in the page head. The charts' HTML (see :func:`labsupport.charts.render_bundle`) calls the global
``vegaEmbed`` that the bundle defines. Nothing is committed and nothing is fetched.

Enable it in ``_config.yml``::

    sphinx:
      extra_extensions: [labsupport.book]
"""

from __future__ import annotations

import os
from pathlib import Path

import altair as alt
import vl_convert
from sphinx.application import Sphinx

from .charts import BOOK_BUILD_ENV

__all__ = ["BUNDLE_NAME", "setup"]

BUNDLE_NAME = "labsupport-vega.js"
_STAMP = "iife-"  # bump when the way the bundle is written changes


def _vega_lite_version() -> str:
    # Altair 5.5 reports "v5.20.1"; vl-convert wants "5.20"-style minor versions.
    major, minor = alt.SCHEMA_VERSION.lstrip("v").split(".")[:2]
    return f"{major}.{minor}"


def _write_bundle(app: Sphinx) -> None:
    folder = Path(app.doctreedir).parent / "labsupport_static"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / BUNDLE_NAME
    version = _vega_lite_version()
    stamp = folder / "version.txt"
    if not target.exists() or not stamp.exists() or stamp.read_text() != _STAMP + version:
        # Wrapped in a function so that its top-level names cannot clash with other classic scripts.
        bundle = vl_convert.javascript_bundle(vl_version=version)
        target.write_text(f"(function () {{\n{bundle}\n}})();\n", encoding="utf-8")
        stamp.write_text(_STAMP + version)
    app.config.html_static_path.append(str(folder))


def setup(app: Sphinx) -> dict[str, object]:
    """Register the extension with Sphinx (called by Sphinx; not for direct use)."""
    # Kernels started by MyST-NB inherit this; see labsupport.charts.BOOK_BUILD_ENV.
    os.environ[BOOK_BUILD_ENV] = "1"
    app.connect("builder-inited", _write_bundle)
    # A classic, synchronous script in <head> (module scripts are blocked on file:// pages, and
    # readers open the book from disk), loaded before require.js (priority 300 < 500) so that
    # require.js cannot capture it as an anonymous AMD module. The charts' inline scripts run later.
    app.add_js_file(BUNDLE_NAME, priority=300)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "0.1"}
