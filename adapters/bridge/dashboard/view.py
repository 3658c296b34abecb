"""The dashboard's view of one world: everything the GM's page shows, as one pydantic model
built from the world's state and what the bridge knows of its clients. The page renders it as
it comes and computes nothing of the rules itself; a value the rules hold elsewhere is added
here, in :func:`build_view`, and nowhere else.

What comes from where:

- the scene: tokens, named regions, and the cells each position watch covers (a Ready's
  ``--when enters corner`` or ``within 10``), in grid cells;
- the encounter core (``vttbridge.rules.encounter``): the initiative order with each IC, whose turn
  it is, delays, and the actions each combatant has spent this turn (``Combatant.half_actions``,
  ``actions_taken``, ``free_used``; both systems spend through them);
- Spycraft 2.0 (``enc.spycraft``): Readies and their expiry (rule 4: the count reaching the
  owner's IC in the round after the declaring one), stand offs with each participant's stress
  against his thresholds (multiples of Wisdom, ``vttbridge.rules.spycraft.standoff``);
- Fallout: Equestria: the ground each combatant can still cover this turn
  (``vttbridge.rules.foe.movement``): at walking pace (keeping an action for something else),
  running, or sneaking;
- prompts waiting for an answer (``World.prompts``), the recent chat lines the rules sent (the
  feed keeps them, from the log), and the VTT link (the bridge's sessions).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, Field
from vttbridge.rules.encounter import Encounter
from vttbridge.rules.foe.movement import budget
from vttbridge.rules.spycraft.standoff import thresholds_exceeded
from vttbridge.rules.spycraft.state import StandOff
from vttbridge.sdk.chat.spycraft import READY_WATCH
from vttbridge.sdk.effects import AskPlayer, PostChat
from vttbridge.sdk.regions import within
from vttbridge.sdk.triggers import SPEC_ADAPTER, EnterSpec, WithinSpec
from vttbridge.sdk.world import Prompt, World

XY = tuple[int, int]
MAX_CELLS = 4096
"""Cells drawn per region or watch; a larger one (a whole-map region) is cut to this many."""


class GridView(BaseModel):
    distance: float
    """Distance units one cell spans."""
    units: str
    metric: str


class Bounds(BaseModel):
    """The cells the map shows, inclusive: every token, region and watched cell, plus a
    margin of one cell."""

    x0: int
    y0: int
    x1: int
    y1: int


class TokenView(BaseModel):
    id: str
    name: str
    x: int
    y: int
    disposition: int
    """Below 0 hostile, 0 neutral, above 0 friendly (the VTT's)."""
    hidden: bool
    conditions: list[str]


class RegionView(BaseModel):
    name: str
    cells: list[XY]
    source: str


class WatchView(BaseModel):
    """Cells a position trigger watches."""

    key: str
    label: str
    owner: str | None = None
    """The token whose Ready it is."""
    cells: list[XY]


class SceneView(BaseModel):
    id: str | None
    name: str
    grid: GridView
    bounds: Bounds
    tokens: list[TokenView]
    regions: list[RegionView]
    watched: list[WatchView]


class MovementView(BaseModel):
    """FoE: feet a combatant can still move this turn; None where that pace is not open to
    him (``left`` None: he is not in the fight, and moves freely)."""

    speed: float
    moved: float
    left: float | None
    """The most he may move now (``vttbridge.rules.foe.movement.budget``)."""
    walk: float | None
    """Moving with one action, keeping the other."""
    run: float | None
    """Running: both actions spent moving (3x speed)."""
    sneak: float | None
    """What his sneak actions this turn have left."""


class CombatantView(BaseModel):
    token: str
    name: str
    ic: int
    acted: bool
    active: bool
    out: bool
    delayed: int
    """Delay steps taken this round."""
    half_actions: int
    """Half actions left this turn."""
    actions_taken: list[str]
    """What this turn's actions were spent on, one entry per half action."""
    free_used: int
    movement: MovementView | None = None


class EncounterView(BaseModel):
    in_combat: bool
    round: int
    count: int | None
    active: str | None
    surprise_round: bool
    surprised: list[str]
    """FoE: who sits out the surprise round (names; they join the order after it)."""
    actions_per_turn: int
    initiative: list[CombatantView]


class ReadyView(BaseModel):
    owner: str
    owner_name: str
    action: str
    trigger: str
    timing: Literal["attempt", "completion"]
    declared_round: int
    declared_ic: int
    carried_over: bool
    pending: bool
    """Triggered; the owner is deciding whether to fire."""
    triggered_by: str | None
    expires_round: int
    """It expires when the count reaches ``expires_ic`` in this round (rule 4)."""
    expires_ic: int | None
    watch: str | None
    """The key of the watch whose cells the map shows for it."""


class ParticipantView(BaseModel):
    token: str
    name: str
    weapon: str
    stress: int
    wisdom: int
    thresholds: list[int]
    """The stress thresholds (1x, 2x, 3x... Wisdom) up to the first not yet exceeded."""
    exceeded: int
    cracked: bool
    """Cracked by a lost check: choosing, or surrendered to the winners."""
    choosing: bool
    """Cracked and still choosing: surrender, or be attacked."""
    surrendered: bool
    surrendered_to: list[str]
    permitted: bool


class StandoffView(BaseModel):
    id: str
    active: bool
    started_round: int
    last_check_round: int
    ended_round: int | None
    end_reason: str
    sides: list[list[ParticipantView]]
    tie_pending: bool


class PromptView(BaseModel):
    id: str
    kind: str
    player: str
    player_name: str
    token: str | None
    token_name: str | None
    question: str
    options: list[str]
    default: str
    timeout: float | None
    deadline: float | None
    """When the default applies (seconds since the epoch on the server's clock)."""


class LogLine(BaseModel):
    """One chat line the rules sent (a ``PostChat``) or a question they asked."""

    n: int
    at: float
    kind: Literal["chat", "ask"]
    text: str
    to: str | None = None
    """Whispered to (a name, or "GM"); None: public."""
    speaker: str | None = None


class ClientView(BaseModel):
    who: str
    role: Literal["gm", "observer"]
    since: float


class LinkView(BaseModel):
    vtt: str | None
    """The adapter the world is linked to (the VTT of its GM client)."""
    connected: bool
    """A GM client of that VTT is connected now."""
    clients: list[ClientView] = Field(default_factory=list)
    node: str | None = None
    """In a cluster: the node that runs the world (its ``--node-id``)."""


class DashboardView(BaseModel):
    world: str
    system: str
    seq: int
    """The world's last log seq when this view was built."""
    now: float
    """The server's clock (for countdowns on a page whose clock differs)."""
    scene: SceneView
    encounter: EncounterView
    readies: list[ReadyView]
    standoffs: list[StandoffView]
    prompts: list[PromptView]
    log: list[LogLine]
    """Chat lines, oldest first, numbered in order (``n``)."""
    log_full: bool = True
    """``log`` is the recent log, to show instead of the lines before; else it holds only the
    lines after those of the previous view (the page appends those it has not got)."""
    link: LinkView


# -- building -----------------------------------------------------------------------------------


def build_view(
    world: World,
    *,
    seq: int,
    now: float,
    log: Iterable[LogLine],
    link: LinkView,
    log_full: bool = True,
) -> DashboardView:
    """The view of ``world`` now. Read-only: it changes nothing in the world."""
    enc = world.encounter
    scene = _scene(world)
    return DashboardView(
        world=world.id,
        system=enc.options.system,
        seq=seq,
        now=now,
        scene=scene,
        encounter=_encounter(enc),
        readies=_readies(world),
        standoffs=[_standoff(enc, so) for so in enc.spycraft.standoffs],
        prompts=[_prompt(world, p) for p in world.prompts.values()],
        log=list(log),
        log_full=log_full,
        link=link,
    )


def log_lines(world: World, effects: Iterable[object], *, first: int, at: float) -> list[LogLine]:
    """The chat lines among ``effects``, numbered from ``first``."""
    out: list[LogLine] = []
    for eff in effects:
        if isinstance(eff, PostChat):
            speaker = eff.speaker
            if speaker is not None and speaker in world.tokens:
                speaker = world.tokens[speaker].display
            out.append(
                LogLine(
                    n=first + len(out),
                    at=at,
                    kind="chat",
                    text=eff.text,
                    to=_player_name(world, eff.whisper_to) if eff.whisper_to else None,
                    speaker=speaker,
                )
            )
        elif isinstance(eff, AskPlayer):
            out.append(
                LogLine(
                    n=first + len(out),
                    at=at,
                    kind="ask",
                    text=f"{eff.question} [{' / '.join(eff.options)}] (question {eff.prompt})",
                    to=_player_name(world, eff.player),
                )
            )
    return out


def _player_name(world: World, player: str) -> str:
    if player == "gm":
        return "GM"
    p = world.players.get(player)
    return (p.name or p.id) if p is not None else player


def _token_name(world: World, token: str | None) -> str | None:
    if token is None:
        return None
    tok = world.tokens.get(token)
    return tok.display if tok is not None else world.encounter.name(token)


def _cells(cells: Iterable[XY]) -> list[XY]:
    return sorted(cells)[:MAX_CELLS]


def _scene(world: World) -> SceneView:
    enc = world.encounter
    sc = world.scenes.get(world.active_scene) if world.active_scene else None
    on_scene = [t for t in world.tokens.values() if t.scene in (None, world.active_scene)]
    tokens = [
        TokenView(
            id=t.id,
            name=t.display,
            x=t.cell.x,
            y=t.cell.y,
            disposition=t.disposition,
            hidden=t.hidden,
            conditions=sorted(enc.characters[t.id].conditions) if t.id in enc.characters else [],
        )
        for t in on_scene
    ]
    regions = [
        RegionView(name=r.name, cells=_cells(r.xy), source=r.source)
        for r in world.regions.values()
        if r.scene in (None, world.active_scene)
    ]
    watched = _watched(world)
    xs: list[int] = [t.x for t in tokens]
    ys: list[int] = [t.y for t in tokens]
    for group in [r.cells for r in regions] + [w.cells for w in watched]:
        xs.extend(c[0] for c in group)
        ys.extend(c[1] for c in group)
    if xs:
        bounds = Bounds(x0=min(xs) - 1, y0=min(ys) - 1, x1=max(xs) + 1, y1=max(ys) + 1)
    else:
        bounds = Bounds(x0=0, y0=0, x1=9, y1=9)
    grid = enc.grid
    return SceneView(
        id=world.active_scene,
        name=sc.name if sc is not None else "",
        grid=GridView(distance=grid.distance, units=grid.units, metric=str(grid.metric)),
        bounds=bounds,
        tokens=tokens,
        regions=regions,
        watched=watched,
    )


def _watched(world: World) -> list[WatchView]:
    out: list[WatchView] = []
    for key, w in world.watches.items():
        try:
            spec = SPEC_ADAPTER.validate_python(w.spec)
        except ValueError:
            continue
        cells: set[XY] = set()
        if isinstance(spec, EnterSpec):
            if spec.region is not None and spec.region in world.regions:
                cells |= world.regions[spec.region].xy
            cells |= {(c.x, c.y) for c in spec.cells or ()}
        elif isinstance(spec, WithinSpec):
            anchor = world.tokens.get(spec.anchor)
            if anchor is not None:
                cells = {(c.x, c.y) for c in within(anchor.cell, spec.distance, world.grid)}
        else:
            continue  # an action or condition trigger watches no cells
        owner = w.data.get("actor") if key.startswith(READY_WATCH) else None
        if owner is not None:
            label = f"{_token_name(world, owner)}'s Ready"
        else:
            label = f"{w.script}: {w.handler}"
        out.append(WatchView(key=key, label=label, owner=owner, cells=_cells(cells)))
    return out


def _encounter(enc: Encounter) -> EncounterView:
    order = enc.order() if enc.combatants else []
    foe = enc.options.system == "foe"
    return EncounterView(
        in_combat=enc.in_combat,
        round=enc.round,
        count=enc.count,
        active=enc.active,
        surprise_round=enc.foe.surprise_round,
        surprised=[enc.name(a) for a in enc.foe.surprised] if enc.foe.surprise_round else [],
        actions_per_turn=enc.actions_per_turn,
        initiative=[_combatant(enc, c, foe) for c in order],
    )


def _combatant(enc: Encounter, token: str, foe: bool) -> CombatantView:
    cb = enc.combatants[token]
    return CombatantView(
        token=token,
        name=enc.name(token),
        ic=cb.ic,
        acted=cb.acted,
        active=enc.active == token,
        out=cb.out,
        delayed=cb.delay_steps,
        half_actions=cb.half_actions,
        actions_taken=list(cb.actions_taken),
        free_used=cb.free_used,
        movement=_movement(enc, token) if foe and token in enc.characters else None,
    )


def _movement(enc: Encounter, token: str) -> MovementView:
    """What ``vttbridge.rules.foe.movement.budget`` allows him, by pace."""
    b = budget(enc, token)
    if b is None:  # not in the fight: he moves freely
        speed = enc.character(token).move
        return MovementView(speed=speed, moved=0.0, left=None, walk=None, run=None, sneak=None)
    return MovementView(
        speed=b.speed, moved=b.moved, left=b.left, walk=b.walk, run=b.run, sneak=b.sneak
    )


def _readies(world: World) -> list[ReadyView]:
    enc = world.encounter
    out = []
    for actor, r in enc.spycraft.readies.items():
        cb = enc.combatants.get(actor)
        key = READY_WATCH + actor
        out.append(
            ReadyView(
                owner=actor,
                owner_name=enc.name(actor),
                action=r.action,
                trigger=r.trigger,
                timing=r.timing,
                declared_round=r.declared_round,
                declared_ic=r.declared_ic,
                carried_over=r.carried_over,
                pending=r.pending,
                triggered_by=_token_name(world, r.triggered_by),
                expires_round=r.declared_round + 1,
                expires_ic=cb.ic if cb is not None else None,
                watch=key if key in world.watches else None,
            )
        )
    return out


def _standoff(enc: Encounter, so: StandOff) -> StandoffView:
    def participant(a: str) -> ParticipantView:
        ch = enc.characters.get(a)
        stress = ch.stress if ch is not None else 0
        wisdom = max(1, ch.wisdom) if ch is not None else 1
        exceeded = thresholds_exceeded(stress, wisdom)
        winners = so.surrender_to.get(a, [])
        return ParticipantView(
            token=a,
            name=enc.name(a),
            weapon=so.weapons.get(a, ""),
            stress=stress,
            wisdom=wisdom,
            thresholds=[wisdom * i for i in range(1, exceeded + 2)],
            exceeded=exceeded,
            cracked=a in so.pending_cracks or bool(winners),
            choosing=a in so.pending_cracks,
            surrendered=a in so.surrendered,
            surrendered_to=[enc.name(w) for w in winners],
            permitted=a in so.permitted,
        )

    return StandoffView(
        id=so.id,
        active=so.active,
        started_round=so.started_round,
        last_check_round=so.last_check_round,
        ended_round=so.ended_round,
        end_reason=so.end_reason,
        sides=[[participant(a) for a in side] for side in so.sides],
        tie_pending=so.pending_tie is not None,
    )


def _prompt(world: World, p: Prompt) -> PromptView:
    return PromptView(
        id=p.id,
        kind=p.kind,
        player=p.player,
        player_name=_player_name(world, p.player),
        token=p.token,
        token_name=_token_name(world, p.token),
        question=p.question,
        options=list(p.options),
        default=p.default,
        timeout=p.timeout,
        deadline=p.deadline,
    )
