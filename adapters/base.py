"""The adapter interface: how a VTT's own events become domain events, and effects become the
VTT's own commands. Pure translation; the socket bridge (``vttbridge.adapters.bridge``) does all
I/O.

A module author writes one :class:`Adapter` subclass per VTT (or per game system on a VTT)::

    class MyTable(Adapter):
        name = "mytable"                      # socket.io namespace "/mytable"
        outbound = {"chat.send": MyChatData}  # optional, for `vttbridge schema`
        declines = frozenset({WatchMoves, ReleaseMove})  # effects this VTT cannot carry out

        def _snapshot(self, p: MySnapshot, world: WorldView) -> list[Event]: ...
        def _moved(self, p: MyTokenMoved, world: WorldView) -> list[Event]: ...

        events = {  # each native event once: its payload model and its translation
            "snapshot": InboundEvent(MySnapshot, _snapshot),
            "tokenMoved": InboundEvent(MyTokenMoved, _moved),
        }

        def translate_out(self, effect, world): ...

The table is checked when the class is made (each entry's model is an :class:`Inbound`, the
method's payload parameter takes it); :attr:`Adapter.inbound`, the models the bridge validates
payloads with, is made from it, and :meth:`Adapter.translate_in` dispatches through it. (An
adapter may instead set ``inbound`` itself and override ``translate_in``.)

Every effect (:data:`vttbridge.sdk.effects.Effect`) is either translated or declined: the bridge
never hands a declined one to ``translate_out`` and does what its fallback says instead (a
question for a player goes to the GM: :mod:`vttbridge.adapters.bridge.declined`);
:func:`vttbridge.adapters.testing.untranslated` finds the effects an adapter does neither for.

and registers it either explicitly (:func:`register_adapter`) or through the entry point group
``vttbridge.adapters`` in its own package's ``pyproject.toml``::

    [project.entry-points."vttbridge.adapters"]
    mytable = "mytable_vtt.adapter:MyTable"

The entry point may name an :class:`Adapter` subclass, an instance, or a zero-argument factory.
"""

from __future__ import annotations

import inspect
import logging
import re
import typing
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field
from vttbridge.adapters.companions import check_range
from vttbridge.rules.refusal import Refusal
from vttbridge.sdk.checks import close_match

if TYPE_CHECKING:
    from vttbridge.sdk.effects import BaseEffect, Effect
    from vttbridge.sdk.events import Event
    from vttbridge.sdk.world import WorldView

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "vttbridge.adapters"
_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")


class Inbound(BaseModel):
    """Base of every inbound payload: the VTT's native fields plus an event ``id`` unique per
    world (the bridge deduplicates on it). Unknown native fields are kept, not rejected, so a
    newer VTT version that adds fields keeps working."""

    model_config = ConfigDict(extra="allow", allow_inf_nan=False)

    id: str = Field(min_length=1, max_length=128, description="Event id, unique per world.")


class Command(BaseModel):
    """One native command for the VTT client: ``op`` mirrors the VTT's own API call
    (``Token.update``, ``sendChat``...), ``data`` is its argument, ``options`` its second
    argument where the API has one (Foundry's ``{"animate": false}``)."""

    op: str = Field(min_length=1)
    data: dict[str, Any] = Field(default_factory=dict)
    options: dict[str, Any] | None = None


P = TypeVar("P", bound=Inbound)


@dataclass(frozen=True)
class InboundEvent(Generic[P]):
    """One native event an adapter takes, declared once in its :attr:`Adapter.events`: the
    model its payload is read with, and the method that translates it, ``(adapter, payload,
    world) -> [domain events]``. Checked when made: a mistake is told when the adapter's
    module is imported, naming both."""

    model: type[P]
    translate: Callable[[Any, P, WorldView], list[Event]]

    def __post_init__(self) -> None:
        if not (isinstance(self.model, type) and issubclass(self.model, Inbound)):
            raise TypeError(f"InboundEvent: {self.model!r} is no model (a subclass of Inbound)")
        if not callable(self.translate):
            raise TypeError(f"InboundEvent({self.model.__name__}): {self.translate!r} is no method")
        takes = _payload_annotation(self.translate)
        if isinstance(takes, type) and not issubclass(self.model, takes):
            name = getattr(self.translate, "__qualname__", repr(self.translate))
            raise TypeError(
                f"InboundEvent({self.model.__name__}, {name}): {name} translates the "
                f"{takes.__name__} payload, not {self.model.__name__}"
            )


