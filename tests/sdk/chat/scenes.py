"""Scenes the built-in scripts' tests share."""

from __future__ import annotations

from vttbridge.sdk import Script
from vttbridge.sdk.testing import WorldHarness


async def kevins_corner(script: Script, **kw) -> WorldHarness:
    """Kevin (IC 22) readies on his turn; Gary and a thug are elsewhere. ``script`` is the
    test's own (regions, triggers); the caller closes the harness."""
    w = WorldHarness(script, dice=[20, 10, 5], **kw)
    await w.__aenter__()
    await w.token("kev", "Kevin", (0, 0), owner="pk", initiative=2, reflex=4, action_dice=2)
    await w.token("gary", "Gary", (9, 0), owner="pg", bab=1)
    await w.token("thug", "Thug", (9, 9), bab=2)
    await w.gm_says("!init")  # Kevin 22, Gary 10, Thug 5
    return w
