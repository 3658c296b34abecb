"""What a bridge and each world it hosts can be told: :class:`BridgeConfig` (everything
``vttbridge serve`` sets) and :class:`WorldConfig` (per hosted world); and
:class:`ServeSettings`, where ``vttbridge serve`` reads them from: its command line, the
environment (``VTTBRIDGE_...``) and a config file, in that order (pydantic-settings)."""

from __future__ import annotations

import difflib
import json
import os
import tomllib
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)
from vttbridge.adapters.bridge.attempts import AttemptLimits


@dataclass
class WorldConfig:
    snapshot_every: int = 2000
    """Journaled events between snapshots (restart replays at most this many per world); each
    world's next one comes up to an eighth sooner, drawn each time."""
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
    lease_ttl: float = 3.0
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
    metrics: bool = True
    """Serve Prometheus metrics at ``/metrics`` (when ``prometheus_client`` is installed)."""

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


# -- the settings of ``vttbridge serve`` --------------------------------------------------------

ENV_PREFIX = "VTTBRIDGE_"
CONFIG_ENV = "VTTBRIDGE_CONFIG"
"""The environment variable naming the config file (``--config`` names it too)."""


def _listed(value: Any) -> Any:
    """A list setting from the environment: JSON (``["a.py", "b.py"]``) or comma-separated."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            return json.loads(text)
        return [part.strip() for part in text.split(",") if part.strip()]
    return value


Listed = Annotated[list[str], NoDecode, BeforeValidator(_listed)]


class ServeSettings(BaseSettings):
    """Every setting of ``vttbridge serve``. Each comes, first found wins, from its command
    line option (``--lease-ttl``), its environment variable (``VTTBRIDGE_LEASE_TTL``), the
    config file (``lease_ttl = 3`` in the TOML file ``--config`` or ``VTTBRIDGE_CONFIG``
    names), or its default. ``docs/deployment.md`` lists them."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, extra="forbid", validate_default=True, populate_by_name=True
    )

    # where
    host: str = Field("127.0.0.1", description="address to listen on (0.0.0.0: all)")
    port: int = Field(8787, ge=0, le=65535, description="port to listen on (0: any free one)")
    db: str = Field(
        "vttbridge.sqlite3",
        min_length=1,
        description="where the worlds, their keys, logs and snapshots are kept: a SQLite file "
        "(created if missing; also sqlite:///PATH) or a PostgreSQL database, "
        "postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE (its tables are created or upgraded "
        "at the first use)",
    )
    # what runs
    script: Listed = Field(
        default_factory=list,
        description="Python scripts of triggers to load into every world (reloaded when a "
        "file changes)",
    )
    adapter: Listed = Field(
        default_factory=list,
        description="adapters to register explicitly, as MODULE:CLASS, besides those installed "
        "through the 'vttbridge.adapters' entry point group (for adapter authors)",
    )
    reload_scripts: bool = Field(True, description="reload a script when its file changes")
    entry_point_scripts: bool = Field(
        True, description="load the scripts installed packages register ('vttbridge.scripts')"
    )
    no_default_world: bool = Field(
        False, description="do not create the 'default' world when the database has none"
    )
    # limits
    max_payload: int = Field(
        512 * 1024,
        ge=1024,
        description="largest inbound event accepted, in bytes; larger ones are refused with "
        "payload_too_large",
    )
    rate: float = Field(
        100.0,
        ge=0,
        description="events per second one connection may send, sustained (0: no limit)",
    )
    burst: int = Field(200, ge=1, description="events one connection may send at once")
    world_rate: float | None = Field(
        None,
        ge=0,
        description="events per second all connections of one world may send together, "
        "sustained (0: no limit; default: twice --rate)",
    )
    world_burst: int | None = Field(
        None, ge=1, description="events the connections of one world may send at once "
        "(default: twice --burst)",
    )  # fmt: skip
    queue_limit: int = Field(
        1000, ge=1, description="events waiting per world before new ones are refused with busy"
    )
    allow_origin: Listed = Field(
        default_factory=list,
        description="web origins allowed to connect, e.g. http://localhost:30000 (default: "
        "any, since every world needs its key)",
    )
    key_attempts: int = Field(
        10, ge=1, description="wrong keys one address may try at once before it must wait"
    )
    key_attempt_every: float = Field(
        6.0, gt=0, description="seconds after which an address may try one more wrong key"
    )
    world_key_attempts: int = Field(
        30, ge=1, description="wrong keys all addresses together may try on one world at once"
    )
    world_key_attempt_every: float = Field(
        2.0, gt=0, description="seconds after which one more wrong key for a world is allowed"
    )
    key_check_interval: float = Field(
        2.0, ge=0, description="seconds between two looks for reset keys, whose connections "
        "are then closed (0: never)",
    )  # fmt: skip
    event_loop: Literal["auto", "uvloop", "asyncio"] = Field(
        "auto",
        description="the event loop: uvloop (faster; pip install 'vttbridge[uvloop]', not on "
        "Windows), asyncio's own, or auto: uvloop where it is installed",
    )
    # keeping the worlds
    durability: Literal["normal", "full"] = Field(
        "normal",
        description="normal: a saved event survives the server being killed; full: also a "
        "power cut (an fsync per batch of writes; SQLite only)",
    )
    snapshot_every: int = Field(
        2000, ge=1, description="events between snapshots of a busy world (restarts replay "
        "at most this many)",
    )  # fmt: skip
    snapshot_quiet: float = Field(
        5.0, ge=0, description="seconds without events after which a world is snapshotted "
        "(0: only every --snapshot-every events)",
    )  # fmt: skip
    sleep_after: float = Field(
        600.0,
        ge=0,
        description="unload a world from memory after this many seconds without a client, "
        "pending prompt or waiting script (0: never); it is saved first and wakes when a "
        "client connects",
    )
    dedup_window: int = Field(
        4096, ge=16, description="event ids remembered per world to answer a re-sent event"
    )
    recent_commands: int = Field(
        1024, ge=1, description="commands kept in memory per world for re-sending"
    )
    # several servers
    node_id: str | None = Field(
        None,
        description="this server's name among the servers sharing one PostgreSQL database; a "
        "server restarted under the same name takes its worlds back at once, so never give "
        "two running servers one name (default: the host name and --port)",
    )
    lease_ttl: float = Field(
        3.0,
        ge=0.5,
        description="seconds a server's hold on a world lasts unrenewed (renewed every third "
        "of it): the worlds of a server that died wait this long before another takes them",
    )
    redis: str | None = Field(
        None,
        description="redis://HOST[:PORT]/DB: serve as one node of a cluster with every node "
        "naming this Redis and the same --db postgresql://... (docs/deployment.md)",
    )
    forward_timeout: float = Field(
        5.0,
        ge=0.1,
        description="with --redis: seconds an event forwarded to the node running its world "
        "waits for the answer before that node is taken for gone",
    )
    # sockets
    ping_interval: float = Field(
        25.0, gt=0, description="seconds between two socket.io pings of a connection"
    )
    ping_timeout: float = Field(
        20.0, gt=0, description="seconds without a pong before a connection is taken for lost"
    )
    # telling the host
    log_level: Literal["debug", "info", "warning", "error"] = Field(
        "info", description="the least important log lines written"
    )
    log_format: Literal["text", "json"] = Field(
        "text", description="text: a line for people; json: one JSON object a line, for a "
        "log collector",
    )  # fmt: skip
    metrics: bool = Field(
        True,
        description="serve Prometheus metrics at /metrics (needs the metrics extra: pip "
        "install 'vttbridge[metrics]')",
    )

    @field_validator("db")
    @classmethod
    def _known_db(cls, value: str) -> str:
        from vttbridge.adapters.bridge.storage import StoreError, parse

        try:
            parse(value)
        except StoreError as e:
            raise ValueError(str(e)) from None
        return value

    @model_validator(mode="after")
    def _cluster_needs_postgres(self) -> ServeSettings:
        if self.redis and not self.db.startswith(("postgresql://", "postgres://")):
            raise ValueError("redis (a cluster of nodes) needs db postgresql://...")
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # the command line (passed in as init values), the environment, the config file
        return init_settings, env_settings, TomlConfigSettingsSource(settings_cls, _CONFIG.get())

    @classmethod
    def load(
        cls, given: dict[str, Any], config: str | Path | None = None, environ: Any = None
    ) -> ServeSettings:
        """The settings from the options ``given`` on the command line, the environment and
        the TOML file ``config`` (else the one ``VTTBRIDGE_CONFIG`` names, if any). Raises
        :class:`SettingsError` saying which setting is wrong and why."""
        env = os.environ if environ is None else environ
        path = config or env.get(CONFIG_ENV) or None
        if path is not None:
            path = Path(path)
            if not path.is_file():
                raise SettingsError(f"config file {path}: no such file")
            try:
                tomllib.loads(path.read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
                raise SettingsError(f"config file {path}: {e}") from None
        token = _CONFIG.set(path)
        try:
            return cls(**given)
        except ValidationError as e:
            raise SettingsError(_explain(e, given, path)) from None
        finally:
            _CONFIG.reset(token)

    def bridge_config(self) -> BridgeConfig:
        """What the bridge is told."""
        return BridgeConfig(
            database=self.db,
            host=self.host,
            port=self.port,
            scripts=list(self.script),
            max_payload=self.max_payload,
            rate=self.rate,
            burst=self.burst,
            world_rate=self.world_rate,
            world_burst=self.world_burst,
            durability=self.durability,
            node=self.node_id,
            lease_ttl=self.lease_ttl,
            redis=self.redis,
            forward_timeout=self.forward_timeout,
            cors=list(self.allow_origin) or "*",
            attempts=AttemptLimits(
                address_burst=self.key_attempts,
                address_every=self.key_attempt_every,
                world_burst=self.world_key_attempts,
                world_every=self.world_key_attempt_every,
            ),
            key_check_interval=self.key_check_interval,
            reload_scripts=self.reload_scripts,
            entry_point_scripts=self.entry_point_scripts,
            ping_interval=self.ping_interval,
            ping_timeout=self.ping_timeout,
            metrics=self.metrics,
            world=WorldConfig(
                snapshot_every=self.snapshot_every,
                snapshot_quiet=self.snapshot_quiet,
                sleep_after=self.sleep_after,
                dedup_window=self.dedup_window,
                queue_limit=self.queue_limit,
                recent_commands=self.recent_commands,
            ),
        )


class SettingsError(ValueError):
    """A setting of ``vttbridge serve`` that cannot be used: the message says which and why."""


_CONFIG: ContextVar[Path | None] = ContextVar("vttbridge_config", default=None)


def option(name: str) -> str:
    """The command line option of setting ``name`` (``lease_ttl`` -> ``--lease-ttl``)."""
    return "--" + name.replace("_", "-")


def _explain(e: ValidationError, given: dict[str, Any], config: Path | None) -> str:
    lines = []
    for err in e.errors(include_url=False):
        name = str(err["loc"][0]) if err["loc"] else ""
        if err["type"] == "extra_forbidden":
            where = f"config file {config}" if config is not None else "the settings"
            close = difflib.get_close_matches(name, ServeSettings.model_fields, 1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            lines.append(f"{where}: unknown setting {name!r}{hint}")
            continue
        if not name:
            lines.append(err["msg"].removeprefix("Value error, "))
            continue
        if name in given:
            source = option(name)
        elif ENV_PREFIX + name.upper() in os.environ:
            source = f"${ENV_PREFIX}{name.upper()}"
        elif config is not None:
            source = f"{name} in {config}"
        else:
            source = option(name)
        msg = err["msg"].removeprefix("Value error, ")
        lines.append(f"{source}: {msg} (got {err.get('input')!r})")
    return "; ".join(lines)
