"""Spycraft 2.0 Ready (docs/rules.md "Ready" 1-6), with the text's examples as tests."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from vttbridge.rules.dice import ScriptedRoller
from vttbridge.rules.encounter import Encounter, end_combat, next_turn, take_action
from vttbridge.rules.outcome import Outcome, RuleError
from vttbridge.systems.spycraft.rules import ready
from vttbridge.systems.spycraft.rules.ready import (
    CANCEL_CHOICE,
    READY_DC,
    active_ready,
    declare,
    end_ready,
    resolve_trigger,
    trigger_occurred,
)
from vttbridge.systems.spycraft.rules.state import spycraft

from .scene import kevin_scene, make, rejects, turns

PISTOL = "Standard Attack with pistol"
CORNER = "the first person comes around the corner in his line of sight"


def kevin_readied(**options: object) -> tuple[Encounter, ScriptedRoller]:
    """Round 1: Kevin (IC 22) has readied his pistol; it is the ally's turn at IC 14."""
    enc, roller = kevin_scene(**options)
    declare(enc, "kevin", PISTOL, CORNER, roller)
    assert (enc.active, enc.count) == ("ally", 14)
    return enc, roller


def into_round_2(enc: Encounter, roller: ScriptedRoller) -> None:
    """Play out round 1 without a trigger; round 2 starts with Dana at IC 25."""
    while enc.round == 1:
        next_turn(enc, roller)
    assert (enc.round, enc.active, enc.count) == (2, "dana", 25)


# -- the text's examples ------------------------------------------------------------------------


def test_kevin_readies_a_pistol_attack_at_ic_22() -> None:
    enc, roller = kevin_scene()
    out = declare(enc, "kevin", PISTOL, CORNER, roller)
    r = spycraft(enc).readies["kevin"]
    assert (r.action, r.trigger, r.timing) == (PISTOL, CORNER, "completion")
    assert (r.declared_round, r.declared_ic, r.carried_over, r.pending) == (1, 22, False, False)
    assert enc.combatants["kevin"].ic == 22  # declaring does not move his IC
    assert out.kinds()[:3] == ["ready_declared", "turn_ended", "turn_started"]
    assert PISTOL in out.happened[0].text and CORNER in out.happened[0].text
    # The Ready is his whole turn: it passes to the ally at once.
    assert enc.combatants["kevin"].acted and (enc.active, enc.count) == ("ally", 14)
    # A full action: both half actions are spent on it.
    assert enc.combatants["kevin"].half_actions == 0
    assert enc.combatants["kevin"].actions_taken == ["ready", "ready"]


def test_ally_rounds_the_corner_at_ic_14_and_kevin_cancels_with_reflex_22() -> None:
    enc, roller = kevin_readied()
    out = trigger_occurred(enc, "kevin", roller, by="ally", description="Ally rounds the corner")
    assert enc.combatants["kevin"].ic == 14  # rule 2: IC drops to the current count at once
    [choice] = out.choices
    assert (choice.kind, choice.actor, choice.options, choice.default) == (
        CANCEL_CHOICE,
        "kevin",
        ["fire", "cancel"],
        "fire",
    )
    assert spycraft(enc).readies["kevin"].pending

    roller.push(17)  # 17 + Reflex 5 = 22
    out = resolve_trigger(enc, "kevin", "cancel", roller)
    assert [r.total for r in out.rolls] == [22]
    assert out.rolls[0].expression == "1d20+5"
    assert "ready_cancelled" in out.kinds() and "ready_fired" not in out.kinds()  # no shot
    assert enc.combatants["kevin"].ic == 14
    assert active_ready(enc, "kevin") is None  # his Ready has ended


def test_second_person_at_ic_10_triggers_nothing() -> None:
    enc, roller = kevin_readied()
    trigger_occurred(enc, "kevin", roller, by="ally")
    roller.push(17)
    resolve_trigger(enc, "kevin", "cancel", roller)
    next_turn(enc, roller)
    assert (enc.active, enc.count) == ("guard", 10)
    rejects(enc, "no_ready", lambda: trigger_occurred(enc, "kevin", roller, by="guard"))
    assert enc.combatants["kevin"].ic == 14


