"""Wrong keys are throttled per client address and per world (``adapters/bridge/attempts.py``),
and a GM with the right key is not locked out by someone else's guessing. Clients connect from
several loopback addresses (127.0.0.x) to be several machines."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import aiohttp
import pytest
import socketio
from vttbridge.adapters.bridge.attempts import AttemptLimits, Attempts

from tests.bridge.conftest import CLIENT, NS, Server, TableClient, start_server


class Clock:
    """The attempts' clock, moved on by the test (a wait is not slept through)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def strict(db, worlds, clock) -> AsyncIterator[Server]:
    limits = AttemptLimits(address_burst=3, address_every=0.5, world_burst=4, world_every=30)
    srv = await start_server(db, attempts=limits)
    srv.bridge.auth.attempts = Attempts(limits, clock)
    yield srv
    await srv.stop()


class From:
    """Connects from one loopback address."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.sessions: list[aiohttp.ClientSession] = []
        self.clients: list[TableClient] = []

    def _session(self) -> aiohttp.ClientSession:
        s = aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(self.address, 0)))
        self.sessions.append(s)
        return s

    async def link(self, url: str, world: str, key: str) -> TableClient:
        c = TableClient(http_session=self._session())
        self.clients.append(c)
        return await c.connect(url, world, key)

    async def refused(self, url: str, world: str, key: str) -> tuple[str, dict]:
        sio = socketio.AsyncClient(
            reconnection=False, handle_sigint=False, http_session=self._session()
        )
        errors: list[dict] = []
        sio.on("connect_error", errors.append, namespace=NS)
        auth = {"world": world, "key": key, "client": CLIENT}
        with pytest.raises(socketio.exceptions.ConnectionError):
            await sio.connect(url, namespaces=[NS], auth=auth, transports=["websocket"])
        await sio.disconnect()
        return errors[0]["message"], errors[0]["data"]

    async def state(self, url: str, world: str, key: str) -> tuple[int, dict, dict]:
        s = self._session()
        async with s.get(f"{url}/api/worlds/{world}/state", headers={"X-World-Key": key}) as r:
            return r.status, await r.json(), dict(r.headers)

    async def close(self) -> None:
        for c in self.clients:
            await c.close()
        for s in self.sessions:
            await s.close()


@pytest.fixture
async def machines() -> AsyncIterator[Callable[[str], From]]:
    made: list[From] = []

    def at(address: str) -> From:
        m = From(address)
        made.append(m)
        return m

    yield at
    for m in made:
        await m.close()


async def test_wrong_keys_from_one_address_are_throttled(strict, worlds, machines, clock):
    url, gm_key = strict.url, worlds["table2"][0]
    guesser, gm = machines("127.0.0.2"), machines("127.0.0.3")
    for i in range(3):
        _, data = await guesser.refused(url, "table2", f"vtt_gm_guess{i}")
        assert data["code"] == "wrong_key"
    message, data = await guesser.refused(url, "table2", "vtt_gm_guess3")
    assert data["code"] == "too_many_attempts", data
    assert data["retry_after"] >= 1 and f"try again in {data['retry_after']} s" in message
    # the address waits, with the right key too; the world and other addresses do not
    _, data = await guesser.refused(url, "table2", gm_key)
    assert data["code"] == "too_many_attempts"
    status, body, headers = await guesser.state(url, "table2", gm_key)
    assert status == 429 and body["error"]["code"] == "too_many_attempts"
    assert int(headers["Retry-After"]) >= 1
    assert (await gm.link(url, "table2", gm_key)).sio.connected
    # once the wait (rounded up to whole seconds) is over, the right key links from there too
    clock.now += 0.01
    assert (await guesser.refused(url, "table2", gm_key))[1]["code"] == "too_many_attempts"
    clock.now += data["retry_after"]
    assert (await guesser.link(url, "table2", gm_key)).sio.connected


async def test_unknown_worlds_count_as_wrong_keys(strict, worlds, machines):
    prober = machines("127.0.0.4")
    for name in ("a", "b", "c"):
        _, data = await prober.refused(strict.url, name, "vtt_gm_x")
        assert data["code"] == "unknown_world"
    status, body, _ = await prober.state(strict.url, "d", "vtt_gm_x")
    assert status == 429 and body["error"]["code"] == "too_many_attempts"


async def test_a_world_guessed_from_many_addresses(strict, worlds, machines):
    url, gm_key = strict.url, worlds["table1"][0]
    linked = machines("127.0.0.10")  # the GM's usual machine, linked before the guessing
    await (await linked.link(url, "table1", gm_key)).close()
    guessers = [machines(f"127.0.0.{20 + i}") for i in range(5)]
    for g in guessers[:4]:  # the world's 4 wrong keys, one from each address
        assert (await g.refused(url, "table1", "vtt_gm_nope"))[1]["code"] == "wrong_key"
    # an address that guessed before now waits for the world's limit...
    message, data = await guessers[0].refused(url, "table1", "vtt_gm_nope")
    assert data["code"] == "too_many_attempts" and "'table1'" in message
    # (a new address's first try is checked: no one is refused for others' guesses)
    assert (await guessers[4].refused(url, "table1", "vtt_gm_nope"))[1]["code"] == "wrong_key"
    # ...while the GM links, from the machine it linked from and from a new one
    assert (await linked.link(url, "table1", gm_key)).sio.connected
    assert (await machines("127.0.0.30").link(url, "table1", gm_key)).sio.connected
    # and other worlds are not held up
    assert (await guessers[1].link(url, "table2", worlds["table2"][0])).sio.connected
