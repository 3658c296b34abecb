"""``vttbridge export-test``: a slice of a world's log as a pytest file a scripter can keep.

The file plays the slice's events through the offline harness
(:class:`vttbridge.sdk.testing.WorldHarness`: no server, no VTT), with the dice the table
rolled, and asserts what the table saw after each event (its chat lines, questions, sheet
changes and token moves, from the log) and at the end (the initiative order and the
conditions). The events are those :class:`vttbridge.adapters.bridge.replay.Replayer` replays;
the dice are the faces its roller showed (the world's own dice, from its first snapshot), and
the world the slice starts from is the replay's at its first event (left out when that is a
new world).
"""

from __future__ import annotations

import datetime
import keyword
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vttbridge.adapters.bridge.replay import (
    Replayer,
    Step,
    UnreadableEvent,
    describe_event,
    replaying,
    step_differences,
)
from vttbridge.rules.conditions import conditions_of
from vttbridge.sdk.runtime import WorldRuntime
from vttbridge.sdk.world import WorldSettings

WIDTH = 88
"""The line length the file is written for (black's and ruff's default)."""

HEADER = '''"""{title}

Written by ``vttbridge export-test {world}`` on {date}: each step sends an event the table
sent (in order, with the dice the table rolled) and checks what the table saw then: the chat
lines, the questions, the sheet changes and the token moves. At the end it checks the
initiative order and the conditions. Edit it freely: drop the steps that do not matter, turn
an assertion into what the rules should have said.

Run it with pytest (``pip install vttbridge[testing]``).
"""

from pathlib import Path

import pytest
from vttbridge.rules.conditions import conditions_of
from vttbridge.sdk.effects import UpdateConditions, UpdateStats
from vttbridge.sdk.testing import WorldHarness

HERE = Path(__file__).parent
'''

HELPERS = '''

def questions(effects):
    """Each question asked: (whom, the question, its options)."""
    return [(e.player, e.question, e.options) for e in WorldHarness.asks(effects)]


def sheet(effects):
    """Each sheet change: (token, the rules-owned stats written) or (token, its conditions)."""
    return [
        (e.token, e.stats) if isinstance(e, UpdateStats) else (e.token, e.conditions)
        for e in effects
        if isinstance(e, UpdateStats | UpdateConditions)
    ]


def moved(effects):
    """Each token the rules moved (or put back): (token, x, y) in cells."""
    return [(e.token, e.cell.x, e.cell.y) for e in WorldHarness.moves(effects)]


def initiative(w):
    """The initiative order, each combatant with his IC."""
    enc = w.encounter
    return [(c, enc.combatants[c].ic) for c in enc.order()] if enc.combatants else []


def conditions(w):
    """Every token in a condition, with its conditions."""
    found = {t: sorted(conditions_of(w.encounter, t)) for t in w.world.tokens}
    return {t: c for t, c in found.items() if c}
'''


@dataclass
class Written:
    """What :func:`export_test` wrote."""

    path: Path
    world: str
    events: int
    first: int | None
    last: int | None
    dice: int
    differences: int
    """How many differences the replay found against the log (the test fails on them)."""

    def summary(self) -> str:
        if not self.events:
            return f"No events of world {self.world!r} in that range: nothing written."
        text = (
            f"Wrote {self.path}: {self.events} events of world {self.world!r} "
            f"(seq {self.first}-{self.last}), {self.dice} dice. Run it with: "
            f"python -m pytest {self.path}"
        )
        if self.differences:
            text += (
                f"\nNote: today's rules and scripts already differ from the log there "
                f"({self.differences} differences, see vttbridge replay): the test states what "
                "the table saw, so it fails until they agree."
            )
        return text


async def export_test(
    location: str, world: str, out: Path, *, name: str | None = None, **kw: Any
) -> Written:
    """Replay world ``world`` of the database at ``location`` (read-only; ``kw``: the
    :class:`Replayer`'s options, its ``first`` and ``last`` the slice) and write the slice as
    a pytest file at ``out``, its test function called ``name``."""
    steps: list[Step] = []
    differences = 0
    async with replaying(location, world, **kw) as replayer:
        async for step in replayer.steps():
            if step.compared:
                steps.append(step)
                differences += len(step_differences(step))
        assert replayer.runtime is not None
        end = _final(replayer.runtime)
    written = Written(
        out,
        world,
        len(steps),
        steps[0].seq if steps else None,
        steps[-1].seq if steps else None,
        sum(len(s.faces) for s in steps),
        differences,
    )
    if steps:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(_source(replayer, steps, end, out, name), encoding="utf-8")
    return written


