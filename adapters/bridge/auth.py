"""Who may use a world: the connect ``auth`` of a VTT client or a dashboard page, the key of an
HTTP state read, and the watch that closes connections whose key was reset.

A connect's ``auth`` is checked in this order: protocol version, shape, the wrong-key throttle
(``attempts.py``), world and key (read from the database each time, so a reset applies at
once), and only then is a sleeping world woken. A refusal is :class:`Refused` (the bridge's
refusal, ``protocol.py``); a refused connect carries ``{"message": <why, in words>, "data":
{"code": <ErrorCode>, "retry_after"?: seconds}}``.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

from pydantic import ValidationError
from vttbridge.adapters.bridge import keys
from vttbridge.adapters.bridge.attempts import AttemptLimits, Attempts
from vttbridge.adapters.bridge.hosted import HostedWorld
from vttbridge.adapters.bridge.hosting import Hosting, WorldUnavailable
from vttbridge.adapters.bridge.protocol import (
    PROTOCOL_VERSION,
    SUPPORTED_PROTOCOLS,
    Auth,
    ErrorCode,
    Refused,
)

log = logging.getLogger("vttbridge")

__all__ = ["Admitted", "Authenticator", "Opened", "Refused"]


class Admitted(NamedTuple):
    """A connect :meth:`Authenticator.authenticate` let in."""

    auth: Auth
    host: HostedWorld
    """The world, woken if it slept."""
    role: str
    """``"gm"`` or ``"observer"``."""
    verifier: str
    """The stored key hash the key matched (a reset replaces it)."""


class Opened(NamedTuple):
    """A connection opened with a key, as the key watch sees it."""

    world: str
    role: str
    verifier: str
    sid: str
    namespace: str


class Authenticator:
    """The key checks of one bridge, with their throttle."""

    def __init__(
        self, limits: AttemptLimits, hosting: Hosting, closing: Callable[[], bool]
    ) -> None:
        self.attempts = Attempts(limits)
        self.hosting = hosting
        self.closing = closing
        self.key_checks = 0
        """Looks the key watch has taken at the stored hashes (see :meth:`watch_keys`)."""
        self._rehashed: dict[str, str] = {}
        """Slow key hashes this server replaced -> their replacements (see ``watch_keys``)."""

    async def check_key(self, name: str, key: str, address: str) -> tuple[str, str]:
        """(role, the stored hash it matched) of ``key`` for world ``name``, or Refused:
        ``too_many_attempts`` (before anything is read), ``unknown_world``, ``wrong_key``.
        The hashes are read from the database each time, so a key reset (by the CLI, in
        another process) applies to the next attempt at once. A fast hash is checked here and
        now (a microsecond); an old scrypt one in a thread, and then replaced by a fast one."""
        wait, why = self.attempts.wait(address, name)
        if wait:
            if why == "world":
                text = (
                    f"Too many wrong keys for world {name!r} lately, from this address among others"
                )
            else:
                text = "Too many wrong keys or unknown worlds from this address lately"
            raise Refused(
                ErrorCode.TOO_MANY_ATTEMPTS,
                f"{text}; try again in {math.ceil(wait)} s.",
                retry_after=wait,
            )
        store = self.hosting.store
        assert store is not None
        rec = await store.world(name)
        if rec is None:
            self.attempts.failed(address, None)
            raise Refused(
                ErrorCode.UNKNOWN_WORLD,
                f"There is no world {name!r} on this server (`vttbridge world list` shows them).",
            )
        order = [("observer", rec.observer_key_hash), ("gm", rec.gm_key_hash)]
        if not key.startswith("vtt_obs_"):
            order.reverse()
        for role, stored in order:
            if keys.needs_rehash(stored):
                ok = await asyncio.to_thread(keys.verify_key, key, stored)
            else:
                ok = keys.verify_key(key, stored)
            if ok:
                self.attempts.succeeded(address, name)
                if keys.needs_rehash(stored):
                    self._rehash(name, role, stored, key)
                return role, stored
        self.attempts.failed(address, name)
        raise Refused(ErrorCode.WRONG_KEY, f"Wrong key for world {name!r}.")

    def _rehash(self, name: str, role: str, stored: str, key: str) -> None:
        """Replace an old scrypt hash whose key was just verified by a fast one (in the
        writer's next transaction; only if the hash is still ``stored``)."""
        new = keys.hash_key(key)
        self._rehashed[stored] = new
        store = self.hosting.store
        assert store is not None
        store.rehash(name, role, stored, new)
        log.info("World %r: its %s key hash was upgraded to the fast form.", name, role)

    async def authenticate(self, auth: Any, address: str = "") -> Admitted:
        """Check a connect's ``auth`` from ``address`` (protocol version, shape, throttle,
        world and key, in that order; see the module docstring); raises :class:`Refused`."""
        if not isinstance(auth, dict):
            raise Refused(
                ErrorCode.BAD_AUTH,
                "Send the connect auth {world, key, client: {name, version}}.",
            )
        proto = auth.get("protocol", PROTOCOL_VERSION)
        if type(proto) is not int or proto not in SUPPORTED_PROTOCOLS:  # [1] is unhashable
            supported = ", ".join(str(p) for p in sorted(SUPPORTED_PROTOCOLS))
            raise Refused(
                ErrorCode.UNSUPPORTED_PROTOCOL,
                f"Protocol version {proto!r} is not supported; this server speaks {supported}. "
                "Update the companion module or the server.",
            )
        try:
            a = Auth.model_validate(auth)
        except ValidationError as e:
            err = e.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            raise Refused(ErrorCode.BAD_AUTH, f"Bad connect auth: {where}: {err['msg']}.") from None
        # the key first: a wrong one never wakes a sleeping world
        role, verifier = await self.check_key(a.world, a.key, address)
        host = await self._wake(a.world)
        if host.stopped:  # it fell asleep while the key was checked: wake it again
            host = await self._wake(a.world)
        if self.closing():
            raise Refused(ErrorCode.SHUTTING_DOWN, "The server is shutting down.")
        return Admitted(a, host, role, verifier)

    async def _wake(self, name: str) -> HostedWorld:
        try:
            host = await self.hosting.get(name)
        except WorldUnavailable as e:
            raise Refused(ErrorCode.WORLD_UNAVAILABLE, f"{e} (see the server log).") from None
        if host is None:
            raise Refused(ErrorCode.UNKNOWN_WORLD, f"World {name!r} was deleted.")
        return host

    async def watch_keys(
        self,
        interval: float,
        opened: Callable[[], list[Opened]],
        close: Callable[[str, str], Awaitable[None]],
    ) -> None:
        """Close the connections whose key was reset, whatever process reset it: every
        ``interval`` seconds the stored hashes of the worlds with connections (``opened()``)
        are compared with those their keys matched (one query of the worlds table), and
        ``close(sid, namespace)`` is called for each whose key is gone. The client is told as
        by any server disconnect; the companions reconnect and are refused ``wrong_key``."""
        while True:
            await asyncio.sleep(interval)
            connections = opened()
            store = self.hosting.store
            if not connections or store is None:
                continue
            try:
                hashes = await store.key_hashes()
            except Exception as e:  # the next look will do
                log.warning("Could not read the world keys to check them: %s", e)
                continue
            self.key_checks += 1
            stale: dict[str, list[Opened]] = {}
            for c in connections:
                pair = hashes.get(c.world)
                now = None if pair is None else pair[0 if c.role == "gm" else 1]
                if now != c.verifier and self._rehashed.get(c.verifier) != now:
                    stale.setdefault(c.world, []).append(c)
            for name, gone in stale.items():
                log.warning(
                    "World %r has new keys (`vttbridge world reset-key`): closing %d "
                    "connection%s opened with the old ones.",
                    name,
                    len(gone),
                    "s" if len(gone) != 1 else "",
                )
                for c in gone:
                    try:
                        await close(c.sid, c.namespace)
                    except Exception:
                        log.debug("closing a connection failed", exc_info=True)
