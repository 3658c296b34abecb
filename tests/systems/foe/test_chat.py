"""FoE built-ins: moves checked against the budget, charge, jump, sneak, surprise."""

from vttbridge.rules.geometry import Cell
from vttbridge.sdk import Script, rect
from vttbridge.sdk.events import Player, SceneData, SceneSnapshot
from vttbridge.sdk.testing import WorldHarness
from vttbridge.systems.foe.rules.state import foe


async def fight(w: WorldHarness) -> None:
    await w.send(
        SceneSnapshot(
            scene=SceneData(id="s"), players=[Player(id="gm", role="gm"), Player(id="pm")]
        )
    )
    await w.token("mint", "Mint", (0, 0), owner="pm", disposition=1, move=25, agility=8)
    await w.token("raider", "Raider", (10, 0), disposition=-1, move=25)
    w.dice(90, 10)  # d100 initiative: Mint 90, the raider 10
    await w.gm_says("!init")
    assert w.encounter.active == "mint"


async def test_vtt_moves_within_budget_are_recorded():
    async with WorldHarness(system="foe") as w:
        await fight(w)
        out = await w.move("mint", (5, 0), player="pm")  # 25 ft: one move action
        assert [e.type for e in out] == ["movement_budget"]  # nothing else: no chat, no move
        cb = w.encounter.combatants["mint"]
        assert cb.moved_ft == 25 and cb.actions_taken == ["move"]
        out = await w.move("mint", (15, 0), player="pm")  # 50 more: 75 ft, a full run
        assert [e.type for e in out] == ["movement_budget"] and cb.moved_ft == 75


async def test_over_budget_move_is_reverted_and_reported():
    async with WorldHarness(system="foe") as w:
        await fight(w)
        out = await w.move("mint", (16, 0), player="pm")  # 80 ft > a 75 ft run
        assert w.moves(out)[0].cell == Cell(x=0, y=0) and not w.moves(out)[0].animate
        assert w.said("move refused and moved back", out, whisper_to="gm")
        assert w.said("Move refused", out, whisper_to="pm")
        assert w.world.tokens["mint"].cell == Cell(x=0, y=0)
        assert w.encounter.positions["mint"] == Cell(x=0, y=0)
        out = await w.move("raider", (9, 0), player="pm")  # out of turn
        assert w.said("not Raider's turn", out, whisper_to="gm")


async def test_a_refused_move_leaves_no_garbage_for_the_collector():
    """A refusal is an answer, made often (a drag one cell too far): once the move is
    refused the runtime lets go of the rule's error, whose traceback leads back to the frame
    that held it (a reference cycle of some ten objects, frames included, each refused
    move)."""
    import gc

    from vttbridge.rules.outcome import RuleError

    async with WorldHarness(system="foe") as w:
        await fight(w)
        gc.collect()
        gc.disable()  # what the refusals leave, only refcounting frees
        try:
            for _ in range(3):
                out = await w.move("mint", (16, 0), player="pm")  # 80 ft > a 75 ft run
                assert w.said("Move refused", out, whisper_to="pm")
            gc.set_debug(gc.DEBUG_SAVEALL)
            gc.collect()
            left = [o for o in gc.garbage if isinstance(o, RuleError)]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
        assert left == []


async def test_gm_moves_and_the_setting_keep_illegal_moves():
    async with WorldHarness(system="foe") as w:
        await fight(w)
        out = await w.move("raider", (9, 0), player="gm")  # the GM overrides
        assert not w.moves(out) and w.said("(kept)", out, whisper_to="gm")
        await w.gm_says("!set revert_over_budget false")
        out = await w.move("mint", (20, 0), player="pm")
        assert not w.moves(out) and w.world.tokens["mint"].cell == Cell(x=20, y=0)
        await w.gm_says("!set check_moves false")
        assert await w.move("mint", (40, 0), player="pm") == []  # unchecked: nothing counted


async def test_move_command_walks_waypoints():
    async with WorldHarness(system="foe") as w:
        await fight(w)
        out = await w.chat("!move 2,0 2,2", token="mint")
        assert w.moves(out)[0].cell == Cell(x=2, y=2)
        assert w.said("Mint moves 20 ft", out)
        out = await w.chat("!move 30,30", token="mint")
        assert w.said("can move", out, whisper_to="pm")
        out = await w.chat("!move", token="mint")
        assert w.said("Usage: !move", out, whisper_to="pm")


