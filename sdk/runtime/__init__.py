"""The per-world runtime: one consumer per world applies domain events in arrival order.

Public interface (the socket bridge builds on exactly this)::

    rt = WorldRuntime("world-1", roller=Roller(seed), options=Options(tie_break="gm"),
                      scripts=["my_triggers.py"])
    await rt.start()
    unsubscribe = rt.add_journal(lambda event, effects: ...)   # after EVERY processed event
    rt.on_effects(lambda effects: ...)                         # effects no submit asked for
    effects = await rt.submit(TokenMoved(token="t1", to_cell=Cell(x=3, y=4)))
    async with rt.lock:                                        # a host that orders its own
        event, effects = await rt.process(event)               # events: no hand-off
    data = rt.snapshot(); rt2 = WorldRuntime.restore("world-1", data)
    await rt.stop()

How one event is processed (a *step*), one at a time under :attr:`WorldRuntime.lock` (by the
world's consumer task for ``submit``, in the caller's task for ``process``):

1. validate: anything wrong raises :class:`EventRejected` before a single change;
2. ingest: the world's own bookkeeping (token positions, stats, scene, players). A token move
   is judged first by the scripts' ``before_move`` judges (a system's movement rules): one they
   refuse is never ingested; the VTT is told to put the token back and a ``MoveRefused`` is
   dispatched instead;
3. dispatch: ``wait_for`` waiters, listeners (built-ins first, then scripts, in load order),
   the chat command (its declared cost checked before and spent after,
   :mod:`vttbridge.sdk.economy`), and the triggers the event can fire, found through the index;
4. events the step derives (a rule starts a turn, a script moves a token) are dispatched the
   same way, after the event that caused them;
5. async callbacks run until they finish or wait (``ask``, ``wait_for``, ``sleep``); a waiting
   callback resumes inside the step of the event that answers it, never between steps.

The effects of the step are returned to ``submit``; the journal sees ``(event, effects)``.
Events the runtime makes itself (prompt timeouts as ``PromptAnswered(timed_out=True)``,
``wait_for`` timeouts as ``TimerFired``) go through the same queue and the same journal, so a
replay of the journal reproduces them; their effects go to ``on_effects`` subscribers.

The runtime is a package of parts, each owning its state and given what it needs;
:class:`WorldRuntime` builds them and wires them together:

- :mod:`vttbridge.sdk.runtime.step`: the step in progress, what it emits, derives and touches;
- :mod:`vttbridge.sdk.runtime.consumer`: the queue, the lock, the task that takes one item at a
  time;
- :mod:`vttbridge.sdk.runtime.pipeline`: the step that processes one event (or job), and the
  journal;
- :mod:`vttbridge.sdk.world.validate` and :mod:`vttbridge.sdk.world.ingest`: what is accepted, and
  the world's own bookkeeping for it (they live with the world model);
- :mod:`vttbridge.sdk.runtime.registry`: what the loaded scripts declared;
- :mod:`vttbridge.sdk.runtime.scripts`: loading, unloading and reloading scripts;
- :mod:`vttbridge.sdk.runtime.supervisor`: the callback tasks, run under the budget and the
  watchdog;
- :mod:`vttbridge.sdk.runtime.waiting`: ``wait_for``, ``sleep``, prompts and their timers;
- :mod:`vttbridge.sdk.runtime.moves`: moves judged before they are applied, regions, watches,
  and the trigger index;
- :mod:`vttbridge.sdk.runtime.dispatch`: routing an event to waiters, listeners and triggers;
- :mod:`vttbridge.sdk.runtime.commands`: running a chat command, its cost included;
- :mod:`vttbridge.sdk.runtime.outcomes`: applying rule outcomes, writing rules-owned values back;
- :mod:`vttbridge.sdk.runtime.refusals`: refusals told with the rule that refused, the last ones
  kept for ``!why``;
- :mod:`vttbridge.sdk.runtime.snapshot`: snapshot, restore and the state view.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from vttbridge.rules.dice import Roller
from vttbridge.rules.geometry import Cell
from vttbridge.rules.options import Options
from vttbridge.rules.outcome import Outcome
from vttbridge.sdk.clock import Clock, SystemClock
from vttbridge.sdk.context import WorldAccess
from vttbridge.sdk.effects import BaseEffect, Effect
from vttbridge.sdk.errors import EventRejected
from vttbridge.sdk.events import BaseEvent, Event, PromptAnswered
from vttbridge.sdk.loader import ScriptSource, entry_point_sources, scripts_of_object
from vttbridge.sdk.regions import Region
from vttbridge.sdk.runtime.commands import CommandRunner
from vttbridge.sdk.runtime.consumer import Consumer
from vttbridge.sdk.runtime.dispatch import Dispatcher
from vttbridge.sdk.runtime.moves import Movement
from vttbridge.sdk.runtime.outcomes import OutcomeApplier
from vttbridge.sdk.runtime.pipeline import (
    MAX_DERIVED,
    EffectsCallback,
    JournalCallback,
    Pipeline,
    Processed,
)
from vttbridge.sdk.runtime.refusals import Refusals
from vttbridge.sdk.runtime.registry import Registry
from vttbridge.sdk.runtime.scripts import Loaded, ScriptLoader, builtin_scripts
from vttbridge.sdk.runtime.snapshot import (
    SNAPSHOT_FORMAT,
    read_snapshot,
    roller_from_state,
    roller_state,
    snapshot,
    state_view,
)
from vttbridge.sdk.runtime.step import CurrentStep
from vttbridge.sdk.runtime.supervisor import Overrun, Supervisor
from vttbridge.sdk.runtime.waiting import Waiting
from vttbridge.sdk.script import CommandHandler, Script
from vttbridge.sdk.triggers import TriggerIndex
from vttbridge.sdk.watchdog import CallbackThread
from vttbridge.sdk.world import Prompt, Watch, World, WorldSettings
from vttbridge.sdk.world.validate import MAX_MOVE_CELLS, match_option, parse_event, validate

log = logging.getLogger(__name__)

__all__ = [
    "MAX_DERIVED",
    "MAX_MOVE_CELLS",
    "SNAPSHOT_FORMAT",
    "EffectsCallback",
    "EventRejected",
    "JournalCallback",
    "Processed",
    "WorldRuntime",
    "match_option",
    "parse_event",
    "roller_from_state",
    "roller_state",
]


class WorldRuntime:
    """One linked world: its state, its scripts and the single consumer that processes its
    events in order."""

    def __init__(
        self,
        world_id: str,
        *,
        roller: Roller | None = None,
        options: Options | None = None,
        scripts: Iterable[Any] = (),
        settings: WorldSettings | None = None,
        entry_points: bool | Sequence[tuple[str, Any]] = False,
        builtins: bool = True,
        clock: Clock | None = None,
        index: type[TriggerIndex] = TriggerIndex,
        reload_interval: float | None = 1.0,
        world: World | None = None,
        callback_thread: bool = False,
    ) -> None:
        """``scripts``: :class:`sdk.Script` objects, modules, module names or paths of ``.py``
        files. A file is imported once per process and shared (:mod:`vttbridge.sdk.script_host`);
        it reloads when it changes while the world runs, unless ``reload_interval`` is None (any
        other value turns watching on: the OS's file events say when). ``entry_points=True``
        also loads the ``vttbridge.scripts`` entry point group; a host of many worlds passes
        what :func:`vttbridge.sdk.loader.entry_point_sources` found once instead (a scan reads
        every installed package's metadata). ``builtins=False`` leaves out the built-in rule
        handlers (and turns the setting ``hold_moves`` off: no holds script would release a
        held move). ``clock`` drives prompt and ``wait_for`` timeouts (tests pass a
        :class:`vttbridge.sdk.clock.ManualClock`); ``index`` is the trigger index class
        (``ScanIndex`` is the naive baseline). ``callback_thread=True`` runs the scripts'
        plain callbacks off the event loop, in a thread of this world's
        (:class:`vttbridge.sdk.watchdog.CallbackThread`): a host of many worlds does, so that
        one world's blocking script holds up no other world."""
        self.world_id = world_id
        self.world = world or World(id=world_id)
        if options is not None:
            self.world.encounter.options = options
            self.world.encounter.grid.metric = options.diagonal_metric
        if settings is not None:
            self.world.settings = settings
        if not builtins:
            self.world.settings.hold_moves = False
        self.roller: Roller = roller or Roller()
        self.clock: Clock = clock or SystemClock()
        self.reload_interval = reload_interval
        self.callbacks = CallbackThread(world_id) if callback_thread else None
        """Where plain script callbacks run, when not on the event loop."""

        w = self.world
        self._consumer = consumer = Consumer(world_id)
        self._lock = consumer.lock
        self._step = step = CurrentStep(world_id, consumer.enqueue_event)
        self._registry = registry = Registry()
        self.refusals = refusals = Refusals(w, step, self.clock)
        """Refusals told with their rule's citation; the last ones, for ``!why``."""
        self._supervisor = supervisor = Supervisor(world_id, w, step, refusals, self.callbacks)
        # The parts reach the runtime (what a callback's Context asks of it) through a weak
        # proxy: nothing in a world refers back to what holds it, so a world put to sleep is
        # freed at once, not at the collector's next full pass over every object.
        access: WorldAccess = weakref.proxy(self)
        waiting = Waiting(w, self.clock, step, consumer, supervisor, registry, access)
        movement = Movement(w, step, registry, supervisor, refusals, access, index)
        self._waiting, self._movement = waiting, movement
        self._outcomes = outcomes = OutcomeApplier(w, step, registry, waiting, movement, refusals)
        commands = CommandRunner(w, step, registry, supervisor, refusals, access)
        dispatcher = Dispatcher(w, step, registry, supervisor, waiting, movement, commands, access)
        self._pipeline = Pipeline(world_id, w, step, supervisor, movement, dispatcher, outcomes)
        self._scripts = loader = ScriptLoader(
            world_id, registry, consumer, step, supervisor, waiting, movement, access,
            reload_interval,
        )  # fmt: skip

        if builtins:
            for script in builtin_scripts():
                loader.add(Loaded([script], ScriptSource("builtin", script.name)))
        for src in scripts:
            loader.load(src)
        if entry_points:
            found = entry_point_sources() if entry_points is True else entry_points
            for name, obj in found:
                try:
                    loader.add(
                        Loaded(scripts_of_object(obj, name), ScriptSource("entry_point", name))
                    )
                except Exception as e:  # a broken plug-in must not keep the world down
                    log.error("script entry point %s failed to load: %s", name, e)
        movement.index_watches()

    # -- the world's life --------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._consumer.running

    @property
    def waiting(self) -> bool:
        """An async callback lives in memory: running, parked, or suspended in ``wait_for``
        with its timer. Unloading the world now would lose it."""
        return self._supervisor.alive or self._waiting.waiting

    @property
    def lock(self) -> asyncio.Lock:
        """Held while one event (or job) is processed; FIFO, so waiting holders go in arrival
        order. Hold it to read or change the world between events, and to call
        :meth:`process`."""
        return self._lock

    @property
    def index(self) -> TriggerIndex:
        """The trigger index: which trigger a move, an action or a condition can fire."""
        return self._movement.index

    @property
    def on_overrun(self) -> Overrun | None:
        """Called from the watchdog's thread when a plain script callback runs past its budget
        (the world's thread is still inside it): the bridge marks the event suspect."""
        return self._supervisor.on_overrun

    @on_overrun.setter
    def on_overrun(self, callback: Overrun | None) -> None:
        self._supervisor.on_overrun = callback

    async def start(self) -> None:
        """Start the consumer (and the script file watcher); run the scripts' ``on_load``
        hooks and re-arm the timers of prompts restored from a snapshot. Idempotent."""
        if self.running:
            return
        self._consumer.start(self._pipeline)
        for prompt in self.world.prompts.values():
            self._waiting.arm(prompt)
        loader = self._scripts
        loader.host_files(True)
        hooks = loader.take_pending()
        if hooks:
            await self._consumer.call_soon(lambda: loader.run_hooks(hooks, "load_hooks"))

    async def stop(self) -> None:
        """Let the event being processed finish, then stop: waiting callbacks are cancelled,
        timers disarmed, queued events dropped (their submitters get ``CancelledError``), the
        scripts' ``on_unload`` hooks run, and the script files it used released."""
        was_running = self.running
        consumer = self._consumer
        await consumer.halt()
        # an event a caller is processing (process()) finishes first; nothing starts after
        async with consumer.lock:
            scripts = [s for s in self._registry.scripts() if s.unload_hooks]
            if was_running and scripts:
                await self._pipeline.run_job(
                    lambda: self._scripts.run_hooks(scripts, "unload_hooks"), None
                )
            self._waiting.stop()
            await self._supervisor.cancel_all()
            consumer.close()
            self._scripts.host_files(False)
            if self.callbacks is not None:
                self.callbacks.close()

    async def __aenter__(self) -> WorldRuntime:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # -- events ------------------------------------------------------------------------------
    async def submit(self, event: Event | BaseEvent | Mapping[str, Any]) -> list[Effect]:
        """Queue ``event`` (a model or its JSON dict) behind the world's earlier events and
        return the effects it produced once processed. Raises :class:`EventRejected` (world
        untouched) for bad input: invalid payload, unknown token, unknown prompt..."""
        return await self._consumer.submit(parse_event(event))

    async def process(self, event: Event | BaseEvent | Mapping[str, Any]) -> Processed:
        """Process ``event`` now, in the calling task, which must hold :attr:`lock`: the
        same step, journal and effects as :meth:`submit`, without the hand-off to the
        consumer task. For a host that already orders its events (the socket bridge takes
        the lock in arrival order). Returns the event as the world took it and its effects
        (:class:`Processed`): what the host records of it. Raises :class:`EventRejected`
        (world untouched)."""
        if not self._lock.locked():
            raise RuntimeError("process() needs the runtime's lock: async with rt.lock: ...")
        if not self._consumer.open:
            raise RuntimeError(f"world {self.world_id} is not running; await start() first")
        return await self._pipeline.handle(parse_event(event), queued=False)

    def check(self, event: Event | BaseEvent | Mapping[str, Any]) -> None:
        """Raise :class:`EventRejected` if :meth:`process` would refuse ``event`` now; change
        nothing. A host checks every part of a payload this way before it applies any."""
        validate(self.world, parse_event(event))

    async def idle(self) -> None:
        """Wait until everything queued so far (including timer events) was processed."""
        if self._consumer.open:
            await self._consumer.call_soon(lambda: None)

    @property
    def journal(self) -> tuple[JournalCallback, ...]:
        """The journal's subscribers (see :meth:`add_journal`)."""
        return self._pipeline.journal

    def add_journal(
        self, callback: JournalCallback, *, processed: bool = True
    ) -> Callable[[], None]:
        """Call ``callback(event, effects)`` after every processed event (also those the
        runtime makes itself: prompt timeouts, ``wait_for`` timeouts), awaited when async,
        before the next event is taken. Rejected events are not journaled (they changed
        nothing). With ``processed=False``, not the events a host ran itself with
        :meth:`process` (it has their effects from its return value): only those the runtime
        took from its queue. Returns an unsubscribe."""
        return self._pipeline.add_journal(callback, processed=processed)

    def on_effects(self, callback: EffectsCallback) -> Callable[[], None]:
        """Call ``callback(effects)`` for effects produced by no submit (timers, script
        reloads). Returns an unsubscribe."""
        return self._pipeline.on_effects(callback)

    # -- scripts -----------------------------------------------------------------------------
    def load_script(self, source: Any) -> list[str]:
        """Load a script (Script, module, module name or ``.py`` path) and register its
        callbacks; its ``on_load`` hooks run through the consumer. Returns the script names.
        A file is imported once per process, shared with every world using it
        (:mod:`vttbridge.sdk.script_host`). Raises :class:`ScriptError` when it cannot be
        imported."""
        return self._scripts.load(source)

    def unload_script(self, name: str) -> None:
        """Drop a script's callbacks; its waiting callbacks are cancelled and its
        ``on_unload`` hooks run through the consumer. Watches it created stay in world state
        (a reload picks them up again)."""
        self._scripts.unload(name)

    async def reload_script(self, name: str) -> bool:
        """Import a file script again and swap the new version into every world using it
        (each through its own consumer, keeping its state). On an import error the old
        version stays and each world's GM is told. Returns whether this world reloaded."""
        return await self._scripts.reload(name)

    def scripts(self) -> list[Script]:
        return self._registry.scripts()

    def commands(self) -> dict[str, CommandHandler]:
        """Every chat command loaded, by name (aliases included)."""
        return self._registry.commands()

    def condition_names(self) -> list[str]:
        """The named conditions the loaded scripts registered (usable as Ready triggers)."""
        return self._registry.condition_names()

    # -- what a callback's context does (vttbridge.sdk.context.WorldAccess) ---------------------
    def emit(self, effect: BaseEffect) -> None:
        self._step.emit(effect)

    def derive(self, event: BaseEvent) -> None:
        """Dispatch ``event`` to listeners after the current one (no ingest)."""
        self._step.derive(event)

    def touch(self, token: str | None) -> None:
        """``token``'s rules-owned values or conditions may have changed in this step."""
        self._step.touch(token)

    def touch_all(self) -> None:
        self._step.touch_all()

    def move_token(
        self,
        token: str,
        cell: Cell,
        path: list[Cell],
        *,
        animate: bool,
        fire: bool,
        source: str,
        old: Cell | None = None,
    ) -> None:
        self._movement.move_token(
            token, cell, path, animate=animate, fire=fire, source=source, old=old
        )

    def grid_changed(self) -> None:
        """The grid's metric changed: the cells within a distance change with it."""
        self._movement.grid_changed()

    def set_region(self, region: Region) -> None:
        self._movement.set_region(region)

    def add_watch(
        self,
        key: str,
        spec: Any,
        script: str,
        handler: str,
        data: dict[str, Any],
        owner: str | None = None,
    ) -> Watch:
        return self._movement.add_watch(key, spec, script, handler, data, owner)

    def remove_watch(self, key: str) -> None:
        self._movement.remove_watch(key)

    def apply_outcome(self, outcome: Outcome, *, announce: bool, script: Script | None) -> None:
        self._outcomes.apply(outcome, announce=announce, script=script)

    def open_prompt(
        self,
        *,
        kind: str,
        player: str,
        token: str | None,
        question: str,
        options: list[str],
        default: str,
        timeout: float | None = None,
        data: dict[str, Any] | None = None,
        choice_id: str | None = None,
        script: str | None = None,
        actor: str | None = None,
    ) -> Prompt:
        return self._waiting.open_prompt(
            kind=kind,
            player=player,
            token=token,
            question=question,
            options=options,
            default=default,
            timeout=timeout,
            data=data,
            choice_id=choice_id,
            script=script,
            actor=actor,
        )

    def close_prompt(self, pid: str, reason: str = "") -> None:
        """Withdraw a prompt nobody needs any more; a script waiting on it gets its default."""
        self._waiting.close_prompt(pid, reason)

    async def wait_prompt(self, pid: str) -> str:
        return await self._waiting.wait_prompt(pid)

    def answer_prompt(
        self,
        pid: str,
        option: str,
        *,
        player: str | None,
        role: str,
        timed_out: bool = False,
        event: PromptAnswered | None = None,
    ) -> str:
        """Answer a prompt: check who answers and the option, then resume the asking script
        or resolve the rules choice. Raises :class:`vttbridge.sdk.errors.UsageError` for a bad
        answer."""
        return self._waiting.answer_prompt(
            pid, option, player=player, role=role, timed_out=timed_out, event=event
        )

    async def wait_event(
        self,
        types: tuple[type[BaseEvent], ...],
        check: Callable[[Any], bool] | None,
        timeout: float | None,
        script: Script | None,
    ) -> Any:
        return await self._waiting.wait_event(types, check, timeout, script)

    # -- snapshots ---------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """Full JSON-able state, including the roller's RNG state, so restore + replay of the
        same events reaches the same state. Take it between events (in a journal callback)
        for a consistent cut. Waiting script coroutines are not part of it."""
        return snapshot(self.world_id, self.world, self.roller)

    @classmethod
    def restore(
        cls, world_id: str, data: Mapping[str, Any] | str | bytes, **kw: Any
    ) -> WorldRuntime:
        """A runtime holding the state of ``snapshot()`` (the dict, or its JSON text: read
        straight into the models, which costs less time and leaves less garbage); ``kw`` as
        for ``__init__`` (a ``roller`` given there replaces the saved one, ``options`` the
        saved options)."""
        world, roller = read_snapshot(data)
        world.id = world_id
        if "roller" not in kw:
            kw["roller"] = roller_from_state(roller)
        return cls(world_id, world=world, **kw)

    def state_view(self) -> dict[str, Any]:
        """A readable JSON summary: tokens, encounter, initiative order, ready actions, stand
        offs, pending prompts (for an HTTP state endpoint)."""
        return state_view(self.world_id, self.world, self._registry.names())
