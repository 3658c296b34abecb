"""One hosted world: its runtime, its inbound events in arrival order, its log sequence, dedup,
quarantine, and its commands (``outbox.py``).

:meth:`WorldHost.receive` is an inbound event's path through the host, all in the task that
reads its connection (``docs/architecture.md`` follows it from the socket to the ack)::

    accept: dedup, quarantine, queue limit --> the runtime's lock (FIFO: arrival order)
    run:    adapter.translate_in (against the current world) --> runtime.process, whose
            return value (the event as the world took it, its effects) becomes the log row
            and the commands queued to the world's log --> lock released
    the store commits (one transaction for every world, once a turn of the loop brings no
    more rows: storage/groupcommit.py), checking the world's lease fence
    settle: ack {"ok": true, "seq"}; the commands are published

A refused event raises a :class:`~vttbridge.rules.refusal.Refusal` (the bridge's, the
adapter's, the runtime's or the rules'), which the namespace answers; the world is unchanged.
Events the runtime makes itself (timeouts) reach :meth:`WorldHost._journal` instead.

Nothing waits for the disk while holding the lock: the next event is run while the store
commits, and only the ack and the commands wait for the commit. So a crash loses only events
nobody was told about, and a client never holds a command the server could forget. There is
no queue of our own: the lock's waiters are the queue, and running in the reading task saves
the hand-offs to and from a consumer task.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from vttbridge.adapters.base import Adapter, Inbound
from vttbridge.adapters.bridge import outbox
from vttbridge.adapters.bridge.config import WorldConfig
from vttbridge.adapters.bridge.declined import commands_for
from vttbridge.adapters.bridge.dedup import RecentIds
from vttbridge.adapters.bridge.outbox import Outbox, Subscriber
from vttbridge.adapters.bridge.protocol import Ack, ErrorCode, Refused, refused_payload
from vttbridge.adapters.bridge.storage import Lease, NotOwner, Storage
from vttbridge.rules.refusal import Refusal
from vttbridge.sdk.clock import Clock, Handle, SystemClock
from vttbridge.sdk.effects import Effect, PostChat
from vttbridge.sdk.errors import EventRejected
from vttbridge.sdk.events import EVENT_ADAPTER, BaseEvent
from vttbridge.sdk.runtime import WorldRuntime
from vttbridge.sdk.watchdog import Guard

log = logging.getLogger(__name__)


class GatedClock:
    """The runtime's clock, held shut while a world replays its log.

    Timers a restored runtime arms (prompt deadlines, ``wait_for`` timeouts) must not fire
    in the middle of the replay: the log already holds the timeouts that happened, in order.
    Timers armed while gated start when :meth:`open` is called, with whatever time is left.
    """

    def __init__(self, inner: Clock | None = None) -> None:
        self.inner: Clock = inner or SystemClock()
        self.gated = True
        self._held: list[_HeldTimer] = []

    def now(self) -> float:
        return self.inner.now()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Handle:
        if not self.gated:
            return self.inner.call_later(delay, callback)
        timer = _HeldTimer(self.now() + delay, callback)
        self._held.append(timer)
        return timer

    def open(self) -> None:
        self.gated = False
        held, self._held = self._held, []
        for t in held:
            if not t.cancelled:
                t.inner = self.inner.call_later(max(0.0, t.due - self.now()), t.callback)


@dataclass(eq=False)
class _HeldTimer:
    due: float
    callback: Callable[[], None]
    cancelled: bool = False
    inner: Handle | None = None

    def cancel(self) -> None:
        self.cancelled = True
        if self.inner is not None:
            self.inner.cancel()


@dataclass(eq=False)
class Job:
    """One inbound event on its way through the host."""

    adapter: Adapter
    event: str
    payload: Inbound
    future: asyncio.Future[Ack] | None = None
    """Made when a copy of the event arrives while it is run (the copy waits on this: its
    ack, or the refusal raised)."""
    last_seq: int | None = None
    """Seq of the last log row of this job's domain events."""
    refusal: Refusal | None = None
    """A part refused after earlier parts were applied: answered once those are committed."""

    @property
    def event_id(self) -> str:
        return self.payload.id


