"""The action economy over the real wire: a MiniTable client against a real bridge (SQLite
file, free port). Every command and drag spends through the rules' economy; a refusal says what
is left; a VTT move the rules refuse is never applied and the client is told to put it back;
a script command's declared cost is spent like ``!attack``; async conditions and their owner."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from vttbridge.adapters.bridge.server import create_world
from vttbridge.systems.foe.rules.state import foe

from tests.bridge.conftest import Server, TableClient, start_server
from tests.bridge.game_night import SCRIPT


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[Server, dict[str, str]]]:
    db = tmp_path / "economy.sqlite3"
    keys = {
        "spy": create_world(db, "spy", {"system": "spycraft"})[0],
        "foe": create_world(db, "foe", {"system": "foe"})[0],
    }
    script = tmp_path / "table_script.py"
    script.write_text(SCRIPT)
    srv = await start_server(db, scripts=[str(script)])
    yield srv, keys
    await srv.stop()


def snapshot(tokens: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "snap",
        "scene": {"id": "s1", "name": "Cellar"},
        "tokens": [{"id": t, "name": t.title(), **v} for t, v in tokens.items()],
        "users": [
            {"id": "u-gm", "name": "Dana", "role": "gm"},
            {"id": "u-p", "name": "Pat", "role": "player"},
        ],
    }


async def table(
    served: tuple[Server, dict[str, str]],
    client_factory: Callable[..., TableClient],
    world: str,
    tokens: dict[str, dict[str, Any]],
    initiative: dict[str, int],
) -> TableClient:
    srv, keys = served
    c = await client_factory().connect(srv.url, world, keys[world])
    assert (await c.send("snapshot", snapshot(tokens)))["ok"]
    ack = await c.send(
        "combatStart", {"id": "fight", "tokens": list(initiative), "initiative": initiative}
    )
    assert ack["ok"], ack
    await c.caught_up()
    return c


def chat_texts(msgs: list[dict], whisper: str | bool | None = False) -> str:
    return "\n".join(
        m["data"]["text"]
        for m in msgs
        if m["op"] == "chat.post" and (whisper is False or m["data"].get("whisper") == whisper)
    )


async def said(client: TableClient, send: Any) -> list[dict]:
    """The commands the bridge sent in answer to one event."""
    before = len(client.commands)
    ack = await send
    assert ack["ok"], ack
    return (await client.caught_up())[before:]


def chat(c: TableClient, n: list[int], text: str, token: str, user: str = "u-p") -> Any:
    n[0] += 1
    role = "gm" if user == "u-gm" else "player"
    return c.send(
        "chat", {"id": f"c{n[0]}", "text": text, "user": user, "role": role, "token": token}
    )


def move(c: TableClient, n: list[int], token: str, x: int, y: int, user: str = "u-p") -> Any:
    n[0] += 1
    return c.send("tokenMoved", {"id": f"m{n[0]}", "token": token, "x": x, "y": y, "user": user})


SPY_COSTS = "(Spycraft 2.0, Action costs, rules.md#action-costs)"
"""The citation a refused action's cost ends with in a Spycraft world."""

SPY_TOKENS = {
    "kevin": {"x": 0, "y": 0, "owners": ["u-p"], "stats": {"initiative": 2}},
    "thug": {"x": 500, "y": 0},
}


async def test_spycraft_attacks_spend_half_actions_and_attack_then_ready_is_refused(
    served, client_factory
) -> None:
    c = await table(served, client_factory, "spy", SPY_TOKENS, {"kevin": 22, "thug": 10})
    n = [0]
    out = await said(c, chat(c, n, "!attack thug", "kevin"))
    assert "Kevin attacks Thug." in chat_texts(out, None)
    out = await said(c, chat(c, n, "!ready shoot --when within 10", "kevin"))
    assert chat_texts(out, "u-p") == (
        "Kevin has only a half action left this turn; a full action needs 2. " + SPY_COSTS
    )
    out = await said(c, chat(c, n, "!shoot thug", "kevin"))  # the script's, cost "attack"
    assert "Kevin shoots thug." in chat_texts(out, None)
    out = await said(c, chat(c, n, "!attack thug", "kevin"))  # a third half action
    assert chat_texts(out, "u-p") == (
        "Kevin has no actions left this turn; a half action needs 1. " + SPY_COSTS
    )
    out = await said(c, chat(c, n, "!shoot thug", "kevin"))
    assert "shoots" not in chat_texts(out)
    srv, _ = served
    cb = srv.bridge.worlds["spy"].runtime.world.encounter.combatants["kevin"]
    assert cb.actions_taken == ["attack", "shoot"] and cb.half_actions == 0


FOE_TOKENS = {
    "mint": {"x": 0, "y": 0, "owners": ["u-p"], "stats": {"move": 25}},
    "raider": {"x": 500, "y": 0, "stats": {"move": 25}},
}


