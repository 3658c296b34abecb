"""Sneaking (FoE): sneak speed, the opposed roll, hiding once per combat action, holding a
dodge or block, stealth fields, burrowing, the weight penalty."""

from __future__ import annotations

import pytest
from vttbridge.rules.dice import ScriptedRoller
from vttbridge.rules.encounter import next_turn, take_action
from vttbridge.rules.options import Options
from vttbridge.rules.outcome import RuleError
from vttbridge.systems.foe.rules.movement import dodge, move, movement_allowed
from vttbridge.systems.foe.rules.sneaking import (
    BURROWING,
    block,
    burrowing_field,
    hide,
    hold_defense,
    sneak,
    sneak_speed,
    sneak_speed_agility,
    sneak_speed_half_move,
    stealth_field,
    stealth_fields,
    stop_sneaking,
    weight_penalty,
)
from vttbridge.systems.foe.rules.state import StealthField, foe

from tests.rules.refusals import refused
from tests.systems.foe.helpers import c, east, fight, pony, world

CLOAK = StealthField(name="a zebra cloak", sneak_bonus=40, mfd=2)


def den(move_ft: float = 30, *, sneak_skill: int = 60, weight: float = 0, **opts):
    enc = world(
        pony("shade", move=move_ft, sneak_skill=sneak_skill, weight=weight, agility=6),
        pony("watch", perception_skill=50),
        pony("dog", perception_skill=30),
        at={"shade": (0, 0), "watch": (10, 0), "dog": (10, 5)},
        **opts,
    )
    return fight(enc, ["shade", "watch", "dog"])


# -- weight ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("weight", "penalty"), [(0, 0), (50, 0), (51, -5), (60, -5), (61, -10), (100, -25)]
)
def test_weight_penalty(weight, penalty):
    """'Starting at wt. 50, for every 10 macs beyond 50 (rounded up) characters take a -5
    penalty to sneak.'"""
    assert weight_penalty(weight) == penalty


def test_the_weight_penalty_applies_to_the_sneak_roll():
    """'Remember to take your character's sneak penalty due to weight into account'"""
    enc = den(sneak_skill=60, weight=61)
    out = sneak(enc, "shade", ScriptedRoller([1, 99]), enemies=["watch"])
    assert out.happened[0].data["target"] == 50  # 60 - 10


# -- speed -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("move_ft", "speed"), [(25, 10), (30, 15), (35, 15), (9, 0), (10, 5)])
def test_half_the_move_rounded_down_to_5_ft(move_ft, speed):
    """'Characters that are sneaking can only move up to half their listed move distance per
    combat action. This value is rounded down to the nearest five feet'"""
    assert sneak_speed_half_move(move_ft) == speed


@pytest.mark.parametrize(("agility", "speed"), [(3, 0), (4, 5), (7, 5), (8, 10), (10, 10)])
def test_base_sneak_speed_from_agility(agility, speed):
    """'A character's base sneak speed ... is thus effectively equal to 5 x (AGI/4), rounded
    down.'"""
    assert sneak_speed_agility(agility) == speed


def test_the_formula_is_a_world_option():
    ch = pony("a", move=30, agility=5)
    assert sneak_speed(ch, Options(system="foe")) == 15
    assert sneak_speed(ch, Options(system="foe", sneak_speed_formula="agility")) == 5


def test_two_sneak_actions_may_not_match_one_move():
    """'even taking both of your actions in combat to sneak may not move you as far as taking
    one action to simply move'"""
    enc = den(move_ft=25)
    sneak(enc, "shade", ScriptedRoller())
    sneak(enc, "shade", ScriptedRoller())
    assert movement_allowed(enc, "shade") == 20 < 25
    move(enc, "shade", east(20))
    refused(enc, "over_budget", move, "shade", east(5, start=(4, 0)))


# -- the sneak action --------------------------------------------------------------------------


def test_sneaking_is_an_opposed_roll_against_every_enemy_present():
    """'a character must either roll their sneak skill as an opposed roll with whatever enemies
    are present, or be under the effects of a stealth field'"""
    enc = den()
    out = sneak(enc, "shade", ScriptedRoller([20, 45, 10]), enemies=["watch", "dog"])
    # Sneak 20 vs 60 (margin 40); watch 45 vs 50 (margin 5): unnoticed; dog 10 vs 30 (20).
    assert [r.total for r in out.rolls] == [20, 45, 10]
    assert out.kinds() == ["sneak_rolled", "unnoticed", "unnoticed", "sneaking"]
    assert foe(enc).hidden_from["shade"] == ["watch", "dog"]
    assert enc.combatants["shade"].actions_taken == ["sneak"]


