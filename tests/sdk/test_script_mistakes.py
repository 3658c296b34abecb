"""What a scripter gets wrong is told when the script loads (or when the command is typed),
with the name, the file and line, and a suggestion -- never found out at the table."""

from __future__ import annotations

import inspect
import re
import textwrap
from pathlib import Path

import pytest
from vttbridge.sdk import (
    ChatCommand,
    Context,
    Prompt,
    Script,
    ScriptError,
    TokenMoved,
    entered,
    rect,
)
from vttbridge.sdk.testing import WorldHarness
from vttbridge.systems.spycraft.rules.state import spycraft

HERE = Path(__file__).name


def line_of(fn) -> str:
    return f"{HERE}:{inspect.getsourcelines(fn)[1]}"


# -- arity and event types, when decorated ---------------------------------------------------------


def test_a_condition_that_takes_three_arguments_is_refused_when_decorated():
    s = Script("arity")

    def near(event: TokenMoved, ctx: Context, extra) -> bool:
        return True

    with pytest.raises(TypeError) as err:
        s.condition("near")(near)
    msg = str(err.value)
    assert line_of(near) in msg
    assert "@script.condition('near') on near(event, ctx, extra)" in msg
    assert "called with (event, ctx), but near needs 3 arguments" in msg
    assert not s.conditions


@pytest.mark.parametrize(
    ("decorate", "call"),
    [
        (lambda s: s.command("shoot"), "(cmd, ctx)"),
        (lambda s: s.on(TokenMoved), "(event, ctx)"),
        (lambda s: s.on_enter(cells=[(1, 1)]), "(event, ctx)"),
        (lambda s: s.choice("ready_cancel"), "(prompt, answer, ctx)"),
        (lambda s: s.watch_handler("alarm"), "(event, ctx)"),
        (lambda s: s.on_load, "(ctx)"),
    ],
)
def test_every_decorator_checks_what_its_callback_takes(decorate, call):
    def too_many(a, b, c, d):
        pass

    with pytest.raises(TypeError, match=re.escape(f"called with {call}, but too_many needs 4")):
        decorate(Script("arity"))(too_many)


def test_a_keyword_only_parameter_without_default_is_refused():
    def shoot(cmd, ctx, *, target):
        pass

    with pytest.raises(TypeError, match="keyword-only parameter 'target' has no default"):
        Script("kw").command("shoot")(shoot)


def test_event_types_must_be_event_classes_with_a_suggestion():
    def moved(event, ctx):
        pass

    with pytest.raises(TypeError) as err:
        Script("types").on("token_moved")(moved)  # type: ignore[arg-type]
    assert "'token_moved' is not an event class" in str(err.value)
    assert "Did you mean TokenMoved?" in str(err.value)
    assert line_of(moved) in str(err.value)


def test_declared_types_and_the_annotation_must_agree():
    def moved(event: TokenMoved, ctx: Context) -> None:
        pass

    with pytest.raises(TypeError, match="given ChatCommand events, but its first parameter is "):
        Script("agree").on(ChatCommand)(moved)
    with pytest.raises(TypeError, match="given ChatCommand events"):
        Script("agree").condition("c", on=[ChatCommand])(moved)

    def swapped(ctx: Context, event: TokenMoved) -> None:
        pass

    with pytest.raises(TypeError, match="annotated Context, not an event"):
        Script("agree").on()(swapped)

    def not_a_command(event: TokenMoved, ctx: Context) -> None:
        pass

    with pytest.raises(TypeError, match="its cmd is a ChatCommand, but its first parameter is"):
        Script("agree").command("go")(not_a_command)

    def not_a_prompt(event: TokenMoved, answer: str, ctx: Context) -> None:
        pass

    with pytest.raises(TypeError, match="its prompt is a Prompt"):
        Script("agree").choice("x")(not_a_prompt)

    def fine(prompt: Prompt, answer: str, ctx: Context) -> None:
        pass

    Script("agree").choice("x")(fine)


def test_a_listener_or_condition_must_say_its_events():
    def anything(event, ctx):
        pass

    with pytest.raises(TypeError, match="which events does it hear"):
        Script("say").on()(anything)
    with pytest.raises(TypeError, match=r"on=\[\] if only ctx.signal sets it off"):
        Script("say").condition("c")(anything)
    # the annotation says, or on= does, or on=[] (signalled only)
    s = Script("say")
    s.condition("by_on", on=[TokenMoved])(anything)

    def annotated(event: TokenMoved | ChatCommand, ctx: Context) -> bool:
        return True

    s.condition("by_annotation")(annotated)
    s.condition("signalled", on=[])(anything)
    assert s.conditions["by_on"].types == (TokenMoved,)
    assert s.conditions["by_annotation"].types == (TokenMoved, ChatCommand)
    assert s.conditions["signalled"].types == ()


