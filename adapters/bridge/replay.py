"""``vttbridge replay``: a world's recorded session played again through today's rules and
scripts, and compared with what the table saw.

The log keeps every accepted event with the effects it had, every command sent to the VTT,
and snapshots; a world's first snapshot holds its dice (the roller's state) and its options.
:class:`Replayer` restores that first snapshot into a fresh :class:`WorldRuntime` (with the
scripts and option changes asked for), feeds it the logged events in order, as a world does
when it wakes, and yields one :class:`Step` per event: what was recorded beside what the
replay produced. :func:`compare` turns the steps into a :class:`Report`: each effect that
differs (by kind: chat, sheet, questions...), each command, and the state at every snapshot
the replay passes. ``exporttest.py`` turns the same steps into a pytest file.

The database is opened read-only and no lease is taken: a replay is safe while a server
serves the world, and never changes a row. Timers never fire during a replay: the timeouts
that happened at the table are in the log, as events, in their place.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pydantic_core
from pydantic import ValidationError
from vttbridge.adapters.base import Adapter
from vttbridge.adapters.bridge.declined import commands_for
from vttbridge.adapters.bridge.outbox import from_row, message
from vttbridge.adapters.bridge.storage import LogRow, Storage
from vttbridge.rules.options import Options
from vttbridge.sdk.clock import Handle
from vttbridge.sdk.errors import EventRejected, ScriptError
from vttbridge.sdk.events import EVENT_ADAPTER, BaseEvent
from vttbridge.sdk.runtime import WorldRuntime
from vttbridge.sdk.world import World, WorldSettings

log = logging.getLogger(__name__)

PAGE = 1000
"""Log rows read at a time."""

KINDS: dict[str, str] = {
    "refused": "events refused on replay",
    "chat": "chat lines",
    "sheet": "sheet changes",
    "questions": "questions asked",
    "tokens": "token moves and updates",
    "initiative": "initiative and turns",
    "effects": "other effects",
    "commands": "VTT commands",
    "state": "world state",
}
"""Every kind of difference, in the report's order, with what it counts."""

_EFFECT_KINDS = {
    "post_chat": "chat",
    "update_stats": "sheet",
    "update_conditions": "sheet",
    "ask_player": "questions",
    "update_token": "tokens",
    "movement_budget": "tokens",
    "watch_moves": "tokens",
    "release_move": "tokens",
    "set_initiative": "initiative",
    "advance_turn": "initiative",
}


class ReplayError(Exception):
    """A replay that cannot start: no such world, a bad option, a script that does not load."""


# -- the clock -------------------------------------------------------------------------------------


class _Never:
    def cancel(self) -> None:
        pass


class LogClock:
    """The time each logged row was written (a prompt's deadline falls where it fell at the
    table), and timers that never fire: the log holds the timeouts that happened."""

    def __init__(self) -> None:
        self.at = 0.0

    def now(self) -> float:
        return self.at

    def call_later(self, delay: float, callback: Callable[[], None]) -> Handle:
        return _Never()


# -- what the replay produces ----------------------------------------------------------------------


class UnreadableEvent(BaseEvent):
    """A logged event this vttbridge cannot read (of a kind it no longer knows): reported as
    refused on replay, never run."""

    type: Literal["unreadable"] = "unreadable"
    kind: str
    """The logged event's own type."""


@dataclass
class Step:
    """One logged event, replayed."""

    seq: int
    event: BaseEvent
    recorded: list[dict[str, Any]]
    """The effects the table saw (as logged)."""
    replayed: list[dict[str, Any]] | None
    """The effects of the replay; None when it refused the event (:attr:`refusal`)."""
    refusal: str | None = None
    commands: list[dict[str, Any]] = field(default_factory=list)
    """The commands logged after the event (op, data, options)."""
    replayed_commands: list[dict[str, Any]] | None = None
    """What the world's adapter makes of the replayed effects; None when not compared."""
    faces: list[int] = field(default_factory=list)
    """The dice it rolled on replay, in order."""
    compared: bool = True
    """False for an event before ``--from``: replayed to set the scene, not compared."""


@dataclass
class StateCheck:
    """The replay's state against a snapshot the server took."""

    seq: int
    differences: list[tuple[str, Any, Any]]
    """(path, recorded, replayed) of each value that differs."""


