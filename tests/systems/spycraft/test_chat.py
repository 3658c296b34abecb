"""Spycraft built-ins: every kind of Ready trigger, and the Stand Off commands."""

import pytest
from vttbridge.sdk import ChatCommand, Context, Script, rect
from vttbridge.sdk.events import ActionDeclared, DamageDealt
from vttbridge.sdk.testing import WorldHarness
from vttbridge.systems.spycraft.rules.state import spycraft

from tests.sdk.chat.scenes import kevins_corner

triggers = Script("test_triggers")
triggers.region("door", rect(5, 0, 5, 2))


@triggers.condition("alarm_raised", on=[ChatCommand])
def alarm_raised(event: ChatCommand, ctx: Context) -> bool:
    return event.name == "alarm"


@triggers.command("alarm")
def alarm(cmd, ctx):
    ctx.say("The alarm blares.")


@triggers.command("siren")
def siren(cmd, ctx):
    ctx.signal("siren")


@triggers.condition("siren", on=[])  # set off by ctx.signal only
def never(event, ctx) -> bool:
    return False


async def world(**kw) -> WorldHarness:
    return await kevins_corner(triggers, **kw)


@pytest.mark.parametrize(
    ("when", "act"),
    [
        ("door", ("move", "gary", (5, 1))),
        ("enters door", ("move", "gary", (5, 1))),
        ("region:door", ("move", "gary", (5, 1))),
        ("within 10", ("move", "gary", (2, 0))),
        ("within:15ft", ("move", "gary", (3, 0))),
        ("!press", ("chat", "gary", "!press")),
        ("action press", ("chat", "gary", "!do press --done")),
        ("action:press", ("chat", "gary", "!press")),
        ("cond alarm_raised", ("chat", "gary", "!alarm")),
        ("alarm_raised", ("chat", "gary", "!alarm")),
        ("siren", ("chat", "gary", "!siren")),
    ],
)
async def test_ready_trigger_kinds(when, act):
    w = await world()
    try:
        out = await w.chat(f"!ready shoot --when {when}", token="kev")
        assert w.said("Kevin readies: shoot", out), out
        assert len(w.world.watches) == 1
        kind, who, what = act
        out = await (w.move(who, what) if kind == "move" else w.chat(what, token=who))
        ask = w.asks(out)
        assert len(ask) == 1 and ask[0].player == "pk", out
        assert w.encounter.combatants["kev"].ic == 10
        assert not w.world.watches  # fired: nobody else sets it off
        assert not w.said("Unknown command", out)
    finally:
        await w.__aexit__(None, None, None)


async def test_the_readier_does_not_trigger_himself_and_timing_matters():
    w = await world()
    try:
        await w.chat("!ready shoot --when action press --timing attempt", token="kev")
        out = await w.chat("!do press --done", token="gary")  # completion: not the attempt
        assert not w.asks(out)
        out = await w.send(ActionDeclared(token="gary", action="press", phase="attempt"))
        assert w.asks(out)
    finally:
        await w.__aexit__(None, None, None)


async def test_free_text_trigger_is_fired_by_the_gm():
    w = await world()
    try:
        out = await w.chat("!ready shoot --when the lights go out", token="kev")
        assert w.said("The GM fires this trigger with !trigger Kevin", out, whisper_to="pk")
        assert not w.world.watches
        out = await w.gm_says("!trigger kev --by gary")
        assert w.asks(out)[0].player == "pk"
        out = await w.chat("!trigger kev", token="gary")
        assert w.said("Only the GM", out, whisper_to="pg")
    finally:
        await w.__aexit__(None, None, None)


async def test_bad_ready_arguments():
    w = await world()
    try:
        out = await w.chat("!ready shoot", token="kev")
        assert w.said("Usage: !ready", out, whisper_to="pk")
        out = await w.chat("!ready shoot --when enters nowhere", token="kev")
        assert w.said("No region 'nowhere'", out, whisper_to="pk")
        out = await w.chat("!ready shoot --when door --timing later", token="kev")
        assert w.said("--timing is attempt or completion", out, whisper_to="pk")
        out = await w.chat("!ready shoot --when door --bogus", token="kev")
        assert w.said("Unknown option --bogus", out, whisper_to="pk")
        out = await w.chat("!ready shoot --when door", token="gary")  # not his turn
        assert w.said("not Gary's turn", out, whisper_to="pg")
        assert not w.world.watches and not spycraft(w.encounter).readies
    finally:
        await w.__aexit__(None, None, None)


async def test_unready_with_a_save_and_watch_cleanup():
    w = await world()
    try:
        await w.chat("!ready shoot --when door", token="kev")
        w.dice(15)  # 15 + 4 >= 15
        out = await w.chat("!unready", token="kev")
        assert w.said("ends his Ready", out)
        assert not w.world.watches
        assert not w.asks(await w.move("gary", (5, 1)))
    finally:
        await w.__aexit__(None, None, None)


async def test_expired_ready_loses_its_watch():
    w = await world()
    try:
        await w.chat("!ready shoot --when door", token="kev")
        await w.chat("!next", token="gary")
        await w.gm_says("!next")  # round 2 at Kevin's IC: it expires
        assert not spycraft(w.encounter).readies and not w.world.watches
    finally:
        await w.__aexit__(None, None, None)


async def test_stand_off_offer_accepted_then_broken_by_damage():
    w = await world()
    try:
        await w.chat("!next", token="kev")
        await w.move("gary", (4, 0))  # 20 ft: within CQB range
        out = await w.chat("!attack kev", token="gary")  # Gary (an opponent here) attacks
        ask = w.asks(out)[0]
        assert ask.player == "pk" and ask.default == "take_attack"
        w.dice(12)  # 12 + 4 = 16 vs DC 11
        out = await w.answer("stand_off")
        assert w.said("Stand off so1", out)
        assert "standoff" in w.encounter.characters["kev"].conditions
        out = await w.send(DamageDealt(token="gary", amount=0, kind="stress"))
        assert spycraft(w.encounter).standoffs[0].active
        out = await w.send(DamageDealt(token="gary", amount=3))
        assert w.said("the stand off breaks", out)
        assert not spycraft(w.encounter).standoffs[0].active
    finally:
        await w.__aexit__(None, None, None)


async def test_offer_declined_by_timeout_and_direct_standoff_command():
    w = await world()
    try:
        await w.chat("!next", token="kev")
        await w.move("gary", (4, 0))
        await w.chat("!attack kev", token="gary")
        out = await w.advance(60)
        assert w.said("takes the attack", out)
        w.dice(12)
        out = await w.chat("!standoff gary", token="kev")  # the player stands off directly
        assert w.said("Stand off so1", out)
        out = await w.gm_says("!join-standoff kev knife --as thug")  # a half action: his turn
        assert w.said("It is not Thug's turn (it is Gary's)", out, whisper_to="gm")
        out = await w.chat("!surrender", token="gary")
        assert w.said("Gary surrenders", out)
    finally:
        await w.__aexit__(None, None, None)


async def test_spycraft_handlers_are_quiet_in_a_foe_world():
    async with WorldHarness(system="foe") as w:
        await w.token("a")
        await w.token("b")
        assert await w.send(ActionDeclared(token="a", action="attack", target="b")) == []
        assert await w.send(DamageDealt(token="a", amount=5)) == []
        assert await w.move("a", (1, 1)) == []
