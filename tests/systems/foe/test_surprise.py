"""Surprise! (Fallout: Equestria): the surprise round, Quick Witted, the sneak attack critical, and
initiative after it (re-roll, or ⚙ insert the surprised)."""

from __future__ import annotations

import pytest
from vttbridge.rules import actions
from vttbridge.rules.dice import ScriptedRoller
from vttbridge.rules.encounter import next_turn, take_action
from vttbridge.systems.foe.rules.movement import move, movement_allowed
from vttbridge.systems.foe.rules.state import foe
from vttbridge.systems.foe.rules.surprise import (
    is_sneak_attack_target,
    sneak_attack,
    sneak_attack_damage,
    start_surprise_round,
)

from tests.rules.refusals import refused
from tests.systems.foe.helpers import c, pony, world

RAIDERS = ["gutter", "knives"]
MERCHANTS = ["trader", "mule", "guard"]


def caravan(**opts):
    """Raiders on a bluff, a merchant caravan on the road; the trader is Quick Witted."""
    return world(
        pony("gutter", move=30),
        pony("knives", move=30),
        pony("trader", move=25, quick_witted=True),
        pony("mule", move=25),
        pony("guard", move=25),
        at={"gutter": (0, 0), "knives": (1, 0), "trader": (0, 8), "mule": (1, 8), "guard": (2, 8)},
        **opts,
    )


def ambush(enc, faces=(60, 50, 70), **kw):
    """Raiders ambush the caravan; initiative dice for gutter, knives, trader."""
    return start_surprise_round(enc, RAIDERS, MERCHANTS, ScriptedRoller(faces), **kw)


def test_the_ambush_with_a_quick_witted_merchant():
    """'the attacking group's members (and any character with the Quick Witted perk) all roll
    initiative'; the other merchants sit out and are sneak attack targets."""
    enc = caravan()
    out = ambush(enc)
    assert set(enc.combatants) == {"gutter", "knives", "trader"}
    assert [r.reason for r in out.rolls] == [
        "initiative for Gutter",
        "initiative for Knives",
        "initiative for Trader",
    ]
    assert enc.order() == ["trader", "gutter", "knives"]  # 70, 60, 50
    assert enc.active == "trader"
    assert foe(enc).surprise_round and foe(enc).surprised == ["mule", "guard"]
    assert foe(enc).sneak_attack_targets == ["mule", "guard"]
    assert "quick_witted" in out.kinds()
    assert is_sneak_attack_target(enc, "mule") and not is_sneak_attack_target(enc, "trader")


@pytest.mark.parametrize("action", ["attack", "half", "free", "hide", "jump", "move", "charge"])
def test_the_surprised_may_take_no_action_at_all(action: str) -> None:
    """The economy asks the system who may act: the surprised are not in the turn order (so no
    budget limits them), yet every action of theirs is refused, and says why."""
    enc = caravan()
    ambush(enc)
    err = refused(enc, "surprised", actions.check, "mule", action)
    assert err.message == "Mule is surprised and sits out the surprise round."
    refused(enc, "surprised", actions.take, "mule", action)
    if action != "charge":  # (two actions: more than the surprise round gives anyone)
        actions.check(enc, "trader", action)  # the Quick Witted acts (his turn, his action)


def test_a_single_action_each_in_the_surprise_round():
    """'They all receive a single action for the round (instead of the two ...)'"""
    enc = caravan()
    ambush(enc)
    assert enc.combatants["trader"].half_actions == 1
    take_action(enc, "trader", "half", "shoot")
    refused(enc, "no_budget", take_action, "trader", "half", "shoot")


def test_one_action_means_one_speed_of_movement():
    enc = caravan()
    ambush(enc)
    assert movement_allowed(enc, "trader") == 25
    refused(enc, "over_budget", move, "trader", [c(0, 8), c(0, 14)])
    move(enc, "trader", [c(0, 8), c(0, 13)])


def test_the_surprised_sit_out():
    enc = caravan()
    ambush(enc)
    refused(enc, "surprised", move, "mule", [c(1, 8), c(1, 9)])
    assert movement_allowed(enc, "mule") == 0


def test_no_surprise_when_the_targets_are_aware():
    """'a guard firing from his extremely-visible post ... or a shrieking psychopathic raider
    running out of cover ... are not (usually) cause for a surprise round.'"""
    enc = caravan()
    err = refused(
        enc,
        "no_surprise",
        start_surprise_round,
        RAIDERS,
        MERCHANTS,
        ScriptedRoller(),
        aware=MERCHANTS,
    )
    assert "normal combat" in err.message


def test_an_aware_defender_is_not_surprised():
    enc = caravan()
    ambush(enc, faces=(60, 50, 70, 40), aware=["guard"])
    assert "guard" in enc.combatants
    assert foe(enc).surprised == ["mule"] and foe(enc).sneak_attack_targets == ["mule"]