@dataclass
class Difference:
    seq: int
    kind: str
    text: str
    recorded: Any = None
    replayed: Any = None

    def as_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "kind": self.kind,
            "text": self.text,
            "recorded": _plain(self.recorded),
            "replayed": _plain(self.replayed),
        }


# -- the replay ------------------------------------------------------------------------------------


def option_changes(pairs: Iterable[str]) -> dict[str, Any]:
    """``NAME=VALUE`` pairs (``--set``), each value read as ``!set`` reads it."""
    from vttbridge.sdk.chat.parsing import parse_value
    from vttbridge.sdk.errors import UsageError

    out: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise ReplayError(f"--set {pair!r}: write it as option=value")
        try:
            out[name.strip().lower().replace("-", "_")] = parse_value(value.strip())
        except UsageError as e:
            raise ReplayError(f"--set {pair!r}: {e}") from None
    return out


def apply_changes(world: World, changes: Mapping[str, Any]) -> None:
    """Set rules ⚙ options and runtime settings on ``world`` as ``!set`` would (checked by
    their models); :class:`ReplayError` names what is wrong."""
    from vttbridge.rules.options import option_names

    enc = world.encounter
    for name, value in changes.items():
        try:
            if name in option_names(enc.options.system):
                enc.options = Options.model_validate({**enc.options.model_dump(), name: value})
                enc.grid.metric = enc.options.diagonal_metric
            elif name in WorldSettings.model_fields:
                world.settings = WorldSettings.model_validate(
                    {**world.settings.model_dump(), name: value}
                )
            else:
                known = [*option_names(enc.options.system), *WorldSettings.model_fields]
                close = difflib.get_close_matches(name, known, n=3)
                hint = f"; did you mean {', '.join(close)}?" if close else ""
                raise ReplayError(f"--set {name}: no such option{hint}")
        except ValidationError as e:
            err = e.errors()[0]
            raise ReplayError(f"--set {name}={value!r}: {err['msg']}") from None


