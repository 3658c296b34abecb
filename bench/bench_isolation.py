"""One world's blocking script against every other world's latency.

    python bench/bench_isolation.py            # about a minute
    python bench/bench_isolation.py --quick    # shorter runs

One ``vttbridge serve`` (SQLite, the MiniTable test adapter, a script loaded into every
world) hosts ``--worlds`` worlds with a client each, in Fallout: Equestria combat, each sending
token moves at a fixed rate (``--rate`` a second per client, several in flight if acks are
slow). A move's latency is counted from when it was due, not from when it went out, so a
stalled server shows as the whole stall (no coordinated omission).

The same load runs in alternating windows, in one server:

- ``quiet``: nothing else;
- ``sleep``: meanwhile a further world's GM sends ``!nap`` again and again, a plain (sync)
  script command that calls ``time.sleep(3)``: the watchdog stops it at its 2 s budget each
  time, and that world's events wait for it;
- ``spin``: the same with ``!spin``, a busy loop (``while True: pass``) holding the CPU and
  the interpreter until the watchdog stops it.

The figure: the other worlds' p99 in ``sleep`` against ``quiet``; the target is at most 1.5x
plus 10 ms. ``spin`` is printed beside it: a busy loop shares the interpreter's lock with
the server's thread (one Python thread runs at a time), which a blocking call does not.

Tables arriving and leaving (``--part tables``): the same playing worlds beside ``--idle``
further worlds of 50 tokens each (a host's other tables). In the ``arriving`` windows their
clients connect one after another, spread over half the window, each sending its scene (the
worlds wake from their snapshots, after the first round); in the ``quiet`` windows they stay
connected and silent; in the ``leaving`` windows they leave one after another, as tables end
their evening: each of those worlds is snapshotted and put to sleep (``--sleep-after 1``,
``--snapshot-quiet 1``) while the others play.
The figures: the playing worlds' max and p99 in ``arriving`` and ``leaving`` against ``quiet``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bench_bridge import (  # noqa: E402
    CLIENT,
    RawClient,
    make_worlds,
    no_client_pauses,
    scene_payload,
    serve_cmd,
    start,
    start_combat,
    stop,
)

SCRIPT = """\
import time
from vttbridge.sdk import Script
script = Script("blocking")

@script.command("nap", role="gm")
def nap(cmd, ctx):
    time.sleep(3)

@script.command("spin", role="gm")
def spin(cmd, ctx):
    while True:
        pass
"""


async def fixed_rate(
    clients: list[RawClient], rate: float, seconds: float, tag: str
) -> list[float]:
    """Each client sends a move every ``1/rate`` s for ``seconds``; the latencies (ms) from
    each move's due time to its ack."""
    latencies: list[float] = []
    period = 1.0 / rate

    async def one(ci: int, c: RawClient, start_at: float) -> None:
        sent: list[asyncio.Task] = []
        i = 0
        while True:
            due = start_at + i * period
            if due >= start_at + seconds:
                break
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            payload = {"id": f"{tag}-{ci}-{i}", "token": "t0", "x": 100 * (i % 2), "y": 300}
            sent.append(asyncio.ensure_future(timed(c, payload, due)))
            i += 1
        latencies.extend(await asyncio.gather(*sent))

    async def timed(c: RawClient, payload: dict, due: float) -> float:
        ack = await c.call("tokenMoved", payload)
        if not ack.get("ok"):
            raise RuntimeError(f"refused: {ack}")
        return (time.perf_counter() - due) * 1000

    with no_client_pauses():
        begin = time.perf_counter() + 0.05
        # clients start spread over one period, as independent tables would
        await asyncio.gather(
            *(one(i, c, begin + period * i / len(clients)) for i, c in enumerate(clients))
        )
    return latencies


async def blocker(gm: RawClient, command: str, until: asyncio.Event, tag: str) -> int:
    """Send ``!command`` again and again until ``until`` is set; how many were sent."""
    n = 0
    while not until.is_set():
        n += 1
        ack = await gm.call("chat", {"id": f"{tag}-{n}", "text": f"!{command}", "role": "gm"})
        if not ack.get("ok"):
            raise RuntimeError(f"refused: {ack}")
    return n


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[max(0, min(len(values) - 1, round(len(values) * p) - 1))]


