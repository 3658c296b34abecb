"""The world's consumer: one event (or job) at a time under the lock, as one *step*.

A step validates and ingests an event, dispatches it and what it derives, lets async
callbacks settle, writes back the rules-owned values, then journals ``(event, effects)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vttbridge.sdk.effects import (
    BaseEffect,
    Effect,
    PostChat,
)
from vttbridge.sdk.errors import EventRejected
from vttbridge.sdk.events import (
    BaseEvent,
    Event,
    TokenMoved,
)
from vttbridge.sdk.script import (
    Registered,
)
from vttbridge.sdk.world.ingest import ingest, normalize
from vttbridge.sdk.world.validate import parse_event, validate

if TYPE_CHECKING:
    from vttbridge.sdk.runtime import WorldRuntime

log = logging.getLogger(__name__)


MAX_DERIVED = 1000  # derived events per step: a script that re-triggers itself is cut off


@dataclass(slots=True)
class _Step:
    effects: list[BaseEffect] = field(default_factory=list)
    derived: deque[Any] = field(default_factory=deque)
    """Events (and queued choice-handler calls) to dispatch after the current one."""
    count: int = 0
    touched: set[str] = field(default_factory=set)
    """Tokens whose rules-owned values or conditions the step may have changed."""
    every: bool = False
    """The step may have changed any token's (a rule ran, a snapshot came)."""


