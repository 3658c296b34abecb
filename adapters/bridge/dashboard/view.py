"""The dashboard's view of one world: everything the GM's page shows, as one pydantic model
built from the world's state and what the bridge knows of its clients. The page renders it as
it comes and computes nothing of the rules itself; a value the rules hold elsewhere is added
here, in :func:`build_view`, and nowhere else.

What comes from where:

- the scene: tokens, named regions, and the cells each position watch covers (a Ready's
  ``--when enters corner`` or ``within 10``), in grid cells;
- the encounter core (``vttbridge.rules.encounter``): the initiative order with each IC, whose
  turn it is, delays, and the actions each combatant has spent this turn
  (``Combatant.half_actions``, ``actions_taken``, ``free_used``; every system spends through
  them), worded in the system's units;
- the world's game system: its title, what it adds to the initiative panel (a round's phase,
  who sits it out) and its own panels (:class:`vttbridge.sdk.systems.Table`: a Ready's expiry,
  a stand off's stress, the movement left this turn...), each a
  :class:`vttbridge.sdk.panels.Panel` the page draws as it comes;
- prompts waiting for an answer (``World.prompts``), the recent chat lines the rules sent (the
  feed keeps them, from the log) with the rules each cites, and the VTT link (the bridge's
  sessions).

The session's timeline (every event and what it caused) is not part of the view: the page asks
for it (:mod:`vttbridge.adapters.bridge.dashboard.timeline`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, Field
from vttbridge.adapters.bridge.dashboard.timeline import strip_cites
from vttbridge.rules.citations import Cited
from vttbridge.rules.encounter import Encounter
from vttbridge.sdk.effects import AskPlayer, PostChat
from vttbridge.sdk.panels import Panel, RoundNotes
from vttbridge.sdk.regions import within
from vttbridge.sdk.systems import Table, table_of
from vttbridge.sdk.triggers import SPEC_ADAPTER, EnterSpec, WithinSpec
from vttbridge.sdk.world import Prompt, World

log = logging.getLogger(__name__)

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
    """The token it is for (whose Ready it is)."""
    cells: list[XY]


class SceneView(BaseModel):
    id: str | None
    name: str
    grid: GridView
    bounds: Bounds
    tokens: list[TokenView]
    regions: list[RegionView]
    watched: list[WatchView]


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
    actions_used: str
    """``actions_taken`` for people: ``move x2, attack`` (a multiplication sign);
    ``ready (full action)``."""
    actions_left: str
    """``1 of 2 half actions left``, in the system's units (``1 of 2 actions left``)."""


class EncounterView(BaseModel):
    in_combat: bool
    round: int
    count: int | None
    active: str | None
    phase: str | None = None
    """The system's name for this round, when it is a special one (``surprise round``)."""
    notes: list[str] = Field(default_factory=list)
    """What the system says under the order (who sits the surprise round out)."""
    actions_per_turn: int
    initiative: list[CombatantView]


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
    cites: list[Cited] = Field(default_factory=list)
    """The rules that refused or decided what the line says (the page links each to its
    section of the rules); ``text`` is the line without their short form."""


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
    system_title: str
    """The system's own name, for people."""
    seq: int
    """The world's last log seq when this view was built."""
    now: float
    """The server's clock (for countdowns on a page whose clock differs)."""
    scene: SceneView
    encounter: EncounterView
    panels: list[Panel] = Field(default_factory=list)
    """The game system's own panels, in order."""
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
    system = world.encounter.system
    table = table_of(system.name)
    scene = _scene(world)
    return DashboardView(
        world=world.id,
        system=system.name,
        system_title=system.title,
        seq=seq,
        now=now,
        scene=scene,
        encounter=_encounter(world, table),
        panels=_panels(world, table),
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
                    text=strip_cites(eff.text, eff.cites),
                    to=_player_name(world, eff.whisper_to) if eff.whisper_to else None,
                    speaker=speaker,
                    cites=eff.cites,
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
        owner = w.owner if w.owner is not None else w.data.get("actor")
        if owner is not None:  # "Kevin's Ready": whose watch, and what for
            label = f"{_token_name(world, owner)}'s {w.handler.replace('_', ' ').capitalize()}"
        else:
            label = f"{w.script}: {w.handler}"
        out.append(WatchView(key=key, label=label, owner=owner, cells=_cells(cells)))
    return out


def _encounter(world: World, table: Table | None) -> EncounterView:
    enc = world.encounter
    order = enc.order() if enc.combatants else []
    notes = RoundNotes()
    if table is not None and table.round_notes is not None and enc.in_combat:
        notes = table.round_notes(world)
    return EncounterView(
        in_combat=enc.in_combat,
        round=enc.round,
        count=enc.count,
        active=enc.active,
        phase=notes.phase,
        notes=notes.notes,
        actions_per_turn=enc.turn_budget,
        initiative=[_combatant(enc, c) for c in order],
    )


def _combatant(enc: Encounter, token: str) -> CombatantView:
    cb = enc.combatants[token]
    unit = enc.system.action_word
    per_turn = enc.turn_budget
    used = spent(cb.actions_taken, halves=unit == "half action") or "none"
    if cb.free_used:
        used += f", {cb.free_used} free"
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
        actions_used=used,
        actions_left=f"{cb.half_actions} of {per_turn} {unit}{'' if per_turn == 1 else 's'} left",
    )


def spent(actions: list[str], *, halves: bool = False) -> str:
    """What a turn's actions were spent on, one entry per (half) action, grouped: ``["move",
    "move", "attack"]`` -> ``move x2, attack`` (a multiplication sign); with ``halves`` (a full
    action spends two half actions) ``["ready", "ready"]`` -> ``ready (full action)``."""
    counts: dict[str, int] = {}
    for a in actions:
        counts[a] = counts.get(a, 0) + 1
    return ", ".join(
        a if n == 1 else f"{a} (full action)" if halves and n == 2 else f"{a} \u00d7{n}"
        for a, n in counts.items()
    )


def _panels(world: World, table: Table | None) -> list[Panel]:
    """The system's own panels; none when it has none, or they fail (logged: the rest of the
    page still shows)."""
    if table is None or table.panels is None:
        return []
    try:
        return list(table.panels(world))
    except Exception:
        log.exception("world %s: the %s panels failed", world.id, world.encounter.options.system)
        return []


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
