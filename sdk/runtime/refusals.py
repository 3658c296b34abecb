"""Refusals told in chat, each with the rule that refused (its citation), and the last of them
kept for ``!why``; the citations of the decisions a rule outcome announces.

A refusal is a :class:`vttbridge.rules.outcome.RuleError` the world's player or GM is told
about: a move put back, a command the rules refused, a cost the budget no longer allows. Its
chat line ends with the short citation (``(Source, Rule, rules.md#rule; option:
diagonal_metric = alternating)``), and the :class:`vttbridge.sdk.effects.PostChat` carries it
as data (``cites``: the dashboard shows it, the log keeps it). The last refusal each player was
told of, and the last of all, stay in memory while the world runs; ``!why`` explains one in full.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from vttbridge.rules import citations
from vttbridge.rules.citations import Citation, Cited
from vttbridge.rules.outcome import Happened, RuleError
from vttbridge.rules.systems import System
from vttbridge.sdk.clock import Clock
from vttbridge.sdk.effects import PostChat
from vttbridge.sdk.refusal_record import RefusalRecord
from vttbridge.sdk.runtime.step import CurrentStep
from vttbridge.sdk.world import World

GM = "gm"


class Refusals:
    """Tells refusals with their citation, and keeps the last one each player was told of."""

    def __init__(self, world: World, step: CurrentStep, clock: Clock) -> None:
        self._world = world
        self._step = step
        self._clock = clock
        self._last: dict[str, RefusalRecord] = {}
        self._latest: RefusalRecord | None = None

    # -- citing ----------------------------------------------------------------------------
    def cite(self, error: RuleError) -> tuple[Citation | None, Cited | None]:
        """The rule that raised ``error``, in full and as a chat line carries it."""
        enc = self._world.encounter
        system = enc.system
        found = citations.for_refusal(error, system)
        if found is None:
            return None, None
        return found, found.cited(_source(system), enc.options.shown(), error.code)

    def decisions(self, happened: Iterable[Happened]) -> list[tuple[Happened, Cited]]:
        """The happenings among ``happened`` that are decisions with a citation, each with it."""
        enc = self._world.encounter
        system = enc.system
        out: list[tuple[Happened, Cited]] = []
        shown: dict[str, Any] | None = None
        for h in happened:
            found = citations.for_decision(h, system) if h.text else None
            if found is not None:
                shown = enc.options.shown() if shown is None else shown
                out.append((h, found.cited(_source(system), shown, None)))
        return out

    # -- telling ---------------------------------------------------------------------------
    def tell(self, error: RuleError, to: str, text: str | None = None) -> RefusalRecord:
        """Whisper ``text`` (the rules' message unless given) to ``to`` (a player id or
        ``"gm"``) with the rule's citation, and keep it as ``to``'s last refusal."""
        refusal = self.note(error, to)
        self.emit(text or error.message, to, refusal)
        return refusal

    def note(self, error: RuleError, to: str) -> RefusalRecord:
        """Keep ``error`` as ``to``'s last refusal (told by the caller: :meth:`emit`)."""
        full, cited = self.cite(error)
        refusal = RefusalRecord(
            code=error.code,
            message=error.message,
            to=to,
            at=self._clock.now(),
            cited=cited,
            citation=full,
            detail=_json(error.detail),
        )
        self._last[to] = refusal
        self._latest = refusal
        return refusal

    def emit(self, text: str, to: str, refusal: RefusalRecord) -> None:
        """Whisper ``text`` to ``to`` with ``refusal``'s short citation."""
        cites = [refusal.cited] if refusal.cited is not None else []
        line = f"{text} {refusal.cited.short()}" if refusal.cited is not None else text
        self._step.emit(PostChat(text=line, whisper_to=to, cites=cites))

    # -- reading ---------------------------------------------------------------------------
    def last(self, to: str | None = None) -> RefusalRecord | None:
        """The last refusal ``to`` was told of; None: the last of all."""
        return self._latest if to is None else self._last.get(to)


def _source(system: System) -> str:
    """What a shared rule's citation calls the world's system."""
    return system.citations.source or system.title


def _json(detail: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in detail.items():
        if k == citations.CITE_KEY:
            continue
        out[k] = v if isinstance(v, str | int | float | bool) or v is None else str(v)
    return out


__all__ = ["GM", "Refusals"]
