"""A read-only view of a world: what an adapter may read while it translates
(``translate_in``/``translate_out``), and must not change.

:class:`WorldView` is a :class:`typing.Protocol` that :class:`vttbridge.sdk.world.World` satisfies:
the adapter gets the world itself (no copy, no wrapper: a token move's ``translate_in`` is on the
hot path), typed so that a type checker refuses an assignment to it. Mappings and the models in
them are for reading only; the world changes through domain events alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from vttbridge.rules.encounter import Encounter
from vttbridge.rules.geometry import Grid
from vttbridge.sdk.events import Player
from vttbridge.sdk.regions import Region
from vttbridge.sdk.world.model import Actor, Prompt, Scene, Token, Watch, WorldSettings

__all__ = ["WorldView"]


@runtime_checkable
class WorldView(Protocol):
    """What an adapter reads of a world (see :class:`vttbridge.sdk.world.World` for each field)."""

    @property
    def id(self) -> str: ...
    @property
    def scenes(self) -> Mapping[str, Scene]: ...
    @property
    def active_scene(self) -> str | None: ...
    @property
    def tokens(self) -> Mapping[str, Token]: ...
    @property
    def actors(self) -> Mapping[str, Actor]: ...
    @property
    def players(self) -> Mapping[str, Player]: ...
    @property
    def encounter(self) -> Encounter: ...
    @property
    def regions(self) -> Mapping[str, Region]: ...
    @property
    def prompts(self) -> Mapping[str, Prompt]: ...
    @property
    def watches(self) -> Mapping[str, Watch]: ...
    @property
    def settings(self) -> WorldSettings: ...
    @property
    def store(self) -> Mapping[str, Mapping[str, Any]]: ...
    @property
    def grid(self) -> Grid: ...

    def token(self, ref: str) -> Token:
        """A token by id or unique name (``KeyError`` when there is none)."""
        ...

    def player_for(self, token: str | None) -> str:
        """Who answers for a token: its first non-GM owner, else ``"gm"``."""
        ...
