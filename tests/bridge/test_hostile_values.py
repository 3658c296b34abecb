"""Hostile values through the Foundry and Roll20 namespaces of a real bridge: non-finite and
absurd numbers get ``out_of_range`` (or their field's own code) with the field's path, chat
arguments a usage line, and a payload of several parts is applied whole or not at all."""

from __future__ import annotations

import copy
import json
import math
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from vttbridge.adapters.bridge.server import Bridge

from tests.bridge.vtts import BIG, NAMESPACES, WORLDS, Client, fingerprint, serve_vtts

F, R = "/foundry", "/roll20"


@pytest.fixture
async def vtts(tmp_path: Path) -> AsyncIterator[tuple[Bridge, dict[str, Client]]]:
    async with serve_vtts(tmp_path) as served:
        yield served


def payload(ns: str, event: str, eid: str, **at: Any) -> dict[str, Any]:
    """The real payload of ``event`` with the values at dotted paths replaced."""
    p = copy.deepcopy(NAMESPACES[ns][event]) | {"id": eid}
    for path, value in at.items():
        node = p
        keys = [int(k) if k.isdigit() else k for k in path.split("__")]
        for k in keys[:-1]:
            node = node[k]
        node[keys[-1]] = value
    return p


NAN, INF = math.nan, math.inf


@pytest.mark.parametrize(
    ("ns", "event", "at", "code", "path"),
    [
        (F, "updateToken", {"token__x": NAN}, "out_of_range", "token.x"),
        (F, "updateToken", {"token__x": "NaN"}, "out_of_range", "token.x"),
        (F, "updateToken", {"token__y": BIG}, "out_of_range", "token.y"),  # 1e400 on the wire
        (F, "updateToken", {"token__x": -INF}, "out_of_range", "token.x"),
        (F, "updateToken", {"token__x": -50}, "out_of_range", "token.x"),
        (F, "updateToken", {"token__x": 1e300}, "out_of_range", "token.x"),
        (F, "updateToken", {"origin": {"x": INF, "y": 0}}, "out_of_range", "origin.x"),
        (F, "updateToken", {"waypoints": [{"x": 5, "y": NAN}]}, "out_of_range", "waypoints.0.y"),
        (F, "preUpdateToken", {"changes__x": "far"}, "wrong_type", "changes.x"),
        (F, "preUpdateToken", {"changes__y": NAN}, "out_of_range", "changes.y"),
        (F, "snapshot", {"tokens__0__x": NAN}, "out_of_range", "tokens.0.x"),
        (F, "snapshot", {"scene__grid__size": 0.0001}, "out_of_range", "scene.grid.size"),
        (F, "createCombatant", {"combatant__initiative": BIG}, "out_of_range",
         "combatant.initiative"),
        (F, "updateCombat", {"combat__round": 10**400}, "out_of_range", "combat.round"),
        (R, "change:graphic", {"obj__left": NAN}, "out_of_range", "obj.left"),
        (R, "change:graphic", {"obj__top": 1e300}, "out_of_range", "obj.top"),
        (R, "change:graphic", {"prev__left": -1}, "out_of_range", "prev.left"),
        (R, "change:graphic", {"obj__lastmove": "nan,385"}, "bad_lastmove", "obj.lastmove"),
        (R, "change:graphic", {"obj__lastmove": "1e400,3"}, "bad_lastmove", "obj.lastmove"),
        (R, "change:graphic", {"obj__left": 5000}, "off_scene", "obj.left"),  # page: 1750 px
        (R, "change:graphic", {"obj__lastmove": "525,9000"}, "off_scene", "obj.lastmove"),
        (R, "snapshot", {"page__scale_number": INF}, "out_of_range", "page.scale_number"),
        (R, "chat:message", {"msg__playerid": NAN}, "wrong_type", "msg.playerid"),  # not "nan"
        (R, "snapshot", {"graphics__1__left": 99999}, "off_scene", "graphics.1.left"),
    ],
)  # fmt: skip
async def test_numbers_out_of_range_are_refused_with_their_path(vtts, ns, event, at, code, path):
    bridge, clients = vtts
    before = fingerprint(bridge, ns)
    ack = await clients[ns].send(event, payload(ns, event, f"bad-{path}", **at))
    assert ack["ok"] is False, ack
    assert (ack["error"]["code"], ack["error"].get("path")) == (code, path), ack
    assert fingerprint(bridge, ns) == before


