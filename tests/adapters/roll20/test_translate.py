"""Roll20 adapter: every fixture and shape variant, in and out."""

from __future__ import annotations

import json
from typing import Any

import pytest
from vttbridge.adapters.base import Command, TranslationError
from vttbridge.adapters.roll20 import OUTBOUND, Roll20Adapter
from vttbridge.adapters.roll20.adapter import escape_chat
from vttbridge.adapters.roll20.models import CampaignSetData, TurnOrderPatch
from vttbridge.adapters.roll20.turnorder import merge_turnorder, parse_turnorder
from vttbridge.rules.geometry import Cell, DiagonalMetric
from vttbridge.sdk import effects as fx
from vttbridge.sdk import events as ev
from vttbridge.sdk.world import World

from .conftest import HERE, fixture, validate

# =================================================================================================
# in: tokens
# =================================================================================================


def test_move_fixture_gives_cells_and_the_lastmove_path(
    adapter: Roll20Adapter, world: World
) -> None:
    p = validate("change:graphic", fixture("change-graphic.json"))
    out = adapter.translate_in("change:graphic", p, world)
    moved = out[0]
    assert isinstance(moved, ev.TokenMoved)
    assert moved.id == "evt-2001" and moved.token == "-OTokGob1"
    assert moved.from_cell == Cell(x=7, y=5)  # prev 525,385: the centre of cell (7, 5)
    assert moved.to_cell == Cell(x=9, y=5)  # 665,385
    # lastmove "525,385,595,315": start, waypoint (8, 4), then the current position
    assert moved.path == [Cell(x=7, y=5), Cell(x=8, y=4), Cell(x=9, y=5)]
    # bar1 went 7 -> 4 and bar1 is the hit points bar by default: 3 points of damage
    dmg = out[1]
    assert isinstance(dmg, ev.DamageDealt) and dmg.amount == 3 and dmg.token == "-OTokGob1"
    assert dmg.id == "evt-2001#1"
    assert len(out) == 2


@pytest.mark.parametrize(
    ("inc", "left", "top", "cell"),
    [
        (1, 35, 35, (0, 0)),
        (1, 665, 385, (9, 5)),
        (0.5, 665, 385, (19, 11)),  # 35 px cells
        (2, 665, 385, (4, 2)),  # 140 px cells
        (0, 665, 385, (9, 5)),  # snapping off: the 70 px unit
    ],
)
def test_snapping_increment_sets_the_cell_size(
    adapter: Roll20Adapter,
    world: World,
    page: dict,
    inc: float,
    left: int,
    top: int,
    cell: tuple[int, int],
) -> None:
    page["snapping_increment"] = inc
    payload = {
        "id": "e1",
        "obj": {"_id": "-OTokGob1", "_pageid": "-OPage01", "left": left, "top": top},
        "prev": {"left": 1, "top": 1},
        "page": page,
    }
    out = adapter.translate_in("change:graphic", validate("change:graphic", payload), world)
    assert out[0].to_cell == Cell(x=cell[0], y=cell[1])


def test_straight_move_reports_no_waypoints(adapter: Roll20Adapter, world: World) -> None:
    payload = {
        "id": "e2",
        "obj": {
            "_id": "-OTokGob1",
            "_pageid": "-OPage01",
            "left": 665,
            "top": 385,
            "lastmove": "525,385",
        },
        "prev": {"left": 525, "top": 385, "lastmove": "455,385"},
    }
    (moved,) = adapter.translate_in("change:graphic", validate("change:graphic", payload), world)
    assert moved.path == [] and moved.from_cell == Cell(x=7, y=5)


def test_bad_lastmove_is_a_translation_error(adapter: Roll20Adapter, world: World) -> None:
    payload = {
        "id": "e3",
        "obj": {"_id": "-OTokGob1", "left": 665, "top": 385, "lastmove": "525,abc"},
        "prev": {"left": 525, "top": 385},
    }
    with pytest.raises(TranslationError) as e:
        adapter.translate_in("change:graphic", validate("change:graphic", payload), world)
    assert e.value.code == "bad_lastmove" and e.value.path == "obj.lastmove"


def test_a_diagonal_move_is_one_event(adapter: Roll20Adapter, world: World) -> None:
    payload = {
        "id": "e4",
        "obj": {"_id": "-OTokGob1", "left": 595, "top": 315},
        "prev": {"left": 525, "top": 385},
    }
    out = adapter.translate_in("change:graphic", validate("change:graphic", payload), world)
    assert [type(e) for e in out] == [ev.TokenMoved]
    assert out[0].to_cell == Cell(x=8, y=4)


