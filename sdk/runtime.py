"""The per-world runtime: one consumer per world applies domain events in arrival order.

Public interface (the socket bridge builds on exactly this)::

    rt = WorldRuntime("world-1", roller=Roller(seed), options=Options(system="spycraft"),
                      scripts=["my_triggers.py"])
    await rt.start()
    unsubscribe = rt.add_journal(lambda event, effects: ...)   # after EVERY processed event
    rt.on_effects(lambda effects: ...)                         # effects no submit asked for
    effects = await rt.submit(TokenMoved(token="t1", to_cell=Cell(x=3, y=4)))
    async with rt.lock:                                        # a host that orders its own
        effects = await rt.process(event)                      # events: no hand-off
    data = rt.snapshot(); rt2 = WorldRuntime.restore("world-1", data)
    await rt.stop()

How one event is processed (a *step*), one at a time under :attr:`WorldRuntime.lock` (by the
world's consumer task for ``submit``, in the caller's task for ``process``):

1. validate: anything wrong raises :class:`EventRejected` before a single change;
2. ingest: the world's own bookkeeping (token positions, stats, scene, players). A token move
   is judged first by the scripts' ``before_move`` judges (the FoE movement rules): one they
   refuse is never ingested; the VTT is told to put the token back and a ``MoveRefused`` is
   dispatched instead;
3. dispatch: ``wait_for`` waiters, listeners (built-ins first, then scripts, in load order),
   the chat command (its declared cost checked before and spent after, :mod:`sdk.economy`),
   and the triggers the event can fire, found through the index;
4. events the step derives (a rule starts a turn, a script moves a token) are dispatched the
   same way, after the event that caused them;
5. async callbacks run until they finish or wait (``ask``, ``wait_for``, ``sleep``); a waiting
   callback resumes inside the step of the event that answers it, never between steps.

The effects of the step are returned to ``submit``; the journal sees ``(event, effects)``.
Events the runtime makes itself (prompt timeouts as ``PromptAnswered(timed_out=True)``,
``wait_for`` timeouts as ``TimerFired``) go through the same queue and the same journal, so a
replay of the journal reproduces them; their effects go to ``on_effects`` subscribers.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from rules.characters import RULES_OWNED
from rules.dice import Roller, ScriptedRoller
from rules.encounter import Positions
from rules.geometry import Cell
from rules.options import Options
from rules.outcome import Outcome, RuleError
from sdk import economy
from sdk.clock import Clock, Handle, SystemClock
from sdk.context import Context, restore_encounter
from sdk.effects import (
    AdvanceTurn,
    AskPlayer,
    BaseEffect,
    Effect,
    PostChat,
    SetInitiative,
    UpdateConditions,
    UpdateStats,
    UpdateToken,
)
from sdk.errors import EventRejected, ScriptError, UsageError
from sdk.events import (
    EVENT_ADAPTER,
    ActionDeclared,
    ActorUpdated,
    BaseEvent,
    ChatCommand,
    ChatMessage,
    CombatantRemoved,
    CombatEnded,
    CombatStarted,
    ConditionSignalled,
    DamageDealt,
    Event,
    InitiativeChanged,
    MoveRefused,
    PromptAnswered,
    PromptOpened,
    RoundStarted,
    SceneSnapshot,
    TimerFired,
    TokenCreated,
    TokenMoved,
    TokenRemoved,
    TokenUpdated,
    TurnStarted,
)
from sdk.loader import Source, entry_point_sources, error_line, load_source, scripts_of_object
from sdk.regions import Region, path_xy, within
from sdk.script import (
    ROLE_RANK,
    ChoiceHandler,
    Command,
    Condition,
    Listener,
    MoveJudge,
    Registered,
    Script,
    WatchHandler,
    positional_count,
)
from sdk.triggers import SPEC_ADAPTER, Trigger, TriggerIndex
from sdk.watchdog import Guard, watchdog
from sdk.world import Actor, Prompt, Scene, Watch, World, WorldSettings, check_stats

log = logging.getLogger(__name__)

JournalCallback = Callable[[Event, list[Effect]], Awaitable[None] | None]
"""``callback(event, effects)``: sync or async; the consumer awaits it before the next event."""
EffectsCallback = Callable[[list[Effect]], Awaitable[None] | None]

SNAPSHOT_FORMAT = 1
MAX_MOVE_CELLS = 10_000
"""Cells one move may cross, its waypoints included."""


class _SnapshotDoc(BaseModel):
    """``WorldRuntime.snapshot()``'s shape, for reading its JSON text in one pass."""

    format: int
    world_id: str = ""
    world: World
    roller: dict[str, Any] = {}


MAX_DERIVED = 1000  # derived events per step: a script that re-triggers itself is cut off

__all__ = ["EffectsCallback", "EventRejected", "JournalCallback", "WorldRuntime"]


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


@dataclass(slots=True)
class _Route:
    """How ``_dispatch`` treats one event class (see ``WorldRuntime._route``)."""

    listeners: list[Listener]
    before: bool
    """A TimerFired or PromptAnswered: resolves a waiter or prompt before the listeners."""
    after: type[BaseEvent] | None
    """The first of ``_FOLLOW_UPS`` the class is, for what follows the listeners."""


_ACTED_ON_KINDS = frozenset(
    {
        "initiative_rolled",
        "initiative_set",
        "ic_changed",
        "round_started",
        "turn_started",
        "combat_started",
        "combat_ended",
    }
)
"""The happening kinds ``_apply`` turns into effects and events: those its match names."""

_CHANGES_NOTHING_OWNED = frozenset({"moved"})
"""Happening kinds that change no rules-owned value and no condition (a plain move): no
write-back check after them, which keeps a token move as cheap as it was."""

_FOLLOW_UPS: tuple[type[BaseEvent], ...] = (
    ChatMessage,
    ChatCommand,
    TokenMoved,
    ActionDeclared,
    ConditionSignalled,
)
"""In the order of ``_follow_up``'s cases, so the first match is the case that runs."""


@dataclass(eq=False)
class _Waiter:
    id: str
    future: asyncio.Future[Any]
    task: asyncio.Task[Any] | None
    types: tuple[type[BaseEvent], ...]
    check: Callable[[Any], bool] | None
    script: Script | None
    timer: Handle | None = None


