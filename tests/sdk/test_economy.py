"""The SDK and the action economy: script commands that declare a cost, ``ctx.spend``,
``!do``'s cost, ``!help`` showing costs, and moves judged before they are applied."""

from __future__ import annotations

import asyncio

import pytest
from vttbridge.rules.geometry import Cell
from vttbridge.rules.outcome import Outcome, RuleError
from vttbridge.sdk import ChatCommand, Context, Script, TokenMoved, UsageError
from vttbridge.sdk.events import MoveRefused
from vttbridge.sdk.testing import WorldHarness

shots = Script("shots")


@shots.command("shoot", usage="!shoot <target>", cost="half")
def shoot(cmd: ChatCommand, ctx: Context) -> None:
    if not cmd.argv:
        raise UsageError("Shoot whom?")
    if cmd.argv[0] == "wall":
        raise RuleError("no_line", "No line of sight.")
    ctx.say(f"{ctx.name(cmd.token or '')} shoots {cmd.argv[0]}.")


@shots.command("snipe", cost="attack")
async def snipe(cmd: ChatCommand, ctx: Context) -> None:
    await asyncio.sleep(0)
    ctx.say("Crack!")


@shots.command("aim")
def aim(cmd: ChatCommand, ctx: Context) -> None:
    spent = ctx.spend(cmd.token or "", "free", what="aim")
    ctx.say(f"aiming (spent: {spent})")


async def spycraft_fight(*scripts) -> WorldHarness:
    """Kevin (IC 22, player pk) on his turn, Gary (IC 10) next. The caller closes it."""
    w = WorldHarness(*scripts, dice=[20, 8])
    await w.__aenter__()
    await w.token("kev", "Kevin", (0, 0), owner="pk", initiative=2)
    await w.token("gary", "Gary", (9, 0), owner="pg")
    await w.gm_says("!init")
    assert w.encounter.active == "kev"
    return w


async def test_a_declared_cost_is_spent_like_attack_and_refused_when_spent():
    w = await spycraft_fight(shots)
    try:
        out = await w.chat("!shoot gary", token="kev")
        assert w.said("Kevin shoots gary", out)
        cb = w.encounter.combatants["kev"]
        assert cb.half_actions == 1 and cb.actions_taken == ["shoot"]
        await w.chat("!attack gary", token="kev")  # the built-in spends its half action too
        assert cb.half_actions == 0
        out = await w.chat("!shoot gary", token="kev")  # refused before it runs
        assert w.said(
            "Kevin has no actions left this turn; a half action needs 1.", out, whisper_to="pk"
        )
        assert not w.said("shoots", out)
    finally:
        await w.__aexit__(None, None, None)


async def test_a_refused_command_spends_nothing():
    w = await spycraft_fight(shots)
    try:
        before = w.encounter.model_dump_json()
        out = await w.chat("!shoot", token="kev")  # usage error
        assert w.said("Shoot whom? Usage: !shoot <target>", out, whisper_to="pk")
        out = await w.chat("!shoot wall", token="kev")  # a rule refuses
        assert w.said("No line of sight.", out, whisper_to="pk")
        assert w.encounter.model_dump_json() == before
        out = await w.chat("!shoot kev", token="gary")  # not his turn: checked first
        assert w.said("It is not Gary's turn (it is Kevin's).", out, whisper_to="pg")
        assert w.encounter.model_dump_json() == before
    finally:
        await w.__aexit__(None, None, None)


async def test_an_async_command_spends_when_it_finishes_and_ctx_spend():
    w = await spycraft_fight(shots)
    try:
        out = await w.chat("!snipe", token="kev")
        assert w.said("Crack!", out)
        assert w.encounter.combatants["kev"].actions_taken == ["snipe"]
        out = await w.chat("!aim", token="gary")  # a free action, out of turn
        assert w.said("aiming (spent: True)", out)
        assert w.encounter.combatants["gary"].free_used == 1
    finally:
        await w.__aexit__(None, None, None)


async def test_outside_combat_nothing_is_checked_or_spent():
    async with WorldHarness(shots) as w:
        await w.token("kev", "Kevin", (0, 0), owner="pk")
        for _ in range(3):
            out = await w.chat("!shoot gary", token="kev")
            assert w.said("shoots", out)
        out = await w.chat("!aim", token="kev")
        assert w.said("aiming (spent: False)", out)


def test_an_unknown_cost_is_refused_at_registration():
    s = Script("bad")
    with pytest.raises(ValueError, match="!fly: unknown cost 'flight'"):
        s.command("fly", cost="flight")
    Script("foe_only", system="foe").command("rush", cost="charge")  # a FoE action: fine
    with pytest.raises(ValueError):
        Script("spy_only", system="spycraft").command("rush", cost="charge")


