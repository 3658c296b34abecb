"""Effects a VTT cannot carry out, over the real wire: an adapter that declines ``AskPlayer``
(a VTT with no way to ask a player) gets the question as a whisper to the GM, who answers it
for the player; an adapter that declines something it should not is refused when registered."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from vttbridge.adapters.base import AdapterRegistry
from vttbridge.adapters.bridge.config import WorldConfig
from vttbridge.adapters.bridge.server import Bridge, BridgeConfig, create_world
from vttbridge.sdk import effects as fx
from vttbridge.systems.spycraft.rules.state import spycraft

from tests.bridge.conftest import Server, TableClient, start_server
from tests.bridge.minitable import MiniTable


class NoDialogs(MiniTable):
    """MiniTable on a VTT that cannot ask a player anything."""

    declines = MiniTable.declines | {fx.AskPlayer}


class SilentAsk(MiniTable):
    """An adapter that forgot questions: it translates them to nothing, undeclared."""

    def translate_out(self, effect: Any, world: Any) -> list:
        return [] if isinstance(effect, fx.AskPlayer) else super().translate_out(effect, world)


@pytest.fixture(params=[NoDialogs, SilentAsk])
async def served(request, tmp_path: Path) -> AsyncIterator[tuple[Server, str]]:
    db = tmp_path / "declined.sqlite3"
    key = create_world(db, "table1", {"system": "spycraft"})[0]
    config = BridgeConfig(database=db, world=WorldConfig(), reload_scripts=False)
    srv = await start_server(db, Bridge(config, adapters=[request.param()]))
    yield srv, key
    await srv.stop()


SNAPSHOT = {
    "id": "snap",
    "scene": {"id": "s1", "name": "Warehouse"},
    "tokens": [
        {"id": "kevin", "name": "Kevin", "x": 100, "y": 100, "owners": ["u-kev"], "disposition": 1},
        {"id": "thug", "name": "Thug", "x": 900, "y": 900, "disposition": -1},
    ],
    "users": [
        {"id": "u-gm", "name": "Dana", "role": "gm"},
        {"id": "u-kev", "name": "Pat", "role": "player"},
    ],
}


async def sent(c: TableClient, event: str, payload: dict[str, Any]) -> list[dict[str, Any]]:
    before = len(c.commands)
    ack = await c.send(event, payload)
    assert ack["ok"], ack
    return (await c.caught_up())[before:]


def chat_posts(commands: list[dict[str, Any]], whisper: str | bool | None = False) -> list[str]:
    return [
        c["data"]["text"]
        for c in commands
        if c["op"] == "chat.post" and (whisper is False or c["data"].get("whisper") == whisper)
    ]


async def test_a_question_the_vtt_cannot_ask_reaches_the_gm(served) -> None:
    srv, key = served
    c = await TableClient().connect(srv.url, "table1", key)
    try:
        await sent(c, "snapshot", SNAPSHOT)
        ics = {"kevin": 22, "thug": 10}
        await sent(c, "combatStart", {"id": "f", "tokens": list(ics), "initiative": ics})
        ready = {
            "id": "r1",
            "text": "!ready shoot --when within 10",
            "user": "u-kev",
            "role": "player",
            "token": "kevin",
        }
        out = await sent(c, "chat", ready)
        assert any("Kevin readies: shoot" in t for t in chat_posts(out))

        out = await sent(c, "tokenMoved", {"id": "m1", "token": "thug", "x": 200, "y": 100})
        assert not [m for m in out if m["op"] == "chat.ask"]  # the VTT cannot ask...
        (question,) = [t for t in chat_posts(out, "gm") if "cannot ask players" in t]
        # ...so the GM is asked, told for whom, what, and how to answer for him
        assert "for Pat about Kevin" in question
        assert "Kevin's Ready is triggered" in question and "fire / cancel" in question
        prompt = re.search(r"!answer (\S+) <option>", question)
        assert prompt, question

        out = await sent(
            c,
            "chat",
            {"id": "a1", "text": f"!answer {prompt.group(1)} fire", "user": "u-gm", "role": "gm"},
        )
        assert any("takes his readied action" in t for t in chat_posts(out))
        world = srv.bridge.worlds["table1"].runtime.world
        assert not world.prompts and "kevin" not in spycraft(world.encounter).readies
    finally:
        await c.close()


def test_declining_what_is_not_an_effect_is_refused_with_a_suggestion() -> None:
    class Typo(MiniTable):
        declines = frozenset({fx.BaseEffect})

    with pytest.raises(ValueError, match="declines BaseEffect, which is not an effect"):
        AdapterRegistry([Typo])

    class AskPlayr:  # a look-alike of the effect, not the effect
        pass

    class Misspelt(MiniTable):
        declines = frozenset({fx.UpdateStats, AskPlayr})

    with pytest.raises(ValueError, match="declines AskPlayr, which is not an effect; did you mean"):
        AdapterRegistry([Misspelt])
