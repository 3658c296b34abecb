"""Movement in a FoE round ("Movement"): per-action speed, running, other actions
halving the round, dodging outside the budget, paths measured through their waypoints."""

from __future__ import annotations

import math

import pytest
from vttbridge.rules.dice import ScriptedRoller
from vttbridge.rules.encounter import next_turn, take_action
from vttbridge.rules.geometry import Cell, DiagonalMetric
from vttbridge.rules.outcome import RuleError
from vttbridge.systems.foe.rules.movement import dodge, move, movement_allowed

from tests.rules.refusals import refused
from tests.systems.foe.helpers import c, east, fight, pony, world


def runner(move_ft: float = 30, **opts):
    enc = world(pony("pip", move=move_ft), pony("ox"), at={"pip": (0, 0), "ox": (0, 9)}, **opts)
    return fight(enc, ["pip", "ox"])


def test_one_move_action_covers_the_listed_speed():
    """'characters can move up to their listed move speed ... for each action spent moving'"""
    enc = runner()
    out = move(enc, "pip", east(30))
    cb = enc.combatants["pip"]
    assert cb.actions_taken == ["move"] and cb.half_actions == 1
    assert cb.moved_ft == 30 and enc.positions["pip"] == c(6)
    assert out.kinds() == ["moved"]


def test_several_drags_share_one_move_action():
    enc = runner()
    move(enc, "pip", east(10))
    move(enc, "pip", east(20, start=(2, 0)))
    assert enc.combatants["pip"].actions_taken == ["move"]


def test_two_moves_only_if_that_is_all_the_turn_does():
    """'they can only do this twice if that is ALL that they do with their turn'"""
    enc = runner()
    move(enc, "pip", east(30))
    move(enc, "pip", east(30, start=(6, 0)))
    assert enc.combatants["pip"].actions_taken == ["move", "move"]
    refused(enc, "no_budget", take_action, "pip", "half", "attack")


def test_other_action_first_halves_the_round():
    """'Other actions, such as firing a weapon ... will reduce the distance ... by half'"""
    enc = runner()
    take_action(enc, "pip", "half", "attack")
    assert movement_allowed(enc, "pip") == 30
    err = refused(enc, "over_budget", move, "pip", east(35))
    assert err.detail["allowed"] == 30 and err.detail["length"] == 35
    assert "30 ft" in err.message
    move(enc, "pip", east(30))
    assert movement_allowed(enc, "pip") == 0


def test_move_then_other_action_is_one_speed_in_all():
    """move + other action = 1x speed, the move may be split around the other action"""
    enc = runner()
    move(enc, "pip", east(10))
    take_action(enc, "pip", "half", "shoot")
    assert movement_allowed(enc, "pip") == 20
    move(enc, "pip", east(20, start=(2, 0)))
    refused(enc, "over_budget", move, "pip", east(5, start=(6, 0)))


def test_running_is_three_times_speed():
    """'If running (spending both actions to move), ... up to three times their listed speed.'"""
    enc = runner()
    assert movement_allowed(enc, "pip") == 90
    out = move(enc, "pip", east(90))
    cb = enc.combatants["pip"]
    assert cb.actions_taken == ["move", "move"] and cb.moved_ft == 90
    assert out.happened[0].data["running"] is True
    refused(enc, "over_budget", move, "pip", east(5, start=(18, 0)))


def test_a_move_past_the_run_is_refused_with_the_distance_allowed():
    enc = runner()
    move(enc, "pip", east(40))
    err = refused(enc, "over_budget", move, "pip", east(55, start=(8, 0)))
    assert err.detail["allowed"] == 50
    assert "50 ft" in err.message and "55 ft" in err.message


def test_running_leaves_no_action_for_anything_else():
    enc = runner()
    move(enc, "pip", east(35))  # past one move: a run, both actions spent
    assert enc.combatants["pip"].half_actions == 0
    refused(enc, "no_budget", take_action, "pip", "half", "attack")


def test_dodging_costs_an_action_and_caps_the_round():
    """'while dodging costs an action and will reduce your maximum movement'"""
    enc = runner()
    dodge(enc, "pip")
    assert enc.combatants["pip"].actions_taken == ["dodge"]
    assert movement_allowed(enc, "pip") == 30


def test_the_dodge_shift_is_outside_the_budget():
    """'the act of dodging will generally move a character from where they were standing'"""
    enc = runner()
    move(enc, "pip", east(30))
    dodge(enc, "pip", to=c(7, 1))
    assert enc.positions["pip"] == c(7, 1)
    assert enc.combatants["pip"].moved_ft == 30
    assert movement_allowed(enc, "pip") == 0


def test_a_dodge_shift_is_a_dive_to_a_touching_cell():
    enc = runner()
    refused(enc, "dodge_too_far", dodge, "pip", to=c(2))


