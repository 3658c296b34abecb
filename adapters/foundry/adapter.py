"""The Foundry VTT adapter: Foundry hook payloads to domain events, effects to Foundry calls.

Inbound events are the hook names the companion module forwards (``FoundryAdapter.events``);
every
command out is one Foundry call the module makes (``ChatMessage.create``, ``Token.update``,
``Combatant.update``, ``Combat.update``, ``Combat.delete``, ``Scene.update``, ``Actor.update``,
``Actor.toggleStatusEffect``).

A token's movement budget this turn (:class:`vttbridge.sdk.effects.MovementBudget`) is written to
the token as ``flags.vttbridge.budget`` (``Token.update``): Foundry shares a document's flags with
every client, so each player's Token Ruler colours a drag by it without asking the bridge.

What the rules change on a character goes back to its sheet through the same per-system table
that read it (:mod:`vttbridge.adapters.foundry.systems`): ``Actor.update`` at the path each stat
was read
from (the snapshot records them in the actor's and token's ``vtt`` data), of the world actor for
a linked token and of the token's synthetic actor (its delta) for an unlinked one. The conditions
the rules put on a character show as the token's status effects, mapped in the same table.

Our own writes are marked so the module does not send them back as new events: chat messages
carry ``flags.vttbridge``, every update carries ``options.vttbridge`` (the module makes every
write from the GM client, where Foundry hands the update's options to its own hooks). The
module drops the hooks of those writes, so their echo never reaches the bridge.

The adapter keeps no state: what it needs beyond the payload it reads from the world (the
scene's pixel grid size, token sizes, who is a GM), with Foundry's defaults when the world does
not know (100 px cells, 1 x 1 tokens).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
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
from vttbridge.rules import systems as game_systems
from vttbridge.rules.characters import RULES_OWNED
from vttbridge.rules.conditions import Duration
from vttbridge.rules.geometry import Cell, Grid
from vttbridge.sdk import effects as fx
from vttbridge.sdk import events as ev
from vttbridge.sdk import holds
from vttbridge.sdk.events import Event
from vttbridge.sdk.world import Token, WorldView

from .geometry import foundry_xy, path_legs, region_cells, token_cell
from .models import (
    OUTBOUND,
    Answer,
    CombatTurnChange,
    CreateChatMessage,
    CreateCombatant,
    DeleteCombat,
    DeleteCombatant,
    FActor,
    FCombat,
    FCombatant,
    FRoll,
    FToken,
    Point,
    PreUpdateTokenHook,
    Snapshot,
    UpdateActor,
    UpdateCombat,
    UpdateCombatant,
    UpdateTokenHook,
)
from .systems import map_actor, tables, write_value
from .text import link_cites, strip_html, to_html

log = logging.getLogger(__name__)

FLAG = "vttbridge"
"""The flag scope and option key that mark our own writes."""
DEFAULT_GRID_PX = 100
BRIDGE_ALIAS = "vttbridge"
TOKEN_FIELDS = {"name": "name", "hidden": "hidden", "disposition": "disposition"}
"""``UpdateToken.fields`` the adapter writes to the token document, by Foundry key."""


def ic_of(initiative: float | None) -> int | None:
    """Foundry initiative (a float: systems add tie-break decimals) as an Initiative Count."""
    if initiative is None or not math.isfinite(initiative):
        return None
    return math.floor(initiative)


def roll_text(roll: FRoll) -> str:
    """``1d20 + 4 = 19 (d20: 15)``: a roll as one chat line."""
    dice = ", ".join(f"d{d.faces}: {' '.join(map(str, d.results)) or '-'}" for d in roll.dice())
    total = "?" if roll.total is None else f"{roll.total:g}"
    return f"{roll.formula} = {total}" + (f" ({dice})" if dice else "")


# -- reading the world ---------------------------------------------------------------------------


def grid_px(world: WorldView, scene_id: str | None) -> float:
    """Pixels per cell of a scene the world knows (its ``grid.pixels``), else Foundry's 100."""
    scene = world.scenes.get(scene_id or world.active_scene or "")
    px = (scene.grid if scene is not None else world.grid).pixels
    return float(px) if px is not None and px > 0 else float(DEFAULT_GRID_PX)


