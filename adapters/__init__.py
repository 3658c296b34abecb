"""What each VTT says: translation of native payloads to domain events and back, and the
socket bridge (``vttbridge.adapters.bridge``) that hosts them. Imports ``sdk`` and ``rules``;
nothing imports this package from below."""
