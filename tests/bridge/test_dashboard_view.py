"""The dashboard's view model, built from worlds played with scripted dice: the system's own
panels (FoE movement by pace; Spycraft's Readies and stand offs against the stress thresholds),
the cells a Ready watches, delays, questions and the chat lines."""

from __future__ import annotations

from vttbridge.adapters.bridge.dashboard.view import DashboardView, LinkView, build_view, log_lines
from vttbridge.rules.encounter import take_action
from vttbridge.rules.geometry import Cell
from vttbridge.sdk import Script, rect
from vttbridge.sdk.effects import AskPlayer, PostChat
from vttbridge.sdk.events import Player, SceneData, SceneSnapshot
from vttbridge.sdk.panels import Panel
from vttbridge.sdk.testing import WorldHarness
from vttbridge.systems.foe.rules.state import foe

LINK = LinkView(vtt="minitable", connected=True)


def view(w: WorldHarness) -> DashboardView:
    v = build_view(w.world, seq=7, now=w.clock.now(), log=[], link=LINK)
    DashboardView.model_validate_json(v.model_dump_json())  # it survives the wire as is
    return v


def combatant(v: DashboardView, token: str):
    return next(c for c in v.encounter.initiative if c.token == token)


def panel(v: DashboardView, pid: str) -> Panel:
    return next(p for p in v.panels if p.id == pid)


PACES = ("speed", "moved", "walk", "run", "sneak", "left")


def movement(v: DashboardView, token: str) -> tuple[str | None, ...]:
    """A combatant's row of the FoE movement panel, less his name, in the order of PACES."""
    table = panel(v, "movement").table
    assert table is not None and [c.label for c in table.columns][1:] == [
        "Speed",
        "Moved",
        "Walk",
        "Run",
        "Sneak",
        "Allowed now",
    ]
    row = next(r for r in table.rows if r.key == token)
    return tuple(row.cells[1:])


def ft(*values: float | None) -> tuple[str | None, ...]:
    return tuple(None if v is None else f"{v:g} ft" for v in values)


async def foe_fight(w: WorldHarness) -> None:
    players = [Player(id="gm", role="gm"), Player(id="pm", name="Mint's player")]
    await w.send(SceneSnapshot(scene=SceneData(id="s", name="Ruins"), players=players))
    await w.token("mint", "Mint", (0, 0), owner="pm", disposition=1, move=25, agility=8)
    await w.token("raider", "Raider", (10, 0), disposition=-1, move=30)
    w.dice(90, 10)
    await w.gm_says("!init")


async def test_foe_movement_by_pace():
    async with WorldHarness(system="foe") as w:
        await foe_fight(w)
        v = view(w)
        assert v.system_title == "Fallout: Equestria" and [p.id for p in v.panels] == ["movement"]
        assert movement(v, "mint") == ft(25, 0, 25, 75, None, 75)
        await w.move("mint", (2, 0), player="pm")  # 10 ft: one move action
        v = view(w)
        c = combatant(v, "mint")
        assert c.actions_taken == ["move"] and c.half_actions == 1
        assert (c.actions_used, c.actions_left) == ("move", "1 of 2 actions left")
        assert movement(v, "mint") == ft(25, 10, 15, 65, None, 65)
        # another action (the rules' spend; no chat command spends one yet): no more running
        take_action(w.encounter, "mint", "half", "shoot")
        assert movement(view(w), "mint") == ft(25, 10, 15, None, None, 15)
        await w.move("mint", (5, 0), player="pm")
        assert movement(view(w), "mint") == ft(25, 25, 0, None, None, 0)
        # the raider, waiting for his turn, has his whole budget
        assert movement(view(w), "raider") == ft(30, 0, 30, 90, None, 90)


