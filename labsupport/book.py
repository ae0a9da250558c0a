"""Sphinx extension: serve the Vega JavaScript from the book itself, never from a CDN.

At build time it asks ``vl_convert.javascript_bundle()`` (a Python dependency) for one bundle of
Vega, Vega-Lite and Vega-Embed, writes it next to the build output, and adds it to every page as a
module script. The charts' HTML (see :func:`labsupport.charts.render_bundle`) calls the global
``vegaEmbed`` that the bundle defines. Nothing is committed and nothing is fetched.

Enable it in ``_config.yml``::

    sphinx:
      extra_extensions: [labsupport.book]
"""

from __future__ import annotations

from pathlib import Path

import altair as alt
import vl_convert
from sphinx.application import Sphinx

BUNDLE_NAME = "labsupport-vega.js"


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
    if not target.exists() or not stamp.exists() or stamp.read_text() != version:
        target.write_text(vl_convert.javascript_bundle(vl_version=version), encoding="utf-8")
        stamp.write_text(version)
    app.config.html_static_path.append(str(folder))


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("builder-inited", _write_bundle)
    # A module script: deferred, so it runs before the charts' inline module scripts, and it ignores
    # require.js (which would otherwise capture the bundle as an anonymous AMD module).
    app.add_js_file(BUNDLE_NAME, type="module", priority=300)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "0.1"}
