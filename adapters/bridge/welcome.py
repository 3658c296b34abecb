"""What ``vttbridge serve`` tells the GM once it listens: one block, on standard output, with
everything there is to copy (the addresses, and the keys of a world made at this start), while
the log stays on standard error. :func:`banner` writes the block; the CLI prints it."""

from __future__ import annotations

from dataclasses import dataclass

from vttbridge.adapters.bridge import install


@dataclass(frozen=True)
class NewWorld:
    """A world made at this start, whose keys are shown now and never again."""

    name: str
    gm_key: str
    observer_key: str


ALL_ADDRESSES = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "[::1]"}


def base_url(host: str, port: int) -> str:
    """The address a GM opens or pastes for a server listening on ``host``:``port`` (this
    machine's own when it listens on all of them)."""
    shown = ALL_ADDRESSES.get(host, host)
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}"


def keys_block(new: NewWorld) -> str:
    """A new world's keys, with what each is for."""
    return (
        f"World {new.name!r} created. Its keys are shown only now; keep them safe.\n"
        f"  {'GM key':<15} {new.gm_key}   (paste into the companion's settings)\n"
        f"  {'Observer key':<15} {new.observer_key}   (read-only: watch, never send)\n"
    )


def banner(
    host: str,
    port: int,
    *,
    version: str | None = None,
    new_world: NewWorld | None = None,
    worlds: list[str] | None = None,
    database: str = "",
) -> str:
    """The block ``vttbridge serve`` prints once it listens on ``host``:``port``: the server's
    addresses, the keys of ``new_world`` or the names of ``worlds`` (in ``database``), how to
    install each companion, the demo, and where a hosted Foundry installs from. ``version``:
    the installed vttbridge's."""
    version = version or install.version()
    base = base_url(host, port)
    row = "  {:<15} {}".format
    lines = [f"vttbridge {version} is running. What to open, paste and install:", ""]
    lines += [
        row("Server URL", f"{base}   (the companion's server setting)"),
        row("Dashboard", f"{base}/   (sign in with a world's name and key)"),
    ]
    if host in ALL_ADDRESSES:
        lines.append(row("", "From another machine: this machine's address instead of the above."))
    lines.append("")
    if new_world is not None:
        lines += keys_block(new_world).rstrip("\n").splitlines()
    else:
        names = ", ".join(worlds or []) or "none yet (vttbridge world create NAME)"
        lines += [
            row("Worlds", f"{names}" + (f"   (in {database})" if database else "")),
            row("", "Their keys were shown when each was made; "),
            row("", "`vttbridge world reset-key NAME` gives new ones."),
        ]
    world = new_world.name if new_world is not None else (worlds or ["NAME"])[0]
    lines += [
        "",
        row("Foundry VTT", "Add-on Modules > Install Module > Manifest URL:"),
        row("", f"{base}{install.FOUNDRY_MANIFEST}"),
        row("Roll20", f"Mod script        {base}{install.ROLL20_MOD}"),
        row("", f"relay userscript  {base}{install.ROLL20_RELAY}"),
        row("Try it first", f"vttbridge demo --world {world}"),
        row("", "(a scripted fight, live on the dashboard; it asks for the world's GM key)"),
        "",
        "Foundry on another machine (The Forge, Molten, a VPS) downloads the module from there:",
        "it needs a manifest URL that machine reaches, such as the public release's",
        f"  {install.HOME}/releases/download/v{version}/module.json",
        "The module then runs in the GM's browser, which must reach the server URL (https:// when",
        'Foundry\'s page is https://). docs/deployment.md, "Where Foundry runs", has each set-up.',
        "Stop the server with Ctrl-C.",
    ]
    return "\n".join(lines) + "\n"
