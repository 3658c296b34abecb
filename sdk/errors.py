"""Exceptions the SDK raises or lets callbacks raise."""

from __future__ import annotations


class EventRejected(Exception):
    """An event the world refuses (unknown token, unknown prompt, bad stats...). Raised by
    :meth:`vttbridge.sdk.runtime.WorldRuntime.submit` before anything changed: the world is
    untouched.

    ``code`` is stable and machine-readable (the bridge puts it in the ack), ``message`` is a
    sentence a GM can read, ``path`` points at the offending field when there is one.
    """

    def __init__(self, code: str, message: str, path: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path

    def __repr__(self) -> str:
        return f"EventRejected({self.code!r}, {self.message!r})"

    def as_error(self) -> dict[str, str]:
        """The wire shape of the error (``{"code", "message", "path"?}``)."""
        err = {"code": self.code, "message": self.message}
        if self.path:
            err["path"] = self.path
        return err


class UsageError(Exception):
    """Raised by a chat command handler for bad arguments: the player gets the command's usage
    line and this message, whispered, never a traceback."""


class ScriptError(Exception):
    """A script could not be loaded (import failed, no callbacks found)."""