def test_no_one_rounds_the_corner_ic_stays_22_and_the_ready_carries_over() -> None:
    enc, roller = kevin_readied()
    out = next_turn(enc, roller)  # the guard's turn
    out.extend(next_turn(enc, roller))  # round 2
    assert "ready_carried_over" in out.kinds()
    assert out.kinds().index("ready_carried_over") < out.kinds().index("turn_started", 2)
    assert enc.combatants["kevin"].ic == 22
    assert spycraft(enc).readies["kevin"].carried_over
    # He lost his chance to act in round 1: his only turn that round was the Ready.
    assert ("kevin", 22) not in turns(out)


def test_carried_over_ready_fires_when_someone_rounds_the_corner_before_ic_22() -> None:
    enc, roller = kevin_readied()
    into_round_2(enc, roller)
    out = trigger_occurred(enc, "kevin", roller, by="dana")  # count 25: before IC 22
    assert enc.combatants["kevin"].ic == 22  # not lower: unchanged
    assert "ic_changed" not in out.kinds()
    out = resolve_trigger(enc, "kevin", "fire", roller)
    [fired] = [h for h in out.happened if h.kind == "ready_fired"]
    assert fired.data["action"] == PISTOL and fired.data["carried_over"]
    assert active_ready(enc, "kevin") is None
    # ⚙ carryover_consumes_turn off (default): he still acts at IC 22 this round.
    assert turns(next_turn(enc, roller)) == [("kevin", 22)]


def test_carried_over_ready_expires_at_ic_22_and_kevin_acts_normally() -> None:
    enc, roller = kevin_readied()
    into_round_2(enc, roller)
    out = next_turn(enc, roller)
    assert (enc.active, enc.count) == ("kevin", 22)
    assert out.kinds()[-2:] == ["turn_started", "ready_expired"]
    assert active_ready(enc, "kevin") is None
    assert enc.combatants["kevin"].half_actions == 2  # a normal turn
    take_action(enc, "kevin", "full", "attack")
    rejects(enc, "no_ready", lambda: trigger_occurred(enc, "kevin", roller, by="ally"))


def test_gary_shaped_charge_intercedes_on_the_attempt() -> None:
    enc, roller = make(
        {"gary": {"initiative": 2}, "guard": {"initiative": 1}}, {"gary": 18, "guard": 9}
    )
    charge, button = "activate the shaped charge", "anyone presses the missile launch button"
    declare(enc, "gary", charge, button, roller, timing="attempt")
    assert enc.active == "guard"
    out = trigger_occurred(enc, "gary", roller, by="guard", description="reaches for the button")
    assert out.choices[0].data["timing"] == "attempt"
    assert out.happened[0].data["timing"] == "attempt"  # the runtime holds the task from here
    out = resolve_trigger(enc, "gary", "fire", roller)
    [fired] = [h for h in out.happened if h.kind == "ready_fired"]
    assert fired.data["timing"] == "attempt" and fired.data["before_task"] is True
    assert "before" in fired.text
    assert enc.combatants["gary"].ic == 9


# -- rule 1: trigger kinds ------------------------------------------------------------------


def test_default_timing_follows_completion() -> None:
    enc, roller = kevin_readied()
    trigger_occurred(enc, "kevin", roller, by="ally")
    out = resolve_trigger(enc, "kevin", "fire", roller)
    [fired] = [h for h in out.happened if h.kind == "ready_fired"]
    assert fired.data["timing"] == "completion" and fired.data["before_task"] is False
    assert "after the task" in fired.text


def test_bad_timing_is_refused() -> None:
    enc, roller = kevin_scene()
    rejects(enc, "bad_argument", lambda: declare(enc, "kevin", PISTOL, CORNER, roller, "soon"))


@pytest.mark.parametrize(("action", "trigger"), [("", CORNER), (PISTOL, "  ")])
def test_ready_names_an_action_and_a_trigger(action: str, trigger: str) -> None:
    enc, roller = kevin_scene()
    rejects(enc, "bad_argument", lambda: declare(enc, "kevin", action, trigger, roller))


# -- rule 2: the IC on a trigger ----------------------------------------------------------------


def test_trigger_at_lower_ic_reduces_it_and_records_the_change() -> None:
    enc, roller = kevin_readied()
    out = trigger_occurred(enc, "kevin", roller, by="ally")
    [change] = [h for h in out.happened if h.kind == "ic_changed"]
    assert (change.data["old"], change.data["new"]) == (22, 14)
    assert spycraft(enc).readies["kevin"].trigger_ic == 14


