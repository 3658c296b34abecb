"""Core built-ins: combat flow, the VTT's combat tracker, stats, options, help."""

from vttbridge.rules.geometry import Cell, DiagonalMetric
from vttbridge.sdk.effects import AdvanceTurn, SetInitiative
from vttbridge.sdk.events import (
    CombatantRemoved,
    CombatData,
    CombatEnded,
    CombatStarted,
    InitiativeChanged,
    SceneData,
    SceneSnapshot,
    TokenData,
    TurnStarted,
)
from vttbridge.sdk.testing import WorldHarness
from vttbridge.systems.foe.rules.options import FoEOptions


async def three(w: WorldHarness) -> None:
    await w.token("a", "Ann", (0, 0), owner="pa", initiative=2)
    await w.token("b", "Bob", (1, 0), owner="pb")
    await w.token("c", "Cat", (2, 0), hidden=True)


async def test_init_all_visible_then_join_and_end():
    async with WorldHarness(dice=[10, 15]) as w:
        await three(w)
        out = await w.gm_says("!init")
        assert w.initiative(out) == {"a": 12, "b": 15}  # the hidden token stays out
        assert w.turns(out) == [(1, "b")]
        w.dice(1)
        out = await w.gm_says("!init Cat")  # mid-combat: Cat joins
        assert "c" in w.encounter.combatants and w.initiative(out) == {"c": 1}
        out = await w.gm_says("!end")
        assert w.turns(out) == [(0, None)] and not w.encounter.in_combat
        assert w.said("There is no combat", await w.gm_says("!end"), whisper_to="gm")


async def test_next_is_for_the_gm_or_the_active_player():
    async with WorldHarness(dice=[10, 15]) as w:
        await three(w)
        await w.gm_says("!init Ann Bob")
        out = await w.chat("!next", token="a")
        assert w.said("Only the GM or the player whose turn it is", out, whisper_to="pa")
        out = await w.chat("!next", token="b")
        assert w.turns(out) == [(1, "a")]


async def test_delay_and_rule_errors_are_whispered():
    async with WorldHarness(dice=[10, 15]) as w:
        await three(w)
        await w.gm_says("!init Ann Bob")
        out = await w.chat("!delay 3", token="b")
        assert w.initiative(out) == {"b": 12}
        out = await w.chat("!delay x", token="a")
        assert w.said("Steps must be a whole number", out, whisper_to="pa")
        out = await w.chat("!delay 1", token="b")  # not his turn now
        assert w.said("not Bob's turn", out, whisper_to="pb")


async def test_stats_set_show_and_refuse():
    async with WorldHarness() as w:
        await three(w)
        out = await w.chat("!stats reflex=5 kind=standard", token="a")
        assert w.said("Ann: reflex=5, kind=standard", out, whisper_to="pa")
        assert w.encounter.characters["a"].reflex == 5
        out = await w.chat("!stats reflex=lots", token="a")
        assert w.said("reflex", out, whisper_to="pa") and w.encounter.characters["a"].reflex == 5
        out = await w.chat("!stats charisma=3", token="a")
        assert w.said("Unknown stat", out, whisper_to="pa")
        out = await w.chat("!stats Bob reflex=1", token="a")
        assert w.said("You do not control Bob", out, whisper_to="pa")
        out = await w.gm_says("!stats Bob bab=3")
        assert w.encounter.characters["b"].bab == 3
        out = await w.chat("!stats", token="a")
        assert w.said("reflex=5", out, whisper_to="pa")


async def test_set_options_and_settings():
    async with WorldHarness() as w:
        await w.gm_says("!set diagonal_metric chebyshev")
        assert w.encounter.options.diagonal_metric == DiagonalMetric.CHEBYSHEV
        assert w.encounter.grid.metric == DiagonalMetric.CHEBYSHEV
        await w.gm_says("!set revert-over-budget off")
        assert w.world.settings.revert_over_budget is False
        out = await w.gm_says("!set nonsense 1")
        assert w.said("No option 'nonsense'", out, whisper_to="gm")
        out = await w.gm_says("!set")
        assert w.said("prompt_timeout = 60.0", out, whisper_to="gm")
        out = await w.chat("!set tie_break gm", player="p")
        assert w.said("Only the GM", out, whisper_to="p")
        # values a rule could not use are refused, the option kept
        out = await w.gm_says("!set free_actions_per_turn -1")
        assert w.said("greater than or equal to 0", out, whisper_to="gm")
        assert w.encounter.options.free_actions_per_turn is None
        # another system's options are not this world's
        out = await w.gm_says("!set mfd_ladder [0.5]")
        assert w.said("No option 'mfd_ladder'", out, whisper_to="gm")
    async with WorldHarness(system="foe") as w:
        out = await w.gm_says("!set")
        assert w.said("mfd_ladder = [0.1, 0.25", out, whisper_to="gm")
        assert not w.said("standoff_tie", out)
        out = await w.gm_says("!set mfd_ladder []")
        assert w.said("at least 1 item", out, whisper_to="gm")
        out = await w.gm_says("!set mfd_ladder [0, 1]")
        assert w.said("greater than 0", out, whisper_to="gm")
        assert w.encounter.options.of(FoEOptions).mfd_ladder[0] == 0.1
        await w.gm_says("!set mfd_ladder [0.5, 1, 2]")
        assert w.encounter.options.of(FoEOptions).mfd_ladder == [0.5, 1, 2]
        out = await w.gm_says("!set mfd_ladder")
        assert w.said("mfd_ladder = [0.5, 1.0, 2.0]", out, whisper_to="gm")


