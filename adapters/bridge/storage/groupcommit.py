"""Group commit: rows queued without waiting, committed together, once a turn of the event loop.

Callers queue rows and, where an ack depends on it, a barrier whose future resolves after the
commit that includes everything queued before it. Rows queued in consecutive turns of the
loop are committed together: under load one transaction (and one fsync, or one round trip)
covers many events of many worlds. How a batch is committed is the backend's
(:meth:`GroupCommit._send`); this module is the producers' side, the fences, and the barriers.

A row is ``(op, params)``. The ops, with their params:

- ``log``: (world, seq, kind, event_id, name, body, at, fence)
- ``snapshot``: (world, seq, data, at, fence); the older snapshots but one are pruned (the
  world's first is kept)
- ``acked``: (seq, world), ``adapter``: (adapter, world), ``rehash``: (role, new, world, old)

``acked`` rows (a client applied the commands up to a seq) are lazy: no ack waits for them,
and a command the client applied but the database does not know of is only sent again
(clients ignore a seq they have applied), so they ride with the next commit, or are
committed on their own :attr:`GroupCommit.LAZY_SECONDS` later. At a table's pace that is one
commit a move instead of two (the event's, then its command's ack).

``log`` and ``snapshot`` rows are fenced: each commit checks that their world's lease still
has the fence they were queued under; rows of a world whose fence moved on are dropped, and
that world's barriers fail with :class:`NotOwner`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vttbridge.adapters.bridge.storage.errors import NotOwner, StoreError

if TYPE_CHECKING:
    from vttbridge.adapters.bridge.storage.leases import Lease

log = logging.getLogger(__name__)

FENCED = frozenset({"log", "snapshot"})
SNAPSHOTS_KEPT = 2
"""The last snapshots kept per world; its first is kept as well (a replay starts there)."""

Claim = tuple[str, int]
"""(world, fence): the lease a row or a barrier was queued under."""


@dataclass
class WriterStats:
    batches: int = 0
    rows: int = 0
    largest_batch: int = 0
    failures: int = 0
    busy_seconds: float = field(default=0.0, repr=False)


@dataclass
class _Barrier:
    """Runs ``callback(error)`` in the event loop once every write queued before it is
    committed (``error`` None) or has failed."""

    callback: Callable[[BaseException | None], None]
    loop: asyncio.AbstractEventLoop
    claim: Claim | None = None
    """A world's barrier also fails when that world's rows were refused."""


class Batch:
    """A batch sorted for its commit: the rows by op (ops in order of first appearance:
    reordering inside one transaction is invisible to readers, and the only order that
    matters, a snapshot before the pruning of older ones, is kept within the op), the claims
    of its fenced rows, and its barriers."""

    __slots__ = ("barriers", "claims", "groups")

    def __init__(self, chunks: Iterable[list[Any]]) -> None:
        groups: dict[str, list[tuple]] = {}
        barriers: list[_Barrier] = []
        for chunk in chunks:
            for it in chunk:
                if type(it) is _Barrier:
                    barriers.append(it)
                    continue
                op, params = it
                rows = groups.get(op)
                if rows is None:
                    rows = groups[op] = []
                rows.append(params)
        self.groups, self.barriers = groups, barriers
        self.claims: set[Claim] = {
            (p[0], p[-1]) for op in FENCED if op in groups for p in groups[op]
        }

    @property
    def rows(self) -> int:
        return sum(map(len, self.groups.values()))

    def drop(self, stale: Iterable[Claim]) -> None:
        """Leave out the fenced rows of ``stale`` claims."""
        gone = set(stale)
        for op in FENCED & self.groups.keys():
            self.groups[op] = [p for p in self.groups[op] if (p[0], p[-1]) not in gone]

    def refused(self, current: Mapping[str, int | None]) -> dict[Claim, NotOwner]:
        """The claims whose fence is not the world's ``current`` one (None: no owner)."""
        out = {}
        for world, fence in self.claims:
            now = current.get(world)
            if now != fence:
                out[(world, fence)] = NotOwner(world, fence, now)
        return out


