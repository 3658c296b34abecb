"""The encounter core every game system shares: initiative, Initiative Counts counting down,
rounds, whose turn it is, and the action budget (two half actions or one full action a turn,
plus free actions; a system may give a turn more).

Initiative slides: each round counts down from the highest Initiative Count (IC); a character
acts when the count reaches his IC; ICs carry over between rounds and may move with actions (a
system's Delay or Ready).

The game system the world plays (:mod:`vttbridge.rules.systems`) says how initiative is rolled,
keeps its own state here (:attr:`Encounter.states`), and runs its rules through hooks when a
round or a turn begins and when the combat ends; its gates say who may act at all.

This module keeps the budget; what each action costs is :mod:`vttbridge.rules.actions`, through
which every rule spends it.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    Field,
    GetCoreSchemaHandler,
    SerializerFunctionWrapHandler,
    field_serializer,
    field_validator,
)
from pydantic_core import core_schema
from vttbridge.rules import systems
from vttbridge.rules.characters import Character
from vttbridge.rules.dice import Roller
from vttbridge.rules.geometry import Cell, Grid
from vttbridge.rules.options import Options
from vttbridge.rules.outcome import Outcome, RuleError
from vttbridge.rules.systems import Kind

ActionCost = Literal["free", "half", "full"]
HALF_ACTIONS = {"free": 0, "half": 1, "full": 2}
S = TypeVar("S", bound=BaseModel)


class Combatant(BaseModel):
    id: str
    ic: int = 0
    tiebreak: int = 0
    """Orders exact ties (same IC and Initiative bonus): a roll-off or the GM's order."""
    acted: bool = False
    """Has had his turn this round (or gave it up, e.g. to a Ready)."""
    half_actions: int = 2
    free_used: int = 0
    delay_steps: int = 0
    """Steps his IC was lowered by a Delay this round (a system's sliding initiative)."""
    actions_taken: list[str] = Field(default_factory=list)
    """What the current turn's actions were spent on ("move", "attack", "charge"...)."""
    moved_ft: float = 0.0
    """Distance moved this turn, for a system's movement budget."""
    out: bool = False
    """Removed from the turn order (dead, fled) but kept for the record."""


class Positions(dict[str, Cell]):
    """``Encounter.positions``: each character's cell, noting which were set since
    :meth:`take_set`. Whoever mirrors them on a map (the runtime, after every rule call) reads
    just those, not every character (on a 200-token map, about 30 % of a move's cost)."""

    def __init__(self, items: Mapping[str, Cell] | Iterable[tuple[str, Cell]] = ()) -> None:
        super().__init__(items)
        self._set: dict[str, None] = {}  # in the order they were set: replays repeat it

    def __setitem__(self, actor: str, cell: Cell) -> None:
        super().__setitem__(actor, cell)
        self._set[actor] = None

    def update(self, *args: Any, **kwargs: Cell) -> None:
        for actor, cell in dict(*args, **kwargs).items():
            self[actor] = cell

    def __ior__(self, other: Any) -> Positions:  # type: ignore[override,misc]
        self.update(other)
        return self

    def setdefault(self, actor: str, cell: Cell) -> Cell:
        if actor not in self:
            self[actor] = cell
        return self[actor]

    def take_set(self) -> list[str]:
        """The characters whose cells were set since the last call, in that order."""
        actors, self._set = list(self._set), {}
        return actors

    def __reduce__(self) -> tuple[Any, ...]:  # copies and pickles start with nothing set
        return (type(self), (dict(self),))

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(cls, handler(dict[str, Cell]))


