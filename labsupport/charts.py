"""Altair charts of model output, and the renderer that lets them work offline.

Every function here takes a DataFrame (usually a model's ``.events`` or time series) and returns an
``alt.Chart``; none runs a model. Each chart carries a title and a ``description`` (its text
alternative, which Vega writes into the SVG's ``aria-label``).

Rendering offline
-----------------
Importing this module registers and enables the Altair renderer ``"labsupport"``. What it emits
depends on where the chart is shown, because a front end draws the richest MIME type it knows and
JupyterLab ranks ``text/html`` above Vega-Lite:

* in a live notebook (JupyterLab 4, Notebook 7, VS Code): ``application/vnd.vegalite.v5+json`` and
  ``text/plain`` only. The front end draws the spec with the Vega libraries it bundles, so nothing
  is fetched, and no HTML competes with the spec;
* while the book builds (see :data:`BOOK_BUILD_ENV`): ``text/html``, a container plus a small
  script that calls the global ``vegaEmbed``, which the book defines from
  ``vl_convert.javascript_bundle()``, loaded once per page by the Sphinx extension
  :mod:`labsupport.book`; and ``text/plain``. Nothing comes from a CDN;
* ``text/plain`` is always the chart's title and description, its text alternative.

Inputs
------
Every chart checks its arguments with the same few helpers (:func:`_frame` for DataFrames,
:func:`_runs` for label -> frame mappings, :func:`_number` / :func:`_seconds` for numbers, through
:func:`labsupport._validate.check_number`, and :func:`_origin` for clock origins). A bad argument
raises ``ValueError`` naming it (``"events must be a pandas DataFrame, got NoneType"``,
``"timeseries is missing columns ['time_s']"``, ``"normal_delay_s must be a finite number ..."``),
never ``TypeError``, ``AttributeError`` or ``IndexError``.

Empty data: one rule
--------------------
* Where a reader can reach "nothing to draw" by a choice (a widget's filter, a time window, a set of
  stop points that removes every stage), the chart still draws and says so: a text mark such as
  "No events between 20000 s and 30000 s" and a description that says the same. This covers the
  ``events`` of :func:`timeline_chart`, the window of :func:`race_sequence_chart` and
  :func:`dns_failing_chart`, and the stages/impact of :func:`chain_timeline_chart` and
  :func:`chain_impact_chart` (a run in which no stage happens).
* Every other empty frame can only come from a programming error (a model's time series always has
  its first sample, a sweep at least one cell, a race run at least one plan, and
  :func:`explore_sequence_chart` is drawn only for an unsafe result), so it raises
  ``ValueError("<arg> is empty: ...")``.

Missing values and large data
-----------------------------
A chart never plots NaN silently. :func:`network_backlog_chart` draws gaps where an interval
delivered nothing (no delay was measured), and says so. Chart data stays under 5,000 rows (Altair's
limit, :data:`ALTAIR_MAX_ROWS`) for every config a model accepts: where a model's sampling would
give more than 3,000 rows, :func:`dns_failing_chart` aggregates into time bins (mean line, min-max
band), and :func:`dwfm_timeseries_chart`, :func:`network_backlog_chart` and
:func:`nlb_timeseries_chart` aggregate to the same resolution (bin means; DWFM's finished work as a
rate over the bin), each stating the bin width in its description. :func:`race_generation_chart`
draws one mark per write and refuses a window holding more than 3,000 (ConfigError naming
``start_s``/``end_s`` and a window that fits). Any other chart whose data would pass 5,000 rows
raises ConfigError rather than Altair's ``MaxRowsError``; nothing is thinned silently. The charts that draw one
colour per run or series (:func:`nlb_capacity_comparison_chart`, :func:`dns_failing_chart`,
:func:`dns_ttl_chart`) accept at most ``len(PALETTE)`` of them and say so in a ValueError.
"""

from __future__ import annotations

import hashlib
import html
import json
import math
import os
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from . import presets as _presets
from ._validate import check_int, check_number
from .errors import ConfigError
from .timeline import format_duration

__all__ = [
    "ALTAIR_MAX_ROWS",
    "BOOK_BUILD_ENV",
    "CHAIN_STAGE_COLOURS",
    "CONCEPT_COLOURS",
    "DEPENDENCY_STATUS_COLOURS",
    "PALETTE",
    "PERIOD_COLOURS",
    "RACE_ACTION_GROUPS",
    "chain_explorer_chart",
    "chain_impact_chart",
    "chain_savings_chart",
    "chain_timeline_chart",
    "dependency_blast_chart",
    "dns_failing_chart",
    "dns_ttl_chart",
    "dwfm_explorer_chart",
    "dwfm_phase_chart",
    "dwfm_timeseries_chart",
    "explore_sequence_chart",
    "explore_verdict_chart",
    "legend_colours",
    "network_backlog_chart",
    "nlb_capacity_comparison_chart",
    "nlb_timeseries_chart",
    "race_generation_chart",
    "race_guard_explorer_chart",
    "race_records_chart",
    "race_sequence_chart",
    "render_bundle",
    "timeline_chart",
]

#: Set by :mod:`labsupport.book` while the book builds. The kernels that execute the pages inherit
#: it, and the renderer then emits the book's HTML instead of the Vega-Lite MIME type, which the
#: static book cannot draw (and which MyST-NB would report as unknown).
BOOK_BUILD_ENV = "LABSUPPORT_BOOK_BUILD"

#: Colours for categorical marks. Each has a contrast ratio of at least 3:1 against white (WCAG 2.1
#: SC 1.4.11, non-text contrast; ``tests/test_accessibility.py`` checks it). They are not all
#: distinguishable under every colour-vision deficiency (PALETTE[1] and PALETTE[4] are close under
#: deuteranopia), so a chart that must tell categories apart also varies shape or dash, or labels them.
PALETTE: tuple[str, ...] = ("#0b5cad", "#b3471b", "#1b7a4c", "#7a3f98", "#8a6d00", "#b0245e", "#3d3d3d")

#: One colour per impact period of the post-event summary, shared by every chart that shows them.
PERIOD_COLOURS: dict[str, str] = {
    "DynamoDB API errors": PALETTE[0],
    "EC2 launch failures": PALETTE[1],
    "NLB connection errors": PALETTE[2],
}

#: One colour per concept that charts on several pages compare run against run (a negative TTL,
#: an NLB run), whatever its position in a chart's legend. Labels come from :mod:`labsupport.presets`;
#: ``tests/test_chart_colours.py`` checks that no two charts of the book colour one label differently.
CONCEPT_COLOURS: dict[str, str] = {
    _presets.ttl_label(900.0): PALETTE[0],
    _presets.ttl_label(3_600.0): PALETTE[1],
    _presets.ttl_label(300.0): PALETTE[2],
    _presets.NLB_RUN_LABELS["nobody"]: PALETTE[1],
    _presets.NLB_RUN_LABELS["incident"]: PALETTE[0],
    _presets.NLB_RUN_LABELS["velocity"]: PALETTE[2],
}


def _series_range(labels: list[str]) -> list[str]:
    """Colours for a legend: a label of :data:`CONCEPT_COLOURS` keeps its colour; the others take
    the palette's colours in order, skipping those already used in this chart."""
    taken = {CONCEPT_COLOURS[label] for label in labels if label in CONCEPT_COLOURS}
    free = iter([c for c in PALETTE if c not in taken] + [c for c in PALETTE if c in taken])
    return [CONCEPT_COLOURS.get(label) or next(free) for label in labels]


def _text_alternative(spec: dict[str, Any]) -> str:
    title = spec.get("title", "")
    if isinstance(title, dict):
        title = title.get("text", "")
    if isinstance(title, list):
        title = " ".join(str(part) for part in title)
    if title is None:
        title = ""
    desc = spec.get("description", "") or ""
    return ". ".join(p for p in (str(title).strip(), str(desc).strip()) if p) or "Chart"


def render_bundle(spec: dict[str, Any], **options: Any) -> dict[str, Any]:
    """Return the MIME bundle for a Vega-Lite ``spec`` (the ``"labsupport"`` renderer).

    Args:
        spec: a Vega-Lite v5 specification, as from ``chart.to_dict()``.
        options: what Altair passes to a renderer; ``embed_options`` (a dict, as set by
            ``alt.renderers.set_embed_options``) is handed to ``vegaEmbed`` in the book and to the
            front end in the MIME bundle's metadata live; other options are ignored.

    Returns:
        In a live kernel, a dict with keys ``application/vnd.vegalite.v5+json`` (the spec) and
        ``text/plain`` (with ``embed_options``, a ``(bundle, metadata)`` pair, as Altair allows). While the book builds (:data:`BOOK_BUILD_ENV` set), a dict with keys
        ``text/html`` and ``text/plain``; the HTML's element id is derived from the spec, so the
        same chart gives the same output. Never both ``text/html`` and the Vega-Lite type: a front
        end that ranks HTML first would show the HTML, which draws only inside the book.
    """
    alt_text = _text_alternative(spec)
    embed = {"actions": False, "renderer": "svg", **(options.get("embed_options") or {})}
    if not os.environ.get(BOOK_BUILD_ENV):
        bundle = {"application/vnd.vegalite.v5+json": spec, "text/plain": alt_text}
        if options.get("embed_options"):
            return bundle, {"application/vnd.vegalite.v5+json": {"embed_options": options["embed_options"]}}
        return bundle
    payload = json.dumps(spec, sort_keys=True, separators=(",", ":"))
    div_id = "ls-vega-" + hashlib.sha1(payload.encode()).hexdigest()[:12]
    # No "<" at all inside the inline <script>: "</script>" would end it and "<!--<script" would
    # switch the HTML parser into a state where it never ends. JSON reads "\u003c" as "<".
    script_payload = payload.replace("<", "\\u003c")
    embed_payload = json.dumps(embed, sort_keys=True).replace("<", "\\u003c")
    body = f"""<div class="labsupport-vega" id="{div_id}" role="figure" aria-label="{html.escape(alt_text)}">
<noscript>{html.escape(alt_text)}</noscript></div>
<script>
(function () {{
  var el = document.getElementById("{div_id}");
  if (window.vegaEmbed) {{
    window.vegaEmbed(el, {script_payload}, {embed_payload})
      .catch(function (err) {{ el.textContent = "Chart failed to render: " + err; console.error(err); }});
  }} else {{
    el.textContent = "This chart needs the Vega libraries that the built course book bundles. "
      + el.getAttribute("aria-label");
  }}
}})();
</script>"""
    return {"text/html": body, "text/plain": alt_text}


def legend_colours(spec: object) -> dict[str, str]:
    """Label -> colour of every ``color`` encoding of a Vega-Lite ``spec`` that lists its domain and range.

    Args:
        spec: a chart's ``to_dict()``, or any part of one.

    Returns:
        A dict from each label (str) to its colour (str, as written in the spec); labels of scales
        without an explicit domain and range are not included. Used to check that one concept keeps
        one colour across the book's charts (``tests/browser/test_book_colours.py``).
    """
    found: dict[str, str] = {}

    def walk(node: object) -> None:
        if isinstance(node, dict):
            colour = node.get("color")
            if isinstance(colour, dict):
                scale = colour.get("scale") or {}
                domain, rng = scale.get("domain"), scale.get("range")
                if isinstance(domain, list) and isinstance(rng, list) and len(domain) == len(rng):
                    found.update({str(d): str(r) for d, r in zip(domain, rng) if isinstance(r, str)})
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    return found


alt.renderers.register("labsupport", render_bundle)
alt.renderers.enable("labsupport")


#: Altair's own limit on the rows of one dataset (it raises MaxRowsError beyond it).
ALTAIR_MAX_ROWS = 5_000


def _datasets(chart: object) -> list[pd.DataFrame]:
    """Every DataFrame a chart (layers, concatenations and facets included) carries."""
    found = []
    data = getattr(chart, "data", None)
    if isinstance(data, pd.DataFrame):
        found.append(data)
    for attr in ("layer", "vconcat", "hconcat", "concat"):
        children = getattr(chart, attr, None)
        if isinstance(children, list):
            for child in children:
                found += _datasets(child)
    spec = getattr(chart, "spec", None)
    if spec is not None and not isinstance(spec, (str, dict)) and hasattr(spec, "to_dict"):
        found += _datasets(spec)
    return found


def _base_config(chart: alt.TopLevelMixin, *, too_many: str = "pass fewer rows") -> alt.TopLevelMixin:
    """White background (readable in the book's dark mode too) and readable font sizes.

    Also the one check of the row limit: a chart whose data would exceed
    :data:`ALTAIR_MAX_ROWS` rows in one dataset raises ConfigError (``too_many`` says which
    argument to change) instead of Altair's ``MaxRowsError`` when it is displayed.
    """
    biggest = max((len(d) for d in _datasets(chart)), default=0)
    if biggest > ALTAIR_MAX_ROWS:
        raise ConfigError(f"the chart's data would hold {biggest:,} rows, more than the {ALTAIR_MAX_ROWS:,} "
                          f"a chart may draw; {too_many}")
    return chart.configure(background="white").configure_axis(
        labelFontSize=12, titleFontSize=13, labelColor="#222", titleColor="#222"
    ).configure_legend(labelFontSize=12, titleFontSize=13)


# --- input checks, shared by every chart ---

#: Times a chart accepts, in seconds since a scenario's start: up to a year either side.
_MAX_S = 366 * 86_400.0
#: Most rows a chart's aggregated series may hold (Altair refuses more than 5,000 per dataset).
_MAX_ROWS = 3_000


def _frame(name: str, value: object, columns: tuple[str, ...] = (), *, numeric: tuple[str, ...] = (),
           empty: str | None = None) -> pd.DataFrame:
    """Return ``value`` if it is a DataFrame with ``columns``; else raise ValueError naming ``name``.

    Args:
        name: the argument's name, used in every message.
        value: what the caller passed.
        columns: the columns the chart reads.
        numeric: those of ``columns`` that must have a numeric (or bool) dtype.
        empty: ``None`` if the frame may be empty; otherwise why an empty frame is an error (the
            message then reads ``"<name> is empty: <empty>"``).
    """
    if not isinstance(value, pd.DataFrame):
        raise ConfigError(f"{name} must be a pandas DataFrame, got {type(value).__name__}")
    missing = [c for c in columns if c not in value.columns]
    if missing:
        raise ConfigError(f"{name} is missing columns {missing}")
    if empty is not None and value.empty:
        raise ConfigError(f"{name} is empty: {empty}")
    wrong = [c for c in numeric if not pd.api.types.is_numeric_dtype(value[c])]
    if wrong:
        raise ConfigError(f"{name} has non-numeric columns {wrong} "
                         f"(dtypes {[str(value[c].dtype) for c in wrong]})")
    return value


