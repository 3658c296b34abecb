"""Foundry VTT: the adapter (Foundry hook payloads <-> domain events and effects) and, in
``module/``, the companion Foundry module a GM installs.

Register the adapter with the bridge through the ``vttbridge.adapters`` entry point
(``foundry = "vttbridge.adapters.foundry:FoundryAdapter"``) or explicitly::

    from vttbridge.adapters.base import register_adapter
    from vttbridge.adapters.foundry import FoundryAdapter

    register_adapter(FoundryAdapter)

Moves a Ready watches on the attempt are held by the module until the Ready resolves; the
built-in :mod:`vttbridge.sdk.holds` script, which every world loads, decides which and when.
"""

from vttbridge.adapters.foundry.adapter import FLAG, INBOUND, FoundryAdapter, roll_text
from vttbridge.adapters.foundry.models import OUTBOUND

__all__ = ["FLAG", "INBOUND", "OUTBOUND", "FoundryAdapter", "roll_text"]
