"""Idle worlds are saved and unloaded, and wake when a client comes back."""

from __future__ import annotations

import asyncio
import gc
import logging
import weakref

import aiohttp
from vttbridge.adapters.bridge.config import WorldConfig
from vttbridge.adapters.bridge.process import SleepTrim, settle_woken
from vttbridge.adapters.bridge.worldhost import WorldHost
from vttbridge.sdk import ChatCommand, Context, Script, TokenMoved
from vttbridge.sdk.world import Prompt

from tests.bridge.conftest import TableClient, scene, start_server


async def wait_until(cond, timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not cond():
            await asyncio.sleep(0.05)


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


async def test_idle_world_sleeps_and_wakes_unchanged(db, worlds):
    # Our own handler on the bridge's logger: independent of what other tests did to the root.
    logger, records = logging.getLogger("vttbridge"), Records()
    logger.addHandler(records)
    level, disabled = logger.level, logger.disabled
    logger.setLevel(logging.INFO)
    logger.disabled = False
    server = await start_server(db, world=WorldConfig(sleep_after=0.3))
    key = worlds["table1"][0]
    try:
        c = await TableClient().connect(server.url, "table1", key)
        await c.send("snapshot", scene())
        move = {"id": "mv1", "token": "kevin", "x": 700, "y": 700}
        first = await c.send("tokenMoved", move)
        await c.send("chat", {"id": "c1", "text": "!help", "role": "gm"})
        await c.wait_commands(1)
        before = server.bridge.worlds["table1"].runtime.snapshot()
        # table2, loaded with table1 and never linked, falls asleep; table1 has a client
        await wait_until(lambda: "table2" not in server.bridge.worlds)
        assert "table1" in server.bridge.worlds
        await c.close()
        await wait_until(lambda: "table1" not in server.bridge.worlds)
        # the line is logged once the save is done, a moment after the world left the table
        await wait_until(lambda: any("'table1' saved and asleep" in ln for ln in records.lines))

        back = await TableClient().connect(server.url, "table1", key, last_seq=c.last_seq)
        host = server.bridge.worlds["table1"]
        assert host.runtime.snapshot()["world"] == before["world"]
        assert await back.send("tokenMoved", move) == {**first, "duplicate": True}
        assert await back.caught_up() == []  # nothing re-sent
        await back.close()
    finally:
        await server.stop()
        logger.removeHandler(records)
        logger.setLevel(level)
        logger.disabled = disabled


async def test_reading_state_wakes_a_sleeping_world(db, worlds):
    server = await start_server(db, world=WorldConfig(sleep_after=0.2))
    try:
        await wait_until(lambda: "table2" not in server.bridge.worlds)
        async with aiohttp.ClientSession() as s:
            url = f"{server.url}/api/worlds/table2/state"
            async with s.get(url, headers={"X-World-Key": worlds["table2"][0]}) as r:
                assert r.status == 200 and (await r.json())["world"] == "table2"
        assert "table2" in server.bridge.worlds
    finally:
        await server.stop()


async def test_pending_prompt_keeps_a_world_awake(server):
    host = server.bridge.worlds["table1"]
    host.idle_since = 0.0  # idle for ages
    assert host.can_sleep(1.0)
    host.runtime.world.prompts["p1"] = Prompt(
        id="p1", kind="ask", player="gm", question="?", options=["a", "b"], default="a"
    )
    assert not host.can_sleep(1.0)


async def test_a_script_waiting_in_memory_keeps_a_world_awake(server, worlds):
    """A callback suspended in ``ctx.wait_for`` lives only in memory: no sleep until it ends."""
    script = Script("waiter")
    moved: list[str] = []

    @script.command("wait", help="Wait for the next move.")
    async def wait(cmd: ChatCommand, ctx: Context) -> None:
        ev = await ctx.wait_for(TokenMoved, timeout=30)
        moved.append(ev.token)

    host = server.bridge.worlds["table1"]
    host.runtime.load_script(script)
    c = await TableClient().connect(server.url, "table1", worlds["table1"][0])
    try:
        await c.send("snapshot", scene())
        assert (await c.send("chat", {"id": "w1", "text": "!wait", "role": "gm"}))["ok"]
        host.idle_since = 0.0  # idle for ages
        host.subscribers.clear()  # as if the client had left
        assert host.runtime.waiting and not host.can_sleep(1.0)
        await c.send("tokenMoved", {"id": "mv-w", "token": "kevin", "x": 700, "y": 700})
        await wait_until(lambda: moved == ["kevin"])
        host.subscribers.clear()
        assert not host.runtime.waiting and host.can_sleep(1.0)
    finally:
        await c.close()


async def test_a_stop_while_a_world_falls_asleep_lets_its_save_finish(db, worlds, monkeypatch):
    """The server stopping while the sweep waits for a world's save: the save is not cancelled
    (the stop waits for it), and the stop itself ends cleanly."""
    saving, saved = asyncio.Event(), []
    stop = WorldHost.stop

    async def slow_stop(self, **kw):
        saving.set()
        await asyncio.sleep(0.3)  # the stop below comes in the middle of this save
        await stop(self, **kw)
        saved.append(self.name)

    monkeypatch.setattr(WorldHost, "stop", slow_stop)
    server = await start_server(db, world=WorldConfig(sleep_after=0.2))
    try:  # no client: the worlds loaded at the start fall asleep
        await asyncio.wait_for(saving.wait(), 5)
    finally:
        await server.stop()
    assert sorted(saved) == ["table1", "table2"]


def turn_counter() -> list[int]:
    """A count of the event loop's turns so far (a callback that runs once a turn)."""
    turns = [0]
    loop = asyncio.get_running_loop()

    def tick() -> None:
        turns[0] += 1
        if not loop.is_closed():
            loop.call_soon(tick)

    loop.call_soon(tick)
    return turns


async def test_quiet_snapshots_and_sleep_saves_take_one_world_a_turn(db, worlds, monkeypatch):
    """Worlds that go quiet together are snapshotted one a turn of the loop, and worlds that
    fall asleep together are saved one a turn: a hundred of them at once would otherwise
    hold every other world's events for the whole lot."""
    turns, snapshots, stops = turn_counter(), {}, {}
    snapshot_if_quiet, stop = WorldHost.snapshot_if_quiet, WorldHost.stop

    def spy_snapshot(self, quiet):
        done = snapshot_if_quiet(self, quiet)
        if done:
            snapshots[self.name] = turns[0]
        return done

    async def spy_stop(self, **kw):
        stops[self.name] = turns[0]
        await stop(self, **kw)

    monkeypatch.setattr(WorldHost, "snapshot_if_quiet", spy_snapshot)
    monkeypatch.setattr(WorldHost, "stop", spy_stop)
    server = await start_server(db, world=WorldConfig(snapshot_quiet=0.3, sleep_after=1.0))
    try:
        clients = []
        for name in ("table1", "table2"):
            c = await TableClient().connect(server.url, name, worlds[name][0])
            await c.send("snapshot", scene())
            clients.append(c)
        await wait_until(lambda: len(snapshots) == 2)
        assert snapshots["table1"] != snapshots["table2"]
        for c in clients:
            await c.close()
        await wait_until(lambda: not server.bridge.worlds)
        assert stops["table1"] != stops["table2"]
    finally:
        await server.stop()


async def test_a_world_put_to_sleep_is_freed_at_once_without_the_collector(db, worlds):
    """Nothing in a world refers back to what holds it, so its memory is freed the moment it
    falls asleep, world by world: not at the collector's next full pass, which would walk
    (and stop the server for) every object of every world asleep since."""
    server = await start_server(db, world=WorldConfig(sleep_after=0.3))
    key = worlds["table1"][0]
    other = await TableClient().connect(server.url, "table2", worlds["table2"][0])
    c = await TableClient().connect(server.url, "table1", key)
    gc.disable()  # a pass meanwhile would free cycles too; explicit collections still run
    try:
        await c.send("snapshot", scene())
        fight = {"id": "f1", "tokens": ["kevin", "thug"], "initiative": {"kevin": 20, "thug": 5}}
        assert (await c.send("combatStart", fight))["ok"]
        move = {"id": "mv1", "token": "kevin", "x": 300, "y": 100}
        assert (await c.send("tokenMoved", move))["ok"]
        await c.send("chat", {"id": "c1", "text": "!help", "role": "gm"})
        host = server.bridge.worlds["table1"]
        refs = [weakref.ref(o) for o in (host, host.runtime, host.runtime.world)]
        del host
        collections = gc.get_stats()[2]["collections"]
        await c.close()
        await wait_until(lambda: "table1" not in server.bridge.worlds)
        await wait_until(lambda: refs[0]() is None)
        assert [r() for r in refs] == [None, None, None]
        # table2 plays on, so no trim ran (its full collection would have freed cycles too)
        assert gc.get_stats()[2]["collections"] == collections
        assert "table2" in server.bridge.worlds
    finally:
        gc.enable()
        await other.close()
        await server.stop()


async def test_a_world_frozen_as_it_woke_is_freed_when_it_sleeps(db, worlds):
    """`serve` freezes a world as it wakes (its objects kept out of the collector's passes while
    other tables arrive); it is freed all the same as it falls asleep."""
    server = await start_server(db, world=WorldConfig(sleep_after=0.3))
    woken: list[str] = []

    def on_woken() -> None:
        woken.append("woken")
        settle_woken()

    server.bridge.hosting.on_woken = on_woken
    key = worlds["table1"][0]
    other = await TableClient().connect(server.url, "table2", worlds["table2"][0])
    gc.disable()
    try:
        c = await TableClient().connect(server.url, "table1", key)
        await c.send("snapshot", scene())
        await c.close()
        await wait_until(lambda: "table1" not in server.bridge.worlds)
        frozen = gc.get_freeze_count()
        c = await TableClient().connect(server.url, "table1", key)  # wakes it
        assert woken == ["woken"] and gc.get_freeze_count() > frozen
        host = server.bridge.worlds["table1"]
        assert set(host.runtime.world.tokens) == {"kevin", "ally", "thug"}
        refs = [weakref.ref(o) for o in (host, host.runtime, host.runtime.world)]
        del host
        await c.close()
        await wait_until(lambda: "table1" not in server.bridge.worlds)
        await wait_until(lambda: refs[0]() is None)
        assert [r() for r in refs] == [None, None, None]
    finally:
        gc.enable()
        gc.unfreeze()  # this test process goes on: leave its collector as it was
        await other.close()
        await server.stop()


async def test_memory_goes_back_when_no_world_plays_not_each_time_one_sleeps(db, worlds):
    """Handing memory back pauses the server (a few milliseconds to a few hundred): not each
    time a world falls asleep while another plays, but once none is loaded (with a full
    collection then), or at a later sweep once ten minutes have passed (the heap only: a
    collection would walk every object of the worlds still playing)."""
    server = await start_server(db, world=WorldConfig(sleep_after=0.3))
    trims: list[bool] = []  # whether each collected
    now = [0.0]
    trim = SleepTrim(trim=trims.append, clock=lambda: now[0])
    server.bridge.hosting.sleep_trim = trim
    try:
        c = await TableClient().connect(server.url, "table1", worlds["table1"][0])
        await c.send("snapshot", scene())
        await wait_until(lambda: "table2" not in server.bridge.worlds)  # never linked
        await asyncio.sleep(0.5)  # the sweeps after it
        assert trim.asleep == 1 and trims == []
        now[0] += SleepTrim.EVERY  # no other world falls asleep: a sweep trims all the same
        await wait_until(lambda: trims == [False])
        assert trim.asleep == 0 and "table1" in server.bridge.worlds
        await c.close()
        await wait_until(lambda: not server.bridge.worlds)
        await wait_until(lambda: trims == [False, True])
        assert trim.asleep == 0
    finally:
        await server.stop()


def test_sleep_trim_waits_for_a_quarter_of_the_loaded_worlds_and_ten_minutes():
    now, trims = [1000.0], []
    trim = SleepTrim(trim=lambda collect: trims.append((now[0], collect)), clock=lambda: now[0])
    assert not trim.put_to_sleep(0, 0)  # nothing put to sleep: nothing to hand back
    now[0] += SleepTrim.EVERY
    assert not trim.put_to_sleep(1, 8)  # ten minutes passed, but 1 asleep of 8: under a quarter
    assert trim.put_to_sleep(1, 8)  # 2: a quarter
    assert trims == [(now[0], False)] and trim.asleep == 0  # tables play: no collection
    assert not trim.put_to_sleep(4, 8)  # a half, but the last trim was just now
    now[0] += SleepTrim.EVERY - 1
    assert not trim.put_to_sleep(0, 8)
    now[0] += 1
    assert trim.put_to_sleep(0, 8) and len(trims) == 2
    assert trim.put_to_sleep(1, 0)  # none loaded: at once, whenever the last was
    assert trims[2] == (now[0], True)  # and with the full collection
