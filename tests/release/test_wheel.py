"""The wheel as a user gets it: built by the release command, installed into a fresh virtualenv
beside django-rules (the ``rules`` distribution, a top-level ``rules``) and lark 1, it claims
no name but ``vttbridge``, imports beside both, runs a script offline, serves its Foundry
manifest, and pulls in neither asyncpg nor redis, naming the extra that brings each."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


@dataclass
class Venv:
    path: Path
    release: Path

    @property
    def python(self) -> str:
        return str(self.path / "bin" / "python")

    @property
    def vttbridge(self) -> str:
        return str(self.path / "bin" / "vttbridge")

    def run(
        self, *args: str, cwd: Path | None = None, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        # never from this checkout, whose rules/ would shadow django-rules' on sys.path
        cwd = cwd or self.path.parent
        return subprocess.run(
            args, capture_output=True, text=True, timeout=timeout, cwd=cwd, env=self.env()
        )

    def env(self) -> dict[str, str]:
        """The environment of a user who activated the venv: nothing of this checkout's."""
        keep = {k: v for k, v in os.environ.items() if k in ("HOME", "LANG", "TMPDIR")}
        return {**keep, "PATH": f"{self.path / 'bin'}:/usr/bin:/bin", "VIRTUAL_ENV": str(self.path)}

    def pip(self, *args: str) -> None:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "--python", self.python, "install", "-q",
             "--disable-pip-version-check", *args],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Venv:
    """The release command's wheel in a new venv (no pip of its own: this one's drives it),
    with django-rules and lark 1."""
    tmp = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "release.py"), "--out", str(tmp / "release")],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    wheels = list((tmp / "release" / "python").glob("vttbridge-*-py3-none-any.whl"))
    assert len(wheels) == 1, done.stdout
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp / "venv")], check=True)
    env = Venv(tmp / "venv", tmp / "release")
    env.pip(str(wheels[0]), "rules", "lark>=1")
    return env


def test_only_vttbridge_is_claimed_and_it_imports_beside_rules_and_lark(venv: Venv):
    probe = textwrap.dedent(
        """
        import json, importlib.metadata as md
        import lark, rules, vttbridge
        import vttbridge.adapters, vttbridge.rules, vttbridge.sdk
        from vttbridge.rules.dice import Roller
        from vttbridge.sdk import Context, Script
        dists = {d.metadata["Name"].lower(): d for d in md.distributions()}
        print(json.dumps({
            "dists": sorted(dists),
            "top": dists["vttbridge"].read_text("top_level.txt").split(),
            "rules": rules.__file__, "vttbridge.rules": vttbridge.rules.__file__,
            "has_perm": hasattr(rules, "has_perm"), "lark": lark.__version__,
            "roll": Roller(1).roll("1d20+5").total,
        }))
        """
    )
    done = venv.run(venv.python, "-c", probe)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["top"] == ["vttbridge"]
    assert got["rules"].endswith("site-packages/rules/__init__.py") and got["has_perm"]
    assert got["vttbridge.rules"].endswith("site-packages/vttbridge/rules/__init__.py")
    assert got["lark"].startswith("1.") and got["roll"] == 10  # d20 on lark 1, same dice
    # the quick start's install: no database drivers it does not use, no lark-parser
    assert {"asyncpg", "redis", "lark-parser", "d20"}.isdisjoint(got["dists"]), got["dists"]


def test_an_example_script_runs_under_the_offline_harness(venv: Venv, tmp_path: Path):
    shutil.copy(ROOT / "examples" / "corner_ambush.py", tmp_path)
    play = textwrap.dedent(
        """
        import asyncio
        from vttbridge.sdk.testing import WorldHarness

        async def main():
            async with WorldHarness("corner_ambush.py", dice=[20, 14, 10]) as w:
                await w.token("kevin", "Kevin", (4, 5), owner="p-kevin", reflex=4, initiative=2)
                await w.token("gary", "Gary", (14, 5), owner="p-gary", disposition=1)
                await w.token("thug", "Thug", (14, 8), disposition=-1)
                await w.gm_says("!init")
                await w.chat("!ready Standard Attack with pistol --when corner", token="kevin")
                out = await w.move("gary", (11, 5))
                assert w.said("Gary comes round the corner", out, whisper_to="gm"), out
                w.dice(18)
                out = await w.answer("cancel")
                assert w.said("holds back (Reflex 22 vs DC 15)", out), out
            print("played")

        asyncio.run(main())
        """
    )
    done = venv.run(venv.python, "-c", play, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "played", done.stderr


def test_serve_starts_and_serves_its_foundry_manifest(venv: Venv, tmp_path: Path):
    proc = subprocess.Popen(
        [venv.vttbridge, "serve", "--port", "0"],
        cwd=tmp_path, env=venv.env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        url = None
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            assert line, f"serve exited ({proc.wait()}): {''.join(lines)}"
            lines.append(line)
            if m := re.search(r"Listening on (http://[\d.]+:\d+)", line):
                url = m.group(1)
        assert url, "".join(lines)
        with urllib.request.urlopen(f"{url}/foundry/module.json", timeout=10) as r:
            manifest = json.loads(r.read())
        released = json.loads((venv.release / "module.json").read_text())
        assert manifest["id"] == "vttbridge" and manifest["version"] == released["version"]
        assert manifest["manifest"] == f"{url}/foundry/module.json"
        with urllib.request.urlopen(manifest["download"], timeout=10) as r:
            assert r.status == 200 and r.read(2) == b"PK"
    finally:
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, "".join(lines) + rest


def test_postgresql_without_its_extra_names_the_extra(venv: Venv, tmp_path: Path):
    for args in (
        ["serve", "--db", "postgresql://vttbridge@127.0.0.1:1/worlds"],
        ["world", "list", "--db", "postgresql://vttbridge@127.0.0.1:1/worlds"],
    ):
        done = venv.run(venv.vttbridge, *args, cwd=tmp_path, timeout=60)
        assert done.returncode == 1, done.stdout + done.stderr
        assert "pip install 'vttbridge[postgres]'" in done.stderr
        assert "Traceback" not in done.stderr


def test_a_cluster_without_its_extra_names_the_extra(venv: Venv, tmp_path: Path, postgres_url: str):
    """With the postgres extra's driver but not the cluster's, ``--redis`` says what to add."""
    venv.pip("asyncpg")
    done = venv.run(
        venv.vttbridge, "serve", "--db", postgres_url, "--redis", "redis://127.0.0.1:1/0",
        "--port", "0", cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "pip install 'vttbridge[cluster]'" in done.stderr and "Traceback" not in done.stderr
