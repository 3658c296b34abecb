"""Jumping (Fallout: Equestria): long and high jumps from the ground move speed, running starts, the
minimum-speed cases, ⚙ high jump rounding."""

from __future__ import annotations

import pytest
from vttbridge.systems.foe.rules.jumping import can_clear, high_jump, jump, long_jump, straight_run
from vttbridge.systems.foe.rules.movement import move
from vttbridge.systems.foe.rules.state import foe

from tests.rules.refusals import refused
from tests.systems.foe.helpers import c, east, fight, pony, world


@pytest.mark.parametrize(
    ("move_ft", "standing", "running"),
    [(30, 15, 20), (25, 12.5, 17.5), (9, 4.5, 9.5), (4, 0, 7), (5, 2.5, 7.5), (0, 0, 5)],
)
def test_long_jump_is_half_the_move_plus_5_with_a_running_start(move_ft, standing, running):
    """'a pony can jump half as far as they can move in a single action' (not rounded);
    'If they get a running start ... increase that jump distance by 5''"""
    assert long_jump(move_ft) == standing
    assert long_jump(move_ft, running_start=True) == running


@pytest.mark.parametrize(
    ("move_ft", "standing", "running"), [(30, 7, 10), (9, 2, 4), (4, 0, 3), (25, 6, 8)]
)
def test_high_jump_is_half_the_long_jump_rounded_down(move_ft, standing, running):
    """'For high jumps, the height is half of the long jump distance, rounded down.'"""
    assert high_jump(move_ft) == standing
    assert high_jump(move_ft, running_start=True) == running


def test_high_jump_rounded_to_five_feet():
    assert high_jump(30, rounding="five_ft") == 5
    assert high_jump(30, running_start=True, rounding="five_ft") == 10


def test_under_10_ft_of_move_no_5_ft_gap_without_a_running_start():
    """'If a pony cannot move at least 10' in a single action, they cannot jump a gap of 5'
    without a running start.'"""
    assert not can_clear(9, 5)
    assert can_clear(9, 5, running_start=True)
    assert can_clear(10, 5)


def test_under_5_ft_of_move_no_standing_jump_at_all():
    """'If they cannot move at least 5' ... without a running start they cannot jump any
    appreciable distance at all!'"""
    assert long_jump(4.9) == 0 and high_jump(4.9) == 0
    assert long_jump(5) == 2.5


def jumper(move_ft: float = 30, **opts):
    enc = world(pony("pip", move=move_ft), pony("ox"), at={"pip": (0, 0), "ox": (0, 9)}, **opts)
    return fight(enc, ["pip", "ox"])


def test_a_standing_jump():
    enc = jumper()
    out = jump(enc, "pip", gap=15)
    assert out.kinds() == ["jumped"] and out.happened[0].data["long"] == 15
    err = refused(enc, "too_far", jump, "pip", gap=20)
    assert err.detail["allowed"] == 15


def test_a_running_start_really_run_in_a_straight_line():
    enc = jumper()
    move(enc, "pip", east(30))
    out = jump(enc, "pip", gap=20, running_start=True)
    assert out.happened[0].data["running_start"] is True


def test_only_the_straight_end_of_the_run_counts():
    enc = jumper()
    move(enc, "pip", [c(0, 0), c(0, 6)])  # 30 ft south
    move(enc, "pip", [c(0, 6), c(6, 6)])  # then 30 ft east: a straight run-up of 30
    trail = foe(enc).trail["pip"]
    assert enc.grid.path_length(trail) == 60 and straight_run(enc.grid, trail) == 30
    out = jump(enc, "pip", gap=20, running_start=True)  # the bend 30 ft back does not matter
    assert out.kinds() == ["jumped"] and out.happened[0].data["running_start"] is True
    assert out.happened[0].data["long"] == long_jump(30, running_start=True) >= 20


def test_a_running_start_that_was_not_straight_is_refused():
    enc = jumper()
    move(enc, "pip", [c(0, 0), c(3, 0), c(3, 3)])  # 15 ft east, 15 ft south: bent
    err = refused(enc, "run_up_not_straight", jump, "pip", gap=20, running_start=True)
    assert "straight" in err.message


def test_a_given_run_up_that_was_not_straight_is_refused():
    enc = world(pony("pip", move=30), at={"pip": (6, 3)})
    refused(enc, "run_up_not_straight", jump, "pip", gap=20, run_up=[c(0, 0), c(3, 0), c(6, 3)])


def test_a_given_run_up_must_be_a_full_move_and_end_at_the_jumper():
    enc = world(pony("pip", move=30), at={"pip": (6, 0)})
    jump(enc, "pip", gap=20, run_up=[c(0), c(6)])
    refused(enc, "run_up_too_short", jump, "pip", gap=20, run_up=[c(2), c(6)])
    refused(enc, "run_up_elsewhere", jump, "pip", gap=20, run_up=[c(0), c(5)])


def test_a_run_up_shorter_than_one_move_is_refused():
    """'(at least a full movement action's worth of distance)'"""
    enc = jumper()
    move(enc, "pip", east(25))
    refused(enc, "run_up_too_short", jump, "pip", gap=20, running_start=True)


def test_slow_pony_running_start():
    """Move 4: 0 ft standing, 7 ft with a running start."""
    enc = world(pony("snail", move=4), at={"snail": (1, 0)})
    refused(enc, "too_far", jump, "snail", gap=5)
    jump(enc, "snail", gap=5, run_up=[c(0), c(1)])


def test_high_jump_uses_the_option():
    enc = jumper(high_jump_rounding="five_ft")
    refused(enc, "too_high", jump, "pip", height=6)
    out = jump(enc, "pip", height=5)
    assert out.happened[0].data["high"] == 5


def test_without_a_target_it_reports_what_he_can_jump():
    enc = jumper()
    out = jump(enc, "pip")
    assert out.kinds() == ["jump_distances"]
    assert (out.happened[0].data["long"], out.happened[0].data["high"]) == (15, 7)


def test_a_running_start_outside_combat_needs_the_path():
    enc = world(pony("pip"), at={"pip": (0, 0)})
    refused(enc, "no_run_up", jump, "pip", gap=5, running_start=True)


def test_a_jump_leg_of_a_drag_measures_the_leg_and_finds_its_run_up():
    """A drag's leg marked as a jump: its length is the jump's; a straight run of one move
    action's distance just before it is a running start."""
    from vttbridge.systems.foe.rules.jumping import jump_leg

    enc = fight(world(pony("pip", move=25), pony("ox"), at={"pip": (0, 0), "ox": (0, 9)}),
                ["pip", "ox"])  # fmt: skip
    out = jump_leg(enc, "pip", [c(0)], c(0), c(2))  # 10 ft standing: up to 12.5
    assert out.kinds() == ["jumped"] and out.happened[0].data["running_start"] is False
    err = refused(enc, "too_far", jump_leg, "pip", [c(0)], c(0), c(3))
    assert "can jump 12.5 ft; that jump is 15 ft" in err.message
    # 25 ft straight first: a running start, up to 17.5 ft
    out = jump_leg(enc, "pip", [c(0), c(5)], c(5), c(8))
    assert out.happened[0].data["running_start"] is True
    # the run-up must be straight
    bent = [c(0, 0), c(3, 0), c(3, 2)]
    refused(enc, "too_far", jump_leg, "pip", bent, c(3, 2), c(3, 5))
    assert enc.combatants["pip"].moved_ft == 0  # judging changes nothing
