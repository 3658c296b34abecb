"""Adapters whose supported companion versions leave today's companions out, for the tests
that versions meet (``vttbridge serve --adapter tests.adapters.companions:...``): the same
adapters, under their own names, with another range."""

from __future__ import annotations

from typing import ClassVar

from vttbridge.adapters.foundry import FoundryAdapter
from vttbridge.adapters.roll20 import Roll20Adapter


class ModuleTooOld(FoundryAdapter):
    """A bridge that supports only Foundry modules from 9.0 on: today's is older."""

    companions: ClassVar[dict[str, str]] = {"vttbridge-foundry": ">=9.0.0,<10.0.0"}


class ModuleTooNew(FoundryAdapter):
    """A bridge that supports only Foundry modules before 0.0.1: today's is newer."""

    companions: ClassVar[dict[str, str]] = {"vttbridge-foundry": "<0.0.1"}


class ModTooOld(Roll20Adapter):
    """A bridge that supports today's relay but only Mod scripts from 9.0 on."""

    companions: ClassVar[dict[str, str]] = {**Roll20Adapter.companions, "VTTBridge": ">=9.0.0"}