class GroupCommit:
    """The producers' side of a database's single writer (see the module docstring)."""

    MAX_TURNS = 8
    """Turns of the event loop a commit waits at most for more rows (see ``_turn_passed``)."""
    LAZY_SECONDS = 1.0
    """How long a lazy row waits for a commit to ride with."""

    def __init__(self) -> None:
        self._buf: list[Any] = []
        self._lazy: list[Any] = []  # rows that ride with the next commit
        self._lazy_due: asyncio.TimerHandle | None = None
        self._futures: dict[Claim | None, asyncio.Future] = {}  # shared within this batch
        self._next_turn: asyncio.Handle | None = None  # set while a commit is on its way
        self.stats = WriterStats()
        self.failed: BaseException | None = None
        self.on_lost: Callable[[str, int, StoreError], None] | None = None
        self.on_commit: Callable[[float, bool], None] | None = None
        """Called with each commit's seconds and whether it failed (from the committing
        thread: the metrics)."""
        self._loop: asyncio.AbstractEventLoop | None = None  # the producers'

    # -- to implement ------------------------------------------------------------------------
    def _send(self, buf: list[Any]) -> None:
        """Commit ``buf`` (rows and barriers, in order), then :meth:`_settle` its barriers.
        Commits happen in the order sent."""
        raise NotImplementedError

    # -- producers (event loop thread) -------------------------------------------------------
    def queue(self, op: str, params: tuple) -> None:
        self._add((op, params))

    def queue_lazy(self, op: str, params: tuple) -> None:
        """Queue a row no ack waits for: it is committed with the next commit, or on its own
        :attr:`LAZY_SECONDS` later."""
        self._lazy.append((op, params))
        if self._lazy_due is not None or self._next_turn is not None:
            return
        if (loop := self._producers_loop()) is not None:
            self._lazy_due = loop.call_later(self.LAZY_SECONDS, self._flush)

    def _add(self, item: Any) -> None:
        self._buf.append(item)
        if self._next_turn is not None:
            return
        if (loop := self._producers_loop()) is not None:
            self._next_turn = loop.call_soon(self._turn_passed, loop, 1, len(self._buf) - 1)

    def _producers_loop(self) -> asyncio.AbstractEventLoop | None:
        """The running event loop; with none, what is queued is committed now (no turn to
        wait for) and None is returned."""
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            self._flush()
            return None
        return self._loop

    def _turn_passed(self, loop: asyncio.AbstractEventLoop, turns: int, before: int) -> None:
        # Group commit. Commit once a turn of the loop has queued nothing, or after
        # MAX_TURNS: while the turns keep queueing rows (the handlers of events read
        # meanwhile), they join this commit, and each commit's pages are shared by more
        # events (at 10 busy clients a fixed two turns made 3.4 rows a commit; up to 8 turns
        # take about 3 % off the CPU time of a move). Alone, an event waits two turns.
        # ``before``: the rows queued when the last turn began.
        rows = len(self._buf)
        if rows > before and turns < self.MAX_TURNS:
            self._next_turn = loop.call_soon(self._turn_passed, loop, turns + 1, rows)
            return
        self._flush()

    def _flush(self) -> None:
        if self._next_turn is not None:  # committed early (commit_now, close)
            self._next_turn.cancel()
            self._next_turn = None
        if self._lazy:
            # Its timer is left to find nothing to do, not cancelled: a writer's close() flushes
            # from another thread, and a loop's timer (uvloop's) is not to be touched there.
            self._lazy_due = None
            self._buf[:0], self._lazy = self._lazy, []
        if not self._buf:
            return
        buf, self._buf = self._buf, []
        if self._futures:
            self._futures = {}
        self._send(buf)

    @property
    def pending(self) -> bool:
        """Rows or barriers are queued for the next commit."""
        return bool(self._buf or self._lazy)

    def commit_now(self) -> None:
        """Commit what is queued now instead of a turn later."""
        if self._buf or self._lazy:
            self._flush()

    def after_commit(
        self, callback: Callable[[BaseException | None], None], claim: Claim | None = None
    ) -> None:
        """Call ``callback(None)`` in the event loop once everything queued so far is
        committed, or ``callback(error)`` if it could not be (or, with a ``claim``, if that
        world's rows were refused)."""
        self._add(_Barrier(callback, asyncio.get_running_loop(), claim))

    def barrier(self, claim: Claim | None = None) -> asyncio.Future:
        """A future that resolves once everything queued so far is committed (or fails with
        the database error, or :class:`NotOwner`). Callers in one batch share one future: an
        event's ack costs no callback of its own."""
        fut = self._futures.get(claim)
        if fut is not None:
            return fut
        # Asked for once: on Python 3.11 each asking is a getpid() system call, and under
        # load one barrier per event is made (an event's world is rarely twice in a batch).
        loop = asyncio.get_running_loop()
        fut = loop.create_future()

        def settle(error: BaseException | None) -> None:
            if fut.done():
                return
            if error is None:
                fut.set_result(None)
            elif isinstance(error, StoreError):
                fut.set_exception(error)
            else:
                fut.set_exception(StoreError(f"the database cannot be written: {error}"))

        self._add(_Barrier(settle, loop, claim))
        self._futures[claim] = fut
        return fut

    # -- committers --------------------------------------------------------------------------
    def _count(self, batch: Batch, started: float, error: BaseException | None) -> None:
        stats = self.stats
        took = time.perf_counter() - started
        stats.busy_seconds += took
        if self.on_commit is not None:
            self.on_commit(took, error is not None)
        stats.batches += 1
        rows = batch.rows
        stats.rows += rows
        stats.largest_batch = max(stats.largest_batch, rows)
        if error is not None:
            stats.failures += 1

    def _settle(
        self,
        barriers: list[_Barrier],
        error: BaseException | None,
        refused: dict[Claim, NotOwner],
        *,
        threadsafe: bool = False,
    ) -> None:
        """Run the barriers' callbacks in their loops (from another thread: ``threadsafe``),
        and report the refused worlds."""
        if refused:
            for b in barriers:
                if b.claim is not None and b.claim in refused and error is None:
                    b.callback = _failing(b.callback, refused[b.claim])
        lost = list(refused.items()) if self.on_lost is not None else []
        if not threadsafe:
            _run_callbacks([b.callback for b in barriers], error)
            self._report(lost)
            return
        by_loop: dict[asyncio.AbstractEventLoop, list[Callable]] = {}
        for b in barriers:
            by_loop.setdefault(b.loop, []).append(b.callback)
        for loop, callbacks in by_loop.items():
            # RuntimeError: the loop is closed, so nobody is waiting any more
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_run_callbacks, callbacks, error)
        if lost and self._loop is not None:
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._report, lost)

    def _report(self, lost: Sequence[tuple[Claim, StoreError]]) -> None:
        """Tell ``on_lost`` of each world whose rows were refused or failed."""
        on_lost = self.on_lost
        if on_lost is None:
            return
        for (world, fence), why in lost:
            try:
                on_lost(world, fence, why)
            except Exception:
                log.exception("reporting the loss of world %r failed", world)


