"""The conditions a token shows: the character's own, and those the encounter implies (scripted
dice throughout)."""

from __future__ import annotations

from vttbridge.rules.conditions import conditions_of
from vttbridge.rules.dice import ScriptedRoller
from vttbridge.rules.encounter import end_combat, next_turn
from vttbridge.systems.foe.rules.charge import charge
from vttbridge.systems.foe.rules.sneaking import sneak, stop_sneaking
from vttbridge.systems.spycraft.rules.delay import delay
from vttbridge.systems.spycraft.rules.ready import declare, end_ready
from vttbridge.systems.spycraft.rules.standoff import attempt, resolve_crack

from tests.systems.foe.helpers import east, fight, pony, world
from tests.systems.spycraft.scene import kevin_scene
from tests.systems.spycraft.test_standoff import crack_alice, scene, stand_off


def test_a_stand_off_shows_on_both_sides_and_ends_with_the_combat() -> None:
    enc, roller = scene()
    stand_off(enc, roller)
    assert conditions_of(enc, "alice") == {"standoff", "vulnerable"}
    assert conditions_of(enc, "bob") == {"standoff", "vulnerable"}
    assert conditions_of(enc, "dana") == set()
    end_combat(enc)
    assert conditions_of(enc, "alice") == set()


def test_a_crack_strike_leaves_a_special_character_dying() -> None:
    enc, roller, _, _ = crack_alice()
    resolve_crack(enc, "alice", "be_attacked", roller)
    assert enc.characters["alice"].wounds == -1
    assert "dying" in conditions_of(enc, "alice")
    assert "dying" not in conditions_of(enc, "bob")


def test_surrendered_shows() -> None:
    enc, roller, _, _ = crack_alice()
    resolve_crack(enc, "alice", "surrender", roller)
    assert "surrendered" in conditions_of(enc, "alice")


def test_a_failed_stand_off_shows_nothing() -> None:
    enc, roller = scene()
    roller.push(1)  # 1 + 5 against DC 14
    attempt(enc, "alice", "bob", roller)
    assert conditions_of(enc, "alice") == set()


def test_readied_until_the_ready_ends() -> None:
    enc, roller = kevin_scene()
    declare(enc, "kevin", "shoot", "the corner", roller)
    assert "readied" in conditions_of(enc, "kevin")
    roller.push(20)  # the Reflex save to end it without losing the action
    end_ready(enc, "kevin", roller)
    assert "readied" not in conditions_of(enc, "kevin")


def test_delayed_until_his_turn_comes_back() -> None:
    enc, roller = kevin_scene()
    delay(enc, "kevin", 10, roller)  # 22 -> 12: the ally (14) acts first
    assert enc.active == "ally"
    assert "delayed" in conditions_of(enc, "kevin")
    next_turn(enc, roller)
    assert enc.active == "kevin"
    assert "delayed" not in conditions_of(enc, "kevin")


def test_sneaking_while_sneaking() -> None:
    enc = world(
        pony("shade", move=30, sneak_skill=60),
        pony("watch", perception_skill=50),
        at={"shade": (0, 0), "watch": (10, 0)},
    )
    fight(enc, ["shade", "watch"])
    sneak(enc, "shade", ScriptedRoller([1, 99]), enemies=["watch"])
    assert conditions_of(enc, "shade") == {"sneaking"}
    stop_sneaking(enc, "shade")
    assert conditions_of(enc, "shade") == set()


def test_charged_until_his_next_turn() -> None:
    enc = world(pony("bull", move=30), pony("raider"), at={"bull": (0, 0), "raider": (5, 0)})
    fight(enc, ["bull", "raider"])
    charge(enc, "bull", east(20), enemies=["raider"])
    assert conditions_of(enc, "bull") == {"charged"}
    roller = ScriptedRoller()
    next_turn(enc, roller)  # the raider's turn: the bull still shows it
    assert "charged" in conditions_of(enc, "bull")
    next_turn(enc, roller)  # round 2, the bull's turn again
    assert conditions_of(enc, "bull") == set()


def test_unknown_actor_has_none() -> None:
    enc, _ = scene()
    assert conditions_of(enc, "nobody") == set()
