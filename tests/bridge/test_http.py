"""HTTP beside the socket: /healthz and the key-protected world state."""

from __future__ import annotations

import aiohttp


async def get(url: str, headers: dict | None = None) -> tuple[int, dict]:
    async with aiohttp.ClientSession() as s, s.get(url, headers=headers or {}) as r:
        return r.status, await r.json()


async def test_healthz(server, gm):
    status, body = await get(f"{server.url}/healthz")
    assert status == 200
    assert body["ok"] is True and body["worlds"] == 2 and body["clients"] == 1


async def test_state_with_key_in_a_header(server, worlds, gm):
    gm_key, obs_key = worlds["table1"]
    url = f"{server.url}/api/worlds/table1/state"
    status, body = await get(url, {"Authorization": f"Bearer {gm_key}"})
    assert status == 200
    assert set(body["tokens"]) == {"kevin", "ally", "thug"}
    for key in ("encounter", "initiative", "systems", "prompts", "seq"):
        assert key in body
    status, body2 = await get(url, {"X-World-Key": obs_key})  # observers may read
    assert status == 200 and body2["tokens"] == body["tokens"]


async def test_state_refusals(server, worlds):
    gm_key = worlds["table1"][0]
    base = f"{server.url}/api/worlds"
    assert (await get(f"{base}/table1/state"))[0] == 401
    assert (await get(f"{base}/table1/state?key={gm_key}"))[0] == 401  # never in the URL
    status, body = await get(f"{base}/table2/state", {"X-World-Key": gm_key})
    assert status == 403 and body["error"]["code"] == "wrong_key"
    status, body = await get(f"{base}/nowhere/state", {"X-World-Key": gm_key})
    assert status == 404 and body["error"]["code"] == "unknown_world"


async def test_health_reports_a_broken_database(server):
    server.bridge.store.writer.failed = OSError("disk full")
    try:
        status, body = await get(f"{server.url}/healthz")
        assert status == 503 and "disk full" in body["error"]
    finally:
        server.bridge.store.writer.failed = None
