"""The MFD ladder [assumed] and d100 roll-under checks and opposed rolls."""

from __future__ import annotations

import pytest
from vttbridge.rules.dice import ScriptedRoller
from vttbridge.systems.foe.rules.checks import Check, opposed, roll_check
from vttbridge.systems.foe.rules.mfd import easier, harder, penalised, rung, target
from vttbridge.systems.foe.rules.options import DEFAULT_MFD_LADDER


def test_default_ladder():
    assert DEFAULT_MFD_LADDER == [0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0]


@pytest.mark.parametrize(
    ("start", "steps", "expected"),
    [(1.0, 1, 0.75), (1.0, 2, 0.5), (1.0, 4, 0.1), (1.0, 9, 0.1), (3.0, 1, 2.0), (0.1, 1, 0.1)],
)
def test_one_step_harder_is_one_rung_down(start, steps, expected):
    assert harder(start, steps) == expected


def test_easier_moves_up_and_stops_at_the_top():
    assert easier(1.0) == 1.5
    assert easier(2.0, 5) == 3.0


def test_between_rungs_counts_as_the_nearest_harder_on_a_tie():
    assert rung(0.9) == rung(1.0)
    assert rung(0.625) == rung(0.5)  # exactly between 1/2 and 3/4: the harder


def test_a_custom_ladder():
    ladder = [0.5, 1.0, 2.0]
    assert harder(1.0, 1, ladder) == 0.5
    assert harder(2.0, 1, ladder) == 1.0


def test_field_mfd_as_steps_or_divisor():
    assert penalised(1.0, 2, "steps") == 0.5  # 1 -> 3/4 -> 1/2
    assert penalised(1.0, 3, "steps") == 0.25
    assert penalised(1.0, 3, "multiplier") == pytest.approx(1 / 3)


def test_target_is_skill_plus_modifiers_times_mfd_rounded_down():
    assert target(45, 0, 1.0) == 45
    assert target(45, 10, 0.5) == 27  # 55 x 1/2 = 27.5
    assert target(45, 0, 0.1) == 4
    assert target(10, -30) == 0


def test_roll_under_succeeds_on_the_target():
    check, roll = roll_check(ScriptedRoller([40]), 40)
    assert check.success and check.margin == 0 and roll.total == 40
    assert not roll_check(ScriptedRoller([41]), 40)[0].success


@pytest.mark.parametrize(
    ("a", "b", "winner"),
    [
        (Check(roll=10, target=50), Check(roll=60, target=50), "a"),  # only a succeeds
        (Check(roll=60, target=50), Check(roll=10, target=50), "b"),
        (Check(roll=10, target=50), Check(roll=30, target=60), "a"),  # margins 40 vs 30
        (Check(roll=40, target=50), Check(roll=10, target=60), "b"),  # 10 vs 50
        (Check(roll=20, target=50), Check(roll=30, target=60), "tie"),  # same margin
        (Check(roll=90, target=50), Check(roll=95, target=60), "tie"),  # both fail
    ],
)
def test_opposed_roll(a, b, winner):
    assert opposed(a, b) == winner
