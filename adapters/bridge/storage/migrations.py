"""Each backend's schema: the tables of a new database, and the ordered upgrades from every
earlier version.

A database stores its schema version in ``meta`` (key ``schema``). Opening one runs, in one
transaction, the upgrades from its version to this vttbridge's (a crash midway leaves it at
its old version, to be upgraded at the next start); a new database gets :attr:`Schema.create`
at once. A database of a newer version is refused, untouched.

An upgrade's SQL is frozen once released: a later change of the tables is a new upgrade (and
the same change in ``create``), never an edit of an old one. ``tests/bridge/storage`` checks
that a database upgraded from the oldest version has the tables a new one has.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from vttbridge.adapters.bridge.storage.errors import StoreError


@dataclass(frozen=True)
class Schema:
    backend: str
    version: int
    """The version this vttbridge reads and writes."""
    create: str
    """The tables of a new database, at :attr:`version`."""
    upgrades: dict[int, str] = field(default_factory=dict)
    """Version n -> the SQL that takes a database from n to n + 1."""

    def plan(self, found: int | None, where: str) -> list[tuple[int, str]]:
        """The steps for a database found at version ``found`` (None: new, empty): (version
        reached, SQL) in order. Raises StoreError for a newer or an unknown version."""
        if found is None:
            return [(self.version, self.create)]
        if found > self.version:
            raise StoreError(
                f"{where} was written by a newer vttbridge (schema {found}; this one reads "
                f"schema {self.version} and older): upgrade vttbridge to use it"
            )
        steps = []
        for v in range(found, self.version):
            sql = self.upgrades.get(v)
            if sql is None:
                raise StoreError(
                    f"{where} has schema {found}, which this vttbridge cannot upgrade "
                    f"(it upgrades schema {min(self.upgrades, default=self.version)} and later)"
                )
            steps.append((v + 1, sql))
        return steps


def statements(script: str) -> list[str]:
    """``script`` split into SQLite statements (``executescript`` would commit the
    transaction the upgrade runs in)."""
    out, current = [], ""
    for part in script.split(";"):
        current += part + ";"
        if sqlite3.complete_statement(current):
            if current.strip(" \n;"):
                out.append(current.strip())
            current = ""
    if current.strip(" \n;"):
        out.append(current.strip())
    return out


# -- SQLite ---------------------------------------------------------------------------------------
# The log's rows are stored in the order they were written, found by world and seq through an
# index: a commit that logs events of several worlds then writes one page of rows and a small
# index page per world, about half of what clustering the rows by world cost (schema 1).

_SQLITE_ARCHIVES = """
CREATE TABLE archives (
    world TEXT NOT NULL,
    first_seq INTEGER NOT NULL,
    last_seq INTEGER NOT NULL,
    path TEXT NOT NULL,
    rows INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (world, first_seq)
) WITHOUT ROWID;
"""
"""The archive files of each world's log (schema 4): made new, and added by the upgrade."""


