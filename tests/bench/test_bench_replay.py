"""The replay benchmark runs on a short log: both readers replay every event, the replay finds
no difference (no timing asserts)."""

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).parents[2] / "bench" / "bench_replay.py"


def load():
    spec = importlib.util.spec_from_file_location("bench_replay", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_replay"] = module
    spec.loader.exec_module(module)
    return module


async def test_bench_runs_small():
    bench = load()
    result = await bench.run(events=150, repeat=1)
    assert result["counts"]["wake"] == result["counts"]["replay"] == result["events"] >= 150
    text = bench.report(result)
    assert "replay/wake time:" in text and "events/s" in text
