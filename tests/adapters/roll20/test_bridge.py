"""The Roll20 adapter behind a real bridge: python-socketio client on /roll20, a temp SQLite file.

Bad payloads get the protocol's error codes and leave the world unchanged; good ones come back
as Roll20 commands.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import socketio
from vttbridge.adapters.base import AdapterRegistry, check_adapter
from vttbridge.adapters.bridge.schema import schemas
from vttbridge.adapters.bridge.server import Bridge, BridgeConfig, create_world
from vttbridge.adapters.roll20 import Roll20Adapter

from tests.adapters.commands import commands_up_to

from .conftest import fixture

NS = "/roll20"
CLIENT = {"name": "vttbridge-roll20-relay", "version": "0.1.0", "vtt": "roll20"}


class Relay:
    """What the relay does on the wire: emits events, receives and acks commands."""

    def __init__(self, bridge: Bridge, world: str) -> None:
        self.sio = socketio.AsyncClient(reconnection=False, handle_sigint=False)
        self.commands: list[dict[str, Any]] = []
        self.bridge, self.world = bridge, world
        self.acked = 0

        @self.sio.on("command", namespace=NS)
        async def on_command(msg: dict[str, Any]) -> dict[str, Any]:
            self.commands.append(msg)
            return {"ok": True}

    async def send(self, event: str, payload: Any) -> dict[str, Any]:
        ack = await self.sio.call(event, payload, namespace=NS, timeout=10)
        if ack.get("ok"):
            self.acked = ack["seq"]
        return ack

    async def settle(self) -> None:
        """Wait for the commands the last acked event caused."""
        await commands_up_to(self.commands, self.acked, self.bridge.worlds[self.world].seq)


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[str, str, Bridge]]:
    db = tmp_path / "w.sqlite3"
    gm_key, _ = create_world(db, "cave", {"system": "spycraft"})
    bridge = Bridge(BridgeConfig(database=db, reload_scripts=False), adapters=[Roll20Adapter()])
    port = await bridge.listen("127.0.0.1", 0)
    yield f"http://127.0.0.1:{port}", gm_key, bridge
    await bridge.shutdown()


@pytest.fixture
async def relay(served: tuple[str, str, Bridge]) -> AsyncIterator[Relay]:
    url, key, bridge = served
    r = Relay(bridge, "cave")
    await r.sio.connect(
        url,
        namespaces=[NS],
        auth={"world": "cave", "key": key, "client": CLIENT},
        transports=["websocket"],
        wait_timeout=5,
    )
    snap = {
        "id": "snap-1",
        "page": fixture("page.json"),
        "graphics": [
            fixture("change-graphic.json")["prev"] | {"name": "Goblin 1"},
            {
                "_id": "-OTokPC01",
                "_pageid": "-OPage01",
                "name": "Kevin",
                "left": 175,
                "top": 175,
                "controlledby": "-OPlay02",
            },
        ],
        "players": [
            {"_id": "-OPlayGM", "_displayname": "Dana", "isGM": True},
            {"_id": "-OPlay02", "_displayname": "Bob", "isGM": False},
        ],
    }
    ack = await r.send("snapshot", snap)
    assert ack["ok"], ack
    yield r
    await r.sio.disconnect()


def _state(bridge: Bridge) -> dict[str, Any]:
    return json.loads(json.dumps(bridge.worlds["cave"].runtime.world.model_dump(mode="json")))


def test_the_adapter_is_servable_and_publishes_schemas() -> None:
    adapter = Roll20Adapter()
    check_adapter(adapter)
    reg = AdapterRegistry([Roll20Adapter])
    assert "roll20" in reg and reg.get("roll20").ns == "/roll20"
    names = set(schemas([adapter]))
    for event in ("snapshot", "change_graphic", "change_campaign_turnorder", "chat_message"):
        assert f"roll20/in/{event}.json" in names
    for op in ("sendChat", "set", "Campaign.set", "watch", "setStats"):
        assert f"roll20/out/{op}.json" in names


@pytest.mark.parametrize(
    ("event", "payload", "code", "path"),
    [
        ("change:graphic", {"id": "b1"}, "missing_field", "obj"),
        ("change:graphic", {"id": "b2", "obj": {"left": 5}}, "missing_field", "obj._id"),
        (
            "change:graphic",
            {"id": "b3", "obj": {"_id": "-OTokGob1", "left": "far"}},
            "wrong_type",
            "obj.left",
        ),
        (
            "chat:message",
            {"id": "b4", "msg": {"type": "shout", "content": "x"}},
            "wrong_type",
            "msg.type",
        ),
        (
            "chat:message",
            {"id": "b5", "msg": {"type": "api", "content": "!x $[[2]]"}},
            "bad_inline_roll",
            "msg.inlinerolls",
        ),
        (
            "change:campaign:turnorder",
            {"id": "b6", "obj": {"turnorder": "[{"}},
            "bad_turnorder",
            "obj.turnorder",
        ),
        (
            "change:graphic",
            {
                "id": "b7",
                "obj": {"_id": "-OTokGob1", "left": 1, "top": 1, "lastmove": "1,x"},
                "prev": {"left": 5},
            },
            "bad_lastmove",
            "obj.lastmove",
        ),
        ("change:door", {"id": "b8", "obj": {}}, "unknown_event", None),
        ("change:graphic", ["not", "an", "object"], "bad_payload", None),
        (
            "snapshot",
            {"id": "b9", "page": {"scale_number": 0}},
            "out_of_range",
            "page.scale_number",
        ),
    ],
)
async def test_bad_payloads_get_error_codes_and_change_nothing(
    served: tuple[str, str, Bridge],
    relay: Relay,
    event: str,
    payload: Any,
    code: str,
    path: str | None,
) -> None:
    _, _, bridge = served
    before = _state(bridge)
    ack = await relay.send(event, payload)
    assert ack["ok"] is False, ack
    assert ack["error"]["code"] == code, ack
    if path is not None:
        assert ack["error"].get("path") == path, ack
    assert _state(bridge) == before
    # the connection stays up
    assert (await relay.send("chat:message", fixture("chat-rollresult.json")))["ok"]


async def test_oversized_payload(served: tuple[str, str, Bridge], relay: Relay) -> None:
    big = {"id": "big", "msg": {"type": "general", "content": "x" * 600_000}}
    ack = await relay.send("chat:message", big)
    assert ack["error"]["code"] == "payload_too_large"


async def test_a_move_and_a_turn_order_round_trip(
    served: tuple[str, str, Bridge], relay: Relay
) -> None:
    _, _, bridge = served
    ack = await relay.send("change:graphic", fixture("change-graphic.json"))
    assert ack["ok"], ack
    world = bridge.worlds["cave"].runtime.world
    assert (world.tokens["-OTokGob1"].cell.x, world.tokens["-OTokGob1"].cell.y) == (9, 5)
    # the GM starts a combat from chat: the bridge writes the turn order back, merged
    chat = fixture("chat-api.json")
    chat["msg"]["content"] = "!init"
    chat["playerIsGM"] = True
    ack = await relay.send("chat:message", chat)
    assert ack["ok"], ack
    await relay.settle()
    ops = [c["op"] for c in relay.commands]
    assert "sendChat" in ops and "Campaign.set" in ops
    merges = [c["data"]["merge"] for c in relay.commands if c["op"] == "Campaign.set"]
    assert {row["id"] for m in merges for row in m["set"]} == {"-OTokGob1", "-OTokPC01"}
    assert any(m.get("current") for m in merges)
    seqs = [c["seq"] for c in relay.commands]
    assert seqs == sorted(seqs)


async def test_a_sheet_change_reaches_every_token_of_its_character(
    served: tuple[str, str, Bridge],
) -> None:
    """Two tokens represent one character, neither with a linked bar: a change of its
    ``vttb_move`` reaches both (a token's mapped bars stay its own)."""
    url, key, bridge = served
    r = Relay(bridge, "cave")
    auth = {"world": "cave", "key": key, "client": CLIENT}
    await r.sio.connect(url, namespaces=[NS], auth=auth, transports=["websocket"], wait_timeout=5)
    try:
        gob = {"_pageid": "-OPage01", "represents": "-OCharGob", "top": 105}
        snap = {
            "id": "snap-gob",
            "page": fixture("page.json"),
            "graphics": [
                {**gob, "_id": "-OTokGobA", "name": "Goblin A", "left": 35},
                {**gob, "_id": "-OTokGobB", "name": "Goblin B", "left": 105, "bar2_value": "4"},
            ],
            "characters": [{"_id": "-OCharGob", "name": "Goblin", "stats": {"move": "20"}}],
            "bars": {"bar1": "hp", "bar2": "stress"},
        }
        assert (await r.send("snapshot", snap))["ok"]
        chars = bridge.worlds["cave"].runtime.world.encounter.characters
        assert (chars["-OTokGobA"].move, chars["-OTokGobB"].move) == (20, 20)
        change = {
            "id": "attr-1",
            "obj": {"_id": "-OAttr", "_characterid": "-OCharGob", "name": "move", "current": "35"},
            "prev": {"current": "20"},
        }
        assert (await r.send("change:attribute", change))["ok"]
        assert (chars["-OTokGobA"].move, chars["-OTokGobB"].move) == (35, 35)
        assert (chars["-OTokGobA"].stress, chars["-OTokGobB"].stress) == (0, 4)  # B's own bar

        # the rules' changes go back as setStats, the conditions as markers
        chat = fixture("chat-api.json")
        chat["msg"] |= {"content": "!stats -OTokGobB stress=6", "selected": []}
        chat["playerIsGM"] = True
        assert (await r.send("chat:message", chat))["ok"]
        await r.settle()
        [cmd] = [c for c in r.commands if c["op"] == "setStats"]
        assert cmd["data"] == {
            "token": "-OTokGobB",
            "character": "-OCharGob",
            "stats": {"stress": 6},
        }
        Roll20Adapter.outbound["setStats"].model_validate(cmd["data"])
    finally:
        await r.sio.disconnect()


def test_conditions_become_markers() -> None:
    from vttbridge.sdk import effects as fx
    from vttbridge.sdk.world import World

    adapter = Roll20Adapter()
    effect = fx.UpdateConditions(
        token="-OTokA", conditions=["dying", "standoff", "own-script-thing"], removed=["readied"]
    )
    [cmd] = adapter.translate_out(effect, World(id="w"))
    assert cmd.op == "set"
    assert cmd.data == {
        "type": "graphic",
        "id": "-OTokA",
        "attrs": {},
        "markers": {"add": ["half-heart", "archery-target"], "remove": ["sentry-gun"]},
    }
    assert (
        adapter.translate_out(fx.UpdateConditions(token="-OTokA", conditions=["x"]), World(id="w"))
        == []
    )
    mine = Roll20Adapter(markers={"standoff": "red"})
    [cmd] = mine.translate_out(
        fx.UpdateConditions(token="-OTokA", conditions=["standoff"]), World(id="w")
    )
    assert cmd.data["markers"] == {"add": ["red"], "remove": []}


# -- a Fallout: Equestria table: a charge along the path Roll20 reports as lastmove -------------


def _px(cell: int) -> int:
    """The centre of a cell in px (70 px cells; Roll20's left/top are the centre)."""
    return 70 * cell + 35


@pytest.fixture
async def foe_relay(tmp_path: Path) -> AsyncIterator[Relay]:
    db = tmp_path / "foe.sqlite3"
    key, _ = create_world(db, "wasteland", {"system": "foe"})
    bridge = Bridge(BridgeConfig(database=db, reload_scripts=False), adapters=[Roll20Adapter()])
    port = await bridge.listen("127.0.0.1", 0)
    r = Relay(bridge, "wasteland")
    await r.sio.connect(
        f"http://127.0.0.1:{port}",
        namespaces=[NS],
        auth={"world": "wasteland", "key": key, "client": CLIENT},
        transports=["websocket"],
        wait_timeout=5,
    )
    graphic = {"_type": "graphic", "_subtype": "token", "_pageid": "-OPage01", "layer": "objects"}
    snap = {
        "id": "snap-foe",
        "page": fixture("page.json"),
        "graphics": [
            {
                **graphic,
                "_id": "-OTokPC01",
                "name": "Kevin",
                "left": _px(2),
                "top": _px(2),
                "controlledby": "-OPlay02",
            },
            {**graphic, "_id": "-OTokGob1", "name": "Goblin", "left": _px(7), "top": _px(2)},
        ],
        "campaign": {
            "turnorder": json.dumps(
                [{"id": "-OTokPC01", "pr": 90, "custom": ""}, {"id": "-OTokGob1", "pr": 10}]
            )
        },
        "players": [
            {"_id": "-OPlayGM", "_displayname": "Dana", "isGM": True},
            {"_id": "-OPlay02", "_displayname": "Bob", "isGM": False},
        ],
    }
    ack = await r.send("snapshot", snap)
    assert ack["ok"], ack
    await r.settle()
    yield r
    await r.sio.disconnect()
    await bridge.shutdown()


def _drag(eid: str, cells: list[tuple[int, int]]) -> dict[str, Any]:
    """Kevin dragged along ``cells``: ``lastmove`` holds the start and the waypoints."""
    (x0, y0), (x1, y1) = cells[0], cells[-1]
    lastmove = ",".join(f"{_px(x)},{_px(y)}" for x, y in cells[:-1])
    return {
        "id": eid,
        "obj": {
            "_id": "-OTokPC01",
            "_type": "graphic",
            "_subtype": "token",
            "_pageid": "-OPage01",
            "left": _px(x1),
            "top": _px(y1),
            "lastmove": lastmove,
        },
        "prev": {"_id": "-OTokPC01", "left": _px(x0), "top": _px(y0), "lastmove": ""},
    }


def _says(relay: Relay, start: int) -> str:
    return "\n".join(c["data"]["message"] for c in relay.commands[start:] if c["op"] == "sendChat")


async def test_an_l_shaped_lastmove_declared_a_charge_is_refused(foe_relay: Relay) -> None:
    ack = await foe_relay.send("change:graphic", _drag("drag-1", [(2, 2), (4, 2), (4, 3), (6, 3)]))
    assert ack["ok"], ack
    chat = fixture("chat-api.json")
    chat["msg"].update(content="!charge -OTokGob1", playerid="-OPlay02")
    chat["playerIsGM"] = False
    start = len(foe_relay.commands)
    assert (await foe_relay.send("chat:message", chat))["ok"]
    await foe_relay.settle()
    assert "Kevin's charge must run in a straight line." in _says(foe_relay, start)


async def test_a_straight_lastmove_charge_ending_adjacent_is_allowed(foe_relay: Relay) -> None:
    ack = await foe_relay.send("change:graphic", _drag("drag-2", [(2, 2), (6, 2)]))  # 20 ft
    assert ack["ok"], ack
    chat = fixture("chat-api.json")
    chat["msg"].update(content="!charge -OTokGob1", playerid="-OPlay02")
    chat["playerIsGM"] = False
    start = len(foe_relay.commands)
    assert (await foe_relay.send("chat:message", chat))["ok"]
    await foe_relay.settle()
    said = _says(foe_relay, start)
    assert "Kevin charges 20 ft!" in said and "Whom does Kevin attack" in said
