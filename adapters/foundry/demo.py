"""``vttbridge demo``: a simulated Foundry client plays Kevin's corner Ready and a Stand Off over a
real socket.io connection, printing the chat as the GM sees it.

- ``vttbridge demo --world default`` plays into a running server's world, as a client with the
  world's GM key, so a GM watches the dashboard follow a fight before linking a VTT. It refuses
  a world another VTT is linked to right now, one holding a scene of its own, or one of another
  game system, and ends its fight when done (its tokens stay on the map until a VTT sends its
  own scene).
- ``vttbridge demo --private`` (or ``python -m vttbridge.adapters.foundry.demo``) runs a bridge of
  its own, in-process, on a temporary database: no server needed.

The simulated client speaks the companion module's protocol (the same payloads, the same held
moves, one "Foundry call" per command, acknowledged) against an in-memory table, so the demo
needs neither Foundry nor Node. Dice are real: the numbers change from run to run, the story does
not (Kevin's Reflex is high enough that holding back always succeeds).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import logging
import secrets
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import socketio
from vttbridge.adapters.bridge.install import version
from vttbridge.adapters.bridge.server import Bridge, BridgeConfig, create_world
from vttbridge.adapters.foundry import FLAG, FoundryAdapter
from vttbridge.adapters.foundry.geometry import crossed, foundry_cell
from vttbridge.adapters.foundry.text import strip_html
from vttbridge.rules.geometry import Cell

log = logging.getLogger(__name__)

GM, PLAYER = "gM0000000000000A", "kT3rPq8Zx1LmNo2B"
KEVIN, GARY, THUG = "tKevin0000000001", "tGary00000000002", "tThug00000000003"
SCENE = "sWarehouse000001"
NAMES = {GM: "Dana (GM)", PLAYER: "Kevin's player"}


def _snapshot() -> dict[str, Any]:
    def tok(tid: str, name: str, actor: str, x: int, y: int, **kw: Any) -> dict[str, Any]:
        return {
            "_id": tid,
            "name": name,
            "actorId": actor,
            "actorLink": True,
            "x": x,
            "y": y,
            "width": 1,
            "height": 1,
            "disposition": 1,
            "hidden": False,
            **kw,
        }

    def attrs(**kw: Any) -> dict[str, Any]:
        return {k: {"value": v} for k, v in kw.items()}

    return {
        "systemId": "worldbuilding",
        "scene": {"_id": SCENE, "name": "Warehouse", "grid": {"size": 100, "distance": 5}},
        "tokens": [
            tok(KEVIN, "Kevin", "aKevin", 800, 500),
            tok(GARY, "Gary", "aGary", 1300, 500),
            tok(THUG, "Thug", "aThug", 1300, 800, actorLink=False, disposition=-1),
        ],
        "actors": [
            {
                "_id": "aKevin",
                "name": "Kevin",
                "type": "character",
                "ownership": {PLAYER: 3},
                "system": {"attributes": attrs(reflex=14, initiative=5, action_dice=2, bab=3)},
            },
            {
                "_id": "aGary",
                "name": "Gary",
                "type": "character",
                "system": {"attributes": attrs(reflex=2)},
            },
            {
                "_id": "aThug",
                "name": "Thug",
                "type": "npc",
                "system": {"attributes": attrs(bab=1, wounds=10)},
            },
        ],
        "users": [
            {"_id": GM, "name": "Dana", "role": 4},
            {"_id": PLAYER, "name": "Kevin's player", "role": 1},
        ],
        "regions": [
            {
                "_id": "rCorner",
                "name": "corner",
                "shapes": [{"type": "rectangle", "x": 1000, "y": 400, "width": 200, "height": 300}],
            }
        ],
        "combat": {
            "_id": "cCombat",
            "scene": SCENE,
            "round": 1,
            "turn": 0,
            "combatants": [
                {"_id": "cK", "tokenId": KEVIN, "name": "Kevin", "initiative": 22},
                {"_id": "cG", "tokenId": GARY, "name": "Gary", "initiative": 14},
                {"_id": "cT", "tokenId": THUG, "name": "Thug", "initiative": 10},
            ],
        },
    }


class DemoRefused(Exception):
    """The demo cannot play into that world; the message says why and what to do."""


class SimFoundry:
    """A Foundry table in memory behind the module's protocol."""

    def __init__(self, out: Callable[[str], None]) -> None:
        self.out = out
        snap = _snapshot()
        self.tokens = {t["_id"]: t for t in copy.deepcopy(snap["tokens"])}
        self.combatants = {c["tokenId"]: c for c in copy.deepcopy(snap["combat"]["combatants"])}
        self.round = 1
        self.active: str | None = KEVIN
        self.watch: dict[str, Any] = {}
        self.holds: dict[str, dict[str, Any]] = {}
        self.chat: list[str] = []
        self.prompts: list[dict[str, Any]] = []
        self.ids = itertools.count(1)
        # event ids are unique per world, forever: a second run must not repeat the first's
        self.run = secrets.token_hex(4)
        self.changed = asyncio.Event()
        self.sio = socketio.AsyncClient(reconnection=False, handle_sigint=False)
        self.sio.on("command", self._command, namespace="/foundry")

    # -- the module's side of the wire ---------------------------------------------------------
    async def connect(self, url: str, world: str, key: str) -> None:
        client = {"name": "vttbridge-demo", "version": version(), "vtt": "Foundry (simulated)"}
        auth = {"world": world, "key": key, "client": client}
        try:
            await self.sio.connect(
                url, namespaces=["/foundry"], auth=auth, transports=["websocket"]
            )
        except socketio.exceptions.ConnectionError as e:
            raise DemoRefused(f"{url} refused the demo's connection: {e}") from None
        await self.send("snapshot", _snapshot())

    async def send(self, event: str, payload: dict[str, Any]) -> dict[str, Any]:
        body = {"id": f"demo-{self.run}-{next(self.ids)}", **payload}
        ack = await self.sio.call(event, body, namespace="/foundry", timeout=10)
        if not ack.get("ok"):
            error = ack.get("error") or {}
            if error.get("code") == "read_only":
                raise DemoRefused("That is the world's observer key, which may only watch; the "
                                  "demo needs its GM key.")  # fmt: skip
            raise DemoRefused(f"The server refused the demo's {event}: {error.get('message')}")
        return ack

    async def _command(self, msg: dict[str, Any]) -> dict[str, Any]:
        op, data, options = msg["op"], msg.get("data", {}), msg.get("options") or {}
        if op == "User.query":  # a client with no dialogs posts the question's whisper
            op, data = "ChatMessage.create", data["fallback"]
        if op == "ChatMessage.create":
            to = [NAMES.get(u, u) for u in data.get("whisper", [])]
            who = f"(to {', '.join(to)}) " if to else ""
            text = strip_html(data.get("content", "")).replace("\n", " ")
            self.chat.append(text)
            self.out(f"  {data.get('speaker', {}).get('alias', '?')}: {who}{text}")
            if data.get("flags", {}).get(FLAG, {}).get("prompt"):
                self.prompts.append(data["flags"][FLAG])
        elif op == "Token.update":
            tok = self.tokens[data["_id"]]
            hold = options.get(FLAG, {}).get("hold")
            change = self.holds.pop(hold, None) if hold else None
            tok.update(
                change
                if change and options[FLAG].get("moved")
                else {k: v for k, v in data.items() if k in ("x", "y", "hidden", "name")}
            )
            if hold:
                self.out(f"  [Foundry] {tok['name']}'s held move completes.")
        elif op == "Combatant.update":
            self.combatants[data["tokenId"]]["initiative"] = data["initiative"]
        elif op == "Combat.update":
            self.round, self.active = data["round"], data.get("tokenId")
        elif op == "Combat.delete":
            self.active = None
        elif op == "Scene.update":
            self.watch = data.get("flags", {}).get(FLAG, {}).get("watch", {})
        self.changed.set()
        return {"ok": True}

    async def until(self, what: str, pred: Callable[[], Any], timeout: float = 10) -> Any:
        try:
            async with asyncio.timeout(timeout):
                while not (found := pred()):
                    self.changed.clear()
                    await self.changed.wait()
        except TimeoutError:
            raise DemoRefused(
                f"The demo waited {timeout:g} s for {what} in vain; the server's log may say why."
            ) from None
        return found

    # -- what the people at the table do -------------------------------------------------------
    async def say(self, user: str, text: str, token: str | None = None) -> None:
        speaker = {"token": token, "alias": self.tokens[token]["name"]} if token else {}
        self.out(f"{NAMES[user]}: {text}")
        await self.send(
            "createChatMessage",
            {
                "userId": user,
                "message": {
                    "_id": f"m{self.run}{next(self.ids)}",
                    "author": user,
                    "content": text,
                    "speaker": speaker,
                },
            },
        )

    async def drag(self, token: str, x: int, y: int) -> None:
        """Drag a token as Foundry's preUpdateToken hook would see it: watched moves are held."""
        tok = self.tokens[token]
        self.out(f"[Foundry] the GM drags {tok['name']} to {x},{y}")
        start, end = foundry_cell(tok["x"], tok["y"], 100), foundry_cell(x, y, 100)
        if self._watched(token, start, end):
            payload = {
                "userId": GM,
                "sceneId": SCENE,
                "token": dict(tok),
                "changes": {"_id": token, "x": x, "y": y},
            }
            hid = f"demo-{self.run}-{next(self.ids)}"
            self.holds[hid] = {"x": x, "y": y}
            self.out(f"  [Foundry] the move is held: vttbridge watches {tok['name']}'s path.")
            ack = await self.sio.call(
                "preUpdateToken",
                {"id": hid, **payload, "hold": {"id": hid}},
                namespace="/foundry",
                timeout=10,
            )
            assert ack.get("ok"), ack
            return
        origin = {"x": tok["x"], "y": tok["y"]}
        tok.update(x=x, y=y)
        await self.send(
            "updateToken",
            {
                "userId": GM,
                "sceneId": SCENE,
                "token": dict(tok),
                "changes": {"x": x, "y": y},
                "origin": origin,
            },
        )

    def _watched(self, token: str, start: Cell, end: Cell) -> bool:
        path = crossed([start, end])
        for w in self.watch.get("watches", []):
            if w.get("exclude") == token or (w.get("token") and w["token"] != token):
                continue
            if w.get("cells") is None:
                return start != end
            cells = {tuple(c) for c in w["cells"]}
            if any(b in cells and a not in cells for a, b in itertools.pairwise(path)):
                return True
        return False

    async def answer(self, option: str) -> None:
        prompt = await self.until("a question", lambda: self.prompts and self.prompts.pop(0))
        await self.say(PLAYER, f"!answer {prompt['prompt']} {option}", KEVIN)


