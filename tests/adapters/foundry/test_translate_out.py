"""Effects to Foundry commands: one Foundry call each, our own writes marked."""

from __future__ import annotations

from vttbridge.adapters.foundry import FLAG, OUTBOUND
from vttbridge.rules.citations import Cited
from vttbridge.rules.encounter import Combatant
from vttbridge.rules.geometry import Cell, Grid
from vttbridge.sdk import effects as fx
from vttbridge.sdk.effects import MoveWatch, ReleaseMove, WatchMoves
from vttbridge.sdk.events import Player
from vttbridge.sdk.world import Actor, Scene, World

from .conftest import fixture
from .test_translate_in import warehouse


def out(adapter, effect, world=None):
    return adapter.translate_out(effect, world if world is not None else warehouse())


def test_commands_fixture(adapter):
    """The shared commands: same op and same Foundry data (we add our marks)."""
    want = {c["seq"]: c for c in fixture("commands")}
    (chat,) = out(adapter, fx.PostChat(text="Kevin enters a stand off with Thug."))
    assert chat.op == want[77]["op"]
    assert {k: chat.data[k] for k in ("content", "speaker", "whisper")} == want[77]["data"]
    assert chat.data["flags"][FLAG]["bridge"] is True

    (move,) = out(
        adapter, fx.UpdateToken(token="Zq9XbC2dE4fG6hJ8", cell=Cell(x=13, y=7), animate=False)
    )
    assert move.op == "Token.update"
    assert move.data == want[78]["data"]
    assert move.options == {**want[78]["options"], FLAG: {"bridge": True}}

    (ini,) = out(adapter, fx.SetInitiative(token="tKevin0000000001", ic=17))
    assert ini.op == want[79]["op"]
    assert ini.data == {"tokenId": "tKevin0000000001", "initiative": 17}
    # the fixture names the combatant by id instead; both shapes are valid command data
    OUTBOUND["Combatant.update"].model_validate(want[79]["data"])
    OUTBOUND["Combatant.update"].model_validate(ini.data)


def test_every_command_validates_against_its_schema(adapter):
    world = warehouse()
    effects = [
        fx.PostChat(text="hi", whisper_to="gm"),
        fx.AskPlayer(
            prompt="p1",
            player="kT3rPq8Zx1LmNo2B",
            question="Fire?",
            options=["fire", "cancel"],
            default="fire",
        ),
        fx.UpdateToken(token="tKevin0000000001", cell=Cell(x=1, y=2)),
        fx.SetInitiative(token="tKevin0000000001", ic=12),
        fx.AdvanceTurn(round=2, token="tKevin0000000001", ic=12),
        fx.AdvanceTurn(round=0, token=None),
        WatchMoves(scene="NUEDEFAULTSCENE0", watches=[MoveWatch(cells=[(1, 2)])]),
        ReleaseMove(hold="e1", token="tKevin0000000001", cell=Cell(x=1, y=2)),
        fx.UpdateStats(token="Zq9XbC2dE4fG6hJ8", stats={"wounds": -1}),
        fx.UpdateConditions(token="tKevin0000000001", conditions=["standoff"], removed=["dead"]),
    ]
    ops = set()
    for eff in effects:
        for cmd in adapter.translate_out(eff, world):
            OUTBOUND[cmd.op].model_validate(cmd.data)
            ops.add(cmd.op)
    assert {"Actor.update", "Actor.toggleStatusEffect"} <= ops


def test_the_write_back_is_in_the_published_schemas(adapter):
    import json

    from vttbridge.adapters.bridge.schema import schemas

    found = schemas([adapter])
    assert "foundry/out/Actor.update.json" in found
    assert "foundry/out/Actor.toggleStatusEffect.json" in found
    effect = json.dumps(found["domain/effect.json"][1])
    assert '"update_stats"' in effect and '"update_conditions"' in effect


def test_whispers(adapter):
    world = warehouse()
    (to_gm,) = out(adapter, fx.PostChat(text="psst", whisper_to="gm"), world)
    assert to_gm.data["whisper"] == ["gM0000000000000A"]
    (to_player,) = out(adapter, fx.PostChat(text="psst", whisper_to="kT3rPq8Zx1LmNo2B"), world)
    assert to_player.data["whisper"] == ["kT3rPq8Zx1LmNo2B"]
    (no_gm_known,) = out(adapter, fx.PostChat(text="psst", whisper_to="gm"), World(id="x"))
    assert no_gm_known.data["whisper"] == ["GM"]  # the module asks Foundry for its GMs


