"""The runtime: order, rejection, journal, waiting callbacks, timeouts, errors, snapshots."""

import asyncio
import json

import pytest
from vttbridge.rules.dice import Roller, ScriptedRoller
from vttbridge.rules.geometry import Cell
from vttbridge.rules.outcome import Outcome
from vttbridge.sdk import Context, Script
from vttbridge.sdk.clock import ManualClock
from vttbridge.sdk.effects import PostChat
from vttbridge.sdk.errors import EventRejected
from vttbridge.sdk.events import (
    ActorUpdated,
    ChatMessage,
    PromptAnswered,
    TimerFired,
    TokenCreated,
    TokenData,
    TokenMoved,
    TokenRemoved,
    TokenUpdated,
)
from vttbridge.sdk.runtime import MAX_DERIVED, WorldRuntime
from vttbridge.sdk.testing import WorldHarness
from vttbridge.systems.spycraft.rules.state import spycraft


def moved(token: str, x: int, y: int) -> TokenMoved:
    return TokenMoved(token=token, to_cell=Cell(x=x, y=y))


async def test_submit_before_start_is_an_error():
    rt = WorldRuntime("w", builtins=False)
    with pytest.raises(RuntimeError):
        await rt.submit(moved("t", 1, 1))


async def test_events_are_processed_in_order_and_never_interleave():
    log: list[str] = []
    s = Script("probe")

    @s.on(TokenMoved)
    async def slow(event: TokenMoved, ctx: Context) -> None:
        log.append(f"start {event.to_cell.x}")
        for _ in range(3):
            await asyncio.sleep(0)  # yields to the loop, as a network call would
        assert ctx.tokens["t"].cell == event.to_cell  # nobody else moved it meanwhile
        log.append(f"end {event.to_cell.x}")

    async with WorldHarness(s, builtins=False) as w:
        await w.token("t")
        await asyncio.gather(*(w.send(moved("t", i, 0)) for i in range(1, 6)))
        assert log == [f"{p} {i}" for i in range(1, 6) for p in ("start", "end")]
        assert w.world.tokens["t"].cell.x == 5


@pytest.mark.parametrize(
    "event",
    [
        moved("ghost", 1, 1),
        TokenRemoved(token="ghost"),
        TokenUpdated(token="t", stats={"reflex": "very"}),
        TokenUpdated(token="t", stats={"charisma": 3}),
        TokenCreated(token=TokenData(id="t", cell=Cell(x=0, y=0))),
        ActorUpdated(actor="a", stats={"wounds": "lots"}),
        ChatMessage(text="!next", token="ghost"),
        PromptAnswered(prompt="p9", option="fire"),
    ],
)
async def test_rejected_events_leave_the_world_untouched(event):
    async with WorldHarness() as w:
        await w.token("t", "T", (2, 2))
        before = w.runtime.snapshot()
        seen = len(w.journal)
        with pytest.raises(EventRejected) as e:
            await w.send(event)
        assert e.value.code in {"unknown_token", "bad_stats", "duplicate_token", "unknown_prompt"}
        assert w.runtime.snapshot() == before
        assert len(w.journal) == seen  # not journaled
        assert (await w.send(moved("t", 3, 3))) == []  # and the world goes on


async def test_cells_a_script_sets_are_mirrored_on_the_map():
    """A rule (or script) that moves characters writes Encounter.positions; applying its
    outcome moves their tokens, whoever it names, and also after the dict was replaced."""
    s = Script("shover")

    @s.command("shove")
    def shove(cmd, ctx: Context) -> None:
        ctx.encounter.positions["b"] = Cell(x=5, y=5)  # nobody named in the outcome
        ctx.apply(Outcome(), announce=False)

    @s.command("swap")
    def swap(cmd, ctx: Context) -> None:
        enc = ctx.encounter
        enc.positions = {"a": enc.positions["b"], "b": enc.positions["a"]}  # a plain dict
        ctx.apply(Outcome(), announce=False)

    async with WorldHarness(s) as w:
        await w.token("a", "A", (0, 0))
        await w.token("b", "B", (1, 0))
        out = await w.gm_says("!shove")
        assert [(m.token, m.cell) for m in w.moves(out)] == [("b", Cell(x=5, y=5))]
        assert await w.gm_says("!shove") == []  # already there: no second move
        out = await w.gm_says("!swap")
        assert {(m.token, m.cell) for m in w.moves(out)} == {
            ("a", Cell(x=5, y=5)),
            ("b", Cell(x=0, y=0)),
        }
        assert w.world.tokens["a"].cell == Cell(x=5, y=5)


