"""The dashboard's socket (namespace ``/dashboard``) against a real bridge: the same auth as the
companions, a view on connect and after events (coalesced), answers that go through the
world's event path (logged, replayed), read-only observers, and no cost for a world nobody
watches."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import socketio
from vttbridge.adapters.bridge.config import WorldConfig
from vttbridge.adapters.bridge.dashboard.feed import NAMESPACE

from tests.bridge.conftest import (
    TableClient,
    moves_in_parallel,
    scene,
    start_server,
)

CLIENT = {"name": "dashboard-test", "version": "1"}
"""The dashboard's ``auth.client`` (and the refused connects' below)."""


class Dashboard:
    """A dashboard page's socket: records every view."""

    def __init__(self) -> None:
        self.sio = socketio.AsyncClient(reconnection=False, handle_sigint=False)
        self.views: list[dict[str, Any]] = []
        self.welcome: dict[str, Any] | None = None
        self._got = asyncio.Event()

        @self.sio.on("view", namespace=NAMESPACE)
        def on_view(view: dict[str, Any]) -> None:
            self.views.append(view)
            self._got.set()

        @self.sio.on("welcome", namespace=NAMESPACE)
        def on_welcome(data: dict[str, Any]) -> None:
            self.welcome = data

    async def connect(self, url: str, world: str, key: str) -> Dashboard:
        auth = {"world": world, "key": key, "client": CLIENT}
        await self.sio.connect(
            url, namespaces=[NAMESPACE], auth=auth, transports=["websocket"], wait_timeout=5
        )
        return self

    async def view(
        self, pred: Callable[[dict[str, Any]], bool] = lambda v: True, timeout: float = 5
    ) -> dict[str, Any]:
        """The first view (from now on, or the latest already received) where ``pred`` holds."""
        async with asyncio.timeout(timeout):
            while True:
                if self.views and pred(self.views[-1]):
                    return self.views[-1]
                self._got.clear()
                await self._got.wait()

    async def answer(self, payload: Any) -> dict[str, Any]:
        return await self.sio.call("answer", payload, namespace=NAMESPACE, timeout=10)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.sio.disconnect()


@pytest.fixture
async def dashboards() -> AsyncIterator[Callable[[], Dashboard]]:
    made: list[Dashboard] = []

    def make() -> Dashboard:
        d = Dashboard()
        made.append(d)
        return d

    yield make
    for d in made:
        await d.close()


async def refused(url: str, auth: object) -> tuple[str, dict]:
    sio = socketio.AsyncClient(reconnection=False, handle_sigint=False)
    errors: list[Any] = []
    sio.on("connect_error", errors.append, namespace=NAMESPACE)
    with pytest.raises(socketio.exceptions.ConnectionError):
        await sio.connect(
            url, namespaces=[NAMESPACE], auth=auth, transports=["websocket"], wait_timeout=5
        )
    await sio.disconnect()
    assert errors and isinstance(errors[0], dict), errors
    return errors[0]["message"], errors[0].get("data") or {}


def fighters() -> dict[str, Any]:
    """A scene whose tokens can stand off (special characters with action dice)."""
    snap = scene()
    for t in snap["tokens"]:
        t["stats"] = {"action_dice": 2, "reflex": 30}
    return snap


async def offer(gm: TableClient) -> None:
    """Start a combat (Kevin first) and have Kevin attack the ally: the ally is asked p1."""
    assert (await gm.send("snapshot", {**fighters(), "id": "snap-fighters"}))["ok"]
    start = {"id": "cs", "tokens": ["kevin", "ally", "thug"]}
    start["initiative"] = {"kevin": 20, "ally": 15, "thug": 10}
    assert (await gm.send("combatStart", start))["ok"]
    ack = await gm.send(
        "chat", {"id": "atk", "text": "!attack ally", "token": "kevin", "role": "gm"}
    )
    assert ack["ok"], ack


# -- connecting ---------------------------------------------------------------------------------