def test_only_those_who_expected_no_attack_are_sneak_attack_targets():
    enc = caravan()
    ambush(enc, unsuspecting=["mule"])
    assert foe(enc).surprised == ["mule", "guard"]
    assert foe(enc).sneak_attack_targets == ["mule"]


def test_bad_surprise_requests_change_nothing():
    enc = caravan()
    refused(enc, "bad_argument", start_surprise_round, RAIDERS, ["gutter"], ScriptedRoller())
    refused(enc, "bad_argument", start_surprise_round, [], MERCHANTS, ScriptedRoller())
    refused(
        enc,
        "bad_argument",
        start_surprise_round,
        RAIDERS,
        MERCHANTS,
        ScriptedRoller(),
        aware=["guard"],
        unsuspecting=["guard"],
    )
    enc.options.system = "spycraft"
    refused(enc, "wrong_system", start_surprise_round, RAIDERS, MERCHANTS, ScriptedRoller())


def test_a_failing_initiative_formula_changes_nothing():
    enc = caravan(foe_initiative="1d100+")
    before = enc.model_dump()
    with pytest.raises(ValueError):
        ambush(enc)
    assert enc.model_dump() == before


def test_sneak_attack_damage_doubles_before_armor():
    """'damage doubled before armor for weapons without a critical multiplier above 1'"""
    assert sneak_attack_damage(7, 1.0, armor=4) == 10  # 7 x 2 - 4, not (7 - 4) x 2
    assert sneak_attack_damage(7, 3.0, armor=4) == 17  # the weapon's own multiplier
    assert sneak_attack_damage(2, 1.0, armor=10) == 0


def play_to(enc, actor: str, roller: ScriptedRoller | None = None) -> None:
    while enc.active != actor:
        next_turn(enc, roller or ScriptedRoller())


def test_a_hit_on_an_unsuspecting_target_is_an_automatic_critical():
    """'If the attacker is targeting someone who didn't expect to be attacked at all ... this
    is cause for a sneak attack critical'"""
    enc = caravan()
    ambush(enc)
    play_to(enc, "gutter")
    out = sneak_attack(
        enc, "gutter", "mule", ScriptedRoller([3, 4]), hits=True, damage="2d6", armor=4
    )
    assert out.kinds() == ["sneak_attack_critical"]
    assert out.happened[0].data["damage"] == 10
    assert enc.combatants["gutter"].half_actions == 0
    assert not is_sneak_attack_target(enc, "mule")  # he knows now


def test_a_missed_sneak_attack_spends_the_action_and_rolls_no_damage():
    enc = caravan()
    ambush(enc)
    play_to(enc, "gutter")
    out = sneak_attack(enc, "gutter", "mule", ScriptedRoller(), hits=False, damage="2d6")
    assert out.kinds() == ["sneak_attack_missed"] and out.rolls == []
    assert enc.combatants["gutter"].half_actions == 0


def test_no_sneak_attack_on_someone_who_saw_it_coming():
    enc = caravan()
    ambush(enc)
    play_to(enc, "gutter")
    refused(
        enc,
        "not_sneak_attack_target",
        sneak_attack,
        "gutter",
        "trader",
        ScriptedRoller(),
        hits=True,
        damage="1d6",
    )


def test_after_the_surprise_round_everyone_rerolls():
    """'When all of them have completed their actions, normal combat begins, and initiative is
    re-rolled for all characters'"""
    enc = caravan()
    ambush(enc)
    roller = ScriptedRoller([10, 20, 30, 40, 90])  # gutter, knives, trader, mule, guard
    for _ in range(3):
        out = next_turn(enc, roller)
    assert enc.round == 2
    assert "surprise_round_ended" in out.kinds() and "initiative_rerolled" in out.kinds()
    assert {cid: cb.ic for cid, cb in enc.combatants.items()} == {
        "gutter": 10,
        "knives": 20,
        "trader": 30,
        "mule": 40,
        "guard": 90,
    }
    assert enc.active == "guard"
    assert enc.turn_budget == 2 and enc.combatants["guard"].half_actions == 2
    assert not foe(enc).surprise_round and foe(enc).surprised == []
    assert foe(enc).sneak_attack_targets == []
    next_turn(enc, roller)
    assert enc.active == "mule"


def test_insert_keeps_the_order_and_adds_the_surprised():
    """'(though some GMs may prefer to keep the existing initiative order and simply add the
    surprised characters into the existing line up)'"""
    enc = caravan(surprise_after="insert")
    ambush(enc)  # trader 70, gutter 60, knives 50
    roller = ScriptedRoller([55, 5])  # mule, guard
    for _ in range(3):
        next_turn(enc, roller)
    assert enc.round == 2
    assert enc.order() == ["trader", "gutter", "mule", "knives", "guard"]
    assert enc.active == "trader" and enc.combatants["trader"].half_actions == 2
    turns = []
    for _ in range(4):
        next_turn(enc, roller)
        turns.append(enc.active)
    assert turns == ["gutter", "mule", "knives", "guard"]  # the inserted act this round
