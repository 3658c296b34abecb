"""One ``vttbridge serve`` per SQLite file; the ``world`` commands work beside it."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from vttbridge.adapters.bridge.cli import main

pytestmark = pytest.mark.slow  # servers in processes of their own

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def serving(db: Path, *extra: str) -> Iterator[subprocess.Popen[str]]:
    """``vttbridge serve --db DB`` in a process of its own, until it says where it listens."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "vttbridge", "serve", "--port", "0", "--db", str(db), *extra],
        cwd=db.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        for line in proc.stdout:  # type: ignore[union-attr]
            if re.search(r"Listening on http://", line):
                break
        else:
            raise AssertionError(f"serve did not start: {proc.communicate()[0]}")
        yield proc
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=15)


def test_a_second_server_on_a_file_in_use_is_refused_naming_both(tmp_path, capsys):
    db = tmp_path / "worlds.sqlite3"
    with serving(db) as first:
        code = main(["serve", "--db", str(db), "--port", "0", "--no-default-world"])
        err = capsys.readouterr().err
        assert code == 1
        assert str(db) in err and f"process {first.pid}" in err and "Traceback" not in err

        # the world commands still work beside the running server
        assert main(["world", "create", "second", "--db", str(db)]) == 0
        assert main(["world", "list", "--db", str(db)]) == 0
        out = capsys.readouterr().out
        assert "second" in out and "default" in out

    # once the first one stopped, the file is free again (the lock went with its process)
    with serving(db):
        pass


def test_a_killed_server_leaves_no_lock_behind(tmp_path):
    db = tmp_path / "worlds.sqlite3"
    with serving(db) as first:
        first.kill()
        first.wait()
    with serving(db) as second:
        assert second.poll() is None
