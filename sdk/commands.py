"""Small helpers for chat command handlers: flags, token references, ``key=value`` pairs.

All of them raise :class:`sdk.UsageError` on bad input, so the player gets the usage line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from sdk.errors import UsageError


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
    ``a,b,c`` becomes a list."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    low = text.lower()
    if low in ("yes", "on"):
        return True
    if low in ("no", "off"):
        return False
    if "," in text:
        return [parse_value(p.strip()) for p in text.split(",") if p.strip()]
    return text


def key_values(args: Iterable[str]) -> dict[str, Any]:
    """``["reflex=5", "name=Kevin"]`` -> ``{"reflex": 5, "name": "Kevin"}``."""
    out: dict[str, Any] = {}
    for arg in args:
        key, eq, value = arg.partition("=")
        if not eq or not key:
            raise UsageError(f"Expected name=value, got {arg!r}.")
        out[key.strip().lower().replace("-", "_")] = parse_value(value.strip())
    return out


def parse_int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UsageError(f"{what} must be a whole number, not {text!r}.") from None


def parse_float(text: str, what: str) -> float:
    try:
        return float(text.removesuffix("ft").strip())
    except ValueError:
        raise UsageError(f"{what} must be a number, not {text!r}.") from None
