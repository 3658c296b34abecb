"""The adapter interface: registration, checks, entry point discovery."""

from __future__ import annotations

import logging
from typing import Any, ClassVar

import pytest
import vttbridge.adapters.base as base
from vttbridge.adapters.base import (
    Adapter,
    AdapterRegistry,
    Command,
    Inbound,
    InboundEvent,
    TranslationError,
)
from vttbridge.rules.geometry import Cell
from vttbridge.sdk.events import Event, SceneSnapshot, TokenMoved
from vttbridge.sdk.world import World, WorldView

from tests.bridge.minitable import MiniTable


class Other(MiniTable):
    name = "other"


def test_register_and_unregister():
    reg = AdapterRegistry()
    undo = reg.register(MiniTable)  # a class is instantiated
    assert "minitable" in reg and reg.get("minitable").ns == "/minitable"
    with pytest.raises(ValueError, match="already registered"):
        reg.register(MiniTable())
    reg.register(MiniTable(), replace=True)
    undo()
    assert "minitable" not in reg and len(reg) == 0


@pytest.mark.parametrize(
    ("attrs", "says"),
    [
        ({"name": "Bad Name"}, "must match"),
        ({"inbound": {"move": MiniTable.inbound["tokenMoved"]}}, "snapshot"),
        ({"inbound": {"snapshot": dict}}, "subclass"),
        ({"namespace": "/"}, "namespace"),
    ],
)
def test_unservable_adapters_are_refused(attrs: dict[str, Any], says: str):
    broken = type("Broken", (MiniTable,), attrs)
    with pytest.raises(ValueError, match=says):
        AdapterRegistry().register(broken)


def test_namespace_clash():
    reg = AdapterRegistry([MiniTable])
    clash = type("Clash", (Other,), {"namespace": "/minitable"})
    with pytest.raises(ValueError, match="already served"):
        reg.register(clash)


class _EP:
    def __init__(self, name: str, obj: Any) -> None:
        self.name, self.value, self._obj = name, f"fake:{name}", obj

    def load(self) -> Any:
        if isinstance(self._obj, Exception):
            raise self._obj
        return self._obj


def test_discovery_from_entry_points(monkeypatch, caplog):
    eps = [
        _EP("other", Other),
        _EP("factory", lambda: type("F", (Other,), {"name": "factory"})()),
        _EP("broken", ImportError("no module named vtt9000")),
        _EP("minitable", Other),  # explicitly registered already: the explicit one stays
    ]
    monkeypatch.setattr(base, "entry_points", lambda group: eps)
    reg = AdapterRegistry([MiniTable])
    with caplog.at_level(logging.ERROR):
        added = reg.discover()
    assert added == ["other", "factory"]
    assert isinstance(reg.get("minitable"), MiniTable) and not isinstance(
        reg.get("minitable"), Other
    )
    assert "broken" in caplog.text and "vtt9000" in caplog.text


def test_adapter_contract_is_abstract():
    class Half(Adapter):
        name = "half"
        inbound: ClassVar = {"snapshot": Inbound}

    with pytest.raises(TypeError):
        Half()  # type: ignore[abstract]


class Moved(Inbound):
    token: str


class Tabled(Adapter):
    """An adapter whose inbound events are one table: model and translation each."""

    name = "tabled"

    def _snapshot(self, p: Inbound, world: WorldView) -> list[Event]:
        return [SceneSnapshot(id=p.id)]

    def _moved(self, p: Moved, world: WorldView) -> list[Event]:
        return [TokenMoved(id=p.id, token=p.token, to_cell=Cell(x=1, y=0))]

    events = {
        "snapshot": InboundEvent(Inbound, _snapshot),
        "tokenMoved": InboundEvent(Moved, _moved),
    }

    def translate_out(self, effect: Any, world: WorldView) -> list[Command]:
        return []


def test_inbound_events_are_one_table():
    adapter = Tabled()
    assert dict(adapter.inbound) == {"snapshot": Inbound, "tokenMoved": Moved}
    AdapterRegistry().register(adapter)  # servable
    world = World(id="w")
    (moved,) = adapter.translate_in("tokenMoved", Moved(id="e1", token="kev"), world)
    assert isinstance(moved, TokenMoved) and moved.token == "kev"
    with pytest.raises(TranslationError) as e:
        adapter.translate_in("tokenDeleted", Inbound(id="e2"), world)
    assert e.value.code == "unknown_event"


def test_a_wrong_inbound_table_is_told_when_the_class_is_made():
    with pytest.raises(TypeError, match=r"_moved translates the Moved payload, not Inbound"):
        InboundEvent(Inbound, Tabled._moved)
    with pytest.raises(TypeError, match="no model"):
        InboundEvent(dict, Tabled._moved)  # type: ignore[type-var]
    with pytest.raises(TypeError, match=r"events\['snapshot'\] must be an InboundEvent"):
        type("Loose", (Tabled,), {"events": {"snapshot": Inbound}})
    with pytest.raises(TypeError, match="not both"):
        type("Both", (Tabled,), {"events": Tabled.events, "inbound": {"snapshot": Inbound}})


def test_an_adapter_without_events_or_translate_in_is_refused():
    bare = type("Bare", (Adapter,), {"name": "bare", "translate_out": Tabled.translate_out})
    with pytest.raises(ValueError, match="declare its inbound events"):
        AdapterRegistry().register(bare)
