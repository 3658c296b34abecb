"""Spycraft 2.0 state an encounter carries (``Encounter.states["spycraft"]``): active Ready
actions and stand offs. Read it with :func:`spycraft`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from vttbridge.rules.encounter import Encounter

NAME = "spycraft"
"""The system's name (``Options.system``), under which the encounter keeps this state."""


class ReadyAction(BaseModel):
    """A declared Ready: one half action, held until its trigger occurs."""

    actor: str
    action: str
    """The half action to take, in the player's words (``"Standard Attack with pistol"``)."""
    trigger: str
    """The trigger's name or description; the runtime decides when it has occurred."""
    timing: Literal["attempt", "completion"] = "completion"
    """``attempt``: intercede before the task; ``completion``: follow it (rule 1)."""
    declared_round: int
    declared_ic: int
    carried_over: bool = False
    """True from the start of the following round until it fires or expires (rule 4)."""
    pending: bool = False
    """The trigger occurred and the actor is deciding whether to cancel (rule 3)."""
    trigger_ic: int | None = None
    triggered_by: str | None = None
    """Who set off the trigger (an id the runtime passed), kept while the choice is pending."""
    trigger_note: str = ""
    """What happened, in the runtime's words (``"Bob comes around the corner"``)."""


class PendingTie(BaseModel):
    """An opposed Resolve check tied after the higher bonus, waiting for the GM (⚙ gm)."""

    round: int
    units: list[list[str]]
    """Everyone who checked, grouped as they rolled (a side, or one man when sides split)."""
    leads: list[str]
    """The lead (highest Resolve) of each unit; the GM answers with one of the tied leads."""
    tied: list[str]
    """The leads still tied."""
    attempt: int = 0
    """How many GM re-rolls this check has had (keeps each tie Choice id distinct)."""


class StandOff(BaseModel):
    """A stand off. ``sides`` holds two lists of participant ids.

    An ended stand off stays in ``SpycraftState.standoffs`` with ``active`` False, so the record
    of who surrendered to whom still answers permission requests for the rest of the combat.
    """

    id: str
    sides: list[list[str]] = Field(default_factory=lambda: [list[str](), list[str]()])
    surrendered: list[str] = Field(default_factory=list)
    """Participants who surrendered or cracked and surrendered; they remain until released."""
    started_round: int = 0
    last_check_round: int = 0
    weapons: dict[str, str] = Field(default_factory=dict)
    """What each participant levels (the weapon or unarmed attack named on entering)."""
    active: bool = True
    ended_round: int | None = None
    end_reason: str = ""
    """``damage``, ``one_side`` or ``one_participant`` (⚙ ``standoff_ends_when``)."""
    surrender_to: dict[str, list[str]] = Field(default_factory=dict)
    """Who may give each surrendered participant permission or orders: the winners of the
    check that cracked him; empty for a voluntary surrender (any opponent in the stand off)."""
    permitted: dict[str, str] = Field(default_factory=dict)
    """Surrendered participants allowed one action, and who allowed it."""
    pending_cracks: dict[str, list[str]] = Field(default_factory=dict)
    """Cracked participants still choosing (surrender / be attacked) -> the check's winners."""
    pending_tie: PendingTie | None = None
    had_vulnerable: list[str] = Field(default_factory=list)
    """Participants already vulnerable on entering; the stand off's end leaves that alone."""

    def side_of(self, actor: str) -> int | None:
        for i, side in enumerate(self.sides):
            if actor in side:
                return i
        return None

    @property
    def participants(self) -> list[str]:
        return [a for side in self.sides for a in side]


class SpycraftState(BaseModel):
    readies: dict[str, ReadyAction] = Field(default_factory=dict)
    standoffs: list[StandOff] = Field(default_factory=list)
    next_standoff: int = 1


def spycraft(enc: Encounter) -> SpycraftState:
    """The Spycraft state of ``enc``."""
    return enc.state(NAME, SpycraftState)