async def test_a_condition_is_tested_only_on_its_events_never_on_chat_lines():
    s = Script("moves_only")
    calls: list[str] = []

    @s.condition("moved_far")
    def moved_far(event: TokenMoved, ctx: Context) -> bool:
        calls.append(event.type)
        return event.to_cell.x > 5  # a ChatCommand has no to_cell

    async with WorldHarness(s, dice=[20, 10]) as w:
        await w.token("kev", "Kevin", (0, 0), owner="pk", initiative=2)
        await w.token("thug", "Thug", (9, 9), disposition="hostile")
        await w.gm_says("!init")
        out = await w.chat("!ready shoot --when moved_far", token="kev")
        assert w.said("Kevin readies: shoot", out)
        out = await w.chat("hello there", token="thug")
        out += await w.gm_says("!stats thug")
        assert not w.said("failed", out) and not w.said("AttributeError", out)
        out = await w.move("thug", (8, 8))
        assert w.asks(out)
    assert calls == ["token_moved"]


# -- names: systems, regions -----------------------------------------------------------------------


def test_an_unknown_system_is_refused_with_the_closest_installed_one():
    with pytest.raises(ValueError) as err:
        Script("typo", system="spycraf")
    assert "no game system 'spycraf' is installed. Did you mean 'spycraft'?" in str(err.value)
    assert f"{HERE}:" in str(err.value)  # where the Script was made
    assert "Installed: " in str(err.value) and "foe" in str(err.value)


def test_on_enter_a_near_miss_of_the_scripts_own_region_is_refused():
    s = Script("vault_watch")
    s.region("vault", rect(0, 0, 2, 2))

    def alarm(event: TokenMoved, ctx: Context) -> None:
        pass

    with pytest.raises(TypeError) as err:
        s.on_enter("vualt")(alarm)
    assert f"{line_of(alarm)}: @script.on_enter('vualt') on alarm" in str(err.value)
    assert "defines no region 'vualt'; did you mean 'vault'?" in str(err.value)
    assert not s.position_triggers


def test_a_near_miss_defined_after_the_decorator_is_refused_at_load(tmp_path):
    path = tmp_path / "late_vault.py"
    path.write_text(
        textwrap.dedent(
            """
            from vttbridge.sdk import Context, Script, TokenMoved, rect

            script = Script("late_vault")


            @script.on_enter("vualt")
            def alarm(event: TokenMoved, ctx: Context) -> None:
                ctx.tell_gm("Alarm!")


            script.region("vault", rect(0, 0, 2, 2))
            """
        )
    )
    with pytest.raises(ScriptError) as err:
        WorldHarness(str(path))
    assert "late_vault.py:7: on_enter('vualt') names no region of this script" in str(err.value)
    assert "did you mean 'vault'?" in str(err.value)


async def test_a_region_no_scene_has_is_told_to_the_gm_with_the_closest():
    s = Script("vtt_vault")

    @s.on_enter("vualt")  # a region the VTT draws: the script cannot know it
    def alarm(event: TokenMoved, ctx: Context) -> None:
        ctx.tell_gm("Alarm!")

    async with WorldHarness(s) as w:
        out = await w.scene(regions={"vault": [(0, 0), (1, 0)], "hall": [(5, 5)]})
        told = w.chat_lines(out, whisper_to="gm")
        assert len(told) == 1, told
        assert f"{line_of(alarm)}: on_enter('vualt') waits for a region" in told[0]
        assert "(regions: hall, vault). Did you mean 'vault'?" in told[0]
        out = await w.scene(regions={"vault": [(0, 0), (1, 0)]})
        assert not w.chat_lines(out, whisper_to="gm")  # once per world and name
        out = await w.scene(regions={"vualt": [(3, 3)]})
        assert not w.chat_lines(out, whisper_to="gm")


# -- replacing another script's command, condition or choice ----------------------------------


async def test_replacing_a_built_in_command_needs_override():
    s = Script("my_stats")

    @s.command("stats")
    def stats(cmd: ChatCommand, ctx: Context) -> None:
        ctx.reply("My own stats.")

    with pytest.raises(ScriptError) as err:
        WorldHarness(s)
    msg = str(err.value)
    assert f"{line_of(stats)}: !stats is already a command of the 'core' script" in msg
    assert "@script.command('stats', override=True)" in msg

    mine = Script("my_stats")

    @mine.command("stats", override=True)
    def stats2(cmd: ChatCommand, ctx: Context) -> None:
        ctx.reply("My own stats.")

    async with WorldHarness(mine) as w:
        out = await w.gm_says("!stats")
        assert w.said("My own stats.", out)


