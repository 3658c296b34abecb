"""Effects a VTT cannot carry out: what the bridge does instead of dropping them in silence.

The bridge asks the world's adapter for the native commands of every effect through
:func:`commands_for`. An effect whose class the adapter lists in ``declines`` is never handed
to its ``translate_out``; its fallback runs instead:

- :class:`AskPlayer`: the question goes to the GM, whispered in chat, naming the player it was
  for, the options, the default and how to answer for them (``!answer``, or the dashboard, which
  shows every open question). So does a question the adapter translates to no command at all: a
  question never vanishes. If the VTT cannot post chat either, the dashboard is where the GM
  sees it (logged).
- every other effect is dropped; ``docs/adapters.md`` says what the table loses with each.
"""

from __future__ import annotations

import logging

from vttbridge.adapters.base import Adapter, Command
from vttbridge.sdk.effects import AskPlayer, Effect, PostChat
from vttbridge.sdk.world import WorldView

log = logging.getLogger(__name__)

__all__ = ["commands_for", "question_for_the_gm"]


def commands_for(adapter: Adapter, effect: Effect, world: WorldView) -> list[Command]:
    """The native commands that carry out ``effect`` on ``adapter``'s VTT, or its fallback's
    when the adapter declines it (module docstring)."""
    if type(effect) not in adapter.declines:
        commands = adapter.translate_out(effect, world)
        if commands or not isinstance(effect, AskPlayer):
            return [c if isinstance(c, Command) else Command.model_validate(c) for c in commands]
        log.warning(
            "The %s adapter made no command for question %s (for %s); asking the GM instead.",
            adapter.name,
            effect.prompt,
            effect.player,
        )
    if not isinstance(effect, AskPlayer):
        return []
    told = question_for_the_gm(effect, world)
    if PostChat in adapter.declines:
        log.warning(
            "The %s adapter declines chat too: question %s waits on the dashboard.",
            adapter.name,
            effect.prompt,
        )
        return []
    return commands_for(adapter, told, world)


def question_for_the_gm(ask: AskPlayer, world: WorldView) -> PostChat:
    """The chat whisper that puts ``ask`` to the GM when the VTT cannot ask its player."""
    options = " / ".join(ask.options)
    timeout = f" in {ask.timeout:g} s" if ask.timeout else ""
    if ask.player == "gm":
        return PostChat(
            text=(
                f"Question {ask.prompt}: {ask.question} ({options}; {ask.default} by "
                f"default{timeout}.) Answer with !answer {ask.prompt} <option>."
            ),
            whisper_to="gm",
        )
    player = world.players.get(ask.player)
    who = (player.name if player is not None else "") or ask.player
    token = world.tokens.get(ask.token) if ask.token is not None else None
    about = f" about {token.display}" if token is not None else ""
    return PostChat(
        text=(
            f"Question {ask.prompt} for {who}{about} (this VTT cannot ask players): "
            f"{ask.question} ({options}; {ask.default} by default{timeout}.) Ask them, then "
            f"answer for them with !answer {ask.prompt} <option>, or on the dashboard."
        ),
        whisper_to="gm",
    )
