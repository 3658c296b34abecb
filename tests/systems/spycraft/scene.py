"""Shared set-up for the Spycraft encounter tests: characters, a started combat, scripted dice,
and a check that an illegal request raises and leaves the encounter exactly as it was."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vttbridge.rules.characters import Character
from vttbridge.rules.dice import ScriptedRoller
from vttbridge.rules.encounter import Encounter, add_character, next_turn, start_combat
from vttbridge.rules.options import Options
from vttbridge.rules.outcome import Outcome, RuleError

from tests.rules.refusals import refused

# The cast of the Ready example: Kevin readies at IC 22; his ally rounds the corner at IC 14; a
# second person comes at IC 10. Dana (IC 25) acts before Kevin, so the following round has a
# count above 22 at which a carried-over Ready can fire.
KEVIN_SCENE: dict[str, dict[str, Any]] = {
    "dana": {"initiative": 4, "reflex": 1},
    "kevin": {"initiative": 3, "reflex": 5},
    "ally": {"initiative": 1, "reflex": 2},
    "guard": {"initiative": 0, "reflex": 0},
}
KEVIN_ICS = {"dana": 25, "kevin": 22, "ally": 14, "guard": 10}


def make(
    stats: dict[str, dict[str, Any]],
    ics: dict[str, int] | None = None,
    faces: tuple[int, ...] = (),
    **options: Any,
) -> tuple[Encounter, ScriptedRoller]:
    """An encounter with ``stats`` as characters, in combat at ``ics`` (rolled from ``faces``
    when not given), on its first turn."""
    enc = Encounter(options=Options(**options))
    for cid, kw in stats.items():
        add_character(enc, Character(id=cid, name=cid.title(), **kw))
    roller = ScriptedRoller(faces)
    start_combat(enc, list(stats), roller, ics=ics)
    return enc, roller


def kevin_scene(**options: Any) -> tuple[Encounter, ScriptedRoller]:
    """Round 1, Kevin's turn (Dana at IC 25 has just passed)."""
    enc, roller = make(KEVIN_SCENE, KEVIN_ICS, **options)
    assert enc.active == "dana"
    next_turn(enc, roller)
    assert (enc.active, enc.count) == ("kevin", 22)
    return enc, roller


def turns(out: Outcome) -> list[tuple[str | None, int]]:
    """(actor, IC) of every turn started in ``out``."""
    return [(h.actor, h.data["ic"]) for h in out.happened if h.kind == "turn_started"]


def rejects(enc: Encounter, code: str, call: Callable[[], object]) -> RuleError:
    """``call`` raises RuleError ``code`` with a sentence for chat, and the encounter is left
    exactly as it was."""
    err = refused(enc, code, lambda _enc: call())
    assert err.message
    return err
