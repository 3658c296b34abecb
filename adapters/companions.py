"""Versions meet: each companion (the Foundry module, the Roll20 relay and Mod script) says its
version when it connects (``auth.client``), or when it learns it later (the relay hears the Mod
script's in chat and sends a ``companion`` event). Each adapter declares the range of its
companions' versions this bridge supports (:attr:`vttbridge.adapters.base.Adapter.companions`);
a companion outside it keeps its link (the wire protocol version is checked apart) and is told
in plain words what to update: a ``notice`` event (the module shows it as a notification, the
relay in its box and as a whisper to the GM).

A range is a comma-separated list of clauses on dotted numeric versions: ``">=0.1.0,<0.2.0"``.
A version that is no dotted number (a development build) is not judged.
"""

from __future__ import annotations

import logging
import operator
import re
from collections.abc import Callable, Mapping
from typing import Any

from vttbridge import __version__

log = logging.getLogger("vttbridge")

_CLAUSE = re.compile(r"^\s*(>=|<=|==|>|<)\s*(\d+(?:\.\d+)*)\s*$")
_OPS: dict[str, Callable[[Any, Any], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    "==": operator.eq,
    ">": operator.gt,
    "<": operator.lt,
}
NOTICE_EVENT = "notice"
COMPANION_EVENT = "companion"


def parse_version(text: str) -> tuple[int, ...] | None:
    """``"0.1.2"`` -> ``(0, 1, 2)``; a pre-release or build suffix is ignored; None when the
    text starts with no number."""
    m = re.match(r"^\s*v?(\d+(?:\.\d+)*)", text)
    return tuple(int(p) for p in m.group(1).split(".")) if m else None


def _padded(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    n = max(len(a), len(b))
    return a + (0,) * (n - len(a)), b + (0,) * (n - len(b))


def check_range(spec: str) -> list[tuple[str, tuple[int, ...]]]:
    """The clauses of a range; ``ValueError`` naming the bad one."""
    clauses = []
    for part in spec.split(","):
        m = _CLAUSE.match(part)
        if not m:
            raise ValueError(f"{part.strip()!r} is no version clause (e.g. '>=0.1.0', '<0.2.0')")
        clauses.append((m.group(1), tuple(int(p) for p in m.group(2).split("."))))
    return clauses


def judge(version: str, spec: str) -> str | None:
    """``"older"`` or ``"newer"`` when ``version`` is outside ``spec``, else None (inside, or
    not a version this can read)."""
    v = parse_version(version)
    if v is None:
        return None
    for op, bound in check_range(spec):
        a, b = _padded(v, bound)
        if not _OPS[op](a, b):
            return "older" if op in (">=", ">") or (op == "==" and a < b) else "newer"
    return None


def readable(spec: str) -> str:
    """``">=0.1.0,<0.2.0"`` -> ``"0.1.0 or later, before 0.2.0"``."""
    words = {">=": "{} or later", ">": "after {}", "<": "before {}", "<=": "{} or earlier"}
    out = []
    for op, bound in check_range(spec):
        text = ".".join(map(str, bound))
        out.append(text if op == "==" else words[op].format(text))
    return ", ".join(out)


def notice(companions: Mapping[str, str], name: str, version: str) -> dict[str, Any] | None:
    """The ``notice`` for companion ``name`` at ``version``, or None when this bridge supports it
    (or does not know the companion: a third party's judges itself)."""
    spec = companions.get(name)
    if spec is None:
        return None
    side = judge(version, spec)
    if side is None:
        return None
    what = "this vttbridge server" if side == "older" else "vttbridge on the server"
    message = (
        f"{name} {version} is {side} than this vttbridge server ({__version__}) supports "
        f"({readable(spec)}); update {name if side == 'older' else what}."
    )
    return {
        "code": "companion_version",
        "message": message,
        "companion": {"name": name, "version": version},
        "supported": readable(spec),
        "range": spec,
        "bridge": __version__,
        "older": side == "older",
    }


def log_notice(world: str, n: dict[str, Any]) -> None:
    log.warning("World %r: %s", world, n["message"])
