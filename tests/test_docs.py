"""The documentation stands alone: no file outside the repository is named. (The API reference is
built with warnings as errors by ``.ci/run``: ``python docs/build_api.py --strict DIR``.)"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("sdk", "rules")


def test_no_reference_outside_the_repository() -> None:
    """No path into a steering folder, no planning document's numbers: a clone stands alone."""
    kinds = ("*.py", "*.md", "*.js", "*.mjs", "*.json")
    sources = [
        ROOT / "README.md",
        *ROOT.joinpath("docs").glob("*.md"),
        *(
            p
            for d in ("adapters", "sdk", "rules", "systems", "tests", "examples", "bench", "tools")
            for kind in kinds
            for p in ROOT.joinpath(d).rglob(kind)
            if not {"node_modules", "dist"} & set(p.parts)
        ),
    ]
    patterns = [
        re.compile(p)
        for p in (r"shared[/]", r"\bseed 0\d\d\b", r"\bissue #?\d+\b", r"\bthe issue\b")
    ]
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in sources
        if path.name != Path(__file__).name
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if any(p.search(line) for p in patterns)
    ]
    assert not found, "\n".join(found)
