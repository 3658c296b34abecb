"""Held moves, in memory: Foundry payloads through the adapter into a world runtime with the
built-in holds script, Foundry commands back. Kevin's corner with the rulebook's dice
(Reflex 22)."""

from __future__ import annotations

from typing import Any

import pytest
from vttbridge.adapters.base import TranslationError
from vttbridge.adapters.foundry import FLAG
from vttbridge.sdk.holds import SCRIPT_NAME, attempt_watches

from .conftest import chat_text, ops

GM, PLAYER = "gM0000000000000A", "kT3rPq8Zx1LmNo2B"
KEVIN, GARY, THUG = "tKevin0000000001", "tGary00000000002", "tThug00000000003"


def token(tid: str, name: str, actor: str, x: int, y: int, **extra: Any) -> dict[str, Any]:
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
        **extra,
    }


def attrs(**values: Any) -> dict[str, Any]:
    return {k: {"value": v} for k, v in values.items()}


def corner_snapshot(reflex: int = 5) -> dict[str, Any]:
    """Kevin (IC 22) at 8,5; Gary (IC 14) at 13,5; the Thug (IC 10) at 13,8; the corner is
    cells 10-11 x 4-6."""
    return {
        "id": "snap-1",
        "systemId": "worldbuilding",
        "scene": {
            "_id": "sWarehouse000001",
            "name": "Warehouse",
            "grid": {"type": 1, "size": 100, "distance": 5, "units": "ft"},
        },
        "tokens": [
            token(KEVIN, "Kevin", "aKevin", 800, 500),
            token(GARY, "Gary", "aGary", 1300, 500),
            token(THUG, "Thug", "aThug", 1300, 800, actorLink=False, disposition=-1),
        ],
        "actors": [
            {
                "_id": "aKevin",
                "name": "Kevin",
                "type": "character",
                "ownership": {PLAYER: 3},
                "system": {"attributes": attrs(reflex=reflex, initiative=5, action_dice=2, bab=3)},
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
                "_id": "r1",
                "name": "corner",
                "shapes": [{"type": "rectangle", "x": 1000, "y": 400, "width": 200, "height": 300}],
            }
        ],
        "combat": {
            "_id": "c1",
            "scene": "sWarehouse000001",
            "round": 1,
            "turn": 0,
            "combatants": [
                {"_id": "cK", "tokenId": KEVIN, "initiative": 22},
                {"_id": "cG", "tokenId": GARY, "initiative": 14},
                {"_id": "cT", "tokenId": THUG, "initiative": 10},
            ],
        },
    }


def held_move(
    event_id: str, tid: str, frm: tuple[int, int], to: tuple[int, int], user: str = GM
) -> dict[str, Any]:
    return {
        "id": event_id,
        "userId": user,
        "sceneId": "sWarehouse000001",
        "token": {"_id": tid, "x": frm[0], "y": frm[1], "width": 1, "height": 1},
        "changes": {"_id": tid, "x": to[0], "y": to[1]},
        "hold": {"id": event_id, "budget_ms": 1500},
    }


def plain_move(event_id: str, tid: str, to: tuple[int, int]) -> dict[str, Any]:
    """A completed move (``updateToken``): the token where it stands now."""
    return {
        "id": event_id,
        "userId": GM,
        "sceneId": "sWarehouse000001",
        "token": {"_id": tid, "x": to[0], "y": to[1]},
        "changes": {"x": to[0], "y": to[1]},
    }


def watch_of(commands: list) -> dict | None:
    found = [c for c in commands if c.op == "Scene.update"]
    return found[-1].data["flags"][FLAG]["watch"] if found else None


def releases(commands: list) -> list:
    return [c for c in commands if c.op == "Token.update" and c.options[FLAG].get("hold")]


async def ready_kevin(table: Any, timing: str = "attempt", when: str = "corner") -> list:
    await table.send("snapshot", corner_snapshot())
    return await table.chat(PLAYER, f"!ready shoot --when {when} --timing {timing}", KEVIN)