class Replayer:
    """Replays world ``name`` of ``store`` (open it read-only). ``scripts``: what the server
    runs (``--script`` files, modules); ``entry_points``: the installed plug-in scripts too,
    as ``serve`` loads them; ``changes``: options to set first; ``first``/``last``: the seqs
    compared (the events before ``first`` are replayed, not compared); ``adapters``: by name,
    to compare the commands of the adapter the world is linked to."""

    def __init__(
        self,
        store: Storage,
        name: str,
        *,
        scripts: Sequence[Any] = (),
        entry_points: bool = True,
        changes: Mapping[str, Any] | None = None,
        first: int | None = None,
        last: int | None = None,
        adapters: Mapping[str, Adapter] | None = None,
    ) -> None:
        self.store = store
        self.name = name
        self.scripts = list(scripts)
        self.entry_points = entry_points
        self.changes = dict(changes or {})
        self.first = first or 0
        self.last = last
        self.adapters = dict(adapters or {})
        self.runtime: WorldRuntime | None = None
        self.adapter: Adapter | None = None
        self.notes: list[str] = []
        """What the reader should know (where the replay started, what was not compared)."""
        self.start_seq = 0
        """The seq of the snapshot the replay started from."""
        self.start_state: dict[str, Any] = {}
        """The world (and dice) when the first compared event came: ``runtime.snapshot()``."""
        self.state_checks: list[StateCheck] = []
        self.snapshots: list[tuple[int, str]] = []
        self.system = ""

    async def steps(self) -> AsyncIterator[Step]:
        """Each logged event, replayed, in order (call once)."""
        rec = await self.store.world(self.name)
        if rec is None:
            names = [w.name for w in await self.store.worlds()]
            close = difflib.get_close_matches(self.name, names, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ReplayError(f"no world named {self.name!r} in {self.store.location}{hint}")
        self.snapshots = await self.store.snapshots(self.name)
        clock = LogClock()
        runtime = self._runtime(rec.options, clock)
        self.runtime = runtime
        self.system = runtime.world.encounter.options.system
        if rec.adapter:
            self.adapter = self.adapters.get(rec.adapter)
            if self.adapter is None:
                self.notes.append(
                    f"Commands not compared: the world is linked to {rec.adapter!r}, an adapter "
                    "not installed here."
                )
        later = [(seq, data) for seq, data in self.snapshots if seq > self.start_seq]
        await runtime.start()
        try:
            async for step in self._run(runtime, clock, later):
                yield step
        finally:
            await runtime.stop()

    def _runtime(self, options: Mapping[str, Any], clock: LogClock) -> WorldRuntime:
        from vttbridge.sdk.runtime import roller_from_state
        from vttbridge.sdk.runtime.snapshot import read_snapshot

        if self.snapshots:
            self.start_seq, data = self.snapshots[0]
            world, dice = read_snapshot(data)
            world.id = self.name
            roller = roller_from_state(dice)
            if self.start_seq > 0:
                self.notes.append(
                    f"The log before seq {self.start_seq} is summed up by a snapshot (a world "
                    "saved before vttbridge kept its first snapshot): the replay starts there."
                )
        else:  # never served: the options it was created with (and no events either)
            world = World(id=self.name)
            world.encounter.options = Options.model_validate(options or {})
            world.encounter.grid.metric = world.encounter.options.diagonal_metric
            roller = None
        # before the runtime is built: its trigger index reads the grid's metric
        apply_changes(world, self.changes)
        try:  # the scripts in the order serve loads them: built-ins, --script, plug-ins
            return WorldRuntime(
                self.name,
                world=world,
                roller=roller,
                scripts=self.scripts,
                entry_points=self.entry_points,
                reload_interval=None,
                clock=clock,
            )
        except ScriptError as e:
            raise ReplayError(f"cannot load a script: {e}") from None

    async def _run(
        self, runtime: WorldRuntime, clock: LogClock, later: list[tuple[int, str]]
    ) -> AsyncIterator[Step]:
        cursor = self.start_seq
        step: Step | None = None
        linked = False  # commands are compared from the first one logged (a VTT linked)
        started = False
        while True:
            rows = await self.store.log_after(self.name, cursor, limit=PAGE)
            if not rows:
                break
            for row in rows:
                if self.last is not None and row.seq > self.last and row.kind == "event":
                    break  # (the commands of the last event, after it, still count)
                cursor = row.seq
                if row.kind == "command":
                    linked = True
                    if step is not None:
                        cmd = dict(from_row(row))
                        cmd.pop("seq")
                        step.commands.append(cmd)
                    continue
                if row.kind != "event":
                    continue
                if step is not None:
                    yield self._settled(step, linked)
                while later and later[0][0] < row.seq:
                    self._check_state(later.pop(0))
                if not started and row.seq >= self.first:
                    started = True
                    self.start_state = runtime.snapshot()
                    runtime.roller.faces = []
                step = await self._replay(runtime, clock, row, started)
            else:
                continue
            break
        if step is not None:
            yield self._settled(step, linked)
        if not started:
            self.start_state = runtime.snapshot()
        upto = self.last if self.last is not None else cursor
        while later and later[0][0] <= upto:
            self._check_state(later.pop(0))

    @staticmethod
    def _settled(step: Step, linked: bool) -> Step:
        """``step`` with its commands all read: they are compared once a VTT has linked the
        world (before, nobody was sent any)."""
        if not linked:
            step.replayed_commands = None
        return step

    async def _replay(
        self, runtime: WorldRuntime, clock: LogClock, row: LogRow, compared: bool
    ) -> Step:
        clock.at = row.at
        recorded = list(row.body.get("effects", []))
        try:
            event = EVENT_ADAPTER.validate_python(row.body["event"])
        except (ValidationError, KeyError, TypeError) as e:
            # an event of a kind this vttbridge no longer knows: nothing to replay it with
            logged = row.body.get("event") if isinstance(row.body, dict) else None
            kind = str(logged.get("type", "?")) if isinstance(logged, dict) else "?"
            refusal = f"unreadable: {str(e).splitlines()[0]}"
            return Step(
                row.seq, UnreadableEvent(kind=kind), recorded, None, refusal, compared=compared
            )
        faces = runtime.roller.faces
        before = len(faces) if faces is not None else 0
        step = Step(row.seq, event, recorded, None, compared=compared)
        try:
            async with runtime.lock:
                effects = (await runtime.process(event)).effects
        except EventRejected as e:
            step.refusal = f"{e.code}: {e.message}"
        else:
            step.replayed = [f.model_dump(mode="json") for f in effects]
            if self.adapter is not None:
                step.replayed_commands = [
                    _command(cmd)
                    for eff in effects
                    for cmd in commands_for(self.adapter, eff, runtime.world)
                ]
        if faces is not None:
            step.faces = faces[before:]
        return step

    def _check_state(self, snap: tuple[int, str]) -> None:
        assert self.runtime is not None
        seq, data = snap
        if seq < self.first:
            return
        from vttbridge.sdk.runtime.snapshot import read_snapshot

        world, roller = read_snapshot(data)
        apply_changes(world, self.changes)  # the options changed on purpose differ, of course
        mine = self.runtime.snapshot()
        # as Python values, not JSON: a set (a character's conditions) is a set, whatever the
        # order its JSON list was written in by the process that wrote it
        recorded = _comparable(world.model_dump(), roller)
        replayed = _comparable(World.model_validate(mine["world"]).model_dump(), mine["roller"])
        self.state_checks.append(StateCheck(seq, list(_differences(recorded, replayed))))


def _command(cmd: Any) -> dict[str, Any]:
    """A command as its log row reads back (:func:`outbox.from_row`), without its seq."""
    msg = dict(message(0, cmd))
    msg.pop("seq")
    return pydantic_core.to_jsonable_python(msg)


def _comparable(world: dict[str, Any], roller: Mapping[str, Any]) -> dict[str, Any]:
    """A world's state as compared: prompts' deadlines left out (they follow the clock of
    the moment, which the replay only approaches), the dice's state kept."""
    world.pop("id", None)
    for prompt in world.get("prompts", {}).values():
        prompt.pop("deadline", None)
    return {"world": world, "dice": list(roller.get("rng") or [])}


def _differences(a: Any, b: Any, path: str = "") -> Iterable[tuple[str, Any, Any]]:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            yield from _differences(a.get(key), b.get(key), f"{path}.{key}" if path else key)
    elif a != b:
        yield path, a, b


# -- describing ------------------------------------------------------------------------------------


def describe_event(event: BaseEvent) -> str:
    """One line for an event: what a GM recognises of it."""
    data = event.model_dump(mode="json", exclude_defaults=True)
    kind = str(getattr(event, "type", type(event).__name__))
    data.pop("type", None)
    data.pop("id", None)
    who = data.pop("player", None)
    if kind == "chat_message":
        speaker = f" as {data['token']}" if data.get("token") else ""
        who = who or ("the GM" if data.get("role") == "gm" else "someone")
        return f"chat by {who}{speaker}: {data.get('text', '')}"
    if kind == "token_moved":
        to = data.get("to_cell", {})
        by = f" by {who}" if who else ""
        return f"{data.get('token')} moved to ({to.get('x')}, {to.get('y')}){by}"
    if kind == "prompt_answered":
        late = " (timed out)" if data.get("timed_out") else ""
        return f"prompt {data.get('prompt')} answered {data.get('option')!r}{late}"
    if kind == "scene_snapshot":
        n = len(data.get("tokens", []))
        return f"scene {data.get('scene', {}).get('id', '')} sent ({n} tokens)"
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return f"{kind} {_cut(text, 100)}" if data else kind


def describe_effect(effect: Mapping[str, Any] | None) -> str:
    if effect is None:
        return "nothing"
    data = dict(effect)
    kind = data.pop("type", "?")
    if kind == "post_chat":
        to = data.get("whisper_to")
        return f'"{_cut(str(data.get("text", "")), 160)}"' + (f" (to {to})" if to else "")
    if kind == "ask_player":
        opts = "/".join(data.get("options", []))
        return f"question to {data.get('player')}: {_cut(str(data.get('question')), 120)} [{opts}]"
    shown = {k: v for k, v in data.items() if v not in (None, [], {}, "")}
    return f"{kind} {_cut(json.dumps(shown, separators=(',', ':'), ensure_ascii=False), 160)}"


def _cut(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def effect_kind(effect: Mapping[str, Any] | None) -> str:
    return _EFFECT_KINDS.get(str((effect or {}).get("type")), "effects")


# -- comparing -------------------------------------------------------------------------------------


def step_differences(step: Step) -> list[Difference]:
    """What differs between the table and the replay for one event."""
    out: list[Difference] = []
    if step.replayed is None:
        out.append(
            Difference(
                step.seq,
                "refused",
                f"the replay refused it ({step.refusal}); at the table it was accepted",
                step.recorded,
                step.refusal,
            )
        )
        return out
    if step.replayed != step.recorded:
        out += _list_differences(step.seq, step.recorded, step.replayed, effect_kind, "effect")
    if step.replayed_commands is not None and step.replayed_commands != step.commands:
        out += _list_differences(
            step.seq, step.commands, step.replayed_commands, lambda _: "commands", "command"
        )
    return out


def _list_differences(
    seq: int,
    recorded: list[dict[str, Any]],
    replayed: list[dict[str, Any]],
    kind_of: Callable[[Mapping[str, Any] | None], str],
    noun: str,
) -> list[Difference]:
    keys_a = [json.dumps(x, sort_keys=True) for x in recorded]
    keys_b = [json.dumps(x, sort_keys=True) for x in replayed]
    out: list[Difference] = []
    matcher = difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False)
    show = describe_effect if noun == "effect" else _describe_command
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        a, b = recorded[i1:i2], replayed[j1:j2]
        for k in range(max(len(a), len(b))):
            ra = a[k] if k < len(a) else None
            rb = b[k] if k < len(b) else None
            if ra is None:
                text = f"only on replay: {show(rb)}"
            elif rb is None:
                text = f"not on replay: {show(ra)}"
            else:
                text = f"was {show(ra)}; now {show(rb)}"
            out.append(Difference(seq, kind_of(ra if ra is not None else rb), text, ra, rb))
    return out


def _describe_command(cmd: Mapping[str, Any] | None) -> str:
    if cmd is None:
        return "nothing"
    data = json.dumps(cmd.get("data"), separators=(",", ":"), ensure_ascii=False)
    return f"{cmd.get('op')} {_cut(data, 140)}"


CONTEXT = 3
"""Events shown before and after the first divergence."""
KEEP = 200
"""Differences kept in full (every one is counted)."""


@dataclass
class Report:
    world: str
    system: str
    start_seq: int
    first_seq: int | None = None
    last_seq: int | None = None
    events: int = 0
    """Events replayed (those before ``--from`` included)."""
    compared: int = 0
    seconds: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)
    differences: list[Difference] = field(default_factory=list)
    """The first :data:`KEEP` differences."""
    around: list[tuple[int, str, bool]] = field(default_factory=list)
    """The events around the first divergence: (seq, what, whether it is the one)."""
    state_seqs: list[int] = field(default_factory=list)
    """The snapshots the state was compared with."""
    changes: dict[str, Any] = field(default_factory=dict)
    scripts: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def rate(self) -> float:
        return self.events / self.seconds if self.seconds > 0 else 0.0

    def as_json(self) -> dict[str, Any]:
        first = self.differences[0] if self.differences else None
        return {
            "world": self.world,
            "system": self.system,
            "identical": self.total == 0,
            "events": self.events,
            "compared": self.compared,
            "first_seq": self.first_seq,
            "last_seq": self.last_seq,
            "started_from_snapshot": self.start_seq,
            "seconds": round(self.seconds, 4),
            "events_per_second": round(self.rate),
            "changes": self.changes,
            "scripts": self.scripts,
            "state_compared_at": self.state_seqs,
            "differences": {k: self.counts.get(k, 0) for k in KINDS},
            "total": self.total,
            "first": None
            if first is None
            else {
                **first.as_json(),
                "around": [
                    {"seq": s, "event": what, "diverged": here} for s, what, here in self.around
                ],
            },
            "listed": [d.as_json() for d in self.differences],
            "notes": self.notes,
        }

    def text(self) -> str:
        lines = [
            f"Replayed world {self.world!r} ({self.system}): {self.events} events"
            + (f", seq {self.first_seq}-{self.last_seq}" if self.first_seq is not None else "")
            + f", in {self.seconds:.2f} s ({self.rate:,.0f} events/s).",
        ]
        if self.compared != self.events:
            lines.append(f"Compared: {self.compared} events (the others set the scene).")
        if self.changes:
            shown = ", ".join(f"{k} = {v}" for k, v in self.changes.items())
            lines.append(f"Options changed for the replay: {shown}.")
        if self.scripts:
            lines.append(f"Scripts: {', '.join(self.scripts)}.")
        lines += self.notes
        if not self.total:
            at = (
                f" (and the state at seq {', '.join(map(str, self.state_seqs))})"
                if self.state_seqs
                else ""
            )
            lines.append(f"No differences: the replay did what the table saw{at}.")
            return "\n".join(lines)
        first = self.differences[0]
        lines += ["", f"First divergence at seq {first.seq}:"]
        for seq, what, here in self.around:
            lines.append(f"  {'>' if here else ' '} seq {seq:<6} {what}")
        firsts = [d for d in self.differences if d.seq == first.seq]
        for d in firsts[:10]:
            lines.append(f"      {d.kind}: {d.text}")
        if len(firsts) > 10:
            lines.append(f"      ... and {len(firsts) - 10} more at that event")
        width = max(len(t) for t in KINDS.values())
        lines += ["", f"Differences: {self.total}"]
        for kind, title in KINDS.items():
            n = self.counts.get(kind, 0)
            if n:
                lines.append(f"  {title:<{width}}  {n}")
        state = [d for d in self.differences if d.kind == "state"]
        if state:
            lines.append("")
            lines.append(f"State at seq {state[0].seq} (the server's snapshot), first values:")
            for d in state[:8]:
                lines.append(f"  {d.text}")
        return "\n".join(lines)


