"""The log's archive: old rows moved out of the database into compressed files, and each
world's retention (what the host keeps in the database).

A world's log is kept whole by default: replaying a world reads it from its first event. A
host may choose, per world, to move the rows that the world no longer needs to wake into
archive files, whose rows the storage's :meth:`~.base.Storage.log_after` still reads (the
files first, then the table), so a replay reads the whole log as before:

- ``keep``: everything stays in the database (the default);
- ``days:N``: rows older than N days;
- ``snapshots:K``: rows up to the K-th latest snapshot (1: everything the latest covers).

Either way only rows up to the latest snapshot go: a world wakes from its snapshot and the
rows after it, which stay in the database.

A file holds one world's rows ``first``..``last`` (at most :data:`ROWS_PER_FILE`), one JSON
array a line (``[seq, kind, event_id, name, body, at, fence]``, ``body`` the row's JSON
text), gzip-compressed: ``<folder>/<world>/<first>-<last>.jsonl.gz``. The database lists the
files (``archives`` table), with each file's absolute path, so every process reads them where
they were written.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from vttbridge.adapters.bridge.storage.errors import StoreError
from vttbridge.adapters.bridge.storage.groupcommit import SNAPSHOTS_KEPT

if TYPE_CHECKING:
    from vttbridge.adapters.bridge.storage.base import LogRow

ROWS_PER_FILE = 50_000
"""Rows per archive file (and per transaction that removes them from the table)."""
KEEP = "keep"


@dataclass(frozen=True)
class Retention:
    """What a world keeps in its database (see the module docstring)."""

    days: float | None = None
    snapshots: int | None = None

    @classmethod
    def parse(cls, text: str) -> Retention:
        """``keep``, ``days:N`` or ``snapshots:K``; StoreError for anything else."""
        m = re.fullmatch(r"(days|snapshots):(\d+(?:\.\d+)?)", text.strip())
        if text.strip() == KEEP:
            return cls()
        if m is None:
            raise StoreError(f"unknown retention {text!r}: use keep, days:N or snapshots:K")
        if m[1] == "days":
            return cls(days=float(m[2]))
        k = float(m[2])
        if k != int(k) or not 1 <= k <= SNAPSHOTS_KEPT:
            raise StoreError(
                f"snapshots:{m[2]}: K is 1 or {SNAPSHOTS_KEPT} (the snapshots a world keeps)"
            )
        return cls(snapshots=int(k))

    def __str__(self) -> str:
        if self.days is not None:
            return f"days:{self.days:g}"
        if self.snapshots is not None:
            return f"snapshots:{self.snapshots}"
        return KEEP

    @property
    def keeps_all(self) -> bool:
        return self.days is None and self.snapshots is None

    def describe(self) -> str:
        """In words, for ``vttbridge world log``."""
        if self.days is not None:
            return f"archive after {self.days:g} days"
        if self.snapshots == 1:
            return "archive what the latest snapshot holds"
        if self.snapshots is not None:
            return f"archive what the {self.snapshots} latest snapshots hold"
        return "keep everything"


def archive_upto(retention: Retention, snapshots: Sequence[int], last_before: int | None) -> int:
    """The last seq to archive (0: none), from the world's snapshots' seqs, newest first, and,
    for ``days``, the last seq written before the cut-off (``last_before``). Never past the
    latest snapshot."""
    if retention.keeps_all or not snapshots:
        return 0
    if retention.snapshots is not None:
        if len(snapshots) < retention.snapshots:
            return 0
        return snapshots[retention.snapshots - 1]
    return min(snapshots[0], last_before or 0)


def cutoff(retention: Retention, now: float | None = None) -> float | None:
    """For ``days``: the time before which rows go."""
    if retention.days is None:
        return None
    return (time.time() if now is None else now) - retention.days * 86400


@dataclass(frozen=True)
class ArchiveFile:
    """One file of one world's archived rows (an ``archives`` row)."""

    world: str
    first_seq: int
    last_seq: int
    path: str
    rows: int
    bytes: int
    at: float


def default_folder(database: str | Path) -> Path:
    """Where a SQLite file's archives go unless told: beside it, ``<file>.archive``."""
    return Path(f"{database}.archive")


def write(folder: Path, world: str, rows: Sequence[LogRow]) -> ArchiveFile:
    """Write ``rows`` (one world's, in seq order) to a new file under ``folder``, synced to
    the disk before this returns: the caller removes them from the database next."""
    first, last = rows[0].seq, rows[-1].seq
    where = folder.resolve() / quote(world, safe="") / f"{first:012d}-{last:012d}.jsonl.gz"
    where.parent.mkdir(parents=True, exist_ok=True)
    partial = where.with_name(where.name + ".partial")
    try:
        with open(partial, "wb") as raw:
            with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) as gz:
                for r in rows:
                    line = [r.seq, r.kind, r.event_id, r.name, json.dumps(r.body), r.at, r.fence]
                    gz.write(json.dumps(line, separators=(",", ":")).encode() + b"\n")
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(partial, where)
    except OSError as e:
        raise StoreError(f"cannot write the archive {where}: {e}") from e
    return ArchiveFile(world, first, last, str(where), len(rows), where.stat().st_size, time.time())


def read(
    archive: ArchiveFile, after: int, kind: str | None = None, limit: int | None = None
) -> list[LogRow]:
    """The rows of ``archive`` after seq ``after`` (of one ``kind``, at most ``limit``)."""
    from vttbridge.adapters.bridge.storage.base import LogRow  # base reads archives

    out: list[LogRow] = []
    try:
        with gzip.open(archive.path, "rb") as gz:
            for line in gz:
                # a reader paging through the log skips what it read: by the seq alone
                if int(line[1 : line.index(b",")]) <= after:
                    continue
                seq, k, eid, name, body, at, fence = json.loads(line)
                if kind and k != kind:
                    continue
                out.append(LogRow(seq, k, eid, name, json.loads(body), at, fence))
                if limit is not None and len(out) >= limit:
                    break
    except (OSError, ValueError, EOFError) as e:
        raise StoreError(
            f"cannot read the archive {archive.path} of world {archive.world!r} "
            f"(rows {archive.first_seq}-{archive.last_seq}): {e}"
        ) from e
    return out


def read_all(
    archives: Sequence[ArchiveFile], after: int, kind: str | None, limit: int | None
) -> list[LogRow]:
    """The rows after ``after`` of ``archives`` (one world's, in order), at most ``limit``."""
    out: list[LogRow] = []
    for a in archives:
        if a.last_seq <= after:
            continue
        left = None if limit is None else limit - len(out)
        if left is not None and left <= 0:
            break
        out += read(a, after, kind, left)
    return out
