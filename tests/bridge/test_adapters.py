"""The adapter interface: registration, checks, entry point discovery."""

from __future__ import annotations

import logging
from typing import Any, ClassVar

import pytest
import vttbridge.adapters.base as base
from vttbridge.adapters.base import Adapter, AdapterRegistry, Inbound

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
