"""The context every callback receives: read the world, roll, ask, post, move, call the rules.

A context is cheap and made per call. Everything it does happens inside the world's consumer,
so a callback never sees another event's half-applied changes. ``ask``, ``wait_for`` and
``sleep`` are coroutines: only an ``async def`` callback can await them, and while it waits the
world goes on processing other events (the callback resumes inside the processing of the event
that answers it).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, overload

from vttbridge.rules import actions
from vttbridge.rules.characters import RULES_OWNED, Character
from vttbridge.rules.dice import Roll, Roller
from vttbridge.rules.encounter import Encounter
from vttbridge.rules.geometry import Cell
from vttbridge.rules.options import Options, option_names
from vttbridge.rules.outcome import Outcome, RuleError
from vttbridge.sdk.effects import BaseEffect, PostChat, UpdateToken
from vttbridge.sdk.errors import UsageError
from vttbridge.sdk.events import BaseEvent, ChatCommand, ConditionSignalled
from vttbridge.sdk.refusal_record import RefusalRecord
from vttbridge.sdk.regions import Region
from vttbridge.sdk.triggers import SPEC_ADAPTER
from vttbridge.sdk.world import Prompt, Token, Watch, World, WorldSettings, check_stats

if TYPE_CHECKING:
    from vttbridge.sdk.runtime.refusals import Refusals
    from vttbridge.sdk.script import Script


E = TypeVar("E", bound=BaseEvent)
"""An event class, for the typed :meth:`Context.wait_for`."""
R = TypeVar("R")
"""What a rule function returns (an ``Outcome``, or a value and one), for :meth:`Context.rule`."""


class WorldAccess(Protocol):
    """What a :class:`Context` asks of the world runtime
    (:class:`vttbridge.sdk.runtime.WorldRuntime`
    implements it): the world, the roller, and the calls that change the world or wait in it.
    Each runs inside the world's current step."""

    world_id: str
    world: World
    roller: Roller
    refusals: Refusals
    """Refusals told with their rule's citation, and the last ones (``!why``)."""

    def emit(self, effect: BaseEffect) -> None:
        """Send ``effect`` to the VTT with the current step's effects."""

    def derive(self, event: BaseEvent) -> None:
        """Dispatch ``event`` after the current one, in the same step."""

    def touch(self, token: str | None) -> None:
        """``token``'s rules-owned values or conditions may have changed in this step."""

    def touch_all(self) -> None:
        """Any token's rules-owned values or conditions may have changed in this step."""

    def move_token(
        self,
        token: str,
        cell: Cell,
        path: list[Cell],
        *,
        animate: bool,
        fire: bool,
        source: str,
        old: Cell | None = None,
    ) -> None:
        """Move ``token`` in the world and the VTT (a ``TokenMoved`` follows when ``fire``)."""

    def set_region(self, region: Region) -> None:
        """Add or replace a named region."""

    def grid_changed(self) -> None:
        """The grid's metric changed: cells within a distance change with it."""

    def apply_outcome(self, outcome: Outcome, *, announce: bool, script: Script | None) -> None:
        """Turn a rule outcome into effects, events and prompts."""

    def open_prompt(
        self,
        *,
        kind: str,
        player: str,
        token: str | None,
        question: str,
        options: list[str],
        default: str,
        timeout: float | None = None,
        script: str | None = None,
    ) -> Prompt:
        """Ask a player a question (an ``AskPlayer`` effect); returns the pending prompt."""

    async def wait_prompt(self, pid: str) -> str:
        """The answer to prompt ``pid`` (its default if it is withdrawn)."""

    async def wait_event(
        self,
        types: tuple[type[BaseEvent], ...],
        check: Callable[[Any], bool] | None,
        timeout: float | None,
        script: Script | None,
    ) -> Any:
        """The next event of ``types`` that ``check`` accepts (``TimeoutError`` after
        ``timeout`` seconds)."""

    def answer_prompt(self, pid: str, option: str, *, player: str | None, role: str) -> str:
        """Answer a pending prompt; returns the option chosen."""

    def close_prompt(self, pid: str, reason: str = "") -> None:
        """Withdraw a pending prompt."""

    def add_watch(
        self,
        key: str,
        spec: Any,
        script: str,
        handler: str,
        data: dict[str, Any],
        owner: str | None = None,
    ) -> Watch:
        """Create or replace the run-time trigger ``key``."""

    def remove_watch(self, key: str) -> None:
        """Drop the run-time trigger ``key``."""

    def condition_names(self) -> list[str]:
        """The named conditions the loaded scripts registered."""

    def commands(self) -> dict[str, Any]:
        """Every chat command loaded, by name (aliases included)."""

    def scripts(self) -> list[Script]:
        """The scripts loaded in the world, in load order (the built-ins first)."""


