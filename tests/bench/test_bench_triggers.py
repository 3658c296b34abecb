"""The trigger benchmark runs and both indexes fire the same triggers (no timing asserts)."""

import importlib.util
from pathlib import Path

BENCH = Path(__file__).parents[2] / "bench" / "bench_triggers.py"


def load():
    spec = importlib.util.spec_from_file_location("bench_triggers", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def test_bench_runs_small(capsys):
    bench = load()
    rows = await bench.run([10, 200], moves=6)
    assert [r["n"] for r in rows] == [10, 200]
    assert all(r["indexed"] > 0 and r["scan"] > 0 for r in rows)
    text = bench.report(rows)
    assert "scan/indexed" in text