async def compare(replayer: Replayer) -> Report:
    """Replay and compare: the report of :class:`Replayer`'s steps."""
    started = time.perf_counter()
    report = Report(replayer.name, "", 0)
    history: list[tuple[int, str]] = []
    after_first = 0
    async for step in replayer.steps():
        report.events += 1
        if not step.compared:
            continue
        report.compared += 1
        if report.first_seq is None:
            report.first_seq = step.seq
        report.last_seq = step.seq
        if after_first and len(report.around) < after_first:
            report.around.append((step.seq, describe_event(step.event), False))
        history = [*history[-CONTEXT:], (step.seq, describe_event(step.event))]
        found = step_differences(step)
        if not found:
            continue
        if not report.differences:
            report.around = [(s, w, False) for s, w in history[:-1]]
            report.around.append((step.seq, history[-1][1], True))
            after_first = len(report.around) + CONTEXT
        _count(report, found)
    report.seconds = time.perf_counter() - started
    for check in replayer.state_checks:
        report.state_seqs.append(check.seq)
        found = [
            Difference(check.seq, "state", f"{path}: was {_short(a)}; now {_short(b)}", a, b)
            for path, a, b in check.differences
        ]
        if found and not report.differences:
            report.around = [(check.seq, "the server's snapshot", True)]
        _count(report, found)
    report.system = replayer.system
    report.start_seq = replayer.start_seq
    report.changes = dict(replayer.changes)
    report.scripts = [Path(str(s)).name for s in replayer.scripts]
    report.notes = list(replayer.notes)
    if not replayer.state_checks and report.compared:
        report.notes.append(
            "State not compared: no snapshot of the server's falls in the replayed range."
        )
    return report


