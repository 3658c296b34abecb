"""The Roll20 turn order: parsing ``Campaign().get("turnorder")`` and merging the bridge's changes
into it without clobbering rows the bridge does not own.

The turn order is a JSON *string* of rows ``{id, pr, custom, _pageid, formula?}``; ``""`` means
empty. Index 0 is the current turn and advancing rotates the array. Custom rows have id ``"-1"``
(a "Round" counter, a lair action...). ``pr`` may be a number or a string.

:func:`merge_turnorder` is the reference of the merge the Mod script does when it applies a
``Campaign.set`` command; the Mod's JavaScript mirrors it step by step, and both are tested against
the same cases (``tests/adapters/roll20/merge_cases.json``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from vttbridge.adapters.roll20.models import TurnOrderPatch
from vttbridge.rules.numbers import MAX_NUMBER, finite_or_none

CUSTOM_ID = "-1"
_ROUND = re.compile(r"^\s*round\b", re.IGNORECASE)


class TurnEntry(BaseModel):
    """One row of the turn order. Unknown keys (``formula``...) are kept."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    id: str
    pr: Any = ""
    custom: str = ""
    pageid: str | None = Field(None, alias="_pageid")

    @property
    def is_custom(self) -> bool:
        return self.id == CUSTOM_ID

    @property
    def is_round_counter(self) -> bool:
        return self.is_custom and bool(_ROUND.match(self.custom or ""))

    @property
    def ic(self) -> int | None:
        return pr_value(self.pr)

    def dump(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_none=True)


class TurnOrderError(ValueError):
    """A turn order that is not a JSON list of rows with an ``id``."""


def pr_value(pr: Any) -> int | None:
    """``pr`` as an Initiative Count: ``"12"`` -> 12, ``12.7`` -> 12, ``""``/``"x"`` -> None."""
    if isinstance(pr, bool):
        return None
    if isinstance(pr, int):
        return pr if -MAX_NUMBER <= pr <= MAX_NUMBER else None
    if isinstance(pr, float):
        value = finite_or_none(pr)
    elif isinstance(pr, str):
        try:
            value = finite_or_none(float(pr.strip()))
        except ValueError:
            return None
    else:
        return None
    return None if value is None else int(value)


def parse_turnorder(raw: Any) -> list[TurnEntry]:
    """Rows of a turn order given as Roll20 stores it (a JSON string), or already parsed."""
    if raw is None or raw is False or raw == "":
        return []
    data = raw
    if isinstance(raw, str):
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as e:
            raise TurnOrderError(f"the turn order is not JSON ({e.msg})") from None
    if not isinstance(data, list):
        raise TurnOrderError("the turn order must be a JSON list of rows")
    rows = []
    for i, item in enumerate(data):
        if not isinstance(item, dict):
            raise TurnOrderError(f"row {i} of the turn order is not an object")
        item = {**item, "id": str(item.get("id", ""))}
        if not item["id"]:
            raise TurnOrderError(f"row {i} of the turn order has no id")
        try:
            rows.append(TurnEntry.model_validate(item))
        except ValidationError as e:
            raise TurnOrderError(f"row {i} of the turn order: {e.errors()[0]['msg']}") from None
    return rows


def dump_turnorder(rows: list[TurnEntry]) -> str:
    """The JSON string Roll20 stores (``""`` is never produced: an empty order is ``"[]"``)."""
    return json.dumps([r.dump() for r in rows])


def round_counter(rows: list[TurnEntry]) -> TurnEntry | None:
    return next((r for r in rows if r.is_round_counter), None)


def merge_turnorder(rows: list[TurnEntry], patch: TurnOrderPatch) -> list[TurnEntry]:
    """Apply ``patch`` to the live ``rows``; rows the patch does not name keep their place.

    1. ``remove``: drop the token rows with those ids (custom rows are never removed).
    2. ``set``: set ``pr`` of the row with that id (the first one), or append a new row.
    3. ``order``: the rows whose id is in ``order`` (the bridge's) are re-sorted, in acting order,
       among the slots they occupy; every other row stays in its slot. Slots are read cyclically,
       starting after the round counter row if there is one, else at the slot of the bridge row
       that acts first, so the round's top is where the order begins.
    4. ``round``: the round counter row (a custom row whose label starts with "Round") gets
       ``pr = round``; without one, nothing is added.
    5. ``current``: rotate the whole list so that token's row is at index 0. Without ``current``
       the row that was at index 0 before the merge stays there (if it still exists).
    """
    before_first = rows[0].id if rows else None
    out = [r.model_copy(deep=True) for r in rows]
    removed = set(patch.remove)
    out = [r for r in out if r.is_custom or r.id not in removed]
    for row in patch.set:
        hit = next((r for r in out if r.id == row.id), None)
        if hit is not None:
            hit.pr = row.pr
        else:
            new = TurnEntry(id=row.id, pr=row.pr, custom=row.custom, pageid=row.pageid)
            out.append(new)
    if patch.order is not None and out:
        out = _reorder(out, patch.order)
    if patch.round is not None:
        counter = round_counter(out)
        if counter is not None:
            counter.pr = patch.round
    target = patch.current if patch.current is not None else before_first
    if target is not None:
        idx = next((i for i, r in enumerate(out) if r.id == target), None)
        if idx is not None:
            out = out[idx:] + out[:idx]
    return out


def _reorder(rows: list[TurnEntry], order: list[str]) -> list[TurnEntry]:
    rank = {tid: i for i, tid in enumerate(order)}
    owned = [i for i, r in enumerate(rows) if not r.is_custom and r.id in rank]
    if len(owned) < 2:
        return rows
    n = len(rows)
    counter = next((i for i, r in enumerate(rows) if r.is_round_counter), None)
    first = min(owned, key=lambda i: rank[rows[i].id])
    start = first if counter is None else (counter + 1) % n
    owned_set = set(owned)
    slots = [i for i in ((start + k) % n for k in range(n)) if i in owned_set]
    ranked = sorted((rows[i] for i in owned), key=lambda r: rank[r.id])
    out = list(rows)
    for slot, row in zip(slots, ranked, strict=True):
        out[slot] = row
    return out
