"""Waiting: ``wait_for`` and ``sleep`` waiters, prompts (``ask`` and the rules' choices), their
timers and answers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vttbridge.sdk.clock import Clock, Handle
from vttbridge.sdk.context import Context, WorldAccess
from vttbridge.sdk.effects import (
    AskPlayer,
    PostChat,
)
from vttbridge.sdk.errors import UsageError
from vttbridge.sdk.events import (
    BaseEvent,
    PromptAnswered,
    PromptOpened,
    TimerFired,
)
from vttbridge.sdk.runtime.consumer import Consumer
from vttbridge.sdk.runtime.registry import Registry
from vttbridge.sdk.runtime.step import CurrentStep
from vttbridge.sdk.runtime.supervisor import Supervisor
from vttbridge.sdk.script import (
    Script,
)
from vttbridge.sdk.world.model import Prompt, World
from vttbridge.sdk.world.validate import match_option


@dataclass(eq=False)
class _Waiter:
    id: str
    future: asyncio.Future[Any]
    task: asyncio.Task[Any] | None
    types: tuple[type[BaseEvent], ...]
    check: Callable[[Any], bool] | None
    script: Script | None
    timer: Handle | None = None


class Waiting:
    """Suspends async callbacks until an event, a timeout or an answer resumes them; keeps
    the world's prompts and their timers."""

    def __init__(
        self,
        world: World,
        clock: Clock,
        step: CurrentStep,
        consumer: Consumer,
        supervisor: Supervisor,
        registry: Registry,
        access: WorldAccess,
    ) -> None:
        self._world = world
        self._clock = clock
        self._step = step
        self._consumer = consumer
        self._supervisor = supervisor
        self._registry = registry
        self._access = access
        self._waiters: dict[str, _Waiter] = {}
        self._prompt_waiters: dict[str, _Waiter] = {}
        self._prompt_timers: dict[str, Handle] = {}

    @property
    def waiting(self) -> bool:
        """A callback waits in ``wait_for`` or ``sleep``."""
        return bool(self._waiters)

    async def wait_event(
        self,
        types: tuple[type[BaseEvent], ...],
        check: Callable[[Any], bool] | None,
        timeout: float | None,
        script: Script | None,
    ) -> Any:
        task = asyncio.current_task()
        if task is None or self._supervisor.callback_of(task) is None:
            raise RuntimeError("wait_for/sleep only work inside an async callback of this world")
        w = _Waiter(
            self._world.next_id("w"),
            asyncio.get_running_loop().create_future(),
            task,
            types,
            check,
            script,
        )
        self._waiters[w.id] = w
        if timeout is not None:
            w.timer = self._clock.call_later(
                timeout,
                lambda: self._consumer.enqueue_event(TimerFired(timer=w.id, source="runtime")),
            )
        self._supervisor.park(task)
        try:
            return await w.future
        finally:
            self._waiters.pop(w.id, None)
            if w.timer is not None:
                w.timer.cancel()

    def resolve(self, ev: BaseEvent) -> None:
        """Resume the callbacks waiting for an event like ``ev``."""
        for w in list(self._waiters.values()):
            if w.future.done() or not w.types or not isinstance(ev, w.types):
                continue
            if w.check is not None:
                reg = self._supervisor.callback_of(w.task)
                try:
                    ok = bool(w.check(ev))
                except Exception as e:
                    if reg is not None:
                        self._supervisor.report_error(reg, e)
                    ok = False
                if not ok:
                    continue
            w.future.set_result(ev)
            self._supervisor.unpark(w.task)

    def timer_fired(self, timer: str) -> None:
        """The timeout of waiter ``timer`` came: it gets a ``TimeoutError``."""
        w = self._waiters.get(timer)
        if w is None or w.future.done():
            return  # replayed after a restart, or already answered: nothing waits any more
        w.future.set_exception(TimeoutError(f"no matching event within the timeout ({timer})"))
        self._supervisor.unpark(w.task)

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
        if default not in options:
            default = options[0]
        timeout = self._world.settings.prompt_timeout if timeout is None else timeout
        timeout = timeout if timeout and timeout > 0 else None
        prompt = Prompt(
            id=self._world.next_id("p"),
            kind=kind,
            player=player,
            token=token,
            actor=actor if actor is not None else token,
            question=question,
            options=options,
            default=default,
            timeout=timeout,
            deadline=self._clock.now() + timeout if timeout else None,
            choice_id=choice_id,
            data=data or {},
            script=script,
        )
        self._world.prompts[prompt.id] = prompt
        self.arm(prompt)
        self._step.emit(
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
        self._step.derive(
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

    def arm(self, prompt: Prompt) -> None:
        """Start the timer that answers ``prompt`` with its default at its deadline."""
        if prompt.deadline is None or not self._consumer.open or prompt.id in self._prompt_timers:
            return
        pid, default = prompt.id, prompt.default
        self._prompt_timers[pid] = self._clock.call_later(
            prompt.deadline - self._clock.now(),
            lambda: self._consumer.enqueue_event(
                PromptAnswered(prompt=pid, option=default, timed_out=True, source="runtime")
            ),
        )

    def close_prompt(self, pid: str, reason: str = "") -> None:
        """Withdraw a prompt nobody needs any more (its rule state moved on); a script waiting
        on it gets its default."""
        prompt = self._world.prompts.pop(pid, None)
        if prompt is None:
            return
        timer = self._prompt_timers.pop(pid, None)
        if timer is not None:
            timer.cancel()
        waiter = self._prompt_waiters.get(pid)
        if waiter is not None and not waiter.future.done():
            waiter.future.set_result(prompt.default)
            self._supervisor.unpark(waiter.task)
        note = f": {reason}" if reason else ""
        self._step.emit(PostChat(text=f"Question {pid} withdrawn{note}", whisper_to=prompt.player))

    async def wait_prompt(self, pid: str) -> str:
        task = asyncio.current_task()
        if task is None or self._supervisor.callback_of(task) is None:
            raise RuntimeError("ask() only works inside an async callback of this world")
        w = _Waiter(pid, asyncio.get_running_loop().create_future(), task, (), None, None)
        self._prompt_waiters[pid] = w
        self._supervisor.park(task)
        try:
            return await w.future
        finally:
            self._prompt_waiters.pop(pid, None)

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
        or resolve the rules choice. Raises :class:`UsageError` for a bad answer."""
        prompt = self._world.prompts.get(pid)
        if prompt is None:
            raise UsageError(f"No pending question {pid!r}.")
        chosen = match_option(prompt, option)
        if chosen is None:
            raise UsageError(f"{option!r} is not one of: {', '.join(prompt.options)}.")
        if role != "gm" and prompt.player not in ("gm", player) and player is not None:
            raise UsageError(f"Question {pid} is for someone else.")
        if role != "gm" and prompt.player == "gm":
            raise UsageError(f"Question {pid} is for the GM.")
        del self._world.prompts[pid]
        timer = self._prompt_timers.pop(pid, None)
        if timer is not None:
            timer.cancel()
        if timed_out:
            who = (
                self._world.tokens[prompt.token].display
                if prompt.token in self._world.tokens
                else prompt.player
            )
            self._step.emit(
                PostChat(
                    text=f"No answer to {pid} ({who}): {chosen} (default).",
                    whisper_to=None if prompt.kind != "ask" else "gm",
                )
            )
        waiter = self._prompt_waiters.get(pid)
        if waiter is not None and not waiter.future.done():
            waiter.future.set_result(chosen)
            self._supervisor.unpark(waiter.task)
        elif (handler := self._registry.choice(prompt.kind)) is not None:
            ctx = Context(self._access, handler.script, event)
            self._step.derive_call(handler, (prompt, chosen, ctx))
        if event is None:
            self._step.derive(
                PromptAnswered(
                    prompt=pid, option=chosen, player=player, timed_out=timed_out, source="runtime"
                )
            )
        return chosen

    def drop_script(self, script: Script) -> None:
        """Forget the waiters of ``script`` (it is being unloaded; its tasks are cancelled)."""
        for w in [w for w in self._waiters.values() if w.script is script]:
            self._waiters.pop(w.id, None)

    def stop(self) -> None:
        """Disarm every timer and forget every waiter (the world stops; prompts stay in the
        world, re-armed at the next start)."""
        for h in self._prompt_timers.values():
            h.cancel()
        self._prompt_timers.clear()
        for w in list(self._waiters.values()):
            if w.timer:
                w.timer.cancel()
        self._waiters.clear()
        self._prompt_waiters.clear()
