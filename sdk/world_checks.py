"""What only the world can tell about a loaded script: an ``@script.on_enter("vualt")`` naming a
region that neither the script nor the VTT's scene has.

A script may wait for a region drawn in the VTT (Foundry regions arrive with the scene), so the
name cannot be judged when the file loads; it can once the scene is there. After each scene
snapshot this built-in script tells the GM, once per world and name, which ``on_enter`` waits for
a region the world does not have, where it is, and the closest region it has. (A name close to
one of the script's own regions is refused when the file loads: :mod:`vttbridge.sdk.checks`.)
"""

from __future__ import annotations

from vttbridge.sdk.checks import close_match, on_enter_regions, where
from vttbridge.sdk.context import Context
from vttbridge.sdk.events import SceneSnapshot
from vttbridge.sdk.script import Script

script = Script("world_checks", description="Tells the GM what a script waits for in vain.")

TOLD = "missing_regions"
"""The store key of the region names the GM was told about."""


@script.on(SceneSnapshot)
def regions_missing(event: SceneSnapshot, ctx: Context) -> None:
    """Tell the GM about each ``on_enter`` region name no region of the world has."""
    have = list(ctx.world.regions)
    told: list[str] = ctx.store.setdefault(TOLD, [])
    for name, callbacks in on_enter_regions(ctx.scripts()).items():
        if name in have or name in told:
            continue
        told.append(name)
        match = close_match(name, have)
        hint = f" Did you mean {match!r}?" if match else ""
        ctx.tell_gm(
            f"⚠ {where(callbacks[0])}: on_enter({name!r}) waits for a region this world does "
            f"not have (regions: {', '.join(sorted(have)) or 'none'}).{hint} It fires once a "
            "region of that name is drawn in the VTT or defined by a script."
        )
