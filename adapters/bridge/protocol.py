"""Wire protocol version 1: the envelope around every adapter's native payloads.

Every model here is published by ``vttbridge schema``; ``docs/protocol.md`` describes the
protocol as a whole.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from vttbridge.rules.numbers import RANGE_ERRORS
from vttbridge.rules.refusal import Refusal

PROTOCOL_VERSION = 1
SUPPORTED_PROTOCOLS = frozenset({1})

Ack = dict[str, Any]
"""An event's ack as it goes on the wire: :class:`AckOk` or :class:`AckError`, as a dict."""


class ErrorCode:
    """Stable error codes of acks and refused connects. Clients switch on these; the message is
    for people."""

    # refused connects
    BAD_AUTH = "bad_auth"
    UNKNOWN_WORLD = "unknown_world"
    WRONG_KEY = "wrong_key"
    UNSUPPORTED_PROTOCOL = "unsupported_protocol"
    WORLD_UNAVAILABLE = "world_unavailable"
    LINKED_ELSEWHERE = "linked_elsewhere"
    TOO_MANY_ATTEMPTS = "too_many_attempts"
    """Too many wrong keys from this address, or for this world, lately; the message says
    when to try again (HTTP: status 429 with a Retry-After header)."""
    # inbound events
    BAD_JSON = "bad_json"
    BAD_EVENT = "bad_event"
    """The packet is no ``[name, payload]``: no name, or a name that is no string."""
    RESERVED_EVENT = "reserved_event"
    """The event's name is one socket.io keeps for itself (``connect``, ``disconnect``...)."""
    BINARY_NOT_SUPPORTED = "binary_not_supported"
    """The event carries binary attachments; the protocol is JSON only."""
    BAD_PAYLOAD = "bad_payload"
    MISSING_FIELD = "missing_field"
    WRONG_TYPE = "wrong_type"
    OUT_OF_RANGE = "out_of_range"
    """A number that is not finite (NaN, Infinity, ``1e400``) or outside its field's bounds."""
    UNKNOWN_EVENT = "unknown_event"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    RATE_LIMITED = "rate_limited"
    READ_ONLY = "read_only"
    BUSY = "busy"
    QUARANTINED = "quarantined"
    """An event that hung the server (a script ran past its budget during it) before the
    server was restarted: it is never run again."""
    SHUTTING_DOWN = "shutting_down"
    INTERNAL = "internal"
    # adapters and the runtime raise their own codes too ("unknown_token", rule codes...)


class ClientInfo(BaseModel):
    """Who is connecting: the companion client and the VTT it runs in."""

    model_config = ConfigDict(extra="allow")

    name: str = Field(max_length=100)
    version: str = Field(max_length=50)
    vtt: str | None = Field(None, max_length=100)
    system: str | None = Field(None, max_length=100)


class Auth(BaseModel):
    """The socket.io ``auth`` object of a connect."""

    model_config = ConfigDict(extra="ignore")

    world: str = Field(min_length=1, max_length=64)
    key: str = Field(min_length=1, max_length=512)
    client: ClientInfo
    last_seq: int | None = Field(
        None,
        ge=0,
        description="Highest command seq this client has applied; commands after it are "
        "re-sent. Omitted: the world's last acknowledged command.",
    )
    protocol: int = Field(PROTOCOL_VERSION, description="Wire protocol version.")


class ErrorBody(BaseModel):
    code: str
    message: str
    path: str | None = None


class AckOk(BaseModel):
    """Ack of an accepted event: ``seq`` is its place in the world's log. A duplicate id gets
    the ack of the original again."""

    ok: Literal[True] = True
    seq: int
    duplicate: bool = False


class AckError(BaseModel):
    """Ack of a refused event; the world is unchanged."""

    ok: Literal[False] = False
    error: ErrorBody


class CommandMessage(BaseModel):
    """Server -> client event ``command``. ``seq`` increases per world (it is the command's
    place in the world's log, shared with events, so it may skip numbers)."""

    seq: int
    op: str
    data: dict[str, Any]
    options: dict[str, Any] | None = None


class CommandAck(BaseModel):
    """What a client answers to a ``command``: ``{"ok": true}`` or ``{"ok": false, "error":
    {...}}`` when the VTT refused it (logged for the GM; not retried)."""

    model_config = ConfigDict(extra="allow")

    ok: bool
    error: ErrorBody | None = None


class RefusedConnect(BaseModel):
    """The ``data`` of a refused connect (``connect_error``): its message says why."""

    message: str
    data: dict[str, str | int] = Field(
        description='{"code": ...}; too_many_attempts adds "retry_after": seconds to wait'
    )


class Refused(Refusal):
    """The bridge's own refusal of a connect, a state read or an event (not connected, the
    observer key, a rate limit, a bad payload, a busy world...). For ``too_many_attempts`` and
    ``rate_limited`` it says the seconds to wait (``retry_after``); a refused connect carries
    them, an event's ack does not."""

    def __init__(
        self,
        code: str,
        message: str,
        path: str | None = None,
        *,
        retry_after: float | None = None,
        **detail: Any,
    ) -> None:
        super().__init__(code, message, path, **detail)
        self.retry_after = None if retry_after is None else max(1, math.ceil(retry_after))

    @classmethod
    def from_error(cls, error: dict[str, Any]) -> Refused:
        """The refusal an error of the wire (``{"code", "message", "path"?}``) stands for."""
        return cls(str(error.get("code")), str(error.get("message")), error.get("path"))

    @property
    def data(self) -> dict[str, Any]:
        """The ``data`` of the refused connect."""
        if self.retry_after is None:
            return {"code": self.code}
        return {"code": self.code, "retry_after": self.retry_after}

    @property
    def refusal(self) -> dict[str, Any]:
        """The refused connect: ``{message, data}`` (:class:`RefusedConnect`)."""
        return {"message": self.message, "data": self.data}


def refused_payload(e: ValidationError) -> Refused:
    """The refusal of a payload its model refused: the first error, with the field's path."""
    err = e.errors(include_url=False, include_context=False, include_input=False)[0]
    path = ".".join(str(p) for p in err["loc"]) or None
    if err["type"] == "missing":
        return Refused(ErrorCode.MISSING_FIELD, f"{path} is required.", path)
    code = ErrorCode.OUT_OF_RANGE if err["type"] in RANGE_ERRORS else ErrorCode.WRONG_TYPE
    return Refused(code, f"{path or 'payload'}: {err['msg']}.", path)


def refusal_ack(refusal: Refusal) -> Ack:
    """The ack of an event refused anywhere on its way, from the bridge down to the rules:
    ``{"ok": false, "error": {"code", "message", "path"?}}``."""
    return {"ok": False, "error": refusal.as_error()}


def ack_error(code: str, message: str, path: str | None = None) -> Ack:
    return refusal_ack(Refusal(code, message, path))


ENVELOPE_MODELS: dict[str, type[BaseModel]] = {
    "auth": Auth,
    "ack-ok": AckOk,
    "ack-error": AckError,
    "command": CommandMessage,
    "command-ack": CommandAck,
    "connect-refused": RefusedConnect,
}