class Context:
    """What a callback can do. ``event`` is the event being handled; ``cell``/``region_name``
    say where a position trigger fired; ``trigger`` is the run-time :class:`Watch` that fired
    (in a ``watch_handler``), else None. ``owner`` is the token whose trigger is being decided
    or fired: in a ``@script.condition`` and a ``watch_handler``, the character who readied
    (the watch's ``owner``), so "an enemy comes near" can mean an enemy of his; None for a
    trigger nobody owns and in other callbacks."""

    def __init__(
        self,
        runtime: WorldAccess,
        script: Script | None,
        event: BaseEvent | None = None,
        *,
        cell: Cell | None = None,
        region: str | None = None,
        watch: Watch | None = None,
        owner: str | None = None,
    ) -> None:
        self._rt = runtime
        self.script = script
        self.event = event
        self.cell = cell
        self.region_name = region
        self.trigger = watch
        self.owner = owner

    # -- reading -------------------------------------------------------------------------------
    @property
    def world(self) -> World:
        return self._rt.world

    @property
    def world_id(self) -> str:
        return self._rt.world_id

    @property
    def encounter(self) -> Encounter:
        return self._rt.world.encounter

    @property
    def options(self) -> Options:
        return self._rt.world.encounter.options

    @property
    def settings(self) -> WorldSettings:
        return self._rt.world.settings

    @property
    def roller(self) -> Any:
        return self._rt.roller

    @property
    def tokens(self) -> Mapping[str, Token]:
        return self._rt.world.tokens

    @property
    def store(self) -> dict[str, Any]:
        """This script's JSON-able data; it survives reloads, snapshots and restarts."""
        name = self.script.name if self.script else "_"
        return self._rt.world.store.setdefault(name, {})

    def token(self, ref: str) -> Token:
        """A token by id or unique name. Raises :class:`UsageError` (a command's player sees the
        message) when there is none."""
        try:
            return self._rt.world.token(ref)
        except KeyError as e:
            raise UsageError(str(e.args[0]).capitalize() + ".") from None

    def name(self, token: str) -> str:
        tok = self._rt.world.tokens.get(token)
        return tok.display if tok else self.encounter.name(token)

    def cell_of(self, token: str) -> Cell:
        return self.token(token).cell

    def character(self, token: str) -> Character:
        """The rules' character for a token (its stats and rule state). What a callback changes
        of its rules-owned values (``vttbridge.rules.characters.RULES_OWNED``, ``conditions``) goes
        back to the VTT after the callback, as a rule's changes do."""
        tid = self.token(token).id
        self._rt.touch(tid)
        return self.encounter.character(tid)

    stats = character

    def distance(self, a: str | Cell, b: str | Cell) -> float:
        """Distance in feet (grid units) between tokens and/or cells."""
        ca = a if isinstance(a, Cell) else self.token(a).cell
        cb = b if isinstance(b, Cell) else self.token(b).cell
        return self.world.grid.distance_between(ca, cb)

    def region(self, name: str) -> Region:
        try:
            return self.world.regions[name]
        except KeyError:
            raise UsageError(f"No region {name!r}.") from None

    def in_region(self, token: str, region: str) -> bool:
        return self.token(token).cell in self.region(region)

    def regions_at(self, where: str | Cell) -> list[str]:
        cell = where if isinstance(where, Cell) else self.token(where).cell
        return self.world.regions_at(cell)

    def player_for(self, token: str | None) -> str:
        """Who answers for a token: its owning player's id, or ``"gm"``."""
        return self.world.player_for(token)

    def prompts(self) -> list[Prompt]:
        return list(self.world.prompts.values())

    # -- chat ----------------------------------------------------------------------------------
    def emit(self, effect: BaseEffect) -> None:
        """Send any effect to the VTT."""
        self._rt.emit(effect)

    def say(self, text: str, *, whisper_to: str | None = None, speaker: str | None = None) -> None:
        """Post to chat: public, or whispered to ``"gm"`` or a player id."""
        self._rt.emit(PostChat(text=text, whisper_to=whisper_to, speaker=speaker))

    def tell_gm(self, text: str) -> None:
        self.say(text, whisper_to="gm")

    def whisper(self, player: str, text: str) -> None:
        self.say(text, whisper_to=player)

    def tell_refused(self, error: RuleError, text: str | None = None, *, to: str = "gm") -> None:
        """Whisper a rule's refusal to ``to`` (a player id, or ``"gm"``) with the rule that
        refused (its citation), and keep it as the last refusal ``!why`` explains. ``text``:
        the line to show (the rules' message unless given)."""
        self._rt.refusals.tell(error, to, text)

    def last_refusal(self, player: str | None = None) -> RefusalRecord | None:
        """The last refusal ``player`` was told of (a player id, or ``"gm"``); None: the last
        of all. Kept while the world runs."""
        return self._rt.refusals.last(player)

    def reply(self, text: str) -> None:
        """Whisper to whoever gave the command being handled (the GM otherwise)."""
        ev = self.event
        player = ev.player if isinstance(ev, ChatCommand) and ev.player else "gm"
        self.say(text, whisper_to=player)

    # -- dice ----------------------------------------------------------------------------------
    def roll(self, expression: str | int, reason: str = "", *, show: bool = True) -> Roll:
        """Roll dice with the world's roller; shown in chat unless ``show=False``."""
        r = self._rt.roller.roll(expression, reason=reason)
        if show:
            self.say(f"{reason + ': ' if reason else ''}{r.text}")
        return r

    # -- tokens and stats ----------------------------------------------------------------------
    def move(
        self,
        token: str,
        cell: Cell | tuple[int, int],
        *,
        path: Iterable[Cell] = (),
        animate: bool = True,
        fire_triggers: bool = True,
    ) -> None:
        """Move a token in the world and the VTT. Its move fires position triggers and
        listeners (as a ``TokenMoved`` with ``source="script"``) unless ``fire_triggers`` is
        false -- a correction such as a reverted move should not spring an ambush."""
        tok = self.token(token)
        to = cell if isinstance(cell, Cell) else Cell(x=cell[0], y=cell[1])
        self._rt.move_token(
            tok.id, to, list(path), animate=animate, fire=fire_triggers, source="script"
        )

    def update_token(self, token: str, **fields: Any) -> None:
        """Change a token's other fields (``name``, ``hidden``, ``disposition``...)."""
        tok = self.token(token)
        for key, value in fields.items():
            if key not in ("name", "hidden", "disposition", "owners"):
                raise ValueError(f"update_token cannot set {key!r}")
            setattr(tok, key, value)
        if "name" in fields:
            self.world.refresh_character(tok.id)
        self._rt.emit(UpdateToken(token=tok.id, fields=fields))

    def set_stats(self, token: str, **stats: Any) -> Character:
        """Set rule stats on a token's character. A rules-owned stat (action dice, stress,
        wound and vitality points) is the rules' to change: it is set on the character and
        written back to the sheet. Another stat is the sheet's: it is kept over the sheet's
        value until the VTT sends the sheet again."""
        tok = self.token(token)
        try:
            check_stats(stats, "stats")
        except Exception as e:
            raise UsageError(getattr(e, "message", str(e))) from None
        owned = {k: v for k, v in stats.items() if k in RULES_OWNED}
        read = {k: v for k, v in stats.items() if k not in RULES_OWNED}
        if read:
            tok.stats.update(read)
            self.world.refresh_character(tok.id)
        ch = self.encounter.characters[tok.id]
        for k, v in owned.items():
            setattr(ch, k, v)
        self._rt.touch(tok.id)
        return ch

    def define_region(self, name: str, cells: Iterable[Cell | tuple[int, int]]) -> Region:
        reg = Region(
            name=name,
            cells=[c if isinstance(c, Cell) else Cell(x=c[0], y=c[1]) for c in cells],
            source=f"script:{self.script.name}" if self.script else "script",
        )
        self._rt.set_region(reg)
        return reg

    # -- rules ---------------------------------------------------------------------------------
    def rule(self, fn: Callable[..., R], *args: Any, **kw: Any) -> R:
        """Call a rule function with this world's encounter (first argument) and roller (when
        it takes one), then apply its outcome: chat, initiative and turn effects, token moves,
        prompts for its choices. A :class:`RuleError` propagates with nothing changed."""
        if "roller" in _params(fn) and "roller" not in kw:
            kw["roller"] = self._rt.roller
        self._rt.touch_all()  # a rule may change any character: compare them all after
        enc = self.encounter
        # JSON, not a deep copy: on a 200-character map 0.24 ms against 3.4 ms, every command
        before = enc.model_dump_json()
        try:
            out = fn(enc, *args, **kw)
        except BaseException:
            # Rules raise before changing anything, but a dice error (a scripted roller run
            # dry, a bad expression) can strike half-way: put the encounter back as it was.
            restore_encounter(enc, before)
            raise
        if isinstance(out, tuple):  # rules that return (value, Outcome)
            for part in out:
                if isinstance(part, Outcome):
                    self.apply(part)
            return out
        if isinstance(out, Outcome):
            self.apply(out)
        return out

    def apply(self, outcome: Outcome, *, announce: bool = True) -> Outcome:
        """Turn a rule outcome into effects, events and prompts (see :meth:`rule`)."""
        self._rt.apply_outcome(outcome, announce=announce, script=self.script)
        return outcome

    def spend(self, token: str, cost: str = "half", what: str = "") -> bool:
        """Spend ``cost`` from a token's action budget through the rules' economy
        (:mod:`vttbridge.rules.actions`): ``"half"``, ``"full"``, ``"free"`` or an action the rules
        name (``"attack"``), recorded as ``what``. In combat and in the turn order only (a free
        action also out of turn); returns whether anything was spent. Raises ``RuleError``
        saying what is left, nothing spent, when he cannot."""
        tid = self.token(token).id
        return bool(self.rule(actions.take, tid, cost, what=what or None))

    def signal(self, condition: str, token: str | None = None, **data: Any) -> None:
        """Say a named condition happened: Ready actions waiting on it fire."""
        self._rt.derive(
            ConditionSignalled(condition=condition, token=token, data=data, source="script")
        )

    # -- run-time triggers ---------------------------------------------------------------------
    def watch(
        self,
        key: str,
        spec: Any,
        handler: str,
        data: Mapping[str, Any] | None = None,
        *,
        owner: str | None = None,
    ) -> Watch:
        """Create (or replace) a trigger kept in world state: ``spec`` is a trigger spec from
        :mod:`vttbridge.sdk.triggers` (or its dict), ``handler`` the name of this script's
        ``@script.watch_handler``, ``owner`` the token it is for (a Ready's: conditions and the
        handler see it as ``ctx.owner``)."""
        if self.script is None:
            raise RuntimeError("watch() needs a script")
        spec = SPEC_ADAPTER.validate_python(spec) if isinstance(spec, Mapping) else spec
        return self._rt.add_watch(
            key, spec, self.script.name, handler, dict(data or {}), owner=owner
        )

    def unwatch(self, key: str) -> None:
        self._rt.remove_watch(key)

    # -- waiting -------------------------------------------------------------------------------
    async def ask(
        self,
        who: str,
        question: str,
        options: Iterable[str],
        default: str | None = None,
        *,
        token: str | None = None,
        timeout: float | None = None,
    ) -> str:
        """Ask a player (a player id, ``"gm"``, or a token whose owner answers) to pick one of
        ``options``; returns the option. After ``timeout`` seconds (the world's
        ``prompt_timeout`` by default) the ``default`` (first option by default) applies."""
        opts = [str(o) for o in options]
        if not opts:
            raise ValueError("ask() needs at least one option")
        if who in self.world.tokens:
            token, who = who, self.world.player_for(who)
        prompt = self._rt.open_prompt(
            kind="ask",
            player=who,
            token=token,
            question=question,
            options=opts,
            default=default if default is not None else opts[0],
            timeout=timeout,
            script=self.script.name if self.script else None,
        )
        return await self._rt.wait_prompt(prompt.id)

    @overload
    async def wait_for(
        self,
        event_type: type[E],
        /,
        *,
        check: Callable[[E], bool] | None = None,
        timeout: float | None = None,
    ) -> E: ...

    @overload
    async def wait_for(
        self,
        *event_types: type[BaseEvent],
        check: Callable[[Any], bool] | None = None,
        timeout: float | None = None,
    ) -> BaseEvent: ...

    async def wait_for(
        self,
        *event_types: type[BaseEvent],
        check: Callable[[Any], bool] | None = None,
        timeout: float | None = None,
    ) -> Any:
        """Wait for the next event of these types (any event by default) for which
        ``check(event)`` is true; raises :class:`TimeoutError` after ``timeout`` seconds.
        With one type the result has that type for a type checker:
        ``moved = await ctx.wait_for(TokenMoved, check=lambda e: e.token == "t1")`` is a
        :class:`vttbridge.sdk.events.TokenMoved`."""
        return await self._rt.wait_event(event_types or (BaseEvent,), check, timeout, self.script)

    async def sleep(self, seconds: float) -> None:
        """Pause this callback; the world keeps processing events meanwhile."""
        try:
            await self._rt.wait_event((), None, seconds, self.script)
        except TimeoutError:
            return

    # -- prompts, options, events ------------------------------------------------------------
    def answer(
        self, prompt: str, option: str, *, player: str | None = None, role: str = "gm"
    ) -> str:
        """Answer a pending prompt (as the GM by default); returns the option chosen. Raises
        :class:`UsageError` for an unknown prompt, a bad option or the wrong player."""
        return self._rt.answer_prompt(prompt, option, player=player, role=role)

    def close_prompt(self, prompt: str, reason: str = "") -> None:
        """Withdraw a pending prompt (its question no longer matters)."""
        self._rt.close_prompt(prompt, reason)

    def emit_event(self, event: BaseEvent) -> None:
        """Dispatch an event to listeners and triggers after the current callback (no state
        ingest: change state through the context first). ``source`` becomes ``"script"``."""
        if event.source == "vtt":
            event = event.model_copy(update={"source": "script"})
        self._rt.derive(event)

    def condition_names(self) -> list[str]:
        """Names of the conditions scripts registered (usable as Ready triggers)."""
        return self._rt.condition_names()

    def commands(self) -> dict[str, Any]:
        """Every chat command loaded in this world, by name (aliases included)."""
        return self._rt.commands()

    def scripts(self) -> list[Script]:
        """The scripts loaded in this world, in load order (the built-ins first), with what
        each registered: read them, never change them."""
        return self._rt.scripts()

    def set_option(self, name: str, value: Any) -> None:
        """Change a rules ⚙ option (:class:`vttbridge.rules.options.Options`: a shared one or one
        of the world's system) or a runtime setting (:class:`vttbridge.sdk.world.WorldSettings`),
        validated. Raises :class:`UsageError`."""
        from pydantic import ValidationError

        name = name.lower().replace("-", "_")
        options = option_names(self.options.system)  # the shared ones and the system's
        for cls, current, names in (
            (Options, self.options, options),
            (WorldSettings, self.settings, list(WorldSettings.model_fields)),
        ):
            if name not in names:
                continue
            try:
                new = cls.model_validate({**current.model_dump(), name: value})
            except ValidationError as e:
                raise UsageError(f"{name}: {_first_error(e)}.") from None
            if isinstance(new, Options):
                self.encounter.options = new
                if self.encounter.grid.metric != new.diagonal_metric:
                    self.encounter.grid.metric = new.diagonal_metric
                    self._rt.grid_changed()
            elif isinstance(new, WorldSettings):
                self.world.settings = new
            return
        raise UsageError(f"No option {name!r}. Type !set to list them.")

    def __repr__(self) -> str:
        return f"Context(world={self.world_id!r}, script={getattr(self.script, 'name', None)!r})"


def _first_error(e: Any) -> str:
    """The first message of a pydantic ``ValidationError``, without pydantic's ``Value error,``
    prefix."""
    return str(e.errors()[0]["msg"]).removeprefix("Value error, ")


def restore_encounter(enc: Encounter, before: str) -> None:
    """Put ``enc`` back to its JSON ``before`` (taken with ``model_dump_json``), in place."""
    restored = type(enc).model_validate_json(before)
    for name in type(enc).model_fields:
        setattr(enc, name, getattr(restored, name))


@functools.cache
def _params(fn: Callable[..., Any]) -> frozenset[str]:
    try:
        return frozenset(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return frozenset()


__all__ = ["Context", "RuleError", "WorldAccess"]
