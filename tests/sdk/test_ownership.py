"""Who owns which value: the sheet's stats follow the sheet; the rules' (action dice, stress,
wound points, conditions) stay what the rules made them until the GM changes them on the sheet,
and every change the rules make is written back (UpdateStats, UpdateConditions)."""

from __future__ import annotations

from typing import Any

from vttbridge.rules.geometry import Cell
from vttbridge.sdk.effects import PostChat, UpdateConditions, UpdateStats
from vttbridge.sdk.events import (
    ActorData,
    ActorUpdated,
    DamageDealt,
    SceneData,
    SceneSnapshot,
    TokenData,
    TokenUpdated,
)
from vttbridge.sdk.runtime import WorldRuntime
from vttbridge.sdk.testing import WorldHarness

KEVIN = {"initiative": 2, "reflex": 4, "action_dice": 2, "bab": 3}


async def standoff_world(**kev: Any) -> WorldHarness:
    """Kevin (action dice 2, on his actor's sheet) and Gary; Gary attacks, Kevin stands off."""
    w = WorldHarness(dice=[20, 10])
    await w.__aenter__()
    await w.send(snapshot(kevin={**KEVIN, **kev}))
    await w.gm_says("!init")  # Kevin 22, Gary 10
    await w.chat("!next", token="kev")
    await w.chat("!attack kev", token="gary")  # Gary attacks Kevin: stand off?
    w.dice(12)  # Reflex 12 + 4 = 16 vs DC 11
    await w.answer("stand_off")
    assert w.encounter.characters["kev"].action_dice == 1
    return w


def snapshot(
    kevin: dict[str, Any] | None = None, gary_cell: tuple[int, int] = (4, 0), **tok: Any
) -> SceneSnapshot:
    """The scene as the VTT sends it: Kevin linked to his actor (the sheet), Gary unlinked
    (his stats are his own)."""
    return SceneSnapshot(
        scene=SceneData(id="s1"),
        actors=[ActorData(id="a-kev", name="Kevin", stats=kevin if kevin is not None else KEVIN)],
        tokens=[
            TokenData(id="kev", name="Kevin", actor="a-kev", cell=Cell(x=0, y=0), owners=["pk"]),
            TokenData(
                id="gary",
                name="Gary",
                cell=Cell(x=gary_cell[0], y=gary_cell[1]),
                owners=["pg"],
                stats={"bab": 1, "reflex": 1, **tok},
            ),
        ],
    )


def stats_written(effects: list[Any], token: str = "kev") -> list[dict[str, Any]]:
    return [e.stats for e in effects if isinstance(e, UpdateStats) and e.token == token]


async def test_the_spent_action_die_is_written_back_once() -> None:
    w = await standoff_world()
    try:
        assert stats_written(w.effects) == [{"action_dice": 1}]
        assert w.world.sheet_writes["kev"]["action_dice"].model_dump() == {
            "seen": 2,
            "sent": [1],
        }
    finally:
        await w.__aexit__()


async def test_a_resent_snapshot_keeps_the_spend_until_the_sheet_shows_it() -> None:
    w = await standoff_world()
    try:
        out = await w.send(snapshot())  # the write has not landed: the sheet still says 2
        assert w.encounter.characters["kev"].action_dice == 1
        assert stats_written(out) == [] and not w.of(PostChat, out)
        out = await w.send(snapshot(kevin={**KEVIN, "action_dice": 1}))  # now it has
        assert w.encounter.characters["kev"].action_dice == 1
        assert "kev" not in w.world.sheet_writes and stats_written(out) == []
        out = await w.send(snapshot(kevin={**KEVIN, "action_dice": 1}))
        assert stats_written(out) == []
    finally:
        await w.__aexit__()


async def test_a_sheet_edit_of_another_stat_keeps_it() -> None:
    w = await standoff_world()
    try:
        out = await w.send(ActorUpdated(actor="a-kev", stats={**KEVIN, "reflex": 6}))
        ch = w.encounter.characters["kev"]
        assert (ch.reflex, ch.action_dice) == (6, 1)  # the sheet's stat follows, the rules' stays
        assert stats_written(out) == []
    finally:
        await w.__aexit__()


async def test_the_gm_who_sets_action_dice_on_the_sheet_is_followed_and_told() -> None:
    w = await standoff_world()
    try:
        out = await w.send(ActorUpdated(actor="a-kev", stats={"action_dice": 3}))
        assert w.encounter.characters["kev"].action_dice == 3
        assert w.said("Kevin's action dice set to 3 on the sheet; the rules follow.", out)
        assert w.of(PostChat, out)[0].whisper_to == "gm"
        assert "kev" not in w.world.sheet_writes and stats_written(out) == []
        # and in a snapshot, while a write is pending: a value it never had is the GM's
        await w.gm_says("!stats kev action_dice=2")
        out = await w.send(snapshot(kevin={**KEVIN, "action_dice": 5}))
        assert w.encounter.characters["kev"].action_dice == 5
        assert w.said("Kevin's action dice set to 5 on the sheet", out)
    finally:
        await w.__aexit__()