def test_speaker_is_a_token(adapter):
    (cmd,) = out(adapter, fx.PostChat(text="Bang.", speaker="tKevin0000000001"))
    assert cmd.data["speaker"] == {
        "token": "tKevin0000000001",
        "alias": "Kevin",
        "actor": "aKevin0000000001",
        "scene": "NUEDEFAULTSCENE0",
    }
    (alias,) = out(adapter, fx.PostChat(text="Hm.", speaker="The Narrator"))
    assert alias.data["speaker"] == {"alias": "The Narrator"}


def test_chat_html(adapter):
    (cmd,) = out(adapter, fx.PostChat(text="a <b> & `!answer p1 fire`\nnext"))
    assert cmd.data["content"] == (
        "<p>a &lt;b&gt; &amp; <code>!answer p1 fire</code></p><p>next</p>"
    )


def test_a_cited_rule_is_a_link_to_its_section(adapter):
    cite = Cited(
        source="FoE",
        rule="Movement",
        url="https://github.com/vttbridge/vttbridge/blob/main/docs/rules.md#movement",
        options={"diagonal_metric": "alternating"},
        code="over_budget",
    )
    text = f"Move refused: that path is 80 ft. {cite.short()}"
    (cmd,) = out(adapter, fx.PostChat(text=text, whisper_to="gm", cites=[cite]))
    assert cmd.data["content"] == (
        '<p>Move refused: that path is 80 ft. (<a class="vttbridge-rule" '
        'href="https://github.com/vttbridge/vttbridge/blob/main/docs/rules.md#movement" '
        'target="_blank" rel="noopener noreferrer">FoE, Movement</a>; option: diagonal_metric = '
        "alternating)</p>"
    )


def test_question_has_answer_buttons(adapter):
    (cmd,) = out(
        adapter,
        fx.AskPlayer(
            prompt="p1",
            player="kT3rPq8Zx1LmNo2B",
            token="tKevin0000000001",
            question="Fire or cancel?",
            options=["fire", "cancel"],
            default="fire",
            text="Fire or cancel? `!answer p1 <option>`",
        ),
    )
    # v13+: a User#query dialog for that player, closed after the prompt's timeout
    assert cmd.op == "User.query" and cmd.data["userId"] == "kT3rPq8Zx1LmNo2B"
    assert (cmd.data["prompt"], cmd.data["options"], cmd.data["default"]) == (
        "p1", ["fire", "cancel"], "fire")  # fmt: skip
    # the fallback (v11-v12, or a player who cannot be queried): a whisper with buttons
    chat = cmd.data["fallback"]
    assert chat["whisper"] == ["kT3rPq8Zx1LmNo2B"]
    assert 'data-vttbridge-answer="p1 fire"' in chat["content"]
    assert chat["flags"][FLAG]["prompt"] == "p1"
    assert "&lt;option&gt;" in chat["content"]


def test_token_update_pixels_follow_the_grid_and_token_size(adapter):
    world = warehouse()
    world.set_scene(Scene(id="NUEDEFAULTSCENE0", grid=Grid(distance=5, pixels=50)))
    world.tokens["tKevin0000000001"].vtt = {"width": 2, "height": 2}
    (cmd,) = out(adapter, fx.UpdateToken(token="tKevin0000000001", cell=Cell(x=4, y=4)), world)
    # centre of cell 4 on a 50 px grid is 225; a 2 x 2 token's corner sits 50 px up-left
    assert (cmd.data["x"], cmd.data["y"]) == (175, 175)


def test_snapshot_keeps_pixels_and_sizes(adapter):
    from .test_translate_in import translate

    p = fixture("snapshot")
    p["scene"]["grid"]["size"] = 140
    p["tokens"][0]["width"] = 2
    (snap,) = translate(adapter, "snapshot", p)
    assert snap.scene.grid.pixels == 140
    assert snap.tokens[0].vtt == {"width": 2, "height": 1}


def test_token_fields(adapter):
    (cmd,) = out(
        adapter, fx.UpdateToken(token="tKevin0000000001", fields={"hidden": True, "owners": ["x"]})
    )
    assert cmd.data == {"_id": "tKevin0000000001", "sceneId": "NUEDEFAULTSCENE0", "hidden": True}
    assert out(adapter, fx.UpdateToken(token="tKevin0000000001", fields={"owners": []})) == []