def test_trigger_at_his_own_ic_leaves_it_unchanged() -> None:
    # Bob shares IC 22 but has a lower Initiative bonus, so he acts right after Kevin.
    stats = {"kevin": {"initiative": 3, "reflex": 5}, "bob": {"initiative": 1}}
    enc, roller = make(stats, {"kevin": 22, "bob": 22})
    declare(enc, "kevin", PISTOL, CORNER, roller)
    assert (enc.active, enc.count) == ("bob", 22)
    out = trigger_occurred(enc, "kevin", roller, by="bob")
    assert enc.combatants["kevin"].ic == 22 and "ic_changed" not in out.kinds()


def test_reduced_ic_carries_into_the_next_round() -> None:
    enc, roller = kevin_readied()
    trigger_occurred(enc, "kevin", roller, by="ally")
    resolve_trigger(enc, "kevin", "fire", roller)
    out = next_turn(enc, roller)  # the guard
    out.extend(next_turn(enc, roller))  # round 2: Dana
    out.extend(next_turn(enc, roller))
    # Kevin (IC 14, Initiative 3) now acts before the ally (IC 14, Initiative 1).
    assert turns(out) == [("guard", 10), ("dana", 25), ("kevin", 14)]
    assert enc.order() == ["dana", "kevin", "ally", "guard"]


# -- rule 3: cancelling -------------------------------------------------------------------------


def test_fire_takes_the_readied_half_action_without_a_roll() -> None:
    enc, roller = kevin_readied()
    trigger_occurred(enc, "kevin", roller, by="ally")
    out = resolve_trigger(enc, "kevin", "fire", roller)
    assert out.rolls == []
    assert out.kinds() == ["ready_fired", "ready_ended"]
    assert out.happened[0].data["forced"] is False and out.happened[0].data["by"] == "ally"
    assert enc.combatants["kevin"].ic == 14 and active_ready(enc, "kevin") is None


@pytest.mark.parametrize(("face", "cancelled"), [(10, True), (9, False), (20, True), (1, False)])
def test_cancel_needs_reflex_dc_15(face: int, cancelled: bool) -> None:
    enc, roller = kevin_readied()  # Kevin's Reflex is +5
    trigger_occurred(enc, "kevin", roller, by="ally")
    roller.push(face)
    out = resolve_trigger(enc, "kevin", "cancel", roller)
    assert out.rolls[0].total == face + 5
    if cancelled:
        assert out.kinds() == ["ready_cancelled", "ready_ended"]
    else:  # he must go through with his declared action
        assert out.kinds() == ["ready_fired", "ready_ended"]
        assert out.happened[0].data["forced"] is True
        assert out.happened[0].data["save"] == face + 5
    assert out.happened[0].data["dc"] == READY_DC == 15
    # Success or failure, the Ready ends and the IC is reduced as standard.
    assert active_ready(enc, "kevin") is None
    assert enc.combatants["kevin"].ic == 14


def test_unanswered_trigger_keeps_the_ready_pending() -> None:
    enc, roller = kevin_readied(carryover_consumes_turn=True)
    trigger_occurred(enc, "kevin", roller, by="ally")
    rejects(enc, "ready_pending", lambda: trigger_occurred(enc, "kevin", roller, by="ally"))
    rejects(enc, "ready_pending", lambda: end_ready(enc, "kevin", roller))
    rejects(enc, "bad_answer", lambda: resolve_trigger(enc, "kevin", "maybe", roller))  # type: ignore[arg-type]
    # The turn order may move on; the pending Ready neither expires nor blocks it.
    next_turn(enc, roller)
    next_turn(enc, roller)
    assert enc.round == 2 and spycraft(enc).readies["kevin"].pending
    # It was triggered in round 1, so it did not carry over: firing now costs no turn.
    assert not spycraft(enc).readies["kevin"].carried_over
    out = resolve_trigger(enc, "kevin", "fire", roller)
    assert "ready_fired" in out.kinds() and active_ready(enc, "kevin") is None
    assert "turn_forfeited" not in out.kinds()


