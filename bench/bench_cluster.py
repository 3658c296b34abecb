"""One node on SQLite against three nodes on PostgreSQL + Redis, in the same run: events/s and
latency at 10 and 100 clients over 10 worlds, then the failover time.

    python bench/bench_cluster.py            # about two minutes
    python bench/bench_cluster.py --quick    # shorter runs

The load is bench_bridge's (raw-websocket clients in one process, each in a closed loop:
a token move, wait for its ack, repeat; Fallout: Equestria combat, persistence on, acks
after the commit). What differs is where the worlds live:

- ``one node``: ``vttbridge serve`` on a SQLite file: the baseline.
- ``cluster``: three ``vttbridge serve --db postgresql://... --redis redis://...`` nodes on
  loopback. World ``w<i>`` is owned by node ``i % 3`` (its first client connects there);
  client ``k`` (of world ``k % 10``) connects to node ``(k + 1) % 3``, as a load balancer
  without any affinity would send it: at 10 clients every event is forwarded to another
  node (the worst case), at 100 two in three are.

Failover: a client at one node plays a world another node owns; that owner is killed
(SIGKILL) and the time until the client's next acknowledged event is measured, ``--failovers``
times (new nodes each time): at most the lease time (``--lease-ttl``), since the dead owner
renewed its lease last, plus the takeover (the world rebuilt from its snapshot and log) and the
client's reconnect. Every node runs with the default settings (lease and forward timeout);
the target is under 5 s.

PostgreSQL and redis-server come from ``VTTBRIDGE_TEST_POSTGRES`` / ``VTTBRIDGE_TEST_REDIS``,
else ``.ci/services`` starts both for the run. Everything shares this machine's cores: three
nodes, PostgreSQL and Redis on 2 cores measure the cost of the cluster's hops, not its
capacity (see the README's Benchmarks for what more cores give).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_bridge import (  # noqa: E402
    CLIENT,
    RawClient,
    closed_loop,
    make_worlds,
    serve_cmd,
    start,
    start_combat,
    stop,
)
from vttbridge.adapters.bridge.config import ServeSettings  # noqa: E402

WORLDS = [f"w{i}" for i in range(10)]
LEASE: float = ServeSettings.model_fields["lease_ttl"].default
"""The default lease, which every node here runs with."""
TARGET = 5.0


def services(tmp: Path) -> tuple[str, str, bool]:
    """(PostgreSQL URL, Redis URL, whether this run started them)."""
    pg, redis = os.environ.get("VTTBRIDGE_TEST_POSTGRES"), os.environ.get("VTTBRIDGE_TEST_REDIS")
    if pg and redis:
        return pg, redis, False
    out = subprocess.run(
        [str(ROOT / ".ci" / "services"), "start", str(tmp / "services")],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    env = dict(
        line.removeprefix("export ").split("=", 1) for line in out.splitlines() if "=" in line
    )
    return env["VTTBRIDGE_TEST_POSTGRES"], env["VTTBRIDGE_TEST_REDIS"], True


async def fresh_schema(pg: str) -> str:
    """A URL on a new schema of ``pg`` (each run starts from empty tables)."""
    import asyncpg

    schema = f"bench_{secrets.token_hex(4)}"

    conn = await asyncpg.connect(pg)
    await conn.execute(f"CREATE SCHEMA {schema}")
    await conn.close()
    return f"{pg}{'&' if '?' in pg else '?'}search_path={schema}"


def node_cmd(db: str, redis: str, i: int) -> list[str]:
    return serve_cmd(db, ["--redis", redis, "--node-id", f"bench-{i}"])  # type: ignore[arg-type]


async def setup_worlds(session, owners: list[str], world_keys: dict[str, str]) -> None:
    """Load world ``w<i>`` at ``owners[i % len(owners)]`` with its scene and a combat."""
    for i, w in enumerate(w for w in WORLDS if w in world_keys):
        c = RawClient(session, owners[i % len(owners)])
        await c.connect({"world": w, "key": world_keys[w], "client": CLIENT})
        await start_combat(c)
        await c.close()


async def load(urls: list[str], n: int, world_keys: dict[str, str], seconds: float) -> dict:
    """``n`` closed-loop clients, client ``k`` on world ``k % 10`` at ``urls[(k + 1) % len]``."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        clients = []
        for k in range(n):
            w = WORLDS[k % len(WORLDS)]
            c = RawClient(session, urls[(k + 1) % len(urls)])
            await c.connect({"world": w, "key": world_keys[w], "client": CLIENT})
            clients.append(c)
        r = await closed_loop(clients, seconds)
        for c in clients:
            await c.close()
    return r