SQLITE = Schema(
    "sqlite",
    4,
    create="""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE worlds (
    name TEXT PRIMARY KEY,
    gm_key_hash TEXT NOT NULL,
    observer_key_hash TEXT NOT NULL,
    options TEXT NOT NULL DEFAULT '{}',
    created_at REAL NOT NULL,
    acked_seq INTEGER NOT NULL DEFAULT 0,
    adapter TEXT,
    retention TEXT NOT NULL DEFAULT 'keep'
);
CREATE TABLE log (
    world TEXT NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('event', 'command')),
    event_id TEXT,
    name TEXT NOT NULL,
    body TEXT NOT NULL,
    at REAL NOT NULL,
    fence INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX log_world_seq ON log (world, seq);
CREATE TABLE snapshots (
    world TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data TEXT NOT NULL,
    at REAL NOT NULL,
    fence INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (world, seq)
) WITHOUT ROWID;
CREATE TABLE suspects (
    world TEXT NOT NULL,
    event_id TEXT NOT NULL,
    name TEXT NOT NULL,
    script TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (world, event_id)
) WITHOUT ROWID;
CREATE TABLE leases (
    world TEXT PRIMARY KEY,
    node TEXT,
    fence INTEGER NOT NULL,
    expires REAL
) WITHOUT ROWID;
"""
    + _SQLITE_ARCHIVES,
    upgrades={
        # 1 -> 2: schema 1 kept the log clustered by (world, seq) (WITHOUT ROWID); its rows
        # are copied into a table in write order with an index.
        1: """
CREATE TABLE log_2 (
    world TEXT NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('event', 'command')),
    event_id TEXT,
    name TEXT NOT NULL,
    body TEXT NOT NULL,
    at REAL NOT NULL
);
INSERT INTO log_2 (world, seq, kind, event_id, name, body, at)
    SELECT world, seq, kind, event_id, name, body, at FROM log ORDER BY world, seq;
DROP TABLE log;
ALTER TABLE log_2 RENAME TO log;
CREATE UNIQUE INDEX log_world_seq ON log (world, seq);
""",
        # 2 -> 3: each log row and snapshot keeps the fence of the lease it was written
        # under; the leases' fence counters. Files of schema 2 from before the quarantine
        # have no suspects table.
        2: """
ALTER TABLE log ADD COLUMN fence INTEGER NOT NULL DEFAULT 0;
ALTER TABLE snapshots ADD COLUMN fence INTEGER NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS suspects (
    world TEXT NOT NULL,
    event_id TEXT NOT NULL,
    name TEXT NOT NULL,
    script TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (world, event_id)
) WITHOUT ROWID;
CREATE TABLE leases (
    world TEXT PRIMARY KEY,
    node TEXT,
    fence INTEGER NOT NULL,
    expires REAL
) WITHOUT ROWID;
""",
        # 3 -> 4: each world's retention, and the archive files of the logs. (A file made
        # before schema 4 does not shrink when rows leave it, only reuses their pages:
        # auto_vacuum can only be set on a new file, or by `vttbridge world vacuum`.)
        3: """
ALTER TABLE worlds ADD COLUMN retention TEXT NOT NULL DEFAULT 'keep';
"""
        + _SQLITE_ARCHIVES,
    },
)


# -- PostgreSQL -----------------------------------------------------------------------------------
# The log is clustered by its primary key's index like any heap table; JSON is kept as text,
# which the bridge parses itself (jsonb would parse it again on every write).

_POSTGRES_ARCHIVES = """
CREATE TABLE archives (
    world text NOT NULL,
    first_seq bigint NOT NULL,
    last_seq bigint NOT NULL,
    path text NOT NULL,
    rows bigint NOT NULL,
    bytes bigint NOT NULL,
    at double precision NOT NULL,
    PRIMARY KEY (world, first_seq)
);
"""
"""The archive files of each world's log (schema 2): made new, and added by the upgrade."""

POSTGRES = Schema(
    "postgresql",
    2,
    create="""
CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE worlds (
    name text PRIMARY KEY,
    gm_key_hash text NOT NULL,
    observer_key_hash text NOT NULL,
    options text NOT NULL DEFAULT '{}',
    created_at double precision NOT NULL,
    acked_seq bigint NOT NULL DEFAULT 0,
    adapter text,
    retention text NOT NULL DEFAULT 'keep'
);
CREATE TABLE log (
    world text NOT NULL,
    seq bigint NOT NULL,
    kind text NOT NULL CHECK (kind IN ('event', 'command')),
    event_id text,
    name text NOT NULL,
    body text NOT NULL,
    at double precision NOT NULL,
    fence bigint NOT NULL,
    PRIMARY KEY (world, seq)
);
CREATE TABLE snapshots (
    world text NOT NULL,
    seq bigint NOT NULL,
    data text NOT NULL,
    at double precision NOT NULL,
    fence bigint NOT NULL,
    PRIMARY KEY (world, seq)
);
CREATE TABLE suspects (
    world text NOT NULL,
    event_id text NOT NULL,
    name text NOT NULL,
    script text NOT NULL,
    at double precision NOT NULL,
    PRIMARY KEY (world, event_id)
);
CREATE TABLE leases (
    world text PRIMARY KEY,
    node text,
    fence bigint NOT NULL,
    expires timestamptz
);
"""
    + _POSTGRES_ARCHIVES,
    upgrades={
        # 1 -> 2: each world's retention, and the archive files of the logs
        1: """
ALTER TABLE worlds ADD COLUMN retention text NOT NULL DEFAULT 'keep';
"""
        + _POSTGRES_ARCHIVES,
    },
)
