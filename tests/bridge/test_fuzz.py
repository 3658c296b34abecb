"""Property-based fuzzing of the Foundry and Roll20 namespaces over the real wire.

Each case takes a real payload of one inbound event (the adapters' fixtures) and breaks it:
a field replaced by NaN, an infinity, ``1e400`` (sent as that literal), a huge or negative
number, a string where an object goes, deep-ish nesting, a long or odd unicode string; a field
deleted; or the whole payload replaced. Chat lines carry commands with hostile arguments. For
every case: an ack arrives, it is never ``internal``, and a refused event leaves the world
exactly as it was (its snapshot and its log position). After the batch the connection still
round-trips a normal event and the world's per-connection bookkeeping is bounded.

CI runs a seeded subset; ``VTTBRIDGE_FUZZ_EXAMPLES=10000`` runs the full batch (see README).
"""

from __future__ import annotations

import copy
import json
import logging
import math
import os
import re
import tracemalloc
from collections import deque
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from vttbridge.adapters.bridge.server import Bridge

from tests.bridge.vtts import BIG, NAMESPACES, WORLDS, Client, fingerprint, serve_vtts

log = logging.getLogger(__name__)
EXAMPLES = int(os.environ.get("VTTBRIDGE_FUZZ_EXAMPLES", "150"))
SEED = int(os.environ.get("VTTBRIDGE_FUZZ_SEED", "16"))


NUMBERS = ["-1e999", "1e999", "nan", "NaN", "inf", "-inf", "1e300", "-5", "0", "3.5",
           "99999999999999999999999", "1e-320", "0x10", "1_000", "½", "٣"]  # fmt: skip
COMMANDS = [
    "!jump high {n}", "!jump gap {n}", "!move {n},{n}", "!move {n},2 3,{n}", "!charge --to {n},1",
    "!stats reflex={n}", "!stats move={n} weight={n}", "!set script_budget {n}",
    "!set prompt_timeout {n}", "!set mfd_ladder {n},1", "!delay {n}", "!sneak --modifier {n}",
    "!hide --modifier {n}", "!sneak-attack Thug hit --damage 1d6 --crit {n} --armor {n}",
    "!ready Standard Attack --when within {n}", "!init", "!next", "!help", "!surprise",
]  # fmt: skip
HOSTILE_LEAVES = st.sampled_from(
    [
        math.nan, math.inf, -math.inf, BIG, -1.0, -1e300, 1e300, 10**400, -(2**63), 2**64,
        "NaN", "Infinity", "-Infinity", "1e400", "", "x" * 5000, "\u202e\u0000💥\uff58", None, True,
        False, [], {}, 0, 0.5,
    ]
) | st.text(max_size=40) | st.floats() | st.integers()  # fmt: skip
JSONISH = st.recursive(
    HOSTILE_LEAVES,
    lambda kids: (
        st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=6), kids, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def deep(draw: st.DrawFn) -> Any:
    value: Any = draw(HOSTILE_LEAVES)
    for _ in range(draw(st.integers(20, 150))):
        value = [value] if draw(st.booleans()) else {"a": value}
    return value


VALUES = HOSTILE_LEAVES | JSONISH | deep()


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.extend(_paths(v, (*prefix, i)))
    return out


def _set(root: Any, path: tuple, value: Any, delete: bool) -> Any:
    if not path:
        return value
    parent = root
    for key in path[:-1]:
        parent = parent[key]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return root


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, str, Any]:
    ns = draw(st.sampled_from(sorted(NAMESPACES)))
    event = draw(st.sampled_from(sorted(NAMESPACES[ns])))
    payload: Any = copy.deepcopy(NAMESPACES[ns][event])
    kind = draw(st.sampled_from(["mutate", "mutate", "mutate", "chat", "whole", "valid"]))
    if kind == "whole":
        return ns, event, draw(VALUES)
    if kind == "chat":
        text = draw(st.sampled_from(COMMANDS)).replace("{n}", draw(st.sampled_from(NUMBERS)))
        if ns == "/foundry":
            return ns, "createChatMessage", {"id": "t", "message": {"content": text}}
        return ns, "chat:message", {"id": "t", "msg": {"type": "api", "content": text}}
    if kind == "mutate":
        for _ in range(draw(st.integers(1, 3))):
            paths = [p for p in _paths(payload) if p != ("id",)]
            if not paths or not isinstance(payload, dict):
                break
            path = draw(st.sampled_from(paths))
            payload = _set(payload, path, draw(VALUES), delete=draw(st.booleans()))
    return ns, event, payload


