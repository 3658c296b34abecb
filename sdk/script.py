"""The registration surface of a script: a :class:`Script` collects callbacks with decorators.

A script module either creates ``script = Script("name")`` at module level and decorates its
functions, or defines ``setup(script)`` which receives a fresh :class:`Script`::

    from vttbridge.sdk import Script, TokenMoved, rect

    script = Script("ambush")
    script.region("corner", rect(10, 4, 12, 6))

    @script.on_enter("corner")
    async def sprung(event: TokenMoved, ctx):
        ctx.say(f"{ctx.name(event.token)} rounds the corner!")

    @script.command("ambush", usage="!ambush <target>")
    def ambush(cmd, ctx): ...

Callbacks may be plain functions or coroutines. A callback taking one parameter gets the
event; one taking two gets ``(event, ctx)`` (commands: ``(cmd, ctx)``; choice handlers:
``(prompt, answer, ctx)``; ``on_load`` and ``on_unload``: ``(ctx)``). Registering never
touches a world: the runtime reads a script's registrations when it loads it, and drops them
when it unloads it.

Mistakes are told when the file loads (:mod:`vttbridge.sdk.checks`), never at the table: a
callback that cannot be called the way its decorator calls it, event types that are not event
classes or that disagree with the first parameter's annotation, an unknown game system, a
command, condition or choice defined twice, or one replacing another script's without
``override=True`` each raise an error naming the callback, its file and line.
"""

from __future__ import annotations

import contextlib
import inspect
import typing
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from vttbridge.rules import actions
from vttbridge.rules import systems as rules_systems
from vttbridge.rules.geometry import Cell
from vttbridge.sdk.checks import (
    check_callback,
    check_receives,
    close_match,
    did_you_mean,
    event_types,
    shown_path,
    where,
)
from vttbridge.sdk.context import Context
from vttbridge.sdk.events import BaseEvent, ChatCommand, TokenMoved
from vttbridge.sdk.regions import Region
from vttbridge.sdk.triggers import EnterSpec, WithinSpec
from vttbridge.sdk.world import Prompt

F = typing.TypeVar("F", bound=Callable[..., Any])
Role = Literal["observer", "player", "gm"]
ROLE_RANK = {"observer": 0, "player": 1, "gm": 2}


@dataclass(eq=False)
class Registered:
    """One registered callback, with what an error report needs (script, file, line)."""

    script: Script
    fn: Callable[..., Any]
    nargs: int = 0
    is_async: bool = False

    def __post_init__(self) -> None:
        self.is_async = inspect.iscoroutinefunction(self.fn)
        self.nargs = positional_count(self.fn)

    @property
    def label(self) -> str:
        return f"{self.script.name}.{getattr(self.fn, '__name__', 'callback')}"

    @property
    def file(self) -> str:
        code = getattr(self.fn, "__code__", None)
        return code.co_filename if code else (self.script.file or "?")

    @property
    def line(self) -> int:
        code = getattr(self.fn, "__code__", None)
        return code.co_firstlineno if code else 0


@dataclass(eq=False)
class Listener(Registered):
    types: tuple[type[BaseEvent], ...] = ()
    token: str | None = None
    when: Callable[[Any], bool] | None = None


@dataclass(eq=False)
class CommandHandler(Registered):
    """A chat command's callback (``@script.command``): its names, usage, role and cost."""

    name: str = ""
    usage: str = ""
    help: str = ""
    role: Role = "player"
    aliases: tuple[str, ...] = ()
    cost: str | None = None
    """What the command costs its actor in combat (see :mod:`vttbridge.sdk.economy`), or None."""
    override: bool = False
    """It may replace another script's command of the same name."""
    free_if: Callable[[ChatCommand], bool] | None = None
    """When it says true of a command, that command costs nothing (a question such as
    ``!ready --when ?``)."""

    def costs(self, cmd: ChatCommand) -> str | None:
        """What ``cmd`` costs: the declared cost, or None when ``free_if`` frees it."""
        if self.cost is None or (self.free_if is not None and self.free_if(cmd)):
            return None
        return self.cost


