"""World keys: stored as salted keyed hashes, checked in constant time and in microseconds;
old scrypt hashes upgraded; connections closed when their key is reset."""

from __future__ import annotations

import asyncio
import hashlib
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

from vttbridge.adapters.bridge import keys
from vttbridge.adapters.bridge.storage import run_blocking

from tests.bridge.conftest import CLIENT, NS, ROOT, TableClient, refused, scene, start_server
from tests.bridge.test_dashboard import Dashboard


def test_hash_and_verify():
    key = keys.new_key("gm")
    assert key.startswith("vtt_gm_") and len(key) > 40
    stored = keys.hash_key(key)
    assert key not in stored
    assert keys.verify_key(key, stored)
    assert not keys.verify_key(key + "x", stored)
    assert not keys.verify_key("", stored)
    assert keys.hash_key(key) != stored  # salted


def test_malformed_hashes_never_match():
    key = keys.new_key("observer")
    assert key.startswith("vtt_obs_")
    for stored in (None, "", "scrypt$1$2", "bcrypt$16384$8$1$AA$AA", "scrypt$x$8$1$AA$AA"):
        assert not keys.verify_key(key, stored)


def test_keys_are_stored_in_the_fast_form():
    key = keys.new_key()
    stored = keys.hash_key(key)
    assert stored.startswith("hmac-sha256$") and not keys.needs_rehash(stored)
    assert keys.needs_rehash(keys.scrypt_hash(key, n=2**4))


def test_old_scrypt_hashes_still_verify():
    key = keys.new_key()
    old = keys.scrypt_hash(key, n=2**4)
    assert keys.verify_key(key, old) and not keys.verify_key(key + "x", old)


# -- over the wire ------------------------------------------------------------------------------


async def test_a_connect_checks_the_key_without_scrypt(server, worlds, client_factory, monkeypatch):
    def no_scrypt(*args, **kw):
        raise AssertionError("scrypt ran")

    monkeypatch.setattr(hashlib, "scrypt", no_scrypt)
    gm_key, obs_key = worlds["table1"]
    c = await client_factory().connect(server.url, "table1", gm_key)
    assert c.sio.connected
    o = await client_factory().connect(server.url, "table1", obs_key)
    assert server.bridge.sessions[o.sio.get_sid(NS)].role == "observer"
    wrong = gm_key[:-1] + ("B" if gm_key.endswith("A") else "A")
    _, data = await refused(server.url, {"world": "table1", "key": wrong, "client": CLIENT})
    assert data["code"] == "wrong_key"


def _hashes(db: Path, world: str) -> tuple[str, str]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT gm_key_hash, observer_key_hash FROM worlds WHERE name=?", (world,)
        ).fetchone()
    finally:
        conn.close()


async def test_old_scrypt_hashes_are_upgraded_on_first_use(db, worlds, caplog):
    gm_key, obs_key = worlds["table1"]
    old_gm, old_obs = keys.scrypt_hash(gm_key, n=2**4), keys.scrypt_hash(obs_key, n=2**4)
    # as an earlier vttbridge wrote them
    run_blocking(db, lambda s: s.set_key_hashes("table1", old_gm, old_obs))
    server = await start_server(db, key_check_interval=0.05)
    c, again = TableClient(), TableClient()
    try:
        await c.connect(server.url, "table1", gm_key)
        await server.bridge.store.barrier()
        gm_hash, obs_hash = _hashes(db, "table1")
        assert gm_hash.startswith("hmac-sha256$") and keys.verify_key(gm_key, gm_hash)
        assert obs_hash == old_obs  # not used yet: left as it was
        assert gm_key not in caplog.text
        # the connection whose key matched the old hash is not taken for one reset
        checks = server.bridge.auth.key_checks
        async with asyncio.timeout(5):
            while server.bridge.auth.key_checks < checks + 2:
                await asyncio.sleep(0.02)
        assert c.sio.connected and (await c.send("snapshot", scene()))["ok"]
        await again.connect(server.url, "table1", gm_key)  # checked against the new hash
        assert _hashes(db, "table1")[0] == gm_hash
    finally:
        await c.close()
        await again.close()
        await server.stop()


async def test_a_reset_key_closes_the_connections_that_used_the_old_one(db, worlds):
    gm_key, obs_key = worlds["table1"]
    server = await start_server(db, key_check_interval=0.1)
    gm, watcher, other = TableClient(), TableClient(), TableClient()
    page = Dashboard()
    try:
        await gm.connect(server.url, "table1", gm_key)
        await watcher.connect(server.url, "table1", obs_key)
        await other.connect(server.url, "table2", worlds["table2"][0])
        await page.connect(server.url, "table1", obs_key)  # a dashboard is closed too
        # the CLI, in another process, as a GM would run it
        out = subprocess.run(
            [sys.executable, "-m", "vttbridge", "world", "reset-key", "table1",
             "--db", str(db)],
            cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        new_gm = re.search(r"GM key:\s+(vtt_gm_\S+)", out).group(1)
        # a new connect with the old key is refused at once
        _, data = await refused(server.url, {"world": "table1", "key": gm_key, "client": CLIENT})
        assert data["code"] == "wrong_key"
        async with asyncio.timeout(5):  # and the open ones are closed promptly
            while gm.sio.connected or watcher.sio.connected or page.sio.connected:
                await asyncio.sleep(0.02)
        checks = server.bridge.auth.key_checks
        async with asyncio.timeout(5):
            while server.bridge.auth.key_checks < checks + 2:
                await asyncio.sleep(0.02)
        assert other.sio.connected  # another world's keys did not change
        again = TableClient()
        try:
            await again.connect(server.url, "table1", new_gm)
            assert (await again.send("snapshot", scene()))["ok"]
        finally:
            await again.close()
    finally:
        for c in (gm, watcher, other, page):
            await c.close()
        await server.stop()
