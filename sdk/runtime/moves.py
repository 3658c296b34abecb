"""Moves, regions and watches: a move judged before it is applied (``before_move``), tokens
the runtime moves, the cells a trigger covers, run-time watches.
"""

from __future__ import annotations

from typing import Any

from vttbridge.rules.geometry import Cell
from vttbridge.rules.outcome import Outcome, RuleError
from vttbridge.sdk.context import Context, restore_encounter
from vttbridge.sdk.effects import (
    PostChat,
    UpdateToken,
)
from vttbridge.sdk.events import (
    MoveRefused,
    TokenMoved,
)
from vttbridge.sdk.regions import Region, within
from vttbridge.sdk.script import (
    Script,
)
from vttbridge.sdk.triggers import SPEC_ADAPTER
from vttbridge.sdk.world.model import Watch


class Movement:
    """Judges and applies moves; keeps regions and watches in the trigger index."""

    async def _judge_move(self, ev: TokenMoved) -> list[tuple[Outcome, Script]] | None:
        """Run the ``before_move`` judges on a move not yet applied: the outcomes of those that
        let it through, or None when one refused it (then the world is as it was, the VTT is
        told to put the token back, and a :class:`MoveRefused` follows)."""
        judges = self._move_judges
        if not judges:
            return []
        enc = self.world.encounter
        before = enc.model_dump_json() if len(judges) > 1 else None  # undo an earlier yes
        accepted: list[tuple[Outcome, Script]] = []
        for judge in judges:
            args = (ev, Context(self, judge.script, ev)) if judge.nargs > 1 else (ev,)
            if judge.script.trusted:
                try:
                    out, error = judge.fn(*args), None
                except Exception as e:
                    out, error = None, e
            else:  # a script's judge runs under the watchdog; one stopped lets the move through
                guard = await self._guarded_off(judge, judge.fn, args)
                out, error = guard.result, guard.error
            if isinstance(error, RuleError):
                if before is not None:
                    restore_encounter(enc, before)
                self._refuse_move(ev, error)
                return None
            if error is not None:  # a broken judge lets the move through
                self._report_error(judge, error)
                continue
            if isinstance(out, Outcome):
                accepted.append((out, judge.script))
        return accepted

    def _refuse_move(self, ev: TokenMoved, e: RuleError) -> None:
        w = self.world
        tok = w.tokens[ev.token]
        back = ev.from_cell or tok.cell
        self.emit(UpdateToken(token=tok.id, cell=back, animate=False))
        self.emit(
            PostChat(
                text=f"{tok.display}'s move refused and moved back: {e.message}", whisper_to="gm"
            )
        )
        mover = ev.player or w.player_for(tok.id)
        player = w.players.get(mover)
        if mover != "gm" and (player is None or player.role != "gm"):
            self.emit(PostChat(text=f"Move refused: {e.message}", whisper_to=mover))
        self.derive(
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
        tok = self.world.tokens[token]
        old = old or tok.cell
        self.world.place(token, cell)
        self.index.anchor_moved(token)
        self.emit(UpdateToken(token=token, cell=cell, animate=animate))
        if fire and old != cell:
            self.derive(
                TokenMoved(token=token, from_cell=old, to_cell=cell, path=path, source=source)
            )  # type: ignore[arg-type]

    def grid_changed(self) -> None:
        """The grid's metric changed: the cells within a distance change with it."""
        self.index.grid_changed()

    def set_region(self, region: Region) -> None:
        self.world.regions[region.name] = region
        self.index.region_changed(region.name)

    def _resolve_cells(self, spec: Any) -> frozenset[tuple[int, int]]:
        if spec.kind == "enter":
            if spec.cells is not None:
                return frozenset((c.x, c.y) for c in spec.cells)
            reg = self.world.regions.get(spec.region)
            return reg.xy if reg is not None else frozenset()
        if spec.kind == "within":
            tok = self.world.tokens.get(spec.anchor)
            if tok is None:
                return frozenset()
            return frozenset((c.x, c.y) for c in within(tok.cell, spec.distance, self.world.grid))
        return frozenset()

    def add_watch(
        self,
        key: str,
        spec: Any,
        script: str,
        handler: str,
        data: dict[str, Any],
        owner: str | None = None,
    ) -> Watch:
        if (script, handler) not in self._watch_handlers:
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
        self.world.watches[key] = watch
        self._index_watch(key, watch)
        return watch

    def _index_watch(self, key: str, watch: Watch) -> None:
        spec = SPEC_ADAPTER.validate_python(watch.spec)
        self._watch_tids[key] = self.index.add(spec, owner=f"watch:{key}", watch=key).id

    def remove_watch(self, key: str) -> None:
        self.world.watches.pop(key, None)
        tid = self._watch_tids.pop(key, None)
        if tid is not None:
            self.index.remove(tid)