async def test_kevins_corner_ally_held_back(table):
    cmds = await ready_kevin(table)
    watch = watch_of(cmds)
    assert watch is not None and watch["budget_ms"] == 1500
    (entry,) = watch["watches"]
    assert entry["exclude"] == KEVIN and len(entry["cells"]) == 6
    assert "Combat.update" in ops(cmds)  # Kevin's turn ended: Gary's

    # Gary rounds the corner at IC 14: the move waits for Kevin
    cmds = await table.send("preUpdateToken", held_move("h1", GARY, (1300, 500), (1000, 500)))
    assert releases(cmds) == []
    assert "Ready is triggered" in chat_text(cmds)
    assert {
        c.data["tokenId"]: c.data["initiative"] for c in cmds if c.op == "Combatant.update"
    } == {KEVIN: 14}
    assert table.world.store[SCRIPT_NAME]["holds"]["h1"]["blockers"]
    # the Ready fired: nothing else is watched while Kevin decides
    assert watch_of(cmds) == {**watch, "watches": []}

    # he tries to hold back: 1d20 shows 17, Reflex +5 = 22 vs DC 15
    table.w.dice(17)
    prompt = table.w.prompt("ready_cancel").id
    cmds = await table.chat(PLAYER, f"!answer {prompt} cancel", KEVIN)
    text = chat_text(cmds)
    assert "Kevin holds back (Reflex 22 vs DC 15): no shoot." in text
    (release,) = releases(cmds)
    assert release.data == {"_id": GARY, "sceneId": "sWarehouse000001", "x": 1000, "y": 500}
    assert release.options[FLAG] == {"bridge": True, "hold": "h1", "moved": True}
    order = [c.op for c in cmds]
    assert order.index("Token.update") > order.index("ChatMessage.create")  # Ready first
    assert table.world.store[SCRIPT_NAME]["holds"] == {}


async def test_kevins_corner_enemy_is_shot(table):
    await ready_kevin(table)
    cmds = await table.send("preUpdateToken", held_move("h1", THUG, (1300, 800), (1100, 500)))
    assert releases(cmds) == []
    prompt = table.w.prompt("ready_cancel").id
    cmds = await table.chat(PLAYER, f"!answer {prompt} fire", KEVIN)
    assert "Kevin takes his readied action: shoot (before the task" in chat_text(cmds)
    (release,) = releases(cmds)
    assert (release.data["x"], release.data["y"]) == (1100, 500)


async def test_a_second_move_triggers_nothing(table):
    await ready_kevin(table)
    await table.send("preUpdateToken", held_move("h1", GARY, (1300, 500), (1000, 500)))
    table.w.dice(17)
    await table.chat(PLAYER, f"!answer {table.w.prompt('ready_cancel').id} cancel", KEVIN)
    # the module no longer holds (the watch is empty); a plain move fires nothing
    cmds = await table.send("updateToken", plain_move("m2", THUG, (1100, 600)))
    assert "Ready" not in chat_text(cmds)


async def test_a_held_move_that_sets_off_nothing_is_released_at_once(table):
    await ready_kevin(table)
    # Kevin's own move is excluded by the watch; the module would not hold it, but if a
    # stale watch made it hold, the bridge lets it go in the same step
    cmds = await table.send("preUpdateToken", held_move("h9", KEVIN, (800, 500), (900, 500)))
    (release,) = releases(cmds)
    assert release.options[FLAG]["hold"] == "h9" and release.options[FLAG]["moved"]


async def test_completion_ready_is_not_watched(table):
    cmds = await ready_kevin(table, timing="completion")
    assert watch_of(cmds) is None
    assert attempt_watches(table.world) == []


async def test_within_and_condition_watches(table):
    cmds = await ready_kevin(table, when="within 5")
    (entry,) = watch_of(cmds)["watches"]
    assert (8, 5) in [tuple(c) for c in entry["cells"]] and len(entry["cells"]) == 9


async def test_duplicate_hold_id_is_not_applied_twice(table):
    """The module's fallback sends the completed move under the held event's id."""
    await ready_kevin(table)
    first = await table.send("preUpdateToken", held_move("h1", GARY, (1300, 500), (1000, 500)))
    assert first == [] or releases(first) == []
    # the bridge dedups by event id before the adapter; here the hold book-keeping shows it
    assert list(table.world.store[SCRIPT_NAME]["holds"]) == ["h1"]


async def test_a_world_that_does_not_hold_moves(table):
    """``!set hold_moves false``: the module is sent an empty watch set, a held move that was
    on its way is refused (the module lets it through), and the Ready fires on completion."""
    cmds = await ready_kevin(table)
    assert watch_of(cmds)["watches"]
    cmds = await table.chat(GM, "!set hold_moves false")
    assert watch_of(cmds)["watches"] == []
    with pytest.raises(TranslationError) as refused:
        await table.send("preUpdateToken", held_move("h1", GARY, (1300, 500), (1000, 500)))
    assert refused.value.code == "not_holding"
    assert table.world.store[SCRIPT_NAME]["holds"] == {}
    cmds = await table.send("updateToken", plain_move("h1", GARY, (1000, 500)))
    assert "Ready is triggered" in chat_text(cmds) and releases(cmds) == []
