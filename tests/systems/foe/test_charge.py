"""CHAAARGE! (FoE): both actions, a straight run of 15 ft to 3x speed, an attack only when
it ends within 5 ft of an enemy, horn damage, the optional fear check."""

from __future__ import annotations

import pytest
from vttbridge.rules.dice import ScriptedRoller
from vttbridge.rules.encounter import take_action
from vttbridge.rules.outcome import RuleError
from vttbridge.systems.foe.rules.charge import (
    charge,
    charge_attack,
    charge_dragged,
    charge_fear_check,
    horn_charge_damage,
)
from vttbridge.systems.foe.rules.movement import move, movement_allowed
from vttbridge.systems.foe.rules.state import foe

from tests.rules.refusals import refused
from tests.systems.foe.helpers import c, east, fight, pony, world


def arena(*, enemy_at: int = 5, horns: int = 0, **opts):
    """Bull (move 30, STR 6) at (0, 0); raider on the same row; a second raider farther off."""
    enc = world(
        pony("bull", move=30, strength=6, horns=horns),
        pony("raider"),
        pony("lookout"),
        at={"bull": (0, 0), "raider": (enemy_at, 0), "lookout": (enemy_at, 4)},
        **opts,
    )
    return fight(enc, ["bull", "raider", "lookout"])


def test_a_20_ft_charge_takes_both_actions_and_may_attack():
    """'A charge ... takes both of a character's actions'; 20 ft is a legal charge."""
    enc = arena(enemy_at=5)
    out = charge(enc, "bull", east(20), enemies=["raider", "lookout"])
    cb = enc.combatants["bull"]
    assert cb.half_actions == 0 and cb.actions_taken == ["charge", "charge"]
    assert enc.positions["bull"] == c(4) and cb.moved_ft == 20
    assert out.kinds() == ["charged", "charge_attack_ready"]
    (choice,) = out.choices
    assert choice.kind == "charge_attack" and choice.options == ["raider", "no_attack"]


def test_a_10_ft_charge_is_too_short():
    """'A character must be able to move at least 15 feet in a straight line to charge.'"""
    enc = arena()
    err = refused(enc, "charge_too_short", charge, "bull", east(10), enemies=["raider"])
    assert "15 ft" in err.message


def test_15_ft_is_enough():
    enc = arena(enemy_at=4)
    charge(enc, "bull", east(15), enemies=["raider"])
    assert foe(enc).charge_reach["bull"] == ["raider"]


def test_a_95_ft_charge_exceeds_the_run():
    """'Charging allows a character to move at a run (x3 movement speed)': 3 x 30 = 90."""
    enc = arena(enemy_at=20)
    err = refused(enc, "over_budget", charge, "bull", east(95), enemies=["raider"])
    assert err.detail["allowed"] == 90
    charge(enc, "bull", east(90), enemies=["raider"])


def test_the_charge_must_be_a_straight_line():
    enc = arena()
    refused(enc, "charge_not_straight", charge, "bull", [c(0), c(3, 3), c(6)], enemies=[])


def test_a_charge_after_another_action_is_refused():
    enc = arena()
    take_action(enc, "bull", "half", "attack")
    err = refused(enc, "charge_needs_both_actions", charge, "bull", east(20), enemies=["raider"])
    assert "both actions" in err.message


def test_a_charge_after_a_move_is_refused():
    enc = arena()
    move(enc, "bull", east(5))
    refused(enc, "charge_needs_both_actions", charge, "bull", east(20, start=(1, 0)))


def test_no_other_action_after_a_charge():
    """'This prevents characters from performing any other actions that round.'"""
    enc = arena()
    charge(enc, "bull", east(20), enemies=["raider"])
    refused(enc, "no_budget", take_action, "bull", "half", "reload")
    assert movement_allowed(enc, "bull") == 0
    refused(enc, "over_budget", move, "bull", [c(4), c(4, 1)])


def test_ending_out_of_reach_spends_both_actions_with_no_attack():
    """'... if at the end of their movement they are adjacent to (within five feet of) an enemy'"""
    enc = arena(enemy_at=10)
    out = charge(enc, "bull", east(20), enemies=["raider"])  # ends at x=4, raider at x=10
    assert out.kinds() == ["charged", "charge_no_attack"]
    assert not out.choices
    assert enc.combatants["bull"].half_actions == 0
    refused(enc, "no_charge_attack", charge_attack, "bull", "raider", ScriptedRoller(), hits=True)


def test_a_diagonal_neighbour_is_within_reach():
    enc = arena(enemy_at=5)
    enc.positions["raider"] = c(5, 1)
    out = charge(enc, "bull", east(20), enemies=["raider"])
    assert "charge_attack_ready" in out.kinds()


def test_the_follow_up_attack_with_a_weapon():
    enc = arena()
    charge(enc, "bull", east(20), enemies=["raider"])
    out = charge_attack(enc, "bull", "raider", ScriptedRoller([4, 5]), hits=True, damage="2d6+1")
    assert out.happened[0].data["damage"] == 10
    refused(enc, "no_charge_attack", charge_attack, "bull", "raider", ScriptedRoller(), hits=False)


def test_only_an_enemy_in_reach_can_be_attacked():
    enc = arena()
    charge(enc, "bull", east(20), enemies=["raider", "lookout"])
    refused(enc, "out_of_reach", charge_attack, "bull", "lookout", ScriptedRoller(), hits=True)