class Encounter(BaseModel):
    """Everything the rules know about one fight. Serialisable as JSON for snapshots."""

    options: Options = Field(default_factory=Options)
    grid: Grid = Field(default_factory=Grid)
    characters: dict[str, Character] = Field(default_factory=dict)
    positions: Positions = Field(default_factory=Positions)
    combatants: dict[str, Combatant] = Field(default_factory=dict)
    round: int = 0
    count: int | None = None
    """The current Initiative Count (the IC of whoever's turn it is)."""
    active: str | None = None
    """Whose turn it is."""
    actions_per_turn: int | None = None
    """Half actions each turn gets while a rule says so (one in a surprise round); None: the
    system's (:attr:`turn_budget`)."""
    states: dict[str, Any] = Field(default_factory=dict)
    """Each game system's state, by the system's name (its ``System.state`` model); dropped
    when the combat ends. Read it with :meth:`state`."""

    @field_validator("states")
    @classmethod
    def _system_states(cls, states: dict[str, Any]) -> dict[str, Any]:
        # read from JSON: each installed system's state becomes its model again (a system no
        # longer installed keeps its plain data, so the world round-trips)
        out: dict[str, Any] = {}
        for name, value in states.items():
            if isinstance(value, Mapping):
                with contextlib.suppress(KeyError):
                    value = systems.get(name).state.model_validate(value)
            out[name] = value
        return out

    @field_serializer("states", mode="wrap")
    def _dump_states(self, states: dict[str, Any], handler: SerializerFunctionWrapHandler) -> Any:
        # a state nobody changed yet is no state: reading one (which makes it) changes nothing
        kept = {
            k: v for k, v in states.items() if not (isinstance(v, BaseModel) and v == type(v)())
        }
        return handler(kept)

    def state(self, system: str, model: type[S]) -> S:
        """The state of ``system`` (a ``model``), made on first use."""
        value = self.states.get(system)
        if value.__class__ is not model:  # a token move reads it often: the one test
            value = self.states[system] = model.model_validate(value or {})
        return value

    @property
    def system(self) -> systems.System:
        """The game system the world plays."""
        return systems.get(self.options.system)

    @property
    def turn_budget(self) -> int:
        """Half actions a turn gets now: :attr:`actions_per_turn` while a rule sets it, else the
        system's."""
        return self.actions_per_turn or self.system.actions_per_turn

    # -- reading -----------------------------------------------------------------------------
    def character(self, actor: str) -> Character:
        try:
            return self.characters[actor]
        except KeyError:
            raise RuleError("unknown_character", f"No character {actor!r} in this world.") from None

    def combatant(self, actor: str) -> Combatant:
        try:
            return self.combatants[actor]
        except KeyError:
            name = self.characters[actor].display if actor in self.characters else actor
            raise RuleError("not_in_combat", f"{name} is not in the combat.") from None

    def name(self, actor: str) -> str:
        c = self.characters.get(actor)
        return c.display if c else actor

    def order(self) -> list[str]:
        """Combatants in acting order: IC high to low, then Initiative bonus, then tiebreak."""
        ids = list(self.combatants)
        ranked = [c for c in ids if not self.combatants[c].out]

        def key(cid: str) -> tuple[int, int, int, int]:
            cb = self.combatants[cid]
            bonus = self.characters[cid].initiative if cid in self.characters else 0
            return (-cb.ic, -bonus, cb.tiebreak, ids.index(cid))

        return sorted(ranked, key=key)

    def distance(self, a: str, b: str) -> float:
        """Distance in feet (grid units) between two characters' positions."""
        for who in (a, b):
            if who not in self.positions:
                raise RuleError("no_position", f"{self.name(who)} has no position on the map.")
        return self.grid.distance_between(self.positions[a], self.positions[b])

    @property
    def in_combat(self) -> bool:
        return self.round > 0


# -- initiative --------------------------------------------------------------------------------


def add_character(enc: Encounter, character: Character) -> None:
    enc.characters[character.id] = character


def roll_initiative(enc: Encounter, actor: str, roller: Roller) -> tuple[int, Outcome]:
    """Roll one character's IC with the system's formula (by default 1d20 + Initiative)."""
    ch = enc.character(actor)
    expr = enc.system.initiative(enc, ch)
    roll = roller.roll(expr, reason=f"initiative for {ch.display}")
    out = Outcome(rolls=[roll])
    out.add(
        "initiative_rolled", actor, f"{ch.display} rolls initiative: {roll.text}", ic=roll.total
    )
    return roll.total, out


def join_combat(
    enc: Encounter, actors: list[str], roller: Roller, ics: dict[str, int] | None = None
) -> Outcome:
    """Add characters to the turn order, rolling initiative unless an IC is given.

    Exact ties (same IC and Initiative bonus) are broken by a 1d20 roll-off (⚙ ``tie_break``
    random) or by the order given (⚙ gm)."""
    ics = ics or {}
    for a in actors:
        enc.character(a)
        if a in enc.combatants and not enc.combatants[a].out:
            raise RuleError("already_in_combat", f"{enc.name(a)} is already in the combat.")
    out = Outcome()
    for a in actors:
        if a in ics:
            ic = ics[a]
            out.add("initiative_set", a, f"{enc.name(a)} joins at IC {ic}.", ic=ic)
        else:
            ic, rolled = roll_initiative(enc, a, roller)
            out.extend(rolled)
        # Joining mid-round: he acts this round only if the count has not yet passed his IC.
        # No count yet (a round-start hook adds him, e.g. after a surprise round): he acts.
        passed = enc.in_combat and enc.count is not None and ic >= enc.count
        enc.combatants[a] = Combatant(id=a, ic=ic, acted=passed, half_actions=enc.turn_budget)
    _break_ties(enc, actors, roller, out)
    return out


