"""Testing an adapter without a VTT: a world built from the adapter's own snapshot payload, one
sample of every effect the bridge can send, and the effects the adapter neither translates nor
declines::

    from vttbridge.adapters.testing import untranslated, world_from

    def test_every_effect_is_translated_or_declined():
        adapter = MyTable()
        world = world_from(adapter, MY_SNAPSHOT)  # a payload of the adapter's "snapshot" event
        assert untranslated(adapter, world) == {}

When vttbridge adds an effect, this test names it: the adapter then translates it or lists it in
``declines``. The end-to-end part (a real ``vttbridge serve``, a socket.io client) is in the
adapter template's tests (``examples/adapter-template``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from vttbridge.adapters.base import Adapter, effect_classes
from vttbridge.rules.geometry import Cell
from vttbridge.sdk.effects import (
    AdvanceTurn,
    AskPlayer,
    BaseEffect,
    Effect,
    MovementBudget,
    MoveWatch,
    PostChat,
    ReleaseMove,
    SetInitiative,
    UpdateConditions,
    UpdateStats,
    UpdateToken,
    WatchMoves,
)
from vttbridge.sdk.triggers import TriggerIndex
from vttbridge.sdk.world import World
from vttbridge.sdk.world.ingest import ingest, normalize
from vttbridge.systems.foe.rules.movement import MoveBudget

__all__ = ["effect_samples", "untranslated", "world_from"]


def world_from(adapter: Adapter, snapshot: Mapping[str, Any], world_id: str = "test") -> World:
    """A world as the bridge would hold it after ``snapshot`` (a payload of the adapter's
    ``snapshot`` event, ``id`` included) went through the adapter's ``translate_in``."""
    world = World(id=world_id)
    index = TriggerIndex(lambda spec: frozenset())
    payload = adapter.inbound["snapshot"].model_validate(dict(snapshot))
    for event in adapter.translate_in("snapshot", payload, world):
        ingest(world, normalize(world, event), index, set())
    return world


def effect_samples(world: World) -> list[Effect]:
    """One effect of every kind, about the world's first token (by id) and whoever answers
    for it, as the rules would send them (a movement budget: after that player's drag)."""
    if not world.tokens:
        raise ValueError("effect_samples needs a world with a token: send one in the snapshot")
    token = min(world.tokens)
    player = world.player_for(token)
    scene = world.tokens[token].scene or world.active_scene
    budget = MoveBudget(speed=25, moved=10, left=15, walk=15, run=65, sneak=None, turn=True)
    made: dict[type[BaseEffect], Callable[[], Effect]] = {
        PostChat: lambda: PostChat(text="The alarm rings."),
        UpdateToken: lambda: UpdateToken(token=token, cell=Cell(x=2, y=3), animate=False),
        SetInitiative: lambda: SetInitiative(token=token, ic=15),
        AdvanceTurn: lambda: AdvanceTurn(round=1, token=token, ic=15),
        AskPlayer: lambda: AskPlayer(
            prompt="p1",
            player=player,
            token=token,
            question="Fire or cancel?",
            options=["fire", "cancel"],
            default="fire",
            timeout=60,
            text="Fire or cancel? !answer p1 fire / cancel",
        ),
        UpdateStats: lambda: UpdateStats(token=token, stats={"stress": 2}),
        UpdateConditions: lambda: UpdateConditions(token=token, conditions=["readied"]),
        MovementBudget: lambda: MovementBudget(
            token=token, budget=budget, cause="move", player=None if player == "gm" else player
        ),
        WatchMoves: lambda: WatchMoves(scene=scene, watches=[MoveWatch(cells=[(2, 3)])]),
        ReleaseMove: lambda: ReleaseMove(hold="h1", token=token, cell=Cell(x=2, y=3)),
    }
    missing = [c.__name__ for c in effect_classes() if c not in made]
    if missing:
        raise NotImplementedError(f"no sample of {', '.join(missing)} in effect_samples")
    return [made[c]() for c in effect_classes()]


def untranslated(adapter: Adapter, world: World) -> dict[str, str]:
    """Effect class name -> why, for every effect the adapter neither declines nor turns into
    at least one command (its ``translate_out`` returned none, or raised)."""
    out: dict[str, str] = {}
    for effect in effect_samples(world):
        if type(effect) in adapter.declines:
            continue
        try:
            commands = adapter.translate_out(effect, world)
        except Exception as e:
            out[type(effect).__name__] = f"translate_out raised {type(e).__name__}: {e}"
            continue
        if not commands:
            out[type(effect).__name__] = "no command, and not in declines"
    return out
