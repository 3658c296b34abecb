"""The read-only view adapters translate against is the world itself, typed read-only."""

import inspect

from vttbridge.adapters.base import Adapter
from vttbridge.sdk.world import World, WorldView


def test_the_world_is_a_world_view():
    assert isinstance(World(id="w"), WorldView)
    assert not isinstance(object(), WorldView)


def test_adapters_translate_against_the_view():
    for method in (Adapter.translate_in, Adapter.translate_out):
        assert inspect.signature(method).parameters["world"].annotation == "WorldView"