def _break_ties(enc: Encounter, new: list[str], roller: Roller, out: Outcome) -> None:
    groups: dict[tuple[int, int], list[str]] = defaultdict(list)
    for cid in enc.order():
        groups[(enc.combatants[cid].ic, enc.characters[cid].initiative)].append(cid)
    for (ic, _), members in groups.items():
        if len(members) < 2 or not set(members) & set(new):
            continue
        if enc.options.tie_break == "gm":
            for i, cid in enumerate(members):
                enc.combatants[cid].tiebreak = i
            continue
        remaining = members
        # Each member's roll-off results in order; a re-roll only separates those still tied,
        # so places compare the whole sequence (a re-roll of 18 must not jump a first roll of 15).
        results: dict[str, list[int]] = {cid: [] for cid in members}
        while remaining:  # roll off until every tied member has a distinct place
            rolls = {
                cid: roller.roll("1d20", reason=f"initiative tie at {ic}") for cid in remaining
            }
            out.rolls.extend(rolls.values())
            for cid, r in rolls.items():
                results[cid].append(-r.total)
            totals = [r.total for r in rolls.values()]
            remaining = [cid for cid, r in rolls.items() if totals.count(r.total) > 1]
        for place, cid in enumerate(sorted(members, key=results.__getitem__)):
            enc.combatants[cid].tiebreak = place
        out.add("tie_broken", None, f"Initiative tie at IC {ic} broken by roll-off.", ic=ic)


def start_combat(
    enc: Encounter, actors: list[str], roller: Roller, ics: dict[str, int] | None = None
) -> Outcome:
    """Roll initiative for ``actors`` and begin round 1 with the first turn."""
    if enc.in_combat:
        raise RuleError("combat_running", "A combat is already running; end it first.")
    if not actors:
        raise RuleError("no_combatants", "A combat needs at least one combatant.")
    out = join_combat(enc, actors, roller, ics)
    out.add("combat_started", None, "Combat begins.")
    _start_round(enc, roller, out)
    return out.extend(next_turn(enc, roller))


def end_combat(enc: Encounter) -> Outcome:
    """End the combat: the system's combat-end hooks run, then the turn order and every
    system's state are dropped."""
    out = Outcome()
    for hook in enc.system.combat_end:
        hook(enc, out)
    enc.combatants.clear()
    enc.round, enc.count, enc.active = 0, None, None
    enc.actions_per_turn = None
    enc.states = {}
    out.add("combat_ended", None, "Combat ends.")
    return out


def leave_combat(enc: Encounter, actor: str) -> Outcome:
    """Take ``actor`` out of the turn order (he fled, fell, or the GM added him by mistake).
    He stays on record as ``out``: he acts no more, his Ready expires at the next round start,
    and nobody stands off with him. :func:`join_combat` puts him back. Whose turn it is does
    not change here: the next turn passes him by."""
    cb = enc.combatant(actor)
    if cb.out:
        raise RuleError("not_in_combat", f"{enc.name(actor)} is already out of the combat.")
    cb.out = True
    out = Outcome()
    out.add("left_combat", actor, f"{enc.name(actor)} leaves the turn order.")
    return out


def set_ic(enc: Encounter, actor: str, ic: int, reason: str, out: Outcome) -> None:
    """Move a combatant's IC and record it (the single place ICs change after rolling)."""
    cb = enc.combatant(actor)
    if cb.ic == ic:
        return
    old, cb.ic = cb.ic, ic
    out.add(
        "ic_changed",
        actor,
        f"{enc.name(actor)}: IC {old} → {ic} ({reason}).",
        old=old,
        new=ic,
        reason=reason,
    )


# -- turns -------------------------------------------------------------------------------------


