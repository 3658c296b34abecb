"""vttbridge: the rules backend and scripting SDK for virtual tabletops.

Installed, the project is this one import name. Its parts live in the repository's top-level
folders and are installed below it:

- :mod:`vttbridge.rules`: what the game says (pure, deterministic; dice through a roller);
- :mod:`vttbridge.sdk`: what scripters touch (events, ``Script``, ``Context``, the world
  runtime, the offline harness);
- :mod:`vttbridge.adapters`: what each VTT says, and the socket bridge with its CLI.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("vttbridge")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
