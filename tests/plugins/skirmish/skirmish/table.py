"""Skirmish at the table: its chat commands and its dashboard panel, with vttbridge's SDK."""

from __future__ import annotations

from vttbridge.sdk import ChatCommand, Context, Script, UsageError
from vttbridge.sdk.panels import Column, Panel, PanelTable, Row
from vttbridge.sdk.systems import Table
from vttbridge.sdk.world import World

from skirmish import rules

script = Script("skirmish", system=rules.NAME, description="Skirmish: strikes and shields.")


def _actor(cmd: ChatCommand, ctx: Context) -> str:
    if cmd.token is None:
        raise UsageError("Speak as your token.")
    return ctx.token(cmd.token).id


@script.command("strike", usage="!strike <target>", help="Strike someone.", cost=rules.STRIKE)
def strike(cmd: ChatCommand, ctx: Context) -> None:
    """The runtime checks the strike's cost before and spends it after (its own cost)."""
    if len(cmd.argv) != 1:
        raise UsageError()
    actor, target = _actor(cmd, ctx), ctx.token(cmd.argv[0]).id
    ctx.say(f"{ctx.name(actor)} strikes {ctx.name(target)}.")


@script.command("raise-shield", usage="!raise-shield", help="Raise your shield (1 action).")
def raise_shield(cmd: ChatCommand, ctx: Context) -> None:
    """Its rule spends the action itself."""
    ctx.rule(rules.raise_shield, _actor(cmd, ctx))


def panels(world: World) -> list[Panel]:
    """One row per combatant: actions left, shield."""
    enc = world.encounter
    shields = rules.state(enc).shields
    rows = []
    for token in enc.order() if enc.combatants else []:
        left = str(enc.combatants[token].half_actions)
        shield = "raised" if token in shields else None
        rows.append(
            Row(key=token, cells=[enc.name(token), left, shield], active=enc.active == token)
        )
    columns = [Column(label="Name"), Column(label="Actions", numeric=True), Column(label="Shield")]
    table = PanelTable(columns=columns, rows=rows)
    return [Panel(id="shields", title="Shields", empty="Nobody fights.", table=table)]


TABLE = Table(scripts=(script,), panels=panels)
