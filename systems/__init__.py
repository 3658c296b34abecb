"""The game systems that ship with vttbridge, each one package installed as
``vttbridge.systems.<name>`` and registered through the ``vttbridge.systems`` entry point group
exactly as a third party's would be: :mod:`vttbridge.systems.spycraft` (Spycraft 2.0),
:mod:`vttbridge.systems.foe` (Fallout: Equestria).

Each package keeps the layering of the whole project inside it: ``rules/`` is pure (no I/O, no
asyncio, dice through a roller; it imports ``vttbridge.rules`` and nothing of the SDK or the
adapters), the package's ``__init__`` (its :class:`vttbridge.rules.systems.System`) imports only
its rules, and the modules beside them (``chat``, ``panels``, ``table``) build on the SDK. A test
checks both (``tests/systems/test_layering.py``).
"""