def test_other_changes_become_token_updates(adapter: Roll20Adapter, world: World) -> None:
    payload = {
        "id": "e5",
        "obj": {
            "_id": "-OTokGob1",
            "left": 525,
            "top": 385,
            "name": "Goblin boss",
            "layer": "gmlayer",
            "controlledby": "-OPlay02,-OPlayGM",
            "bar2_value": "12",
        },
        "prev": {
            "left": 525,
            "top": 385,
            "name": "Goblin 1",
            "layer": "objects",
            "controlledby": "",
            "bar2_value": "15",
        },
        "bars": {"bar1": "hp", "bar2": "vitality"},
    }
    out = adapter.translate_in("change:graphic", validate("change:graphic", payload), world)
    upd = out[0]
    assert isinstance(upd, ev.TokenUpdated)
    assert upd.name == "Goblin boss" and upd.hidden is True
    assert upd.owners == ["-OPlay02"] and upd.disposition == 1  # the GM is not an owner
    assert upd.stats == {"vitality": 12}
    assert isinstance(out[1], ev.DamageDealt) and out[1].amount == 3  # vitality 15 -> 12


def test_status_marker_changes_alone_give_nothing(adapter: Roll20Adapter, world: World) -> None:
    payload = {
        "id": "e6",
        "obj": {"_id": "-OTokGob1", "left": 525, "top": 385, "statusmarkers": "red,blue@3"},
        "prev": {"left": 525, "top": 385, "statusmarkers": "red"},
    }
    assert adapter.translate_in("change:graphic", validate("change:graphic", payload), world) == []


def test_healing_is_not_damage(adapter: Roll20Adapter, world: World) -> None:
    payload = {
        "id": "e7",
        "obj": {"_id": "-OTokGob1", "bar1_value": "7"},
        "prev": {"bar1_value": "4"},
    }
    assert adapter.translate_in("change:graphic", validate("change:graphic", payload), world) == []


def test_changes_on_another_page_are_ignored(adapter: Roll20Adapter, world: World) -> None:
    payload = {
        "id": "e8",
        "obj": {"_id": "-OTokGob1", "_pageid": "-OPrepPage", "left": 35, "top": 35},
        "prev": {"left": 525, "top": 385},
    }
    assert adapter.translate_in("change:graphic", validate("change:graphic", payload), world) == []


def test_an_unknown_token_is_adopted(adapter: Roll20Adapter, world: World) -> None:
    payload = {
        "id": "e9",
        "obj": {
            "_id": "-ONew",
            "_pageid": "-OPage01",
            "name": "Raider",
            "left": 105,
            "top": 35,
            "represents": "-OCharRaider",
        },
        "prev": {"left": 35, "top": 35},
    }
    (made,) = adapter.translate_in("change:graphic", validate("change:graphic", payload), world)
    assert isinstance(made, ev.TokenCreated)
    assert made.token.cell == Cell(x=1, y=0) and made.token.actor == "-OCharRaider"
    assert made.token.disposition == -1  # nobody controls it: an NPC


def test_moved_to_the_map_layer_removes_the_token(adapter: Roll20Adapter, world: World) -> None:
    payload = {
        "id": "e10",
        "obj": {"_id": "-OTokGob1", "layer": "map"},
        "prev": {"layer": "objects"},
    }
    out = adapter.translate_in("change:graphic", validate("change:graphic", payload), world)
    assert out == [ev.TokenRemoved(id="e10", token="-OTokGob1")]


def test_add_and_destroy(adapter: Roll20Adapter, world: World, page: dict) -> None:
    add = {
        "id": "a1",
        "obj": {
            "_id": "-OTok9",
            "_pageid": "-OPage01",
            "left": 175,
            "top": 245,
            "controlledby": "all",
        },
        "page": page,
    }
    (made,) = adapter.translate_in("add:graphic", validate("add:graphic", add), world)
    assert made.token.cell == Cell(x=2, y=3) and made.token.owners == ["-OPlay02"]
    card = {"id": "a2", "obj": {"_id": "-OCard", "_subtype": "card"}}
    assert adapter.translate_in("add:graphic", validate("add:graphic", card), world) == []
    gone = {"id": "d1", "obj": {"_id": "-OTokGob1"}}
    out = adapter.translate_in("destroy:graphic", validate("destroy:graphic", gone), world)
    assert out == [ev.TokenRemoved(id="d1", token="-OTokGob1")]
    never = {"id": "d2", "obj": {"_id": "-ONever"}}
    assert adapter.translate_in("destroy:graphic", validate("destroy:graphic", never), world) == []


