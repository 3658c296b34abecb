"""Which rule refused or decided something: a citation for every ``RuleError`` the rules raise
and for the decisions they announce.

A :class:`Citation` names the source and the rule (a system's short name, ``Initiative``), the
section of ``docs/rules.md`` that gives its source sentence and the reading taken (its anchor),
the world options that shape it, and that sentence and reading themselves, for ``!why``. Each game
system owns the citations of its own rules (:attr:`vttbridge.rules.systems.System.citations`,
a :class:`Citations`); the rules every system shares (the encounter, the action economy) have
theirs here (:data:`SHARED`).

A refusal is looked up from where it was raised: a ``RuleError`` carries its ``code``, and its
traceback the rule module and function that raised it, so a code that several rules raise
(``bad_argument``, ``over_budget``) still finds its own rule and no raise site has to name it.
The keys of :attr:`Citations.refusals`, most specific first:

- ``"module.function:code"``, ``"module:code"``, ``"module.function"``, ``"code"``,
  ``"module"``, where *module* is the last part of the rule module's name (``charge``) and
  *function* the function that raised it (``join``);
- a raise site may also name its key outright with ``RuleError(..., cite="key")`` (kept in
  ``detail``), for one function that raises one code for two rules.

Decisions are keyed by the happening's kind (``"ready_triggered"``), or ``"kind:reason"`` for a
kind several rules produce (``"ic_changed:stand off"``).

Pure: reading a traceback is the only thing done here besides looking up tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from vttbridge.rules.outcome import Happened, RuleError
    from vttbridge.rules.systems import System

RULES_DOC = "https://github.com/vttbridge/vttbridge/blob/main/docs/rules.md"
"""Where ``docs/rules.md`` is read online: a citation's link is this plus its anchor."""

CITE_KEY = "cite"
"""The ``RuleError`` detail that names a citation key outright."""


class Citation(BaseModel):
    """One rule, as the GM may look it up."""

    model_config = ConfigDict(frozen=True)

    source: str
    """Short name of the source text (a system's short name); empty: the rule every
    system shares, cited with the world's system's title."""
    rule: str
    """The rule's name as ``docs/rules.md`` heads it (``"Movement"``, ``"Stand Off 2: the
    cost"``)."""
    anchor: str
    """Its section's anchor in ``docs/rules.md`` (``"movement"``)."""
    options: tuple[str, ...] = ()
    """The world options that shape it (``("diagonal_metric",)``)."""
    quote: str = ""
    """The source sentence, as the text has it (empty for an assumed rule)."""
    reading: str = ""
    """The reading taken where the text is silent or ambiguous, in a sentence or two."""
    doc: str = RULES_DOC
    """The page the anchor is on (a third party's system links its own)."""

    def cited(self, system_source: str, options: Mapping[str, Any], code: str | None) -> Cited:
        """This citation as a chat line carries it: with the world's values of its options
        (``system_source``: the world's system, for a shared rule)."""
        return Cited(
            source=self.source or system_source,
            rule=self.rule,
            url=f"{self.doc}#{self.anchor}",
            options={o: _shown(options[o]) for o in self.options if o in options},
            code=code,
        )


class Cited(BaseModel):
    """A citation as a chat line carries it (``PostChat.cites``): small, and what the dashboard
    shows. The full sentence is the :class:`Citation`'s, for ``!why``."""

    source: str
    rule: str
    url: str
    """The rule's section online (``.../docs/rules.md#movement``)."""
    options: dict[str, str] = Field(default_factory=dict)
    """The options that shaped it, with the world's value of each at the time."""
    code: str | None = None
    """The refusal's code; None for a decision."""

    @property
    def page(self) -> str:
        """``rules.md#movement``: the page and the anchor, short enough for chat."""
        return self.url.rsplit("/", 1)[-1]

    def short(self) -> str:
        """``(Source, Rule, rules.md#rule; option: diagonal_metric = alternating)``."""
        text = f"{self.source}, {self.rule}, {self.page}"
        if self.options:
            shown = ", ".join(f"{k} = {v}" for k, v in self.options.items())
            text += f"; option{'s' if len(self.options) > 1 else ''}: {shown}"
        return f"({text})"


@dataclass(frozen=True)
class Citations:
    """A table of citations: a game system's own, or the shared rules' (:data:`SHARED`)."""

    source: str = ""
    """The short name its system's source goes by in a citation; a shared rule is cited with it
    in that system's worlds (empty: the system's title)."""
    refusals: Mapping[str, Citation] = field(default_factory=dict)
    """Refusal key -> citation (the keys: see the module docstring)."""
    decisions: Mapping[str, Citation] = field(default_factory=dict)
    """Happening kind (or ``"kind:reason"``) -> citation."""

    def refusal(
        self, code: str, module: str | None, function: str | None, key: str | None = None
    ) -> Citation | None:
        """The citation for ``code`` raised in ``module``'s ``function``, most specific key
        first; ``key``: the one the raise site named."""
        for k in refusal_keys(code, module, function, key):
            found = self.refusals.get(k)
            if found is not None:
                return found
        return None

    def decision(self, kind: str, reason: str | None = None) -> Citation | None:
        if reason:
            found = self.decisions.get(f"{kind}:{reason}")
            if found is not None:
                return found
        return self.decisions.get(kind)

    def all(self) -> list[Citation]:
        """Every citation in the table (for the test that checks each anchor)."""
        return [*self.refusals.values(), *self.decisions.values()]