async def test_a_rule_failing_half_way_leaves_the_encounter_as_it_was():
    s = Script("clumsy")

    def half_done(enc, roller) -> Outcome:
        enc.round = 99
        enc.positions["a"] = Cell(x=7, y=7)
        roller.roll("1d20", "too late")  # the scripted dice have run dry: raises
        return Outcome()

    @s.command("clumsy")
    def clumsy(cmd, ctx: Context) -> None:
        ctx.rule(half_done)

    async with WorldHarness(s) as w:
        await w.token("a", "A", (0, 0))
        before = w.encounter.model_dump()
        w.dice()  # no dice left
        out = await w.gm_says("!clumsy")
        assert w.said("clumsy", out, whisper_to="gm")  # the error is reported
        assert w.encounter.model_dump() == before
        assert w.world.tokens["a"].cell == Cell(x=0, y=0)


async def test_bad_option_for_a_prompt_is_rejected():
    s = Script("asker")

    @s.command("q")
    async def q(cmd, ctx: Context) -> None:
        await ctx.ask("gm", "Pick", ["a", "b"])

    async with WorldHarness(s) as w:
        await w.gm_says("!q")
        with pytest.raises(EventRejected) as e:
            await w.send(PromptAnswered(prompt="p1", option="zzz"))
        assert e.value.code == "bad_option"
        assert w.prompts


async def test_journal_sees_every_processed_event_and_unsubscribes():
    async with WorldHarness() as w:
        seen: list[str] = []
        stop = w.runtime.add_journal(lambda ev, eff: seen.append(ev.type))
        await w.token("t")
        await w.send(moved("t", 1, 1))
        stop()
        await w.send(moved("t", 2, 2))
        assert seen == ["token_created", "token_moved"]


async def test_async_journal_is_awaited_before_the_next_event():
    order: list[str] = []

    async def persist(event, effects):
        await asyncio.sleep(0.01)
        order.append(f"saved {event.type}")

    async with WorldHarness() as w:
        w.runtime.add_journal(persist)
        w.runtime.add_journal(lambda e, f: 1 / 0)  # a failing subscriber is only logged
        await asyncio.gather(w.token("t"), w.send(moved("t", 1, 1)))
        assert order == ["saved token_created", "saved token_moved"]


async def test_ask_suspends_the_callback_and_resumes_in_the_answering_step():
    s = Script("asker")

    @s.command("duel")
    async def duel(cmd, ctx: Context) -> None:
        answer = await ctx.ask(cmd.token, "Draw?", ["draw", "flee"], default="flee")
        ctx.say(f"{ctx.name(cmd.token)} chose {answer}")

    async with WorldHarness(s) as w:
        await w.token("kev", "Kevin", owner="pk")
        out = await w.chat("!duel", token="kev")
        ask = w.asks(out)[0]
        assert ask.player == "pk" and ask.default == "flee" and "!answer p1" in ask.text
        # other events go on while the callback waits
        assert await w.send(moved("kev", 4, 4)) == []
        out = await w.chat("!answer p1 dr", player="pk")  # a unique prefix will do
        assert w.said("Kevin chose draw", out)
        assert not w.prompts


async def test_prompt_permissions_and_numbering():
    s = Script("asker")

    @s.command("q")
    async def q(cmd, ctx: Context) -> None:
        ctx.say(await ctx.ask("pk", "Pick", ["a", "b"]))

    async with WorldHarness(s) as w:
        await w.chat("!q", player="pk")
        out = await w.chat("!answer p1 a", player="someone-else")
        assert w.said("for someone else", out, whisper_to="someone-else")
        out = await w.chat("!answer 2", player="pk")  # the only question: id optional
        assert w.said("b", out, whisper_to=None)


