"""JSON Schemas of every payload on the wire, for module authors (``vttbridge schema``).

Layout of the output directory::

    index.json                      what each file describes
    protocol/<model>.json           the envelope: auth, acks, command, command ack, refusal
    <adapter>/in/<event>.json       each adapter's inbound payloads ({"id", ...native})
    <adapter>/out/<op>.json         the ``data`` of each command op an adapter documents
    dashboard/in/, dashboard/out/   the dashboard's namespace (answer; welcome, view)
    domain/event.json, effect.json  the VTT-neutral domain events and effects
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, TypeAdapter
from vttbridge.adapters.base import Adapter
from vttbridge.adapters.bridge.protocol import ENVELOPE_MODELS, PROTOCOL_VERSION

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _safe(name: str) -> str:
    # VTT event names hold ':' (Roll20's change:graphic), which some file systems refuse.
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def _schema(model: type[BaseModel] | TypeAdapter, title: str) -> dict[str, Any]:
    schema = (
        model.json_schema()
        if isinstance(model, TypeAdapter)
        else model.model_json_schema(mode="validation")
    )
    return {"$schema": DIALECT, "title": schema.get("title", title), **schema}


def schemas(adapters: Iterable[Adapter]) -> dict[str, tuple[str, dict[str, Any]]]:
    """Relative path -> (description, schema) for everything ``write`` would write."""
    from vttbridge.adapters.bridge.dashboard.feed import NAMESPACE, SCHEMAS
    from vttbridge.sdk.effects import EFFECT_ADAPTER
    from vttbridge.sdk.events import EVENT_ADAPTER

    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for name, model in ENVELOPE_MODELS.items():
        out[f"protocol/{name}.json"] = (
            f"wire protocol v{PROTOCOL_VERSION}: {name}",
            _schema(model, name),
        )
    out["domain/event.json"] = ("domain event (any type)", _schema(EVENT_ADAPTER, "Event"))
    out["domain/effect.json"] = ("domain effect (any type)", _schema(EFFECT_ADAPTER, "Effect"))
    for rel, (desc, model) in SCHEMAS.items():
        out[f"dashboard/{rel}"] = (f"dashboard ({NAMESPACE}) {desc}", _schema(model, rel))
    for a in adapters:
        for event, model in a.inbound.items():
            out[f"{a.name}/in/{_safe(event)}.json"] = (
                f"{a.name} ({a.ns}) inbound event {event!r}",
                _schema(model, event),
            )
        for op, model in a.outbound.items():
            out[f"{a.name}/out/{_safe(op)}.json"] = (
                f"{a.name} ({a.ns}) command {op!r}: its data",
                _schema(model, op),
            )
    return out


def write(directory: str | Path, adapters: Iterable[Adapter]) -> list[Path]:
    """Write every schema under ``directory`` (created if needed); returns the files."""
    root = Path(directory)
    found = schemas(adapters)
    written = []
    for rel, (_, schema) in found.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(schema, indent=2, sort_keys=False) + "\n")
        written.append(path)
    index = {rel: desc for rel, (desc, _) in found.items()}
    (root / "index.json").write_text(json.dumps(index, indent=2) + "\n")
    written.append(root / "index.json")
    return written
