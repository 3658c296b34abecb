"""Scene levels (floors): a token's level is part of its position. A Ready watching a region on
one level is not set off from another; a ``within`` range is on its anchor's level; the held
moves' watch set carries the levels; a move between levels costs the height it climbs."""

from vttbridge.rules.geometry import Cell
from vttbridge.sdk import Script
from vttbridge.sdk.effects import WatchMoves
from vttbridge.sdk.events import (
    Player,
    SceneData,
    SceneSnapshot,
    TokenData,
    TokenMoved,
)
from vttbridge.sdk.testing import WorldHarness

GROUND, UPSTAIRS = "lvlGround0000001", "lvlUpstairs00002"


def token(tid: str, name: str, at: tuple[int, int], level: str, **stats) -> TokenData:
    return TokenData(
        id=tid,
        name=name,
        cell=Cell(x=at[0], y=at[1]),
        owners=[f"p{tid}"],
        level=level,
        stats=stats,
    )


async def two_floors(system: str = "spycraft", **tokens) -> WorldHarness:
    """Kevin on the ground floor, Gary upstairs; the corner (cells 5,0-5,2) is drawn on the
    ground floor only."""
    w = WorldHarness(Script("none"), system=system, dice=[20, 10, 5, 90, 10])
    await w.__aenter__()
    await w.send(
        SceneSnapshot(
            scene=SceneData(id="house"),
            players=[Player(id="gm", role="gm"), Player(id="pkev"), Player(id="pgary")],
            tokens=list(tokens.values()),
            regions={"corner": [Cell(x=5, y=y) for y in range(3)]},
            region_levels={"corner": [GROUND]},
        )
    )
    return w


async def test_a_ready_on_one_floor_is_not_set_off_from_another():
    kev = token("kev", "Kevin", (0, 0), GROUND, initiative=2, reflex=4, action_dice=2)
    gary = token("gary", "Gary", (9, 1), UPSTAIRS, bab=1)
    w = await two_floors(kev=kev, gary=gary)
    try:
        await w.gm_says("!init")
        out = await w.chat("!ready shoot --when corner --timing attempt", token="kev")
        assert w.said("Kevin readies: shoot", out), out
        # the watch set the VTT holds moves by: the corner's cells, on the ground floor
        watch = w.of(WatchMoves, out)[-1].watches
        assert [(m.cells, m.levels) for m in watch] == [([(5, 0), (5, 1), (5, 2)], [GROUND])]
        # Gary crosses the corner's x/y upstairs: nothing
        out = await w.send(
            TokenMoved(token="gary", from_cell=Cell(x=9, y=1), to_cell=Cell(x=2, y=1),
                       levels=[UPSTAIRS, UPSTAIRS])
        )  # fmt: skip
        assert not w.asks(out) and len(w.world.watches) == 1
        assert w.world.tokens["gary"].level == UPSTAIRS
        # he takes the stairs down at 3,1 and walks back through the corner: it fires
        out = await w.send(
            TokenMoved(token="gary", from_cell=Cell(x=2, y=1), to_cell=Cell(x=8, y=1),
                       path=[Cell(x=2, y=1), Cell(x=3, y=1), Cell(x=8, y=1)],
                       levels=[UPSTAIRS, GROUND, GROUND], climb=10)
        )  # fmt: skip
        assert [a.player for a in w.asks(out)] == ["pkev"], out
        assert w.world.tokens["gary"].level == GROUND
    finally:
        await w.__aexit__(None, None, None)


async def test_a_range_is_on_its_anchors_floor():
    kev = token("kev", "Kevin", (0, 0), GROUND, initiative=2, reflex=4, action_dice=2)
    gary = token("gary", "Gary", (6, 0), UPSTAIRS, bab=1)
    w = await two_floors(kev=kev, gary=gary)
    try:
        await w.gm_says("!init")
        await w.chat("!ready shoot --when within 10 --timing attempt", token="kev")
        out = await w.send(
            TokenMoved(token="gary", from_cell=Cell(x=6, y=0), to_cell=Cell(x=1, y=0),
                       levels=[UPSTAIRS, UPSTAIRS])
        )  # fmt: skip
        assert not w.asks(out)  # right above Kevin, one floor up
        out = await w.send(
            TokenMoved(token="gary", from_cell=Cell(x=1, y=0), to_cell=Cell(x=1, y=1),
                       levels=[UPSTAIRS, GROUND], climb=10)
        )  # fmt: skip
        assert [a.player for a in w.asks(out)] == ["pkev"]
    finally:
        await w.__aexit__(None, None, None)


async def test_a_move_between_levels_costs_its_climb():
    mint = token("mint", "Mint", (0, 0), GROUND, move=25, agility=8)
    w = await two_floors("foe", mint=mint)
    try:
        await w.gm_says("!init")
        assert w.encounter.active == "mint"
        # 4 cells (20 ft) and 10 ft of stairs: 30 ft, more than one move action's 25
        out = await w.send(
            TokenMoved(token="mint", from_cell=Cell(x=0, y=0), to_cell=Cell(x=4, y=0),
                       levels=[GROUND, UPSTAIRS], climb=10, player="pmint")
        )  # fmt: skip
        cb = w.encounter.combatants["mint"]
        assert cb.moved_ft == 30 and cb.actions_taken == ["move", "move"], out
        assert w.world.tokens["mint"].level == UPSTAIRS
    finally:
        await w.__aexit__(None, None, None)
