"""Spycraft 2.0 Ready (``docs/rules.md`` "Ready", rules 1-6).

A Ready is a full action on the character's turn: he names one half action and a trigger, and
his turn ends. The runtime decides when a trigger has occurred and says so through
:func:`trigger_occurred`; the rules then lower his IC to the current count when that is lower
(rule 2, never raising it) and ask him, as a :class:`~vttbridge.rules.outcome.Choice` of kind
``"ready_cancel"``, whether he fires or tries to cancel. The answer comes back through
:func:`resolve_trigger` (rule 3). A Ready whose trigger does not occur in the declaring round
carries over and expires when the count reaches his IC in the following round (rule 4);
ending it voluntarily needs a Reflex save (rule 5).

The flow a runtime follows::

    ready.declare(enc, "kevin", "Standard Attack with pistol", "someone rounds the corner",
                  roller)                                   # his turn ends
    ready.trigger_occurred(enc, "kevin", roller, by="bob")  # -> Choice "ready_cancel"
    ready.resolve_trigger(enc, "kevin", "fire", roller)     # -> Happened "ready_fired"

``ready_fired`` carries ``timing``: ``"attempt"`` means the readied action happens before the
triggering task (the runtime holds the task until the action is done), ``"completion"`` means it
follows the task. Whether a character can react to an attempt is the GM's call per Ready, made
when it is declared (rule 1).

Decisions where the text is silent:

- A trigger reported for a character who has no Ready (it fired, was cancelled, expired, or was
  never declared) raises ``RuleError("no_ready")`` and changes nothing: "a second person
  rounding the corner triggers nothing". A runtime that does not track this can call
  :func:`active_ready` first, or catch that code.
- A trigger while the cancel choice is still open raises ``"ready_pending"``; a trigger while he
  may take only free actions (stand off, surrendered) raises ``"blocked"`` and the Ready waits.
- Ending a Ready voluntarily needs the Reflex save (DC 15) in the declaring round as well as in
  the following one: otherwise ending it a moment before the trigger would dodge the save that
  cancelling at the trigger costs. ``end_ready(..., save=False)`` lets the GM remove it without
  a roll (the character drops, the scene changes). Ending it costs no action.
- A save succeeds when the total meets the DC (d20 convention); a natural 1 or 20 has no
  special effect on these saves.
- The carried-over Ready expires when the count reaches his IC in the following round, which
  is at the start of his turn, or earlier at the turn of anyone tied with him but acting first:
  that is no longer "before" his IC.
- A cancel choice left unanswered does not block the turn order; the Ready stays pending (it
  neither carries over nor expires) until :func:`resolve_trigger` is called.
- Rule 6 (⚙ ``carryover_consumes_turn``) costs the turn only when a carried-over Ready actually
  fires (forced included); a successful cancel costs nothing.
"""

from __future__ import annotations

from typing import Literal

from vttbridge.rules import actions
from vttbridge.rules.dice import Roller
from vttbridge.rules.encounter import (
    Encounter,
    next_turn,
    set_ic,
)
from vttbridge.rules.outcome import Choice, Outcome, RuleError
from vttbridge.systems.spycraft.rules.economy import BLOCKING_CONDITIONS, READY
from vttbridge.systems.spycraft.rules.options import options
from vttbridge.systems.spycraft.rules.state import NAME, ReadyAction, spycraft

Timing = Literal["attempt", "completion"]
Answer = Literal["fire", "cancel"]

READY_DC = 15
"""Reflex save DC to cancel a triggered Ready (rule 3) or end one early (rule 5)."""
CANCEL_CHOICE = "ready_cancel"
"""``Choice.kind`` asking whether a triggered Ready fires; answer with :func:`resolve_trigger`."""
TIMINGS: tuple[Timing, ...] = ("attempt", "completion")
ANSWERS: tuple[Answer, ...] = ("fire", "cancel")


# -- reading --------------------------------------------------------------------------------


