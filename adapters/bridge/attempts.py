"""Throttling of wrong world keys, per client address and per world.

A key is 256 random bits, so guessing one is hopeless; the throttle keeps a guesser from
costing the server work and log lines, and tells a client with a wrong key why it waits.

- Per address: ``address_burst`` wrong keys (or unknown worlds) at once, then one per
  ``address_every`` seconds. Past that, each attempt from the address is refused with
  ``too_many_attempts`` and the seconds to wait, before its key is even checked. An IPv6
  address counts by its /64, what one host is given.
- Per world: ``world_burst`` wrong keys at once, then one per ``world_every`` seconds, from
  all addresses together (a world guessed from many addresses). Past that, an address that
  gave a wrong key for the world lately waits; one that did not is let through, so a GM
  with the right key is not held up by someone else's guessing, even from a new address.
- Neither applies to an address that linked that world with its key within the last
  ``trust_for`` seconds: a guesser cannot lock out the GM who was linked (not even one on
  the GM's own network), nor keep the tables of a host of many worlds from reconnecting
  after a restart, however long the guessing goes on.
- Bounded memory: at most ``capacity`` addresses, and as many (address, world) pairs, are
  remembered (the oldest forgotten first); worlds only by the names of worlds that exist.
  All of it is in memory: a restart starts afresh.

Behind a reverse proxy every client has the proxy's address; the throttle then counts them
together.
"""

from __future__ import annotations

import ipaddress
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import TypeVar

from vttbridge.adapters.bridge.ratelimit import Clock, TokenBucket

K = TypeVar("K")
V = TypeVar("V")


@dataclass
class AttemptLimits:
    address_burst: int = 10
    address_every: float = 6.0
    world_burst: int = 30
    world_every: float = 2.0
    trust_for: float = 24 * 3600.0
    capacity: int = 10_000


class Attempts:
    """The wrong key attempts of the last while (see the module docstring)."""

    def __init__(self, limits: AttemptLimits | None = None, clock: Clock = time.monotonic) -> None:
        self.limits = limits or AttemptLimits()
        self.clock = clock
        self._addresses: OrderedDict[str, TokenBucket] = OrderedDict()
        self._worlds: dict[str, TokenBucket] = {}
        self._trusted: OrderedDict[tuple[str, str], float] = OrderedDict()
        self._guessed: OrderedDict[tuple[str, str], float] = OrderedDict()
        """(address, world) -> when its last wrong key for the world stops counting."""

    def wait(self, address: str, world: str) -> tuple[float, str]:
        """(seconds to wait, ``"address"`` or ``"world"``) if an attempt from ``address`` to
        link ``world`` is to be refused now; (0, "") if it may be checked."""
        now = self.clock()
        who = _who(address)
        if self._is_trusted(who, world, now):
            return 0.0, ""
        bucket = self._addresses.get(who)
        if bucket is not None and (wait := bucket.wait()):
            return wait, "address"
        bucket = self._worlds.get(world)
        guessed = self._guessed.get((who, world), 0.0) > now
        if bucket is not None and guessed and (wait := bucket.wait()):
            return wait, "world"
        return 0.0, ""

    def failed(self, address: str, world: str | None) -> None:
        """A wrong key for ``world``, or (None) a world that does not exist."""
        lim, now = self.limits, self.clock()
        who = _who(address)
        bucket = self._addresses.get(who)
        if bucket is None:
            bucket = TokenBucket(1 / lim.address_every, lim.address_burst, self.clock)
        bucket.drain()
        _put_last(self._addresses, who, bucket, lim.capacity)
        if world is not None:
            bucket = self._worlds.get(world)
            if bucket is None:
                bucket = self._worlds[world] = TokenBucket(
                    1 / lim.world_every, lim.world_burst, self.clock
                )
            bucket.drain()
            until = now + lim.world_burst * lim.world_every
            _put_last(self._guessed, (who, world), until, lim.capacity)

    def succeeded(self, address: str, world: str) -> None:
        until = self.clock() + self.limits.trust_for
        _put_last(self._trusted, (_who(address), world), until, self.limits.capacity)

    def _is_trusted(self, who: str, world: str, now: float) -> bool:
        until = self._trusted.get((who, world))
        if until is None:
            return False
        if until < now:
            del self._trusted[(who, world)]
            return False
        return True


def _put_last(remembered: OrderedDict[K, V], key: K, value: V, capacity: int) -> None:
    """Remember ``key`` as the most recent, forgetting the oldest beyond ``capacity``."""
    remembered.pop(key, None)
    remembered[key] = value
    while len(remembered) > capacity:
        remembered.popitem(last=False)


def _who(address: str) -> str:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)
