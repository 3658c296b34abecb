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
"""

from __future__ import annotations

import contextlib
import inspect
import types
import typing
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from vttbridge.rules import actions
from vttbridge.rules import systems as rules_systems
from vttbridge.rules.geometry import Cell
from vttbridge.sdk.events import BaseEvent, ChatCommand, TokenMoved
from vttbridge.sdk.regions import Region
from vttbridge.sdk.triggers import EnterSpec, WithinSpec

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


@dataclass(eq=False)
class MoveJudge(Registered):
    pass


@dataclass(eq=False)
class Condition(Registered):
    name: str = ""
    types: tuple[type[BaseEvent], ...] = ()


@dataclass(eq=False)
class ChoiceHandler(Registered):
    kind: str = ""


@dataclass(eq=False)
class WatchHandler(Registered):
    name: str = ""


@dataclass(eq=False)
class PositionTrigger(Registered):
    spec: Any = None


@dataclass(eq=False)
class Hook(Registered):
    pass


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
    system."""
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
        if self.file is None:
            # the module that created the script, for error reports
            frame = inspect.currentframe()
            caller = frame.f_back.f_back if frame and frame.f_back else None
            self.file = caller.f_code.co_filename if caller else None

    # -- decorators --------------------------------------------------------------------------
    def on(
        self,
        *event_types: type[BaseEvent],
        token: str | None = None,
        when: Callable[[Any], bool] | None = None,
    ) -> Callable[[F], F]:
        """Listen for events of these types (subclasses included; ``BaseEvent`` for all).
        Without types, the first parameter's annotation says (a union lists several).
        ``token`` keeps events about that token only; ``when(event)`` filters further."""

        def deco(fn: F) -> F:
            kinds = event_types or _annotated_events(fn)
            if not kinds:
                raise TypeError(f"{fn.__name__}: name the event types or annotate the parameter")
            self.listeners.append(Listener(self, fn, types=tuple(kinds), token=token, when=when))
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
    ) -> Callable[[F], F]:
        """Handle ``!name ...`` in chat; the callback gets ``(cmd: ChatCommand, ctx)``.
        ``role`` is the least role allowed to give it. Raise :class:`sdk.UsageError` for bad
        arguments: the player is whispered the ``usage`` line.

        ``cost`` is what the command costs its actor in combat: ``"half"``, ``"full"``,
        ``"free"`` (or ``"action"``, ``"both"``), or an action the world's game system names
        (``"attack"``, ``"ready"``, ``"charge"``: see :mod:`vttbridge.rules.actions`). The
        runtime checks it before the callback runs and spends it once the callback succeeded
        (:mod:`vttbridge.sdk.economy`); a command refused for want of budget does not run, one that
        raises spends nothing."""
        if cost is not None:
            _check_cost(cost, self.system, name)

        def deco(fn: F) -> F:
            cmd = CommandHandler(
                self,
                fn,
                name=name.lower().lstrip("!"),
                usage=usage or f"!{name}",
                help=help or (inspect.getdoc(fn) or "").split("\n")[0],
                role=role,
                aliases=tuple(a.lower().lstrip("!") for a in aliases),
                cost=cost,
            )
            for n in (cmd.name, *cmd.aliases):
                self.commands[n] = cmd
            return fn

        return deco

    def condition(self, name: str, *, on: Iterable[type[BaseEvent]] = ()) -> Callable[[F], F]:
        """A named condition a Ready can use as its trigger (``!ready shoot --when name``): a
        predicate ``(event, ctx) -> bool`` tested on events of the types in ``on`` (default:
        token moves, chat commands and declared actions). ``ctx.owner`` is the token whose
        trigger is being decided (who readied), so "an enemy comes near" can mean his enemy;
        it is decided once per owner. An ``async def`` condition is awaited (within the
        world's ``script_budget``; it may await its own I/O, not ``ctx.ask``/``wait_for``)."""

        def deco(fn: F) -> F:
            kinds = tuple(on) or _annotated_events(fn) or _default_condition_types()
            self.conditions[name] = Condition(self, fn, name=name, types=kinds)
            return fn

        return deco

    def choice(self, kind: str) -> Callable[[F], F]:
        """Resolve prompts made from vttbridge.rules ``Choice``s of ``kind``: ``(prompt, answer,
        ctx)``."""

        def deco(fn: F) -> F:
            self.choices[kind] = ChoiceHandler(self, fn, kind=kind)
            return fn

        return deco

    def watch_handler(self, name: str) -> Callable[[F], F]:
        """Handle watches created at run time with ``ctx.watch(..., handler=name)``: the
        callback gets ``(event, ctx)`` with ``ctx.trigger`` set to the watch."""

        def deco(fn: F) -> F:
            self.watch_handlers[name] = WatchHandler(self, fn, name=name)
            return fn

        return deco

    def on_enter(
        self,
        region: str | None = None,
        *,
        cells: Iterable[Cell | tuple[int, int]] | None = None,
        token: str | None = None,
        exclude: str | None = None,
    ) -> Callable[[F], F]:
        """Fire when a token's move enters ``region`` (or ``cells``) from outside. The callback
        gets ``(event: TokenMoved, ctx)``; ``ctx.cell`` is the cell where it entered."""
        if (region is None) == (cells is None):
            raise TypeError("on_enter needs a region name or cells, not both")
        cell_list = None if cells is None else [_cell(c) for c in cells]
        spec = EnterSpec(region=region, cells=cell_list, token=token, exclude=exclude)
        return self._position(spec)

    def on_within(
        self, anchor: str, distance: float, *, token: str | None = None
    ) -> Callable[[F], F]:
        """Fire when a token (other than ``anchor``) comes within ``distance`` feet of the
        ``anchor`` token."""
        return self._position(
            WithinSpec(anchor=anchor, distance=distance, token=token, exclude=anchor)
        )

    def _position(self, spec: Any) -> Callable[[F], F]:
        def deco(fn: F) -> F:
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
                f"{getattr(fn, '__name__', fn)}: a before_move judge must be a plain function, "
                "not async (a move is judged before anything else happens)"
            )
        self.move_judges.append(MoveJudge(self, fn))
        return fn

    def on_load(self, fn: F) -> F:
        """Run ``fn(ctx)`` each time the script is loaded into a world (and after a reload)."""
        self.load_hooks.append(Hook(self, fn))
        return fn

    def on_unload(self, fn: F) -> F:
        """Run ``fn(ctx)`` each time the script leaves a world: it is unloaded, replaced by a
        reload (before the new version's ``on_load``), or the world stops."""
        self.unload_hooks.append(Hook(self, fn))
        return fn

    def region(
        self, name: str, cells: Iterable[Cell | tuple[int, int]], *, scene: str | None = None
    ) -> Region:
        """Define a named region (see :mod:`vttbridge.sdk.regions` for shapes); it joins the world's
        regions when the script loads."""
        reg = Region(
            name=name, cells=[_cell(c) for c in cells], scene=scene, source=f"script:{self.name}"
        )
        self.regions[name] = reg
        return reg


