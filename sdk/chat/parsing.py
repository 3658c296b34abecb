"""Small helpers for chat command handlers: flags, token references, ``key=value`` pairs.

All of them raise :class:`sdk.UsageError` on bad input, so the player gets the usage line.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

from vttbridge.rules.numbers import MAX_DISTANCE, MAX_NUMBER
from vttbridge.sdk.errors import UsageError


def split_flags(
    argv: Iterable[str], flags: Mapping[str, bool] | Iterable[str] = ()
) -> tuple[list[str], dict[str, str | bool]]:
    """Split ``["shoot", "--when", "corner", "--timing=attempt"]`` into positionals and flags.

    ``flags`` maps each allowed flag name to whether it takes a value (an iterable of names
    means all take one). An unknown flag or a missing value is a :class:`UsageError`."""
    allowed = dict(flags) if isinstance(flags, Mapping) else dict.fromkeys(flags, True)
    positional: list[str] = []
    found: dict[str, str | bool] = {}
    items = list(argv)
    i = 0
    while i < len(items):
        arg = items[i]
        i += 1
        if not arg.startswith("--") or arg == "--":
            positional.append(arg)
            continue
        name, eq, value = arg[2:].partition("=")
        name = name.lower()
        if name not in allowed:
            raise UsageError(f"Unknown option --{name}.")
        if not allowed[name]:
            found[name] = True
            continue
        if not eq:
            # a value runs to the next flag, so ``--when enters corner`` needs no quotes
            words = []
            while i < len(items) and not items[i].startswith("--"):
                words.append(items[i])
                i += 1
            value = " ".join(words)
        if not value:
            raise UsageError(f"--{name} needs a value.")
        found[name] = value
    return positional, found


def parse_value(text: str) -> Any:
    """A chat-typed value: JSON when it parses (``5``, ``true``, ``[1, 2]``), else the text;
    ``a,b,c`` becomes a list. A number that is not finite (``1e999``, ``NaN``) or beyond
    :data:`vttbridge.rules.numbers.MAX_NUMBER` is a :class:`UsageError`."""
    try:
        value = json.loads(text, parse_constant=_not_finite, parse_float=_json_float)
    except ValueError:
        pass
    else:
        if isinstance(value, int) and not isinstance(value, bool):
            _in_range(value, text, "A number", -MAX_NUMBER, MAX_NUMBER)
        return value
    low = text.lower()
    if low in ("yes", "on"):
        return True
    if low in ("no", "off"):
        return False
    if "," in text:
        return [parse_value(p.strip()) for p in text.split(",") if p.strip()]
    return text


def _not_finite(text: str) -> Any:
    raise UsageError(f"{text!r} is not a number a rule can use.")


def _json_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        _not_finite(text)
    return _in_range(value, text, "A number", -MAX_NUMBER, MAX_NUMBER)


def key_values(args: Iterable[str]) -> dict[str, Any]:
    """``["reflex=5", "name=Kevin"]`` -> ``{"reflex": 5, "name": "Kevin"}``."""
    out: dict[str, Any] = {}
    for arg in args:
        key, eq, value = arg.partition("=")
        if not eq or not key:
            raise UsageError(f"Expected name=value, got {arg!r}.")
        out[key.strip().lower().replace("-", "_")] = parse_value(value.strip())
    return out


def parse_int(text: str, what: str, low: int = -MAX_NUMBER, high: int = MAX_NUMBER) -> int:
    """A whole number from ``low`` to ``high``, else a :class:`UsageError` naming ``what``."""
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"{what} must be a whole number, not {text!r}.") from None
    return _in_range(value, text, what, low, high)


def parse_float(text: str, what: str, low: float = -MAX_NUMBER, high: float = MAX_NUMBER) -> float:
    """A finite number from ``low`` to ``high`` (a trailing ``ft`` is allowed), else a
    :class:`UsageError` naming ``what``: ``inf``, ``nan`` and ``1e999`` never reach a rule."""
    try:
        value = float(text.removesuffix("ft").strip())
    except ValueError:
        raise UsageError(f"{what} must be a number, not {text!r}.") from None
    if not math.isfinite(value):
        raise UsageError(f"{what} must be a finite number, not {text!r}.")
    return _in_range(value, text, what, low, high)


def parse_distance(text: str, what: str = "The distance") -> float:
    """A distance in the grid's units: from 0 to :data:`vttbridge.rules.numbers.MAX_DISTANCE`."""
    return parse_float(text, what, 0, MAX_DISTANCE)


def _in_range(value: Any, text: str, what: str, low: float, high: float) -> Any:
    if not low <= value <= high:
        raise UsageError(f"{what} must be from {low:g} to {high:g}, not {text!r}.")
    return value