@dataclass(eq=False)
class MoveJudge(Registered):
    pass


@dataclass(eq=False)
class Condition(Registered):
    name: str = ""
    types: tuple[type[BaseEvent], ...] = ()
    """The events it is tested on; empty: only ``ctx.signal(name)`` sets it off."""
    description: str = ""
    """What it means, in words (players read it when it sets a Ready off)."""
    override: bool = False


@dataclass(eq=False)
class ChoiceHandler(Registered):
    kind: str = ""
    override: bool = False


@dataclass(eq=False)
class WatchHandler(Registered):
    name: str = ""


@dataclass(eq=False)
class PositionTrigger(Registered):
    spec: Any = None


@dataclass(eq=False)
class Hook(Registered):
    pass


_EVENT_CTX = ("event", "ctx")


@dataclass(eq=False)
class Script:
    """A named bundle of callbacks. ``name`` must be unique within a world."""

    name: str
    description: str = ""
    file: str | None = None
    system: str | None = None
    """The game system it is for (``"spycraft"``, ``"foe"``); None for any. Its commands,
    listeners and move judges work in a world of that system only (elsewhere a command is
    answered "that is a ... command"), and ``!help`` lists only the commands of the world's
    system. A name no installed system has is refused (``ValueError``, with the closest
    installed name)."""
    listeners: list[Listener] = field(default_factory=list)
    commands: dict[str, CommandHandler] = field(default_factory=dict)
    conditions: dict[str, Condition] = field(default_factory=dict)
    choices: dict[str, ChoiceHandler] = field(default_factory=dict)
    watch_handlers: dict[str, WatchHandler] = field(default_factory=dict)
    position_triggers: list[PositionTrigger] = field(default_factory=list)
    regions: dict[str, Region] = field(default_factory=dict)
    load_hooks: list[Hook] = field(default_factory=list)
    unload_hooks: list[Hook] = field(default_factory=list)
    move_judges: list[MoveJudge] = field(default_factory=list)
    trusted: bool = False
    """Built-in: its plain callbacks run without the watchdog (:mod:`vttbridge.sdk.watchdog`)."""

    def __post_init__(self) -> None:
        # the module that created the script, for error reports (past the dataclass's
        # __init__). This frame let go at once, as inspect's docs advise: a frame kept in its
        # own local is a reference cycle, and it kept every frame under it alive until a full
        # collection (a world's, when building it imported the built-in scripts).
        frame = inspect.currentframe()
        try:
            caller = frame.f_back.f_back if frame and frame.f_back else None
        finally:
            del frame
        if self.file is None:
            self.file = caller.f_code.co_filename if caller else None
        if self.system is not None and self.system not in rules_systems.names():
            installed = rules_systems.names()
            at = f"{shown_path(self.file)}:{caller.f_lineno}: " if caller and self.file else ""
            raise ValueError(
                f"{at}Script({self.name!r}, system={self.system!r}): no game system "
                f"{self.system!r} is installed.{did_you_mean(self.system, installed)} "
                f"Installed: {', '.join(installed) or 'none'}."
            )

    # -- decorators --------------------------------------------------------------------------
    def on(
        self,
        *kinds_given: type[BaseEvent],
        token: str | None = None,
        when: Callable[[Any], bool] | None = None,
    ) -> Callable[[F], F]:
        """Listen for events of these types (subclasses included; ``BaseEvent`` for all).
        Without types, the first parameter's annotation says (a union lists several); with
        both, the annotation must accept every type given. ``token`` keeps events about that
        token only; ``when(event)`` filters further."""
        shown = ", ".join(getattr(t, "__name__", repr(t)) for t in kinds_given)

        def deco(fn: F) -> F:
            decorator = f"@script.on({shown})"
            check_callback(fn, decorator, _EVENT_CTX)
            kinds = event_types(fn, kinds_given, decorator, _EVENT_CTX)
            if when is not None:
                check_callback(when, f"{decorator}'s when=", ("event",), at_least=1)
            self.listeners.append(Listener(self, fn, types=kinds, token=token, when=when))
            return fn

        return deco

    def command(
        self,
        name: str,
        *,
        usage: str = "",
        help: str = "",
        role: Role = "player",
        aliases: Iterable[str] = (),
        cost: str | None = None,
        override: bool = False,
        free_if: Callable[[ChatCommand], bool] | None = None,
    ) -> Callable[[F], F]:
        """Handle ``!name ...`` in chat; the callback gets ``(cmd: ChatCommand, ctx)``.
        ``role`` is the least role allowed to give it. Raise :class:`sdk.UsageError` for bad
        arguments: the player is whispered the ``usage`` line.

        ``cost`` is what the command costs its actor in combat: ``"half"``, ``"full"``,
        ``"free"`` (or ``"action"``, ``"both"``), or an action the world's game system names
        (``"attack"``, ``"ready"``, ``"charge"``: see :mod:`vttbridge.rules.actions`). The
        runtime checks it before the callback runs and spends it once the callback succeeded
        (:mod:`vttbridge.sdk.economy`); a command refused for want of budget does not run, one that
        raises spends nothing. ``free_if(cmd)`` true makes that one command free (a
        question about the command rather than the action).

        A name (or alias) another loaded script already answers is refused when the script
        loads, unless ``override=True``: then this one replaces it (the built-in ``!stats``
        too)."""
        if cost is not None:
            _check_cost(cost, self.system, name)
        names = [n.lower().lstrip("!") for n in (name, *aliases)]

        def deco(fn: F) -> F:
            decorator = f"@script.command({name!r})"
            for n in names:
                if not n or any(c.isspace() for c in n):
                    raise TypeError(
                        f"{where(fn)}: {decorator}: {n!r} is no command name (one word)."
                    )
            check_callback(fn, decorator, ("cmd", "ctx"))
            check_receives(fn, decorator, ChatCommand, ("cmd", "ctx"))
            if free_if is not None:
                check_callback(free_if, f"{decorator}'s free_if=", ("cmd",), at_least=1)
            cmd = CommandHandler(
                self,
                fn,
                name=names[0],
                usage=usage or f"!{names[0]}",
                help=help or (inspect.getdoc(fn) or "").split("\n")[0],
                role=role,
                aliases=tuple(names[1:]),
                cost=cost,
                override=override,
                free_if=free_if,
            )
            for n in names:
                self._unique(self.commands, n, fn, f"!{n}", "a command")
            for n in names:
                self.commands[n] = cmd
            return fn

        return deco

    def condition(
        self,
        name: str,
        *,
        on: Iterable[type[BaseEvent]] | None = None,
        description: str = "",
        override: bool = False,
    ) -> Callable[[F], F]:
        """A named condition a Ready can use as its trigger (``!ready shoot --when name``): a
        predicate ``(event, ctx) -> bool`` tested on the events of the types in ``on``; without
        ``on``, the types its first parameter is annotated with (``event: TokenMoved``); with
        ``on=[]``, on no event: only ``ctx.signal(name)`` sets it off. A condition that says
        neither is refused when it is decorated.

        ``ctx.owner`` is the token whose trigger is being decided (who readied), so "an enemy
        comes near" can mean his enemy; it is decided once per owner. An ``async def``
        condition is awaited (within the world's ``script_budget``; it may await its own I/O,
        not ``ctx.ask``/``wait_for``). ``description`` says in words what it means (default:
        the docstring's first line): players read it when it sets a Ready off. A name another
        loaded script's condition has is refused unless ``override=True``."""

        def deco(fn: F) -> F:
            decorator = f"@script.condition({name!r})"
            check_callback(fn, decorator, _EVENT_CTX, at_least=1)
            given = None if on is None else tuple(on)
            if given == ():
                kinds: tuple[type[BaseEvent], ...] = ()
            else:
                kinds = event_types(
                    fn, given, decorator, _EVENT_CTX, hint="; on=[] if only ctx.signal sets it off"
                )
            self._unique(self.conditions, name, fn, f"the condition {name!r}", "a condition")
            text = description or (inspect.getdoc(fn) or "").split("\n")[0].rstrip(".")
            self.conditions[name] = Condition(
                self,
                fn,
                name=name,
                types=kinds,
                description=text or name.replace("_", " "),
                override=override,
            )
            return fn

        return deco

    def choice(self, kind: str, *, override: bool = False) -> Callable[[F], F]:
        """Resolve the questions opened for a rules ``Choice`` of ``kind`` (a rule's
        :class:`vttbridge.rules.outcome.Choice`, such as the Ready's ``"ready_cancel"``): the
        callback gets ``(prompt: Prompt, answer: str, ctx)`` once the player answered or the
        question timed out. Replacing a loaded script's handler of the same kind (a built-in
        rule's) needs ``override=True``."""

        def deco(fn: F) -> F:
            decorator = f"@script.choice({kind!r})"
            call = ("prompt", "answer", "ctx")
            check_callback(fn, decorator, call)
            check_receives(fn, decorator, Prompt, call)
            self._unique(self.choices, kind, fn, f"the choice {kind!r}", "a choice handler")
            self.choices[kind] = ChoiceHandler(self, fn, kind=kind, override=override)
            return fn

        return deco

    def watch_handler(self, name: str) -> Callable[[F], F]:
        """Handle watches created at run time with ``ctx.watch(..., handler=name)``: the
        callback gets ``(event, ctx)`` with ``ctx.trigger`` set to the watch."""

        def deco(fn: F) -> F:
            decorator = f"@script.watch_handler({name!r})"
            check_callback(fn, decorator, _EVENT_CTX)
            self._unique(self.watch_handlers, name, fn, f"the watch handler {name!r}", "one")
            self.watch_handlers[name] = WatchHandler(self, fn, name=name)
            return fn

        return deco

    def on_enter(
        self,
        region: str | Region | None = None,
        *,
        cells: Iterable[Cell | tuple[int, int]] | None = None,
        token: str | None = None,
        exclude: str | None = None,
    ) -> Callable[[F], F]:
        """Fire when a token's move enters ``region`` (a name, or the :class:`Region`
        :meth:`region` returned) or ``cells`` from outside, walking every cell of its path
        (see :func:`vttbridge.sdk.regions.entered`). The callback gets ``(event: TokenMoved,
        ctx)``; ``ctx.cell`` is the cell where it entered. A name close to one of this
        script's own regions but not one (``"vualt"``) is refused; a name the script does not
        define may be a region drawn in the VTT, and the GM is told when the scene arrives
        without it."""
        if (region is None) == (cells is None):
            raise TypeError("on_enter needs a region name or cells, not both")
        name = region.name if isinstance(region, Region) else region
        cell_list = None if cells is None else [_cell(c) for c in cells]
        spec = EnterSpec(region=name, cells=cell_list, token=token, exclude=exclude)
        decorator = f"@script.on_enter({name or 'cells'!r})"
        register = self._position(spec, decorator)

        def deco(fn: F) -> F:
            match = None if name in self.regions else close_match(name or "", self.regions)
            if match is not None:
                raise TypeError(
                    f"{where(fn)}: {decorator} on {getattr(fn, '__name__', fn)}: this script "
                    f"defines no region {name!r}; did you mean {match!r}?"
                )
            return register(fn)

        return deco

    def on_within(
        self, anchor: str, distance: float, *, token: str | None = None
    ) -> Callable[[F], F]:
        """Fire when a token (other than ``anchor``) comes within ``distance`` feet of the
        ``anchor`` token."""
        return self._position(
            WithinSpec(anchor=anchor, distance=distance, token=token, exclude=anchor),
            f"@script.on_within({anchor!r}, {distance!r})",
        )

    def _position(self, spec: Any, decorator: str) -> Callable[[F], F]:
        def deco(fn: F) -> F:
            check_callback(fn, decorator, _EVENT_CTX)
            check_receives(fn, decorator, TokenMoved, _EVENT_CTX)
            self.position_triggers.append(PositionTrigger(self, fn, spec=spec))
            return fn

        return deco

    def before_move(self, fn: F) -> F:
        """Judge every token move from outside (the VTT) before it is applied: ``fn(event:
        TokenMoved, ctx)`` returns None to let it through, or a rules ``Outcome`` (a rule it
        called, e.g. :func:`vttbridge.systems.foe.rules.movement.move`) that is applied,
        unannounced, once the
        token is placed. Raising :class:`vttbridge.rules.outcome.RuleError` refuses the move: the
        world keeps the token where it was, the VTT is told to put it back, the mover and the GM are
        told why, and listeners get a :class:`vttbridge.sdk.events.MoveRefused` instead of the
        ``TokenMoved``. A judge must be a plain function (it runs before anything else)."""
        if inspect.iscoroutinefunction(fn):
            raise TypeError(
                f"{where(fn)}: {getattr(fn, '__name__', fn)}: a before_move judge must be a "
                "plain function, not async (a move is judged before anything else happens)"
            )
        check_callback(fn, "@script.before_move", _EVENT_CTX)
        check_receives(fn, "@script.before_move", TokenMoved, _EVENT_CTX)
        self.move_judges.append(MoveJudge(self, fn))
        return fn

    def on_load(self, fn: F) -> F:
        """Run ``fn(ctx)`` each time the script is loaded into a world (and after a reload)."""
        check_callback(fn, "@script.on_load", ("ctx",))
        check_receives(fn, "@script.on_load", Context, ("ctx",))
        self.load_hooks.append(Hook(self, fn))
        return fn

    def on_unload(self, fn: F) -> F:
        """Run ``fn(ctx)`` each time the script leaves a world: it is unloaded, replaced by a
        reload (before the new version's ``on_load``), or the world stops."""
        check_callback(fn, "@script.on_unload", ("ctx",))
        check_receives(fn, "@script.on_unload", Context, ("ctx",))
        self.unload_hooks.append(Hook(self, fn))
        return fn

    def region(
        self, name: str, cells: Iterable[Cell | tuple[int, int]], *, scene: str | None = None
    ) -> Region:
        """Define a named region (see :mod:`vttbridge.sdk.regions` for shapes); it joins the
        world's regions when the script loads."""
        reg = Region(
            name=name, cells=[_cell(c) for c in cells], scene=scene, source=f"script:{self.name}"
        )
        self.regions[name] = reg
        return reg

    def _unique(
        self, table: Mapping[str, Registered], key: str, fn: Any, what: str, kind: str
    ) -> None:
        """A name registered twice in one script is a mistake: tell it, with both places."""
        old = table.get(key)
        if old is not None and old.fn is not fn:
            raise TypeError(
                f"{where(fn)}: {what} is already {kind} of this script ({old.fn.__name__} at "
                f"{where(old.fn)}); give one of them another name."
            )


