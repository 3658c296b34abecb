"""The world model: everything one linked game world holds between events
(:mod:`vttbridge.sdk.world.model`), what it accepts (:mod:`vttbridge.sdk.world.validate`), how an
accepted event changes it (:mod:`vttbridge.sdk.world.ingest`), and the read-only view adapters get
(:mod:`vttbridge.sdk.world.view`)."""

from vttbridge.sdk.world.model import (
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
from vttbridge.sdk.world.view import WorldView

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