def _runs(name: str, runs: object, columns: tuple[str, ...], *, numeric: tuple[str, ...] = (),
          empty: str | None = None) -> dict[str, pd.DataFrame]:
    """Check a label -> frame mapping of 1 to ``len(PALETTE)`` runs, each through :func:`_frame`."""
    if not isinstance(runs, Mapping):
        raise ConfigError(f"{name} must be a dict of label -> DataFrame, got {type(runs).__name__}")
    if not 1 <= len(runs) <= len(PALETTE):
        raise ConfigError(f"{name} must hold 1 to {len(PALETTE)} frames (one colour each), got {len(runs)}")
    bad = [k for k in runs if not isinstance(k, str) or not k.strip()]
    if bad:
        raise ConfigError(f"{name} must be labelled by non-empty strings, got labels {bad!r}")
    return {label: _frame(f"{name}[{label!r}]", ts, columns, numeric=numeric, empty=empty)
            for label, ts in runs.items()}


def _number(name: str, value: object, *, lo: float | None = None, hi: float | None = None,
            lo_open: bool = False, optional: bool = False) -> float | None:
    """``check_number`` for a chart argument; ``None`` passes through when ``optional``."""
    if optional and value is None:
        return None
    return check_number(name, value, lo=lo, hi=hi, lo_open=lo_open)


def _seconds(name: str, value: object, *, window: bool = False, optional: bool = False) -> float | None:
    """A time in seconds since the scenario's start: a moment (0 to a year) or a window edge (± a year)."""
    return _number(name, value, lo=-_MAX_S if window else 0.0, hi=_MAX_S, optional=optional)


def _origin(value: object, default: pd.Timestamp) -> pd.Timestamp:
    """The wall-clock time of ``time_s = 0``: ``default`` for ``None``, else a valid timestamp."""
    if value is None:
        return default
    if not isinstance(value, (pd.Timestamp, datetime, np.datetime64)) or pd.isna(value):
        raise ConfigError(f"origin must be a pandas Timestamp (naive PDT wall-clock time) or None, "
                         f"got {value!r} of type {type(value).__name__}")
    ts = pd.Timestamp(value)
    try:
        ts - pd.Timedelta(seconds=_MAX_S), ts + pd.Timedelta(seconds=_MAX_S)
    except (OverflowError, ValueError):
        raise ConfigError(f"origin must leave a year either side within pandas' dates, got {ts}") from None
    return ts


def _width(value: object, name: str = "width") -> int:
    """A chart width in pixels: an integer from 100 to 4000."""
    return check_int(name, value, lo=100, hi=4000)


def _note_chart(text: str, *, title: str | list[str], description: str, width: int,
                height: int = 120) -> alt.LayerChart:
    """A chart with nothing to plot: the title, one line of text saying why, a matching description."""
    note = alt.Chart(pd.DataFrame({"text": [text]})).mark_text(
        align="center", baseline="middle", fontSize=14, color="#222").encode(
        x=alt.value(width / 2), y=alt.value(height / 2), text="text:N")
    return _base_config(alt.layer(note).properties(width=width, height=height, title=title,
                                                   description=description))


def timeline_chart(periods: pd.DataFrame, events: pd.DataFrame, *, width: int = 480) -> alt.LayerChart:
    """Draw the summary's three impact periods as bars and the events as marks with tooltips.

    Args:
        periods: the frame from :func:`labsupport.timeline.impact_periods` (columns ``period``,
            ``start_pdt``, ``end_pdt``, ``duration``); not empty.
        events: rows of :func:`labsupport.timeline.load` (columns ``time_pdt``, ``service``,
            ``event``, ``impact_period``, ``tag``, ``source``). May be empty (a filter that keeps
            no row): the chart then says "No timeline event matches the filter" in a text mark
            and in its description.
        width: chart width in pixels (100 to 4000).

    Returns:
        An ``alt.LayerChart`` whose x axis is wall-clock time in PDT.

    Raises:
        ValueError: a frame that is not a DataFrame or lacks a column, empty ``periods``, or a
            ``width`` that is not an integer from 100 to 4000.
    """
    _width(width)
    _frame("periods", periods, ("period", "start_pdt", "end_pdt", "duration"),
           empty="impact_periods() always holds the summary's three periods")
    _frame("events", events, ("time_pdt", "service", "event", "impact_period", "tag", "source"))
    for name, frame, col in (("periods", periods, "start_pdt"), ("periods", periods, "end_pdt"),
                             ("events", events, "time_pdt")):
        if not pd.api.types.is_datetime64_any_dtype(frame[col]):
            raise ConfigError(f"{name}[{col!r}] must hold datetimes, got dtype {frame[col].dtype}")
    if not pd.api.types.is_timedelta64_dtype(periods["duration"]):
        raise ConfigError(f"periods['duration'] must hold timedeltas, got dtype {periods['duration'].dtype}")

    # Vega-Lite reads naive ISO strings as local time; we give it PDT wall-clock strings.
    p = pd.DataFrame(
        {
            "period": periods["period"],
            "start": periods["start_pdt"].dt.strftime("%Y-%m-%dT%H:%M:%S"),
            "end": periods["end_pdt"].dt.strftime("%Y-%m-%dT%H:%M:%S"),
            "length": periods["duration"].map(format_duration),
        }
    )
    e = pd.DataFrame(
        {
            "time": events["time_pdt"].dt.strftime("%Y-%m-%dT%H:%M:%S"),
            "when": events["time_pdt"].dt.strftime("%d %b %H:%M PDT"),
            "service": events["service"],
            "event": events["event"],
            "lane": events["impact_period"].fillna("Other services"),
            "tag": events["tag"],
            "source": events["source"],
        }
    )
    lanes = list(PERIOD_COLOURS) + ["Other services"]
    y = alt.Y("lane:N", sort=lanes, title=None, scale=alt.Scale(domain=lanes))
    colour = alt.Color(
        "period:N",
        scale=alt.Scale(domain=list(PERIOD_COLOURS), range=list(PERIOD_COLOURS.values())),
        legend=alt.Legend(title="Impact period", orient="bottom"),
    )
    bars = (
        alt.Chart(p)
        .transform_calculate(lane="datum.period")
        .mark_bar(height=22, opacity=0.85)
        .encode(
            x=alt.X("start:T", title="19–20 October 2025, PDT", axis=alt.Axis(format="%H:%M")),
            x2="end:T",
            y=y,
            color=colour,
            tooltip=[alt.Tooltip("period:N"), alt.Tooltip("length:N", title="length")],
        )
    )
    marks = (
        alt.Chart(e)
        .mark_point(shape="diamond", size=90, filled=True, color="#222", stroke="white", strokeWidth=1)
        .encode(
            x="time:T",
            y=y,
            opacity=alt.condition("datum.tag == 'UNVERIFIED'", alt.value(0.35), alt.value(1.0)),
            tooltip=["when:N", "service:N", "event:N", "tag:N", "source:N"],
        )
    )
    layers = [bars, marks]
    events_text = "a diamond for each timeline event (hover for details; faded diamonds are unverified)"
    if e.empty:
        nothing = "No timeline event matches the filter"
        events_text = f"no event diamonds: {nothing[0].lower() + nothing[1:]}"
        # In the "Other services" lane, the bottom one, which holds only events.
        layers.append(alt.Chart(pd.DataFrame({"text": [nothing]})).mark_text(
            align="left", baseline="middle", dx=6, fontSize=13, color="#222").encode(
            x=alt.value(0), y=alt.value(190 - 190 / len(lanes) / 2), text="text:N"))
    chart = alt.layer(*layers).properties(
        width=width,
        height=190,
        title="Impact periods of the 19–20 October 2025 us-east-1 event",
        description=(
            "Three horizontal bars on a PDT time axis: DynamoDB API errors, EC2 launch failures and "
            f"NLB connection errors, with {events_text}."
        ),
    )
    return _base_config(chart)


# --- race ---

#: How the race model's actions are grouped, coloured and shaped in its charts.
RACE_ACTION_GROUPS: dict[str, str] = {
    "initial_state": "initial state", "plan_created": "plan created", "check": "one-time check",
    "lock_lost": "lock lost, back off",
    "write": "write", "write_noop": "write", "stale_write": "stale write",
    "write_refused": "refused by a guard", "refused_empty": "refused by a guard",
    "delete_skipped": "refused by a guard", "alert": "refused by a guard",
    "delete": "clean-up delete", "delete_active": "active plan deleted / stuck",
    "inconsistent": "active plan deleted / stuck", "endpoint_empty": "active plan deleted / stuck",
    "self_repair": "repair", "manual_repair": "repair", "endpoint_restored": "repair",
}
_RACE_GROUP_STYLE: dict[str, tuple[str, str]] = {
    "plan created": (PALETTE[6], "circle"), "one-time check": (PALETTE[0], "diamond"),
    "lock lost, back off": (PALETTE[4], "triangle-down"), "write": (PALETTE[2], "circle"),
    "stale write": (PALETTE[1], "square"), "refused by a guard": (PALETTE[0], "triangle-up"),
    "clean-up delete": (PALETTE[3], "cross"), "active plan deleted / stuck": (PALETTE[5], "square"),
    "repair": (PALETTE[2], "triangle-up"), "initial state": (PALETTE[6], "diamond"),
    "other action": (PALETTE[6], "cross"),
}
_RACE_KEY_ACTIONS = {"stale_write": "stale write", "delete_active": "active plan deleted",
                     "manual_repair": "manual repair", "self_repair": "self-repair", "alert": "alert"}


#: Why an empty race frame is a programming error.
_RACE_NOT_EMPTY = "a race run always records at least the DNS Planner's first plan"


def race_sequence_chart(events: pd.DataFrame, *, start_s: float, end_s: float, width: int = 520) -> alt.LayerChart:
    """Sequence chart of a race run: one lane per actor, time on x, one mark per action.

    Args:
        events: ``RaceResult.events`` (columns ``time_s``, ``actor``, ``action``, ``endpoint``,
            ``generation``, ``detail``).
        start_s, end_s: the time window to draw, in seconds since the scenario start (start < end).
        width: chart width in pixels (100-4000).

    Returns:
        A layered chart: marks coloured and shaped by :data:`RACE_ACTION_GROUPS`, labelled vertical
        rules at the key moments (stale write, active plan deleted, alerts, repairs).

        A window with no event gives a chart that says "No events between ... s and ... s".

    Raises:
        ValueError: ``events`` not a DataFrame, missing a column or empty; ``start_s``/``end_s`` not
            finite numbers within a year of the start, or ``end_s <= start_s``; a bad width.
    """
    _width(width)
    _frame("events", events, ("time_s", "actor", "action", "endpoint", "generation", "detail"),
           numeric=("time_s",), empty=_RACE_NOT_EMPTY)
    start_s, end_s = _seconds("start_s", start_s, window=True), _seconds("end_s", end_s, window=True)
    if not end_s > start_s:
        raise ConfigError(f"end_s must be > start_s, got start_s={start_s!r}, end_s={end_s!r}")
    ev = events.loc[(events["time_s"] >= start_s) & (events["time_s"] <= end_s)]
    if ev.empty:
        title = f"The race, second by second ({start_s:.0f}-{end_s:.0f} s)"
        nothing = f"No events between {start_s:.0f} s and {end_s:.0f} s"
        return _note_chart(nothing, title=title, width=width, description=(
            f"Sequence chart from one model run: {nothing[0].lower() + nothing[1:]} (the run's events span "
            f"{float(events['time_s'].min()):.0f} s to {float(events['time_s'].max()):.0f} s), "
            "so there is no action to draw."))
    lanes = [a for a in events["actor"].cat.categories if a in set(ev["actor"])] if hasattr(
        events["actor"], "cat") else sorted(set(ev["actor"]))
    d = pd.DataFrame({
        "time_s": ev["time_s"].round(2), "actor": ev["actor"].astype(str),
        "action": ev["action"].astype(str), "group": ev["action"].astype(str).map(RACE_ACTION_GROUPS).fillna("other action"),
        "endpoint": ev["endpoint"].fillna("").astype(str),
        "plan": ev["generation"].astype("string").fillna(""),
        "detail": ev["detail"].astype(str),
    })
    groups = [g for g in _RACE_GROUP_STYLE if g in set(d["group"])]
    x = alt.X("time_s:Q", title="seconds since the scenario start",
              scale=alt.Scale(domain=[start_s, end_s], zero=False, nice=False))
    points = alt.Chart(d).mark_point(size=70, filled=True, opacity=0.9).encode(
        x=x, y=alt.Y("actor:N", sort=lanes, title=None),
        color=alt.Color("group:N", title="Action", scale=alt.Scale(
            domain=groups, range=[_RACE_GROUP_STYLE[g][0] for g in groups]), legend=alt.Legend(orient="bottom", columns=2)),
        shape=alt.Shape("group:N", scale=alt.Scale(domain=groups, range=[_RACE_GROUP_STYLE[g][1] for g in groups])),
        tooltip=["time_s:Q", "actor:N", "action:N", "endpoint:N", "plan:N", "detail:N"],
    )
    key = d.loc[d["action"].isin(_RACE_KEY_ACTIONS)].assign(label=lambda k: k["action"].map(_RACE_KEY_ACTIONS))
    key = key.drop_duplicates("label")
    rules = alt.Chart(key).mark_rule(strokeDash=[4, 3], color="#222", opacity=0.6).encode(x=x)
    labels = alt.Chart(key).mark_text(align="right", dx=-8, dy=-9, fontSize=11, fontWeight="bold", color="#222").encode(
        x=x, y=alt.Y("actor:N", sort=lanes), text="label:N")
    chart = alt.layer(rules, points, labels).properties(
        width=width, height=34 * max(len(lanes), 3),
        title=f"The race, second by second ({start_s:.0f}-{end_s:.0f} s)",
        description=(f"Sequence chart from one model run: lanes for {', '.join(lanes)}; each mark is one action "
                     f"({', '.join(groups)}); dashed rules mark " + (", ".join(key['label']) or "no key moment") + "."),
    )
    return _base_config(chart)


