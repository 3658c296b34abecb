"""Versions meet: a Foundry module of a version the bridge does not support keeps its link and
is told so in plain words, as a localised notification (the module's own code, under Node,
against a real ``vttbridge serve`` whose Foundry adapter supports other versions:
``tests/adapters/companions.py``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .test_module_e2e import NODE, _node_test, serving

pytestmark = [pytest.mark.skipif(NODE is None, reason="node is not installed"), pytest.mark.slow]


@pytest.mark.parametrize(
    ("adapter", "expect"), [("ModuleTooOld", "older"), ("ModuleTooNew", "newer")]
)
def test_a_module_the_bridge_does_not_support_is_told(
    npm_installed: None, tmp_path: Path, adapter: str, expect: str
) -> None:
    with serving(tmp_path, f"tests.adapters.companions:{adapter}") as served:
        world, key = served.world()
        env = {
            "VTTBRIDGE_URL": served.url,
            "VTTBRIDGE_WORLD": world,
            "VTTBRIDGE_KEY": key,
            "VTTBRIDGE_EXPECT": expect,
        }
        out = _node_test("test/e2e-versions.test.mjs", env)
        assert "# skipped 0" in out
        assert f"is {expect} than the vttbridge server" in out
    # the GM's log says it too, in plain words
    said = (tmp_path / "serve.log").read_text()
    assert re.search(rf"vttbridge-foundry 0\.1\.0 is {expect} than this vttbridge server", said)
