"""World state: everything one linked game world holds between events, as JSON-able models.

A token is the rules' character: ``Encounter.characters``, ``positions`` and ``combatants`` are
keyed by token id, and a token's :class:`rules.characters.Character` is built from its actor's
stats (the template) with the token's own stats on top. An unlinked token (a thug copied five
times) keeps its own stats when its actor changes; a linked one follows the actor.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rules.characters import Character
from rules.encounter import Encounter
from rules.geometry import Cell, Grid
from sdk.errors import EventRejected
from sdk.events import Player, TokenData
from sdk.regions import Region


class WorldSettings(BaseModel):
    """Runtime settings a GM changes with ``!set`` beside the rules' ⚙ options."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    prompt_timeout: float = Field(60.0, ge=0, le=86_400)
    """Seconds a player has to answer a prompt before its default answer applies."""
    check_moves: bool = True
    """FoE: check token moves made in the VTT during combat against the movement budget."""
    revert_over_budget: bool = True
    """FoE: move a token back when a VTT move exceeds its budget (else only tell the GM)."""
    script_budget: float = Field(2.0, gt=0, le=60)
    """Seconds a script callback may run before it is stopped and reported (see
    :mod:`sdk.watchdog` for plain callbacks)."""


class Token(BaseModel):
    id: str
    name: str = ""
    actor: str | None = None
    cell: Cell
    scene: str | None = None
    linked: bool = True
    owners: list[str] = Field(default_factory=list)
    disposition: int = 0
    hidden: bool = False
    stats: dict[str, Any] = Field(default_factory=dict)
    """This token's own stat overrides (its actor's stats are the template)."""
    vtt: dict[str, Any] = Field(default_factory=dict)
    """The adapter's own data (:attr:`sdk.events.TokenData.vtt`)."""

    @property
    def display(self) -> str:
        return self.name or self.id


class Actor(BaseModel):
    id: str
    name: str = ""
    stats: dict[str, Any] = Field(default_factory=dict)


class Scene(BaseModel):
    id: str
    name: str = ""
    grid: Grid = Field(default_factory=Grid)
    extent: tuple[float, float] | None = None
    """Canvas width and height in VTT px (:attr:`sdk.events.SceneData.extent`)."""


class Prompt(BaseModel):
    """A question waiting for a player: from a rules ``Choice`` (``kind`` is the choice's kind)
    or from a script's ``ctx.ask`` (``kind="ask"``)."""

    id: str
    kind: str
    player: str
    """Who answers: a player id, or ``"gm"``. A GM may always answer."""
    token: str | None = None
    actor: str | None = None
    """The rules actor the question is about (a Choice's ``actor``; may be ``"gm"``)."""
    question: str
    options: list[str]
    default: str
    timeout: float | None = None
    deadline: float | None = None
    """Clock time when the default applies (seconds since the epoch on the runtime's clock)."""
    choice_id: str | None = None
    data: dict[str, Any] = Field(default_factory=dict)
    script: str | None = None
    """The script that asked (or whose choice handler resolves it)."""

    def chat_text(self) -> str:
        opts = " / ".join(self.options)
        wait = f" (default {self.default} in {self.timeout:g} s)" if self.timeout else ""
        return f"{self.question} [{opts}] Answer with `!answer {self.id} <option>`{wait}."


class Watch(BaseModel):
    """A trigger created at run time (a Ready's condition), kept in state so a restored world
    re-indexes it. ``spec`` is one of the trigger specs in :mod:`sdk.triggers`."""

    key: str
    script: str
    handler: str
    spec: dict[str, Any]
    data: dict[str, Any] = Field(default_factory=dict)