class Consumer:
    """Start, stop, the queue and the lock; one step per event; what a step emits and derives."""

    async def start(self) -> None:
        """Start the consumer (and the script file watcher); run the scripts' ``on_load``
        hooks and re-arm the timers of prompts restored from a snapshot. Idempotent."""
        if self.running:
            return
        self._queue = asyncio.Queue()
        self._consumer = asyncio.create_task(self._consume(), name=f"world:{self.world_id}")
        for prompt in self.world.prompts.values():
            self._arm_prompt_timer(prompt)
        self._host_files(True)
        if self._pending_hooks:
            hooks, self._pending_hooks = self._pending_hooks, []
            await self._call_soon(lambda: self._run_hooks(hooks, "load_hooks"))

    async def stop(self) -> None:
        """Let the event being processed finish, then stop: waiting callbacks are cancelled,
        timers disarmed, queued events dropped (their submitters get ``CancelledError``), the
        scripts' ``on_unload`` hooks run, and the script files it used released."""
        was_running = self.running
        if self._consumer is not None:
            self._consumer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._consumer
            self._consumer = None
        # an event a caller is processing (process()) finishes first; nothing starts after
        async with self._lock:
            scripts = [s for s in self._scripts.values() if s.unload_hooks]
            if was_running and scripts:
                await self._run_job(lambda: self._run_hooks(scripts, "unload_hooks"), None)
            for h in self._prompt_timers.values():
                h.cancel()
            self._prompt_timers.clear()
            tasks = list(self._task_reg)
            for t in tasks:
                t.cancel()
            if tasks:
                await asyncio.gather(*tasks, return_exceptions=True)
            self._running.clear()
            self._parked.clear()
            self._task_reg.clear()
            for w in list(self._waiters.values()):
                if w.timer:
                    w.timer.cancel()
            self._waiters.clear()
            self._prompt_waiters.clear()
            if self._queue is not None:
                while not self._queue.empty():
                    _, fut = self._queue.get_nowait()
                    if fut is not None and not fut.done():
                        fut.cancel()
            self._queue = None
            self._host_files(False)
            if self.callbacks is not None:
                self.callbacks.close()

    async def __aenter__(self) -> WorldRuntime:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def submit(self, event: Event | BaseEvent | Mapping[str, Any]) -> list[Effect]:
        """Queue ``event`` (a model or its JSON dict) behind the world's earlier events and
        return the effects it produced once processed. Raises :class:`EventRejected` (world
        untouched) for bad input: invalid payload, unknown token, unknown prompt..."""
        ev = parse_event(event)
        if self._queue is None:
            raise RuntimeError(f"world {self.world_id} is not running; await start() first")
        fut: asyncio.Future[list[Effect]] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((ev, fut))
        return await fut

    async def process(self, event: Event | BaseEvent | Mapping[str, Any]) -> list[Effect]:
        """Process ``event`` now, in the calling task, which must hold :attr:`lock`: the
        same step, journal and effects as :meth:`submit`, without the hand-off to the
        consumer task. For a host that already orders its events (the socket bridge takes
        the lock in arrival order). Raises :class:`EventRejected` (world untouched)."""
        if not self._lock.locked():
            raise RuntimeError("process() needs the runtime's lock: async with rt.lock: ...")
        if self._queue is None:
            raise RuntimeError(f"world {self.world_id} is not running; await start() first")
        return await self._handle(parse_event(event))

    def check(self, event: Event | BaseEvent | Mapping[str, Any]) -> None:
        """Raise :class:`EventRejected` if :meth:`process` would refuse ``event`` now; change
        nothing. A host checks every part of a payload this way before it applies any."""
        validate(self.world, parse_event(event))

    async def idle(self) -> None:
        """Wait until everything queued so far (including timer events) was processed."""
        if self._queue is not None:
            await self._call_soon(lambda: None)

    # =============================================================================================
    async def _consume(self) -> None:
        assert self._queue is not None
        queue, lock = self._queue, self._lock
        item: Any = None
        fut: asyncio.Future[Any] | None = None
        effects: list[Effect] | None = None
        while True:
            # drop the last event, its future and effects first: an idle world holds nothing
            item = fut = effects = None
            item, fut = await queue.get()
            await lock.acquire()  # not ``async with``: two coroutines less per event
            try:
                if callable(item) and not isinstance(item, BaseEvent):
                    await self._run_job(item, fut)
                    continue
                try:
                    effects = await self._handle(item)
                except EventRejected as e:
                    if fut is not None and not fut.done():
                        fut.set_exception(e)
                    else:
                        log.warning(
                            "world %s: internal event %s rejected: %s", self.world_id, item.type, e
                        )
                    continue
                except asyncio.CancelledError:
                    if fut is not None and not fut.done():
                        fut.cancel()
                    raise
                except Exception as e:  # a bug of ours: report it, keep the world running
                    log.exception("world %s: processing %s failed", self.world_id, item.type)
                    if fut is not None and not fut.done():
                        fut.set_exception(e)
                    continue
                if fut is not None:
                    if not fut.done():
                        fut.set_result(effects)
                elif effects:
                    for cb in list(self._effect_subs):
                        await _call_quietly(cb, effects)
            finally:
                lock.release()

    async def _handle(self, event: BaseEvent) -> list[Effect]:
        """One step, then the journal. The caller holds the lock."""
        w = self.world
        validate(w, event)
        event = normalize(w, event)
        step = self._step = _Step()
        try:
            # a move is judged before it is applied: a refused one never is
            judged = await self._judge_move(event) if type(event) is TokenMoved else ()
            if judged is not None:
                if ingest(w, event, self.index, step.touched):
                    step.every = True
                for out, script in judged:
                    self.apply_outcome(out, announce=False, script=script)
                await self._dispatch(event)
            if step.derived or self._running:  # else _drain has nothing to do
                await self._drain()
            if step.touched or step.every:
                self._sync_sheets(step)
        finally:
            self._step = None
        # the step's own list: nothing else holds it once the step is over
        effects: list[Effect] = step.effects  # type: ignore[assignment]
        for cb in self._journal:  # replaced on (un)subscribe, so safe to iterate
            await _call_quietly(cb, event, effects)
        return effects

    async def _run_job(self, job: Callable[[], Any], fut: asyncio.Future[Any] | None) -> None:
        step = self._step = _Step()
        try:
            result = job()
            if inspect.isawaitable(result):
                result = await result
            await self._drain()
            if step.touched or step.every:
                self._sync_sheets(step)
        except Exception as e:
            log.exception("world %s: internal job failed", self.world_id)
            if fut is not None and not fut.done():
                fut.set_exception(e)
            return
        finally:
            self._step = None
        if fut is not None and not fut.done():
            fut.set_result(result)
        if step.effects:
            for cb in list(self._effect_subs):
                await _call_quietly(cb, list(step.effects))

    def _enqueue_call(self, job: Callable[[], Any]) -> asyncio.Future[Any] | None:
        if self._queue is None:
            return None
        fut = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((job, fut))
        return fut

    async def _call_soon(self, job: Callable[[], Any]) -> Any:
        fut = self._enqueue_call(job)
        if fut is None:
            raise RuntimeError(f"world {self.world_id} is not running")
        return await fut

    def _enqueue_internal(self, event: BaseEvent) -> None:
        """Queue an event the runtime made (a timeout); journaled like any other."""
        if self._queue is not None:
            self._queue.put_nowait((event, None))

    async def _drain(self) -> None:
        step = self._step
        assert step is not None
        while True:
            if self._running:
                await self._settle()
            if not step.derived:
                return
            ev = step.derived.popleft()
            step.count += 1
            if step.count > MAX_DERIVED:
                step.derived.clear()
                self.emit(
                    PostChat(
                        text=f"⚠ More than {MAX_DERIVED} follow-up events from one "
                        "event; a script is probably re-triggering itself. Stopped.",
                        whisper_to="gm",
                    )
                )
                return
            if isinstance(ev, _Call):
                await self._invoke(ev.reg, ev.args)
            else:
                await self._dispatch(ev)

    def derive(self, event: BaseEvent) -> None:
        """Dispatch ``event`` to listeners after the current one (no ingest)."""
        if self._step is None:
            self._enqueue_internal(event)
        else:
            self._step.derived.append(event)

    def _derive_call(self, reg: Registered, args: tuple[Any, ...]) -> None:
        """Run a callback right after the current one, in this step (choice handlers run from
        ``_answer``, which may itself be inside a command handler)."""
        assert self._step is not None
        self._step.derived.appendleft(_Call(reg, args))

    def touch(self, token: str | None) -> None:
        """``token``'s rules-owned values or conditions may have changed in this step."""
        if self._step is not None and token is not None:
            self._step.touched.add(token)

    def touch_all(self) -> None:
        if self._step is not None:
            self._step.every = True

    def emit(self, effect: BaseEffect) -> None:
        if self._step is not None:
            self._step.effects.append(effect)
        else:  # outside any step (a callback misused after stop): nowhere to deliver it
            log.warning("world %s: effect outside a step dropped: %r", self.world_id, effect)


@dataclass
class _Call:
    """A callback queued to run after the current one (a choice handler), in the same step."""

    reg: Registered
    args: tuple[Any, ...]


async def _call_quietly(cb: Callable[..., Any], *args: Any) -> None:
    """Subscribers' errors are logged, never propagated (Home Assistant's dispatcher rule)."""
    try:
        r = cb(*args)
        if r is not None and inspect.isawaitable(r):
            await r
    except Exception:
        log.exception("subscriber %r failed", cb)
