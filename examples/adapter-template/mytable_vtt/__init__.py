"""vttbridge adapter for MyTable: the template of an adapter package (see ``docs/adapters.md``
in vttbridge). ``MyTable`` is registered through the ``vttbridge.adapters`` entry point group."""

from mytable_vtt.adapter import MyTable

__all__ = ["MyTable"]