def _payload_annotation(fn: Callable[..., Any]) -> Any:
    """The annotation of ``fn``'s payload parameter (its second), resolved; None when it has
    none or it cannot be resolved here (a name imported for type checking only)."""
    params = list(inspect.signature(fn).parameters)
    if len(params) < 2:
        return None
    try:
        return typing.get_type_hints(fn).get(params[1])
    except Exception:  # an annotation only a type checker can resolve: nothing to check
        return None


class TranslationError(Refusal):
    """A payload that validates but cannot be translated (a token the world does not know, a
    chat message for another scene...). The bridge answers the event with this code and message
    and leaves the world unchanged. ``path`` names the offending field (``"token._id"``)."""


def scene_extent(world: WorldView, scene_id: str | None) -> tuple[float, float] | None:
    """The canvas size (px) of a scene the world knows, or None."""
    scene = world.scenes.get(scene_id or world.active_scene or "")
    return scene.extent if scene is not None else None


def check_on_canvas(
    extent: tuple[float, float] | None, x: float, y: float, path: str, axes: tuple[str, str]
) -> None:
    """Raise :class:`TranslationError` ``off_scene`` unless ``x, y`` (px, already finite and
    within :data:`vttbridge.rules.numbers.MAX_PX` by the models) lie on a canvas of ``extent``."""
    if extent is None:
        return
    for value, limit, axis in ((x, extent[0], axes[0]), (y, extent[1], axes[1])):
        if value > limit:
            raise TranslationError(
                "off_scene",
                f"{path}{axis} = {value:g} px is off the scene, which is {limit:g} px across.",
                f"{path}{axis}",
            )


class Adapter(ABC):
    """Translate one VTT's native events and commands. Instances must be stateless between
    calls (everything they need is in the payload or the world), because one instance serves
    every world on the server and replay must give the same result as the first run.

    ``world`` in both directions is the world runtime's read-only state (``sdk``); read it, never
    change it.
    """

    name: ClassVar[str]
    """Short lower-case name; also the socket.io namespace (``/<name>``) unless ``namespace``
    is set."""
    namespace: ClassVar[str | None] = None
    version: ClassVar[str] = "0"
    events: ClassVar[Mapping[str, InboundEvent[Any]]] = {}
    """Native event name -> its :class:`InboundEvent` (payload model and translation), each
    declared once. Must include ``"snapshot"``, the full scene a client sends after every
    (re)connect."""
    inbound: ClassVar[Mapping[str, type[Inbound]]] = {}
    """Native event name -> payload model: made from :attr:`events` (or set by an adapter that
    overrides :meth:`translate_in` instead)."""
    outbound: ClassVar[Mapping[str, type[BaseModel]]] = {}
    """Command op -> model of its ``data``; used only to publish JSON Schemas."""
    declines: ClassVar[frozenset[type[BaseEffect]]] = frozenset()
    """The effect classes this VTT cannot carry out (``{AskPlayer, WatchMoves}``). The bridge
    does not call :meth:`translate_out` for them but falls back: a question for a player is
    put to the GM in chat, others are dropped (``docs/adapters.md`` lists what each costs the
    table)."""
    companions: ClassVar[Mapping[str, str]] = {}
    """Companion name (``auth.client.name``) -> the range of its versions this bridge supports,
    e.g. ``{"mytable-module": ">=1.2.0,<2.0.0"}``. A companion outside it is told so in plain
    words when it connects (:mod:`vttbridge.adapters.companions`)."""

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        events = cls.__dict__.get("events")
        if events is None:
            return
        if "inbound" in cls.__dict__:
            raise TypeError(f"{cls.__name__}: declare its events or its inbound models, not both")
        for event, entry in events.items():
            if not isinstance(entry, InboundEvent):
                raise TypeError(
                    f"{cls.__name__}.events[{event!r}] must be an InboundEvent(model, method), "
                    f"not {entry!r}"
                )
        cls.events = MappingProxyType(dict(events))
        cls.inbound = MappingProxyType({event: e.model for event, e in events.items()})

    @property
    def ns(self) -> str:
        return self.namespace or f"/{self.name}"

    def translate_in(self, event: str, payload: Inbound, world: WorldView) -> list[Event]:
        """Domain events for one validated native event (often one, possibly none), by the
        event's entry in :attr:`events`. Raise :class:`TranslationError` for payloads that make
        no sense in this world. ``world`` is for reading only
        (:class:`vttbridge.sdk.world.WorldView`)."""
        entry = self.events.get(event)
        if entry is None:
            raise TranslationError(
                "unknown_event", f"The {self.name} adapter has no {event!r} event."
            )
        return entry.translate(self, payload, world)

    @abstractmethod
    def translate_out(self, effect: Effect, world: WorldView) -> list[Command]:
        """Native commands that carry out one effect. Every effect type is either translated
        here or listed in :attr:`declines`; none may be an answer when this effect needs no
        command in this world (stats of a token no sheet maps). A question to a player
        (``AskPlayer``) that gets no command is put to the GM instead, and logged.
        ``world`` is for reading only (:class:`vttbridge.sdk.world.WorldView`)."""


