"""Load-time checks of a script: what a scripter gets wrong is told when the file loads, naming
the callback, its file and line, and what to write instead -- never found out at the table.

- :func:`check_callback`: a decorated callback can be called the way its decorator calls it
  (``(event, ctx)``, ``(prompt, answer, ctx)``...), as discord.py and hikari check a listener
  when it is registered: a ``TypeError`` at decoration time;
- :func:`event_types`: the event classes a listener or a condition hears, from the decorator
  or from its first parameter's annotation, and that the two agree;
- :func:`check_loading`: a script loaded into a world may not replace another script's chat
  command, condition or choice handler unless it says ``override=True``, and may not name a
  region of its own that it never defined;
- :func:`did_you_mean`: the suggestion for a name close to a known one, shared by every check
  (and by ``!ready --when``).
"""

from __future__ import annotations

import difflib
import inspect
import os
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from vttbridge.sdk.errors import ScriptError
from vttbridge.sdk.events import BaseEvent

if TYPE_CHECKING:
    from vttbridge.sdk.script import ChoiceHandler, CommandHandler, Condition, Script

__all__ = [
    "check_callback",
    "check_loading",
    "check_receives",
    "close_match",
    "did_you_mean",
    "event_types",
    "registered",
    "shown_path",
    "where",
]


# -- suggestions ----------------------------------------------------------------------------------


