"""Ready conditions a script registers: an ``async def`` condition is awaited (it fires only when
it returns true), and a condition reads whose Ready it decides (``ctx.owner``)."""

from __future__ import annotations

import asyncio

from vttbridge.sdk import Context, Script, TokenMoved
from vttbridge.sdk.testing import WorldHarness

script = Script("near")
asked: list[str | None] = []


@script.condition("enemy_near", on=[TokenMoved])
def enemy_near(event: TokenMoved, ctx: Context) -> bool:
    """An enemy of whoever readied comes within 10 ft of him."""
    asked.append(ctx.owner)
    me, mover = ctx.tokens[ctx.owner], ctx.tokens[event.token]
    return me.disposition * mover.disposition < 0 and ctx.distance(ctx.owner, event.token) <= 10


@script.condition("door_opens", on=[TokenMoved])
async def door_opens(event: TokenMoved, ctx: Context) -> bool:
    await asyncio.sleep(0)  # an async condition awaits something of its own
    return event.to_cell.x == 5


@script.condition("slow", on=[TokenMoved])
async def slow(event: TokenMoved, ctx: Context) -> bool:
    await asyncio.sleep(30)
    return True


async def fight(**kw) -> WorldHarness:
    """Kevin (friendly, IC 22), a thug (hostile, IC 10) and Gary (friendly, IC 5)."""
    w = WorldHarness(script, dice=[20, 8, 3], **kw)
    await w.__aenter__()
    await w.token("kev", "Kevin", (0, 0), owner="pk", initiative=2, disposition=1)
    await w.token("thug", "Thug", (9, 0), disposition=-1)
    await w.token("gary", "Gary", (9, 9), owner="pg", disposition=1)
    await w.gm_says("!init")
    return w


async def test_an_async_condition_fires_only_when_it_returns_true():
    w = await fight()
    try:
        await w.chat("!ready shoot --when door_opens", token="kev")
        out = await w.move("thug", (4, 0))  # the condition is awaited: False, nothing fires
        assert not w.asks(out) and w.world.watches
        out = await w.move("thug", (5, 0))
        assert len(w.asks(out)) == 1 and not w.world.watches
    finally:
        await w.__aexit__(None, None, None)


async def test_an_async_condition_past_the_budget_is_false_and_reported():
    w = await fight(settings={"script_budget": 0.05})
    try:
        await w.chat("!ready shoot --when slow", token="kev")
        out = await w.move("thug", (4, 0))
        assert not w.asks(out)
        assert w.said("Script near", out, whisper_to="gm") and w.said("in slow", out)
    finally:
        await w.__aexit__(None, None, None)


async def test_a_condition_reads_the_readys_owner():
    """'An enemy comes near' means an enemy of whoever readied: Kevin's Ready fires for the
    thug, the thug's (an NPC's) for Kevin, and an ally coming near sets off neither."""
    asked.clear()
    w = await fight()
    try:
        await w.chat("!ready shoot --when enemy_near", token="kev")
        assert w.encounter.active == "thug"
        await w.gm_says("!ready stab --when enemy_near --as thug")
        assert set(w.world.watches) == {"ready:kev", "ready:thug"}
        out = await w.move("gary", (2, 0))  # Kevin's ally, the thug's enemy, 10 ft from Kevin
        assert not w.asks(out)  # 35 ft from the thug; an ally of Kevin's
        assert sorted(asked) == ["kev", "thug"]  # decided once per owner
        out = await w.move("thug", (2, 1))  # the thug comes within 10 ft of Kevin
        (ask,) = w.asks(out)
        assert ask.player == "pk"  # Kevin's Ready, not the thug's own
        assert "ready:thug" in w.world.watches
    finally:
        await w.__aexit__(None, None, None)