def _token_size(tok: Token | None) -> tuple[float, float]:
    vtt = tok.vtt if tok is not None else {}
    return float(vtt.get("width", 1) or 1), float(vtt.get("height", 1) or 1)


def _role(world: WorldView, user_id: str | None) -> str:
    player = world.players.get(user_id) if user_id else None
    return player.role if player is not None else "player"


def _gm_ids(world: WorldView) -> list[str]:
    return [pid for pid, p in world.players.items() if p.role == "gm"]


# -- the adapter ---------------------------------------------------------------------------------


class FoundryAdapter(Adapter):
    """Foundry VTT v11-v14, served on the ``/foundry`` namespace."""

    name: ClassVar[str] = "foundry"
    version: ClassVar[str] = "1"
    outbound: ClassVar[dict[str, type[BaseModel]]] = OUTBOUND
    companions: ClassVar[dict[str, str]] = {"vttbridge-foundry": ">=0.1.0,<0.2.0"}
    """The companion module's versions this bridge supports (``module.json`` ``version``)."""

    # -- in ---------------------------------------------------------------------------------
    def _in_snapshot(self, p: Snapshot, world: WorldView) -> list[Event]:
        size = p.scene.grid.size
        gms = {u.id for u in p.users if u.vtt_role == "gm"}
        actors = {a.id: a for a in p.actors}
        dims = p.scene.dimensions
        extent = (dims.width, dims.height) if dims is not None else None
        tokens = []
        for i, t in enumerate(p.tokens):
            check_on_canvas(extent, t.x, t.y, f"tokens.{i}.", ("x", "y"))
            actor = actors.get(t.actorId or "")
            owners = [u for u in actor.owners() if u not in gms] if actor else []
            paths: dict[str, dict[str, Any]] = {}
            stats = map_actor(t.delta, p.systemId, paths) if t.delta and not t.actorLink else {}
            try:
                tokens.append(
                    ev.TokenData(
                        id=t.id,
                        name=t.name,
                        actor=t.actorId,
                        cell=token_cell(t, size),
                        scene=p.scene.id,
                        linked=t.actorLink,
                        owners=owners,
                        disposition=max(-1, min(1, t.disposition)),
                        hidden=t.hidden,
                        level=t.level,
                        stats=stats,
                        vtt=_token_vtt(t, p.systemId, paths),
                    )
                )
            except ValueError as e:
                raise TranslationError("bad_payload", str(e), f"tokens.{i}") from None
        regions = {}
        region_levels = {}
        for i, r in enumerate(p.regions):
            regions[r.name or r.id] = region_cells(r, size, f"regions.{i}")
            if r.levels:
                region_levels[r.name or r.id] = list(r.levels)
        snap = ev.SceneSnapshot(
            id=p.id,
            scene=ev.SceneData(
                id=p.scene.id,
                name=p.scene.name,
                grid=Grid(distance=p.scene.grid.distance, units=p.scene.grid.units, pixels=size),
                extent=extent,
            ),
            tokens=tokens,
            combat=_combat_data(p.combat) if p.combat else None,
            players=[ev.Player(id=u.id, name=u.name, role=u.vtt_role) for u in p.users],
            actors=[_actor_data(a, p.systemId) for a in p.actors],
            regions=regions,
            region_levels=region_levels,
        )
        return [snap]

    def _in_updateToken(self, p: UpdateTokenHook, world: WorldView) -> list[Event]:
        size = p.grid.size if p.grid else grid_px(world, p.sceneId)
        out: list[Event] = []
        ch = p.changes
        if "x" in ch or "y" in ch or "level" in ch:  # v14: a level is part of the position
            out.append(self._moved(p, world, size, before=p.origin))
        fields: dict[str, Any] = {}
        for key in ("name", "hidden", "disposition"):
            if key in ch:
                fields[key] = getattr(p.token, key)
        if "disposition" in fields:
            fields["disposition"] = max(-1, min(1, fields["disposition"]))
        if "actorId" in ch:
            fields["actor"] = p.token.actorId
        delta = ch.get("delta") or ch.get("actorData")
        damage: list[Event] = []
        if isinstance(delta, dict) and not p.token.actorLink:
            stats = map_actor(delta, p.systemId)
            if stats:
                fields["stats"] = stats
                damage = _damage(p.id, world, [p.token.id], stats)
        if fields:
            out.append(ev.TokenUpdated(id=p.id, token=p.token.id, **fields))
        return out + damage

    def _in_preUpdateToken(self, p: PreUpdateTokenHook, world: WorldView) -> list[Event]:
        """A held move: the attempt, reported before Foundry commits it. The runtime sees the
        move now; the module completes it when the bridge answers (see
        :mod:`vttbridge.sdk.holds`)."""
        if "x" not in p.changes and "y" not in p.changes:
            return []
        if not world.settings.hold_moves:
            # nobody would release it: the module lets the move through at once
            raise TranslationError(
                "not_holding",
                "This world does not hold moves (its setting hold_moves is off); the move "
                "goes through.",
            )
        size = p.grid.size if p.grid else grid_px(world, p.sceneId)
        move = self._moved(p, world, size, before=None, attempt=True)
        declared = ev.ActionDeclared(
            id=p.id, token=p.token.id, action=holds.MOVE_ACTION, phase="attempt", player=p.userId
        )
        return [declared, move]

    def _moved(
        self,
        p: UpdateTokenHook,
        world: WorldView,
        size: float,
        before: Point | None,
        attempt: bool = False,
    ) -> ev.TokenMoved:
        tok = p.token
        extent = scene_extent(world, p.sceneId)
        if extent is not None:
            _on_canvas(extent, p, attempt)
        origin: Point | None = before
        start: Cell | None
        if attempt:  # ``token`` is the document before the move, ``changes`` the move
            start = token_cell(tok, size)
            end = token_cell(tok, size, p.changes.get("x"), p.changes.get("y"))
            origin = Point(x=tok.x, y=tok.y, level=tok.level, elevation=tok.elevation)
            last = p.waypoints[-1] if p.waypoints else None
            tok = tok.model_copy(
                update={
                    "x": p.changes.get("x", tok.x),
                    "y": p.changes.get("y", tok.y),
                    "level": p.changes.get("level") or (last and last.level) or tok.level,
                    "elevation": p.changes.get("elevation", tok.elevation),
                }
            )
        else:  # ``token`` is the document after the move
            end = token_cell(tok, size)
            # with no origin the runtime starts the move where the world has the token
            start = token_cell(tok, size, before.x, before.y) if before is not None else None
        path: list[Cell] = []
        actions: list[str] = []
        levels: list[str | None] = []
        climb = 0.0
        if p.waypoints or (tok.level and start is not None):
            legs = path_legs(tok, size, start, end, p.waypoints, origin)
            path, actions, climb = legs.cells, legs.actions, legs.climb
            levels = legs.levels if start is not None else []
            if all(a == "walk" for a in actions):
                actions = []  # the default: every leg walked
        return ev.TokenMoved(
            id=p.id,
            token=tok.id,
            to_cell=end,
            from_cell=start,
            path=path,
            player=p.userId,
            actions=actions,
            levels=levels,
            climb=climb,
        )

    def _in_answer(self, p: Answer, world: WorldView) -> list[Event]:
        return [ev.PromptAnswered(id=p.id, prompt=p.prompt, option=p.option, player=p.userId)]

    def _in_createChatMessage(self, p: CreateChatMessage, world: WorldView) -> list[Event]:
        msg = p.message
        text = strip_html(msg.content)
        if not text and msg.rolls:
            label = strip_html(msg.flavor or "") or "Roll"
            text = "; ".join(f"{label}: {roll_text(r)}" for r in msg.rolls)
        if not text:
            return []
        player = msg.author_id or p.userId
        who = {
            "token": msg.speaker.token,
            "actor": msg.speaker.actor,
            "player": player,
            "role": _role(world, player),
        }
        # a line starting with "!" becomes a ChatCommand in the runtime
        return [ev.ChatMessage(id=p.id, text=text, **who)]

    def _in_updateCombat(self, p: UpdateCombat, world: WorldView) -> list[Event]:
        ch = p.changes
        if "round" not in ch and "turn" not in ch:
            return []
        combat = p.combat
        prior_round = p.prior.round if p.prior and p.prior.round is not None else None
        if combat.round == 0:
            return []  # not started (or rewound before the start)
        if combat.round == 1 and (prior_round in (None, 0)) and "round" in ch:
            data = _combat_data(combat)
            return [
                ev.CombatStarted(
                    id=p.id,
                    tokens=list(data.initiative),
                    initiative={k: v for k, v in data.initiative.items() if v is not None},
                )
            ]
        return _turn_events(p.id, combat, combat.round, combat.current(), prior_round, world)

    def _in_combatTurnChange(self, p: CombatTurnChange, world: WorldView) -> list[Event]:
        cur = p.current
        combatant = p.combat.by_id(cur.combatantId)
        if combatant is None and cur.turn is not None:
            order = p.combat.ordered()
            combatant = order[cur.turn] if 0 <= cur.turn < len(order) else None
        rnd = cur.round if cur.round is not None else p.combat.round
        prior_round = p.prior.round if p.prior else None
        events = _turn_events(p.id, p.combat, rnd, combatant, prior_round, world)
        if combatant is None and cur.tokenId and events:
            update: dict[str, Any] = {"token": cur.tokenId}
            if not _on_scene(world, cur.tokenId):
                update = {"token": None, "skipped": cur.tokenId}
            events[-1] = events[-1].model_copy(update=update)
        return events

    def _in_deleteCombat(self, p: DeleteCombat, world: WorldView) -> list[Event]:
        return [ev.CombatEnded(id=p.id)]

    def _in_createCombatant(self, p: CreateCombatant, world: WorldView) -> list[Event]:
        return self._initiative(p.id, p.combatant)

    def _in_updateCombatant(self, p: UpdateCombatant, world: WorldView) -> list[Event]:
        if "initiative" not in p.changes:
            return []
        return self._initiative(p.id, p.combatant)

    def _initiative(self, event_id: str, c: FCombatant) -> list[Event]:
        ic = ic_of(c.initiative)
        if ic is None:
            return []  # joined without a roll yet: the IC arrives with the roll
        if not c.tokenId:
            raise TranslationError(
                "no_token", f"Combatant {c.name or c.id} has no token.", "combatant.tokenId"
            )
        return [ev.InitiativeChanged(id=event_id, token=c.tokenId, ic=ic, reason="set in Foundry")]

    def _in_deleteCombatant(self, p: DeleteCombatant, world: WorldView) -> list[Event]:
        token = p.combatant.tokenId
        if not token or token not in world.tokens:
            return []  # its token went first (deleteToken already took it out)
        return [ev.CombatantRemoved(id=p.id, token=token)]

    def _in_updateActor(self, p: UpdateActor, world: WorldView) -> list[Event]:
        actor_id, token_id = _actor_target(p)
        if actor_id is None and token_id is None:
            raise TranslationError("missing_field", "updateActor names no actor.", "actorUuid")
        stats = map_actor(p.changes, p.systemId)
        name = p.changes.get("name") if isinstance(p.changes.get("name"), str) else None
        if token_id is not None:  # the synthetic actor of an unlinked token
            if not stats:
                return []
            token_updated = ev.TokenUpdated(id=p.id, token=token_id, stats=stats)
            return [token_updated, *_damage(p.id, world, [token_id], stats)]
        if not stats and name is None:
            return []
        linked = [tid for tid, tok in world.tokens.items() if tok.actor == actor_id and tok.linked]
        updated = ev.ActorUpdated(id=p.id, actor=actor_id, name=name, stats=stats)
        return [updated, *_damage(p.id, world, linked, stats)]

    events: ClassVar[Mapping[str, InboundEvent[Any]]] = {
        "snapshot": InboundEvent(Snapshot, _in_snapshot),
        "updateToken": InboundEvent(UpdateTokenHook, _in_updateToken),
        "preUpdateToken": InboundEvent(PreUpdateTokenHook, _in_preUpdateToken),
        "createChatMessage": InboundEvent(CreateChatMessage, _in_createChatMessage),
        "updateCombat": InboundEvent(UpdateCombat, _in_updateCombat),
        "combatTurnChange": InboundEvent(CombatTurnChange, _in_combatTurnChange),
        "deleteCombat": InboundEvent(DeleteCombat, _in_deleteCombat),
        "createCombatant": InboundEvent(CreateCombatant, _in_createCombatant),
        "updateCombatant": InboundEvent(UpdateCombatant, _in_updateCombatant),
        "deleteCombatant": InboundEvent(DeleteCombatant, _in_deleteCombatant),
        "updateActor": InboundEvent(UpdateActor, _in_updateActor),
        "answer": InboundEvent(Answer, _in_answer),
    }
    """The hooks the module forwards, each read with its model and translated by its method."""

    # -- out --------------------------------------------------------------------------------
    def translate_out(self, effect: fx.Effect, world: WorldView) -> list[Command]:
        match effect:
            case fx.PostChat():
                e = effect  # the rules cited are links to their sections
                linked = link_cites(to_html(e.text), e.cites) if e.cites else None
                return [self._chat(e.text, e.whisper_to, e.speaker, world, html=linked)]
            case fx.AskPlayer():
                return [self._ask(effect, world)]
            case fx.UpdateToken():
                return self._token_update(effect, world)
            case fx.SetInitiative():
                return [self._set_initiative(effect)]
            case fx.AdvanceTurn():
                return [self._advance(effect, world)]
            case fx.UpdateStats():
                return self._actor_update(effect, world)
            case fx.UpdateConditions():
                return self._statuses(effect, world)
            case fx.MovementBudget():
                return self._budget(effect, world)
            case fx.WatchMoves():
                return self._watch(effect, world)
            case fx.ReleaseMove():
                return [self._release(effect, world)]
        log.warning("Foundry adapter: no command for effect %s", type(effect).__name__)
        return []

    def _chat(
        self,
        text: str,
        whisper_to: str | None,
        speaker: str | None,
        world: WorldView,
        flags: dict[str, Any] | None = None,
        html: str | None = None,
    ) -> Command:
        data: dict[str, Any] = {
            "content": html if html is not None else to_html(text),
            "speaker": _speaker(speaker, world),
            "whisper": _whisper(whisper_to, world),
            "flags": {FLAG: {"bridge": True, **(flags or {})}},
        }
        return Command(op="ChatMessage.create", data=data)

    def _ask(self, a: fx.AskPlayer, world: WorldView) -> Command:
        """A question for a player: ``User.query`` (v13+: a dialog on the player's screen, which
        closes after the prompt's timeout), with the whisper with answer buttons as the
        fallback the module posts on v11-v12 or when the player cannot be queried."""
        text = a.text or f"{a.question} [{' / '.join(a.options)}]"
        buttons = "".join(
            f'<button type="button" data-vttbridge-answer="{_attr(a.prompt)} {_attr(o)}">'
            f"{_attr(o)}</button>"
            for o in a.options
        )
        body = to_html(text) + f'<div class="vttbridge-answers">{buttons}</div>'
        flags = {"prompt": a.prompt, "options": list(a.options), "default": a.default}
        chat = self._chat(text, a.player, None, world, flags=flags, html=body)
        data: dict[str, Any] = {
            "userId": None if a.player == "gm" else a.player,
            "prompt": a.prompt,
            "question": a.question,
            "options": list(a.options),
            "default": a.default,
            "timeout": a.timeout,
            "token": a.token,
            "fallback": chat.data,
        }
        return Command(op="User.query", data=data, options={FLAG: {"bridge": True}})

    def _token_update(self, u: fx.UpdateToken, world: WorldView) -> list[Command]:
        data = _token_ref(u.token, world)
        if u.cell is not None:
            data.update(_token_xy(u.token, u.cell, world))
        for key, value in u.fields.items():
            if key in TOKEN_FIELDS:
                data[TOKEN_FIELDS[key]] = value
            else:
                log.info("Foundry adapter: token field %r is not written to Foundry", key)
        if not set(data) - {"_id", "sceneId"}:
            return []
        options: dict[str, Any] = {"animate": u.animate, FLAG: {"bridge": True}}
        return [Command(op="Token.update", data=data, options=options)]

    def _budget(self, b: fx.MovementBudget, world: WorldView) -> list[Command]:
        """``flags.vttbridge.budget`` on the token: the rules' figures (feet, in the grid's
        units), how they measure a path (``metric``, ``distance`` per cell), or null when
        nothing limits the token any more (the module draws the plain ruler then)."""
        if b.token not in world.tokens:
            return []
        value: dict[str, Any] | None = None
        if b.budget is not None:
            value = {
                **b.budget.model_dump(),
                "metric": b.metric.value,
                "distance": float(world.encounter.grid.distance or 5.0),
            }
        data = _token_ref(b.token, world)
        data["flags"] = {FLAG: {"budget": value}}
        options = {"animate": False, FLAG: {"bridge": True, "budget": True}}
        return [Command(op="Token.update", data=data, options=options)]

    def _release(self, r: fx.ReleaseMove, world: WorldView) -> Command:
        """The end of a held move: ``options.vttbridge.hold`` names the hold; a module with
        that hold open applies the move it holds (the exact drop position) when ``moved``."""
        data = _token_ref(r.token, world)
        data.update(_token_xy(r.token, r.cell, world))
        options = {"animate": True, FLAG: {"bridge": True, "hold": r.hold, "moved": r.moved}}
        return Command(op="Token.update", data=data, options=options)

    def _watch(self, w: fx.WatchMoves, world: WorldView) -> list[Command]:
        scene = w.scene or world.active_scene
        watch = {
            "v": 1,
            # levels only where a watch is on some (v14 scene levels)
            "watches": [m.model_dump(exclude=None if m.levels else {"levels"}) for m in w.watches],
            "budget_ms": w.budget_ms,
            "max_hold_ms": w.max_hold_ms,
        }
        data: dict[str, Any] = {"flags": {FLAG: {"watch": watch}}}
        if scene:
            data["_id"] = scene
        return [Command(op="Scene.update", data=data, options={FLAG: {"bridge": True}})]

    def _actor_update(self, u: fx.UpdateStats, world: WorldView) -> list[Command]:
        """The rules' changes to a sheet: each stat at the path it was read from, else at the
        table's first plain path; a stat read through ``map``/``modifier`` is left alone."""
        tok = world.tokens.get(u.token)
        actor_id = tok.actor if tok is not None else None
        if tok is None or not actor_id:
            log.info("Foundry adapter: token %s has no actor to write %s to", u.token, u.stats)
            return []
        vtt = tok.vtt
        actor = world.actors.get(actor_id)
        paths = {**((actor.vtt if actor else {}).get("paths") or {}), **(vtt.get("paths") or {})}
        table = tables().get(vtt.get("system"))
        update: dict[str, Any] = {}
        for stat, value in u.stats.items():
            rule = paths.get(stat) or table.write_rule(stat)
            written = write_value(rule, value) if rule else None
            if written is None:
                log.info("Foundry adapter: %s of %s is not written back (%s)", stat, u.token, rule)
                continue
            update[written[0]] = written[1]
        if not update:
            return []
        data: dict[str, Any] = {"_id": actor_id, "update": update}
        if not tok.linked:
            data["tokenId"] = u.token
            if tok.scene:
                data["sceneId"] = tok.scene
        return [Command(op="Actor.update", data=data, options={FLAG: {"bridge": True}})]

    def _statuses(self, u: fx.UpdateConditions, world: WorldView) -> list[Command]:
        """The token's conditions as status effects: on for each it is in, off for each it left;
        conditions the table does not map are not shown."""
        tok = world.tokens.get(u.token)
        if tok is None:
            return []
        table = tables().get(tok.vtt.get("system"))
        durations = game_systems.get(world.encounter.options.system).durations
        toggles: dict[str, dict[str, Any]] = {}
        for conditions, active in ((u.removed, False), (u.conditions, True)):
            for c in conditions:
                status = table.status(c)
                if status is not None:  # one status may show two conditions: on wins
                    toggles[status["id"]] = {**status, "active": active}
                    if active and c in durations:
                        toggles[status["id"]]["duration"] = _duration(durations[c])
        if not toggles:
            return []
        data: dict[str, Any] = {"tokenId": u.token, "statuses": list(toggles.values())}
        if tok.scene:
            data["sceneId"] = tok.scene
        return [Command(op="Actor.toggleStatusEffect", data=data, options={FLAG: {"bridge": True}})]

    def _set_initiative(self, s: fx.SetInitiative) -> Command:
        data: dict[str, Any] = {"tokenId": s.token, "initiative": s.ic}
        return Command(op="Combatant.update", data=data, options={FLAG: {"bridge": True}})

    def _advance(self, a: fx.AdvanceTurn, world: WorldView) -> Command:
        if a.round == 0 and a.token is None:
            return Command(op="Combat.delete", data={}, options={FLAG: {"bridge": True}})
        data: dict[str, Any] = {"round": a.round, "tokenId": a.token}
        turn = _turn_index(world, a.token)
        if turn is not None:
            data["turn"] = turn
        return Command(op="Combat.update", data=data, options={FLAG: {"bridge": True}})


