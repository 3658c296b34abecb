"""Worlds in the database, as ``vttbridge world`` makes them: created with new keys, or given
new keys. A key exists only in what these return; the database keeps its hash."""

from __future__ import annotations

import re
from pathlib import Path

from vttbridge.adapters.bridge import keys
from vttbridge.adapters.bridge.storage import StoreError, run_blocking
from vttbridge.rules.options import Options

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def create_world(database: str | Path, name: str, options: dict | None = None) -> tuple[str, str]:
    """Create a world in ``database``; returns its (GM key, observer key), which exist nowhere
    else afterwards."""
    check_world_name(name)
    if options:
        Options.model_validate(options)
    gm, obs = keys.new_key("gm"), keys.new_key("observer")
    gm_hash, obs_hash = keys.hash_key(gm), keys.hash_key(obs)
    run_blocking(database, lambda store: store.create_world(name, gm_hash, obs_hash, options))
    return gm, obs


def reset_keys(database: str | Path, name: str) -> tuple[str, str]:
    """Give world ``name`` new keys; returns them (GM key, observer key). The old ones fail at
    once, and a running bridge closes their connections (``auth.py``, the key watch)."""
    gm, obs = keys.new_key("gm"), keys.new_key("observer")
    hashes = keys.hash_key(gm), keys.hash_key(obs)
    run_blocking(database, lambda store: store.set_key_hashes(name, *hashes))
    return gm, obs


def check_world_name(name: str) -> None:
    """Raise :class:`StoreError` unless ``name`` can name a world."""
    if not _NAME.fullmatch(name or ""):
        raise StoreError(
            f"{name!r} is not a usable world name: use 1-64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit."
        )
