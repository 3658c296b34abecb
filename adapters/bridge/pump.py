"""The command pump: one task per VTT connection that sends it every durable command of its
world after its cursor, in order, once, and hands the client's acks to the world."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vttbridge.adapters.bridge.session import Session
    from vttbridge.adapters.bridge.sockets import Transport

log = logging.getLogger("vttbridge")


async def pump(sess: Session, transport: Transport, is_open: Callable[[], bool]) -> None:
    """Send ``sess`` its world's commands while ``is_open()`` (connected, not shutting down)."""
    ns, sid = sess.adapter.ns, sess.sid
    # The connect handler runs before python-socketio sends CONNECT; wait for it so no
    # command overtakes the connect.
    await transport.wait_connected(sid, ns)
    sub, box = sess.subscriber, sess.host.outbox
    try:
        while is_open():
            if sub.cursor >= box.published:
                # nothing durable past the cursor: sleep until a commit publishes some (a
                # commit sets ``wake``; nothing runs between this test and the wait)
                sub.wake.clear()
                await sub.wake.wait()
                continue
            batch = await box.after(sub.cursor)
            for msg in batch.messages:
                if not is_open():
                    return
                await transport.send_command(
                    sid, ns, msg, CommandAcked(sess, msg["seq"], msg["op"])
                )
                sub.cursor = msg["seq"]
            sub.cursor = max(sub.cursor, batch.upto)
    except asyncio.CancelledError:
        pass
    except Exception:
        log.exception("Sending commands to %s failed", sess.who)


class CommandAcked:
    """A client's ack of one command (``protocol.CommandAck``)."""

    __slots__ = ("op", "seq", "sess")

    def __init__(self, sess: Session, seq: int, op: str) -> None:
        self.sess, self.seq, self.op = sess, seq, op

    def __call__(self, *args: Any) -> None:
        ack = args[0] if args else None
        if isinstance(ack, dict) and ack.get("ok") is False:
            err = ack.get("error") or {}
            msg = err.get("message") if isinstance(err, dict) else str(err)
            log.warning(
                "World %r: the VTT could not apply command %d (%s): %s",
                self.sess.host.name,
                self.seq,
                self.op,
                msg or "no reason given",
            )
        if self.sess.role == "gm":
            # Refused or not, the client has dealt with it; re-sending would not help.
            self.sess.host.outbox.acked(self.seq)