def active_ready(enc: Encounter, actor: str) -> ReadyAction | None:
    """``actor``'s Ready while it can still be triggered or is awaiting the cancel answer."""
    return spycraft(enc).readies.get(actor)


def _require_ready(enc: Encounter, actor: str) -> ReadyAction:
    ready = spycraft(enc).readies.get(actor)
    if ready is None:
        raise RuleError(
            "no_ready", f"{enc.name(actor)} has no Ready action active; nothing is triggered."
        )
    return ready


def _when(timing: str) -> str:
    return "before the task, as it is attempted" if timing == "attempt" else "after the task"


def _save(enc: Encounter, actor: str, roller: Roller, why: str, out: Outcome) -> tuple[bool, int]:
    ch = enc.character(actor)
    roll = roller.d(20, modifier=ch.reflex, reason=f"{ch.display}: Reflex save DC {READY_DC} {why}")
    out.rolls.append(roll)
    return roll.total >= READY_DC, roll.total


# -- rule functions -------------------------------------------------------------------------


def declare(
    enc: Encounter,
    actor: str,
    action: str,
    trigger: str,
    roller: Roller,
    timing: Timing = "completion",
) -> Outcome:
    """Ready (full action, on his turn): hold one half action ``action`` until ``trigger``
    (firing it later spends nothing: it was paid with the Ready).

    ``timing`` ``"attempt"`` intercedes before the triggering task; ``"completion"`` follows it
    (rule 1, the GM's call). Records the Ready, ends his turn and starts the next one.
    Raises ``wrong_system``, ``ready_exists``, ``bad_argument``, ``not_a_half_action`` (the
    action is one :mod:`vttbridge.rules.actions` knows as a full action), ``blocked``,
    ``not_your_turn``, ``no_budget`` (e.g. after a half action) before changing anything.
    """
    if enc.options.system != NAME:
        raise RuleError("wrong_system", "Ready is a Spycraft 2.0 action.")
    name = enc.character(actor).display
    cb = enc.combatant(actor)
    if actor in spycraft(enc).readies:
        raise RuleError("ready_exists", f"{name} already has a Ready action; one at a time.")
    if timing not in TIMINGS:
        raise RuleError(
            "bad_argument", f"Ready timing must be 'attempt' or 'completion', not {timing!r}."
        )
    action, trigger = action.strip(), trigger.strip()
    if not action or not trigger:
        raise RuleError("bad_argument", "A Ready names one half action and a trigger.")
    if actions.known(NAME, action) and actions.kind_of(NAME, action) == "full":
        raise RuleError(
            "not_a_half_action",
            f"A Ready names one half action; {action} is {actions.describe(NAME, action)}.",
        )
    actions.check(enc, actor, READY)

    actions.take(enc, actor, READY)
    spycraft(enc).readies[actor] = ReadyAction(
        actor=actor,
        action=action,
        trigger=trigger,
        timing=timing,
        declared_round=enc.round,
        declared_ic=cb.ic,
    )
    out = Outcome()
    out.add(
        "ready_declared",
        actor,
        f"{name} readies: {action}, when {trigger} ({_when(timing)}).",
        action=action,
        trigger=trigger,
        timing=timing,
        ic=cb.ic,
        round=enc.round,
    )
    # He gives up the rest of his turn; the readied half action comes out of turn.
    return out.extend(next_turn(enc, roller))