async def failover(db: str, redis: str, world_keys: dict[str, str]) -> float:
    """Seconds from the owner's SIGKILL to the next acknowledged event of a client at another
    node (which retries on ``world_unavailable`` and reconnects when its node takes over)."""
    procs = [start(node_cmd(db, redis, i)) for i in range(10, 13)]
    urls = [u for _, u in procs]
    try:
        async with aiohttp.ClientSession() as session:
            await setup_worlds(session, urls[:1], world_keys)  # node 0 owns w0
            owner = RawClient(session, urls[0])
            await owner.connect({"world": "w0", "key": world_keys["w0"], "client": CLIENT})
            player = RawClient(session, urls[1])
            await player.connect({"world": "w0", "key": world_keys["w0"], "client": CLIENT})
            for i in range(20):
                move = {"id": f"f-{i}", "token": "t0", "x": 100 * (i % 2), "y": 300}
                assert (await player.call("tokenMoved", move))["ok"]
            os.kill(procs[0][0].pid, signal.SIGKILL)
            killed = time.perf_counter()
            i = 100
            while True:
                i += 1
                move = {"id": f"f-{i}", "token": "t0", "x": 100 * (i % 2), "y": 300}
                call = asyncio.ensure_future(player.call("tokenMoved", move))
                assert player._reader is not None
                await asyncio.wait({call, player._reader}, timeout=2, return_when="FIRST_COMPLETED")
                ack = call.result() if call.done() and not call.exception() else {"ok": False}
                call.cancel()
                if ack.get("ok"):
                    return time.perf_counter() - killed
                if player._reader.done():  # its node closed it (it took the world): reconnect
                    await player.close()
                    player = RawClient(session, urls[1])
                    try:
                        await player.connect(
                            {"world": "w0", "key": world_keys["w0"], "client": CLIENT}
                        )
                    except Exception:
                        await asyncio.sleep(0.05)
                else:
                    await asyncio.sleep(0.02)
    finally:
        for proc, _ in procs:
            if proc.poll() is None:
                stop(proc)


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="1 s runs")
    ap.add_argument("--seconds", type=float, default=None, help="measured seconds per run")
    ap.add_argument("--failovers", type=int, default=3, help="failovers timed")
    ap.add_argument(
        "--part", choices=["all", "failover"], default="all", help="failover: only that part"
    )
    args = ap.parse_args()
    seconds = args.seconds or (1.0 if args.quick else 4.0)
    print(f"bench_cluster: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, "
          f"{seconds:g} s per run, 10 worlds, lease {LEASE:g} s")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        pg, redis, started = services(tmp)
        try:
            results: dict[tuple[str, int], dict] = {}
            took: list[float] = []
            for _ in range(args.failovers):
                db = await fresh_schema(pg)
                took.append(await failover(db, redis, make_worlds(db, ["w0"])))  # type: ignore[arg-type]
            if args.part == "failover":
                report_failover(took)
                return
            sqlite = tmp / "one.sqlite3"
            keys_one = make_worlds(sqlite, WORLDS)
            one, one_url = start(serve_cmd(sqlite))
            try:
                async with aiohttp.ClientSession() as s:
                    await setup_worlds(s, [one_url], keys_one)
                for n in (10, 100):
                    results[("one", n)] = await load([one_url], n, keys_one, seconds)
            finally:
                stop(one)
            db = await fresh_schema(pg)
            keys_pg = make_worlds(db, WORLDS)  # type: ignore[arg-type]
            nodes = [start(node_cmd(db, redis, i)) for i in range(3)]
            urls = [u for _, u in nodes]
            try:
                async with aiohttp.ClientSession() as s:
                    await setup_worlds(s, urls, keys_pg)
                for n in (10, 100):
                    results[("cluster", n)] = await load(urls, n, keys_pg, seconds)
            finally:
                for proc, _ in nodes:
                    stop(proc)
        finally:
            if started:
                subprocess.run([str(ROOT / ".ci" / "services"), "stop", str(tmp / "services")])
    print()
    print(f"{'clients':>7}  {'servers':<24} {'events/s':>9} {'p50 ms':>8} {'p99 ms':>8}"
          f"   {'x one/s':>7} {'x one p50':>9} {'x one p99':>9}")  # fmt: skip
    for n in (10, 100):
        o = results[("one", n)]
        print(
            f"{n:>7}  {'one node, SQLite':<24} {o['eps']:>9.0f} {o['p50']:>8.2f} {o['p99']:>8.2f}"
        )
        c = results[("cluster", n)]
        print(
            f"{'':>7}  {'3 nodes, PG + Redis':<24} {c['eps']:>9.0f} {c['p50']:>8.2f}"
            f" {c['p99']:>8.2f}   {c['eps'] / o['eps']:>7.2f} {c['p50'] / o['p50']:>9.2f}"
            f" {c['p99'] / o['p99']:>9.2f}"
        )
    report_failover(took)


def report_failover(took: list[float]) -> None:
    worst = max(took)
    print()
    print(
        "failover under the default settings (SIGKILL of the owner -> the next acknowledged "
        f"event at another node), {len(took)} times: "
        + ", ".join(f"{t:.2f}" for t in took)
        + f" s; worst {worst:.2f} s with the {LEASE:g} s lease; target < {TARGET:g} s: "
        + ("met" if worst < TARGET else "NOT met")
    )


if __name__ == "__main__":
    asyncio.run(main())
