"""The Foundry and Roll20 adapters behind one real bridge: real payloads of every inbound
event (the adapters' test fixtures), clients that can send any JSON text, the world's state."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import socketio
from vttbridge.adapters.bridge.server import Bridge, BridgeConfig, create_world
from vttbridge.adapters.foundry import FoundryAdapter
from vttbridge.adapters.roll20 import Roll20Adapter

ROOT = Path(__file__).resolve().parents[2]
FOUNDRY = ROOT / "tests" / "adapters" / "foundry" / "fixtures"
ROLL20 = ROOT / "tests" / "adapters" / "roll20" / "fixtures"
BIG = "__BIG_LITERAL__"
"""Stands for ``1e400`` in a payload: python-socketio cannot encode that literal, so such a
payload is sent as hand-written packet text with the marker replaced."""


def _load(folder: Path, name: str) -> dict[str, Any]:
    return json.loads((folder / name).read_text())


def foundry_payloads() -> dict[str, dict[str, Any]]:
    snap = _load(FOUNDRY, "snapshot.json")
    combat = snap["combat"]
    kevin = combat["combatants"][0]
    return {
        "snapshot": snap,
        "updateToken": _load(FOUNDRY, "updateToken.json"),
        "preUpdateToken": _load(FOUNDRY, "preUpdateToken.json"),
        "createChatMessage": _load(FOUNDRY, "createChatMessage-command.json"),
        "updateCombat": _load(FOUNDRY, "updateCombat.json"),
        "combatTurnChange": {
            "id": "t",
            "combat": combat,
            "prior": {"round": 1, "turn": 0},
            "current": {"round": 2, "turn": 0, "combatantId": kevin["_id"]},
        },
        "deleteCombat": {"id": "t", "combat": combat},
        "createCombatant": _load(FOUNDRY, "createCombatant.json"),
        "updateCombatant": {
            "id": "t",
            "combatant": kevin | {"initiative": 12},
            "changes": {"initiative": 12},
        },
        "deleteCombatant": {"id": "t", "combatant": kevin},
        "updateActor": _load(FOUNDRY, "updateActor.json"),
    }


def roll20_payloads() -> dict[str, dict[str, Any]]:
    change = _load(ROLL20, "change-graphic.json")
    page = _load(ROLL20, "page.json")
    kevin = {"_id": "-OTokPC01", "_pageid": page["_id"], "name": "Kevin", "left": 175, "top": 175}
    return {
        "snapshot": {
            "id": "t",
            "page": page,
            "graphics": [change["prev"] | {"name": "Goblin 1"}, kevin],
            "players": [{"_id": "-OPlayGM", "_displayname": "Dana", "isGM": True}],
            "characters": [{"_id": "-OCharGob", "name": "Goblin", "stats": {"move": 30}}],
        },
        "change:graphic": change | {"page": page},
        "add:graphic": {"id": "t", "obj": kevin | {"_id": "-OTokNew", "left": 245}, "page": page},
        "destroy:graphic": {"id": "t", "obj": {"_id": "-OTokGob1"}},
        "change:campaign:turnorder": _load(ROLL20, "change-turnorder.json"),
        "chat:message": _load(ROLL20, "chat-api.json") | {"playerIsGM": True},
        "change:attribute": {
            "id": "t",
            "obj": {"_id": "a1", "_characterid": "-OCharGob", "name": "move", "current": "35"},
        },
    }


NAMESPACES = {"/foundry": foundry_payloads(), "/roll20": roll20_payloads()}


class Client:
    def __init__(self, ns: str) -> None:
        self.ns = ns
        self.sio = socketio.AsyncClient(reconnection=False, handle_sigint=False)
        self.commands: list[Any] = []

        self._got = asyncio.Event()

        def on_command(msg: Any) -> dict[str, bool]:
            self.commands.append(msg)
            self._got.set()
            return {"ok": True}

        self.sio.on("command", on_command, namespace=ns)

    async def wait_commands(self, n: int, timeout: float = 5) -> list[Any]:
        """Wait until at least ``n`` commands arrived."""
        async with asyncio.timeout(timeout):
            while len(self.commands) < n:
                self._got.clear()
                await self._got.wait()
        return self.commands

    async def send(self, event: str, payload: Any) -> Any:
        if not _contains(payload, BIG):
            return await self.sio.call(event, payload, namespace=self.ns, timeout=10)
        text = json.dumps([event, payload]).replace(f'"{BIG}"', "1e400")
        fut = asyncio.get_running_loop().create_future()
        ack_id = self.sio._generate_ack_id(self.ns, lambda *a: fut.set_result(a[0] if a else None))
        await self.sio.eio.send(f"2{self.ns},{ack_id}{text}")
        return await asyncio.wait_for(fut, 10)


def _contains(node: Any, marker: str) -> bool:
    if node == marker:
        return True
    if isinstance(node, dict):
        return any(_contains(v, marker) for v in node.values())
    if isinstance(node, list):
        return any(_contains(v, marker) for v in node)
    return False


WORLDS = {"/foundry": ("fw", "foe"), "/roll20": ("rw", "spycraft")}


def fingerprint(bridge: Bridge, ns: str) -> tuple[int, str]:
    host = bridge.worlds[WORLDS[ns][0]]
    return host.seq, json.dumps(host.runtime.snapshot(), sort_keys=True)


@contextlib.asynccontextmanager
async def serve_vtts(tmp_path: Path) -> AsyncIterator[tuple[Bridge, dict[str, Client]]]:
    """A bridge with both adapters; per namespace a world (see :data:`WORLDS`) and a client
    linked to it that has sent the real snapshot."""
    db = tmp_path / "vtts.sqlite3"
    keys = {ns: create_world(db, w, {"system": system})[0] for ns, (w, system) in WORLDS.items()}
    config = BridgeConfig(database=db, reload_scripts=False, rate=0, entry_point_scripts=False)
    bridge = Bridge(config, adapters=[FoundryAdapter(), Roll20Adapter()])
    port = await bridge.listen("127.0.0.1", 0)
    clients: dict[str, Client] = {}
    try:
        for ns, (world, _) in WORLDS.items():
            c = clients[ns] = Client(ns)
            auth = {"world": world, "key": keys[ns], "client": {"name": "test", "version": "1"}}
            await c.sio.connect(
                f"http://127.0.0.1:{port}", namespaces=[ns], auth=auth, transports=["websocket"]
            )
            ack = await c.send("snapshot", NAMESPACES[ns]["snapshot"] | {"id": "snap-0"})
            assert ack["ok"], ack
        yield bridge, clients
    finally:
        for c in clients.values():
            await c.sio.disconnect()
        await bridge.shutdown()
