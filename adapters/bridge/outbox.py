"""One world's commands on their way to its clients: logged with the event that made them,
published once the log is committed, sent to each subscriber from its own cursor (the
command pump, ``pump.py``), acknowledged by the GM's client.

A command has one form: its wire message (``protocol.CommandMessage``: ``seq``, ``op``,
``data``, ``options``), a dict. Its log row keeps ``seq`` and ``op`` in their own columns
and the rest as the body (:func:`row_body`); :func:`from_row` gives the message back, so a
command re-sent from the database is the one first sent.
"""

from __future__ import annotations

import asyncio
import bisect
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import pydantic_core
from vttbridge.adapters.base import Command
from vttbridge.adapters.bridge.storage import LogRow, Storage, WorldLog

Message = dict[str, Any]
"""A command's wire message."""


class _Recent:
    """The newest durable commands, oldest first, as their log rows have them: a deque each of
    their seqs, ops and bodies, numbers and strings, which the garbage collector does not
    track. An object per command it would: a dict or a NamedTuple it walks at every pass (at a
    table that is sent a command each move, a hundred worlds' 110,000 made a full pass of
    130 ms); even a plain tuple, which a pass stops tracking, waits in the young generation
    until one comes, and a command kept while an old one is dropped leaves the count that
    calls a pass unchanged (40 ms when it came)."""

    __slots__ = ("bodies", "ops", "seqs")

    def __init__(self) -> None:
        self.seqs: deque[int] = deque()
        self.ops: deque[str] = deque()
        self.bodies: deque[str] = deque()

    def __len__(self) -> int:
        return len(self.seqs)

    def append(self, seq: int, op: str, body: str) -> None:
        self.seqs.append(seq)
        self.ops.append(op)
        self.bodies.append(body)

    def popleft(self) -> int:
        """Drop the oldest; its seq."""
        self.ops.popleft()
        self.bodies.popleft()
        return self.seqs.popleft()

    def clear(self) -> None:
        self.seqs.clear()
        self.ops.clear()
        self.bodies.clear()

    def index_after(self, cursor: int) -> int:
        """Where the commands with seq > ``cursor`` begin."""
        return bisect.bisect_right(self.seqs, cursor)

    def message(self, k: int) -> Message:
        """The wire message of the ``k``-th."""
        return _message(self.seqs[k], self.ops[k], pydantic_core.from_json(self.bodies[k]))


def message(seq: int, cmd: Command) -> Message:
    """The wire message of ``cmd``, the world's ``seq``-th log row."""
    msg: Message = {"seq": seq, "op": cmd.op, "data": cmd.data}
    if cmd.options is not None:
        msg["options"] = cmd.options
    return msg


def row_body(msg: Message) -> str:
    """What the log stores of a message besides its seq and op (see :func:`from_row`)."""
    body = {"data": msg["data"]}
    if "options" in msg:
        body["options"] = msg["options"]
    return pydantic_core.to_json(body).decode()


def from_row(row: LogRow) -> Message:
    """The wire message a command's log row holds."""
    return _message(row.seq, row.name, row.body)


def _message(seq: int, op: str, body: dict[str, Any]) -> Message:
    """The wire message of command ``seq``, ``op`` from its body (:func:`row_body`)."""
    msg: Message = {"seq": seq, "op": op, "data": body.get("data", {})}
    if body.get("options") is not None:
        msg["options"] = body["options"]
    return msg


class Batch(NamedTuple):
    """What :meth:`Outbox.after` read: commands to send, and the cursor once they are sent."""

    messages: list[Message]
    upto: int
    """The log position a reader has seen once these are sent: every command up to this seq
    is among them or before the cursor read from."""


@dataclass(eq=False)
class Subscriber:
    """One connection that receives this world's commands, from its own cursor, in order."""

    sid: str
    role: str
    cursor: int
    """The log position (a seq) up to which this connection has been sent every command.
    Events, snapshots and commands share the seq counter, so it may stand on an event's seq:
    it moves past the rows between commands too, or a reader would read them forever."""
    wake: asyncio.Event = field(default_factory=asyncio.Event)


