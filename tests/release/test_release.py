"""The release command, ``tools/release.py``: the companions built into one folder with public
URLs (here without the wheel and the sdist, which ``test_wheel.py`` builds and installs), a
Roll20 folder the one-click repository accepts, and the refusals that keep a release whole."""

from __future__ import annotations

import hashlib
import io
import json
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import jsonschema
import pytest

pytestmark = pytest.mark.slow  # builds the release

ROOT = Path(__file__).resolve().parents[2]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
HOME = "https://github.com/vttbridge/vttbridge"
MOD = ROOT / "adapters" / "roll20" / "mod"
# Roll20/roll20-api-scripts' script.json.schema, which every pull request there must pass
SCHEMA = json.loads((Path(__file__).parent / "roll20-script.json.schema").read_text())


def release(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "tools" / "release.py"), "--out", str(out), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("release") / "release"
    done = release(out, "--no-python")
    assert done.returncode == 0, done.stderr
    assert f"Release {VERSION} in {out}/" in done.stdout
    return out


def test_the_foundry_manifest_is_public(made: Path):
    manifest = json.loads((made / "module.json").read_text())
    assert manifest["id"] == "vttbridge" and manifest["version"] == VERSION
    # Foundry checks the latest release's manifest for updates, and downloads this version
    assert manifest["manifest"] == f"{HOME}/releases/latest/download/module.json"
    zip_name = f"vttbridge-foundry-{VERSION}.zip"
    assert manifest["download"] == f"{HOME}/releases/download/v{VERSION}/{zip_name}"
    assert manifest["url"] == HOME and manifest["esmodules"] == ["dist/vttbridge.js"]
    zf = zipfile.ZipFile(made / zip_name)
    assert zf.namelist() == [
        "module.json",
        "dist/vttbridge.js",
        "styles/vttbridge.css",
        "lang/en.json",
    ]
    assert json.loads(zf.read("module.json")) == manifest
    shipped = ROOT / "adapters" / "foundry" / "module" / "dist" / "vttbridge.js"
    assert zf.read("dist/vttbridge.js") == shipped.read_bytes()


def _mod_settings() -> list[str]:
    """The settings the Mod script knows (its SETTINGS table; ``!vttbridge --set``)."""
    source = (MOD / "VTTBridge.js").read_text()
    start = source.index("var SETTINGS = {")
    table = source[start : source.index("};", start)]
    return re.findall(r"^ {6}(\w+): \{", table, re.MULTILINE)


def test_the_roll20_folder_is_what_the_one_click_repository_takes(made: Path):
    folder = made / "roll20" / "VTTBridge"
    meta = json.loads((folder / "script.json").read_text())
    jsonschema.Draft7Validator(SCHEMA).validate(meta)
    assert meta["name"] == "VTTBridge" and meta["script"] == "VTTBridge.js"
    assert meta["version"] == VERSION
    # the script, and again in its version's folder (the repository checks that each version
    # in script.json has one; the earlier versions' folders are in that repository already)
    script = (MOD / "VTTBridge.js").read_bytes()
    assert (folder / VERSION / meta["script"]).read_bytes() == script
    assert (folder / meta["script"]).read_bytes() == script
    assert VERSION not in meta["previousversions"]
    # every setting of the Mod is an option on its Mod page, under the name --set takes
    assert [o["name"] for o in meta["useroptions"]] == _mod_settings()
    bundle = zipfile.ZipFile(made / f"vttbridge-roll20-{VERSION}.zip")
    assert sorted(bundle.namelist()) == sorted(
        f"VTTBridge/{p.relative_to(folder)}" for p in folder.rglob("*") if p.is_file()
    )
    assert (made / "VTTBridge.js").read_bytes() == (MOD / "VTTBridge.js").read_bytes()


def test_the_schema_check_has_teeth():
    meta = json.loads((MOD / "script.json").read_text())
    jsonschema.Draft7Validator(SCHEMA).validate(meta)
    for broken in (
        {k: v for k, v in meta.items() if k != "roll20userid"},
        {**meta, "version": "one"},
        {**meta, "useroptions": [{"name": "x", "type": "slider", "description": "?"}]},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.Draft7Validator(SCHEMA).validate(broken)


def test_the_relay_updates_from_the_latest_release(made: Path):
    text = (made / "vttbridge-relay.user.js").read_text()
    latest = f"{HOME}/releases/latest/download/vttbridge-relay.user.js"
    head = text.split("// ==/UserScript==")[0]
    assert f"// @version      {VERSION}\n" in head
    assert f"// @updateURL    {latest}\n// @downloadURL  {latest}\n" in head


def test_the_checksums_cover_every_file(made: Path):
    lines = (made / "SHA256SUMS").read_text().splitlines()
    sums = dict(reversed(line.split("  ", 1)) for line in lines)
    files = {str(p.relative_to(made)) for p in made.rglob("*") if p.is_file()} - {"SHA256SUMS"}
    assert set(sums) == files
    for name, digest in sums.items():
        assert hashlib.sha256((made / name).read_bytes()).hexdigest() == digest


def test_the_urls_and_the_roll20_id_are_settings(tmp_path: Path):
    done = release(
        tmp_path / "out",
        "--no-python",
        "--release-url", "https://tables.example.org/vttbridge/latest/",
        "--download-url", "https://tables.example.org/vttbridge/{version}",
        "--roll20-userid", "1234567",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = tmp_path / "out"
    manifest = json.loads((out / "module.json").read_text())
    assert manifest["manifest"] == "https://tables.example.org/vttbridge/latest/module.json"
    assert manifest["download"] == (
        f"https://tables.example.org/vttbridge/{VERSION}/vttbridge-foundry-{VERSION}.zip"
    )
    relay = (out / "vttbridge-relay.user.js").read_text()
    assert "// @updateURL    https://tables.example.org/vttbridge/latest/vttbridge-relay" in relay
    meta = json.loads((out / "roll20" / "VTTBridge" / "script.json").read_text())
    assert meta["roll20userid"] == "1234567" and "placeholder" not in done.stderr
    zipped = zipfile.ZipFile(io.BytesIO((out / f"vttbridge-foundry-{VERSION}.zip").read_bytes()))
    assert json.loads(zipped.read("module.json")) == manifest


def test_a_mismatched_tag_or_a_used_folder_is_refused(tmp_path: Path):
    done = release(tmp_path / "a", "--no-python", "--tag", "v999.0.0")
    assert done.returncode != 0 and f"is not v{VERSION}" in done.stderr
    assert not (tmp_path / "a").exists()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "old.zip").write_bytes(b"")
    done = release(tmp_path / "b", "--no-python")
    assert done.returncode != 0 and "is not empty" in done.stderr
    assert release(tmp_path / "c", "--no-python", "--tag", f"v{VERSION}").returncode == 0


def test_the_release_workflow_runs_this_command():
    workflow = (ROOT / ".github" / "workflows" / "release.yml").read_text()
    assert re.search(r"python tools/release\.py --out release --tag \S+", workflow)
