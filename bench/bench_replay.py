"""``vttbridge replay`` on a long log, against the world's own replay when it wakes.

    python bench/bench_replay.py               # a 10,000-event log, 3 alternating runs
    python bench/bench_replay.py --events 2000 --repeat 1

A Fallout: Equestria world (the MiniTable test adapter linked, so its commands are logged and
compared too) plays ``--events`` events through the bridge's world host, each the way a
client's event takes once off the socket: token moves (some refused by the movement rules and
put back), attacks, turns, now and then a GM's ``!set``. The log is written to a SQLite file;
the world keeps its first snapshot only (``snapshot_every`` above the events, and no final
one), so both readers replay the whole log:

- ``wake`` (the baseline): :meth:`WorldHost.load`, what a server does when the world wakes
  or starts: the snapshot, then every logged event through the runtime, checking each one's
  effects against the log (on a copy of the file: a wake writes a snapshot);
- ``replay``: ``vttbridge replay``'s work (the database opened read-only, a fresh runtime
  from the first snapshot, every event and command compared, the report).

It prints each one's events per second (medians of ``--repeat`` alternating runs) and the
ratio replay / wake.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vttbridge.adapters.bridge.config import WorldConfig  # noqa: E402
from vttbridge.adapters.bridge.replay import Replayer, compare  # noqa: E402
from vttbridge.adapters.bridge.server import Bridge, BridgeConfig, create_world  # noqa: E402
from vttbridge.adapters.bridge.storage import open_storage  # noqa: E402
from vttbridge.adapters.bridge.worldhost import WorldHost  # noqa: E402

from tests.bridge.minitable import (  # noqa: E402
    ChatIn,
    CombatStartIn,
    MiniTable,
    Snapshot,
    TokenMovedIn,
)

WORLD = "bench"
PONIES = ["mint", "bolt", "dusk", "raider", "gutter", "knives"]


async def make_log(db: Path, events: int, seed: int = 7) -> int:
    """Play ``events`` events into world ``bench`` of ``db``; the seq its log ends at."""
    create_world(db, WORLD, {"system": "foe"})
    config = BridgeConfig(
        database=db,
        reload_scripts=False,
        rate=0,
        entry_point_scripts=False,
        world=WorldConfig(snapshot_every=events * 10, snapshot_quiet=0),
    )
    bridge = Bridge(config, adapters=[MiniTable()])
    await bridge.start()
    host = bridge.worlds[WORLD]
    table = MiniTable()
    host.adapter = table
    host.log.linked(table.name)
    rng = random.Random(seed)
    n = 0

    async def send(event: str, payload: Any) -> None:
        nonlocal n
        n += 1
        ack = await host.receive(table, event, payload)
        assert ack["ok"], ack

    def pid() -> str:
        return f"e{n}"

    users = [{"id": "u-gm", "name": "Dana", "role": "gm"}]
    tokens = [
        {
            "id": p,
            "name": p.title(),
            "x": 100 * i,
            "y": 100 * (i % 3),
            "disposition": -1 if i > 2 else 1,
            "stats": {"move": 25 + 5 * (i % 2)},
        }
        for i, p in enumerate(PONIES)
    ]
    await send("snapshot", Snapshot(id=pid(), scene={"id": "s1"}, tokens=tokens, users=users))
    while n < events:
        ics = {p: rng.randint(1, 100) for p in PONIES}
        await send("combatStart", CombatStartIn(id=pid(), tokens=PONIES, initiative=ics))
        for _ in range(3):  # rounds
            for _ in PONIES:  # turns
                actor = host.runtime.world.encounter.active
                assert actor is not None
                tok = host.runtime.world.tokens[actor]
                for _ in range(rng.randint(1, 3)):  # drags, some too long
                    x = max(0, tok.cell.x + rng.randint(-4, 4)) * 100
                    y = max(0, tok.cell.y + rng.randint(-4, 4)) * 100
                    await send(
                        "tokenMoved", TokenMovedIn(id=pid(), token=actor, x=x, y=y, user="u-gm")
                    )
                target = rng.choice([p for p in PONIES if p != actor])
                chat = ChatIn(
                    id=pid(), text=f"!attack {target}", user="u-gm", role="gm", token=actor
                )
                await send("chat", chat)
                if rng.random() < 0.05:
                    metric = rng.choice(["alternating", "chebyshev"])
                    await send(
                        "chat",
                        ChatIn(
                            id=pid(), text=f"!set diagonal_metric {metric}", user="u-gm", role="gm"
                        ),
                    )
                await send("chat", ChatIn(id=pid(), text="!next", user="u-gm", role="gm"))
        await send("chat", ChatIn(id=pid(), text="!end", user="u-gm", role="gm"))
    await bridge.hosting.drain()
    await host.log.barrier()
    last = host.seq
    # no snapshot but the world's first: waking it replays the whole log, as the replay does
    await bridge.stop(snapshot=False)
    return last


async def wake(db: Path) -> tuple[float, int]:
    """The baseline: load the world as a server does (its snapshot, then the log after it),
    from a copy of the database (loading it writes a snapshot, which the next run must not
    start from)."""
    copy = db.with_name(f"wake-{time.monotonic_ns()}.sqlite3")
    shutil.copy(db, copy)
    store = await open_storage(copy)
    try:
        lease = await store.acquire(WORLD, "bench", 30)
        assert lease is not None
        started = time.perf_counter()
        host = await WorldHost.load(
            WORLD,
            store,
            lease,
            adapters={},
            config=WorldConfig(),
            runtime_kw={"reload_interval": None},
        )
        seconds = time.perf_counter() - started
        replayed = host.events_since_snapshot or await _events(store)
        assert host.replay_divergences == 0, host.replay_divergences
        await host.stop(snapshot=False)
        await store.release(lease)
        return seconds, replayed
    finally:
        await store.close()
        copy.unlink()


async def _events(store: Any) -> int:
    rows = await store.log_after(WORLD, 0, kind="event")
    return len(rows)


async def replay(db: Path) -> tuple[float, int]:
    store = await open_storage(db, read_only=True)
    try:
        started = time.perf_counter()
        report = await compare(Replayer(store, WORLD, adapters={"minitable": MiniTable()}))
        seconds = time.perf_counter() - started
    finally:
        await store.close()
    assert report.total == 0, report.text()
    return seconds, report.events


async def run(events: int, repeat: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.sqlite3"
        t0 = time.perf_counter()
        last = await make_log(db, events)
        made = time.perf_counter() - t0
        times: dict[str, list[float]] = {"wake": [], "replay": []}
        counts: dict[str, int] = {}
        for _ in range(repeat):
            for name, fn in (("wake", wake), ("replay", replay)):
                seconds, n = await fn(db)
                times[name].append(seconds)
                counts[name] = n
    return {"events": counts["replay"], "log_seq": last, "made": made, "times": times,
            "counts": counts}  # fmt: skip


def report(result: dict[str, Any]) -> str:
    times, counts = result["times"], result["counts"]
    wake_s, replay_s = (statistics.median(times[k]) for k in ("wake", "replay"))
    lines = [
        f"log: {result['events']:,} events ({result['log_seq']:,} rows with the commands), "
        f"written in {result['made']:.1f} s",
        f"wake (baseline): {counts['wake']:,} events in {wake_s:.2f} s = "
        f"{counts['wake'] / wake_s:,.0f} events/s",
        f"replay:          {counts['replay']:,} events in {replay_s:.2f} s = "
        f"{counts['replay'] / replay_s:,.0f} events/s",
        f"replay/wake time: {replay_s / wake_s:.2f}x "
        f"(runs: wake {', '.join(f'{t:.2f}' for t in times['wake'])}; "
        f"replay {', '.join(f'{t:.2f}' for t in times['replay'])})",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(report(asyncio.run(run(args.events, args.repeat))))


if __name__ == "__main__":
    main()