def test_held_move_is_reported_as_the_attempt(adapter: Roll20Adapter, world: World) -> None:
    payload = {**fixture("change-graphic.json"), "held": True}
    out = adapter.translate_in("change:graphic", validate("change:graphic", payload), world)
    # the attempt, then the move asked for, under one id (the holds script pairs them)
    assert out[0] == ev.ActionDeclared(
        id="evt-2001", token="-OTokGob1", action="move", phase="attempt"
    )
    moved = out[1]
    assert isinstance(moved, ev.TokenMoved) and moved.id == "evt-2001"
    assert moved.to_cell == Cell(x=9, y=5) and moved.from_cell == Cell(x=7, y=5)
    assert isinstance(out[2], ev.DamageDealt) and out[2].id == "evt-2001#2"


# =================================================================================================
# in: snapshot
# =================================================================================================


def _snapshot(page: dict, **extra: Any) -> dict:
    gob = fixture("change-graphic.json")["obj"]
    pc = {
        **gob,
        "_id": "-OTokPC01",
        "name": "Kevin",
        "represents": "-OCharKev",
        "left": 175,
        "top": 175,
        "controlledby": "",
        "bar1_link": "-OAttrHp",
        "lastmove": "",
    }
    hidden = {**gob, "_id": "-OTokHid", "name": "Sniper", "layer": "gmlayer", "left": 35, "top": 35}
    art = {**gob, "_id": "-OMap", "layer": "map"}
    return {
        "id": "snap-1",
        "page": page,
        "graphics": [gob, pc, hidden, art],
        "campaign": fixture("change-turnorder.json")["obj"],
        "players": [
            {"_id": "-OPlayGM", "_displayname": "Dana", "isGM": True},
            {"_id": "-OPlay02", "_displayname": "Bob", "isGM": False, "_online": True},
        ],
        "characters": [
            {
                "_id": "-OCharKev",
                "name": "Kevin",
                "controlledby": "-OPlay02",
                "stats": {
                    "move": "30",
                    "horns": "1",
                    "quick_witted": "on",
                    "strength": "6",
                    "favourite_colour": "red",
                },
            },
            {"_id": "-OCharGob", "name": "Goblin", "controlledby": "", "stats": {}},
        ],
        **extra,
    }


def test_snapshot(adapter: Roll20Adapter, page: dict) -> None:
    page["snapping_increment"] = 0.5
    page["diagonaltype"] = "threefive"
    (snap,) = adapter.translate_in("snapshot", validate("snapshot", _snapshot(page)), World(id="w"))
    assert isinstance(snap, ev.SceneSnapshot)
    assert snap.scene.id == "-OPage01" and snap.scene.name == "Goblin Cave"
    assert snap.scene.grid.distance == 2.5 and snap.scene.grid.units == "ft"
    assert snap.scene.grid.metric is DiagonalMetric.ALTERNATING
    toks = {t.id: t for t in snap.tokens}
    assert set(toks) == {"-OTokGob1", "-OTokPC01", "-OTokHid"}  # not the map art
    assert toks["-OTokGob1"].cell == Cell(x=19, y=11)  # 35 px cells
    assert toks["-OTokHid"].hidden is True
    kev = toks["-OTokPC01"]
    assert kev.owners == ["-OPlay02"]  # from the character it represents
    assert kev.linked is True and kev.disposition == 1
    assert {p.id: p.role for p in snap.players} == {"-OPlayGM": "gm", "-OPlay02": "player"}
    actors = {a.id: a.stats for a in snap.actors}
    assert actors["-OCharKev"] == {"move": 30, "horns": 1, "quick_witted": True, "strength": 6}
    # the turn order: Goblin's turn (index 0), round 2 from the Round counter row
    assert snap.combat == ev.CombatData(
        round=2, active="-OTokGob1", initiative={"-OTokGob1": 12, "-OTokPC01": 19}
    )


def test_snapshot_without_turnorder_has_no_combat(adapter: Roll20Adapter, page: dict) -> None:
    payload = _snapshot(page, campaign={"turnorder": ""})
    (snap,) = adapter.translate_in("snapshot", validate("snapshot", payload), World(id="w"))
    assert snap.combat is None


def test_snapshot_with_a_broken_turnorder(adapter: Roll20Adapter, page: dict) -> None:
    payload = _snapshot(page, campaign={"turnorder": "[{"})
    with pytest.raises(TranslationError) as e:
        adapter.translate_in("snapshot", validate("snapshot", payload), World(id="w"))
    assert e.value.code == "bad_turnorder" and e.value.path == "campaign.turnorder"


def test_attribute_change(adapter: Roll20Adapter, world: World) -> None:
    payload = {
        "id": "at1",
        "obj": {"_id": "-OA", "_characterid": "-OCharKev", "name": "move", "current": "35"},
    }
    out = adapter.translate_in("change:attribute", validate("change:attribute", payload), world)
    assert out == [ev.ActorUpdated(id="at1", actor="-OCharKev", stats={"move": 35})]
    other = {"id": "at2", "obj": {"_characterid": "-OCharKev", "name": "notes", "current": "x"}}
    assert (
        adapter.translate_in("change:attribute", validate("change:attribute", other), world) == []
    )


