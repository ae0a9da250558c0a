"""One Route 53 hosted zone per endpoint, as DynamoDB's DNS Enactors change it.

Scenario:
    The DNS Enactors never edit a record in place. For each plan they build a new tree of weighted
    records (one per load balancer) and then flip one alias record to the root of that tree, in a
    single transactional change batch that also takes the endpoint's lock and moves a rollback
    record. Clean-up later deletes old trees. This module holds that state and the rules of one
    batch; it has no clock and no randomness, so every rule can be tested on its own.
Covers:
    The post-event summary's Route 53 transaction per endpoint and its "inconsistent state"
    (PES); the TXT-record lock, the plan trees behind an alias and the rollback record, which only
    the re:Invent talk DAT453 describes (AWS's later explanation, not the summary).

::

    endpoint name --alias-----> plan tree N   (weighted records, one per load balancer)
    rollback record ----------> plan tree M   (the plan that was active before N)
    lock (TXT record) = (holder, expires_at_s)
    trees kept: {generation: record count}; clean-up deletes old ones

    alias -> a tree that no longer exists  ==>  NOERROR with zero answers (not NXDOMAIN)

Every batch either commits whole or changes nothing. The guard flags (see
:class:`labsupport.race.Guards`) are passed in as plain booleans.

Operations, the vocabulary of an Enactor step a student writes (:mod:`labsupport.enactor`): each
is one atomic call on one endpoint, :class:`Read` (the step gets a :class:`ZoneView`),
:class:`Write` and :class:`Delete` (one change batch each; ``True`` if it committed). ``expect=``
makes a batch a compare-and-set, as a Route 53 batch that deletes a record with a value the record
no longer has fails whole. :meth:`HostedZone.view` and :meth:`HostedZone.perform` carry them out
with the built-in batches' rules, every guard off.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import ConfigError

__all__ = ["COMMITTED", "Change", "Delete", "HostedZone", "Read", "Write", "ZoneView"]

# Outcome kinds of a change batch. Enactors and tests compare against these strings.
APPLIED = "applied"
STALE_APPLIED = "stale_applied"
NOOP = "noop"
REFUSED_NOT_NEWER = "refused_not_newer"
REFUSED_EMPTY = "refused_empty"
INCONSISTENT = "inconsistent"
SELF_REPAIRED = "self_repaired"
DELETED = "deleted"
DELETED_ACTIVE = "deleted_active"
SKIPPED_REFERENCED = "skipped_referenced"
CONDITION_FAILED = "condition_failed"
MISSING = "missing"
#: The outcome kinds of a batch that committed (a student's write or delete gets ``True`` for these).
COMMITTED = frozenset({APPLIED, STALE_APPLIED, NOOP, DELETED, DELETED_ACTIVE})


@dataclass(frozen=True)
class Change:
    """The outcome of one change batch on one hosted zone.

    Attributes:
        kind: one of ``"applied"``, ``"stale_applied"`` (an older plan replaced a newer one),
            ``"noop"`` (the plan was already active), ``"refused_not_newer"`` (guard 1),
            ``"refused_empty"`` (guard 3; raises an alert), ``"inconsistent"`` (the rollback record
            cannot point at an active plan that no longer exists), ``"self_repaired"`` (guard 4),
            ``"deleted"``, ``"deleted_active"`` (clean-up removed the tree the alias points at) or
            ``"skipped_referenced"`` (guard 2); for a student's operation (:meth:`HostedZone.perform`)
            also ``"condition_failed"`` (``expect=`` no longer held) and ``"missing"`` (no tree to delete).
        generation: the plan generation the batch was about.
        before: alias target before the batch (None if no alias yet).
        after: alias target after the batch.
        records: the number of records the endpoint answers with after the batch.
        detail: one readable sentence for the event table.
    """

    kind: str
    generation: int
    before: int | None
    after: int | None
    records: int
    detail: str


@dataclass(frozen=True)
class ZoneView:
    """What a :class:`Read` returns: the endpoint's records at the read (a snapshot).

    Attributes:
        endpoint: the endpoint read.
        alias, rollback: the plan generations the alias and the rollback record point at (the
            alias's tree may be gone: then the endpoint answers with no records).
        trees: the plan generations whose record trees exist, ascending.
    """

    endpoint: str
    alias: int | None
    rollback: int | None
    trees: tuple[int, ...]

    def __str__(self) -> str:
        return f"alias {self.alias}, rollback {self.rollback}, trees {','.join(map(str, self.trees)) or 'none'}"


@dataclass(frozen=True)
class Read:
    """Operation: read one endpoint's alias, rollback record and trees in one call; the step gets a :class:`ZoneView`.

    Raises:
        ConfigError: ``endpoint`` is not a non-empty ``str``.
    """

    endpoint: str

    def __post_init__(self) -> None:
        if not isinstance(self.endpoint, str) or not self.endpoint:
            raise ConfigError(f"read: endpoint must be an endpoint's name (a non-empty str), got {self.endpoint!r}")

    def __str__(self) -> str:
        return f"read({self.endpoint!r})"


@dataclass(frozen=True)
class _Batch:
    """A change batch a step yields: :class:`Write` or :class:`Delete` (see their docstrings)."""

    endpoint: str
    plan: int
    expect: ZoneView | None = None

    def __post_init__(self) -> None:
        op = type(self).__name__.lower()
        if not isinstance(self.endpoint, str) or not self.endpoint:
            raise ConfigError(f"{op}: endpoint must be an endpoint's name (a non-empty str), got {self.endpoint!r}")
        if type(self.plan) is not int or self.plan < 1:
            raise ConfigError(f"{op}: plan must be a plan generation (an int >= 1), got {self.plan!r}")
        view = self.expect is None or (isinstance(self.expect, ZoneView) and self.expect.endpoint == self.endpoint)
        if not view:
            raise ConfigError(f"{op}: expect must be None or what read({self.endpoint!r}) gave, got {self.expect!r}")

    def __str__(self) -> str:
        cas = "" if self.expect is None else f", expect=<alias {self.expect.alias}, rollback {self.expect.rollback}>"
        return f"{type(self).__name__.lower()}({self.endpoint!r}, {self.plan}{cas})"


class Write(_Batch):
    """Operation ``Write(endpoint, plan, expect=None)``: one batch applying ``plan`` (tree, alias, rollback record).

    ``expect``: ``None`` for a blind write (as in October), or a :class:`ZoneView` from an earlier
    read of the endpoint: the batch then commits only if the alias and the rollback record still
    point where they did (compare-and-set). The step gets ``True`` if it committed; ``False`` if
    ``expect`` no longer held, or the alias points at a deleted tree (the inconsistent state).

    Raises:
        ConfigError: ``endpoint`` not a non-empty ``str``, ``plan`` not an ``int >= 1``, or
            ``expect`` not ``None`` nor a read of this endpoint.
    """


class Delete(_Batch):
    """Operation ``Delete(endpoint, plan, expect=None)``: one batch deleting plan ``plan``'s record tree.

    ``expect`` as for :class:`Write`. The step gets ``True`` if the tree was deleted; ``False`` if
    ``expect`` no longer held or there was no such tree. Deleting the alias's tree empties the endpoint.

    Raises:
        ConfigError: as for :class:`Write`.
    """


@dataclass
class HostedZone:
    """The records of one endpoint: plan trees, the alias, the rollback record and the lock.

    Attributes:
        endpoint: the endpoint's name (for example ``"regional"``).
        trees: plan generation -> number of weighted records in that plan's tree.
        alias: generation whose tree the endpoint's alias points at (None before the first plan).
        rollback: generation the rollback record points at.
        lock_holder: name of the Enactor whose TXT record holds the lock, or None.
        lock_expires_s: when the lock expires, in seconds since the scenario start.
    """

    endpoint: str
    trees: dict[int, int] = field(default_factory=dict)
    alias: int | None = None
    rollback: int | None = None
    lock_holder: str | None = None
    lock_expires_s: float = float("-inf")

    def answer_count(self) -> int:
        """Records a resolver gets for this endpoint: 0 if the alias points at a deleted tree."""
        if self.alias is None:
            return 0
        return self.trees.get(self.alias, 0)

    def lock_blocker(self, who: str, now_s: float) -> str | None:
        """Return the other Enactor that holds an unexpired lock at ``now_s``, or None if ``who`` may take it."""
        if self.lock_holder is not None and self.lock_holder != who and now_s < self.lock_expires_s:
            return self.lock_holder
        return None

    def take_lock(self, who: str, until_s: float) -> None:
        """Delete and re-create the lock's TXT record with ``who`` as holder until ``until_s`` (DAT453)."""
        self.lock_holder = who
        self.lock_expires_s = until_s

    def apply_plan(
        self,
        generation: int,
        records: int,
        *,
        newest: tuple[int, int],
        check_version_on_write: bool,
        reject_empty_records: bool,
        self_repair: bool,
        max_record_drop_fraction: float,
        condition_holds: bool | None = None,
    ) -> Change:
        """Commit one Enactor batch: build plan ``generation``'s tree, flip the alias, move the rollback.

        Args:
            generation: the plan generation being applied.
            records: weighted records in that plan's tree for this endpoint (count, >= 0).
            newest: (generation, records) of the newest plan in the plan store, used by self-repair.
            check_version_on_write: guard 1, the batch is a conditional write (compare-and-set) that
                applies only if the endpoint's current generation is older than ``generation``.
            reject_empty_records: guard 3, refuse a batch that would leave the endpoint with zero
                records or cut its records by more than ``max_record_drop_fraction``.
            self_repair: guard 4, if the active plan's tree is missing, re-apply the newest plan from
                scratch instead of failing.
            max_record_drop_fraction: largest allowed cut in records under guard 3 (fraction, 0-1].
            condition_holds: the batch's write condition as a strategy evaluated it (see
                :class:`labsupport.strategy.WriteRequest`): ``False`` refuses the batch as guard 1
                would, ``True`` lets it go on; ``None`` (default) leaves the decision to guard 1.

        Returns:
            A :class:`Change`. Only ``applied``, ``stale_applied`` and ``self_repaired`` change state.
        """
        before = self.alias
        if condition_holds is None:
            condition_holds = not (check_version_on_write and before is not None and before >= generation)
        if not condition_holds:
            return self._unchanged(
                REFUSED_NOT_NEWER, generation, f"conditional write refused: endpoint already on plan {before}"
            )
        if before is not None and before not in self.trees:
            # The rollback record must point at the active plan in the same batch: it cannot.
            if not self_repair:
                return self._unchanged(
                    INCONSISTENT, generation, f"batch rejected: rollback record cannot point at deleted plan {before}"
                )
            gen, count = newest
            self.trees[gen] = count
            self.alias, self.rollback = gen, gen
            return Change(
                SELF_REPAIRED,
                gen,
                before,
                gen,
                self.answer_count(),
                f"active plan {before} missing: rebuilt newest plan {gen} from scratch",
            )
        if reject_empty_records and _too_big_a_cut(self.answer_count(), records, max_record_drop_fraction):
            return self._unchanged(
                REFUSED_EMPTY,
                generation,
                f"refused: plan {generation} would cut records {self.answer_count()} -> {records}",
            )
        if before == generation:
            self.trees[generation] = records
            return self._unchanged(NOOP, generation, f"plan {generation} already active (idempotent)")
        self.trees[generation] = records
        self.alias, self.rollback = generation, before
        stale = before is not None and generation < before
        kind = STALE_APPLIED if stale else APPLIED
        what = f"OVERWROTE newer plan {before}" if stale else f"replaced plan {before}"
        return Change(
            kind,
            generation,
            before,
            generation,
            self.answer_count(),
            f"alias -> plan {generation} ({what}); rollback -> {before}",
        )

    def delete_tree(
        self,
        generation: int,
        *,
        delete_only_unreferenced: bool,
        reject_empty_records: bool,
        max_record_drop_fraction: float,
    ) -> Change:
        """Commit one clean-up deletion of plan ``generation``'s tree.

        Args:
            generation: the plan whose tree to delete (it must exist in :attr:`trees`).
            delete_only_unreferenced: guard 2, skip a tree that the alias or rollback record points at.
            reject_empty_records: guard 3, refuse a deletion that would leave the endpoint with zero
                records (or cut them by more than ``max_record_drop_fraction``); raises an alert.
            max_record_drop_fraction: largest allowed cut in records under guard 3 (fraction, 0-1].

        Returns:
            A :class:`Change` of kind ``deleted``, ``deleted_active``, ``skipped_referenced`` or
            ``refused_empty``.

        Raises:
            KeyError: if the tree does not exist.
        """
        count = self.trees[generation]
        if delete_only_unreferenced and generation in (self.alias, self.rollback):
            role = "alias" if generation == self.alias else "rollback record"
            return self._unchanged(
                SKIPPED_REFERENCED, generation, f"kept plan {generation}: the {role} still refers to it"
            )
        active = generation == self.alias
        if reject_empty_records and active and _too_big_a_cut(count, 0, max_record_drop_fraction):
            return self._unchanged(
                REFUSED_EMPTY, generation, f"refused: deleting active plan {generation} would leave 0 records"
            )
        del self.trees[generation]
        if active:
            return Change(
                DELETED_ACTIVE,
                generation,
                self.alias,
                self.alias,
                0,
                f"deleted plan {generation}, the ACTIVE plan: alias now points at nothing",
            )
        return Change(
            DELETED,
            generation,
            self.alias,
            self.alias,
            self.answer_count(),
            f"deleted plan {generation} ({count} records)",
        )

    def view(self) -> ZoneView:
        """Answer a :class:`Read`: the alias, the rollback record and the trees that exist now."""
        return ZoneView(self.endpoint, self.alias, self.rollback, tuple(sorted(self.trees)))

    def perform(self, op: Write | Delete, records: int) -> Change:
        """Commit a student's :class:`Write` or :class:`Delete` as one change batch (every guard off).

        Args:
            op: the operation; its ``endpoint`` must be this zone's.
            records: weighted records in ``op.plan``'s tree for this endpoint (count), for a write.

        Returns:
            A :class:`Change`: ``condition_failed`` if ``op.expect`` no longer holds, ``missing``
            for a delete of a tree that does not exist; otherwise as :meth:`apply_plan` or
            :meth:`delete_tree` return it. The batch committed exactly when ``kind in COMMITTED``.
        """
        now = (self.alias, self.rollback)
        if op.expect is not None and now != (op.expect.alias, op.expect.rollback):
            return self._unchanged(CONDITION_FAILED, op.plan, f"refused: alias {now[0]}, rollback {now[1]} now")
        if isinstance(op, Write):
            return self.apply_plan(
                op.plan,
                records,
                newest=(op.plan, records),
                check_version_on_write=False,
                reject_empty_records=False,
                self_repair=False,
                max_record_drop_fraction=1.0,
            )
        if op.plan not in self.trees:
            return self._unchanged(MISSING, op.plan, f"no tree for plan {op.plan} to delete")
        return self.delete_tree(
            op.plan, delete_only_unreferenced=False, reject_empty_records=False, max_record_drop_fraction=1.0
        )

    def repair(self, generation: int, records: int) -> Change:
        """An operator's manual repair: install plan ``generation``'s tree and point alias and rollback at it."""
        before = self.alias
        self.trees[generation] = records
        self.alias, self.rollback = generation, generation
        return Change(
            APPLIED,
            generation,
            before,
            generation,
            self.answer_count(),
            f"operator installed a healthy tree for plan {generation}",
        )

    def _unchanged(self, kind: str, generation: int, detail: str) -> Change:
        return Change(kind, generation, self.alias, self.alias, self.answer_count(), detail)


def _too_big_a_cut(old: int, new: int, max_drop_fraction: float) -> bool:
    """True if going from ``old`` to ``new`` records empties the endpoint or cuts more than allowed."""
    if new <= 0:
        return True
    return old > 0 and (old - new) / old > max_drop_fraction
