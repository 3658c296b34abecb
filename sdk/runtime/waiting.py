"""Waiting: ``wait_for`` and ``sleep`` waiters, prompts (``ask`` and the rules' choices), their
timers and answers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vttbridge.sdk.clock import Handle
from vttbridge.sdk.context import Context
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
from vttbridge.sdk.script import (
    Script,
)
from vttbridge.sdk.world.model import Prompt
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
    """Suspends async callbacks until an event, a timeout or an answer resumes them."""

    # =============================================================================================
    async def wait_event(
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
        self.emit(
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
        self.derive(
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

    def close_prompt(self, pid: str, reason: str = "") -> None:
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
        self.emit(PostChat(text=f"Question {pid} withdrawn{note}", whisper_to=prompt.player))

    async def wait_prompt(self, pid: str) -> str:
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
            self.emit(
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
            self.derive(
                PromptAnswered(
                    prompt=pid, option=chosen, player=player, timed_out=timed_out, source="runtime"
                )
            )
        return chosen
