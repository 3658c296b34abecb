"""The action economy (vttbridge.rules.actions): what each action costs in each system, the one
check and spend every rule goes through, and refusals that say what is left."""

from __future__ import annotations

import pytest
from vttbridge.rules import actions
from vttbridge.rules.characters import Character
from vttbridge.rules.dice import ScriptedRoller
from vttbridge.rules.encounter import Encounter, add_character, next_turn, start_combat
from vttbridge.rules.options import Options
from vttbridge.rules.outcome import RuleError
from vttbridge.systems.foe.rules.charge import charge
from vttbridge.systems.foe.rules.movement import move
from vttbridge.systems.spycraft.rules.ready import declare

from tests.rules.refusals import refused
from tests.systems.foe.helpers import east, fight, pony, world


def spycraft() -> Encounter:
    """Kevin (IC 22) on his turn, Gary (IC 10) after him."""
    enc = Encounter(options=Options(system="spycraft"))
    add_character(enc, Character(id="kevin", name="Kevin"))
    add_character(enc, Character(id="gary", name="Gary"))
    start_combat(enc, ["kevin", "gary"], ScriptedRoller(), ics={"kevin": 22, "gary": 10})
    return enc


@pytest.mark.parametrize(
    ("system", "action", "kind"),
    [
        ("spycraft", "attack", "half"),
        ("spycraft", "ready", "full"),
        ("spycraft", "stand off", "free"),
        ("spycraft", "join-stand-off", "half"),
        ("spycraft", "surrender", "none"),
        ("spycraft", "delay", "none"),
        ("foe", "attack", "half"),
        ("foe", "move", "move"),
        ("foe", "charge", "full"),
        ("foe", "sneak", "half"),
        ("foe", "hide", "free"),
        ("foe", "dodge", "half"),
        ("foe", "half", "half"),
        ("foe", "action", "half"),
        ("foe", "both", "full"),
        ("spycraft", "Free", "free"),
    ],
)
def test_the_table_knows_each_systems_costs(system, action, kind):
    assert actions.kind_of(system, action) == kind


def test_an_unknown_action_is_refused_naming_the_costs():
    with pytest.raises(RuleError) as err:
        actions.kind_of("spycraft", "charge")  # a FoE action
    assert err.value.code == "unknown_action" and "attack" in err.value.message
    assert not actions.known("spycraft", "charge") and actions.known("foe", "charge")
    assert actions.describe("foe", "charge") == "both actions"
    assert actions.describe("spycraft", "attack") == "a half action"


def test_spycraft_two_half_actions_then_nothing():
    enc = spycraft()
    assert actions.take(enc, "kevin", "attack")
    assert actions.take(enc, "kevin", "attack")
    err = refused(enc, "no_budget", actions.take, "kevin", "attack")
    assert err.message == "Kevin has no actions left this turn; a half action needs 1."
    assert enc.combatants["kevin"].actions_taken == ["attack", "attack"]


def test_spycraft_attack_then_ready_is_refused_saying_what_is_left():
    enc = spycraft()
    actions.take(enc, "kevin", "attack")
    err = refused(enc, "no_budget", declare, "kevin", "shoot", "someone comes", ScriptedRoller())
    assert err.message == "Kevin has only a half action left this turn; a full action needs 2."


def test_a_ready_names_a_half_action():
    enc = spycraft()
    err = refused(enc, "not_a_half_action", declare, "kevin", "ready", "x", ScriptedRoller())
    assert "a full action" in err.message


def test_free_actions_out_of_turn_others_not():
    enc = spycraft()
    assert actions.take(enc, "gary", "free")  # out of turn: allowed
    assert enc.combatants["gary"].free_used == 1
    err = refused(enc, "not_your_turn", actions.take, "gary", "attack")
    assert "not Gary's turn" in err.message


def test_outside_combat_or_out_of_the_order_nothing_is_spent():
    enc = Encounter(options=Options(system="spycraft"))
    add_character(enc, Character(id="kevin", name="Kevin"))
    assert not actions.take(enc, "kevin", "full")
    actions.check(enc, "kevin", "full")  # no combat: anything goes
    enc2 = spycraft()
    add_character(enc2, Character(id="bystander"))
    assert not actions.take(enc2, "bystander", "attack")
    assert not actions.take(enc2, "kevin", "surrender")  # not an action
    assert enc2.combatants["kevin"].half_actions == 2


def test_foe_attack_halves_the_rounds_movement():
    """'Other actions ... reduce the distance your character can cover in a full round by
    half': after an attack a 2x-speed move is refused, a 1x move allowed."""
    enc = fight(world(pony("mint", move=25), pony("raider"), at={"mint": (0, 0)}), ["mint"])
    actions.take(enc, "mint", "attack")
    err = refused(enc, "over_budget", move, "mint", east(50))
    assert "Mint can move 25 ft more this round" in err.message
    move(enc, "mint", east(25))
    assert enc.combatants["mint"].actions_taken == ["attack", "move"]


def test_foe_attack_then_charge_is_refused_saying_what_is_left():
    enc = fight(
        world(pony("mint", move=25), pony("raider"), at={"mint": (0, 0), "raider": (5, 0)}),
        ["mint", "raider"],
    )
    actions.take(enc, "mint", "attack")
    err = refused(enc, "no_budget", actions.check, "mint", "charge")
    assert err.message == (
        "Mint has only 1 action left this turn and can move 25 ft more this round; a charge "
        "takes both actions."
    )
    err = refused(enc, "charge_needs_both_actions", charge, "mint", east(20), enemies=["raider"])
    assert "already spent attack" in err.message and "only 1 action left" in err.message


def test_foe_surprise_round_has_one_action():
    enc = fight(world(pony("mint"), pony("raider"), at={"mint": (0, 0)}), ["mint", "raider"])
    enc.actions_per_turn = 1
    next_turn(enc, ScriptedRoller())
    next_turn(enc, ScriptedRoller())  # Mint's turn again, one action
    assert enc.active == "mint" and enc.combatants["mint"].half_actions == 1
    err = refused(enc, "no_budget", actions.take, "mint", "both")
    assert err.message == (
        "Mint has only 1 action left this turn and can move 25 ft more this round; that takes "
        "both actions."
    )


def test_a_charge_takes_over_this_turns_moves():
    """The one place that knows a FoE charge counts the turn's moves toward its two actions."""
    enc = fight(world(pony("mint"), at={"mint": (0, 0)}), ["mint"])
    move(enc, "mint", east(20))
    actions.check(enc, "mint", "charge")  # one move + one action left: a charge may take both
    assert actions.take(enc, "mint", "charge")
    cb = enc.combatants["mint"]
    assert cb.actions_taken == ["charge", "charge"] and cb.half_actions == 0