class Outbox:
    """The commands of world ``name``: pending (logged, not yet committed), then durable
    (published; the newest ``keep`` in memory, all of them in the log)."""

    def __init__(
        self,
        name: str,
        store: Storage,
        world_log: WorldLog | None,
        subscribers: dict[str, Subscriber],
        *,
        seq: int,
        acked_seq: int,
        keep: int,
    ) -> None:
        self.name = name
        self.store = store
        self.world_log = world_log
        """Where the commands' rows go, under the world's lease."""
        self.subscribers = subscribers
        self.keep = keep
        self.published = seq
        """Every command up to this seq is durable and may be sent."""
        self.acked_seq = acked_seq
        """The last command the GM's client acknowledged (where a client that says nothing
        of its own resumes)."""
        self._pending: deque[tuple[Message, str]] = deque()  # logged, not yet durable
        self._recent = _Recent()  # durable, oldest first
        self._recent_floor = seq  # commands with seq <= this may only be in the database
        self.on_published: Callable[[int, int, list[Message]], Any] | None = None
        """Told ``(published before, published now, the commands that became durable)``
        after each commit (``cluster.py``: the other nodes are)."""

    @property
    def pending(self) -> bool:
        """Commands are logged whose commit has not come yet."""
        return bool(self._pending)

    def log(self, msg: Message) -> None:
        """Log a command (after its event's row); it is sent once :meth:`publish` is."""
        assert self.world_log is not None
        body = row_body(msg)
        self.world_log.command(msg["seq"], msg["op"], body)
        self._pending.append((msg, body))

    def publish(self, upto: int) -> None:
        """Send the commands logged up to seq ``upto`` once the log is committed."""
        assert self.world_log is not None
        self.world_log.after_commit(lambda error: self._published(upto, error))

    def _published(self, upto: int, error: BaseException | None) -> None:
        if error is not None:
            return  # not durable: never sent (the writer already reported the failure)
        before, moved = self.published, []
        while self._pending and self._pending[0][0]["seq"] <= upto:
            msg, body = self._pending.popleft()
            moved.append(msg)
            self._recent.append(msg["seq"], msg["op"], body)
        self._trim()
        self.published = max(self.published, upto)
        self.wake_all()
        if self.on_published is not None and self.published > before:
            self.on_published(before, self.published, moved)

    def remember(self, msgs: list[Message]) -> None:
        """Keep ``msgs``, durable commands newer than those kept, in memory."""
        for m in msgs:
            self._recent.append(m["seq"], m["op"], row_body(m))
        self._trim()

    def forget(self, upto: int) -> None:
        """Keep no command in memory: those up to seq ``upto`` are read from the log."""
        self._recent.clear()
        self._recent_floor = upto

    def _trim(self) -> None:
        while len(self._recent) > self.keep:
            self._recent_floor = self._recent.popleft()

    def wake_all(self) -> None:
        for sub in self.subscribers.values():
            sub.wake.set()

    async def after(self, cursor: int, limit: int = 500) -> Batch:
        """The durable commands with seq > ``cursor``, oldest first (at most ``limit``), and
        the log position they bring a reader to: past the last of them, or past every row
        published so far when no command remains (the rows between commands are events and
        snapshots, which no connection is sent)."""
        upto = self.published
        if cursor >= upto:
            return Batch([], cursor)
        if cursor >= self._recent_floor:
            # indexed, not copied: a pump asks after every commit, from near the end
            recent = self._recent
            i = recent.index_after(cursor)
            j = min(i + limit, len(recent))
            msgs = [recent.message(k) for k in range(i, j)]
            return Batch(msgs, msgs[-1]["seq"] if j < len(recent) else upto)
        rows = await self.store.log_after(self.name, cursor, kind="command", limit=limit)
        msgs = [from_row(r) for r in rows if r.seq <= upto]
        whole = len(rows) < limit or len(msgs) < len(rows)
        return Batch(msgs, upto if whole else msgs[-1]["seq"])

    async def count_after(self, cursor: int) -> int:
        """How many durable commands have seq > ``cursor``."""
        if cursor >= self.published:
            return 0
        if cursor >= self._recent_floor:
            return len(self._recent) - self._recent.index_after(cursor)
        upto = self.published
        return await self.store.count_commands(self.name, cursor, upto)

    def acked(self, seq: int) -> None:
        """The GM's client acknowledged command ``seq``."""
        if seq > self.acked_seq:
            self.acked_seq = seq
            assert self.world_log is not None
            self.world_log.acked(seq)