async def test_a_foundry_position_off_the_scene_is_refused(vtts):
    bridge, clients = vtts
    c = clients[F]
    snap = payload(F, "snapshot", "snap-dims", scene__dimensions={"width": 3000, "height": 2000})
    assert (await c.send("snapshot", snap))["ok"]
    before = fingerprint(bridge, F)
    ack = await c.send(
        "updateToken", payload(F, "updateToken", "far", token__x=2900, token__y=2500)
    )
    assert ack["error"]["code"] == "off_scene" and ack["error"]["path"] == "token.y", ack
    assert fingerprint(bridge, F) == before
    assert (await c.send("updateToken", payload(F, "updateToken", "near")))["ok"]


def said(client: Client, since: int = 0) -> str:
    return " ".join(json.dumps(m["data"]) for m in client.commands[since:])


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("!jump high -1e999", "The distance must be a finite number"),
        ("!jump gap 1e999", "The distance must be a finite number"),
        ("!jump high -5", "The distance must be from 0 to 10000"),
        ("!jump gap nan", "The distance must be a finite number"),
        ("!move 99999999,3", "from -100000 to 100000"),
        ("!sneak --modifier 1e9", "The modifier must be a whole number"),
        ("!sneak --modifier 99999", "The modifier must be from -1000 to 1000"),
        ("!stats move=1e999", "not a number a rule can use"),
        ("!stats weight=NaN", "not a number a rule can use"),
        ("!set script_budget Infinity", "not a number a rule can use"),
        ("!set prompt_timeout -1", "greater than or equal to 0"),
    ],
)
async def test_chat_arguments_are_finite_and_in_range(vtts, text, answer):
    bridge, clients = vtts
    c = clients[F]
    msg = {"id": f"chat-{text}", "userId": "gM0000000000000A", "message": {"content": text}}
    msg["message"]["speaker"] = {"token": "tKevin0000000001"}
    before, n = fingerprint(bridge, F), len(c.commands)
    ack = await c.send("createChatMessage", msg)
    assert ack["ok"], ack
    await c.wait_commands(n + 1)
    assert answer in said(c, n), said(c, n)
    assert "inf " not in said(c, n)
    assert fingerprint(bridge, F)[1] == before[1]  # logged, but nothing changed


# -- all or nothing ---------------------------------------------------------------------------


async def test_a_payload_whose_second_part_is_refused_applies_nothing(vtts):
    bridge, clients = vtts
    c = clients[R]
    # a move and a bar the Mod maps to a stat: the move is fine, the stat value is not
    bad = payload(R, "change:graphic", "two-parts", obj__bar2_value="7", prev__bar2_value="1")
    bad["bars"] = {"bar1": "hp", "bar2": "horns"}  # horns is 0, 1 or 2
    before = fingerprint(bridge, R)
    for _ in range(2):  # the id is not remembered: the same refusal again, not "duplicate"
        ack = await c.send("change:graphic", bad)
        assert ack["ok"] is False and ack["error"]["code"] == "bad_stats", ack
        assert "none was applied" in ack["error"]["message"]
        assert fingerprint(bridge, R) == before  # the world and the log as before
    good = copy.deepcopy(bad) | {"obj": bad["obj"] | {"bar2_value": "2"}}
    ack = await c.send("change:graphic", good)  # the same id, fixed: applied whole
    assert ack["ok"] and not ack.get("duplicate"), ack
    token = bridge.worlds[WORLDS[R][0]].runtime.world.tokens["-OTokGob1"]
    assert (token.cell.x, token.cell.y, token.stats["horns"]) == (9, 5, 2)


