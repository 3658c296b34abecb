"""A refusal as a player or the GM was told of it: the rules' sentence, the numbers, and the
rule that refused (its citation). What ``!why`` explains and ``ctx.last_refusal()`` returns."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field
from vttbridge.rules.citations import Citation, Cited


class RefusalRecord(BaseModel):
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

    def explained(self) -> str:
        """The refusal in full, for ``!why``: what was refused, the rule and its link, the
        source sentence and the reading taken, the numbers, the options and their values."""
        lines = [f"Why: {self.message}"]
        cite, full = self.cited, self.citation
        if cite is None or full is None:
            lines.append(
                f"No rule page names this refusal ({self.code}): it comes from a game system or a "
                "script that cites none."
            )
        else:
            lines.append(f"Rule: {cite.source}, {full.rule}: {cite.url}")
            if full.quote:
                lines.append(f"The text: \u201c{full.quote}\u201d")
            if full.reading:
                label = "The reading taken" if full.quote else "The rule (the text is silent)"
                lines.append(f"{label}: {full.reading}")
        numbers = {k: v for k, v in self.detail.items() if not isinstance(v, str) or k == "needs"}
        if numbers:
            lines.append("The numbers: " + ", ".join(f"{k} {_num(v)}" for k, v in numbers.items()))
        if cite is not None and cite.options:
            shown = ", ".join(f"{k} = {v}" for k, v in cite.options.items())
            name = next(iter(cite.options))
            lines.append(f"Options: {shown} (the GM changes one with !set {name} <value>)")
        lines.append(f"Code: {self.code}")
        return "\n".join(lines)


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


__all__ = ["RefusalRecord"]
