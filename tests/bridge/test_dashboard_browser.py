"""The dashboard in headless Chromium (and Firefox, where installed) against a real
``vttbridge serve`` subprocess: sign in (a wrong key refused, the GM key, an observer key),
watch a Spycraft encounter arrive live (a Foundry-shaped client sends the companion module's
payloads: initiative, a Ready, a question answered from the page, a stand off with stress) and
a Fallout: Equestria movement budget, a move the rules refuse with its rule cited in the rules
log, and the session's timeline filtered by token and round.

The browser half is ``adapters/bridge/dashboard/test/browser.test.mjs`` (playwright-core with
Debian's chromium, or firefox-esr over WebDriver BiDi); it saves a screenshot of each state
under this test's tmp dir and prints where. Skipped without node or the browser, except for
Chromium under CI (``CI=true``).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.bridge.conftest import ROOT

pytestmark = pytest.mark.slow  # a real browser

DASHBOARD = ROOT / "adapters" / "bridge" / "dashboard"
NODE = shutil.which("node")
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
FIREFOX = os.environ.get("FIREFOX_PATH", "/usr/bin/firefox-esr")


def npm_ci(folder: Path) -> None:
    """Install a JS package's locked dependencies unless they are there."""
    if (folder / "node_modules" / ".package-lock.json").is_file():
        return
    npm = shutil.which("npm")
    assert npm, "npm is needed to install the packages"
    subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=folder, check=True, timeout=600, capture_output=True,
    )  # fmt: skip


def _cli(*args: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "vttbridge", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip


def _keys(out: str) -> tuple[str, str]:
    gm = re.search(r"GM key[^:]*:\s*(\S+)", out)
    obs = re.search(r"observer key[^:]*:\s*(\S+)", out)
    assert gm and obs, out
    return gm.group(1), obs.group(1)


@pytest.mark.parametrize("browser", ["chromium", "firefox"])
def test_dashboard_in_a_browser(
    browser: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Chromium always (in CI too); Firefox where Debian's firefox-esr is installed."""
    executable = CHROMIUM if browser == "chromium" else FIREFOX
    if NODE is None or not Path(executable).exists():
        if os.environ.get("CI") and browser == "chromium":
            pytest.fail(f"node and Chromium ({CHROMIUM}) are needed: apt-get install chromium")
        pytest.skip(f"needs node and {executable}")
    npm_ci(DASHBOARD)
    db = tmp_path / "bridge.sqlite3"
    spy_gm, spy_obs = _keys(_cli("world", "create", "safehouse", "--db", str(db)))
    foe_gm, _ = _keys(_cli("world", "create", "wasteland", "--system", "foe", "--db", str(db)))
    log_path = tmp_path / "serve.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "vttbridge", "serve", "--db", str(db), "--port", "0",
             "--no-default-world", "--log-level", "info"],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            url = _served_url(proc, log_path)
            shots = tmp_path / "screenshots"
            env = {
                **os.environ,
                "VTTBRIDGE_URL": url,
                "SPY_WORLD": "safehouse",
                "SPY_GM": spy_gm,
                "SPY_OBS": spy_obs,
                "FOE_WORLD": "wasteland",
                "FOE_GM": foe_gm,
                "DASHBOARD_SHOTS": str(shots),
                "DASHBOARD_BROWSER": browser,
            }
            res = subprocess.run(
                [NODE, "--test", "--test-reporter=tap", "test/browser.test.mjs"],
                cwd=DASHBOARD, env=env, capture_output=True, text=True, timeout=240,
            )  # fmt: skip
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
    out = res.stdout + res.stderr
    with capsys.disabled():  # for a person to look at, whether or not the test passed
        print(f"\ndashboard screenshots: {shots}")
    assert res.returncode == 0, out + "\n--- serve.log ---\n" + log_path.read_text()
    assert re.search(r"^# pass 1$", out, re.M), out
    assert "# skipped 0" in out, out
    names = sorted(p.name for p in shots.glob("*.png"))
    assert names == [
        "01-wrong-key.png",
        "02-signed-in.png",
        "03-ready.png",
        "04-question.png",
        "05-observer.png",
        "06-standoff-stress.png",
        "06b-observer-standoff.png",
        "07-foe-movement.png",
        "08-rules-log-citations.png",
        "09-timeline.png",
    ], names
    served = log_path.read_text()
    assert "A dashboard is watching world 'safehouse' (GM)." in served
    assert "observer, read-only" in served


def _served_url(proc: subprocess.Popen, log: Path) -> str:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        m = re.search(r"Listening on (http://[\d.]+:\d+)", log.read_text())
        if m:
            with contextlib.suppress(OSError):
                urllib.request.urlopen(m.group(1) + "/healthz", timeout=1).read()
                return m.group(1)
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    pytest.fail("vttbridge serve did not start:\n" + log.read_text())


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_page_helpers_under_node() -> None:
    res = subprocess.run(
        [NODE, "--test", "--test-reporter=tap", "test/format.test.mjs"],
        cwd=DASHBOARD, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert re.search(r"^# pass 4$", out, re.M) and re.search(r"^# fail 0$", out, re.M), out
