"""Moves, regions and watches: a move judged before it is applied (``before_move``), tokens
the runtime moves, the cells a trigger covers, run-time watches.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from vttbridge.rules.geometry import Cell
from vttbridge.rules.outcome import Outcome, RuleError
from vttbridge.sdk.context import Context, WorldAccess, restore_encounter
from vttbridge.sdk.effects import (
    UpdateToken,
)
from vttbridge.sdk.events import (
    MoveRefused,
    TokenMoved,
)
from vttbridge.sdk.regions import Region, within
from vttbridge.sdk.runtime.refusals import Refusals
from vttbridge.sdk.runtime.registry import Registry
from vttbridge.sdk.runtime.step import CurrentStep
from vttbridge.sdk.runtime.supervisor import Supervisor
from vttbridge.sdk.script import (
    Script,
)
from vttbridge.sdk.triggers import SPEC_ADAPTER, TriggerIndex
from vttbridge.sdk.world.model import Watch, World


class Movement:
    """Judges and applies moves; keeps regions and watches in the trigger index, which it
    owns."""

    def __init__(
        self,
        world: World,
        step: CurrentStep,
        registry: Registry,
        supervisor: Supervisor,
        refusals: Refusals,
        access: WorldAccess,
        index: type[TriggerIndex] = TriggerIndex,
    ) -> None:
        self._world = world
        self._step = step
        self._registry = registry
        self._supervisor = supervisor
        self._refusals = refusals
        self._access = access
        self.index: TriggerIndex = index(partial(_cells_of, world), partial(_levels_of, world))
        self._watch_tids: dict[str, int] = {}

    async def judge(self, ev: TokenMoved) -> list[tuple[Outcome, Script]] | None:
        """Run the ``before_move`` judges on a move not yet applied: the outcomes of those that
        let it through, or None when one refused it (then the world is as it was, the VTT is
        told to put the token back, and a :class:`MoveRefused` follows)."""
        enc = self._world.encounter
        judges = self._registry.move_judges(enc.options.system)  # not another system's
        if not judges:
            return []
        before = enc.model_dump_json() if len(judges) > 1 else None  # undo an earlier yes
        accepted: list[tuple[Outcome, Script]] = []
        error: Exception | None = None
        try:
            for judge in judges:
                args = (ev, Context(self._access, judge.script, ev)) if judge.nargs > 1 else (ev,)
                if judge.script.trusted:
                    try:
                        out, error = judge.fn(*args), None
                    except Exception as e:
                        out, error = None, e
                else:  # a script's judge runs under the watchdog; one stopped lets it through
                    guard = await self._supervisor.guarded_off(judge, judge.fn, args)
                    out, error = guard.result, guard.take_error()
                if isinstance(error, RuleError):
                    if before is not None:
                        restore_encounter(enc, before)
                    self._refuse(ev, error)  # its citation is read from its traceback
                    return None
                if error is not None:  # a broken judge lets the move through
                    self._supervisor.report_error(judge, error)
                    continue
                if isinstance(out, Outcome):
                    accepted.append((out, judge.script))
            return accepted
        finally:
            # A caught error's traceback leads back to this frame, which holds the error: a
            # reference cycle (ten objects, frames among them) at every refused move, left
            # for the collector unless let go here.
            error = None

    def _refuse(self, ev: TokenMoved, e: RuleError) -> None:
        w = self._world
        tok = w.tokens[ev.token]
        back = ev.from_cell or tok.cell
        self._step.emit(UpdateToken(token=tok.id, cell=back, animate=False))
        mover = ev.player or w.player_for(tok.id)
        player = w.players.get(mover)
        to_player = mover != "gm" and (player is None or player.role != "gm")
        refusal = self._refusals.note(e, mover if to_player else "gm")
        self._refusals.emit(
            f"{tok.display}'s move refused and moved back: {e.message}", "gm", refusal
        )
        if to_player:
            self._refusals.emit(f"Move refused: {e.message}", mover, refusal)
        self._step.derive(
            MoveRefused(
                id=ev.id,
                token=tok.id,
                to_cell=ev.to_cell,
                from_cell=ev.from_cell,
                path=ev.path,
                player=ev.player,
                code=e.code,
                reason=e.message,
                source="runtime",
            )
        )

    def move_token(
        self,
        token: str,
        cell: Cell,
        path: list[Cell],
        *,
        animate: bool,
        fire: bool,
        source: str,
        old: Cell | None = None,
    ) -> None:
        tok = self._world.tokens[token]
        old = old or tok.cell
        self._world.place(token, cell)
        self.index.anchor_moved(token)
        self._step.emit(UpdateToken(token=token, cell=cell, animate=animate))
        if fire and old != cell:
            self._step.derive(
                TokenMoved(token=token, from_cell=old, to_cell=cell, path=path, source=source)
            )

    def grid_changed(self) -> None:
        """The grid's metric changed: the cells within a distance change with it."""
        self.index.grid_changed()

    def set_region(self, region: Region) -> None:
        self._world.regions[region.name] = region
        self.index.region_changed(region.name)

    def add_watch(
        self,
        key: str,
        spec: Any,
        script: str,
        handler: str,
        data: dict[str, Any],
        owner: str | None = None,
    ) -> Watch:
        if self._registry.watch_handler(script, handler) is None:
            raise ValueError(f"script {script} has no watch_handler {handler!r}")
        self.remove_watch(key)
        watch = Watch(
            key=key,
            script=script,
            handler=handler,
            spec=spec.model_dump(mode="json"),
            data=data,
            owner=owner,
        )
        self._world.watches[key] = watch
        self._index(key, watch)
        return watch

    def index_watches(self) -> None:
        """Put the watches the world holds (a restored one's) in the index."""
        for key, w in self._world.watches.items():
            self._index(key, w)

    def _index(self, key: str, watch: Watch) -> None:
        spec = SPEC_ADAPTER.validate_python(watch.spec)
        self._watch_tids[key] = self.index.add(spec, owner=f"watch:{key}", watch=key).id

    def remove_watch(self, key: str) -> None:
        self._world.watches.pop(key, None)
        tid = self._watch_tids.pop(key, None)
        if tid is not None:
            self.index.remove(tid)


# The index's resolvers read the world, not the Movement that owns the index: a world's parts
# refer to nothing that holds them, so a world put to sleep is freed at once, without waiting
# for the collector.
def _cells_of(world: World, spec: Any) -> frozenset[tuple[int, int]]:
    """The cells a position trigger's ``spec`` covers now."""
    if spec.kind == "enter":
        if spec.cells is not None:
            return frozenset((c.x, c.y) for c in spec.cells)
        reg = world.regions.get(spec.region)
        return reg.xy if reg is not None else frozenset()
    if spec.kind == "within":
        tok = world.tokens.get(spec.anchor)
        if tok is None:
            return frozenset()
        return frozenset((c.x, c.y) for c in within(tok.cell, spec.distance, world.grid))
    return frozenset()


def _levels_of(world: World, spec: Any) -> frozenset[str] | None:
    """The levels a position trigger's cells are on (None: every level): the one its spec
    names, else its region's, else its anchor's."""
    if spec.kind == "enter":
        if spec.level is not None:
            return frozenset((spec.level,))
        reg = world.regions.get(spec.region) if spec.region is not None else None
        return frozenset(reg.levels) if reg is not None and reg.levels else None
    if spec.kind == "within":
        tok = world.tokens.get(spec.anchor)
        return frozenset((tok.level,)) if tok is not None and tok.level else None
    return None
