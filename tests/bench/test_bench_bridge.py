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


@pytest.mark.slow
async def test_bench_paced_shows_the_transport_and_the_commits(tmp_path, capsys):
    bench = loader.load_bench("bench_bridge")
    medians = await bench.paced(tmp_path, 2.0, 1, None, tables=10)
    assert set(medians) == {"echo", "transport", "bridge"}
    # the bridge's commits, read from its /metrics: one an event at this pace (its CPU is
    # counted in the kernel's clock ticks, too coarse for so short a run to compare with)
    assert 0 < medians["bridge"]["commit_us"] < 100_000
    assert 0.9 <= medians["bridge"]["commits"] <= 1.5
    assert "commit_us" not in medians["transport"]
    out = capsys.readouterr().out
    assert "its commits" in out
    assert "the floor at this pace: the bridge's transport answering alone" in out