async def test_do_costs_a_half_action_unless_told_and_its_completion_is_paid():
    w = await spycraft_fight()
    try:
        cb = w.encounter.combatants["kev"]
        await w.chat("!do press", token="kev")
        assert cb.half_actions == 1 and cb.actions_taken == ["press"]
        await w.chat("!do press --done", token="kev")  # attempted this turn: paid
        assert cb.half_actions == 1
        await w.chat("!do wave --cost free", token="kev")
        assert cb.half_actions == 1 and cb.free_used == 1
        out = await w.chat("!do vault --cost full", token="kev")
        assert w.said(
            "only a half action left this turn; a full action needs 2", out, whisper_to="pk"
        )
        out = await w.chat("!do vault --cost lots", token="kev")
        assert w.said("--cost is half, full or free", out, whisper_to="pk")
        out = await w.chat("!do press", token="gary")  # out of turn
        assert w.said("not Gary's turn", out, whisper_to="pg")
        out = await w.chat("!do shout --cost free", token="gary")
        assert w.said("Gary attempts: shout", out)
    finally:
        await w.__aexit__(None, None, None)


async def test_help_shows_what_each_command_costs_in_the_worlds_system():
    async with WorldHarness(shots) as w:
        out = await w.gm_says("!help")
        text = w.chat_lines(out)[0]
        assert (
            "!attack <target> — Declare an attack; a stand off may answer it. [a half action]"
            in text
        )
        assert "[a full action]" in text.split("!ready")[1].split("\n")[0]
        assert "[a free action]" in text.split("!standoff")[1].split("\n")[0]
        assert "!shoot <target> — [a half action]" in text
    async with WorldHarness(system="foe") as w:
        out = await w.gm_says("!help")
        text = w.chat_lines(out)[0]
        assert "[both actions]" in text.split("!charge ")[1].split("\n")[0]
        assert "[1 action per move speed moved]" in text.split("!move")[1].split("\n")[0]
        assert "[a free action]" in text.split("!hide")[1].split("\n")[0]
        out = await w.gm_says("!help sneak")
        assert w.said("--field", out) and w.said("[1 action]", out)


# -- moves judged before they are applied ---------------------------------------------------------

judged = Script("judge")
seen: list[str] = []


@judged.before_move
def no_lava(event: TokenMoved, ctx: Context) -> Outcome | None:
    if event.to_cell == Cell(x=5, y=5):
        raise RuleError("lava", "That is lava.")
    if event.to_cell == Cell(x=6, y=6):
        raise ValueError("a bug in the judge")
    out = Outcome()
    out.add("judged", event.token, "judged")
    return out


@judged.on(TokenMoved, MoveRefused)
def heard(event, ctx: Context) -> None:
    seen.append(f"{event.type}:{ctx.world.tokens[event.token].cell.x}")


async def test_a_refused_move_is_never_applied():
    seen.clear()
    async with WorldHarness(judged) as w:
        await w.scene(players=[])
        await w.token("kev", "Kevin", (1, 1), owner="pk")
        out = await w.move("kev", (5, 5), player="pk")
        assert w.world.tokens["kev"].cell == Cell(x=1, y=1)
        assert w.encounter.positions["kev"] == Cell(x=1, y=1)
        (back,) = w.moves(out)
        assert back.cell == Cell(x=1, y=1) and not back.animate
        assert w.said("Kevin's move refused and moved back: That is lava.", out, whisper_to="gm")
        assert w.said("Move refused: That is lava.", out, whisper_to="pk")
        assert seen == ["move_refused:1"]  # no TokenMoved: it did not happen
        out = await w.move("kev", (2, 2), player="pk")
        assert not w.moves(out) and seen[-1] == "token_moved:2"
        out = await w.move("kev", (6, 6), player="pk")  # a broken judge lets it through
        assert w.said("raised ValueError: a bug in the judge", out, whisper_to="gm")
        assert w.world.tokens["kev"].cell == Cell(x=6, y=6)


def test_a_judge_is_a_plain_function():
    s = Script("async_judge")
    with pytest.raises(TypeError, match="slow: a before_move judge must be a plain function"):

        @s.before_move
        async def slow(event, ctx):
            return None


first = Script("first_judge")
second = Script("second_judge")


@first.before_move
def spend_something(event: TokenMoved, ctx: Context) -> None:
    ctx.encounter.round = 99  # a change a later refusal must undo


@second.before_move
def refuse_all(event: TokenMoved, ctx: Context) -> None:
    raise RuleError("no", "No moving.")


async def test_a_later_refusal_undoes_an_earlier_judges_changes():
    async with WorldHarness(first, second) as w:
        await w.token("kev", "Kevin", (1, 1))
        await w.move("kev", (2, 2))
        assert w.encounter.round == 0 and w.world.tokens["kev"].cell == Cell(x=1, y=1)
