"""Foundry payloads to domain events: every fixture, and the v10 -> v13 variants."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError
from vttbridge.adapters.base import TranslationError
from vttbridge.adapters.foundry import FoundryAdapter
from vttbridge.adapters.foundry.models import FChatMessage, FGrid, parse_roll
from vttbridge.rules.geometry import Cell, Grid
from vttbridge.sdk import events as ev
from vttbridge.sdk.world import Actor, Scene, Token, World

from .conftest import fixture


def translate(
    adapter: FoundryAdapter, name: str, payload: dict, world: World | None = None
) -> list:
    model = adapter.inbound[name].model_validate(payload)
    return adapter.translate_in(name, model, world if world is not None else World(id="w"))


def warehouse() -> World:
    """The world after the snapshot fixture (tokens on a 100 px grid)."""
    w = World(id="w")
    w.set_scene(Scene(id="NUEDEFAULTSCENE0", name="Warehouse"))
    for tid, name, actor, cell, linked in [
        ("tKevin0000000001", "Kevin", "aKevin0000000001", (10, 5), True),
        ("tGary00000000002", "Gary", "aGary00000000002", (11, 5), True),
        ("Zq9XbC2dE4fG6hJ8", "Thug", "a1B2c3D4e5F6g7H8", (14, 7), False),
    ]:
        tok = ev.TokenData(
            id=tid,
            name=name,
            actor=actor,
            cell=Cell(x=cell[0], y=cell[1]),
            scene="NUEDEFAULTSCENE0",
            linked=linked,
        )
        w.put_token(tok)
    w.actors["a1B2c3D4e5F6g7H8"] = Actor(id="a1B2c3D4e5F6g7H8", name="Thug")
    w.players["gM0000000000000A"] = ev.Player(id="gM0000000000000A", name="Dana", role="gm")
    return w


# -- the shared fixtures ---------------------------------------------------------------------------


def test_snapshot(adapter):
    (snap,) = translate(adapter, "snapshot", fixture("snapshot"))
    assert isinstance(snap, ev.SceneSnapshot)
    assert snap.id == "evt-0001"
    assert snap.scene.id == "NUEDEFAULTSCENE0" and snap.scene.grid.distance == 5
    cells = {t.id: (t.cell.x, t.cell.y) for t in snap.tokens}
    # top-left corner + half a 100 px cell: 1000,500 -> cell 10,5
    assert cells == {
        "tKevin0000000001": (10, 5),
        "tGary00000000002": (11, 5),
        "Zq9XbC2dE4fG6hJ8": (14, 7),
    }
    thug = next(t for t in snap.tokens if t.name == "Thug")
    assert thug.linked is False and thug.disposition == -1
    assert snap.combat is not None
    assert snap.combat.round == 1 and snap.combat.active == "tKevin0000000001"
    assert snap.combat.initiative == {
        "tKevin0000000001": 22,
        "tGary00000000002": 18,
        "Zq9XbC2dE4fG6hJ8": 14,
    }
    assert {p.id: p.role for p in snap.players} == {
        "gM0000000000000A": "gm",
        "kT3rPq8Zx1LmNo2B": "player",
    }


def test_update_token_is_a_move(adapter):
    (moved,) = translate(adapter, "updateToken", fixture("updateToken"), warehouse())
    assert isinstance(moved, ev.TokenMoved)
    assert moved.token == "Zq9XbC2dE4fG6hJ8" and moved.to_cell == Cell(x=13, y=6)
    assert moved.player == "kT3rPq8Zx1LmNo2B" and moved.id == "evt-1042"
    assert moved.from_cell is None  # no origin: the runtime starts it where it has the token


def test_update_token_origin_and_waypoints(adapter):
    p = fixture("updateToken")
    p["origin"] = {"x": 1400, "y": 700}
    p["waypoints"] = [{"x": 1400, "y": 600}]
    (moved,) = translate(adapter, "updateToken", p, warehouse())
    assert moved.from_cell == Cell(x=14, y=7)
    assert moved.path == [Cell(x=14, y=7), Cell(x=14, y=6), Cell(x=13, y=6)]
    del p["origin"]  # the path without its start, which the runtime knows
    (moved,) = translate(adapter, "updateToken", p, warehouse())
    assert moved.from_cell is None and moved.path == [Cell(x=14, y=6), Cell(x=13, y=6)]
    assert moved.waypoints(Cell(x=14, y=7)) == [Cell(x=14, y=7), Cell(x=14, y=6), Cell(x=13, y=6)]


def test_v13_waypoint_actions_say_how_each_leg_was_moved(adapter):
    """v13 movement waypoints carry their ``action``: a jump leg reaches the rules as one."""
    p = fixture("updateToken")
    p["origin"] = {"x": 1400, "y": 700}
    p["waypoints"] = [
        {"x": 1400, "y": 600, "action": "walk"},
        {"x": 1400, "y": 600, "action": "walk"},  # a repeat adds no leg
        {"x": 1300, "y": 600, "action": "jump"},
    ]
    (moved,) = translate(adapter, "updateToken", p, warehouse())
    assert moved.path == [Cell(x=14, y=7), Cell(x=14, y=6), Cell(x=13, y=6)]
    assert moved.actions == ["walk", "jump"]
    p["waypoints"] = [{"x": 1400, "y": 600}, {"x": 1300, "y": 600, "action": "walk"}]
    (walked,) = translate(adapter, "updateToken", p, warehouse())
    assert walked.actions == []  # every leg walked: said by saying nothing


def test_large_token_and_grid_size(adapter):
    p = fixture("updateToken")
    p["token"].update(width=2, height=2, x=1300, y=600)
    p["grid"] = {"size": 50, "distance": 5}
    (moved,) = translate(adapter, "updateToken", p, warehouse())
    # centre = 1300 + 2 * 50 / 2 = 1350 -> cell 27 on a 50 px grid
    assert moved.to_cell == Cell(x=27, y=13)


def test_pre_update_token_is_an_attempt(adapter):
    world = warehouse()  # the setting hold_moves is on by default
    declared, moved = translate(adapter, "preUpdateToken", fixture("preUpdateToken"), world)
    assert isinstance(declared, ev.ActionDeclared)
    assert (declared.action, declared.phase, declared.token) == (
        "move",
        "attempt",
        "Zq9XbC2dE4fG6hJ8",
    )
    assert moved.from_cell == Cell(x=13, y=6) and moved.to_cell == Cell(x=12, y=6)
    assert declared.id == moved.id == "evt-1043"


def test_chat_with_a_roll(adapter):
    (msg,) = translate(adapter, "createChatMessage", fixture("createChatMessage"), warehouse())
    assert isinstance(msg, ev.ChatMessage)
    assert msg.text == "Pistol - Attack Roll: 1d20 + 4 = 19 (d20: 15)"
    assert msg.token == "Zq9XbC2dE4fG6hJ8" and msg.player == "kT3rPq8Zx1LmNo2B"


def test_chat_command(adapter):
    (msg,) = translate(
        adapter, "createChatMessage", fixture("createChatMessage-command"), warehouse()
    )
    assert msg.text == "!standoff" and msg.role == "player" and msg.token == "tKevin0000000001"
    cmd = ev.ChatCommand.parse(msg.text)  # the runtime derives the command from the message
    assert cmd is not None and cmd.name == "standoff"


def test_gm_chat_role_comes_from_the_world(adapter):
    p = fixture("createChatMessage-command")
    p["message"]["author"] = "gM0000000000000A"
    (msg,) = translate(adapter, "createChatMessage", p, warehouse())
    assert msg.role == "gm"


def test_update_combat_turn(adapter):
    (turn,) = translate(adapter, "updateCombat", fixture("updateCombat"), warehouse())
    assert isinstance(turn, ev.TurnStarted)
    assert (turn.token, turn.round, turn.ic) == ("tGary00000000002", 1, 18)


def test_update_combat_new_round(adapter):
    p = fixture("updateCombat")
    p["changes"] = {"_id": p["combat"]["_id"], "round": 2, "turn": 0}
    p["combat"].update(round=2, turn=0)
    rnd, turn = translate(adapter, "updateCombat", p, warehouse())
    assert rnd == ev.RoundStarted(id="evt-1046", round=2)
    assert turn.token == "tKevin0000000001" and turn.round == 2


def test_update_combat_start(adapter):
    p = fixture("updateCombat")
    p["changes"] = {"_id": p["combat"]["_id"], "round": 1, "turn": 0}
    p["combat"].update(round=1, turn=0)
    p["prior"] = {"round": 0, "turn": None}
    (start,) = translate(adapter, "updateCombat", p, warehouse())
    assert isinstance(start, ev.CombatStarted)
    assert start.initiative == {
        "tKevin0000000001": 22,
        "tGary00000000002": 18,
        "Zq9XbC2dE4fG6hJ8": 14,
    }


def test_update_combat_other_changes_are_ignored(adapter):
    p = fixture("updateCombat")
    p["changes"] = {"_id": p["combat"]["_id"], "flags": {"x": 1}}
    assert translate(adapter, "updateCombat", p, warehouse()) == []


def test_combat_sorted_like_foundry_when_turns_are_missing(adapter):
    p = fixture("updateCombat")
    p["combat"]["combatants"].reverse()  # creation order, not initiative order
    (turn,) = translate(adapter, "updateCombat", p, warehouse())
    assert turn.token == "tGary00000000002"


def test_combat_turn_change(adapter):
    p = fixture("updateCombat")
    payload = {
        "id": "e-ctc",
        "combat": p["combat"],
        "prior": p["prior"],
        "current": {
            "round": 1,
            "turn": 1,
            "combatantId": "cGary00000000002",
            "tokenId": "tGary00000000002",
        },
    }
    (turn,) = translate(adapter, "combatTurnChange", payload, warehouse())
    assert (turn.token, turn.round, turn.ic) == ("tGary00000000002", 1, 18)


def test_create_combatant_without_initiative(adapter):
    assert translate(adapter, "createCombatant", fixture("createCombatant"), warehouse()) == []


def test_combatant_initiative_becomes_an_ic(adapter):
    p = fixture("createCombatant")
    p["combatant"].update(initiative=17.02, tokenId="tKevin0000000001")  # a dnd5e tie-break
    (ic,) = translate(adapter, "createCombatant", p, warehouse())
    assert ic == ev.InitiativeChanged(
        id="evt-1047", token="tKevin0000000001", ic=17, reason="set in Foundry"
    )
    upd = {
        "id": "e-uc",
        "combatId": "c",
        "combatant": p["combatant"],
        "changes": {"_id": "x", "initiative": 17.02},
    }
    assert translate(adapter, "updateCombatant", upd, warehouse())[0].ic == 17


def test_a_combatant_deleted_from_the_tracker_leaves_the_turn_order(adapter):
    p = fixture("createCombatant")
    p["combatant"].update(tokenId="tGary00000000002", initiative=18)
    (left,) = translate(adapter, "deleteCombatant", p, warehouse())
    assert left == ev.CombatantRemoved(id="evt-1047", token="tGary00000000002")
    # the Wolf's token is not in the world (deleted first, or never seen): nothing to do
    assert translate(adapter, "deleteCombatant", fixture("createCombatant"), warehouse()) == []


def test_update_actor_of_an_unlinked_token(adapter):
    world = warehouse()
    updated, damage = translate(adapter, "updateActor", fixture("updateActor"), world)
    assert updated == ev.TokenUpdated(id="evt-1048", token="Zq9XbC2dE4fG6hJ8", stats={"wounds": 3})
    # wounds 10 -> 3 entered on the sheet is damage (it ends a stand off)
    assert damage == ev.DamageDealt(id="evt-1048", token="Zq9XbC2dE4fG6hJ8", amount=7, kind="sheet")


def test_update_actor_of_a_world_actor(adapter):
    p = {
        "id": "e-a",
        "actorUuid": "Actor.aKevin0000000001",
        "changes": {
            "_id": "aKevin0000000001",
            "name": "Kev",
            "system": {"attributes": {"reflex": {"value": "6"}}},
        },
    }
    (updated,) = translate(adapter, "updateActor", p, warehouse())
    assert updated == ev.ActorUpdated(
        id="e-a", actor="aKevin0000000001", name="Kev", stats={"reflex": 6}
    )


def test_snapshot_actors_owners_and_regions(adapter):
    p = fixture("snapshot")
    p["systemId"] = "dnd5e"
    p["actors"] = [
        {
            "_id": "aKevin0000000001",
            "name": "Kevin",
            "type": "character",
            "ownership": {"default": 0, "kT3rPq8Zx1LmNo2B": 3, "gM0000000000000A": 3},
            "system": {
                "abilities": {"dex": {"value": 16}, "wis": {"value": 13}},
                "attributes": {"hp": {"value": 22}},
            },
        }
    ]
    p["regions"] = [
        {
            "_id": "r1",
            "name": "corner",
            "shapes": [
                {"type": "rectangle", "x": 1000, "y": 400, "width": 200, "height": 300},
                {
                    "type": "rectangle",
                    "x": 1100,
                    "y": 400,
                    "width": 100,
                    "height": 100,
                    "hole": True,
                },
            ],
        }
    ]
    (snap,) = translate(adapter, "snapshot", p)
    kevin = next(t for t in snap.tokens if t.id == "tKevin0000000001")
    assert kevin.owners == ["kT3rPq8Zx1LmNo2B"]  # the GM's ownership does not count
    assert snap.actors[0].stats == {
        "initiative": 3,
        "dex_bonus": 3,
        "wisdom": 13,
        "vitality": 22,
        "kind": "special",
    }
    corner = {(c.x, c.y) for c in snap.regions["corner"]}
    assert corner == {(10, 4), (10, 5), (10, 6), (11, 5), (11, 6)}


def test_unlinked_token_delta_stats(adapter):
    p = fixture("updateToken")
    p["changes"] = {
        "_id": p["token"]["_id"],
        "delta": {"system": {"attributes": {"wounds": {"value": 8}}}},
    }
    updated, damage = translate(adapter, "updateToken", p, warehouse())
    assert updated.stats == {"wounds": 8} and damage.amount == 2


def test_other_token_fields(adapter):
    p = fixture("updateToken")
    p["changes"] = {"_id": p["token"]["_id"], "hidden": True, "name": "Boss", "disposition": -2}
    p["token"].update(hidden=True, name="Boss", disposition=-2)
    (upd,) = translate(adapter, "updateToken", p, warehouse())
    assert (upd.hidden, upd.name, upd.disposition) == (True, "Boss", -1)  # SECRET -> hostile


def test_delete_combat(adapter):
    p = {"id": "e-dc", "combat": {"_id": "cB7tRk1Qw2Ee3Rr4", "round": 3}}
    assert translate(adapter, "deleteCombat", p) == [ev.CombatEnded(id="e-dc")]


# -- v10 -> v13 variants ---------------------------------------------------------------------------


def test_v11_chat_message(adapter):
    """v11: ``user`` instead of ``author``, a numeric ``type`` (5 = ROLL), no ``style``."""
    p = fixture("createChatMessage")
    msg = p["message"]
    msg["user"] = msg.pop("author")
    msg.pop("style")
    msg["type"] = 5
    (out,) = translate(adapter, "createChatMessage", p, warehouse())
    assert out.player == "kT3rPq8Zx1LmNo2B" and out.text.endswith("= 19 (d20: 15)")


def test_v9_single_roll_and_grid_number(adapter):
    p = fixture("createChatMessage")
    p["message"]["roll"] = p["message"].pop("rolls")[0]
    (out,) = translate(adapter, "createChatMessage", p, warehouse())
    assert "= 19" in out.text
    assert FGrid.model_validate(70).size == 70


def test_rolls_as_objects(adapter):
    p = fixture("createChatMessage")
    p["message"]["rolls"] = [json.loads(p["message"]["rolls"][0])]
    (out,) = translate(adapter, "createChatMessage", p, warehouse())
    assert out.text == "Pistol - Attack Roll: 1d20 + 4 = 19 (d20: 15)"


def test_v10_actor_data_and_v13_keys(adapter):
    p = fixture("updateToken")
    p["token"].update(movementAction="walk", _movementHistory=[], level="l1", depth=1)
    p["changes"] = {
        "_id": p["token"]["_id"],
        "actorData": {"system": {"attributes": {"wounds": {"value": 9}}}},
    }
    (upd, _damage) = translate(adapter, "updateToken", p, warehouse())
    assert upd.stats == {"wounds": 9}


def test_nulls_read_as_defaults(adapter):
    p = fixture("snapshot")
    p["tokens"][0].update(hidden=None, width=None, disposition=None)
    p["combat"]["combatants"][0].update(hidden=None, defeated=None)
    (snap,) = translate(adapter, "snapshot", p)
    assert snap.tokens[0].hidden is False


def test_roll_terms_keep_only_active_results():
    roll = parse_roll(
        {
            "class": "Roll",
            "formula": "4d6kh3",
            "total": 13,
            "terms": [
                {
                    "class": "Die",
                    "number": 4,
                    "faces": 6,
                    "results": [
                        {"result": 6, "active": True},
                        {"result": 4, "active": True},
                        {"result": 3, "active": True},
                        {"result": 1, "active": False, "discarded": True},
                    ],
                }
            ],
        }
    )
    (die,) = roll.dice()
    assert die.results == [6, 4, 3] and die.all_results == [6, 4, 3, 1]
    nested = parse_roll(
        {
            "formula": "(1d8 + 2)",
            "total": 7,
            "terms": [
                {
                    "class": "ParentheticalTerm",
                    "roll": json.dumps(
                        {
                            "terms": [
                                {
                                    "class": "Die",
                                    "faces": 8,
                                    "number": 1,
                                    "results": [{"result": 5}],
                                }
                            ]
                        }
                    ),
                }
            ],
        }
    )
    assert [d.results for d in nested.dice()] == [[5]]


def test_html_is_stripped(adapter):
    p = fixture("createChatMessage-command")
    p["message"]["content"] = "<p>!ready <strong>shoot</strong> --when&nbsp;corner</p>"
    (msg,) = translate(adapter, "createChatMessage", p, warehouse())
    assert msg.text == "!ready shoot --when corner"


# -- bad payloads ----------------------------------------------------------------------------------


def test_bad_roll_json_is_a_validation_error():
    with pytest.raises(ValidationError) as e:
        FChatMessage.model_validate({"content": "", "rolls": ["{not json"]})
    assert "not valid JSON" in str(e.value)


def test_missing_token_is_a_validation_error(adapter):
    p = fixture("updateToken")
    del p["token"]
    with pytest.raises(ValidationError) as e:
        adapter.inbound["updateToken"].model_validate(p)
    assert e.value.errors()[0]["type"] == "missing"


def test_huge_region_is_refused(adapter):
    p = fixture("snapshot")
    p["regions"] = [
        {
            "_id": "r",
            "name": "everything",
            "shapes": [{"type": "rectangle", "x": 0, "y": 0, "width": 10**6, "height": 10**6}],
        }
    ]
    with pytest.raises(TranslationError) as e:
        translate(adapter, "snapshot", p)
    assert e.value.code == "region_too_large" and e.value.path == "regions.0"


def test_actor_update_without_an_actor(adapter):
    with pytest.raises(TranslationError) as e:
        translate(adapter, "updateActor", {"id": "x", "changes": {}})
    assert e.value.code == "missing_field"


def test_unknown_event(adapter):
    with pytest.raises(TranslationError) as e:
        adapter.translate_in("renderSidebar", object(), World(id="w"))  # type: ignore[arg-type]
    assert e.value.code == "unknown_event"


def test_world_tokens_feed_moves():
    """A world built by the runtime reads the same way (``Token`` models, not dicts)."""
    w = warehouse()
    assert isinstance(w.tokens["tKevin0000000001"], Token)


def test_held_move_refused_in_a_world_that_does_not_hold_moves(adapter):
    """Nobody would release it: the module is told at once and lets the move through."""
    world = warehouse()
    world.settings.hold_moves = False
    with pytest.raises(TranslationError) as e:
        translate(adapter, "preUpdateToken", fixture("preUpdateToken"), world)
    assert e.value.code == "not_holding"


def test_the_modules_path_length_fixture_is_what_the_rules_measure():
    """module/src/geometry.js pathLength is checked against this fixture (unit-v13.test.mjs):
    the ruler's colours must measure a path as the rules do."""
    from vttbridge.rules.geometry import DiagonalMetric

    cases = fixture("path_lengths")["cases"]
    assert {c["metric"] for c in cases} == {m.value for m in DiagonalMetric}
    for case in cases:
        grid = Grid(distance=case["distance"], metric=case["metric"])
        cells = [Cell(x=x, y=y) for x, y in case["cells"]]
        assert grid.path_length(cells) == case["length"], case