class WorldHost:
    """Hosts one world for the bridge. Create with :meth:`load` (replays the log)."""

    def __init__(
        self,
        name: str,
        runtime: WorldRuntime,
        store: Storage,
        lease: Lease,
        *,
        config: WorldConfig,
        seq: int = 0,
        acked_seq: int = 0,
    ) -> None:
        self.name = name
        self.runtime = runtime
        self.store = store
        self.lease = lease
        self.log = store.log(lease)
        """Where this world's rows go, under its lease (a takeover refuses them)."""
        self.config = config
        self.seq = seq
        """Last seq handed out (events and commands share it)."""
        self.subscribers: dict[str, Subscriber] = {}
        self.outbox = Outbox(
            name,
            store,
            self.log,
            self.subscribers,
            seq=seq,
            acked_seq=acked_seq,
            keep=config.recent_commands,
        )
        self.adapter: Adapter | None = None
        """The adapter of the GM client that last linked this world: effects become its
        commands (a world is linked to one VTT at a time)."""
        self.watchers: set[str] = set()
        """Dashboards watching this world (``dashboard/feed.py``): it stays awake."""
        self.idle_since: float | None = time.monotonic()
        """When the last client left (None while one is connected)."""
        self.stopped = False
        self.events_since_snapshot = 0
        self._snapshot_due = self._next_snapshot_due()
        self.last_event_at = time.monotonic()
        self.replay_divergences = 0

        self._waiting = 0  # events accepted and not yet run
        self._running: Job | None = None
        """The job in the runtime now, for the watchdog's thread (quarantine) only."""
        self._seen = RecentIds(config.dedup_window)
        self._inflight: dict[str, Job] = {}
        self._journaled: list[Effect] | None = None
        self._unsubscribe: list[Callable[[], None]] = []
        self._suspects: dict[str, tuple[str, str, float]] = {}
        """Events a script overran its budget on before the last restart: quarantined."""
        self._told: set[str] = set()

    # -- life cycle --------------------------------------------------------------------------
    @classmethod
    async def load(
        cls,
        name: str,
        store: Storage,
        lease: Lease,
        *,
        adapters: dict[str, Adapter],
        config: WorldConfig,
        runtime_kw: dict[str, Any],
        acked_seq: int = 0,
        adapter_name: str | None = None,
    ) -> WorldHost:
        """Rebuild a world: its last snapshot, then every event logged after it. Commands the
        replay produces are not sent again (the log already holds the ones sent). Read only
        once ``lease`` is held: every write of an earlier owner is in the database by then."""
        clock = GatedClock()
        snap = await store.latest_snapshot(name)
        kw = dict(runtime_kw, clock=clock)
        if snap is not None:
            base, data = snap
            # the options the world was created with seeded its first snapshot; since then
            # the snapshot holds them, with every ``!set`` the GM made
            kw.pop("options", None)
            runtime = WorldRuntime.restore(name, data, **kw)
        else:
            base = 0
            runtime = WorldRuntime(name, **kw)
        last = await store.last_seq(name)
        host = cls(
            name,
            runtime,
            store,
            lease,
            config=config,
            seq=last,
            acked_seq=min(acked_seq, last),
        )
        if adapter_name:
            host.adapter = adapters.get(adapter_name)
        host._seen = RecentIds(
            config.dedup_window, await store.recent_event_ids(name, config.dedup_window)
        )
        host._suspects = await store.suspects(name)
        runtime.on_overrun = host._mark_suspect
        host._unsubscribe = [
            runtime.add_journal(host._journal, processed=False),
            runtime.on_effects(host._effects),
        ]
        await runtime.start()
        replayed = await host._replay(base)
        if snap is None or replayed:
            # a world's first snapshot holds its dice seed: without it a replay from seq 0
            # would roll different dice than the first run did
            host._snapshot()
        clock.open()
        if replayed:
            log.info(
                "World %r restored: %d events replayed after the snapshot at seq %d.",
                name,
                replayed,
                base,
            )
        return host

    async def _replay(self, after: int) -> int:
        count, cursor = 0, after
        while True:
            rows = await self.store.log_after(self.name, cursor, kind="event", limit=1000)
            if not rows:
                return count
            for row in rows:
                cursor = row.seq
                try:
                    event = EVENT_ADAPTER.validate_python(row.body["event"])
                except ValidationError as e:
                    log.error(
                        "World %r: log row %d cannot be read (%s); skipped.", self.name, row.seq, e
                    )
                    continue
                try:
                    async with self.runtime.lock:
                        _, effects = await self.runtime.process(event)
                except EventRejected as e:
                    self._diverged(row.seq, f"rejected on replay: {e.message}")
                else:
                    logged = row.body.get("effects", [])
                    if [f.model_dump(mode="json") for f in effects] != logged:
                        self._diverged(row.seq, "different effects on replay")
                count += 1
                self.events_since_snapshot += 1

    def _diverged(self, seq: int, why: str) -> None:
        self.replay_divergences += 1
        if self.replay_divergences == 1:
            # a script that changed since the log was written can do this; state follows the
            # new scripts, the log keeps what really happened
            log.warning(
                "World %r: replay differs from the log at seq %d (%s). A script or the "
                "rules probably changed since; continuing.",
                self.name,
                seq,
                why,
            )

    # -- presence ------------------------------------------------------------------------------
    def subscribe(self, sub: Subscriber) -> None:
        self.subscribers[sub.sid] = sub
        self.idle_since = None

    def unsubscribe(self, sid: str) -> None:
        self.subscribers.pop(sid, None)
        if not self.subscribers:
            self.idle_since = time.monotonic()

    def keep_awake(self) -> None:
        """Restart the idle clock (someone is about to use the world)."""
        if self.idle_since is not None:
            self.idle_since = time.monotonic()

    def can_sleep(self, idle_for: float) -> bool:
        """Idle long enough, and nothing that needs the runtime in memory: no client or
        dashboard, no queued or unsaved work, no pending prompt (its timeout must fire), no
        script waiting."""
        if self.idle_since is None or time.monotonic() - self.idle_since < idle_for:
            return False
        rt = self.runtime
        return not (
            self.subscribers
            or self.watchers
            or self._inflight
            or self._waiting
            or self.outbox.pending
            or rt.world.prompts
            or rt.waiting
        )

    async def drain(self) -> None:
        """Wait until every event accepted so far has been run."""
        while self._waiting or self.runtime.lock.locked():
            async with self.runtime.lock:  # FIFO: after every event that was waiting for it
                pass

    async def stop(self, *, snapshot: bool = True) -> None:
        """Stop taking events; wait for accepted ones; write a final snapshot."""
        self.stopped = True
        await self.drain()
        if snapshot and self.events_since_snapshot:
            self._snapshot()
        unsubscribe, self._unsubscribe = self._unsubscribe, []
        for unsub in unsubscribe:
            unsub()
        await self.runtime.stop()
        # The last of the runtime's references to this host: once none is left, the world is
        # freed as soon as it is unloaded (its parts refer to nothing that holds them).
        self.runtime.on_overrun = None
        self.outbox.wake_all()

    # -- inbound -----------------------------------------------------------------------------
    @property
    def waiting(self) -> int:
        """Events accepted and waiting for the world's lock."""
        return self._waiting

    @property
    def here(self) -> WorldHost:
        """This world's host: this node runs it (see :class:`~vttbridge.adapters.bridge.hosted.
        HostedWorld`)."""
        return self

    async def receive(
        self, adapter: Adapter, event: str, payload: Inbound, sent: Any = None
    ) -> Ack:
        """An inbound event's whole way through the host: accepted, run in arrival order, and
        acknowledged once durable. Raises a :class:`~vttbridge.rules.refusal.Refusal` when it
        is refused (``sent``, the payload as the client sent it, is only for a world another
        node runs).

        No await before the lock is asked for, and the lock serves its waiters in order: events
        from several connections are run in the order they arrived (one connection's events
        already come one at a time, see ``sockets.py``)."""
        job = await self.accept(adapter, event, payload)
        if not isinstance(job, Job):
            return job  # a copy of an event already answered
        try:  # acknowledged only once the writer has committed the event's rows
            await self.log.barrier()
        except NotOwner as exc:
            try:  # name the node that has it now
                holder = await self.store.owner(self.name)
            except Exception:
                holder = None
            return self.settle(job, exc, holder.node if holder is not None else None)
        except Exception as exc:
            return self.settle(job, exc)
        return self.settle(job, None)

    async def accept(self, adapter: Adapter, event: str, payload: Inbound) -> Job | Ack:
        """Dedup, then run in arrival order. Returns the job, for :meth:`settle` once its rows
        are committed, or the ack of a copy of an event already answered (which needs no
        commit). Raises a :class:`~vttbridge.rules.refusal.Refusal`; the world is unchanged."""
        eid = payload.id
        seq = self._seen.get(eid)
        if seq is not None:
            return {"ok": True, "seq": seq, "duplicate": True}
        if eid in self._suspects:
            raise self._quarantined(eid)
        inflight = self._inflight.get(eid)
        if inflight is not None:
            if inflight.future is None:
                inflight.future = asyncio.get_running_loop().create_future()
            return await _as_duplicate(inflight.future)
        if self.stopped:
            raise Refused(
                ErrorCode.SHUTTING_DOWN, f"World {self.name!r} is being saved; send it again."
            )
        if self._waiting >= self.config.queue_limit:
            raise Refused(
                ErrorCode.BUSY,
                f"World {self.name!r} has {self._waiting} events waiting; try again.",
            )
        job = self._inflight[eid] = Job(adapter, event, payload)
        lock = self.runtime.lock
        self._waiting += 1
        try:
            await lock.acquire()
        except asyncio.CancelledError:
            self._inflight.pop(eid, None)
            if job.future is not None:
                job.future.cancel()
            raise
        finally:
            self._waiting -= 1
        try:
            await self._run(job)
        except Refusal as refusal:
            self._finish(job, refusal=refusal)
            raise
        except Exception as e:  # a bug of ours: answer, log, keep the world running
            log.exception("World %r: running %s failed", self.name, job.event)
            refused = Refused(ErrorCode.INTERNAL, f"Server error: {e}")
            self._finish(job, refusal=refused)
            raise refused from e
        finally:
            lock.release()
        return job

    def settle(self, job: Job, error: BaseException | None, holder: str | None = None) -> Ack:
        """The ack of a job whose rows were committed; raises the refusal when they could not
        be (``error``; ``holder``: the node that owns the world now) or a part was refused."""
        refusal: Refusal | None
        if isinstance(error, NotOwner):
            by = f" ({holder})" if holder else ""
            refusal = Refused(
                ErrorCode.WORLD_UNAVAILABLE,
                f"World {self.name!r} is now served by another node{by}; this event was not "
                "saved: reconnect and send it again.",
            )
        elif error is not None:
            refusal = Refused(
                ErrorCode.INTERNAL,
                f"The server could not save this event ({error}); it was not "
                "acknowledged, send it again later.",
            )
        else:
            self._seen.add(job.event_id, job.last_seq or 0)
            refusal = job.refusal
        if refusal is not None:
            self._finish(job, refusal=refusal)
            raise refusal
        ack: Ack = {"ok": True, "seq": job.last_seq}
        self._finish(job, ack)
        return ack

    async def _run(self, job: Job) -> None:
        """Translate one job and have the runtime process it; the caller holds the runtime's
        lock. Each processed part is recorded from what ``process`` returns (its log row, its
        commands). Raises a :class:`~vttbridge.rules.refusal.Refusal` when nothing was
        applied; a part refused after others were sets ``job.refusal``."""
        try:
            events = job.adapter.translate_in(job.event, job.payload, self.runtime.world)
        except ValidationError as e:  # the adapter built a domain event from bad values
            raise refused_payload(e) from None
        count = len(events)
        if count > 1:  # all or nothing: every part checked before any is applied
            for i, ev in enumerate(events):
                try:
                    self.runtime.check(ev)
                except EventRejected as e:
                    msg = f"{e.message} (part {i + 1} of {count}; none was applied.)"
                    raise EventRejected(e.code, msg, e.path) from None
        self._running = job
        try:
            for i, ev in enumerate(events):
                if ev.id is None:
                    ev = ev.model_copy(update={"id": job.event_id})
                try:
                    done = await self.runtime.process(ev)
                except EventRejected as e:
                    if not i:
                        raise
                    # a part that only an earlier part made invalid (the parts were checked
                    # together against the world before): the earlier ones stay, say so
                    msg = f"{e.message} ({i} of {count} parts of this event were applied.)"
                    job.refusal = EventRejected(e.code, msg, e.path)
                    break
                job.last_seq = self._record(done.event, done.effects, job)
        finally:
            self._running = None
        if job.last_seq is None:  # nothing to log (an event the adapter ignores)
            job.last_seq = self.seq

    def _finish(self, job: Job, ack: Ack | None = None, *, refusal: Refusal | None = None) -> None:
        self._inflight.pop(job.event_id, None)
        fut = job.future
        if fut is not None and not fut.done():
            if refusal is not None:
                fut.set_exception(refusal)
            else:
                fut.set_result(ack or {})

    # -- quarantine ----------------------------------------------------------------------------
    def _mark_suspect(self, guard: Guard) -> None:
        """The watchdog's hook (its own thread; this world's thread is still in the script):
        mark the event suspect in the database now, so that if it hangs the server for good
        and the server is restarted, the client's re-send is quarantined, not run again. One
        write per overrun, none per normal event."""
        job = self._running
        if job is None:
            return
        where = f"{Path(guard.where[0]).name}:{guard.where[1]}" if guard.where else "a script"
        try:
            self.store.mark_suspect_now(self.name, job.event_id, job.event, where)
        except Exception:
            log.exception("World %r: cannot mark event %r suspect", self.name, job.event_id)
            return
        log.warning(
            "World %r: a script runs past its budget in event %r (%s) at %s; the event is "
            "marked suspect: after a restart it is quarantined, not run again.",
            self.name, job.event_id, job.event, where,
        )  # fmt: skip

    def _quarantined(self, eid: str) -> Refused:
        name, where, _ = self._suspects[eid]
        if eid not in self._told:  # tell the GM once per start, however often it is re-sent
            self._told.add(eid)
            log.warning("World %r: event %r (%s) is quarantined.", self.name, eid, name)
            text = (
                f"⚠ Event {eid} ({name}) was skipped: before the server restarted, a script "
                f"ran past its budget on it ({where}) and the server hung. It is not run again."
            )
            self._commands([PostChat(text=text, whisper_to="gm")])
        return Refused(
            ErrorCode.QUARANTINED,
            f"Event {eid} hung the server before its restart (a script at {where}); it is "
            "quarantined and never run again.",
        )

    # -- the log: every processed event ----------------------------------------------------
    def _journal(self, event: BaseEvent, effects: list[Effect]) -> None:
        """An event the runtime took from its own queue (a timeout, an event a script queued):
        recorded like the host's own."""
        self._journaled = effects
        self._record(event, effects, None)

    def _record(self, event: BaseEvent, effects: list[Effect], job: Job | None) -> int:
        """Give a processed event its seq, queue its log row and its commands; its seq."""
        self.seq += 1
        seq = self.seq
        body = (
            '{"event":'
            + event.model_dump_json()
            + ',"effects":['
            + ",".join(f.model_dump_json() for f in effects)
            + "]}"
        )
        if job is not None:
            self.log.event(seq, job.event_id, job.event, body)
        else:
            self.log.event(seq, None, event.source, body)
        self._commands(effects)
        self.events_since_snapshot += 1
        self.last_event_at = time.monotonic()
        if self.events_since_snapshot >= self._snapshot_due:
            self._snapshot()  # between two events: a consistent cut at exactly this seq
        return seq

    def _effects(self, effects: list[Effect]) -> None:
        """Effects no event explains (a script reloaded, its on_load hook)."""
        if effects is self._journaled:
            return  # the runtime also reports an internal event's effects here
        self._commands(effects)

    def _commands(self, effects: list[Effect]) -> None:
        """The linked VTT's commands for ``effects``: logged now, sent once committed."""
        adapter = self.adapter
        if not effects:
            return
        if adapter is None:
            log.info(
                "World %r: %d effects dropped: no VTT has linked this world yet.",
                self.name,
                len(effects),
            )
            return
        world = self.runtime.world
        logged = False
        for eff in effects:
            try:  # a declined effect gets its fallback (a question goes to the GM)
                commands = commands_for(adapter, eff, world)
            except Exception:  # one effect the adapter cannot show must not stop the rest
                log.exception("World %r: the %s adapter failed on %r", self.name, adapter.name, eff)
                continue
            for cmd in commands:
                self.seq += 1
                self.outbox.log(outbox.message(self.seq, cmd))
                logged = True
        if logged:
            self.outbox.publish(self.seq)

    def snapshot_if_quiet(self, quiet: float) -> bool:
        """Snapshot now if events came since the last one and none for ``quiet`` seconds.
        Between two events only (the lock is free), so the cut is consistent."""
        if (
            not self.events_since_snapshot
            or self.stopped
            or self.runtime.lock.locked()
            or time.monotonic() - self.last_event_at < quiet
        ):
            return False
        self._snapshot()
        return True

    def _snapshot(self) -> None:
        self.log.snapshot(self.seq, json.dumps(self.runtime.snapshot()))
        self.events_since_snapshot = 0
        self._snapshot_due = self._next_snapshot_due()

    def _next_snapshot_due(self) -> int:
        """Events until this world's next snapshot: ``snapshot_every``, up to an eighth fewer.
        Worlds woken together and played at one pace would otherwise reach it in the same few
        turns of the loop (a hundred busy worlds: a hundred snapshots of 0.4-0.9 ms each
        within 0.2 s, turns of 20-35 ms); drawn again after each, theirs drift apart."""
        every = self.config.snapshot_every
        return every - random.randrange(every // 8 + 1)

    # -- reading -------------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        view = self.runtime.state_view()
        view["seq"] = self.seq
        view["linked_vtt"] = self.adapter.name if self.adapter else None
        view["clients"] = len(self.subscribers)
        return view


async def _as_duplicate(fut: asyncio.Future[Ack]) -> Ack:
    """The ack of a copy of an event being run: the original's, marked a duplicate; or the
    original's refusal, raised again."""
    return dict(await asyncio.shield(fut), duplicate=True)