def refusal_keys(
    code: str, module: str | None, function: str | None, key: str | None = None
) -> list[str]:
    """The keys a refusal is looked up by, most specific first."""
    keys = [key] if key else []
    if module and function:
        keys.append(f"{module}.{function}:{code}")
    if module:
        keys.append(f"{module}:{code}")
    if module and function:
        keys.append(f"{module}.{function}")
    keys.append(code)
    if module:
        keys.append(module)
    return keys


def origin(error: BaseException) -> tuple[str | None, str | None]:
    """The rule module (its last name) and the function that raised ``error``, from its
    traceback's innermost frame; (None, None) for an error never raised."""
    tb = error.__traceback__
    if tb is None:
        return None, None
    while tb.tb_next is not None:
        tb = tb.tb_next
    frame = tb.tb_frame
    module = str(frame.f_globals.get("__name__", "")).rsplit(".", 1)[-1] or None
    return module, frame.f_code.co_name


def for_refusal(error: RuleError, system: System | None) -> Citation | None:
    """The citation of ``error``: the world's system's own table first, then the shared
    rules'. None when neither has one (a third party's system may cite nothing)."""
    module, function = origin(error)
    named = error.detail.get(CITE_KEY)
    key = named if isinstance(named, str) else None
    tables = ([system.citations] if system is not None else []) + [SHARED]
    for table in tables:
        found = table.refusal(error.code, module, function, key)
        if found is not None:
            return found
    return None


def for_decision(happened: Happened, system: System | None) -> Citation | None:
    """The citation of a decision the rules announced (``happened``), if its kind has one."""
    reason = happened.data.get("reason")
    tables = ([system.citations] if system is not None else []) + [SHARED]
    for table in tables:
        found = table.decision(happened.kind, reason if isinstance(reason, str) else None)
        if found is not None:
            return found
    return None


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "none"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    return str(getattr(value, "value", value))


# -- the shared rules' citations ------------------------------------------------------------------

ACTION_COSTS = Citation(
    source="",
    rule="Action costs",
    anchor="action-costs",
    reading=(
        "A turn is two half actions or one full action, plus free actions. Half and full "
        "actions may be taken only on his own turn and only while enough is left; free "
        "actions may be taken out of turn."
    ),
)
FREE_ACTIONS = Citation(
    source="",
    rule="Action costs (free actions)",
    anchor="action-costs",
    options=("free_actions_per_turn",),
    reading="Free actions may be taken out of turn and are unlimited, unless the option caps "
    "them per turn (the count resets at his turn's start).",
)
INITIATIVE = Citation(
    source="",
    rule="Initiative",
    anchor="initiative",
    options=("tie_break",),
    reading=(
        "At combat start each character rolls initiative, his Initiative Count; each round "
        "counts down from the highest. A character joining a running combat acts this round "
        "only if the count has not yet passed his IC."
    ),
)
ENCOUNTER = Citation(
    source="",
    rule="Encounter and initiative",
    anchor="encounter-and-initiative",
    reading="The rules act on the characters of the world and the combatants in its combat.",
)
DISTANCE = Citation(
    source="",
    rule="Distance",
    anchor="distance",
    options=("diagonal_metric",),
    reading=(
        "Positions are grid cells; how far one cell is comes from the VTT, and diagonals "
        "follow the world's metric."
    ),
)
CHARACTERS = Citation(
    source="",
    rule="Characters",
    anchor="characters",
    reading="A rule names characters the world knows (its tokens and their sheets).",
)

SHARED = Citations(
    refusals={
        "free actions": FREE_ACTIONS,
        "actions": ACTION_COSTS,
        "no_budget": ACTION_COSTS,
        "not_your_turn": ACTION_COSTS,
        "unknown_action": ACTION_COSTS,
        "encounter.join_combat": INITIATIVE,
        "encounter.start_combat": INITIATIVE,
        "encounter.next_turn": INITIATIVE,
        "encounter.leave_combat": INITIATIVE,
        "encounter.distance": DISTANCE,
        "no_position": DISTANCE,
        "unknown_character": CHARACTERS,
        "encounter": ENCOUNTER,
    },
)
"""Citations of the rules every system shares (``rules/``)."""


__all__ = [
    "CITE_KEY",
    "RULES_DOC",
    "SHARED",
    "Citation",
    "Citations",
    "Cited",
    "for_decision",
    "for_refusal",
    "origin",
    "refusal_keys",
]