def test_an_enemy_who_wins_the_opposed_roll_notices_him():
    enc = den()
    out = sneak(enc, "shade", ScriptedRoller([55, 5, 80]), enemies=["watch", "dog"])
    assert out.kinds() == ["sneak_rolled", "noticed", "unnoticed", "sneaking"]
    assert foe(enc).hidden_from["shade"] == ["dog"]


def test_detected_or_not_he_may_move_his_sneak_speed():
    """'Whether or not this roll is successful or they are detected, they may spend the rest of
    their sneaking-action moving up to their listed sneak speed.'"""
    enc = den()
    sneak(enc, "shade", ScriptedRoller([99, 1, 1]), enemies=["watch", "dog"])
    assert foe(enc).hidden_from["shade"] == []
    assert movement_allowed(enc, "shade") == 15
    move(enc, "shade", east(15))
    err = refused(enc, "over_budget", move, "shade", east(5, start=(3, 0)))
    assert "sneak" in err.message


def test_under_a_stealth_field_no_roll_is_needed_to_sneak():
    enc = den()
    out = sneak(enc, "shade", ScriptedRoller(), field=CLOAK)
    assert out.rolls == [] and out.kinds() == ["sneaking"]


def test_a_held_dodge_instead_of_the_sneak_move():
    """'this movement can be forfeited and turned into a held action to attempt to dodge away
    from or block incoming attacks'"""
    enc = den()
    sneak(enc, "shade", ScriptedRoller([1, 99]), enemies=["watch"])
    hold_defense(enc, "shade", "dodge")
    assert foe(enc).held["shade"] == "dodge"
    assert movement_allowed(enc, "shade") == 0
    next_turn(enc, ScriptedRoller())  # the watch's turn: he dodges out of turn
    out = dodge(enc, "shade", to=c(0, 1))
    assert out.happened[0].data["held"] is True
    assert enc.positions["shade"] == c(0, 1) and "shade" not in foe(enc).held


def test_a_held_block():
    enc = den()
    sneak(enc, "shade", ScriptedRoller())
    hold_defense(enc, "shade", "block")
    next_turn(enc, ScriptedRoller())
    assert block(enc, "shade").kinds() == ["blocked"]
    refused(enc, "nothing_held", block, "shade")


def test_the_sneak_move_once_used_cannot_be_forfeited():
    enc = den()
    sneak(enc, "shade", ScriptedRoller())
    move(enc, "shade", east(5))
    refused(enc, "already_moved", hold_defense, "shade", "dodge")


def test_holding_needs_a_sneak_action():
    enc = den()
    refused(enc, "not_sneaking", hold_defense, "shade", "dodge")


def test_a_held_action_lapses_at_his_next_turn():
    enc = den()
    sneak(enc, "shade", ScriptedRoller())
    hold_defense(enc, "shade", "dodge")
    roller = ScriptedRoller()
    out = next_turn(enc, roller)
    out.extend(next_turn(enc, roller))
    out.extend(next_turn(enc, roller))
    assert enc.active == "shade" and "held_expired" in out.kinds()
    assert "shade" not in foe(enc).held


def test_hiding_is_a_free_action_once_per_combat_action():
    """'rolling sneak to attempt to hide is considered a free action that can be performed once
    per combat action.'"""
    enc = den()
    hide(enc, "shade", ScriptedRoller([10, 90]), enemies=["watch"])
    assert enc.combatants["shade"].half_actions == 2  # free
    hide(enc, "shade", ScriptedRoller([10, 90]), enemies=["watch"])
    err = refused(enc, "hide_used", hide, "shade", ScriptedRoller([10, 90]), enemies=["watch"])
    assert "once per combat action" in err.message


def test_a_sneak_action_roll_counts_as_that_actions_hide():
    enc = den()
    sneak(enc, "shade", ScriptedRoller([10, 90]), enemies=["watch"])
    hide(enc, "shade", ScriptedRoller([10, 90]), enemies=["watch"])
    refused(enc, "hide_used", hide, "shade", ScriptedRoller([10, 90]), enemies=["watch"])


