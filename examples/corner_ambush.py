"""Kevin's corner ambush (Spycraft 2.0): a Ready whose trigger is a region.

The map has a corridor corner; this script names the cells just around it ``corner``. Kevin's
player readies his pistol for the first person to come round it::

    !ready Standard Attack with pistol --when corner

Whoever's move enters the region sets the Ready off: Kevin's IC drops to the current count and
his player is asked whether he fires or holds back (a Reflex save, DC 15). The script adds
flavour: it tells the GM when anyone reaches the corner, and it registers a named condition,
``hostile_at_corner``, for a choosier Ready (``--when hostile_at_corner``) that only a hostile
token coming round the corner sets off (a token's disposition comes from the VTT: hostile is
negative).

Run it with ``vttbridge serve --script examples/corner_ambush.py``; ``tests/examples`` plays
the Ready example of ``docs/rules.md`` through it.
"""

from __future__ import annotations

from vttbridge.sdk import Context, Script, TokenMoved, entered, rect

script = Script("corner_ambush", system="spycraft")

# The corridor bends at column 10: the cells a person steps into as he comes round it.
CORNER = script.region("corner", rect(10, 4, 11, 6))


@script.on_enter("corner")
def footsteps(event: TokenMoved, ctx: Context) -> None:
    """Tell the GM who reached the corner (the Ready, if any, is the rules' business)."""
    ctx.tell_gm(f"{ctx.name(event.token)} comes round the corner at {ctx.cell.x},{ctx.cell.y}.")


@script.condition("hostile_at_corner", on=[TokenMoved])
def hostile_at_corner(event: TokenMoved, ctx: Context) -> bool:
    """A hostile token comes round the corner."""
    # entered() walks the path as `--when corner` does: a thug who runs through the corner
    # and stops beyond it came round it too
    return ctx.tokens[event.token].disposition < 0 and entered(event, CORNER) is not None