async def test_prompt_timeout_applies_the_default_and_is_journaled():
    s = Script("asker")

    @s.command("q")
    async def q(cmd, ctx: Context) -> None:
        ctx.say("got " + await ctx.ask("gm", "Pick", ["a", "b"], default="b", timeout=30))

    async with WorldHarness(s) as w:
        await w.gm_says("!q")
        assert await w.advance(29) == []
        out = await w.advance(1)
        assert w.said("got b", out)
        ev, _ = w.journal[-1]
        assert isinstance(ev, PromptAnswered) and ev.timed_out and ev.source == "runtime"


async def test_wait_for_with_predicate_and_timeout():
    s = Script("waiter")
    results: list[str] = []

    @s.command("watch")
    async def watch(cmd, ctx: Context) -> None:
        try:
            ev = await ctx.wait_for(
                TokenMoved, check=lambda e: e.token == "b" and e.to_cell.x > 5, timeout=10
            )
            results.append(f"b at {ev.to_cell.x}")
            ctx.say("spotted")
        except TimeoutError:
            results.append("timeout")
            ctx.say("gave up")

    async with WorldHarness(s) as w:
        await w.token("a")
        await w.token("b")
        await w.gm_says("!watch")
        await w.send(moved("a", 9, 9))  # wrong token
        await w.send(moved("b", 2, 2))  # check fails
        out = await w.send(moved("b", 7, 2))
        assert results == ["b at 7"] and w.said("spotted", out)

        await w.gm_says("!watch")
        out = await w.advance(10)
        assert results[-1] == "timeout" and w.said("gave up", out)
        assert isinstance(w.journal[-1][0], TimerFired)


async def test_failing_script_is_reported_with_file_and_line(tmp_path):
    path = tmp_path / "buggy.py"
    path.write_text(
        "from vttbridge.sdk import Script, TokenMoved\n"
        "script = Script('buggy')\n"
        "@script.on(TokenMoved)\n"
        "def boom(event, ctx):\n"
        "    x = 1\n"
        "    return x / 0\n"
    )
    async with WorldHarness(str(path)) as w:
        await w.token("t")
        out = await w.send(moved("t", 1, 1))
        gm = w.chat_lines(out, whisper_to="gm")
        assert len(gm) == 1 and "buggy.py:6" in gm[0] and "ZeroDivisionError" in gm[0]
        assert w.world.tokens["t"].cell == Cell(x=1, y=1)  # the world went on


async def test_a_failing_script_leaves_no_garbage_for_the_collector(tmp_path):
    """A scripter's listener that fails at every move is reported each time; its error is
    let go of once reported (its traceback leads back to the frame that ran the callback,
    which held it: a reference cycle at every failure, frames included)."""
    import gc
    import logging

    path = tmp_path / "buggy.py"
    path.write_text(
        "from vttbridge.sdk import Script, TokenMoved\n"
        "script = Script('buggy')\n"
        "@script.on(TokenMoved)\n"
        "def boom(event, ctx):\n"
        "    return 1 / 0\n"
        "@script.on(TokenMoved)\n"
        "async def aboom(event, ctx):\n"
        "    return 1 / 0\n"
    )
    async with WorldHarness(str(path)) as w:
        await w.token("t")
        await w.send(moved("t", 1, 1))
        gc.collect()
        gc.disable()  # what the failures leave, only refcounting frees
        logging.disable(logging.ERROR)  # the captured log records would keep the errors
        try:
            for x in range(2, 5):
                out = await w.send(moved("t", x, 1))
                assert len(w.chat_lines(out, whisper_to="gm")) == 2  # both reported
            gc.set_debug(gc.DEBUG_SAVEALL)
            gc.collect()
            left = [o for o in gc.garbage if isinstance(o, ZeroDivisionError)]
        finally:
            logging.disable(logging.NOTSET)
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
        assert left == []


