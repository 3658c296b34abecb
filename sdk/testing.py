"""A test harness for scripts: a world in memory, scripted dice, a hand-driven clock, and
helpers to feed events and assert on the effects -- no VTT, no network::

    from vttbridge.sdk.testing import WorldHarness

    async def test_ambush():
        async with WorldHarness("examples/corner_ambush.py", dice=[15]) as w:
            await w.token("kevin", "Kevin", (2, 2), owner="p-kevin", reflex=4)
            await w.token("bob", "Bob", (9, 9))
            effects = await w.move("bob", (5, 2))
            assert w.said("rounds the corner", effects)

``state`` starts the world from a snapshot (what ``WorldRuntime.snapshot()`` returns, as
``vttbridge export-test`` writes it) instead of an empty world; ``dice`` are the faces the dice
show, in order (a :class:`vttbridge.rules.dice.ScriptedRoller`);
push more with ``w.dice(...)``. ``await w.advance(60)`` moves the clock on, firing prompt and
``wait_for`` timeouts, and returns the effects they produced.

A token is neutral unless its ``disposition`` says otherwise (``"hostile"``, ``"friendly"``,
``"neutral"``, ``"secret"``, or the VTT's -1, 1, 0, -2): a friend-or-foe condition needs it.
``w.said(...)`` is true when a chat line contains the text; when it is not, its repr is the chat
that was searched, so a failing ``assert w.said(...)`` shows what was said instead.

The harness is asynchronous: run its tests with pytest-asyncio (``pip install pytest
pytest-asyncio``), marking each ``@pytest.mark.asyncio`` or setting ``asyncio_mode = "auto"``
in the project's pytest configuration.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from vttbridge.rules.dice import Roller, ScriptedRoller
from vttbridge.rules.geometry import Cell, Grid
from vttbridge.rules.options import Options
from vttbridge.sdk.clock import ManualClock
from vttbridge.sdk.effects import (
    AdvanceTurn,
    AskPlayer,
    BaseEffect,
    Effect,
    PostChat,
    SetInitiative,
    UpdateToken,
)
from vttbridge.sdk.events import (
    BaseEvent,
    ChatMessage,
    Player,
    SceneData,
    SceneSnapshot,
    TokenCreated,
    TokenData,
    TokenMoved,
)
from vttbridge.sdk.runtime import WorldRuntime
from vttbridge.sdk.runtime.snapshot import read_snapshot
from vttbridge.sdk.world import Prompt, WorldSettings

CellLike = Cell | tuple[int, int]
Disposition = Literal["hostile", "neutral", "friendly", "secret"] | int
DISPOSITIONS = {"hostile": -1, "neutral": 0, "friendly": 1, "secret": -2}
"""A disposition's name -> the VTT's number (Foundry's: hostile -1, friendly 1)."""


def cell(c: CellLike) -> Cell:
    return c if isinstance(c, Cell) else Cell(x=c[0], y=c[1])


def disposition_value(value: Disposition) -> int:
    """A token's disposition as the VTT numbers it; a name from :data:`DISPOSITIONS`."""
    if isinstance(value, str):
        try:
            return DISPOSITIONS[value.lower()]
        except KeyError:
            known = ", ".join(DISPOSITIONS)
            raise ValueError(f"disposition {value!r}: give one of {known}, or a number") from None
    return value


@dataclass(frozen=True)
class Said:
    """What :meth:`WorldHarness.said` answers: true when a chat line contained ``fragment``.
    Its repr is the chat it searched, each line with whom it was whispered to, so a failing
    ``assert w.said(...)`` prints what was said instead."""

    found: bool
    fragment: str
    whisper_to: str | bool | None
    chat: tuple[tuple[str | None, str], ...]
    """Every chat line searched: (whispered to, or None for public; the text)."""

    def __bool__(self) -> bool:
        return self.found

    def __eq__(self, other: object) -> bool:
        if isinstance(other, bool):
            return self.found is other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.found)

    def __repr__(self) -> str:
        if self.found:
            return f"<said {self.fragment!r}>"
        scope = (
            ""
            if self.whisper_to is False
            else " in public"
            if self.whisper_to is None
            else f" to {self.whisper_to}"
        )
        lines = " | ".join(f"[{to or 'public'}] {text}" for to, text in self.chat)
        return f"<nothing said{scope} contains {self.fragment!r}; the chat: {lines or 'none'}>"


