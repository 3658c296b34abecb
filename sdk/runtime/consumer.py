"""The world's consumer: its queue, its lock and the task that takes one item at a time.

An item is an event (a model: processed as a step) or a job (a callable the runtime queues to
run between events: a script's hooks, a reload). Whatever submitted it waits on its future;
an item nobody waits for (an event the runtime made itself, a timeout) is processed the same
way and its effects go to the :class:`Processor`'s subscribers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from vttbridge.sdk.effects import Effect
from vttbridge.sdk.errors import EventRejected
from vttbridge.sdk.events import BaseEvent

if TYPE_CHECKING:
    from vttbridge.sdk.runtime.pipeline import Processed

log = logging.getLogger(__name__)

Job = Callable[[], Any]
"""Something to run between events, in the consumer (its result may be awaitable)."""
Item = tuple[BaseEvent | Job, "asyncio.Future[Any] | None"]


class Processor(Protocol):
    """What the consumer hands each item to (:class:`vttbridge.sdk.runtime.pipeline.Pipeline`)."""

    async def handle(self, event: BaseEvent) -> Processed:
        """Process one event as a step; raises :class:`EventRejected` (nothing changed)."""
        ...

    async def run_job(self, job: Job, fut: asyncio.Future[Any] | None) -> None:
        """Run one job as a step, settling ``fut`` with its result or error."""
        ...

    async def unasked(self, effects: list[Effect]) -> None:
        """Deliver the effects of an event nobody submitted (a timeout)."""
        ...


class Consumer:
    """Takes the world's items one at a time, each under :attr:`lock`."""

    def __init__(self, world_id: str) -> None:
        self._world_id = world_id
        self._queue: asyncio.Queue[Item] | None = None
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None

    @property
    def lock(self) -> asyncio.Lock:
        return self._lock

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def open(self) -> bool:
        """Items are accepted (between :meth:`start` and :meth:`close`)."""
        return self._queue is not None

    def start(self, processor: Processor) -> None:
        self._queue = asyncio.Queue()
        self._task = asyncio.create_task(
            self._consume(self._queue, processor), name=f"world:{self._world_id}"
        )

    async def halt(self) -> None:
        """Stop taking items; the one being processed finishes first (it holds the lock)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def close(self) -> None:
        """Drop what is queued (its submitters get ``CancelledError``) and accept nothing."""
        if self._queue is not None:
            while not self._queue.empty():
                _, fut = self._queue.get_nowait()
                if fut is not None and not fut.done():
                    fut.cancel()
        self._queue = None

    async def submit(self, event: BaseEvent) -> list[Effect]:
        """Queue ``event`` and wait for its effects."""
        if self._queue is None:
            raise RuntimeError(f"world {self._world_id} is not running; await start() first")
        fut: asyncio.Future[list[Effect]] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((event, fut))
        return await fut

    def enqueue_call(self, job: Job) -> asyncio.Future[Any] | None:
        """Queue ``job``; its future, or None when the world is not running."""
        if self._queue is None:
            return None
        fut = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((job, fut))
        return fut

    async def call_soon(self, job: Job) -> Any:
        """Run ``job`` in the consumer, after what is queued; its result."""
        fut = self.enqueue_call(job)
        if fut is None:
            raise RuntimeError(f"world {self._world_id} is not running")
        return await fut

    def enqueue_event(self, event: BaseEvent) -> None:
        """Queue an event the runtime made (a timeout); nobody waits for it."""
        if self._queue is not None:
            self._queue.put_nowait((event, None))

    async def _consume(self, queue: asyncio.Queue[Item], processor: Processor) -> None:
        lock = self._lock
        item: Any = None
        fut: asyncio.Future[Any] | None = None
        effects: list[Effect] | None = None
        while True:
            # drop the last event, its future and effects first: an idle world holds nothing
            item = fut = effects = None
            item, fut = await queue.get()
            await lock.acquire()  # not ``async with``: two coroutines less per event
            try:
                if not isinstance(item, BaseEvent):
                    await processor.run_job(item, fut)
                    continue
                try:
                    effects = (await processor.handle(item)).effects
                except EventRejected as e:
                    if fut is not None and not fut.done():
                        fut.set_exception(e)
                    else:
                        log.warning(
                            "world %s: internal event %s rejected: %s",
                            self._world_id,
                            getattr(item, "type", "?"),
                            e,
                        )
                    continue
                except asyncio.CancelledError:
                    if fut is not None and not fut.done():
                        fut.cancel()
                    raise
                except Exception as e:  # a bug of ours: report it, keep the world running
                    log.exception(
                        "world %s: processing %s failed", self._world_id, getattr(item, "type", "?")
                    )
                    if fut is not None and not fut.done():
                        fut.set_exception(e)
                    continue
                if fut is not None:
                    if not fut.done():
                        fut.set_result(effects)
                elif effects:
                    await processor.unasked(effects)
            finally:
                lock.release()