# -- helpers --------------------------------------------------------------------------------------


def _cell(c: Cell | tuple[int, int]) -> Cell:
    return c if isinstance(c, Cell) else Cell(x=c[0], y=c[1])


def _check_cost(cost: str, system: str | None, command: str) -> None:
    """A command's declared cost must be one the economy knows (in the script's system, or in
    any installed one)."""
    among = [system] if system else rules_systems.names()
    if not any(actions.known(s, cost) for s in among):
        names = sorted({n for s in among for n in actions.costs(s)})
        hint = did_you_mean(cost, [*names, "free", "half", "full", "action", "both"])
        raise ValueError(
            f"!{command}: unknown cost {cost!r}.{hint} Give free, half, full (or action, both) "
            f"or an action the rules name: {', '.join(names)}"
        )


_POSITIONAL_COUNTS: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()


def positional_count(fn: Callable[..., Any]) -> int:
    """How many positional arguments ``fn`` takes (99 for ``*args``); cached per callable
    (``inspect.signature`` is too slow to run on every event)."""
    try:
        return _POSITIONAL_COUNTS[fn]
    except (KeyError, TypeError):
        pass
    n = _positional_count(fn)
    with contextlib.suppress(TypeError):  # not weak-referenceable or not hashable: no cache
        _POSITIONAL_COUNTS[fn] = n
    return n


def _positional_count(fn: Callable[..., Any]) -> int:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 2
    n = 0
    for p in params:
        if p.kind is p.VAR_POSITIONAL:
            return 99
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            n += 1
    return n
