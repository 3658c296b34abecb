"""Fallout: Equestria's dashboard: the ground each combatant can still cover this turn
(:func:`vttbridge.systems.foe.rules.movement.budget`: at walking pace, keeping an action for
something else; running; sneaking), and, in the initiative panel, the surprise round and who
sits it out."""

from __future__ import annotations

from vttbridge.sdk.panels import Column, Panel, PanelTable, RoundNotes, Row
from vttbridge.sdk.world import World
from vttbridge.systems.foe.rules.movement import budget
from vttbridge.systems.foe.rules.state import foe


def panels(world: World) -> list[Panel]:
    return [movement(world)]


def movement(world: World) -> Panel:
    """Speed, moved, and what each pace leaves him, for every combatant in the order."""
    enc = world.encounter
    units = enc.grid.units

    def feet(value: float | None) -> str:
        return "free" if value is None else f"{round(value, 1):g} {units}"

    def pace(value: float | None) -> str | None:
        return None if value is None else feet(value)

    rows = []
    for token in enc.order() if enc.combatants else []:
        if token not in enc.characters:
            continue
        b = budget(enc, token)
        name = enc.name(token)
        if b is None:  # not in the fight: he moves freely
            speed = enc.character(token).move
            cells = [name, feet(speed), feet(0.0), None, None, None, feet(None)]
        else:
            cells = [
                name,
                feet(b.speed),
                feet(b.moved),
                pace(b.walk),
                pace(b.run),
                pace(b.sneak),
                feet(b.left),
            ]
        rows.append(Row(key=token, cells=cells, active=enc.active == token))
    columns = [Column(label="Name")] + [
        Column(label=label, numeric=True)
        for label in ("Speed", "Moved", "Walk", "Run", "Sneak", "Allowed now")
    ]
    return Panel(
        id="movement",
        title="Movement left this turn",
        empty="Nobody is in the turn order.",
        table=PanelTable(columns=columns, rows=rows),
        hint="Walk keeps an action for something else; a run spends both actions moving "
        "(3 \u00d7 speed)."
        if rows
        else "",
    )


def round_notes(world: World) -> RoundNotes:
    """In the surprise round: its name, and who sits it out (they join the order after it)."""
    enc = world.encounter
    state = foe(enc)
    if not state.surprise_round:
        return RoundNotes()
    notes = []
    if state.surprised:
        who = ", ".join(enc.name(a) for a in state.surprised)
        notes.append(f"Surprised, sitting out the surprise round: {who}.")
    return RoundNotes(phase="surprise round", notes=notes)
