"""ipywidgets controls for the labs, for readers who run the notebooks live.

This layer only wires controls to a model's ``run`` and to :mod:`labsupport.charts` (see
:func:`make_panel`); it computes nothing itself. Every control's bounds keep the model's config
valid, so no reachable setting raises (a panel's docstring says where a ``base`` config can
narrow that). Each change of a control runs the model once and redraws the panel's outputs. Each
lab's panel also exposes its update function (``panel.update(**values)``) so tests can drive it
without a kernel.

The static book has no kernel, so the labs tag their widget cells ``remove-output`` and point the
reader to the in-page charts or to running the lab live.

Modules: :mod:`~labsupport.widgets.panel` (the :class:`Panel` / :func:`make_panel` core), then one
module per lab panel: ``timeline``, ``race``, ``dwfm``, ``recovery`` (NLB and DNS caches),
``chain``, ``explore``, ``game`` and ``game_cards`` (the facilitated game's printable deck).
Every public name is importable from ``labsupport.widgets``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from .panel import Panel, make_panel

#: The names each lab's panel module gives this package, imported when first used
#: (:mod:`labsupport._lazy`): a lab imports its own panel and model alone. The same names are
#: imported below under ``TYPE_CHECKING`` (a test checks that the two agree).
_EXPORTS: dict[str, tuple[str, ...]] = {
    "chain": ("chain_panel", "chain_view"),
    "dwfm": ("dwfm_panel",),
    "explore": ("explore_panel",),
    "game": ("game_panel", "game_view"),
    "game_cards": ("game_cards",),
    "race": ("race_panel", "race_view"),
    "recovery": ("NLB_FAILOVER_CHOICES", "dns_config", "dns_panel", "dns_view", "nlb_config", "nlb_panel", "nlb_view"),
    "timeline": ("timeline_panel",),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from .chain import chain_panel, chain_view
    from .dwfm import dwfm_panel
    from .explore import explore_panel
    from .game import game_panel, game_view
    from .game_cards import game_cards
    from .race import race_panel, race_view
    from .recovery import NLB_FAILOVER_CHOICES, dns_config, dns_panel, dns_view, nlb_config, nlb_panel, nlb_view
    from .timeline import timeline_panel

__all__ = [
    "NLB_FAILOVER_CHOICES",
    "Panel",
    "chain_panel",
    "chain_view",
    "dns_config",
    "dns_panel",
    "dns_view",
    "dwfm_panel",
    "explore_panel",
    "game_cards",
    "game_panel",
    "game_view",
    "make_panel",
    "nlb_config",
    "nlb_panel",
    "nlb_view",
    "race_panel",
    "race_view",
    "timeline_panel",
]