DEMO_TOKENS = {KEVIN, GARY, THUG}


async def check_world(url: str, world: str, key: str) -> dict[str, Any]:
    """Make sure the demo may play into ``world`` at ``url`` (its state, read with ``key``):
    a Spycraft world, no VTT client connected, no scene but the demo's own. Returns the
    world's state; raises :class:`DemoRefused`."""
    import aiohttp

    headers = {"Authorization": f"Bearer {key}"}
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as http,
            http.get(f"{url}/api/worlds/{world}/state", headers=headers) as r,
        ):
            body = await r.json(content_type=None)
    except (aiohttp.ClientError, TimeoutError, ValueError) as e:
        raise DemoRefused(
            f"No vttbridge answers at {url} ({e.__class__.__name__}). Start one with "
            "`vttbridge serve`, or play on a bridge of the demo's own: `vttbridge demo --private`."
        ) from None
    if r.status != 200:
        message = (body.get("error") or {}).get("message", f"HTTP {r.status}")
        raise DemoRefused(f"{url} refused world {world!r}: {message}")
    if body.get("system") != "spycraft":
        raise DemoRefused(
            f"World {world!r} plays {body.get('system')}; the demo is a Spycraft 2.0 fight. Make a "
            "world for it: `vttbridge world create demo`, then `vttbridge demo --world demo`."
        )
    if body.get("clients"):
        raise DemoRefused(
            f"A VTT is linked to world {world!r} right now ({body['clients']} connected); the "
            "demo would play into its game. Use a world of its own: `vttbridge world create "
            "demo`, then `vttbridge demo --world demo`."
        )
    others = set(body.get("tokens") or {}) - DEMO_TOKENS
    if others:
        raise DemoRefused(
            f"World {world!r} holds a scene already ({len(others)} tokens); the demo would "
            "replace it. Use a world of its own: `vttbridge world create demo`, then "
            "`vttbridge demo --world demo`."
        )
    return body