def test_turns(adapter):
    world = warehouse()
    enc = world.encounter
    for tid, ic in [("tKevin0000000001", 22), ("tGary00000000002", 18)]:
        enc.combatants[tid] = Combatant(id=tid, ic=ic)
    (cmd,) = out(adapter, fx.AdvanceTurn(round=2, token="tGary00000000002", ic=18), world)
    assert cmd.op == "Combat.update"
    assert cmd.data == {"round": 2, "tokenId": "tGary00000000002", "turn": 1}
    (end,) = out(adapter, fx.AdvanceTurn(round=0, token=None), world)
    assert end.op == "Combat.delete"


def test_watch_and_release(adapter):
    (watch,) = out(
        adapter,
        WatchMoves(
            scene="NUEDEFAULTSCENE0",
            watches=[MoveWatch(cells=[(10, 4)], exclude="tKevin0000000001")],
            budget_ms=1500,
        ),
    )
    assert watch.op == "Scene.update" and watch.data["_id"] == "NUEDEFAULTSCENE0"
    assert watch.data["flags"][FLAG]["watch"]["watches"] == [
        {"cells": [(10, 4)], "token": None, "exclude": "tKevin0000000001"}
    ]
    (rel,) = out(
        adapter, ReleaseMove(hold="evt-1043", token="Zq9XbC2dE4fG6hJ8", cell=Cell(x=12, y=6))
    )
    assert rel.op == "Token.update" and (rel.data["x"], rel.data["y"]) == (1200, 600)
    assert rel.options[FLAG] == {"bridge": True, "hold": "evt-1043", "moved": True}


def test_gm_player_role(adapter):
    world = warehouse()
    world.players["p2"] = Player(id="p2", role="gm")
    (cmd,) = out(adapter, fx.PostChat(text="x", whisper_to="gm"), world)
    assert sorted(cmd.data["whisper"]) == ["gM0000000000000A", "p2"]
    assert isinstance(world.scenes["NUEDEFAULTSCENE0"], Scene)


def test_json_schemas():
    """Every payload and command publishes a JSON Schema (``vttbridge schema``)."""
    from vttbridge.adapters.foundry import INBOUND

    for model in [*INBOUND.values(), *OUTBOUND.values()]:
        schema = model.model_json_schema()
        assert schema["type"] == "object"
    assert "id" in INBOUND["snapshot"].model_json_schema()["required"]


# -- the rules' changes back to the sheet ----------------------------------------------------------


def _sheets(adapter, system: str | None = "worldbuilding") -> World:
    """The warehouse after a snapshot of sheets: Kevin's on his actor, the Thug's in his delta."""
    snap = fixture("snapshot")
    snap["systemId"] = system
    snap["actors"] = [
        {
            "_id": "aKevin0000000001",
            "name": "Kevin",
            "type": "character",
            "system": {"attributes": {"spycraft": {"action_dice": {"value": 2}}}},
        },
        {"_id": "a1B2c3D4e5F6g7H8", "name": "Thug", "type": "npc", "system": {}},
    ]
    thug = next(t for t in snap["tokens"] if t["_id"] == "Zq9XbC2dE4fG6hJ8")
    thug["delta"] = {"system": {"attributes": {"wounds": {"value": 8}}}}
    model = adapter.inbound["snapshot"].model_validate(snap)
    (ev_snap,) = adapter.translate_in("snapshot", model, World(id="w"))
    world = World(id="w")
    world.set_scene(Scene(id="NUEDEFAULTSCENE0"))
    for a in ev_snap.actors:
        world.actors[a.id] = Actor(id=a.id, name=a.name, stats=a.stats, vtt=a.vtt)
    for t in ev_snap.tokens:
        world.put_token(t)
    return world


def test_stats_go_back_where_they_were_read_from(adapter):
    world = _sheets(adapter)
    assert world.encounter.characters["tKevin0000000001"].action_dice == 2
    (cmd,) = out(adapter, fx.UpdateStats(token="tKevin0000000001", stats={"action_dice": 1}), world)
    assert cmd.op == "Actor.update"
    assert cmd.data == {
        "_id": "aKevin0000000001",
        "update": {"system.attributes.spycraft.action_dice.value": 1},
    }
    assert cmd.options == {FLAG: {"bridge": True}}
    OUTBOUND["Actor.update"].model_validate(cmd.data)
    # a stat the sheet never showed: the table's first plain path (read first ever after)
    (cmd,) = out(adapter, fx.UpdateStats(token="tKevin0000000001", stats={"stress": 3}), world)
    assert cmd.data["update"] == {"system.attributes.spycraft.stress.value": 3}
    world.tokens["tKevin0000000001"].vtt.pop("system")  # no table of its own: the default's
    (cmd,) = out(adapter, fx.UpdateStats(token="tKevin0000000001", stats={"stress": 3}), world)
    assert cmd.data["update"] == {"flags.vttbridge.stats.stress": 3}