async def test_the_same_value_on_the_sheet_is_adopted_without_a_word() -> None:
    w = await standoff_world()
    try:
        out = await w.send(ActorUpdated(actor="a-kev", stats={"action_dice": 1}))
        assert w.encounter.characters["kev"].action_dice == 1
        assert not w.of(PostChat, out) and "kev" not in w.world.sheet_writes
    finally:
        await w.__aexit__()


async def test_stats_command_sets_a_rules_owned_value_and_writes_it_back() -> None:
    w = await standoff_world()
    try:
        out = await w.gm_says("!stats kev stress=4 wounds=7")
        assert stats_written(out) == [{"stress": 4, "wounds": 7}]
        out = await w.send(snapshot())  # neither on the sheet yet
        ch = w.encounter.characters["kev"]
        assert (ch.stress, ch.wounds, ch.action_dice) == (4, 7, 1)
    finally:
        await w.__aexit__()


async def test_an_unlinked_tokens_own_stats_are_its_sheet() -> None:
    w = await standoff_world()
    try:
        await w.gm_says("!stats gary stress=2")
        out = await w.send(TokenUpdated(token="gary", stats={"reflex": 3}))
        assert w.encounter.characters["gary"].stress == 2 and stats_written(out, "gary") == []
        out = await w.send(TokenUpdated(token="gary", stats={"stress": 6}))
        assert w.encounter.characters["gary"].stress == 6
        assert w.said("Gary's stress set to 6 on the sheet", out)
    finally:
        await w.__aexit__()


async def test_conditions_go_on_and_come_off_the_tokens() -> None:
    w = await standoff_world()
    try:
        shown = [e for e in w.effects if isinstance(e, UpdateConditions)]
        assert {(e.token, tuple(e.conditions)) for e in shown} == {
            ("kev", ("standoff", "vulnerable")),
            ("gary", ("standoff", "vulnerable")),
        }
        out = await w.send(snapshot())  # nothing new to show
        assert not w.of(UpdateConditions, out)
        out = await w.send(DamageDealt(token="gary", amount=3))  # damage ends the stand off
        off = {e.token: (e.conditions, e.removed) for e in w.of(UpdateConditions, out)}
        assert off == {
            "kev": ([], ["standoff", "vulnerable"]),
            "gary": ([], ["standoff", "vulnerable"]),
        }
        assert w.world.shown == {}
    finally:
        await w.__aexit__()


async def test_a_restored_world_replays_to_the_same_state_and_effects() -> None:
    w = await standoff_world()
    try:
        data = w.runtime.snapshot()
        events = [snapshot(), ActorUpdated(actor="a-kev", stats={"action_dice": 3})]
        first = [await w.send(e) for e in events]
        rt = WorldRuntime.restore("test-world", data, clock=w.clock, reload_interval=None)
        async with rt:
            again = [await rt.submit(e) for e in events]
            assert again == first
            assert rt.world.model_dump() == w.world.model_dump()
    finally:
        await w.__aexit__()


async def test_a_foe_move_writes_nothing_back() -> None:
    async with WorldHarness(system="foe", dice=[90, 10]) as w:
        await w.token("a", "A", (0, 0), disposition=1)
        await w.token("b", "B", (9, 0), disposition=-1)
        await w.gm_says("!init")
        who = w.encounter.active
        out = await w.move(who, (1, 0))
        assert not w.of(UpdateStats, out) and not w.of(UpdateConditions, out)


async def test_what_a_script_changes_on_a_character_is_written_back() -> None:
    from vttbridge.sdk import ChatCommand, Context, Script

    script = Script("strain")

    @script.command("strain")
    def strain(cmd: ChatCommand, ctx: Context) -> None:
        ch = ctx.character(cmd.argv[0])
        ch.stress += 2
        ch.conditions.add("shaken")

    async with WorldHarness(script) as w:
        await w.send(snapshot())
        out = await w.gm_says("!strain kev")
        assert stats_written(out) == [{"stress": 2}]
        [shown] = w.of(UpdateConditions, out)
        assert (shown.token, shown.conditions, shown.removed) == ("kev", ["shaken"], [])
        out = await w.gm_says("!strain kev")
        assert stats_written(out) == [{"stress": 4}] and not w.of(UpdateConditions, out)