async def play(
    out: Callable[[str], None] = print,
    *,
    url: str | None = None,
    world: str = "demo",
    key: str | None = None,
    pace: float = 0.0,
) -> list[str]:
    """Run the demo; returns the chat lines vttbridge posted. With ``url`` (and the GM ``key``
    of ``world``) into that running server, else on a bridge of its own. ``pace``: seconds
    between the steps, for a person watching the dashboard."""
    if url is not None:
        url = url.rstrip("/")
        state = await check_world(url, world, key or "")
        leftover = bool(state.get("encounter", {}).get("in_combat"))
        out(f"Playing a Spycraft 2.0 fight into world {world!r} at {url}.")
        out(f"Watch it on the dashboard: {url}/ (sign in with world {world!r} and its key).")
        return await _play(SimFoundry(out), url, world, key or "", pace, leftover=leftover)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "demo.sqlite3"
        key, _observer = create_world(db, "demo")
        config = BridgeConfig(database=db, reload_scripts=False)  # holds is a built-in
        bridge = Bridge(config, adapters=[FoundryAdapter()])
        port = await bridge.listen("127.0.0.1", 0)
        out(f"vttbridge on http://127.0.0.1:{port}; a simulated Foundry client links the world.")
        try:
            return await _play(SimFoundry(out), f"http://127.0.0.1:{port}", "demo", key, pace)
        finally:
            await bridge.shutdown()
            log.debug("demo: done")