def _count(report: Report, found: list[Difference]) -> None:
    for d in found:
        report.counts[d.kind] = report.counts.get(d.kind, 0) + 1
        if len(report.differences) < KEEP:
            report.differences.append(d)


def _short(value: Any) -> str:
    return _cut(json.dumps(_plain(value), ensure_ascii=False), 80)


def _plain(value: Any) -> Any:
    """A state's value as JSON can say it: a set as its sorted items."""
    if isinstance(value, set | frozenset):
        return sorted((_plain(v) for v in value), key=str)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return pydantic_core.to_jsonable_python(value, fallback=str)


@contextlib.asynccontextmanager
async def replaying(location: str, name: str, **kw: Any) -> AsyncIterator[Replayer]:
    """A :class:`Replayer` of world ``name`` of the database at ``location``, opened
    read-only (``kw``: :class:`Replayer`'s options); the database is closed after."""
    from vttbridge.adapters.bridge.storage import open_storage

    store = await open_storage(location, read_only=True)
    try:
        yield Replayer(store, name, **kw)
    finally:
        await store.close()


async def replay_report(location: str, name: str, **kw: Any) -> Report:
    """Replay world ``name`` of the database at ``location`` (read-only) and compare:
    ``vttbridge replay``. ``kw``: :class:`Replayer`'s options."""
    async with replaying(location, name, **kw) as replayer:
        return await compare(replayer)


__all__ = [
    "KINDS",
    "Difference",
    "LogClock",
    "ReplayError",
    "Replayer",
    "Report",
    "StateCheck",
    "Step",
    "UnreadableEvent",
    "apply_changes",
    "compare",
    "describe_effect",
    "describe_event",
    "option_changes",
    "replay_report",
    "replaying",
    "step_differences",
]
