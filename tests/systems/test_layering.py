"""The layering holds inside the game systems, and the core names none of them.

- ``rules/`` is pure and above nothing: it imports no SDK, adapter or system module.
- Each system package under ``systems/`` keeps the same layers inside: its ``rules/`` and its
  ``__init__`` (the :class:`vttbridge.rules.systems.System` the entry point loads) import only
  ``vttbridge.rules`` and its own rules; the SDK comes in only beside them (``chat``,
  ``panels``, ``table``). Loading every system, as the registry does, imports no SDK.
- The core modules of the encounter, the action economy, the runtime, the budget and the
  dashboard's view do not name a system: a system is one package, added through the door.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SYSTEMS = sorted(p.parent.name for p in (ROOT / "systems").glob("*/__init__.py"))


def imports(path: Path) -> list[str]:
    """Every module ``path`` imports (absolute names)."""
    tree = ast.parse(path.read_text(), str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
            found += [f"{node.module}.{a.name}" for a in node.names]
    return found


def ours(name: str) -> bool:
    return name == "vttbridge" or name.startswith("vttbridge.")


def test_the_rules_core_imports_nothing_above_it():
    bad = [
        f"{p.relative_to(ROOT)}: {m}"
        for p in sorted((ROOT / "rules").rglob("*.py"))
        for m in imports(p)
        # the vendored dice engine lies below every layer (vttbridge/vendor/README.md)
        if ours(m) and not m.startswith(("vttbridge.rules", "vttbridge.vendor"))
    ]
    assert bad == []


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_systems_rules_are_pure(system: str):
    pkg = ROOT / "systems" / system
    pure = [pkg / "__init__.py", *sorted((pkg / "rules").rglob("*.py"))]
    allowed = (
        "vttbridge.rules",
        f"vttbridge.systems.{system}.rules",
        f"vttbridge.systems.{system}",
    )
    bad = [
        f"{p.relative_to(ROOT)}: {m}"
        for p in pure
        for m in imports(p)
        if ours(m)
        and not m.startswith(allowed[:2])
        and not (p.name == "__init__.py" and m == allowed[2])
    ]
    assert bad == []


def test_loading_every_system_imports_no_sdk():
    code = (
        "import sys\n"
        "from vttbridge.rules import systems\n"
        "assert {'foe', 'spycraft'} <= set(systems.names())\n"
        "[s.state for s in systems.all_systems()]\n"
        "above = sorted(m for m in sys.modules if m.startswith(('vttbridge.sdk', "
        "'vttbridge.adapters')))\n"
        "assert not above, above\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


CORE = [
    "rules/encounter.py",
    "rules/actions.py",
    "rules/conditions.py",
    "rules/movement.py",
    "rules/citations.py",
    "sdk/budget.py",
    "sdk/economy.py",
    "sdk/holds.py",
    "sdk/systems.py",
    "sdk/panels.py",
    "sdk/chat/core.py",
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "sdk" / "runtime").glob("*.py")),
    "adapters/bridge/dashboard/view.py",
]


@pytest.mark.parametrize("module", CORE)
def test_the_core_names_no_system(module: str):
    text = (ROOT / module).read_text()
    found = [
        f"{module}:{n}: {line.strip()}"
        for n, line in enumerate(text.splitlines(), 1)
        if re.search(r"spycraft|\bfoe\b|fallout|equestria", line, re.I)
    ]
    assert found == []
