"""Altair charts of model output, and the renderer that lets them work offline.

Every ``*_chart`` function here takes a DataFrame (usually a model's ``.events`` or time series) and
returns an ``alt.Chart``; none runs a model. Each chart carries a title and a ``description`` (its
text alternative, which Vega writes into the SVG's ``aria-label``).

The data behind each chart
--------------------------
Each ``<name>_chart`` has a ``<name>_data`` function (``race_sequence_chart`` and
``race_sequence_data``) that takes the same data arguments, checks them the same way and returns
the DataFrame, or the tuple of DataFrames, that the chart draws, the chart's own units and column
names included; its docstring lists the columns and their dtypes. The chart draws from those
frames, so a test or a reader can check what is drawn without reading the Vega-Lite spec.

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
  ``vl_convert.javascript_bundle()``, loaded once per page by the book's Sphinx extension
  (``coursetools.book``, in the course's machinery, not in this package); and ``text/plain``. Nothing comes from a CDN;
* ``text/plain`` is always the chart's title and description, its text alternative.

Inputs
------
Every chart checks its arguments with the same few helpers (:func:`_frame` for DataFrames,
:func:`_runs` for label -> frame mappings, :func:`_number` / :func:`_seconds` for numbers, through
:func:`labsupport._validate.check_number`, and :func:`_clock` for the clock ``time_s`` counts on). A bad argument
raises ``ConfigError`` (a ``ValueError``) naming it (``"events must be a pandas DataFrame, got NoneType"``,
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
  ``ConfigError("<arg> is empty: ...")``.

Missing values and large data
-----------------------------
A chart never plots NaN silently. :func:`network_backlog_chart` draws gaps where an interval
delivered nothing (no delay was measured), and says so. Chart data stays under 5,000 rows (Altair's
limit, :data:`ALTAIR_MAX_ROWS`) for every config a model accepts: where a model's sampling would
give more than 3,000 rows, :func:`dns_failing_chart` aggregates into time bins (mean line, min-max
band), and :func:`dwfm_timeseries_chart`, :func:`dwfm_backoff_chart` (its share of the rows per run
and place), :func:`network_backlog_chart` and :func:`nlb_timeseries_chart` aggregate to the same
resolution (bin means; DWFM's finished work as a rate over the bin), each stating the bin width in
its description. :func:`race_generation_chart` draws one mark per write and refuses a window holding
more than 3,000 (ConfigError naming ``start_s``/``end_s`` and a window that fits). Any other chart
whose data would pass 5,000 rows raises ConfigError rather than Altair's ``MaxRowsError``; nothing
is thinned silently. The charts that draw one colour per run or series
(:func:`nlb_capacity_comparison_chart`, :func:`dns_failing_chart`, :func:`dns_ttl_chart`,
:func:`dwfm_backoff_chart`) accept at most ``len(PALETTE)`` of them and say so in a ConfigError.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from ._palette import CONCEPT_COLOURS, PALETTE, PERIOD_COLOURS, legend_colours
from ._render import ALTAIR_MAX_ROWS, BOOK_BUILD_ENV, reflow_usermeta, render_bundle

#: The names each chart module gives this package, imported when first used (:mod:`labsupport._lazy`):
#: a lab that draws one model's charts imports that model alone. The same names are imported
#: below under ``TYPE_CHECKING``, for mypy and a reader (a test checks that the two agree).
_EXPORTS: dict[str, tuple[str, ...]] = {
    "_common": ("RACE_ACTION_GROUPS",),
    "_tables": ("DETAILS_MAX_ROWS",),
    "chain": (
        "CHAIN_STAGE_COLOURS",
        "chain_impact_chart",
        "chain_impact_data",
        "chain_timeline_chart",
        "chain_timeline_data",
    ),
    "chain_stop_points": ("chain_explorer_chart", "chain_explorer_data", "chain_savings_chart", "chain_savings_data"),
    "dependencies": ("DEPENDENCY_STATUS_COLOURS", "dependency_blast_chart", "dependency_blast_data"),
    "dns": ("dns_failing_chart", "dns_failing_data", "dns_ttl_chart", "dns_ttl_data"),
    "dwfm": ("dwfm_timeseries_chart", "dwfm_timeseries_data"),
    "dwfm_backoff": ("BACKOFF_PLACES", "dwfm_backoff_chart", "dwfm_backoff_data"),
    "dwfm_grids": ("dwfm_explorer_chart", "dwfm_explorer_data", "dwfm_phase_chart", "dwfm_phase_data"),
    "explore": ("explore_sequence_chart", "explore_sequence_data", "explore_verdict_chart", "explore_verdict_data"),
    "game": ("game_dashboard_chart", "game_dashboard_data", "game_debrief_chart", "game_debrief_data"),
    "game_room": ("game_room_chart", "game_room_data"),
    "network": ("network_backlog_chart", "network_backlog_data"),
    "nlb": (
        "nlb_capacity_comparison_chart",
        "nlb_capacity_comparison_data",
        "nlb_timeseries_chart",
        "nlb_timeseries_data",
    ),
    "race": ("race_generation_chart", "race_generation_data", "race_records_chart", "race_records_data"),
    "race_guards": ("race_guard_explorer_chart", "race_guard_explorer_data"),
    "race_sequence": ("race_sequence_chart", "race_sequence_data", "race_sequence_wait_data"),
    "timeline": ("timeline_chart", "timeline_data"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from ._common import RACE_ACTION_GROUPS
    from ._tables import DETAILS_MAX_ROWS
    from .chain import (
        CHAIN_STAGE_COLOURS,
        chain_impact_chart,
        chain_impact_data,
        chain_timeline_chart,
        chain_timeline_data,
    )
    from .chain_stop_points import chain_explorer_chart, chain_explorer_data, chain_savings_chart, chain_savings_data
    from .dependencies import DEPENDENCY_STATUS_COLOURS, dependency_blast_chart, dependency_blast_data
    from .dns import dns_failing_chart, dns_failing_data, dns_ttl_chart, dns_ttl_data
    from .dwfm import dwfm_timeseries_chart, dwfm_timeseries_data
    from .dwfm_backoff import BACKOFF_PLACES, dwfm_backoff_chart, dwfm_backoff_data
    from .dwfm_grids import dwfm_explorer_chart, dwfm_explorer_data, dwfm_phase_chart, dwfm_phase_data
    from .explore import explore_sequence_chart, explore_sequence_data, explore_verdict_chart, explore_verdict_data
    from .game import game_dashboard_chart, game_dashboard_data, game_debrief_chart, game_debrief_data
    from .game_room import game_room_chart, game_room_data
    from .network import network_backlog_chart, network_backlog_data
    from .nlb import (
        nlb_capacity_comparison_chart,
        nlb_capacity_comparison_data,
        nlb_timeseries_chart,
        nlb_timeseries_data,
    )
    from .race import race_generation_chart, race_generation_data, race_records_chart, race_records_data
    from .race_guards import race_guard_explorer_chart, race_guard_explorer_data
    from .race_sequence import race_sequence_chart, race_sequence_data, race_sequence_wait_data
    from .timeline import timeline_chart, timeline_data

__all__ = [
    "ALTAIR_MAX_ROWS",
    "BACKOFF_PLACES",
    "BOOK_BUILD_ENV",
    "chain_explorer_chart",
    "chain_explorer_data",
    "chain_impact_chart",
    "chain_impact_data",
    "chain_savings_chart",
    "chain_savings_data",
    "CHAIN_STAGE_COLOURS",
    "chain_timeline_chart",
    "chain_timeline_data",
    "CONCEPT_COLOURS",
    "dependency_blast_chart",
    "dependency_blast_data",
    "DEPENDENCY_STATUS_COLOURS",
    "DETAILS_MAX_ROWS",
    "dns_failing_chart",
    "dns_failing_data",
    "dns_ttl_chart",
    "dns_ttl_data",
    "dwfm_backoff_chart",
    "dwfm_backoff_data",
    "dwfm_explorer_chart",
    "dwfm_explorer_data",
    "dwfm_phase_chart",
    "dwfm_phase_data",
    "dwfm_timeseries_chart",
    "dwfm_timeseries_data",
    "explore_sequence_chart",
    "explore_sequence_data",
    "explore_verdict_chart",
    "explore_verdict_data",
    "game_dashboard_chart",
    "game_dashboard_data",
    "game_debrief_chart",
    "game_debrief_data",
    "game_room_chart",
    "game_room_data",
    "legend_colours",
    "network_backlog_chart",
    "network_backlog_data",
    "nlb_capacity_comparison_chart",
    "nlb_capacity_comparison_data",
    "nlb_timeseries_chart",
    "nlb_timeseries_data",
    "PALETTE",
    "PERIOD_COLOURS",
    "RACE_ACTION_GROUPS",
    "race_generation_chart",
    "race_generation_data",
    "race_guard_explorer_chart",
    "race_guard_explorer_data",
    "race_records_chart",
    "race_records_data",
    "race_sequence_chart",
    "race_sequence_data",
    "race_sequence_wait_data",
    "reflow_usermeta",
    "render_bundle",
    "timeline_chart",
    "timeline_data",
]