def check_adapter(adapter: Adapter) -> None:
    """Raise ``ValueError`` if ``adapter`` cannot be served (bad name, no snapshot model...)."""
    name = getattr(adapter, "name", None)
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"adapter name {name!r} must match {_NAME.pattern}")
    if not adapter.ns.startswith("/") or adapter.ns == "/":
        raise ValueError(f"adapter {name}: namespace {adapter.ns!r} must be '/<something>'")
    if type(adapter).translate_in is Adapter.translate_in and not adapter.events:
        raise ValueError(
            f"adapter {name}: declare its inbound events (events = {{name: InboundEvent(model, "
            "method)}}) or override translate_in"
        )
    if "snapshot" not in adapter.inbound:
        raise ValueError(f"adapter {name}: inbound models must include 'snapshot'")
    for companion, spec in adapter.companions.items():
        try:
            check_range(spec)
        except ValueError as e:
            raise ValueError(f"adapter {name}: companions[{companion!r}]: {e}") from None
    for event, model in adapter.inbound.items():
        if not (isinstance(model, type) and issubclass(model, Inbound)):
            raise ValueError(f"adapter {name}: inbound[{event!r}] must subclass adapters.Inbound")
    effects = effect_classes()
    for declined in adapter.declines:
        if declined not in effects:
            names = {c.__name__: c for c in effects}
            shown = getattr(declined, "__name__", repr(declined))
            match = close_match(str(shown), names)
            hint = f"; did you mean {match}?" if match else ""
            raise ValueError(
                f"adapter {name}: declines {shown}, which is not an effect{hint} (effects: "
                f"{', '.join(sorted(names))})"
            )


def effect_classes() -> tuple[type[BaseEffect], ...]:
    """Every effect class an adapter gets (the members of :data:`vttbridge.sdk.effects.Effect`)."""
    from vttbridge.sdk.effects import Effect

    union = typing.get_args(Effect)[0]
    return typing.get_args(union)


AdapterSource = Adapter | type[Adapter] | Callable[[], Adapter]


def _instantiate(obj: AdapterSource) -> Adapter:
    if isinstance(obj, Adapter):
        return obj
    made = obj()
    if not isinstance(made, Adapter):
        raise TypeError(f"{obj!r} did not produce an Adapter (got {type(made).__name__})")
    return made


class AdapterRegistry:
    """Named adapters a bridge serves. Explicit registration wins over entry points."""

    def __init__(self, adapters: Iterable[AdapterSource] = ()) -> None:
        self._adapters: dict[str, Adapter] = {}
        for a in adapters:
            self.register(a)

    def register(self, adapter: AdapterSource, *, replace: bool = False) -> Callable[[], None]:
        """Add an adapter; returns a callable that removes it again."""
        inst = _instantiate(adapter)
        check_adapter(inst)
        if not replace and inst.name in self._adapters:
            raise ValueError(f"an adapter named {inst.name!r} is already registered")
        clash = [a for a in self._adapters.values() if a.ns == inst.ns and a.name != inst.name]
        if clash:
            raise ValueError(f"namespace {inst.ns} is already served by {clash[0].name!r}")
        self._adapters[inst.name] = inst
        return lambda: self.unregister(inst.name)

    def unregister(self, name: str) -> None:
        self._adapters.pop(name, None)

    def discover(self, group: str = ENTRY_POINT_GROUP) -> list[str]:
        """Load adapters from installed packages' entry points. A broken plug-in is logged and
        skipped, never fatal: the other adapters keep working. Returns the names added."""
        added = []
        for ep in entry_points(group=group):
            if ep.name in self._adapters:
                continue  # explicitly registered: the caller's choice wins
            try:
                self.register(ep.load())
            except Exception as e:
                log.error("Could not load the %r adapter from %s: %s", ep.name, ep.value, e)
                continue
            added.append(ep.name)
        return added

    def get(self, name: str) -> Adapter:
        return self._adapters[name]

    def __iter__(self):
        return iter(list(self._adapters.values()))

    def __len__(self) -> int:
        return len(self._adapters)

    def __contains__(self, name: object) -> bool:
        return name in self._adapters


registry = AdapterRegistry()
"""The process-wide registry ``vttbridge serve`` uses (entry points are added at start)."""


def register_adapter(adapter: AdapterSource, *, replace: bool = False) -> Callable[[], None]:
    """Register ``adapter`` with the process-wide registry; returns an unregister handle."""
    return registry.register(adapter, replace=replace)
