"""``vttbridge demo``: the bridge in-process and a simulated Foundry client play the corner."""

from __future__ import annotations

import re

from vttbridge.adapters.foundry.demo import play


async def test_demo_plays_the_corner_and_the_stand_off() -> None:
    lines: list[str] = []
    chat = await play(lines.append)
    text = "\n".join(lines)
    assert "Gary's held move completes" in text and "Thug's held move completes" in text
    assert re.search(r"Kevin holds back \(Reflex \d+ vs DC 15\): no shoot", text)
    assert "Kevin takes his readied action: shoot (before the task" in text
    assert re.search(r"Stand off \S+ ends: everyone re-enters combat", text)
    # the Ready resolves before the held move completes
    assert text.index("holds back") < text.index("Gary's held move completes")
    assert text.index("takes his readied action") < text.index("Thug's held move completes")
    assert any("Combat adopted from the VTT" in c for c in chat)
