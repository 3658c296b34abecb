"""The game systems a world can play, each one package registered through the
``vttbridge.systems`` entry point group.

A system is a :class:`System`: what the encounter core, the action economy and the runtime ask
of it. Its name is what ``Options.system`` says; it brings its own per-encounter state (kept in
``Encounter.states`` under its name), its own ⚙ options (set beside the core's, flat), what its
actions cost and how chat names a cost, how a character rolls initiative, the hooks that run when
a round or a turn begins or a combat ends, the gates that say who may act at all (a surprised
character sits out), the conditions it derives, a character's movement left (for the VTT's
ruler), the stats ``!stats`` shows, the citations of its rules, and where its side of the table
lives: its chat commands and dashboard panels (:class:`vttbridge.sdk.systems.Table`, named by
``table`` and imported by the SDK, so the rules never import it).

The two systems that ship with vttbridge (``vttbridge.systems.spycraft``,
``vttbridge.systems.foe``) are registered exactly as a third party's would be: a package
declares, in its ``pyproject.toml``::

    [project.entry-points."vttbridge.systems"]
    pf2e = "my_pf2e:SYSTEM"

The group is read the first time a system is looked up; :func:`register` adds one directly
(tests, embedders). Reading the group is the only I/O here; no rule function does any. A
mistake at that door (an entry point that does not load, or is not a :class:`System`, two
systems declaring one option) is logged at load time with the entry point's name, and the
system is left out.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict
from vttbridge.rules.citations import Citations

if TYPE_CHECKING:
    from vttbridge.rules.characters import Character
    from vttbridge.rules.conditions import Duration
    from vttbridge.rules.dice import Roller
    from vttbridge.rules.encounter import Encounter
    from vttbridge.rules.outcome import Outcome

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "vttbridge.systems"

Kind = Literal["free", "half", "full", "move", "none"]
"""What an action costs (see :mod:`vttbridge.rules.actions`)."""

Hook = Callable[["Encounter", "Roller", "Outcome"], None]
"""``hook(encounter, roller, outcome)``: runs when a round or turn begins; adds to ``outcome``
what it did."""

EndHook = Callable[["Encounter", "Outcome"], None]
"""``hook(encounter, outcome)``: runs when a combat ends, before the systems' state goes."""

Gate = Callable[["Encounter", str, Kind], None]
"""``gate(encounter, actor, kind)``: raises :class:`vttbridge.rules.outcome.RuleError` (saying
why) when ``actor`` may not take an action of ``kind`` now, whether or not he is in the turn
order; every action the economy checks passes its system's gates first."""

MoveFigures = dict[str, float | bool | None]
"""A character's movement left this turn, as :class:`vttbridge.rules.movement.MoveBudget`'s
fields (a plain dict: the runtime compares it with what it sent after every event)."""

DEFAULT_WORDS: Mapping[Kind, str] = {
    "free": "a free action",
    "half": "a half action",
    "full": "a full action",
    "move": "a half action",
    "none": "no action",
}
"""How chat names each cost kind, unless a system says otherwise."""


class NoState(BaseModel):
    """The state of a system that keeps none in the encounter."""


class NoOptions(BaseModel):
    """The options of a system that has none of its own."""

    model_config = ConfigDict(extra="forbid")


def d20_initiative(enc: Encounter, ch: Character) -> str:
    """The default initiative roll: 1d20 + the character's Initiative bonus."""
    return f"1d20+{ch.initiative}" if ch.initiative >= 0 else f"1d20{ch.initiative}"


