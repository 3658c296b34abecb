"""Per-system mapping tables: Foundry actor data to the rules' character stats.

A table is a JSON file named after the Foundry game system id (``game.system.id``), e.g.
``dnd5e.json``. It lists, for each stat of :class:`vttbridge.rules.characters.Character`, the
document paths to read, first match wins::

    {
      "system": "mysystem",
      "title": "My System",
      "extends": "default",
      "stats": {
        "reflex": ["system.saves.reflex.total", "system.saves.ref.value"],
        "dex_bonus": [{"path": "system.abilities.dex.value", "transform": "modifier"}],
        "kind": [{"path": "type", "map": {"npc": "standard", "character": "special"}}],
        "*": ["system.attributes.{stat}.value"]
      }
    }

A rule is a dotted path, or an object with ``path`` and optionally ``map`` (value lookup),
``transform`` (``"modifier"``: d20 ability modifier; ``"int"``, ``"float"``, ``"bool"``),
``scale`` and ``offset`` (``value * scale + offset``). ``"*"`` applies to every stat, with
``{stat}`` replaced by the stat's name. Own rules are tried before the ones of ``extends``.
Values are coerced to the stat's type; one that cannot be (text in a number field) is skipped
with a warning, never an error: actor sheets hold all sorts of things.

The same rules write back what the rules change (``vttbridge.rules.characters.RULES_OWNED``: action
dice, stress, wound and vitality points): to the path the value was read from (``scale``/``offset``
undone), else to the table's first plain path for the stat (for the default table
``flags.vttbridge.stats.<stat>``, which every later read tries first). A value read through
``map`` or ``modifier`` cannot be written back: the sheet keeps its own, the rules theirs.

``conditions`` maps the conditions the rules put on a character (``vttbridge.rules.conditions``) to
the Foundry status effect that shows them on the token: an object with the status ``id`` and, for a
status the module registers itself, its ``name`` and ``img``; ``null`` shows nothing::

    "conditions": {
      "dead": {"id": "dead"},
      "readied": {"id": "vttbridge-readied", "name": "Readied", "img": "icons/svg/sword.svg"}
    }

Tables are found in this folder, then in the folders of ``VTTBRIDGE_FOUNDRY_SYSTEMS``
(``os.pathsep``-separated, later ones win), then in those passed to :func:`load_tables`. A module
author ships a table for another game system by dropping a file in one of them, or by calling
:func:`register_table` from their own package.
"""

from __future__ import annotations

import json
import logging
import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, get_args

from vttbridge.rules.characters import Character, ability_modifier

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
ENV_VAR = "VTTBRIDGE_FOUNDRY_SYSTEMS"
DEFAULT = "default"
UNMAPPED = frozenset({"id", "name", "conditions"})
"""Character fields no table maps (identity, and rule state the runtime owns)."""
MISSING = object()


