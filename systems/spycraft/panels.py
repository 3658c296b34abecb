"""Spycraft 2.0's dashboard panels: the Readies held (their trigger, timing and expiry: rule 4,
the count reaching the owner's IC in the round after the declaring one) and the stand offs
(each side's participants, their stress against the thresholds: multiples of Wisdom)."""

from __future__ import annotations

from vttbridge.rules.encounter import Encounter
from vttbridge.sdk.panels import Badge, Card, Entry, Fact, Group, Meter, Panel
from vttbridge.sdk.world import World
from vttbridge.systems.spycraft.chat import READY_WATCH
from vttbridge.systems.spycraft.rules.standoff import thresholds_exceeded
from vttbridge.systems.spycraft.rules.state import StandOff, spycraft


def panels(world: World) -> list[Panel]:
    """The Readies beside the initiative order, the stand offs under the map."""
    return [readies(world), standoffs(world.encounter)]


def readies(world: World) -> Panel:
    enc = world.encounter
    cards = []
    for actor, r in spycraft(enc).readies.items():
        cb = enc.combatants.get(actor)
        watched = READY_WATCH + actor in world.watches
        timing = Badge(text="on the attempt" if r.timing == "attempt" else "on completion")
        trigger = [timing, *([Badge(text="on the map", tone="watch")] if watched else [])]
        if r.pending:
            expires = "waiting for the answer (it neither carries over nor expires)"
        else:
            at_ic = f", when the count reaches IC {cb.ic}" if cb is not None else ""
            expires = f"round {r.declared_round + 1}{at_ic}"
        carried = (
            [Badge(text="carried over", tone="delayed")] if r.carried_over and not r.pending else []
        )
        facts = [
            Fact(term="Trigger", text=r.trigger, badges=trigger),
            Fact(term="Declared", text=f"round {r.declared_round}, IC {r.declared_ic}"),
            Fact(term="Expires", text=expires, badges=carried),
        ]
        if r.pending:
            by = world.tokens[r.triggered_by].display if r.triggered_by in world.tokens else None
            facts.append(
                Fact(term="Triggered", text=f"{f'by {by}; ' if by else ''}fire or cancel?")
            )
        cards.append(
            Card(
                key=actor,
                title=f"{enc.name(actor)} readies {r.action}",
                tone="pending" if r.pending else "",
                facts=facts,
            )
        )
    return Panel(id="readies", title="Readies", empty="No Ready is held.", cards=cards)


def standoffs(enc: Encounter) -> Panel:
    shown = [so for so in spycraft(enc).standoffs if so.active or so.ended_round is not None]
    return Panel(
        id="standoffs",
        title="Stand offs",
        place="main",
        empty="No stand off.",
        cards=[_standoff(enc, so) for so in shown],
    )


def _standoff(enc: Encounter, so: StandOff) -> Card:
    def participant(a: str) -> Entry:
        ch = enc.characters.get(a)
        stress = ch.stress if ch is not None else 0
        wisdom = max(1, ch.wisdom) if ch is not None else 1
        exceeded = thresholds_exceeded(stress, wisdom)
        thresholds = [wisdom * i for i in range(1, exceeded + 2)]
        winners = so.surrender_to.get(a, [])
        badges = []
        if a in so.pending_cracks:
            badges.append(Badge(text="cracked — choosing", tone="hostile"))
        elif winners:
            badges.append(Badge(text="cracked", tone="hostile"))
        if a in so.surrendered:
            to = f" to {', '.join(enc.name(w) for w in winners)}" if winners else ""
            badges.append(Badge(text=f"surrendered{to}", tone="muted"))
        if a in so.permitted:
            badges.append(Badge(text="permitted one action"))
        weapon = so.weapons.get(a, "")
        more = f" · {exceeded} exceeded" if exceeded else ""
        nxt = thresholds[-1]
        return Entry(
            title=enc.name(a),
            note=f"levels {weapon}" if weapon else "",
            badges=badges,
            text=f"stress {stress} · thresholds {', '.join(map(str, thresholds))} "
            f"(Wisdom {wisdom}){more}",
            meter=Meter(
                value=min(stress, nxt),
                max=nxt,
                low=nxt * 0.3,
                high=nxt * 0.75,
                label=f"Stress of {enc.name(a)}",
            ),
        )

    if so.active:
        last = f", last Resolve check round {so.last_check_round}" if so.last_check_round else ""
        subtitle = f"since round {so.started_round}{last}"
    else:
        why = f" ({so.end_reason.replace('_', ' ')})" if so.end_reason else ""
        subtitle = f"ended round {so.ended_round}{why}"
    tie = [Badge(text="tie: the GM decides", tone="delayed")] if so.pending_tie is not None else []
    return Card(
        key=so.id,
        title=f"Stand off {so.id}",
        subtitle=subtitle,
        badges=tie,
        tone="" if so.active else "ended",
        groups=[
            Group(heading=f"Side {i + 1}", entries=[participant(a) for a in side])
            for i, side in enumerate(so.sides)
        ],
    )