class World(BaseModel):
    """All state of one world. Serialises to JSON for snapshots."""

    id: str
    scenes: dict[str, Scene] = Field(default_factory=dict)
    active_scene: str | None = None
    tokens: dict[str, Token] = Field(default_factory=dict)
    actors: dict[str, Actor] = Field(default_factory=dict)
    players: dict[str, Player] = Field(default_factory=dict)
    encounter: Encounter = Field(default_factory=Encounter)
    regions: dict[str, Region] = Field(default_factory=dict)
    prompts: dict[str, Prompt] = Field(default_factory=dict)
    watches: dict[str, Watch] = Field(default_factory=dict)
    settings: WorldSettings = Field(default_factory=WorldSettings)
    store: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Per-script JSON data that survives reloads and restarts (``ctx.store``)."""
    counters: dict[str, int] = Field(default_factory=dict)
    """Id sequences (prompts, timers), so a replay hands out the same ids."""

    # -- reading ---------------------------------------------------------------------------------
    @property
    def grid(self) -> Grid:
        return self.encounter.grid

    def next_id(self, prefix: str) -> str:
        n = self.counters.get(prefix, 0) + 1
        self.counters[prefix] = n
        return f"{prefix}{n}"

    def token(self, ref: str) -> Token:
        """A token by id, or by name (case-insensitive, must be unique)."""
        if ref in self.tokens:
            return self.tokens[ref]
        matches = [t for t in self.tokens.values() if t.name.lower() == ref.lower()]
        if len(matches) == 1:
            return matches[0]
        if matches:
            ids = ", ".join(t.id for t in matches)
            raise KeyError(f"several tokens are called {ref!r} ({ids}); use an id")
        raise KeyError(f"no token {ref!r}")

    def character(self, token: str) -> Character:
        return self.encounter.character(token)

    def distance(self, a: str, b: str) -> float:
        """Distance between two tokens in grid units (feet)."""
        return self.grid.distance_between(self.tokens[a].cell, self.tokens[b].cell)

    def player_for(self, token: str | None) -> str:
        """Who answers for a token: its first non-GM owner, else ``"gm"``."""
        tok = self.tokens.get(token) if token else None
        for owner in tok.owners if tok else ():
            p = self.players.get(owner)
            if p is None or p.role == "player":
                return owner
        return "gm"

    def may_control(self, player: str | None, role: str, token: str) -> bool:
        if role == "gm":
            return True
        tok = self.tokens.get(token)
        return bool(tok and player and player in tok.owners)

    def regions_at(self, cell: Cell) -> list[str]:
        return [name for name, r in self.regions.items() if cell in r]

    # -- changing (the runtime calls these after validating) --------------------------------------
    def build_character(self, tok: Token) -> Character:
        """The token's character: actor stats, then the token's own, keeping rule state
        (conditions, stress...) the encounter already tracks."""
        stats: dict[str, Any] = {}
        actor = self.actors.get(tok.actor) if tok.actor else None
        if actor is not None:
            stats.update(actor.stats)
        stats.update(tok.stats)
        old = self.encounter.characters.get(tok.id)
        base = old.model_dump() if old is not None else {}
        base.update(stats)
        base.update(id=tok.id, name=tok.name or (actor.name if actor else "") or tok.id)
        return Character.model_validate(base)

    def put_token(self, data: TokenData) -> Token:
        tok = Token.model_validate(data.model_dump())
        self.tokens[tok.id] = tok
        self.encounter.positions[tok.id] = tok.cell
        self.encounter.characters[tok.id] = self.build_character(tok)
        return tok

    def place(self, token: str, cell: Cell) -> None:
        self.tokens[token].cell = cell
        self.encounter.positions[token] = cell

    def remove_token(self, token: str) -> None:
        self.tokens.pop(token, None)
        self.encounter.positions.pop(token, None)
        enc = self.encounter
        if token in enc.combatants:
            enc.combatants[token].out = True  # keep the record of who fought
        else:
            enc.characters.pop(token, None)

    def refresh_character(self, token: str) -> None:
        self.encounter.characters[token] = self.build_character(self.tokens[token])

    def set_scene(self, scene: Scene) -> None:
        self.scenes[scene.id] = scene
        self.active_scene = scene.id
        grid = scene.grid.model_copy(update={"metric": self.encounter.options.diagonal_metric})
        self.encounter.grid = grid


def check_stats(stats: dict[str, Any], where: str) -> None:
    """Raise :class:`EventRejected` unless ``stats`` are valid Character fields and values."""
    unknown = set(stats) - set(Character.model_fields) - {"id", "name"}
    if unknown:
        raise EventRejected(
            "bad_stats", f"Unknown stat(s): {', '.join(sorted(unknown))}.", path=where
        )
    try:
        Character.model_validate({"id": "check", **stats})
    except ValidationError as e:
        err = e.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        raise EventRejected("bad_stats", f"{loc}: {err['msg']}", path=f"{where}.{loc}") from None
