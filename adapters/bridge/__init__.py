"""The socket bridge: aiohttp + python-socketio server, worlds and keys, persistence, CLI.
It knows no VTT by name; adapters register with it."""