def test_pending_carried_over_ready_does_not_expire_at_his_ic() -> None:
    enc, roller = kevin_readied()
    into_round_2(enc, roller)
    trigger_occurred(enc, "kevin", roller, by="dana")
    out = next_turn(enc, roller)  # the count reaches 22 before the answer came
    assert enc.active == "kevin" and "ready_expired" not in out.kinds()
    roller.push(1)
    out = resolve_trigger(enc, "kevin", "cancel", roller)
    assert out.happened[0].data["forced"] is True


def test_resolve_without_a_trigger_is_refused() -> None:
    enc, roller = kevin_readied()
    rejects(enc, "not_pending", lambda: resolve_trigger(enc, "kevin", "fire", roller))
    rejects(enc, "no_ready", lambda: resolve_trigger(enc, "ally", "fire", roller))


def test_trigger_while_he_may_take_only_free_actions_is_refused() -> None:
    enc, roller = kevin_readied()
    enc.characters["kevin"].conditions.add("standoff")
    rejects(enc, "blocked", lambda: trigger_occurred(enc, "kevin", roller, by="ally"))
    assert active_ready(enc, "kevin") is not None


# -- rule 4: carrying over and expiring ------------------------------------------------------


def test_ready_is_not_carried_over_in_the_declaring_round() -> None:
    enc, roller = kevin_readied()
    next_turn(enc, roller)
    assert enc.round == 1 and not spycraft(enc).readies["kevin"].carried_over


def test_expires_when_the_count_reaches_his_ic_even_on_a_tied_turn_before_his() -> None:
    # Zed shares IC 22 with a higher Initiative bonus: the count reaches 22 on Zed's turn,
    # which is no longer "before IC 22".
    stats = {"zed": {"initiative": 6}, "kevin": {"initiative": 3}, "ally": {"initiative": 1}}
    enc, roller = make(stats, {"zed": 22, "kevin": 22, "ally": 14})
    next_turn(enc, roller)
    declare(enc, "kevin", PISTOL, CORNER, roller)
    next_turn(enc, roller)  # round 2: Zed at 22
    assert (enc.round, enc.active) == (2, "zed")
    assert active_ready(enc, "kevin") is None


def test_ready_of_a_removed_combatant_expires_at_the_round_start() -> None:
    enc, roller = kevin_readied()
    enc.combatants["kevin"].out = True
    next_turn(enc, roller)
    out = next_turn(enc, roller)
    assert "ready_expired" in out.kinds() and active_ready(enc, "kevin") is None


def test_a_ready_never_outlives_the_following_round() -> None:
    # Safety net for a turn the hooks never saw (the owner's turn skipped by another rule).
    enc, roller = kevin_readied()
    into_round_2(enc, roller)
    out = Outcome()
    ready.carry_over(enc, roller, out)  # as if round 3 began
    assert out.kinds() == ["ready_expired"] and active_ready(enc, "kevin") is None


def test_a_ready_ends_if_its_owner_gets_a_turn() -> None:
    # Safety net: should the GM hand Kevin a turn in the declaring round, he acts instead.
    enc, roller = kevin_readied()
    enc.combatants["kevin"].acted = False
    out = next_turn(enc, roller)
    assert turns(out) == [("kevin", 22)] and "ready_expired" in out.kinds()


def test_end_combat_clears_readies() -> None:
    enc, _ = kevin_readied()
    end_combat(enc)
    assert spycraft(enc).readies == {}


# -- rule 5: ending it voluntarily ---------------------------------------------------------------


def test_end_in_following_round_with_a_successful_save() -> None:
    enc, roller = kevin_readied()
    into_round_2(enc, roller)
    roller.push(10)  # 15
    out = end_ready(enc, "kevin", roller)
    assert out.kinds() == ["ready_ended"] and out.rolls[0].total == 15
    assert active_ready(enc, "kevin") is None and enc.combatants["kevin"].ic == 22
    out = next_turn(enc, roller)
    assert turns(out) == [("kevin", 22)] and "ready_expired" not in out.kinds()


def test_failed_save_to_end_leaves_it_active_by_default() -> None:
    enc, roller = kevin_readied()
    into_round_2(enc, roller)
    roller.push(9)  # 14
    out = end_ready(enc, "kevin", roller)
    assert out.kinds() == ["ready_end_failed"]
    assert active_ready(enc, "kevin") is not None
    # Still active: it can fire before IC 22.
    trigger_occurred(enc, "kevin", roller, by="dana")
    assert "ready_fired" in resolve_trigger(enc, "kevin", "fire", roller).kinds()


