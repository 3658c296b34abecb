"""The speed benchmark runs end to end, with the ruler's runs (no timing asserts)."""

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parents[2] / "bench" / "bench_bridge.py"


def load_bench():
    sys.path.insert(0, str(BENCH.parent))
    spec = importlib.util.spec_from_file_location("bench_bridge", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


@pytest.mark.slow
async def test_bench_speed_with_the_ruler_runs_small(tmp_path, capsys):
    bench = load_bench()
    results = await bench.speed(tmp_path, 0.5, [], 1, counts=(2,), ruler=True, with_node=False)
    assert set(results) == {("echo", 2), ("bridge", 2), ("ruler", 2)}
    assert all(r["eps"] > 0 for r in results.values())
    # MiniTable declines the budget: commands come with turn changes only; the ruler's VTT
    # gets one after each move
    assert results[("bridge", 2)]["cmds"] < 0.2
    assert results[("ruler", 2)]["cmds"] >= 0.9
    assert "with the ruler at   2 clients" in capsys.readouterr().out
