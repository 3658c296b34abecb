"""A raider ambush with a surprise round, played through examples/foe_ambush.py."""

from pathlib import Path

from vttbridge.sdk.testing import WorldHarness
from vttbridge.systems.foe.rules.state import foe

SCRIPT = Path(__file__).parents[2] / "examples" / "foe_ambush.py"


async def road(w: WorldHarness) -> None:
    await w.token("mint", "Mint", (2, 1), owner="p-mint", disposition="friendly", move=25)
    await w.token(
        "dash", "Dash", (1, 1), owner="p-dash", disposition="friendly", move=30, quick_witted=True
    )
    await w.token("raider", "Raider", (10, 4), disposition="hostile", hidden=True, move=25)


async def test_walking_into_the_kill_zone_springs_a_surprise_round():
    async with WorldHarness(str(SCRIPT), system="foe") as w:
        await road(w)
        out = await w.move("mint", (8, 1))  # into the kill zone: the GM is asked first
        ask = w.asks(out)
        assert len(ask) == 1 and ask[0].player == "gm" and ask[0].options == ["fire", "wait"]
        assert not w.encounter.in_combat

        w.dice(60, 40)  # surprise-round initiative (d100): the raider 60, Dash (Quick Witted) 40
        out = await w.answer("fire")
        assert w.said("Surprise!", out)
        assert not w.world.tokens["raider"].hidden
        enc = w.encounter
        assert foe(enc).surprise_round and foe(enc).surprised == ["mint"]
        assert enc.actions_per_turn == 1
        assert enc.active == "raider"
        assert set(enc.combatants) == {"raider", "dash"}

        # Mint is surprised: her move in the VTT is refused and moved back (triggers nothing).
        out = await w.move("mint", (9, 1), player="p-mint")
        assert w.moves(out)[0].cell.x == 8
        assert w.said("surprised", out, whisper_to="gm")
        assert w.world.tokens["mint"].cell.x == 8

        # The raider has one action: a move of 25 ft, not a run.
        out = await w.move("raider", (10, 10))  # 30 ft: too far in the surprise round
        assert w.said("move refused", out, whisper_to="gm")
        assert w.world.tokens["raider"].cell.y == 4
        out = await w.move("raider", (10, 2))
        assert not w.moves(out)  # accepted: nothing to correct
        await w.gm_says("!next")  # Dash's single action
        # Round 2: everyone re-rolls (⚙ surprise_after reroll), two actions each.
        w.dice(10, 90, 50)
        out = await w.gm_says("!next")
        assert w.said("surprise round is over", out)
        assert not foe(enc).surprise_round and enc.turn_budget == 2
        assert set(enc.combatants) == {"raider", "dash", "mint"}
        assert enc.order()[0] == "dash"


async def test_gm_may_hold_fire_and_the_ambush_waits():
    async with WorldHarness(str(SCRIPT), system="foe") as w:
        await road(w)
        await w.move("mint", (8, 1))
        out = await w.answer("wait")
        assert not w.encounter.in_combat
        assert w.world.tokens["raider"].hidden
        assert not w.asks(out)
        # Leaving and walking back in asks again (the trap is not sprung yet).
        await w.move("mint", (2, 5))
        out = await w.move("mint", (9, 1))
        assert w.asks(out)
