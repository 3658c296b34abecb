"""The Roll20 adapter: Mod-sandbox event payloads to domain events, effects to Roll20 calls.

Inbound events are the Roll20 event names the Mod script forwards (``Roll20Adapter.events``); every
command out is one sandbox call the Mod makes: ``sendChat``, ``set`` on a graphic,
``Campaign.set`` of the turn order (merged there with the live order, see
:func:`vttbridge.adapters.roll20.turnorder.merge_turnorder`), plus ``watch`` (which moves the Mod
holds) and ``budget`` (the whisper of what is left of a token's movement after a drag in a fight).

Two things differ from Foundry and shape this module:

- **No echo, no "before" events.** Roll20 fires no event for a change a script makes, so the
  bridge's own writes never come back and need no marking. And there is no ``preUpdate`` hook: a
  move has already happened when ``change:graphic`` fires. For a Ready that intercedes on a move's
  *attempt*, the Mod puts the token back to its ``prev`` position at once and forwards the move
  with ``held: true``; the bridge resolves the Ready, then completes the move with a ``set`` (or
  does not, if the rules stopped it). Players see the token hop back and then go on, where in
  Foundry the move simply waits.
- **Pixels.** ``left``/``top`` are the token's centre; a cell is 70 px x the page's
  ``snapping_increment`` and spans ``scale_number`` units. Change events carry no page, so the
  Mod adds the page's geometry to each token event. Commands that place a token carry the cell
  too, and the Mod converts it with the page's live grid.

Who follows whom: a token that represents a character follows that character's attributes (the
Mod forwards those named ``<statPrefix><stat>``, ``vttb_move`` by default) whether or not a bar
is linked; the bars the Mod's ``bars`` setting maps to stats are the token's own values over the
character's. What the rules change goes back the same way (``setStats``, see
:class:`vttbridge.adapters.roll20.models.SetStatsData`): to the token's bar for that stat when the
bar holds it, else to the character's attribute, but only for the character's own token (a linked
bar, or its only token on the page): five goblins sharing one sheet keep their stress in their
bars, or in the bridge. Conditions show as status markers (``markers.json``), merged into the
token's live ``statusmarkers``.

The adapter keeps no state; what it needs beyond the payload it reads from the world.
"""

from __future__ import annotations

import html
import json
import logging
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel
from vttbridge.adapters.base import (
    Adapter,
    Command,
    Inbound,
    InboundEvent,
    TranslationError,
    check_on_canvas,
    scene_extent,
)
from vttbridge.adapters.roll20.geometry import roll20_cell, roll20_grid, roll20_xy
from vttbridge.rules.characters import Character
from vttbridge.rules.geometry import Cell
from vttbridge.rules.numbers import finite_or_none
from vttbridge.sdk import effects as fx
from vttbridge.sdk import events as ev
from vttbridge.sdk.events import Event, Player
from vttbridge.sdk.world import Token, WorldView

from .models import (
    BAR_NAMES,
    AddGraphic,
    Bars,
    BudgetData,
    CampaignSetData,
    ChangeAttribute,
    ChangeGraphic,
    ChangeTurnorder,
    CharacterObj,
    ChatMessageEvent,
    ChatMsg,
    DestroyGraphic,
    Graphic,
    MarkerPatch,
    ModWatch,
    Page,
    SendChatData,
    SetData,
    SetStatsData,
    Snapshot,
    TurnOrderPatch,
    TurnRow,
    WatchData,
    parse_lastmove,
)
from .turnorder import TurnEntry, TurnOrderError, parse_turnorder, round_counter

log = logging.getLogger(__name__)

SPEAKER = "VTTBridge"
"""``speakingAs`` of the bridge's own chat lines."""
COMMAND = "vttbridge"
"""The Mod's own chat command (``!vttbridge``); never forwarded as a domain command."""
HP = "hp"
DAMAGE_STATS = frozenset({HP, "vitality", "wounds"})
"""Bar meanings whose decrease is damage (:class:`vttbridge.sdk.events.DamageDealt`)."""
_INLINE = re.compile(r"\$\[\[(\d+)\]\]")

OUTBOUND: dict[str, type[BaseModel]] = {
    "sendChat": SendChatData,
    "set": SetData,
    "Campaign.set": CampaignSetData,
    "watch": WatchData,
    "setStats": SetStatsData,
    "budget": BudgetData,
}
MARKERS_ENV = "VTTBRIDGE_ROLL20_MARKERS"