def test_moving_at_sneak_speed_keeps_the_latest_roll():
    """'moving at sneak speed simply allows a character to maintain the MFD of their sneak
    roll for the purposes of contested rolls.'"""
    enc = den()
    hide(enc, "shade", ScriptedRoller([10, 90]), enemies=["watch"])
    hide(enc, "shade", ScriptedRoller([10, 90]), enemies=["watch"])
    out = sneak(enc, "shade", ScriptedRoller(), enemies=["watch"])
    assert out.rolls == [] and "sneak_roll_kept" in out.kinds()
    assert foe(enc).hidden_from["shade"] == ["watch"]
    assert movement_allowed(enc, "shade") == 15


def test_hiding_needs_enemies():
    enc = den()
    refused(enc, "bad_argument", hide, "shade", ScriptedRoller(), enemies=[])


def test_stop_sneaking_to_move_normally():
    enc = den()
    sneak(enc, "shade", ScriptedRoller())
    move(enc, "shade", east(10))
    stop_sneaking(enc, "shade")
    # the sneak action was "another action": the move action gives 1x speed, 30 ft
    assert movement_allowed(enc, "shade") == 30
    move(enc, "shade", east(30, start=(2, 0)))
    assert enc.combatants["shade"].moved_ft == 40
    refused(enc, "not_sneaking", stop_sneaking, "shade")


def test_sneak_then_attack():
    enc = den()
    sneak(enc, "shade", ScriptedRoller())
    take_action(enc, "shade", "half", "shoot")
    refused(enc, "no_budget", sneak, "shade", ScriptedRoller())


# -- stealth fields ----------------------------------------------------------------------------


def test_a_stealth_field_gives_full_speed():
    """'Characters under the effect of an active stealth field ... can sneak at their full
    speed'"""
    enc = den(move_ft=30)
    sneak(enc, "shade", ScriptedRoller(), field=CLOAK)
    assert movement_allowed(enc, "shade") == 30


def test_a_stealth_field_gives_minus_25_plus_its_bonus():
    """'... but receive a -25 roll penalty to sneak while doing so ...; all stealth fields
    provide a constant bonus to sneak rolls while active.'"""
    enc = den(sneak_skill=60)
    out = sneak(enc, "shade", ScriptedRoller([1, 99]), enemies=["watch"], field=CLOAK)
    assert out.happened[0].data["target"] == 75  # 60 - 25 + 40


@pytest.mark.parametrize(("mode", "per_target"), [("steps", 25), ("multiplier", 25)])
def test_enemies_take_the_field_mfd_on_perception(mode, per_target):
    """'Enemies take the stealth field as an MFD step penalty to PER rolls to notice them.'"""
    enc = den(mfd_penalty=mode)
    out = sneak(enc, "shade", ScriptedRoller([1, 99]), enemies=["watch"], field=CLOAK)
    assert out.happened[1].data["target"] == per_target  # 50 at MFD 1/2


def test_steps_and_multiplier_differ_for_a_3_mfd_field():
    strong = StealthField(name="spell", sneak_bonus=0, mfd=3)
    enc = den(mfd_penalty="steps")
    out = sneak(enc, "shade", ScriptedRoller([1, 99]), enemies=["watch"], field=strong)
    assert out.happened[1].data["target"] == 12  # 50 x 1/4
    enc = den(mfd_penalty="multiplier")
    out = sneak(enc, "shade", ScriptedRoller([1, 99]), enemies=["watch"], field=strong)
    assert out.happened[1].data["target"] == 16  # 50 / 3


def test_the_sneakers_penalties_become_perception_bonuses_under_a_field():
    """'Penalties to sneak for the invisible character translate directly into bonuses for
    those making PER rolls against a stealth field.'"""
    enc = den(sneak_skill=60, weight=61)  # -10 for weight
    out = sneak(enc, "shade", ScriptedRoller([1, 99]), enemies=["watch"], field=CLOAK, modifier=-10)
    assert out.happened[0].data["target"] == 75  # 60 - 25 + 40: no weight, no -10
    assert out.happened[1].data["target"] == 35  # (50 + 10 + 10) x 1/2


def test_without_a_field_penalties_stay_on_the_sneak_roll():
    enc = den(sneak_skill=60, weight=61)
    out = sneak(enc, "shade", ScriptedRoller([1, 99]), enemies=["watch"], modifier=-10)
    assert out.happened[0].data["target"] == 40
    assert out.happened[1].data["target"] == 50