def test_replacing_another_scripts_condition_or_choice_needs_override():
    first, second = Script("first"), Script("second")
    for s in (first, second):

        @s.condition("alarm", on=[])
        def alarm(event, ctx) -> bool:
            return False

    with pytest.raises(ScriptError, match="the condition 'alarm' is already the 'first' script"):
        WorldHarness(first, second)

    cancel = Script("cancel")

    @cancel.choice("ready_cancel")
    def answered(prompt: Prompt, answer: str, ctx: Context) -> None:
        pass

    with pytest.raises(ScriptError, match="'spycraft' script already resolves 'ready_cancel'"):
        WorldHarness(cancel)
    overriding = Script("cancel")
    overriding.choice("ready_cancel", override=True)(answered)
    WorldHarness(overriding)


def test_a_name_twice_in_one_script_is_refused_with_both_places():
    s = Script("twice")

    @s.command("shoot", aliases=["fire"])
    def shoot(cmd, ctx):
        pass

    def fire(cmd, ctx):
        pass

    with pytest.raises(TypeError) as err:
        s.command("fire")(fire)
    assert f"{line_of(fire)}: !fire is already a command of this script" in str(err.value)
    assert "(shoot at " in str(err.value) and line_of(shoot) in str(err.value)


# -- !ready --when: did you mean, free text, the list ---------------------------------------------

corner = Script("corner_for_ready")
corner.region("corner", rect(10, 4, 11, 6))


@corner.condition("hostile_at_corner", on=[TokenMoved])
def hostile_at_corner(event: TokenMoved, ctx: Context) -> bool:
    """A hostile token comes round the corner."""
    return ctx.tokens[event.token].disposition < 0 and event.to_cell in ctx.region("corner")


@pytest.fixture
async def ready_world():
    async with WorldHarness(corner, dice=[20, 10, 5]) as w:
        await w.token("kev", "Kevin", (0, 0), owner="pk", initiative=2, reflex=4)
        await w.token("gary", "Gary", (9, 0), owner="pg", disposition="friendly")
        await w.token("thug", "Thug", (14, 8), disposition="hostile")
        await w.gm_says("!init")  # Kevin 22, Gary 10, Thug 5
        yield w


async def test_a_near_miss_when_says_did_you_mean_and_declares_nothing(ready_world):
    w = ready_world
    out = await w.chat("!ready Standard Attack --when hostile_at_cornr", token="kev")
    assert w.said("did you mean 'hostile_at_corner'? Nothing was declared", out, whisper_to="pk")
    assert not spycraft(w.encounter).readies and not w.world.watches
    assert w.encounter.active == "kev"  # his turn goes on: nothing spent
    assert w.encounter.combatants["kev"].half_actions == 2
    out = await w.chat("!ready shoot --when cornr", token="kev")
    assert w.said("did you mean 'corner'?", out, whisper_to="pk")
    out = await w.chat("!ready shoot --when withn 10", token="kev")
    assert w.said("did you mean 'within 10'?", out, whisper_to="pk")
    out = await w.chat("!ready shoot --when enters cornr", token="kev")
    assert w.said("No region 'cornr' (regions: corner). Did you mean 'corner'?", out)
    assert not spycraft(w.encounter).readies


@pytest.mark.parametrize(
    ("when", "trigger"),
    [('"hostile_at_cornr"', "hostile_at_cornr"), ("gm: hostile_at_cornr", "hostile_at_cornr")],
)
async def test_free_text_stays_possible_quoted_or_after_gm(ready_world, when, trigger):
    w = ready_world
    out = await w.chat(f"!ready shoot --when {when}", token="kev")
    assert w.said("The GM fires this trigger with !trigger Kevin", out, whisper_to="pk")
    assert spycraft(w.encounter).readies["kev"].trigger == trigger
    assert not w.world.watches


async def test_when_question_lists_conditions_and_regions_and_costs_nothing(ready_world):
    w = ready_world
    await w.chat("!ready shoot --when corner", token="kev")  # his turn ends: Gary's
    out = await w.chat("!ready --when ?", token="kev")  # out of turn, no action left
    said = w.chat_lines(out, whisper_to="pk")
    assert len(said) == 1, out
    assert "a region (corner)" in said[0]
    assert "hostile_at_corner (A hostile token comes round the corner)" in said[0]
    assert "within <ft>" in said[0] and "!trigger" in said[0]
    assert spycraft(w.encounter).readies["kev"].trigger == "someone enters corner"


# -- what players read when a condition fires -------------------------------------------------


