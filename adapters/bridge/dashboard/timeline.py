"""The session's timeline for the dashboard: every event the world accepted, in order, with what
it caused (chat lines with the rules' citations, questions, token moves and put-backs,
initiative, turns, sheet values, conditions), filterable by token and by round. Built from the
world's log alone (the log keeps each event with its effects), so it reads the same after the
game, on any node of a cluster, and whatever the world holds now.

A round is the combat round an event happened in: the combat the VTT showed (its scene, its
turns) and the rules' turn changes (``advance_turn``) say which; an event outside a combat has
none. An event whose effects start a new round
belongs to it (the ``!next`` that begins round 2 is in round 2).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError
from vttbridge.adapters.bridge.storage.base import LogRow
from vttbridge.rules.citations import Cited

TIMELINE_LIMIT = 500
"""Entries one answer carries at most (the newest of those the filter matches)."""

QUIET_EFFECTS = frozenset({"movement_budget", "watch_moves"})
"""Effects that only keep a VTT's helpers current: not something an event caused for the GM."""

ALWAYS_SHOWN = frozenset({"token_moved", "chat_command", "prompt_answered", "damage_dealt"})
"""Events shown even when they caused nothing (a legal move, a command that only spent)."""

CauseKind = Literal["chat", "ask", "move", "initiative", "turn", "stats", "conditions", "other"]


class TimelineFilter(BaseModel):
    """``timeline``: what the page asks for (every field optional)."""

    token: str | None = Field(default=None, max_length=200)
    """Only events that involve this token (its id)."""
    round: int | None = Field(default=None, ge=0, le=1_000_000)
    """Only events of this combat round."""
    cited: bool = False
    """Only events whose effects cite a rule (a refusal or a decision)."""


class Caused(BaseModel):
    """One thing an event caused."""

    kind: CauseKind
    text: str
    to: str | None = None
    """A whisper's player (a name, or "GM"); None: public or not a chat line."""
    cites: list[Cited] = Field(default_factory=list)


class TimelineEntry(BaseModel):
    seq: int
    at: float
    round: int | None
    event: str
    """The event's type (``token_moved``, ``chat_command``...)."""
    source: str
    """Who made it: ``vtt``, ``runtime``, ``script``..."""
    text: str
    """What happened, for people (``Pat: !charge raider``)."""
    tokens: list[str]
    """The tokens it involves (ids): its own, and those its effects touched."""
    caused: list[Caused]


class Choice(BaseModel):
    id: str
    name: str


class TimelineView(BaseModel):
    """``timeline``'s answer: the entries the filter matched, oldest first."""

    entries: list[TimelineEntry]
    matched: int
    """How many entries the filter matched (``entries`` holds the newest
    :data:`TIMELINE_LIMIT`)."""
    tokens: list[Choice]
    """Every token the session's events involve, for the filter."""
    rounds: list[int]
    """Every combat round the session played, for the filter."""


class _Names:
    """Token and player names, as the log's events gave them."""

    def __init__(self) -> None:
        self.tokens: dict[str, str] = {}
        self.players: dict[str, str] = {"gm": "GM"}

    def learn(self, ev: dict[str, Any]) -> None:
        kind = ev.get("type")
        if kind == "scene_snapshot":
            for t in ev.get("tokens") or []:
                self._token(t)
            for p in ev.get("players") or []:
                if isinstance(p, dict) and isinstance(p.get("id"), str):
                    self.players[p["id"]] = p.get("name") or p["id"]
        elif kind == "token_created":
            self._token(ev.get("token"))
        elif kind == "token_updated" and isinstance(ev.get("name"), str) and ev["name"]:
            self.tokens[str(ev.get("token"))] = ev["name"]

    def _token(self, t: Any) -> None:
        if isinstance(t, dict) and isinstance(t.get("id"), str):
            self.tokens[t["id"]] = t.get("name") or self.tokens.get(t["id"]) or t["id"]

    def token(self, tid: Any) -> str:
        return self.tokens.get(str(tid), str(tid))

    def player(self, pid: Any) -> str:
        return self.players.get(str(pid), str(pid))


