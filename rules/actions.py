"""The action economy: what each action costs in the world's game system, and the one place
every command, drag and rule spends through.

A turn's budget is kept by the encounter core (:class:`vttbridge.rules.encounter.Combatant`:
``half_actions``, ``free_used``, ``actions_taken``; :func:`vttbridge.rules.encounter.check_budget`
and :func:`vttbridge.rules.encounter.spend`). This module says what an action costs, by kind:

========  ==================================================================================
kind      what it spends
========  ==================================================================================
free      a free action, also out of turn
half      one unit of the turn's budget (a half action; "1 action" where a turn has two)
full      two units (a full action; "both actions")
move      one unit per stretch of distance, judged by the system's movement rule
none      nothing: not an action (a decision, a choice)
========  ==================================================================================

Each game system names its actions (``System.costs``: ``"attack"`` -> ``"half"``) and how chat
words a kind (``System.words``); a cost kind itself (``"half"``...) is accepted wherever an
action name is, so a script's ``!shoot`` costs ``"attack"`` or ``"half"`` alike. Everything that
spends goes through :func:`check` (raise, change nothing) and :func:`take` (spend): the built-in
commands through their rules, a script command's declared cost through the runtime, a drag
through the system's movement rule.

Before the budget, the system is asked who may act at all (``System.gates``, through
:func:`vttbridge.rules.encounter.may_act`): for every action, in the turn order or not, so a
character a system sits out (a surprised one) is refused whatever path his action takes.

A refusal says what is left, in the system's words: ``Kevin has only a half action left this
turn; a full action needs 2.``; ``Mint has only 1 action left this turn and can move 25 ft more
this round; a charge takes both actions.`` (``System.action_word``, ``System.words``,
``System.left``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from vttbridge.rules import systems
from vttbridge.rules.encounter import HALF_ACTIONS, ActionCost, check_budget, may_act, spend
from vttbridge.rules.outcome import RuleError
from vttbridge.rules.systems import Kind

if TYPE_CHECKING:
    from vttbridge.rules.encounter import Encounter

KINDS: tuple[Kind, ...] = ("free", "half", "full", "move", "none")

# -- action names every system shares -----------------------------------------------------------

ATTACK = "attack"
MOVE = "move"

ALIASES: dict[str, Kind] = {"action": "half", "both": "full", "both actions": "full"}
"""Other words for a kind (a system that counts two "actions" a turn, not half actions)."""


def costs(system: str) -> Mapping[str, Kind]:
    """Action name -> cost kind in ``system`` (an unknown system names none)."""
    try:
        return systems.get(system).costs
    except KeyError:
        return {}


def kind_of(system: str, action: str) -> Kind:
    """The cost kind of ``action`` (a name the system's ``costs`` give, a kind, or an alias) in
    ``system``. Raises ``unknown_action`` for anything else."""
    name = " ".join(action.lower().replace("-", " ").replace("_", " ").split())
    if name in KINDS:
        return name
    if name in ALIASES:
        return ALIASES[name]
    named = costs(system)
    kind = named.get(name)
    if kind is None:
        known = ", ".join([*KINDS[:3], *sorted(named)])
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
    try:
        words = systems.get(system).words
    except KeyError:
        words = systems.DEFAULT_WORDS
    return words[kind_of(system, action)]


def budgeted(enc: Encounter, actor: str) -> bool:
    """Whether ``actor``'s actions count against a turn budget: a combat is running and he is
    in its turn order. Anyone else (no combat, not in the order) acts freely."""
    cb = enc.combatants.get(actor)
    return enc.in_combat and cb is not None and not cb.out


def check(enc: Encounter, actor: str, action: str) -> None:
    """Raise ``RuleError`` (nothing changed) unless ``actor`` may take ``action`` now: the
    system lets him act (its gates, for everyone), and he is on his turn with enough of the
    budget left (free actions: also out of turn). Nothing more for anyone out of a budgeted turn
    (see :func:`budgeted`)."""
    kind = kind_of(enc.options.system, action)
    if kind != "none" and budgeted(enc, actor):
        _check(enc, actor, action, kind)  # the gates, then the budget
    else:
        may_act(enc, actor, kind)


def take(enc: Encounter, actor: str, action: str, *, what: str | None = None) -> bool:
    """Spend ``action``'s cost from ``actor``'s budget, recorded as ``what`` (default: the
    action's name) in ``actions_taken``; raise ``RuleError`` unchanged when he cannot. Returns
    whether anything was spent (nothing for ``none`` or out of a budgeted turn)."""
    kind = kind_of(enc.options.system, action)
    if kind == "none" or not budgeted(enc, actor):
        may_act(enc, actor, kind)
        return False
    taken_over = _check(enc, actor, action, kind)
    label = what or (MOVE if kind == "move" else action)
    unit = _unit(kind)
    cb = enc.combatants[actor]
    if taken_over:  # this turn's moves become part of the charge
        cb.actions_taken = [label if a == MOVE else a for a in cb.actions_taken]
        for _ in range(HALF_ACTIONS[unit] - taken_over):
            spend(enc, actor, "half", label)
        return True
    spend(enc, actor, unit, label, on_turn=unit != "free")
    return True


def _unit(kind: Kind) -> ActionCost:
    """What ``kind`` spends from the budget: a move spends half actions as it goes."""
    if kind == "move":
        return "half"
    if kind == "none":
        raise ValueError("an action of kind 'none' spends nothing")
    return kind


def _check(enc: Encounter, actor: str, action: str, kind: Kind) -> int:
    """:func:`check` for a budgeted actor; returns how many spent half actions (this turn's
    moves) the action takes over."""
    unit = _unit(kind)
    cb = enc.combatants[actor]
    taken_over = 0
    if unit == "full" and " ".join(action.lower().split()) in enc.system.takes_over_moves:
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
    """What is left of ``actor``'s turn, for chat: ``only a half action left this turn``, ``2
    actions left this turn`` (a system may say more: ``System.left``, ``...and can move 25 ft
    more this round``)."""
    own = enc.system.left
    if own is not None:
        return own(enc, actor)
    return f"{units_left(enc, actor)} this turn"


def units_left(enc: Encounter, actor: str) -> str:
    """``actor``'s budget left, in the system's unit: ``only a half action left``, ``a full
    action left``; where a turn counts actions, ``no actions left``, ``only 1 action left``,
    ``2 actions left``."""
    n = enc.combatants[actor].half_actions
    unit = enc.system.action_word
    if unit == "half action":
        return {0: "no actions", 1: "only a half action"}.get(n, "a full action") + " left"
    return ("no actions" if n == 0 else f"only 1 {unit}" if n == 1 else f"{n} {unit}s") + " left"


def refusal(enc: Encounter, actor: str, action: str, kind: Kind | None = None) -> str:
    """The sentence refusing ``action`` for want of budget: what is left and what it needs
    (``Kevin has only a half action left this turn; a full action needs 2.``; where a turn
    counts actions, ``Mint has only 1 action left this turn; a charge takes both actions.``)."""
    system = enc.system
    kind = kind or kind_of(system.name, action)
    has = f"{enc.name(actor)} has {left(enc, actor)}"
    if system.action_word == "half action":
        return f"{has}; a {kind} action needs {HALF_ACTIONS.get(kind, 1)}."
    name = " ".join(action.lower().split())
    if name in KINDS or name in ALIASES:
        return f"{has}; that takes {system.words[kind]}."
    article = "an" if name[:1] in "aeiou" else "a"
    return f"{has}; {article} {name} takes {system.words[kind]}."


__all__ = [
    "ALIASES",
    "ATTACK",
    "KINDS",
    "MOVE",
    "Kind",
    "budgeted",
    "check",
    "costs",
    "describe",
    "kind_of",
    "known",
    "left",
    "refusal",
    "take",
    "units_left",
]
