"""The watchdog of plain (not async) script callbacks: one that runs past its budget is
interrupted, wherever it is — a busy loop (``while True: pass``) or a blocking call
(``time.sleep(3)``) — and the world goes on. The runtime also runs each step of an async
callback under it (:meth:`vttbridge.sdk.runtime.supervisor.Supervisor.watched`): a step that
never reaches an ``await`` is stopped the same way.

How: the runtime *arms* the watchdog around each callback (two attribute writes, no lock, no
wake-up of any thread). One daemon thread per process looks every :data:`POLL` seconds at
what is armed; past its deadline it

1. samples where the callback is running (``sys._current_frames``: the file and line in the
   script, for the GM's report) and calls the callback's ``on_overrun`` hook once (the bridge
   marks the event *suspect* in its database then, see ``adapters/bridge/worldhost.py``);
2. interrupts it: a signal sent to the thread running it (``signal.pthread_kill``) whose
   handler raises :class:`ScriptTimeout` in that thread. A real signal also ends a blocking
   ``sleep``, ``select`` or lock wait, which ``PyThreadState_SetAsyncExc`` cannot. The
   signal is repeated every :data:`POLL` seconds while the callback stays armed (one that
   swallows the first interrupt gets the next).

No maintained library does this for code that must stay on the thread running it: stopit
(last release 2018) and timeout-decorator (2020) use ``SIGALRM``, which pytest-timeout and
``signal.alarm`` users own, and func-timeout / wrapt-timeout-decorator run the function in
another thread or process, where it could not touch the world.

A callback running in another thread (the socket bridge runs each world's plain callbacks
in a thread of that world's, :class:`CallbackThread`, so that one world's blocking script
never holds up the others) is interrupted by an asynchronous exception instead
(``PyThreadState_SetAsyncExc``), which Python raises at that thread's next bytecode: a busy
loop stops at once; a blocking call (``time.sleep``, a slow read) cannot be ended from
outside, so the world stops *waiting* for it at its budget (:meth:`CallbackThread.call`) and
goes on, and the callback ends with the exception as soon as its call returns, without
running another line of the script.

Limits, by design:

- Python delivers signals only to its main thread. A runtime running elsewhere in an
  embedding host's thread, not through :class:`CallbackThread`, gets *report-only* mode for
  a blocking call: the overrun is sampled, reported (with the line) and marked suspect, but
  the callback runs to its end.
- A signal handler runs between bytecodes: a single long call into C (``sum(range(10**12))``,
  a huge regex) is interrupted only when it returns.
- ``ScriptTimeout`` derives from ``BaseException`` (as ``KeyboardInterrupt`` does), so a
  script's ``except Exception`` does not swallow it; a bare ``except:`` in a loop can, and
  then the callback keeps the thread until it returns: the event is then quarantined at the
  next start (see ``adapters/bridge/worldhost.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

log = logging.getLogger(__name__)

POLL = 0.05
"""Seconds between the watchdog thread's looks: an overrun is caught at most this late."""
SIGNAL = signal.SIGUSR1
"""The signal that interrupts a callback (``SIGALRM`` belongs to pytest-timeout and alarm())."""


class ScriptTimeout(BaseException):
    """Raised inside a callback the watchdog interrupted."""


@dataclass(eq=False)
class Guard:
    """One armed callback."""

    deadline: float
    """When its budget runs out (``time.perf_counter``); the budget itself until it runs."""
    files: tuple[str, ...]
    """The script's files: where to look in the stack for the line it is running."""
    on_overrun: Callable[[Guard], None] | None = None
    thread: int = field(default_factory=threading.get_ident)
    started: float = 0.0
    where: tuple[str, int] | None = None
    """File and line the callback was running when its budget ran out (sampled)."""
    overran: bool = False
    interrupted: bool = False
    error: Exception | None = None
    """What the callback raised."""
    result: Any = None
    """What it returned."""
    elapsed: float = 0.0

    def take_error(self) -> Exception | None:
        """:attr:`error`, forgotten here: its traceback leads back to the frame that ran the
        callback, which holds this guard (a reference cycle at every failed callback, left for
        the collector unless the caller takes it)."""
        error, self.error = self.error, None
        return error


