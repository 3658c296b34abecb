"""The world model: everything one linked game world holds between events
(:mod:`sdk.world.model`), what it accepts (:mod:`sdk.world.validate`), how an accepted event
changes it (:mod:`sdk.world.ingest`), and the read-only view adapters get
(:mod:`sdk.world.view`)."""

from sdk.world.model import (
    MAX_UNCONFIRMED,
    Actor,
    Prompt,
    Scene,
    SheetWrite,
    Token,
    Watch,
    World,
    WorldSettings,
    check_stats,
)
from sdk.world.view import WorldView

__all__ = [
    "MAX_UNCONFIRMED",
    "Actor",
    "Prompt",
    "Scene",
    "SheetWrite",
    "Token",
    "Watch",
    "World",
    "WorldSettings",
    "WorldView",
    "check_stats",
]
