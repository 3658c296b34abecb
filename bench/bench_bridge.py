"""Bridge throughput and latency against a bare python-socketio echo server, plus the memory
of 1,000 idle worlds.

    python bench/bench_bridge.py            # about three minutes
    python bench/bench_bridge.py --quick    # shorter runs, fewer idle worlds

Both servers run in their own process, on the same aiohttp + python-socketio stack, and are
driven by the same load: 1, 10 and 100 loopback clients (one process, a minimal socket.io
client speaking the wire protocol over a raw websocket, so the load generator is not the
bottleneck), each in a closed loop: send a token move, wait for its ack, repeat (a bridge's
clients also pass the turn round every 100 moves, each at its own point, as a table's turns
end: ``TURN_EVERY``).

- echo:   a namespace whose ``tokenMoved`` handler returns ``{"ok": true, "seq": n}``; the
          transport floor.
- node:   the same echo on Node's socket.io server (``bench/node``; ``npm ci`` there at the
          first run; left out without Node.js): what the same load costs another stack.
- bridge: ``vttbridge serve`` with persistence on (SQLite, WAL, batched writes; acks only after
          the commit), one world per client in Fallout: Equestria combat; each move is
          validated, translated by the (test) MiniTable adapter, ingested by the world runtime,
          checked by the FoE movement rule on the mover's turn and logged. Rate limiting is off.

Burst (``--part burst``): the speed run at 100 clients for 30 s (``--seconds``), three
times: the stalls a player would feel as a token hanging mid-drag show in p99.9 and the max.

Paced (``--part paced``): a realistic table load, 200 worlds with a client each, one token
move every 2 s per table, for 20 s: latency, the server's share of a core and its CPU per
event (light load: each event is committed on its own), the tables one core serves at that
pace, and the log's bytes per event (the pages of the log table and its index, per event).
Beside the echo it runs the same echo on the bridge's transport ('transport'), and reads the
bridge's commit time from its ``/metrics``: the two parts every event needs before any
validation or rule (an answer on the socket, a row committed before the ack).

Every part prints the machine's load average beside its figures: other work on the machine
slows both servers of a run alike, which is why each figure is a ratio to a baseline
measured in the same minutes.

Connect (``--part connect``): 100 clients connect at once, one per world (as every table does
after a restart), to the echo, which accepts any auth, and to the bridge, which checks each
world's key as ``vttbridge world create`` stores it; medians of 3 alternating rounds.

Memory: 1,000 worlds each get a 50-token scene from a client; resident memory is read with all
of them loaded (live, then after a restart rebuilt them) and after they fell asleep (saved and
unloaded, the default for worlds without a client; ``--sleep-after``).

Wake (``--part wake``): 1,000 worlds each get a scene from a client, which leaves; they all
fall asleep (``--sleep-after``); then all 1,000 clients reconnect at once, as after a night
away, and each sends one token move: the time until every move is acknowledged (each
connect wakes its world from its snapshot), against the same 1,000 clients connecting to
the echo and sending one event. Then the clients stay connected and silent (after the
worlds' snapshot once quiet), and the server's CPU over 5 s is reported: with 1,000
connections it is their websocket pings and timers, python-engineio's service task, the
sweeper and the key check, a fixed cost per connection and per world, not a loop.

``CPU us/ev`` is the server process's CPU time per event (Linux): both servers run at one full
core under load, so it is what sets events/s, and in a closed loop p50 ~ clients / events/s.

``--ruler`` adds runs of the same bridge in which each world's VTT shows the movement budget
('ruler': the tests' RulerTable adapter, namespace ``/rulertable``, worlds of their own), as
Foundry's Token Ruler and Roll20's whisper do: after each move in a fight the token's budget
comes back as a command, which the client acks. The speed run's MiniTable declines the
budget, so there a move is one round trip and a command comes only with a turn change; at a
Foundry or Roll20 table in a fight a move is also a command and its ack, which these runs
cost (``cmd/ev``: commands a client got per event).

``--dashboard`` adds runs of the same bridge in which a dashboard page (its socket, namespace
``/dashboard``) watches every world played: each world then sends a view after its moves, at
most four a second. They alternate with the runs without one (no world watched, as at a table
with the page closed): what a watched world costs, measured in the same minutes.

``--baseline PYTHON`` (with ``--part speed``) adds runs of a second bridge, started by another
interpreter with another version of vttbridge installed (``main``'s code in a venv of its own),
alternating with this one's on the same load: the ratio of the two, measured in the same
minutes, is what a change costs.

``--echo bridge`` runs the echo on the bridge's transport (its packet JSON, its websocket loop,
handlers in the connection's reader) instead of python-socketio as installed (the
baseline): a like-for-like comparison of the work above the transport.

Targets: at 10 and 100 clients the bridge reaches >= 0.9x the echo's events/s and <= 1.2x
its p50 latency; the burst's max stays under 50 ms in each of three runs; 100 clients connect
within 2x the echo's time; 1,000 idle worlds of 50 tokens stay under 300 MB resident, and
once asleep come back within 25 % of the empty server's; 1,000 clients reconnecting to
sleeping worlds are all answered within 10 s; 1,000 sleeping worlds and no client cost under
1 % of a core.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vttbridge.adapters.bridge import keys  # noqa: E402
from vttbridge.adapters.bridge.storage import run_blocking  # noqa: E402

NS = "/minitable"
CLIENT = {"name": "bench", "version": "1"}

ECHO_SERVER = textwrap.dedent(
    """
    import asyncio, sys
    import socketio
    from aiohttp import web

    like_bridge = sys.argv[1:] == ["bridge"]
    json_module = None
    if like_bridge:  # the packet JSON the bridge uses
        from vttbridge.adapters.bridge.packets import PacketJson as json_module

    sio = socketio.AsyncServer(async_mode="aiohttp", cors_allowed_origins="*", json=json_module,
                               async_handlers=not like_bridge)
    if like_bridge:  # and its websocket loop
        from vttbridge.adapters.bridge import websocket
        websocket.install(sio.eio)
    n = 0

    class Echo(socketio.AsyncNamespace):
        async def on_connect(self, sid, environ, auth):
            return True

        async def on_tokenMoved(self, sid, data):
            global n
            n += 1
            return {"ok": True, "seq": n}

    sio.register_namespace(Echo("/minitable"))
    app = web.Application()
    sio.attach(app)

    async def main():
        runner = web.AppRunner(app, shutdown_timeout=1)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        print("Listening on http://127.0.0.1:%d" % site._server.sockets[0].getsockname()[1],
              flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())
    """
)


# -- a minimal socket.io client over a raw websocket ------------------------------------------


class RawClient:
    """Engine.IO v4 + Socket.IO v5 over one websocket: connect with auth, emit with ack, answer
    pings and ack commands. Just enough protocol for a load generator."""

    def __init__(self, session: aiohttp.ClientSession, url: str, ns: str = NS) -> None:
        self.session, self.url, self.ns = session, url, ns
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.next_id = 0
        self.pending: dict[int, asyncio.Future] = {}
        self.commands = 0
        """Commands received and acked (on ``/dashboard``: the views)."""
        self._reader: asyncio.Task | None = None
        self._connected: asyncio.Future | None = None

    async def connect(self, auth: dict) -> None:
        ws_url = self.url.replace("http", "ws", 1) + "/socket.io/?EIO=4&transport=websocket"
        self.ws = await self.session.ws_connect(ws_url, max_msg_size=0)
        msg = await self.ws.receive_str()
        assert msg.startswith("0"), msg
        self._connected = asyncio.get_running_loop().create_future()
        self._reader = asyncio.create_task(self._read())
        await self.ws.send_str(f"40{self.ns}," + json.dumps(auth))
        await asyncio.wait_for(self._connected, 30)

    async def call(self, event: str, data: dict) -> dict:
        assert self.ws is not None
        self.next_id += 1
        i = self.next_id
        fut = asyncio.get_running_loop().create_future()
        self.pending[i] = fut
        await self.ws.send_str(f"42{self.ns},{i}" + json.dumps([event, data]))
        return await fut

    async def _read(self) -> None:
        assert self.ws is not None and self._connected is not None
        prefix = f"{self.ns},"
        async for msg in self.ws:
            text = msg.data
            if text == "2":
                await self.ws.send_str("3")
                continue
            if not text.startswith("4"):
                continue
            kind, rest = text[1], text[2:]
            if rest.startswith(prefix):
                rest = rest[len(prefix) :]
            if kind == "0":
                self._connected.set_result(True)
            elif kind == "4":
                self._connected.set_exception(RuntimeError(rest))
            elif kind == "3":
                m = re.match(r"(\d+)", rest)
                fut = self.pending.pop(int(m.group(1)), None)
                if fut is not None and not fut.done():
                    fut.set_result(json.loads(rest[m.end() :])[0])
            elif kind == "2":  # a command: ack it (a view has no ack id)
                m = re.match(r"(\d+)", rest)
                self.commands += 1
                if m:
                    await self.ws.send_str(f"43{self.ns},{m.group(1)}" + '[{"ok":true}]')

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        if self.ws is not None:
            await self.ws.close()


# -- servers ---------------------------------------------------------------------------------------


def start(
    cmd: list[str], env: dict | None = None, root: Path = ROOT
) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        cmd,
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root), **(env or {})},
    )
    assert proc.stdout is not None
    deadline = time.time() + 300
    said: list[str] = []
    while time.time() < deadline:
        line = proc.stdout.readline()
        said = [*said[-20:], line]
        if not line:
            raise RuntimeError(f"server exited: {proc.wait()}: {''.join(said)}")
        m = re.search(r"Listening on (http://[\d.]+:\d+)", line)
        if m:
            # drain the rest of its output in the background so its pipe never blocks it
            import threading

            threading.Thread(target=proc.stdout.read, daemon=True).start()
            return proc, m.group(1)
    raise RuntimeError("server did not start")


def stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()


def tree(pid: int) -> list[int]:
    """A process and its children (Linux)."""
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return [pid]
    return [pid, *(c for k in kids for c in tree(int(k)))]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time so far of a process and its children (Linux; nan elsewhere)."""
    total = 0.0
    for p in tree(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return float("nan")
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def rss_mb(pid: int) -> float:
    """Resident memory of the server: VmRSS of its process (with children, the PSS of all
    summed: each page they share counted once; RSS would count it twice)."""
    pids = tree(pid)
    field, name = ("VmRSS:", "status") if len(pids) == 1 else ("Pss:", "smaps_rollup")
    total = 0.0
    for p in pids:
        for line in Path(f"/proc/{p}/{name}").read_text().splitlines():
            if line.startswith(field):
                total += int(line.split()[1]) / 1024
    return total


def make_worlds(db: Path, names: list[str], python: str | None = None) -> dict[str, str]:
    """Worlds with their keys stored as ``vttbridge world create`` stores them; by another
    interpreter's vttbridge if ``python`` is given (a baseline's, whose database must be of
    its own schema version)."""
    out = {name: keys.new_key() for name in names}
    if python is not None:
        hashes = {name: keys.hash_key(key) for name, key in out.items()}
        script = (
            "import json, sys; from vttbridge.adapters.bridge.storage import run_blocking\n"
            "async def create(store):\n"
            "    for name, h in json.load(sys.stdin).items():\n"
            "        await store.create_world(name, h, h, {'system': 'foe'})\n"
            f"run_blocking({str(db)!r}, create)\n"
        )
        subprocess.run([python, "-c", script], input=json.dumps(hashes), text=True, check=True,
                       cwd="/")  # fmt: skip
        return out

    async def create(store) -> None:
        for name, key in out.items():
            h = keys.hash_key(key)
            await store.create_world(name, h, h, {"system": "foe"})

    run_blocking(db, create)
    return out


RULER = "tests.bridge.minitable:RulerTable"
"""The adapter of the ``--ruler`` runs: MiniTable with the movement budget shown."""


def serve_cmd(
    db: Path, extra: list[str] = (), sleep_after: float = 0, python: str = sys.executable,
    ruler: bool = False,
) -> list[str]:  # fmt: skip
    return [
        python, "-m", "vttbridge", "serve", "--db", str(db), "--port", "0",
        "--no-default-world", "--rate", "0", "--sleep-after", str(sleep_after),
        "--adapter", "tests.bridge.minitable:MiniTable", *(["--adapter", RULER] if ruler else []),
        *extra,
    ]  # fmt: skip


async def awake_worlds(url: str) -> int:
    async with aiohttp.ClientSession() as s, s.get(url + "/healthz") as r:
        return (await r.json())["worlds"]


def scene_payload(n_tokens: int, eid: str = "snap") -> dict:
    tokens = [
        {"id": f"t{i}", "name": f"T{i}", "x": 100 * (i % 20), "y": 100 * (i // 20) + 300,
         "stats": {"move": 1e6}}
        for i in range(n_tokens)
    ]  # fmt: skip
    return {"id": eid, "scene": {"id": "s1", "name": "Bench"}, "tokens": tokens, "users": []}


# -- load --------------------------------------------------------------------------------------


async def start_combat(c: RawClient) -> None:
    """Send the scene, and a FoE combat in which t0 has the turn, to ``c``'s world."""
    assert (await c.call("snapshot", scene_payload(3)))["ok"]
    ack = await c.call(
        "combatStart",
        {"id": "fight", "tokens": ["t0", "t1"], "initiative": {"t0": 90, "t1": 10}},
    )
    assert ack["ok"], ack


def percentile(ordered: list[float], q: float) -> float:
    """The ``q`` quantile of ``ordered`` (sorted), nearest rank."""
    return ordered[max(0, min(len(ordered) - 1, int(len(ordered) * q + 0.5) - 1))]


TURN_EVERY = 100
"""Moves of a bridge's client between two turn changes (``nextTurn`` twice: the other
combatant's turn, then the mover's again), which count as events too. A table's turn ends
after a few moves; one turn of thousands would grow the turn's trail (the path moved this
turn, which the rules keep for a charge or a jump's run-up) without end, and with it each
snapshot and each garbage collection. Each client passes the turn at its own point of that
cycle (spread evenly over the clients), as tables do not end their turns in step: 100
clients started together would send 100 turn changes (each about twice a move's work) in
the same few milliseconds every three seconds, a wave no host sees, which alone raised the
burst's p99 by a third (70 against 48-53 ms, side by side)."""


def table_event(eid: str, i: int, turns: bool) -> tuple[str, dict]:
    """A client's ``i``-th event: a token move back or forth, or with ``turns`` one of the
    two ``nextTurn`` that pass the turn round after every :data:`TURN_EVERY` moves."""
    if turns and i % (TURN_EVERY + 2) >= TURN_EVERY:
        return "nextTurn", {"id": eid}
    return "tokenMoved", {"id": eid, "token": "t0", "x": 100 * (i % 2), "y": 300}


async def table_clients(
    session: aiohttp.ClientSession, url: str, worlds: list[str], world_keys: dict[str, str],
    ns: str = NS,
) -> list[RawClient]:  # fmt: skip
    """A client connected to each world on ``ns``, with its key (the echo takes any)."""
    clients = []
    for w in worlds:
        c = RawClient(session, url, ns)
        await c.connect({"world": w, "key": world_keys.get(w, "x"), "client": CLIENT})
        clients.append(c)
    return clients


@contextlib.contextmanager
def no_client_pauses():
    """The load generator's own collector off while it measures: its full passes (tens of
    milliseconds once hundreds of clients have come and gone) would count as the server's
    latency. What it leaves is collected before and after."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()


async def closed_loop(
    clients: list[RawClient], seconds: float, warmup: float = 0.5, turns: bool = False
) -> dict:
    """Each client in a closed loop (a token move, wait for its ack, repeat; with ``turns``,
    the turn passes round every :data:`TURN_EVERY` moves) for ``warmup`` then ``seconds``;
    events/s and latency percentiles of the measured part, its length (``seconds``) and every
    event's count (``total``)."""
    latencies: list[float] = []
    count = total = 0
    # ids unique across runs: a repeated id is a duplicate, answered without processing
    run = os.urandom(4).hex()
    stop_at = time.perf_counter() + warmup + seconds
    measure_from = time.perf_counter() + warmup

    async def loop(ci: int, c: RawClient) -> None:
        nonlocal count, total
        # where in the turn cycle it starts (even: its first move is away from x=0)
        i = 2 * (ci * (TURN_EVERY + 2) // (2 * len(clients)))
        while True:
            i += 1
            event, payload = table_event(f"{run}-{ci}-{i}", i, turns)
            t0 = time.perf_counter()
            ack = await c.call(event, payload)
            t1 = time.perf_counter()
            if not ack.get("ok"):
                raise RuntimeError(f"refused: {ack}")
            total += 1
            if t0 >= measure_from:
                latencies.append(t1 - t0)
                count += 1
            if t1 >= stop_at:
                return

    with no_client_pauses():
        start_t = time.perf_counter()
        await asyncio.gather(*(loop(i, c) for i, c in enumerate(clients)))
        elapsed = time.perf_counter() - start_t - warmup
    latencies.sort()
    return {
        "eps": count / elapsed,
        "p50": statistics.median(latencies) * 1000,
        "p99": percentile(latencies, 0.99) * 1000,
        "p999": percentile(latencies, 0.999) * 1000,
        "max": latencies[-1] * 1000,
        "n": count,
        "total": total,
        "seconds": elapsed,
    }


async def run_load(url: str, worlds: list[str], world_keys: dict[str, str], seconds: float,
                   bridge: bool, warmup: float = 0.5,
                   dashboards: bool = False, ns: str = NS) -> dict:  # fmt: skip
    """Closed-loop clients, one per world, on namespace ``ns``; returns events/s and latency
    percentiles, the commands the clients got per event (``cmds``), and the views the
    dashboards got (with ``dashboards``: one page watching each world)."""
    # no cap on connections: 100 clients and 100 pages are over aiohttp's default of 100
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        clients = await table_clients(session, url, worlds, world_keys, ns)
        pages = []
        for w in worlds if bridge and dashboards else ():
            page = RawClient(session, url, "/dashboard")
            await page.connect({"world": w, "key": world_keys[w], "client": CLIENT})
            pages.append(page)
        if bridge:
            for c in clients:
                await start_combat(c)
        r = await closed_loop(clients, seconds, warmup, turns=bridge)
        views = sum(p.commands for p in pages)
        commands = sum(c.commands for c in clients)
        for c in clients + pages:
            await c.close()
    return {"views": views / (r["seconds"] + warmup), "cmds": commands / r["total"], **r}


async def idle_worlds(
    tmp: Path, n_worlds: int, n_tokens: int, extra: list[str], env: dict | None = None
) -> dict:
    db = tmp / f"idle-{os.urandom(3).hex()}.sqlite3"
    names = [f"idle{i:04d}" for i in range(n_worlds)]
    world_keys = make_worlds(db, names)
    proc, url = start(serve_cmd(db, extra), env=env)
    base = rss_mb(proc.pid)
    try:
        async with aiohttp.ClientSession() as session:
            sem = asyncio.Semaphore(20)

            async def fill(name: str) -> None:
                async with sem:
                    c = RawClient(session, url)
                    await c.connect({"world": name, "key": world_keys[name], "client": CLIENT})
                    assert (await c.call("snapshot", scene_payload(n_tokens)))["ok"]
                    await c.close()

            await asyncio.gather(*(fill(n) for n in names))
        await asyncio.sleep(1.0)
        live = rss_mb(proc.pid)
    finally:
        stop(proc)
    t = time.perf_counter()
    proc, url = start(
        serve_cmd(db, extra), env=env
    )  # rebuilt from the snapshots, as after a restart
    restart_s = time.perf_counter() - t
    await asyncio.sleep(1.0)
    restored = rss_mb(proc.pid)
    stop(proc)
    # the default policy: worlds without a client are saved and unloaded after a while
    proc, url = start(serve_cmd(db, extra, sleep_after=1), env=env)
    try:
        deadline = time.time() + 120
        while await awake_worlds(url) and time.time() < deadline:
            await asyncio.sleep(0.5)
        await asyncio.sleep(1.0)
        asleep = rss_mb(proc.pid)
    finally:
        stop(proc)
    return {
        "empty": base,
        "live": live,
        "restored": restored,
        "restart_s": restart_s,
        "asleep": asleep,
    }


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="1 s runs, 200 idle worlds")
    ap.add_argument("--seconds", type=float, default=None, help="measured seconds per run")
    ap.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="runs of each server per client count, alternating; medians are reported "
        "(default 3, 1 with --quick): one run can be off by 10 %%",
    )
    ap.add_argument("--durability", choices=["normal", "full"], default="normal")
    ap.add_argument(
        "--part",
        choices=["all", "speed", "burst", "paced", "connect", "memory", "wake"],
        default="all",
        help="what to measure",
    )
    ap.add_argument(
        "--ruler",
        action="store_true",
        help="with --part speed or burst: also runs in which each world's VTT shows the "
        "movement budget ('ruler': a command and its ack after every move in a fight, as at a "
        "Foundry or Roll20 table)",
    )
    ap.add_argument(
        "--dashboard",
        action="store_true",
        help="also runs in which a dashboard page watches every world played ('watched')",
    )
    ap.add_argument(
        "--echo",
        choices=["stock", "bridge"],
        default="stock",
        help="the echo's transport: python-socketio as installed (the baseline), or "
        "the bridge's (pydantic-core packet JSON, adapters/bridge/websocket.py, handlers in "
        "the reader): like for like",
    )
    ap.add_argument(
        "--baseline",
        metavar="PYTHON",
        help="with --part speed: also run a bridge started by this interpreter (another "
        "vttbridge installed in it, e.g. main's code), alternating with this one's",
    )
    ap.add_argument(
        "--baseline-args",
        default="",
        metavar="ARGS",
        help="serve options for the baseline's bridge only, e.g. '--event-loop asyncio' (with "
        "--baseline set to this interpreter: the same code, one option apart)",
    )
    args = ap.parse_args()
    base_extra = args.baseline_args.split()
    seconds = args.seconds or (1.0 if args.quick else 4.0)
    repeat = args.repeat or (1 if args.quick else 3)
    n_idle = 200 if args.quick else 1000

    print(f"bench_bridge: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, "
          f"durability={args.durability}, "
          f"echo transport={args.echo}, "
          f"dashboards={'runs with one per world' if args.dashboard else 'none'}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmpdir:
        if args.part in ("all", "speed"):
            extra = ["--durability", args.durability]
            await speed(
                Path(tmpdir),
                seconds,
                extra,
                repeat,
                args.echo,
                args.dashboard,
                args.baseline,
                base_extra=base_extra,
                ruler=args.ruler,
            )
        if args.part in ("all", "burst"):
            extra = ["--durability", args.durability]
            await speed(Path(tmpdir), args.seconds or (5.0 if args.quick else 30.0), extra,
                        repeat, args.echo, baseline=args.baseline, counts=(100,),
                        base_extra=base_extra, ruler=args.ruler)  # fmt: skip
        if args.part in ("all", "paced"):
            await paced(Path(tmpdir), args.seconds or (5.0 if args.quick else 20.0), repeat,
                        args.baseline, base_extra)  # fmt: skip
        if args.part in ("all", "connect"):
            await connect(Path(tmpdir), [], repeat, args.echo)
        if args.part in ("all", "memory"):
            await memory(Path(tmpdir), n_idle, [])
        if args.part in ("all", "wake"):
            await wake(Path(tmpdir), n_idle)


def start_baseline(python: str, db: Path, extra: list[str]) -> tuple[subprocess.Popen, str]:
    """``vttbridge serve`` by another interpreter (``--baseline``), run from the checkout its
    vttbridge is installed from (its tests' MiniTable, its package metadata), not this one."""
    return start(serve_cmd(db, extra, python=python), root=checkout_of(python))


def checkout_of(python: str) -> Path:
    """The checkout the vttbridge of another interpreter is installed from (editable)."""
    where = subprocess.run(
        [python, "-c", "import pathlib, vttbridge.adapters as a; "
         "print(pathlib.Path(a.__file__).resolve().parents[1])"],
        cwd="/", capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    return Path(where)


def node_echo() -> list[str] | None:
    """The command of the Node socket.io echo (``bench/node``, ``npm ci`` run once); None
    without Node.js and npm."""
    import shutil

    where = ROOT / "bench" / "node"
    if not shutil.which("node") or not shutil.which("npm"):
        print("(no Node.js: the Node socket.io echo is left out)")
        return None
    if not (where / "node_modules").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=where, check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
    return ["node", str(where / "echo.mjs")]


async def speed(
    tmp: Path,
    seconds: float,
    extra: list[str],
    repeat: int,
    echo_kind: str = "stock",
    dashboards: bool = False,
    baseline: str | None = None,
    counts: tuple[int, ...] = (1, 10, 100),
    base_extra: list[str] = (),
    ruler: bool = False,
    with_node: bool = True,
) -> dict[tuple[str, int], dict[str, float]]:
    """Each server's medians by (name, clients), as printed (``with_node=False``: without
    the Node echo)."""
    runs: dict[tuple[str, int], list[dict]] = {}
    echo_script = tmp / "echo.py"
    echo_script.write_text(ECHO_SERVER)
    db = tmp / f"bench-{os.urandom(3).hex()}.sqlite3"
    # the ruler's worlds are their own (a world is played through one adapter)
    names = [f"w{i}" for i in range(max(counts))]
    ruled = [f"r{i}" for i in range(max(counts))] if ruler else []
    world_keys = make_worlds(db, names + ruled)
    echo = bridge = base = None
    node_cmd = node_echo() if with_node else None
    node = None
    try:
        echo, echo_url = start([sys.executable, str(echo_script), echo_kind])
        if node_cmd is not None:
            node, node_url = start(node_cmd)
        bridge, bridge_url = start(serve_cmd(db, extra, ruler=ruler))
        if baseline:  # its own database: a world is one node's
            base_db = tmp / f"baseline-{os.urandom(3).hex()}.sqlite3"
            base_keys = make_worlds(base_db, [f"w{i}" for i in range(max(counts))], baseline)
            base, base_url = start_baseline(baseline, base_db, [*extra, *base_extra])
        load = os.getloadavg()
        for n in counts:
            worlds = [f"w{i}" for i in range(n)]
            for _ in range(repeat):  # alternating, so a slow minute of the machine hits both
                servers = [("echo", echo, echo_url, {})]
                if node is not None:
                    servers.append(("node", node, node_url, {}))
                servers.append(("bridge", bridge, bridge_url, world_keys))
                if base is not None:
                    servers.append(("baseline", base, base_url, base_keys))
                if dashboards:
                    servers.append(("watched", bridge, bridge_url, world_keys))
                if ruler:
                    servers.append(("ruler", bridge, bridge_url, world_keys))
                for name, proc, url, wk in servers:
                    cpu = cpu_seconds(proc.pid)
                    bridged = name not in ("echo", "node")
                    played, ns = (ruled[:n], "/rulertable") if name == "ruler" else (worlds, NS)
                    r = await run_load(
                        url, played, wk, seconds, bridged, dashboards=name == "watched", ns=ns
                    )
                    # server CPU per event: what the server spends on one, whatever the
                    # clients do
                    r["cpu_us"] = (cpu_seconds(proc.pid) - cpu) / r["total"] * 1e6
                    runs.setdefault((name, n), []).append(r)
    finally:
        for proc in (echo, node, bridge, base):
            if proc is not None:
                stop(proc)
    load = tuple(max(x, y) for x, y in zip(load, os.getloadavg(), strict=True))
    keys = ("eps", "p50", "p99", "p999", "max", "cpu_us", "views", "cmds")
    results = {key: {k: statistics.median(r[k] for r in rs) for k in keys}
               for key, rs in runs.items()}  # fmt: skip

    print()
    print(f"machine load average (1, 5, 15 min; the highest seen before or after): "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs")  # fmt: skip
    if repeat > 1:
        print(f"medians of {repeat} alternating runs of each server, {seconds:g} s each:")
    print(f"{'clients':>7}  {'server':<8} {'events/s':>9} {'p50 ms':>7} {'p99 ms':>7}"
          f" {'p99.9':>7} {'max ms':>7} {'CPU us/ev':>9}"
          f"   {'x echo/s':>8} {'x echo p50':>10} {'cmd/ev':>6}")  # fmt: skip
    for n in counts:
        e = results[("echo", n)]
        shown = ["echo", *(["node"] if node is not None else []), "bridge"]
        shown += ["baseline"] if base is not None else []
        shown += ["watched"] if dashboards else []
        shown += ["ruler"] if ruler else []
        for name in shown:
            b = results[(name, n)]
            ratio = (f"   {b['eps'] / e['eps']:>8.2f} {b['p50'] / e['p50']:>10.2f}"
                     f" {b['cmds']:>6.2f}" if name != "echo" else "")  # fmt: skip
            print(
                f"{n if name == 'echo' else '':>7}  {name:<8} {b['eps']:>9.0f} {b['p50']:>7.2f}"
                f" {b['p99']:>7.2f} {b['p999']:>7.2f} {b['max']:>7.1f} {b['cpu_us']:>9.0f}"
                + ratio
                + (f"   {b['views']:.0f} views/s" if name == "watched" else "")
            )
        for name in ("bridge", *(["baseline"] if base else []), *(["ruler"] if ruler else [])):
            maxes = ", ".join(f"{r['max']:.1f}" for r in runs[(name, n)])
            print(f"{'':>7}  ({name} max of each run: {maxes} ms)")
    print()
    for n in (10, 100):
        if n not in counts:
            continue
        e, b = results[("echo", n)], results[("bridge", n)]
        tput, lat = b["eps"] / e["eps"], b["p50"] / e["p50"]
        print(f"target at {n} clients: events/s >= 0.90x echo: {tput:.2f}x "
              f"{'OK' if tput >= 0.9 else 'MISSED'}; p50 <= 1.20x echo: {lat:.2f}x "
              f"{'OK' if lat <= 1.2 else 'MISSED'}")  # fmt: skip
    if 100 in counts and seconds >= 30:
        worst = max(r["max"] for r in runs[("bridge", 100)])
        print(f"target at 100 clients over {seconds:g} s: max < 50 ms in every run: "
              f"{worst:.1f} ms {'OK' if worst < 50 else 'MISSED'}")  # fmt: skip
    if base is not None:
        for n in counts:
            b, o = results[("bridge", n)], results[("baseline", n)]
            print(f"this bridge / baseline at {n:>3} clients: events/s {b['eps'] / o['eps']:.3f}x, "
                  f"p50 {b['p50'] / o['p50']:.3f}x, max {b['max'] / o['max']:.3f}x, "
                  f"CPU us/ev {b['cpu_us'] / o['cpu_us']:.3f}x")  # fmt: skip
    if ruler:
        for n in counts:
            b, r = results[("bridge", n)], results[("ruler", n)]
            print(f"with the ruler at {n:>3} clients (a command a move): events/s "
                  f"{r['eps'] / b['eps']:.2f}x the bridge's, CPU us/ev "
                  f"{r['cpu_us'] - b['cpu_us']:+.0f}")  # fmt: skip
    return results


async def paced_load(
    url: str, worlds: list[str], world_keys: dict[str, str], seconds: float, every: float,
    proc: subprocess.Popen, bridge: bool = True,
) -> dict:  # fmt: skip
    """One client per world, each sending a token move every ``every`` seconds (their starts
    spread over the first interval), for ``seconds``: latency percentiles, and the server's
    CPU over the measured part (share of a core, per event); for a bridge with metrics, its
    commits' time per event (``commit_us``) and commits per event over the same part."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        clients = []
        sem = asyncio.Semaphore(20)

        async def join(w: str) -> RawClient:
            async with sem:
                c = RawClient(session, url)
                await c.connect({"world": w, "key": world_keys.get(w, "x"), "client": CLIENT})
                if bridge:
                    await start_combat(c)
                return c

        clients = await asyncio.gather(*(join(w) for w in worlds))
        await asyncio.sleep(1.0)
        # read here and at the end, as the CPU is: the setup's commits are not the moves'
        before = await commit_totals(url) if bridge else None
        run = os.urandom(4).hex()
        latencies: list[float] = []
        began = time.perf_counter()
        cpu = cpu_seconds(proc.pid)

        async def play(ci: int, c: RawClient) -> None:
            at = began + every * ci / len(clients)
            i = 0
            while at < began + seconds:
                await asyncio.sleep(max(0.0, at - time.perf_counter()))
                i += 1
                payload = {"id": f"{run}-{ci}-{i}", "token": "t0", "x": 100 * (i % 2), "y": 300}
                t0 = time.perf_counter()
                ack = await c.call("tokenMoved", payload)
                latencies.append(time.perf_counter() - t0)
                if not ack.get("ok"):
                    raise RuntimeError(f"refused: {ack}")
                at += every

        with no_client_pauses():
            await asyncio.gather(*(play(i, c) for i, c in enumerate(clients)))
        used = cpu_seconds(proc.pid) - cpu
        elapsed = time.perf_counter() - began
        after = await commit_totals(url) if before is not None else None
        for c in clients:
            await c.close()
    latencies.sort()
    n = len(latencies)
    committed = {}
    if before is not None and after is not None:
        committed = {
            "commit_us": (after[0] - before[0]) / n * 1e6,
            "commits": (after[1] - before[1]) / n,
        }
    return {
        "n": n,
        "p50": statistics.median(latencies) * 1000,
        "p99": percentile(latencies, 0.99) * 1000,
        "max": latencies[-1] * 1000,
        "share": used / elapsed,
        "cpu_us": used / n * 1e6,
        **committed,
    }


def log_bytes(db: Path) -> tuple[int, int]:
    """(bytes of the pages of the log and its index, log rows that are events) of a SQLite
    file (SQLite's dbstat table)."""
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        ((used,),) = conn.execute(
            "SELECT coalesce(sum(pgsize - unused), 0) FROM dbstat"
            " WHERE name IN ('log', 'log_world_seq')"
        ).fetchall()
        events = conn.execute("SELECT count(*) FROM log WHERE kind='event'").fetchone()[0]
    finally:
        conn.close()
    return used, events


async def paced(
    tmp: Path, seconds: float, repeat: int, baseline: str | None, base_extra: list[str] = (),
    tables: int = 200,
) -> dict[str, dict[str, float]]:  # fmt: skip
    """A realistic table load: N worlds with a client each, one token move every 2 s per
    table, for ``seconds``; the server's share of a core and CPU per event, the worlds one
    core serves at that load, and the log's bytes per event; the same load on the bare
    python-socketio echo, alternating (at this pace an event costs every server several times
    what it costs under full load: each one wakes the process on its own), and on the same echo
    on the bridge's transport. With ``--baseline``, the same on the other interpreter's bridge
    too. Returns each server's medians."""
    n, every = tables, 2.0
    names = [f"p{i:03d}" for i in range(n)]
    servers: list[tuple[str, subprocess.Popen, str, dict, Path]] = []
    db = tmp / f"paced-{os.urandom(3).hex()}.sqlite3"
    keys_ = make_worlds(db, names)
    empty, _ = log_bytes(db)
    echo_script = tmp / "echo.py"
    echo_script.write_text(ECHO_SERVER)
    try:
        proc, url = start([sys.executable, str(echo_script)])
        servers.append(("echo", proc, url, {}, db))
        proc, url = start([sys.executable, str(echo_script), "bridge"])
        servers.append(("transport", proc, url, {}, db))
        proc, url = start(serve_cmd(db))
        servers.append(("bridge", proc, url, keys_, db))
        if baseline:
            bdb = tmp / f"paced-base-{os.urandom(3).hex()}.sqlite3"
            bkeys = make_worlds(bdb, names, baseline)
            bproc, burl = start_baseline(baseline, bdb, base_extra)
            servers.append(("baseline", bproc, burl, bkeys, bdb))
        load = os.getloadavg()
        runs: dict[str, list[dict]] = {}
        for _ in range(repeat):
            for name, proc, url, wk, _db in servers:
                bridge = name not in ("echo", "transport")
                r = await paced_load(url, names, wk, seconds, every, proc, bridge)
                runs.setdefault(name, []).append(r)
        load = tuple(max(x, y) for x, y in zip(load, os.getloadavg(), strict=True))
    finally:
        for _name, proc, *_ in servers:
            stop(proc)
    used, events = log_bytes(db)
    print()
    print(f"machine load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"{n} tables, one move every {every:g} s each ({n / every:.0f} events/s), "
          f"{seconds:g} s, medians of {repeat}:")  # fmt: skip
    echo_cpu = statistics.median(r["cpu_us"] for r in runs["echo"])

    def of_echo(us: float) -> str:
        # a short run can use less CPU than the kernel's clock tick counts (none, then)
        return f" ({us / echo_cpu:.2f}x the echo's)" if echo_cpu else ""

    medians = {}
    for name, rs in runs.items():
        m = medians[name] = {k: statistics.median(r[k] for r in rs) for k in rs[0]}
        per_core = f"~{n / m['share']:.0f}" if m["share"] else "too little CPU to count"
        ratio = of_echo(m["cpu_us"]) if name != "echo" else ""
        commits = (f"; its commits {m['commit_us']:.0f} us/event ({m['commits']:.2f} an event)"
                   if "commit_us" in m else "")  # fmt: skip
        print(f"  {name:<9} p50 {m['p50']:.2f} ms, p99 {m['p99']:.2f} ms, max {m['max']:.1f} ms; "
              f"{m['share']:.1%} of a core, {m['cpu_us']:.0f} us CPU/event{ratio}: "
              f"{per_core} such tables per core{commits}")  # fmt: skip
    if "commit_us" in medians["bridge"]:
        floor = medians["transport"]["cpu_us"] + medians["bridge"]["commit_us"]
        print(f"the floor at this pace: the bridge's transport answering alone and one commit "
              f"an event, {floor:.0f} us{of_echo(floor)}, before any validation, rule or "
              f"command")  # fmt: skip
    print(
        f"the log: {(used - empty) / max(1, events):.0f} bytes per event, its commands and "
        f"the index included ({events} events: {(used - empty) / 1e6:.1f} MB)"
    )
    return medians


async def commit_totals(url: str) -> tuple[float, float] | None:
    """A bridge's group commits so far as its ``/metrics`` page counts them: (seconds, commits);
    None without the metrics."""
    async with aiohttp.ClientSession() as session, session.get(f"{url}/metrics") as resp:
        if resp.status != 200:
            return None
        text = await resp.text()
    try:  # installed with the metrics extra (a --baseline's server may have it, this not)
        from prometheus_client import parser
    except ImportError:
        return None

    found = {
        sample.name: sample.value
        for family in parser.text_string_to_metric_families(text)
        if family.name == "vttbridge_commit_seconds"
        for sample in family.samples
    }
    if "vttbridge_commit_seconds_sum" not in found:
        return None
    return found["vttbridge_commit_seconds_sum"], found["vttbridge_commit_seconds_count"]


async def connect_all(url: str, worlds: list[str], world_keys: dict[str, str]) -> float:
    """Seconds for one client per world to connect, all at once (as after a restart, when
    every table reconnects); the clients are closed after."""
    async with aiohttp.ClientSession() as session:
        clients = [RawClient(session, url) for _ in worlds]
        t = time.perf_counter()
        await asyncio.gather(
            *(
                c.connect({"world": w, "key": world_keys.get(w, "x"), "client": CLIENT})
                for c, w in zip(clients, worlds, strict=True)
            )
        )
        elapsed = time.perf_counter() - t
        for c in clients:
            await c.close()
    return elapsed


async def connect(tmp: Path, extra: list[str], repeat: int, echo: str = "stock") -> None:
    """100 clients connecting at once to the echo (which accepts any auth) and to the bridge
    (which checks each world's key, as stored by ``vttbridge world create``)."""
    n = 100
    echo_script = tmp / "echo.py"
    echo_script.write_text(ECHO_SERVER)
    db = tmp / "connect.sqlite3"
    worlds = [f"c{i}" for i in range(n)]
    world_keys = make_worlds(db, worlds)
    echo_proc, echo_url = start([sys.executable, str(echo_script), echo])
    bridge_proc, bridge_url = start(serve_cmd(db, extra))
    runs: dict[str, list[float]] = {"echo": [], "bridge": []}
    try:
        for url, wk in ((echo_url, {}), (bridge_url, world_keys)):  # a first, unmeasured round
            await connect_all(url, worlds, wk)
        for _ in range(max(repeat, 3)):
            runs["echo"].append(await connect_all(echo_url, worlds, {}))
            runs["bridge"].append(await connect_all(bridge_url, worlds, world_keys))
    finally:
        stop(echo_proc)
        stop(bridge_proc)
    e, b = statistics.median(runs["echo"]), statistics.median(runs["bridge"])
    print()
    print(f"{n} clients connecting at once (median of {len(runs['echo'])} alternating runs): "
          f"echo {e * 1000:.0f} ms, bridge {b * 1000:.0f} ms")  # fmt: skip
    ratio = b / e
    print(f"target: connect cost <= 2.0x echo: {ratio:.2f}x {'OK' if ratio <= 2 else 'MISSED'}")


async def memory(tmp: Path, n_idle: int, extra: list[str]) -> None:
    """The default (on Linux with glibc, ``serve`` runs under glibc's malloc for every object,
    ``PYTHONMALLOC=malloc``), then Python's own allocator (``PYTHONMALLOC=pymalloc``), which
    keeps an arena while one object in it lives, so a sleeping world's freed memory mostly
    stays with the process; malloc's is given back by malloc_trim."""
    for label, env in (("", None), ("PYTHONMALLOC=pymalloc: ", {"PYTHONMALLOC": "pymalloc"})):
        mem = await idle_worlds(tmp, n_idle, 50, extra, env)
        print()
        print(f"{label}{n_idle} idle worlds x 50 tokens: {mem['live']:.0f} MB resident after "
              f"the clients linked them ({mem['empty']:.0f} MB with none loaded); "
              f"{mem['restored']:.0f} MB after a restart rebuilt them "
              f"({mem['restart_s']:.1f} s to start)")  # fmt: skip
        print(f"the same worlds asleep (saved and unloaded after --sleep-after, the default "
              f"policy for worlds with no client): {mem['asleep']:.0f} MB")  # fmt: skip
        back = mem["asleep"] / mem["empty"] - 1
        print(f"asleep against the empty server: {back:+.0%} "
              f"({'OK' if back <= 0.25 else 'MISSED'}: target within 25 %)")  # fmt: skip
        worst = max(mem["live"], mem["restored"])
        if n_idle == 1000:
            print(f"target under 300 MB: all {n_idle} loaded: {worst:.0f} MB "
                  f"{'OK' if worst < 300 else 'MISSED'}; asleep: {mem['asleep']:.0f} MB "
                  f"{'OK' if mem['asleep'] < 300 else 'MISSED'}")  # fmt: skip


async def reconnect_and_move(
    url: str, worlds: list[str], world_keys: dict[str, str], bridge: bool
) -> tuple[float, list[RawClient], aiohttp.ClientSession]:
    """Seconds for one client per world to connect, all at once, and each to have one token
    move acknowledged; the clients stay connected (close them and the session)."""
    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
    clients = [RawClient(session, url) for _ in worlds]
    run = os.urandom(4).hex()

    async def one(c: RawClient, w: str) -> None:
        await c.connect({"world": w, "key": world_keys.get(w, "x"), "client": CLIENT})
        ack = await c.call("tokenMoved", {"id": f"{run}-{w}", "token": "t0", "x": 0, "y": 300})
        if bridge and not ack.get("ok"):
            raise RuntimeError(f"refused: {ack}")

    t = time.perf_counter()
    await asyncio.gather(*(one(c, w) for c, w in zip(clients, worlds, strict=True)))
    return time.perf_counter() - t, clients, session


async def idle_share(proc: subprocess.Popen, seconds: float = 5.0) -> float:
    """The share of one core ``proc`` uses over ``seconds`` in which nothing is sent."""
    await asyncio.sleep(0.5)
    cpu, t = cpu_seconds(proc.pid), time.perf_counter()
    await asyncio.sleep(seconds)
    return (cpu_seconds(proc.pid) - cpu) / (time.perf_counter() - t)


async def wake(tmp: Path, n: int) -> None:
    """``n`` sleeping worlds whose clients all come back at once (see the module docstring)."""
    echo_script = tmp / "echo.py"
    echo_script.write_text(ECHO_SERVER)
    db = tmp / "wake.sqlite3"
    names = [f"wake{i:04d}" for i in range(n)]
    world_keys = make_worlds(db, names)
    proc, url = start(serve_cmd(db, sleep_after=1))
    echo_proc, echo_url = start([sys.executable, str(echo_script)])
    try:
        async with aiohttp.ClientSession() as session:
            sem = asyncio.Semaphore(20)

            async def fill(name: str) -> None:
                async with sem:
                    c = RawClient(session, url)
                    await c.connect({"world": name, "key": world_keys[name], "client": CLIENT})
                    assert (await c.call("snapshot", scene_payload(50)))["ok"]
                    await c.close()

            await asyncio.gather(*(fill(name) for name in names))
        deadline = time.time() + 300
        while await awake_worlds(url) and time.time() < deadline:
            await asyncio.sleep(0.5)
        asleep_share = await idle_share(proc)
        woke_s, clients, session = await reconnect_and_move(url, names, world_keys, True)
        try:
            # the moves' worlds are snapshotted once quiet for 5 s (--snapshot-quiet): that
            # is work, done once; what follows is idle
            await asyncio.sleep(6)
            idle = await idle_share(proc)
        finally:
            for c in clients:
                await c.close()
            await session.close()
        echo_s, clients, session = await reconnect_and_move(echo_url, names, {}, False)
        try:
            await asyncio.sleep(6)
            echo_idle = await idle_share(echo_proc)
        finally:
            for c in clients:
                await c.close()
            await session.close()
    finally:
        stop(proc)
        stop(echo_proc)
    print()
    print(f"{n} worlds asleep, no client: the server uses {asleep_share:.2%} of a core")
    print(
        f"{n} clients reconnect at once and each moves once: bridge {woke_s:.2f} s (every "
        f"world woken from its snapshot), echo {echo_s:.2f} s: {woke_s / echo_s:.2f}x"
    )
    print(f"then the {n} clients stay connected and silent: the bridge uses {idle:.2%} of a "
          f"core, the echo {echo_idle:.2%} (their pings and timers)")  # fmt: skip
    print(f"targets: all answered within 10 s: {woke_s:.2f} s "
          f"{'OK' if woke_s <= 10 else 'MISSED'}; asleep under 1 % of a core: "
          f"{asleep_share:.2%} {'OK' if asleep_share < 0.01 else 'MISSED'}")  # fmt: skip


if __name__ == "__main__":
    asyncio.run(main())