async def test_foe_running_and_sneaking():
    async with WorldHarness(system="foe") as w:
        await foe_fight(w)
        await w.move("mint", (8, 0), player="pm")  # 40 ft: a run
        v = view(w)
        assert movement(v, "mint") == ft(25, 40, 0, 35, None, 35)
        assert combatant(v, "mint").actions_used == "move \u00d72"
    async with WorldHarness(system="foe") as w:
        await foe_fight(w)
        w.dice(10, 90)
        await w.chat("!sneak", token="mint")
        sneak = foe(w.encounter).sneak["mint"]
        assert movement(view(w), "mint") == ft(25, 0, None, None, sneak.left, sneak.left)


async def test_foe_surprised_and_out_of_the_fight():
    async with WorldHarness(system="foe") as w:
        await w.token("mint", "Mint", (0, 0), owner="pm", disposition=1)
        await w.token("raider", "Raider", (9, 0), disposition=-1)
        v = view(w)
        assert v.encounter.initiative == [] and panel(v, "movement").table.rows == []
        w.dice(50)
        await w.gm_says("!surprise raider")
        v = view(w)
        assert v.encounter.phase == "surprise round"
        assert v.encounter.notes == ["Surprised, sitting out the surprise round: Mint."]
        assert [c.token for c in v.encounter.initiative] == ["raider"]
        assert combatant(v, "raider").actions_left == "1 of 1 action left"
        # one action in the surprise round
        assert movement(v, "raider") == ft(25, 0, 25, None, None, 25)


async def test_spycraft_has_no_movement_but_spends_actions():
    corner = Script("corner")
    corner.region("corner", rect(10, 4, 11, 6))
    async with WorldHarness(corner) as w:
        await w.scene()
        await w.token("kevin", "Kevin", (6, 5), owner="pk", initiative=3, disposition=1)
        await w.token("ally", "Ally", (14, 5), initiative=1, disposition=1)
        await w.send(
            {
                "type": "combat_started",
                "tokens": ["kevin", "ally"],
                "initiative": {"kevin": 22, "ally": 14},
            }
        )
        await w.chat("!ready Standard Attack with pistol --when corner", token="kevin")
        v = view(w)
        assert v.system_title == "Spycraft 2.0"
        assert [p.id for p in v.panels] == ["readies", "standoffs"]
        kevin = combatant(v, "kevin")
        assert kevin.actions_taken == ["ready", "ready"]
        assert (kevin.actions_used, kevin.actions_left) == (
            "ready (full action)",
            "0 of 2 half actions left",
        )
        assert kevin.half_actions == 0 and kevin.acted and v.encounter.active == "ally"
        (ready,) = panel(v, "readies").cards
        facts = {f.term: f for f in ready.facts}
        assert ready.title == "Kevin readies Standard Attack with pistol" and ready.tone == ""
        assert facts["Trigger"].text == "someone enters corner"
        assert [b.text for b in facts["Trigger"].badges] == ["on completion", "on the map"]
        assert facts["Declared"].text == "round 1, IC 22"
        assert facts["Expires"].text == "round 2, when the count reaches IC 22"
        (watched,) = v.scene.watched
        assert watched.label == "Kevin's Ready" and watched.owner == "kevin"
        assert watched.cells == sorted((x, y) for x in (10, 11) for y in (4, 5, 6))
        (region,) = v.scene.regions
        assert region.name == "corner" and region.cells == watched.cells
        # the map shows every token and area, with a cell of margin
        b = v.scene.bounds
        assert (b.x0, b.y0, b.x1, b.y1) == (5, 3, 15, 7)
        # the ally rounds the corner: the Ready is pending, and Kevin is asked
        w.dice(5)
        await w.move("ally", (11, 5))
        v = view(w)
        (ready,) = panel(v, "readies").cards
        assert ready.tone == "pending"
        assert {f.term: f.text for f in ready.facts}["Triggered"] == "by Ally; fire or cancel?"
        (prompt,) = v.prompts
        assert prompt.kind == "ready_cancel" and prompt.player == "pk"
        assert prompt.token_name == "Kevin" and prompt.default in prompt.options


