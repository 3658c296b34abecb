"""One ``vttbridge serve`` per SQLite file: the server holds an exclusive lock on a file beside
the database (``worlds.sqlite3.lock``) for as long as it runs, and writes who it is into it.

A second server on the same file is refused at start, told which process holds it; the
``vttbridge world`` commands take no such lock and work beside the running server (SQLite's
own locks keep their few writes apart). The lock is the kernel's (``flock``): it goes with
the process, however the process ends (``kill -9`` included), so a stale lock file never
keeps a server from starting. ``flock`` and SQLite's own ``fcntl`` locks do not interact on
Linux, and the lock is taken on a file of its own so that no close of the database can drop
it.
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

from vttbridge.adapters.bridge.storage.errors import StoreError

try:
    import fcntl
except ImportError:  # Windows: no flock; one server per file is then the host's to keep
    fcntl = None  # type: ignore[assignment]


class DatabaseInUse(StoreError):
    """Another server holds the SQLite file."""


class WriterLock:
    """The lock of one server on one SQLite file; :meth:`release` (or the process's end)
    lets it go."""

    def __init__(self, database: str | Path) -> None:
        self.database = Path(database)
        self.path = self.database.with_name(self.database.name + ".lock")
        self._fd: int | None = None

    def acquire(self, *, listening: str = "") -> None:
        """Take the lock or raise :class:`DatabaseInUse` naming the process holding it.
        ``listening`` (``host:port``) is written into the lock file for that message."""
        if fcntl is None or self._fd is not None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)  # not O_TRUNC: the holder's
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise DatabaseInUse(
                f"{self.database} is in use by another vttbridge serve ({holder}). One server "
                "per SQLite file: stop that one first, give this one another --db, or put the "
                "worlds in PostgreSQL to run several servers (docs/deployment.md)."
            ) from None
        except BaseException:
            os.close(fd)
            raise
        me = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "listening": listening,
            "since": time.strftime("%Y-%m-%d %H:%M:%S"),
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(me) + "\n").encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)
        finally:
            os.close(fd)  # closing the descriptor drops the flock


def _read_holder(fd: int) -> str:
    try:
        data = json.loads(os.pread(fd, 4096, 0).decode() or "{}")
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict) or "pid" not in data:
        return "a process that is still starting"
    where = f", listening on {data['listening']}" if data.get("listening") else ""
    host, since = data.get("host", "?"), data.get("since", "?")
    return f"process {data['pid']} on {host}{where}, since {since}"