def _final(runtime: WorldRuntime) -> dict[str, Any]:
    enc = runtime.world.encounter
    order = [(c, enc.combatants[c].ic) for c in enc.order()] if enc.combatants else []
    found = {t: sorted(conditions_of(enc, t)) for t in runtime.world.tokens}
    return {"initiative": order, "conditions": {t: c for t, c in found.items() if c}}


def _source(
    replayer: Replayer, steps: list[Step], end: dict[str, Any], out: Path, name: str | None
) -> str:
    world = replayer.name
    first, last = steps[0].seq, steps[-1].seq
    title = f"World {world!r} ({replayer.system}), events {first}-{last} of its log, offline."
    parts = [
        HEADER.format(
            title=title,
            world=world,
            date=datetime.date.today().isoformat(),
        )
    ]
    scripts = [_script_path(Path(str(s)), out) for s in replayer.scripts]
    parts.append("\n".join(_wrapped("SCRIPTS = [", scripts, "]", 0)) + "\n")
    start = replayer.start_state
    opts = start["world"].get("encounter", {}).get("options") or {}
    parts.append(_assign("OPTIONS", {"system": replayer.system, **opts}))
    defaults = WorldSettings().model_dump(mode="json")
    settings = {
        k: v for k, v in (start["world"].get("settings") or {}).items() if defaults.get(k) != v
    }
    if settings:
        parts.append(_assign("SETTINGS", settings))
    dice = [face for s in steps for face in s.faces]
    parts.append("# every die the table rolled in these events, in order\n")
    parts.append(_assign("DICE", dice))
    fresh = _is_new(start)
    if not fresh:
        parts.append(
            f"# the world as it was before seq {first} (what the log's earlier events made)\n"
        )
        # its dice are DICE: the snapshot's roller is left out
        parts.append(_assign("START", {"format": start["format"], "world": start["world"]}))
    parts.append(HELPERS)
    func = _ident(name) if name else f"{_ident(world)}_seq_{first}_to_{last}"
    func = func if func.startswith("test") else f"test_{func}"  # so pytest collects it
    kw = ["*SCRIPTS", "options=OPTIONS", "dice=DICE", f"world_id={_text(world)}"]
    if settings:
        kw.append("settings=SETTINGS")
    if not fresh:
        kw.append("state=START")
    body = [
        "",
        "",
        "@pytest.mark.asyncio",
        f"async def {func}():",
        *_wrapped("async with WorldHarness(", kw, ") as w:", 4),
    ]
    for step in steps:
        body += _step(step)
    body += [
        f"        # at the end (seq {last})",
        *_assert("initiative(w)", end["initiative"]),
        *_assert("conditions(w)", end["conditions"]),
        '        assert w.roller.script == [], "dice left over: the rules rolled fewer"',
        "",
    ]
    return "".join(parts) + "\n".join(body)


def _step(step: Step) -> list[str]:
    if isinstance(step.event, UnreadableEvent):
        return [f"        # seq {step.seq}: a {step.event.kind} event this vttbridge cannot read"]
    event = step.event.model_dump(mode="json", exclude_defaults=True)
    event = {"type": getattr(step.event, "type", ""), **event}
    lines = [f"        # seq {step.seq}: {describe_event(step.event)}"[:WIDTH]]
    lines += _sending(event)
    recorded = step.recorded
    said = [e["text"] for e in recorded if e.get("type") == "post_chat"]
    lines += _assert("w.chat_lines(out)", said)
    asked = [
        (e["player"], e["question"], e["options"])
        for e in recorded
        if e.get("type") == "ask_player"
    ]
    if asked:
        lines += _assert("questions(out)", asked)
    sheet = [
        (e["token"], e["stats"]) if e["type"] == "update_stats" else (e["token"], e["conditions"])
        for e in recorded
        if e.get("type") in ("update_stats", "update_conditions")
    ]
    if sheet:
        lines += _assert("sheet(out)", sheet)
    moves = [
        (e["token"], e["cell"]["x"], e["cell"]["y"])
        for e in recorded
        if e.get("type") == "update_token" and e.get("cell") is not None
    ]
    if moves:
        lines += _assert("moved(out)", moves)
    return lines


CHAT_FIELDS = ("text", "token", "player", "role")


def _sending(event: dict[str, Any]) -> list[str]:
    """The line that sends ``event``: ``w.chat(...)`` for a plain chat line (the harness's
    own words for it), else ``w.send({...})`` with the event as logged."""
    given = set(event) - {"type", "id"}
    plain = event["type"] == "chat_message" and given <= set(CHAT_FIELDS)
    # w.chat speaks for a token's owner when no player is given: only when the log says so
    if plain and (event.get("player") is not None or event.get("token") is None):
        args = [_text(event.get("text", ""))]
        args += [f"{k}={_flat(event[k])}" for k in CHAT_FIELDS[1:] if k in event]
        return _wrapped("out = await w.chat(", args, ")", 8)
    return _statement("out = await w.send(", event, ")")


