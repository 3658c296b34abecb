"""One-URL install: the bridge serves the Foundry manifest (URLs from the request) and its zip,
the Roll20 Mod script and the relay userscript, and the dashboard's page; each is the build
committed in the repository, which a fresh build reproduces byte for byte."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import tomllib
import zipfile
from pathlib import Path

import aiohttp
import pytest
from vttbridge.adapters.bridge import install

from tests.bridge.conftest import ROOT
from tests.bridge.test_dashboard_browser import npm_ci

FOUNDRY = ROOT / "adapters" / "foundry" / "module"
RELAY = ROOT / "adapters" / "roll20" / "relay"
DASHBOARD = ROOT / "adapters" / "bridge" / "dashboard"
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


async def fetch(url: str, headers: dict | None = None) -> tuple[int, str, bytes]:
    async with aiohttp.ClientSession() as s, s.get(url, headers=headers or {}) as r:
        return r.status, r.headers.get("Content-Type", ""), await r.read()


async def test_the_manifest_points_at_this_server(server):
    status, kind, body = await fetch(f"{server.url}/foundry/module.json")
    assert status == 200 and kind.startswith("application/json")
    manifest = json.loads(body)
    assert manifest["id"] == "vttbridge" and manifest["version"] == VERSION
    assert manifest["manifest"] == f"{server.url}/foundry/module.json"
    assert manifest["download"] == f"{server.url}/foundry/vttbridge-{VERSION}.zip"
    assert manifest["esmodules"] == ["dist/vttbridge.js"]
    # the host the GM typed, as the request carries it
    _, _, body = await fetch(f"{server.url}/foundry/module.json", {"Host": "table.local:9000"})
    assert (
        json.loads(body)["download"] == f"http://table.local:9000/foundry/vttbridge-{VERSION}.zip"
    )
    # behind a TLS reverse proxy at a path
    proxied = {
        "X-Forwarded-Proto": "https",
        "X-Forwarded-Host": "vtt.example.org",
        "X-Forwarded-Prefix": "/vttbridge/",
    }
    _, _, body = await fetch(f"{server.url}/foundry/module.json", proxied)
    assert json.loads(body)["manifest"] == "https://vtt.example.org/vttbridge/foundry/module.json"


async def test_the_zip_is_the_shipped_module_and_deterministic(server):
    manifest = json.loads((await fetch(f"{server.url}/foundry/module.json"))[2])
    status, kind, first = await fetch(manifest["download"])
    assert status == 200 and kind == "application/zip"
    second = (await fetch(manifest["download"]))[2]
    assert first == second  # the same bytes every time
    zf = zipfile.ZipFile(io.BytesIO(first))
    assert zf.namelist() == [
        "module.json", "dist/vttbridge.js", "styles/vttbridge.css", "lang/en.json"]  # fmt: skip
    assert {i.date_time for i in zf.infolist()} == {install.ZIP_TIME}
    assert json.loads(zf.read("module.json")) == manifest  # updates check the served manifest
    assert zf.read("dist/vttbridge.js") == (FOUNDRY / "dist" / "vttbridge.js").read_bytes()
    assert zf.read("styles/vttbridge.css") == (FOUNDRY / "styles" / "vttbridge.css").read_bytes()
    assert zf.read("lang/en.json") == (FOUNDRY / "lang" / "en.json").read_bytes()
    assert (await fetch(f"{server.url}/foundry/vttbridge-0.0.1.zip"))[0] == 404


async def test_the_roll20_scripts(server):
    status, kind, body = await fetch(f"{server.url}/roll20/VTTBridge.js")
    assert status == 200 and kind.startswith("text/javascript")
    assert body == (ROOT / "adapters" / "roll20" / "mod" / "VTTBridge.js").read_bytes()
    url = f"{server.url}/roll20/vttbridge-relay.user.js"
    status, kind, body = await fetch(url)
    assert status == 200 and kind.startswith("text/javascript")
    assert body.startswith(b"// ==UserScript==") and f"@version      {VERSION}".encode() in body
    # a userscript manager looks for updates where the relay came from: this bridge
    assert f"// @updateURL    {url}\n// @downloadURL  {url}\n".encode() in body
    built = (RELAY / "dist" / "vttbridge-relay.user.js").read_bytes()
    assert (
        body.replace(url.encode(), install.LATEST_RELEASE.encode() + b"/vttbridge-relay.user.js")
        == built
    )


def test_the_relays_build_updates_from_the_latest_public_release():
    head = (RELAY / "dist" / "vttbridge-relay.user.js").read_text().split("// ==/UserScript==")[0]
    latest = f"{install.LATEST_RELEASE}/{install.RELAY}"
    assert f"// @updateURL    {latest}\n// @downloadURL  {latest}\n" in head
    assert install.relay_userscript() == (RELAY / "dist" / "vttbridge-relay.user.js").read_bytes()
    moved = install.relay_userscript("https://example.org/r.user.js").decode()
    assert moved.count("https://example.org/r.user.js") == 2 and latest not in moved


async def test_the_dashboard_page_and_its_files(server):
    async with aiohttp.ClientSession() as s, s.get(f"{server.url}/") as r:
        assert r.status == 200 and r.content_type == "text/html"
        csp = r.headers["Content-Security-Policy"]
        page = await r.text()
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert 'src="dashboard/dashboard.js"' in page and 'href="dashboard/dashboard.css"' in page
    for name in ("dashboard.js", "dashboard.css"):
        status, _, body = await fetch(f"{server.url}/dashboard/{name}")
        assert status == 200 and body == (DASHBOARD / "dist" / name).read_bytes()
    assert (await fetch(f"{server.url}/dashboard/../index.html"))[0] == 404
    assert (await fetch(f"{server.url}/dashboard/nothing.js"))[0] == 404
    status, _, body = await fetch(f"{server.url}/status")
    assert status == 200 and body.startswith(b"vttbridge is running.")


def test_every_companion_has_the_package_version():
    assert json.loads((FOUNDRY / "module.json").read_text())["version"] == VERSION
    for pkg in (FOUNDRY, RELAY, DASHBOARD):
        assert json.loads((pkg / "package.json").read_text())["version"] == VERSION, pkg
    script = json.loads((ROOT / "adapters" / "roll20" / "mod" / "script.json").read_text())
    assert script["version"] == VERSION


BUILDS = [
    (FOUNDRY, "scripts/build.mjs", ["vttbridge.js"]),
    (RELAY, "build.mjs", ["vttbridge-relay.user.js"]),
    (DASHBOARD, "build.mjs", ["dashboard.js", "dashboard.css"]),
]


@pytest.mark.parametrize(
    ("folder", "script", "files"), BUILDS, ids=["foundry", "relay", "dashboard"]
)
def test_a_fresh_build_reproduces_what_ships(folder: Path, script: str, files, tmp_path):
    """Built from another folder into another: the bytes depend on the sources only."""
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("node is needed to check the shipped builds")
        pytest.skip("node is not installed")
    npm_ci(folder)
    subprocess.run(
        [node, str(folder / script), str(tmp_path)], cwd=tmp_path, check=True, capture_output=True,
        timeout=120, env={**os.environ, "NODE_PATH": ""},
    )  # fmt: skip
    fix = f"cd {folder.relative_to(ROOT)} && npm ci && npm run build, then commit dist/"
    for name in files:
        built = (tmp_path / name).read_bytes()
        shipped = (folder / "dist" / name).read_bytes()
        assert built == shipped, f"dist/{name} is not the current build of its source: {fix}"
