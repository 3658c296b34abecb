"""Routing an event: waiters, listeners, the follow-up (a chat line's command, a move's
position triggers, an action's triggers, a signal's conditions) and trigger firing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vttbridge.rules.geometry import Cell
from vttbridge.sdk.context import Context
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
from vttbridge.sdk.regions import path_xy
from vttbridge.sdk.runtime.supervisor import _Stepped
from vttbridge.sdk.script import (
    Condition,
    Listener,
    Registered,
    positional_count,
)
from vttbridge.sdk.triggers import Trigger
from vttbridge.sdk.world.model import Watch

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Route:
    """How ``_dispatch`` treats one event class (see ``WorldRuntime._route``)."""

    listeners: list[Listener]
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
``TokenMoved``, runs in ``_dispatch`` itself)."""


class Dispatcher:
    """Hands one event to whatever it concerns, in a fixed order (see
    :mod:`vttbridge.sdk.runtime`)."""

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
                self.answer_prompt(
                    ev.prompt, ev.option, player=None, role="gm", timed_out=ev.timed_out, event=ev
                )
                await self._settle()
            # the callbacks that ran may have (un)loaded a script
            route = self._routes.get(cls) or self._route(cls)

        for lst in route.listeners:
            if lst.token is not None and getattr(ev, "token", None) != lst.token:
                continue
            if lst.when is not None and not await self._check(lst, lst.when, ev):
                continue
            # a one-parameter callback never sees its context: don't make one
            args = (ev, Context(self, lst.script, ev)) if lst.nargs > 1 else (ev,)
            if lst.is_async:
                await self._invoke(lst, args)
            else:  # no coroutine for a plain function
                await self._call(lst, args, None)

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
                    self.derive(cmd)
            case ChatCommand():
                consumed = await self._fire_actions(ev, ev.name, None, ev.token)
                await self._run_command(ev, consumed)
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
        """Fire the triggers whose named condition ``ev`` satisfies (``_dispatch`` calls it for
        every event but a ``ConditionSignalled``, whose triggers its follow-up fires)."""
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
            return await self._check(cond, cond.fn, ev, ctx)
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

    async def _check(self, reg: Registered, pred: Callable[..., Any], ev: Any, *extra: Any) -> bool:
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
        guard = await self._guarded_off(reg, lambda: result.append(bool(pred(*args))))
        if guard.error is not None:
            self._report_error(reg, guard.error)
        return bool(result) and result[0] and not guard.interrupted


def _watch_owner(watch: Watch) -> str | None:
    # a Ready's watch saved before watches had an owner names him in its data
    return watch.owner if watch.owner is not None else watch.data.get("actor")