async def run(worlds: int, rate: float, seconds: float, rounds: int) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "iso.sqlite3"
        script = Path(tmp) / "blocking.py"
        script.write_text(SCRIPT)
        names = [f"w{i}" for i in range(worlds)]
        world_keys = make_worlds(db, [*names, "napper"])
        proc, url = start(serve_cmd(db, ["--script", str(script)]))
        try:
            async with aiohttp.ClientSession() as session:
                clients = []
                for name in [*names, "napper"]:
                    c = RawClient(session, url)
                    await c.connect({"world": name, "key": world_keys[name], "client": CLIENT})
                    await start_combat(c)
                    clients.append(c)
                *others, gm = clients
                await fixed_rate(others, rate, 1.0, "warmup")
                found: dict[str, list[float]] = {"quiet": [], "sleep": [], "spin": []}
                blocked: dict[str, int] = {"sleep": 0, "spin": 0}
                for r in range(rounds):
                    for kind in ("quiet", "sleep", "spin"):
                        tag = f"{kind}{r}"
                        if kind == "quiet":
                            found[kind] += await fixed_rate(others, rate, seconds, tag)
                            continue
                        done = asyncio.Event()
                        command = "nap" if kind == "sleep" else "spin"
                        task = asyncio.ensure_future(blocker(gm, command, done, tag))
                        await asyncio.sleep(0.1)  # the first one is running
                        found[kind] += await fixed_rate(others, rate, seconds, tag)
                        done.set()
                        blocked[kind] += await task
                for c in clients:
                    await c.close()
        finally:
            stop(proc)
    return summary(found, blocked)


def summary(found: dict[str, list[float]], blocked: dict[str, int]) -> dict[str, dict[str, float]]:
    return {
        kind: {
            "n": len(lat),
            "p50": statistics.median(lat),
            "p99": pct(lat, 0.99),
            "max": max(lat),
            "blocked": blocked.get(kind, 0),
        }
        for kind, lat in found.items()
    }