async def test_charge_runs_at_the_target_and_offers_the_attack():
    async with WorldHarness(system="foe") as w:
        await fight(w)
        out = await w.chat("!charge raider", token="mint")
        assert w.moves(out)[0].cell == Cell(x=9, y=0)
        ask = w.asks(out)[0]
        assert ask.options == ["raider", "no_attack"] and ask.player == "pm"
        out = await w.answer("raider")
        assert w.said("!charge-attack raider hit|miss", out)
        w.dice(*[3] * 6)
        out = await w.chat("!charge-attack raider hit --damage 6d6+5", token="mint")
        assert w.said("23", out)


async def test_jump_and_sneak():
    async with WorldHarness(system="foe") as w:
        await fight(w)
        out = await w.chat("!jump", token="mint")
        assert w.said("12.5 ft long", out)
        out = await w.chat("!jump gap 15", token="mint")
        assert w.said("can jump 12.5 ft", out, whisper_to="pm")
        out = await w.chat("!jump high x", token="mint")
        assert w.said("must be a number", out, whisper_to="pm")
        w.dice(10, 90)  # Sneak roll vs the raider's Perception
        out = await w.chat("!sneak", token="mint")
        assert w.said("sneaks", out)
        assert foe(w.encounter).sneak["mint"].active


async def test_surprise_command_and_wrong_system():
    async with WorldHarness(system="foe") as w:
        await w.token("mint", "Mint", (0, 0), owner="pm", disposition=1)
        await w.token("raider", "Raider", (9, 0), disposition=-1)
        w.dice(50)
        out = await w.gm_says("!surprise raider")
        assert w.said("Surprise!", out) and foe(w.encounter).surprised == ["mint"]
        out = await w.gm_says("!surprise raider --vs mint")
        assert w.said("already running", out, whisper_to="gm")
    async with WorldHarness() as w:
        out = await w.gm_says("!charge x")
        assert w.said("Fallout: Equestria command", out, whisper_to="gm")


async def test_attack_halves_a_drags_movement_and_rules_out_a_charge():
    async with WorldHarness(system="foe") as w:
        await fight(w)
        await w.chat("!attack raider", token="mint")
        out = await w.move("mint", (10, 0), player="pm")  # 50 ft: 2x speed
        assert w.said("Move refused: Mint can move 25 ft more this round", out, whisper_to="pm")
        assert w.world.tokens["mint"].cell == Cell(x=0, y=0)
        out = await w.chat("!charge raider", token="mint")
        assert w.said(
            "Mint has only 1 action left this turn and can move 25 ft more this round; a charge "
            "takes both actions.",
            out,
            whisper_to="pm",
        )
        out = await w.move("mint", (5, 0), player="pm")  # 1x: allowed
        assert [e.type for e in out] == ["movement_budget"]
        assert w.encounter.combatants["mint"].actions_taken == ["attack", "move"]


async def test_a_charge_declared_after_a_drag_is_judged_on_the_dragged_path():
    async with WorldHarness(system="foe") as w:
        await fight(w)
        await w.move("mint", (4, 0), (4, 1), (9, 1), player="pm")  # an L, ends by the raider
        out = await w.chat("!charge raider", token="mint")
        assert w.said("Mint's charge must run in a straight line.", out, whisper_to="pm")
        assert w.encounter.combatants["mint"].actions_taken == ["move", "move"]
    async with WorldHarness(system="foe") as w:
        await fight(w)
        await w.gm_says("!stats raider move=25")
        await w.move("raider", (5, 0), player="gm")  # the GM moves him (kept, not his turn)
        await w.move("mint", (4, 0), player="pm")  # 20 ft straight, ends next to him
        out = await w.chat("!charge raider", token="mint")
        assert w.said("Mint charges 20 ft!", out)
        assert w.asks(out)[0].options == ["raider", "no_attack"]
        assert not w.moves(out)  # the drag already put him there
        assert w.encounter.combatants["mint"].actions_taken == ["charge", "charge"]


