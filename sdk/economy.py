"""Chat commands and the rules' action economy (:mod:`vttbridge.rules.actions`): who a command acts
for, the check before a command with a declared cost runs, and the spend after it succeeded.

``@script.command("shoot", cost="half")`` (a cost kind, or an action the economy names, such as
``"attack"``) makes the runtime:

1. find the command's actor: the token named by ``--as <token>``, else the token the player
   speaks as, else the player's only token (no actor: nothing is checked or spent);
2. in combat, ask the game system whether the actor may act at all (its gates: a surprised
   character sits the surprise round out, in the turn order or not), then, for an actor in the
   turn order, check the cost before the callback runs: a refusal ("Kevin has only a half action
   left this turn; a full action needs 2.", "Guard is surprised and sits out the surprise
   round.") is whispered to the player and the callback does not run;
3. spend it once the callback has returned without an error; a callback that raises
   (:class:`sdk.UsageError`, :class:`vttbridge.rules.outcome.RuleError`, anything) spends nothing. A
   callback whose rule call already spent from the actor's budget (a built-in's rule: ``!ready``
   spends its full action itself) is not charged twice.

Outside combat nothing is checked or spent; for a token not in the turn order, only the
system's gates are asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from vttbridge.rules import actions
from vttbridge.rules.encounter import Encounter, may_act

if TYPE_CHECKING:
    from vttbridge.sdk.events import ChatCommand
    from vttbridge.sdk.world import World


def command_actor(cmd: ChatCommand, world: World) -> str | None:
    """The token ``cmd`` acts for, or None: ``--as <token>`` (a token the player controls),
    else the token spoken as, else the player's only token."""
    argv = cmd.argv if "--as" in cmd.args else ()
    ref: str | None = None
    for i, arg in enumerate(argv):
        if arg == "--as" and i + 1 < len(argv):
            ref = argv[i + 1]
        elif arg.startswith("--as="):
            ref = arg[5:]
    if ref is None:
        ref = cmd.token
    if ref is not None:
        try:
            tid = world.token(ref).id
        except KeyError:
            return None
    else:
        owned = [t.id for t in world.tokens.values() if cmd.player and cmd.player in t.owners]
        if len(owned) != 1:
            return None
        tid = owned[0]
    return tid if world.may_control(cmd.player, cmd.role, tid) else None


def mark(enc: Encounter, actor: str) -> tuple[int, int, int]:
    """What of ``actor``'s budget is spent: changes whenever anything is."""
    cb = enc.combatants[actor]
    return (cb.half_actions, cb.free_used, len(cb.actions_taken))


@dataclass(slots=True)
class Bill:
    """A command's cost, checked and not yet spent."""

    actor: str
    cost: str
    what: str
    mark: tuple[int, int, int]

    def settle(self, enc: Encounter) -> None:
        """Spend the cost, unless the command already spent from the actor's budget. Raises
        ``RuleError`` when the budget no longer allows it (a callback that waited while the
        turn moved on)."""
        if actions.budgeted(enc, self.actor) and mark(enc, self.actor) == self.mark:
            actions.take(enc, self.actor, self.cost, what=self.what)


def bill(world: World, cmd: ChatCommand, cost: str, what: str) -> Bill | None:
    """Check ``cost`` for ``cmd``'s actor (raises ``RuleError``, nothing changed) and return the
    bill to settle once the command succeeded; None when there is nothing to spend (no combat,
    no actor in the turn order, a cost this world's system does not name)."""
    enc = world.encounter
    if not enc.in_combat:
        return None
    actor = command_actor(cmd, world)
    system = enc.options.system
    if actor is None or not actions.known(system, cost):
        return None
    kind = actions.kind_of(system, cost)
    if kind in ("none", "move") or not actions.budgeted(enc, actor):
        # nothing to spend (or a distance only the rule that moves can judge), but the system
        # still says whether he may act at all: a surprised character outside the turn order
        may_act(enc, actor, kind)
        return None
    actions.check(enc, actor, cost)
    return Bill(actor, cost, what, mark(enc, actor))


__all__ = ["Bill", "bill", "command_actor", "mark"]
