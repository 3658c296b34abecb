"""The CPU instructions a server executes per event, counted by Valgrind's callgrind: a
figure that other work on the machine does not move, for telling what a change costs when
timings swing by a third from one hour to the next.

    python bench/bench_instructions.py                          # about two minutes
    python bench/bench_instructions.py --baseline ../main/.venv/bin/python --clients 1

Needs ``valgrind`` (``apt-get install valgrind``); Linux only.

Each server runs under callgrind with its counting off (at close to native speed) while it
starts, while its clients connect and set up their worlds, and for a warm-up of 150 events
per client; then the counters are switched on and zeroed, each client sends a fixed number of
events in a closed loop (the speed run's load of ``bench_bridge.py``: token moves, and for a
bridge's clients the turn passed every ``TURN_EVERY`` moves), and the counts are dumped. What
is reported is every instruction the server's process executed in user space in that window,
in all its threads (the kernel's work, such as socket reads and writes, is not counted), per
event:

- echo: the bare python-socketio echo of ``bench_bridge.py`` (python-socketio as installed);
- transport: the same echo on the bridge's transport (its packet JSON, its websocket loop);
- bridge: ``vttbridge serve``, one Fallout: Equestria world per client, as in the speed run;
- baseline (``--baseline PYTHON``): another vttbridge's bridge, installed in another
  interpreter's environment (a checkout of ``main`` in a virtualenv of its own).

Under callgrind a server runs some fifty times slower while its clients do not, so each of
its loop's turns finds every client's event waiting: the counts are those of a saturated
server (the group commit's batches full), the case the throughput targets are about. With one
client each event is committed on its own: the light-load path.

A run's counts are the same to within a fraction of a percent from one run to the next, so a
change of 1 % shows. They are not a time: an instruction of the bridge takes longer than one
of the echo on average (more memory touched per event), and the kernel's share is left out;
``bench_bridge.py`` measures time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_bridge as bb

WARMUP = 150
"""Events per client before the count starts (imports done, caches warm, schemas built)."""


def callgrind(out: Path) -> list[str]:
    return [
        "valgrind", "--tool=callgrind", "--instr-atstart=no", "--dump-instr=no",
        f"--callgrind-out-file={out}",
    ]  # fmt: skip


def control(pid: int, *args: str) -> None:
    """Ask callgrind in ``pid`` to do something; it acts at its next look, which a short
    sleep leaves it time for (the server is idle then)."""
    subprocess.run(["callgrind_control", *args, str(pid)], check=True, capture_output=True)
    time.sleep(0.3)


def read_dump(files: list[Path]) -> tuple[int, Counter[str]]:
    """The instructions of the dump ``callgrind_control -d`` wrote, and their split by the
    shared object they ran in (libpython, libc, pydantic-core, SQLite...)."""
    for f in files:
        text = f.read_text()
        if "Trigger: dump" not in text:
            continue  # the one written at exit
        total = int(re.search(r"^summary: (\d+)", text, re.M).group(1))
        return total, by_object(text)
    raise RuntimeError(f"no dump among {[str(f) for f in files]}")


def by_object(text: str) -> Counter[str]:
    """Self cost per shared object from a callgrind file (name compression: ``ob=(n) name``
    names ``n`` once; the line after ``calls=`` is a call's inclusive cost, not a self cost)."""
    names: dict[str, str] = {}
    out: Counter[str] = Counter()
    current: str | None = None
    skip = False
    for line in text.splitlines():
        if skip:
            skip = False
            continue
        if line.startswith(("ob=", "cob=")):
            m = re.match(r"c?ob=\((\d+)\)(?: (.*))?", line)
            if m is None:
                continue
            if m.group(2):
                names[m.group(1)] = Path(m.group(2)).name
            if line.startswith("ob="):
                current = names.get(m.group(1), m.group(1))
        elif line.startswith("calls="):
            skip = True
        elif current is not None and line[:1] in "0123456789+-*":
            parts = line.split()
            if len(parts) >= 2 and parts[1].isdigit():
                out[current] += int(parts[1])
    return out


def short(obj: str) -> str:
    for key, name in (("libpython", "python"), ("_pydantic_core", "pydantic-core"),
                      ("libsqlite3", "sqlite"), ("libc.so", "libc")):  # fmt: skip
        if key in obj:
            return name
    return "other"


async def drive(url: str, worlds: list[str], world_keys: dict[str, str], bridge: bool,
                pid: int, events: int) -> int:  # fmt: skip
    """Connect a client per world, warm up, count ``events`` per client; events counted."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        clients = await bb.table_clients(session, url, worlds, world_keys)
        if bridge:
            for c in clients:
                await bb.start_combat(c)
        run = os.urandom(4).hex()

        async def loop(ci: int, c: bb.RawClient, n: int, tag: str) -> None:
            for i in range(1, n + 1):
                ack = await c.call(*bb.table_event(f"{run}{tag}-{ci}-{i}", i, bridge))
                if not ack.get("ok"):
                    raise RuntimeError(f"refused: {ack}")

        await asyncio.gather(*(loop(i, c, WARMUP, "w") for i, c in enumerate(clients)))
        control(pid, "--instr=on")
        control(pid, "--zero")
        await asyncio.gather(*(loop(i, c, events, "m") for i, c in enumerate(clients)))
        control(pid, "--dump")
        control(pid, "--instr=off")
        for c in clients:
            await c.close()
    return events * len(worlds)


def count(kind: str, clients: int, events: int, tmp: Path, baseline: str | None) -> dict:
    """Start one server under callgrind, drive it, return its instructions per event."""
    names = [f"w{i}" for i in range(clients)]
    db = tmp / f"{kind}-{os.urandom(3).hex()}.sqlite3"
    out = tmp / f"{kind}-{os.urandom(3).hex()}.%p.out"
    # glibc's allocator for every server, as serve chooses for itself on Linux; set here so
    # that serve does not start again under it (callgrind would not follow the new image)
    env = {"PYTHONMALLOC": "malloc"}
    world_keys: dict[str, str] = {}
    root = bb.ROOT
    if kind in ("echo", "transport"):
        script = tmp / "echo.py"
        script.write_text(bb.ECHO_SERVER)
        cmd = [sys.executable, str(script), "stock" if kind == "echo" else "bridge"]
    elif kind == "baseline":
        assert baseline is not None
        world_keys = bb.make_worlds(db, names, python=baseline)
        cmd = bb.serve_cmd(db, [], python=baseline)
        root = bb.checkout_of(baseline)
    else:
        world_keys = bb.make_worlds(db, names)
        cmd = bb.serve_cmd(db, [])
    proc, url = bb.start(callgrind(out) + cmd, env=env, root=root)
    try:
        n = asyncio.run(drive(url, names, world_keys, kind not in ("echo", "transport"),
                              proc.pid, events))  # fmt: skip
    finally:
        bb.stop(proc)
    files = sorted(tmp.glob(out.name.replace("%p", str(proc.pid)) + "*"))
    total, objects = read_dump(files)
    split: Counter[str] = Counter()
    for obj, ir in objects.items():
        split[short(obj)] += ir
    return {"ir": total / n, "split": {k: v / n for k, v in split.items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, nargs="+", default=[1, 10])
    ap.add_argument("--events", type=int, default=2000, help="counted events per run, in all")
    ap.add_argument("--baseline", metavar="PYTHON", help="another vttbridge's interpreter")
    ap.add_argument("--servers", nargs="+", default=["echo", "transport", "bridge"],
                    choices=["echo", "transport", "bridge"])  # fmt: skip
    args = ap.parse_args()
    if not shutil.which("valgrind") or not shutil.which("callgrind_control"):
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    kinds = list(args.servers) + (["baseline"] if args.baseline else [])
    print(f"bench_instructions: Python {sys.version.split()[0]}, instructions per event "
          "(thousands) in the server's process, user space, all threads")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="vttbridge-ir-") as d:
        tmp = Path(d)
        for clients in args.clients:
            per_client = max(1, args.events // clients)
            res = {k: count(k, clients, per_client, tmp, args.baseline) for k in kinds}
            print(f"\n{clients} client(s), {per_client * clients} events counted")
            print(f"{'server':10s} {'k instr/ev':>10s} {'python':>8s} {'libc':>8s} "
                  f"{'pydantic':>8s} {'sqlite':>8s} {'other':>8s}")  # fmt: skip
            for k, r in res.items():
                s = r["split"]
                print(f"{k:10s} {r['ir'] / 1e3:10.1f} " + " ".join(
                    f"{s.get(c, 0) / 1e3:8.1f}"
                    for c in ("python", "libc", "pydantic-core", "sqlite", "other")))  # fmt: skip
            if "bridge" in res:
                b = res["bridge"]["ir"]
                if "echo" in res:
                    print(f"bridge / echo: {b / res['echo']['ir']:.3f}x")
                if "transport" in res:
                    above = b - res["transport"]["ir"]
                    print(f"bridge above its transport: {above / 1e3:.1f}k instructions an event")
                    if "echo" in res:
                        ratio = res["transport"]["ir"] / res["echo"]["ir"]
                        print(f"the bridge's transport / python-socketio's: {ratio:.3f}x")
                if "baseline" in res:
                    print(f"bridge / baseline: {b / res['baseline']['ir']:.3f}x")


if __name__ == "__main__":
    main()
