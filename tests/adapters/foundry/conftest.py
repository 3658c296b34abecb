"""Fixtures of the Foundry adapter tests: the payloads (recorded Foundry payloads in
``fixtures/``, plus version variants), and a Foundry table in memory: the adapter in front of
a world runtime (the built-in holds script included, as in every world), so payloads go in and
Foundry commands come out, no network."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from vttbridge.adapters.base import Command
from vttbridge.adapters.foundry import FoundryAdapter
from vttbridge.sdk.testing import WorldHarness

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
ROOT = HERE.parents[2]


MODULE = ROOT / "adapters" / "foundry" / "module"


@pytest.fixture(scope="session")
def npm_installed() -> None:
    """The module's npm packages (``npm ci`` when any is missing)."""
    wanted = ("socket.io-client", "typescript", "fvtt-types")
    if all((MODULE / "node_modules" / name).is_dir() for name in wanted):
        return
    npm = shutil.which("npm")
    assert npm, "npm is needed to install the module's packages"
    subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund"], cwd=MODULE, check=True, timeout=900,
        capture_output=True,
    )  # fmt: skip


def fixture(name: str) -> Any:
    """A fresh copy of ``fixtures/<name>.json``."""
    return copy.deepcopy(json.loads((FIXTURES / f"{name}.json").read_text()))


@pytest.fixture
def adapter() -> FoundryAdapter:
    return FoundryAdapter()


class FoundryTable:
    """The adapter and a world runtime, as the bridge wires them (without the sockets)."""

    def __init__(self, harness: WorldHarness) -> None:
        self.w = harness
        self.adapter = FoundryAdapter()
        self.commands: list[Command] = []

    @property
    def world(self) -> Any:
        return self.w.world

    def events(self, name: str, payload: dict[str, Any]) -> list[Any]:
        model = self.adapter.inbound[name].model_validate(payload)
        return self.adapter.translate_in(name, model, self.world)

    async def send(self, name: str, payload: dict[str, Any]) -> list[Command]:
        """Translate, submit every event in order, translate the effects back."""
        out: list[Command] = []
        for ev in self.events(name, payload):
            for eff in await self.w.send(ev):
                out.extend(self.adapter.translate_out(eff, self.world))
        self.commands.extend(out)
        return out

    async def chat(self, user: str, text: str, token: str | None = None) -> list[Command]:
        msg: dict[str, Any] = {"_id": f"m{len(self.commands)}", "author": user, "content": text}
        if token:
            msg["speaker"] = {"token": token, "alias": self.world.tokens[token].name}
        return await self.send(
            "createChatMessage",
            {"id": f"chat-{len(self.commands)}-{text}", "userId": user, "message": msg},
        )


@pytest.fixture
async def table() -> Any:
    async with WorldHarness(dice=[]) as w:
        yield FoundryTable(w)


def ops(commands: list[Command]) -> list[str]:
    return [c.op for c in commands]


def chat_text(commands: list[Command]) -> str:
    """The chat the commands post: messages, and the whispers questions fall back to."""
    return "\n".join(str(chat_data(c).get("content")) for c in commands if chat_data(c))


def chat_data(c: Command) -> dict:
    """The ``ChatMessage.create`` data of a command, or of a question's chat fallback."""
    if c.op == "ChatMessage.create":
        return c.data
    return c.data["fallback"] if c.op == "User.query" else {}