# -- helpers --------------------------------------------------------------------------------------


def _cell(c: Cell | tuple[int, int]) -> Cell:
    return c if isinstance(c, Cell) else Cell(x=c[0], y=c[1])


def _check_cost(cost: str, system: str | None, command: str) -> None:
    """A command's declared cost must be one the economy knows (in the script's system, or in
    any installed one)."""
    names = [system] if system else rules_systems.names()
    if not any(actions.known(s, cost) for s in names):
        known = sorted({n for s in names for n in actions.costs(s)})
        raise ValueError(
            f"!{command}: unknown cost {cost!r}; give free, half, full (or action, both) "
            f"or an action the rules name: {', '.join(known)}"
        )


def _default_condition_types() -> tuple[type[BaseEvent], ...]:
    from vttbridge.sdk.events import ActionDeclared

    return (TokenMoved, ChatCommand, ActionDeclared)


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


def _annotated_events(fn: Callable[..., Any]) -> tuple[type[BaseEvent], ...]:
    """Event classes named by the first parameter's annotation (hikari-style inference)."""
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # unresolvable forward refs: fall back to explicit types
        return ()
    params = list(inspect.signature(fn).parameters)
    if not params or params[0] not in hints:
        return ()
    ann = hints[params[0]]
    args = (
        typing.get_args(ann)
        if typing.get_origin(ann) in (typing.Union, types.UnionType)
        else (ann,)
    )
    return tuple(a for a in args if isinstance(a, type) and issubclass(a, BaseEvent))