class WorldHarness:
    """One world in memory. Every effect is kept in ``effects`` (in order); ``journal`` holds
    each processed ``(event, effects)`` pair like the bridge's log."""

    def __init__(
        self,
        *scripts: Any,
        system: str = "spycraft",
        dice: Iterable[int] | None = None,
        roller: Roller | None = None,
        options: Options | dict[str, Any] | None = None,
        settings: WorldSettings | dict[str, Any] | None = None,
        builtins: bool = True,
        world_id: str = "test-world",
        gm: str = "gm",
        state: Mapping[str, Any] | str | None = None,
    ) -> None:
        world = None
        if state is not None:  # a world to start from; its options unless given
            world = read_snapshot(state)[0]
            world.id = world_id
            if options is None:
                options = world.encounter.options
        if isinstance(options, dict):
            options = Options(**{"system": system, **options})
        self.options = options or Options(system=system)
        if isinstance(settings, dict):
            settings = WorldSettings(**settings)
        self.clock = ManualClock()
        self.roller = roller if roller is not None else ScriptedRoller(dice or [])
        self.gm = gm
        self.runtime = WorldRuntime(
            world_id,
            roller=self.roller,
            options=self.options,
            settings=settings,
            scripts=scripts,
            builtins=builtins,
            clock=self.clock,
            reload_interval=None,
            world=world,
        )
        self.effects: list[Effect] = []
        self.journal: list[tuple[BaseEvent, list[Effect]]] = []
        self.background: list[Effect] = []
        """Effects no submit produced (timeouts, reloads), in order."""
        self.runtime.add_journal(self._record)
        self.runtime.on_effects(self.background.extend)

    def _record(self, event: Any, effects: list[Effect]) -> None:
        self.journal.append((event, list(effects)))
        self.effects.extend(effects)

    async def __aenter__(self) -> WorldHarness:
        await self.runtime.start()
        await self.runtime.idle()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.runtime.stop()

    # -- state ---------------------------------------------------------------------------------
    @property
    def world(self) -> Any:
        return self.runtime.world

    @property
    def encounter(self) -> Any:
        return self.runtime.world.encounter

    def dice(self, *faces: int) -> None:
        """Queue more die faces (needs the default ScriptedRoller)."""
        if not isinstance(self.roller, ScriptedRoller):
            raise TypeError("dice() needs a ScriptedRoller")
        self.roller.push(*faces)

    @property
    def prompts(self) -> list[Prompt]:
        return list(self.runtime.world.prompts.values())

    def prompt(self, kind: str | None = None) -> Prompt:
        """The one pending prompt (of ``kind``); fails when there is none or several."""
        found = [p for p in self.prompts if kind is None or p.kind == kind]
        assert len(found) == 1, f"expected one pending prompt of kind {kind}, got {found}"
        return found[0]

    # -- feeding events ------------------------------------------------------------------------
    async def send(self, event: BaseEvent | dict[str, Any]) -> list[Effect]:
        return await self.runtime.submit(event)

    async def scene(
        self,
        grid: Grid | None = None,
        players: Sequence[Player] = (),
        scene: str = "scene",
        regions: Mapping[str, Iterable[CellLike]] | None = None,
    ) -> list[Effect]:
        """Send a scene snapshot as a VTT would: the grid, the players and the ``regions``
        drawn in the VTT (name -> cells). It has no tokens: the world's are forgotten."""
        drawn = {name: [cell(c) for c in cs] for name, cs in (regions or {}).items()}
        return await self.send(
            SceneSnapshot(
                scene=SceneData(id=scene, grid=grid or Grid()),
                players=list(players),
                regions=drawn,
            )
        )

    async def token(
        self,
        id: str,
        name: str = "",
        at: CellLike = (0, 0),
        *,
        owner: str | None = None,
        actor: str | None = None,
        disposition: Disposition = "neutral",
        hidden: bool = False,
        **stats: Any,
    ) -> list[Effect]:
        """Create a token; keyword arguments are its rule stats. It is neutral unless
        ``disposition`` says (``"hostile"``, ``"friendly"``... or the VTT's number)."""
        data = TokenData(
            id=id,
            name=name or id,
            cell=cell(at),
            actor=actor,
            owners=[owner] if owner else [],
            disposition=disposition_value(disposition),
            hidden=hidden,
            stats=stats,
        )
        return await self.send(TokenCreated(token=data))

    async def move(self, token: str, *cells: CellLike, player: str | None = None) -> list[Effect]:
        """Move a token through ``cells`` (the last is the destination)."""
        path = [cell(c) for c in cells]
        start = self.runtime.world.tokens[token].cell
        return await self.send(
            TokenMoved(
                token=token, from_cell=start, to_cell=path[-1], path=[start, *path], player=player
            )
        )

    async def chat(
        self,
        text: str,
        *,
        token: str | None = None,
        player: str | None = None,
        role: str = "player",
    ) -> list[Effect]:
        """Type a chat line as a player (speaking as ``token``)."""
        if player is None and token is not None:
            tok = self.runtime.world.tokens.get(token)
            player = tok.owners[0] if tok and tok.owners else None
        return await self.send(ChatMessage(text=text, token=token, player=player, role=role))

    async def gm_says(self, text: str, *, token: str | None = None) -> list[Effect]:
        return await self.chat(text, token=token, player=self.gm, role="gm")

    async def answer(self, option: str, prompt: str | None = None) -> list[Effect]:
        """Answer a prompt through chat as the player it is for (the only pending one if
        ``prompt`` is None)."""
        p = self.runtime.world.prompts[prompt] if prompt else self.prompt()
        player = None if p.player == "gm" else p.player
        role = "gm" if p.player == "gm" else "player"
        return await self.chat(f"!answer {p.id} {option}", player=player or self.gm, role=role)

    async def advance(self, seconds: float) -> list[Effect]:
        """Move the clock on; returns the effects of the timeouts that fired."""
        start = len(self.background)
        self.clock.advance(seconds)
        await self.runtime.idle()
        return self.background[start:]

    # -- asserting -----------------------------------------------------------------------------
    def chat_lines(
        self, effects: Iterable[BaseEffect] | None = None, *, whisper_to: str | bool | None = False
    ) -> list[str]:
        """Texts of PostChat effects (all, or only those whispered to ``whisper_to``;
        ``None`` selects public ones)."""
        effs = self.effects if effects is None else effects
        return [
            e.text
            for e in effs
            if isinstance(e, PostChat) and (whisper_to is False or e.whisper_to == whisper_to)
        ]

    def said(
        self,
        fragment: str,
        effects: Iterable[BaseEffect] | None = None,
        *,
        whisper_to: str | bool | None = False,
    ) -> Said:
        """Whether any chat text of ``effects`` (all so far when None) contains ``fragment``,
        case-insensitive (only lines whispered to ``whisper_to`` when given; ``None``: public
        ones). The answer is true or false, and shows the chat when false."""
        effs = list(self.effects if effects is None else effects)
        frag = fragment.lower()
        found = any(frag in t.lower() for t in self.chat_lines(effs, whisper_to=whisper_to))
        chat = tuple((e.whisper_to, e.text) for e in effs if isinstance(e, PostChat))
        return Said(found, fragment, whisper_to, chat)

    @staticmethod
    def of(kind: type[BaseEffect], effects: Iterable[BaseEffect]) -> list[Any]:
        return [e for e in effects if isinstance(e, kind)]

    @staticmethod
    def asks(effects: Iterable[BaseEffect]) -> list[AskPlayer]:
        return [e for e in effects if isinstance(e, AskPlayer)]

    @staticmethod
    def moves(effects: Iterable[BaseEffect]) -> list[UpdateToken]:
        return [e for e in effects if isinstance(e, UpdateToken) and e.cell is not None]

    @staticmethod
    def initiative(effects: Iterable[BaseEffect]) -> dict[str, int]:
        return {e.token: e.ic for e in effects if isinstance(e, SetInitiative)}

    @staticmethod
    def turns(effects: Iterable[BaseEffect]) -> list[tuple[int, str | None]]:
        return [(e.round, e.token) for e in effects if isinstance(e, AdvanceTurn)]

    def __repr__(self) -> str:
        tail = self.chat_lines()[-5:]
        return f"<WorldHarness {self.runtime.world_id}: last chat {tail}>"


__all__ = ["DISPOSITIONS", "Said", "WorldHarness", "cell", "disposition_value"]