@dataclass
class _Loaded:
    scripts: list[Script]
    source: Source


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
    ) -> None:
        """``scripts``: :class:`sdk.Script` objects, modules, module names or paths of ``.py``
        files (files reload when they change, checked every ``reload_interval`` seconds; None
        turns that off). ``entry_points=True`` also loads the ``vttbridge.scripts`` entry point
        group; a host of many worlds passes what :func:`sdk.loader.entry_point_sources` found
        once instead (a scan reads every installed package's metadata). ``builtins=False``
        leaves out the built-in rule handlers. ``clock`` drives prompt and ``wait_for``
        timeouts (tests pass a :class:`sdk.clock.ManualClock`); ``index`` is the trigger index
        class (``ScanIndex`` is the naive baseline)."""
        self.world_id = world_id
        self.world = world or World(id=world_id)
        if options is not None:
            self.world.encounter.options = options
            self.world.encounter.grid.metric = options.diagonal_metric
        if settings is not None:
            self.world.settings = settings
        self.roller: Roller = roller or Roller()
        self.clock: Clock = clock or SystemClock()
        self.reload_interval = reload_interval
        self.on_overrun: Callable[[Guard], None] | None = None
        """Called from the watchdog's thread when a plain script callback runs past its budget
        (the world's thread is still inside it): the bridge marks the event suspect."""

        self._queue: asyncio.Queue[tuple[Any, asyncio.Future[Any] | None]] | None = None
        self._lock = asyncio.Lock()
        self._consumer: asyncio.Task[None] | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._journal: list[JournalCallback] = []
        self._effect_subs: list[EffectsCallback] = []
        self._step: _Step | None = None

        # registrations, rebuilt from the loaded scripts
        self._loaded: dict[str, _Loaded] = {}
        self._scripts: dict[str, Script] = {}
        self._listeners: list[Listener] = []
        self._routes: dict[type, _Route] = {}
        self._commands: dict[str, Command] = {}
        self._conditions: dict[str, Condition] = {}
        self._choices: dict[str, ChoiceHandler] = {}
        self._watch_handlers: dict[tuple[str, str], WatchHandler] = {}
        self._move_judges: list[MoveJudge] = []
        self.index: TriggerIndex = index(self._resolve_cells)
        self._watch_tids: dict[str, int] = {}

        # async callbacks: those running (with when they became runnable) and those waiting
        self._running: dict[asyncio.Task[Any], tuple[Registered, float]] = {}
        self._parked: dict[asyncio.Task[Any], Registered] = {}
        self._task_reg: dict[asyncio.Task[Any], Registered] = {}
        self._wake: asyncio.Future[None] | None = None
        self._waiters: dict[str, _Waiter] = {}
        self._prompt_waiters: dict[str, _Waiter] = {}
        self._prompt_timers: dict[str, Handle] = {}
        self._pending_hooks: list[Script] = []

        if builtins:
            from sdk.builtins import BUILTIN_SCRIPTS

            for script in BUILTIN_SCRIPTS:
                self._add_loaded(_Loaded([script], Source("builtin", script.name)))
        for src in scripts:
            self.load_script(src)
        if entry_points:
            found = entry_point_sources() if entry_points is True else entry_points
            for name, obj in found:
                try:
                    self._add_loaded(
                        _Loaded(scripts_of_object(obj, name), Source("entry_point", name))
                    )
                except Exception as e:  # a broken plug-in must not keep the world down
                    log.error("script entry point %s failed to load: %s", name, e)
        for key, w in self.world.watches.items():
            self._index_watch(key, w)

    # =============================================================================================
    # public interface
    # =============================================================================================
    @property
    def running(self) -> bool:
        return self._consumer is not None and not self._consumer.done()

    @property
    def waiting(self) -> bool:
        """An async callback lives in memory: running, parked, or suspended in ``wait_for``
        with its timer. Unloading the world now would lose it."""
        return bool(self._running or self._parked or self._waiters)

    async def start(self) -> None:
        """Start the consumer (and the script file watcher); run the scripts' ``on_load``
        hooks and re-arm the timers of prompts restored from a snapshot. Idempotent."""
        if self.running:
            return
        self._queue = asyncio.Queue()
        self._consumer = asyncio.create_task(self._consume(), name=f"world:{self.world_id}")
        for prompt in self.world.prompts.values():
            self._arm_prompt_timer(prompt)
        if self._pending_hooks:
            hooks, self._pending_hooks = self._pending_hooks, []
            await self._call_soon(lambda: self._run_load_hooks(hooks))
        if self.reload_interval and any(ld.source.path for ld in self._loaded.values()):
            self._watcher = asyncio.create_task(self._watch_files(), name="script-watcher")

    async def stop(self) -> None:
        """Let the event being processed finish, then stop: waiting callbacks are cancelled,
        timers disarmed, queued events dropped (their submitters get ``CancelledError``)."""
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher
            self._watcher = None
        if self._consumer is not None:
            self._consumer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._consumer
            self._consumer = None
        # an event a caller is processing (process()) finishes first; nothing starts after
        async with self._lock:
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

    @property
    def lock(self) -> asyncio.Lock:
        """Held while one event (or job) is processed; FIFO, so waiting holders go in arrival
        order. Hold it to read or change the world between events, and to call
        :meth:`process`."""
        return self._lock

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
        self._validate(parse_event(event))

    def add_journal(self, callback: JournalCallback) -> Callable[[], None]:
        """Call ``callback(event, effects)`` after every processed event (also those the
        runtime makes itself: prompt timeouts, ``wait_for`` timeouts), awaited when async,
        before the next event is taken. Rejected events are not journaled (they changed
        nothing). Returns an unsubscribe."""
        # replaced, never changed in place: the step's journal loop needs no copy
        self._journal = [*self._journal, callback]

        def unsubscribe() -> None:
            self._journal = _without(self._journal, callback)

        return unsubscribe

    def on_effects(self, callback: EffectsCallback) -> Callable[[], None]:
        """Call ``callback(effects)`` for effects produced by no submit (timers, script
        reloads). Returns an unsubscribe."""
        self._effect_subs = [*self._effect_subs, callback]

        def unsubscribe() -> None:
            self._effect_subs = _without(self._effect_subs, callback)

        return unsubscribe

    def snapshot(self) -> dict[str, Any]:
        """Full JSON-able state, including the roller's RNG state, so restore + replay of the
        same events reaches the same state. Take it between events (in a journal callback)
        for a consistent cut. Waiting script coroutines are not part of it."""
        return {
            "format": SNAPSHOT_FORMAT,
            "world_id": self.world_id,
            # defaults left out: a quarter of the JSON, and a restored world whose models
            # carry only the fields that differ (pydantic keeps a set of the given ones)
            "world": self.world.model_dump(mode="json", exclude_defaults=True),
            "roller": roller_state(self.roller),
        }

    @classmethod
    def restore(
        cls, world_id: str, data: Mapping[str, Any] | str | bytes, **kw: Any
    ) -> WorldRuntime:
        """A runtime holding the state of ``snapshot()`` (the dict, or its JSON text: read
        straight into the models, which costs less time and leaves less garbage); ``kw`` as
        for ``__init__`` (a ``roller`` given there replaces the saved one, ``options`` the
        saved options)."""
        if isinstance(data, str | bytes):
            try:
                doc = _SnapshotDoc.model_validate_json(data)
            except ValidationError:
                return cls.restore(world_id, json.loads(data), **kw)  # says what is wrong
            if doc.format != SNAPSHOT_FORMAT:
                raise ValueError(f"unsupported snapshot format {doc.format!r}")
            world, roller = doc.world, doc.roller
        else:
            if data.get("format") != SNAPSHOT_FORMAT:
                raise ValueError(f"unsupported snapshot format {data.get('format')!r}")
            world, roller = World.model_validate(data["world"]), data.get("roller") or {}
        world.id = world_id
        if "roller" not in kw:
            kw["roller"] = roller_from_state(roller)
        return cls(world_id, world=world, **kw)

    def state_view(self) -> dict[str, Any]:
        """A readable JSON summary: tokens, encounter, initiative order, ready actions, stand
        offs, pending prompts (for an HTTP state endpoint)."""
        w, enc = self.world, self.world.encounter
        order = enc.order() if enc.combatants else []
        return {
            "world": self.world_id,
            "system": enc.options.system,
            "scene": w.active_scene,
            "tokens": {
                t.id: {
                    "name": t.display,
                    "cell": [t.cell.x, t.cell.y],
                    "actor": t.actor,
                    "owners": t.owners,
                    "hidden": t.hidden,
                }
                for t in w.tokens.values()
            },
            "encounter": {
                "in_combat": enc.in_combat,
                "round": enc.round,
                "count": enc.count,
                "active": enc.active,
                "surprise_round": enc.foe.surprise_round,
            },
            "initiative": [
                {
                    "token": c,
                    "name": enc.name(c),
                    "ic": enc.combatants[c].ic,
                    "acted": enc.combatants[c].acted,
                }
                for c in order
            ],
            "ready": [r.model_dump(mode="json") for r in enc.spycraft.readies.values()],
            "standoffs": [s.model_dump(mode="json") for s in enc.spycraft.standoffs],
            "prompts": [p.model_dump(mode="json") for p in w.prompts.values()],
            "regions": {n: len(r.cells) for n, r in w.regions.items()},
            "scripts": sorted(self._scripts),
            "options": enc.options.model_dump(mode="json"),
            "settings": w.settings.model_dump(mode="json"),
        }

    # -- scripts ----------------------------------------------------------------------------
    def load_script(self, source: Any) -> list[str]:
        """Load a script (Script, module, module name or ``.py`` path) and register its
        callbacks; its ``on_load`` hooks run through the consumer. Returns the script names.
        Raises :class:`ScriptError` when it cannot be imported."""
        scripts, src = load_source(source)
        self._add_loaded(_Loaded(scripts, src))
        if self.running:
            self._enqueue_call(lambda: self._run_load_hooks(scripts))
        return [s.name for s in scripts]

    def unload_script(self, name: str) -> None:
        """Drop a script's callbacks; its waiting callbacks are cancelled. Watches it created
        stay in world state (a reload picks them up again)."""
        loaded = self._loaded_for(name)
        for s in loaded.scripts:
            self._unregister(s)
        self._loaded = {k: v for k, v in self._loaded.items() if v is not loaded}

    async def reload_script(self, name: str) -> bool:
        """Re-import a file script through the consumer, keeping world state. On an import
        error the old version stays and the GM is told. Returns whether it reloaded."""
        return await self._call_soon(lambda: self._reload(name))

    def scripts(self) -> list[Script]:
        return list(self._scripts.values())

    def commands(self) -> dict[str, Command]:
        return dict(self._commands)

    async def idle(self) -> None:
        """Wait until everything queued so far (including timer events) was processed."""
        if self._queue is not None:
            await self._call_soon(lambda: None)

    # =============================================================================================
    # the consumer
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
        self._validate(event)
        event = self._normalize(event)
        step = self._step = _Step()
        try:
            # a move is judged before it is applied: a refused one never is
            judged = self._judge_move(event) if type(event) is TokenMoved else ()
            if judged is not None:
                self._ingest(event)
                for out, script in judged:
                    self._apply(out, announce=False, script=script)
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
                self._emit(
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

    def _derive(self, event: BaseEvent) -> None:
        """Dispatch ``event`` to listeners after the current one (no ingest)."""
        if self._step is None:
            self._enqueue_internal(event)
        else:
            self._step.derived.append(event)

    def _touch(self, token: str | None) -> None:
        """``token``'s rules-owned values or conditions may have changed in this step."""
        if self._step is not None and token is not None:
            self._step.touched.add(token)

    def _touch_all(self) -> None:
        if self._step is not None:
            self._step.every = True

    def _sync_sheets(self, step: _Step) -> None:
        """Say which rules-owned values the GM changed on a sheet, then write back to the VTT
        what the step's rules changed: stats (``UpdateStats``) and the conditions on each
        token (``UpdateConditions``). Only the tokens the step touched are compared."""
        w = self.world
        for token, stat, value in w.take_sheet_edits():
            who = w.tokens[token].display if token in w.tokens else token
            self._emit(
                PostChat(
                    text=f"{who}'s {RULES_OWNED[stat]} set to {value} on the sheet; "
                    "the rules follow.",
                    whisper_to="gm",
                )
            )
        tokens = w.tokens
        for token in list(tokens) if step.every else sorted(step.touched):
            if token not in tokens:
                continue
            stats = w.stats_to_write(token)
            if stats:
                self._emit(UpdateStats(token=token, stats=stats))
            shown = w.conditions_to_show(token)
            if shown is not None:
                self._emit(UpdateConditions(token=token, conditions=shown[0], removed=shown[1]))

    def _emit(self, effect: BaseEffect) -> None:
        if self._step is not None:
            self._step.effects.append(effect)
        else:  # outside any step (a callback misused after stop): nowhere to deliver it
            log.warning("world %s: effect outside a step dropped: %r", self.world_id, effect)

    # =============================================================================================
    # validation and ingest
    # =============================================================================================
    def _need_token(self, token: str | None, path: str = "token") -> None:
        if token is not None and token not in self.world.tokens:
            raise EventRejected("unknown_token", f"No token {token!r} in this world.", path=path)

    def _validate(self, ev: BaseEvent) -> None:
        w = self.world
        match ev:
            case TokenMoved():
                self._need_token(ev.token)
                _check_move_length(ev, w.tokens[ev.token].cell)
            case TokenRemoved() | DamageDealt() | InitiativeChanged() | CombatantRemoved():
                self._need_token(ev.token)
            case TokenUpdated():
                self._need_token(ev.token)
                if ev.stats:
                    check_stats(ev.stats, "stats")
            case TokenCreated():
                if ev.token.id in w.tokens:
                    raise EventRejected(
                        "duplicate_token", f"Token {ev.token.id!r} exists.", path="token.id"
                    )
                check_stats(ev.token.stats, "token.stats")
            case ActorUpdated():
                check_stats(ev.stats, "stats")
            case ChatMessage() | ChatCommand():
                self._need_token(ev.token)
            case ActionDeclared():
                self._need_token(ev.token)
                self._need_token(ev.target, "target")
            case TurnStarted():
                self._need_token(ev.token)
            case CombatStarted():
                for i, t in enumerate(ev.tokens):
                    self._need_token(t, f"tokens.{i}")
                for t in ev.initiative:
                    self._need_token(t, f"initiative.{t}")
            case PromptAnswered():
                prompt = w.prompts.get(ev.prompt)
                if prompt is None:
                    raise EventRejected(
                        "unknown_prompt", f"No pending prompt {ev.prompt!r}.", path="prompt"
                    )
                if ev.player is not None and prompt.player not in ("gm", ev.player):
                    asker = w.players.get(ev.player)
                    if asker is None or asker.role != "gm":
                        raise EventRejected(
                            "not_your_prompt",
                            f"Prompt {ev.prompt} is for another player.",
                            path="player",
                        )
                if match_option(prompt, ev.option) is None:
                    raise EventRejected(
                        "bad_option",
                        f"{ev.option!r} is not one of {', '.join(prompt.options)}.",
                        path="option",
                    )
            case SceneSnapshot():
                for i, t in enumerate(ev.tokens):
                    check_stats(t.stats, f"tokens.{i}.stats")
                for i, a in enumerate(ev.actors):
                    check_stats(a.stats, f"actors.{i}.stats")
            case _:
                pass

    def _normalize(self, ev: BaseEvent) -> BaseEvent:
        """Fill in what the adapter left out and the world knows (a move's start cell), so
        listeners and the journal see the whole event."""
        if isinstance(ev, TokenMoved) and ev.from_cell is None:
            return ev.model_copy(update={"from_cell": self.world.tokens[ev.token].cell})
        return ev

    def _ingest(self, ev: BaseEvent) -> None:
        """The world's own bookkeeping for an event from outside, before any listener."""
        w = self.world
        match ev:
            case TokenMoved():
                w.place(ev.token, ev.to_cell)
                self.index.anchor_moved(ev.token)
            case TokenCreated():
                w.put_token(ev.token)
                self.index.anchor_moved(ev.token.id)
                self._touch(ev.token.id)
            case TokenRemoved():
                w.remove_token(ev.token)
            case TokenUpdated():
                tok = w.tokens[ev.token]
                before = w.sheet_values(tok.id) if ev.stats or ev.actor is not None else None
                for f in ("name", "actor", "owners", "disposition", "hidden"):
                    value = getattr(ev, f)
                    if value is not None:
                        setattr(tok, f, value)
                if ev.stats:
                    tok.stats.update(ev.stats)
                w.refresh_character(tok.id, before)
                self._touch(tok.id)
            case ActorUpdated():
                linked = [t.id for t in w.tokens.values() if t.actor == ev.actor and t.linked]
                befores = {t: w.sheet_values(t) for t in linked}
                actor = w.actors.setdefault(ev.actor, Actor(id=ev.actor))
                if ev.name is not None:
                    actor.name = ev.name
                actor.stats.update(ev.stats)
                for tid in linked:
                    w.refresh_character(tid, befores[tid])
                    self._touch(tid)
            case SceneSnapshot():
                self._ingest_snapshot(ev)
            case _:
                pass

    def _ingest_snapshot(self, ev: SceneSnapshot) -> None:
        w = self.world
        s = ev.scene
        w.set_scene(Scene(id=s.id, name=s.name, grid=s.grid, extent=s.extent))
        for p in ev.players:
            w.players[p.id] = p
        # what the sheets showed before this snapshot: a rules-owned value follows the sheet
        # only where it changed
        befores = {t.id: w.sheet_values(t.id) for t in ev.tokens if t.id in w.tokens}
        for a in ev.actors:
            w.actors[a.id] = Actor(id=a.id, name=a.name, stats=dict(a.stats), vtt=dict(a.vtt))
        seen = set()
        for data in ev.tokens:
            data = data if data.scene else data.model_copy(update={"scene": ev.scene.id})
            seen.add(data.id)
            w.put_token(data, befores.get(data.id))
        self._touch_all()
        for tid in [
            t.id for t in w.tokens.values() if t.id not in seen and t.scene in (None, ev.scene.id)
        ]:
            w.remove_token(tid)
        for name in [
            n for n, r in w.regions.items() if r.source == "vtt" and r.scene in (None, ev.scene.id)
        ]:
            del w.regions[name]
        for name, cells in ev.regions.items():
            w.regions[name] = Region(name=name, cells=cells, scene=ev.scene.id, source="vtt")
        self.index.grid_changed()

    def _judge_move(self, ev: TokenMoved) -> list[tuple[Outcome, Script]] | None:
        """Run the ``before_move`` judges on a move not yet applied: the outcomes of those that
        let it through, or None when one refused it (then the world is as it was, the VTT is
        told to put the token back, and a :class:`MoveRefused` follows)."""
        judges = self._move_judges
        if not judges:
            return []
        enc = self.world.encounter
        before = enc.model_dump_json() if len(judges) > 1 else None  # undo an earlier yes
        accepted: list[tuple[Outcome, Script]] = []
        for judge in judges:
            args = (ev, Context(self, judge.script, ev)) if judge.nargs > 1 else (ev,)
            if judge.script.trusted:
                try:
                    out, error = judge.fn(*args), None
                except Exception as e:
                    out, error = None, e
            else:  # a script's judge runs under the watchdog; one stopped lets the move through
                guard = self._guarded(judge, judge.fn, args)
                out, error = guard.result, guard.error
            if isinstance(error, RuleError):
                if before is not None:
                    restore_encounter(enc, before)
                self._refuse_move(ev, error)
                return None
            if error is not None:  # a broken judge lets the move through
                self._report_error(judge, error)
                continue
            if isinstance(out, Outcome):
                accepted.append((out, judge.script))
        return accepted

    def _refuse_move(self, ev: TokenMoved, e: RuleError) -> None:
        w = self.world
        tok = w.tokens[ev.token]
        back = ev.from_cell or tok.cell
        self._emit(UpdateToken(token=tok.id, cell=back, animate=False))
        self._emit(
            PostChat(
                text=f"{tok.display}'s move refused and moved back: {e.message}", whisper_to="gm"
            )
        )
        mover = ev.player or w.player_for(tok.id)
        player = w.players.get(mover)
        if mover != "gm" and (player is None or player.role != "gm"):
            self._emit(PostChat(text=f"Move refused: {e.message}", whisper_to=mover))
        self._derive(
            MoveRefused(
                id=ev.id,
                token=tok.id,
                to_cell=ev.to_cell,
                from_cell=ev.from_cell,
                path=ev.path,
                player=ev.player,
                code=e.code,
                reason=e.message,
                source="runtime",
            )
        )

    # =============================================================================================
    # dispatch
    # =============================================================================================
    async def _dispatch(self, ev: BaseEvent) -> None:
        cls = type(ev)
        route = self._routes.get(cls) or self._route(cls)
        if self._waiters or route.before:
            if self._waiters:
                self._resolve_waiters(ev)
                await self._settle()
            if isinstance(ev, TimerFired):
                self._timer_fired(ev.timer)
                await self._settle()
            elif isinstance(ev, PromptAnswered) and ev.prompt in self.world.prompts:
                self._answer(
                    ev.prompt, ev.option, player=None, role="gm", timed_out=ev.timed_out, event=ev
                )
                await self._settle()
            # the callbacks that ran may have (un)loaded a script
            route = self._routes.get(cls) or self._route(cls)

        for lst in route.listeners:
            if lst.token is not None and getattr(ev, "token", None) != lst.token:
                continue
            if lst.when is not None and not self._check(lst, lst.when, ev):
                continue
            # a one-parameter callback never sees its context: don't make one
            args = (ev, Context(self, lst.script, ev)) if lst.nargs > 1 else (ev,)
            if lst.is_async:
                await self._invoke(lst, args)
            else:  # no coroutine for a plain function
                self._call(lst, args, None)

        after = route.after
        if after is TokenMoved:
            if self.index.covers_cells():  # else no move can enter anything
                await self._fire_positions(ev)  # type: ignore[arg-type]
        elif after is not None:
            await self._follow_up(ev)
        if after is not ConditionSignalled and self.index.condition_names():
            await self._fire_conditions(ev)

    def _route(self, cls: type) -> _Route:
        """What ``_dispatch`` does with events of ``cls``, cached per class until the scripts
        change: its listeners, and the ``isinstance`` tests (~70 ns each against a pydantic
        class) answered once."""
        route = _Route(
            listeners=[lst for lst in self._listeners if issubclass(cls, lst.types)],
            before=issubclass(cls, (TimerFired, PromptAnswered)),
            after=next((t for t in _FOLLOW_UPS if issubclass(cls, t)), None),
        )
        self._routes[cls] = route
        return route

    async def _follow_up(self, ev: BaseEvent) -> None:
        """What an event does after its listeners: a chat line may be a command, a command
        runs, a move or an action fires triggers, a signal fires its conditions' triggers."""
        match ev:
            case ChatMessage():
                cmd = ChatCommand.parse(
                    ev.text,
                    token=ev.token,
                    actor=ev.actor,
                    player=ev.player,
                    role=ev.role,
                    id=ev.id,
                    source=ev.source,
                )
                if cmd is not None:
                    self._derive(cmd)
            case ChatCommand():
                consumed = await self._fire_actions(ev, ev.name, None, ev.token)
                await self._run_command(ev, consumed)
            case TokenMoved():
                await self._fire_positions(ev)
            case ActionDeclared():
                await self._fire_actions(ev, ev.action, ev.phase, ev.token)
            case ConditionSignalled():
                for trig in self.index.conditions(ev.condition):
                    if trig.spec.accepts(ev.token):
                        await self._fire(trig, ev)
            case _:
                pass

    async def _fire_positions(self, ev: TokenMoved) -> None:
        tok = self.world.tokens.get(ev.token)
        if tok is None or tok.cell != ev.to_cell:
            return  # a listener moved it back (an illegal move reverted): nothing was entered
        start = ev.from_cell
        pts = ev.waypoints(start)
        if len(pts) < 2:
            return
        for trig, xy in self.index.entered(ev.token, path_xy(pts)):
            if trig.id in self.index.triggers:  # an earlier handler may have removed it
                await self._fire(trig, ev, cell=Cell(x=xy[0], y=xy[1]))

    async def _fire_actions(
        self, ev: BaseEvent, name: str, phase: str | None, token: str | None
    ) -> bool:
        fired = False
        for trig in self.index.actions(name):
            spec = trig.spec
            if phase is not None and spec.phase is not None and spec.phase != phase:
                continue
            if not spec.accepts(token) or trig.id not in self.index.triggers:
                continue
            fired = True
            await self._fire(trig, ev)
        return fired

    async def _fire_conditions(self, ev: BaseEvent) -> None:
        if isinstance(ev, ConditionSignalled):
            return
        token = getattr(ev, "token", None)
        for name in list(self.index.condition_names()):
            cond = self._conditions.get(name)
            if cond is None or not isinstance(ev, cond.types):
                continue
            # decided once per owner (whose Ready it is); a condition without a ctx cannot
            # tell owners apart, so it is decided once
            verdicts: dict[str | None, bool] = {}
            for trig in self.index.conditions(name):
                if trig.id not in self.index.triggers or not trig.spec.accepts(token):
                    continue
                owner = self._trigger_owner(trig) if cond.nargs > 1 else None
                holds = verdicts.get(owner)
                if holds is None:
                    holds = verdicts[owner] = await self._condition_holds(cond, ev, owner)
                if holds:
                    await self._fire(trig, ev)

    async def _condition_holds(self, cond: Condition, ev: BaseEvent, owner: str | None) -> bool:
        """Decide a condition for ``owner``'s trigger; an async one is awaited within the
        script budget. One that raises or runs too long counts as false and is reported."""
        ctx = Context(self, cond.script, ev, owner=owner)
        if not cond.is_async:
            return self._check(cond, cond.fn, ev, ctx)
        budget = self.world.settings.script_budget
        try:
            result = cond.fn(*(ev, ctx)[: max(1, min(cond.nargs, 2))])
            steps = result if cond.script.trusted else _Stepped(self, cond, result)
            return bool(await asyncio.wait_for(steps, budget))
        except TimeoutError:
            self._report(cond, f"ran past its {self._budget_text()} budget", cond.file, cond.line)
        except Exception as e:
            self._report_error(cond, e)
        return False

    def _trigger_owner(self, trig: Trigger) -> str | None:
        watch = self.world.watches.get(trig.watch) if trig.watch is not None else None
        return _watch_owner(watch) if watch is not None else None

    async def _fire(self, trig: Trigger, ev: BaseEvent, cell: Cell | None = None) -> None:
        region = getattr(trig.spec, "region", None)
        if trig.watch is None:
            reg = trig.handler
            await self._invoke(reg, (ev, Context(self, reg.script, ev, cell=cell, region=region)))
            return
        watch = self.world.watches.get(trig.watch)
        if watch is None:
            return
        handler = self._watch_handlers.get((watch.script, watch.handler))
        if handler is None:
            log.warning("watch %s: no handler %s.%s loaded", watch.key, watch.script, watch.handler)
            return
        ctx = Context(
            self,
            handler.script,
            ev,
            cell=cell,
            region=region,
            watch=watch,
            owner=_watch_owner(watch),
        )
        await self._invoke(handler, (ev, ctx))

    def _check(self, reg: Registered, pred: Callable[..., Any], ev: Any, *extra: Any) -> bool:
        """Run a predicate; one that raises or overruns counts as false and is reported."""
        if extra:  # the arity decides nothing with a single argument
            args = (ev, *extra)
            args = args[: max(1, min(positional_count(pred), len(args)))]
        else:
            args = (ev,)
        if reg.script.trusted:
            try:
                return bool(pred(*args))
            except Exception as e:
                self._report_error(reg, e)
                return False
        result: list[bool] = []
        guard = self._guarded(reg, lambda: result.append(bool(pred(*args))))
        if guard.error is not None:
            self._report_error(reg, guard.error)
        return bool(result) and result[0] and not guard.interrupted

    # -- commands --------------------------------------------------------------------------
    async def _run_command(self, cmd: ChatCommand, consumed: bool) -> None:
        c = self._commands.get(cmd.name)
        reply_to = cmd.player or "gm"
        if c is None:
            if not consumed:
                self._emit(
                    PostChat(
                        text=f"Unknown command !{cmd.name}. Type !help for the list.",
                        whisper_to=reply_to,
                    )
                )
            return
        if ROLE_RANK.get(cmd.role, 0) < ROLE_RANK[c.role]:
            who = "the GM" if c.role == "gm" else "players"
            self._emit(PostChat(text=f"Only {who} may use !{c.name}.", whisper_to=reply_to))
            return
        bill = None
        if c.cost is not None:  # checked before it runs, spent once it succeeded
            try:
                bill = economy.bill(self.world, cmd, c.cost, c.name)
            except RuleError as e:
                self._emit(PostChat(text=e.message, whisper_to=reply_to))
                return
        await self._invoke(c, (cmd, Context(self, c.script, cmd)), command=cmd, bill=bill)

    def _pay(self, bill: economy.Bill, command: ChatCommand) -> None:
        try:
            bill.settle(self.world.encounter)
        except RuleError as e:  # an async command that waited while the turn moved on
            self._emit(
                PostChat(text=f"!{command.name}: nothing spent: {e.message}", whisper_to="gm")
            )

    # -- running callbacks -----------------------------------------------------------------
    async def _invoke(
        self,
        reg: Registered,
        args: tuple[Any, ...],
        *,
        command: ChatCommand | None = None,
        bill: economy.Bill | None = None,
    ) -> None:
        if reg.is_async:
            call_args = args[: reg.nargs] if reg.nargs < len(args) else args
            task = asyncio.create_task(self._run_async(reg, call_args, command, bill))
            self._task_reg[task] = reg
            self._running[task] = (reg, time.perf_counter())
            task.add_done_callback(self._task_done)
            await self._settle()
            return
        if self._call(reg, args, command) and bill is not None and command is not None:
            self._pay(bill, command)

    def _call(self, reg: Registered, args: tuple[Any, ...], command: ChatCommand | None) -> bool:
        """Run a plain (not async) callback: its errors are reported, never raised; past its
        budget the watchdog stops it (built-ins are trusted and run bare). Returns whether it
        returned without an error."""
        call_args = args[: reg.nargs] if reg.nargs < len(args) else args
        if reg.script.trusted:
            try:
                reg.fn(*call_args)
            except Exception as e:
                self._callback_failed(reg, e, command)
                return False
            return True
        guard = self._guarded(reg, reg.fn, call_args)
        if guard.error is not None:
            self._callback_failed(reg, guard.error, command)
        if guard.interrupted and command is not None and (command.player or "gm") != "gm":
            self._emit(
                PostChat(
                    text=f"!{command.name} took too long and was stopped; the GM has been told.",
                    whisper_to=command.player,
                )
            )
        return guard.error is None and not guard.interrupted

    def _guarded(
        self, reg: Registered, fn: Callable[..., Any], args: tuple[Any, ...] = ()
    ) -> Guard:
        """``fn(*args)`` under the watchdog; an overrun is reported where it was running."""
        guard = watchdog().call(
            fn, args, self.world.settings.script_budget, (reg.file, reg.script.file or ""),
            self.on_overrun,
        )  # fmt: skip
        if guard.overran or guard.elapsed > self.world.settings.script_budget:
            file, line = guard.where or (reg.file, reg.line)
            if guard.interrupted:
                what = f"ran past its {self._budget_text()} budget and was stopped"
            else:  # report-only (not the main thread), or it ended before the watchdog looked
                what = f"took {guard.elapsed:.1f} s, past its {self._budget_text()} budget"
            self._report(reg, what, file, line)
        return guard

    async def _run_async(
        self,
        reg: Registered,
        args: tuple[Any, ...],
        command: ChatCommand | None,
        bill: economy.Bill | None = None,
    ) -> None:
        try:
            coro = reg.fn(*args)
            await (coro if reg.script.trusted else _Stepped(self, reg, coro))
        except asyncio.CancelledError:
            raise
        except Exception as e:
            self._callback_failed(reg, e, command)
            return
        if bill is not None and command is not None:
            self._pay(bill, command)

    def _callback_failed(self, reg: Registered, e: Exception, command: ChatCommand | None) -> None:
        if command is not None:
            reply_to = command.player or "gm"
            if isinstance(e, UsageError):
                usage = getattr(reg, "usage", "")
                msg = f"{e} " if str(e) else ""
                self._emit(PostChat(text=f"{msg}Usage: {usage}".strip(), whisper_to=reply_to))
                return
            if isinstance(e, RuleError):
                self._emit(PostChat(text=e.message, whisper_to=reply_to))
                return
            self._report_error(reg, e)
            if reply_to != "gm":
                self._emit(
                    PostChat(
                        text=f"!{command.name} failed; the GM has been told.", whisper_to=reply_to
                    )
                )
            return
        if isinstance(e, RuleError):  # a rule refused what a listener asked: the GM decides
            self._emit(PostChat(text=f"{reg.script.name}: {e.message}", whisper_to="gm"))
            return
        self._report_error(reg, e)

    def _report_error(self, reg: Registered, e: BaseException) -> None:
        file = reg.script.file or reg.file
        line = error_line(e, reg.file) or error_line(e, file) or reg.line
        where = reg.file if error_line(e, reg.file) else file
        self._report(reg, f"raised {type(e).__name__}: {e}", where, line, exc=e)

    def _report(
        self, reg: Registered, what: str, file: str, line: int, exc: BaseException | None = None
    ) -> None:
        fname = Path(file).name if file else "?"
        fn = getattr(reg.fn, "__name__", "callback")
        text = f"⚠ Script {reg.script.name} ({fname}:{line}, in {fn}) {what}"
        log.error(
            "world %s: %s [%s:%s]",
            self.world_id,
            text,
            file,
            line,
            exc_info=(type(exc), exc, exc.__traceback__) if exc else None,
        )
        self._emit(PostChat(text=text, whisper_to="gm"))

    def _budget_text(self) -> str:
        return f"{self.world.settings.script_budget:g} s"

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._running.pop(task, None)
        self._parked.pop(task, None)
        self._task_reg.pop(task, None)
        self._signal()

    def _signal(self) -> None:
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)

    def _park(self, task: asyncio.Task[Any]) -> None:
        entry = self._running.pop(task, None)
        reg = entry[0] if entry else self._task_reg.get(task)
        if reg is not None:
            self._parked[task] = reg
        self._signal()

    def _unpark(self, task: asyncio.Task[Any] | None) -> None:
        if task is None:
            return
        reg = self._parked.pop(task, None) or self._task_reg.get(task)
        if reg is not None and not task.done():
            self._running[task] = (reg, time.perf_counter())

    async def _settle(self) -> None:
        """Let runnable async callbacks run until each has finished or is waiting; one that
        runs past the budget is cancelled and reported, the world goes on."""
        loop = asyncio.get_running_loop()
        budget = self.world.settings.script_budget
        while self._running:
            now = time.perf_counter()
            overdue = [t for t, (_, since) in self._running.items() if now - since >= budget]
            for task in overdue:
                reg = self._running.pop(task)[0]
                file, line = _suspended_at(task, reg)
                self._report(
                    reg, f"ran past its {self._budget_text()} budget and was stopped", file, line
                )
                task.cancel()
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(asyncio.shield(task), 0.1)
            if not self._running:
                return
            oldest = min(since for _, since in self._running.values())
            self._wake = loop.create_future()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake, max(0.0, oldest + budget - now))
            self._wake = None

    # =============================================================================================
    # waiting: wait_for, sleep, prompts
    # =============================================================================================
    async def _wait_event(
        self,
        types: tuple[type[BaseEvent], ...],
        check: Callable[[Any], bool] | None,
        timeout: float | None,
        script: Script | None,
    ) -> Any:
        task = asyncio.current_task()
        if task not in self._task_reg:
            raise RuntimeError("wait_for/sleep only work inside an async callback of this world")
        w = _Waiter(
            self.world.next_id("w"),
            asyncio.get_running_loop().create_future(),
            task,
            types,
            check,
            script,
        )
        self._waiters[w.id] = w
        if timeout is not None:
            w.timer = self.clock.call_later(
                timeout, lambda: self._enqueue_internal(TimerFired(timer=w.id, source="runtime"))
            )
        self._park(task)
        try:
            return await w.future
        finally:
            self._waiters.pop(w.id, None)
            if w.timer is not None:
                w.timer.cancel()

    def _resolve_waiters(self, ev: BaseEvent) -> None:
        for w in list(self._waiters.values()):
            if w.future.done() or not w.types or not isinstance(ev, w.types):
                continue
            if w.check is not None:
                reg = self._task_reg.get(w.task) if w.task else None
                try:
                    ok = bool(w.check(ev))
                except Exception as e:
                    if reg is not None:
                        self._report_error(reg, e)
                    ok = False
                if not ok:
                    continue
            w.future.set_result(ev)
            self._unpark(w.task)

    def _timer_fired(self, timer: str) -> None:
        w = self._waiters.get(timer)
        if w is None or w.future.done():
            return  # replayed after a restart, or already answered: nothing waits any more
        w.future.set_exception(TimeoutError(f"no matching event within the timeout ({timer})"))
        self._unpark(w.task)

    def _open_prompt(
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
        if default not in options:
            default = options[0]
        timeout = self.world.settings.prompt_timeout if timeout is None else timeout
        timeout = timeout if timeout and timeout > 0 else None
        prompt = Prompt(
            id=self.world.next_id("p"),
            kind=kind,
            player=player,
            token=token,
            actor=actor if actor is not None else token,
            question=question,
            options=options,
            default=default,
            timeout=timeout,
            deadline=self.clock.now() + timeout if timeout else None,
            choice_id=choice_id,
            data=data or {},
            script=script,
        )
        self.world.prompts[prompt.id] = prompt
        self._arm_prompt_timer(prompt)
        self._emit(
            AskPlayer(
                prompt=prompt.id,
                player=player,
                token=token,
                question=question,
                options=options,
                default=default,
                timeout=timeout,
                text=prompt.chat_text(),
            )
        )
        self._derive(
            PromptOpened(
                prompt=prompt.id,
                kind=kind,
                player=player,
                token=token,
                actor=prompt.actor,
                question=question,
                options=options,
                default=default,
                source="runtime",
            )
        )
        return prompt

    def _arm_prompt_timer(self, prompt: Prompt) -> None:
        if prompt.deadline is None or self._queue is None or prompt.id in self._prompt_timers:
            return
        pid, default = prompt.id, prompt.default
        self._prompt_timers[pid] = self.clock.call_later(
            prompt.deadline - self.clock.now(),
            lambda: self._enqueue_internal(
                PromptAnswered(prompt=pid, option=default, timed_out=True, source="runtime")
            ),
        )

    def _close_prompt(self, pid: str, reason: str = "") -> None:
        """Withdraw a prompt nobody needs any more (its rule state moved on); a script waiting
        on it gets its default."""
        prompt = self.world.prompts.pop(pid, None)
        if prompt is None:
            return
        timer = self._prompt_timers.pop(pid, None)
        if timer is not None:
            timer.cancel()
        waiter = self._prompt_waiters.get(pid)
        if waiter is not None and not waiter.future.done():
            waiter.future.set_result(prompt.default)
            self._unpark(waiter.task)
        note = f": {reason}" if reason else ""
        self._emit(PostChat(text=f"Question {pid} withdrawn{note}", whisper_to=prompt.player))

    async def _wait_prompt(self, pid: str) -> str:
        task = asyncio.current_task()
        if task not in self._task_reg:
            raise RuntimeError("ask() only works inside an async callback of this world")
        w = _Waiter(pid, asyncio.get_running_loop().create_future(), task, (), None, None)
        self._prompt_waiters[pid] = w
        self._park(task)
        try:
            return await w.future
        finally:
            self._prompt_waiters.pop(pid, None)

    def _answer(
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
        or resolve the rules choice. Raises :class:`UsageError` for a bad answer."""
        prompt = self.world.prompts.get(pid)
        if prompt is None:
            raise UsageError(f"No pending question {pid!r}.")
        chosen = match_option(prompt, option)
        if chosen is None:
            raise UsageError(f"{option!r} is not one of: {', '.join(prompt.options)}.")
        if role != "gm" and prompt.player not in ("gm", player) and player is not None:
            raise UsageError(f"Question {pid} is for someone else.")
        if role != "gm" and prompt.player == "gm":
            raise UsageError(f"Question {pid} is for the GM.")
        del self.world.prompts[pid]
        timer = self._prompt_timers.pop(pid, None)
        if timer is not None:
            timer.cancel()
        if timed_out:
            who = (
                self.world.tokens[prompt.token].display
                if prompt.token in self.world.tokens
                else prompt.player
            )
            self._emit(
                PostChat(
                    text=f"No answer to {pid} ({who}): {chosen} (default).",
                    whisper_to=None if prompt.kind != "ask" else "gm",
                )
            )
        waiter = self._prompt_waiters.get(pid)
        if waiter is not None and not waiter.future.done():
            waiter.future.set_result(chosen)
            self._unpark(waiter.task)
        elif prompt.kind in self._choices:
            handler = self._choices[prompt.kind]
            ctx = Context(self, handler.script, event)
            self._derive_call(handler, (prompt, chosen, ctx))
        if event is None:
            self._derive(
                PromptAnswered(
                    prompt=pid, option=chosen, player=player, timed_out=timed_out, source="runtime"
                )
            )
        return chosen

    def _derive_call(self, reg: Registered, args: tuple[Any, ...]) -> None:
        """Run a callback right after the current one, in this step (choice handlers run from
        ``_answer``, which may itself be inside a command handler)."""
        assert self._step is not None
        self._step.derived.appendleft(_Call(reg, args))

    # =============================================================================================
    # rules outcomes, moves, regions, watches
    # =============================================================================================
    def _apply(self, outcome: Outcome, *, announce: bool, script: Script | None) -> None:
        w, enc = self.world, self.world.encounter
        if announce:
            lines = [h.text for h in outcome.happened if h.text]
            for r in outcome.rolls:
                if not any(r.text in line for line in lines):
                    lines.append(f"{r.reason}: {r.text}" if r.reason else r.text)
            if lines:
                self._emit(PostChat(text="\n".join(lines)))
        touched = self._step.touched if self._step is not None else set()
        for h in outcome.happened:
            if h.actor is not None and h.kind not in _CHANGES_NOTHING_OWNED:
                touched.add(h.actor)  # whom a rule acted on may have spent or gained something
            lapsed = h.data.get("choice_id")
            if lapsed and h.kind.endswith("_lapsed"):
                for p in [p for p in w.prompts.values() if p.choice_id == lapsed]:
                    self._close_prompt(p.id, h.text or "no longer needed")
            if h.kind not in _ACTED_ON_KINDS:  # one set lookup, not seven failed cases (a move)
                continue
            actor = h.actor
            match h.kind:
                case "initiative_rolled" | "initiative_set" if actor in w.tokens:
                    self._emit(SetInitiative(token=actor, ic=int(h.data["ic"])))
                case "ic_changed" if actor is not None:
                    if actor in w.tokens:
                        self._emit(SetInitiative(token=actor, ic=int(h.data["new"])))
                    self._derive(
                        InitiativeChanged(
                            token=actor,
                            ic=int(h.data["new"]),
                            old=h.data.get("old"),
                            reason=str(h.data.get("reason", "")),
                            source="runtime",
                        )
                    )
                case "round_started":
                    self._derive(
                        RoundStarted(round=int(h.data.get("round", enc.round)), source="runtime")
                    )
                case "turn_started" if actor is not None:
                    rnd = int(h.data.get("round", enc.round))
                    ic = h.data.get("ic")
                    self._emit(AdvanceTurn(round=rnd, token=actor, ic=ic))
                    self._derive(TurnStarted(token=actor, round=rnd, ic=ic, source="runtime"))
                case "combat_started":
                    order = enc.order()
                    self._derive(
                        CombatStarted(
                            tokens=order,
                            initiative={c: enc.combatants[c].ic for c in order},
                            source="runtime",
                        )
                    )
                case "combat_ended":
                    self._emit(AdvanceTurn(round=0, token=None))
                    self._derive(CombatEnded(source="runtime"))
                case _:
                    pass
        # rules that move characters (charge, FoE move) change Encounter.positions: those set
        # since the last look (all of them if a script replaced the dict); a place() puts the
        # same Cell in both, so a token it placed costs an identity test
        tokens, positions = w.tokens, enc.positions
        set_since = positions.take_set() if isinstance(positions, Positions) else list(positions)
        for tid in set_since:
            cell = positions.get(tid)
            tok = tokens.get(tid)
            if cell is not None and tok is not None and tok.cell is not cell and tok.cell != cell:
                old = tok.cell
                self._move(tid, cell, [], animate=True, fire=True, source="runtime", old=old)
        for choice in outcome.choices:
            handler = self._choices.get(choice.kind)
            if handler is None:
                log.warning("no handler registered for choice kind %r", choice.kind)
            self._open_prompt(
                kind=choice.kind,
                player=w.player_for(choice.actor),
                token=choice.actor if choice.actor in w.tokens else None,
                question=choice.question,
                options=list(choice.options),
                default=choice.default,
                data=dict(choice.data),
                choice_id=choice.id,
                script=handler.script.name if handler else (script.name if script else None),
                actor=choice.actor,
            )

    def _move(
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
        tok = self.world.tokens[token]
        old = old or tok.cell
        self.world.place(token, cell)
        self.index.anchor_moved(token)
        self._emit(UpdateToken(token=token, cell=cell, animate=animate))
        if fire and old != cell:
            self._derive(
                TokenMoved(token=token, from_cell=old, to_cell=cell, path=path, source=source)
            )  # type: ignore[arg-type]

    def _set_region(self, region: Region) -> None:
        self.world.regions[region.name] = region
        self.index.region_changed(region.name)

    def _resolve_cells(self, spec: Any) -> frozenset[tuple[int, int]]:
        if spec.kind == "enter":
            if spec.cells is not None:
                return frozenset((c.x, c.y) for c in spec.cells)
            reg = self.world.regions.get(spec.region)
            return reg.xy if reg is not None else frozenset()
        if spec.kind == "within":
            tok = self.world.tokens.get(spec.anchor)
            if tok is None:
                return frozenset()
            return frozenset((c.x, c.y) for c in within(tok.cell, spec.distance, self.world.grid))
        return frozenset()

    def _add_watch(
        self,
        key: str,
        spec: Any,
        script: str,
        handler: str,
        data: dict[str, Any],
        owner: str | None = None,
    ) -> Watch:
        if (script, handler) not in self._watch_handlers:
            raise ValueError(f"script {script} has no watch_handler {handler!r}")
        self._remove_watch(key)
        watch = Watch(
            key=key,
            script=script,
            handler=handler,
            spec=spec.model_dump(mode="json"),
            data=data,
            owner=owner,
        )
        self.world.watches[key] = watch
        self._index_watch(key, watch)
        return watch

    def _index_watch(self, key: str, watch: Watch) -> None:
        spec = SPEC_ADAPTER.validate_python(watch.spec)
        self._watch_tids[key] = self.index.add(spec, owner=f"watch:{key}", watch=key).id

    def _remove_watch(self, key: str) -> None:
        self.world.watches.pop(key, None)
        tid = self._watch_tids.pop(key, None)
        if tid is not None:
            self.index.remove(tid)

    # =============================================================================================
    # script registration and reload
    # =============================================================================================
    def _loaded_for(self, name: str) -> _Loaded:
        for ld in self._loaded.values():
            if any(s.name == name for s in ld.scripts) or ld.source.ref == name:
                return ld
        raise KeyError(f"no script {name!r} loaded")

    def _add_loaded(self, loaded: _Loaded) -> None:
        for s in loaded.scripts:
            if s.name in self._scripts:
                raise ScriptError(f"a script named {s.name!r} is already loaded")
        for s in loaded.scripts:
            self._register(s)
        self._loaded[loaded.source.ref + "#" + loaded.scripts[0].name] = loaded
        self._pending_hooks.extend(loaded.scripts)

    def _register(self, s: Script) -> None:
        self._scripts[s.name] = s
        self._listeners.extend(s.listeners)
        self._routes.clear()
        for name, cmd in s.commands.items():
            if name in self._commands:
                log.info("script %s overrides command !%s", s.name, name)
            self._commands[name] = cmd
        self._conditions.update(s.conditions)
        self._choices.update(s.choices)
        for name, wh in s.watch_handlers.items():
            self._watch_handlers[(s.name, name)] = wh
        self._move_judges.extend(s.move_judges)
        for reg in s.regions.values():
            self._set_region(reg.model_copy())
        for pt in s.position_triggers:
            self.index.add(pt.spec, owner=f"script:{s.name}", handler=pt)

    def _unregister(self, s: Script) -> None:
        self._scripts.pop(s.name, None)
        self._listeners = [lst for lst in self._listeners if lst.script is not s]
        self._move_judges = [j for j in self._move_judges if j.script is not s]
        self._routes.clear()
        for table in (self._commands, self._conditions, self._choices):
            for key in [k for k, v in table.items() if v.script is s]:
                del table[key]
        for key in [k for k in self._watch_handlers if k[0] == s.name]:
            del self._watch_handlers[key]
        self.index.remove_owner(f"script:{s.name}")
        for task, reg in list(self._task_reg.items()):
            if reg.script is s:
                task.cancel()
                self._running.pop(task, None)
                self._parked.pop(task, None)
        for w in [w for w in self._waiters.values() if w.script is s]:
            self._waiters.pop(w.id, None)

    def _run_load_hooks(self, scripts: list[Script]) -> Awaitable[None]:
        async def run() -> None:
            for s in scripts:
                for hook in s.load_hooks:
                    await self._invoke(hook, (Context(self, s),))

        return run()

    async def _reload(self, name: str) -> bool:
        loaded = self._loaded_for(name)
        if loaded.source.kind != "file" or loaded.source.path is None:
            raise ScriptError(f"script {name!r} was not loaded from a file")
        path = loaded.source.path
        try:
            scripts, src = load_source(path)
        except ScriptError as e:
            self._emit(
                PostChat(
                    text=f"⚠ Reloading {path.name} failed, keeping the old version: {e}",
                    whisper_to="gm",
                )
            )
            log.error("world %s: reload of %s failed: %s", self.world_id, path, e)
            loaded.source.mtime = _mtime(path)
            return False
        for s in loaded.scripts:
            self._unregister(s)
        self._loaded = {k: v for k, v in self._loaded.items() if v is not loaded}
        try:
            self._add_loaded(_Loaded(scripts, src))
        except ScriptError as e:  # a name clash: put the old version back
            for s in loaded.scripts:
                self._register(s)
            self._loaded[loaded.source.ref + "#" + loaded.scripts[0].name] = loaded
            self._emit(PostChat(text=f"⚠ Reloading {path.name} failed: {e}", whisper_to="gm"))
            return False
        self._pending_hooks = [s for s in self._pending_hooks if s not in scripts]
        await self._run_load_hooks(scripts)
        log.info("world %s: reloaded %s", self.world_id, path)
        self._emit(PostChat(text=f"Reloaded {path.name}.", whisper_to="gm"))
        return True

    async def _watch_files(self) -> None:
        interval = self.reload_interval or 1.0
        while True:
            await asyncio.sleep(interval)
            for ld in list(self._loaded.values()):
                src = ld.source
                if src.path is None:
                    continue
                mtime = _mtime(src.path)
                if mtime is not None and mtime != src.mtime:
                    src.mtime = mtime
                    name = ld.scripts[0].name
                    self._enqueue_call(lambda n=name: self._reload(n))


# =================================================================================================
# helpers
# =================================================================================================
class _Stepped:
    """Awaits an async script callback one step at a time under the watchdog: a step that
    never reaches an ``await`` (``while True: pass`` in an ``async def``) is stopped like a
    plain callback. Also what ``_suspended_at`` walks through (``cr_await``)."""

    __slots__ = ("coro", "reg", "rt")

    def __init__(self, rt: WorldRuntime, reg: Registered, coro: Any) -> None:
        self.rt, self.reg, self.coro = rt, reg, coro

    def __await__(self) -> _Stepped:
        return self

    def __iter__(self) -> _Stepped:
        return self

    def __next__(self) -> Any:
        return self._step(self.coro.send, None)

    def send(self, value: Any) -> Any:
        return self._step(self.coro.send, value)

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:
        return self._step(self.coro.throw, typ if val is None else val)

    def close(self) -> None:
        self.coro.close()

    @property
    def cr_await(self) -> Any:
        return self.coro

    def _step(self, fn: Callable[[Any], Any], arg: Any) -> Any:
        out: list[Any] = []
        guard = self.rt._guarded(self.reg, lambda: out.append(fn(arg)))
        if guard.interrupted:  # reported; the callback ends there
            self.coro.close()
            raise StopIteration(None)
        if guard.error is not None:
            raise guard.error  # StopIteration: the callback returned
        return out[0]


@dataclass
class _Call:
    """A callback queued to run after the current one (a choice handler), in the same step."""

    reg: Registered
    args: tuple[Any, ...]


def _watch_owner(watch: Watch) -> str | None:
    # a Ready's watch saved before watches had an owner names him in its data
    return watch.owner if watch.owner is not None else watch.data.get("actor")


def parse_event(event: Any) -> BaseEvent:
    """A model, or a JSON dict validated into one; a bad payload is :class:`EventRejected`."""
    if type(event) is not dict:  # a dict (the wire's case) skips two isinstance tests
        if isinstance(event, BaseEvent):
            return event
        if not isinstance(event, Mapping):
            raise EventRejected("invalid_event", f"An event must be an object, not {type(event)}.")
    try:
        # the core validator: TypeAdapter.validate_python's own wrapper costs ~0.7 us
        return EVENT_ADAPTER.validator.validate_python(event)  # type: ignore[no-any-return]
    except ValidationError as e:
        err = e.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        raise EventRejected(
            "invalid_event", f"{loc or 'event'}: {err['msg']}", path=loc or None
        ) from None


def match_option(prompt: Prompt, option: str) -> str | None:
    """The option ``option`` names: exact (case-insensitive), a 1-based number, or a unique
    prefix."""
    text = option.strip().lower()
    for o in prompt.options:
        if o.lower() == text:
            return o
    if text.isdigit() and 1 <= int(text) <= len(prompt.options):
        return prompt.options[int(text) - 1]
    starts = [o for o in prompt.options if o.lower().startswith(text)] if text else []
    return starts[0] if len(starts) == 1 else None


def roller_state(roller: Roller) -> dict[str, Any]:
    version, internal, gauss = roller.rng.getstate()
    state: dict[str, Any] = {
        "kind": "scripted" if isinstance(roller, ScriptedRoller) else "random",
        "rng": [version, list(internal), gauss],
    }
    if isinstance(roller, ScriptedRoller):
        state["script"] = list(roller.script)
    return state


def roller_from_state(state: Mapping[str, Any]) -> Roller:
    roller: Roller
    if state.get("kind") == "scripted":
        roller = ScriptedRoller(state.get("script", []))
    else:
        roller = Roller()
    rng = state.get("rng")
    if rng:
        version, internal, gauss = rng
        roller.rng.setstate((version, tuple(internal), gauss))
    return roller


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def _without(items: list[Any], item: Any) -> list[Any]:
    """``items`` less the first ``item``, as a new list (``items`` itself when absent)."""
    if item not in items:
        return items
    out = list(items)
    out.remove(item)
    return out


def _check_move_length(ev: TokenMoved, cell: Cell) -> None:
    """A move crossing more than :data:`MAX_MOVE_CELLS` cells is refused: its triggers would
    walk every cell of it (a hostile payload's far-away waypoints)."""
    total, last = 0, ev.from_cell or cell
    for c in (*ev.path, ev.to_cell):
        total += max(abs(c.x - last.x), abs(c.y - last.y))
        last = c
    if total > MAX_MOVE_CELLS:
        raise EventRejected(
            "move_too_long",
            f"The move crosses {total} cells; at most {MAX_MOVE_CELLS} are accepted.",
            path="path" if ev.path else "to_cell",
        )


async def _call_quietly(cb: Callable[..., Any], *args: Any) -> None:
    """Subscribers' errors are logged, never propagated (Home Assistant's dispatcher rule)."""
    try:
        r = cb(*args)
        if r is not None and inspect.isawaitable(r):
            await r
    except Exception:
        log.exception("subscriber %r failed", cb)


def _suspended_at(task: asyncio.Task[Any], reg: Registered) -> tuple[str, int]:
    """Where a running callback is (its innermost frame in the script's file), for reports."""
    coro: Any = task.get_coro()
    file, line = reg.file, reg.line
    while coro is not None:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
        if frame is not None and frame.f_code.co_filename in (reg.file, reg.script.file):
            file, line = frame.f_code.co_filename, frame.f_lineno
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
    return file, line