class Watchdog:
    """Arms and watches plain callbacks; see the module's docstring. One per process:
    :func:`watchdog`."""

    def __init__(self, poll: float = POLL) -> None:
        self.poll = poll
        self._active: Guard | None = None
        """The guard armed on the main thread (read without a lock: two attribute writes a
        callback)."""
        self._elsewhere: dict[int, Guard] = {}
        """Guards armed on other threads, by thread id; with :attr:`_lock` held, a guard in
        here is one whose thread may be sent an asynchronous exception."""
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._main = threading.main_thread().ident
        self._handler_installed = False
        self._can_signal = hasattr(signal, "pthread_kill")

    # -- the thread running callbacks ---------------------------------------------------------
    def call(
        self,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        budget: float,
        files: tuple[str, ...],
        on_overrun: Callable[[Guard], None] | None = None,
    ) -> Guard:
        """Run ``fn(*args)`` under the watchdog. Returns its guard: ``overran``,
        ``interrupted``, ``where``, ``result`` and ``error``, what ``fn`` raised (never raised
        here)."""
        return self.run(Guard(budget, files, on_overrun), fn, args)

    def run(self, guard: Guard, fn: Callable[..., Any], args: tuple[Any, ...]) -> Guard:
        """:meth:`call` with a guard made beforehand (its ``deadline`` holding the budget):
        for a caller that must see the guard while the callback runs (:class:`CallbackThread`)."""
        if self._thread is None or (not self._handler_installed and self._can_install()):
            self._start()
        guard.started = started = time.perf_counter()
        guard.deadline += started
        guard.thread = threading.get_ident()
        if guard.thread != self._main:
            return self._call_elsewhere(guard, fn, args)
        outer = self._active  # a callback that runs another one: the outer guard goes on
        try:
            if outer is None:
                self._active = guard
            try:
                guard.result = fn(*args)
            finally:
                if outer is None:
                    self._active = None  # first: an interrupt after this line is ignored
        except ScriptTimeout:
            if outer is not None:
                raise
            guard.interrupted = True
        except Exception as e:
            guard.error = e
        guard.elapsed = time.perf_counter() - started
        return guard

    def _call_elsewhere(self, guard: Guard, fn: Callable[..., Any], args: tuple[Any, ...]) -> Guard:
        """:meth:`call` on a thread other than the main one: interrupted by an asynchronous
        exception (see the module's docstring)."""
        tid = guard.thread
        outer = self._elsewhere.get(tid)
        if outer is None:
            with self._lock:
                self._elsewhere[tid] = guard
        try:
            try:
                guard.result = fn(*args)
            except ScriptTimeout:
                if outer is not None:
                    raise
                guard.interrupted = True
            except Exception as e:
                guard.error = e
        finally:
            if outer is None:
                self.disarm(tid)
        guard.elapsed = time.perf_counter() - guard.started
        return guard

    def disarm(self, thread: int) -> None:
        """Forget the guard of ``thread`` (the calling one): no exception is sent to it after
        this, and one sent but not yet raised is withdrawn."""
        while True:
            try:
                with self._lock:
                    guard = self._elsewhere.pop(thread, None)
                    _async_raise(thread, None)
                return
            except ScriptTimeout:  # it landed first, here: the callback was over anyway
                if guard is not None:
                    guard.interrupted = True

    def _interrupt(self, signum: int, frame: FrameType | None) -> None:
        guard = self._active
        if guard is not None and guard.overran and guard.thread == threading.get_ident():
            raise ScriptTimeout

    # -- the watchdog thread ------------------------------------------------------------------
    def _can_install(self) -> bool:
        return (
            threading.get_ident() == self._main
            and self._can_signal
            and signal.getsignal(SIGNAL) in (signal.SIG_DFL, None, self._interrupt)
        )

    def _start(self) -> None:
        if self._can_install():
            signal.signal(SIGNAL, self._interrupt)
            self._handler_installed = True
        elif not self._handler_installed:
            log.info(
                "Script callbacks run outside the main thread (or %s is taken): the watchdog "
                "reports callbacks past their budget but cannot stop them.",
                SIGNAL.name,
            )
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._watch, name="vttbridge-watchdog", daemon=True
            )
            self._thread.start()

    def _watch(self) -> None:
        while True:
            time.sleep(self.poll)
            now = time.perf_counter()
            guard = self._active
            if guard is not None and now >= guard.deadline:
                self._overran(guard)
                if self._handler_installed and self._active is guard:
                    signal.pthread_kill(guard.thread, SIGNAL)
            for guard in [g for g in list(self._elsewhere.values()) if now >= g.deadline]:
                self._overran(guard)
                with self._lock:
                    if self._elsewhere.get(guard.thread) is guard:
                        _async_raise(guard.thread, ScriptTimeout)

    def _overran(self, guard: Guard) -> None:
        if guard.overran:
            return
        guard.where = _running_at(guard)
        guard.overran = True
        if guard.on_overrun is not None:
            try:
                guard.on_overrun(guard)
            except Exception:  # the hook must not stop the watchdog
                log.exception("watchdog: the overrun hook failed")


def _async_raise(thread: int, exc: type[BaseException] | None) -> None:
    """Raise ``exc`` in ``thread`` at its next bytecode (None: withdraw one not yet raised)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread), ctypes.py_object(exc) if exc is not None else None
    )


def _running_at(guard: Guard) -> tuple[str, int] | None:
    """The innermost frame of the guarded thread that is in one of the script's files."""
    frame = sys._current_frames().get(guard.thread)
    files = {str(Path(f)) for f in guard.files if f}
    while frame is not None:
        if frame.f_code.co_filename in files:
            return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back
    return None