def race_generation_chart(states: pd.DataFrame, events: pd.DataFrame, *, start_s: float = 0.0,
                          end_s: float | None = None, width: int = 440) -> alt.FacetChart:
    """Plan generation per endpoint over time: what each Enactor wrote, and what the endpoint served.

    Args:
        states: ``RaceResult.endpoint_states()`` (``time_s``, ``endpoint``, ``generation``,
            ``newest_generation``).
        events: ``RaceResult.events``; the Enactors' write attempts are drawn from it.
        start_s, end_s: time window in seconds (``end_s`` None = the last event).
        width: width of each panel in pixels (100-4000).

    Returns:
        One panel per endpoint: a black step line for the served generation, a grey dashed one for
        the newest plan, and a mark per Enactor write (circle = applied, square = stale, triangle =
        refused by a guard, cross = failed because the active plan was missing).

    Raises:
        ValueError: a frame that is not a DataFrame, lacks a column or is empty; ``start_s`` /
            ``end_s`` not finite numbers within a year of the start, or ``end_s <= start_s``; no
            endpoint state at or before ``end_s``; a bad width.
    """
    _width(width)
    _frame("states", states, ("time_s", "endpoint", "generation", "newest_generation"), numeric=("time_s",),
           empty="endpoint_states() holds every endpoint's initial state")
    _frame("events", events, ("time_s", "actor", "action", "endpoint", "generation"), numeric=("time_s",),
           empty=_RACE_NOT_EMPTY)
    start_s = _seconds("start_s", start_s, window=True)
    end_s = float(events["time_s"].max()) if end_s is None else _seconds("end_s", end_s, window=True)
    if not end_s > start_s:
        raise ConfigError(f"end_s must be > start_s, got start_s={start_s!r}, end_s={end_s!r}")
    if not (states["time_s"] <= end_s).any():
        raise ConfigError(f"states has no row at or before end_s={end_s!r} (its first is at "
                         f"{float(states['time_s'].min()):.1f} s)")
    kinds = {"write": "applied", "write_noop": "applied", "stale_write": "stale write",
             "write_refused": "refused", "refused_empty": "refused", "self_repair": "applied",
             "inconsistent": "failed: active plan missing"}
    w = events.loc[events["action"].isin(kinds) & events["time_s"].between(start_s, end_s)]
    writes = pd.DataFrame({"time_min": w["time_s"] / 60, "endpoint": w["endpoint"].astype(str),
                           "generation": w["generation"].astype(int), "series": w["actor"].astype(str),
                           "kind": w["action"].astype(str).map(kinds)})
    s = states.loc[states["time_s"] <= end_s]
    # Carry the state at start_s into the window, and extend each line to end_s.
    s = pd.concat([s.loc[s["time_s"] < start_s].groupby("endpoint").tail(1).assign(time_s=start_s),
                   s.loc[s["time_s"] >= start_s]])
    s = pd.concat([s, s.groupby("endpoint").tail(1).assign(time_s=end_s)])
    # The newest plan steps at every plan the DNS Planner makes, the same for every endpoint.
    p = s.groupby("endpoint").head(1)[["time_s", "endpoint", "newest_generation"]]
    made = events.loc[(events["action"] == "plan_created") & events["time_s"].between(start_s, end_s)]
    # At end_s: the newest plan made by then, or the endpoints' own newest if none was made yet.
    last = s.groupby("endpoint").tail(1)[["time_s", "endpoint", "newest_generation"]]
    made_by_end = events.loc[(events["action"] == "plan_created") & (events["time_s"] <= end_s), "generation"].dropna()
    if len(made_by_end):
        last = last.assign(newest_generation=np.maximum(last["newest_generation"].astype(int), int(made_by_end.max())))
    p = pd.concat([p, *[pd.DataFrame({"time_s": made["time_s"], "endpoint": e,
                                      "newest_generation": made["generation"]}) for e in p["endpoint"]], last])
    lines = pd.concat([
        pd.DataFrame({"time_min": s["time_s"] / 60, "endpoint": s["endpoint"].astype(str),
                      "generation": s["generation"].astype(int), "series": "served by the endpoint"}),
        pd.DataFrame({"time_min": p["time_s"] / 60, "endpoint": p["endpoint"].astype(str),
                      "generation": p["newest_generation"].astype(int), "series": "newest plan"}),
    ]).assign(kind="line")
    data = pd.concat([lines, writes], ignore_index=True)
    enactors = sorted(set(writes["series"]))
    domain = ["served by the endpoint", "newest plan", *enactors]
    colour = alt.Color("series:N", title=None, scale=alt.Scale(
        domain=domain, range=["#111", "#8a8a8a", *[PALETTE[i % 6] for i in range(len(enactors))]]),
        legend=alt.Legend(orient="bottom", columns=3))
    x = alt.X("time_min:Q", title="minutes since the scenario start", scale=alt.Scale(domain=[start_s / 60, end_s / 60]))
    y = alt.Y("generation:Q", title=None, scale=alt.Scale(zero=False))
    base = alt.Chart().encode(x=x, y=y, color=colour)
    line = base.transform_filter("datum.kind == 'line'").mark_line(interpolate="step-after", strokeWidth=1.6).encode(
        strokeDash=alt.condition("datum.series == 'newest plan'", alt.value([4, 3]), alt.value([1, 0])))
    kinds_order = ["applied", "stale write", "refused", "failed: active plan missing"]
    marks = base.transform_filter("datum.kind != 'line'").mark_point(size=45, filled=True).encode(
        shape=alt.Shape("kind:N", title="Write", scale=alt.Scale(domain=kinds_order,
                        range=["circle", "square", "triangle-up", "cross"]), legend=alt.Legend(orient="bottom", columns=2)),
        tooltip=["series:N", "kind:N", "generation:Q", alt.Tooltip("time_min:Q", format=".2f")])
    chart = alt.layer(line, marks, data=data).properties(width=width, height=80).facet(
        row=alt.Row("endpoint:N", sort=list(dict.fromkeys(states["endpoint"].astype(str))),
                    title="plan generation at each endpoint", header=alt.Header(labelAngle=0, labelAlign="left")),
    ).properties(
        title=["Plan generation per endpoint", "served (black), newest (dashed), each Enactor's writes (marks)"],
        description=("One panel per endpoint over time in minutes. A black step line shows the plan the endpoint "
                     "serves, a dashed grey line the newest plan; marks are Enactor writes, coloured by Enactor, "
                     "squares for stale writes, triangles for writes refused by a guard."),
    )
    if len(data) > _MAX_ROWS:
        span_min = (end_s - start_s) / 60
        fit_min = max(1.0, math.floor(span_min * _MAX_ROWS / len(data)))
        raise ConfigError(f"start_s={start_s:g} to end_s={end_s:g} holds {len(data):,} plan steps and writes, more "
                          f"than the {_MAX_ROWS:,} this chart draws (one mark per write, one step per plan); "
                          f"narrow the window to about {fit_min:.0f} minutes or fewer")
    return _base_config(chart)


def race_records_chart(states: pd.DataFrame, windows: pd.DataFrame, *, endpoint: str = "regional",
                       width: int = 520) -> alt.LayerChart:
    """Record count of one endpoint over time, with its empty windows shaded.

    Args:
        states: ``RaceResult.endpoint_states()`` (``time_s``, ``endpoint``, ``records``).
        windows: ``RaceResult.empty_windows()`` (``endpoint``, ``start_s``, ``end_s``, ``duration_s``).
        endpoint: which endpoint to draw.
        width: chart width in pixels (100-4000).

    Returns:
        A step line of the records the endpoint answers with (0 = NOERROR, empty answer) and a shaded
        band, labelled with its length, for each empty window. ``windows`` may be empty (the
        endpoint never went empty): the description then says so.

    Raises:
        ValueError: a frame that is not a DataFrame or lacks a column, empty ``states``, an
            ``endpoint`` that is not a string or has no state, or a bad width.
    """
    _width(width)
    _frame("states", states, ("time_s", "endpoint", "records"), numeric=("time_s", "records"),
           empty="endpoint_states() holds every endpoint's initial state")
    _frame("windows", windows, ("endpoint", "start_s", "end_s", "duration_s"),
           numeric=("start_s", "end_s", "duration_s"))
    if not isinstance(endpoint, str):
        raise ConfigError(f"endpoint must be a string, got {endpoint!r} of type {type(endpoint).__name__}")
    s = states.loc[states["endpoint"] == endpoint]
    if s.empty:
        raise ConfigError(f"endpoint {endpoint!r} has no states; endpoints are {sorted(set(states['endpoint']))}")
    d = pd.DataFrame({"time_min": s["time_s"] / 60, "records": s["records"].astype(int)})
    wdw = windows.loc[windows["endpoint"] == endpoint]
    end_min = float(max(d["time_min"].max(), (wdw["end_s"].max() / 60) if len(wdw) else 0))
    d = pd.concat([d, d.tail(1).assign(time_min=end_min)])
    bands = pd.DataFrame({"start": wdw["start_s"] / 60, "end": wdw["end_s"] / 60,
                          "label": ["empty " + format_duration(v) if v >= 60 else f"empty {v:.0f} s"
                                    for v in wdw["duration_s"]]})
    x = alt.X("time_min:Q", title="minutes since the scenario start")
    shade = alt.Chart(bands).mark_rect(color=PALETTE[5], opacity=0.18).encode(x="start:Q", x2="end:Q")
    text = alt.Chart(bands).mark_text(align="left", dx=4, dy=10, baseline="top", color=PALETTE[5], fontSize=12).encode(
        x="start:Q", y=alt.value(0), text="label:N")
    line = alt.Chart(d).mark_line(interpolate="step-after", color=PALETTE[0], strokeWidth=1.8).encode(
        x=x, y=alt.Y("records:Q", title=f"records in the {endpoint} answer"),
        tooltip=[alt.Tooltip("time_min:Q", format=".2f"), "records:Q"])
    total = float(wdw["duration_s"].sum())
    chart = alt.layer(shade, line, text).properties(
        width=width, height=200, title=f"Records answered for the {endpoint} endpoint",
        description=(f"Step line of the number of records the {endpoint} endpoint answers with over time in minutes; "
                     + (f"{len(wdw)} shaded empty window(s), {total:.0f} s in total, where it answered NOERROR with "
                        "zero records." if len(wdw) else "no shaded window: it never answered with zero records.")),
    )
    return _base_config(chart)


def race_guard_explorer_chart(data: pd.DataFrame, *, width: int = 520) -> alt.LayerChart:
    """One chart, four checkboxes: toggle guards 1-4 and see the regional record count change.

    The checkboxes are Vega-Lite parameters bound to inputs, so the chart works in the static book
    with no kernel: it filters precomputed data for all 16 guard combinations.

    Args:
        data: :func:`labsupport.race.guard_explorer_data` (the four guard columns, ``time_min``,
            ``records``, ``regional_empty_s``), 16 combinations.
        width: chart width in pixels (100-4000).

    Returns:
        A layered chart with four bound checkbox parameters; red bars mark bins with an empty answer
        and a line of text gives the combination's total empty time.

    Raises:
        ValueError: ``data`` not a DataFrame, missing a column, empty or without all 16 guard
            combinations; a bad width.
    """
    _width(width)
    guards = ("check_version_on_write", "delete_only_unreferenced", "reject_empty_records", "self_repair")
    _frame("data", data, (*guards, "time_min", "records", "regional_empty_s"),
           numeric=("time_min", "records", "regional_empty_s"),
           empty="guard_explorer_data() holds all 16 guard combinations")
    if data.groupby(list(guards)).ngroups != 16:
        raise ConfigError("data must hold all 16 guard combinations")
    # Short column names keep the page small: the spec carries every row of all 16 combinations.
    short = {g: f"g{i + 1}" for i, g in enumerate(guards)}
    times = sorted(set(data["time_min"]))
    step = min(b - a for a, b in zip(times, times[1:])) if len(times) > 1 else 1.0
    d = data[[*guards, "time_min", "records"]].rename(columns={**short, "time_min": "t", "records": "r"})
    d["t"] = d["t"].round(3)
    extra = [c for c in ("alerts", "manual_repair") if c in data.columns]
    totals = data.groupby(list(guards), as_index=False)[["regional_empty_s", *extra]].first().rename(columns=short)
    totals["label"] = [_explorer_label(row) for row in totals.to_dict("records")]
    params = [alt.param(name=f"g{i + 1}", value=False, bind=alt.binding_checkbox(name=f"Guard {i + 1}: {g} "))
              for i, g in enumerate(guards)]
    chosen = " && ".join(f"datum.g{i} == g{i}" for i in range(1, 5))
    x = alt.X("t:Q", title="minutes since the scenario start")
    line = alt.Chart(d).transform_filter(chosen).mark_line(interpolate="step-after", color=PALETTE[0]).encode(
        x=x, y=alt.Y("r:Q", title="fewest records answered per bin",
                     scale=alt.Scale(domain=[0, float(d["r"].max()) * 1.3 or 1.0])),
        tooltip=[alt.Tooltip("t:Q", title="minute"), alt.Tooltip("r:Q", title="records")])
    empty = alt.Chart(d).transform_filter(chosen).transform_filter("datum.r == 0").transform_calculate(
        t2=f"datum.t + {step!r}").mark_rect(color=PALETTE[5], opacity=0.35, stroke=None).encode(x="t:Q", x2="t2:Q")
    label = alt.Chart(totals[["g1", "g2", "g3", "g4", "label"]]).transform_filter(chosen).mark_text(
        align="left", baseline="top", dx=6, dy=6, fontSize=13, color=PALETTE[5]).encode(
        x=alt.value(0), y=alt.value(0), text="label:N")
    chart = alt.layer(empty, line, label).add_params(*params).properties(
        width=width, height=220, title="Toggle the guards: regional endpoint records over time",
        description=("Interactive chart with four checkboxes, one per guard. For the chosen combination it shows "
                     "the fewest records the regional endpoint answered with in each time bin, with red bars where "
                     "the answer was empty, and the total empty time. All 16 combinations were computed by the model."),
    )
    return _base_config(chart)


# --- dwfm ---