def trigger_occurred(
    enc: Encounter,
    actor: str,
    roller: Roller,
    *,
    by: str | None = None,
    description: str = "",
) -> Outcome:
    """The trigger of ``actor``'s Ready has occurred at the current count ``enc.count``.

    Rule 2: his IC drops to the count when that is lower (never rises). Rule 3: returns a
    ``"ready_cancel"`` Choice (``fire`` / ``cancel``, default ``fire``); the Ready is pending
    until :func:`resolve_trigger`. ``by`` is who set it off, ``description`` what happened.
    Raises ``no_ready`` when he has no Ready (it already ended: the trigger does nothing),
    ``ready_pending``, ``blocked`` or ``no_count``, changing nothing.
    """
    ready = _require_ready(enc, actor)
    name = enc.name(actor)
    cb = enc.combatant(actor)
    if ready.pending:
        raise RuleError(
            "ready_pending", f"{name}'s Ready was already triggered; answer whether he cancels."
        )
    for cond, why in BLOCKING_CONDITIONS.items():
        if cond in enc.character(actor).conditions:
            raise RuleError("blocked", f"{name} {why}; his Ready cannot fire.", condition=cond)
    count = enc.count
    if count is None:
        raise RuleError("no_count", "No Initiative Count is running; start the combat first.")

    out = Outcome()
    ready.pending, ready.trigger_ic = True, count
    ready.triggered_by, ready.trigger_note = by, description
    what = description or ready.trigger
    out.add(
        "ready_triggered",
        actor,
        f"IC {count}: the trigger of {name}'s Ready occurs ({what}).",
        action=ready.action,
        trigger=ready.trigger,
        timing=ready.timing,
        by=by,
        description=description,
        count=count,
        carried_over=ready.carried_over,
    )
    if count < cb.ic:  # rule 2: only ever lowered
        set_ic(enc, actor, count, "Ready triggered", out)
    out.choices.append(
        Choice(
            id=f"{CANCEL_CHOICE}:{actor}:r{enc.round}:ic{count}",
            kind=CANCEL_CHOICE,
            actor=actor,
            question=(
                f"{name}'s Ready is triggered ({what}). Take the readied action "
                f"({ready.action}, {_when(ready.timing)}), or try to hold back "
                f"(Reflex save DC {READY_DC}; on a failure he must go through with it)?"
            ),
            options=list(ANSWERS),
            default="fire",
            data={
                "action": ready.action,
                "trigger": ready.trigger,
                "timing": ready.timing,
                "by": by,
                "dc": READY_DC,
                "count": count,
            },
        )
    )
    return out


def resolve_trigger(enc: Encounter, actor: str, answer: Answer, roller: Roller) -> Outcome:
    """Answer the ``"ready_cancel"`` Choice: ``"fire"`` takes the readied half action now;
    ``"cancel"`` rolls Reflex (1d20 + reflex) vs DC 15: success cancels it, failure forces it
    (``ready_fired`` with ``forced=True``). Either way the Ready ends; the IC stays as lowered.

    Rule 6: with ⚙ ``carryover_consumes_turn``, a carried-over Ready that fires before his IC
    marks his turn this round as taken. Raises ``no_ready``, ``not_pending``, ``bad_answer``.
    """
    ready = _require_ready(enc, actor)
    name = enc.name(actor)
    cb = enc.combatant(actor)
    if not ready.pending:
        raise RuleError(
            "not_pending",
            f"{name}'s Ready has not been triggered; to drop it, end it (Reflex save).",
        )
    if answer not in ANSWERS:
        raise RuleError("bad_answer", f"Answer 'fire' or 'cancel', not {answer!r}.")

    out = Outcome()
    fired, forced, save = True, False, None
    if answer == "cancel":
        ok, save = _save(enc, actor, roller, "to cancel his Ready", out)
        fired, forced = not ok, not ok
    common = {
        "action": ready.action,
        "trigger": ready.trigger,
        "timing": ready.timing,
        "by": ready.triggered_by,
        "count": ready.trigger_ic,
        "carried_over": ready.carried_over,
        "save": save,
        "dc": READY_DC if save is not None else None,
    }
    if fired:
        why = (
            f"fails his Reflex save ({save} vs DC {READY_DC}) and must go through with it"
            if forced
            else "takes his readied action"
        )
        out.add(
            "ready_fired",
            actor,
            f"{name} {why}: {ready.action} ({_when(ready.timing)}).",
            forced=forced,
            before_task=ready.timing == "attempt",
            **common,
        )
    else:
        out.add(
            "ready_cancelled",
            actor,
            f"{name} holds back (Reflex {save} vs DC {READY_DC}): no {ready.action}.",
            **common,
        )
    del spycraft(enc).readies[actor]
    out.add(
        "ready_ended",
        actor,
        f"{name}'s Ready ends; his IC is {cb.ic}.",
        reason="fired" if fired else "cancelled",
        ic=cb.ic,
    )
    # Rule 6: only a carried-over Ready can fire in a round where his turn is still to come.
    if (
        fired
        and ready.carried_over
        and options(enc).carryover_consumes_turn
        and not cb.acted
        and enc.active != actor
    ):
        cb.acted = True
        out.add(
            "turn_forfeited",
            actor,
            f"{name}'s Ready fired before his IC: he has no turn this round.",
            round=enc.round,
        )
    return out