def _failing(
    callback: Callable[[BaseException | None], None], why: BaseException
) -> Callable[[BaseException | None], None]:
    return lambda error: callback(error or why)


def _run_callbacks(callbacks: list[Callable], error: BaseException | None) -> None:
    for cb in callbacks:
        try:
            cb(error)
        except Exception:  # one waiter's bug must not keep the others waiting
            log.exception("a commit callback failed")


class WorldLog:
    """One world's rows, written under one lease (``Storage.log``)."""

    __slots__ = ("_add", "_claim", "fence", "world", "writer")

    def __init__(self, writer: GroupCommit, lease: Lease) -> None:
        self.writer = writer
        self.world, self.fence = lease.world, lease.fence
        self._claim: Claim = (lease.world, lease.fence)
        self._add = writer._add

    def event(self, seq: int, event_id: str | None, name: str, body: str) -> None:
        self._add(
            ("log", (self.world, seq, "event", event_id, name, body, time.time(), self.fence))
        )

    def command(self, seq: int, op: str, body: str) -> None:
        self._add(("log", (self.world, seq, "command", None, op, body, time.time(), self.fence)))

    def snapshot(self, seq: int, data: str) -> None:
        self._add(("snapshot", (self.world, seq, data, time.time(), self.fence)))

    def acked(self, seq: int) -> None:
        """A GM client applied the commands up to ``seq`` (a lazy row)."""
        self.writer.queue_lazy("acked", (seq, self.world))

    def linked(self, adapter: str) -> None:
        """The GM client that linked the world now speaks ``adapter``."""
        self._add(("adapter", (adapter, self.world)))

    def after_commit(self, callback: Callable[[BaseException | None], None]) -> None:
        self.writer.after_commit(callback, self._claim)

    def barrier(self) -> asyncio.Future:
        return self.writer.barrier(self._claim)