# =================================================================================================
# in: turn order
# =================================================================================================


def _turn(rows: list[dict], prev: list[dict] | str, eid: str = "t1") -> dict:
    return {
        "id": eid,
        "obj": {"_type": "campaign", "turnorder": json.dumps(rows)},
        "prev": {"turnorder": prev if isinstance(prev, str) else json.dumps(prev)},
    }


GOB = {"id": "-OTokGob1", "pr": "12", "custom": "", "_pageid": "-OPage01"}
PC = {"id": "-OTokPC01", "pr": 19, "custom": "", "_pageid": "-OPage01"}


def _in_combat(world: World, rnd: int = 1) -> World:
    world.encounter.round = rnd
    return world


def test_turnorder_fixture_rotation(adapter: Roll20Adapter, world: World) -> None:
    p = validate("change:campaign:turnorder", fixture("change-turnorder.json"))
    out = adapter.translate_in("change:campaign:turnorder", p, _in_combat(world))
    assert out == [
        ev.RoundStarted(id="evt-2004", round=2),
        ev.TurnStarted(id="evt-2004#1", token="-OTokGob1", round=2, ic=12),
    ]


def test_rotation_without_a_round_counter(adapter: Roll20Adapter, world: World) -> None:
    out = adapter.translate_in(
        "change:campaign:turnorder",
        validate("change:campaign:turnorder", _turn([GOB, PC], [PC, GOB])),
        _in_combat(world),
    )
    assert out == [ev.TurnStarted(id="t1", token="-OTokGob1", round=None, ic=12)]


def test_wrapping_to_the_top_starts_a_round(adapter: Roll20Adapter, world: World) -> None:
    out = adapter.translate_in(
        "change:campaign:turnorder",
        validate("change:campaign:turnorder", _turn([PC, GOB], [GOB, PC])),
        _in_combat(world, 3),
    )
    assert out == [
        ev.RoundStarted(id="t1", round=4),
        ev.TurnStarted(id="t1#1", token="-OTokPC01", round=4, ic=19),
    ]


def test_pr_edits_are_initiative_changes(adapter: Roll20Adapter, world: World) -> None:
    edited = {**GOB, "pr": "8"}
    out = adapter.translate_in(
        "change:campaign:turnorder",
        validate("change:campaign:turnorder", _turn([PC, edited], [PC, GOB])),
        _in_combat(world),
    )
    assert out == [
        ev.InitiativeChanged(id="t1", token="-OTokGob1", ic=8, old=12, reason="roll20 turn order")
    ]


def test_a_token_joining_mid_combat(adapter: Roll20Adapter, world: World) -> None:
    out = adapter.translate_in(
        "change:campaign:turnorder",
        validate("change:campaign:turnorder", _turn([PC, GOB], [PC])),
        _in_combat(world),
    )
    assert out == [
        ev.InitiativeChanged(
            id="t1", token="-OTokGob1", ic=12, old=None, reason="roll20 turn order"
        )
    ]


def test_a_row_taken_out_mid_combat(adapter: Roll20Adapter, world: World) -> None:
    out = adapter.translate_in(
        "change:campaign:turnorder",
        validate("change:campaign:turnorder", _turn([PC], [PC, GOB])),
        _in_combat(world),
    )
    assert out == [ev.CombatantRemoved(id="t1", token="-OTokGob1")]


def test_first_rows_start_a_combat(adapter: Roll20Adapter, world: World) -> None:
    unrolled = {**GOB, "pr": ""}
    out = adapter.translate_in(
        "change:campaign:turnorder",
        validate("change:campaign:turnorder", _turn([PC, unrolled], "")),
        world,
    )
    assert out == [
        ev.CombatStarted(id="t1", tokens=["-OTokPC01", "-OTokGob1"], initiative={"-OTokPC01": 19})
    ]


def test_clearing_the_turnorder_ends_the_combat(adapter: Roll20Adapter, world: World) -> None:
    custom = {"id": "-1", "pr": 3, "custom": "Round"}
    out = adapter.translate_in(
        "change:campaign:turnorder",
        validate("change:campaign:turnorder", _turn([custom], [PC, GOB, custom])),
        _in_combat(world),
    )
    assert out == [ev.CombatEnded(id="t1")]