GRACE = 2 * POLL + 0.1
"""Seconds past its budget a world waits for its callback thread before it leaves it behind:
time for the watchdog to see the overrun and for a callback in Python code to stop."""
IDLE = 30.0
"""Seconds a world's callback thread waits for the next callback before it ends."""
SWITCH_INTERVAL = 0.0005
"""The interpreter's thread switch interval while a callback runs in a thread (Python's
default is 5 ms). One thread runs Python at a time: a callback in a busy loop would otherwise
hold the event loop's thread back 5 ms at each of its turns (every read, write and commit),
which costs the other worlds tens of milliseconds an event; at 0.5 ms a few."""
_running_elsewhere = 0
_interval_before = sys.getswitchinterval()  # what the interval goes back to


class CallbackThread:
    """The thread that runs one world's plain script callbacks, off the event loop, so that a
    callback that blocks holds up its own world only (the world's event waits for it: its
    runtime's lock is held) while every other world goes on. Started on the world's first
    callback and ended after :data:`IDLE` seconds without one: a thread per busy world.

    A callback past its budget is interrupted there (:class:`Watchdog`); one stuck in a
    blocking call is left behind at its budget plus :data:`GRACE`: the world goes on, the
    callback ends when its call returns (the interrupt then lands before its next line), and
    the world's next callback gets a new thread."""

    def __init__(self, name: str, idle: float = IDLE) -> None:
        self.name = name
        self.idle = idle
        self.left_behind = 0
        """Callbacks this world stopped waiting for (their threads may still be in a call)."""
        self._idle = asyncio.Event()  # set while no callback of the world runs
        self._idle.set()
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] | None = None
        self._lock = threading.Lock()

    async def call(
        self,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        budget: float,
        files: tuple[str, ...],
        on_overrun: Callable[[Guard], None] | None = None,
    ) -> Guard:
        """:meth:`Watchdog.call` in this world's thread, awaited on the event loop."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        guard = Guard(budget, files, on_overrun, thread=0)

        def job() -> None:
            watchdog().run(guard, fn, args)
            with contextlib.suppress(RuntimeError):  # the loop is gone (the process stops)
                loop.call_soon_threadsafe(_settle, done)

        global _running_elsewhere, _interval_before
        if not _running_elsewhere:  # the interval the server set (serve sets 1 ms) comes back
            _interval_before = sys.getswitchinterval()
            sys.setswitchinterval(min(SWITCH_INTERVAL, _interval_before))
        _running_elsewhere += 1
        jobs = self._submit(job)
        self._idle.clear()
        try:
            await asyncio.wait_for(asyncio.shield(done), budget + GRACE)
        except TimeoutError:
            with self._lock:
                if self._jobs is jobs:
                    self._jobs = None  # the next callback starts a thread of its own
            jobs.put(None)  # and this one ends once its call returns
            self.left_behind += 1
            guard.interrupted = True
            guard.elapsed = time.perf_counter() - guard.started if guard.started else budget
            log.warning(
                "world %s: a script callback is stuck in a blocking call past its budget; the "
                "world goes on without it (its thread ends when the call returns).",
                self.name,
            )
        finally:
            self._idle.set()
            _running_elsewhere -= 1
            if not _running_elsewhere:
                sys.setswitchinterval(_interval_before)
        return guard

    @property
    def busy(self) -> bool:
        """A callback of the world runs in the thread now (read the world only when not)."""
        return not self._idle.is_set()

    async def until_idle(self) -> None:
        """Return once no callback of the world runs in the thread."""
        await self._idle.wait()

    def close(self) -> None:
        """End the thread once it is idle."""
        with self._lock:
            jobs, self._jobs = self._jobs, None
        if jobs is not None:
            jobs.put(None)

    def _submit(self, job: Callable[[], None]) -> queue.SimpleQueue[Callable[[], None] | None]:
        with self._lock:
            jobs = self._jobs
            if jobs is None:
                jobs = self._jobs = queue.SimpleQueue()
                threading.Thread(
                    target=self._serve, args=(jobs,), name=f"vttbridge-world:{self.name}",
                    daemon=True,
                ).start()  # fmt: skip
            jobs.put(job)
        return jobs

    def _serve(self, jobs: queue.SimpleQueue[Callable[[], None] | None]) -> None:
        me = threading.get_ident()
        while True:
            try:
                job = jobs.get(timeout=self.idle)
            except queue.Empty:
                with self._lock:
                    if not jobs.empty():
                        continue
                    if self._jobs is jobs:
                        self._jobs = None
                return
            if job is None:
                return
            try:
                job()
            except ScriptTimeout:  # an interrupt that landed past the callback's end
                watchdog().disarm(me)
            except BaseException:
                log.exception("world %s: the callback thread failed", self.name)


def _settle(done: asyncio.Future[None]) -> None:
    if not done.done():
        done.set_result(None)


_WATCHDOG: Watchdog | None = None


def watchdog() -> Watchdog:
    """The process's watchdog (its thread starts with the first callback it guards)."""
    global _WATCHDOG
    if _WATCHDOG is None:
        _WATCHDOG = Watchdog()
    return _WATCHDOG