def test_failed_save_to_end_ends_it_with_option_ends() -> None:
    enc, roller = kevin_readied(ready_end_failure="ends")
    into_round_2(enc, roller)
    roller.push(9)
    out = end_ready(enc, "kevin", roller)
    assert out.kinds() == ["ready_ended"] and active_ready(enc, "kevin") is None


def test_ending_in_the_declaring_round_needs_the_save_too() -> None:
    # Decision: otherwise ending it just before the trigger would dodge the cancel save.
    enc, roller = kevin_readied()
    roller.push(2)  # 7
    assert end_ready(enc, "kevin", roller).kinds() == ["ready_end_failed"]
    roller.push(19)
    assert end_ready(enc, "kevin", roller).kinds() == ["ready_ended"]
    assert enc.combatants["kevin"].ic == 22  # ending it moves no IC


def test_gm_removes_a_ready_without_a_save() -> None:
    enc, roller = kevin_readied()
    out = end_ready(enc, "kevin", roller, save=False)
    assert out.rolls == [] and out.kinds() == ["ready_ended"]
    rejects(enc, "no_ready", lambda: end_ready(enc, "kevin", roller))


# -- rule 6: ⚙ carryover_consumes_turn -----------------------------------------------------------


def test_carryover_fire_costs_the_turn_with_option_on() -> None:
    enc, roller = kevin_readied(carryover_consumes_turn=True)
    into_round_2(enc, roller)
    trigger_occurred(enc, "kevin", roller, by="dana")
    out = resolve_trigger(enc, "kevin", "fire", roller)
    assert "turn_forfeited" in out.kinds()
    assert turns(next_turn(enc, roller)) == [("ally", 14)]  # Kevin's IC 22 is skipped
    assert enc.combatants["kevin"].ic == 22


def test_forced_carryover_fire_costs_the_turn_but_a_cancel_does_not() -> None:
    enc, roller = kevin_readied(carryover_consumes_turn=True)
    into_round_2(enc, roller)
    trigger_occurred(enc, "kevin", roller, by="dana")
    roller.push(1)
    assert "turn_forfeited" in resolve_trigger(enc, "kevin", "cancel", roller).kinds()

    enc, roller = kevin_readied(carryover_consumes_turn=True)
    into_round_2(enc, roller)
    trigger_occurred(enc, "kevin", roller, by="dana")
    roller.push(20)
    out = resolve_trigger(enc, "kevin", "cancel", roller)
    assert "turn_forfeited" not in out.kinds()
    assert turns(next_turn(enc, roller)) == [("kevin", 22)]


def test_option_does_not_touch_a_ready_fired_in_the_declaring_round() -> None:
    enc, roller = kevin_readied(carryover_consumes_turn=True)
    trigger_occurred(enc, "kevin", roller, by="ally")
    out = resolve_trigger(enc, "kevin", "fire", roller)
    assert "turn_forfeited" not in out.kinds()
    next_turn(enc, roller)
    out = next_turn(enc, roller)  # round 2
    out.extend(next_turn(enc, roller))
    assert turns(out) == [("dana", 25), ("kevin", 14)]


# -- illegal requests change nothing ------------------------------------------------------------


def test_second_ready_is_refused() -> None:
    enc, roller = kevin_readied()
    rejects(enc, "ready_exists", lambda: declare(enc, "kevin", "Reload", "anything", roller))


def test_ready_after_a_half_action_has_no_budget() -> None:
    enc, roller = kevin_scene()
    take_action(enc, "kevin", "half", "move")
    err = rejects(enc, "no_budget", lambda: declare(enc, "kevin", PISTOL, CORNER, roller))
    assert err.detail["left"] == 1


def test_ready_out_of_turn_is_refused() -> None:
    enc, roller = kevin_scene()
    rejects(enc, "not_your_turn", lambda: declare(enc, "ally", PISTOL, CORNER, roller))


def test_ready_in_a_stand_off_is_blocked() -> None:
    enc, roller = kevin_scene()
    enc.characters["kevin"].conditions.add("standoff")
    rejects(enc, "blocked", lambda: declare(enc, "kevin", PISTOL, CORNER, roller))


