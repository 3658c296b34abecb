"""The one shape of a refusal, from the rules up to the socket: a stable ``code``, a ``message``
a GM can read, and the ``path`` of the offending field when there is one.

Every layer's refusal subclasses :class:`Refusal`: the rules' :class:`~vttbridge.rules.outcome.
RuleError`, the runtime's :class:`~vttbridge.sdk.errors.EventRejected`, an adapter's
:class:`~vttbridge.adapters.base.TranslationError` and the bridge's
:class:`~vttbridge.adapters.bridge.protocol.Refused`. Each is raised where the refusal arises,
before anything changed, and answered once, where the request came in (the bridge turns it into
the event's ack). It lives here, at the bottom, so every layer can import it.
"""

from __future__ import annotations

from typing import Any


class Refusal(Exception):
    """A request refused before anything changed.

    ``code`` is stable and machine-readable (``"no_budget"``, ``"unknown_token"``,
    ``"rate_limited"``...), ``message`` a sentence for people, ``path`` the offending field
    (``"token._id"``) or None. Extra keyword fields a subclass or a raiser wants to carry
    (the figures behind a rule's refusal) are kept in ``detail``.
    """

    def __init__(self, code: str, message: str, path: str | None = None, **detail: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path
        self.detail = detail

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"

    def as_error(self) -> dict[str, str]:
        """The wire shape of the error: ``{"code", "message", "path"?}``."""
        err = {"code": self.code, "message": self.message}
        if self.path is not None:
            err["path"] = self.path
        return err