async def test_slow_async_script_is_stopped_and_reported(tmp_path):
    path = tmp_path / "slow.py"
    path.write_text(
        "import asyncio\n"
        "from vttbridge.sdk import Script, TokenMoved\n"
        "script = Script('slow')\n"
        "@script.on(TokenMoved)\n"
        "async def dawdle(event, ctx):\n"
        "    await asyncio.sleep(30)\n"
        "    ctx.say('never')\n"
    )
    async with WorldHarness(str(path), settings={"script_budget": 0.05}) as w:
        await w.token("t")
        out = await w.send(moved("t", 1, 1))
        gm = w.chat_lines(out, whisper_to="gm")
        assert any("slow.py:6" in line and "budget" in line for line in gm)
        assert not w.said("never", out)
        await w.send(TokenUpdated(token="t", name="Still here"))
        assert w.world.tokens["t"].cell == Cell(x=1, y=1)
        assert w.world.tokens["t"].name == "Still here"


async def test_slow_sync_script_is_reported_after_the_fact():
    s = Script("sleepy")

    @s.on(TokenMoved)
    def nap(event, ctx):
        import time

        time.sleep(0.06)

    async with WorldHarness(s, settings={"script_budget": 0.05}) as w:
        await w.token("t")
        out = await w.send(moved("t", 1, 1))
        assert w.said("past its 0.05 s budget", out, whisper_to="gm")


async def test_one_arg_callbacks_and_annotation_inference():
    s = Script("plain")
    seen = []

    @s.on()
    def on_move(event: TokenMoved):
        seen.append(event.to_cell.x)

    async with WorldHarness(s) as w:
        await w.token("t")
        await w.send(moved("t", 3, 0))
    assert seen == [3]


async def test_runaway_follow_up_events_are_cut_off():
    s = Script("loop")

    @s.on(TokenMoved)
    def bounce(event: TokenMoved, ctx: Context):
        ctx.move(event.token, (event.to_cell.x + 1, 0))

    async with WorldHarness(s) as w:
        await w.token("t")
        out = await w.send(moved("t", 1, 0))
        assert w.said(f"More than {MAX_DERIVED} follow-up events", out, whisper_to="gm")


async def test_unknown_command_and_usage_are_whispered():
    async with WorldHarness() as w:
        await w.token("k", owner="pk")
        out = await w.chat("!frobnicate", token="k")
        assert out == [
            PostChat(text="Unknown command !frobnicate. Type !help for the list.", whisper_to="pk")
        ]
        out = await w.chat("!delay", token="k")
        assert w.said("Usage: !delay <steps>", out, whisper_to="pk")
        out = await w.chat("!init", token="k")
        assert w.said("Only the GM may use !init", out, whisper_to="pk")
        out = await w.chat("!help", role="observer", player="obs")
        assert w.said("!help", out, whisper_to="obs") and not w.said("!init", out)


async def test_actor_stats_flow_to_linked_tokens_only():
    async with WorldHarness() as w:
        await w.send(TokenCreated(token=TokenData(id="t1", cell=Cell(x=0, y=0), actor="thug")))
        await w.send(
            TokenCreated(
                token=TokenData(
                    id="t2", cell=Cell(x=1, y=0), actor="thug", linked=False, stats={"reflex": 1}
                )
            )
        )
        await w.send(ActorUpdated(actor="thug", name="Thug", stats={"reflex": 5, "bab": 2}))
        chars = w.encounter.characters
        assert (chars["t1"].reflex, chars["t1"].bab, chars["t1"].name) == (5, 2, "Thug")
        assert chars["t2"].reflex == 1  # unlinked: keeps its own


async def test_state_view_is_json():
    async with WorldHarness(dice=[10, 5]) as w:
        await w.token("a", "A", owner="pa")
        await w.token("b", "B")
        await w.gm_says("!init")
        view = w.runtime.state_view()
        json.dumps(view)
        assert [c["token"] for c in view["initiative"]] == ["a", "b"]
        assert view["encounter"]["active"] == "a"


# -- snapshots and replay ---------------------------------------------------------------------


