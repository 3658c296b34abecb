"""A third game system, added the way a third party adds one: ``tests/plugins/skirmish`` is a
package of its own (three actions a turn, a strike, a shield) with its own ``vttbridge.systems``
entry point, installed in the test run (``.ci/run``: ``pip install -e tests/plugins/skirmish``).
With no edit to vttbridge, ``vttbridge world create --system`` offers it, its world plays a
command through the real server that spends its own cost, and the dashboard shows its name and
panel."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from vttbridge.rules import systems

from tests.bridge.conftest import ROOT, TableClient, start_server
from tests.bridge.test_dashboard import Dashboard

INSTALL = "pip install -e tests/plugins/skirmish"


@pytest.fixture(autouse=True)
def skirmish_installed() -> None:
    if "skirmish" in systems.names():
        return
    text = f"the test game system is not installed ({INSTALL})"
    if os.environ.get("VTTBRIDGE_CI"):
        pytest.fail(f"CI needs it: {text}", pytrace=False)
    pytest.skip(text)


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vttbridge", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=check,
    )  # fmt: skip


def keys(out: str) -> str:
    return next(ln.split(":", 1)[1].strip() for ln in out.splitlines() if "GM key" in ln)


def said(commands: list[dict[str, Any]], text: str, whisper: str | None = "any") -> bool:
    return any(
        c["op"] == "chat.post"
        and text in c["data"]["text"]
        and (whisper == "any" or c["data"]["whisper"] == whisper)
        for c in commands
    )


@pytest.mark.slow  # a game night through the real server
async def test_a_third_system_plays_through_the_real_server(
    tmp_path: Path, client_factory: Callable[..., TableClient]
) -> None:
    db = tmp_path / "arena.sqlite3"
    # the CLI offers what is installed, and refuses what is not with the list
    assert "skirmish (Skirmish)" in " ".join(cli("world", "create", "--help").stdout.split())
    bad = cli("world", "create", "x", "--system", "pf2e", "--db", str(db), check=False)
    assert bad.returncode != 0 and "skirmish" in bad.stderr
    gm_key = keys(cli("world", "create", "arena", "--system", "skirmish", "--db", str(db)).stdout)

    srv = await start_server(db)
    dash = Dashboard()
    try:
        c = await client_factory().connect(srv.url, "arena", gm_key)
        scene = {
            "id": "snap",
            "scene": {"id": "pit", "name": "The pit"},
            "tokens": [
                {"id": "kevin", "name": "Kevin", "x": 0, "y": 0, "owners": ["u-p"]},
                {"id": "thug", "name": "Thug", "x": 300, "y": 0},
            ],
            "users": [{"id": "u-gm", "role": "gm"}, {"id": "u-p", "name": "Pat"}],
        }
        assert (await c.send("snapshot", scene))["ok"]
        start = {"kevin": 20, "thug": 10}
        ack = await c.send("combatStart", {"id": "f", "tokens": list(start), "initiative": start})
        assert ack["ok"], ack

        async def player(text: str) -> list[dict[str, Any]]:
            before = len(c.commands)
            n = len([x for x in c.commands if x["op"] == "chat.post"])
            ack = await c.send(
                "chat", {"id": text + str(n), "text": text, "user": "u-p", "token": "kevin"}
            )
            assert ack["ok"], ack
            await c.caught_up()
            return c.commands[before:]

        # its command spends its own cost (one of three actions), through the runtime's economy
        out = await player("!strike thug")
        assert said(out, "Kevin strikes Thug.")
        enc = srv.bridge.worlds["arena"].runtime.world.encounter
        assert enc.combatants["kevin"].half_actions == 2 and enc.combatants[
            "kevin"
        ].actions_taken == ["strike"]
        out = await player("!raise-shield")  # its rule spends the action
        assert said(out, "Kevin raises a shield (+2 Defense).")
        await player("!strike thug")
        out = await player("!strike thug")  # the fourth action of a three-action turn
        assert said(out, "Kevin has no actions left this turn; a strike takes 1 action.", "u-p")
        assert not said(out, "Kevin strikes Thug.")
        out = await player("!help strike")
        assert said(out, "!strike <target> — Strike someone. [1 action]", "u-p")
        out = await player("!ready shoot --when door")  # another system's command
        assert said(out, "!ready is a Spycraft 2.0 command; this world plays Skirmish.", "u-p")

        # the dashboard: the system's own name and panel
        await dash.connect(srv.url, "arena", gm_key)
        view = await dash.view(lambda v: v["encounter"]["in_combat"])
        assert (view["system"], view["system_title"]) == ("skirmish", "Skirmish")
        (panel,) = view["panels"]
        assert (panel["id"], panel["title"]) == ("shields", "Shields")
        rows = {r["key"]: r["cells"] for r in panel["table"]["rows"]}
        assert rows == {"kevin": ["Kevin", "0", "raised"], "thug": ["Thug", "3", None]}
        kevin = view["encounter"]["initiative"][0]
        assert kevin["actions_left"] == "0 of 3 actions left"
        assert kevin["actions_used"] == "strike \u00d72, raise shield"

        # the next turn starts with three actions; Kevin's next turn lowers his shield
        ack = await c.send("chat", {"id": "next", "text": "!next", "user": "u-gm", "role": "gm"})
        assert ack["ok"]
        view = await dash.view(lambda v: v["encounter"]["active"] == "thug")
        assert view["encounter"]["initiative"][1]["actions_left"] == "3 of 3 actions left"
    finally:
        await dash.close()
        await srv.stop()