# -- helpers ---------------------------------------------------------------------------------------

EXPIRY_EVENTS = {"turn_start": "turnStart", "turn_end": "turnEnd", "round_end": "roundEnd"}
"""The rules' ends of a duration as Foundry v14 Active Effect expiry events."""


def _duration(d: Duration) -> dict[str, Any]:
    """A rule's duration as a v14 ``EffectDurationData`` (value, units, expiry)."""
    return {"value": d.rounds, "units": "rounds", "expiry": EXPIRY_EVENTS[d.ends]}


def _on_canvas(extent: tuple[float, float], p: UpdateTokenHook, attempt: bool) -> None:
    """Every position of a move on the scene's canvas (the models already bound them)."""
    tok = p.token
    check_on_canvas(extent, tok.x, tok.y, "token.", ("x", "y"))
    if attempt:
        ch = p.changes
        check_on_canvas(extent, ch.get("x", tok.x), ch.get("y", tok.y), "changes.", ("x", "y"))
    if p.origin is not None:
        check_on_canvas(extent, p.origin.x, p.origin.y, "origin.", ("x", "y"))
    for i, w in enumerate(p.waypoints):
        check_on_canvas(extent, w.x, w.y, f"waypoints.{i}.", ("x", "y"))


def _token_ref(token: str, world: WorldView) -> dict[str, Any]:
    data: dict[str, Any] = {"_id": token}
    tok = world.tokens.get(token)
    scene = (tok.scene if tok is not None else None) or world.active_scene
    if scene:
        data["sceneId"] = scene
    return data