def test_foreign_rows_are_ignored(adapter: Roll20Adapter, world: World) -> None:
    other = {"id": "-OTokElsewhere", "pr": 30, "custom": "", "_pageid": "-OOther"}
    lair = {"id": "-1", "pr": 20, "custom": "Lair action"}
    out = adapter.translate_in(
        "change:campaign:turnorder",
        validate(
            "change:campaign:turnorder", _turn([other, lair, PC, GOB], [lair, PC, GOB, other])
        ),
        _in_combat(world),
    )
    assert out == []  # the current row is not ours: no turn event


def test_bad_turnorder_json(adapter: Roll20Adapter, world: World) -> None:
    payload = {"id": "t9", "obj": {"turnorder": "[{]"}, "prev": {"turnorder": ""}}
    with pytest.raises(TranslationError) as e:
        adapter.translate_in(
            "change:campaign:turnorder", validate("change:campaign:turnorder", payload), world
        )
    assert e.value.code == "bad_turnorder" and e.value.path == "obj.turnorder"


# =================================================================================================
# in: chat
# =================================================================================================


def test_api_command_with_inline_rolls_and_selected(adapter: Roll20Adapter, world: World) -> None:
    p = validate("chat:message", fixture("chat-api.json"))
    (cmd,) = adapter.translate_in("chat:message", p, world)
    assert isinstance(cmd, ev.ChatCommand)
    assert cmd.name == "ready" and cmd.args == "attack --when enters:corner --roll 19"
    assert cmd.token == "-OTokPC01" and cmd.actor == "-OCharKev"
    # no playerIsGM in the fixture: the world knows -OPlayGM as the GM
    assert cmd.player == "-OPlayGM" and cmd.role == "gm"


def test_playerisgm_from_the_sandbox_decides_the_role(adapter: Roll20Adapter, world: World) -> None:
    data = fixture("chat-api.json")
    data["playerIsGM"] = False
    (cmd,) = adapter.translate_in("chat:message", validate("chat:message", data), world)
    assert cmd.role == "player"
    data["playerIsGM"] = True
    data["msg"]["playerid"] = "-OPlay02"
    (cmd,) = adapter.translate_in("chat:message", validate("chat:message", data), world)
    assert cmd.role == "gm"


def test_a_gm_suffix_in_the_name_is_not_trusted(adapter: Roll20Adapter, world: World) -> None:
    data = fixture("chat-api.json")
    data["msg"].update(who="Mallory (GM)", playerid="-OPlay02")
    (cmd,) = adapter.translate_in("chat:message", validate("chat:message", data), world)
    assert cmd.role == "player"


def test_several_inline_rolls(adapter: Roll20Adapter, world: World) -> None:
    data = fixture("chat-api.json")
    roll = data["msg"]["inlinerolls"][0]
    second = json.loads(json.dumps(roll))
    second["results"]["total"] = 7.5
    data["msg"]["inlinerolls"].append(second)
    data["msg"]["content"] = "!jump gap $[[1]] --bonus $[[0]]"
    (cmd,) = adapter.translate_in("chat:message", validate("chat:message", data), world)
    assert cmd.args == "gap 7.5 --bonus 19"


def test_missing_inline_roll(adapter: Roll20Adapter, world: World) -> None:
    data = fixture("chat-api.json")
    data["msg"]["content"] = "!attack $[[3]]"
    with pytest.raises(TranslationError) as e:
        adapter.translate_in("chat:message", validate("chat:message", data), world)
    assert e.value.code == "bad_inline_roll"


def test_the_mod_scripts_own_command_is_not_forwarded(adapter: Roll20Adapter, world: World) -> None:
    data = fixture("chat-api.json")
    data["msg"]["content"] = "!vttbridge --status"
    assert adapter.translate_in("chat:message", validate("chat:message", data), world) == []


def test_selected_unknown_graphic_is_no_speaker(adapter: Roll20Adapter, world: World) -> None:
    data = fixture("chat-api.json")
    data["msg"]["selected"] = [{"_id": "-OPath", "_type": "path"}, {"_id": "-OGone"}]
    (cmd,) = adapter.translate_in("chat:message", validate("chat:message", data), world)
    assert cmd.token is None and cmd.actor is None


def test_rollresult(adapter: Roll20Adapter, world: World) -> None:
    p = validate("chat:message", fixture("chat-rollresult.json"))
    (msg,) = adapter.translate_in("chat:message", p, world)
    assert msg == ev.ChatMessage(id="evt-2003", text="1d20+4 = 5", player="-OPlay02", role="player")


def test_rollresult_that_is_not_json(adapter: Roll20Adapter, world: World) -> None:
    data = fixture("chat-rollresult.json")
    data["msg"]["content"] = "rolled a 5"
    with pytest.raises(TranslationError) as e:
        adapter.translate_in("chat:message", validate("chat:message", data), world)
    assert (e.value.code, e.value.path) == ("bad_roll", "msg.content")