async def test_foe_attack_then_a_2x_drag_is_refused_and_put_back_1x_allowed_no_charge(
    served, client_factory
) -> None:
    c = await table(served, client_factory, "foe", FOE_TOKENS, {"mint": 90, "raider": 10})
    n = [0]
    await said(c, chat(c, n, "!attack raider", "mint"))
    out = await said(c, move(c, n, "mint", 1000, 0))  # 50 ft: twice his speed
    assert [m["op"] for m in out] == ["token.update", "chat.post", "chat.post"]
    assert out[0]["data"] == {"id": "mint", "x": 0, "y": 0}  # put back where it was
    assert chat_texts(out, "u-p") == (
        "Move refused: Mint can move 25 ft more this round (a move with another action: 25 ft "
        "in all); that path is 50 ft. (FoE, Movement, rules.md#movement; option: diagonal_metric "
        "= alternating)"
    )
    assert "Mint's move refused and moved back" in chat_texts(out, "gm")
    srv, _ = served
    world = srv.bridge.worlds["foe"].runtime.world
    assert (world.tokens["mint"].cell.x, world.tokens["mint"].cell.y) == (0, 0)
    out = await said(c, chat(c, n, "!charge raider", "mint"))
    assert chat_texts(out, "u-p") == (
        "Mint has only 1 action left this turn and can move 25 ft more this round; a charge "
        "takes both actions. (FoE, Action costs, rules.md#action-costs)"
    )
    out = await said(c, move(c, n, "mint", 400, 0))  # 20 ft: within 1x
    assert out == []
    assert (world.tokens["mint"].cell.x, world.tokens["mint"].cell.y) == (4, 0)
    assert world.encounter.combatants["mint"].actions_taken == ["attack", "move"]


async def test_an_async_condition_reads_its_owner_over_the_wire(served, client_factory) -> None:
    tokens = {
        **SPY_TOKENS,
        "kevin": {**SPY_TOKENS["kevin"], "disposition": 1},
        "thug": {"x": 900, "y": 0, "disposition": -1},
        "ally": {"x": 900, "y": 900, "disposition": 1},
    }
    c = await table(served, client_factory, "spy", tokens, {"kevin": 22, "thug": 10, "ally": 5})
    n = [0]
    out = await said(c, chat(c, n, "!ready shoot --when enemy_near", "kevin"))
    assert "Kevin readies: shoot" in chat_texts(out, None)
    out = await said(c, move(c, n, "ally", 200, 0, user="u-gm"))  # a friend comes near
    assert not [m for m in out if m["op"] == "chat.ask"]
    out = await said(c, move(c, n, "thug", 200, 100, user="u-gm"))  # an enemy of Kevin's
    (ask,) = [m for m in out if m["op"] == "chat.ask"]
    assert (
        ask["data"]["player"] == "u-p" and "Kevin's Ready is triggered" in ask["data"]["question"]
    )


SURPRISE_TOKENS = {
    "raider": {"x": 900, "y": 0, "disposition": -1, "stats": {"move": 25}},
    "guard": {"x": 0, "y": 0, "disposition": 1, "owners": ["u-p"], "stats": {"move": 25}},
    "trader": {"x": 0, "y": 300, "disposition": 1, "stats": {"move": 25, "quick_witted": True}},
}


async def test_foe_surprise_round_refuses_the_surprised_on_every_path(
    served, client_factory
) -> None:
    """ "The attacking group's members (and any character with the Quick Witted perk) all roll
    initiative. They all receive a single action for the round": the surprised Guard's every
    action is refused, each told why (his ``!do``, ``!attack``, a script's command, a drag); the
    Quick Witted trader acts; the raider's single action is spent."""
    srv, keys = served
    c = await client_factory().connect(srv.url, "foe", keys["foe"])
    assert (await c.send("snapshot", snapshot(SURPRISE_TOKENS)))["ok"]
    n = [0]
    out = await said(c, chat(c, n, "!surprise raider", "raider", user="u-gm"))
    assert "Surprised, sitting out: Guard." in chat_texts(out, None)
    enc = srv.bridge.worlds["foe"].runtime.world.encounter
    assert set(enc.combatants) == {"raider", "trader"}  # the guard is not in the order

    why = (
        "Guard is surprised and sits out the surprise round. (FoE, Surprise round, "
        "rules.md#surprise-round; option: surprise_after = reroll)"
    )
    for text in ("!do shoot", "!attack raider", "!shoot raider", "!hide", "!jump gap 5"):
        out = await said(c, chat(c, n, text, "guard"))
        assert chat_texts(out, "u-p") == why, text
        assert "shoots" not in chat_texts(out) and "attacks" not in chat_texts(out), text
    out = await said(c, move(c, n, "guard", 100, 0))  # a drag
    assert out[0]["op"] == "token.update" and out[0]["data"] == {"id": "guard", "x": 0, "y": 0}
    assert chat_texts(out, "u-p") == f"Move refused: {why}"
    world = srv.bridge.worlds["foe"].runtime.world
    assert (world.tokens["guard"].cell.x, world.tokens["guard"].cell.y) == (0, 0)

    # each of the two acting has his single action, in the order rolled
    for actor in list(enc.order()):
        assert enc.active == actor and enc.combatants[actor].half_actions == 1
        if actor == "raider":  # his attack spends it; a second is refused
            out = await said(c, chat(c, n, "!attack guard", "raider", user="u-gm"))
            assert "Raider attacks Guard." in chat_texts(out, None)
            assert enc.combatants["raider"].half_actions == 0
            out = await said(c, chat(c, n, "!attack guard", "raider", user="u-gm"))
            refused = (
                "Raider has no actions left this turn; an attack takes 1 action. "
                "(FoE, Action costs, rules.md#action-costs)"
            )
            assert chat_texts(out, "u-gm") == refused
        else:  # the Quick Witted trader acts in the surprise round
            out = await said(c, chat(c, n, "!do duck", "trader", user="u-gm"))
            assert "Trader attempts: duck." in chat_texts(out, None)
            assert enc.combatants["trader"].half_actions == 0
        await said(c, chat(c, n, "!next", actor, user="u-gm"))
    assert not foe(enc).surprise_round and "guard" in enc.combatants  # he joins now