async def tables_arriving_and_leaving(
    worlds: int, idle: int, rate: float, seconds: float, rounds: int
) -> dict[str, dict[str, float]]:
    """The playing worlds' latencies while ``idle`` other tables arrive one by one
    (``arriving``), sit connected (``quiet``), and leave one by one, their worlds falling
    asleep (``leaving``)."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "tables.sqlite3"
        names = [f"w{i}" for i in range(worlds)]
        idle_names = [f"idle{i:04d}" for i in range(idle)]
        world_keys = make_worlds(db, [*names, *idle_names])
        proc, url = start(serve_cmd(db, ["--snapshot-quiet", "1"], sleep_after=1))
        found: dict[str, list[float]] = {"arriving": [], "quiet": [], "leaving": []}
        try:
            connector = aiohttp.TCPConnector(limit=0)  # a websocket each: no pool's limit
            async with aiohttp.ClientSession(connector=connector) as session:
                players = []
                for name in names:
                    c = RawClient(session, url)
                    await c.connect({"world": name, "key": world_keys[name], "client": CLIENT})
                    await start_combat(c)
                    players.append(c)
                await fixed_rate(players, rate, 1.0, "warmup")
                sem = asyncio.Semaphore(20)

                async def arrive(name: str, r: int) -> RawClient:
                    async with sem:
                        c = RawClient(session, url)
                        auth = {"world": name, "key": world_keys[name], "client": CLIENT}
                        await c.connect(auth)
                        ack = await c.call("snapshot", scene_payload(50, f"scene{r}"))
                        assert ack["ok"], ack
                        return c

                pause = seconds / 2 / idle  # one after another over half a window

                async def arrive_spread(r: int) -> list[RawClient]:
                    tables = []
                    for n in idle_names:
                        tables.append(await arrive(n, r))
                        await asyncio.sleep(pause)
                    return tables

                async def leave(tables: list[RawClient]) -> None:
                    for c in tables:
                        await c.close()
                        await asyncio.sleep(pause)

                for r in range(rounds):
                    coming = asyncio.ensure_future(arrive_spread(r))
                    found["arriving"] += await fixed_rate(players, rate, seconds, f"come{r}")
                    tables = await coming
                    await asyncio.sleep(2.0)  # each table's world snapshotted once quiet
                    found["quiet"] += await fixed_rate(players, rate, seconds, f"quiet{r}")
                    gone = asyncio.ensure_future(leave(tables))
                    found["leaving"] += await fixed_rate(players, rate, seconds, f"leave{r}")
                    await gone
                    await asyncio.sleep(2.0)  # the last ones asleep
                for c in players:
                    await c.close()
        finally:
            stop(proc)
    return summary(found, {})


def report_tables(rows: dict[str, dict[str, float]], idle: int) -> str:
    lines = [f"{'window':<8} {'moves':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}"]
    for kind, r in rows.items():
        lines.append(f"{kind:<8} {r['n']:>6} {r['p50']:>8.1f} {r['p99']:>8.1f} {r['max']:>8.1f}")
    q = rows["quiet"]
    for kind, what in (
        ("arriving", "arrive and their worlds wake"),
        ("leaving", "leave and their worlds fall asleep"),
    ):
        r = rows[kind]
        lines.append(
            f"playing worlds while {idle} other tables {what}: max {r['max']:.1f} ms "
            f"(quiet {q['max']:.1f}), p99 {r['p99']:.1f} ms (quiet {q['p99']:.1f})"
        )
    return "\n".join(lines)


def report(rows: dict[str, dict[str, float]]) -> str:
    quiet = rows["quiet"]["p99"]
    lines = [
        f"{'window':<8} {'moves':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} "
        f"{'blocking cmds':>13} {'p99/quiet':>9}"
    ]
    for kind, r in rows.items():
        lines.append(
            f"{kind:<8} {r['n']:>6} {r['p50']:>8.1f} {r['p99']:>8.1f} {r['max']:>8.1f} "
            f"{r['blocked']:>13} {r['p99'] / quiet:>8.2f}x"
        )
    limit = 1.5 * quiet + 10
    ok = rows["sleep"]["p99"] <= limit
    lines.append(
        f"other worlds' p99 while one world's script sleeps: {rows['sleep']['p99']:.1f} ms, "
        f"quiet {quiet:.1f} ms; target <= 1.5x + 10 ms = {limit:.1f} ms: "
        f"{'met' if ok else 'NOT met'}"
    )
    return "\n".join(lines)


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="3 s windows, one round")
    ap.add_argument(
        "--part",
        choices=["scripts", "tables"],
        default="scripts",
        help="a world's blocking script (the default), or other tables arriving and leaving",
    )
    ap.add_argument(
        "--idle", type=int, default=300, help="with --part tables: the tables that arrive and leave"
    )
    ap.add_argument("--worlds", type=int, default=10, help="worlds under load (besides the napper)")
    ap.add_argument("--rate", type=float, default=20.0, help="moves a second per client")
    ap.add_argument("--seconds", type=float, default=None, help="seconds per window")
    ap.add_argument("--rounds", type=int, default=None, help="rounds of the three windows")
    args = ap.parse_args()
    seconds = args.seconds or (3.0 if args.quick else 6.0)
    rounds = args.rounds or (1 if args.quick else 3)
    if args.part == "tables":
        print(
            f"{args.worlds} worlds x {args.rate:g} moves/s beside {args.idle} tables of 50 "
            f"tokens, {rounds} rounds of {seconds:g} s windows (tables arriving / quiet / "
            "tables leaving)",
            flush=True,
        )
        rows = await tables_arriving_and_leaving(args.worlds, args.idle, args.rate, seconds, rounds)
        print(report_tables(rows, args.idle))
        return
    print(
        f"{args.worlds} worlds x {args.rate:g} moves/s, {rounds} rounds of {seconds:g} s "
        "windows (quiet / a world's script sleeping / spinning)",
        flush=True,
    )
    print(report(await run(args.worlds, args.rate, seconds, rounds)))


if __name__ == "__main__":
    asyncio.run(main())
