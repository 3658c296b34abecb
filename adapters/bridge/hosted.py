"""What a connection holds on to: a world as this node's connections use it, whether this node
runs it (:class:`~vttbridge.adapters.bridge.worldhost.WorldHost`) or another node of the cluster
does (:class:`~vttbridge.adapters.bridge.cluster.RemoteWorld`). Both satisfy
:class:`HostedWorld`; ``Hosting.get`` returns one, and the sessions, the key checks and the
dashboard use it through this protocol only."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from vttbridge.adapters.base import Adapter, Inbound
    from vttbridge.adapters.bridge.outbox import Outbox, Subscriber
    from vttbridge.adapters.bridge.protocol import Ack
    from vttbridge.adapters.bridge.worldhost import WorldHost


class Linker(Protocol):
    """Where a world's link to a VTT is noted (the log of a local world; the owner of a
    remote one is told)."""

    def linked(self, adapter: str) -> None: ...


class HostedWorld(Protocol):
    """A world as this node's connections use it."""

    name: str
    adapter: Adapter | None
    """The adapter of the GM client that last linked the world (None: none yet)."""
    subscribers: dict[str, Subscriber]
    watchers: set[str]
    """Dashboards watching the world here."""
    stopped: bool
    """Saved and let go (asleep, lost, or taken over): a connect fetches it again."""

    @property
    def outbox(self) -> Outbox:
        """The world's commands, as this node's connections get them."""
        ...

    @property
    def log(self) -> Linker: ...

    @property
    def here(self) -> WorldHost | None:
        """The world's host when this node runs it, else None."""
        ...

    def subscribe(self, sub: Subscriber) -> None: ...

    def unsubscribe(self, sid: str) -> None: ...

    def keep_awake(self) -> None: ...

    def receive(
        self, adapter: Adapter, event: str, payload: Inbound, sent: Any
    ) -> Coroutine[Any, Any, Ack]:
        """An inbound event's way to the world and its ack: ``payload`` as this node read it,
        ``sent`` as the client sent it (what is forwarded to another node, which reads it
        itself). Raises a :class:`~vttbridge.rules.refusal.Refusal` when the event is refused.

        Nothing may be awaited between the call and the world's lock (see ``worldhost.py``):
        the coroutine, once awaited, asks for the lock before its first suspension."""
        ...