@pytest.mark.parametrize("kind", ["general", "emote", "whisper", "desc"])
def test_plain_chat(adapter: Roll20Adapter, world: World, kind: str) -> None:
    payload = {
        "id": "c1",
        "msg": {
            "who": "Bob",
            "playerid": "-OPlay02",
            "type": kind,
            "content": "I hide<br>behind &amp; the crate",
            "target": "gm",
        },
    }
    (msg,) = adapter.translate_in("chat:message", validate("chat:message", payload), world)
    assert msg == ev.ChatMessage(
        id="c1", text="I hide\nbehind & the crate", player="-OPlay02", role="player"
    )


def test_unknown_event(adapter: Roll20Adapter, world: World) -> None:
    with pytest.raises(TranslationError) as e:
        adapter.translate_in(
            "change:path", validate("destroy:graphic", {"id": "x", "obj": {"_id": "p"}}), world
        )
    assert e.value.code == "unknown_event"


# =================================================================================================
# out
# =================================================================================================


def _one(adapter: Roll20Adapter, effect: Any, world: World) -> Command:
    (cmd,) = adapter.translate_out(effect, world)
    model = OUTBOUND[cmd.op]
    model.model_validate(cmd.data)  # every command matches its published schema
    return cmd


def test_chat_public_gm_and_player(adapter: Roll20Adapter, world: World) -> None:
    pub = _one(adapter, fx.PostChat(text="Goblin 1 rounds the corner!"), world)
    assert pub.op == "sendChat"
    assert pub.data == {
        "speakingAs": "VTTBridge",
        "message": "Goblin 1 rounds the corner!",
        "options": {"noarchive": False},
    }
    gm = _one(
        adapter, fx.PostChat(text="Goblin 1 triggers Kevin's Ready action.", whisper_to="gm"), world
    )
    assert gm.data["message"] == "/w gm Goblin 1 triggers Kevin's Ready action."
    bob = _one(adapter, fx.PostChat(text="Your turn.", whisper_to="-OPlay02"), world)
    assert bob.data["message"] == '/w "Bob" Your turn.'
    lost = _one(adapter, fx.PostChat(text="Hi", whisper_to="-OGone"), world)
    assert lost.data["message"] == "/w gm (for -OGone) Hi"


def test_chat_speaker(adapter: Roll20Adapter, world: World) -> None:
    as_char = _one(adapter, fx.PostChat(text="Hah!", speaker="-OTokPC01"), world)
    assert as_char.data["speakingAs"] == "character|-OCharKev"
    alias = _one(adapter, fx.PostChat(text="Hah!", speaker="The Narrator"), world)
    assert alias.data["speakingAs"] == "The Narrator"


def test_chat_text_is_escaped_for_roll20(adapter: Roll20Adapter, world: World) -> None:
    text = "/roll [[1d20]] @{hp} %{x} #macro {{t}} <b>&\nnext"
    cmd = _one(adapter, fx.PostChat(text=text), world)
    msg = cmd.data["message"]
    assert msg.startswith("&#47;roll ")
    for bad in ("[[", "@{", "%{", "{{", "<b>", "\n"):
        assert bad not in msg
    assert msg.endswith("&amp;<br>next")
    assert escape_chat("a|b") == "a&#124;b"


def test_ask_player_gets_api_buttons(adapter: Roll20Adapter, world: World) -> None:
    ask = fx.AskPlayer(
        prompt="p1",
        player="-OPlay02",
        token="-OTokPC01",
        question="Goblin 1 rounds the corner. Fire or cancel?",
        options=["fire", "cancel", "hold on"],
        default="fire",
        timeout=60,
    )
    cmd = _one(adapter, ask, world)
    msg = cmd.data["message"]
    assert msg.startswith('/w "Bob" Goblin 1 rounds the corner. Fire or cancel?<br>')
    assert "[fire](!answer p1 fire)" in msg and "[cancel](!answer p1 cancel)" in msg
    assert '[hold on](!answer p1 "hold on")' in msg
    assert msg.endswith("(default fire in 60 s)")
    gm = _one(adapter, ask.model_copy(update={"player": "gm"}), world)
    assert gm.data["message"].startswith("/w gm ")


def test_update_token_is_a_set_with_pixels_and_cell(adapter: Roll20Adapter, world: World) -> None:
    cmd = _one(adapter, fx.UpdateToken(token="-OTokGob1", cell=Cell(x=8, y=5)), world)
    assert cmd.op == "set"
    assert cmd.data == {
        "type": "graphic",
        "id": "-OTokGob1",
        "attrs": {"left": 595, "top": 385},
        "cell": {"x": 8, "y": 5},
    }
    # the commands fixture's set is the same call
    fixture_set = fixture("commands.json")[1]
    assert fixture_set["op"] == cmd.op
    assert fixture_set["data"] == {k: v for k, v in cmd.data.items() if k != "cell"}


