"""Skirmish's rules: pure (no I/O; dice through the roller), like vttbridge's own."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field
from vttbridge.rules import actions
from vttbridge.rules.dice import Roller
from vttbridge.rules.encounter import Encounter
from vttbridge.rules.outcome import Outcome
from vttbridge.rules.systems import Kind

NAME = "skirmish"
STRIKE = "strike"
STRIDE = "stride"
SHIELD = "raise shield"


class SkirmishState(BaseModel):
    shields: list[str] = Field(default_factory=list)
    """Who has a shield raised (until his next turn)."""


class SkirmishOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    skirmish_shield_bonus: int = Field(2, ge=0, le=10)
    """What a raised shield adds to Defense."""


def costs() -> Mapping[str, Kind]:
    return {STRIKE: "half", STRIDE: "half", SHIELD: "half"}


def words() -> Mapping[Kind, str]:
    return {
        "free": "a free action",
        "half": "1 action",
        "full": "2 actions",
        "move": "1 action",
        "none": "no action",
    }


def state(enc: Encounter) -> SkirmishState:
    return enc.state(NAME, SkirmishState)


def options(enc: Encounter) -> SkirmishOptions:
    return enc.options.of(SkirmishOptions)


def raise_shield(enc: Encounter, actor: str) -> Outcome:
    """Raise a shield: one action; it stays up until his next turn."""
    actions.take(enc, actor, SHIELD)
    shields = state(enc).shields
    if actor not in shields:
        shields.append(actor)
    out = Outcome()
    bonus = options(enc).skirmish_shield_bonus
    out.add("shield_raised", actor, f"{enc.name(actor)} raises a shield (+{bonus} Defense).")
    return out


def shield_down(enc: Encounter, roller: Roller, out: Outcome) -> None:
    """A turn's start: the shield he raised last turn comes down."""
    shields = state(enc).shields
    if enc.active in shields:
        shields.remove(enc.active)
        out.add("shield_lowered", enc.active, f"{enc.name(enc.active)} lowers his shield.")
