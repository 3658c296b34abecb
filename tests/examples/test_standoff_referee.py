"""A stand off refereed by examples/standoff_referee.py: the NPC's decisions are the script's."""

from pathlib import Path

from vttbridge.sdk.testing import WorldHarness
from vttbridge.systems.spycraft.rules.state import spycraft

SCRIPT = Path(__file__).parents[2] / "examples" / "standoff_referee.py"


async def setup(w: WorldHarness) -> None:
    # Kevin (PC) IC 15, the thug boss (special NPC) IC 10; 10 ft apart.
    await w.token(
        "kevin",
        "Kevin",
        (0, 0),
        owner="p-kevin",
        disposition="friendly",
        reflex=2,
        bab=3,
        resolve=6,
        wisdom=14,
        action_dice=3,
    )
    await w.token(
        "boss",
        "Boss",
        (2, 0),
        disposition="hostile",
        reflex=3,
        bab=2,
        resolve=1,
        wisdom=7,
        action_dice=3,
    )
    await w.gm_says("!init")


async def test_npc_stands_off_then_cracks_and_surrenders():
    async with WorldHarness(str(SCRIPT), dice=[15, 10]) as w:
        await setup(w)
        w.dice(17)  # the boss's Reflex save: 17 + 3 = 20 vs DC 10 + 3
        out = await w.chat("!attack boss", token="kevin")
        assert w.said("(referee) Boss: stand off", out)
        assert w.said("must cancel the attack", out)
        so = spycraft(w.encounter).standoffs[0]
        assert so.active and so.sides == [["boss"], ["kevin"]]
        assert w.encounter.combatants["boss"].ic == 5  # IC - 5
        assert w.encounter.characters["boss"].action_dice == 2
        assert not w.prompts  # the script answered for the NPC

        await w.chat("!next", token="kevin")  # the boss's turn (IC 5): free actions only
        # Round 2 opens with the Resolve checks (side 0 first): the boss 3 + 1 loses to Kevin
        # 12 + 6; he takes 1d6 (6) + Kevin's Wisdom modifier 2 = 8 stress, past his Wisdom 7:
        # he cracks.
        w.dice(3, 12, 6)
        out = await w.gm_says("!next")
        assert w.said("Round 2 stress board", out)
        assert w.said("Boss cracks", out)
        assert w.said("(referee) Boss: surrender", out)
        assert "surrendered" in w.encounter.characters["boss"].conditions
        assert not so.active  # one side remains
        assert not w.prompts

        out = await w.chat("!standoff-status", token="kevin")
        assert w.said("No stand off in progress", out)


async def test_fanatic_chooses_the_strike_and_players_answer_their_own():
    async with WorldHarness(str(SCRIPT), dice=[15, 10]) as w:
        await setup(w)
        await w.gm_says("!fanatic boss")
        assert w.world.store["standoff_referee"]["fanatics"] == ["boss"]
        await w.chat("!next", token="kevin")
        # The boss attacks Kevin: Kevin's player is asked (not the script).
        out = await w.gm_says("!attack kevin", token="boss")
        ask = w.asks(out)
        assert len(ask) == 1 and ask[0].player == "p-kevin"
        w.dice(11)  # Kevin: 11 + 2 = 13 vs DC 12
        out = await w.answer("stand_off")
        assert w.said("Stand off so1", out)
        # Round 2: Kevin 3 + 6 = 9 loses to the boss 12 + 1 = 13; Kevin takes 6 - 2 = 4.
        w.dice(3, 12, 6)
        out = await w.gm_says("!next")
        assert w.said("Kevin takes 4 stress damage", out)
        # Round 3: Kevin wins 20 + 6 vs 1 + 1; the boss takes 6 + 2 = 8 and cracks; a
        # fanatic, he chooses the strike: Kevin's automatic hit ends the stand off.
        w.dice(20, 1, 6)
        await w.chat("!next", token="kevin")
        out = await w.gm_says("!next")
        assert w.said("(referee) Boss: be attacked", out)
        assert w.said("Kevin strikes Boss", out)
        assert not spycraft(w.encounter).standoffs[0].active