def build_timeline(
    rows: Iterable[LogRow], flt: TimelineFilter | None = None, *, limit: int = TIMELINE_LIMIT
) -> TimelineView:
    """The timeline of the event ``rows`` (the world's log, in order), as ``flt`` filters it.
    Only the entries it returns are built (a long log is read through once)."""
    flt = flt or TimelineFilter()
    names = _Names()
    kept: deque[_Row] = deque(maxlen=max(limit, 0))
    matched = 0
    seen_tokens: set[str] = set()
    rounds: set[int] = set()
    current: int | None = None
    for row in rows:
        if row.kind != "event":
            continue
        body = row.body if isinstance(row.body, dict) else _loads(row.body)
        ev = body.get("event")
        if not isinstance(ev, dict):
            continue
        effects = [e for e in body.get("effects") or [] if isinstance(e, dict)]
        names.learn(ev)
        current = _round_of(ev, current)
        for eff in effects:
            if eff.get("type") == "advance_turn":
                r = eff.get("round")
                current = r if isinstance(r, int) and r > 0 else None
        shown = [e for e in effects if e.get("type") not in QUIET_EFFECTS]
        if not shown and ev.get("type") not in ALWAYS_SHOWN:
            continue
        tokens = _tokens(ev, shown)
        seen_tokens.update(tokens)
        if current is not None:
            rounds.add(current)
        if flt.token is not None and flt.token not in tokens:
            continue
        if flt.round is not None and current != flt.round:
            continue
        if flt.cited and not any(e.get("type") == "post_chat" and e.get("cites") for e in shown):
            continue
        matched += 1
        kept.append(_Row(row.seq, row.at, current, ev, shown, tokens))
    return TimelineView(
        entries=[_entry(r, names) for r in kept],
        matched=matched,
        tokens=sorted(
            (Choice(id=t, name=names.token(t)) for t in seen_tokens), key=lambda c: c.name.lower()
        ),
        rounds=sorted(rounds),
    )


@dataclass(frozen=True)
class _Row:
    """An event the filter kept, as the log had it."""

    seq: int
    at: float
    round: int | None
    event: dict[str, Any]
    effects: list[dict[str, Any]]
    tokens: list[str]


def _entry(r: _Row, names: _Names) -> TimelineEntry:
    """The entry of a kept event (named with the names the whole log gave)."""
    return TimelineEntry(
        seq=r.seq,
        at=r.at,
        round=r.round,
        event=str(r.event.get("type", "event")),
        source=str(r.event.get("source", "vtt")),
        text=_describe(r.event, names),
        tokens=r.tokens,
        caused=[c for c in (_caused(e, names) for e in r.effects) if c is not None],
    )


def _round_of(ev: dict[str, Any], current: int | None) -> int | None:
    """The round after ``ev`` as the VTT tells it (a combat in its scene, a turn it began);
    the rules' own turn changes (``advance_turn`` effects) follow."""
    kind = ev.get("type")
    if kind == "scene_snapshot":
        combat = ev.get("combat")
        r = combat.get("round") if isinstance(combat, dict) else None
        return r if isinstance(r, int) and r > 0 else current
    if kind in ("turn_started", "round_started") and isinstance(ev.get("round"), int):
        return ev["round"] if ev["round"] > 0 else current
    if kind == "combat_ended":
        return None
    return current


def _loads(body: Any) -> dict[str, Any]:
    try:
        data = json.loads(body) if isinstance(body, str | bytes) else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _tokens(ev: dict[str, Any], effects: list[dict[str, Any]]) -> list[str]:
    found: list[str] = []

    def add(t: Any) -> None:
        tid = t.get("id") if isinstance(t, dict) else t
        if isinstance(tid, str) and tid and tid not in found:
            found.append(tid)

    if ev.get("type") != "scene_snapshot":  # a snapshot names every token: it involves none
        add(ev.get("token"))
        for t in ev.get("tokens") or []:
            add(t)
    for eff in effects:
        if eff.get("type") not in QUIET_EFFECTS:
            add(eff.get("token"))
    return found


def _cell(c: Any) -> str:
    return f"{c.get('x')},{c.get('y')}" if isinstance(c, dict) else "?"


