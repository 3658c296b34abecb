"""A game night played over the real wire, for the replay tests: two worlds, one per game
system, each with a MiniTable GM client and a table script, through a real bridge.

- ``spy`` (Spycraft 2.0): Kevin readies a shot for when an enemy comes within 10 ft and the
  thug walking up triggers it (his player is asked, fires: the Ready's IC slide); the thug
  attacks Gary, who stands off (a Reflex save, the Resolve checks of the next rounds); the
  script's ``!shoot`` spends an attack; a third half action is refused.
- ``foe`` (Fallout: Equestria): the raiders' surprise round (the surprised guard's command
  and drag refused and put back, the Quick Witted trader acts), a drag over the budget
  refused, and Mint's charge at the raider with its attack question.

The dice are the server's own (random): what the replay must reproduce is whatever they
rolled. :func:`play` returns each world's commands, for the test to check the story.
"""

from __future__ import annotations

import textwrap
from typing import Any

from tests.bridge.conftest import TableClient

SCRIPT = textwrap.dedent(
    '''
    """The table's own script: a !shoot command that costs an attack, and a condition."""
    import asyncio
    from vttbridge.sdk import Script, TokenMoved

    script = Script("table_script")

    @script.command("shoot", usage="!shoot <target>", cost="attack")
    def shoot(cmd, ctx):
        ctx.say(f"{ctx.name(cmd.token)} shoots {cmd.argv[0]}.")

    @script.condition("enemy_near", on=[TokenMoved])
    async def enemy_near(event, ctx):
        await asyncio.sleep(0)
        me, mover = ctx.tokens[ctx.owner], ctx.tokens[event.token]
        return mover.disposition * me.disposition < 0 and ctx.distance(ctx.owner, event.token) <= 10
    '''
)

WORLDS = {"spy": "spycraft", "foe": "foe"}

USERS = [
    {"id": "u-gm", "name": "Dana", "role": "gm"},
    {"id": "u-p", "name": "Pat", "role": "player"},
    {"id": "u-q", "name": "Quinn", "role": "player"},
]

SPY_TOKENS = {
    "kevin": {"x": 0, "y": 0, "owners": ["u-p"], "disposition": 1,
              "stats": {"initiative": 2, "reflex": 4, "action_dice": 2}},
    "gary": {"x": 0, "y": 300, "owners": ["u-q"], "disposition": 1,
             "stats": {"reflex": 30, "action_dice": 2, "resolve": 30, "wisdom": 10}},
    "thug": {"x": 900, "y": 0, "disposition": -1,
             "stats": {"bab": 1, "resolve": 0, "wisdom": 4, "kind": "standard"}},
}  # fmt: skip

FOE_TOKENS = {
    "raider": {"x": 900, "y": 0, "disposition": -1, "stats": {"move": 25}},
    "guard": {"x": 0, "y": 0, "disposition": 1, "owners": ["u-p"], "stats": {"move": 25}},
    "trader": {"x": 0, "y": 300, "disposition": 1,
               "stats": {"move": 25, "quick_witted": True}},
    "mint": {"x": 0, "y": 600, "disposition": 1, "owners": ["u-q"],
             "stats": {"move": 30, "strength": 6}},
}  # fmt: skip


class Table:
    """One world's GM client and its event ids."""

    def __init__(self, client: TableClient, prefix: str) -> None:
        self.client, self.prefix, self.n = client, prefix, 0

    def _id(self) -> str:
        self.n += 1
        return f"{self.prefix}-{self.n}"

    async def send(self, event: str, payload: dict[str, Any]) -> list[dict[str, Any]]:
        """Send one event; the commands it brought (the ack must be ok)."""
        before = len(self.client.commands)
        ack = await self.client.send(event, {"id": self._id(), **payload})
        assert ack["ok"], (event, payload, ack)
        # a noop's ack holds the world's last seq: the last command of this event (when it had
        # any: its commands follow its row); no marker of ours is logged
        upto = (await self.client.send("noop", {"id": self._id()}))["seq"]
        if upto > ack["seq"]:
            await self.client.wait_commands_upto(upto)
        return self.client.commands[before:]

    async def chat(self, text: str, token: str | None = None, user: str = "u-gm") -> str:
        role = "gm" if user == "u-gm" else "player"
        out = await self.send("chat", {"text": text, "user": user, "role": role, "token": token})
        return chat_text(out)

    async def move(self, token: str, x: int, y: int, user: str = "u-gm") -> str:
        moved = {"token": token, "x": x, "y": y, "user": user}
        return chat_text(await self.send("tokenMoved", moved))

    async def answer(self, kind_text: str, option: str, user: str) -> str:
        """Answer the one question whose text holds ``kind_text`` (by its prompt id)."""
        asks = [
            c for c in self.client.commands
            if c["op"] == "chat.ask" and kind_text in c["data"]["question"]
        ]  # fmt: skip
        assert asks, f"no question about {kind_text!r}"
        return await self.chat(f"!answer {asks[-1]['data']['prompt']} {option}", None, user)

    def turn(self) -> str | None:
        """Whose turn the last ``combat.turn`` command said it is."""
        turns = [c["data"]["token"] for c in self.client.commands if c["op"] == "combat.turn"]
        return turns[-1] if turns else None

    def snapshot(self, tokens: dict[str, dict[str, Any]]) -> dict[str, Any]:
        return {
            "scene": {"id": "s1", "name": "Warehouse"},
            "tokens": [{"id": t, "name": t.title(), **v} for t, v in tokens.items()],
            "users": USERS,
        }


