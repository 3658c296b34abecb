"""FoE initiative: the ⚙ per-system formula plus additive bonuses (Quick Witted, Dash...)."""

from __future__ import annotations

from vttbridge.rules.dice import ScriptedRoller
from vttbridge.rules.encounter import start_combat
from vttbridge.rules.options import Options
from vttbridge.systems.foe.rules.initiative import initiative_expression, initiative_modifier

from tests.systems.foe.helpers import pony, world


def test_bonuses_add_to_the_d100_roll():
    """'Bonuses (Quick Witted, Dash, etc.)': additive to the roll."""
    ch = pony("dash", initiative=3, initiative_bonus=10)
    assert initiative_modifier(ch) == 13
    assert initiative_expression(Options(system="foe"), ch) == "1d100+13"


def test_penalties_subtract_and_no_bonus_rolls_bare():
    assert initiative_expression(Options(system="foe"), pony("a", initiative_bonus=-5)) == (
        "1d100-5"
    )
    assert initiative_expression(Options(system="foe"), pony("b")) == "1d100"


def test_formula_is_a_world_option():
    opts = Options(system="foe", foe_initiative="2d10")
    assert initiative_expression(opts, pony("a", initiative_bonus=4)) == "2d10+4"


def test_combat_start_rolls_the_foe_formula_with_all_bonuses():
    enc = world(pony("quick", initiative_bonus=20), pony("slow", initiative=1))
    out = start_combat(enc, ["quick", "slow"], ScriptedRoller([30, 45]))
    assert enc.combatants["quick"].ic == 50  # 30 + 20
    assert enc.combatants["slow"].ic == 46  # 45 + 1
    assert [r.expression for r in out.rolls] == ["1d100+20", "1d100+1"]
    assert enc.active == "quick"
    assert enc.combatants["quick"].half_actions == 2  # FoE: two actions a round