async def _play(
    table: SimFoundry, url: str, world: str, key: str, pace: float, *, leftover: bool = False
) -> list[str]:
    """The story, over the wire. ``leftover``: the world is still in the fight of an earlier
    demo that was cut short, which ends first."""
    out = table.out

    async def step(title: str) -> None:
        await asyncio.sleep(pace)
        out(f"\n-- {title}")

    try:
        await table.connect(url, world, key)
        if leftover:
            await table.say(GM, "!end")
            await table.send("snapshot", _snapshot())
        await table.until("the combat", lambda: any("Combat adopted" in c for c in table.chat))
        await step("Round 1: Kevin readies a shot at whoever rounds the corner, on the attempt")
        await table.say(PLAYER, "!ready shoot --when corner --timing attempt", KEVIN)
        await table.until("the watch", lambda: table.watch.get("watches"))
        await step("Gary, Kevin's ally, rounds the corner at IC 14")
        await table.drag(GARY, 1000, 500)
        await table.answer("cancel")
        await table.until("Gary's move", lambda: table.tokens[GARY]["x"] == 1000)
        await step("On to round 2")
        await table.say(GM, "!next")
        await table.until("the Thug's turn", lambda: table.active == THUG)
        await table.say(GM, "!next")
        await table.until("Kevin's turn", lambda: table.round == 2 and table.active == KEVIN)
        await table.say(PLAYER, "!ready shoot --when corner --timing attempt", KEVIN)
        await table.until("Gary's turn", lambda: table.active == GARY)
        await table.say(GM, "!next")
        await table.until("the Thug's turn", lambda: table.active == THUG)
        await step("The Thug, an enemy, rounds the corner at IC 10")
        await table.drag(THUG, 1100, 500)
        await table.answer("fire")
        await table.until("the Thug's move", lambda: table.tokens[THUG]["x"] == 1100)
        await step("The Thug attacks Kevin; Kevin stands off")
        await table.say(GM, "!attack Kevin", THUG)
        await table.answer("stand_off")
        await table.until("the stand off", lambda: any("weapon point" in c for c in table.chat))
        await step("The GM enters 3 wounds on the Thug's sheet")
        out("[Foundry] the GM edits the Thug's wounds: 10 -> 7")
        await table.send(
            "updateActor",
            {
                "actorUuid": f"Scene.{SCENE}.Token.{THUG}.Actor.aThug",
                "userId": GM,
                "changes": {"_id": "aThug", "system": {"attributes": {"wounds": {"value": 7}}}},
            },
        )
        await table.until("the end", lambda: any("re-enters combat" in c for c in table.chat))
        await step("The GM ends the fight")
        await table.say(GM, "!end")
        await table.until("the end of the fight", lambda: table.active is None)
    finally:
        log.debug("demo: closing")
        with contextlib.suppress(Exception):
            await asyncio.wait_for(table.sio.disconnect(), 5)
        log.debug("demo: client closed")
    return table.chat


def main() -> int:
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(play())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
