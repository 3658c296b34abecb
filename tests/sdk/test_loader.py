"""Loading scripts from files, modules and entry points; reloading without losing state."""

import asyncio
import os
import types

import pytest
from vttbridge.rules.geometry import Cell
from vttbridge.sdk import Script
from vttbridge.sdk.errors import ScriptError
from vttbridge.sdk.events import TokenMoved
from vttbridge.sdk.loader import ENTRY_POINT_GROUP, import_file, load_source, scripts_of
from vttbridge.sdk.runtime import WorldRuntime
from vttbridge.sdk.testing import WorldHarness

V1 = """
from vttbridge.sdk import Script
script = Script("greeter")

@script.command("hello")
def hello(cmd, ctx):
    ctx.store["count"] = ctx.store.get("count", 0) + 1
    ctx.say(f"hello v1 #{ctx.store['count']}")
"""
V2 = V1.replace("hello v1", "hello v2")


def write(path, text):
    path.write_text(text)
    st = path.stat()  # make sure the watcher sees a new mtime even within one clock tick
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_setup_function_and_script_objects(tmp_path):
    p = tmp_path / "mod.py"
    p.write_text("def setup(script):\n    @script.command('x')\n    def x(cmd, ctx): pass\n")
    scripts, src = load_source(str(p))
    assert [s.name for s in scripts] == ["mod"] and "x" in scripts[0].commands
    assert src.kind == "file" and src.path == p.resolve()
    mod = types.ModuleType("m")
    mod.a = Script("a")
    assert scripts_of(mod) == [mod.a]
    with pytest.raises(ScriptError):
        scripts_of(types.ModuleType("empty"))


def test_import_errors_name_the_file_and_line(tmp_path):
    p = tmp_path / "broken.py"
    p.write_text("x = 1\n\ny = 1 / 0\n")
    with pytest.raises(ScriptError, match=r"broken.py:3: ZeroDivisionError"):
        import_file(p)
    p.write_text("def f(:\n")
    with pytest.raises(ScriptError, match=r"broken.py:1: SyntaxError"):
        import_file(p)
    with pytest.raises(ScriptError):
        import_file(tmp_path / "missing.py")


def test_duplicate_script_names_are_refused():
    with pytest.raises(ScriptError):
        WorldRuntime("w", scripts=[Script("core")])


async def test_reload_keeps_world_state(tmp_path):
    p = tmp_path / "greeter.py"
    p.write_text(V1)
    async with WorldHarness(str(p)) as w:
        await w.token("t", "T", (1, 1))
        assert w.said("hello v1 #1", await w.gm_says("!hello"))
        write(p, V2)
        assert await w.runtime.reload_script("greeter")
        out = await w.gm_says("!hello")
        assert w.said("hello v2 #2", out)  # new code, old store
        assert w.world.tokens["t"].cell == Cell(x=1, y=1)


async def test_failed_reload_keeps_the_old_version(tmp_path):
    p = tmp_path / "greeter.py"
    p.write_text(V1)
    async with WorldHarness(str(p)) as w:
        write(p, V1 + "\n1 / 0\n")
        assert not await w.runtime.reload_script("greeter")
        assert w.said("Reloading greeter.py failed, keeping the old version", w.background)
        assert w.said("greeter.py:10: ZeroDivisionError", w.background)
        assert w.said("hello v1", await w.gm_says("!hello"))


async def test_watcher_reloads_a_changed_file(tmp_path):
    p = tmp_path / "greeter.py"
    p.write_text(V1)
    rt = WorldRuntime("w", scripts=[str(p)], reload_interval=0.01)
    reloaded = asyncio.Event()
    rt.on_effects(
        lambda effects: (
            reloaded.set()
            if any("Reloaded greeter.py" in getattr(e, "text", "") for e in effects)
            else None
        )
    )
    await rt.start()
    try:
        write(p, V2)
        await asyncio.wait_for(reloaded.wait(), 10)
        out = await rt.submit({"type": "chat_command", "name": "hello", "role": "gm"})
        assert "hello v2" in out[0].text
    finally:
        await rt.stop()


async def test_reload_drops_old_callbacks_and_position_triggers(tmp_path):
    p = tmp_path / "zone.py"
    p.write_text(
        "from vttbridge.sdk import Script, rect\n"
        "script = Script('zone')\n"
        "script.region('z', rect(5, 5, 6, 6))\n"
        "@script.on_enter('z')\n"
        "def entered(event, ctx):\n"
        "    ctx.say('v1 entered')\n"
    )
    async with WorldHarness(str(p)) as w:
        await w.token("t")
        assert w.said("v1 entered", await w.move("t", (5, 5)))
        write(p, p.read_text().replace("v1", "v2").replace("rect(5, 5, 6, 6)", "rect(8, 8, 8, 8)"))
        await w.runtime.reload_script("zone")
        await w.move("t", (0, 0))
        assert not w.said("entered", await w.move("t", (5, 5)))
        assert w.said("v2 entered", await w.move("t", (8, 8)))
        assert len([t for t in w.runtime.index.triggers.values() if t.owner == "script:zone"]) == 1


async def test_entry_points_are_loaded(monkeypatch):
    s = Script("plugin")

    @s.command("plug")
    def plug(cmd, ctx):
        ctx.say("from a plug-in")

    class EP:
        name, value = "plugin", "pkg:script"

        def load(self):
            return s

    class Broken(EP):
        name = "broken"

        def load(self):
            raise ImportError("nope")

    def fake_entry_points(group):
        assert group == ENTRY_POINT_GROUP
        return [EP(), Broken()]

    monkeypatch.setattr("vttbridge.sdk.loader.entry_points", fake_entry_points)
    rt = WorldRuntime("w", entry_points=True)
    await rt.start()
    try:
        out = await rt.submit({"type": "chat_message", "text": "!plug"})
        assert out[0].text == "from a plug-in"
    finally:
        await rt.stop()


async def test_on_load_hook_runs_through_the_consumer():
    s = Script("setup_stats")

    @s.on_load
    def prepare(ctx):
        ctx.define_region("dock", [(1, 1), (1, 2)])

    async with WorldHarness(s) as w:
        assert "dock" in w.world.regions
        seen = []
        s2 = Script("late")

        @s2.on(TokenMoved)
        def m(event):
            seen.append(event.token)

        w.runtime.load_script(s2)
        await w.token("t")
        await w.move("t", (1, 1))
        assert seen == ["t"]
        w.runtime.unload_script("late")
        await w.move("t", (2, 2))
        assert seen == ["t"]
