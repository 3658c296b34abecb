"""The vttbridge command line."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from vttbridge.adapters.bridge import keys
from vttbridge.adapters.bridge.cli import main
from vttbridge.adapters.bridge.storage import run_blocking

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_world_create_list_and_reset(database, capsys):
    db = str(database)  # a SQLite file, then a PostgreSQL URL
    code, out, _ = run(capsys, "world", "create", "campaign", "--db", db, "--system", "foe",
                       "--option", "tie_break=gm")  # fmt: skip
    assert code == 0
    gm = re.search(r"GM key.*:\s+(vtt_gm_\S+)", out).group(1)
    obs = re.search(r"observer key.*:\s+(vtt_obs_\S+)", out).group(1)
    rec = run_blocking(db, lambda s: s.world("campaign"))
    assert keys.verify_key(gm, rec.gm_key_hash) and keys.verify_key(obs, rec.observer_key_hash)
    assert rec.options == {"system": "foe", "tie_break": "gm"}

    code, _, err = run(capsys, "world", "create", "campaign", "--db", db)
    assert code == 1 and "already exists" in err
    code, _, err = run(capsys, "world", "create", "bad name!", "--db", db)
    assert code == 1 and "not a usable world name" in err
    code, _, err = run(capsys, "world", "create", "x", "--db", db, "--option", "tie_break=coin")
    assert code == 2 and "tie_break" in err

    code, out, _ = run(capsys, "world", "list", "--db", db)
    assert code == 0 and "campaign" in out and "foe" in out and gm not in out

    code, out, _ = run(capsys, "world", "reset-key", "campaign", "--db", db)
    new_gm = re.search(r"GM key:\s+(vtt_gm_\S+)", out).group(1)
    rec = run_blocking(db, lambda s: s.world("campaign"))
    assert keys.verify_key(new_gm, rec.gm_key_hash) and not keys.verify_key(gm, rec.gm_key_hash)


def test_schema_writes_every_payload(tmp_path, capsys):
    out_dir = tmp_path / "schemas"
    code, out, _ = run(capsys, "schema", "--out", str(out_dir),
                       "--adapter", "tests.bridge.minitable:MiniTable")  # fmt: skip
    assert code == 0 and "JSON Schemas" in out
    index = json.loads((out_dir / "index.json").read_text())
    expected = [
        "protocol/auth.json",
        "protocol/command.json",
        "protocol/ack-error.json",
        "minitable/in/snapshot.json",
        "minitable/in/tokenMoved.json",
        "minitable/out/chat.post.json",
        "domain/event.json",
        "domain/effect.json",
        "dashboard/in/answer.json",
        "dashboard/out/welcome.json",
        "dashboard/out/view.json",
        "dashboard/in/timeline.json",
        "dashboard/out/timeline.json",
    ]
    for rel in expected:
        assert rel in index
        schema = json.loads((out_dir / rel).read_text())
        assert schema["$schema"].startswith("https://json-schema.org/")
    moved = json.loads((out_dir / "minitable/in/tokenMoved.json").read_text())
    assert set(moved["required"]) >= {"id", "token", "x", "y"}


def test_rules_demo(capsys):
    code, out, _ = run(capsys, "rules", "demo")
    assert code == 0
    assert "Kevin: IC 22 → 14" in out
    assert "Reflex 22 vs DC 15" in out


def test_help_explains_each_option(capsys):
    with pytest.raises(SystemExit) as e:
        main(["serve", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for opt in ("--host", "--port", "--db", "--script", "--max-payload", "--rate", "--durability",
                "--world-rate", "--world-burst", "--node-id", "--lease-ttl",
                "postgresql://USER"):  # fmt: skip
        assert opt in out
    assert "(default: [])" not in out
    for action in ("list", "create"):
        with pytest.raises(SystemExit):
            main(["world", action, "--help"])
        assert "postgresql://USER" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("mysql://db/worlds", "unknown database URL scheme 'mysql'"),
        ("sqlite:///", "names no file"),
        ("postgresql://gm:s3cret@127.0.0.1:1/worlds", "cannot connect to the database"),
    ],
)
def test_a_database_that_cannot_be_used_is_named(capsys, url, says):
    code, out, err = run(capsys, "world", "list", "--db", url)
    assert code == 1 and says in err and "Traceback" not in err + out
    assert "s3cret" not in err  # a password never reaches the screen


@pytest.mark.slow  # vttbridge serve in a process of its own
def test_serve_with_no_arguments_creates_and_prints_a_default_world(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from vttbridge.adapters.bridge.cli import main; "
         "sys.exit(main(['serve', '--port', '0']))"],
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )  # fmt: skip
    lines = []
    try:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.append(line)
            m = re.search(r"Listening on (http://[\d.]+:\d+)", line)
            if m:
                with urllib.request.urlopen(m.group(1) + "/healthz", timeout=5) as r:
                    assert json.loads(r.read())["ok"]
                break
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(15)
    # the rest through the same reader: communicate() reads the pipe itself, which misses what
    # the loop above has already buffered (the block, when it came with the log's line)
    rest = proc.stdout.read()  # type: ignore[union-attr]
    text = "".join(lines) + rest
    assert proc.returncode == 0, text
    assert "World 'default' created" in text and "vtt_gm_" in text
    assert (tmp_path / "vttbridge.sqlite3").exists()
    assert "Bridge stopped" in text


def test_serve_refuses_a_broken_script(tmp_path, capsys):
    script = tmp_path / "broken.py"
    script.write_text("from vttbridge.sdk import Script\nscript = Script('x')\n1 / 0\n")
    code, _, err = run(capsys, "serve", "--db", str(tmp_path / "w.sqlite3"), "--script",
                       str(script))  # fmt: skip
    assert code == 2 and "broken.py:3" in err and "ZeroDivisionError" in err


def test_serve_refuses_a_script_that_replaces_a_built_in_command(tmp_path, capsys):
    script = tmp_path / "my_stats.py"
    script.write_text(
        "from vttbridge.sdk import Script\n"
        "script = Script('my_stats')\n"
        "@script.command('stats')\n"
        "def stats(cmd, ctx):\n"
        "    ctx.reply('mine')\n"
    )
    code, _, err = run(capsys, "serve", "--db", str(tmp_path / "w.sqlite3"), "--script",
                       str(script))  # fmt: skip
    assert code == 2 and "my_stats.py:3: !stats is already a command of the 'core' script" in err
    assert "override=True" in err


def serve_environ(proc: subprocess.Popen) -> tuple[str, dict[str, str]]:
    """Wait for ``vttbridge serve`` to listen; its URL and the environment it runs with."""
    for line in proc.stdout:  # type: ignore[union-attr]
        m = re.search(r"Listening on (http://[\d.]+:\d+)", line)
        if m:
            raw = Path(f"/proc/{proc.pid}/environ").read_bytes().split(b"\0")
            return m.group(1), dict(v.decode().split("=", 1) for v in raw if b"=" in v)
    raise AssertionError(f"serve did not start: {proc.wait()}")


@pytest.mark.slow  # vttbridge serve in a process of its own
@pytest.mark.skipif(sys.platform != "linux", reason="glibc's allocator: Linux only")
@pytest.mark.parametrize("given", [None, "pymalloc"])
def test_serve_runs_under_glibc_malloc_unless_told_otherwise(tmp_path, given):
    """``python -m vttbridge serve`` starts again, the same process, with PYTHONMALLOC=malloc
    (a sleeping world's memory goes back to the OS); an allocator the host chose stands."""
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    if given:
        env["PYTHONMALLOC"] = given
    proc = subprocess.Popen(
        [sys.executable, "-m", "vttbridge", "serve", "--port", "0", "--no-default-world"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        url, environ = serve_environ(proc)
        with urllib.request.urlopen(url + "/healthz", timeout=5) as r:
            assert json.loads(r.read())["ok"]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=15)
    assert proc.returncode == 0
    assert environ.get("PYTHONMALLOC") == (given or "malloc")


@pytest.mark.skipif(sys.platform != "linux", reason="glibc's allocator: Linux only")
def test_only_serve_is_started_again():
    from vttbridge.adapters.bridge.launch import wants_malloc

    assert wants_malloc(["serve", "--port", "0"], {})
    assert not wants_malloc(["serve"], {"PYTHONMALLOC": "pymalloc"})
    assert not wants_malloc(["world", "list"], {})
    assert not wants_malloc([], {})