async def test_refusals_are_the_companions(server, worlds):
    gm_key = worlds["table1"][0]
    msg, data = await refused(server.url, {"world": "table2", "key": gm_key, "client": CLIENT})
    assert data["code"] == "wrong_key" and "table2" in msg
    _, data = await refused(server.url, {"world": "nowhere", "key": gm_key, "client": CLIENT})
    assert data["code"] == "unknown_world"
    _, data = await refused(server.url, {"world": "table1", "key": gm_key})
    assert data["code"] == "bad_auth"
    _, data = await refused(server.url, None)
    assert data["code"] == "bad_auth"
    _, data = await refused(server.url, {**{"world": "table1", "key": gm_key}, "protocol": 9})
    assert data["code"] == "unsupported_protocol"
    assert not server.bridge.dashboards.watched


async def test_a_view_on_connect_with_the_log_so_far(server, worlds, gm, dashboards):
    await offer(gm)
    dash = await dashboards().connect(server.url, "table1", worlds["table1"][0])
    view = await dash.view()
    assert dash.welcome == {"world": "table1", "role": "gm"}
    assert view["world"] == "table1" and view["system"] == "spycraft"
    assert {t["id"]: (t["x"], t["y"]) for t in view["scene"]["tokens"]} == {
        "kevin": (1, 1),
        "ally": (5, 1),
        "thug": (9, 9),
    }
    assert [c["token"] for c in view["encounter"]["initiative"]] == ["kevin", "ally", "thug"]
    assert view["encounter"]["active"] == "kevin"
    (prompt,) = view["prompts"]
    assert prompt["id"] == "p1" and prompt["kind"] == "standoff_offer"
    assert prompt["options"] == ["stand_off", "take_attack"] and prompt["deadline"] > view["now"]
    # the chat the rules sent before the page came, read back from the log
    text = "\n".join(line["text"] for line in view["log"])
    assert "Kevin joins at IC 20." in text and "Kevin attacks Ally." in text
    assert any(line["kind"] == "ask" and "(question p1)" in line["text"] for line in view["log"])
    assert view["link"]["vtt"] == "minitable" and view["link"]["connected"] is True
    assert [c["role"] for c in view["link"]["clients"]] == ["gm"]


async def test_views_follow_events_coalesced(server, worlds, gm, dashboards):
    feed = server.bridge.dashboards
    feed.interval = 1.0  # a wide window: the burst below fits in a few, whatever the machine
    dash = await dashboards().connect(server.url, "table1", worlds["table1"][0])
    await dash.view()
    pushes = feed.pushes
    await moves_in_parallel(gm, 40)  # kevin to columns 0..39
    view = await dash.view(lambda v: v["scene"]["tokens"][0]["x"] == 39)
    assert view["seq"] == server.bridge.worlds["table1"].seq
    assert feed.pushes - pushes < 10, feed.pushes - pushes  # not one view per move
    assert len(dash.views) - 1 == feed.pushes - pushes
    # the first view has the recent chat, the later ones only the lines since
    assert dash.views[0]["log_full"] and not any(v["log_full"] for v in dash.views[1:])


async def test_the_link_state_is_pushed(server, worlds, gm, dashboards):
    dash = await dashboards().connect(server.url, "table1", worlds["table1"][0])
    await dash.view(lambda v: v["link"]["connected"])
    await gm.close()
    view = await dash.view(lambda v: not v["link"]["connected"])
    # one server, no cluster: no node named
    assert view["link"] == {"vtt": "minitable", "connected": False, "clients": [], "node": None}


# -- answering ------------------------------------------------------------------------------------


