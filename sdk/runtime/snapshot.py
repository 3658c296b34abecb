"""Snapshot and restore: a world's whole state as JSON (with the roller's RNG state), and the
readable state view.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError
from vttbridge.rules import systems
from vttbridge.rules.dice import Roller, ScriptedRoller
from vttbridge.rules.encounter import Encounter
from vttbridge.sdk.world.model import World

SNAPSHOT_FORMAT = 2
"""2: each game system's state under ``encounter.states``; format 1 kept it beside the
encounter's own fields, under the system's name (read, and moved, by :func:`read_snapshot`)."""


class _SnapshotDoc(BaseModel):
    """``WorldRuntime.snapshot()``'s shape, for reading its JSON text in one pass."""

    format: int
    world_id: str = ""
    world: World
    roller: dict[str, Any] = {}


def snapshot(world_id: str, world: World, roller: Roller) -> dict[str, Any]:
    """Full JSON-able state, including the roller's RNG state, so restore + replay of the
    same events reaches the same state (see :meth:`vttbridge.sdk.runtime.WorldRuntime.snapshot`)."""
    return {
        "format": SNAPSHOT_FORMAT,
        "world_id": world_id,
        # defaults left out: a quarter of the JSON, and a restored world whose models
        # carry only the fields that differ (pydantic keeps a set of the given ones)
        "world": world.model_dump(mode="json", exclude_defaults=True),
        "roller": roller_state(roller),
    }


def read_snapshot(data: Mapping[str, Any] | str | bytes) -> tuple[World, dict[str, Any]]:
    """The world and the roller's state in what :func:`snapshot` made (the dict, or its JSON
    text: read straight into the models, which costs less time and leaves less garbage).
    Raises ``ValueError`` for another format, pydantic's ``ValidationError`` for a bad one."""
    if isinstance(data, str | bytes):
        try:
            doc = _SnapshotDoc.model_validate_json(data)
        except ValidationError:
            return read_snapshot(json.loads(data))  # says what is wrong
        if doc.format == SNAPSHOT_FORMAT:
            return doc.world, doc.roller
        return read_snapshot(json.loads(data))  # an older format, or a refusal
    if data.get("format") == 1:
        data = _from_format_1(data)
    if data.get("format") != SNAPSHOT_FORMAT:
        raise ValueError(f"unsupported snapshot format {data.get('format')!r}")
    return World.model_validate(data["world"]), dict(data.get("roller") or {})


def _from_format_1(data: Mapping[str, Any]) -> dict[str, Any]:
    """A format 1 snapshot as format 2: each installed system's state, kept beside the
    encounter's fields under its name, moved under ``states``."""
    world = dict(data.get("world") or {})
    enc = dict(world.get("encounter") or {})
    states = dict(enc.get("states") or {})
    for name in systems.names():
        if name not in Encounter.model_fields and isinstance(enc.get(name), Mapping):
            states[name] = enc.pop(name)
    if states:
        enc["states"] = states
    world["encounter"] = enc
    return {**data, "format": SNAPSHOT_FORMAT, "world": world}


def state_view(world_id: str, world: World, scripts: Iterable[str]) -> dict[str, Any]:
    """A readable JSON summary of ``world`` (see
    :meth:`vttbridge.sdk.runtime.WorldRuntime.state_view`)."""
    w, enc = world, world.encounter
    order = enc.order() if enc.combatants else []
    return {
        "world": world_id,
        "system": enc.options.system,
        "scene": w.active_scene,
        "tokens": {
            t.id: {
                "name": t.display,
                "cell": [t.cell.x, t.cell.y],
                "actor": t.actor,
                "owners": t.owners,
                "hidden": t.hidden,
            }
            for t in w.tokens.values()
        },
        "encounter": {
            "in_combat": enc.in_combat,
            "round": enc.round,
            "count": enc.count,
            "active": enc.active,
            "actions_per_turn": enc.turn_budget,
        },
        "initiative": [
            {
                "token": c,
                "name": enc.name(c),
                "ic": enc.combatants[c].ic,
                "acted": enc.combatants[c].acted,
            }
            for c in order
        ],
        # each game system's state (its Readies, stand offs, surprise round...), by name
        "systems": {
            name: state.model_dump(mode="json") if isinstance(state, BaseModel) else state
            for name, state in enc.states.items()
        },
        "prompts": [p.model_dump(mode="json") for p in w.prompts.values()],
        "regions": {n: len(r.cells) for n, r in w.regions.items()},
        "scripts": sorted(scripts),
        "options": enc.options.shown(),
        "settings": w.settings.model_dump(mode="json"),
    }


def roller_state(roller: Roller) -> dict[str, Any]:
    version, internal, gauss = roller.rng.getstate()
    state: dict[str, Any] = {
        "kind": "scripted" if isinstance(roller, ScriptedRoller) else "random",
        "rng": [version, list(internal), gauss],
    }
    if isinstance(roller, ScriptedRoller):
        state["script"] = list(roller.script)
    return state


def roller_from_state(state: Mapping[str, Any]) -> Roller:
    roller: Roller
    if state.get("kind") == "scripted":
        roller = ScriptedRoller(state.get("script", []))
    else:
        roller = Roller()
    rng = state.get("rng")
    if rng:
        version, internal, gauss = rng
        roller.rng.setstate((version, tuple(internal), gauss))
    return roller