def next_turn(enc: Encounter, roller: Roller) -> Outcome:
    """End the current turn (if any) and start the next; a new round begins when everyone has
    acted. Returns what happened, including anything the system hooks did."""
    if not enc.combatants:
        raise RuleError("no_combat", "There is no combat running.")
    if not enc.order():  # checked before the current turn is touched: errors change nothing
        raise RuleError("no_combatants", "Nobody is left in the turn order.")
    out = Outcome()
    if enc.active is not None:
        enc.combatants[enc.active].acted = True
        out.add("turn_ended", enc.active, f"{enc.name(enc.active)}'s turn ends.")
        enc.active = None
    while True:
        waiting = [c for c in enc.order() if not enc.combatants[c].acted]
        if waiting:
            _start_turn(enc, waiting[0], roller, out)
            if enc.active is not None:
                return out
            continue  # a turn-start hook used up the turn; look again
        if not enc.order():
            raise RuleError("no_combatants", "Nobody is left in the turn order.")
        _start_round(enc, roller, out)


def _start_round(enc: Encounter, roller: Roller, out: Outcome) -> None:
    enc.round += 1
    enc.count = None
    for cb in enc.combatants.values():
        cb.acted = cb.out
        cb.delay_steps = 0
    out.add("round_started", None, f"Round {enc.round} begins.", round=enc.round)
    for hook in enc.system.round_start:
        hook(enc, roller, out)


def _start_turn(enc: Encounter, actor: str, roller: Roller, out: Outcome) -> None:
    cb = enc.combatants[actor]
    enc.active, enc.count = actor, cb.ic
    cb.half_actions = enc.turn_budget
    cb.free_used, cb.actions_taken, cb.moved_ft = 0, [], 0.0
    out.add(
        "turn_started",
        actor,
        f"Round {enc.round}, IC {cb.ic}: {enc.name(actor)}'s turn.",
        round=enc.round,
        ic=cb.ic,
    )
    for hook in enc.system.turn_start:
        hook(enc, roller, out)
        if enc.active != actor:
            return


def require_turn(enc: Encounter, actor: str) -> Combatant:
    cb = enc.combatant(actor)
    if enc.active != actor:
        who = enc.name(enc.active) if enc.active else "nobody"
        raise RuleError("not_your_turn", f"It is not {enc.name(actor)}'s turn (it is {who}'s).")
    return cb


def may_act(enc: Encounter, actor: str, kind: Kind) -> None:
    """Raise ``RuleError`` (saying why) unless the system's gates let ``actor`` take an action
    of ``kind`` now, in the turn order or not (a surprised character sits out; one in a stand
    off may take only free actions)."""
    for gate in enc.system.gates:
        gate(enc, actor, kind)


def check_budget(
    enc: Encounter, actor: str, cost: ActionCost, *, on_turn: bool = True, taken_over: int = 0
) -> None:
    """Raise unless ``actor`` may spend ``cost`` now: the system's gates, then his turn and
    budget. Free actions may be taken out of turn. ``taken_over``: half actions already spent
    that this action takes over (a charge judged over this turn's moves, see
    :mod:`vttbridge.rules.actions`)."""
    ch = enc.character(actor)
    cb = enc.combatant(actor)
    may_act(enc, actor, cost)
    if cost != "free":
        if on_turn:
            require_turn(enc, actor)
        need = HALF_ACTIONS[cost]
        if need > cb.half_actions + taken_over:
            left = {0: "no actions", 1: "only a half action"}.get(cb.half_actions, "")
            raise RuleError(
                "no_budget",
                f"{ch.display} has {left} left this turn; a {cost} action needs {need}.",
                left=cb.half_actions,
            )
    else:
        limit = enc.options.free_actions_per_turn
        if limit is not None and cb.free_used >= limit:
            raise RuleError(
                "no_budget", f"{ch.display} has used all {limit} free actions.", cite="free actions"
            )


def spend(enc: Encounter, actor: str, cost: ActionCost, what: str, *, on_turn: bool = True) -> None:
    """Spend ``cost`` from ``actor``'s budget for ``what``, or raise ``RuleError`` unchanged."""
    check_budget(enc, actor, cost, on_turn=on_turn)
    cb = enc.combatants[actor]
    if cost == "free":
        cb.free_used += 1
        return
    cb.half_actions -= HALF_ACTIONS[cost]
    cb.actions_taken.extend([what] * HALF_ACTIONS[cost])


def take_action(enc: Encounter, actor: str, cost: ActionCost, what: str) -> Outcome:
    """A plain action on his turn (attack, reload...): spends the budget and records it."""
    spend(enc, actor, cost, what)
    out = Outcome()
    out.add(
        "action_taken", actor, f"{enc.name(actor)}: {what} ({cost} action).", cost=cost, action=what
    )
    return out
