"""An inbound event's payload, from the packet's argument to the adapter's model of it."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from vttbridge.adapters.base import Adapter, Inbound
from vttbridge.adapters.bridge.packets import REFUSED, PacketJson, json_error
from vttbridge.adapters.bridge.protocol import Ack, ErrorCode, ack_error, validation_ack


def read_payload(adapter: Adapter, event: str, args: tuple) -> Inbound | Ack:
    """The validated payload of ``event`` (its first argument), or the ack refusing it."""
    payload = args[0] if args else None
    if event == REFUSED:  # by the packet layer: bad JSON, no name, too large...
        return payload.ack()
    if isinstance(payload, str):  # relays that send JSON text rather than an object
        try:
            payload = PacketJson.loads(payload)
        except ValueError as e:
            return ack_error(ErrorCode.BAD_JSON, f"The payload is not valid JSON: {json_error(e)}.")
    model = adapter.inbound.get(event)
    if model is None:
        return ack_error(
            ErrorCode.UNKNOWN_EVENT,
            f"The {adapter.name} adapter does not know the event {event!r}.",
        )
    if not isinstance(payload, dict):
        return ack_error(
            ErrorCode.BAD_PAYLOAD,
            f"The payload of {event!r} must be an object {{id, ...}}, not {json_type(payload)}.",
        )
    try:
        return model.model_validate(payload)
    except ValidationError as e:
        return validation_ack(e)


def json_type(value: Any) -> str:
    """What a JSON value is, in words."""
    return {
        list: "an array",
        str: "a string",
        int: "a number",
        float: "a number",
        bool: "a boolean",
        type(None): "null",
    }.get(type(value), type(value).__name__)
