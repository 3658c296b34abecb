"""The step in progress: what processing one event (or one job) emits, derives and touches.

Every part of the runtime that produces something during a step (a chat line, a follow-up
event, a rules-owned value that may have changed) hands it to the world's :class:`CurrentStep`;
the :class:`~vttbridge.sdk.runtime.pipeline.Pipeline` that runs the step reads it back.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vttbridge.sdk.effects import BaseEffect
from vttbridge.sdk.events import BaseEvent
from vttbridge.sdk.script import Registered

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Call:
    """A callback queued to run after the current one, in the same step (a choice handler)."""

    reg: Registered
    args: tuple[Any, ...]


@dataclass(slots=True)
class Step:
    """What one step has produced so far."""

    effects: list[BaseEffect] = field(default_factory=list)
    derived: deque[BaseEvent | Call] = field(default_factory=deque)
    """Events (and queued choice-handler calls) to dispatch after the current one."""
    count: int = 0
    """Derived events dispatched so far (a script that re-triggers itself is cut off)."""
    touched: set[str] = field(default_factory=set)
    """Tokens whose rules-owned values or conditions the step may have changed."""
    every: bool = False
    """The step may have changed any token's (a rule ran, a snapshot came)."""


class CurrentStep:
    """The world's step in progress, if any. ``outside`` takes an event derived when no step
    runs (a timer's, after the step that armed it): it is queued as an event of its own."""

    def __init__(self, world_id: str, outside: Callable[[BaseEvent], None]) -> None:
        self._world_id = world_id
        self._outside = outside
        self.step: Step | None = None
        """The step being processed; None between steps."""

    def begin(self) -> Step:
        step = self.step = Step()
        return step

    def end(self) -> None:
        self.step = None

    def emit(self, effect: BaseEffect) -> None:
        """Add ``effect`` to the step's effects."""
        if self.step is not None:
            self.step.effects.append(effect)
        else:  # outside any step (a callback misused after stop): nowhere to deliver it
            log.warning("world %s: effect outside a step dropped: %r", self._world_id, effect)

    def derive(self, event: BaseEvent) -> None:
        """Dispatch ``event`` after the current one (no ingest)."""
        if self.step is None:
            self._outside(event)
        else:
            self.step.derived.append(event)

    def derive_call(self, reg: Registered, args: tuple[Any, ...]) -> None:
        """Run a callback right after the current one, in this step (a choice handler, called
        while its prompt is answered, which may itself be inside a command handler)."""
        if self.step is None:
            raise RuntimeError("a callback can only be queued inside a step")
        self.step.derived.appendleft(Call(reg, args))

    def touch(self, token: str | None) -> None:
        """``token``'s rules-owned values or conditions may have changed in this step."""
        if self.step is not None and token is not None:
            self.step.touched.add(token)

    def touch_all(self) -> None:
        """Any token's rules-owned values or conditions may have changed in this step."""
        if self.step is not None:
            self.step.every = True