async def test_the_gm_answers_through_the_event_path(db, worlds, client_factory, dashboards):
    server = await start_server(db)
    try:
        gm = await client_factory().connect(server.url, "table1", worlds["table1"][0])
        await offer(gm)
        dash = await dashboards().connect(server.url, "table1", worlds["table1"][0])
        await dash.view(lambda v: v["prompts"])
        sent = len(gm.commands)
        ack = await dash.answer({"id": "ans-1", "prompt": "p1", "option": "take_attack"})
        assert ack["ok"] is True and ack["seq"] > 0, ack
        view = await dash.view(lambda v: not v["prompts"])
        assert not view["log_full"] and all(ln["n"] >= 0 for ln in view["log"])
        assert any("Ally takes the attack" in ln["text"] for ln in view["log"])
        # the VTT is told, as for any answer
        await gm.wait_commands(sent + 1)
        assert any("Ally takes the attack" in c["data"]["text"] for c in gm.commands[sent:])
        # the same id again is the same answer, once
        again = await dash.answer({"id": "ans-1", "prompt": "p1", "option": "take_attack"})
        assert again == {**ack, "duplicate": True}
        events = server.bridge.worlds["table1"].seq
    finally:
        await server.stop(snapshot=False)  # the next start replays the log, answer included
    conn = sqlite3.connect(db)
    try:
        (name, body) = conn.execute(
            "SELECT name, body FROM log WHERE world='table1' AND event_id='ans-1'"
        ).fetchone()
    finally:
        conn.close()
    assert name == "dashboard.answer" and '"type":"prompt_answered"' in body
    again = await start_server(db)
    try:
        host = await again.bridge.hosting.get("table1")
        assert host is not None and host.replay_divergences == 0
        assert host.seq == events and not host.runtime.world.prompts
    finally:
        await again.stop()


async def test_an_observer_cannot_answer(server, worlds, client_factory, dashboards):
    gm_key, obs_key = worlds["table1"]
    gm = await client_factory().connect(server.url, "table1", gm_key)
    await offer(gm)
    watcher = await dashboards().connect(server.url, "table1", obs_key)
    await watcher.view(lambda v: v["prompts"])
    assert watcher.welcome == {"world": "table1", "role": "observer"}
    ack = await watcher.answer({"id": "obs-1", "prompt": "p1", "option": "take_attack"})
    assert ack["ok"] is False and ack["error"]["code"] == "read_only"
    assert "p1" in server.bridge.worlds["table1"].runtime.world.prompts


async def test_bad_answers_are_refused_and_change_nothing(
    server, worlds, client_factory, dashboards
):
    gm = await client_factory().connect(server.url, "table1", worlds["table1"][0])
    await offer(gm)
    dash = await dashboards().connect(server.url, "table1", worlds["table1"][0])
    await dash.view()
    host = server.bridge.worlds["table1"]
    seq = host.seq
    cases = [
        ({"id": "b1", "prompt": "p9", "option": "x"}, "unknown_prompt"),
        ({"id": "b2", "prompt": "p1", "option": "dance"}, "bad_option"),
        ({"id": "b3", "prompt": "p1"}, "missing_field"),
        ({"prompt": "p1", "option": "take_attack"}, "missing_field"),
        ({"id": "b4", "prompt": 5, "option": "take_attack"}, "wrong_type"),
        ("take_attack", "bad_payload"),
    ]
    for payload, code in cases:
        ack = await dash.answer(payload)
        assert ack["ok"] is False and ack["error"]["code"] == code, (payload, ack)
    assert host.seq == seq and "p1" in host.runtime.world.prompts


# -- cost and life cycle -------------------------------------------------------------------------


async def test_an_unwatched_world_has_no_dashboard_listener(server, worlds, gm, dashboards):
    host = server.bridge.worlds["table1"]
    journal = host.runtime.journal
    dash = await dashboards().connect(server.url, "table1", worlds["table1"][0])
    await dash.view()
    assert len(host.runtime.journal) == len(journal) + 1 and host.watchers
    await dash.close()
    async with asyncio.timeout(5):
        while host.watchers:
            await asyncio.sleep(0.02)
    assert host.runtime.journal == journal and not server.bridge.dashboards.watched


async def test_a_watched_world_stays_awake(db, worlds, dashboards):
    server = await start_server(db, world=WorldConfig(sleep_after=0.2))
    try:
        dash = await dashboards().connect(server.url, "table2", worlds["table2"][0])
        await dash.view()
        host = server.bridge.worlds["table2"]
        host.idle_since = 0.0  # idle "for ages": only the dashboard keeps it
        assert not host.can_sleep(0.2)
        await dash.close()
        async with asyncio.timeout(5):  # then it sleeps like any idle world
            while "table2" in server.bridge.worlds:
                await asyncio.sleep(0.05)
    finally:
        await server.stop()
