"""Every effect the bridge can send is translated or declined by each of our adapters (and the
helper that says so, ``vttbridge.adapters.testing``, covers every effect)."""

from __future__ import annotations

import json
from pathlib import Path

from vttbridge.adapters.base import effect_classes
from vttbridge.adapters.bridge.declined import commands_for
from vttbridge.adapters.foundry import FoundryAdapter
from vttbridge.adapters.roll20 import Roll20Adapter
from vttbridge.adapters.testing import effect_samples, untranslated, world_from
from vttbridge.sdk import effects as fx

from tests.adapters.roll20.test_translate import _snapshot
from tests.bridge.conftest import scene
from tests.bridge.minitable import MiniTable, RulerTable

HERE = Path(__file__).resolve().parent


def test_the_samples_cover_every_effect():
    world = world_from(MiniTable(), scene())
    assert [type(e) for e in effect_samples(world)] == list(effect_classes())


def test_foundry_translates_every_effect():
    snapshot = json.loads((HERE / "foundry" / "fixtures" / "snapshot.json").read_text())
    adapter = FoundryAdapter()
    assert untranslated(adapter, world_from(adapter, snapshot)) == {}


def test_roll20_translates_every_effect():
    page = json.loads((HERE / "roll20" / "fixtures" / "page.json").read_text())
    adapter = Roll20Adapter()
    assert untranslated(adapter, world_from(adapter, _snapshot(page))) == {}


def test_an_adapter_that_drops_effects_is_told_which():
    class Forgetful(MiniTable):
        declines = frozenset()

    assert untranslated(Forgetful(), world_from(Forgetful(), scene())) == {
        name: "no command, and not in declines"
        for name in (
            "UpdateStats",
            "UpdateConditions",
            "MovementBudget",
            "WatchMoves",
            "ReleaseMove",
        )
    }
    assert untranslated(MiniTable(), world_from(MiniTable(), scene())) == {}
    # the benchmarks' table with a ruler translates the budget MiniTable declines
    assert untranslated(RulerTable(), world_from(RulerTable(), scene())) == {}
    assert fx.MovementBudget in MiniTable.declines - RulerTable.declines


def test_a_declined_question_becomes_a_whisper_to_the_gm_and_never_vanishes():
    class NoDialogs(MiniTable):
        declines = MiniTable.declines | {fx.AskPlayer}

    class NoChatEither(NoDialogs):
        declines = NoDialogs.declines | {fx.PostChat}

    world = world_from(MiniTable(), scene())
    ask = next(e for e in effect_samples(world) if isinstance(e, fx.AskPlayer))
    (cmd,) = commands_for(NoDialogs(), ask, world)
    assert cmd.op == "chat.post" and cmd.data["whisper"] == "gm"
    assert "Fire or cancel?" in cmd.data["text"] and "!answer p1 <option>" in cmd.data["text"]
    assert commands_for(NoChatEither(), ask, world) == []  # the dashboard shows it
    stats = next(e for e in effect_samples(world) if isinstance(e, fx.UpdateStats))
    assert commands_for(MiniTable(), stats, world) == []
