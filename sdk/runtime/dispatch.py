"""Routing an event: waiters, listeners, the follow-up (a chat line's command, a move's
position triggers, an action's triggers, a signal's conditions) and trigger firing.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from vttbridge.rules.geometry import Cell
from vttbridge.sdk.context import Context, WorldAccess
from vttbridge.sdk.events import (
    ActionDeclared,
    BaseEvent,
    ChatCommand,
    ChatMessage,
    ConditionSignalled,
    PromptAnswered,
    TimerFired,
    TokenMoved,
)
from vttbridge.sdk.runtime.commands import CommandRunner
from vttbridge.sdk.runtime.moves import Movement
from vttbridge.sdk.runtime.registry import Registry
from vttbridge.sdk.runtime.step import CurrentStep
from vttbridge.sdk.runtime.supervisor import Supervisor
from vttbridge.sdk.runtime.waiting import Waiting
from vttbridge.sdk.script import Condition
from vttbridge.sdk.triggers import Trigger, cell_levels
from vttbridge.sdk.world import World
from vttbridge.sdk.world.model import Watch

log = logging.getLogger(__name__)


@dataclass(slots=True, frozen=True)
class _Kind:
    """What :meth:`Dispatcher.dispatch` does with one event class besides its listeners."""

    before: bool
    """A TimerFired or PromptAnswered: resolves a waiter or prompt before the listeners."""
    after: type[BaseEvent] | None
    """The first of ``_FOLLOW_UPS`` the class is, for what follows the listeners."""


_FOLLOW_UPS: tuple[type[BaseEvent], ...] = (
    ChatMessage,
    ChatCommand,
    TokenMoved,
    ActionDeclared,
    ConditionSignalled,
)
"""In the order of ``_follow_up``'s cases, so the first match is the case that runs (a move's,
``TokenMoved``, runs in ``dispatch`` itself)."""


class Dispatcher:
    """Hands one event to whatever it concerns, in a fixed order (see
    :mod:`vttbridge.sdk.runtime`)."""

    def __init__(
        self,
        world: World,
        step: CurrentStep,
        registry: Registry,
        supervisor: Supervisor,
        waiting: Waiting,
        movement: Movement,
        commands: CommandRunner,
        access: WorldAccess,
    ) -> None:
        self._world = world
        self._step = step
        self._registry = registry
        self._supervisor = supervisor
        self._waiting = waiting
        self._index = movement.index
        self._commands = commands
        self._access = access
        self._kinds: dict[type, _Kind] = {}

    async def dispatch(self, ev: BaseEvent) -> None:
        """Hand ``ev`` to its waiters, listeners and follow-up, and fire what it triggers."""
        cls = type(ev)
        kind = self._kinds.get(cls) or self._kind(cls)
        supervisor, waiting = self._supervisor, self._waiting
        if kind.before or waiting.waiting:
            if waiting.waiting:
                waiting.resolve(ev)
                await supervisor.settle()
            if isinstance(ev, TimerFired):
                waiting.timer_fired(ev.timer)
                await supervisor.settle()
            elif isinstance(ev, PromptAnswered) and ev.prompt in self._world.prompts:
                waiting.answer_prompt(
                    ev.prompt, ev.option, player=None, role="gm", timed_out=ev.timed_out, event=ev
                )
                await supervisor.settle()

        # read after the waiters: the callbacks that ran may have (un)loaded a script
        for lst in self._registry.listeners(cls, self._world.encounter.options.system):
            if lst.token is not None and getattr(ev, "token", None) != lst.token:
                continue
            if lst.when is not None and not await supervisor.check(lst, lst.when, ev):
                continue
            # a one-parameter callback never sees its context: don't make one
            args = (ev, Context(self._access, lst.script, ev)) if lst.nargs > 1 else (ev,)
            if lst.is_async:
                await supervisor.invoke(lst, args)
            else:  # no coroutine for a plain function
                await supervisor.call(lst, args, None)

        after = kind.after
        if after is TokenMoved:
            if self._index.covers_cells():  # else no move can enter anything
                await self._fire_positions(ev)  # type: ignore[arg-type]
        elif after is not None:
            await self._follow_up(ev)
        if after is not ConditionSignalled and self._index.condition_names():
            await self._fire_conditions(ev)

    def _kind(self, cls: type) -> _Kind:
        """What ``dispatch`` does with events of ``cls`` besides the listeners, cached per
        class (the ``isinstance`` tests, ~70 ns each against a pydantic class, answered
        once)."""
        kind = self._kinds[cls] = _Kind(
            before=issubclass(cls, (TimerFired, PromptAnswered)),
            after=next((t for t in _FOLLOW_UPS if issubclass(cls, t)), None),
        )
        return kind

    async def _follow_up(self, ev: BaseEvent) -> None:
        """What an event does after its listeners: a chat line may be a command, a command
        runs, an action fires triggers, a signal fires its conditions' triggers (a move's
        position triggers are fired by ``_dispatch``)."""
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
                    self._step.derive(cmd)
            case ChatCommand():
                consumed = await self._fire_actions(ev, ev.name, None, ev.token)
                await self._commands.run(ev, consumed)
            case ActionDeclared():
                await self._fire_actions(ev, ev.action, ev.phase, ev.token)
            case ConditionSignalled():
                for trig in self._index.conditions(ev.condition):
                    if trig.spec.accepts(ev.token):
                        await self._fire(trig, ev)
            case _:
                pass

    async def _fire_positions(self, ev: TokenMoved) -> None:
        tok = self._world.tokens.get(ev.token)
        if tok is None or tok.cell != ev.to_cell:
            return  # a listener moved it back (an illegal move reverted): nothing was entered
        start = ev.from_cell
        pts = ev.waypoints(start)
        if len(pts) < 2:
            return
        levels = ev.point_levels(len(pts), tok.level) if tok.level or ev.levels else None
        for trig, xy in self._index.entered(ev.token, *cell_levels(pts, levels)):
            if trig.id in self._index.triggers:  # an earlier handler may have removed it
                await self._fire(trig, ev, cell=Cell(x=xy[0], y=xy[1]))

    async def _fire_actions(
        self, ev: BaseEvent, name: str, phase: str | None, token: str | None
    ) -> bool:
        fired = False
        for trig in self._index.actions(name):
            spec = trig.spec
            if phase is not None and spec.phase is not None and spec.phase != phase:
                continue
            if not spec.accepts(token) or trig.id not in self._index.triggers:
                continue
            fired = True
            await self._fire(trig, ev)
        return fired

    async def _fire_conditions(self, ev: BaseEvent) -> None:
        """Fire the triggers whose named condition ``ev`` satisfies (``_dispatch`` calls it for
        every event but a ``ConditionSignalled``, whose triggers its follow-up fires)."""
        token = getattr(ev, "token", None)
        for name in list(self._index.condition_names()):
            cond = self._registry.condition(name)
            if cond is None or not isinstance(ev, cond.types):
                continue
            # decided once per owner (whose Ready it is); a condition without a ctx cannot
            # tell owners apart, so it is decided once
            verdicts: dict[str | None, bool] = {}
            for trig in self._index.conditions(name):
                if trig.id not in self._index.triggers or not trig.spec.accepts(token):
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
        ctx = Context(self._access, cond.script, ev, owner=owner)
        supervisor = self._supervisor
        if not cond.is_async:
            return await supervisor.check(cond, cond.fn, ev, ctx)
        budget = self._world.settings.script_budget
        try:
            result = cond.fn(*(ev, ctx)[: max(1, min(cond.nargs, 2))])
            return bool(await asyncio.wait_for(supervisor.watched(cond, result), budget))
        except TimeoutError:
            supervisor.report(
                cond, f"ran past its {supervisor.budget_text()} budget", cond.file, cond.line
            )
        except Exception as e:
            supervisor.report_error(cond, e)
        return False

    def _trigger_owner(self, trig: Trigger) -> str | None:
        watch = self._world.watches.get(trig.watch) if trig.watch is not None else None
        return _watch_owner(watch) if watch is not None else None

    async def _fire(self, trig: Trigger, ev: BaseEvent, cell: Cell | None = None) -> None:
        region = getattr(trig.spec, "region", None)
        if trig.watch is None:
            reg = trig.handler
            ctx = Context(self._access, reg.script, ev, cell=cell, region=region)
            await self._supervisor.invoke(reg, (ev, ctx))
            return
        watch = self._world.watches.get(trig.watch)
        if watch is None:
            return
        handler = self._registry.watch_handler(watch.script, watch.handler)
        if handler is None:
            log.warning("watch %s: no handler %s.%s loaded", watch.key, watch.script, watch.handler)
            return
        ctx = Context(
            self._access,
            handler.script,
            ev,
            cell=cell,
            region=region,
            watch=watch,
            owner=_watch_owner(watch),
        )
        await self._supervisor.invoke(handler, (ev, ctx))


def _watch_owner(watch: Watch) -> str | None:
    # a Ready's watch saved before watches had an owner names him in its data
    return watch.owner if watch.owner is not None else watch.data.get("actor")
