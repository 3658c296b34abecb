"""Spycraft 2.0 Delay (rules.md "Delay"): IC down 1 per step, at most Initiative bonus + 10
steps a round, never below 5, the new IC carrying into the next round."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from vttbridge.rules.dice import ScriptedRoller
from vttbridge.rules.encounter import Encounter, next_turn, take_action
from vttbridge.rules.outcome import RuleError
from vttbridge.systems.spycraft.rules.delay import delay
from vttbridge.systems.spycraft.rules.ready import declare
from vttbridge.systems.spycraft.rules.state import spycraft

from .scene import make, rejects, turns

# Kevin (Initiative 2: 12 steps a round) at IC 22, Bob at 15, Cid at 8.
STATS = {"kevin": {"initiative": 2}, "bob": {"initiative": 1}, "cid": {"initiative": 0}}
ICS = {"kevin": 22, "bob": 15, "cid": 8}


def scene() -> tuple[Encounter, ScriptedRoller]:
    enc, roller = make(STATS, ICS)
    assert (enc.active, enc.count) == ("kevin", 22)
    return enc, roller


def test_delay_lowers_ic_by_one_per_step_and_passes_the_turn() -> None:
    enc, roller = scene()
    out = delay(enc, "kevin", 10, roller)
    assert enc.combatants["kevin"].ic == 12
    [change] = [h for h in out.happened if h.kind == "ic_changed"]
    assert (change.data["old"], change.data["new"], change.data["reason"]) == (22, 12, "delay")
    assert "delayed" in out.kinds()
    # Bob (15) acts first; Kevin gets his turn when the count reaches 12, still in round 1.
    assert turns(out) == [("bob", 15)]
    assert not enc.combatants["kevin"].acted
    out = next_turn(enc, roller)
    assert turns(out) == [("kevin", 12)] and enc.round == 1
    assert enc.combatants["kevin"].half_actions == 2  # a full turn at the new IC


def test_delay_when_still_first_gives_the_turn_straight_back() -> None:
    enc, roller = scene()
    out = delay(enc, "kevin", 3, roller)
    assert turns(out) == [("kevin", 19)]


def test_delay_cap_is_initiative_plus_10_steps() -> None:
    enc, roller = scene()
    err = rejects(enc, "delay_cap", lambda: delay(enc, "kevin", 13, roller))
    assert err.detail["left"] == 12
    delay(enc, "kevin", 12, roller)
    assert enc.combatants["kevin"].ic == 10


def test_delay_cap_counts_every_delay_in_the_round() -> None:
    enc, roller = scene()
    delay(enc, "kevin", 8, roller)  # 22 -> 14: Bob (15) goes, then Kevin again
    next_turn(enc, roller)
    assert (enc.active, enc.count) == ("kevin", 14)
    err = rejects(enc, "delay_cap", lambda: delay(enc, "kevin", 5, roller))
    assert err.detail["left"] == 4
    delay(enc, "kevin", 4, roller)
    assert enc.combatants["kevin"].ic == 10


def test_delay_cap_resets_each_round() -> None:
    enc, roller = scene()
    delay(enc, "kevin", 12, roller)  # 22 -> 10
    while enc.round == 1:
        next_turn(enc, roller)
    # Round 2: Bob 15, Kevin 10, Cid 8.
    assert (enc.active, enc.count) == ("bob", 15)
    next_turn(enc, roller)
    assert (enc.active, enc.count) == ("kevin", 10)
    delay(enc, "kevin", 5, roller)  # would exceed 12 in one round without the reset
    assert enc.combatants["kevin"].ic == 5


def test_low_initiative_shrinks_the_cap() -> None:
    enc, roller = make({"slow": {"initiative": -3}}, {"slow": 20})
    rejects(enc, "delay_cap", lambda: delay(enc, "slow", 8, roller))
    delay(enc, "slow", 7, roller)
    assert enc.combatants["slow"].ic == 13


def test_very_low_initiative_cannot_delay_at_all() -> None:
    enc, roller = make({"slow": {"initiative": -12}}, {"slow": 20})
    assert rejects(enc, "delay_cap", lambda: delay(enc, "slow", 1, roller)).detail["left"] == 0


def test_delay_never_below_5() -> None:
    enc, roller = make({"kevin": {"initiative": 10}}, {"kevin": 12})
    rejects(enc, "delay_floor", lambda: delay(enc, "kevin", 8, roller))
    delay(enc, "kevin", 7, roller)
    assert enc.combatants["kevin"].ic == 5
    rejects(enc, "delay_floor", lambda: delay(enc, "kevin", 1, roller))


def test_delayed_ic_carries_into_the_next_round() -> None:
    enc, roller = scene()
    delay(enc, "kevin", 12, roller)  # 22 -> 10
    out = next_turn(enc, roller)  # Kevin at 10
    while enc.round == 1:
        out.extend(next_turn(enc, roller))
    out.extend(next_turn(enc, roller))
    assert turns(out)[-4:] == [("kevin", 10), ("cid", 8), ("bob", 15), ("kevin", 10)]


def test_delay_only_before_acting() -> None:
    enc, roller = scene()
    take_action(enc, "kevin", "half", "move")
    rejects(enc, "already_acted", lambda: delay(enc, "kevin", 2, roller))


def test_delay_out_of_turn_or_by_zero_is_refused() -> None:
    enc, roller = scene()
    rejects(enc, "not_your_turn", lambda: delay(enc, "bob", 2, roller))
    rejects(enc, "bad_argument", lambda: delay(enc, "kevin", 0, roller))


def test_delay_then_ready_at_the_new_ic() -> None:
    enc, roller = scene()
    delay(enc, "kevin", 10, roller)
    next_turn(enc, roller)
    assert (enc.active, enc.count) == ("kevin", 12)
    declare(enc, "kevin", "shoot", "the door opens", roller)
    assert spycraft(enc).readies["kevin"].declared_ic == 12
    assert enc.active == "cid"


@settings(max_examples=200, deadline=None)
@given(
    ic=st.integers(1, 40),
    init=st.integers(-12, 8),
    plan=st.lists(st.integers(1, 25), max_size=8),
)
def test_delay_never_breaks_its_cap_or_floor(ic: int, init: int, plan: list[int]) -> None:
    """Whatever delays are asked in a round, the accepted ones total at most Init + 10 steps,
    the IC never drops below 5 through a Delay, and it never rises."""
    enc, roller = make({"a": {"initiative": init}}, {"a": ic})
    taken = 0
    for steps in plan:
        old = enc.combatants["a"].ic
        try:
            delay(enc, "a", steps, roller)
            taken += steps
            assert enc.combatants["a"].ic == old - steps
        except RuleError as e:
            assert e.code in {"delay_cap", "delay_floor"}
            assert enc.combatants["a"].ic == old
        assert enc.round == 1 and enc.active == "a"
        assert taken <= max(0, init + 10)
        assert enc.combatants["a"].ic >= min(ic, 5)
