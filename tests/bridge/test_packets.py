"""Packets no companion sends (``adapters/bridge/packets.py``, ``websocket.py``, ``polling.py``):
every one is answered, or ends its connection cleanly; none wedges a connection, piles up in
memory or writes a traceback to the log. Over real sockets, with hand-written packets."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from vttbridge.adapters.bridge.packets import RESERVED_EVENTS

from tests.bridge.conftest import NS, Server, TableClient, scene, start_server
from tests.bridge.rawclient import RawFrames, RawSocket


def fingerprint(server: Server, world: str = "table1") -> tuple[int, dict]:
    host = server.bridge.worlds[world]
    return host.seq, host.runtime.snapshot()


@pytest.fixture
async def raw(server, worlds, gm) -> AsyncIterator[RawSocket]:
    """A hand-written client linked to table1 as GM (after ``gm`` sent the scene)."""
    sock = await RawSocket().open(server.url, "table1", worlds["table1"][0])
    yield sock
    await sock.close()


def no_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    bad = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not bad, [r.getMessage() for r in bad]


# -- reserved and nameless events -------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(RESERVED_EVENTS))
async def test_reserved_event_names_are_refused(server, raw, name):
    before = fingerprint(server)
    sessions = set(server.bridge.sessions)
    ack = await raw.event(json.dumps([name, {"id": "r1"}]))
    assert ack["ok"] is False and ack["error"]["code"] == "reserved_event", ack
    assert name in ack["error"]["message"]
    # the real handler did not run: the session is still there and still the GM's
    assert set(server.bridge.sessions) == sessions
    assert await raw.alive()
    assert fingerprint(server) == before


async def test_reserved_names_from_a_socketio_client(server, gm):
    # python-socketio's client sends them as it sends any event
    for name in ("disconnect", "connect"):
        ack = await gm.send(name, {"id": "r2"})
        assert ack["error"]["code"] == "reserved_event"
    assert (await gm.send("noop", {"id": "after-reserved"}))["ok"]


@pytest.mark.parametrize(
    "text", ["[]", "{}", "true", " 5", '"chat"', "null", '[5, {"id": "n1"}]', "[null]", ""]
)
async def test_event_packets_without_a_name_are_answered(server, raw, text):
    before = fingerprint(server)
    ack = await raw.event(text)
    assert ack["ok"] is False and ack["error"]["code"] == "bad_event", ack
    assert await raw.alive()
    assert fingerprint(server) == before


async def test_an_event_on_a_namespace_not_connected_is_answered(server, worlds):
    sock = await RawSocket().open(server.url)  # engine.io open, no namespace connected
    try:
        await sock.send('42/minitable,7["noop",{"id":"x"}]')
        ack = await sock.ack(7)
        assert ack["error"]["code"] == "bad_auth"
    finally:
        await sock.close()


# -- binary packets ---------------------------------------------------------------------------


async def test_a_binary_event_naming_a_missing_attachment_does_not_wedge(server, raw, caplog):
    before = fingerprint(server)
    await raw.send(f'451-{NS},5["chat",{{"id":"b1","text":{{"_placeholder":true,"num":3}}}}]')
    await raw.send(b"\x01\x02\x03")
    ack = await raw.ack(5)
    assert ack["error"]["code"] == "binary_not_supported", ack
    assert await raw.alive()  # later messages are read as packets again
    assert fingerprint(server) == before
    no_tracebacks(caplog)


async def test_binary_attachments_are_never_buffered(server, raw):
    sio = server.bridge.sio
    rss = _rss_mb()
    attachment = b"\x00" * (400 * 1024)  # each under --max-payload: read whole
    for i in range(75):  # 60 MB announced and sent, 2 attachments per event
        await raw.send(f'452-{NS},{i}["chat",{{"_placeholder":true,"num":0}}]')
        await raw.send(attachment)
        await raw.send(attachment)
    for i in range(75):
        assert (await raw.ack(i))["error"]["code"] == "binary_not_supported"
    assert await raw.alive()
    assert not sio._binary_packet and not sio.attachments
    # what python-socketio did: every attachment kept, +58 MB for a 0.5 MB event cap
    assert _rss_mb() - rss < 20


async def test_a_binary_event_announcing_absurdly_many_attachments_is_answered(server, raw):
    await raw.send(f'4599999999999-{NS},6["chat",{{"_placeholder":true,"num":0}}]')
    assert (await raw.ack(6))["error"]["code"] == "binary_not_supported"
    assert await raw.alive()


async def test_binary_data_nothing_announced_closes_the_connection(server, raw, gm, caplog):
    await raw.send(b"\x00" * 100)
    assert await raw.closed_by_server()
    assert (await gm.send("noop", {"id": "others-go-on"}))["ok"]
    no_tracebacks(caplog)


async def test_a_binary_event_wanting_no_answer_closes_the_connection(server, raw):
    await raw.send(f'451-{NS},["chat",{{"_placeholder":true,"num":0}}]')
    assert await raw.closed_by_server()


# -- broken JSON, deep nesting ------------------------------------------------------------------


@pytest.mark.parametrize(
    "packet",
    [
        f"43{NS},1[bad",  # an ack of a command
        f"43{NS},1" + "[" * 3000,
        f"41{NS},{{bad",  # a disconnect
        f"41{NS},x" + "[" * 3000,
    ],
)
async def test_broken_non_event_packets_log_one_warning(server, raw, caplog, packet):
    caplog.set_level(logging.WARNING)
    await raw.send(packet)
    if packet.startswith("41"):  # the client leaves the namespace, as it asked, and is told
        ack = await raw.event('["noop",{"id":"left"}]')  # so by the next event it sends
        assert ack["error"]["code"] == "bad_auth" and "Not connected" in ack["error"]["message"]
    else:
        assert await raw.alive()
    no_tracebacks(caplog)
    if packet.startswith("43"):
        (line,) = [r for r in caplog.records if "could not be read" in r.getMessage()]
        assert line.levelno == logging.WARNING


async def test_a_broken_connect_is_refused(server, worlds):
    sock = await RawSocket().open(server.url)
    try:
        await sock.send(f"40{NS},{{bad")
        answer = await sock.receive()
        assert answer.startswith(f"44{NS},"), answer
        assert json.loads(answer[len(f"44{NS},") :])["data"]["code"] == "bad_auth"
    finally:
        await sock.close()


async def test_bad_input_warnings_are_rate_limited(server, raw, caplog):
    caplog.set_level(logging.WARNING)
    for _ in range(200):
        await raw.send(f"43{NS},1[bad")
    assert await raw.alive()
    lines = [r for r in caplog.records if "could not be read" in r.getMessage()]
    assert 1 <= len(lines) <= 10
    no_tracebacks(caplog)


@pytest.mark.parametrize("depth", [201, 2000, 100_000])
async def test_deep_nesting_is_answered(server, raw, depth, caplog):
    before = fingerprint(server)
    nested = "[" * depth + "]" * depth
    ack = await raw.event(f'["chat",{{"id":"d1","text":{nested}}}]')
    assert ack["error"]["code"] in ("bad_json", "payload_too_large"), ack
    if ack["error"]["code"] == "bad_json":
        assert "nested more than 200 levels" in ack["error"]["message"]
    # the same as JSON text in a string payload (what some relays send)
    ack = await raw.event(json.dumps(["chat", '{"id":"d2","text":' + nested + "}"]))
    assert ack["error"]["code"] in ("bad_json", "payload_too_large"), ack
    assert await raw.alive()
    assert fingerprint(server) == before
    no_tracebacks(caplog)


async def test_nesting_within_the_limit_is_read(server, raw):
    nested = "[" * 150 + "]" * 150
    ack = await raw.event(f'["chat",{{"id":"d3","text":{nested}}}]')
    assert ack["error"]["code"] == "wrong_type"  # read, then refused as no text


async def test_deeply_nested_engineio_message_closes_cleanly(server, raw, gm, caplog):
    # engineio's own decoder parsed such text as JSON and raised RecursionError
    await raw.send("4" + "[" * 5000)
    assert await raw.closed_by_server()
    assert (await gm.send("noop", {"id": "still-here"}))["ok"]
    no_tracebacks(caplog)


@pytest.mark.parametrize("message", ["7", "9x", f"4{NS}", "4", "4²"])
async def test_what_is_not_a_packet_closes_the_connection(server, raw, caplog, message):
    await raw.send(message)
    assert await raw.closed_by_server()
    no_tracebacks(caplog)


# -- oversize payloads ------------------------------------------------------------------------

MAX = 2000  # --max-payload of the server below; its old transport limit: 1 MB


@pytest.fixture
async def small(db: Path, worlds) -> AsyncIterator[Server]:
    srv = await start_server(db, max_payload=MAX, ping_interval=0.5, ping_timeout=1)
    yield srv
    await srv.stop()


@pytest.mark.parametrize("transport", ["websocket", "polling"])
@pytest.mark.parametrize(
    "size",
    [MAX + 100, 10 * MAX, 1_500_000, 6_000_000],
    ids=["just-over", "over-4x", "over-transport-limit", "6MB"],
)
async def test_oversize_payload_is_answered_before_any_close(small, worlds, transport, size):
    c = TableClient()
    try:
        await c.connect(small.url, "table1", worlds["table1"][0], transport=transport)
        assert (await c.send("snapshot", scene()))["ok"]
        before = fingerprint(small)
        ack = await c.send("chat", {"id": "big", "text": "x" * size}, timeout=30)
        assert ack["ok"] is False and ack["error"]["code"] == "payload_too_large", ack
        assert "'chat'" in ack["error"]["message"]
        assert c.sio.connected
        assert (await c.send("noop", {"id": "after-big"}))["ok"]
        assert fingerprint(small) == before
    finally:
        await c.close()


async def test_oversize_is_counted_in_bytes(small, worlds):
    sock = await RawSocket().open(small.url, "table1", worlds["table1"][0])
    try:  # under MAX characters, over MAX bytes of UTF-8
        ack = await sock.event('["chat",{"id":"u1","text":"' + "é" * (MAX * 2 // 3) + '"}]')
        assert ack["error"]["code"] == "payload_too_large", ack
        ack = await sock.event('["chat",{"id":"u2","text":"' + "é" * (MAX // 3) + '"}]')
        assert ack["ok"], ack
    finally:
        await sock.close()


async def _raw_frames_linked(url: str, key: str) -> RawFrames:
    ws = await RawFrames().open(url)
    auth = json.dumps({"world": "table1", "key": key, "client": {"name": "raw", "version": "1"}})
    await ws.write(ws.frame(1, f"40{NS},{auth}".encode()))
    assert (await ws.message()).startswith(f"40{NS},")
    return ws


async def test_fragmented_messages_over_the_wire(small, worlds):
    ws = await _raw_frames_linked(small.url, worlds["table1"][0])
    try:
        # a message in three fragments, a ping between them, its header split across reads
        text = f'42{NS},1["noop",{{"id":"frag"}}]'.encode()
        await ws.write(
            ws.frame(1, text[:10], fin=False),
            ws.frame(9, b"ping"),
            ws.frame(0, text[10:20], fin=False),
            ws.frame(0, text[20:]),
            chunk=3,
        )
        assert (await ws.message()).startswith(f'43{NS},1[{{"ok":true')
        # a fragmented message over the limit, and one over it in its first fragment
        big = f'42{NS},2["chat",{{"id":"b","text":"{"x" * 3 * MAX}"}}]'.encode()
        await ws.write(*(ws.frame(1 if i == 0 else 0, big[i : i + 500], fin=i + 500 >= len(big))
                         for i in range(0, len(big), 500)))  # fmt: skip
        assert "payload_too_large" in await ws.message()
        await ws.write(ws.frame(1, big[:2500], fin=False), ws.frame(0, big[2500:]))
        assert "payload_too_large" in await ws.message()
        # and then a message in one frame, as usual
        await ws.write(ws.frame(1, f'42{NS},3["noop",{{"id":"after"}}]'.encode()))
        assert (await ws.message()).startswith(f'43{NS},3[{{"ok":true')
    finally:
        await ws.close()


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def test_a_long_polling_body_arriving_in_pieces_is_read_whole(db, worlds):
    # engineio read a POST with one read(length), which returns what has arrived so far:
    # a large event sent by long-polling arrived cut short and was refused as bad_json
    # (a long ping timeout: the server is busy with the scene for a while on a slow machine)
    srv = await start_server(db, ping_timeout=20)
    c = TableClient()
    try:
        await c.connect(srv.url, "table1", worlds["table1"][0], transport="polling")
        wide = scene({f"token-{i:05d}": (100 * (i % 50), 100 * (i // 50)) for i in range(5000)})
        assert len(json.dumps(wide)) > 300_000
        ack = await c.send("snapshot", wide, timeout=30)
        assert ack["ok"], ack
    finally:
        await c.close()
        await srv.stop()