def test_update_token_fields(adapter: Roll20Adapter, world: World) -> None:
    cmd = _one(
        adapter,
        fx.UpdateToken(token="-OTokGob1", fields={"hidden": True, "name": "X", "disposition": -1}),
        world,
    )
    assert cmd.data["attrs"] == {"layer": "gmlayer", "name": "X"}
    assert adapter.translate_out(fx.UpdateToken(token="-OTokGob1", fields={"x": 1}), world) == []


def test_set_initiative_merges_into_the_live_order(adapter: Roll20Adapter, world: World) -> None:
    cmd = _one(adapter, fx.SetInitiative(token="-OTokGob1", ic=14), world)
    assert cmd.op == "Campaign.set"
    patch = CampaignSetData.model_validate(cmd.data).merge
    assert patch is not None and patch.set[0].id == "-OTokGob1" and patch.set[0].pr == 14
    assert cmd.data["merge"]["set"][0]["_pageid"] == "-OPage01"
    # applied to the fixture's live order: only the goblin's row changes
    live = parse_turnorder(fixture("change-turnorder.json")["obj"]["turnorder"])
    merged = merge_turnorder(live, patch)
    assert [(r.id, r.pr) for r in merged] == [("-OTokGob1", 14), ("-1", 2), ("-OTokPC01", 19)]


def test_advance_turn_rotates_and_counts_rounds(adapter: Roll20Adapter, world: World) -> None:
    cmd = _one(adapter, fx.AdvanceTurn(round=3, token="-OTokPC01", ic=19), world)
    patch = TurnOrderPatch.model_validate(cmd.data["merge"])
    assert patch.current == "-OTokPC01" and patch.round == 3
    live = parse_turnorder(fixture("change-turnorder.json")["obj"]["turnorder"])
    merged = merge_turnorder(live, patch)
    assert merged[0].id == "-OTokPC01"
    assert [r.pr for r in merged if r.is_custom] == [3]


def test_combat_end_removes_only_the_bridges_rows(adapter: Roll20Adapter, world: World) -> None:
    cmd = _one(adapter, fx.AdvanceTurn(round=0, token=None), world)
    patch = TurnOrderPatch.model_validate(cmd.data["merge"])
    live = parse_turnorder(
        json.dumps(
            [
                GOB,
                {"id": "-1", "pr": 2, "custom": "Round"},
                {"id": "-OTokElsewhere", "pr": 3, "custom": ""},
                PC,
            ]
        )
    )
    assert [r.id for r in merge_turnorder(live, patch)] == ["-1", "-OTokElsewhere"]


def test_watch_set_becomes_the_mods_watch_command(adapter: Roll20Adapter, world: World) -> None:
    eff = fx.WatchMoves(
        scene="-OPage01",
        watches=[
            fx.MoveWatch(cells=[(3, 4), (3, 5)], exclude="-OTokPC01"),
            fx.MoveWatch(cells=None, token="-OTokGob1"),
        ],
    )
    cmd = _one(adapter, eff, world)
    assert cmd.op == "watch"
    assert cmd.data == {
        "page": "-OPage01",
        "watches": [
            {"cells": [(3, 4), (3, 5)], "token": None, "exclude": "-OTokPC01"},
            {"cells": None, "token": "-OTokGob1", "exclude": None},
        ],
        "max_hold_ms": 90_000,
    }
    assert _one(adapter, fx.WatchMoves(), world).data["watches"] == []  # stop holding


def test_release_is_a_set_to_where_the_rules_left_the_token(
    adapter: Roll20Adapter, world: World
) -> None:
    eff = fx.ReleaseMove(hold="evt-2001", token="-OTokGob1", cell=Cell(x=9, y=5))
    cmd = _one(adapter, eff, world)
    assert (cmd.op, cmd.data["id"], cmd.data["attrs"]) == (
        "set",
        "-OTokGob1",
        {"left": 665, "top": 385},
    )
    assert cmd.data["cell"] == {"x": 9, "y": 5} and cmd.data["release"] == "evt-2001"


def test_the_real_holds_script_effects_translate(adapter: Roll20Adapter, world: World) -> None:
    from vttbridge.sdk import holds

    watch = holds.WatchMoves(scene="-OPage01", watches=[holds.MoveWatch(cells=[(1, 2)])])
    assert _one(adapter, watch, world).data["watches"][0]["cells"] == [(1, 2)]
    rel = holds.ReleaseMove(hold="h", token="-OTokGob1", cell=Cell(x=7, y=5), moved=False)
    assert _one(adapter, rel, world).data["attrs"] == {"left": 525, "top": 385}