def load_markers(extra: str | None = None) -> dict[str, str]:
    """Condition -> status marker: ``markers.json`` here, then the file ``extra`` names (by
    default ``$VTTBRIDGE_ROLL20_MARKERS``), whose entries win (``null`` drops one)."""
    table: dict[str, str | None] = {}
    extra = os.environ.get(MARKERS_ENV) if extra is None else extra
    for path in [Path(__file__).with_name("markers.json"), *([Path(extra)] if extra else [])]:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            table.update(data.get("markers", {}))
        except (OSError, ValueError, AttributeError) as e:
            log.error("Roll20 markers table %s cannot be read: %s", path, e)
    return {str(c): str(m) for c, m in table.items() if m}


# -- reading the world ---------------------------------------------------------------------------


def _token(world: WorldView, token_id: str | None) -> Token | None:
    return world.tokens.get(token_id) if token_id else None


def _player(world: WorldView, player_id: str | None) -> Player | None:
    return world.players.get(player_id) if player_id else None


def cell_px(world: WorldView, page: Page | None, page_id: str | None = None) -> float:
    """Pixels per cell: the event's page, else the scene the world knows (its grid's
    ``pixels``, as the Foundry adapter also reads it), else Roll20's default of 70."""
    if page is not None:
        return page.cell_px
    scene = world.scenes.get(page_id or world.active_scene or "")
    px = scene.grid.pixels if scene is not None else None
    return float(px) if px is not None and px > 0 else 70.0


def _extent(world: WorldView, page: Page | None, page_id: str | None) -> tuple[float, float] | None:
    """The page's size in px: the event's page, else the scene the world knows."""
    if page is not None:
        return page.extent
    return scene_extent(world, page_id)


def _cell(left: float, top: float, px: float) -> Cell:
    return roll20_cell(left, top, px / 70.0)


def _sub(event_id: str, earlier: list[Any]) -> str:
    """A distinct id for the second and later events one payload produces."""
    return f"{event_id}#{len(earlier)}" if earlier else event_id


def _number(text: Any) -> float | None:
    try:
        v = float(str(text).strip())
    except (TypeError, ValueError):
        return None
    return finite_or_none(v)


STAT_FIELDS = frozenset(Character.model_fields) - {"id", "name"}


