"""Fallout: Equestria's side of the table, as the SDK loads it (``System.table``): its chat
commands (and its judge of VTT drags) and its dashboard panel."""

from vttbridge.sdk.systems import Table
from vttbridge.systems.foe import chat, panels

TABLE = Table(scripts=(chat.script,), panels=panels.panels, round_notes=panels.round_notes)
