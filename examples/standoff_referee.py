"""A stand off refereed by a script (Spycraft 2.0).

The GM leaves the NPCs' decisions to this script:

- when a special NPC is attacked and may stand off, it does so while it has 2 or more action
  dice left (it keeps its last one for an emergency);
- when an NPC cracks, it surrenders unless it is a fanatic (``!fanatic <token>`` marks one,
  kept in the script's store so a reload or restart does not forget), who chooses to be
  attacked;
- at the start of every round it posts the stand off's stress board;
- ``!standoff-status`` whispers the board on demand.

Players still answer their own prompts. Run it with
``vttbridge serve --script examples/standoff_referee.py``.
"""

from __future__ import annotations

from vttbridge.sdk import ChatCommand, Context, PromptOpened, RoundStarted, Script, UsageError
from vttbridge.systems.spycraft.rules.standoff import active_standoffs

script = Script("standoff_referee", system="spycraft")


def board(ctx: Context) -> str:
    lines = []
    for so in active_standoffs(ctx.encounter):
        sides = []
        for side in so.sides:
            people = []
            for actor in side:
                ch = ctx.encounter.characters[actor]
                flag = " (surrendered)" if actor in so.surrendered else ""
                people.append(f"{ch.display} stress {ch.stress}/{ch.wisdom}{flag}")
            sides.append(", ".join(people))
        lines.append(f"Stand off {so.id}: " + "  vs  ".join(sides))
    return "\n".join(lines)


@script.on(PromptOpened)
def npc_decides(event: PromptOpened, ctx: Context) -> None:
    """Answer the rules' questions about NPCs (tokens no player owns)."""
    if event.player != "gm" or event.actor not in ctx.tokens:
        return
    ch = ctx.encounter.characters[event.actor]
    if event.kind == "standoff_offer":
        choice = "stand_off" if ch.action_dice >= 2 else "take_attack"
    elif event.kind == "standoff_crack":
        fanatics = ctx.store.setdefault("fanatics", [])
        choice = "be_attacked" if event.actor in fanatics else "surrender"
    else:
        return
    ctx.say(f"(referee) {ch.display}: {choice.replace('_', ' ')}.")
    ctx.answer(event.prompt, choice)


@script.on(RoundStarted)
def post_board(event: RoundStarted, ctx: Context) -> None:
    text = board(ctx)
    if text:
        ctx.say(f"Round {event.round} stress board:\n{text}")


@script.command("standoff-status", usage="!standoff-status", help="The stand offs' stress board.")
def status(cmd: ChatCommand, ctx: Context) -> None:
    ctx.reply(board(ctx) or "No stand off in progress.")


@script.command(
    "fanatic",
    usage="!fanatic <token>",
    role="gm",
    help="Mark an NPC who would rather be shot than surrender.",
)
def fanatic(cmd: ChatCommand, ctx: Context) -> None:
    if len(cmd.argv) != 1:
        raise UsageError()
    tok = ctx.token(cmd.argv[0])
    fanatics = ctx.store.setdefault("fanatics", [])
    if tok.id not in fanatics:
        fanatics.append(tok.id)
    ctx.reply(f"{tok.display} will not surrender.")
