"""``vttbridge serve``'s first minutes: once it listens, one block on standard output holds
everything a GM copies (addresses, a new world's keys, how to install each companion, the
demo), and the log stays on standard error, without the keys."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from vttbridge.adapters.bridge import install, welcome

from tests.bridge.conftest import started_serve

pytestmark = pytest.mark.slow  # vttbridge serve in a process of its own


def serve(cwd: Path, *args: str) -> tuple[int, str, str]:
    """Run ``vttbridge serve`` until its block is out (or it exits); returns its exit code,
    standard output and standard error, apart."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "vttbridge", "serve", *args],
        cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    out: list[str] = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        out.append(line)
        if "Stop the server with Ctrl-C." in line:
            break
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    rest, err = proc.communicate(timeout=30)
    return proc.returncode, "".join(out) + rest, err


def test_the_first_start_prints_one_block_to_copy(tmp_path: Path):
    code, out, err = serve(tmp_path, "--port", "0")
    assert code == 0, err
    url = re.search(r"Server URL\s+(http://127\.0\.0\.1:\d+)", out)
    assert url, out
    base = url.group(1)
    gm = re.search(r"GM key\s+(vtt_gm_\S+)", out)
    obs = re.search(r"Observer key\s+(vtt_obs_\S+)", out)
    assert gm and obs, out
    assert "World 'default' created. Its keys are shown only now" in out
    for line in (
        f"Dashboard       {base}/",
        f"{base}/foundry/module.json",
        f"Mod script        {base}/roll20/VTTBridge.js",
        f"relay userscript  {base}/roll20/vttbridge-relay.user.js",
        "vttbridge demo --world default",
        f"{install.HOME}/releases/download/v{install.version()}/module.json",
    ):
        assert line in out, (line, out)
    # the block is all of standard output: no log line in it; the log has no key
    assert "INFO" not in out and out.startswith(f"vttbridge {install.version()} is running.")
    assert f"Listening on {base}" in err and "Bridge stopped" in err
    assert gm.group(1) not in err and obs.group(1) not in err
    assert (tmp_path / "vttbridge.sqlite3").exists()


def test_a_later_start_names_the_worlds_and_shows_no_key(tmp_path: Path):
    code, first, _ = serve(tmp_path, "--port", "0")
    assert code == 0
    gm = re.search(r"GM key\s+(vtt_gm_\S+)", first)
    assert gm
    code, out, err = serve(tmp_path, "--port", "0")
    assert code == 0, err
    assert re.search(r"Worlds\s+default\s+\(in vttbridge\.sqlite3\)", out), out
    assert "vtt_gm_" not in out and "world reset-key NAME" in out


def test_the_printed_key_opens_the_world(tmp_path: Path):
    with started_serve(tmp_path) as served:
        req = urllib.request.Request(
            f"{served.url}/api/worlds/default/state",
            headers={"Authorization": f"Bearer {served.gm}"},
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            assert json.loads(r.read())["world"] == "default"


def test_keys_of_a_world_made_before_the_port_failed_are_still_shown(tmp_path: Path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = serve(tmp_path, "--port", str(port))
    assert code == 1 and f"cannot listen on 127.0.0.1:{port}" in err
    assert "World 'default' created" in out and re.search(r"GM key\s+vtt_gm_", out), out


def test_listening_on_every_address_shows_this_machines():
    text = welcome.banner("0.0.0.0", 8787, version="9.9.9", worlds=["table"])
    assert "Server URL      http://127.0.0.1:8787" in text
    assert "From another machine: this machine's address" in text
    assert "vttbridge demo --world table" in text
    assert f"{install.HOME}/releases/download/v9.9.9/module.json" in text
    assert "From another machine" not in welcome.banner("192.0.2.7", 8787, worlds=[])
    assert welcome.base_url("::", 1) == "http://[::1]:1"
    assert welcome.base_url("fe80::1", 1) == "http://[fe80::1]:1"
