"""Running a chat command: the role it needs, its declared cost (checked before, spent after:
:mod:`vttbridge.sdk.economy`), its callback.
"""

from __future__ import annotations

import functools

from vttbridge.rules import systems
from vttbridge.rules.outcome import RuleError
from vttbridge.sdk import economy
from vttbridge.sdk.context import Context, WorldAccess
from vttbridge.sdk.effects import PostChat
from vttbridge.sdk.events import ChatCommand
from vttbridge.sdk.runtime.refusals import Refusals
from vttbridge.sdk.runtime.registry import Registry
from vttbridge.sdk.runtime.step import CurrentStep
from vttbridge.sdk.runtime.supervisor import Supervisor
from vttbridge.sdk.script import ROLE_RANK
from vttbridge.sdk.world import World


class CommandRunner:
    """Runs the ``!command`` a ``ChatCommand`` names."""

    def __init__(
        self,
        world: World,
        step: CurrentStep,
        registry: Registry,
        supervisor: Supervisor,
        refusals: Refusals,
        access: WorldAccess,
    ) -> None:
        self._world = world
        self._step = step
        self._registry = registry
        self._supervisor = supervisor
        self._refusals = refusals
        self._access = access

    async def run(self, cmd: ChatCommand, consumed: bool) -> None:
        """Run ``cmd``; ``consumed``: a trigger took it (an unknown command is then no
        mistake)."""
        c = self._registry.command(cmd.name)
        reply_to = cmd.player or "gm"
        emit = self._step.emit
        if c is None:
            if not consumed:
                emit(
                    PostChat(
                        text=f"Unknown command !{cmd.name}. Type !help for the list.",
                        whisper_to=reply_to,
                    )
                )
            return
        system = self._world.encounter.options.system
        if c.script.system is not None and c.script.system != system:
            emit(
                PostChat(
                    text=f"!{cmd.name} is a {_title(c.script.system)} command; this world plays "
                    f"{_title(system)}.",
                    whisper_to=reply_to,
                )
            )
            return
        if ROLE_RANK.get(cmd.role, 0) < ROLE_RANK[c.role]:
            who = "the GM" if c.role == "gm" else "players"
            emit(PostChat(text=f"Only {who} may use !{c.name}.", whisper_to=reply_to))
            return
        bill = None
        cost = c.costs(cmd)
        if cost is not None:  # checked before it runs, spent once it succeeded
            try:
                bill = economy.bill(self._world, cmd, cost, c.name)
            except RuleError as e:
                self._refusals.tell(e, reply_to)
                return
        ctx = Context(self._access, c.script, cmd)
        pay = None if bill is None else functools.partial(self._pay, bill, cmd)
        await self._supervisor.invoke(c, (cmd, ctx), command=cmd, then=pay)

    def _pay(self, bill: economy.Bill, command: ChatCommand) -> None:
        try:
            bill.settle(self._world.encounter)
        except RuleError as e:  # an async command that waited while the turn moved on
            self._refusals.tell(e, "gm", f"!{command.name}: nothing spent: {e.message}")


def _title(system: str) -> str:
    try:
        return systems.get(system).title
    except KeyError:
        return system
