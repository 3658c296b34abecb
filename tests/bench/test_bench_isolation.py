"""The isolation benchmark runs end to end and prints its figure (no timing asserts)."""

import pytest

from tests.bench import loader


@pytest.mark.slow
async def test_bench_isolation_runs_small():
    bench = loader.load_bench("bench_isolation")
    rows = await bench.run(worlds=2, rate=10, seconds=2.5, rounds=1)
    assert set(rows) == {"quiet", "sleep", "spin"}
    assert rows["sleep"]["blocked"] >= 1 and rows["spin"]["blocked"] >= 1
    assert "other worlds' p99" in bench.report(rows)


@pytest.mark.slow
async def test_bench_isolation_tables_runs_small():
    bench = loader.load_bench("bench_isolation")
    rows = await bench.tables_arriving_and_leaving(worlds=2, idle=6, rate=10, seconds=2.0, rounds=1)
    assert set(rows) == {"arriving", "quiet", "leaving"}
    assert rows["arriving"]["n"] == rows["quiet"]["n"] == rows["leaving"]["n"] == 40
    said = bench.report_tables(rows, 6)
    assert "other tables arrive" in said and "other tables leave" in said