async def test_a_fired_condition_reads_as_a_sentence(ready_world):
    w = ready_world
    await w.chat("!ready shoot --when hostile_at_corner", token="kev")
    await w.chat("!next", token="gary")
    out = await w.move("thug", (10, 5))
    text = " ".join(w.chat_lines(out))
    assert "(Thug moves to 10,5: a hostile token comes round the corner)" in text
    assert "token_moved" not in text and "token_moved" not in w.asks(out)[0].question


# -- entered(): a condition agrees with on_enter and --when <region> -------------------------------


async def test_entered_walks_the_path_as_on_enter_does():
    s = Script("vault_pair")
    vault = s.region("vault", rect(5, 0, 6, 2))
    by_trigger: list[tuple[int, int] | None] = []
    by_helper: list[tuple[int, int] | None] = []

    @s.on_enter(vault)
    def came_in(event: TokenMoved, ctx: Context) -> None:
        by_trigger[-1] = (ctx.cell.x, ctx.cell.y)

    @s.on(TokenMoved)
    def helper(event: TokenMoved, ctx: Context) -> None:
        found = entered(event, vault)
        by_trigger.append(None)  # listeners run before position triggers
        by_helper.append(None if found is None else (found.x, found.y))

    async with WorldHarness(s) as w:
        await w.token("mover", "Mover", (0, 1), disposition="hostile")
        await w.move("mover", (9, 1))  # straight through the vault, stops beyond it
        await w.move("mover", (5, 1))  # back into it
        await w.move("mover", (6, 2))  # inside to inside: enters nothing
        await w.move("mover", (8, 8), (9, 0), (6, 0))  # out, round, and in from the east
        await w.move("mover", (6, 5), (9, 5))  # out and past below: never in
    assert by_trigger == by_helper == [(5, 1), (6, 1), None, (6, 0), None]


def test_every_type_a_callback_receives_is_importable_from_the_sdk():
    import typing

    import vttbridge.sdk as sdk
    from vttbridge.sdk import events
    from vttbridge.sdk.context import Context as Ctx

    found: set[type] = set()

    def collect(hint) -> None:
        for arg in typing.get_args(hint):
            collect(arg)
        origin = typing.get_origin(hint)
        for cls in (hint, origin):
            if isinstance(cls, type) and cls.__module__.startswith("vttbridge."):
                found.add(cls)

    for name, member in inspect.getmembers(Ctx):
        fn = member.fget if isinstance(member, property) else member
        if name.startswith("_") or not callable(fn):
            continue
        for hint in typing.get_type_hints(fn, localns={"Script": Script}).values():
            collect(hint)
    found |= {
        v for v in vars(events).values() if isinstance(v, type) and issubclass(v, events.BaseEvent)
    }
    found |= {sdk.HoldCheck, Prompt}
    missing = sorted(c.__name__ for c in found if getattr(sdk, c.__name__, None) is not c)
    assert missing == []


def test_harness_dispositions_by_name():
    from vttbridge.sdk.testing import disposition_value

    assert [disposition_value(d) for d in ("hostile", "neutral", "friendly", "secret", -1)] == [
        -1,
        0,
        1,
        -2,
        -1,
    ]
    with pytest.raises(ValueError, match="give one of hostile, neutral, friendly, secret"):
        disposition_value("hostle")  # type: ignore[arg-type]


async def test_a_failing_said_shows_the_chat():
    async with WorldHarness() as w:
        await w.token("kev", "Kevin", (0, 0), owner="pk")
        out = await w.chat("!init", token="kev")
        answer = w.said("rolls initiative", out)
        assert not answer
        assert repr(answer) == (
            "<nothing said contains 'rolls initiative'; the chat: [pk] Only the GM may use !init.>"
        )
        assert w.said("only the gm", out, whisper_to="pk")
        assert not w.said("only the gm", out, whisper_to=None)


# -- the guide's @script.choice example, as written -----------------------------------------------


def guide_block(heading: str) -> str:
    """The first python block under ``heading`` in docs/scripting.md."""
    text = (Path(__file__).parents[2] / "docs" / "scripting.md").read_text()
    section = text[text.index(heading) :]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


async def test_the_guides_choice_example_asks_and_resolves():
    script = Script("levers")
    exec(guide_block("## Choices: resolving the rules' questions"), {"script": script})
    async with WorldHarness(script) as w:
        await w.token("kev", "Kevin", (0, 0), owner="pk")
        out = await w.chat("!lever", token="kev")
        (ask,) = w.asks(out)
        assert ask.player == "pk" and ask.question == "Pull the lever?"
        out = await w.answer("pull")
        assert w.said("Kevin pulls the lever: the vault door opens.", out)
