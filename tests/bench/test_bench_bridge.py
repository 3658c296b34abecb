"""The speed benchmark runs end to end, with the ruler's runs (no timing asserts)."""

import pytest

from tests.bench import loader


@pytest.mark.slow
async def test_bench_speed_with_the_ruler_runs_small(tmp_path, capsys):
    bench = loader.load_bench("bench_bridge")
    results = await bench.speed(tmp_path, 0.5, [], 1, counts=(2,), ruler=True, with_node=False)
    assert set(results) == {("echo", 2), ("bridge", 2), ("ruler", 2)}
    assert all(r["eps"] > 0 for r in results.values())
    # MiniTable declines the budget: commands come with turn changes only; the ruler's VTT
    # gets one after each move
    assert results[("bridge", 2)]["cmds"] < 0.2
    assert results[("ruler", 2)]["cmds"] >= 0.9
    assert "with the ruler at   2 clients" in capsys.readouterr().out
