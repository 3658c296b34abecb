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

The runtime is a package, one concept a module; :class:`WorldRuntime` puts them together:

- :mod:`vttbridge.sdk.runtime.consumer`: the queue, the lock, one step per event;
- :mod:`vttbridge.sdk.world.validate` and :mod:`vttbridge.sdk.world.ingest`: what is accepted, and
  the world's own bookkeeping for it (they live with the world model);
- :mod:`vttbridge.sdk.runtime.moves`: moves judged before they are applied, regions, watches;
- :mod:`vttbridge.sdk.runtime.dispatch`: routing an event to waiters, listeners and triggers;
- :mod:`vttbridge.sdk.runtime.commands`: running a chat command, its cost included;
- :mod:`vttbridge.sdk.runtime.supervisor`: running callbacks under the budget and the watchdog;
- :mod:`vttbridge.sdk.runtime.waiting`: ``wait_for``, ``sleep``, prompts and their timers;
- :mod:`vttbridge.sdk.runtime.outcomes`: applying rule outcomes, writing rules-owned values back;
- :mod:`vttbridge.sdk.runtime.scripts`: loading, unloading and reloading scripts;
- :mod:`vttbridge.sdk.runtime.snapshot`: snapshot, restore and the state view.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from vttbridge.rules.dice import Roller
from vttbridge.rules.options import Options
from vttbridge.sdk.clock import Clock, Handle, SystemClock
from vttbridge.sdk.effects import Effect
from vttbridge.sdk.errors import EventRejected
from vttbridge.sdk.events import Event
from vttbridge.sdk.loader import ScriptSource, entry_point_sources, scripts_of_object
from vttbridge.sdk.runtime.commands import CommandRunner
from vttbridge.sdk.runtime.consumer import MAX_DERIVED, Consumer, _Step
from vttbridge.sdk.runtime.dispatch import Dispatcher, _Route
from vttbridge.sdk.runtime.moves import Movement
from vttbridge.sdk.runtime.outcomes import OutcomeApplier
from vttbridge.sdk.runtime.scripts import ScriptRegistry, _Loaded, builtin_scripts
from vttbridge.sdk.runtime.snapshot import (
    SNAPSHOT_FORMAT,
    Snapshots,
    roller_from_state,
    roller_state,
)
from vttbridge.sdk.runtime.supervisor import Supervisor
from vttbridge.sdk.runtime.waiting import Waiting, _Waiter
from vttbridge.sdk.script import (
    ChoiceHandler,
    CommandHandler,
    Condition,
    Listener,
    MoveJudge,
    Registered,
    Script,
    WatchHandler,
)
from vttbridge.sdk.triggers import TriggerIndex
from vttbridge.sdk.watchdog import CallbackThread, Guard
from vttbridge.sdk.world import World, WorldSettings
from vttbridge.sdk.world.validate import MAX_MOVE_CELLS, match_option, parse_event

log = logging.getLogger(__name__)

JournalCallback = Callable[[Event, list[Effect]], Awaitable[None] | None]
"""``callback(event, effects)``: sync or async; the consumer awaits it before the next event."""
EffectsCallback = Callable[[list[Effect]], Awaitable[None] | None]

__all__ = [
    "MAX_DERIVED",
    "MAX_MOVE_CELLS",
    "SNAPSHOT_FORMAT",
    "EffectsCallback",
    "EventRejected",
    "JournalCallback",
    "WorldRuntime",
    "match_option",
    "parse_event",
    "roller_from_state",
    "roller_state",
]


class WorldRuntime(
    Consumer,
    Dispatcher,
    CommandRunner,
    Supervisor,
    Waiting,
    OutcomeApplier,
    Movement,
    ScriptRegistry,
    Snapshots,
):
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
        files. A file is imported once per process and shared (:mod:`vttbridge.sdk.script_host`); it
        reloads when it changes while the world runs, unless ``reload_interval`` is None (any
        other value turns watching on: the OS's file events say when). ``entry_points=True``
        also loads the ``vttbridge.scripts`` entry point group; a host of many worlds passes
        what :func:`vttbridge.sdk.loader.entry_point_sources` found once instead (a scan reads every
        installed package's metadata). ``builtins=False`` leaves out the built-in rule
        handlers. ``clock`` drives prompt and ``wait_for`` timeouts (tests pass a
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
        self.roller: Roller = roller or Roller()
        self.clock: Clock = clock or SystemClock()
        self.reload_interval = reload_interval
        self.callbacks = CallbackThread(world_id) if callback_thread else None
        """Where plain script callbacks run, when not on the event loop."""
        self.on_overrun: Callable[[Guard], None] | None = None
        """Called from the watchdog's thread when a plain script callback runs past its budget
        (the world's thread is still inside it): the bridge marks the event suspect."""

        self._queue: asyncio.Queue[tuple[Any, asyncio.Future[Any] | None]] | None = None
        self._lock = asyncio.Lock()
        self._consumer: asyncio.Task[None] | None = None
        self._journal: list[JournalCallback] = []
        self._effect_subs: list[EffectsCallback] = []
        self._step: _Step | None = None

        # registrations, rebuilt from the loaded scripts
        self._loaded: dict[str, _Loaded] = {}
        self._scripts: dict[str, Script] = {}
        self._listeners: list[Listener] = []
        self._routes: dict[type, _Route] = {}
        self._commands: dict[str, CommandHandler] = {}
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
            for script in builtin_scripts():
                self._add_loaded(_Loaded([script], ScriptSource("builtin", script.name)))
        for src in scripts:
            self.load_script(src)
        if entry_points:
            found = entry_point_sources() if entry_points is True else entry_points
            for name, obj in found:
                try:
                    self._add_loaded(
                        _Loaded(scripts_of_object(obj, name), ScriptSource("entry_point", name))
                    )
                except Exception as e:  # a broken plug-in must not keep the world down
                    log.error("script entry point %s failed to load: %s", name, e)
        for key, w in self.world.watches.items():
            self._index_watch(key, w)

    # =============================================================================================
    @property
    def running(self) -> bool:
        return self._consumer is not None and not self._consumer.done()

    @property
    def waiting(self) -> bool:
        """An async callback lives in memory: running, parked, or suspended in ``wait_for``
        with its timer. Unloading the world now would lose it."""
        return bool(self._running or self._parked or self._waiters)

    @property
    def lock(self) -> asyncio.Lock:
        """Held while one event (or job) is processed; FIFO, so waiting holders go in arrival
        order. Hold it to read or change the world between events, and to call
        :meth:`process`."""
        return self._lock

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


def _without(items: list[Any], item: Any) -> list[Any]:
    """``items`` less the first ``item``, as a new list (``items`` itself when absent)."""
    if item not in items:
        return items
    out = list(items)
    out.remove(item)
    return out
