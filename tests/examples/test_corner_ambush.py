"""Kevin's corner example (docs/rules.md "Ready"), played through examples/corner_ambush.py."""

from pathlib import Path

import pytest
from vttbridge.sdk.testing import WorldHarness
from vttbridge.systems.spycraft.rules.state import spycraft

SCRIPT = Path(__file__).parents[2] / "examples" / "corner_ambush.py"


@pytest.fixture
async def world():
    # Kevin rolls 20 + 2 = IC 22; Gary (his ally) 14; a thug 10.
    async with WorldHarness(str(SCRIPT), dice=[20, 14, 10]) as w:
        await w.token(
            "kevin",
            "Kevin",
            (4, 5),
            owner="p-kevin",
            disposition="friendly",
            reflex=4,
            initiative=2,
        )
        await w.token("gary", "Gary", (14, 5), owner="p-gary", disposition="friendly")
        await w.token("thug", "Thug", (14, 8), disposition="hostile")
        await w.gm_says("!init")
        yield w


async def test_ally_rounds_the_corner_kevin_holds_back(world):
    w = world
    assert w.encounter.active == "kevin" and w.encounter.combatants["kevin"].ic == 22
    out = await w.chat("!ready Standard Attack with pistol --when corner", token="kevin")
    assert w.said("Kevin readies: Standard Attack with pistol", out)
    assert w.encounter.active == "gary"  # the Ready ended his turn

    out = await w.move("gary", (11, 5))  # round the corner at IC 14
    assert w.said("Gary comes round the corner", out, whisper_to="gm")
    ask = w.asks(out)
    assert len(ask) == 1 and ask[0].player == "p-kevin" and ask[0].options == ["fire", "cancel"]
    assert w.initiative(out) == {"kevin": 14}

    w.dice(18)  # Reflex 18 + 4 = 22: he holds his fire
    out = await w.answer("cancel")
    assert w.said("holds back (Reflex 22 vs DC 15)", out)
    assert w.encounter.combatants["kevin"].ic == 14
    assert "kevin" not in spycraft(w.encounter).readies
    assert not w.world.watches

    await w.chat("!next", token="gary")  # the thug's turn, IC 10
    out = await w.move("thug", (10, 4))  # a second person round the corner: nothing
    assert not w.asks(out)
    assert not w.prompts


async def test_nobody_comes_ready_carries_over_and_expires_at_his_ic(world):
    w = world
    await w.chat("!ready shoot --when corner", token="kevin")
    await w.chat("!next", token="gary")
    out = await w.gm_says("!next")  # end of round 1; round 2 begins at Kevin's IC 22
    assert w.said("Kevin's Ready was not triggered: his IC stays 22", out)
    assert w.said("Ready expires", out)  # the count reached his IC: he acts normally
    assert w.turns(out) == [(2, "kevin")]
    assert not w.world.watches


async def test_carried_over_ready_fires_before_his_ic_next_round():
    # A quick thug (IC 25) acts before Kevin (IC 22) in every round.
    async with WorldHarness(str(SCRIPT), dice=[20, 14, 20]) as w:
        await w.token(
            "kevin",
            "Kevin",
            (4, 5),
            owner="p-kevin",
            disposition="friendly",
            reflex=4,
            initiative=2,
        )
        await w.token("gary", "Gary", (14, 5), owner="p-gary", disposition="friendly")
        await w.token("thug", "Thug", (14, 8), disposition="hostile", initiative=5)
        await w.gm_says("!init")
        await w.gm_says("!next")  # the thug does nothing
        await w.chat("!ready shoot --when corner", token="kevin")
        out = await w.chat("!next", token="gary")  # nobody came: round 2, the thug at 25
        assert w.turns(out) == [(2, "thug")]
        assert spycraft(w.encounter).readies["kevin"].carried_over
        out = await w.move("thug", (11, 5))
        assert w.asks(out)[0].player == "p-kevin"
        assert w.encounter.combatants["kevin"].ic == 22  # 25 is not lower: IC unchanged
        out = await w.answer("fire")
        assert w.said("takes his readied action", out)


async def test_hostile_condition_ignores_allies(world):
    w = world
    await w.chat("!ready shoot --when hostile_at_corner", token="kevin")
    out = await w.move("gary", (11, 5))
    assert not w.asks(out)  # an ally: the named condition does not hold
    await w.chat("!next", token="gary")
    out = await w.move("thug", (10, 5))
    assert w.asks(out)[0].player == "p-kevin"
    assert w.initiative(out) == {"kevin": 10}
    out = await w.answer("fire")
    assert w.said("takes his readied action", out)


async def test_unanswered_prompt_fires_by_default(world):
    w = world
    await w.chat("!ready shoot --when corner", token="kevin")
    await w.move("gary", (11, 5))
    out = await w.advance(60)
    assert w.said("No answer to p1", out)
    assert w.said("takes his readied action", out)
    assert "kevin" not in spycraft(w.encounter).readies


async def test_hostile_condition_fires_when_the_thug_runs_through_the_corner(world):
    w = world
    await w.chat("!ready shoot --when hostile_at_corner", token="kevin")
    await w.chat("!next", token="gary")
    out = await w.move("thug", (12, 5), (8, 5))  # through the corner, stopping beyond it
    (ask,) = w.asks(out)
    assert ask.player == "p-kevin"
    assert "(Thug moves to 8,5: a hostile token comes round the corner)" in ask.question
