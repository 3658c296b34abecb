"""Bad input gets its error code; the server stays up and the world stays exactly as it was."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.bridge.conftest import NS, Server, TableClient, scene, start_server


def fingerprint(server: Server, world: str = "table1") -> tuple[int, dict]:
    host = server.bridge.worlds[world]
    return host.seq, host.runtime.snapshot()


async def raw_event(client: TableClient, text: str) -> Any:
    """Send a hand-written socket.io EVENT packet (``text`` after the ack id) and return the
    server's ack."""
    fut = asyncio.get_running_loop().create_future()
    ack_id = client.sio._generate_ack_id(NS, lambda *a: fut.set_result(a[0] if a else None))
    await client.sio.eio.send(f"2{NS},{ack_id}{text}")
    return await asyncio.wait_for(fut, 5)


@pytest.mark.parametrize(
    ("event", "payload", "code", "path"),
    [
        ("tokenMoved", {"id": "b1", "token": "kevin", "x": "far", "y": 0}, "wrong_type", "x"),
        ("tokenMoved", {"id": "b2", "token": "kevin", "y": 0}, "missing_field", "x"),
        ("tokenMoved", {"token": "kevin", "x": 0, "y": 0}, "missing_field", "id"),
        ("tokenMoved", {"id": "", "token": "kevin", "x": 0, "y": 0}, "wrong_type", "id"),
        ("tokenMoved", {"id": 7, "token": "kevin", "x": 0, "y": 0}, "wrong_type", "id"),
        ("tokenMoved", {"id": "b3", "token": "nobody", "x": 0, "y": 0}, "unknown_token", "token"),
        ("chat", {"id": "b4", "text": ["!help"]}, "wrong_type", "text"),
        ("chat", {"id": "b5", "text": "hi", "role": "king"}, "wrong_type", "role"),
        ("snapshot", {"id": "b6", "tokens": []}, "missing_field", "scene"),
        ("combatStart", {"id": "b7", "tokens": ["kevin", "ghost"]}, "unknown_token", "tokens.1"),
        ("teleport", {"id": "b8"}, "unknown_event", None),
        ("tokenMoved", ["b9", "kevin"], "bad_payload", None),
        ("tokenMoved", 42, "bad_payload", None),
        ("tokenMoved", None, "bad_payload", None),
        ("tokenMoved", "{not json", "bad_json", None),
    ],
)
async def test_bad_payloads_get_their_code(server, gm, event, payload, code, path):
    before = fingerprint(server)
    ack = await gm.send(event, payload)
    assert ack["ok"] is False, ack
    assert ack["error"]["code"] == code, ack
    assert ack["error"]["message"]
    assert ack["error"].get("path") == path
    assert fingerprint(server) == before
    assert (await gm.send("noop", {"id": f"alive-{code}"}))["ok"]  # still connected


async def test_payload_as_json_text_is_accepted(server, gm):
    ack = await gm.send("tokenMoved", json.dumps({"id": "t1", "token": "kevin", "x": 0, "y": 0}))
    assert ack["ok"], ack


async def test_malformed_json_on_the_wire(server, gm):
    before = fingerprint(server)
    ack = await raw_event(gm, '["tokenMoved",{"id": "m1", "token": kevin}]')
    assert ack["ok"] is False and ack["error"]["code"] == "bad_json"
    ack = await raw_event(gm, '["tokenMoved",{"id": "m2", "tok')
    assert ack["error"]["code"] == "bad_json"
    assert fingerprint(server) == before
    assert (await gm.send("noop", {"id": "alive"}))["ok"]


async def test_lone_surrogate_escape_is_malformed(server, gm):
    # pydantic-core parses the packets (adapters/bridge/packets.py PacketJson): half of a UTF-16
    # pair is no text it could store or send back, so the event is refused as bad JSON
    before = fingerprint(server)
    ack = await raw_event(gm, r'["chat",{"id": "s1", "text": "\ud83e"}]')
    assert ack["ok"] is False and ack["error"]["code"] == "bad_json"
    assert fingerprint(server) == before


async def test_oversized_payload(server, gm):
    before = fingerprint(server)
    big = "x" * (server.bridge.config.max_payload + 10)
    ack = await gm.send("chat", {"id": "big", "text": big})
    assert ack["ok"] is False and ack["error"]["code"] == "payload_too_large"
    assert fingerprint(server) == before
    assert (await gm.send("noop", {"id": "alive"}))["ok"]


async def test_flood_is_rate_limited(db, worlds):
    server = await start_server(db, rate=20, burst=10)
    c = TableClient()
    try:
        await c.connect(server.url, "table1", worlds["table1"][0])
        assert (await c.send("snapshot", scene()))["ok"]
        before = fingerprint(server)
        acks = await asyncio.gather(
            *(c.send("tokenMoved", {"id": f"f{i}", "token": "nobody", "x": 0, "y": 0})
              for i in range(100))
        )  # fmt: skip
        codes = [a["error"]["code"] for a in acks]
        assert "rate_limited" in codes
        assert set(codes) == {"rate_limited", "unknown_token"}
        assert fingerprint(server) == before
        await asyncio.sleep(0.2)  # the bucket refills
        assert (await c.send("noop", {"id": "after-flood"}))["ok"]
    finally:
        await c.close()
        await server.stop()


async def test_events_before_any_snapshot(server, worlds, client_factory):
    c = await client_factory().connect(server.url, "table2", worlds["table2"][0])
    ack = await c.send("tokenMoved", {"id": "early", "token": "kevin", "x": 0, "y": 0})
    assert ack["error"]["code"] == "unknown_token"


# -- property test ------------------------------------------------------------------------------

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**40), max_value=2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
TOKEN = st.sampled_from(["kevin", "ally", "nobody", ""]) | JSON
NEAR_VALID = st.fixed_dictionaries(
    {},
    optional={
        "id": st.text(min_size=0, max_size=6) | JSON,
        "token": TOKEN,
        "x": st.integers(-(10**6), 10**6) | JSON,
        "y": st.integers(-(10**6), 10**6) | JSON,
        "text": st.sampled_from(["!help", "!init", "!next", "!stats kevin reflex=x", "hi"]) | JSON,
        "role": st.sampled_from(["gm", "player", "dm"]),
        "tokens": st.lists(TOKEN, max_size=3) | JSON,
        "scene": JSON | st.fixed_dictionaries({"id": st.text(max_size=4)}),
    },
)
EVENTS = st.sampled_from(
    ["tokenMoved", "chat", "snapshot", "combatStart", "nextTurn", "tokenCreated", "bogus", ""]
)


@pytest.fixture
async def fast_gm(db, worlds) -> AsyncIterator[tuple[Server, TableClient]]:
    server = await start_server(db, rate=0)
    c = TableClient()
    await c.connect(server.url, "table1", worlds["table1"][0])
    assert (await c.send("snapshot", scene()))["ok"]
    yield server, c
    await c.close()
    await server.stop()


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(event=EVENTS, payload=NEAR_VALID | JSON)
async def test_any_payload_is_answered_and_refusals_change_nothing(fast_gm, event, payload):
    server, c = fast_gm
    before = fingerprint(server)
    ack = await c.send(event, payload)
    assert isinstance(ack, dict) and isinstance(ack.get("ok"), bool), ack
    if not ack["ok"]:
        err = ack["error"]
        assert err["code"] and err["message"]
        assert err["code"] != "internal", err
        assert fingerprint(server) == before