def test_burrowing_underground_counts_as_a_stealth_field():
    """'Hellhounds, sand dogs and other burrowing creatures that are underground count as being
    under the effects of a +50 sneak bonus/ 2 MFD non-magical stealth field ..., as long as
    they are fully underground and no other creatures occupy their tunnel.'"""
    hound = pony("hound", burrowing=True)
    assert burrowing_field(hound, underground=True, tunnel_to_itself=True) == BURROWING
    assert (BURROWING.sneak_bonus, BURROWING.mfd, BURROWING.magical) == (50, 2, False)
    assert burrowing_field(hound, underground=False, tunnel_to_itself=True) is None
    assert burrowing_field(hound, underground=True, tunnel_to_itself=False) is None
    assert burrowing_field(pony("pony"), underground=True, tunnel_to_itself=True) is None


def test_a_burrowing_sneak_roll():
    enc = den(sneak_skill=40)
    out = sneak(enc, "shade", ScriptedRoller([1, 99]), enemies=["watch"], field=BURROWING)
    assert out.happened[0].data["target"] == 65  # 40 - 25 + 50
    assert out.happened[1].data["target"] == 25  # 50, two steps harder: x 1/2


def test_sneaking_outside_combat_spends_nothing():
    enc = world(pony("shade", sneak_skill=50), pony("watch", perception_skill=40))
    out = sneak(enc, "shade", ScriptedRoller([10, 90]), enemies=["watch"])
    assert foe(enc).hidden_from["shade"] == ["watch"] and "sneaking" in out.kinds()
    assert foe(enc).sneak == {}


# -- named fields --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "called"),
    [
        ("invisibility", "an invisibility spell"),
        ("Invisibility Spell", "an invisibility spell"),
        ("stealthbuck", "a stealthbuck"),
        ("zebra cloak", "a zebra cloak"),
        ("zebra-cloak", "a zebra cloak"),
    ],
)
def test_the_fields_the_text_names_default_to_the_burrows_numbers(name, called):
    """[assumed] the text gives no bonus for these: +50 / 2 MFD, magical, like the burrow."""
    field = stealth_field(Options(system="foe"), name)
    assert (field.name, field.sneak_bonus, field.mfd, field.magical) == (called, 50, 2, True)


def test_a_world_overrides_or_adds_fields_and_a_roll_its_numbers():
    opts = Options(
        system="foe",
        stealth_fields={
            "zebra-cloak": {"bonus": 40, "mfd": 1.5},
            "shadow veil": {"bonus": 20, "mfd": 1},
        },
    )
    assert stealth_field(opts, "zebra cloak").sneak_bonus == 40
    assert stealth_field(opts, "Shadow-Veil").mfd == 1
    assert set(stealth_fields(opts)) >= {
        "invisibility",
        "stealthbuck",
        "zebra-cloak",
        "shadow veil",
    }
    mine = stealth_field(opts, "stealthbuck", bonus=35)
    assert (mine.sneak_bonus, mine.mfd) == (35, 2)
    custom = stealth_field(opts, "custom", bonus=30, mfd=3)
    assert (custom.sneak_bonus, custom.mfd) == (30, 3)


@pytest.mark.parametrize(
    ("name", "kw", "code"),
    [
        ("cardboard box", {}, "unknown_field"),
        ("custom", {"bonus": 30}, "bad_argument"),
        ("invisibility", {"mfd": 0}, "bad_argument"),
    ],
)
def test_bad_fields(name, kw, code):
    with pytest.raises(RuleError) as err:
        stealth_field(Options(system="foe"), name, **kw)
    assert err.value.code == code
    if code == "unknown_field":
        assert "invisibility, stealthbuck, zebra-cloak" in err.value.message


def test_a_named_field_sneak_full_speed_minus_25_plus_bonus_mfd_steps():
    """Full move speed, -25 to the roll plus the field's bonus, enemies' Perception stepped
    down by its MFD (2 steps: 1 -> 3/4 -> 1/2)."""
    enc = den(move_ft=30, sneak_skill=40)
    field = stealth_field(enc.options, "invisibility")
    # Sneak 60 vs 65 succeeds; the watch's 30 fails against 25 (it would pass 50 without the
    # field's MFD); the dog's 99 fails
    out = sneak(enc, "shade", ScriptedRoller([60, 30, 99]), enemies=["watch", "dog"], field=field)
    rolled = [h for h in out.happened if h.kind in ("sneak_rolled", "noticed", "unnoticed")]
    assert rolled[0].data["target"] == 65  # 40 - 25 + 50
    assert [h.data["target"] for h in rolled[1:]] == [25, 15]  # 50 x 1/2, 30 x 1/2
    assert [h.kind for h in rolled[1:]] == ["unnoticed", "unnoticed"]
    assert foe(enc).sneak["shade"].speed == 30 and foe(enc).sneak["shade"].left == 30
    assert "under an invisibility spell" in out.happened[-1].text