def test_an_unlinked_tokens_stats_go_to_its_synthetic_actor(adapter):
    world = _sheets(adapter)
    (cmd,) = out(adapter, fx.UpdateStats(token="Zq9XbC2dE4fG6hJ8", stats={"wounds": -1}), world)
    assert cmd.data == {
        "_id": "a1B2c3D4e5F6g7H8",
        "tokenId": "Zq9XbC2dE4fG6hJ8",
        "sceneId": "NUEDEFAULTSCENE0",
        "update": {"system.attributes.wounds.value": -1},
    }


def test_scaled_stats_are_undone_and_mapped_ones_left_alone(adapter):
    from vttbridge.adapters.foundry.systems import register_table

    register_table(
        {
            "system": "scaled-test",
            "stats": {
                "stress": [{"path": "system.strain", "scale": 2, "offset": 1}],
                "wounds": [{"path": "system.hp", "transform": "modifier"}],
            },
        }
    )
    world = _sheets(adapter, "scaled-test")
    world.actors["aKevin0000000001"].vtt = {
        "paths": {
            "stress": {"path": "system.strain", "scale": 2, "offset": 1},
            "wounds": {"path": "system.hp", "transform": "modifier"},
        }
    }
    stats = {"stress": 7, "wounds": 3}
    (cmd,) = out(adapter, fx.UpdateStats(token="tKevin0000000001", stats=stats), world)
    assert cmd.data["update"] == {"system.strain": 3}  # 3 * 2 + 1 reads back as 7


def test_conditions_are_status_effects(adapter):
    world = _sheets(adapter)
    effect = fx.UpdateConditions(
        token="Zq9XbC2dE4fG6hJ8", conditions=["standoff", "scripted-only"], removed=["readied"]
    )
    (cmd,) = out(adapter, effect, world)
    assert cmd.op == "Actor.toggleStatusEffect"
    assert cmd.data == {
        "tokenId": "Zq9XbC2dE4fG6hJ8",
        "sceneId": "NUEDEFAULTSCENE0",
        "statuses": [
            {
                "id": "vttbridge-readied",
                "name": "Readied",
                "img": "icons/svg/sword.svg",
                "active": False,
            },
            {
                "id": "vttbridge-standoff",
                "name": "In a stand off",
                "img": "icons/svg/target.svg",
                "active": True,
            },
        ],
    }
    OUTBOUND["Actor.toggleStatusEffect"].model_validate(cmd.data)
    (dead,) = out(
        adapter, fx.UpdateConditions(token="tKevin0000000001", conditions=["dead"]), world
    )
    assert dead.data["statuses"] == [{"id": "dead", "active": True}]  # Foundry's own
    assert (
        out(adapter, fx.UpdateConditions(token="tKevin0000000001", conditions=["x"]), world) == []
    )


def test_movement_budget_is_a_flag_on_the_token_every_client_reads(adapter):
    from vttbridge.rules.geometry import DiagonalMetric
    from vttbridge.systems.foe.rules.movement import MoveBudget

    b = MoveBudget(speed=25, moved=10, left=65, walk=15, run=65, sneak=None, turn=True)
    effect = fx.MovementBudget(
        token="tKevin0000000001", budget=b, metric=DiagonalMetric.CHEBYSHEV, cause="move"
    )
    (cmd,) = out(adapter, effect)
    assert cmd.op == "Token.update"
    assert cmd.data["_id"] == "tKevin0000000001" and cmd.data["sceneId"] == "NUEDEFAULTSCENE0"
    assert cmd.data["flags"][FLAG]["budget"] == {
        "speed": 25, "moved": 10, "left": 65, "walk": 15, "run": 65, "sneak": None,
        "turn": True, "metric": "chebyshev", "distance": 5.0,
    }  # fmt: skip
    assert cmd.options == {"animate": False, FLAG: {"bridge": True, "budget": True}}
    OUTBOUND["Token.update"].model_validate(cmd.data)
    # the fight is over: the flag is cleared (the module draws the plain ruler)
    (clear,) = out(adapter, fx.MovementBudget(token="tKevin0000000001", budget=None))
    assert clear.data["flags"][FLAG]["budget"] is None
    assert out(adapter, fx.MovementBudget(token="nobody", budget=None)) == []
