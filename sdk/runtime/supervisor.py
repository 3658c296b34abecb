"""The callback supervisor: every script callback runs here, plain or async, under the
world's ``script_budget`` (plain ones and each step of an async one under the watchdog,
:mod:`vttbridge.sdk.watchdog`); what fails or overruns is reported to the GM, never raised.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vttbridge.rules.outcome import RuleError
from vttbridge.sdk import economy
from vttbridge.sdk.effects import (
    PostChat,
)
from vttbridge.sdk.errors import UsageError
from vttbridge.sdk.events import (
    ChatCommand,
    ScriptFailed,
)
from vttbridge.sdk.loader import error_line
from vttbridge.sdk.script import Listener, Registered
from vttbridge.sdk.watchdog import CallbackThread, Guard, watchdog

if TYPE_CHECKING:
    from vttbridge.sdk.runtime import WorldRuntime

log = logging.getLogger(__name__)


class Supervisor:
    """Invokes callbacks, tracks the async ones (running, parked) and reports failures."""

    callbacks: CallbackThread | None

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
        if await self._call(reg, args, command) and bill is not None and command is not None:
            self._pay(bill, command)

    async def _call(
        self, reg: Registered, args: tuple[Any, ...], command: ChatCommand | None
    ) -> bool:
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
        guard = await self._guarded_off(reg, reg.fn, call_args)
        if guard.error is not None:
            self._callback_failed(reg, guard.error, command)
        if guard.interrupted and command is not None and (command.player or "gm") != "gm":
            self.emit(
                PostChat(
                    text=f"!{command.name} took too long and was stopped; the GM has been told.",
                    whisper_to=command.player,
                )
            )
        return guard.error is None and not guard.interrupted

    async def _guarded_off(
        self, reg: Registered, fn: Callable[..., Any], args: tuple[Any, ...] = ()
    ) -> Guard:
        """:meth:`_guarded`, in the world's callback thread when it has one (the bridge's
        worlds: a callback that blocks holds up only its own world)."""
        if self.callbacks is None:
            return self._guarded(reg, fn, args)
        guard = await self.callbacks.call(
            fn, args, self.world.settings.script_budget, (reg.file, reg.script.file or ""),
            self.on_overrun,
        )  # fmt: skip
        return self._reported(reg, guard)

    def _guarded(
        self, reg: Registered, fn: Callable[..., Any], args: tuple[Any, ...] = ()
    ) -> Guard:
        """``fn(*args)`` under the watchdog; an overrun is reported where it was running."""
        guard = watchdog().call(
            fn, args, self.world.settings.script_budget, (reg.file, reg.script.file or ""),
            self.on_overrun,
        )  # fmt: skip
        return self._reported(reg, guard)

    def _reported(self, reg: Registered, guard: Guard) -> Guard:
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
                self.emit(PostChat(text=f"{msg}Usage: {usage}".strip(), whisper_to=reply_to))
                return
            if isinstance(e, RuleError):
                self.emit(PostChat(text=e.message, whisper_to=reply_to))
                return
            self._report_error(reg, e)
            if reply_to != "gm":
                self.emit(
                    PostChat(
                        text=f"!{command.name} failed; the GM has been told.", whisper_to=reply_to
                    )
                )
            return
        if isinstance(e, RuleError):  # a rule refused what a listener asked: the GM decides
            self.emit(PostChat(text=f"{reg.script.name}: {e.message}", whisper_to="gm"))
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
        self.emit(PostChat(text=text, whisper_to="gm"))
        # in a step only (a failure is always one's); a failing ScriptFailed listener must
        # not loop
        if self._step is not None and not _hears_failures(reg):
            self.derive(
                ScriptFailed(
                    script=reg.script.name,
                    callback=fn,
                    reason=what,
                    error=type(exc).__name__ if exc is not None else None,
                    file=file,
                    line=line,
                    source="runtime",
                )
            )

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


def _hears_failures(reg: Registered) -> bool:
    """``reg`` listens to :class:`ScriptFailed` (or to every event)."""
    return isinstance(reg, Listener) and any(issubclass(ScriptFailed, t) for t in reg.types)
