"""The callback supervisor: every script callback runs here, plain or async, under the
world's ``script_budget`` (plain ones and each step of an async one under the watchdog,
:mod:`vttbridge.sdk.watchdog`); what fails or overruns is reported to the GM, never raised.

It owns the async callbacks' tasks: those running (and since when), those parked (waiting in
``wait_for``, ``sleep`` or ``ask``), and which callback each task runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Generator
from pathlib import Path
from typing import Any

from vttbridge.rules.outcome import RuleError
from vttbridge.sdk.effects import PostChat
from vttbridge.sdk.errors import UsageError
from vttbridge.sdk.events import ChatCommand, ScriptFailed
from vttbridge.sdk.loader import error_line
from vttbridge.sdk.runtime.refusals import Refusals
from vttbridge.sdk.runtime.step import CurrentStep
from vttbridge.sdk.script import CommandHandler, Listener, Registered, Script, positional_count
from vttbridge.sdk.watchdog import CallbackThread, Guard, watchdog
from vttbridge.sdk.world import World

log = logging.getLogger(__name__)

Overrun = Callable[[Guard], None]


class Supervisor:
    """Invokes callbacks, tracks the async ones (running, parked) and reports failures."""

    def __init__(
        self,
        world_id: str,
        world: World,
        step: CurrentStep,
        refusals: Refusals,
        callbacks: CallbackThread | None = None,
    ) -> None:
        """``callbacks``: the world's own thread for plain callbacks (a host of many worlds
        gives one, so that a callback that blocks holds up only its own world); None runs them
        on the event loop's thread."""
        self._world_id = world_id
        self._callbacks = callbacks
        self._world = world
        self._refusals = refusals
        self._step = step
        self._running: dict[asyncio.Task[Any], tuple[Registered, float]] = {}
        self._parked: dict[asyncio.Task[Any], Registered] = {}
        self._tasks: dict[asyncio.Task[Any], Registered] = {}
        self._wake: asyncio.Future[None] | None = None
        self.on_overrun: Overrun | None = None
        """Called from the watchdog's thread when a plain script callback runs past its budget
        (the world's thread is still inside it)."""

    # -- state -------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        """An async callback can run now (it is not waiting for an event or an answer)."""
        return bool(self._running)

    @property
    def alive(self) -> bool:
        """An async callback lives in memory, running or parked."""
        return bool(self._running or self._parked)

    def callback_of(self, task: asyncio.Task[Any] | None) -> Registered | None:
        """The callback ``task`` runs, if it is one of this world's."""
        return self._tasks.get(task) if task is not None else None

    # -- running callbacks -------------------------------------------------------------------
    async def invoke(
        self,
        reg: Registered,
        args: tuple[Any, ...],
        *,
        command: ChatCommand | None = None,
        then: Callable[[], None] | None = None,
    ) -> None:
        """Run ``reg`` with ``args`` (cut to what it takes): a plain callback now, an async
        one as a task, settled before this returns unless it waits. ``then`` runs once the
        callback returned without an error (a command's cost is spent)."""
        if reg.is_async:
            call_args = args[: reg.nargs] if reg.nargs < len(args) else args
            task = asyncio.create_task(self._run_async(reg, call_args, command, then))
            self._tasks[task] = reg
            self._running[task] = (reg, time.perf_counter())
            task.add_done_callback(self._task_done)
            await self.settle()
            return
        if await self.call(reg, args, command) and then is not None:
            then()

    async def call(
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
                self._failed(reg, e, command)
                return False
            return True
        guard = await self.guarded_off(reg, reg.fn, call_args)
        error = guard.take_error()
        if error is not None:
            self._failed(reg, error, command)
        if guard.interrupted and command is not None and (command.player or "gm") != "gm":
            self._step.emit(
                PostChat(
                    text=f"!{command.name} took too long and was stopped; the GM has been told.",
                    whisper_to=command.player,
                )
            )
        return error is None and not guard.interrupted

    async def guarded_off(
        self, reg: Registered, fn: Callable[..., Any], args: tuple[Any, ...] = ()
    ) -> Guard:
        """:meth:`guarded`, in the world's callback thread when it has one."""
        if self._callbacks is None:
            return self.guarded(reg, fn, args)
        budget = self._world.settings.script_budget
        files = (reg.file, reg.script.file or "")
        guard = await self._callbacks.call(fn, args, budget, files, self.on_overrun)
        return self._reported(reg, guard)

    def guarded(self, reg: Registered, fn: Callable[..., Any], args: tuple[Any, ...] = ()) -> Guard:
        """``fn(*args)`` under the watchdog, on this thread; an overrun is reported where it
        was running."""
        budget = self._world.settings.script_budget
        guard = watchdog().call(
            fn, args, budget, (reg.file, reg.script.file or ""), self.on_overrun
        )
        return self._reported(reg, guard)

    def _reported(self, reg: Registered, guard: Guard) -> Guard:
        budget = self._world.settings.script_budget
        if guard.overran or guard.elapsed > budget:
            file, line = guard.where or (reg.file, reg.line)
            if guard.interrupted:
                what = f"ran past its {self.budget_text()} budget and was stopped"
            else:  # report-only (not the main thread), or it ended before the watchdog looked
                what = f"took {guard.elapsed:.1f} s, past its {self.budget_text()} budget"
            self.report(reg, what, file, line)
        return guard

    async def check(self, reg: Registered, pred: Callable[..., Any], ev: Any, *extra: Any) -> bool:
        """Run a predicate of ``reg`` (a listener's ``when``, a plain condition); one that
        raises or overruns counts as false and is reported."""
        if extra:  # the arity decides nothing with a single argument
            args = (ev, *extra)
            args = args[: max(1, min(positional_count(pred), len(args)))]
        else:
            args = (ev,)
        if reg.script.trusted:
            try:
                return bool(pred(*args))
            except Exception as e:
                self.report_error(reg, e)
                return False
        result: list[bool] = []
        guard = await self.guarded_off(reg, lambda: result.append(bool(pred(*args))))
        error = guard.take_error()
        if error is not None:
            self.report_error(reg, error)
        return bool(result) and result[0] and not guard.interrupted

    def watched(self, reg: Registered, coro: Coroutine[Any, Any, Any]) -> Awaitable[Any]:
        """Await ``coro`` (an async callback of ``reg``) one step at a time under the watchdog,
        unless its script is trusted."""
        return coro if reg.script.trusted else _Stepped(self, reg, coro)

    async def _run_async(
        self,
        reg: Registered,
        args: tuple[Any, ...],
        command: ChatCommand | None,
        then: Callable[[], None] | None,
    ) -> None:
        try:
            await self.watched(reg, reg.fn(*args))
        except asyncio.CancelledError:
            raise
        except Exception as e:
            self._failed(reg, e, command)
            return
        if then is not None:
            then()

    # -- reports -----------------------------------------------------------------------------
    def _failed(self, reg: Registered, e: Exception, command: ChatCommand | None) -> None:
        emit = self._step.emit
        if command is not None:
            reply_to = command.player or "gm"
            if isinstance(e, UsageError):
                usage = reg.usage if isinstance(reg, CommandHandler) else ""
                msg = f"{e} " if str(e) else ""
                emit(PostChat(text=f"{msg}Usage: {usage}".strip(), whisper_to=reply_to))
                return
            if isinstance(e, RuleError):
                self._refusals.tell(e, reply_to)
                return
            self.report_error(reg, e)
            if reply_to != "gm":
                emit(
                    PostChat(
                        text=f"!{command.name} failed; the GM has been told.", whisper_to=reply_to
                    )
                )
            return
        if isinstance(e, RuleError):  # a rule refused what a listener asked: the GM decides
            self._refusals.tell(e, "gm", f"{reg.script.name}: {e.message}")
            return
        self.report_error(reg, e)

    def report_error(self, reg: Registered, e: BaseException) -> None:
        """Tell the GM (and the log) that a callback of ``reg`` raised ``e``."""
        file = reg.script.file or reg.file
        line = error_line(e, reg.file) or error_line(e, file) or reg.line
        where = reg.file if error_line(e, reg.file) else file
        self.report(reg, f"raised {type(e).__name__}: {e}", where, line, exc=e)

    def report(
        self, reg: Registered, what: str, file: str, line: int, exc: BaseException | None = None
    ) -> None:
        """Tell the GM (and the log) ``what`` a callback of ``reg`` did at ``file:line``; in a
        step, a :class:`ScriptFailed` follows for scripts that watch failures."""
        fname = Path(file).name if file else "?"
        fn = getattr(reg.fn, "__name__", "callback")
        text = f"⚠ Script {reg.script.name} ({fname}:{line}, in {fn}) {what}"
        log.error(
            "world %s: %s [%s:%s]",
            self._world_id,
            text,
            file,
            line,
            exc_info=(type(exc), exc, exc.__traceback__) if exc else None,
        )
        self._step.emit(PostChat(text=text, whisper_to="gm"))
        # in a step only (a failure is always one's); a failing ScriptFailed listener must
        # not loop
        if self._step.step is not None and not _hears_failures(reg):
            self._step.derive(
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

    def budget_text(self) -> str:
        return f"{self._world.settings.script_budget:g} s"

    # -- async callbacks ---------------------------------------------------------------------
    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._running.pop(task, None)
        self._parked.pop(task, None)
        self._tasks.pop(task, None)
        self._signal()

    def _signal(self) -> None:
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)

    def park(self, task: asyncio.Task[Any]) -> None:
        """``task`` waits (for an event, a timeout, an answer): :meth:`settle` no longer
        waits for it."""
        entry = self._running.pop(task, None)
        reg = entry[0] if entry else self._tasks.get(task)
        if reg is not None:
            self._parked[task] = reg
        self._signal()

    def unpark(self, task: asyncio.Task[Any] | None) -> None:
        """What ``task`` waited for has come: it runs again, with a fresh budget."""
        if task is None:
            return
        reg = self._parked.pop(task, None) or self._tasks.get(task)
        if reg is not None and not task.done():
            self._running[task] = (reg, time.perf_counter())

    async def settle(self) -> None:
        """Let runnable async callbacks run until each has finished or is waiting; one that
        runs past the budget is cancelled and reported, the world goes on."""
        loop = asyncio.get_running_loop()
        budget = self._world.settings.script_budget
        while self._running:
            now = time.perf_counter()
            overdue = [t for t, (_, since) in self._running.items() if now - since >= budget]
            for task in overdue:
                reg = self._running.pop(task)[0]
                file, line = _suspended_at(task, reg)
                self.report(
                    reg, f"ran past its {self.budget_text()} budget and was stopped", file, line
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

    def cancel_script(self, script: Script) -> None:
        """Cancel the async callbacks of ``script`` (it is being unloaded)."""
        for task, reg in list(self._tasks.items()):
            if reg.script is script:
                task.cancel()
                self._running.pop(task, None)
                self._parked.pop(task, None)

    async def cancel_all(self) -> None:
        """Cancel every async callback and wait for them to end (the world stops)."""
        tasks = list(self._tasks)
        for t in tasks:
            t.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        self._running.clear()
        self._parked.clear()
        self._tasks.clear()


class _Stepped(Generator[Any, Any, Any]):
    """Awaits an async script callback one step at a time under the watchdog: a step that
    never reaches an ``await`` (``while True: pass`` in an ``async def``) is stopped like a
    plain callback. Also what :func:`_suspended_at` walks through (``cr_await``)."""

    __slots__ = ("coro", "reg", "supervisor")

    def __init__(self, supervisor: Supervisor, reg: Registered, coro: Any) -> None:
        self.supervisor, self.reg, self.coro = supervisor, reg, coro

    def __await__(self) -> Generator[Any, Any, Any]:
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
        guard = self.supervisor.guarded(self.reg, lambda: out.append(fn(arg)))
        if guard.interrupted:  # reported; the callback ends there
            self.coro.close()
            raise StopIteration(None)
        error = guard.take_error()
        if error is not None:
            try:
                raise error  # StopIteration: the callback returned
            finally:
                error = None  # its traceback holds this frame: no cycle through the local
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
