"""Scripts an installed package registers in the ``vttbridge.scripts`` group load into every
world the bridge serves, with no ``--script``."""

from __future__ import annotations

import importlib
import sys
import textwrap

from tests.bridge.conftest import TableClient, scene, start_server

SCRIPT = """
from vttbridge.sdk import ChatCommand, Context, Script

script = Script("greeter")


@script.command("greet", usage="!greet")
def greet(cmd: ChatCommand, ctx: Context) -> None:
    ctx.say("Greetings from an installed package.")
"""


def install_package(root) -> None:
    """A real (unpacked) distribution on sys.path: importlib.metadata finds its entry point."""
    (root / "vttb_greeter.py").write_text(textwrap.dedent(SCRIPT))
    info = root / "vttb_greeter-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: vttb-greeter\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[vttbridge.scripts]\ngreeter = vttb_greeter:script\n")


async def test_installed_script_answers_in_a_served_world(db, worlds, tmp_path, monkeypatch):
    install_package(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    server = await start_server(db)
    try:
        c = await TableClient().connect(server.url, "table1", worlds["table1"][0])
        await c.send("snapshot", scene())
        ack = await c.send("chat", {"id": "g1", "text": "!greet", "role": "gm"})
        assert ack["ok"], ack
        await c.wait_commands(1)
        assert any("Greetings from an installed package." in str(cmd) for cmd in c.commands)
        await c.close()
    finally:
        await server.stop()
        sys.modules.pop("vttb_greeter", None)