def end_ready(enc: Encounter, actor: str, roller: Roller, *, save: bool = True) -> Outcome:
    """End ``actor``'s Ready voluntarily (rule 5): Reflex save DC 15. On success it ends; on a
    failure it stays active (⚙ ``ready_end_failure`` ``stays_active``) or ends anyway
    (``ends``). The save applies in the declaring round too (see the module notes).
    ``save=False``: the GM removes it without a roll. Costs no action.
    Raises ``no_ready``, or ``ready_pending`` when the cancel choice is open.
    """
    ready = _require_ready(enc, actor)
    name = enc.name(actor)
    if ready.pending:
        raise RuleError(
            "ready_pending",
            f"{name}'s Ready was already triggered; answer whether he fires or cancels.",
        )
    out = Outcome()
    total = None
    if save:
        ok, total = _save(enc, actor, roller, "to end his Ready", out)
        if not ok and options(enc).ready_end_failure == "stays_active":
            out.add(
                "ready_end_failed",
                actor,
                f"{name} fails to stand down (Reflex {total} vs DC {READY_DC}): "
                f"his Ready stays active.",
                save=total,
                dc=READY_DC,
            )
            return out
    del spycraft(enc).readies[actor]
    text = f"{name} ends his Ready"
    text += f" (Reflex {total} vs DC {READY_DC})." if total is not None else " (GM)."
    out.add("ready_ended", actor, text, reason="ended", save=total, dc=READY_DC if save else None)
    return out


# -- round and turn hooks (rule 4) ------------------------------------------------------------


def _expire(enc: Encounter, actor: str, out: Outcome, why: str) -> None:
    del spycraft(enc).readies[actor]
    out.add("ready_expired", actor, f"{enc.name(actor)}'s Ready expires {why}.")


def carry_over(enc: Encounter, roller: Roller, out: Outcome) -> None:
    """A new round: Readies from the last round carry over with the IC unchanged; one that
    already carried over (its owner never reached his IC: removed from the order) expires."""
    for actor, ready in list(spycraft(enc).readies.items()):
        if ready.pending:  # waiting for the cancel answer; it ends when answered
            continue
        cb = enc.combatants.get(actor)
        if cb is None or cb.out:
            _expire(enc, actor, out, "(he is out of the combat)")
        elif ready.carried_over:
            _expire(enc, actor, out, "(a full round has passed)")
        else:
            ready.carried_over = True
            out.add(
                "ready_carried_over",
                actor,
                f"{enc.name(actor)}'s Ready was not triggered: his IC stays {cb.ic}, and it "
                f"stays active until IC {cb.ic} of round {enc.round}.",
                ic=cb.ic,
                round=enc.round,
            )


def expire_at_ic(enc: Encounter, roller: Roller, out: Outcome) -> None:
    """A carried-over Ready expires when the count reaches its owner's IC (rule 4); he then
    acts normally. Also drops a Ready whose owner's own turn has come (he acts instead)."""
    for actor, ready in list(spycraft(enc).readies.items()):
        cb = enc.combatants.get(actor)
        if ready.pending or cb is None:
            continue
        reached = enc.count is not None and enc.count <= cb.ic
        if actor == enc.active or (ready.carried_over and reached):
            _expire(enc, actor, out, f"at IC {cb.ic}; he acts normally this round")
