"""A refusal as a player or the GM was told of it: the rules' sentence, the numbers, and the
rule that refused (its citation). What ``!why`` explains and ``ctx.last_refusal()`` returns."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field
from vttbridge.rules.citations import Citation, Cited


class Refusal(BaseModel):
    """One refusal as it was told: what ``!why`` explains."""

    code: str
    message: str
    """The rules' sentence (``RuleError.message``)."""
    to: str
    """Whom it was for: a player id, or ``"gm"``."""
    at: float
    """When (the world's clock)."""
    cited: Cited | None = None
    citation: Citation | None = None
    """The rule in full (its sentence and reading); None when no table cites it."""
    detail: dict[str, Any] = Field(default_factory=dict)
    """The numbers the rule gave (``allowed``, ``length``...), as JSON."""


__all__ = ["Refusal"]