def coerce_stat(name: str, value: Any) -> Any:
    """A Roll20 attribute or bar value (always text there) as the Character field wants it:
    ``"25"`` -> 25, ``"12.5"`` -> 12.5, ``"on"``/``"true"`` -> True. Other text stays text."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    low = text.lower()
    if low in ("true", "on", "yes"):
        return True
    if low in ("false", "off", "no", ""):
        return False if name in ("quick_witted", "burrowing") else text
    num = _number(text)
    if num is None:
        return text
    return int(num) if num.is_integer() else num


def pick_stats(raw: dict[str, Any], where: str) -> dict[str, Any]:
    """The entries of ``raw`` that are Character stats, coerced; others are logged and dropped
    (a sheet full of attributes should not make a whole snapshot fail)."""
    out = {}
    for name, value in raw.items():
        key = name.strip().lower()
        if key not in STAT_FIELDS:
            log.debug("Roll20: %s: %r is not a rules stat; ignored", where, name)
            continue
        out[key] = coerce_stat(key, value)
    return out


def _bar_stats(obj: Graphic, bars: Bars) -> dict[str, Any]:
    stats = {}
    for bar, meaning in bars.items():
        if meaning == HP or meaning not in STAT_FIELDS or bar not in BAR_NAMES:
            continue
        value, _ = obj.bar(bar)
        num = _number(value)
        if num is not None:
            stats[meaning] = int(num) if num.is_integer() else num
    return stats


def _owners(
    world: WorldView, controlledby: list[str], players: Mapping[str, Player] | None = None
) -> list[str]:
    """Player ids controlling a token; ``all`` means every non-GM player the world knows."""
    known = players if players is not None else world.players
    out: list[str] = []
    for pid in controlledby:
        if pid == "all":
            out.extend(p for p, v in known.items() if v.role == "player")
        else:
            out.append(pid)
    return list(dict.fromkeys(out))


# -- the adapter ---------------------------------------------------------------------------------


class Roll20Adapter(Adapter):
    """Roll20 through the VTTBridge Mod script and relay, on the ``/roll20`` namespace."""

    name: ClassVar[str] = "roll20"
    version: ClassVar[str] = "1"
    outbound: ClassVar[dict[str, type[BaseModel]]] = OUTBOUND
    companions: ClassVar[dict[str, str]] = {
        "vttbridge-roll20-relay": ">=0.1.0,<0.2.0",
        "VTTBridge": ">=0.1.0,<0.2.0",
    }
    """The relay userscript's and the Mod script's versions this bridge supports (the relay
    says the Mod's as it hears it, with a ``companion`` event)."""

    def __init__(self, markers: dict[str, str] | None = None) -> None:
        self.markers = load_markers() if markers is None else dict(markers)

    # =============================================================================================
    # in
    # =============================================================================================
    # -- snapshot -----------------------------------------------------------------------------
    def _in_snapshot(self, p: Snapshot, world: WorldView) -> list[Event]:
        page = p.page
        px = page.cell_px
        players = {
            pl.id: ev.Player(id=pl.id, name=pl.displayname, role="gm" if pl.isGM else "player")
            for pl in p.players
        }
        chars: dict[str, CharacterObj] = {c.id: c for c in p.characters}
        tokens = []
        for i, g in enumerate(p.graphics):
            if not g.is_token or (page.id and g.pageid and g.pageid != page.id):
                continue
            check_on_canvas(page.extent, g.left, g.top, f"graphics.{i}.", ("left", "top"))
            tokens.append(
                self._token_data(
                    g, px, page.id or None, p.bars, world, chars, players, f"graphics.{i}"
                )
            )
        try:
            rows = parse_turnorder(p.campaign.turnorder)
        except TurnOrderError as e:
            raise TranslationError("bad_turnorder", str(e), "campaign.turnorder") from None
        known = {t.id for t in tokens}
        token_rows = [r for r in rows if not r.is_custom and r.id in known]
        combat = None
        if token_rows:
            counter = round_counter(rows)
            rnd = counter.ic if counter is not None and counter.ic else 1
            current = rows[0].id if not rows[0].is_custom and rows[0].id in known else None
            combat = ev.CombatData(
                round=max(1, rnd), active=current, initiative={r.id: r.ic for r in token_rows}
            )
        scene_extra = {"pixels": px} if "pixels" in ev.SceneData.model_fields else {}
        scene = ev.SceneData(
            id=page.id or "page",
            name=page.name,
            grid=roll20_grid(
                page.scale_number, page.snapping_increment, page.scale_units or "ft", page.metric
            ),
            extent=page.extent,
            **scene_extra,
        )
        actors = [
            ev.ActorData(id=c.id, name=c.name, stats=pick_stats(c.stats, f"characters.{i}"))
            for i, c in enumerate(p.characters)
        ]
        return [
            ev.SceneSnapshot(
                id=p.id,
                scene=scene,
                tokens=tokens,
                combat=combat,
                players=list(players.values()),
                actors=actors,
            )
        ]

    def _token_data(
        self,
        g: Graphic,
        px: float,
        scene: str | None,
        bars: Bars,
        world: WorldView,
        chars: dict[str, CharacterObj] | None = None,
        players: Mapping[str, Player] | None = None,
        where: str = "obj",
    ) -> ev.TokenData:
        control = g.owners
        char = (chars or {}).get(g.represents) if g.represents else None
        if not control and char is not None:
            control = [c.strip() for c in char.controlledby.split(",") if c.strip()]
        owners = _owners(world, control, players)
        gms = {pid for pid, pl in (players or world.players).items() if pl.role == "gm"}
        owners = [o for o in owners if o not in gms]
        try:
            return ev.TokenData(
                id=g.id,
                name=g.name,
                actor=g.represents or None,
                cell=_cell(g.left, g.top, px),
                scene=scene or g.pageid or None,
                # a token that represents a character follows its attributes, linked bar or
                # not (its mapped bars are its own values on top); without one, nothing to follow
                linked=True,
                owners=owners,
                disposition=1 if owners else -1,
                hidden=g.layer == "gmlayer",
                stats=_bar_stats(g, bars),
            )
        except ValueError as e:
            raise TranslationError("bad_payload", str(e), where) from None

    # -- tokens -------------------------------------------------------------------------------
    def _other_page(self, g: Graphic, world: WorldView) -> bool:
        active = world.active_scene
        return bool(active and g.pageid and g.pageid != active)

    def _in_add_graphic(self, p: AddGraphic, world: WorldView) -> list[Event]:
        g = p.obj
        if not g.is_token or self._other_page(g, world) or _token(world, g.id) is not None:
            return []
        px = cell_px(world, p.page, g.pageid)
        check_on_canvas(_extent(world, p.page, g.pageid), g.left, g.top, "obj.", ("left", "top"))
        return [ev.TokenCreated(id=p.id, token=self._token_data(g, px, g.pageid, p.bars, world))]

    def _in_destroy_graphic(self, p: DestroyGraphic, world: WorldView) -> list[Event]:
        if _token(world, p.obj.id) is None:
            return []
        return [ev.TokenRemoved(id=p.id, token=p.obj.id)]

    def _in_change_graphic(self, p: ChangeGraphic, world: WorldView) -> list[Event]:
        g, prev = p.obj, p.prev
        if self._other_page(g, world):
            return []
        px = cell_px(world, p.page, g.pageid)
        extent = _extent(world, p.page, g.pageid)
        check_on_canvas(extent, g.left, g.top, "obj.", ("left", "top"))
        if prev.left is not None or prev.top is not None:
            left, top = prev.left or 0, prev.top or 0
            check_on_canvas(extent, left, top, "prev.", ("left", "top"))
        if _token(world, g.id) is None:
            if not g.is_token:
                return []
            # dropped before the link, or its add was missed: adopt it where it stands
            return [
                ev.TokenCreated(id=p.id, token=self._token_data(g, px, g.pageid, p.bars, world))
            ]
        if not g.is_token:  # moved to the map layer, or turned into a card
            return [ev.TokenRemoved(id=p.id, token=g.id)]
        out: list[Event] = []
        moved = (prev.left is not None and prev.left != g.left) or (
            prev.top is not None and prev.top != g.top
        )
        if moved and p.held:
            # the attempt: the Mod put the token back; the same id pairs the two events for
            # the holds script, which releases the move once the Ready has resolved
            out.append(ev.ActionDeclared(id=p.id, token=g.id, action="move", phase="attempt"))
            out.append(self._moved(p, px, world))
        elif moved:
            out.append(self._moved(p, px, world))
        fields = self._changed_fields(p, world)
        if fields:
            out.append(ev.TokenUpdated(id=_sub(p.id, out), token=g.id, **fields))
        for bar, meaning in p.bars.items():
            if meaning not in DAMAGE_STATS or bar not in BAR_NAMES:
                continue
            before = _number(getattr(prev, f"{bar}_value", None))
            after = _number(g.bar(bar)[0])
            if before is not None and after is not None and after < before:
                amount = before - after
                out.append(
                    ev.DamageDealt(
                        id=_sub(p.id, out),
                        token=g.id,
                        amount=int(amount) if amount.is_integer() else int(amount) + 1,
                        kind=f"roll20:{bar}",
                    )
                )
        return out

    def _moved(self, p: ChangeGraphic, px: float, world: WorldView) -> ev.TokenMoved:
        g, prev = p.obj, p.prev
        end = _cell(g.left, g.top, px)
        start = _cell(
            prev.left if prev.left is not None else g.left,
            prev.top if prev.top is not None else g.top,
            px,
        )
        path: list[Cell] = []
        if g.lastmove and g.lastmove != (prev.lastmove or ""):
            try:
                pts = parse_lastmove(g.lastmove)
            except ValueError:
                raise TranslationError(
                    "bad_lastmove",
                    f"lastmove must be 'x0,y0[,x1,y1...]' in px, not {g.lastmove!r}.",
                    "obj.lastmove",
                ) from None
            extent = _extent(world, p.page, g.pageid)
            for x, y in pts:
                check_on_canvas(extent, x, y, "obj.lastmove", ("", ""))
            cells = [_cell(x, y, px) for x, y in pts]
            if cells and cells[0] == start:
                path = [c for i, c in enumerate(cells) if i == 0 or c != cells[i - 1]]
                if path[-1] != end:
                    path.append(end)
                if len(path) <= 2:
                    path = []  # a straight move: no waypoints to report
        return ev.TokenMoved(id=p.id, token=g.id, to_cell=end, from_cell=start, path=path)

    def _changed_fields(self, p: ChangeGraphic, world: WorldView) -> dict[str, Any]:
        g, prev = p.obj, p.prev
        fields: dict[str, Any] = {}
        if prev.name is not None and prev.name != g.name:
            fields["name"] = g.name
        if prev.layer is not None and prev.layer != g.layer:
            fields["hidden"] = g.layer == "gmlayer"
        if prev.represents is not None and prev.represents != g.represents:
            fields["actor"] = g.represents or None
        if prev.controlledby is not None and prev.controlledby != g.controlledby:
            owners = _owners(world, g.owners)
            gms = {pid for pid, pl in world.players.items() if pl.role == "gm"}
            fields["owners"] = [o for o in owners if o not in gms]
            fields["disposition"] = 1 if fields["owners"] else -1
        stats = {}
        for bar, meaning in p.bars.items():
            if meaning == HP or meaning not in STAT_FIELDS or bar not in BAR_NAMES:
                continue
            before = getattr(prev, f"{bar}_value", None)
            if before is not None and before != g.bar(bar)[0]:
                stats.update(_bar_stats(g, {bar: meaning}))
        if stats:
            fields["stats"] = stats
        return fields

    # -- turn order ---------------------------------------------------------------------------
    def _in_turnorder(self, p: ChangeTurnorder, world: WorldView) -> list[Event]:
        try:
            rows = parse_turnorder(p.obj.turnorder)
        except TurnOrderError as e:
            raise TranslationError("bad_turnorder", str(e), "obj.turnorder") from None
        try:
            before = parse_turnorder(p.prev.turnorder)
        except TurnOrderError as e:
            raise TranslationError("bad_turnorder", str(e), "prev.turnorder") from None
        tokens = world.tokens

        def ours(r: TurnEntry) -> bool:
            return not r.is_custom and (not tokens or r.id in tokens)

        now = {r.id: r for r in rows if ours(r)}
        was = {r.id: r for r in before if ours(r)}
        out: list[Event] = []
        enc = world.encounter
        in_combat = bool(enc.round)
        if now and not was and not in_combat:
            initiative = {tid: r.ic for tid, r in now.items() if r.ic is not None}
            out.append(ev.CombatStarted(id=p.id, tokens=list(now), initiative=initiative))
            return out
        if was and not now:
            if in_combat:
                out.append(ev.CombatEnded(id=p.id))
            return out
        for tid in was:
            if tid not in now and in_combat:  # the GM took its row out of the turn order
                out.append(ev.CombatantRemoved(id=_sub(p.id, out), token=tid))
        for tid, r in now.items():
            old = was.get(tid)
            if r.ic is None:
                continue
            if old is None or old.ic != r.ic:
                out.append(
                    ev.InitiativeChanged(
                        id=_sub(p.id, out),
                        token=tid,
                        ic=r.ic,
                        old=old.ic if old is not None else None,
                        reason="roll20 turn order",
                    )
                )
        cur = rows[0] if rows else None
        old_cur = before[0] if before else None
        counter, old_counter = round_counter(rows), round_counter(before)
        rnd = counter.ic if counter is not None else None
        new_round = None
        if counter is not None and old_counter is not None:
            if rnd is not None and old_counter.ic is not None and rnd > old_counter.ic:
                new_round = rnd
        elif (
            cur is not None
            and old_cur is not None
            and cur.id != old_cur.id
            and ours(cur)
            and ours(old_cur)
            and cur.ic is not None
            and old_cur.ic is not None
            and cur.ic > old_cur.ic
        ):  # no round counter: the count wrapped from low to high
            new_round = int(enc.round or 0) + 1
        if new_round is not None:
            out.append(ev.RoundStarted(id=_sub(p.id, out), round=new_round))
        if cur is not None and ours(cur) and (old_cur is None or cur.id != old_cur.id):
            out.append(
                ev.TurnStarted(
                    id=_sub(p.id, out),
                    token=cur.id,
                    round=new_round if new_round is not None else rnd,
                    ic=cur.ic,
                )
            )
        return out

    # -- chat ---------------------------------------------------------------------------------
    def _in_chat(self, p: ChatMessageEvent, world: WorldView) -> list[Event]:
        msg = p.msg
        player = msg.playerid or None
        role = self._role(p, world)
        token = next((s.id for s in msg.selected if s.type == "graphic"), None)
        if token is not None and _token(world, token) is None:
            token = None  # a selected drawing or a token of another page
        tok = _token(world, token)
        actor = tok.actor if tok is not None else None
        who: dict[str, Any] = {"token": token, "actor": actor, "player": player, "role": role}
        if msg.type in ("rollresult", "gmrollresult"):
            try:
                res = msg.roll_result()
            except ValueError:
                raise TranslationError(
                    "bad_roll",
                    "A rollresult's content must be Roll20's roll JSON.",
                    "msg.content",
                ) from None
            total = f"{res.total:g}"
            text = f"{msg.origRoll} = {total}" if msg.origRoll else f"Roll = {total}"
            return [ev.ChatMessage(id=p.id, text=text, **who)]
        text = substitute_inline_rolls(msg)
        if msg.type == "api":
            cmd = ev.ChatCommand.parse(text, id=p.id, **who)
            if cmd is None or cmd.name == COMMAND:
                return []
            return [cmd]
        text = strip_html(text)
        if not text:
            return []
        return [ev.ChatMessage(id=p.id, text=text, **who)]

    @staticmethod
    def _role(p: ChatMessageEvent, world: WorldView) -> str:
        """GM when the sandbox said so (``playerIsGM``); without that, what the world knows of
        the player. The ``" (GM)"`` suffix of ``who`` is never trusted (a name can hold it)."""
        if p.playerIsGM is not None:
            return "gm" if p.playerIsGM else "player"
        player = _player(world, p.msg.playerid)
        return player.role if player is not None else "player"

    def _in_attribute(self, p: ChangeAttribute, world: WorldView) -> list[Event]:
        stats = pick_stats({p.obj.name: p.obj.current}, "obj")
        if not stats:
            return []
        return [ev.ActorUpdated(id=p.id, actor=p.obj.characterid, stats=stats)]

    events: ClassVar[Mapping[str, InboundEvent[Any]]] = {
        "snapshot": InboundEvent(Snapshot, _in_snapshot),
        "change:graphic": InboundEvent(ChangeGraphic, _in_change_graphic),
        "add:graphic": InboundEvent(AddGraphic, _in_add_graphic),
        "destroy:graphic": InboundEvent(DestroyGraphic, _in_destroy_graphic),
        "change:campaign:turnorder": InboundEvent(ChangeTurnorder, _in_turnorder),
        "chat:message": InboundEvent(ChatMessageEvent, _in_chat),
        "change:attribute": InboundEvent(ChangeAttribute, _in_attribute),
    }
    """The events the Mod forwards, each read with its model and translated by its method."""

    # =============================================================================================
    # out
    # =============================================================================================
    def translate_out(self, effect: fx.Effect, world: WorldView) -> list[Command]:
        match effect:
            case fx.PostChat():
                return [
                    self._chat(escape_chat(effect.text), effect.whisper_to, effect.speaker, world)
                ]
            case fx.AskPlayer():
                return [self._ask(effect, world)]
            case fx.UpdateToken():
                return self._set_token(effect, world)
            case fx.SetInitiative():
                return [self._set_initiative(effect, world)]
            case fx.AdvanceTurn():
                return [self._advance(effect, world)]
            case fx.UpdateStats():
                return [self._set_stats(effect, world)]
            case fx.UpdateConditions():
                return self._markers(effect)
            case fx.MovementBudget():
                return self._budget(effect, world)
            case fx.WatchMoves():
                return [self._watch(effect, world)]
            case fx.ReleaseMove():
                return self._release(effect, world)
        log.warning("Roll20 adapter: no command for effect %s", type(effect).__name__)
        return []

    def _chat(
        self, body: str, whisper_to: str | None, speaker: str | None, world: WorldView
    ) -> Command:
        prefix = ""
        if whisper_to == "gm":
            prefix = "/w gm "
        elif whisper_to is not None:
            player = _player(world, whisper_to)
            name = player.name if player is not None else None
            if name:
                prefix = f'/w "{name.replace(chr(34), "")}" '
            else:
                log.warning("Roll20: no player %r to whisper to; whispering the GM", whisper_to)
                prefix = "/w gm "
                body = f"(for {html.escape(whisper_to)}) {body}"
        elif body.startswith("/"):
            body = "&#47;" + body[1:]
        data = SendChatData(
            speakingAs=_speaking_as(speaker, world),
            message=prefix + body,
            options={"noarchive": False},
        )
        return Command(op="sendChat", data=data.model_dump())

    def _ask(self, a: fx.AskPlayer, world: WorldView) -> Command:
        question = escape_chat(a.question or a.text)
        buttons = " ".join(
            f"[{escape_chat(_label(o, world))}](!answer {a.prompt} {_button_arg(o)})"
            for o in a.options
        )
        wait = f" (default {escape_chat(_label(a.default, world))}" + (
            f" in {a.timeout:g} s)" if a.timeout else ")"
        )
        body = f"{question}<br>{buttons}{wait}"
        return self._chat(body, a.player, None, world)

    def _set_token(self, u: fx.UpdateToken, world: WorldView) -> list[Command]:
        tok = _token(world, u.token)
        attrs: dict[str, Any] = {}
        cell = None
        if u.cell is not None:
            px = cell_px(world, None, tok.scene if tok is not None else None)
            left, top = roll20_xy(u.cell, px / 70.0)
            attrs["left"], attrs["top"] = _px(left), _px(top)
            cell = {"x": u.cell.x, "y": u.cell.y}
        for key, value in u.fields.items():
            if key == "name":
                attrs["name"] = str(value)
            elif key == "hidden":
                attrs["layer"] = "gmlayer" if value else "objects"
            elif key == "owners":
                attrs["controlledby"] = ",".join(value or [])
            else:
                log.warning("Roll20 adapter: token field %r is not written to Roll20", key)
        if not attrs:
            return []
        data = SetData(id=u.token, attrs=attrs, cell=cell)
        return [Command(op="set", data=data.model_dump(exclude_none=True))]

    def _set_stats(self, u: fx.UpdateStats, world: WorldView) -> Command:
        """The rules' changes to a token's stats; the Mod writes each to the bar its ``bars``
        setting maps to the stat, else to the character's ``<statPrefix><stat>`` attribute."""
        data = SetStatsData(token=u.token, character=_actor_of(world, u.token), stats=u.stats)
        return Command(op="setStats", data=data.model_dump())

    def _markers(self, u: fx.UpdateConditions) -> list[Command]:
        """The token's conditions as status markers, merged into the live ones (a marker the
        GM put there for something else stays, unless a condition it shows ended)."""
        add = list(dict.fromkeys(self.markers[c] for c in u.conditions if c in self.markers))
        remove = [
            m
            for m in dict.fromkeys(self.markers[c] for c in u.removed if c in self.markers)
            if m not in add
        ]
        if not add and not remove:
            return []
        data = SetData(id=u.token, markers=MarkerPatch(add=add, remove=remove))
        return [Command(op="set", data=data.model_dump(exclude_none=True))]

    def _set_initiative(self, s: fx.SetInitiative, world: WorldView) -> Command:
        page = _page_of(world, s.token)
        patch = TurnOrderPatch(
            set=[TurnRow(id=s.token, pr=s.ic, pageid=page)], order=_acting_order(world)
        )
        return _campaign_set(patch)

    def _advance(self, a: fx.AdvanceTurn, world: WorldView) -> Command:
        if a.round == 0 and a.token is None:  # the combat ended: drop the bridge's rows only
            enc = world.encounter
            ours = set(world.tokens.keys()) | set(enc.combatants.keys())
            return _campaign_set(TurnOrderPatch(remove=sorted(ours)))
        rows = []
        if a.token is not None and a.ic is not None:
            page = _page_of(world, a.token)
            rows.append(TurnRow(id=a.token, pr=a.ic, pageid=page))
        patch = TurnOrderPatch(
            set=rows, order=_acting_order(world), current=a.token, round=a.round or None
        )
        return _campaign_set(patch)

    def _budget(self, b: fx.MovementBudget, world: WorldView) -> list[Command]:
        """After an accepted drag in a fight (``cause`` move), whisper the mover what is left;
        a budget that changed for any other reason (a turn, an action) is not told: Roll20 has
        no ruler to show it on, and the rules' chat already says what an action did."""
        if b.cause != "move" or b.budget is None or not b.budget.turn:
            return []
        tok = _token(world, b.token)
        name = (tok.name if tok is not None else "") or b.token
        units = world.encounter.grid.units or "ft"
        text = budget_text(name, b.budget, units)
        chat = self._chat(escape_chat(text), b.player or "gm", None, world)
        data = BudgetData(
            token=b.token,
            speakingAs=chat.data["speakingAs"],
            message=chat.data["message"],
            left=b.budget.left,
            walk=b.budget.walk,
            run=b.budget.run,
            sneak=b.budget.sneak,
        )
        return [Command(op="budget", data=data.model_dump())]

    def _watch(self, effect: fx.WatchMoves, world: WorldView) -> Command:
        """The built-in holds script's watch set (``watch_moves``, see
        :mod:`vttbridge.sdk.holds`) as the Mod's ``watch`` command."""
        watches = []
        for w in effect.watches:
            cells = w.cells
            watches.append(
                ModWatch(
                    cells=None if cells is None else [(int(c[0]), int(c[1])) for c in cells],
                    token=w.token,
                    exclude=w.exclude,
                )
            )
        data = WatchData(page=effect.scene, watches=watches, max_hold_ms=effect.max_hold_ms)
        return Command(op="watch", data=data.model_dump())

    def _release(self, effect: fx.ReleaseMove, world: WorldView) -> list[Command]:
        """End a held move (``release_move``): put the token where the rules left it; the
        Mod restores the move's path when that is where the player dragged it."""
        cell = effect.cell
        token = effect.token
        if cell is None or token is None:
            return []
        cmds = self._set_token(fx.UpdateToken(token=token, cell=cell, animate=False), world)
        for c in cmds:
            c.data["release"] = effect.hold
        return cmds


# -- helpers ---------------------------------------------------------------------------------------


def _campaign_set(patch: TurnOrderPatch) -> Command:
    data = CampaignSetData(merge=patch)
    return Command(op="Campaign.set", data=data.model_dump(exclude_none=True, by_alias=True))


def _actor_of(world: WorldView, token: str) -> str | None:
    tok = _token(world, token)
    return (tok.actor if tok is not None else None) or None


def _page_of(world: WorldView, token: str | None) -> str | None:
    """The page a token is on, else the world's active one."""
    tok = _token(world, token)
    return (tok.scene if tok is not None else None) or world.active_scene


def _acting_order(world: WorldView) -> list[str] | None:
    try:
        return list(world.encounter.order())
    except Exception as e:  # an encounter mid-change: leave the order as it is
        log.debug("Roll20: no acting order (%s)", e)
        return None


def _px(v: float) -> int | float:
    return int(v) if float(v).is_integer() else v


def budget_text(name: str, b: Any, units: str = "ft") -> str:
    """``Mint: 15 ft left walking (one action), 65 ft running.``: a movement budget in words."""

    def ft(v: float) -> str:
        return f"{v:g} {units}"

    if b.sneak is not None:
        return f"{name}: {ft(b.sneak)} of sneak movement left this turn."
    if b.left <= 0:
        return f"{name} has no movement left this turn."
    parts = []
    if b.walk:
        parts.append(f"{ft(b.walk)} left walking (one action)")
    if b.run:
        parts.append(f"{ft(b.run)} running (both actions)")
    if not parts:
        parts.append(f"{ft(b.left)} left")
    return f"{name}: {', '.join(parts)} this turn."


def _speaking_as(speaker: str | None, world: WorldView) -> str:
    if speaker is None:
        return SPEAKER
    tok = _token(world, speaker)
    if tok is None:
        return speaker
    if tok.actor:
        return f"character|{tok.actor}"
    return tok.name or SPEAKER


_CHAT_ESCAPES = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    "[": "&#91;",
    "]": "&#93;",
    "{": "&#123;",
    "}": "&#125;",
    "@": "&#64;",
    "%": "&#37;",
    "#": "&#35;",
    "|": "&#124;",
}
_CHAT_RE = re.compile("[" + re.escape("".join(_CHAT_ESCAPES)) + "]")