async def play(rt: WorldRuntime, clock: ManualClock, events) -> None:
    for ev in events:
        if isinstance(ev, float):
            clock.advance(ev)
            await rt.idle()
        else:
            await rt.submit(ev)


def scenario():
    from vttbridge.sdk.events import CombatStarted
    from vttbridge.sdk.regions import rect

    s = Script("replay_probe")
    s.region("corner", rect(5, 0, 6, 3))

    @s.command("roll")
    def roll(cmd, ctx: Context) -> None:
        ctx.roll(cmd.args or "1d20", "probe")

    gm = {"role": "gm", "player": "gm"}
    first = [
        TokenCreated(
            token=TokenData(
                id="kev",
                name="Kevin",
                cell=Cell(x=0, y=0),
                owners=["pk"],
                stats={"reflex": 4, "initiative": 3},
            )
        ),
        TokenCreated(token=TokenData(id="gary", name="Gary", cell=Cell(x=9, y=9), owners=["pg"])),
        TokenCreated(token=TokenData(id="thug", name="Thug", cell=Cell(x=9, y=2))),
        ChatMessage(text="!roll 3d6", **gm),
        CombatStarted(tokens=["kev", "gary", "thug"], initiative={"kev": 22, "gary": 14}),
    ]
    rest = [
        ChatMessage(text="!ready shoot --when corner", token="kev", player="pk"),
        ChatMessage(text="!roll 1d100", **gm),
        moved("gary", 6, 2),
        60.0,  # the cancel question times out: the Ready fires
        ChatMessage(text="!next", **gm),
        moved("thug", 5, 1),
        ChatMessage(text="!roll 4d6kh3", **gm),
    ]
    return s, first, rest


async def test_restore_and_replay_reach_the_same_state():
    s, first, rest = scenario()
    clock = ManualClock()
    rt = WorldRuntime("w", roller=Roller(seed=7), scripts=[s], clock=clock, reload_interval=None)
    log: list = []
    rt.add_journal(lambda ev, eff: log.append(ev))
    await rt.start()
    await play(rt, clock, first)
    snap = json.loads(json.dumps(rt.snapshot()))  # through JSON, as the bridge stores it
    mark = len(log)
    await play(rt, clock, rest)
    final = rt.snapshot()
    await rt.stop()

    clock2 = ManualClock()
    rt2 = WorldRuntime.restore("w", snap, scripts=[s], clock=clock2, reload_interval=None)
    await rt2.start()
    for ev in log[mark:]:  # replay the journal, including the runtime's own timeout answer
        await rt2.submit(ev)
    assert rt2.snapshot() == final
    await rt2.stop()
    assert any(isinstance(ev, PromptAnswered) and ev.timed_out for ev in log[mark:])


async def test_a_snapshot_leaves_out_defaults_and_restores_every_field():
    s, first, rest = scenario()
    clock = ManualClock()
    rt = WorldRuntime("w", roller=Roller(seed=7), scripts=[s], clock=clock, reload_interval=None)
    await rt.start()
    await play(rt, clock, first + rest[:3])  # mid-fight: a Ready, a pending prompt
    assert rt.world.prompts and spycraft(rt.world.encounter).readies
    snap = json.loads(json.dumps(rt.snapshot()))
    full = rt.world.model_dump(mode="json")
    assert len(json.dumps(snap["world"])) < len(json.dumps(full)) / 2
    restored = WorldRuntime.restore("w", snap, scripts=[s], reload_interval=None)
    assert restored.world.model_dump(mode="json") == full
    # from the JSON text too (how the bridge reads its snapshots)
    from_text = WorldRuntime.restore("w", json.dumps(snap), scripts=[s], reload_interval=None)
    assert from_text.world.model_dump(mode="json") == full
    assert from_text.snapshot() == restored.snapshot()
    with pytest.raises(ValueError, match="unsupported snapshot format"):
        WorldRuntime.restore("w", json.dumps({**snap, "format": 99}))
    # format 1 kept each system's state beside the encounter's fields, under its name
    old = json.loads(json.dumps(snap))
    old["format"] = 1
    enc = old["world"]["encounter"]
    enc.update(enc.pop("states"))
    assert "spycraft" in enc
    for data in (old, json.dumps(old)):
        older = WorldRuntime.restore("w", data, scripts=[s], reload_interval=None)
        assert older.world.model_dump(mode="json") == full
    await rt.stop()


