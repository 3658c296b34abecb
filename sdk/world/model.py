"""World state: everything one linked game world holds between events, as JSON-able models.

A token is the rules' character: ``Encounter.characters``, ``positions`` and ``combatants`` are
keyed by token id, and a token's :class:`vttbridge.rules.characters.Character` is built from its
actor's
stats (the template) with the token's own stats on top. An unlinked token (a thug copied five
times) keeps its own stats when its actor changes; a linked one follows the actor.

Who owns a value decides what a sheet change does to it. A stat the rules only read follows the
sheet, always. A rules-owned one (``vttbridge.rules.characters.RULES_OWNED``: action dice, stress,
wound and vitality points) changes with the sheet only when the GM really changed it there: when the
sheet's value differs both from what the sheet showed before and from what the bridge wrote to
it. A snapshot that shows an old value (the bridge's write has not landed yet) or a sheet edit
of some other stat leaves the rules' value alone. :attr:`World.sheet_writes` remembers, per
token, the writes the sheet has not shown back yet; it is world state, so it survives
snapshots, restarts and replays. After each step the runtime writes back what the rules
changed (:meth:`World.stats_to_write`) and shows the token's conditions
(:meth:`World.conditions_to_show`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError
from vttbridge.rules.characters import RULES_OWNED, Character
from vttbridge.rules.conditions import conditions_of
from vttbridge.rules.encounter import Encounter
from vttbridge.rules.geometry import Cell, Grid
from vttbridge.rules.numbers import RANGE_ERRORS
from vttbridge.sdk.errors import EventRejected
from vttbridge.sdk.events import ActorData, Player, SceneData, TokenData
from vttbridge.sdk.regions import Region


class WorldSettings(BaseModel):
    """Runtime settings a GM changes with ``!set`` beside the rules' ⚙ options."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    prompt_timeout: float = Field(60.0, ge=0, le=86_400)
    """Seconds a player has to answer a prompt before its default answer applies."""
    check_moves: bool = True
    """Check token moves made in the VTT during combat by the game system's movement rules (its
    ``before_move`` judge: Fallout: Equestria's budget)."""
    revert_over_budget: bool = True
    """Move a token back when the movement rules refuse a VTT move (else only tell the GM)."""
    hold_moves: bool = True
    """Hold a drag in the VTT, where it can, while a Ready watching the attempt resolves (the
    built-in holds script, :mod:`vttbridge.sdk.holds`). Off: no move is held (the VTT's client
    is sent an empty watch set, an adapter refuses a held move with ``not_holding``) and such a
    Ready fires on the completed move."""
    script_budget: float = Field(2.0, gt=0, le=60)
    """Seconds a script callback may run before it is stopped and reported (see
    :mod:`vttbridge.sdk.watchdog` for plain callbacks)."""


class Token(TokenData):
    """A token the world holds: the fields an adapter reports (:class:`TokenData`), kept as
    they came (``stats`` are its own overrides; its actor's stats are the template)."""

    @property
    def display(self) -> str:
        return self.name or self.id


class Actor(ActorData):
    """An actor sheet the world holds: its stats as the VTT last reported them."""


class SheetWrite(BaseModel):
    """Rules-owned values the bridge wrote to one stat of a token's sheet that the sheet has
    not shown back yet."""

    seen: Any = None
    """What the sheet showed before the first of these writes (None: it showed nothing)."""
    sent: list[Any] = Field(default_factory=list)
    """The values written since, oldest first."""


MAX_UNCONFIRMED = 8
"""Writes kept per stat while the sheet has not shown any back (older ones are forgotten)."""
_MISSING = object()
_DEFAULTS = {stat: Character.model_fields[stat].default for stat in RULES_OWNED}
_NONE: dict[str, Any] = {}
_NONE_SET: frozenset[str] = frozenset()