async def test_sneak_under_a_named_field_and_a_burrowing_hellhound():
    async with WorldHarness(system="foe") as w:
        await fight(w)
        await w.gm_says("!stats mint sneak_skill=40")
        await w.gm_says("!stats raider perception_skill=50")
        w.dice(60, 30)
        out = await w.chat("!sneak --field zebra cloak", token="mint")
        assert w.said("Mint rolls Sneak: 60 against 65", out)  # 40 - 25 + 50
        assert w.said("Raider rolls Perception: 30 against 25", out)  # 50, 2 MFD steps: x 1/2
        assert w.said("Mint sneaks under a zebra cloak: up to 25 ft", out)  # full speed
        out = await w.chat("!sneak --field custom --bonus 30", token="mint")
        assert w.said("A custom stealth field needs both its bonus and its MFD.", out)
        out = await w.chat("!sneak --bonus 30", token="mint")
        assert w.said("--bonus and --mfd go with --field", out)
    async with WorldHarness(system="foe") as w:
        await w.scene(players=[Player(id="gm", role="gm")])
        await w.token("hound", "Hellhound", (0, 0), disposition=-1, move=30, sneak_skill=40)
        await w.token("mint", "Mint", (8, 0), disposition=1, perception_skill=50)
        await w.gm_says("!stats hound burrowing=true underground=true")
        w.dice(90, 10)
        await w.gm_says("!init")
        w.dice(60, 30)
        out = await w.gm_says("!sneak", token="hound")  # no flag: its burrow
        assert w.said("Hellhound rolls Sneak: 60 against 65", out)
        assert w.said("Mint rolls Perception: 30 against 25", out)
        assert w.said("Hellhound sneaks under the ground: up to 30 ft", out)
        await w.token("dog", "Sand dog", (1, 0), disposition=-1, underground=True)
        w.dice(60, 30)
        await w.gm_says("!next")  # Mint
        await w.gm_says("!next")  # round 2: the hellhound again
        out = await w.gm_says("!sneak", token="hound")  # another creature in its tunnel
        assert w.said("Hellhound rolls Sneak: 60 against 40", out)
        assert w.said("Hellhound sneaks: up to 15 ft", out)


async def test_a_tunnel_region_makes_a_burrower_underground():
    tunnels = Script("tunnels", system="foe")
    tunnels.region("Tunnel east", rect(0, 0, 3, 0))
    async with WorldHarness(tunnels, system="foe") as w:
        await w.token("hound", "Hellhound", (0, 0), disposition=-1, sneak_skill=40, burrowing=True)
        await w.token("mint", "Mint", (8, 0), disposition=1, perception_skill=50)
        w.dice(60, 30)
        out = await w.gm_says("!hide", token="hound")  # outside combat: a roll, nothing spent
        assert w.said("Hellhound rolls Sneak: 60 against 65", out)
        await w.token("pup", "Pup", (3, 0), disposition=-1)  # in the same tunnel
        w.dice(60, 30)
        out = await w.gm_says("!hide", token="hound")
        assert w.said("Hellhound rolls Sneak: 60 against 40", out)


async def test_a_jump_leg_of_a_vtt_drag_is_judged_by_the_jump_rule():
    from vttbridge.sdk.events import TokenMoved

    async with WorldHarness(system="foe") as w:
        await fight(w)
        start, end = Cell(x=0, y=0), Cell(x=3, y=0)
        leap = TokenMoved(
            token="mint", from_cell=start, to_cell=end, path=[start, end], actions=["jump"],
            player="pm",
        )  # fmt: skip
        out = await w.send(leap)  # 15 ft standing: Mint (move 25) jumps 12.5 ft at most
        assert w.said(
            "Move refused: Mint can jump 12.5 ft; that jump is 15 ft.", out, whisper_to="pm"
        )
        assert w.world.tokens["mint"].cell == Cell(x=0, y=0)
        # a 25 ft straight run, then the same 15 ft jump: a running start (17.5 ft)
        path = [Cell(x=0, y=0), Cell(x=5, y=0), Cell(x=8, y=0)]
        run = TokenMoved(
            token="mint", from_cell=path[0], to_cell=path[-1], path=path,
            actions=["walk", "jump"], player="pm",
        )  # fmt: skip
        await w.send(run)
        assert w.world.tokens["mint"].cell == Cell(x=8, y=0)
        assert w.encounter.combatants["mint"].moved_ft == 40  # the flight is movement too
