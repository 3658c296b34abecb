"""The watchdog of plain script callbacks: past its budget a callback is stopped where it is
running (a busy loop, a blocking sleep), the GM is told that file and line, the world goes on."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from vttbridge.rules.geometry import Cell
from vttbridge.sdk import TokenMoved, TokenUpdated
from vttbridge.sdk.testing import WorldHarness
from vttbridge.sdk.watchdog import ScriptTimeout, watchdog


def moved(token: str, x: int, y: int) -> TokenMoved:
    return TokenMoved(token=token, to_cell=Cell(x=x, y=y))


def script_file(tmp_path: Path, body: str, name: str = "stuck.py") -> str:
    path = tmp_path / name
    head = "from vttbridge.sdk import Script, TokenMoved\nscript = Script('stuck')\n"
    path.write_text(head + body)
    return str(path)


BUSY = """\
@script.on(TokenMoved)
def spin(event, ctx):
    n = 0
    while True:
        n += 1
"""
SLEEP = """\
import time
@script.on(TokenMoved)
def nap(event, ctx):
    ctx.say('before')
    time.sleep(3)
    ctx.say('after')
"""
STUBBORN = """\
import time
@script.on(TokenMoved)
def stubborn(event, ctx):
    try:
        while True:
            pass
    except BaseException:
        pass
    while True:
        time.sleep(0.01)
"""
SLOW_PREDICATE = """\
def spin(event):
    while True:
        pass
@script.on(TokenMoved, when=spin)
def after(event, ctx):
    ctx.say('the body')
"""


async def test_a_busy_loop_is_stopped_and_reported_where_it_spins(tmp_path: Path):
    async with WorldHarness(script_file(tmp_path, BUSY), settings={"script_budget": 0.2}) as w:
        await w.token("t")
        out = await w.send(moved("t", 1, 1))
        gm = w.chat_lines(out, whisper_to="gm")
        # where it spins (line 6 or 7), not its def (line 4)
        assert any(("stuck.py:6" in g or "stuck.py:7" in g) and "stopped" in g for g in gm), gm
        await w.send(TokenUpdated(token="t", name="Still here"))  # the world goes on
        assert w.world.tokens["t"].cell == Cell(x=1, y=1)
        assert w.world.tokens["t"].name == "Still here"


async def test_a_blocking_sleep_is_interrupted(tmp_path: Path):
    async with WorldHarness(script_file(tmp_path, SLEEP), settings={"script_budget": 0.2}) as w:
        await w.token("t")
        out = await w.send(moved("t", 1, 1))
        assert w.said("before", out) and not w.said("after", out)
        gm = w.chat_lines(out, whisper_to="gm")
        assert any("stuck.py:7" in g and "stopped" in g for g in gm), gm


async def test_a_callback_swallowing_the_interrupt_gets_the_next(tmp_path: Path):
    async with WorldHarness(script_file(tmp_path, STUBBORN), settings={"script_budget": 0.2}) as w:
        await w.token("t")
        out = await w.send(moved("t", 1, 1))
        assert any("stopped" in g for g in w.chat_lines(out, whisper_to="gm"))


async def test_a_predicate_past_its_budget_counts_as_false(tmp_path: Path):
    src = script_file(tmp_path, SLOW_PREDICATE)
    async with WorldHarness(src, settings={"script_budget": 0.2}) as w:
        await w.token("t")
        out = await w.send(moved("t", 1, 1))
        assert not w.said("the body", out)
        gm = w.chat_lines(out, whisper_to="gm")
        assert any("stuck.py:4" in g and "stopped" in g for g in gm), gm  # in spin()


def test_outside_the_main_thread_a_blocking_call_ends_then_the_callback_stops(tmp_path: Path):
    # no signal reaches another thread's sleep: it runs to its end, and the interrupt lands
    # before the callback's next line
    src = script_file(
        tmp_path,
        "import time\n@script.on(TokenMoved)\ndef nap(event, ctx):\n    time.sleep(0.6)\n"
        "    ctx.say('after')\n",
    )
    said: list[str] = []

    async def run() -> None:
        async with WorldHarness(src, settings={"script_budget": 0.1}) as w:
            await w.token("t")
            out = await w.send(moved("t", 1, 1))
            said.extend(w.chat_lines(out, whisper_to="gm"))

    thread = threading.Thread(target=asyncio.run, args=(run(),))
    thread.start()
    thread.join(30)
    assert any("stuck.py:6" in s and "budget" in s and "stopped" in s for s in said), said
    assert not any("after" in s for s in said)


def test_an_interrupt_after_the_callback_returned_is_ignored():
    # the guard is disarmed before the watchdog could signal: nothing is raised afterwards
    guard = watchdog().call(lambda: None, (), 0.0, ())
    assert not guard.interrupted and guard.error is None
    try:
        watchdog()._interrupt(0, None)
    except ScriptTimeout:  # pragma: no cover - the failure this test is for
        raise AssertionError("an interrupt escaped with nothing armed") from None


ASYNC_BUSY = """\
import asyncio
@script.on(TokenMoved)
async def spin(event, ctx):
    await asyncio.sleep(0)
    while True:
        pass