def test_waypoints_count_the_full_length():
    """a path out and back counts both legs, not the distance between its ends"""
    enc = runner()
    out = move(enc, "pip", [c(0), c(6), c(0)])
    assert out.happened[0].data["distance"] == 60
    assert enc.combatants["pip"].actions_taken == ["move", "move"]
    assert enc.positions["pip"] == c(0)


@pytest.mark.parametrize(
    ("metric", "feet"),
    [
        (DiagonalMetric.ALTERNATING, 20),  # 5 + 10 + 5
        (DiagonalMetric.CHEBYSHEV, 15),
        (DiagonalMetric.MANHATTAN, 30),
    ],
)
def test_paths_use_the_world_grid_metric(metric, feet):
    enc = runner()
    enc.grid.metric = metric
    out = move(enc, "pip", [c(0, 0), c(3, 3)])
    assert out.happened[0].data["distance"] == feet


def test_path_may_omit_the_start_cell():
    enc = runner()
    move(enc, "pip", [c(2), c(4)])
    assert enc.combatants["pip"].moved_ft == 20


def test_only_on_his_turn():
    enc = runner()
    refused(enc, "not_your_turn", move, "ox", [c(0, 8)])


def test_the_budget_resets_next_round():
    enc = runner()
    move(enc, "pip", east(90))
    roller = ScriptedRoller()
    next_turn(enc, roller)  # ox
    next_turn(enc, roller)  # round 2: pip
    assert enc.active == "pip" and movement_allowed(enc, "pip") == 90


def test_outside_combat_movement_is_free():
    enc = world(pony("pip", move=30), at={"pip": (0, 0)})
    assert movement_allowed(enc, "pip") == math.inf
    move(enc, "pip", east(500))
    assert enc.positions["pip"] == c(100)


def test_a_zero_length_move_spends_nothing():
    enc = runner()
    move(enc, "pip", [c(0)])
    assert enc.combatants["pip"].half_actions == 2


def test_foe_rules_refuse_a_spycraft_world():
    enc = runner()
    enc.options.system = "spycraft"
    refused(enc, "wrong_system", move, "pip", east(5))


def test_bad_cells_are_data_errors():
    enc = runner()
    with pytest.raises(RuleError):
        move(enc, "pip", [])
    assert isinstance(Cell.model_validate({"x": 1, "y": 2}), Cell)


# -- the budget by pace (the dashboard, the VTT's ruler and Roll20's whisper read it) ------------


def paces(b):
    return (b.left, b.walk, b.run, b.sneak, b.turn)


def test_budget_at_the_start_of_his_turn_walks_1x_and_runs_3x():
    from vttbridge.systems.foe.rules.movement import budget

    enc = runner(25)
    b = budget(enc, "pip")
    assert (b.speed, b.moved) == (25, 0)
    assert paces(b) == (75, 25, 75, None, True)


def test_budget_counts_what_he_moved_within_and_past_the_first_action():
    from vttbridge.systems.foe.rules.movement import budget

    enc = runner(25)
    move(enc, "pip", east(10))
    assert paces(budget(enc, "pip")) == (65, 15, 65, None, True)
    move(enc, "pip", east(20, start=(2, 0)))  # 30 ft in all: the turn is a run now
    b = budget(enc, "pip")
    assert (b.moved, *paces(b)) == (30, 45, 0, 45, None, True)
    assert b.left == movement_allowed(enc, "pip")


def test_budget_after_another_action_has_no_run():
    from vttbridge.systems.foe.rules.movement import budget

    enc = runner(25)
    take_action(enc, "pip", "half", "shoot")
    assert paces(budget(enc, "pip")) == (25, 25, None, None, True)
    move(enc, "pip", east(25))
    assert paces(budget(enc, "pip")) == (0, 0, None, None, True)


def test_budget_while_sneaking_is_the_sneak_movement_left():
    from vttbridge.systems.foe.rules.movement import budget
    from vttbridge.systems.foe.rules.sneaking import sneak

    enc = world(pony("shade", move=30, sneak_skill=60, agility=6), pony("watch"),
                at={"shade": (0, 0), "watch": (10, 0)})  # fmt: skip
    fight(enc, ["shade", "watch"])
    sneak(enc, "shade", ScriptedRoller([1, 99]), enemies=["watch"])
    assert paces(budget(enc, "shade")) == (15, None, None, 15, True)
    move(enc, "shade", east(10))
    b = budget(enc, "shade")
    assert (b.moved, *paces(b)) == (10, 5, None, None, 5, True)


def test_budget_out_of_turn_keeps_his_figures_and_says_not_now():
    from vttbridge.systems.foe.rules.movement import budget

    enc = runner(25)
    b = budget(enc, "ox")
    assert b.turn is False and b.left == 75  # ox: the default move, 25 ft
    next_turn(enc, ScriptedRoller())
    assert budget(enc, "pip").turn is False and budget(enc, "ox").turn is True


def test_no_budget_outside_the_fight():
    from vttbridge.systems.foe.rules.movement import budget

    enc = world(pony("pip", move=25), at={"pip": (0, 0)})
    assert budget(enc, "pip") is None
