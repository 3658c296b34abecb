"""A raider ambush on a road (Fallout: Equestria): a surprise round a script starts.

Raiders hide (hidden hostile tokens) beside the road; the cells of the road between them are
the ``kill_zone``. When a friendly pony walks into it and no combat is running, the script
reveals the raiders and starts combat with a surprise round: the raiders attack, and only the
ponies with the Quick Witted perk act too; the others sit out (their moves are refused) and are
open to a sneak attack critical. After that round everyone re-rolls initiative (⚙
``surprise_after``) and fights with two actions.

The script also asks the GM, with a 30 second timeout, whether the raiders open fire at once
or let the ponies walk deeper in (``wait``): an example of an async callback asking a question
while the world carries on.
"""

from __future__ import annotations

from vttbridge.sdk import Context, RuleError, Script, TokenMoved, rect
from vttbridge.systems.foe.rules.surprise import start_surprise_round

script = Script("foe_ambush", system="foe")
script.region("kill_zone", rect(8, 0, 12, 2))


@script.on_enter("kill_zone")
async def spring_the_trap(event: TokenMoved, ctx: Context) -> None:
    enc = ctx.encounter
    pony = ctx.tokens[event.token]
    if enc.in_combat or pony.disposition <= 0 or ctx.store.get("sprung"):
        return
    raiders = [t.id for t in ctx.tokens.values() if t.disposition < 0 and t.hidden]
    if not raiders:
        return
    answer = await ctx.ask(
        "gm",
        f"{pony.display} walks into the kill zone. Open fire?",
        ["fire", "wait"],
        default="fire",
        timeout=30,
    )
    if answer != "fire" or enc.in_combat:
        return
    ctx.store["sprung"] = True
    for r in raiders:
        ctx.update_token(r, hidden=False)
    ponies = [t.id for t in ctx.tokens.values() if t.disposition > 0]
    try:
        ctx.rule(start_surprise_round, raiders, ponies)
    except RuleError as e:
        ctx.tell_gm(f"No ambush: {e.message}")