def _token_xy(token: str, cell: Cell, world: WorldView) -> dict[str, Any]:
    tok = world.tokens.get(token)
    w, h = _token_size(tok)
    x, y = foundry_xy(cell, grid_px(world, tok.scene if tok is not None else None), w, h)
    return {"x": _px(x), "y": _px(y)}


def _px(v: float) -> int | float:
    return int(v) if float(v).is_integer() else v


def _attr(text: str) -> str:
    import html

    return html.escape(text, quote=True)


def _token_vtt(tok: FToken, system: str | None, paths: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Foundry-only token data the world keeps for us: its size in cells, the game system (its
    table writes the rules' changes back), and the paths its own (delta) rules-owned stats were
    read from."""
    out: dict[str, Any] = {"width": tok.width, "height": tok.height}
    if system:
        out["system"] = system
    owned = {k: v for k, v in paths.items() if k in RULES_OWNED}
    if owned:
        out["paths"] = owned
    return out


def _combat_data(c: FCombat) -> ev.CombatData:
    cur = c.current()
    initiative: dict[str, int | None] = {}
    for cb in c.ordered():
        if cb.tokenId:
            initiative[cb.tokenId] = ic_of(cb.initiative)
    return ev.CombatData(round=c.round, active=cur.tokenId if cur else None, initiative=initiative)


def _turn_events(
    event_id: str,
    combat: FCombat,
    rnd: int,
    combatant: FCombatant | None,
    prior_round: int | None,
    world: WorldView,
) -> list[Event]:
    out: list[Event] = []
    if prior_round is not None and rnd > prior_round:
        out.append(ev.RoundStarted(id=event_id, round=rnd))
    token = combatant.tokenId if combatant else None
    skipped = None
    if token is not None and not _on_scene(world, token):
        # the GM's tracker still lists a combatant whose token left the scene: not bad
        # input, a turn the rules skip (and say so)
        skipped, token = (combatant.name if combatant else None) or token, None
    out.append(
        ev.TurnStarted(
            id=event_id,
            token=token,
            round=rnd,
            ic=ic_of(combatant.initiative) if combatant else None,
            skipped=skipped,
        )
    )
    return out


def _on_scene(world: WorldView, token: str) -> bool:
    """Whether the world knows the token (a world that knows no tokens knows nothing yet)."""
    tokens = world.tokens
    return not tokens or token in tokens


DAMAGE_STATS = ("vitality", "wounds")
"""Stats whose drop is damage (Spycraft: vitality first, then wound points)."""


def _damage(
    event_id: str, world: WorldView, tokens: list[str], stats: dict[str, Any]
) -> list[Event]:
    """A ``DamageDealt`` for each token whose vitality or wounds the update lowered (damage
    applied on the sheet ends a stand off, rule 5). Compared with the world's character."""
    chars = world.encounter.characters
    out: list[Event] = []
    for tid in tokens:
        ch = chars.get(tid)
        if ch is None:
            continue
        amount = sum(
            max(0, int(getattr(ch, k)) - int(stats[k])) for k in DAMAGE_STATS if k in stats
        )
        if amount > 0:
            out.append(ev.DamageDealt(id=event_id, token=tid, amount=amount, kind="sheet"))
    return out


def _actor_data(a: FActor, system: str | None) -> ev.ActorData:
    doc = a.model_dump(by_alias=True)
    paths: dict[str, dict[str, Any]] = {}
    stats = map_actor(doc, system, paths)
    owned = {k: v for k, v in paths.items() if k in RULES_OWNED}
    return ev.ActorData(id=a.id, name=a.name, stats=stats, vtt={"paths": owned} if owned else {})


def _actor_target(p: UpdateActor) -> tuple[str | None, str | None]:
    """(actor id, token id): a token id when the uuid is a token's synthetic actor."""
    actor_id = p.changes.get("_id") if isinstance(p.changes.get("_id"), str) else None
    if p.actor is not None:
        actor_id = actor_id or p.actor.id
    token_id = None
    if p.actorUuid:
        parts = p.actorUuid.split(".")
        pairs = dict(zip(parts[0::2], parts[1::2], strict=False))
        token_id = pairs.get("Token")
        actor_id = pairs.get("Actor") or actor_id
    return actor_id, token_id


def _speaker(speaker: str | None, world: WorldView) -> dict[str, Any]:
    if speaker is None:
        return {"alias": BRIDGE_ALIAS}
    tok = world.tokens.get(speaker)
    if tok is None:
        return {"alias": speaker}
    out = {"token": speaker, "alias": tok.name or speaker}
    if tok.actor:
        out["actor"] = tok.actor
    if tok.scene:
        out["scene"] = tok.scene
    return out


def _whisper(to: str | None, world: WorldView) -> list[str]:
    if to is None:
        return []
    if to == "gm":
        return _gm_ids(world) or ["GM"]
    return [to]


def _turn_index(world: WorldView, token: str | None) -> int | None:
    """The token's place in the rules' acting order (the module re-checks it against Foundry's
    own ``combat.turns``)."""
    if token is None:
        return None
    try:
        order = world.encounter.order()
    except Exception:  # a half-built encounter: let the module find the turn
        return None
    return order.index(token) if token in order else None


INBOUND: Mapping[str, type[Inbound]] = FoundryAdapter.inbound
"""The payload model of each hook the module forwards (made from ``FoundryAdapter.events``)."""
