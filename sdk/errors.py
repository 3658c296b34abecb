"""Exceptions the SDK raises or lets callbacks raise."""

from __future__ import annotations

from vttbridge.rules.refusal import Refusal


class EventRejected(Refusal):
    """An event the world refuses (unknown token, unknown prompt, bad stats...). Raised by
    :meth:`vttbridge.sdk.runtime.WorldRuntime.submit` before anything changed: the world is
    untouched.

    ``code`` is stable and machine-readable (the bridge puts it in the ack), ``message`` is a
    sentence a GM can read, ``path`` points at the offending field when there is one.
    """


class UsageError(Exception):
    """Raised by a chat command handler for bad arguments: the player gets the command's usage
    line and this message, whispered, never a traceback."""


class ScriptError(Exception):
    """A script could not be loaded (import failed, no callbacks found)."""
