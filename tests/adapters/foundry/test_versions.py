"""Versions meet: a Foundry module of a version the bridge does not support keeps its link and
is told so in plain words, as a localised notification (the module's own code, under Node,
against a real ``vttbridge serve`` whose Foundry adapter supports other versions:
``tests/adapters/companions.py``)."""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from .conftest import ROOT
from .test_module_e2e import NODE, _cli, _free_port, _node_test

pytestmark = [pytest.mark.skipif(NODE is None, reason="node is not installed"), pytest.mark.slow]


@pytest.mark.parametrize(
    ("adapter", "expect"), [("ModuleTooOld", "older"), ("ModuleTooNew", "newer")]
)
def test_a_module_the_bridge_does_not_support_is_told(
    npm_installed: None, tmp_path: Path, adapter: str, expect: str
) -> None:
    db, port = tmp_path / "bridge.sqlite3", _free_port()
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "vttbridge", "serve", "--db", str(db), "--port", str(port),
         "--adapter", f"tests.adapters.companions:{adapter}", "--no-default-world"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError):
                urllib.request.urlopen(url + "/healthz", timeout=1).read()
                break
            assert proc.poll() is None and time.monotonic() < deadline, (
                tmp_path / "serve.log"
            ).read_text()
            time.sleep(0.1)
        out = _cli("world", "create", "table", "--db", str(db)).stdout
        key = re.search(r"GM key[^:]*:\s*(\S+)", out)
        assert key, out
        env = {
            "VTTBRIDGE_URL": url,
            "VTTBRIDGE_WORLD": "table",
            "VTTBRIDGE_KEY": key.group(1),
            "VTTBRIDGE_EXPECT": expect,
        }
        out = _node_test("test/e2e-versions.test.mjs", env)
        assert "# skipped 0" in out
        assert f"is {expect} than the vttbridge server" in out
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()
    # the GM's log says it too, in plain words
    said = (tmp_path / "serve.log").read_text()
    assert re.search(rf"vttbridge-foundry 0\.1\.0 is {expect} than this vttbridge server", said)
