"""The arithmetic of health checks on a target whose probes pass with a given chance (:mod:`labsupport.nlb`).

A new instance put in service before its network state has propagated passes some probes and
fails others (the post-event summary's NLB section: results "alternating between failing and
healthy"); :func:`flap_transitions_per_check` is how often such a target changes state.
"""

from __future__ import annotations

from .._validate import check_int, check_number

__all__ = ["flap_transitions_per_check"]


def flap_transitions_per_check(pass_fraction: float, healthy_count: int, unhealthy_count: int) -> float:
    """Mean state changes per probe of a target whose probes pass independently with a given chance.

    A target needs ``healthy_count`` passes in a row to enter service and ``unhealthy_count``
    failures in a row to leave it. The expected waits are ``(1 - p**h) / ((1 - p) * p**h)`` and
    ``(1 - q**u) / (p * q**u)`` probes (``q = 1 - p``); one cycle has two changes.

    Args:
        pass_fraction: chance a probe passes, in [0, 1].
        healthy_count, unhealthy_count: the thresholds (>= 1).

    Returns:
        Changes per probe, in [0, 1]; 0 when ``pass_fraction`` is 0 or 1 (no flapping).

    Raises:
        ConfigError: an argument is out of range.
    """
    p = check_number("pass_fraction", pass_fraction, lo=0, hi=1)
    h = check_int("healthy_count", healthy_count, lo=1, hi=10)
    u = check_int("unhealthy_count", unhealthy_count, lo=1, hi=10)
    q = 1.0 - p
    ph, qu = p**h, q**u
    if ph == 0.0 or qu == 0.0:  # p or q is 0, or so small that a streak never happens
        return 0.0
    cycle = (1 - ph) / (q * ph) + (1 - qu) / (p * qu)
    return 2.0 / cycle
