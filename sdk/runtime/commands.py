"""Running a chat command: the role it needs, its declared cost (checked before, spent after:
:mod:`vttbridge.sdk.economy`), its callback.
"""

from __future__ import annotations

from vttbridge.rules.outcome import RuleError
from vttbridge.sdk import economy
from vttbridge.sdk.context import Context
from vttbridge.sdk.effects import (
    PostChat,
)
from vttbridge.sdk.events import (
    ChatCommand,
)
from vttbridge.sdk.script import (
    ROLE_RANK,
)


class CommandRunner:
    """Runs the ``!command`` a ``ChatCommand`` names."""

    # -- commands --------------------------------------------------------------------------
    async def _run_command(self, cmd: ChatCommand, consumed: bool) -> None:
        c = self._commands.get(cmd.name)
        reply_to = cmd.player or "gm"
        if c is None:
            if not consumed:
                self.emit(
                    PostChat(
                        text=f"Unknown command !{cmd.name}. Type !help for the list.",
                        whisper_to=reply_to,
                    )
                )
            return
        if ROLE_RANK.get(cmd.role, 0) < ROLE_RANK[c.role]:
            who = "the GM" if c.role == "gm" else "players"
            self.emit(PostChat(text=f"Only {who} may use !{c.name}.", whisper_to=reply_to))
            return
        bill = None
        cost = c.costs(cmd)
        if cost is not None:  # checked before it runs, spent once it succeeded
            try:
                bill = economy.bill(self.world, cmd, cost, c.name)
            except RuleError as e:
                self.emit(PostChat(text=e.message, whisper_to=reply_to))
                return
        await self._invoke(c, (cmd, Context(self, c.script, cmd)), command=cmd, bill=bill)

    def _pay(self, bill: economy.Bill, command: ChatCommand) -> None:
        try:
            bill.settle(self.world.encounter)
        except RuleError as e:  # an async command that waited while the turn moved on
            self.emit(
                PostChat(text=f"!{command.name}: nothing spent: {e.message}", whisper_to="gm")
            )
