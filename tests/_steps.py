"""Enactor steps written as students write them (labsupport.enactor's contract), right and wrong.

The tests of labsupport.enactor, labsupport.explore and labsupport.race run them; none of them is
in the package, which gives only the incident's step (``enactor.incident_step``). Each is a plain
generator function using only its arguments, as RestrictedPython will compile it for grading.
"""

from __future__ import annotations


def fixed_step(plan, endpoints, keep, read, write, delete):
    """Right: compare-and-set writes (re-read when refused) and a clean-up that keeps what is referred to."""
    for endpoint in endpoints:
        zone = yield read(endpoint)
        while zone.alias < plan:
            if (yield write(endpoint, plan, expect=zone)):
                break
            zone = yield read(endpoint)
    for endpoint in endpoints:
        zone = yield read(endpoint)
        for old in zone.trees:
            if old < plan - keep and old not in (zone.alias, zone.rollback):
                yield delete(endpoint, old, expect=zone)


def cas_once_step(plan, endpoints, keep, read, write, delete):
    """Right too: one compare-and-set per endpoint, no retry, and the same clean-up."""
    for endpoint in endpoints:
        zone = yield read(endpoint)
        if zone.alias < plan:
            yield write(endpoint, plan, expect=zone)
    for endpoint in endpoints:
        zone = yield read(endpoint)
        for old in zone.trees:
            if old < plan - keep and old not in (zone.alias, zone.rollback):
                yield delete(endpoint, old, expect=zone)


def cleanup_only_step(plan, endpoints, keep, read, write, delete):
    """Safe, like guard 2: blind writes (stale overwrites still happen), a clean-up that keeps what is referred to."""
    for endpoint in endpoints:
        yield write(endpoint, plan)
    for endpoint in endpoints:
        zone = yield read(endpoint)
        for old in zone.trees:
            if old < plan - keep and old not in (zone.alias, zone.rollback):
                yield delete(endpoint, old, expect=zone)


def check_then_write_step(plan, endpoints, keep, read, write, delete):
    """Wrong: the step checks the alias itself, but the check and the write are two operations."""
    for endpoint in endpoints:
        zone = yield read(endpoint)
        if zone.alias < plan:
            yield write(endpoint, plan)
    for endpoint in endpoints:
        zone = yield read(endpoint)
        for old in zone.trees:
            if old < plan - keep:
                yield delete(endpoint, old)


def cas_write_only_step(plan, endpoints, keep, read, write, delete):
    """Wrong: a compare-and-set refused once is taken to mean "a newer plan is there"; clean-up by age."""
    for endpoint in endpoints:
        zone = yield read(endpoint)
        if zone.alias < plan:
            yield write(endpoint, plan, expect=zone)
    for endpoint in endpoints:
        zone = yield read(endpoint)
        for old in zone.trees:
            if old < plan - keep:
                yield delete(endpoint, old)


def cleanup_no_expect_step(plan, endpoints, keep, read, write, delete):
    """Wrong: the clean-up checks what is referred to at its read, but deletes without a condition."""
    for endpoint in endpoints:
        yield write(endpoint, plan)
    for endpoint in endpoints:
        zone = yield read(endpoint)
        for old in zone.trees:
            if old < plan - keep and old not in (zone.alias, zone.rollback):
                yield delete(endpoint, old)


def no_cleanup_step(plan, endpoints, keep, read, write, delete):
    """Safe but wrong: compare-and-set writes and no clean-up at all (old trees pile up)."""
    for endpoint in endpoints:
        zone = yield read(endpoint)
        if zone.alias < plan:
            yield write(endpoint, plan, expect=zone)


def first_endpoint_step(plan, endpoints, keep, read, write, delete):
    """Safe but wrong: the fixed step on the first endpoint only (the others never get the plan)."""
    yield from fixed_step(plan, endpoints[:1], keep, read, write, delete)