"""


async def test_an_async_callback_that_never_awaits_again_is_stopped(tmp_path: Path):
    src = script_file(tmp_path, ASYNC_BUSY)
    async with WorldHarness(src, settings={"script_budget": 0.2}) as w:
        await w.token("t")
        out = await w.send(moved("t", 1, 1))
        gm = w.chat_lines(out, whisper_to="gm")
        assert any(("stuck.py:7" in g or "stuck.py:8" in g) and "stopped" in g for g in gm), gm
        await w.send(TokenUpdated(token="t", name="Still here"))
        assert w.world.tokens["t"].name == "Still here"


SPINNING_JUDGE = """\
@script.before_move
def judge(event, ctx):
    while True:
        pass
"""
SPINNING_CONDITION = """\
from vttbridge.sdk import ChatCommand
@script.condition("spins", on=[ChatCommand])
async def spins(event, ctx):
    while True:
        pass
"""


async def test_a_move_judge_that_spins_is_stopped_and_the_move_goes_through(tmp_path: Path):
    src = script_file(tmp_path, SPINNING_JUDGE)
    async with WorldHarness(src, settings={"script_budget": 0.2}) as w:
        await w.token("t")
        out = await w.send(moved("t", 2, 2))
        gm = w.chat_lines(out, whisper_to="gm")
        # where it spins (line 4 or 5), not its def (line 3)
        assert any(("stuck.py:4" in g or "stuck.py:5" in g) and "stopped" in g for g in gm), gm
        assert w.world.tokens["t"].cell == Cell(x=2, y=2)


async def test_an_async_condition_whose_step_never_awaits_is_stopped(tmp_path: Path):
    from vttbridge.sdk import ChatCommand, ConditionSpec

    src = script_file(tmp_path, SPINNING_CONDITION)
    async with WorldHarness(src, settings={"script_budget": 0.2}) as w:
        await w.token("t")
        w.runtime.index.add(ConditionSpec(name="spins"), owner="test", handler=None)
        out = await w.send(ChatCommand(name="hello", token="t", role="gm"))
        gm = w.chat_lines(out, whisper_to="gm")
        assert any(("stuck.py:6" in g or "stuck.py:7" in g) and "stopped" in g for g in gm), gm
        await w.send(TokenUpdated(token="t", name="Still here"))  # the world goes on
        assert w.world.tokens["t"].name == "Still here"


async def test_a_callback_thread_gives_back_the_switch_interval_it_found():
    """While a callback runs in a world's thread the interval is short; after, it is what the
    server had set (``serve`` sets 1 ms), not Python's default."""
    import sys

    from vttbridge.sdk.watchdog import SWITCH_INTERVAL, CallbackThread

    before = sys.getswitchinterval()
    sys.setswitchinterval(0.001)
    thread = CallbackThread("w")
    seen: list[float] = []
    try:
        guard = await thread.call(lambda: seen.append(sys.getswitchinterval()), (), 1.0, ())
        assert guard.error is None and seen == [SWITCH_INTERVAL]
        assert sys.getswitchinterval() == 0.001
        assert not thread.busy
        await asyncio.wait_for(thread.until_idle(), 1)
    finally:
        thread.close()
        sys.setswitchinterval(before)
