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
``chain``, ``explore`` and ``game``. Every public name is importable from ``labsupport.widgets``.
"""

from __future__ import annotations

from .chain import chain_panel, chain_view
from .dwfm import dwfm_panel
from .explore import explore_panel
from .game import game_cards, game_panel, game_view
from .panel import Panel, make_panel
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
