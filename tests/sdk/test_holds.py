"""The built-in holds script, VTT-neutral: domain events in, ``watch_moves`` and
``release_move`` effects out (the Foundry and Roll20 adapters' own tests cover the commands they
become, see tests/adapters/foundry/test_holds.py)."""

from __future__ import annotations

import json

from vttbridge.sdk import Script, holds, rect
from vttbridge.sdk.events import ActionDeclared, TokenMoved
from vttbridge.sdk.holds import SCRIPT_NAME, ReleaseMove, WatchMoves
from vttbridge.sdk.runtime.scripts import builtin_scripts
from vttbridge.sdk.testing import WorldHarness, cell

from tests.sdk.chat.scenes import kevins_corner

places = Script("test_places")
places.region("door", rect(5, 0, 5, 2))


async def corner(**kw) -> WorldHarness:
    return await kevins_corner(places, **kw)


async def held(w: WorldHarness, hid: str, token: str, to: tuple[int, int]) -> list:
    """A held move as an adapter reports it: the attempt, then the move, under one id."""
    start = w.world.tokens[token].cell
    out = await w.send(ActionDeclared(id=hid, token=token, action="move", phase="attempt"))
    out += await w.send(TokenMoved(id=hid, token=token, from_cell=start, to_cell=cell(to)))
    return out


def test_every_world_loads_it():
    assert holds.script in builtin_scripts() and SCRIPT_NAME == "holds"
    assert (WatchMoves().type, ReleaseMove.model_fields["type"].default) == (
        "watch_moves",
        "release_move",
    )


async def test_quiet_without_an_attempt_ready():
    w = await corner()
    try:
        await w.chat("!ready shoot --when door", token="kev")  # on completion
        await w.move("gary", (5, 1))
        assert not w.of(WatchMoves, w.effects) and not w.of(ReleaseMove, w.effects)
        assert SCRIPT_NAME in w.world.store  # it runs
    finally:
        await w.__aexit__(None, None, None)


async def test_not_loaded_without_builtins():
    async with WorldHarness(builtins=False) as w:
        await w.token("kev", "Kevin", (0, 0))
        await w.move("kev", (1, 0))
        assert SCRIPT_NAME not in w.world.store
        assert not w.world.settings.hold_moves  # nobody would release a held move


async def test_watch_set_hold_and_release():
    w = await corner()
    try:
        out = await w.chat("!ready shoot --when door --timing attempt", token="kev")
        (watch,) = w.of(WatchMoves, out)
        (entry,) = watch.watches
        assert entry.exclude == "kev" and entry.cells == [(5, 0), (5, 1), (5, 2)]

        out = await held(w, "h1", "gary", (5, 1))
        assert w.asks(out) and not w.of(ReleaseMove, out)  # waits for Kevin
        assert list(w.world.store[SCRIPT_NAME]["holds"]) == ["h1"]
        (watch,) = w.of(WatchMoves, out)
        assert watch.watches == []  # the Ready fired: nothing else is watched

        out = await w.answer("fire")
        (release,) = w.of(ReleaseMove, out)
        assert (release.hold, release.token, release.cell, release.moved) == (
            "h1",
            "gary",
            cell((5, 1)),
            True,
        )
        assert w.world.store[SCRIPT_NAME]["holds"] == {}
    finally:
        await w.__aexit__(None, None, None)


async def test_a_hold_that_sets_off_nothing_is_released_at_once():
    w = await corner()
    try:
        await w.chat("!ready shoot --when door --timing attempt", token="kev")
        out = await held(w, "h2", "thug", (8, 8))  # nowhere near the door
        (release,) = w.of(ReleaseMove, out)
        assert release.hold == "h2" and release.cell == cell((8, 8)) and release.moved
        assert not w.asks(out)
    finally:
        await w.__aexit__(None, None, None)


async def test_a_held_move_the_rules_refuse_is_released_where_it_started():
    """FoE: a held move over the movement budget is judged before it is applied; the hold is
    let go at once, the token where it started."""
    async with WorldHarness(system="foe", dice=[90, 10]) as w:
        await w.token("mint", "Mint", (0, 0), owner="pm", move=25)
        await w.token("raider", "Raider", (10, 0))
        await w.gm_says("!init")
        out = await held(w, "h1", "mint", (16, 0))  # 80 ft: past a 75 ft run
        (release,) = w.of(ReleaseMove, out)
        assert (release.hold, release.cell, release.moved) == ("h1", cell((0, 0)), False)
        assert w.said("Move refused", out, whisper_to="pm")
        assert w.world.tokens["mint"].cell == cell((0, 0))
        assert not w.world.store[SCRIPT_NAME]["holds"]
        out = await held(w, "h2", "mint", (5, 0))  # within budget: released at its end
        (release,) = w.of(ReleaseMove, out)
        assert (release.hold, release.cell, release.moved) == ("h2", cell((5, 0)), True)


def test_hold_effects_are_effects_with_schemas():
    """The held-moves effects are members of the Effect union: validated by their ``type``
    and in the published effect schema, like every other effect."""
    from vttbridge.sdk.effects import EFFECT_ADAPTER

    assert isinstance(EFFECT_ADAPTER.validate_python({"type": "watch_moves"}), WatchMoves)
    release = {"type": "release_move", "hold": "e1", "token": "t", "cell": {"x": 1, "y": 2}}
    assert isinstance(EFFECT_ADAPTER.validate_python(release), ReleaseMove)
    schema = json.dumps(EFFECT_ADAPTER.json_schema())
    assert '"watch_moves"' in schema and '"release_move"' in schema