async def test_a_new_round_whose_turn_falls_to_a_token_that_left_skips_it(vtts):
    bridge, clients = vtts
    c = clients[F]
    enc = bridge.worlds[WORLDS[F][0]].runtime.world.encounter

    def turn(eid: str, rnd: int, index: int, prior: tuple[int, int]) -> dict[str, Any]:
        p = payload(F, "updateCombat", eid, combat__round=rnd, combat__turn=index)
        p["changes"] = {"round": rnd, "turn": index} if rnd != prior[0] else {"turn": index}
        p["prior"] = {"round": prior[0], "turn": prior[1]}
        return p

    for i in (1, 2):  # Gary's turn, then the Thug's: the last of round 1
        assert (await c.send("updateCombat", turn(f"t{i}", 1, i, (1, i - 1))))["ok"]
    assert enc.active == "Zq9XbC2dE4fG6hJ8"
    snap = payload(F, "snapshot", "kevin-left")
    snap["tokens"] = [t for t in snap["tokens"] if t["name"] != "Kevin"]  # still in the tracker
    assert (await c.send("snapshot", snap))["ok"]
    n = len(c.commands)
    # the GM's next turn: round 2 starts with Kevin, whose token left (two parts: the new
    # round, then Kevin's turn)
    ack = await c.send("updateCombat", turn("round-2", 2, 0, (1, 2)))
    assert ack["ok"], ack
    await c.wait_commands(n + 1)
    assert "Kevin" in said(c, n) and "skip" in said(c, n), said(c, n)
    assert (enc.round, enc.active) == (2, "tGary00000000002")


# -- a sheet's numbers: the same bounds as every other number -----------------------------------

HUGE = 1e12  # finite, past MAX_NUMBER


def foundry_actor(eid: str, reflex: Any) -> dict[str, Any]:
    p = payload(F, "updateActor", eid)
    p["changes"] = {"_id": "aKevin0000000001", "system": {"attributes": {"reflex": reflex}}}
    p.pop("actorUuid", None)  # the world actor itself
    return p


def foundry_snapshot(eid: str, reflex: Any) -> dict[str, Any]:
    p = payload(F, "snapshot", eid)
    p["actors"] = [{"_id": "aKevin0000000001", "name": "Kevin",
                    "system": {"attributes": {"reflex": reflex}}}]  # fmt: skip
    return p


def roll20_attribute(eid: str, value: Any) -> dict[str, Any]:
    p = payload(R, "change:attribute", eid)
    p["obj"] = p["obj"] | {"name": "move", "current": value}
    return p


def roll20_snapshot(eid: str, value: Any) -> dict[str, Any]:
    p = payload(R, "snapshot", eid)
    p["characters"] = [c | {"stats": {"move": value}} for c in p["characters"]]
    return p


@pytest.mark.parametrize(
    ("ns", "event", "make", "path"),
    [
        (F, "updateActor", foundry_actor, "stats.reflex"),
        (F, "snapshot", foundry_snapshot, "actors.0.stats.reflex"),
        (R, "change:attribute", roll20_attribute, "stats.move"),
        (R, "snapshot", roll20_snapshot, "actors.0.stats.move"),
    ],
)
async def test_a_sheet_number_past_the_bound_is_refused_and_changes_nothing(
    vtts, ns, event, make, path
):
    bridge, clients = vtts
    c = clients[ns]
    assert (await c.send(event, make("in-range", 7)))["ok"]  # the same path takes a sane value
    before = fingerprint(bridge, ns)
    for value in (HUGE, str(int(HUGE)), -HUGE):
        ack = await c.send(event, make(f"huge-{value}", value))
        assert ack["ok"] is False, ack
        assert ack["error"]["code"] == "out_of_range", ack
        assert ack["error"]["path"].endswith(path), ack
        assert fingerprint(bridge, ns) == before  # the world and its log unchanged
