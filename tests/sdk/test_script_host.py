"""One script host per process: a script file is imported once, shared by every world using
it, reloaded once for all of them, and unloaded with its last world; ``on_unload`` hooks,
``ScriptFailed`` events and the typed ``wait_for``."""

from __future__ import annotations

import asyncio
import sys
import types
import typing

import pytest
from vttbridge.sdk import ChatCommand, Context, Script, ScriptFailed, TokenMoved
from vttbridge.sdk.runtime import WorldRuntime
from vttbridge.sdk.script_host import script_host
from vttbridge.sdk.testing import WorldHarness

GREETER = """
from vttbridge.sdk import Script
script = Script("greeter")

@script.command("hello")
def hello(cmd, ctx):
    ctx.store["count"] = ctx.store.get("count", 0) + 1
    ctx.say(f"hello v{VERSION} #{ctx.store['count']}")

VERSION = 1
"""


def copies(path) -> int:
    """How many modules in sys.modules were imported from ``path``."""
    where = str(path.resolve())
    return sum(1 for m in list(sys.modules.values()) if getattr(m, "__file__", None) == where)


async def hello(rt: WorldRuntime) -> str:
    out = await rt.submit({"type": "chat_command", "name": "hello", "role": "gm"})
    return out[0].text


async def test_fifty_worlds_and_ten_reloads_hold_one_module(tmp_path):
    p = tmp_path / "greeter.py"
    p.write_text(GREETER)
    worlds = [WorldRuntime(f"w{i}", scripts=[str(p)], reload_interval=None) for i in range(50)]
    try:
        for rt in worlds:
            await rt.start()
        assert copies(p) == 1
        assert await hello(worlds[0]) == "hello v1 #1"
        for version in range(2, 12):
            p.write_text(GREETER.replace("VERSION = 1", f"VERSION = {version}"))
            assert await worlds[version % 50].reload_script("greeter")
            assert copies(p) == 1
        for rt in worlds:
            await rt.idle()  # each world swapped the new version in through its consumer
        # every world runs the last version; each kept its own state
        assert await hello(worlds[0]) == "hello v11 #2"
        assert await hello(worlds[49]) == "hello v11 #1"
        assert all(rt.scripts()[-1] is worlds[0].scripts()[-1] for rt in worlds)
    finally:
        for rt in worlds:
            await rt.stop()
    assert copies(p) == 0
    assert p.resolve() not in script_host().modules()


async def test_unloading_the_last_user_removes_the_module(tmp_path):
    p = tmp_path / "greeter.py"
    p.write_text(GREETER)
    a = WorldRuntime("a", scripts=[str(p)], reload_interval=None)
    b = WorldRuntime("b", scripts=[str(p)], reload_interval=None)
    async with a, b:
        a.unload_script("greeter")
        assert copies(p) == 1  # b still uses it
        b.unload_script("greeter")
        assert copies(p) == 0


async def test_a_file_change_reloads_once_for_every_world(tmp_path, monkeypatch):
    counter = types.ModuleType("vttbridge_test_import_counter")
    counter.n = 0
    monkeypatch.setitem(sys.modules, counter.__name__, counter)
    p = tmp_path / "greeter.py"
    p.write_text("import vttbridge_test_import_counter as c\nc.n += 1\n" + GREETER)
    worlds = [WorldRuntime(f"w{i}", scripts=[str(p)], reload_interval=1.0) for i in range(3)]
    reloaded = [asyncio.Event() for _ in worlds]
    for rt, done in zip(worlds, reloaded, strict=True):
        rt.on_effects(
            lambda effects, done=done: (
                done.set()
                if any("Reloaded greeter.py" in getattr(e, "text", "") for e in effects)
                else None
            )
        )
    try:
        for rt in worlds:
            await rt.start()
        assert counter.n == 1
        p.write_text(p.read_text().replace("VERSION = 1", "VERSION = 2"))
        await asyncio.wait_for(asyncio.gather(*(e.wait() for e in reloaded)), 10)
        assert counter.n == 2 and copies(p) == 1
        for rt in worlds:
            assert (await hello(rt)).startswith("hello v2")
    finally:
        for rt in worlds:
            await rt.stop()
    assert copies(p) == 0


