"""A dashboard panel, as a game system describes it: a title, then a table or a list of cards,
each made of text, badges and meters. The GM's page (``adapters/bridge/dashboard/``) draws every
system's panels the same way; a system only says what is in them
(:attr:`vttbridge.sdk.systems.Table.panels`), computed from the world as it is now.

A table suits one row per combatant (a movement budget); cards suit one thing each with a few
facts (a held Ready, a stand off with its sides)::

    Panel(
        id="shields",
        title="Shields raised",
        empty="No shield is raised.",
        table=PanelTable(
            columns=[Column(label="Name"), Column(label="Bonus", numeric=True)],
            rows=[Row(key="kevin", cells=["Kevin", "+2"])],
        ),
    )

Numbers go in as text, already worded (``"25 ft"``): the page shows them as they come.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Tone = Literal["", "muted", "hostile", "turn", "delayed", "watch"]
"""How a badge stands out: plain, muted, alarming, the one acting, waiting, on the map."""


class Badge(BaseModel):
    text: str
    tone: Tone = ""


class Meter(BaseModel):
    """A gauge (stress against the next threshold); ``label`` names it for screen readers."""

    value: float
    max: float
    low: float | None = None
    high: float | None = None
    label: str = ""


class Fact(BaseModel):
    """One line of a card's facts: ``term`` (``Trigger``), then its text and badges."""

    term: str
    text: str
    badges: list[Badge] = Field(default_factory=list)


class Entry(BaseModel):
    """One member of a card's group (a participant of a stand off)."""

    title: str
    note: str = ""
    """Small print after the title (``levels pistol``)."""
    badges: list[Badge] = Field(default_factory=list)
    text: str = ""
    meter: Meter | None = None


class Group(BaseModel):
    """Entries under a heading, side by side with the card's other groups (a side)."""

    heading: str
    entries: list[Entry] = Field(default_factory=list)


class Card(BaseModel):
    key: str
    """Unique within the panel (the page keeps each card's place by it)."""
    title: str
    subtitle: str = ""
    badges: list[Badge] = Field(default_factory=list)
    tone: Literal["", "pending", "ended"] = ""
    """``pending``: waiting for someone; ``ended``: kept for the record."""
    facts: list[Fact] = Field(default_factory=list)
    groups: list[Group] = Field(default_factory=list)


class Column(BaseModel):
    label: str
    numeric: bool = False


class Row(BaseModel):
    key: str
    cells: list[str | None]
    """One per column, the first naming the row; None: not open to him (drawn as a dash)."""
    active: bool = False
    """The row of whoever acts now."""


class PanelTable(BaseModel):
    columns: list[Column]
    rows: list[Row] = Field(default_factory=list)


class Panel(BaseModel):
    id: str
    """Short and unique on the page (``readies``): the section's class and anchor."""
    title: str
    place: Literal["side", "main"] = "side"
    """``side``: beside the initiative order; ``main``: under the map."""
    empty: str = ""
    """What the panel says when it has no row and no card."""
    table: PanelTable | None = None
    cards: list[Card] = Field(default_factory=list)
    hint: str = ""
    """A line of explanation under the content."""


class RoundNotes(BaseModel):
    """What a system adds to the initiative panel: the round's ``phase`` (``"surprise
    round"``) and lines under the order (who sits it out)."""

    phase: str | None = None
    notes: list[str] = Field(default_factory=list)


__all__ = [
    "Badge",
    "Card",
    "Column",
    "Entry",
    "Fact",
    "Group",
    "Meter",
    "Panel",
    "PanelTable",
    "RoundNotes",
    "Row",
    "Tone",
]