def escape_chat(text: str) -> str:
    """Our plain sentence as Roll20 chat HTML: HTML escaped, and the characters Roll20 would
    expand (``[[inline rolls]]``, ``{{template}}``, ``@{attr}``, ``%{ability}``, ``#macro``,
    ``[button](!cmd)``) turned into entities; line breaks become ``<br>``."""
    esc = _CHAT_RE.sub(lambda m: _CHAT_ESCAPES[m.group()], text)
    return esc.replace("\r\n", "\n").replace("\n", "<br>")


def _label(option: str, world: WorldView) -> str:
    """A button's label: the token's name when the option is a token id."""
    tok = _token(world, option)
    return (tok.name if tok is not None else "") or option


def _button_arg(option: str) -> str:
    """An option inside an API button's ``(!answer ...)``: quoted when it has spaces; the
    characters that would end the button are entities (Roll20 decodes them on click)."""
    arg = option.replace('"', "")
    arg = arg.replace(")", "&#41;").replace("(", "&#40;").replace("]", "&#93;")
    return f'"{arg}"' if " " in arg else arg


def substitute_inline_rolls(msg: ChatMsg) -> str:
    """``$[[k]]`` placeholders of an ``api`` message replaced by the inline rolls' totals, as
    TokenMod does (``19``, ``12.5``)."""

    def total(m: re.Match[str]) -> str:
        k = int(m.group(1))
        if k >= len(msg.inlinerolls):
            raise TranslationError(
                "bad_inline_roll",
                f"The message refers to inline roll {k}, but has {len(msg.inlinerolls)}.",
                "msg.inlinerolls",
            )
        t = msg.inlinerolls[k].results.total
        return f"{t:g}"

    return _INLINE.sub(total, msg.content)


_TAG = re.compile(r"<[^>]*>")


def strip_html(text: str) -> str:
    """The text a reader sees of a chat line (Roll20 sends a little HTML: ``<br>``, spans)."""
    text = re.sub(r"<br\s*/?>", "\n", text, flags=re.IGNORECASE)
    return html.unescape(_TAG.sub("", text)).strip()


__all__ = [
    "INBOUND",
    "OUTBOUND",
    "Roll20Adapter",
    "budget_text",
    "coerce_stat",
    "escape_chat",
    "substitute_inline_rolls",
]


INBOUND: Mapping[str, type[Inbound]] = Roll20Adapter.inbound
"""The payload model of each event the Mod forwards (made from ``Roll20Adapter.events``)."""
