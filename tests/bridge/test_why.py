"""Every refusal names its rule, and ``!why`` explains it, over the real wire: a MiniTable client
against a real bridge (SQLite file, free port). The citation is at the end of the chat line and
in the log (``PostChat.cites``); ``!why`` answers the player it was for, and the GM."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from vttbridge.adapters.bridge.server import create_world

from tests.bridge.conftest import Server, start_server
from tests.bridge.test_dashboard import Dashboard
from tests.bridge.test_economy import (
    FOE_TOKENS,
    SPY_TOKENS,
    SURPRISE_TOKENS,
    chat,
    chat_texts,
    move,
    said,
    snapshot,
    table,
)

RULES = "https://github.com/vttbridge/vttbridge/blob/main/docs/rules.md"
MOVEMENT = "(FoE, Movement, rules.md#movement; option: diagonal_metric = alternating)"


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[Server, dict[str, str]]]:
    db = tmp_path / "why.sqlite3"
    keys = {
        "spy": create_world(db, "spy", {"system": "spycraft"})[0],
        "foe": create_world(db, "foe", {"system": "foe"})[0],
    }
    srv = await start_server(db)
    yield srv, keys
    await srv.stop()


async def test_a_refused_drag_cites_its_rule_and_why_explains_it(served, client_factory) -> None:
    c = await table(served, client_factory, "foe", FOE_TOKENS, {"mint": 90, "raider": 10})
    n = [0]
    out = await said(c, move(c, n, "mint", 1600, 0))  # 80 ft: past his 75 ft run
    told = chat_texts(out, "u-p")
    assert told.startswith("Move refused: Mint can move 75 ft more this round")
    assert told.endswith(f"that path is 80 ft. {MOVEMENT}")
    assert chat_texts(out, "gm").endswith(MOVEMENT)

    out = await said(c, chat(c, n, "!why", "mint"))  # the player asks
    why = chat_texts(out, "u-p")
    assert why.splitlines()[0] == (
        "Why: Mint can move 75 ft more this round (running: 3 x 25 ft); that path is 80 ft."
    )
    assert f"Rule: FoE, Movement: {RULES}#movement" in why
    assert "The text: “During combat, characters can move up to their listed move speed" in why
    assert "The reading taken: Moving twice and running are the same" in why
    assert "The numbers: allowed 75, length 80" in why
    assert "Options: diagonal_metric = alternating (the GM changes one with !set" in why
    assert why.endswith("Code: over_budget")

    # the GM asks about the player's (by name), and the option in force shows as it is now
    out = await said(c, chat(c, n, "!why Pat", "mint", user="u-gm"))
    assert chat_texts(out, "u-gm").startswith("Why: Mint can move 75 ft more")
    await said(c, chat(c, n, "!set diagonal_metric chebyshev", "mint", user="u-gm"))
    out = await said(c, move(c, n, "mint", 0, 1700))  # 85 ft straight down
    assert chat_texts(out, "u-p").endswith(
        "(FoE, Movement, rules.md#movement; option: diagonal_metric = chebyshev)"
    )
    out = await said(c, chat(c, n, "!why", "mint", user="u-gm"))  # the GM: the last of all
    assert "Options: diagonal_metric = chebyshev" in chat_texts(out, "u-gm")

    # only the GM asks about another's; nobody refused says so
    out = await said(c, chat(c, n, "!why raider", "mint"))
    assert chat_texts(out, "u-p").startswith("Only the GM may ask about another's refusal.")


async def test_a_refused_command_and_a_surprised_character_cite_their_rules(
    served, client_factory
) -> None:
    srv, keys = served
    c = await client_factory().connect(srv.url, "foe", keys["foe"])
    assert (await c.send("snapshot", snapshot(SURPRISE_TOKENS)))["ok"]
    n = [0]
    out = await said(c, chat(c, n, "!surprise raider", "raider", user="u-gm"))
    public = chat_texts(out, None)
    assert "Surprised, sitting out: Guard. (FoE, Surprise round, rules.md#surprise-round; " in (
        public
    )
    assert "option: surprise_after = reroll)" in public
    out = await said(c, chat(c, n, "!attack raider", "guard"))
    assert chat_texts(out, "u-p") == (
        "Guard is surprised and sits out the surprise round. "
        "(FoE, Surprise round, rules.md#surprise-round; option: surprise_after = reroll)"
    )
    out = await said(c, chat(c, n, "!why", "guard"))
    why = chat_texts(out, "u-p")
    assert f"Rule: FoE, Surprise round: {RULES}#surprise-round" in why
    assert "They all receive a single action for the round" in why
    assert why.endswith("Code: surprised")

    # the log keeps the citation as data, for the dashboard and the timeline
    db = sqlite3.connect(srv.bridge.config.database)
    rows = db.execute("SELECT body FROM log WHERE kind = 'event'").fetchall()
    cites = [
        cite
        for (body,) in rows
        for eff in json.loads(body)["effects"]
        if eff["type"] == "post_chat"
        for cite in eff.get("cites", [])
    ]
    assert {"source": "FoE", "rule": "Surprise round", "code": "surprised"}.items() <= (
        next(ci for ci in cites if ci["code"] == "surprised").items()
    )


async def test_spycraft_budget_refusal_cites_the_shared_rule_in_the_worlds_system(
    served, client_factory
) -> None:
    c = await table(served, client_factory, "spy", SPY_TOKENS, {"kevin": 22, "thug": 10})
    n = [0]
    await said(c, chat(c, n, "!attack thug", "kevin"))
    out = await said(c, chat(c, n, "!ready shoot --when within 10", "kevin"))
    assert chat_texts(out, "u-p") == (
        "Kevin has only a half action left this turn; a full action needs 2. "
        "(Spycraft 2.0, Action costs, rules.md#action-costs)"
    )
    out = await said(c, chat(c, n, "!why", "kevin"))
    why = chat_texts(out, "u-p")
    assert "The rule (the text is silent): A turn is two half actions" in why
    assert "The numbers: left 1, needs full" in why


async def test_why_with_nothing_refused(served, client_factory) -> None:
    c = await table(served, client_factory, "spy", SPY_TOKENS, {"kevin": 22, "thug": 10})
    out = await said(c, chat(c, [0], "!why", "kevin"))
    assert chat_texts(out, "u-p") == "Nothing has been refused to you since the world was loaded."


async def test_the_dashboard_shows_citations_and_the_sessions_timeline(
    served, client_factory
) -> None:
    """Over the dashboard's socket: the rules log's lines carry their citations (the text
    without the short form); ``timeline`` answers the session from the log, by token, by
    round, only what a rule cited; a bad filter is refused with the field."""
    srv, keys = served
    c = await table(served, client_factory, "foe", FOE_TOKENS, {"mint": 90, "raider": 10})
    n = [0]
    await said(c, move(c, n, "mint", 200, 0))  # 10 ft: fine
    await said(c, move(c, n, "mint", 1800, 0))  # refused: past the run
    await said(c, chat(c, n, "!next", "mint", user="u-gm"))
    await said(c, chat(c, n, "!next", "raider", user="u-gm"))  # round 2
    await said(c, move(c, n, "raider", 400, 0, user="u-gm"))

    page = await Dashboard().connect(srv.url, "foe", keys["foe"])
    try:
        await _dashboard_checks(page)
    finally:
        await page.close()


async def _dashboard_checks(page: Dashboard) -> None:
    view = await page.view(lambda v: any(line["cites"] for line in v["log"]))
    (line,) = [x for x in view["log"] if x["cites"] and x["to"] == "Pat"]
    assert line["text"] == (
        "Move refused: Mint can move 65 ft more this round (running: 3 x 25 ft); that path is "
        "80 ft."
    )
    assert line["cites"] == [
        {
            "source": "FoE",
            "rule": "Movement",
            "url": f"{RULES}#movement",
            "options": {"diagonal_metric": "alternating"},
            "code": "over_budget",
        }
    ]

    call = page.sio.call
    whole = (await call("timeline", {}, namespace="/dashboard", timeout=10))["timeline"]
    assert whole["rounds"] == [1, 2]
    assert [t["name"] for t in whole["tokens"]] == ["Mint", "Raider"]
    texts = [e["text"] for e in whole["entries"] if not e["text"].endswith("!help")]
    assert texts == [
        "A combat started in the VTT",
        "Mint moved to 2,0 (Pat)",
        "Mint moved to 18,0 (Pat)",
        "Dana: !next",
        "Dana: !next",
        "Raider moved to 4,0 (Dana)",
    ]

    mine = await call("timeline", {"token": "raider", "round": 2}, namespace="/dashboard")
    entries = mine["timeline"]["entries"]
    assert [e["text"] for e in entries] == ["Dana: !next", "Raider moved to 4,0 (Dana)"]
    assert all(e["round"] == 2 and "raider" in e["tokens"] for e in entries)

    cited = (await call("timeline", {"cited": True}, namespace="/dashboard"))["timeline"]
    refused, kept = cited["entries"]
    assert kept["text"] == "Raider moved to 4,0 (Dana)"  # the GM's drag: kept, told why
    assert kept["caused"][0]["text"] == (
        "Raider's move breaks the movement rules (kept): It is not Raider's turn (it is Mint's)."
    )
    assert kept["caused"][0]["cites"][0]["rule"] == "Action costs"
    assert refused["text"] == "Mint moved to 18,0 (Pat)" and refused["round"] == 1
    kinds = [(x["kind"], x["to"]) for x in refused["caused"]]
    assert kinds == [("move", None), ("chat", "GM"), ("chat", "Pat")]
    assert refused["caused"][0]["text"] == "Mint put back at 2,0"
    assert refused["caused"][2]["cites"][0]["rule"] == "Movement"

    bad = await call("timeline", {"round": "soon"}, namespace="/dashboard")
    assert bad["ok"] is False and bad["error"]["code"] == "bad_payload"
    assert bad["error"]["message"].startswith("round:")


DUEL = {
    "kevin": {"x": 0, "y": 0, "owners": ["u-p"], "stats": {"action_dice": 2, "reflex": 30}},
    "thug": {"x": 300, "y": 0, "stats": {"bab": 1}},
    "gary": {"x": 900, "y": 900, "stats": {"reflex": 30}},
}


async def test_spycraft_decisions_cite_their_rule_a_stand_offs_dc_and_a_readys_ic_slide(
    served, client_factory
) -> None:
    """The GM sees which rule decided: the Stand Off's cost and its save's DC, a Ready's IC
    dropping to the count its trigger came at."""
    c = await table(served, client_factory, "spy", DUEL, {"gary": 25, "thug": 15, "kevin": 8})
    n = [0]
    out = await said(c, chat(c, n, "!ready shoot --when gm: the door opens", "gary", user="u-gm"))
    assert "(Spycraft 2.0, Ready 1: one half action and a trigger, rules.md#ready-1-" in (
        chat_texts(out, None)
    )
    await said(c, chat(c, n, "!attack kevin", "thug", user="u-gm"))  # Kevin is offered a stand off
    out = await said(c, chat(c, n, "!answer stand_off", "kevin"))
    lines = chat_texts(out, None).splitlines()
    cost = next(line for line in lines if "action die" in line)
    assert cost.endswith(
        "(Spycraft 2.0, Stand Off 2: the cost, rules.md#stand-off-2-the-cost; option: "
        "standoff_ic_floor = one)"
    )
    save = next(line for line in lines if "Reflex save vs DC 11" in line)
    assert save.endswith("(Spycraft 2.0, Stand Off 3: the save, rules.md#stand-off-3-the-save)")

    out = await said(c, chat(c, n, "!trigger gary", "thug", user="u-gm"))  # at IC 15, below 25
    public = chat_texts(out, None)
    assert "IC 15: the trigger of Gary's Ready occurs" in public
    assert public.count("(Spycraft 2.0, Ready 2: the IC drops to the trigger's count, ") == 1
