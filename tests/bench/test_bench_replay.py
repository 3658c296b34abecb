"""The replay benchmark runs on a short log: both readers replay every event, the replay finds
no difference (no timing asserts)."""

from tests.bench import loader


async def test_bench_runs_small():
    bench = loader.load_bench("bench_replay")
    result = await bench.run(events=150, repeat=1)
    assert result["counts"]["wake"] == result["counts"]["replay"] == result["events"] >= 150
    text = bench.report(result)
    assert "replay/wake time:" in text and "events/s" in text