def _assert(what: str, value: Any) -> list[str]:
    return _statement(f"assert {what} == ", value, "")


def _statement(head: str, value: Any, tail: str, indent: int = 8) -> list[str]:
    """``head`` + ``value`` as Python source + ``tail``, at ``indent``: on one line when it
    fits :data:`WIDTH`, else as ``ruff format`` leaves it."""
    pad = " " * indent
    flat = _flat(value)
    if indent + len(head) + len(flat) + len(tail) <= WIDTH:
        return [f"{pad}{head}{flat}{tail}"]
    if head.endswith("(") and tail == ")":  # the argument on lines of its own
        inner = _literal(value, indent + 4, explode=True)
        return [f"{pad}{head}", *f"{pad}    {inner}".split("\n"), f"{pad})"]
    return f"{pad}{head}{_literal(value, indent, len(head), len(tail))}{tail}".split("\n")


def _literal(value: Any, indent: int, col: int = 0, tail: int = 0, *, explode: bool = False) -> str:
    """``value`` as Python source starting ``col`` columns after ``indent``: on one line when
    it fits (and not ``explode``), else one item a line with a trailing comma (so that a
    formatter keeps it so, whatever its line length), and a text of several lines as one
    string literal a line."""
    flat = _flat(value)
    if not explode and indent + col + len(flat) + tail <= WIDTH:
        return flat
    pad, inner = " " * indent, " " * (indent + 4)
    if isinstance(value, dict) and value:
        items = []
        for k, v in value.items():
            key = f"{_flat(k)}: "
            items.append(f"{inner}{key}{_literal(v, indent + 4, len(key), 1)},")
        return "{\n" + "\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list | tuple) and value:
        items = [f"{inner}{_literal(v, indent + 4, 0, 1)}," for v in value]
        opener, close = ("[", "]") if isinstance(value, list) else ("(", ")")
        return opener + "\n" + "\n".join(items) + f"\n{pad}{close}"
    if isinstance(value, str) and "\n" in value.rstrip("\n"):
        lines = value.splitlines(keepends=True)
        return "(\n" + "\n".join(f"{inner}{_text(ln)}" for ln in lines) + f"\n{pad})"
    return flat


def _flat(value: Any) -> str:
    """``value`` as Python source on one line, quoted as a formatter quotes it."""
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_flat(k)}: {_flat(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(map(_flat, value)) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(map(_flat, value)) + ("," if len(value) == 1 else "") + ")"
    return repr(value)


def _text(text: str) -> str:
    """A string literal in double quotes, unless that takes more escapes."""
    r = repr(text)
    if r.startswith("'") and '"' not in text:
        return '"' + r[1:-1].replace("\\'", "'") + '"'
    return r


def _wrapped(head: str, items: list[str], tail: str, indent: int) -> list[str]:
    """``head`` + the source ``items`` joined by commas + ``tail``; when that is too long,
    one item a line with a trailing comma."""
    pad = " " * indent
    one = f"{pad}{head}{', '.join(items)}{tail}"
    if len(one) <= WIDTH:
        return [one]
    return [f"{pad}{head}", *(f"{pad}    {it}," for it in items), f"{pad}{tail}"]


def _assign(name: str, value: Any) -> str:
    return "\n".join(_statement(f"{name} = ", value, "", indent=0)) + "\n"


def _script_path(script: Path, out: Path) -> str:
    """A script as the test finds it: beside the test file, by a relative path."""
    try:
        rel = os.path.relpath(script.resolve(), out.resolve().parent)
    except ValueError:  # another drive (Windows): as it is
        return _text(str(script.resolve()))
    return f"HERE / {_text(Path(rel).as_posix())}"


def _is_new(start: Mapping[str, Any]) -> bool:
    """Whether the slice starts from a world that holds nothing but its options."""
    world = dict(start.get("world") or {})
    enc = dict(world.get("encounter") or {})
    rest = {k: v for k, v in world.items() if k not in ("id", "encounter", "settings") and v}
    held = {k: v for k, v in enc.items() if k not in ("options", "grid") and v}
    return not rest and not held


def _ident(text: str) -> str:
    ident = re.sub(r"\W+", "_", text).strip("_").lower() or "world"
    return f"{ident}_" if keyword.iskeyword(ident) else ident


__all__ = ["Written", "export_test"]