def _dwfm_clock(time_s: pd.Series) -> pd.Series:
    """Seconds since 11:48 PM PDT on 19 Oct → naive PDT wall-clock ISO strings (Vega-Lite local)."""
    from .dwfm import START_PDT

    return (START_PDT + pd.to_timedelta(time_s, unit="s")).dt.strftime("%Y-%m-%dT%H:%M:%S")


#: Why an empty time series is a programming error (dwfm, network, nlb and dns_cache alike).
_SAMPLED_FROM_0 = "a model run samples its first row at time 0"


_DWFM_X = alt.X("clock:T", title="19–20 October 2025, PDT", axis=alt.Axis(format="%H:%M"))
_DWFM_X_UPPER = alt.X("clock:T", title=None, axis=alt.Axis(format="%H:%M"))
_DWFM_WORK = {"goodput": ("Finished in time (goodput)", PALETTE[2]),
              "wasted": ("Wasted: finished after its deadline", PALETTE[1])}


def _to_resolution(ts: pd.DataFrame, *, sums: tuple[str, ...] = ()) -> tuple[pd.DataFrame, float | None]:
    """A time series cut to the chart's resolution: at most :data:`_MAX_ROWS` rows.

    Returns ``(ts, None)`` when it fits. Otherwise ``(binned, bin_s)``: rows grouped into bins of
    ``bin_s`` (the smallest of :data:`_BIN_WIDTHS_S` that fits), each labelled by its end (a row at
    ``t`` belongs to the bin ``(b - bin_s, b]``, the last label clipped to the last row's time);
    columns in ``sums`` (counts since the previous row) are summed, every other numeric column is
    the bin's mean of its non-NaN values (NaN if it has none).
    """
    if len(ts) <= _MAX_ROWS:
        return ts, None
    times = ts["time_s"].to_numpy(dtype="float64")
    bin_s = _bin_width_s([float(times[-1] - times[0]) + 1.0], _MAX_ROWS - 1)
    label = np.minimum(np.ceil(times / bin_s) * bin_s, times[-1])
    cols = [c for c in ts.columns if c != "time_s" and pd.api.types.is_numeric_dtype(ts[c])]
    grouped = ts[cols].groupby(label)
    out = grouped.mean()
    if sums:
        out[list(sums)] = grouped[list(sums)].sum()
    out = out.reset_index(names="time_s")
    return out, bin_s


def _binned_note(bin_s: float | None, what: str) -> str:
    """The sentence a description gains when :func:`_to_resolution` aggregated the data."""
    if bin_s is None:
        return ""
    return (f" The model's samples are aggregated to the chart's resolution, {_bin_label(bin_s)} bins "
            f"(at most {_MAX_ROWS:,}): {what}.")


def dwfm_timeseries_chart(
    timeseries: pd.DataFrame,
    *,
    outage_s: tuple[float, float] | None = None,
    operator_at_s: float | None = None,
    width: int = 480,
) -> alt.VConcatChart:
    """Leases, finished work (goodput vs wasted) and queue depth over one DWFM run.

    Args:
        timeseries: :attr:`labsupport.dwfm.DwfmResult.timeseries` (columns ``time_s``,
            ``leased_count``, ``queue_count``, ``goodput_count``, ``wasted_count``).
        outage_s: ``(start, end)`` of DynamoDB's outage in seconds, shaded; ``None`` for none.
        operator_at_s: time of the operators' first action, drawn as a rule; ``None`` for none.
        width: chart width in pixels (100 to 4000).

    Returns:
        Three stacked panels sharing a PDT clock axis.

    Raises:
        ValueError: ``timeseries`` not a DataFrame, missing a column or empty; ``outage_s`` not
            ``None`` or a pair of finite times (seconds, 0 to a year) with start <= end;
            ``operator_at_s`` not ``None`` or such a time; a bad width.
    """
    _width(width)
    cols = ("time_s", "leased_count", "queue_count", "goodput_count", "wasted_count")
    _frame("timeseries", timeseries, cols, numeric=cols, empty=_SAMPLED_FROM_0)
    if outage_s is not None:
        if not isinstance(outage_s, (tuple, list)) or len(outage_s) != 2:
            raise ConfigError(f"outage_s must be None or a (start, end) pair of seconds, got {outage_s!r}")
        outage_s = (_seconds("outage_s[0]", outage_s[0]), _seconds("outage_s[1]", outage_s[1]))
        if outage_s[1] < outage_s[0]:
            raise ConfigError(f"outage_s must have start <= end, got {outage_s!r}")
    operator_at_s = _seconds("operator_at_s", operator_at_s, optional=True)
    ts, bin_s = _to_resolution(timeseries.sort_values("time_s", kind="stable"),
                               sums=("goodput_count", "wasted_count"))
    step_min = ts["time_s"].diff().fillna(ts["time_s"]).clip(lower=1) / 60
    if bin_s is not None:   # each bin's counts over the whole bin (the first bin holds only t = 0)
        step_min = pd.Series(np.where(ts["time_s"] > 0, bin_s / 60, 1 / 60), index=ts.index)
    data = pd.DataFrame({
        "clock": _dwfm_clock(ts["time_s"]),
        "leased": ts["leased_count"].to_numpy(),
        "queue": ts["queue_count"].to_numpy(),
        "goodput": (ts["goodput_count"] / step_min).round(2).to_numpy(),
        "wasted": (ts["wasted_count"] / step_min).round(2).to_numpy(),
    })
    marks = []
    if outage_s is not None:
        band = pd.DataFrame({"start": _dwfm_clock(pd.Series([float(outage_s[0])])),
                             "end": _dwfm_clock(pd.Series([float(outage_s[1])])),
                             "what": ["DynamoDB unreachable"]})
        marks.append(alt.Chart(band).mark_rect(color="#999", opacity=0.18).encode(
            x="start:T", x2="end:T", tooltip=["what:N"]))
    if operator_at_s is not None:
        rule = pd.DataFrame({"at": _dwfm_clock(pd.Series([float(operator_at_s)])),
                             "what": ["Operators throttle and restart"]})
        marks.append(alt.Chart(rule).mark_rule(color=PALETTE[3], strokeDash=[5, 3], size=2).encode(
            x="at:T", tooltip=["what:N"]))

    def panel(body: alt.Chart, height: int) -> alt.LayerChart:
        return alt.layer(*marks, body).properties(width=width, height=height)

    base = alt.Chart(data)
    leased = base.mark_line(color=PALETTE[0], strokeWidth=2).encode(
        x=_DWFM_X_UPPER, y=alt.Y("leased:Q", title="Droplets with a lease"),
        tooltip=[alt.Tooltip("clock:T", format="%H:%M", title="time"), "leased:Q"])
    names = [v[0] for v in _DWFM_WORK.values()]
    work = base.transform_fold(list(_DWFM_WORK), as_=["key", "per_min"]).transform_calculate(
        kind=f"datum.key == 'goodput' ? '{names[0]}' : '{names[1]}'"
    ).mark_area(opacity=0.85).encode(
        x=_DWFM_X_UPPER, y=alt.Y("per_min:Q", stack=True, title="Items finished per minute"),
        color=alt.Color("kind:N", scale=alt.Scale(domain=names, range=[v[1] for v in _DWFM_WORK.values()]),
                        legend=alt.Legend(title=None, orient="bottom", labelLimit=400)),
        order=alt.Order("key:N", sort="ascending"),
        tooltip=[alt.Tooltip("clock:T", format="%H:%M", title="time"), "kind:N",
                 alt.Tooltip("per_min:Q", format=".1f", title="per minute")])
    queue = base.mark_line(color=PALETTE[6], strokeWidth=2).encode(
        x=_DWFM_X, y=alt.Y("queue:Q", title="Items waiting in queues"),
        tooltip=[alt.Tooltip("clock:T", format="%H:%M", title="time"), "queue:Q"])
    chart = alt.vconcat(panel(leased, 130), panel(work, 150), panel(queue, 110)).properties(
        title="DWFM through the DynamoDB outage: leases, goodput and queues",
        description=(
            "Three panels over PDT clock time. Top: droplets holding a lease. Middle: work items "
            "finished per minute, stacked, split into those finished in time (goodput) and those "
            "wasted because they finished after their deadline. Bottom: items waiting in the DWFM "
            "queues. A grey band marks DynamoDB's outage; a dashed rule marks the operators' action."
            + _binned_note(bin_s, "leases and queue are each bin's mean, finished items its rate per minute")
        ),
    )
    return _base_config(chart)


def dwfm_phase_chart(sweep: pd.DataFrame, *, cell_px: int = 50) -> alt.FacetChart:
    """The metastable region: which fleet sizes and outage lengths recover by themselves.

    Args:
        sweep: the frame from :func:`labsupport.dwfm_sweep.sweep` (columns
            ``throttle_by_queue_length``, ``fleet_droplets_count``, ``outage_s``, ``recovered``,
            ``recovery_after_outage_s``).
        cell_px: width of one cell in pixels (20 to 200); cells are half as high.

    Returns:
        A heat map per throttle setting, one above the other: one cell per (fleet size, outage length), labelled with the
        time from DynamoDB's return to the last lease, or "stuck" when there is none in the horizon.

    Raises:
        ValueError: ``sweep`` not a DataFrame, missing a column or empty; a bad cell size.
    """
    check_int("cell_px", cell_px, lo=20, hi=200)
    _frame("sweep", sweep, ("throttle_by_queue_length", "fleet_droplets_count", "outage_s", "recovered",
                            "recovery_after_outage_s"),
           numeric=("fleet_droplets_count", "outage_s", "recovery_after_outage_s"),
           empty="a sweep holds at least one (fleet size, outage length) cell")
    rec = sweep["recovery_after_outage_s"]
    data = pd.DataFrame({
        "guard": sweep["throttle_by_queue_length"].map(
            {False: "no admission control", True: "throttle_by_queue_length"}),
        "fleet": sweep["fleet_droplets_count"].astype("int64"),
        "outage": sweep["outage_s"].map(format_duration),
        "outage_s": sweep["outage_s"],
        "recovered": sweep["recovered"].astype(bool),
        "hours": (rec / 3600).round(2).fillna(0.0),
        "label": [format_duration(v) if ok else "stuck" for v, ok in zip(rec, sweep["recovered"])],
    })
    outages = data.sort_values("outage_s")["outage"].unique().tolist()[::-1]
    x = alt.X("fleet:O", title="Fleet size (droplets)", axis=alt.Axis(labelAngle=0))
    y = alt.Y("outage:O", title="DynamoDB outage", sort=outages)
    tip = ["guard:N", "fleet:O", "outage:O", alt.Tooltip("label:N", title="recovery after outage")]
    cells = alt.Chart().mark_rect(stroke="white").encode(
        x=x, y=y, tooltip=tip,
        color=alt.condition("datum.recovered",
                            alt.Color("hours:Q", title="Hours to recover",
                                      scale=alt.Scale(range=["#eaf2fb", "#7fb0de"]),
                                      legend=alt.Legend(orient="bottom", direction="horizontal")),
                            alt.value(PALETTE[1])))
    text = alt.Chart().mark_text(fontSize=10).encode(
        x=x, y=y, text="label:N",
        color=alt.condition("datum.recovered", alt.value("#111"), alt.value("white")))
    chart = alt.layer(cells, text, data=data).properties(
        width=cell_px * data["fleet"].nunique(), height=cell_px // 2 * len(outages)
    ).facet(row=alt.Row("guard:N", title=None, sort=["no admission control", "throttle_by_queue_length"],
                        header=alt.Header(labelAngle=0, labelAlign="left", labelFontSize=12,
                                          labelOrient="top", labelFontWeight="bold"))).properties(
        title="Where DWFM recovers by itself, without operators",
        description=(
            "Two heat maps, one above the other: without and with admission control by queue "
            "length. Columns are fleet "
            "sizes, rows DynamoDB outage lengths. Each cell shows the time from DynamoDB's return to "
            "the last lease re-established, or 'stuck' (dark orange) when the collapse sustained "
            "itself to the end of the simulated horizon."
        ),
    )
    return _base_config(chart)


