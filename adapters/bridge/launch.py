"""The ``vttbridge`` command's entry, kept light: it decides, before the CLI and its libraries
are imported, whether ``serve`` should start again under glibc's allocator.

Python's own allocator gives memory back to the OS only in whole arenas, and an arena stays
while one object in it lives: once a thousand worlds fall asleep the server keeps about twice
the memory of an empty one. With ``PYTHONMALLOC=malloc`` every object comes from glibc's
``malloc``, which ``malloc_trim`` empties when worlds are put to sleep, and the server comes
back to about the size of an empty one. So on Linux with glibc, ``serve`` re-executes itself,
the same process (pid) with the same command line, with that variable set, unless it is set
already: ``PYTHONMALLOC=pymalloc`` keeps Python's allocator (a few percent less CPU per event
under full load; docs/deployment.md, "Memory after sleep").
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping


def run() -> int:
    """Run the command on ``sys.argv``."""
    if wants_malloc(sys.argv[1:], os.environ):
        restart_with_malloc()
    from vttbridge.adapters.bridge.cli import main

    return main()


def wants_malloc(args: list[str], environ: Mapping[str, str]) -> bool:
    """Whether this command should run under glibc's allocator and does not yet."""
    return bool(
        args[:1] == ["serve"]
        and "PYTHONMALLOC" not in environ
        and sys.platform == "linux"
        and _glibc()
        and sys.executable
    )


def _glibc() -> bool:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION") is not None
    except (ValueError, OSError):  # not a glibc system
        return False


def restart_with_malloc() -> None:
    """Replace this process with the same command under ``PYTHONMALLOC=malloc``; on failure,
    go on as it is."""
    env = {**os.environ, "PYTHONMALLOC": "malloc"}
    try:
        os.execve(sys.executable, sys.orig_argv, env)
    except OSError as e:
        print(f"vttbridge: could not start with glibc's allocator ({e}).", file=sys.stderr)
