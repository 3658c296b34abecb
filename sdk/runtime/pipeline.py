"""The step that processes one event: validate, judge a move, ingest, dispatch it and what it
derives, let async callbacks settle, write back the rules-owned values, then journal
``(event, effects)``. A job (a script's hooks, a reload) runs as a step the same way, without
the event's part.
"""

# No postponed annotations here: the API reference reads `Processed`'s field types from the
# `__new__` namedtuple makes, whose globals are not this module's.
import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

from vttbridge.sdk.effects import Effect, PostChat
from vttbridge.sdk.events import BaseEvent, Event, TokenMoved
from vttbridge.sdk.runtime.consumer import Job
from vttbridge.sdk.runtime.dispatch import Dispatcher
from vttbridge.sdk.runtime.moves import Movement
from vttbridge.sdk.runtime.outcomes import OutcomeApplier
from vttbridge.sdk.runtime.step import Call, CurrentStep, Step
from vttbridge.sdk.runtime.supervisor import Supervisor
from vttbridge.sdk.world import World
from vttbridge.sdk.world.ingest import ingest, normalize
from vttbridge.sdk.world.validate import validate

log = logging.getLogger(__name__)

MAX_DERIVED = 1000  # derived events per step: a script that re-triggers itself is cut off

JournalCallback = Callable[[Event, list[Effect]], Awaitable[None] | None]
"""``callback(event, effects)``: sync or async; the consumer awaits it before the next event."""
EffectsCallback = Callable[[list[Effect]], Awaitable[None] | None]


class Processed(NamedTuple):
    """One processed event: the event as the world took it (what the adapter left out filled
    in, ``normalize``) and the effects of its step, in order."""

    event: BaseEvent
    effects: list[Effect]


class Pipeline:
    """Processes the world's events and jobs, one step each; keeps who hears of them (the
    journal after every event, the effects no submit asked for)."""

    def __init__(
        self,
        world_id: str,
        world: World,
        step: CurrentStep,
        supervisor: Supervisor,
        movement: Movement,
        dispatcher: Dispatcher,
        outcomes: OutcomeApplier,
    ) -> None:
        self._world_id = world_id
        self._world = world
        self._step = step
        self._supervisor = supervisor
        self._movement = movement
        self._dispatcher = dispatcher
        self._outcomes = outcomes
        # replaced, never changed in place: a step's loop over them needs no copy
        self._journal: list[JournalCallback] = []
        self._queued_journal: list[JournalCallback] = []
        """Told only of the events taken from the world's queue (not those of ``process``)."""
        self._effect_subs: list[EffectsCallback] = []

    # -- subscribers -------------------------------------------------------------------------
    @property
    def journal(self) -> tuple[JournalCallback, ...]:
        """Who is called after processed events."""
        return (*self._journal, *self._queued_journal)

    def add_journal(
        self, callback: JournalCallback, *, processed: bool = True
    ) -> Callable[[], None]:
        if processed:
            self._journal = [*self._journal, callback]
        else:
            self._queued_journal = [*self._queued_journal, callback]

        def unsubscribe() -> None:
            self._journal = _without(self._journal, callback)
            self._queued_journal = _without(self._queued_journal, callback)

        return unsubscribe

    def on_effects(self, callback: EffectsCallback) -> Callable[[], None]:
        self._effect_subs = [*self._effect_subs, callback]

        def unsubscribe() -> None:
            self._effect_subs = _without(self._effect_subs, callback)

        return unsubscribe

    # -- steps -------------------------------------------------------------------------------
    async def handle(self, event: BaseEvent, *, queued: bool = True) -> Processed:
        """One step, then the journal. The caller holds the lock. ``queued``: the event was
        taken from the world's queue (else a host runs it with ``process`` and learns of it
        from the return value). Raises :class:`vttbridge.sdk.errors.EventRejected` before
        anything changed."""
        w = self._world
        validate(w, event)
        event = normalize(w, event)
        current = self._step
        step = current.step = Step()  # CurrentStep.begin, without the call: every event
        try:
            # a move is judged before it is applied: a refused one never is
            judged = await self._movement.judge(event) if type(event) is TokenMoved else ()
            if judged is not None:
                if ingest(w, event, self._movement.index, step.touched):
                    step.every = True
                for out, script in judged:
                    self._outcomes.apply(out, announce=False, script=script)
                await self._dispatcher.dispatch(event)
            if step.derived or self._supervisor.busy:  # else _drain has nothing to do
                await self._drain()
            if step.touched or step.every:
                self._outcomes.sync_sheets(step)
        finally:
            current.step = None
        # the step's own list: nothing else holds it once the step is over
        effects: list[Effect] = step.effects  # type: ignore[assignment]
        for cb in self._journal:  # replaced on (un)subscribe, so safe to iterate
            await _call_quietly(cb, event, effects)
        if queued:
            for cb in self._queued_journal:
                await _call_quietly(cb, event, effects)
        return Processed(event, effects)

    async def run_job(self, job: Job, fut: asyncio.Future[Any] | None) -> None:
        """Run ``job`` as a step; its result (or error) settles ``fut``, its effects go to
        the effect subscribers."""
        step = self._step.begin()
        try:
            result = job()
            if inspect.isawaitable(result):
                result = await result
            await self._drain()
            if step.touched or step.every:
                self._outcomes.sync_sheets(step)
        except Exception as e:
            log.exception("world %s: internal job failed", self._world_id)
            if fut is not None and not fut.done():
                fut.set_exception(e)
            return
        finally:
            self._step.end()
        if fut is not None and not fut.done():
            fut.set_result(result)
        if step.effects:
            await self.unasked(list(step.effects))  # type: ignore[arg-type]

    async def unasked(self, effects: list[Effect]) -> None:
        for cb in list(self._effect_subs):
            await _call_quietly(cb, effects)

    async def _drain(self) -> None:
        step = self._step.step
        assert step is not None
        supervisor = self._supervisor
        while True:
            if supervisor.busy:
                await supervisor.settle()
            if not step.derived:
                return
            ev = step.derived.popleft()
            step.count += 1
            if step.count > MAX_DERIVED:
                step.derived.clear()
                self._step.emit(
                    PostChat(
                        text=f"⚠ More than {MAX_DERIVED} follow-up events from one "
                        "event; a script is probably re-triggering itself. Stopped.",
                        whisper_to="gm",
                    )
                )
                return
            if isinstance(ev, Call):
                await supervisor.invoke(ev.reg, ev.args)
            else:
                await self._dispatcher.dispatch(ev)


async def _call_quietly(cb: Callable[..., Any], *args: Any) -> None:
    """Subscribers' errors are logged, never propagated (Home Assistant's dispatcher rule)."""
    try:
        r = cb(*args)
        if r is not None and inspect.isawaitable(r):
            await r
    except Exception:
        log.exception("subscriber %r failed", cb)


def _without(items: list[Any], item: Any) -> list[Any]:
    """``items`` less the first ``item``, as a new list (``items`` itself when absent)."""
    if item not in items:
        return items
    out = list(items)
    out.remove(item)
    return out