QUOTED = re.compile(r"(&#x27;|').*?(&#x27;|')")
NOT_FINITE = re.compile(r"(?<![\w.])-?(inf|nan|Infinity|NaN)(?![\w])")


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[tuple[Bridge, dict[str, Client]]]:
    async with serve_vtts(tmp_path) as (bridge, clients):
        yield bridge, clients
        # after the batch (hypothesis runs every case inside one use of this fixture)
        await _check_still_working(bridge, clients)


async def _check_still_working(bridge: Bridge, clients: dict[str, Client]) -> None:
    """No connection dropped or wedged: a normal event round-trips on each; nothing kept per
    connection or world grows with the number of hostile events; memory stayed bounded."""
    for ns, c in clients.items():
        assert c.sio.connected and ns in c.sio.namespaces
        ack = await c.send("snapshot", NAMESPACES[ns]["snapshot"] | {"id": "snap-after"})
        assert ack["ok"], ack
        host = bridge.worlds[WORLDS[ns][0]]
        assert not host._inflight and not host._waiting
        assert len(host._seen) <= host.config.dedup_window
        _check_said(c)
    assert len(bridge.sessions) == len(clients)
    grown = await _memory_growth(clients)
    assert grown < MAX_GROWTH, f"the bridge kept {grown} bytes more per pass of hostile events"
    log.info("fuzz: %s; memory per pass of %d cases: %+d bytes", _stats, len(_recent), grown)


MAX_GROWTH = 512 * 1024
"""Bytes the bridge's allocations may grow by over a pass of the same 300 cases (the dedup
memory fills up to its bound meanwhile): a leak of ~2 KB per event fails."""
_recent: deque[tuple[str, str, Any]] = deque(maxlen=300)
"""The batch's last cases, replayed to measure memory."""


def _check_said(client: Client) -> None:
    """No rule ran with inf or NaN ("jumps -inf ft high"); a usage line may quote the input.
    The commands are dropped once read, so the test's own memory stays flat."""
    said = QUOTED.sub("", json.dumps([m.get("data") for m in client.commands]))
    client.commands.clear()
    found = NOT_FINITE.search(said)
    assert not found, said[max(0, found.start() - 200) : found.end() + 50]


async def _memory_growth(clients: dict[str, Client]) -> int:
    """Replay the batch's last cases three times with fresh ids, tracing allocations from the
    second pass on: in a steady state what the bridge keeps must not grow with the events it
    refused or accepted (the world's state, already at its size, is replaced, not added to).
    Allocations of the tests, hypothesis and pytest are left out."""

    async def replay() -> None:
        for ns, event, payload in _recent:
            if isinstance(payload, dict) and "id" in payload:
                payload = payload | {"id": f"fz-{next(_counter)}"}
            await clients[ns].send(event, payload)
            clients[ns].commands.clear()

    await replay()
    tracemalloc.start()
    try:
        await replay()
        first = tracemalloc.take_snapshot()
        await replay()
        second = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    outside = [
        tracemalloc.Filter(False, f"*{os.sep}{part}{os.sep}*")
        for part in ("tests", "hypothesis", "_pytest", "pytest_asyncio", "tracemalloc")
    ]
    diff = second.filter_traces(outside).compare_to(first.filter_traces(outside), "filename")
    return sum(d.size_diff for d in diff)


_counter = iter(range(10**9))
_stats: dict[str, Any] = {"cases": 0, "refused": 0, "codes": {}}


@pytest.mark.slow  # property-based: many generated payloads over the wire
@pytest.mark.timeout(max(120, EXAMPLES // 10))  # the full run takes minutes
@seed(SEED)
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)
@given(case=cases())
async def test_hostile_payloads_over_the_wire(table, case):
    bridge, clients = table
    ns, event, payload = case
    if isinstance(payload, dict) and "id" in NAMESPACES[ns].get(event, {}):
        payload["id"] = f"fz-{next(_counter)}"  # a fresh id: never answered as a duplicate
    before = fingerprint(bridge, ns)
    ack = await clients[ns].send(event, payload)  # a missing ack times out and fails
    assert isinstance(ack, dict) and isinstance(ack.get("ok"), bool), ack
    _stats["cases"] += 1
    if not ack["ok"]:
        err = ack["error"]
        assert err["code"] != "internal", (event, payload, err)
        assert err["code"] and err["message"]
        assert fingerprint(bridge, ns) == before, (event, payload, err)
        _stats["refused"] += 1
        _stats["codes"][err["code"]] = _stats["codes"].get(err["code"], 0) + 1
    _recent.append((ns, event, payload))
    _check_said(clients[ns])
