"""An inbound event's payload, from the packet's argument to the adapter's model of it, or the
:class:`~vttbridge.adapters.bridge.protocol.Refused` that says why there is none."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from vttbridge.adapters.base import Adapter, Inbound
from vttbridge.adapters.bridge.packets import REFUSED, PacketJson, json_error
from vttbridge.adapters.bridge.protocol import ErrorCode, Refused, refused_payload


def read_payload(adapter: Adapter, event: str, args: tuple[Any, ...]) -> Inbound:
    """The validated payload of ``event`` (its first argument). Raises :class:`Refused`."""
    payload = args[0] if args else None
    if event == REFUSED and isinstance(payload, Refused):  # bad JSON, no name, too large...
        raise payload
    if isinstance(payload, str):  # relays that send JSON text rather than an object
        try:
            payload = PacketJson.loads(payload)
        except ValueError as e:
            raise Refused(
                ErrorCode.BAD_JSON, f"The payload is not valid JSON: {json_error(e)}."
            ) from None
    model = adapter.inbound.get(event)
    if model is None:
        raise Refused(
            ErrorCode.UNKNOWN_EVENT,
            f"The {adapter.name} adapter does not know the event {event!r}.",
        )
    if not isinstance(payload, dict):
        raise Refused(
            ErrorCode.BAD_PAYLOAD,
            f"The payload of {event!r} must be an object {{id, ...}}, not {json_type(payload)}.",
        )
    try:
        return model.model_validate(payload)
    except ValidationError as e:
        raise refused_payload(e) from None


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
