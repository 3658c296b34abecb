"""Spycraft 2.0's side of the table, as the SDK loads it (``System.table``): its chat commands
and its dashboard panels."""

from vttbridge.sdk.systems import Table
from vttbridge.systems.spycraft import chat, panels

TABLE = Table(scripts=(chat.script,), panels=panels.panels)
