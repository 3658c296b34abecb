"""What a serving process needs around the bridge: listening on a port, saying where, stopping
on a signal, handing memory back."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import gc
import logging
import signal
import time
from collections.abc import Callable

from aiohttp import web

log = logging.getLogger("vttbridge")


async def listen_app(app: web.Application, host: str, port: int) -> tuple[web.AppRunner, int]:
    """Serve ``app`` on ``host``:``port`` (0: any free port); returns the runner and the port."""
    # A short shutdown timeout: open websockets would otherwise hold the exit for a minute,
    # and every world is saved by then anyway.
    runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=2.0)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    addresses = runner.addresses  # (host, port, ...) of each bound socket
    return runner, (addresses[0][1] if addresses else port)


def announce(host: str, port: int) -> None:
    """Log where the bridge listens. (What a GM opens or pastes is ``vttbridge serve``'s own
    block on standard output: ``welcome.py``.)"""
    log.info(
        "Listening on http://%s:%d (companion clients connect here; state at "
        "/api/worlds/<world>/state).",
        host,
        port,
    )


def stop_signal() -> asyncio.Event:
    """An event that SIGINT or SIGTERM sets from now on. Made before the server starts: a
    Ctrl+C while it loads the worlds, or just after it announced its port, then stops it
    cleanly once it is up, rather than killing it half-way."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not on Windows
            loop.add_signal_handler(sig, stop.set)
    return stop


def trim_memory(collect: bool = True) -> None:
    """Hand freed heap back to the OS (glibc keeps it otherwise, and RSS stays high). With
    ``collect``, a full collection first, which thaws what ``gc.freeze()`` set aside and
    freezes what survives again: it walks every object of the process. A world put to sleep
    needs none (nothing in it refers back to what holds it: it is freed as it is unloaded);
    it is for cycles made elsewhere (a script's) that died after they were frozen."""
    if collect:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)


@functools.cache
def _libc() -> ctypes.CDLL | None:
    """glibc, loaded once (each load makes a handle that is itself garbage for the collector);
    None elsewhere."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return None
    return libc if hasattr(libc, "malloc_trim") else None


def settle_woken() -> None:
    """Keep what is in memory now out of the collector's passes: called as a world wakes.

    A woken world is thousands of objects that will live as long as it is awake, and while
    tables arrive the collector's middle generation walks each of them once more before they
    reach the old one (a pass of 15-30 ms that finds nothing, the slowest moves of the tables
    already playing). Frozen, they are never walked, and freed all the same when the world
    sleeps (a world holds no reference cycle). What is frozen with them is whatever else lives
    at that moment; a reference cycle that dies after it was frozen waits for the next full
    collection that thaws (:func:`trim_memory`'s, when no world is loaded).
    """
    gc.freeze()


class SleepTrim:
    """When to :func:`trim_memory` after worlds are put to sleep.

    When no world is loaded (no table is waiting on it), at once, with the full collection.
    While tables play, only the heap is handed back, which takes a few milliseconds to a few
    hundred (glibc returns the freed pages one run at a time), and only when the worlds
    asleep since the last trim are at least a quarter of those loaded (less is not worth a
    pause) and no sooner than :attr:`EVERY` seconds after the last: one such pause every ten
    minutes at most, instead of one each time a table leaves. Meanwhile the memory of the
    worlds asleep since the last trim is free for the worlds that wake, but not the OS's.
    """

    EVERY = 600.0

    def __init__(
        self,
        trim: Callable[[bool], None] = trim_memory,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.asleep = 0
        """Worlds put to sleep since the last trim (their memory not yet handed back)."""
        self._trim, self._clock = trim, clock
        self._last = clock()

    def put_to_sleep(self, worlds: int, loaded: int) -> bool:
        """``worlds`` were put to sleep and ``loaded`` are left: trim if it is time; whether
        it did."""
        self.asleep += worlds
        if not self.asleep:
            return False
        now = self._clock()
        if loaded and (self.asleep * 4 < loaded or now - self._last < self.EVERY):
            return False
        self._trim(not loaded)
        self.asleep, self._last = 0, self._clock()
        return True


def duration(seconds: float) -> str:
    """``90 s``, ``10 min``: a configured duration in words."""
    if seconds >= 120:
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"
