"""The instruction-count benchmark runs end to end under callgrind (no figure asserted but
that each server was counted, and that the bridge's move is more work than an echo)."""

import os
import shutil

import pytest

from tests.bench import loader


@pytest.mark.slow
def test_bench_instructions_counts_each_server(tmp_path):
    if shutil.which("valgrind") is None:  # CI installs it (.ci/run): there it must run
        if os.environ.get("VTTBRIDGE_CI"):
            pytest.fail("CI needs valgrind (apt-get install valgrind)", pytrace=False)
        pytest.skip("valgrind is not installed (apt-get install valgrind)")
    bench = loader.load_bench("bench_instructions")
    echo = bench.count("transport", 1, 20, tmp_path, None)
    bridge = bench.count("bridge", 1, 20, tmp_path, None)
    for r in (echo, bridge):
        assert r["ir"] > 10_000
        assert r["split"]["python"] > 0
    assert bridge["ir"] > echo["ir"]
    assert bridge["split"]["sqlite"] > 0 and "sqlite" not in echo["split"]
