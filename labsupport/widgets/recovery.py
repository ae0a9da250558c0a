"""The recovery labs' panels: NLB health checks and failover (lab 03), DNS caches (lab 04)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import ipywidgets as widgets
import pandas as pd

from .. import charts, dns_cache, nlb
from .._memo import cached_run
from .._validate import check_choice, check_int, check_number
from ..errors import ConfigError
from .panel import Panel, Shown, int_slider, make_panel

__all__ = ["NLB_FAILOVER_CHOICES", "dns_config", "dns_panel", "dns_view", "nlb_config", "nlb_panel", "nlb_view"]


#: Choices of the NLB lab's failover control: label -> (on at the start, disabled at, re-enabled at).
NLB_FAILOVER_CHOICES: dict[str, tuple[bool, str | None, str | None]] = {
    "on; off 09:36, on again 14:09 (incident)": (True, "09:36", "14:09"),
    "on all day (nobody intervenes)": (True, None, None),
    "off all day": (False, None, None),
}


def nlb_config(
    base: nlb.NlbConfig | None = None,
    *,
    backlog_count: int,
    health_check_interval_s: float,
    limit_capacity_removal: bool,
    max_removal_fraction: float,
    failover: str,
) -> nlb.NlbConfig:
    """The :class:`labsupport.nlb.NlbConfig` that the NLB lab's controls describe.

    Args:
        base: the config to vary (default ``nlb.INCIDENT``).
        backlog_count: Network Manager's backlog at 5:28 AM (items, 0 to 1,000,000).
        health_check_interval_s: seconds between probes of one target (5 to 300).
        limit_capacity_removal: the velocity control on or off.
        max_removal_fraction: its cap per window (0 to 1).
        failover: a key of :data:`NLB_FAILOVER_CHOICES`. An operator action whose time falls
            after the run's horizon (``base.network.horizon_s``) is left out: within the run it
            never happens, so every choice is valid for any base.

    Raises:
        ConfigError: an unknown ``failover`` choice or an out-of-range value.
    """
    base = nlb.INCIDENT if base is None else base
    if not isinstance(base, nlb.NlbConfig):
        raise ConfigError(f"base must be an NlbConfig or None, got {type(base).__name__}")
    check_choice("failover", failover, NLB_FAILOVER_CHOICES)
    health_check_interval_s = check_number("health_check_interval_s", health_check_interval_s, lo=5, hi=300)
    max_removal_fraction = check_number("max_removal_fraction", max_removal_fraction, lo=0, hi=1)
    on, off_at, on_at = NLB_FAILOVER_CHOICES[failover]

    def within_run(clock: str | None) -> float | None:
        t = None if clock is None else nlb.CLOCK.seconds(clock)
        return t if t is not None and t <= base.network.horizon_s else None

    return replace(
        base,
        network=replace(base.network, backlog_count=backlog_count),
        health_check_interval_s=float(health_check_interval_s),
        limit_capacity_removal=limit_capacity_removal,
        max_removal_fraction=float(max_removal_fraction),
        automatic_failover=on,
        disable_failover_at_s=within_run(off_at),
        reenable_failover_at_s=within_run(on_at),
    )


def nlb_view(config: nlb.NlbConfig) -> list[Shown]:
    """Run the NLB model once; return ``[chart, summary table]`` for the NLB lab.

    Args:
        config: a :class:`labsupport.nlb.NlbConfig`.
    """
    result = cached_run(nlb.run, config)
    s, ns = result.summary, result.network.summary

    def clock(t: float | None) -> str:
        return "never" if t is None else f"{nlb.CLOCK.origin + pd.Timedelta(seconds=t):%H:%M}"

    table = pd.DataFrame(
        {
            "figure": [
                "Propagation normal again",
                "First AZ failover",
                "Lowest capacity in service",
                "Highest connection-error rate",
                f"Time with > {config.error_threshold_fraction:.0%} errors",
                "Flaps of this NLB's targets",
                "Worst health-check latency",
            ],
            "value": [
                clock(ns.propagation_normal_s),
                clock(s.first_failover_s),
                f"{s.min_capacity_fraction:.0%}",
                f"{s.peak_error_fraction:.0%}",
                f"{s.error_s / 60:.0f} min",
                f"{s.flaps_count}",
                f"{s.peak_check_latency_s:.0f} s",
            ],
        }
    )
    actions = {"Failover disabled": config.disable_failover_at_s, "Failover re-enabled": config.reenable_failover_at_s}
    chart = charts.nlb_timeseries_chart(
        result.timeseries, actions=actions, threshold_s=config.failover_delay_threshold_s
    )
    return [chart, table]


def nlb_panel(base: nlb.NlbConfig | None = None) -> Panel:
    """Controls for the NLB flapping lab.

    Controls (a base whose own ``max_events`` is lowered can make a fine health-check interval
    reach that bound, and the panel then shows the model's message instead of charts):
    ``backlog_count`` (0 to 1,200 items, or to the base network's ``max_events`` if lower),
    ``health_check_interval_s`` (10 to 120 s), ``limit_capacity_removal`` (checkbox),
    ``max_removal_fraction`` (0.05 to 1) and ``failover`` (see :data:`NLB_FAILOVER_CHOICES`; an
    action after the base's horizon is left out, see :func:`nlb_config`).
    The panel shows what :func:`nlb_view` returns.

    Args:
        base: the :class:`labsupport.nlb.NlbConfig` to vary (default ``nlb.INCIDENT``).
    """
    base = nlb.INCIDENT if base is None else base
    if not isinstance(base, nlb.NlbConfig):
        raise ConfigError(f"base must be an NlbConfig or None, got {type(base).__name__}")
    top = min(1_200, base.network.max_events)  # a larger backlog would stop at max_events
    style = {"description_width": "initial"}
    controls: dict[str, widgets.Widget] = {
        "backlog_count": int_slider(base.network.backlog_count, 0, top, "Backlog at 5:28 (items)", step=20),
        "health_check_interval_s": int_slider(
            base.health_check_interval_s, 10, 120, "Health-check interval (s)", step=5
        ),
        "limit_capacity_removal": widgets.Checkbox(
            value=base.limit_capacity_removal, description="limit_capacity_removal", indent=False
        ),
        "max_removal_fraction": widgets.FloatSlider(
            value=min(max(base.max_removal_fraction, 0.05), 1.0),
            min=0.05,
            max=1.0,
            step=0.05,
            description="Cap per 15 min",
            readout_format=".0%",
            style=style,
            continuous_update=False,
        ),
        "failover": widgets.Dropdown(
            options=list(NLB_FAILOVER_CHOICES),
            value=next(iter(NLB_FAILOVER_CHOICES)),
            description="Automatic AZ failover",
            style=style,
        ),
    }

    def render(**values: Any) -> list[Shown]:
        return nlb_view(nlb_config(base, **values))

    return make_panel(controls, render)


#: The DNS-cache model's longest horizon (``DnsCacheConfig.horizon_s`` <= 7 days).
_DNS_MAX_HORIZON_S = 7 * 86_400.0


def dns_config(
    base: dns_cache.DnsCacheConfig | None = None,
    *,
    positive_ttl_s: float,
    negative_ttl_s: float,
    empty_min: float,
    clients_count: int,
) -> dns_cache.DnsCacheConfig:
    """The :class:`labsupport.dns_cache.DnsCacheConfig` that the DNS lab's controls describe.

    The negative TTL is set through the SOA record's TTL (the SOA MINIMUM stays at its default, so
    ``min(MINIMUM, TTL)`` is the slider's value) and the resolvers' cap is raised to match.

    Args:
        base: the config to vary (default ``dns_cache.INCIDENT``).
        positive_ttl_s: TTL of the address records (1 s to 1 day).
        negative_ttl_s: the negative-caching TTL wanted (1 s to 1 day).
        empty_min: minutes the authoritative answer stays empty (> 0); the horizon is the restore
            plus one hour or two negative TTLs, whichever is longer, but at most the model's 7 days
            (the answer must be restored before that).
        clients_count: clients (1 to 1,000,000).

    Raises:
        ConfigError: an out-of-range value.
    """
    base = dns_cache.INCIDENT if base is None else base
    if not isinstance(base, dns_cache.DnsCacheConfig):
        raise ConfigError(f"base must be a DnsCacheConfig or None, got {type(base).__name__}")
    positive_ttl_s = check_number("positive_ttl_s", positive_ttl_s, lo=1, hi=86_400)
    negative_ttl_s = check_number("negative_ttl_s", negative_ttl_s, lo=1, hi=86_400)
    empty_min = check_number("empty_min", empty_min, lo=0, hi=_DNS_MAX_HORIZON_S / 60, lo_open=True)
    clients_count = check_int("clients_count", clients_count, lo=1, hi=1_000_000)
    empty_s = 60.0 * float(empty_min)
    horizon = min(_DNS_MAX_HORIZON_S, base.empty_start_s + empty_s + max(3_600.0, 2.0 * float(negative_ttl_s)))
    return replace(
        base,
        positive_ttl_s=float(positive_ttl_s),
        soa_ttl_s=float(negative_ttl_s),
        soa_minimum_s=max(base.soa_minimum_s, float(negative_ttl_s)),
        negative_ttl_cap_s=max(base.negative_ttl_cap_s, float(negative_ttl_s)),
        empty_duration_s=empty_s,
        clients_count=int(clients_count),
        horizon_s=horizon,
        sample_interval_s=max(10.0, horizon / 4_000),
    )


def dns_view(config: dns_cache.DnsCacheConfig) -> list[Shown]:
    """Run the DNS-cache model once; return ``[whole-run chart, recovery close-up, summary table]``.

    Args:
        config: a :class:`labsupport.dns_cache.DnsCacheConfig`.
    """
    result = cached_run(dns_cache.run, config)
    s = result.summary

    def minutes(v: float | None) -> str:
        return "not within the run" if v is None else f"{v / 60:.1f} min"

    label = f"negative TTL {config.negative_ttl_s:.0f} s"
    table = pd.DataFrame(
        {
            "figure": [
                "Negative-caching TTL",
                "Clients that failed",
                "Half failing after",
                "Restore to half recovered",
                "Restore to 99 % recovered",
                "Restore to all recovered",
            ],
            "value": [
                f"{s.negative_ttl_s:.0f} s",
                f"{s.failed_count:,} of {config.clients_count:,}",
                minutes(s.half_failing_after_s),
                minutes(s.recovery_half_s),
                minutes(s.recovery_most_s),
                minutes(s.recovery_all_s),
            ],
        }
    )
    whole = charts.dns_failing_chart({label: result.timeseries}, restored_s=s.restored_s)
    close = charts.dns_failing_chart(
        {label: result.timeseries}, restored_s=s.restored_s, start_s=max(0.0, s.restored_s - 300.0)
    )
    return [whole, close, table]


def dns_panel(base: dns_cache.DnsCacheConfig | None = None) -> Panel:
    """Controls for the DNS-cache lab.

    Controls (a base with lowered ``max_refresh_cycles`` or ``max_cache_refreshes`` can reach those
    bounds, and the panel then shows the model's message instead of charts): ``positive_ttl_s``
    (5 to 600 s), ``negative_ttl_s`` (60 to 7,200 s), ``empty_min`` (5 to 240 min, fewer if
    ``base.empty_start_s`` is so late that the restore must come sooner to fall within the model's
    7 days) and ``clients_count`` (100 to 50,000). The panel shows what :func:`dns_view` returns.

    Args:
        base: the :class:`labsupport.dns_cache.DnsCacheConfig` to vary (default the incident).

    Raises:
        ConfigError: ``base`` is not a DnsCacheConfig, or its ``empty_start_s`` leaves less than
            two minutes before the 7-day limit (no empty window of a whole minute fits).
    """
    base = dns_cache.INCIDENT if base is None else base
    if not isinstance(base, dns_cache.DnsCacheConfig):
        raise ConfigError(f"base must be a DnsCacheConfig or None, got {type(base).__name__}")
    # The restore must come at least a minute before the 7-day limit, so that some aftermath is run.
    longest = min(240, int((_DNS_MAX_HORIZON_S - base.empty_start_s - 60.0) // 60))
    if longest < 1:
        raise ConfigError(
            f"base.empty_start_s={base.empty_start_s:g} leaves no room for an empty window of a "
            f"minute before the model's {_DNS_MAX_HORIZON_S:g} s limit; start it earlier"
        )
    shortest = min(5, longest)
    controls: dict[str, widgets.Widget] = {
        "positive_ttl_s": int_slider(base.positive_ttl_s, 5, 600, "TTL of the records (s)", step=5),
        "negative_ttl_s": int_slider(base.negative_ttl_s, 60, 7_200, "Negative TTL (s)", step=60),
        "empty_min": int_slider(round(base.empty_duration_s / 60), shortest, longest, "Empty window (min)"),
        "clients_count": int_slider(base.clients_count, 100, 50_000, "Clients", step=100),
    }

    def render(**values: Any) -> list[Shown]:
        return dns_view(dns_config(base, **values))

    return make_panel(controls, render)