class Scene(SceneData):
    """A scene the world holds, as the VTT last reported it."""


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
    re-indexes it. ``spec`` is one of the trigger specs in :mod:`vttbridge.sdk.triggers`."""

    key: str
    script: str
    handler: str
    spec: dict[str, Any]
    data: dict[str, Any] = Field(default_factory=dict)
    owner: str | None = None
    """The token it is for (a Ready's owner): ``ctx.owner`` in its conditions and handler."""


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
    sheet_writes: dict[str, dict[str, SheetWrite]] = Field(default_factory=dict)
    """Per token and rules-owned stat: the bridge's writes its sheet has not shown back yet
    (only while there are some)."""
    shown: dict[str, set[str]] = Field(default_factory=dict)
    """Per token: the conditions last shown on it in the VTT (only tokens showing some)."""

    _sheet_edits: list[tuple[str, str, Any]] = PrivateAttr(default_factory=list)

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
    def sheet_values(self, token: str) -> dict[str, Any]:
        """The rules-owned stats the token's sheet shows (its actor's, then its own), as the
        VTT last reported them."""
        tok = self.tokens.get(token)
        if tok is None:
            return {}
        actor = self.actors.get(tok.actor) if tok.actor else None
        out: dict[str, Any] = {}
        for stat in RULES_OWNED:
            value = tok.stats.get(stat, _MISSING)
            if value is _MISSING and actor is not None:
                value = actor.stats.get(stat, _MISSING)
            if value is not _MISSING:
                out[stat] = value
        return out

    def build_character(self, tok: Token, before: dict[str, Any] | None = None) -> Character:
        """The token's character: actor stats, then the token's own, keeping rule state
        (conditions, stress...) the encounter already tracks. ``before`` is what the sheet
        showed of the rules-owned stats before the change being ingested (see
        :meth:`sheet_values`); None means the sheet did not change, so the rules' values stay."""
        stats: dict[str, Any] = {}
        actor = self.actors.get(tok.actor) if tok.actor else None
        if actor is not None:
            stats.update(actor.stats)
        stats.update(tok.stats)
        old = self.encounter.characters.get(tok.id)
        base = old.model_dump() if old is not None else {}
        if old is not None:
            self._keep_rules_values(tok, old, stats, before)
        base.update(stats)
        base.update(id=tok.id, name=tok.name or (actor.name if actor else "") or tok.id)
        return Character.model_validate(base)

    def _keep_rules_values(
        self, tok: Token, old: Character, stats: dict[str, Any], before: dict[str, Any] | None
    ) -> None:
        """Drop from ``stats`` the rules-owned values the GM did not change on the sheet, so the
        character keeps the rules' ones; note those the GM did change."""
        writes = self.sheet_writes.get(tok.id)
        for stat in RULES_OWNED:
            if stat not in stats:
                continue
            value = stats[stat]
            write = writes.get(stat) if writes else None
            if before is None:
                changed = False
            elif write is not None:
                if value in write.sent:  # our write landed (and those before it)
                    at = len(write.sent) - 1 - write.sent[::-1].index(value)
                    write.seen, write.sent = value, write.sent[at + 1 :]
                    if not write.sent:
                        self._forget_write(tok.id, stat)
                    changed = False
                else:  # the old value (our write has not landed), or the GM's own
                    changed = value != write.seen
            else:
                changed = value != before.get(stat, _MISSING)
            if not changed:
                del stats[stat]
                continue
            if write is not None:
                self._forget_write(tok.id, stat)
            if value != getattr(old, stat):
                self._sheet_edits.append((tok.id, stat, value))

    def _forget_write(self, token: str, stat: str) -> None:
        writes = self.sheet_writes.get(token)
        if writes is not None:
            writes.pop(stat, None)
            if not writes:
                del self.sheet_writes[token]

    def take_sheet_edits(self) -> list[tuple[str, str, Any]]:
        """(token, stat, value) of the rules-owned values the GM changed on a sheet since the
        last call, which the characters now follow."""
        # straight to pydantic's private store: its attribute hooks cost ~5 us, every step
        private = self.__pydantic_private__
        assert private is not None
        edits: list[tuple[str, str, Any]] = private["_sheet_edits"]
        if edits:
            private["_sheet_edits"] = []
        return edits

    def stats_to_write(self, token: str) -> dict[str, Any]:
        """The rules-owned stats of the token's character that differ from what its sheet
        shows (or will, once the bridge's writes land), recorded as written."""
        ch = self.encounter.characters.get(token)
        tok = self.tokens.get(token)
        if ch is None or tok is None:
            return {}
        writes = self.sheet_writes.get(token)
        own = tok.stats
        actor = self.actors.get(tok.actor) if tok.actor else None
        theirs = actor.stats if actor is not None else _NONE
        values = ch.__dict__  # runs after every move of a fighter: plain reads
        out: dict[str, Any] = {}
        for stat, default in _DEFAULTS.items():
            value = values[stat]
            write = writes.get(stat) if writes else None
            if write is not None:
                if value == write.sent[-1]:
                    continue
            else:
                shown = own.get(stat, _MISSING)
                if shown is _MISSING:
                    shown = theirs.get(stat, _MISSING)
                if value == (default if shown is _MISSING else shown):
                    continue
                writes = self.sheet_writes.setdefault(token, {})
                write = writes[stat] = SheetWrite(seen=None if shown is _MISSING else shown)
            write.sent.append(value)
            del write.sent[:-MAX_UNCONFIRMED]
            out[stat] = value
        return out

    def conditions_to_show(self, token: str) -> tuple[list[str], list[str]] | None:
        """``(conditions, removed)`` when the token's conditions differ from those last shown
        on it (recorded as shown), else None."""
        now = conditions_of(self.encounter, token) if token in self.tokens else set()
        last = self.shown.get(token)
        if now == (last or _NONE_SET):
            return None
        if now:
            self.shown[token] = now
        else:
            self.shown.pop(token, None)
        return sorted(now), sorted((last or _NONE_SET) - now)

    def put_token(self, data: TokenData, before: dict[str, Any] | None = None) -> Token:
        """Add or replace a token. ``before``: its sheet's rules-owned values before this
        report (a token already known; see :meth:`build_character`)."""
        tok = Token.model_validate(data.model_dump())
        if before is None and tok.id in self.tokens:
            before = self.sheet_values(tok.id)
        self.tokens[tok.id] = tok
        self.encounter.positions[tok.id] = tok.cell
        self.encounter.characters[tok.id] = self.build_character(tok, before)
        return tok

    def place(self, token: str, cell: Cell) -> None:
        self.tokens[token].cell = cell
        self.encounter.positions[token] = cell

    def remove_token(self, token: str) -> None:
        self.tokens.pop(token, None)
        self.encounter.positions.pop(token, None)
        self.sheet_writes.pop(token, None)
        self.shown.pop(token, None)
        enc = self.encounter
        if token in enc.combatants:
            enc.combatants[token].out = True  # keep the record of who fought
        else:
            enc.characters.pop(token, None)

    def refresh_character(self, token: str, before: dict[str, Any] | None = None) -> None:
        """Rebuild the token's character from its sheet. ``before``: what the sheet showed of
        the rules-owned stats before the change (None: the sheet did not change them)."""
        self.encounter.characters[token] = self.build_character(self.tokens[token], before)

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
        code = "out_of_range" if err["type"] in RANGE_ERRORS else "bad_stats"
        raise EventRejected(code, f"{loc}: {err['msg']}.", path=f"{where}.{loc}") from None