async def test_a_failed_reload_keeps_the_old_version_everywhere(tmp_path):
    p = tmp_path / "greeter.py"
    p.write_text(GREETER)
    async with WorldHarness(str(p)) as a, WorldHarness(str(p)) as b:
        p.write_text(GREETER + "\n1 / 0\n")
        assert not await a.runtime.reload_script("greeter")
        await b.runtime.idle()
        for w in (a, b):
            assert w.said("Reloading greeter.py failed, keeping the old version", w.background)
            assert w.said("hello v1", await w.gm_says("!hello"))
        assert copies(p) == 1


async def test_on_unload_runs_on_unload_reload_and_stop(tmp_path):
    p = tmp_path / "tidy.py"
    body = (
        "from vttbridge.sdk import Script\n"
        "script = Script('tidy')\n"
        "@script.on_unload\n"
        "def bye(ctx):\n"
        "    ctx.tell_gm('tidy vVERSION unloaded')\n"
    )
    p.write_text(body.replace("VERSION", "1"))
    w = WorldHarness(str(p))
    async with w:
        p.write_text(body.replace("VERSION", "2"))
        assert await w.runtime.reload_script("tidy")
        assert w.said("tidy v1 unloaded", w.background)
        assert not w.said("tidy v2 unloaded", w.background)
    assert w.said("tidy v2 unloaded", w.background)  # the world stopped

    s = Script("plain")

    @s.on_unload
    def gone(ctx: Context) -> None:
        ctx.tell_gm("plain unloaded")

    async with WorldHarness(s) as w2:
        w2.runtime.unload_script("plain")
        await w2.runtime.idle()
        assert w2.said("plain unloaded", w2.background)


async def test_script_failed_is_dispatched_to_listeners():
    s = Script("fragile")
    seen: list[ScriptFailed] = []

    @s.command("boom")
    def boom(cmd: ChatCommand, ctx: Context) -> None:
        raise ValueError("no fuse")

    @s.command("stall")
    async def stall(cmd: ChatCommand, ctx: Context) -> None:
        await asyncio.sleep(30)

    watcher = Script("watcher")

    @watcher.on(ScriptFailed)
    def noted(event: ScriptFailed) -> None:
        seen.append(event)

    @watcher.on(ScriptFailed)
    def broken(event: ScriptFailed) -> None:
        raise RuntimeError("a failing failure listener")

    async with WorldHarness(s, watcher, settings={"script_budget": 0.05}) as w:
        out = await w.gm_says("!boom")
        assert w.said("raised ValueError: no fuse", out)
        assert w.said("raised RuntimeError: a failing failure listener", out)
        (failed,) = seen  # the failing listener's own failure made no second one
        assert (failed.script, failed.callback, failed.error) == ("fragile", "boom", "ValueError")
        assert failed.line > 0 and failed.file.endswith("test_script_host.py")
        await w.gm_says("!stall")
        assert seen[-1].callback == "stall" and "budget" in seen[-1].reason
        assert seen[-1].error is None


def test_wait_for_with_one_type_is_typed_for_that_type():
    one, _many = typing.get_overloads(Context.wait_for)
    hints = typing.get_type_hints(one)
    (var,) = typing.get_args(hints["event_type"])
    assert hints["return"] is var and var.__bound__ is not None
    assert issubclass(TokenMoved, var.__bound__)


@pytest.mark.parametrize("bad", ["1 / 0\n", "x = 1\n"])  # raises / defines no Script
async def test_a_file_that_does_not_load_leaves_nothing_behind(tmp_path, bad):
    from vttbridge.sdk.errors import ScriptError

    p = tmp_path / "bad.py"
    p.write_text(bad)
    with pytest.raises(ScriptError):
        WorldRuntime("w", scripts=[str(p)], reload_interval=None)
    assert copies(p) == 0
