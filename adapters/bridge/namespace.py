"""One adapter's socket.io namespace (``/<adapter name>``): a VTT client's connect, events and
disconnect, handed to the bridge's :class:`~vttbridge.adapters.bridge.session.Sessions`.

Refusals are answered here, once: whatever refuses an event on its way (the session, the
payload's model, the world host, the adapter, the runtime, the rules) raises a
:class:`~vttbridge.rules.refusal.Refusal`, and the client gets it as the event's ack; a refused
connect gets it as its ``connect_error``."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

import socketio
from vttbridge.adapters.base import Adapter
from vttbridge.adapters.bridge.protocol import Refused, refusal_ack
from vttbridge.adapters.bridge.sockets import client_address, refuse_connect
from vttbridge.rules.refusal import Refusal

if TYPE_CHECKING:
    from vttbridge.adapters.bridge.session import Sessions


class AdapterNamespace(socketio.AsyncNamespace):
    """Every event name is handled here (VTT event names such as ``change:graphic`` are not
    Python identifiers, so ``on_<event>`` methods cannot be used)."""

    def __init__(self, sessions: Sessions, adapter: Adapter) -> None:
        super().__init__(adapter.ns)
        self.sessions = sessions
        self.adapter = adapter
        self.metrics = sessions.bridge.metrics

    async def trigger_event(self, event: str, *args: Any) -> Any:
        if event == "connect":
            sid, environ, *rest = args
            auth, address = rest[0] if rest else None, client_address(environ)
            try:
                await self.sessions.connect(self.adapter, sid, auth, address)
            except Refused as r:
                refuse_connect(r)
            return True
        if event == "disconnect":
            return await self.sessions.disconnect(args[0], args[1] if len(args) > 1 else "")
        # No await before the world's lock is asked for, so events reach it in arrival order.
        began = time.perf_counter()
        try:
            result = self.sessions.receive(self.adapter, args[0], event, args[1:])
            if asyncio.iscoroutine(result):
                result = await result
        except Refusal as r:
            result = refusal_ack(r)
        self.metrics.answered(self.adapter.name, result, time.perf_counter() - began)
        return result