# -- v14 scene levels --------------------------------------------------------------------------


def test_v14_levels_reach_the_rules(adapter):
    """A v14 token's level is part of its position: the snapshot's tokens and regions carry
    theirs; a movement's waypoints give each point its level, and a leg that changes level
    counts the height between the floors (its ends' elevation)."""
    snap = fixture("snapshot")
    snap["tokens"][0]["level"] = "lvlGround0000001"
    snap["regions"] = [
        {"_id": "rCorner000000001", "name": "corner", "levels": ["lvlGround0000001"],
         "shapes": [{"type": "rectangle", "x": 1000, "y": 400, "width": 100, "height": 100}]},
        {"_id": "rYard00000000002", "name": "yard", "levels": None,
         "shapes": [{"type": "rectangle", "x": 0, "y": 0, "width": 100, "height": 100}]},
    ]  # fmt: skip
    (s,) = translate(adapter, "snapshot", snap)
    assert s.tokens[0].level == "lvlGround0000001" and s.tokens[1].level is None
    assert s.region_levels == {"corner": ["lvlGround0000001"]}
    p = fixture("updateToken")
    p["token"].update(x=1400, y=700, level="lvlUpstairs00002", elevation=10)
    p["origin"] = {"x": 1600, "y": 700, "level": "lvlGround0000001", "elevation": 0}
    p["waypoints"] = [
        {"x": 1500, "y": 700, "level": "lvlGround0000001", "elevation": 0},
        {"x": 1500, "y": 700, "level": "lvlUpstairs00002", "elevation": 10},  # the stairs
        {"x": 1400, "y": 700, "level": "lvlUpstairs00002", "elevation": 10},
    ]
    (moved,) = translate(adapter, "updateToken", p, warehouse())
    assert moved.waypoints() == [Cell(x=16, y=7), Cell(x=15, y=7), Cell(x=15, y=7),
                                 Cell(x=14, y=7)]  # fmt: skip
    assert moved.levels == ["lvlGround0000001", "lvlGround0000001", "lvlUpstairs00002",
                            "lvlUpstairs00002"]  # fmt: skip
    assert moved.climb == 10 and moved.level == "lvlUpstairs00002"
    # a level changed from the token HUD: a move in place
    q = fixture("updateToken")
    q["changes"] = {"_id": q["token"]["_id"], "level": "lvlUpstairs00002"}
    q["token"].update(level="lvlUpstairs00002", elevation=10)
    q["origin"] = {"x": q["token"]["x"], "y": q["token"]["y"], "level": "lvlGround0000001",
                   "elevation": 0}  # fmt: skip
    (lift,) = translate(adapter, "updateToken", q, warehouse())
    assert lift.from_cell == lift.to_cell and lift.levels[-1] == "lvlUpstairs00002"
    assert lift.climb == 10
    # v13 and older: no levels anywhere
    (flat,) = translate(adapter, "updateToken", fixture("updateToken"), warehouse())
    assert flat.levels == [] and flat.climb == 0
