"""``vttbridge rules demo``: Kevin's corner Ready (Spycraft 2.0), played by the world
runtime with scripted dice, printed as the table would see it. No VTT, no network.

The cast: Dana (IC 25), Kevin (IC 22), Kevin's ally (IC 14), a guard (IC 10). Kevin readies a
Standard Attack with his pistol at the first person to come round the corner. His ally comes
round at IC 14: the Ready fires, Kevin's IC drops to 14, and he tries to hold his fire (Reflex
save DC 15; the die shows 17, +5 = 22). The guard comes round at IC 10 and triggers nothing:
the Ready has ended.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

from vttbridge.sdk import AdvanceTurn, AskPlayer, PostChat, Script, SetInitiative, UpdateToken, rect
from vttbridge.sdk.testing import WorldHarness

KEVIN_PLAYER = "p-kevin"
CORNER = rect(10, 4, 11, 6)


def _script() -> Script:
    script = Script("demo_corner", system="spycraft")
    script.region("corner", CORNER)
    return script


def _describe(effects: Iterable[object], names: dict[str, str]) -> list[str]:
    lines = []
    for e in effects:
        match e:
            case PostChat():
                who = (
                    "" if e.whisper_to is None else f"(to {names.get(e.whisper_to, e.whisper_to)}) "
                )
                for i, text in enumerate(e.text.splitlines()):
                    lines.append(f"  chat  {who if i == 0 else ' ' * len(who)}{text}")
            case AskPlayer():
                player = names.get(e.player, e.player)
                opts = " / ".join(e.options)
                lines.append(f"  ask   {player}: {e.question} [{opts}] (default {e.default})")
            case SetInitiative():
                lines.append(f"  init  {names.get(e.token, e.token)} -> IC {e.ic}")
            case AdvanceTurn():
                turn = names.get(e.token, e.token) if e.token else None
                lines.append(f"  turn  round {e.round}: {turn}" if turn else "  turn  combat over")
            case UpdateToken():
                if e.cell is not None:
                    lines.append(f"  move  {names.get(e.token, e.token)} to {e.cell.x},{e.cell.y}")
    return lines


async def play(out: Callable[[str], None] = print) -> WorldHarness:
    """Play the walkthrough, writing each step and its effects with ``out``."""
    names = {KEVIN_PLAYER: "Kevin's player", "gm": "the GM"}
    async with WorldHarness(_script(), system="spycraft", dice=[17]) as w:

        async def step(title: str, effects: Iterable[object]) -> None:
            out(title)
            for line in _describe(effects, names) or ["  (nothing visible)"]:
                out(line)

        await w.scene()
        cast: list[tuple[str, str, tuple[int, int], str | None, dict[str, Any]]] = [
            ("dana", "Dana", (2, 8), None, {"initiative": 4, "reflex": 1}),
            ("kevin", "Kevin", (6, 5), KEVIN_PLAYER, {"initiative": 3, "reflex": 5}),
            ("ally", "Ally", (14, 5), None, {"initiative": 1, "reflex": 2}),
            ("guard", "Guard", (14, 6), None, {"initiative": 0, "reflex": 0}),
        ]
        for tid, name, at, owner, stats in cast:
            names[tid] = name
            await w.token(tid, name, at, owner=owner, **stats)
        out("Kevin's corner ambush (Spycraft 2.0, Ready). The corner is columns 10-11, rows 4-6.")
        out("")
        await step(
            "The GM starts the combat (ICs 25, 22, 14, 10, as in the book)",
            await w.send(
                {
                    "type": "combat_started",
                    "tokens": ["dana", "kevin", "ally", "guard"],
                    "initiative": {"dana": 25, "kevin": 22, "ally": 14, "guard": 10},
                }
            ),
        )
        await step("GM: !next  (Dana's turn ends)", await w.gm_says("!next"))
        await step(
            "Kevin: !ready Standard Attack with pistol --when corner",
            await w.chat("!ready Standard Attack with pistol --when corner", token="kevin"),
        )
        await step("Ally moves round the corner (to 11,5) at IC 14", await w.move("ally", (11, 5)))
        if w.prompts:
            prompt = w.prompts[0]
            cancel = next(
                (o for o in prompt.options if o.lower().startswith(("cancel", "hold", "no"))),
                prompt.options[-1],
            )
            await step(
                f"Kevin's player answers: {cancel}  (the die shows 17: Reflex 17 + 5 = 22)",
                await w.answer(cancel),
            )
        await step("GM: !next  (the ally's turn ends)", await w.gm_says("!next"))
        await step(
            "Guard moves round the corner (to 11,6) at IC 10", await w.move("guard", (11, 6))
        )
        enc = w.encounter
        out("")
        order = ", ".join(f"{names[c]} {enc.combatants[c].ic}" for c in enc.order())
        out(f"Initiative now: {order}. Kevin's Ready is over; the guard set nothing off.")
        return w


def main() -> None:
    asyncio.run(play())
