"""The Foundry adapter behind a real bridge: a python-socketio client on /foundry (what the
companion module sends and receives), a temp SQLite file, a restart in the middle.

What the rules change on a character is the rules' until the GM changes it on the sheet: the
action die a Stand Off spends, the stress of a Resolve check and a crack strike's wound points
go back to the sheets as ``Actor.update`` and stay spent across a re-sent scene (even one from
before the write landed), a sheet edit of another stat and a restart; the stand off shows as
status effects; a GM's own edit of a rules-owned value is followed, and said in chat.

The dice are left random: the stats make every roll that matters certain (Reflex +14 against
DC 11, Resolve +30 against -10, a Wisdom of 1 that any stress passes).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import socketio
from vttbridge.adapters.bridge.server import Bridge, BridgeConfig, create_world
from vttbridge.adapters.foundry import FoundryAdapter

NS = "/foundry"
CLIENT = {"name": "vttbridge-foundry", "version": "0.1.0", "vtt": "foundry 13.350"}
GM, PLAYER = "gM0000000000000A", "kT3rPq8Zx1LmNo2B"
SCENE, KEVIN, VIC = "sDocks0000000001", "tKevin0000000001", "tVic000000000002"
KEVIN_ACTOR, VIC_ACTOR = "aKevin0000000001", "aVic000000000002"
VIC_UUID = f"Scene.{SCENE}.Token.{VIC}.Actor.{VIC_ACTOR}"


def attrs(**stats: Any) -> dict[str, Any]:
    return {k: {"value": v} for k, v in stats.items()}


KEVIN_SHEET = attrs(reflex=14, initiative=5, action_dice=2, bab=3, wisdom=12, resolve=30, stress=0)
VIC_SHEET = attrs(reflex=1, bab=1, wisdom=1, resolve=-10, stress=0, wounds=10)


def snapshot(n: int, kevin: dict[str, Any] | None = None, vic_delta: Any = None) -> dict:
    """The scene as the module sends it (worldbuilding sheets): Kevin linked to his actor, Vic
    an unlinked token whose delta holds what is his own."""
    token = {"elevation": 0, "width": 1, "height": 1, "hidden": False, "y": 500}
    return {
        "id": f"snap-{n}",
        "systemId": "worldbuilding",
        "scene": {"_id": SCENE, "name": "Docks", "grid": {"size": 100, "distance": 5}},
        "tokens": [
            {
                **token,
                "_id": KEVIN,
                "name": "Kevin",
                "actorId": KEVIN_ACTOR,
                "actorLink": True,
                "x": 800,
                "disposition": 1,
            },
            {
                **token,
                "_id": VIC,
                "name": "Vic",
                "actorId": VIC_ACTOR,
                "actorLink": False,
                "x": 1000,
                "disposition": -1,
                "delta": vic_delta or {},
            },
        ],
        "combat": {
            "_id": "cCombat000000002",
            "scene": SCENE,
            "round": 1,
            "turn": 0,
            "combatants": [
                {"_id": "cK", "tokenId": KEVIN, "sceneId": SCENE, "initiative": 22},
                {"_id": "cV", "tokenId": VIC, "sceneId": SCENE, "initiative": 10},
            ],
        },
        "users": [
            {"_id": GM, "name": "Dana", "role": 4},
            {"_id": PLAYER, "name": "Kevin's player", "role": 1},
        ],
        "actors": [
            {
                "_id": KEVIN_ACTOR,
                "name": "Kevin",
                "type": "character",
                "ownership": {PLAYER: 3},
                "system": {"attributes": kevin or KEVIN_SHEET},
            },
            {
                "_id": VIC_ACTOR,
                "name": "Vic",
                "type": "character",
                "system": {"attributes": VIC_SHEET},
            },
        ],
    }


class Module:
    """The companion module on the wire: sends hook payloads, receives and acks commands."""

    def __init__(self) -> None:
        self.sio = socketio.AsyncClient(reconnection=False, handle_sigint=False)
        self.commands: list[dict[str, Any]] = []
        self.n = 0
        self._got = asyncio.Event()

        @self.sio.on("command", namespace=NS)
        async def on_command(msg: dict[str, Any]) -> dict[str, Any]:
            self.commands.append(msg)
            self._got.set()
            return {"ok": True}

    async def connect(self, url: str, key: str) -> Module:
        last = max((c["seq"] for c in self.commands), default=None)
        auth = {"world": "docks", "key": key, "client": CLIENT}
        if last is not None:
            auth["last_seq"] = last
        await self.sio.connect(url, namespaces=[NS], auth=auth, transports=["websocket"])
        return self

    async def send(self, event: str, payload: dict[str, Any]) -> None:
        ack = await self.sio.call(event, payload, namespace=NS, timeout=10)
        assert ack["ok"], ack

    async def say(self, text: str, user: str = GM, token: str | None = None) -> None:
        self.n += 1
        speaker = {"scene": SCENE, "token": token} if token else {"alias": "Dana"}
        msg = {"_id": f"m{self.n}", "content": text, "author": user, "speaker": speaker}
        await self.send(
            "createChatMessage", {"id": f"chat-{self.n}", "userId": user, "message": msg}
        )

    async def wait(self, what: str, pred: Any, timeout: float = 5) -> Any:
        async with asyncio.timeout(timeout):
            while True:
                for c in self.commands:
                    if pred(c):
                        return c
                self._got.clear()
                await self._got.wait()

    def chats(self) -> list[str]:
        return [
            re.sub(r"<[^>]+>", "", c["data"]["content"]).replace("&#x27;", "'")
            for c in self.commands
            if c["op"] == "ChatMessage.create"
        ]

    async def stats(self, who: str) -> str:
        n = len(self.chats())
        await self.say(f"!stats {who}")
        await self.wait(f"!stats {who}", lambda c: len(self.chats()) > n)
        return next(t for t in self.chats()[n:] if t.startswith(f"{who}: kind="))

    async def prompt(self, pattern: str) -> str:
        cmd = await self.wait(
            pattern,
            lambda c: (
                c["op"] == "User.query"
                and re.search(pattern, c["data"]["fallback"]["content"])
                and not c.get("seen")
            ),
        )
        cmd["seen"] = True
        return cmd["data"]["prompt"]

    def ops(self, op: str) -> list[dict[str, Any]]:
        return [c for c in self.commands if c["op"] == op]


async def start(db: Path) -> tuple[Bridge, str]:
    bridge = Bridge(BridgeConfig(database=db, reload_scripts=False), adapters=[FoundryAdapter()])
    port = await bridge.listen("127.0.0.1", 0)
    return bridge, f"http://127.0.0.1:{port}"


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[tuple[Path, str]]:
    db = tmp_path / "bridge.sqlite3"
    key, _ = create_world(db, "docks", {"system": "spycraft"})
    yield db, key


def writes(cmd: dict[str, Any], stat: str) -> Any:
    """The value an ``Actor.update`` writes to ``stat`` (worldbuilding's path), or None."""
    if cmd["op"] != "Actor.update":
        return None
    return cmd["data"]["update"].get(f"system.attributes.{stat}.value")


def toggles(cmd: dict[str, Any], token: str, status: str, active: bool) -> bool:
    return (
        cmd["op"] == "Actor.toggleStatusEffect"
        and cmd["data"]["tokenId"] == token
        and any(s["id"] == status and s["active"] is active for s in cmd["data"]["statuses"])
    )


def sheet_edit(eid: str, changes: dict[str, Any]) -> dict[str, Any]:
    """``updateActor`` of Kevin's (world) actor."""
    return {"id": eid, "actorUuid": f"Actor.{KEVIN_ACTOR}", "changes": changes}


def kevins_dice(m: Module) -> list[int]:
    return [
        v
        for c in m.ops("Actor.update")
        if c["data"]["_id"] == KEVIN_ACTOR and (v := writes(c, "action_dice")) is not None
    ]


async def test_the_rules_changes_stay_and_reach_the_sheets(table: tuple[Path, str]) -> None:
    db, key = table
    bridge, url = await start(db)
    m = Module()
    try:
        await m.connect(url, key)
        await m.send("snapshot", snapshot(1))
        await m.say("!next")  # Kevin's turn (adopted from the tracker) -> Vic's
        await m.say("!attack Kevin", token=VIC)
        await m.say(f"!answer {await m.prompt('Stand off')} stand_off", user=PLAYER, token=KEVIN)
        spend = await m.wait("the spend", lambda c: c["op"] == "Actor.update")
        assert spend["data"] == {
            "_id": KEVIN_ACTOR,
            "update": {"system.attributes.action_dice.value": 1},
        }
        assert spend["options"] == {"vttbridge": {"bridge": True}}
        await m.wait("Vic's stand off", lambda c: toggles(c, VIC, "vttbridge-standoff", True))
        statuses = {
            c["data"]["tokenId"]: sorted(s["id"] for s in c["data"]["statuses"] if s["active"])
            for c in m.ops("Actor.toggleStatusEffect")
        }
        assert statuses == {
            KEVIN: ["vttbridge-standoff", "vttbridge-vulnerable"],
            VIC: ["vttbridge-standoff", "vttbridge-vulnerable"],
        }

        # the module sends the scene again before the write landed (its sheet says 2)
        await m.send("snapshot", snapshot(2))
        assert "action_dice=1," in await m.stats("Kevin")
        # the GM edits another stat on the sheet (the module forwards updateActor)
        changes = {"_id": KEVIN_ACTOR, "system": {"attributes": {"reflex": {"value": 15}}}}
        await m.send("updateActor", sheet_edit("ua-1", changes))
        line = await m.stats("Kevin")
        assert "reflex=15," in line and "action_dice=1," in line
        assert kevins_dice(m) == [1]  # written once, never bounced

        # -- the server restarts, as after a crash: the world is rebuilt from its log ----------
        await m.sio.disconnect()
        await bridge.shutdown(snapshot=False)
        bridge, url = await start(db)
        assert bridge.worlds["docks"].replay_divergences == 0  # the same effects as logged
        await m.connect(url, key)
        await m.send("snapshot", snapshot(3))
        assert "action_dice=1," in await m.stats("Kevin")

        # -- round 2: Vic loses the test of wills, cracks and is struck ------------------------
        await m.say("!next")
        await m.say(f"!answer {await m.prompt('Vic cracks!')} be_attacked")
        struck = await m.wait("Vic's wounds", lambda c: writes(c, "wounds") is not None)
        assert struck["data"]["tokenId"] == VIC and struck["data"]["sceneId"] == SCENE
        assert struck["data"]["update"]["system.attributes.wounds.value"] == -1
        stress = [
            c["data"]["update"]["system.attributes.stress.value"]
            for c in m.ops("Actor.update")
            if c["data"].get("tokenId") == VIC
            and "system.attributes.stress.value" in c["data"]["update"]
        ]
        assert len(stress) == 1 and stress[0] >= 2
        await m.wait("Vic dying", lambda c: toggles(c, VIC, "vttbridge-dying", True))
        # a scene from before the writes landed: Vic's delta still empty
        await m.send("snapshot", snapshot(4))
        line = await m.stats("Vic")
        assert "wounds=-1," in line and f"stress={stress[0]}," in line
        # and one after: his delta holds them; nothing is written again
        written = len(m.ops("Actor.update"))
        delta = {"system": {"attributes": attrs(wounds=-1, stress=stress[0])}}
        await m.send("snapshot", snapshot(5, vic_delta=delta))
        assert "wounds=-1," in await m.stats("Vic")
        assert len(m.ops("Actor.update")) == written
        pending = bridge.worlds["docks"].runtime.world.sheet_writes
        assert VIC not in pending  # his sheet shows them now
        assert pending[KEVIN]["action_dice"].sent == [1]  # Kevin's never came back in a scene

        # -- the GM sets Kevin's action dice on the sheet ----------------------------------------
        changes = {"_id": KEVIN_ACTOR, "system": {"attributes": {"action_dice": {"value": 3}}}}
        await m.send("updateActor", sheet_edit("ua-2", changes))
        told_gm = "Kevin's action dice set to 3 on the sheet; the rules follow."
        await m.wait("the GM told", lambda c: told_gm in m.chats())
        told = next(c for c in m.ops("ChatMessage.create") if "set to 3" in c["data"]["content"])
        assert told["data"]["whisper"] == [GM]
        assert "action_dice=3," in await m.stats("Kevin")
        assert kevins_dice(m) == [1]
    finally:
        await m.sio.disconnect()
        await bridge.shutdown()
