"""The socket bridge: aiohttp + python-socketio server, worlds and keys, persistence, CLI.
It knows no VTT by name; adapters register with it. ``server.py`` puts it together; the way
of one event through its modules is ``docs/architecture.md``."""
