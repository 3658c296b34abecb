"""What a trigger typed in chat may name, and how a fired trigger reads to the players.

A Ready's ``--when`` (``!ready shoot --when hostile_at_corner``) names one of the world's
regions, a script's condition, ``within <ft>``, a chat command or an action; anything else is a
trigger only the GM can see, fired by hand with ``!trigger``. This module keeps that vocabulary
honest:

- :func:`asks`: ``--when ?`` asks what the world knows, and :func:`listing` answers;
- :func:`free_text`: a trigger that names nothing known. Text close to a known name
  (``hostile_at_cornr``) is refused with "did you mean", so a typo never quietly becomes a
  trigger only the GM can fire; quoted (``--when "the alarm rings"``) or after ``gm:``
  (``--when gm: the alarm rings``) any text is a trigger the GM fires;
- :func:`happened`: the sentence players read when a trigger fires ("Thug moves to 10,5: a
  hostile comes round the corner"), never an event's type name.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from vttbridge.sdk.checks import close_match
from vttbridge.sdk.errors import UsageError
from vttbridge.sdk.events import (
    ActionDeclared,
    BaseEvent,
    ChatCommand,
    ConditionSignalled,
    DamageDealt,
    TokenMoved,
)
from vttbridge.sdk.triggers import SPEC_ADAPTER, ConditionSpec

if TYPE_CHECKING:
    from vttbridge.sdk.context import Context
    from vttbridge.sdk.script import Condition

__all__ = ["FREE_TEXT", "KEYWORDS", "asks", "conditions", "free_text", "happened", "listing"]

FREE_TEXT = "gm:"
"""The prefix that makes any text a trigger the GM fires (``--when gm: the alarm rings``)."""
KEYWORDS = ("enters", "within", "action", "cond")
"""The words a ``--when`` may start with, before a name or a distance."""
_QUOTED = re.compile(r"--when(?:=|\s+)[\"']")


def asks(cmd: ChatCommand) -> bool:
    """Whether ``cmd`` asks what ``--when`` knows (``--when ?``): a question, which costs
    nothing and declares nothing."""
    argv = cmd.argv
    return "--when=?" in argv or any(
        a == "--when" and argv[i + 1 : i + 2] == ["?"] for i, a in enumerate(argv)
    )


def conditions(ctx: Context) -> dict[str, Condition]:
    """The named conditions loaded in the world (the last loaded wins, as in the runtime)."""
    found: dict[str, Condition] = {}
    for script in ctx.scripts():
        found.update(script.conditions)
    return found


def listing(ctx: Context) -> str:
    """The triggers ``--when`` knows in this world, in one whisper."""
    regions = ", ".join(sorted(ctx.world.regions)) or "none yet"
    conds = conditions(ctx)
    named = "; ".join(f"{n} ({c.description})" for n, c in sorted(conds.items())) or "none loaded"
    return (
        f"--when takes: a region ({regions}), or enters <region>; a condition ({named}), or "
        "cond <name>; within <ft> (a token comes that close); !<command> (someone types it); "
        'action <name> (someone declares it). Anything else, quoted (--when "the alarm '
        f'rings") or after {FREE_TEXT} (--when {FREE_TEXT} the alarm rings), waits for the GM '
        "to fire it with !trigger."
    )


def free_text(cmd: ChatCommand, text: str, ctx: Context) -> str:
    """``text``, a ``--when`` naming no region or condition, as the description of a trigger
    the GM fires. Raises :class:`UsageError` (nothing declared) when it is close to a name the
    world knows and was neither quoted nor written after ``gm:``."""
    raw = text.strip()
    if raw.lower().startswith(FREE_TEXT):
        said = raw[len(FREE_TEXT) :].strip()
        if not said:
            raise UsageError(f"--when {FREE_TEXT} needs the trigger in words.")
        return said
    if _QUOTED.search(cmd.args):
        return raw
    suggestion = _suggest(raw, ctx)
    if suggestion is None:
        return raw
    raise UsageError(
        f"No region or condition is called {raw!r}: did you mean {suggestion!r}? Nothing was "
        f'declared. For a trigger the GM fires by hand, quote it (--when "{raw}") or write '
        f"--when {FREE_TEXT} {raw}; !ready --when ? lists the triggers this world knows."
    )


def _suggest(text: str, ctx: Context) -> str | None:
    """The known trigger ``text`` was probably meant to be, or None."""
    names = [*ctx.world.regions, *conditions(ctx)]
    match = close_match(text.replace(" ", "_"), names) or close_match(text, names)
    if match is not None:
        return match
    head, _, rest = text.partition(" ")
    if rest:
        word = close_match(head, KEYWORDS)
        if word is not None and word != head.lower():
            return f"{word} {rest}"
    return None


def happened(event: BaseEvent, ctx: Context) -> str:
    """What set a trigger off, as players read it: who did what, and the condition's own
    description when a named condition fired (``ctx.trigger`` is its watch)."""
    token = getattr(event, "token", None)
    who = ctx.name(token) if token else ""
    match event:
        case TokenMoved():
            what = f"{who} moves to {event.to_cell.x},{event.to_cell.y}"
        case ChatCommand():
            what = f"{who or 'someone'} uses !{event.name}"
        case ActionDeclared():
            verb = "attempts" if event.phase == "attempt" else "completes"
            what = f"{who or 'someone'} {verb} {event.action}"
        case DamageDealt():
            what = f"{who} takes {event.amount} damage"
        case _:
            what = who
    spec = SPEC_ADAPTER.validate_python(ctx.trigger.spec) if ctx.trigger is not None else None
    name = spec.name if isinstance(spec, ConditionSpec) else None
    if name is None and isinstance(event, ConditionSignalled):
        name = event.condition
    if name is None:
        return what or "something happens"
    cond = conditions(ctx).get(name)
    meaning = _sentence_case(cond.description if cond else name.replace("_", " "))
    return f"{what}: {meaning}" if what else meaning


def _sentence_case(text: str) -> str:
    """``"A hostile..."`` -> ``"a hostile..."`` (mid-sentence), leaving ``"GM"`` alone."""
    if len(text) > 1 and text[0].isupper() and not text[1].isupper():
        return text[0].lower() + text[1:]
    return text
