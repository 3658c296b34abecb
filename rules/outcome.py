"""What a rule call returns: happenings, rolls and pending player choices, as data."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field
from vttbridge.rules.dice import Roll
from vttbridge.rules.refusal import Refusal


class RuleError(Refusal):
    """An illegal request. Raised before any state changes, so the caller's state is untouched.

    ``code`` is a stable machine-readable string (``"no_budget"``, ``"out_of_range"``...);
    ``message`` is a sentence a GM can read in chat; ``detail`` the figures behind it.
    """

    def __init__(self, code: str, message: str, **detail: Any) -> None:
        super().__init__(code, message, **detail)


class Happened(BaseModel):
    """One thing that happened: ``kind`` is stable (``"ic_changed"``, ``"ready_fired"``...),
    ``text`` is the sentence shown in chat, ``data`` the details a script may read."""

    kind: str
    actor: str | None = None
    text: str = ""
    data: dict[str, Any] = Field(default_factory=dict)


class Choice(BaseModel):
    """A decision the rules need from a player before they can go on.

    The runtime turns it into a prompt; the answer comes back through the rule function named
    by ``kind`` (see each rule module). ``default`` is what happens when nobody answers.
    """

    id: str
    kind: str
    actor: str
    question: str
    options: list[str]
    default: str
    data: dict[str, Any] = Field(default_factory=dict)


class Outcome(BaseModel):
    """Everything a rule call produced, in order."""

    happened: list[Happened] = Field(default_factory=list)
    rolls: list[Roll] = Field(default_factory=list)
    choices: list[Choice] = Field(default_factory=list)

    def add(self, kind: str, actor: str | None = None, text: str = "", **data: Any) -> Happened:
        h = Happened(kind=kind, actor=actor, text=text, data=data)
        self.happened.append(h)
        return h

    def kinds(self) -> list[str]:
        return [h.kind for h in self.happened]

    def extend(self, other: Outcome) -> Outcome:
        self.happened.extend(other.happened)
        self.rolls.extend(other.rolls)
        self.choices.extend(other.choices)
        return self
