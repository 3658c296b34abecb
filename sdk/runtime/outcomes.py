"""Applying what a rule did: an :class:`vttbridge.rules.outcome.Outcome` becomes chat, initiative
and turn effects, derived events, token moves and prompts; after each step the rules-owned values
the step changed are written back to the sheets.
"""

from __future__ import annotations

import logging

from vttbridge.rules.characters import RULES_OWNED
from vttbridge.rules.citations import Cited
from vttbridge.rules.encounter import Positions
from vttbridge.rules.outcome import Outcome
from vttbridge.sdk.effects import (
    AdvanceTurn,
    PostChat,
    SetInitiative,
    UpdateConditions,
    UpdateStats,
)
from vttbridge.sdk.events import (
    CombatEnded,
    CombatStarted,
    InitiativeChanged,
    RoundStarted,
    TurnStarted,
)
from vttbridge.sdk.runtime.moves import Movement
from vttbridge.sdk.runtime.refusals import Refusals
from vttbridge.sdk.runtime.registry import Registry
from vttbridge.sdk.runtime.step import CurrentStep, Step
from vttbridge.sdk.runtime.waiting import Waiting
from vttbridge.sdk.script import (
    Script,
)
from vttbridge.sdk.world import World

log = logging.getLogger(__name__)


_ACTED_ON_KINDS = frozenset(
    {
        "initiative_rolled",
        "initiative_set",
        "ic_changed",
        "round_started",
        "turn_started",
        "combat_started",
        "combat_ended",
    }
)
"""The happening kinds ``_apply`` turns into effects and events: those its match names."""


_CHANGES_NOTHING_OWNED = frozenset({"moved"})
"""Happening kinds that change no rules-owned value and no condition (a plain move): no
write-back check after them, which keeps a token move as cheap as it was."""


class OutcomeApplier:
    """Turns rule outcomes into effects and events; writes rules-owned values back."""

    def __init__(
        self,
        world: World,
        step: CurrentStep,
        registry: Registry,
        waiting: Waiting,
        movement: Movement,
        refusals: Refusals,
    ) -> None:
        self._world = world
        self._step = step
        self._registry = registry
        self._waiting = waiting
        self._movement = movement
        self._refusals = refusals

    def apply(self, outcome: Outcome, *, announce: bool, script: Script | None) -> None:
        """Turn ``outcome`` into effects, events, token moves and prompts (``announce``: its
        lines in chat too)."""
        w, enc = self._world, self._world.encounter
        emit, derive = self._step.emit, self._step.derive
        if announce:
            decided: dict[int, Cited] = {}
            urls: set[str] = set()
            for h, c in self._refusals.decisions(outcome.happened):
                if c.url not in urls:  # each rule once: at the first line it decided
                    urls.add(c.url)
                    decided[id(h)] = c
            cites = list(decided.values())
            lines = [
                f"{h.text} {decided[id(h)].short()}" if id(h) in decided else h.text
                for h in outcome.happened
                if h.text
            ]
            for r in outcome.rolls:
                if not any(r.text in line for line in lines):
                    lines.append(f"{r.reason}: {r.text}" if r.reason else r.text)
            if lines:
                emit(PostChat(text="\n".join(lines), cites=cites))
        step = self._step.step
        touched = step.touched if step is not None else set()
        for h in outcome.happened:
            if h.actor is not None and h.kind not in _CHANGES_NOTHING_OWNED:
                touched.add(h.actor)  # whom a rule acted on may have spent or gained something
            lapsed = h.data.get("choice_id")
            if lapsed and h.kind.endswith("_lapsed"):
                for p in [p for p in w.prompts.values() if p.choice_id == lapsed]:
                    self._waiting.close_prompt(p.id, h.text or "no longer needed")
            if h.kind not in _ACTED_ON_KINDS:  # one set lookup, not seven failed cases (a move)
                continue
            actor = h.actor
            match h.kind:
                case "initiative_rolled" | "initiative_set" if actor in w.tokens:
                    emit(SetInitiative(token=actor, ic=int(h.data["ic"])))
                case "ic_changed" if actor is not None:
                    if actor in w.tokens:
                        emit(SetInitiative(token=actor, ic=int(h.data["new"])))
                    derive(
                        InitiativeChanged(
                            token=actor,
                            ic=int(h.data["new"]),
                            old=h.data.get("old"),
                            reason=str(h.data.get("reason", "")),
                            source="runtime",
                        )
                    )
                case "round_started":
                    derive(
                        RoundStarted(round=int(h.data.get("round", enc.round)), source="runtime")
                    )
                case "turn_started" if actor is not None:
                    rnd = int(h.data.get("round", enc.round))
                    ic = h.data.get("ic")
                    emit(AdvanceTurn(round=rnd, token=actor, ic=ic))
                    derive(TurnStarted(token=actor, round=rnd, ic=ic, source="runtime"))
                case "combat_started":
                    order = enc.order()
                    derive(
                        CombatStarted(
                            tokens=order,
                            initiative={c: enc.combatants[c].ic for c in order},
                            source="runtime",
                        )
                    )
                case "combat_ended":
                    emit(AdvanceTurn(round=0, token=None))
                    derive(CombatEnded(source="runtime"))
                case _:
                    pass
        # rules that move characters (a charge, a move) change Encounter.positions: those set
        # since the last look (all of them if a script replaced the dict); a place() puts the
        # same Cell in both, so a token it placed costs an identity test
        tokens, positions = w.tokens, enc.positions
        set_since = positions.take_set() if isinstance(positions, Positions) else list(positions)
        for tid in set_since:
            cell = positions.get(tid)
            tok = tokens.get(tid)
            if cell is not None and tok is not None and tok.cell is not cell and tok.cell != cell:
                old = tok.cell
                self._movement.move_token(
                    tid, cell, [], animate=True, fire=True, source="runtime", old=old
                )
        for choice in outcome.choices:
            handler = self._registry.choice(choice.kind)
            if handler is None:
                log.warning("no handler registered for choice kind %r", choice.kind)
            self._waiting.open_prompt(
                kind=choice.kind,
                player=w.player_for(choice.actor),
                token=choice.actor if choice.actor in w.tokens else None,
                question=choice.question,
                options=list(choice.options),
                default=choice.default,
                data=dict(choice.data),
                choice_id=choice.id,
                script=handler.script.name if handler else (script.name if script else None),
                actor=choice.actor,
            )

    def sync_sheets(self, step: Step) -> None:
        """Say which rules-owned values the GM changed on a sheet, then write back to the VTT
        what the step's rules changed: stats (``UpdateStats``) and the conditions on each
        token (``UpdateConditions``). Only the tokens the step touched are compared."""
        w, emit = self._world, self._step.emit
        for token, stat, value in w.take_sheet_edits():
            who = w.tokens[token].display if token in w.tokens else token
            emit(
                PostChat(
                    text=f"{who}'s {RULES_OWNED[stat]} set to {value} on the sheet; "
                    "the rules follow.",
                    whisper_to="gm",
                )
            )
        tokens = w.tokens
        for token in list(tokens) if step.every else sorted(step.touched):
            if token not in tokens:
                continue
            stats = w.stats_to_write(token)
            if stats:
                emit(UpdateStats(token=token, stats=stats))
            shown = w.conditions_to_show(token)
            if shown is not None:
                emit(UpdateConditions(token=token, conditions=shown[0], removed=shown[1]))