def test_ready_by_someone_not_in_combat_or_unknown_is_refused() -> None:
    enc, roller = kevin_scene()
    rejects(enc, "unknown_character", lambda: declare(enc, "nobody", PISTOL, CORNER, roller))
    enc2, roller2 = make({"kevin": {}}, {"kevin": 10})
    end_combat(enc2)
    rejects(enc2, "not_in_combat", lambda: declare(enc2, "kevin", PISTOL, CORNER, roller2))


def test_ready_is_spycraft_only() -> None:
    enc, roller = make({"pip": {}}, {"pip": 40}, system="foe")
    rejects(enc, "wrong_system", lambda: declare(enc, "pip", "shoot", "door opens", roller))


def test_trigger_with_no_count_running_is_refused() -> None:
    enc, roller = kevin_readied()
    enc.count = None
    rejects(enc, "no_count", lambda: trigger_occurred(enc, "kevin", roller))


def test_trigger_without_a_ready_is_refused() -> None:
    enc, roller = kevin_scene()
    rejects(enc, "no_ready", lambda: trigger_occurred(enc, "ally", roller))
    rejects(enc, "no_ready", lambda: end_ready(enc, "ally", roller))


# -- state survives a snapshot ----------------------------------------------------------------


def test_pending_ready_survives_a_snapshot_round_trip() -> None:
    enc, roller = kevin_readied()
    trigger_occurred(enc, "kevin", roller, by="ally", description="Ally rounds the corner")
    restored = Encounter.model_validate_json(enc.model_dump_json())
    r = spycraft(restored).readies["kevin"]
    assert (r.pending, r.trigger_ic, r.triggered_by, r.trigger_note) == (
        True,
        14,
        "ally",
        "Ally rounds the corner",
    )
    out = resolve_trigger(restored, "kevin", "fire", roller)
    assert out.happened[0].data["by"] == "ally"


def test_hooks_are_registered_for_spycraft() -> None:
    from vttbridge.rules import systems

    assert ready.carry_over in systems.get("spycraft").round_start
    assert ready.expire_at_ic in systems.get("spycraft").turn_start


# -- properties ---------------------------------------------------------------------------------

OPS = st.sampled_from(["next", "declare", "trigger", "fire", "cancel", "end"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ics=st.lists(st.integers(1, 30), min_size=2, max_size=5),
    steps=st.lists(st.tuples(OPS, st.integers(0, 4), st.integers(1, 20)), max_size=40),
    consumes=st.booleans(),
)
def test_a_ready_never_raises_an_ic_and_errors_change_nothing(
    ics: list[int], steps: list[tuple[str, int, int]], consumes: bool
) -> None:
    """Random play of Ready, triggers, answers and turns: no IC ever rises; a trigger leaves
    the IC at min(old IC, count); a refused request changes nothing; a Ready lives at most
    until its owner's IC in the round after it was declared (unless awaiting an answer)."""
    ids = [f"c{i}" for i in range(len(ics))]
    stats = {cid: {"initiative": i % 3, "reflex": i} for i, cid in enumerate(ids)}
    enc, roller = make(
        stats,
        dict(zip(ids, ics, strict=True)),
        tie_break="gm",
        carryover_consumes_turn=consumes,
    )
    for op, who, face in steps:
        actor = ids[who % len(ids)] if op != "declare" else (enc.active or ids[0])
        before = enc.model_dump()
        old_ics = {c: cb.ic for c, cb in enc.combatants.items()}
        roller.script[:] = [face]
        try:
            match op:
                case "next":
                    next_turn(enc, roller)
                case "declare":
                    declare(enc, actor, "shoot", "someone moves", roller, timing="attempt")
                case "trigger":
                    count = enc.count
                    trigger_occurred(enc, actor, roller, by=enc.active)
                    assert count is not None
                    assert enc.combatants[actor].ic == min(old_ics[actor], count)
                case "fire" | "cancel":
                    resolve_trigger(enc, actor, op, roller)
                case "end":
                    end_ready(enc, actor, roller)
        except RuleError:
            assert enc.model_dump() == before
        for c, cb in enc.combatants.items():
            assert cb.ic <= old_ics[c]
        for owner, r in spycraft(enc).readies.items():
            if r.pending:
                continue
            assert r.carried_over == (enc.round > r.declared_round)
            assert enc.round <= r.declared_round + 1
            if r.carried_over:
                assert enc.count is not None and enc.count > enc.combatants[owner].ic