def test_ask_buttons_name_tokens(adapter: Roll20Adapter, world: World) -> None:
    ask = fx.AskPlayer(
        prompt="p2",
        player="gm",
        question="Whom?",
        options=["-OTokGob1", "no_attack"],
        default="no_attack",
    )
    msg = _one(adapter, ask, world).data["message"]
    assert "[Goblin 1](!answer p2 -OTokGob1)" in msg and msg.endswith("(default no_attack)")


def test_commands_fixture_matches_the_outbound_models() -> None:
    for cmd in fixture("commands.json"):
        OUTBOUND[cmd["op"]].model_validate(cmd["data"])


def test_unknown_effects_are_dropped(adapter: Roll20Adapter, world: World) -> None:
    class Other(fx.BaseEffect):
        type: str = "fireworks"

    assert adapter.translate_out(Other(), world) == []  # type: ignore[arg-type]


# =================================================================================================
# turn order merges (the same cases drive the Mod script's JavaScript)
# =================================================================================================

CASES = json.loads((HERE / "merge_cases.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_merge_cases(case: dict) -> None:
    merged = merge_turnorder(
        parse_turnorder(case["rows"]), TurnOrderPatch.model_validate(case["patch"])
    )
    assert [r.dump() for r in merged] == case["expect"]


def test_merge_never_drops_or_changes_foreign_rows() -> None:
    from hypothesis import given
    from hypothesis import strategies as st

    ids = st.sampled_from(["A", "B", "C", "D", "-1", "Q", "R"])

    @given(
        rows=st.lists(
            st.tuples(ids, st.integers(0, 30), st.sampled_from(["", "Round", "Lair"])), max_size=8
        ),
        owned=st.lists(st.sampled_from(["A", "B", "C", "D"]), unique=True),
        sets=st.lists(
            st.tuples(st.sampled_from(["A", "B", "C", "D"]), st.integers(0, 30)), max_size=4
        ),
        current=st.none() | st.sampled_from(["A", "B", "C", "D"]),
        remove=st.lists(st.sampled_from(["A", "B", "-1", "Q"]), max_size=3),
    )
    def check(rows, owned, sets, current, remove) -> None:
        live = [{"id": i, "pr": pr, "custom": c if i == "-1" else ""} for i, pr, c in rows]
        patch = TurnOrderPatch(
            set=[{"id": i, "pr": pr} for i, pr in sets], order=owned, current=current, remove=remove
        )
        merged = merge_turnorder(parse_turnorder(live), patch)
        touched = set(owned) | {i for i, _ in sets} | set(remove)

        def foreign(rs: list) -> list:
            return [r.dump() for r in rs if r.id not in touched and not r.is_round_counter]

        before = foreign(parse_turnorder(live))
        after = foreign(merged)
        assert sorted(map(json.dumps, before)) == sorted(map(json.dumps, after))
        # custom rows survive any removal
        assert sum(r.is_custom for r in merged) == sum(r["id"] == "-1" for r in live)

    check()


def test_a_drag_in_a_fight_whispers_the_mover_what_is_left(
    adapter: Roll20Adapter, world: World
) -> None:
    from vttbridge.systems.foe.rules.movement import MoveBudget

    b = MoveBudget(speed=25, moved=10, left=65, walk=15, run=65, sneak=None, turn=True)
    drag = fx.MovementBudget(token="-OTokPC01", budget=b, cause="move", player="-OPlay02")
    (cmd,) = adapter.translate_out(drag, world)
    assert cmd.op == "budget"
    assert cmd.data["message"] == (
        '/w "Bob" Kevin: 15 ft left walking (one action), 65 ft running (both actions) this turn.'
    )
    assert (cmd.data["token"], cmd.data["walk"], cmd.data["run"]) == ("-OTokPC01", 15, 65)
    OUTBOUND["budget"].model_validate(cmd.data)
    sneaking = b.model_copy(update={"walk": None, "run": None, "sneak": 5, "left": 5})
    (cmd,) = adapter.translate_out(drag.model_copy(update={"budget": sneaking}), world)
    assert cmd.data["message"].endswith("Kevin: 5 ft of sneak movement left this turn.")
    spent = b.model_copy(update={"walk": 0, "run": None, "left": 0})
    (cmd,) = adapter.translate_out(drag.model_copy(update={"budget": spent}), world)
    assert cmd.data["message"].endswith("Kevin has no movement left this turn.")
    # a turn change or an action: no ruler to show it on, nothing whispered
    for cause in ("turn", "action", "other"):
        assert adapter.translate_out(drag.model_copy(update={"cause": cause}), world) == []
    assert adapter.translate_out(drag.model_copy(update={"budget": None}), world) == []