def dwfm_explorer_chart(grid: pd.DataFrame, *, width: int = 480) -> alt.VConcatChart:
    """In-page explorer for the static book: a checkbox and a radio filter precomputed runs.

    Args:
        grid: the frame from :func:`labsupport.dwfm_sweep.explorer_grid` (columns
            ``fleet_droplets_count``, ``throttle_by_queue_length``, ``time_s``, ``leased_fraction``,
            ``goodput_per_min``, ``wasted_per_min``).
        width: chart width in pixels (100 to 4000).

    Returns:
        Two panels (droplets with a lease; goodput vs wasted work) with Vega-Lite parameters bound
        to a checkbox (``throttle_by_queue_length``) and radio buttons (fleet size). Changing them
        in the browser shows another precomputed run; no kernel is needed.

    Raises:
        ValueError: a missing column, an empty grid or a bad width.
    """
    _width(width)
    cols = ("fleet_droplets_count", "throttle_by_queue_length", "time_s", "leased_fraction",
            "goodput_per_min", "wasted_per_min")
    _frame("grid", grid, cols, numeric=cols, empty="explorer_grid() holds at least one run")
    data = grid.loc[:, list(cols)].assign(clock=_dwfm_clock(grid["time_s"]),
                                          leased_pct=(grid["leased_fraction"] * 100).round(1),
                                          goodput=grid["goodput_per_min"].round(2),
                                          wasted=grid["wasted_per_min"].round(2))
    data = data.drop(columns=["time_s", "leased_fraction", "goodput_per_min", "wasted_per_min"])
    fleets = sorted(int(v) for v in data["fleet_droplets_count"].unique())
    throttle = alt.param(name="throttle", value=False,
                         bind=alt.binding_checkbox(name="throttle_by_queue_length (admission control) "))
    fleet = alt.param(name="fleet", value=fleets[len(fleets) // 2],
                      bind=alt.binding_radio(options=fleets, name="Fleet size (droplets): "))
    base = alt.Chart(data).transform_filter(
        "datum.throttle_by_queue_length == throttle && datum.fleet_droplets_count == fleet")
    tip = alt.Tooltip("clock:T", format="%H:%M", title="time")
    leased = base.mark_line(color=PALETTE[0], strokeWidth=2).encode(
        x=_DWFM_X_UPPER, y=alt.Y("leased_pct:Q", title="Droplets with a lease (%)",
                           scale=alt.Scale(domain=[0, 100])),
        tooltip=[tip, alt.Tooltip("leased_pct:Q", title="% leased")],
    ).properties(width=width, height=140).add_params(throttle, fleet)
    names = [v[0] for v in _DWFM_WORK.values()]
    work = base.transform_fold(list(_DWFM_WORK), as_=["key", "per_min"]).transform_calculate(
        kind=f"datum.key == 'goodput' ? '{names[0]}' : '{names[1]}'"
    ).mark_area(opacity=0.85).encode(
        x=_DWFM_X, y=alt.Y("per_min:Q", stack=True, title="Items finished per minute"),
        color=alt.Color("kind:N", scale=alt.Scale(domain=names, range=[v[1] for v in _DWFM_WORK.values()]),
                        legend=alt.Legend(title=None, orient="bottom", labelLimit=400)),
        order=alt.Order("key:N", sort="ascending"),
        tooltip=[tip, "kind:N", alt.Tooltip("per_min:Q", format=".1f", title="per minute")],
    ).properties(width=width, height=150)
    chart = alt.vconcat(leased, work).properties(
        title="Try it: admission control and fleet size (precomputed runs, no operators)",
        description=(
            "Two panels over PDT clock time for the run chosen with the checkbox and radio buttons "
            "below the chart: the percentage of droplets holding a lease, and the work items "
            "finished per minute split into goodput and wasted work. Without admission control, "
            "large fleets stay collapsed: the hosts keep finishing work, all of it wasted."
        ),
    )
    return _base_config(chart)


# --- explore ---

#: Lanes of the explorer's sequence chart, top to bottom (Enactor names as in labsupport.race).
_EXPLORE_LANES = ("planner", "enactor-a", "enactor-b", "enactor-c", "route53")
_EXPLORE_GROUP_EXTRA = {"pick": "pick newest plan", "check_dropped": "one-time check",
                        "cleanup_done": "clean-up delete"}
_EXPLORE_ROLE_LABELS = {"stale check": "stale check", "stale overwrite": "stale overwrite",
                        "active plan deleted": "active plan deleted"}


def explore_sequence_chart(steps: pd.DataFrame, *, width: int = 540,
                           title: str = "The shortest counterexample, step by step") -> alt.LayerChart:
    """Sequence chart of an explorer path: one lane per actor, steps on x, one mark per step.

    Drawn in the style of :func:`race_sequence_chart` (same lanes, colours and shapes), with
    numbered steps in place of seconds, because the explorer has no clock: only the order matters.

    Args:
        steps: ``labsupport.explore.Result.events`` or ``.stuck_path`` (columns ``step``, ``actor``,
            ``race_action``, ``plan_generation``, ``endpoint``, ``outcome``, ``role``,
            ``empty_after``); at least one row.
        width: chart width in pixels (100-4000).
        title: the chart title.

    Returns:
        A layered chart: a mark per step, coloured and shaped by action group, its plan generation
        written next to it, a ``route53`` lane marking when an endpoint goes empty, and labelled
        dashed rules at the stale check, the stale overwrite and the deletion of the active plan.

    Raises:
        ValueError: ``steps`` not a DataFrame, missing a column or empty; a title that is not a
            non-empty string; a bad width.
    """
    _width(width)
    _frame("steps", steps, ("step", "actor", "race_action", "plan_generation", "endpoint", "outcome", "role",
                            "empty_after"), numeric=("step", "empty_after"),
           empty="the explorer found no path to draw (the property holds); draw this chart only for an "
                 "unsafe result")
    if not isinstance(title, str) or not title.strip():
        raise ConfigError(f"title must be a non-empty string, got {title!r}")
    d = pd.DataFrame({
        "step": steps["step"].astype(int), "actor": steps["actor"].astype(str),
        "group": steps["race_action"].astype(str).map(lambda a: _EXPLORE_GROUP_EXTRA.get(
            a, RACE_ACTION_GROUPS.get(a, a))),
        "plan": steps["plan_generation"].map(lambda g: f"p{g}" if g else ""),
        "endpoint": steps["endpoint"].astype(str), "outcome": steps["outcome"].astype(str),
        "role": steps["role"].astype(str),
    })
    went_empty = steps.loc[steps["empty_after"] & ~steps["empty_after"].shift(fill_value=False)]
    d = pd.concat([d, pd.DataFrame({
        "step": went_empty["step"].astype(int), "actor": "route53",
        "group": RACE_ACTION_GROUPS["endpoint_empty"], "plan": "",
        "endpoint": went_empty["endpoint"].astype(str),
        "outcome": "alias points at a deleted plan: NOERROR with 0 answers", "role": ""})], ignore_index=True)
    lanes = [a for a in _EXPLORE_LANES if a in set(d["actor"])]
    styles = {**_RACE_GROUP_STYLE, "pick newest plan": (PALETTE[0], "circle")}
    groups = [g for g in styles if g in set(d["group"])]
    n = int(d["step"].max())
    x = alt.X("step:Q", title="step (the explorer has no clock: only the order of steps matters)",
              scale=alt.Scale(domain=[0.5, n + 0.5]), axis=alt.Axis(tickMinStep=1, format="d"))
    y = alt.Y("actor:N", sort=lanes, title=None)
    points = alt.Chart(d).mark_point(size=90, filled=True, opacity=0.95).encode(
        x=x, y=y,
        color=alt.Color("group:N", title="Action", scale=alt.Scale(domain=groups, range=[styles[g][0] for g in groups]),
                        legend=alt.Legend(orient="bottom", columns=3)),
        shape=alt.Shape("group:N", scale=alt.Scale(domain=groups, range=[styles[g][1] for g in groups])),
        tooltip=["step:Q", "actor:N", "group:N", "plan:N", "endpoint:N", "outcome:N"],
    )
    plans = alt.Chart(d).mark_text(dy=-13, fontSize=11, color="#222").encode(x=x, y=y, text="plan:N")
    key = d.loc[d["role"].isin(_EXPLORE_ROLE_LABELS)].assign(label=lambda k: k["role"].map(_EXPLORE_ROLE_LABELS))
    rules = alt.Chart(key).mark_rule(strokeDash=[4, 3], color="#222", opacity=0.6).encode(x="step:Q")
    labels = alt.Chart(key).mark_text(align="left", dx=6, dy=12, fontSize=11, fontWeight="bold", color="#222").encode(
        x="step:Q", y=y, text="label:N")
    chart = alt.layer(rules, points, plans, labels).properties(
        width=width, height=44 * max(len(lanes), 3), title=title,
        description=(f"Sequence chart of {n} steps found by the exhaustive explorer: lanes for {', '.join(lanes)}; "
                     f"each mark is one atomic step ({', '.join(groups)}), labelled with its plan generation; "
                     "dashed rules mark " + (", ".join(key["label"]) or "no key moment") + "."),
    )
    return _base_config(chart)


_EXPLORE_VERDICTS = {"safe": "safe (never empty)", "recovers": "recovers (never stuck)",
                     "stale_overwrite_reachable": "stale overwrite possible",
                     "alert_reachable": "guard-3 alert possible"}


def explore_verdict_chart(table: pd.DataFrame, *, cell_px: int = 26) -> alt.LayerChart:
    """The verdict table as a grid: one row per guard combination, one column per property.

    Args:
        table: ``labsupport.explore.verdict_table()`` or ``verdict_rows()`` (columns ``guards``, ``safe``, ``recovers``,
            ``stale_overwrite_reachable``, ``alert_reachable``, ``states_count``).
        cell_px: height of one row in pixels (12-80).

    Returns:
        A grid of coloured cells with "yes"/"no" written in each, rows in the table's order.

    Raises:
        ValueError: ``table`` not a DataFrame, missing a column or empty; a bad cell size.
    """
    check_int("cell_px", cell_px, lo=12, hi=80)
    _frame("table", table, ("guards", "states_count", *_EXPLORE_VERDICTS), numeric=("states_count",),
           empty="verdict_table() holds one row per guard combination")
    rows = list(table["guards"].astype(str))
    long = table.melt(id_vars=["guards", "states_count"], value_vars=list(_EXPLORE_VERDICTS),
                      var_name="key", value_name="holds")
    def meaning(key: str, holds: bool) -> str:
        if key == "alert_reachable" and holds:
            return "alert: a person is paged"
        return "good" if holds == (key in ("safe", "recovers")) else "bad"

    long = long.assign(property=long["key"].map(_EXPLORE_VERDICTS), holds=long["holds"].astype(bool),
                       answer=long["holds"].map({True: "yes", False: "no"}),
                       meaning=[meaning(k, bool(h)) for k, h in zip(long["key"], long["holds"])])
    kinds = ["good", "bad", "alert: a person is paged"]
    enc = {"x": alt.X("property:N", sort=list(_EXPLORE_VERDICTS.values()), title=None,
                      # Two lines per label (split at the last space), so the columns never collide.
                      axis=alt.Axis(orient="top", labelAngle=0, labelLimit=200, labelPadding=20,
                                    labelExpr=("[slice(datum.label, 0, lastindexof(datum.label, ' ')),"
                                               " slice(datum.label, lastindexof(datum.label, ' ') + 1)]"))),
           "y": alt.Y("guards:N", sort=rows, title="guards on")}
    cells = alt.Chart(long).mark_rect(stroke="white").encode(
        **enc, color=alt.Color("meaning:N", scale=alt.Scale(domain=kinds, range=[PALETTE[2], PALETTE[5], PALETTE[4]]),
                               legend=alt.Legend(title="For the endpoint", orient="bottom")),
        tooltip=["guards:N", "property:N", "answer:N", alt.Tooltip("states_count:Q", title="states explored")])
    text = alt.Chart(long).mark_text(color="white", fontWeight="bold").encode(**enc, text="answer:N")
    chart = alt.layer(cells, text).properties(
        width=480, height=cell_px * len(rows),
        title=("Every interleaving: what can happen with these guards" if len(rows) == 1 else
               f"Every interleaving, {len(rows)} guard combinations: what can happen"),
        description=("Grid with one row per combination of the four guards and four columns: safe, recovers, "
                     "stale overwrite possible, guard-3 alert possible. Each cell says yes or no, as computed by "
                     "exhaustive search; green is good for the endpoint, red is bad, amber marks an alert."),
    )
    return _base_config(chart)


# --- recovery (network, nlb, dns_cache) ---


def _recovery_clock(time_s: pd.Series | list[float], origin: pd.Timestamp) -> pd.Series:
    """Seconds since ``origin`` (naive PDT) → naive PDT wall-clock ISO strings (Vega-Lite local)."""
    return (origin + pd.to_timedelta(pd.Series(time_s, dtype="float64"), unit="s")).dt.strftime(
        "%Y-%m-%dT%H:%M:%S")


def _recovery_rules(marks: dict[str, float | None], origin: pd.Timestamp) -> list[alt.Chart]:
    """Dashed vertical rules with a tooltip, one per named moment (``None`` moments are skipped).

    ``marks`` is checked here: a mapping of non-empty strings to ``None`` or a time in seconds
    (0 to a year); anything else raises ValueError naming ``actions`` (the public argument).
    """
    if not isinstance(marks, Mapping):
        raise ConfigError(f"actions must be None or a dict of name -> seconds, got {type(marks).__name__}")
    for what, at in marks.items():
        if not isinstance(what, str) or not what.strip():
            raise ConfigError(f"actions must be named by non-empty strings, got {what!r}")
        _seconds(f"actions[{what!r}]", at, optional=True)
    rows = [(what, float(at)) for what, at in marks.items() if at is not None]
    if not rows:
        return []
    data = pd.DataFrame({"what": [w for w, _ in rows],
                         "at": _recovery_clock([float(a) for _, a in rows], origin)})
    return [alt.Chart(data).mark_rule(color=PALETTE[3], strokeDash=[5, 3], size=2).encode(
        x="at:T", tooltip=["what:N", alt.Tooltip("at:T", format="%H:%M", title="time")])]


def network_backlog_chart(timeseries: pd.DataFrame, *, normal_delay_s: float = 120.0,
                          origin: pd.Timestamp | None = None, width: int = 560) -> alt.VConcatChart:
    """Network Manager's queue and the delay new instances waited for their network state.

    Args:
        timeseries: :attr:`labsupport.network.NetworkResult.timeseries` (columns ``time_s``,
            ``queue_count``, ``unconfigured_count``, ``mean_delay_s``; the last is NaN in an
            interval in which no instance received its configuration).
        normal_delay_s: the "normal" delay, drawn as a horizontal rule (seconds, > 0, at most a day).
        origin: naive PDT time of ``time_s = 0``; default 5:28 AM on 20 Oct 2025.
        width: chart width in pixels (100 to 4000).

    Returns:
        Two stacked panels on a PDT clock axis: items waiting and instances without connectivity;
        mean launch-to-connectivity delay (minutes) of the instances configured in each interval.
        Intervals with no delivery have no delay: the line has a gap there (a lone measured
        interval between two gaps is drawn as a dot), and the description gives their number.

    Raises:
        ValueError: ``timeseries`` not a DataFrame, missing a column or empty; ``normal_delay_s``
            not a finite number in (0, 86400]; a bad ``origin`` or width.
    """
    from .network import START_PDT

    _width(width)
    cols = ("time_s", "queue_count", "unconfigured_count", "mean_delay_s")
    _frame("timeseries", timeseries, cols, numeric=cols, empty=_SAMPLED_FROM_0)
    normal_delay_s = _number("normal_delay_s", normal_delay_s, lo=0.0, lo_open=True, hi=86_400.0)
    origin = _origin(origin, START_PDT)
    ts, bin_s = _to_resolution(timeseries.sort_values("time_s", kind="stable"))
    data = pd.DataFrame({
        "clock": _recovery_clock(ts["time_s"], origin),
        "Items waiting at Network Manager": ts["queue_count"].to_numpy(),
        "New instances without connectivity": ts["unconfigured_count"].to_numpy(),
    })
    # Intervals with no delivery have no delay (NaN). They are left out of the delay data, and each
    # stretch of measured intervals is its own line (``detail``), so every such interval is a gap
    # whatever the Vega-Lite version's default for null values. A stretch of one interval would be
    # a path of one point, invisible: it gets a dot.
    measured = ts["mean_delay_s"].notna().to_numpy()
    gaps = int((~measured).sum())
    stretch = np.cumsum(measured & ~np.concatenate([[False], measured[:-1]]))
    delays = pd.DataFrame({"clock": data["clock"].to_numpy(), "stretch": stretch,
                           "delay_min": (ts["mean_delay_s"] / 60).round(2).to_numpy()})[measured]
    lone = delays.loc[delays.groupby("stretch")["clock"].transform("size") == 1]
    # One time domain for both panels, so that a gap at either end of the delay line shows as one.
    span = alt.Scale(domain=[data["clock"].iloc[0], data["clock"].iloc[-1]])
    x_top = alt.X("clock:T", title=None, axis=alt.Axis(format="%H:%M"), scale=span)
    x = alt.X("clock:T", title="20 October 2025, PDT", axis=alt.Axis(format="%H:%M"), scale=span)
    names = ["Items waiting at Network Manager", "New instances without connectivity"]
    counts = alt.Chart(data).transform_fold(names, as_=["what", "count"]).mark_line(strokeWidth=2).encode(
        x=x_top, y=alt.Y("count:Q", title="Count (model sample)"),
        color=alt.Color("what:N", scale=alt.Scale(domain=names, range=[PALETTE[6], PALETTE[1]]),
                        legend=alt.Legend(title=None, orient="bottom", labelLimit=400)),
        tooltip=[alt.Tooltip("clock:T", format="%H:%M", title="time"), "what:N", "count:Q"])
    tip = [alt.Tooltip("clock:T", format="%H:%M", title="time"),
           alt.Tooltip("delay_min:Q", format=".1f", title="minutes")]
    y_delay = alt.Y("delay_min:Q", title="Launch to connectivity (min)")
    delay_line = alt.Chart(delays).mark_line(color=PALETTE[0], strokeWidth=2).encode(
        x=x, y=y_delay, detail="stretch:N", tooltip=tip)
    dots = alt.Chart(lone).mark_point(color=PALETTE[0], filled=True, size=30).encode(x=x, y=y_delay, tooltip=tip)
    normal = alt.Chart(pd.DataFrame({"y": [normal_delay_s / 60]})).mark_rule(
        color="#555", strokeDash=[2, 2]).encode(y="y:Q")
    gap_text = (f" Gaps in that line are the {gaps} of {len(data)} intervals in which no instance received its "
                "configuration, so no delay was measured; they are left out, not drawn as zero." if gaps else "")
    chart = alt.vconcat(counts.properties(width=width, height=140),
                        alt.layer(delay_line, dots, normal).properties(width=width, height=120)).properties(
        title="Network Manager works through its backlog",
        description=(
            f"Two panels over PDT clock time from {origin:%-I:%M %p}. Top: items waiting at Network Manager and "
            "new instances still without network connectivity. Bottom: the mean time, in minutes, "
            "from a new instance's launch to its network configuration arriving, for instances "
            "configured in each interval; a dotted line marks the delay counted as normal." + gap_text
            + _binned_note(bin_s, "each point is the bin's mean, of the measured intervals for the delay")
        ),
    )
    return _base_config(chart)


def nlb_timeseries_chart(timeseries: pd.DataFrame, *, actions: dict[str, float | None] | None = None,
                         threshold_s: float | None = None, origin: pd.Timestamp | None = None,
                         width: int = 560) -> alt.VConcatChart:
    """One NLB run: capacity vs demand, connection errors, fleet flaps, health-check latency.

    Args:
        timeseries: :attr:`labsupport.nlb.NlbResult.timeseries`.
        actions: name -> time (seconds) of moments to mark with dashed rules (e.g. failover
            disabled), ``None`` times skipped.
        threshold_s: the failover delay threshold, drawn on the latency panel; ``None`` for none.
        origin: naive PDT time of ``time_s = 0``; default 5:28 AM on 20 Oct 2025.
        width: chart width in pixels (100 to 4000).

    Returns:
        Four stacked panels sharing a PDT clock axis.

    Raises:
        ValueError: ``timeseries`` not a DataFrame, missing a column or empty; ``actions`` not
            ``None`` or a dict of names to ``None``/seconds; ``threshold_s`` not ``None`` or a
            finite number >= 0; a bad ``origin`` or width.
    """
    from .network import START_PDT

    _width(width)
    cols = ("time_s", "capacity_fraction", "working_capacity_fraction", "demand_fraction", "error_fraction",
            "check_latency_s", "fleet_flaps_per_min")
    _frame("timeseries", timeseries, cols, numeric=cols, empty=_SAMPLED_FROM_0)
    threshold_s = _number("threshold_s", threshold_s, lo=0.0, hi=_MAX_S, optional=True)
    origin = _origin(origin, START_PDT)
    ts, bin_s = _to_resolution(timeseries.sort_values("time_s", kind="stable"))
    names = ["Capacity in service", "Working capacity in service", "Demand"]
    data = pd.DataFrame({
        "clock": _recovery_clock(ts["time_s"], origin),
        names[0]: ts["capacity_fraction"].round(4).to_numpy(),
        names[1]: ts["working_capacity_fraction"].round(4).to_numpy(),
        names[2]: ts["demand_fraction"].to_numpy(),
        "errors": ts["error_fraction"].round(4).to_numpy(),
        "flaps": ts["fleet_flaps_per_min"].round(1).to_numpy(),
        "latency": ts["check_latency_s"].round(1).to_numpy(),
    })
    rules = _recovery_rules({} if actions is None else actions, origin)
    x_top = alt.X("clock:T", title=None, axis=alt.Axis(format="%H:%M", labels=False))
    x = alt.X("clock:T", title="20 October 2025, PDT", axis=alt.Axis(format="%H:%M"))
    when = alt.Tooltip("clock:T", format="%H:%M", title="time")
    base = alt.Chart(data)
    capacity = base.transform_fold(names, as_=["what", "fraction"]).mark_line(strokeWidth=2).encode(
        x=x_top, y=alt.Y("fraction:Q", title="Fraction of capacity", axis=alt.Axis(format="%")),
        color=alt.Color("what:N", scale=alt.Scale(domain=names, range=[PALETTE[0], PALETTE[2], PALETTE[1]]),
                        legend=alt.Legend(title=None, orient="top", labelLimit=400)),
        strokeDash=alt.StrokeDash("what:N", scale=alt.Scale(domain=names, range=[[1, 0], [4, 2], [2, 2]]),
                                  legend=None),
        tooltip=[when, "what:N", alt.Tooltip("fraction:Q", format=".0%")])
    errors = base.mark_area(color=PALETTE[5], opacity=0.8).encode(
        x=x_top, y=alt.Y("errors:Q", title="Connections failing", axis=alt.Axis(format="%")),
        tooltip=[when, alt.Tooltip("errors:Q", format=".1%", title="failing")])
    flaps = base.mark_line(color=PALETTE[4], strokeWidth=2).encode(
        x=x_top, y=alt.Y("flaps:Q", title="Fleet flaps / min"),
        tooltip=[when, alt.Tooltip("flaps:Q", format=",.0f", title="flaps per minute")])
    latency = [base.mark_line(color=PALETTE[6], strokeWidth=2).encode(
        x=x, y=alt.Y("latency:Q", title="Check latency (s)"),
        tooltip=[when, alt.Tooltip("latency:Q", format=",.0f", title="seconds")])]
    if threshold_s is not None:
        latency.append(alt.Chart(pd.DataFrame({"y": [float(threshold_s)]})).mark_rule(
            color="#555", strokeDash=[2, 2]).encode(y="y:Q", tooltip=[alt.Tooltip("y:Q", title="failover threshold (s)")]))
    panels = [alt.layer(*rules, capacity).properties(width=width, height=150),
              alt.layer(*rules, errors).properties(width=width, height=90),
              alt.layer(*rules, flaps).properties(width=width, height=90),
              alt.layer(*rules, *latency).properties(width=width, height=100)]
    chart = alt.vconcat(*panels).properties(
        title="One NLB through the propagation backlog",
        description=(
            "Four panels over PDT clock time. 1: capacity in service, working capacity in service "
            "(targets that have their network state) and demand, as fractions of registered "
            "capacity. 2: fraction of client connections failing. 3: fleet-wide target flaps per "
            "minute. 4: health-check latency in the worst AZ, with the failover threshold dotted. "
            "Dashed rules mark operator actions."
            + _binned_note(bin_s, "each point is the bin's mean")
        ),
    )
    return _base_config(chart)


def nlb_capacity_comparison_chart(runs: dict[str, pd.DataFrame], *, floor: float | None = None,
                                  origin: pd.Timestamp | None = None, width: int = 560) -> alt.LayerChart:
    """Capacity in service of several NLB runs on one axis, with an optional floor line.

    Args:
        runs: label -> :attr:`labsupport.nlb.NlbResult.timeseries` (columns ``time_s``,
            ``capacity_fraction``, ``demand_fraction``); at most 7 runs.
        floor: a capacity fraction to draw as a horizontal rule (e.g. the velocity control's floor).
        origin: naive PDT time of ``time_s = 0``; default 5:28 AM on 20 Oct 2025.
        width: chart width in pixels (100 to 4000).

    Returns:
        One line per run, demand dotted, the floor dashed.

    Raises:
        ValueError: ``runs`` not a dict of 1 to 7 non-empty DataFrames with the columns, labelled
            by non-empty strings; ``floor`` not ``None`` or a fraction in [0, 1]; a bad ``origin``
            or width.
    """
    from .network import START_PDT

    _width(width)
    cols = ("time_s", "capacity_fraction", "demand_fraction")
    runs = _runs("runs", runs, cols, numeric=cols, empty=_SAMPLED_FROM_0)
    floor = _number("floor", floor, lo=0.0, hi=1.0, optional=True)
    origin = _origin(origin, START_PDT)
    frames = []
    for label, ts in runs.items():
        frames.append(pd.DataFrame({"clock": _recovery_clock(ts["time_s"], origin), "run": label,
                                    "fraction": ts["capacity_fraction"].round(4).to_numpy()}))
    data = pd.concat(frames, ignore_index=True)
    labels = list(runs)
    lines = alt.Chart(data).mark_line(strokeWidth=2).encode(
        x=alt.X("clock:T", title="20 October 2025, PDT", axis=alt.Axis(format="%H:%M")),
        y=alt.Y("fraction:Q", title="Capacity in service", axis=alt.Axis(format="%"),
                scale=alt.Scale(domain=[0, 1.05])),
        color=alt.Color("run:N", scale=alt.Scale(domain=labels, range=_series_range(labels)),
                        legend=alt.Legend(title=None, orient="bottom", columns=2, labelLimit=400)),
        tooltip=[alt.Tooltip("clock:T", format="%H:%M", title="time"), "run:N",
                 alt.Tooltip("fraction:Q", format=".0%")])
    demand = float(next(iter(runs.values()))["demand_fraction"].iloc[0])
    levels = pd.DataFrame({"y": [demand] + ([floor] if floor is not None else []),
                           "what": ["demand"] + (["floor"] if floor is not None else [])})
    rules = alt.Chart(levels).mark_rule(color="#555").encode(
        y="y:Q", strokeDash=alt.StrokeDash("what:N", scale=alt.Scale(domain=["demand", "floor"],
                                                                      range=[[2, 2], [6, 3]]),
                                           legend=alt.Legend(title=None, orient="bottom", columns=2)),
        tooltip=["what:N", alt.Tooltip("y:Q", format=".0%")])
    chart = alt.layer(rules, lines).properties(
        width=width, height=220, title="Capacity in service, run by run",
        description=(
            f"One line per run ({', '.join(labels)}) of the NLB's capacity in service as a fraction "
            "of its registered capacity over PDT clock time; a dotted line marks demand"
            + (" and a dashed line the stated floor." if floor is not None else ".")
        ),
    )
    return _base_config(chart)


#: Bin widths, in seconds, that :func:`dns_failing_chart` may aggregate into (the first that fits).
_BIN_WIDTHS_S = (1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1_800, 3_600, 7_200, 14_400, 21_600, 43_200,
                 86_400)


def _bin_width_s(spans_s: list[float], budget: int) -> float:
    """The smallest width of :data:`_BIN_WIDTHS_S` (or whole days) that gives at most ``budget`` bins."""
    for b in _BIN_WIDTHS_S:
        if sum(math.floor(span / b) + 1 for span in spans_s) <= budget:
            return float(b)
    days = math.ceil(sum(spans_s) / budget / 86_400) + 1
    return 86_400.0 * days


def dns_failing_chart(runs: dict[str, pd.DataFrame], *, restored_s: float,
                      origin: pd.Timestamp | None = None, start_s: float = 0.0,
                      width: int = 560) -> alt.LayerChart:
    """Fraction of clients failing over time, for one or more DNS-cache runs.

    Args:
        runs: label -> :attr:`labsupport.dns_cache.DnsCacheResult.timeseries` (columns
            ``time_s``, ``failing_fraction``); 1 to 7 runs, none empty.
        restored_s: when the authoritative record came back (seconds), drawn as a rule.
        origin: naive PDT time of ``time_s = 0``; default 11:48 PM on 19 Oct 2025.
        start_s: leave out rows before this time (seconds), to zoom on the recovery.
        width: chart width in pixels (100 to 4000).

    Returns:
        One step line per run and a rule at the restore. Every sample is drawn while all runs
        together hold at most 3,000 rows in the window; beyond that the samples are aggregated
        into time bins of one width for all runs (the smallest of 1 s, 2 s, 5 s, ... 1 day that
        fits): the line is each bin's mean and a faint band spans its lowest to highest value, and
        the bin width is stated in the y-axis title and the description. A window that holds no
        sample of any run gives a chart that says so.

    Raises:
        ValueError: ``runs`` not a dict of 1 to 7 non-empty DataFrames with the columns, labelled by
            non-empty strings; ``restored_s`` or ``start_s`` not a finite time (seconds, within a
            year); a bad ``origin`` or width.
    """
    from .dns_cache import START_PDT

    _width(width)
    cols = ("time_s", "failing_fraction")
    runs = _runs("runs", runs, cols, numeric=cols, empty=_SAMPLED_FROM_0)
    restored_s = _seconds("restored_s", restored_s)
    start_s = _seconds("start_s", start_s, window=True)
    origin = _origin(origin, START_PDT)
    labels = list(runs)
    title = "Clients failing to resolve the endpoint"
    windows = {label: ts.loc[ts["time_s"] >= start_s].sort_values("time_s", kind="stable")
               for label, ts in runs.items()}
    kept = {label: w for label, w in windows.items() if len(w)}
    if not kept:
        last = max(float(ts["time_s"].max()) for ts in runs.values())
        at = _recovery_clock([start_s, last], origin).str.slice(11, 16).tolist()
        nothing = f"No sample from {at[0]} PDT on: {'the runs end' if len(runs) > 1 else 'the run ends'} at {at[1]} PDT"
        return _note_chart(nothing, title=title, width=width, height=220, description=(
            f"Fraction of clients failing, one line per run ({', '.join(labels)}): no run has a sample at or "
            f"after {start_s:.0f} s (the last is at {last:.0f} s), so there is nothing to draw."))
    bin_s = None
    if sum(len(w) for w in kept.values()) > _MAX_ROWS:
        bin_s = _bin_width_s([float(w["time_s"].iloc[-1] - w["time_s"].iloc[0]) for w in kept.values()], _MAX_ROWS)
    frames = []
    for label, w in kept.items():
        if bin_s is None:
            frames.append(pd.DataFrame({"clock": _recovery_clock(w["time_s"], origin).to_numpy(), "run": label,
                                        "failing": w["failing_fraction"].round(4).to_numpy()}))
            continue
        g = w.groupby((w["time_s"] // bin_s) * bin_s)["failing_fraction"]
        mean = g.mean()
        frames.append(pd.DataFrame({"clock": _recovery_clock(mean.index.to_series(), origin).to_numpy(), "run": label,
                                    "failing": mean.round(4).to_numpy(), "lo": g.min().round(4).to_numpy(),
                                    "hi": g.max().round(4).to_numpy()}))
    data = pd.concat(frames, ignore_index=True)
    if bin_s is not None:
        data["band"] = data["run"].map(dict(zip(labels, PALETTE)))
    binned = "" if bin_s is None else f" (mean per {_bin_label(bin_s)} bin)"
    x = alt.X("clock:T", title="19–20 October 2025, PDT", axis=alt.Axis(format="%H:%M"))
    colour = alt.Color("run:N", scale=alt.Scale(domain=labels, range=_series_range(labels)),
                       legend=alt.Legend(title=None, orient="bottom", columns=2, labelLimit=400))
    tip = [alt.Tooltip("clock:T", format="%H:%M:%S", title="time" if bin_s is None else "bin start"), "run:N",
           alt.Tooltip("failing:Q", format=".1%", title="failing" if bin_s is None else "mean failing")]
    if bin_s is not None:
        tip += [alt.Tooltip("lo:Q", format=".1%", title="lowest"), alt.Tooltip("hi:Q", format=".1%", title="highest")]
    lines = alt.Chart(data).mark_line(strokeWidth=2, interpolate="step-after").encode(
        x=x, y=alt.Y("failing:Q", title="Clients failing" + binned, axis=alt.Axis(format="%"),
                     scale=alt.Scale(domain=[0, 1])),
        color=colour, tooltip=tip)
    layers = [*_recovery_rules({"Authoritative record restored": restored_s}, origin)]
    if bin_s is not None:
        layers.append(alt.Chart(data).mark_area(opacity=0.15, interpolate="step-after").encode(
            # The run's colour taken as is (no scale), so that the band adds nothing to the legend.
            x=x, y="lo:Q", y2="hi:Q", detail="run:N", fill=alt.Fill("band:N", scale=None)))
    layers.append(lines)
    missing = [label for label in labels if label not in kept]
    chart = alt.layer(*layers).properties(
        width=width, height=220, title=title,
        description=(
            f"Fraction of clients whose last lookup returned the empty answer, over PDT clock time, "
            f"one line per run ({', '.join(labels)}); a dashed rule marks the moment the "
            "authoritative record was restored."
            + ("" if bin_s is None else
               f" The model's samples are aggregated into {_bin_label(bin_s)} bins: each line is the bin's mean "
               "and the faint band spans its lowest to highest value.")
            + (f" No sample in the window for: {', '.join(missing)}." if missing else "")
        ),
    )
    return _base_config(chart)


def _bin_label(bin_s: float) -> str:
    """``30 s``, ``5 min``, ``2 h``: a bin width of :data:`_BIN_WIDTHS_S` in words."""
    if bin_s < 60:
        return f"{bin_s:.0f} s"
    return f"{bin_s / 60:.0f} min" if bin_s < 3_600 else f"{bin_s / 3_600:.0f} h"


def dns_ttl_chart(frame: pd.DataFrame, *, width: int = 560) -> alt.Chart:
    """Recovery delay after the restore against the negative-caching TTL.

    Args:
        frame: columns ``negative_ttl_s`` (float), ``delay_s`` (float, seconds from the restore
            until the clients recovered; NaN where they did not recover in the run) and ``series``
            (str, one line per value, at most ``len(PALETTE)`` = 7 of them).
        width: chart width in pixels (100 to 4000).

    Returns:
        One line per series, both axes in minutes.

    Raises:
        ValueError: ``frame`` not a DataFrame, missing a column or empty; more than 7 series; a bad
            width.
    """
    _width(width)
    _frame("frame", frame, ("negative_ttl_s", "delay_s", "series"), numeric=("negative_ttl_s", "delay_s"),
           empty="a TTL sweep has at least one point")
    data = pd.DataFrame({"ttl_min": (frame["negative_ttl_s"] / 60).round(2),
                         "delay_min": (frame["delay_s"] / 60).round(2), "series": frame["series"].astype(str)})
    labels = list(dict.fromkeys(data["series"]))
    if len(labels) > len(PALETTE):
        raise ConfigError(f"frame holds {len(labels)} series; at most {len(PALETTE)} (one colour each) can be told "
                         "apart: split it into several charts")
    unrecovered = int(data["delay_min"].isna().sum())
    chart = alt.Chart(data).mark_line(point=True, strokeWidth=2).encode(
        x=alt.X("ttl_min:Q", title="Negative-caching TTL (min)"),
        y=alt.Y("delay_min:Q", title="Restore to clients recovered (min)"),
        color=alt.Color("series:N", scale=alt.Scale(domain=labels, range=_series_range(labels)),
                        legend=alt.Legend(title=None, orient="bottom", labelLimit=500)),
        tooltip=["series:N", alt.Tooltip("ttl_min:Q", title="negative TTL (min)"),
                 alt.Tooltip("delay_min:Q", format=".1f", title="delay (min)")],
    ).properties(
        width=width, height=220, title="How long clients wait after the fix",
        description=("Minutes from the restore of the record until the clients recovered, against "
                     f"the negative-caching TTL in minutes; one line per series ({', '.join(labels)})."
                     + (f" {unrecovered} point(s) where the clients had not recovered by the end of the run are "
                        "left out." if unrecovered else "")),
    )
    return _base_config(chart)


def _explorer_label(row: dict) -> str:
    v = row["regional_empty_s"]
    text = ("regional endpoint empty for " + (format_duration(v) if v >= 60 else f"{v:.0f} s")) if v > 0 \
        else "regional endpoint never empty"
    if row.get("manual_repair"):
        text += ", until the manual repair"
    elif v > 0:
        text += ", no manual repair"
    if row.get("alerts"):
        text += f"; {int(row['alerts'])} alert(s) raised"
    return text


# --- chain ---

#: One colour per stage of :mod:`labsupport.chain`, the colour of the PES impact period it reproduces.
CHAIN_STAGE_COLOURS: dict[str, str] = {"DynamoDB unreachable": PALETTE[0], "Launches failing": PALETTE[1],
                                       "NLB connection errors": PALETTE[2]}
#: Colours of the statuses of :func:`labsupport.dependencies.blast_radius`.
DEPENDENCY_STATUS_COLOURS: dict[str, str] = {"origin": PALETTE[5], "fails": PALETTE[1], "fails over": PALETTE[4],
                                             "degraded": PALETTE[3], "keeps working": PALETTE[2]}
_CHAIN_X = alt.X("start:T", title="19–20 October 2025, PDT", axis=alt.Axis(format="%H:%M"),
                 scale=alt.Scale(domain=["2025-10-19T23:30:00", "2025-10-20T15:00:00"]))


def _chain_clock(time_s: pd.Series | list[float]) -> pd.Series:
    """Seconds since 11:48 PM PDT on 19 Oct → naive PDT wall-clock ISO strings (Vega-Lite local time)."""
    from .chain import START_PDT

    return (START_PDT + pd.to_timedelta(pd.Series(time_s, dtype="float64"), unit="s")).dt.strftime("%Y-%m-%dT%H:%M:%S")


_CHAIN_STAGE_COLUMNS = ("stage", "start_s", "end_s", "duration_s")


def _chain_bars(stages: pd.DataFrame, run: str) -> pd.DataFrame:
    return pd.DataFrame({"run": run, "stage": stages["stage"].astype(str).to_numpy(),
                         "start": _chain_clock(stages["start_s"]).to_numpy(),
                         "end": _chain_clock(stages["end_s"]).to_numpy(),
                         "length": [format_duration(v) for v in stages["duration_s"]]})


def _chain_lanes(bars: pd.DataFrame, runs: list[str], width: int) -> alt.Chart:
    stages = list(CHAIN_STAGE_COLOURS)
    return alt.Chart(bars).mark_bar(height={"band": 0.4}).encode(
        x=_CHAIN_X, x2="end:T",
        y=alt.Y("stage:N", sort=stages, scale=alt.Scale(domain=stages), title=None,
                axis=alt.Axis(labelLimit=160)),
        yOffset=alt.YOffset("run:N", sort=runs, scale=alt.Scale(domain=runs)),
        color=alt.Color("stage:N", scale=alt.Scale(domain=stages, range=list(CHAIN_STAGE_COLOURS.values())),
                        legend=None),
        opacity=alt.Opacity("run:N", sort=runs, scale=alt.Scale(domain=runs, range=[1.0, 0.35]),
                            legend=alt.Legend(title=None, orient="bottom", labelLimit=400)),
        tooltip=["run:N", "stage:N", alt.Tooltip("start:T", format="%H:%M", title="from"),
                 alt.Tooltip("end:T", format="%H:%M", title="to"), "length:N"],
    ).properties(width=width, height=180)


def chain_timeline_chart(stages: pd.DataFrame, *, reference: pd.DataFrame | None = None,
                         label: str = "Your choice", reference_label: str = "Incident (no stop points)",
                         width: int = 440) -> alt.LayerChart:
    """The chain's stages for one run, each lane beside the same stage of a reference run.

    Args:
        stages: :attr:`labsupport.chain.ChainResult.stages` (``stage``, ``start_s``, ``end_s``,
            ``duration_s``); may be empty.
        reference: the same for the run to compare with (usually the incident), or ``None``.
        label, reference_label: legend names of the two runs (different, non-empty).
        width: chart width in pixels (100 to 4000).

    Returns:
        One lane per stage on a PDT clock; in each, a solid bar for ``stages`` and a faded bar for
        ``reference``, and a line of text with both totals.

    Raises:
        ValueError: ``stages`` or ``reference`` not a DataFrame (``reference`` may be ``None``) or
            missing a column, equal labels or a bad width.
    """
    _width(width)
    _frame("stages", stages, _CHAIN_STAGE_COLUMNS, numeric=_CHAIN_STAGE_COLUMNS[1:])
    if reference is not None:
        _frame("reference", reference, _CHAIN_STAGE_COLUMNS, numeric=_CHAIN_STAGE_COLUMNS[1:])
    if not isinstance(label, str) or not isinstance(reference_label, str) or not label or not reference_label \
            or label == reference_label:
        raise ConfigError(f"label and reference_label must be two different non-empty strings, got {label!r} "
                         f"and {reference_label!r}")
    parts, runs = [_chain_bars(stages, label)], [label]
    if reference is not None:
        parts.append(_chain_bars(reference, reference_label))
        runs.append(reference_label)
    bars = pd.concat(parts, ignore_index=True)

    def total(frame: pd.DataFrame) -> str:
        return format_duration(float(frame["end_s"].max() - frame["start_s"].min())) if len(frame) else "no stage at all"

    text = f"{label}: {total(stages)}" + (f" · {reference_label}: {total(reference)}" if reference is not None else "")
    note = alt.Chart(pd.DataFrame({"text": [text]})).mark_text(
        align="left", baseline="top", dx=4, dy=-18, fontSize=13, color="#222").encode(
        x=alt.value(0), y=alt.value(0), text="text:N")
    chart = alt.layer(_chain_lanes(bars, runs, width), note).properties(
        title="The chain, stage by stage",
        description=(f"Three lanes on a PDT time axis, one per stage: DynamoDB unreachable, launches failing and NLB "
                     f"connection errors. Solid bars: {label}; faded bars: {reference_label}. Totals: {text}."),
    )
    return _base_config(chart)


def chain_explorer_chart(table: pd.DataFrame, *, width: int = 440) -> alt.LayerChart:
    """In-page explorer for the static book: six checkboxes pick one of 64 precomputed chain runs.

    The checkboxes are Vega-Lite parameters bound to inputs; toggling them filters the precomputed
    rows in the browser, so no kernel is needed.

    Args:
        table: :func:`labsupport.chain.stop_point_table` (the six flags, ``stop_points``,
            ``total_s``, ``<stage>_start_s`` / ``<stage>_end_s`` for ``dynamodb``, ``launches``,
            ``nlb``), all 64 combinations.
        width: chart width in pixels (100 to 4000).

    Returns:
        The stage lanes of the chosen combination (solid) beside the incident's (faded), and a line
        of text with the chosen combination's total.

    Raises:
        ValueError: missing columns, not 64 combinations, or a bad width.
    """
    from .chain import STOP_POINT_NAMES, STOP_POINT_TITLES

    _width(width)
    slugs = dict(zip(CHAIN_STAGE_COLOURS, ("dynamodb", "launches", "nlb")))
    times = tuple(f"{s}_{e}_s" for s in slugs.values() for e in ("start", "end"))
    _frame("table", table, (*STOP_POINT_NAMES, "stop_points", "total_s", *times), numeric=("total_s", *times),
           empty="stop_point_table() holds all 64 combinations of stop points")
    if table.groupby(list(STOP_POINT_NAMES)).ngroups != 64:
        raise ConfigError("table must hold all 64 combinations of stop points")
    short = {name: f"s{i + 1}" for i, name in enumerate(STOP_POINT_NAMES)}
    rows = []
    for r in table.to_dict("records"):
        flags = {short[n]: bool(r[n]) for n in STOP_POINT_NAMES}
        runs_of = ["Your choice"] + (["Incident (no stop points)"] if r["stop_points"] == "none" else [])
        for stage, slug in slugs.items():
            if r[f"{slug}_start_s"] == r[f"{slug}_start_s"]:  # not NaN: the stage happened
                rows += [{**flags, "run": run, "stage": stage, "start_s": r[f"{slug}_start_s"],
                          "end_s": r[f"{slug}_end_s"]} for run in runs_of]
    data = pd.DataFrame(rows)
    data["duration_s"] = data["end_s"] - data["start_s"]
    bars = _chain_bars(data, "")
    bars["run"] = data["run"].to_numpy()
    for v in short.values():
        bars[v] = data[v].to_numpy()
    totals = table[[*STOP_POINT_NAMES, "stop_points", "total_s"]].rename(columns=short)
    outside = table["outside_region_failures_count"] if "outside_region_failures_count" in table else None

    def text(lab: str, t: float, n: object) -> str:
        head = "No stop points" if lab == "none" else f"Stop point{'s' if '+' in lab else ''} {lab}"
        body = (format_duration(t) if t > 0 else "no stage at all") + (" (the incident)" if lab == "none" else "")
        return f"{head}: {body}" + ("" if n is None else f" · {int(n)} failing outside us-east-1")

    totals["text"] = [text(lab, t, None if outside is None else n) for lab, t, n in
                      zip(totals["stop_points"], totals["total_s"],
                          outside if outside is not None else [None] * len(totals))]
    params = [alt.param(name=f"p{i + 1}", value=False,
                        bind=alt.binding_checkbox(name=f"{i + 1}: {STOP_POINT_TITLES[i]} "))
              for i in range(6)]
    chosen = " && ".join(f"datum.s{i} == p{i}" for i in range(1, 7))
    runs = ["Your choice", "Incident (no stop points)"]
    lanes = _chain_lanes(bars, runs, width).transform_filter(f"datum.run != 'Your choice' || ({chosen})")
    note = alt.Chart(totals[[*short.values(), "text"]]).transform_filter(chosen).mark_text(
        align="left", baseline="top", dx=4, dy=-18, fontSize=13, color=PALETTE[1]).encode(
        x=alt.value(0), y=alt.value(0), text="text:N")
    chart = alt.layer(lanes, note).add_params(*params).properties(
        title="Switch the stop points on: the stages that remain",
        description=("Interactive chart with six checkboxes, one per stop point. For the chosen combination it draws "
                     "the stages that still happen (solid bars) beside the incident's (faded), on a PDT time axis, "
                     "and states the total. All 64 combinations were computed by the chain model when the page was built."),
    )
    return _base_config(chart)


def chain_impact_chart(impact: pd.DataFrame, *, width: int = 480) -> alt.LayerChart:
    """Client-visible impact over time: the share of clients, launches or connections failing, per stage.

    Args:
        impact: :attr:`labsupport.chain.ChainResult.impact` (``time_s``, ``stage``, ``impact_fraction``).
        width: chart width in pixels (100 to 4000).

    Returns:
        One step line per stage. A run in which no stage happens (every failure stopped) has an
        empty ``impact``: the chart then says "Nothing fails: no stage happens in this run".

    Raises:
        ValueError: ``impact`` not a DataFrame or missing a column, or a bad width.
    """
    _width(width)
    _frame("impact", impact, ("time_s", "stage", "impact_fraction"), numeric=("time_s", "impact_fraction"))
    title = "What clients see, stage by stage"
    if impact.empty:
        nothing = "Nothing fails: no stage happens in this run"
        return _note_chart(nothing, title=title, width=width, height=200, description=(
            f"Share failing over PDT clock time, one line per stage. {nothing}, so there is no line to draw."))
    data = pd.DataFrame({"start": _chain_clock(impact["time_s"]).to_numpy(), "stage": impact["stage"].astype(str).to_numpy(),
                         "share": impact["impact_fraction"].round(4).to_numpy()})
    stages = list(CHAIN_STAGE_COLOURS)
    chart = alt.Chart(data).mark_line(interpolate="step-before", strokeWidth=2).encode(
        x=_CHAIN_X, y=alt.Y("share:Q", title="Share failing", axis=alt.Axis(format="%"), scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("stage:N", scale=alt.Scale(domain=stages, range=list(CHAIN_STAGE_COLOURS.values())),
                        legend=alt.Legend(title=None, orient="bottom", columns=3, labelLimit=300)),
        tooltip=[alt.Tooltip("start:T", format="%H:%M", title="time"), "stage:N", alt.Tooltip("share:Q", format=".1%")],
    ).properties(
        width=width, height=200, title=title,
        description=("Share failing over PDT clock time, one line per stage: clients whose resolver answers the "
                     "DynamoDB endpoint with no records; launches refused or left without network connectivity; "
                     "connections through the modelled NLB that fail."),
    )
    return _base_config(chart)


def chain_savings_chart(savings: pd.DataFrame, *, width: int = 260) -> alt.LayerChart:
    """Which single stop point buys the most time: hours saved by each stop point on its own.

    Args:
        savings: :func:`labsupport.chain.single_point_savings` (``point``, ``title``, ``saved_s``
            (finite seconds; negative when a stop point makes the event longer), ``best`` (bool)).
        width: chart width in pixels (100 to 4000).

    Returns:
        One horizontal bar per stop point from 0, labelled with the time it saves. A stop point that
        costs time has a bar to the left of 0, in its own colour, labelled "adds ..." right of 0;
        the x domain then reaches below 0 and a rule marks 0.

    Raises:
        ValueError: ``savings`` not a DataFrame, missing a column or empty; ``saved_s`` not finite;
            ``best`` not bool; a bad width.
    """
    _width(width)
    _frame("savings", savings, ("point", "title", "saved_s", "best"), numeric=("saved_s",),
           empty="single_point_savings() holds one row per stop point")
    if not np.isfinite(savings["saved_s"].to_numpy(dtype=float)).all():
        raise ConfigError(f"savings['saved_s'] must be finite seconds, got {savings['saved_s'].tolist()!r}")
    if not pd.api.types.is_bool_dtype(savings["best"]):
        raise ConfigError(f"savings['best'] must be bool, got dtype {savings['best'].dtype}")
    saved = savings["saved_s"].astype(float)
    kinds = ["saves the most", "saves less", "costs time"]
    data = pd.DataFrame({"name": [f"{p}: {t}" for p, t in zip(savings["point"], savings["title"])],
                         "hours": (saved / 3600).round(2).to_numpy(),
                         "saved": [format_duration(v) if v >= 0 else f"adds {format_duration(-v)}" for v in saved],
                         "best": [kinds[2] if v < 0 else kinds[0] if b else kinds[1]
                                  for v, b in zip(saved, savings["best"])]})
    if "outside_region_failures_count" in savings.columns:
        data["outside"] = savings["outside_region_failures_count"].to_numpy()
    order = data["name"].tolist()
    y = alt.Y("name:N", sort=order, title=None, axis=alt.Axis(labelLimit=300, labelFontSize=11))
    pos, neg = max(0.0, float(data["hours"].max())), min(0.0, float(data["hours"].min()))
    if neg < 0:  # the "adds ..." labels sit right of 0, so the right side keeps room for them
        m = max(1.0, pos, -neg)
        domain = [neg - 0.1 * m, pos + 0.45 * m]
    else:
        domain = [0, max(1.0, pos) * 1.3]
    shown = [k for k in kinds if k in set(data["best"])] or kinds[:2]
    colours = dict(zip(kinds, (PALETTE[2], PALETTE[6], PALETTE[5])))
    bars = alt.Chart(data).mark_bar().encode(
        x=alt.X("hours:Q", scale=alt.Scale(domain=domain, nice=False),
                title="Hours of the event removed" + (" (left of 0: added)" if neg < 0 else "")), y=y,
        color=alt.Color("best:N", scale=alt.Scale(domain=shown, range=[colours[k] for k in shown]),
                        legend=alt.Legend(title=None, orient="bottom")),
        tooltip=["name:N", alt.Tooltip("saved:N", title="time saved")]
        + ([alt.Tooltip("outside:Q", title="failing outside us-east-1")] if "outside" in data else []))
    right = alt.Chart(data).transform_filter("datum.hours >= 0").mark_text(
        align="left", dx=4, fontSize=11, color="#222").encode(x="hours:Q", y=y, text="saved:N")
    left = alt.Chart(data).transform_filter("datum.hours < 0").mark_text(
        align="left", dx=4, fontSize=11, color="#222").encode(x=alt.datum(0), y=y, text="saved:N")
    layers = [bars, right, left]
    if neg < 0:
        layers.append(alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="#222").encode(x="x:Q"))
    costly = [f"{n} adds {t[5:]}" for n, t in zip(data["name"], data["saved"]) if t.startswith("adds ")]
    chart = alt.layer(*layers).properties(
        width=width, height=28 * len(data), title="One stop point at a time",
        description=("Horizontal bars, one per stop point switched on alone: how many hours of the incident's total "
                     "it removes, computed by the chain model; the longest bars are highlighted."
                     + (f" Bars left of 0 make the event longer: {'; '.join(costly)}." if costly else "")),
    )
    return _base_config(chart)


def _blast_frame(radius: pd.DataFrame, scenario: str, name: str = "radius") -> pd.DataFrame:
    _frame(name, radius, ("service", "region", "status", "hops", "path", "weakest_tag"),
           empty="blast_radius() always holds the failing service itself")
    weak = radius["weakest_tag"].astype("string").isin(["inferred", "UNVERIFIED"]).fillna(False)
    return pd.DataFrame({"scenario": scenario, "service": radius["service"].astype(str).to_numpy(),
                         "region": radius["region"].astype(str).to_numpy(),
                         "status": radius["status"].astype(str).to_numpy(),
                         "path": radius["path"].fillna("").astype(str).to_numpy(),
                         "tag": radius["weakest_tag"].astype("string").fillna("").to_numpy(dtype=object),
                         "firm": (~weak).map({True: "stated", False: "inferred"}).to_numpy()})


def dependency_blast_chart(radius: pd.DataFrame, *, title: str = "Blast radius",
                           compare: pd.DataFrame | None = None, labels: tuple[str, str] = ("As it was", "Isolated"),
                           cell_px: int = 75) -> alt.FacetChart:
    """Every service or feature of the dependency graph by Region, coloured by what happens to it.

    Args:
        radius: :func:`labsupport.dependencies.blast_radius` (``service``, ``region``, ``status``,
            ``hops``, ``path``, ``weakest_tag``).
        title: chart title (non-empty).
        compare: a second ``blast_radius`` frame (e.g. with ``isolate=True``) drawn beside the
            first, or ``None``.
        labels: the headings of the two panels (two different non-empty strings).
        cell_px: width of one Region column in pixels (20 to 400).

    Returns:
        One panel per frame: one row per service, one column per Region, a square where the node
        exists, coloured by status; squares that rest on an ``inferred`` or ``UNVERIFIED`` link
        are hollow.

    Raises:
        ValueError: ``radius`` (or ``compare``, unless ``None``) not a DataFrame, missing a column or
            empty; an empty title, bad labels or a bad cell size.
    """
    from .dependencies import REGIONS, STATUSES

    check_int("cell_px", cell_px, lo=20, hi=400)
    if not isinstance(title, str) or not title.strip():
        raise ConfigError(f"title must be a non-empty string, got {title!r}")
    if (not isinstance(labels, tuple) or len(labels) != 2 or not all(isinstance(x, str) and x for x in labels)
            or labels[0] == labels[1]):
        raise ConfigError(f"labels must be two different non-empty strings, got {labels!r}")
    parts = [_blast_frame(radius, labels[0])]
    if compare is not None:
        parts.append(_blast_frame(compare, labels[1], "compare"))
    data = pd.concat(parts, ignore_index=True)
    rank = {k: i for i, k in enumerate(STATUSES)}
    first = parts[0].assign(r=parts[0]["status"].map(rank)).sort_values(["r", "service"], kind="stable")
    order = first["service"].drop_duplicates().tolist()
    order += sorted(set(data["service"]) - set(order))
    statuses = [s for s in STATUSES if s in set(data["status"])]
    colours = alt.Scale(domain=statuses, range=[DEPENDENCY_STATUS_COLOURS[s] for s in statuses])
    cells = alt.Chart().mark_square(size=150, filled=True, strokeWidth=2).encode(
        x=alt.X("region:N", sort=list(REGIONS), scale=alt.Scale(domain=list(REGIONS)), title=None,
                axis=alt.Axis(orient="top", labelAngle=0)),
        y=alt.Y("service:N", sort=order, title=None, axis=alt.Axis(labelLimit=230, labelFontSize=11)),
        color=alt.Color("status:N", scale=colours, legend=alt.Legend(title=None, orient="bottom", columns=3)),
        stroke=alt.Stroke("status:N", scale=colours, legend=None),
        fillOpacity=alt.FillOpacity("firm:N", scale=alt.Scale(domain=["stated", "inferred"], range=[1.0, 0.0]),
                                    legend=alt.Legend(title="link", orient="bottom")),
        tooltip=["service:N", "region:N", "status:N", alt.Tooltip("path:N", title="why"),
                 alt.Tooltip("tag:N", title="weakest tag")],
    ).properties(width=cell_px * len(REGIONS), height=18 * len(order))
    counts = "; ".join(f"{lab}: " + ", ".join(f"{s} {int(((data['scenario'] == lab) & (data['status'] == s)).sum())}"
                                               for s in statuses) for lab in data["scenario"].unique())
    chart = alt.layer(cells, data=data).facet(
        column=alt.Column("scenario:N", sort=list(labels), title=None,
                          header=alt.Header(labelFontSize=13, labelFontWeight="bold"))).properties(
        title=alt.Title(title, subtitle="Hollow: the failure rests on a link the course inferred"),
        description=(f"A grid of services (rows) by Region (columns: {', '.join(REGIONS)}), one panel per scenario. "
                     f"Each square is one service in one Region, coloured by its status. {counts}. Hollow squares "
                     "rest on a link the course inferred rather than one the sources state."),
    )
    return _base_config(chart)