def test_one_horn_adds_3d6_for_6d6_plus_str():
    """'If attacking with horns at the end of a charge, the attack deals an additional 3d6'"""
    enc = arena(horns=1)
    assert horn_charge_damage(enc.characters["bull"]) == "6d6+6"
    charge(enc, "bull", east(20), enemies=["raider"])
    roller = ScriptedRoller([1, 2, 3, 4, 5, 6])
    out = charge_attack(enc, "bull", "raider", roller, hits=True, horns=True)
    assert out.rolls[0].expression == "6d6+6"
    assert out.happened[0].data["damage"] == 27


def test_two_horns_deal_6d10_plus_str():
    """'Charges made with two horns (such as by a minotaur or buffalo) deal 6d10+STR'"""
    enc = arena(horns=2)
    charge(enc, "bull", east(20), enemies=["raider"])
    roller = ScriptedRoller([10, 10, 10, 10, 10, 10])
    out = charge_attack(enc, "bull", "raider", roller, hits=True, horns=True)
    assert out.rolls[0].expression == "6d10+6"
    assert out.happened[0].data["damage"] == 66


def test_no_horns_no_horn_charge():
    enc = arena(horns=0)
    assert horn_charge_damage(enc.characters["bull"]) is None
    charge(enc, "bull", east(20), enemies=["raider"])
    refused(
        enc, "no_horns", charge_attack, "bull", "raider", ScriptedRoller(), hits=True, horns=True
    )


def test_a_miss_rolls_no_damage():
    enc = arena(horns=1)
    charge(enc, "bull", east(20), enemies=["raider"])
    out = charge_attack(enc, "bull", "raider", ScriptedRoller(), hits=False, horns=True)
    assert out.rolls == [] and out.happened[0].data["hits"] is False


def test_fear_check_is_off_by_default():
    enc = arena()
    out = charge(enc, "bull", east(20), enemies=["raider", "lookout"])
    assert all(ch.kind != "charge_fear_check" for ch in out.choices)


def test_optional_fear_check_on_the_target_and_its_allies():
    """'Optional Rule: ... it may provoke a fear check in their intended target and its allies.'"""
    enc = arena(charge_fear_check=True)
    out = charge(enc, "bull", east(20), enemies=["lookout", "raider"], target="raider")
    fear = next(ch for ch in out.choices if ch.kind == "charge_fear_check")
    assert fear.actor == "gm" and fear.default == "no_fear_check"
    assert fear.data["targets"] == ["raider", "lookout"]
    answered = charge_fear_check(enc, "bull", fear.data["targets"], "fear_check")
    assert [(h.kind, h.actor) for h in answered.happened] == [
        ("fear_check", "raider"),
        ("fear_check", "lookout"),
    ]
    assert charge_fear_check(enc, "bull", ["raider"], "no_fear_check").kinds() == ["no_fear_check"]
    with pytest.raises(RuleError):
        charge_fear_check(enc, "bull", ["raider"], "maybe")


def test_enemies_need_positions():
    enc = arena()
    del enc.positions["raider"]
    refused(enc, "no_position", charge, "bull", east(20), enemies=["raider"])


# -- a charge along the path he dragged ----------------------------------------------------------


def test_a_straight_dragged_20_ft_charge_ending_adjacent_is_allowed():
    """The player drags 20 ft straight at the raider (a move), then declares it a charge: the
    move becomes the charge's two actions and the attack is offered."""
    enc = arena(enemy_at=5)
    move(enc, "bull", east(20))
    assert enc.combatants["bull"].actions_taken == ["move"]
    out = charge_dragged(enc, "bull", enemies=["raider"], target="raider")
    cb = enc.combatants["bull"]
    assert cb.actions_taken == ["charge", "charge"] and cb.half_actions == 0
    assert cb.moved_ft == 20 and enc.positions["bull"] == c(4)  # not moved a second time
    assert out.kinds() == ["charged", "charge_attack_ready"]
    assert out.happened[0].data["dragged"] is True
    assert out.choices[0].options == ["raider", "no_attack"]


def test_an_l_shaped_drag_is_no_charge_and_the_moves_stand():
    enc = arena(enemy_at=5)
    move(enc, "bull", [c(0), c(2), c(2, 1), c(4, 1)])  # 10 + 5 + 10 ft, ends next to him
    err = refused(enc, "charge_not_straight", charge_dragged, "bull", enemies=["raider"])
    assert err.message == "Bull's charge must run in a straight line."
    assert enc.combatants["bull"].actions_taken == ["move"]


def test_two_straight_drags_in_line_are_one_charge():
    enc = arena(enemy_at=6)
    move(enc, "bull", east(10))
    move(enc, "bull", [c(2), c(5)])  # 15 ft more, same line
    out = charge_dragged(enc, "bull", enemies=["raider"])
    assert out.happened[0].data["distance"] == 25


def test_a_dragged_charge_needs_a_drag_and_nothing_else_this_turn():
    enc = arena(enemy_at=5)
    refused(enc, "no_drag", charge_dragged, "bull", enemies=["raider"])
    take_action(enc, "bull", "half", "attack")
    move(enc, "bull", east(15))
    err = refused(enc, "charge_needs_both_actions", charge_dragged, "bull", enemies=["raider"])
    assert "already spent attack, move" in err.message


def test_a_dragged_charge_must_be_15_ft():
    enc = arena(enemy_at=3)
    move(enc, "bull", east(10))
    refused(enc, "charge_too_short", charge_dragged, "bull", enemies=["raider"])