async def test_help_lists_the_worlds_system_only():
    async with WorldHarness(system="foe") as w:
        out = await w.chat("!help", player="p")
        assert w.said("!charge", out) and not w.said("!ready", out) and not w.said("!init", out)
        out = await w.chat("!help ready", player="p")
        assert w.said("!ready <action> --when", out)
        out = await w.chat("!ready x --when y", player="p")
        assert w.said("Spycraft 2.0 command", out, whisper_to="p")


async def test_vtt_combat_tracker_is_followed_and_echoes_ignored():
    async with WorldHarness(dice=[7]) as w:
        await three(w)
        out = await w.send(CombatStarted(tokens=["a", "b"], initiative={"b": 20}))
        assert w.initiative(out) == {"a": 9, "b": 20} and w.encounter.active == "b"
        # the VTT echoes our own AdvanceTurn / SetInitiative: nothing happens
        assert await w.send(TurnStarted(token="b", round=1)) == []
        assert await w.send(InitiativeChanged(token="b", ic=20)) == []
        out = await w.send(TurnStarted(token="a", round=1))  # the GM pressed "next" in the VTT
        assert w.encounter.active == "a" and any(isinstance(e, AdvanceTurn) for e in out)
        out = await w.send(InitiativeChanged(token="a", ic=3))  # the GM typed a new IC
        assert w.encounter.combatants["a"].ic == 3
        assert [e for e in out if isinstance(e, SetInitiative)] == [SetInitiative(token="a", ic=3)]
        await w.send(CombatEnded())
        assert not w.encounter.in_combat


async def test_vtt_tracker_removals_and_additions_change_the_turn_order():
    async with WorldHarness() as w:
        await three(w)
        await w.send(CombatStarted(tokens=["a", "b"], initiative={"a": 12, "b": 20}))
        # the GM deletes Ann from the VTT's tracker: she leaves the order, on record
        out = await w.send(CombatantRemoved(token="a"))
        assert w.said("Ann leaves the turn order", out)
        assert w.encounter.order() == ["b"] and w.encounter.combatants["a"].out
        assert await w.send(CombatantRemoved(token="a")) == []  # already out
        assert await w.send(CombatantRemoved(token="c")) == []  # never in
        # the GM adds Cat, then Ann back, with their initiatives: both join
        out = await w.send(InitiativeChanged(token="c", ic=15))
        assert w.said("joins at IC 15", out)
        await w.send(InitiativeChanged(token="a", ic=9))
        assert w.encounter.order() == ["b", "c", "a"]
        await w.send(CombatEnded())
        # outside a fight a tracker edit starts nothing
        assert await w.send(InitiativeChanged(token="c", ic=4)) == []
        assert not w.encounter.combatants


async def test_snapshot_reconciles_tokens_and_adopts_a_running_combat():
    async with WorldHarness() as w:
        await w.token("gone", "Gone")
        snap = SceneSnapshot(
            scene=SceneData(id="s1", name="Warehouse"),
            tokens=[
                TokenData(id="k", name="Kevin", cell=Cell(x=10, y=5), owners=["pk"]),
                TokenData(id="t", name="Thug", cell=Cell(x=14, y=7), disposition=-1),
            ],
            combat=CombatData(round=3, active="t", initiative={"k": 22, "t": 14}),
            regions={"vault": [Cell(x=1, y=1)]},
        )
        out = await w.send(snap)
        assert set(w.world.tokens) == {"k", "t"}
        assert w.world.regions["vault"].source == "vtt"
        enc = w.encounter
        assert (enc.round, enc.active, enc.count) == (3, "t", 14)
        assert enc.combatants["k"].acted and not enc.combatants["t"].acted
        assert w.said("Combat adopted from the VTT", out)
        # a second snapshot (a reconnect) leaves the running rules combat alone
        await w.send(snap.model_copy(update={"combat": CombatData(round=1, active="k")}))
        assert (enc.round, enc.active) == (3, "t")