@dataclass(frozen=True)
class System:
    """One game system (see the module docstring)."""

    name: str
    """What ``Options.system`` says (``"spycraft"``, ``"foe"``)."""
    title: str
    """For people: ``"Spycraft 2.0"``."""
    state: type[BaseModel] = NoState
    """Its state in an encounter (``Encounter.states[name]``); a fresh one after a combat."""
    options: type[BaseModel] = NoOptions
    """Its ⚙ options: each field is a world option (``!set <name>``) beside the core's. Give it
    ``extra="forbid"``; two systems may not declare the same option."""
    costs: Mapping[str, Kind] = field(default_factory=dict)
    """Action name -> cost kind: the actions its rules and commands spend on."""
    words: Mapping[Kind, str] = field(default_factory=lambda: dict(DEFAULT_WORDS))
    """How chat names each cost kind (``"1 action"``, ``"both actions"``...)."""
    action_word: str = "half action"
    """What it calls one unit of a turn's budget (``"action"``: FoE's two actions a turn)."""
    actions_per_turn: int = 2
    """Units of budget each turn gets (a full action spends two)."""
    takes_over_moves: frozenset[str] = frozenset()
    """Full actions toward which this turn's moves count, when nothing else was done (a FoE
    charge: the moves become its run)."""
    initiative: Callable[[Encounter, Character], str] = d20_initiative
    """The dice expression a character rolls for initiative."""
    round_start: tuple[Hook, ...] = ()
    """Run in order when a round begins, before anyone acts."""
    turn_start: tuple[Hook, ...] = ()
    """Run in order when a turn begins (``encounter.active`` is set and the count has reached
    his IC)."""
    combat_end: tuple[EndHook, ...] = ()
    """Run in order when a combat ends, before its state is dropped."""
    gates: tuple[Gate, ...] = ()
    """Who may act at all: each raises ``RuleError`` for an actor who may not act now."""
    left: Callable[[Encounter, str], str] | None = None
    """What is left of ``actor``'s turn, for chat, when the units left are not all there is to
    say (``"only 1 action left this turn and can move 25 ft more this round"``); None: the units
    left (:func:`vttbridge.rules.actions.units_left`)."""
    conditions: Callable[[Encounter, str], Iterable[str]] | None = None
    """The conditions a character is in because of this system's state (``readied``,
    ``sneaking``), beside those kept on him."""
    movement: Callable[[Encounter, str], MoveFigures | None] | None = None
    """A character's movement left this turn (None: nothing limits it); None: the system keeps
    no movement budget, and the VTT is sent none."""
    stats: tuple[str, ...] = ()
    """The character stats ``!stats`` shows (:class:`vttbridge.rules.characters.Character`)."""
    durations: Mapping[str, Duration] = field(default_factory=dict)
    """Its conditions that last a set time by its rules (``readied``: until the owner's IC
    next round), which a VTT may show counting down; the others last as long as their cause."""
    citations: Citations = field(default_factory=Citations)
    """Which of its rules refused or decided something: a citation (source, rule, the section of
    its rules page, the options that shape it) for each refusal code its rules raise and for the
    decisions they announce (:mod:`vttbridge.rules.citations`)."""
    table: str | None = None
    """``"module:attribute"`` of its side of the table, a :class:`vttbridge.sdk.systems.Table`
    (its chat commands and dashboard panels), imported by the SDK when a world loads."""


_registry: dict[str, System] = {}
_scanned = False


def register(system: System) -> System:
    """Add (or replace) ``system``. Raises ``ValueError`` when one of its options is another
    system's."""
    for other in _registry.values():
        if other.name == system.name:
            continue
        clash = set(other.options.model_fields) & set(system.options.model_fields)
        if clash:
            raise ValueError(
                f"game system {system.name!r} declares option(s) {', '.join(sorted(clash))} "
                f"of {other.name!r}; an option name belongs to one system"
            )
    _registry[system.name] = system
    return system


def get(name: str) -> System:
    """The system called ``name``. Raises ``KeyError`` saying which are installed (and the
    closest name)."""
    system = _registry.get(name)
    if system is None and not _scanned:
        _scan()
        system = _registry.get(name)
    if system is None:
        raise KeyError(unknown(name))
    return system


def unknown(name: str) -> str:
    """The message for a system nobody installed: the closest name, and every one there is."""
    known = names()
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    listed = ", ".join(known) or "none (is vttbridge installed?)"
    return f"no game system {name!r}{hint}; installed: {listed}"


def names() -> list[str]:
    """The names of every installed system."""
    if not _scanned:
        _scan()
    return sorted(_registry)


def all_systems() -> list[System]:
    """Every installed system, by name."""
    return [_registry[n] for n in names()]


def option_owner(option: str) -> System | None:
    """The system whose option ``option`` is, if any."""
    for system in all_systems():
        if option in system.options.model_fields:
            return system
    return None


def _scan() -> None:
    global _scanned
    _scanned = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            system = ep.load()
        except Exception:  # a broken plug-in must not take the others down
            log.exception("cannot load game system %s = %s", ep.name, ep.value)
            continue
        if not isinstance(system, System):
            log.error(
                "game system entry point %s = %s is not a vttbridge.rules.systems.System "
                "(it is %s)",
                ep.name,
                ep.value,
                type(system).__name__,
            )
            continue
        if system.name in _registry:
            continue  # registered directly first: that one stays
        try:
            register(system)
        except ValueError as e:
            log.error("game system entry point %s left out: %s", ep.name, e)


__all__ = [
    "DEFAULT_WORDS",
    "ENTRY_POINT_GROUP",
    "EndHook",
    "Gate",
    "Hook",
    "Kind",
    "MoveFigures",
    "NoOptions",
    "NoState",
    "System",
    "all_systems",
    "d20_initiative",
    "get",
    "names",
    "option_owner",
    "register",
    "unknown",
]
