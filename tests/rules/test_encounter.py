"""The encounter core as Spycraft 2.0 uses it (rules.md "Initiative"): 1d20 + Initiative,
ties, the count running down, rounds, the action budget and the hooks system rules use."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest
from vttbridge.rules import systems
from vttbridge.rules.characters import Character
from vttbridge.rules.dice import ScriptedRoller
from vttbridge.rules.encounter import (
    Encounter,
    add_character,
    check_budget,
    end_combat,
    join_combat,
    leave_combat,
    next_turn,
    roll_initiative,
    set_ic,
    spend,
    start_combat,
    take_action,
)
from vttbridge.rules.options import Options
from vttbridge.rules.outcome import Outcome

from tests.systems.spycraft.scene import make, rejects, turns

THREE = {"kevin": {"initiative": 3}, "bob": {"initiative": 1}, "cid": {"initiative": 0}}
THREE_ICS = {"kevin": 22, "bob": 15, "cid": 8}


# -- initiative -----------------------------------------------------------------------------


def test_initiative_is_1d20_plus_initiative_bonus() -> None:
    enc = Encounter()
    add_character(enc, Character(id="kevin", initiative=3))
    ic, out = roll_initiative(enc, "kevin", ScriptedRoller([12]))
    assert ic == 15
    [roll] = out.rolls
    assert (roll.expression, roll.total, roll.faces) == ("1d20+3", 15, [12])
    assert out.happened[0].data["ic"] == 15


def test_negative_initiative_bonus() -> None:
    enc = Encounter()
    add_character(enc, Character(id="slow", initiative=-2))
    ic, out = roll_initiative(enc, "slow", ScriptedRoller([12]))
    assert ic == 10 and out.rolls[0].expression == "1d20-2"


def test_start_combat_rolls_for_everyone_and_the_highest_ic_acts_first() -> None:
    # Faces in the order given: kevin 5+3=8, bob 19+1=20, cid 12+0=12.
    enc, _ = make(THREE, faces=(5, 19, 12))
    assert {c: cb.ic for c, cb in enc.combatants.items()} == {"kevin": 8, "bob": 20, "cid": 12}
    assert (enc.round, enc.active, enc.count) == (1, "bob", 20)
    assert enc.order() == ["bob", "cid", "kevin"]


def test_tie_goes_to_the_higher_initiative_bonus_without_a_roll() -> None:
    enc, roller = make(THREE, {"kevin": 15, "bob": 15, "cid": 15})
    assert enc.order() == ["kevin", "bob", "cid"]
    assert roller.history == []


def test_exact_tie_is_rolled_off_by_default() -> None:
    stats = {"a": {"initiative": 2}, "b": {"initiative": 2}}
    enc, roller = make(stats, {"a": 15, "b": 15}, faces=(4, 17))
    assert enc.order() == ["b", "a"]  # b rolled higher
    assert [r.total for r in roller.history] == [4, 17]


def test_roll_off_tie_is_rolled_again() -> None:
    stats = {"a": {"initiative": 2}, "b": {"initiative": 2}}
    enc, _ = make(stats, {"a": 15, "b": 15}, faces=(9, 9, 3, 11))
    assert enc.order() == ["b", "a"]


def test_roll_off_reroll_only_separates_those_still_tied() -> None:
    # a rolls 15, b and c 10 each; in the re-roll b 18 beats c 3, but a's 15 still ranks a
    # first: a re-roll never jumps someone who already won the first roll.
    stats = {"a": {"initiative": 2}, "b": {"initiative": 2}, "c": {"initiative": 2}}
    enc, _ = make(stats, {"a": 15, "b": 15, "c": 15}, faces=(15, 10, 10, 18, 3))
    assert enc.order() == ["a", "b", "c"]


def test_gm_tie_break_keeps_the_order_given() -> None:
    stats = {"a": {"initiative": 2}, "b": {"initiative": 2}, "c": {"initiative": 2}}
    enc, roller = make(stats, {"c": 15, "a": 15, "b": 15}, tie_break="gm")
    assert enc.order() == ["a", "b", "c"]  # the order the combatants were added
    assert roller.history == []


def test_start_combat_errors() -> None:
    enc, roller = make(THREE, THREE_ICS)
    rejects(enc, "combat_running", lambda: start_combat(enc, ["kevin"], roller))
    rejects(enc, "already_in_combat", lambda: join_combat(enc, ["kevin"], roller))
    rejects(enc, "unknown_character", lambda: join_combat(enc, ["nobody"], roller))
    fresh = Encounter()
    rejects(fresh, "no_combatants", lambda: start_combat(fresh, [], roller))
    rejects(fresh, "no_combat", lambda: next_turn(fresh, roller))


# -- the count, turns and rounds --------------------------------------------------------------


def test_count_runs_down_from_the_highest_ic() -> None:
    enc, roller = make(THREE, THREE_ICS)
    seen = [(enc.active, enc.count)]
    for _ in range(2):
        next_turn(enc, roller)
        seen.append((enc.active, enc.count))
    assert seen == [("kevin", 22), ("bob", 15), ("cid", 8)]
    assert enc.combatants["kevin"].acted and enc.combatants["bob"].acted


def test_new_round_when_everyone_has_acted_and_ics_carry_over() -> None:
    enc, roller = make(THREE, THREE_ICS)
    next_turn(enc, roller)
    next_turn(enc, roller)
    out = next_turn(enc, roller)
    assert out.kinds() == ["turn_ended", "round_started", "turn_started"]
    assert (enc.round, enc.active, enc.count) == (2, "kevin", 22)
    assert not any(cb.acted for cb in enc.combatants.values())


def test_moved_ic_carries_into_the_next_round() -> None:
    enc, roller = make(THREE, THREE_ICS)
    next_turn(enc, roller)
    next_turn(enc, roller)
    assert enc.active == "cid"
    set_ic(enc, "cid", 30, "test", Outcome())
    out = next_turn(enc, roller)
    assert enc.round == 2 and turns(out) == [("cid", 30)]


def test_set_ic_records_a_change_and_ignores_no_change() -> None:
    enc, _ = make(THREE, THREE_ICS)
    out = Outcome()
    set_ic(enc, "bob", 15, "same", out)
    assert out.happened == []
    set_ic(enc, "bob", 11, "test", out)
    assert out.happened[0].data == {"old": 15, "new": 11, "reason": "test"}


def test_joining_mid_round_acts_only_if_the_count_has_not_passed() -> None:
    enc, roller = make(THREE, THREE_ICS)
    next_turn(enc, roller)  # count 15
    add_character(enc, Character(id="early"))
    add_character(enc, Character(id="late"))
    join_combat(enc, ["early", "late"], roller, ics={"early": 20, "late": 10})
    assert enc.combatants["early"].acted and not enc.combatants["late"].acted
    assert turns(next_turn(enc, roller)) == [("late", 10)]


def test_removed_combatants_are_skipped() -> None:
    enc, roller = make(THREE, THREE_ICS)
    enc.combatants["bob"].out = True
    assert turns(next_turn(enc, roller)) == [("cid", 8)]


def test_leaving_the_turn_order_and_joining_again() -> None:
    enc, roller = make(THREE, THREE_ICS)  # kevin's turn at 22
    out = leave_combat(enc, "bob")
    assert out.kinds() == ["left_combat"] and "Bob leaves the turn order" in out.happened[0].text
    assert enc.order() == ["kevin", "cid"] and enc.combatants["bob"].out  # kept on record
    rejects(enc, "not_in_combat", lambda: leave_combat(enc, "bob"))
    assert turns(next_turn(enc, roller)) == [("cid", 8)]
    join_combat(enc, ["bob"], roller, ics={"bob": 5})  # back in, below the count
    assert enc.order() == ["kevin", "cid", "bob"]
    assert turns(next_turn(enc, roller)) == [("bob", 5)]


def test_the_active_combatant_leaving_keeps_the_turn_until_the_next() -> None:
    enc, roller = make(THREE, THREE_ICS)
    leave_combat(enc, "kevin")
    assert enc.active == "kevin"
    assert turns(next_turn(enc, roller)) == [("bob", 15)]


def test_next_turn_with_nobody_left_changes_nothing() -> None:
    enc, roller = make(THREE, THREE_ICS)
    for cb in enc.combatants.values():
        cb.out = True
    rejects(enc, "no_combatants", lambda: next_turn(enc, roller))


def test_end_combat_resets_the_encounter() -> None:
    enc, _ = make(THREE, THREE_ICS)
    enc.characters["bob"].conditions |= {"standoff", "vulnerable", "surrendered", "prone"}
    end_combat(enc)
    assert (enc.round, enc.count, enc.active, enc.combatants) == (0, None, None, {})
    assert enc.characters["bob"].conditions == {"prone"}


# -- the action budget ----------------------------------------------------------------------


def test_two_half_actions_per_turn() -> None:
    enc, _ = make(THREE, THREE_ICS)
    take_action(enc, "kevin", "half", "move")
    take_action(enc, "kevin", "half", "attack")
    assert enc.combatants["kevin"].actions_taken == ["move", "attack"]
    err = rejects(enc, "no_budget", lambda: take_action(enc, "kevin", "half", "reload"))
    assert err.detail["left"] == 0


def test_one_full_action_uses_the_turn() -> None:
    enc, _ = make(THREE, THREE_ICS)
    out = take_action(enc, "kevin", "full", "charge")
    assert out.happened[0].data == {"cost": "full", "action": "charge"}
    rejects(enc, "no_budget", lambda: take_action(enc, "kevin", "half", "move"))


def test_no_full_action_after_a_half_action() -> None:
    enc, _ = make(THREE, THREE_ICS)
    take_action(enc, "kevin", "half", "move")
    err = rejects(enc, "no_budget", lambda: take_action(enc, "kevin", "full", "charge"))
    assert "only a half action" in err.message


def test_free_actions_are_unlimited_by_default_and_allowed_out_of_turn() -> None:
    enc, _ = make(THREE, THREE_ICS)
    take_action(enc, "kevin", "full", "attack")
    for _ in range(20):
        take_action(enc, "kevin", "free", "talk")
    spend(enc, "bob", "free", "shout", on_turn=False)


def test_free_actions_per_turn_option_caps_them() -> None:
    enc, roller = make(THREE, THREE_ICS, free_actions_per_turn=2)
    take_action(enc, "kevin", "free", "talk")
    take_action(enc, "kevin", "free", "drop")
    rejects(enc, "no_budget", lambda: take_action(enc, "kevin", "free", "talk"))
    next_turn(enc, roller)
    take_action(enc, "bob", "free", "talk")  # a new turn, a new allowance


def test_budget_resets_each_turn() -> None:
    enc, roller = make({"solo": {}}, {"solo": 10})
    take_action(enc, "solo", "full", "attack")
    next_turn(enc, roller)  # round 2, his turn again
    assert enc.round == 2 and enc.combatants["solo"].half_actions == 2
    take_action(enc, "solo", "full", "attack")


def test_acting_out_of_turn_is_refused() -> None:
    enc, _ = make(THREE, THREE_ICS)
    rejects(enc, "not_your_turn", lambda: take_action(enc, "bob", "half", "move"))
    rejects(enc, "unknown_character", lambda: check_budget(enc, "ghost", "half"))
    add_character(enc, Character(id="bystander"))
    rejects(enc, "not_in_combat", lambda: check_budget(enc, "bystander", "half"))


def test_a_stand_off_allows_only_free_actions() -> None:
    enc, _ = make(THREE, THREE_ICS)
    enc.characters["kevin"].conditions.add("standoff")
    err = rejects(enc, "blocked", lambda: take_action(enc, "kevin", "half", "move"))
    assert err.detail["condition"] == "standoff"
    take_action(enc, "kevin", "free", "talk")


def test_a_surrendered_character_may_take_no_action() -> None:
    enc, _ = make(THREE, THREE_ICS)
    enc.characters["kevin"].conditions.add("surrendered")
    for cost in ("free", "half", "full"):
        rejects(enc, "blocked", lambda c=cost: take_action(enc, "kevin", c, "act"))


# -- hooks ------------------------------------------------------------------------------------


def test_round_hook_runs_before_the_first_turn_and_turn_hook_after_it_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[tuple[str, str | None]] = []

    def round_hook(enc: Encounter, roller: object, out: Outcome) -> None:
        seen.append(("round", enc.active))

    def turn_hook(enc: Encounter, roller: object, out: Outcome) -> None:
        seen.append(("turn", enc.active))

    hooks(monkeypatch, "spycraft", round_start=(round_hook,), turn_start=(turn_hook,))
    make(THREE, THREE_ICS)
    assert seen == [("round", None), ("turn", "kevin")]


def test_turn_hook_can_use_up_a_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    def skip_bob(enc: Encounter, roller: object, out: Outcome) -> None:
        if enc.active == "bob":
            enc.combatants["bob"].acted, enc.active = True, None

    hooks(monkeypatch, "spycraft", turn_start=(skip_bob,))
    enc, roller = make(THREE, THREE_ICS)
    out = next_turn(enc, roller)
    assert turns(out) == [("bob", 15), ("cid", 8)] and enc.active == "cid"


def test_foe_worlds_do_not_run_spycraft_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    called: list[str] = []
    hooks(monkeypatch, "spycraft", round_start=(lambda enc, r, out: called.append("x"),))
    enc = Encounter(options=Options(system="foe"))
    add_character(enc, Character(id="pip"))
    start_combat(enc, ["pip"], ScriptedRoller(), ics={"pip": 50})
    assert called == []


@pytest.mark.parametrize(
    "first",
    [
        "vttbridge.rules.encounter",
        "vttbridge.systems.spycraft",
        "vttbridge.systems.spycraft.rules.ready",
    ],
)
def test_the_systems_come_from_their_entry_points_whatever_is_imported_first(first: str) -> None:
    # A fresh interpreter: importing a rule module registers nothing; the registry reads the
    # vttbridge.systems entry point group when a system is first looked up.
    code = (
        f"import {first}\n"
        "from vttbridge.rules import systems\n"
        "assert not systems._registry, systems._registry\n"
        "names = [f.__name__ for f in systems.get('spycraft').round_start]\n"
        "assert names == ['carry_over', 'round_start'], names\n"
        "assert {'foe', 'spycraft'} <= set(systems.names()), systems.names()\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_an_unknown_system_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"no game system 'pf2e'; installed: .*foe, .*spycraft"):
        Options(system="pf2e")
    with pytest.raises(ValueError, match=r"no game system 'spycraf' \(did you mean 'spycraft'\?\)"):
        Options(system="spycraf")


def hooks(monkeypatch: pytest.MonkeyPatch, name: str, **replaced: object) -> None:
    """Run the test with ``name``'s round/turn hooks replaced."""
    monkeypatch.setitem(systems._registry, name, dataclasses.replace(systems.get(name), **replaced))
