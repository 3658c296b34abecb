"""The trigger benchmark runs and both indexes fire the same triggers (no timing asserts)."""

from tests.bench import loader


async def test_bench_runs_small(capsys):
    bench = loader.load_bench("bench_triggers")
    rows = await bench.run([10, 200], moves=6)
    assert [r["n"] for r in rows] == [10, 200]
    assert all(r["indexed"] > 0 and r["scan"] > 0 for r in rows)
    text = bench.report(rows)
    assert "scan/indexed" in text