async def test_within_watch_and_delay():
    async with WorldHarness() as w:
        await w.scene()
        await w.token("kevin", "Kevin", (5, 5), owner="pk", initiative=3)
        await w.token("bob", "Bob", (0, 0), initiative=8)
        start = {"kevin": 12, "bob": 25}
        await w.send({"type": "combat_started", "tokens": list(start), "initiative": start})
        await w.gm_says("!delay 4", token="bob")
        v = view(w)
        bob = combatant(v, "bob")
        assert (bob.ic, bob.delayed, bob.acted) == (21, 4, False)
        assert v.encounter.active == "bob" and v.encounter.count == 21
        await w.gm_says("!next")
        await w.chat("!ready shoot --when within 10", token="kevin")
        (watched,) = view(w).scene.watched
        assert (5, 5) in watched.cells and (7, 5) in watched.cells and (8, 5) not in watched.cells


async def test_standoff_stress_against_thresholds():
    async with WorldHarness() as w:
        await w.scene()
        await w.token("gary", "Gary", (0, 0), reflex=30, action_dice=2, resolve=30, wisdom=10)
        await w.token("thug", "Thug", (3, 0), bab=1, resolve=0, wisdom=4, kind="standard")
        start = {"thug": 20, "gary": 10}
        await w.send({"type": "combat_started", "tokens": list(start), "initiative": start})
        await w.chat("!attack gary", token="thug", role="gm")
        w.dice(10)  # Gary's Reflex save: 10 + 30
        await w.answer("stand_off")
        v = view(w)
        stand_offs = panel(v, "standoffs")
        assert stand_offs.place == "main"
        (so,) = stand_offs.cards
        assert so.title == "Stand off so1" and so.tone == "" and so.subtitle == "since round 1"
        assert [[e.title for e in g.entries] for g in so.groups] == [["Gary"], ["Thug"]]
        thug = so.groups[1].entries[0]
        assert thug.text == "stress 0 · thresholds 4 (Wisdom 4)" and thug.badges == []
        assert thug.meter is not None and (thug.meter.value, thug.meter.max) == (0, 4)
        # round 2: Resolve 10 + 30 against 2 + 0; the Thug takes 1d6 + 0 = 5 stress: past 4, he
        # cracks and must choose
        w.dice(10, 2, 5)
        await w.gm_says("!next")
        await w.gm_says("!next")
        v = view(w)
        (so,) = panel(v, "standoffs").cards
        thug = so.groups[1].entries[0]
        assert thug.text == "stress 5 · thresholds 4, 8 (Wisdom 4) · 1 exceeded"
        assert [b.text for b in thug.badges] == ["cracked — choosing"]
        assert so.subtitle == "since round 1, last Resolve check round 2"
        assert any(p.kind == "standoff_crack" for p in v.prompts)
        await w.answer("surrender", next(p.id for p in w.prompts if p.kind == "standoff_crack"))
        (so,) = panel(view(w), "standoffs").cards
        thug = so.groups[1].entries[0]
        assert [b.text for b in thug.badges] == ["cracked", "surrendered to Gary"]


async def test_chat_lines_name_whom_they_are_for():
    async with WorldHarness() as w:
        await w.send(
            SceneSnapshot(
                scene=SceneData(id="s"),
                players=[Player(id="gm", role="gm"), Player(id="pk", name="Kev")],
            )
        )
        await w.token("kevin", "Kevin", (0, 0), owner="pk")
        effects = [
            PostChat(text="Round 1 begins."),
            PostChat(text="psst", whisper_to="gm", speaker="kevin"),
            AskPlayer(
                prompt="p3",
                player="pk",
                question="Fire?",
                options=["fire", "cancel"],
                default="fire",
            ),
        ]
        lines = log_lines(w.world, effects, first=5, at=100.0)
        assert [(ln.n, ln.kind, ln.to, ln.speaker) for ln in lines] == [
            (5, "chat", None, None),
            (6, "chat", "GM", "Kevin"),
            (7, "ask", "Kev", None),
        ]
        assert lines[2].text == "Fire? [fire / cancel] (question p3)"
        v = view(w)
        assert v.scene.tokens[0].x == 0 and v.world == "test-world" and v.seq == 7
        assert w.world.tokens["kevin"].cell == Cell(x=0, y=0)