class SystemTable:
    """One loaded table, with its parent resolved."""

    def __init__(self, data: Mapping[str, Any], parent: SystemTable | None = None) -> None:
        self.system = str(data.get("system", ""))
        self.title = str(data.get("title", self.system))
        self.parent = parent
        stats = data.get("stats", {})
        if not isinstance(stats, Mapping):
            raise ValueError(f"system table {self.system!r}: 'stats' must be an object")
        self.stats: dict[str, list[dict[str, Any]]] = {}
        for stat, rules in stats.items():
            if stat != "*" and stat not in Character.model_fields:
                raise ValueError(f"system table {self.system!r}: unknown stat {stat!r}")
            self.stats[stat] = [_rule(r, self.system, stat) for r in _as_list(rules)]
        conditions = data.get("conditions", {})
        if not isinstance(conditions, Mapping):
            raise ValueError(f"system table {self.system!r}: 'conditions' must be an object")
        self.conditions: dict[str, dict[str, Any] | None] = {
            str(c): _status(v, self.system, str(c)) for c, v in conditions.items()
        }

    def rules(self, stat: str) -> list[dict[str, Any]]:
        own = [*self.stats.get(stat, ()), *self.stats.get("*", ())]
        return own + (self.parent.rules(stat) if self.parent else [])

    def status(self, condition: str) -> dict[str, Any] | None:
        """The status effect showing ``condition`` (``{"id", "name"?, "img"?}``), or None."""
        if condition in self.conditions:
            return self.conditions[condition]
        return self.parent.status(condition) if self.parent else None

    def write_rule(self, stat: str) -> dict[str, Any] | None:
        """Where to write ``stat`` when it was not read from the sheet: the first plain path."""
        for rule in self.rules(stat):
            if set(rule) == {"path"}:
                return {"path": rule["path"].replace("{stat}", stat)}
        return None

    def map(
        self, doc: Mapping[str, Any], paths: dict[str, dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        """Stats found in ``doc`` (a full actor document or an update's differential).
        ``paths``, when given, receives the rule each stat was read with (its path filled in)."""
        out: dict[str, Any] = {}
        for stat, field in Character.model_fields.items():
            if stat in UNMAPPED:
                continue
            for rule in self.rules(stat):
                path = rule["path"].replace("{stat}", stat)
                raw = _get(doc, path)
                if raw is MISSING or raw is None:
                    continue
                value = _apply(rule, raw)
                coerced = _coerce(value, field.annotation)
                if coerced is MISSING:
                    log.warning(
                        "Actor stat %s: cannot use %r from %s (%s table)",
                        stat,
                        raw,
                        rule["path"],
                        self.system,
                    )
                    continue
                out[stat] = coerced
                if paths is not None:
                    paths[stat] = {**rule, "path": path}
                break
        return out


def write_value(rule: Mapping[str, Any], value: Any) -> tuple[str, Any] | None:
    """``(path, value to store)`` that reads back as ``value`` under ``rule``, or None when the
    rule cannot be undone (``map``, ``modifier``)."""
    if "map" in rule or rule.get("transform") == "modifier":
        return None
    if "scale" in rule or "offset" in rule:
        scale = rule.get("scale", 1)
        if not scale:
            return None
        raw = (value - rule.get("offset", 0)) / scale
        value = int(raw) if float(raw).is_integer() else raw
    return str(rule["path"]), value


def _status(value: Any, system: str, condition: str) -> dict[str, Any] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = {"id": value}
    if isinstance(value, Mapping) and isinstance(value.get("id"), str) and value["id"]:
        return {k: str(v) for k, v in value.items() if k in ("id", "name", "img")}
    raise ValueError(
        f"system table {system!r}, condition {condition!r}: a status is {{'id': ...}} or null"
    )


def _as_list(rules: Any) -> list[Any]:
    return list(rules) if isinstance(rules, list) else [rules]


def _rule(rule: Any, system: str, stat: str) -> dict[str, Any]:
    if isinstance(rule, str):
        return {"path": rule}
    if isinstance(rule, Mapping) and isinstance(rule.get("path"), str):
        return dict(rule)
    raise ValueError(f"system table {system!r}, stat {stat!r}: a rule is a path or {{'path': ...}}")


def _get(doc: Any, path: str) -> Any:
    cur = doc
    for part in path.split("."):
        if isinstance(cur, Mapping) and part in cur:
            cur = cur[part]
        else:
            return MISSING
    return cur


def _apply(rule: Mapping[str, Any], value: Any) -> Any:
    if "map" in rule:
        value = rule["map"].get(str(value), MISSING)
        if value is MISSING:
            return MISSING
    transform = rule.get("transform")
    if transform or "scale" in rule or "offset" in rule:
        num = _number(value)
        if num is None:
            return MISSING
        if transform == "modifier":
            num = ability_modifier(math.floor(num))
        value = num * rule.get("scale", 1) + rule.get("offset", 0)
    return value


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            num = float(value.strip())
        except ValueError:
            return None
        return num if math.isfinite(num) else None
    return None


def _coerce(value: Any, annotation: Any) -> Any:
    if value is MISSING:
        return MISSING
    if annotation is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        return MISSING
    if annotation is int:
        num = _number(value)
        return MISSING if num is None else math.floor(num)
    if annotation is float:
        num = _number(value)
        return MISSING if num is None else num
    allowed = get_args(annotation)
    if allowed:  # a Literal
        for option in allowed:
            if value == option or str(value) == str(option):
                return option
        return MISSING
    return value


class SystemTables:
    """All known tables by system id; :meth:`get` falls back to ``default``."""

    def __init__(self, dirs: Iterable[str | Path] = ()) -> None:
        self._raw: dict[str, dict[str, Any]] = {}
        self._tables: dict[str, SystemTable] = {}
        for folder in [HERE, *_env_dirs(), *map(Path, dirs)]:
            self.load_dir(folder)

    def load_dir(self, folder: Path) -> None:
        if not folder.is_dir():
            log.warning("Foundry system tables: %s is not a folder", folder)
            return
        for path in sorted(folder.glob("*.json")):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                log.error("Foundry system table %s cannot be read: %s", path, e)
                continue
            data.setdefault("system", path.stem)
            try:
                self.add(data)
            except ValueError as e:
                log.error("Foundry system table %s is invalid: %s", path, e)

    def add(self, data: Mapping[str, Any]) -> None:
        """Add or replace a table (validated at once, so a bad table never half-loads)."""
        system = str(data.get("system") or "")
        if not system:
            raise ValueError("a system table needs a 'system' id")
        raw = dict(self._raw)
        raw[system] = dict(data)
        tables = _build(raw)
        self._raw, self._tables = raw, tables

    def get(self, system: str | None) -> SystemTable:
        table = self._tables.get(system or DEFAULT) or self._tables.get(DEFAULT)
        if table is None:
            raise LookupError("no default Foundry system table")
        return table

    def __contains__(self, system: object) -> bool:
        return system in self._tables

    def names(self) -> list[str]:
        return sorted(self._tables)


def _build(raw: Mapping[str, Mapping[str, Any]]) -> dict[str, SystemTable]:
    built: dict[str, SystemTable] = {}

    def make(system: str, seen: tuple[str, ...]) -> SystemTable:
        if system in built:
            return built[system]
        if system in seen:
            raise ValueError(f"system tables extend each other in a loop: {' -> '.join(seen)}")
        data = raw[system]
        parent_name = data.get("extends")
        if parent_name is None and system != DEFAULT and DEFAULT in raw:
            parent_name = DEFAULT
        if parent_name is not None and parent_name not in raw:
            raise ValueError(f"system table {system!r} extends unknown {parent_name!r}")
        parent = make(parent_name, (*seen, system)) if parent_name else None
        built[system] = SystemTable(data, parent)
        return built[system]

    for name in raw:
        make(name, ())
    return built


def _env_dirs() -> list[Path]:
    value = os.environ.get(ENV_VAR, "")
    return [Path(p) for p in value.split(os.pathsep) if p]


_tables: SystemTables | None = None


def tables() -> SystemTables:
    """The process-wide tables, loaded on first use."""
    global _tables
    if _tables is None:
        _tables = SystemTables()
    return _tables


def load_tables(dirs: Iterable[str | Path]) -> SystemTables:
    """Reload the process-wide tables with extra folders."""
    global _tables
    _tables = SystemTables(dirs)
    return _tables


def register_table(data: Mapping[str, Any]) -> None:
    """Add a table from code (a module author's package)."""
    tables().add(data)


def map_actor(
    doc: Mapping[str, Any], system: str | None, paths: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Character stats of an actor document (or differential) under ``system``'s table
    (``paths``: see :meth:`SystemTable.map`)."""
    return tables().get(system).map(doc, paths)
