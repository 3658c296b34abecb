"""Roll20: the adapter (pure translation), its Mod script (``mod/``) and its relay (``relay/``).

Register with a bridge through the entry point group ``vttbridge.adapters``
(``roll20 = "vttbridge.adapters.roll20:Roll20Adapter"``) or explicitly::

    from vttbridge.adapters.base import register_adapter
    from vttbridge.adapters.roll20 import Roll20Adapter
    register_adapter(Roll20Adapter)
"""

from vttbridge.adapters.roll20.adapter import INBOUND, OUTBOUND, Roll20Adapter

__all__ = ["INBOUND", "OUTBOUND", "Roll20Adapter"]
