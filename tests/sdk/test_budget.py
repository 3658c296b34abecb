"""The budget built-in: each token's movement left this turn, sent to the VTT when it changes
(at turn changes, after moves and actions), cleared when the fight ends, kept in the world's
state so a replay sends exactly the same."""

from vttbridge.rules.geometry import DiagonalMetric
from vttbridge.sdk.effects import MovementBudget
from vttbridge.sdk.events import Player, SceneData, SceneSnapshot
from vttbridge.sdk.runtime import WorldRuntime
from vttbridge.sdk.testing import WorldHarness


async def fight(w: WorldHarness) -> list:
    await w.send(
        SceneSnapshot(
            scene=SceneData(id="s"), players=[Player(id="gm", role="gm"), Player(id="pm")]
        )
    )
    await w.token("mint", "Mint", (0, 0), owner="pm", disposition=1, move=25, agility=8)
    await w.token("raider", "Raider", (10, 0), disposition=-1, move=30)
    w.dice(90, 10)  # d100 initiative: Mint 90, the raider 10
    out = await w.gm_says("!init")
    assert w.encounter.active == "mint"
    return out


def budgets(effects) -> list[MovementBudget]:
    return [e for e in effects if isinstance(e, MovementBudget)]


def figures(e: MovementBudget) -> tuple:
    b = e.budget
    return None if b is None else (b.left, b.walk, b.run, b.sneak, b.turn)


async def test_the_first_turn_sends_the_active_tokens_budget():
    async with WorldHarness(system="foe") as w:
        out = await fight(w)
        [b] = budgets(out)
        assert (b.token, b.cause, figures(b)) == ("mint", "turn", (75, 25, 75, None, True))
        assert b.metric == DiagonalMetric.ALTERNATING


async def test_a_drag_sends_what_is_left_and_names_the_mover():
    async with WorldHarness(system="foe") as w:
        await fight(w)
        out = await w.move("mint", (2, 0), player="pm")
        [b] = budgets(out)
        assert (b.token, b.cause, b.player) == ("mint", "move", "pm")
        assert figures(b) == (65, 15, 65, None, True)
        # a refused move changes nothing and sends nothing
        out = await w.move("mint", (30, 0), player="pm")
        assert w.said("Move refused", out, whisper_to="pm") and budgets(out) == []


async def test_an_action_sends_the_budget_it_halved():
    async with WorldHarness(system="foe") as w:
        await fight(w)
        w.dice(1, 99)
        out = await w.chat("!sneak --enemies raider", token="mint")
        [b] = budgets(out)
        assert (b.cause, figures(b)) == ("action", (10, None, None, 10, True))
        # a command that spends nothing sends nothing
        out = await w.chat("!jump", token="mint")
        assert budgets(out) == []


async def test_a_turn_change_sends_both_tokens_and_the_end_clears_them():
    async with WorldHarness(system="foe") as w:
        await fight(w)
        out = await w.gm_says("!next")
        got = {b.token: (b.cause, figures(b)) for b in budgets(out)}
        assert got == {
            "raider": ("turn", (90, 30, 90, None, True)),
            "mint": ("turn", (75, 25, 75, None, False)),  # not his turn: a drag is refused
        }
        out = await w.gm_says("!endcombat")
        assert {b.token: b.budget for b in budgets(out)} == {"raider": None, "mint": None}
        assert w.world.store["budget"]["sent"] == {}
        out = await w.move("mint", (3, 0), player="pm")
        assert budgets(out) == []


async def test_nothing_is_sent_outside_foe_or_outside_a_fight():
    async with WorldHarness(system="foe") as w:
        await w.token("mint", "Mint", (0, 0), owner="pm", move=25)
        assert budgets(await w.move("mint", (3, 0), player="pm")) == []
    async with WorldHarness(system="spycraft") as w:
        await w.token("kev", "Kevin", (0, 0), owner="pk", initiative=2)
        await w.token("thug", "Thug", (9, 9))
        w.dice(20, 5)
        await w.gm_says("!init")
        assert budgets(await w.move("kev", (3, 0), player="pk")) == []
        assert "budget" not in w.world.store


async def test_a_replay_sends_the_same_budgets():
    async with WorldHarness(system="foe") as w:
        await fight(w)
        await w.move("mint", (2, 0), player="pm")
        await w.gm_says("!next")
        sent = [e for _, effs in w.journal for e in budgets(effs)]
        events = [e for e, _ in w.journal]
        store = dict(w.world.store["budget"])
    replay = WorldRuntime("replay", options=w.options, reload_interval=None)
    from vttbridge.rules.dice import ScriptedRoller

    replay.roller = ScriptedRoller([90, 10])
    await replay.start()
    try:
        again = []
        for e in events:
            again.extend(budgets(await replay.submit(e)))
        assert again == sent
        assert replay.world.store["budget"] == store
    finally:
        await replay.stop()
