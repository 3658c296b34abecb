"""What a bridge and each world it hosts can be told: :class:`BridgeConfig` (everything
``vttbridge serve`` sets) and :class:`WorldConfig` (per hosted world)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from vttbridge.adapters.bridge.attempts import AttemptLimits


@dataclass
class WorldConfig:
    snapshot_every: int = 2000
    """Journaled events between snapshots (restart replays at most this many per world)."""
    snapshot_quiet: float = 5.0
    """Seconds without events after which a world with unsaved events is snapshotted, so a
    restart rarely replays anything, and a busy world pays for a snapshot only every
    ``snapshot_every`` events (0: only those)."""
    dedup_window: int = 4096
    """Event ids remembered per world for dedup. Clients re-send only unacknowledged events,
    so a window this size covers any reconnect; older ids are not checked."""
    queue_limit: int = 1000
    """Events waiting per world before new ones are refused with ``busy``."""
    recent_commands: int = 1024
    """Commands kept in memory for re-sending; older ones are read from the database."""
    sleep_after: float = 600.0
    """Seconds a world may sit with no client, no queued event, no pending prompt and no
    waiting script before it is saved and unloaded from memory (0: never). It wakes, from its
    snapshot, when a client connects or its state is read."""


@dataclass
class BridgeConfig:
    """Everything ``vttbridge serve`` can set. Defaults are the documented CLI defaults."""

    database: str | Path = "vttbridge.sqlite3"
    """A SQLite file, or a ``postgresql://`` URL (``adapters/bridge/storage``)."""
    node: str | None = None
    """This node's name among those sharing a database (None: the host name and port)."""
    lease_ttl: float = 15.0
    """Seconds a world's lease lasts unrenewed: how long the worlds of a node that died wait
    before another node may take them (renewed every third of it)."""
    redis: str | None = None
    """A ``redis://`` URL: join the nodes that share it and the PostgreSQL database
    (``cluster.py``). None: serve alone."""
    forward_timeout: float = 5.0
    """Seconds an event forwarded to its world's owner waits for the ack before the client
    is told ``world_unavailable`` (and this node tries to take the world)."""
    host: str = "127.0.0.1"
    port: int = 8787
    scripts: list[str] = field(default_factory=list)
    max_payload: int = 512 * 1024
    """Bytes per inbound event (its JSON on the wire); larger ones get ``payload_too_large``."""
    rate: float = 100.0
    """Events per second per connection, sustained (0: no limit)."""
    burst: int = 200
    """Events a connection may send at once before ``rate`` applies."""
    world_rate: float | None = None
    """Events per second all connections of one world may send together, sustained (0: no
    limit; None: twice ``rate``)."""
    world_burst: int | None = None
    """Events one world's connections may send at once (None: twice ``burst``)."""
    attempts: AttemptLimits = field(default_factory=AttemptLimits)
    """How many wrong keys an address, or a world, is allowed (``attempts.py``)."""
    key_check_interval: float = 2.0
    """Seconds between two looks at the stored key hashes, to close the connections whose key
    was reset (``vttbridge world reset-key``, from any process); 0: never."""
    durability: str = "normal"
    """``normal``: a commit survives the process being killed; ``full``: also power loss."""
    cors: list[str] | str = "*"
    """Origins allowed to open a socket (the VTT page is another origin). Keys still guard
    every world."""
    world: WorldConfig = field(default_factory=WorldConfig)
    reload_scripts: bool = True
    entry_point_scripts: bool = True
    """Load the scripts installed packages register in the ``vttbridge.scripts`` group."""
    ping_interval: float = 25.0
    ping_timeout: float = 20.0

    @property
    def world_limits(self) -> tuple[float, int]:
        """(rate, burst) of the per-world limit."""
        rate = 2 * self.rate if self.world_rate is None else self.world_rate
        burst = 2 * self.burst if self.world_burst is None else self.world_burst
        return rate, burst

    @property
    def read_limit(self) -> int:
        """Bytes of a message read whole. Of a larger one the transports keep only its start,
        enough to answer it (``payload_too_large``); the rest is dropped as it arrives."""
        return self.max_payload + 64  # the engine.io and socket.io framing around an event

    @property
    def transport_limit(self) -> int:
        # What engineio advertises as its maxPayload (the largest POST a long-polling client
        # batches packets into), and the websocket's limit should aiohttp's frame parser not
        # be one the bridge can put its gate in front of (websocket.py).
        return max(4 * self.max_payload, 1_000_000)