def close_match(name: str, known: Iterable[str], cutoff: float = 0.75) -> str | None:
    """The known name ``name`` was probably meant to be: the same but for case, else the
    closest spelling (:func:`difflib.get_close_matches`), else None."""
    by_lower = {k.lower(): k for k in known}
    low = name.lower()
    if low in by_lower:
        return by_lower[low]
    found = difflib.get_close_matches(low, list(by_lower), n=1, cutoff=cutoff)
    return by_lower[found[0]] if found else None


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``" Did you mean 'vault'?"`` when a known name is close to ``name``, else ``""``."""
    match = close_match(name, known)
    return f" Did you mean {match!r}?" if match is not None and match != name else ""


# -- where a callback is ---------------------------------------------------------------------


def where(fn: Any) -> str:
    """``file:line`` of a callback's definition (the path relative to the working directory
    when it lies below it)."""
    target = inspect.unwrap(fn) if callable(fn) else fn
    code = getattr(target, "__code__", None)
    if code is None:
        return "?"
    return f"{shown_path(code.co_filename)}:{code.co_firstlineno}"


def shown_path(path: str) -> str:
    """``path`` relative to the working directory when it lies below it, else as it is."""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return path
    return path if rel.startswith("..") else rel


def _shown(fn: Any) -> str:
    """``name(event, ctx)``: the callback as a reader knows it."""
    name = getattr(fn, "__name__", None) or repr(fn)
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return name
    parts = []
    for p in params:
        prefix = "*" if p.kind is p.VAR_POSITIONAL else "**" if p.kind is p.VAR_KEYWORD else ""
        parts.append(prefix + p.name)
    return f"{name}({', '.join(parts)})"


# -- signatures -----------------------------------------------------------------------------------


def check_callback(fn: Any, decorator: str, call: tuple[str, ...], *, at_least: int = 0) -> None:
    """Raise ``TypeError`` unless ``fn`` can be called with the first positional arguments of
    ``call`` (a callback may take fewer: ``(event)`` for ``(event, ctx)``), and with at least
    ``at_least`` of them. ``decorator`` names the registration in the message
    (``@script.condition('near')``)."""
    if not callable(fn):
        raise TypeError(f"{decorator} decorates a function, not {fn!r}.")
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # a builtin or C callable: nothing to read
        return
    required = accepts = 0
    star = False
    for p in params:
        if p.kind is p.VAR_POSITIONAL:
            star = True
        elif p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            accepts += 1
            required += p.default is p.empty
        elif p.kind is p.KEYWORD_ONLY and p.default is p.empty:
            raise TypeError(
                f"{where(fn)}: {decorator} on {_shown(fn)}: its keyword-only parameter "
                f"{p.name!r} has no default, and nothing ever passes it; give it a default."
            )
    expected = f"({', '.join(call)})"
    if required > len(call):
        raise TypeError(
            f"{where(fn)}: {decorator} on {_shown(fn)}: it is called with {expected}, but "
            f"{getattr(fn, '__name__', 'it')} needs {required} arguments."
        )
    if not star and accepts < at_least:
        raise TypeError(
            f"{where(fn)}: {decorator} on {_shown(fn)}: it is called with {expected}; take at "
            f"least {', '.join(call[:at_least])}."
        )


# -- event types and annotations ------------------------------------------------------------------

_NO_HINT = object()


def _first_hint(fn: Any) -> Any:
    """The first parameter's annotation, resolved; ``_NO_HINT`` when it has none. Raises
    ``NameError`` (and others) when it cannot be resolved."""
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return _NO_HINT
    if not params:
        return _NO_HINT
    hints = typing.get_type_hints(fn)
    return hints.get(params[0], _NO_HINT)


def _members(hint: Any) -> tuple[Any, ...]:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return tuple(a for a in typing.get_args(hint) if a is not type(None))
    return (hint,)


def _accepts(hint: Any, cls: type) -> bool:
    """Whether a parameter annotated ``hint`` takes an instance of ``cls`` (unknown: True)."""
    for member in _members(hint):
        if member is Any or member is object:
            return True
        origin = typing.get_origin(member)
        target = origin if origin is not None else member
        if not isinstance(target, type):
            return True  # a TypeVar, a Protocol alias...: nothing to hold against it
        if issubclass(cls, target):
            return True
    return False


def _name(hint: Any) -> str:
    return " | ".join(getattr(m, "__name__", str(m)) for m in _members(hint))


def event_classes() -> dict[str, type[BaseEvent]]:
    """Every event class of :mod:`vttbridge.sdk.events` by name, with their wire ``type``s."""
    from vttbridge.sdk import events

    found: dict[str, type[BaseEvent]] = {}
    for value in vars(events).values():
        if isinstance(value, type) and issubclass(value, BaseEvent):
            found[value.__name__] = value
            literal = value.model_fields.get("type")
            if literal is not None and isinstance(literal.default, str):
                found[literal.default] = value
    return found


def _not_an_event(given: Any, decorator: str, fn: Any) -> TypeError:
    known = event_classes()
    text = given if isinstance(given, str) else getattr(given, "__name__", repr(given))
    match = close_match(str(text), known)
    hint = f" Did you mean {known[match].__name__}?" if match else ""
    return TypeError(
        f"{where(fn)}: {decorator} on {_shown(fn)}: {given!r} is not an event class; give "
        f"classes from vttbridge.sdk (TokenMoved, ChatCommand, ...).{hint}"
    )


def event_types(
    fn: Any, given: Iterable[Any] | None, decorator: str, call: tuple[str, ...], *, hint: str = ""
) -> tuple[type[BaseEvent], ...]:
    """The event classes ``fn`` hears. ``given`` (the decorator's) must be event classes that
    the first parameter's annotation accepts; ``None`` (or empty) takes them from that
    annotation (a union lists several). Raises ``TypeError`` naming ``fn`` when neither says,
    or they disagree (``hint`` ends that message)."""
    kinds = tuple(given or ())
    for k in kinds:
        if not (isinstance(k, type) and issubclass(k, BaseEvent)):
            raise _not_an_event(k, decorator, fn)
    try:
        ann = _first_hint(fn)
    except Exception as e:  # a forward reference the module never imports
        if kinds:
            return kinds
        raise TypeError(
            f"{where(fn)}: {decorator} on {_shown(fn)}: the annotation of its first parameter "
            f"cannot be read ({type(e).__name__}: {e}); name the event types in the decorator."
        ) from None
    first = call[0]
    if ann is not _NO_HINT:
        events = [m for m in _members(ann) if isinstance(m, type) and issubclass(m, BaseEvent)]
        opaque = any(m is Any or m is object or not isinstance(m, type) for m in _members(ann))
        if not events and not opaque:
            raise TypeError(
                f"{where(fn)}: {decorator} on {_shown(fn)}: its first parameter is annotated "
                f"{_name(ann)}, not an event: it is called with ({', '.join(call)}), "
                f"the {first} first."
            )
        for k in kinds:
            if not _accepts(ann, k):
                raise TypeError(
                    f"{where(fn)}: {decorator} on {_shown(fn)}: it is given {k.__name__} "
                    f"events, but its first parameter is annotated {_name(ann)}; make them "
                    "agree (or leave the decorator's types out: the annotation says them)."
                )
        if not kinds:
            kinds = tuple(events)
    if not kinds:
        raise TypeError(
            f"{where(fn)}: {decorator} on {_shown(fn)}: which events does it hear? Name them "
            f"in the decorator, or annotate its first parameter ({first}: TokenMoved; a union "
            f"lists several){hint}."
        )
    return kinds


def check_receives(fn: Any, decorator: str, cls: type, call: tuple[str, ...]) -> None:
    """Raise ``TypeError`` when ``fn``'s first parameter is annotated with a type that an
    instance of ``cls`` (what the runtime passes) is not."""
    try:
        hint = _first_hint(fn)
    except Exception:
        return  # unreadable annotations are the type checker's business, not the runtime's
    if hint is not _NO_HINT and not _accepts(hint, cls):
        raise TypeError(
            f"{where(fn)}: {decorator} on {_shown(fn)}: it is called with "
            f"({', '.join(call)}) and its {call[0]} is a {cls.__name__}, but its first "
            f"parameter is annotated {_name(hint)}."
        )


# -- a script joining a world -------------------------------------------------------------------


def check_loading(
    scripts: Iterable[Script],
    commands: Mapping[str, CommandHandler],
    conditions: Mapping[str, Condition],
    choices: Mapping[str, ChoiceHandler],
) -> None:
    """Raise :class:`ScriptError`, listing every problem, when ``scripts`` would replace a
    loaded script's chat command, condition or choice handler without ``override=True``, or
    name in ``on_enter`` a region close to one of their own that they never define."""
    problems: list[str] = []
    tables: list[tuple[Callable[[Script], Mapping[str, Any]], dict[str, Any], _Clash]] = [
        (lambda s: s.commands, dict(commands), _command_clash),
        (lambda s: s.conditions, dict(conditions), _condition_clash),
        (lambda s: s.choices, dict(choices), _choice_clash),
    ]
    for s in scripts:
        problems += _region_typos(s)
        for registered, seen, clash in tables:
            for name, new in registered(s).items():
                old = seen.get(name)
                if old is not None and old.script is not s and not new.override:
                    problems.append(clash(name, new, old))
                seen[name] = new
    if problems:
        names = ", ".join(s.name for s in scripts)
        raise ScriptError(f"{names} cannot load: " + " ".join(problems))


def registered(
    scripts: Iterable[Script],
) -> tuple[dict[str, CommandHandler], dict[str, Condition], dict[str, ChoiceHandler]]:
    """The commands, conditions and choice handlers ``scripts`` register, loaded in that
    order (a later one replaces an earlier one's): what :func:`check_loading` checks against."""
    commands: dict[str, CommandHandler] = {}
    conditions: dict[str, Condition] = {}
    choices: dict[str, ChoiceHandler] = {}
    for s in scripts:
        commands.update(s.commands)
        conditions.update(s.conditions)
        choices.update(s.choices)
    return commands, conditions, choices


_Clash = Callable[[str, Any, Any], str]
"""``clash(name, new, old)``: the message for ``new`` replacing ``old`` without override."""


def _command_clash(name: str, new: CommandHandler, old: CommandHandler) -> str:
    return (
        f"{where(new.fn)}: !{name} is already a command of the {old.script.name!r} script "
        f"({old.usage}); replace it with @script.command({new.name!r}, override=True), or "
        "choose another name."
    )


def _condition_clash(name: str, new: Condition, old: Condition) -> str:
    return (
        f"{where(new.fn)}: the condition {name!r} is already the {old.script.name!r} script's "
        f"({where(old.fn)}); replace it with @script.condition({name!r}, override=True), or "
        "choose another name."
    )


def _choice_clash(kind: str, new: ChoiceHandler, old: ChoiceHandler) -> str:
    return (
        f"{where(new.fn)}: the {old.script.name!r} script already resolves {kind!r} choices; "
        f"replace its handler with @script.choice({kind!r}, override=True)."
    )


def _region_typos(script: Script) -> list[str]:
    """``on_enter`` names a region close to, but not, one the script defines itself (a region
    it does not define at all may come from the VTT: the world checks those)."""
    own = list(script.regions)
    out = []
    for pt in script.position_triggers:
        name = getattr(pt.spec, "region", None)
        if name is None or name in own:
            continue
        match = close_match(name, own)
        if match is not None:
            out.append(
                f"{where(pt.fn)}: on_enter({name!r}) names no region of this script; did you "
                f"mean {match!r}?"
            )
    return out


def on_enter_regions(scripts: Iterable[Script]) -> dict[str, list[Callable[..., Any]]]:
    """Region name -> the ``on_enter`` callbacks of ``scripts`` that wait for it."""
    out: dict[str, list[Callable[..., Any]]] = {}
    for s in scripts:
        for pt in s.position_triggers:
            name = getattr(pt.spec, "region", None)
            if name is not None:
                out.setdefault(name, []).append(pt.fn)
    return out
