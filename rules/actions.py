"""The action economy: what each action costs in each system, and the one place every command,
drag and rule spends through.

A turn's budget is kept by the encounter core (:class:`vttbridge.rules.encounter.Combatant`:
``half_actions``, ``free_used``, ``actions_taken``; :func:`vttbridge.rules.encounter.check_budget`
and :func:`vttbridge.rules.encounter.spend`). This module says what an action costs:

========  =====================================  ==========================================
kind      Spycraft 2.0                           Fallout: Equestria
========  =====================================  ==========================================
free      a free action, also out of turn        the same (hiding: once per combat action)
half      a half action (2 a turn)               one action (2 a turn, 1 in a surprise round)
full      a full action (both half actions)      both actions
move      --                                     one action per move speed of distance,
                                                 judged by :mod:`vttbridge.rules.foe.movement`
none      not an action (a decision, a choice)   the same
========  =====================================  ==========================================

The table :data:`COSTS` names the actions of each system; a cost kind itself (``"half"``...)
is accepted wherever an action name is, so a script's ``!shoot`` costs ``"attack"`` or
``"half"`` alike. Everything that spends goes through :func:`check` (raise, change nothing)
and :func:`take` (spend): the built-in commands through their rules, a script command's declared
cost through the runtime, a drag through :func:`vttbridge.rules.foe.movement.move`.

Decisions where the texts are silent:

- The named action of a Spycraft Ready is a half action paid with the Ready (its full action):
  firing it spends nothing. A Ready may not name an action the table knows as a full action.
- A FoE charge takes both actions, but moves already made this turn (and nothing else) count
  toward it: a drag followed by ``!charge`` is judged as the charge's run
  (:func:`vttbridge.rules.foe.charge.charge_dragged`).
- A refusal says what is left: ``Kevin has only a half action left this turn; a full action
  needs 2.``; in FoE with the movement: ``Mint has only 1 action left this turn and can move
  25 ft more this round; a charge takes both actions.``
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from vttbridge.rules.outcome import RuleError

if TYPE_CHECKING:
    from vttbridge.rules.encounter import Encounter

# The encounter core (the budget) is imported at the bottom: importing it runs the system
# packages, whose rule modules read this module's names (``actions.MOVE``) as they load.

Kind = Literal["free", "half", "full", "move", "none"]
KINDS: tuple[Kind, ...] = ("free", "half", "full", "move", "none")

# -- the actions each system names ------------------------------------------------------------

ATTACK = "attack"
MOVE = "move"
READY = "ready"
READIED = "readied action"
STAND_OFF = "stand off"
JOIN_STAND_OFF = "join stand off"
CHARGE = "charge"
SNEAK = "sneak"
HIDE = "hide"
DODGE = "dodge"
SNEAK_ATTACK = "sneak attack"

COSTS: dict[str, dict[str, Kind]] = {
    "spycraft": {
        ATTACK: "half",
        READY: "full",
        READIED: "none",  # a half action, paid with the Ready
        STAND_OFF: "free",  # an initiative action, out of turn
        JOIN_STAND_OFF: "half",
        "delay": "none",  # only before acting; moves the IC, spends nothing
        "end ready": "none",
        "surrender": "none",  # a decision, not an action
        "permit": "none",
    },
    "foe": {
        ATTACK: "half",
        MOVE: "move",
        CHARGE: "full",
        SNEAK: "half",
        HIDE: "free",
        DODGE: "half",
        SNEAK_ATTACK: "half",
        "charge attack": "none",  # part of the charge
        "jump": "none",  # a judgment; the flight is an ordinary move
        "stop sneaking": "none",
        "hold defense": "none",  # forfeits a sneak action's movement
    },
}
"""Action name -> cost kind, per system. The kinds themselves are accepted as names too."""

ALIASES: dict[str, Kind] = {"action": "half", "both": "full", "both actions": "full"}
"""Other words for a kind (FoE counts "actions", not half actions)."""

_WORDS: dict[str, dict[str, str]] = {
    "spycraft": {
        "free": "a free action",
        "half": "a half action",
        "full": "a full action",
        "move": "a half action",
        "none": "no action",
    },
    "foe": {
        "free": "a free action",
        "half": "1 action",
        "full": "both actions",
        "move": "1 action per move speed moved",
        "none": "no action",
    },
}


def kind_of(system: str, action: str) -> Kind:
    """The cost kind of ``action`` (a name from :data:`COSTS`, a kind, or an alias) in
    ``system``. Raises ``unknown_action`` for anything else."""
    name = " ".join(action.lower().replace("-", " ").replace("_", " ").split())
    if name in KINDS:
        return name  # type: ignore[return-value]
    if name in ALIASES:
        return ALIASES[name]
    kind = COSTS.get(system, {}).get(name)
    if kind is None:
        known = ", ".join([*KINDS[:3], *sorted(COSTS.get(system, {}))])
        raise RuleError(
            "unknown_action", f"No action {action!r} in {system}; costs are: {known}.", action=name
        )
    return kind


def known(system: str, action: str) -> bool:
    """Whether :func:`kind_of` knows ``action`` in ``system``."""
    try:
        kind_of(system, action)
    except RuleError:
        return False
    return True


def describe(system: str, action: str) -> str:
    """What ``action`` costs, for chat: ``a half action``, ``both actions``..."""
    return _WORDS.get(system, _WORDS["spycraft"])[kind_of(system, action)]


def budgeted(enc: Encounter, actor: str) -> bool:
    """Whether ``actor``'s actions count against a turn budget: a combat is running and he is
    in its turn order. Anyone else (no combat, not in the order) acts freely."""
    cb = enc.combatants.get(actor)
    return enc.in_combat and cb is not None and not cb.out


def check(enc: Encounter, actor: str, action: str) -> None:
    """Raise ``RuleError`` (nothing changed) unless ``actor`` may take ``action`` now: on his
    turn with enough of the budget left (free actions: also out of turn). Free to anyone out of
    a budgeted turn (see :func:`budgeted`)."""
    kind = kind_of(enc.options.system, action)
    if kind != "none" and budgeted(enc, actor):
        _check(enc, actor, action, kind)


def take(enc: Encounter, actor: str, action: str, *, what: str | None = None) -> bool:
    """Spend ``action``'s cost from ``actor``'s budget, recorded as ``what`` (default: the
    action's name) in ``actions_taken``; raise ``RuleError`` unchanged when he cannot. Returns
    whether anything was spent (nothing for ``none`` or out of a budgeted turn)."""
    kind = kind_of(enc.options.system, action)
    if kind == "none" or not budgeted(enc, actor):
        return False
    taken_over = _check(enc, actor, action, kind)
    label = what or (MOVE if kind == "move" else action)
    unit = "half" if kind == "move" else kind
    cb = enc.combatants[actor]
    if taken_over:  # this turn's moves become part of the charge
        cb.actions_taken = [label if a == MOVE else a for a in cb.actions_taken]
        for _ in range(HALF_ACTIONS[unit] - taken_over):
            spend(enc, actor, "half", label)
        return True
    spend(enc, actor, unit, label, on_turn=unit != "free")
    return True


def _check(enc: Encounter, actor: str, action: str, kind: Kind) -> int:
    """:func:`check` for a budgeted actor; returns how many spent half actions (this turn's
    moves) the action takes over."""
    unit = "half" if kind == "move" else kind
    cb = enc.combatants[actor]
    taken_over = 0
    if unit == "full" and _takes_over_moves(enc, action):
        moves = cb.actions_taken.count(MOVE)
        if moves == len(cb.actions_taken):
            taken_over = moves
    try:
        check_budget(enc, actor, unit, on_turn=unit != "free", taken_over=taken_over)
    except RuleError as e:
        if e.code != "no_budget" or unit == "free":
            raise
        raise RuleError(
            "no_budget", refusal(enc, actor, action, kind), left=cb.half_actions, needs=kind
        ) from None
    return taken_over


def left(enc: Encounter, actor: str) -> str:
    """What is left of ``actor``'s turn, for chat: ``only a half action left this turn``;
    FoE: ``only 1 action left this turn and can move 25 ft more this round``."""
    n = enc.combatants[actor].half_actions
    if enc.options.system != "foe":
        return {0: "no actions", 1: "only a half action"}.get(
            n, "a full action"
        ) + " left this turn"
    text = ("no actions" if n == 0 else "only 1 action" if n == 1 else f"{n} actions") + " left"
    from vttbridge.rules.foe.movement import (
        movement_allowed,  # FoE's own rule; it imports this module
    )

    feet = movement_allowed(enc, actor)
    if 0 < feet < float("inf"):
        return f"{text} this turn and can move {feet:g} ft more this round"
    return f"{text} this turn"


def refusal(enc: Encounter, actor: str, action: str, kind: Kind | None = None) -> str:
    """The sentence refusing ``action`` for want of budget: what is left and what it needs."""
    system = enc.options.system
    kind = kind or kind_of(system, action)
    has = f"{enc.name(actor)} has {left(enc, actor)}"
    if system != "foe":
        return f"{has}; a {kind} action needs {HALF_ACTIONS.get(kind, 1)}."
    name = " ".join(action.lower().split())
    if name in KINDS or name in ALIASES:
        return f"{has}; that takes {_WORDS['foe'][kind]}."
    article = "an" if name[:1] in "aeiou" else "a"
    return f"{has}; {article} {name} takes {_WORDS['foe'][kind]}."


def _takes_over_moves(enc: Encounter, action: str) -> bool:
    """A FoE charge: moves already made this turn count toward its two actions."""
    return enc.options.system == "foe" and " ".join(action.lower().split()) == CHARGE


__all__ = [
    "ALIASES",
    "COSTS",
    "KINDS",
    "Kind",
    "budgeted",
    "check",
    "describe",
    "kind_of",
    "known",
    "left",
    "refusal",
    "take",
]


from vttbridge.rules.encounter import HALF_ACTIONS, check_budget, spend  # noqa: E402
