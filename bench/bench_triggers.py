"""Benchmark: the cost of a token move with many position triggers, indexed vs a naive scan.

Each world holds N position triggers (``on_enter`` on one cell each) scattered over a large
map, plus one trigger on the moving token's route so every move fires exactly one. A token then
walks back and forth through ``WorldRuntime.submit(TokenMoved)`` -- the whole path an adapter's
event takes -- in a world whose trigger index is the real one (cell -> triggers) and in one that
scans every trigger per move (:class:`vttbridge.sdk.triggers.ScanIndex`), measured in the same run.

Targets: at 10,000 triggers the indexed path is at least 20x faster than the scan,
and its cost per move grows less than 2x from 1,000 to 100,000 triggers.

    python bench/bench_triggers.py [--sizes 100 1000 10000 100000] [--moves 400]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from vttbridge.rules.geometry import Cell
from vttbridge.sdk import Script, TokenMoved
from vttbridge.sdk.events import TokenCreated, TokenData
from vttbridge.sdk.runtime import WorldRuntime
from vttbridge.sdk.triggers import ScanIndex, TriggerIndex

log = logging.getLogger("bench_triggers")
MAP = 2000  # cells a side: triggers are spread far from the walk


def build_script(n: int, seed: int = 1) -> tuple[Script, list[int]]:
    rng = random.Random(seed)
    script = Script("bench")
    fired = [0]

    def hit(event: TokenMoved) -> None:
        fired[0] += 1

    script.on_enter(cells=[(5, 0)])(hit)  # on the route: every move fires one trigger
    for _ in range(n - 1):
        script.on_enter(cells=[(rng.randrange(MAP), rng.randrange(10, MAP))])(hit)
    return script, fired


async def per_move(n: int, index: type[TriggerIndex], moves: int) -> tuple[float, int]:
    script, fired = build_script(n)
    rt = WorldRuntime("bench", scripts=[script], index=index, reload_interval=None)
    await rt.start()
    try:
        await rt.submit(TokenCreated(token=TokenData(id="t", cell=Cell(x=0, y=0))))
        there, back = Cell(x=9, y=0), Cell(x=0, y=0)
        events = [
            TokenMoved(token="t", to_cell=there if i % 2 == 0 else back) for i in range(moves)
        ]
        for ev in events[:10]:  # warm up caches
            await rt.submit(ev)
        fired[0] = 0
        start = time.perf_counter()
        for ev in events:
            await rt.submit(ev)
        elapsed = time.perf_counter() - start
    finally:
        await rt.stop()
    return elapsed / moves, fired[0]


async def run(sizes: list[int], moves: int) -> list[dict[str, float]]:
    rows = []
    for n in sizes:
        scan_moves = max(10, min(moves, 2_000_000 // max(n, 1)))
        indexed, fired_i = await per_move(n, TriggerIndex, moves)
        scanned, fired_s = await per_move(n, ScanIndex, scan_moves)
        # every move enters the one trigger on the route, whichever index finds it
        assert fired_i == moves and fired_s == scan_moves, "both must fire the same"
        rows.append({"n": n, "indexed": indexed, "scan": scanned, "ratio": scanned / indexed})
    return rows


def report(rows: list[dict[str, float]]) -> str:
    lines = [f"{'triggers':>9} {'indexed µs/move':>16} {'scan µs/move':>13} {'scan/indexed':>13}"]
    for r in rows:
        lines.append(
            f"{r['n']:>9,} {r['indexed'] * 1e6:>16.1f} {r['scan'] * 1e6:>13.1f} "
            f"{r['ratio']:>12.1f}x"
        )
    by_n = {int(r["n"]): r for r in rows}
    if 1000 in by_n and 100_000 in by_n:
        growth = by_n[100_000]["indexed"] / by_n[1000]["indexed"]
        lines.append(f"indexed cost growth 1,000 -> 100,000 triggers: {growth:.2f}x (target < 2x)")
    if 10_000 in by_n:
        lines.append(
            f"at 10,000 triggers the index is {by_n[10_000]['ratio']:.1f}x faster than "
            "the scan (target >= 20x)"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10_000, 100_000])
    parser.add_argument("--moves", type=int, default=400)
    args = parser.parse_args(argv)
    rows = asyncio.run(run(args.sizes, args.moves))
    sys.stdout.write(report(rows) + "\n")  # the benchmark's output is its report
    return rows


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    main()