def chat_text(commands: list[dict[str, Any]]) -> str:
    """The chat lines and the questions of ``commands``, one a line."""
    return "\n".join(
        c["data"]["text"] if c["op"] == "chat.post" else c["data"]["question"]
        for c in commands
        if c["op"] in ("chat.post", "chat.ask")
    )


async def play_spycraft(t: Table) -> str:
    said = []
    said += [chat_text(await t.send("snapshot", t.snapshot(SPY_TOKENS)))]
    start = {"kevin": 22, "gary": 14, "thug": 10}
    await t.send("combatStart", {"tokens": list(start), "initiative": start})
    said.append(await t.chat("!ready shoot --when within 10", "kevin", "u-p"))  # Gary's turn
    said.append(await t.chat("!next"))  # the thug's
    said.append(await t.move("thug", 200, 0))  # within 10 ft of Kevin: his Ready
    said.append(await t.answer("Ready", "fire", "u-p"))
    said.append(await t.chat("!attack gary", "thug"))  # Gary is offered a Stand Off
    said.append(await t.answer("Stand off?", "stand_off", "u-q"))
    said.append(await t.chat("!next"))  # round 2
    said.append(await t.chat("!shoot thug", "kevin", "u-p"))  # the script's command
    said.append(await t.chat("!attack thug", "kevin", "u-p"))
    said.append(await t.chat("!attack thug", "kevin", "u-p"))  # a third: refused
    for _ in range(3):
        said.append(await t.chat("!next"))
    if "cracks!" in "\n".join(said):  # his stress passed a threshold (the dice decide)
        said.append(await t.answer("cracks", "surrender", "u-gm"))
    return "\n".join(said)


async def play_foe(t: Table) -> str:
    said = []
    said += [chat_text(await t.send("snapshot", t.snapshot(FOE_TOKENS)))]
    said.append(await t.chat("!surprise raider --vs guard trader mint", "raider"))
    said.append(await t.chat("!attack raider", "guard", "u-p"))  # surprised: refused
    said.append(await t.move("guard", 100, 0, "u-p"))  # refused, put back
    for _ in range(2):  # the two who act, in the order they rolled
        if t.turn() == "raider":
            said.append(await t.chat("!attack guard", "raider"))  # his single action
            said.append(await t.chat("!attack guard", "raider"))  # a second: refused
        else:
            said.append(await t.chat("!shoot raider", "trader"))  # Quick Witted: he acts
        said.append(await t.chat("!next"))  # then round 2: everyone re-rolls initiative
    while t.turn() != "mint":
        said.append(await t.chat("!next"))
    said.append(await t.move("mint", 0, 2800, "u-q"))  # 110 ft: past a run, refused
    said.append(await t.chat("!charge raider", "mint", "u-q"))
    said.append(await t.answer("charge", "raider", "u-q"))
    said.append(await t.chat("!next"))
    return "\n".join(said)


async def play(url: str, keys: dict[str, str]) -> dict[str, str]:
    """Play both worlds on the bridge at ``url``; each world's chat, in order."""
    out: dict[str, str] = {}
    for world, game in (("spy", play_spycraft), ("foe", play_foe)):
        client = await TableClient().connect(url, world, keys[world])
        try:
            out[world] = await game(Table(client, world))
        finally:
            await client.close()
    return out