def _describe(ev: dict[str, Any], n: _Names) -> str:
    """One event, for people."""
    kind = ev.get("type")
    who = n.player(ev["player"]) if ev.get("player") else None
    by = f" ({who})" if who else ""
    match kind:
        case "token_moved":
            return f"{n.token(ev.get('token'))} moved to {_cell(ev.get('to_cell'))}{by}"
        case "chat_command":
            args = f" {ev['args']}" if ev.get("args") else ""
            return f"{who or 'Someone'}: !{ev.get('name')}{args}"
        case "chat_message":
            return f"{who or 'Someone'}: {str(ev.get('text', ''))[:200]}"
        case "prompt_answered":
            how = " (no answer: the default)" if ev.get("timed_out") else ""
            return f"Question {ev.get('prompt')} answered: {ev.get('option')}{how}{by}"
        case "scene_snapshot":
            scene = ev.get("scene") or {}
            count = len(ev.get("tokens") or [])
            return f"The VTT sent its scene ({scene.get('name') or 'unnamed'}, {count} tokens)"
        case "damage_dealt":
            return f"{n.token(ev.get('token'))} takes {ev.get('amount', '?')} damage"
        case "combat_started":
            return "A combat started in the VTT"
        case "timer_fired":
            return "A timer fired"
    words = str(kind or "event").replace("_", " ")
    token = ev.get("token")
    if isinstance(token, dict):
        token = token.get("id")
    words = words.capitalize()
    return f"{words}: {n.token(token)}" if isinstance(token, str) else words


def _caused(eff: dict[str, Any], n: _Names) -> Caused | None:
    """One effect, for people; None for a VTT helper's (the movement budget)."""
    kind = eff.get("type")
    token = n.token(eff.get("token")) if eff.get("token") else None
    match kind:
        case "post_chat":
            cites = _cites(eff.get("cites"))
            to = eff.get("whisper_to")
            return Caused(
                kind="chat",
                text=strip_cites(str(eff.get("text", "")), cites),
                to=n.player(to) if to else None,
                cites=cites,
            )
        case "ask_player":
            options = " / ".join(str(o) for o in eff.get("options") or [])
            return Caused(
                kind="ask",
                text=f"{eff.get('question')} [{options}] (question {eff.get('prompt')})",
                to=n.player(eff.get("player")),
            )
        case "update_token":
            cell = eff.get("cell")
            if cell is not None:
                verb = "moved to" if eff.get("animate", True) else "put back at"
                return Caused(kind="move", text=f"{token} {verb} {_cell(cell)}")
            fields = ", ".join(f"{k} {v}" for k, v in (eff.get("fields") or {}).items())
            return Caused(kind="other", text=f"{token}: {fields}")
        case "set_initiative":
            return Caused(kind="initiative", text=f"{token}: IC {eff.get('ic')}")
        case "advance_turn":
            if not eff.get("round"):
                return Caused(kind="turn", text="The combat is over")
            whose = f"{token}'s turn" if token else "the turn"
            return Caused(kind="turn", text=f"Round {eff.get('round')}: {whose}")
        case "update_stats":
            stats = ", ".join(f"{k} {v}" for k, v in (eff.get("stats") or {}).items())
            return Caused(kind="stats", text=f"{token}: {stats}")
        case "update_conditions":
            now = ", ".join(eff.get("conditions") or []) or "no conditions"
            return Caused(kind="conditions", text=f"{token}: {now}")
        case "release_move":
            return Caused(kind="move", text=f"{token}'s held move released")
    if kind in QUIET_EFFECTS:
        return None
    return Caused(kind="other", text=str(kind or "effect").replace("_", " "))


def _cites(raw: Any) -> list[Cited]:
    out: list[Cited] = []
    for c in raw if isinstance(raw, list) else []:
        try:
            out.append(Cited.model_validate(c))
        except ValidationError:
            continue
    return out


def strip_cites(text: str, cites: Iterable[Cited]) -> str:
    """``text`` without the short citations its lines end with (the page links them)."""
    for c in cites:
        text = text.replace(f" {c.short()}", "")
    return text


__all__ = [
    "TIMELINE_LIMIT",
    "Caused",
    "Choice",
    "TimelineEntry",
    "TimelineFilter",
    "TimelineView",
    "build_timeline",
    "strip_cites",
]
