"""The world model: everything one linked game world holds between events
(:mod:`sdk.world.model`), what it accepts (:mod:`sdk.world.validate`) and how an accepted event
changes it (:mod:`sdk.world.ingest`)."""

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
    "check_stats",
]