async def test_scripted_roller_state_survives_a_snapshot():
    rt = WorldRuntime("w", roller=ScriptedRoller([3, 4, 5]), builtins=False)
    rt.roller.roll("1d6")
    rt2 = WorldRuntime.restore("w", rt.snapshot(), builtins=False)
    assert isinstance(rt2.roller, ScriptedRoller) and rt2.roller.script == [4, 5]


async def test_restored_prompt_timer_is_rearmed():
    s = Script("asker")

    @s.command("q")
    async def q(cmd, ctx: Context) -> None:
        await ctx.ask("gm", "Pick", ["a", "b"], default="b", timeout=30)

    clock = ManualClock()
    async with WorldHarness(s) as w:
        w.clock._now = clock.now()
        await w.gm_says("!q")
        snap = w.runtime.snapshot()
    rt = WorldRuntime.restore("w", snap, scripts=[s], clock=clock, reload_interval=None)
    got: list = []
    rt.add_journal(lambda ev, eff: got.append(ev))
    await rt.start()
    clock.advance(31)
    await rt.idle()
    await rt.stop()
    assert got and isinstance(got[0], PromptAnswered) and got[0].option == "b"


async def test_prompt_answered_event_checks_the_player():
    from vttbridge.sdk.events import Player, SceneData, SceneSnapshot

    s = Script("asker")

    @s.command("q")
    async def q(cmd, ctx: Context) -> None:
        ctx.say("got " + await ctx.ask("pk", "Pick", ["a", "b"]))

    async with WorldHarness(s) as w:
        await w.send(
            SceneSnapshot(
                scene=SceneData(id="s"), players=[Player(id="dm", role="gm"), Player(id="pk")]
            )
        )
        await w.chat("!q", player="pk")
        with pytest.raises(EventRejected) as e:
            await w.send(PromptAnswered(prompt="p1", option="a", player="intruder"))
        assert e.value.code == "not_your_prompt"
        out = await w.send(PromptAnswered(prompt="p1", option="b", player="dm"))  # a GM may
        assert w.said("got b", out)


async def test_a_stopped_world_is_freed_as_it_is_let_go_without_the_collector(tmp_path):
    """Nothing in a world refers back to what holds it (the parts reach the runtime through a
    weak proxy; the script host's user is the loader), so a host that lets go of a stopped
    world frees it at once: a host of many worlds does not wait for a full pass of the
    collector, which walks every object of every world, to free the ones that went."""
    import gc
    import weakref

    p = tmp_path / "greeter.py"
    p.write_text(
        "from vttbridge.sdk import Script\n"
        "script = Script('greeter')\n"
        "@script.command('hello')\n"
        "def hello(cmd, ctx):\n"
        "    ctx.say('hello')\n"
        "@script.on_enter(cells=[(3, 3)])\n"
        "def arrived(ev, ctx):\n"
        "    ctx.say('arrived')\n"
    )
    rt = WorldRuntime("w", scripts=[str(p)], callback_thread=True)
    gc.disable()  # explicit collections still run; a pass meanwhile would free cycles too
    try:
        await rt.start()
        await rt.submit(TokenCreated(token=TokenData(id="t", cell=Cell(x=0, y=0))))
        assert [e.text for e in await rt.submit(moved("t", 3, 3))] == ["arrived"]
        await rt.submit({"type": "chat_command", "name": "hello", "role": "gm"})
        await rt.stop()
        refs = [weakref.ref(rt), weakref.ref(rt.world), weakref.ref(rt.index)]
        del rt
        await asyncio.sleep(0)  # the stopped consumer task's last callback runs in this turn
        assert [r() for r in refs] == [None, None, None]
    finally:
        gc.enable()
