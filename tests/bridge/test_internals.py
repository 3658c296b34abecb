"""What the bridge assumes of aiohttp, python-engineio and python-socketio beyond their
documentation (``adapters/bridge/internals.py``, ``USES``) still holds: each name exists with
the shape assumed. A failure names the library, its installed version and the attribute: read
``internals.py`` on what the bridge does with it before widening a pin in pyproject.toml."""

from __future__ import annotations

import ast
import importlib
import inspect
import tomllib
from importlib.metadata import version
from pathlib import Path
from typing import Any

import engineio
import pytest
import socketio
from engineio.async_drivers import aiohttp as eio_aiohttp
from engineio.async_socket import AsyncSocket
from packaging.requirements import Requirement
from vttbridge.adapters.bridge.internals import USES, PrivateUse

ROOT = Path(__file__).resolve().parents[2]
LIBRARIES = ("aiohttp", "python-engineio", "python-socketio")


def owner_of(dotted: str) -> Any:
    """The class or module ``dotted`` names."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def instance_of(dotted: str) -> Any:
    """A fresh instance of the class ``dotted`` names, made as the library makes it."""
    eio = engineio.AsyncServer(async_mode="aiohttp")
    made = {
        "engineio.AsyncServer": lambda: eio,
        "engineio.async_socket.AsyncSocket": lambda: AsyncSocket(eio, "sid"),
        "engineio.async_drivers.aiohttp.WebSocket": lambda: eio_aiohttp.WebSocket(None, eio),
        "socketio.AsyncServer": lambda: socketio.AsyncServer(async_mode="aiohttp"),
    }
    return made[dotted]()


def problem(use: PrivateUse) -> str | None:
    """What no longer holds of ``use`` (None: it holds)."""
    try:
        owner = owner_of(use.owner)
    except (ImportError, AttributeError) as e:
        return f"{use.owner} is gone ({e})"
    if use.kind == "method":
        method = getattr(owner, use.name, None)
        if not callable(method):
            return f"{use.owner} has no method {use.name}"
        params = tuple(inspect.signature(method).parameters)
        if params[: len(use.shape)] != use.shape:
            return f"{use.owner}.{use.name} takes {params}, not {use.shape}"
    elif use.kind == "class attribute":
        if not hasattr(owner, use.name):
            return f"{use.owner} has no class attribute {use.name}"
    elif use.kind == "slot":
        slots = {s for k in owner.__mro__ for s in getattr(k, "__slots__", ())}
        if use.name not in slots:
            return f"{use.owner} has no slot {use.name}"
    elif use.kind in ("attribute", "key"):
        obj = instance_of(use.owner)
        if not hasattr(obj, use.name):
            return f"a {use.owner} has no attribute {use.name}"
        value = getattr(obj, use.name)
        if use.kind == "key" and use.shape[0] not in value:
            return f"{use.owner}.{use.name} has no key {use.shape[0]!r}"
        if use.kind == "attribute" and type(value).__name__ != use.shape[0]:
            return f"a {use.owner}'s {use.name} is a {type(value).__name__}, not {use.shape[0]}"
    else:
        return f"unknown kind {use.kind!r}"
    return None


@pytest.mark.parametrize("use", USES, ids=lambda u: f"{u.library}:{u.owner}.{u.name}")
def test_each_assumption_holds(use: PrivateUse) -> None:
    found = problem(use)
    assert found is None, (
        f"{use.library} {version(use.library)}: {found}. The bridge's {use.used_by} relies on "
        f"it: {use.why} (adapters/bridge/internals.py)."
    )


def test_the_check_sees_a_change() -> None:
    """A name that is gone, a parameter renamed, a slot or key missing: each is seen."""
    use = USES[0]
    assert problem(use) is None
    gone = PrivateUse(use.library, use.owner, "_handle_eio_mesage", "method", "", "")
    assert "has no method" in (problem(gone) or "")
    renamed = PrivateUse(use.library, use.owner, use.name, "method", "", "", ("self", "sid"))
    assert "takes" in (problem(renamed) or "")
    owner = "aiohttp.web_protocol.RequestHandler"
    assert "no slot" in (problem(PrivateUse("aiohttp", owner, "_parser2", "slot", "", "")) or "")
    key = PrivateUse("python-engineio", "engineio.AsyncServer", "_async", "key", "", "", ("ws",))
    assert "no key" in (problem(key) or "")
    kind = PrivateUse("python-engineio", "engineio.async_socket.AsyncSocket", "closed",
                      "attribute", "", "", ("int",))  # fmt: skip
    assert "not int" in (problem(kind) or "")


def test_no_other_module_uses_a_private_name() -> None:
    """The underscore names of USES appear in internals.py only (as attributes or defs)."""
    private = {u.name for u in USES if u.name.startswith("_") and not u.name.startswith("__")}
    found = []
    for path in (ROOT / "adapters").rglob("*.py"):
        if path.name == "internals.py" or "node_modules" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            name = (
                node.attr
                if isinstance(node, ast.Attribute)
                else node.name
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                else None
            )
            if name in private:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    assert not found, "\n".join(found)


def test_the_pins_are_the_tested_minor_versions() -> None:
    """Each library is pinned to one minor version range, and it is the one installed (the one
    these checks and the transport tests ran on)."""
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pins = {r.name: r for r in map(Requirement, deps)}
    for lib in LIBRARIES:
        spec = pins[lib].specifier
        installed = version(lib)
        assert spec.contains(installed), f"{lib} {installed} is outside the pin {spec}"
        upper = [s for s in spec if s.operator == "<"]
        assert upper and upper[0].version.count(".") == 1, (
            f"{lib}: pin below the next minor version ({spec}), not the next major one"
        )
