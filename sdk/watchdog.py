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

Limits, by design:

- Python delivers signals only to its main thread. A runtime running elsewhere (an embedding
  host's thread, some test set-ups) gets *report-only* mode: the overrun is sampled, reported
  (with the line) and marked suspect, but the callback runs to its end.
- A signal handler runs between bytecodes: a single long call into C (``sum(range(10**12))``,
  a huge regex) is interrupted only when it returns.
- ``ScriptTimeout`` derives from ``BaseException`` (as ``KeyboardInterrupt`` does), so a
  script's ``except Exception`` does not swallow it; a bare ``except:`` in a loop can, and
  then the callback keeps the thread until it returns: the event is then quarantined at the
  next start (see ``adapters/bridge/worldhost.py``).
"""

from __future__ import annotations

import logging
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


class Watchdog:
    """Arms and watches plain callbacks; see the module's docstring. One per process:
    :func:`watchdog`."""

    def __init__(self, poll: float = POLL) -> None:
        self.poll = poll
        self._active: Guard | None = None
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
        if self._thread is None or (not self._handler_installed and self._can_install()):
            self._start()
        started = time.perf_counter()
        guard = Guard(started + budget, files, on_overrun, started=started)
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

    @property
    def interrupts(self) -> bool:
        """Whether callbacks on the calling thread can be interrupted (else report-only)."""
        return self._handler_installed and threading.get_ident() == self._main

    def _watch(self) -> None:
        while True:
            time.sleep(self.poll)
            guard = self._active
            if guard is None or time.perf_counter() < guard.deadline:
                continue
            if not guard.overran:
                guard.where = _running_at(guard)
                guard.overran = True
                if guard.on_overrun is not None:
                    try:
                        guard.on_overrun(guard)
                    except Exception:  # the hook must not stop the watchdog
                        log.exception("watchdog: the overrun hook failed")
            if self._handler_installed and guard.thread == self._main and self._active is guard:
                signal.pthread_kill(guard.thread, SIGNAL)


def _running_at(guard: Guard) -> tuple[str, int] | None:
    """The innermost frame of the guarded thread that is in one of the script's files."""
    frame = sys._current_frames().get(guard.thread)
    files = {str(Path(f)) for f in guard.files if f}
    while frame is not None:
        if frame.f_code.co_filename in files:
            return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back
    return None


_WATCHDOG: Watchdog | None = None


def watchdog() -> Watchdog:
    """The process's watchdog (its thread starts with the first callback it guards)."""
    global _WATCHDOG
    if _WATCHDOG is None:
        _WATCHDOG = Watchdog()
    return _WATCHDOG
