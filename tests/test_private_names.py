"""No private name crosses a module boundary: a name with a leading underscore is used only in
the module that defines it.

Checked over the SDK and the game systems: for every module, each private name it uses (an
imported name, an attribute such as ``self._queue`` or ``other._x``, a bare name) must be
defined in that module (a module-level function, class or variable, a class member, or an
attribute it assigns, ``self._x = ...``). A private name used anywhere else is a part reaching
into another part (a mixin sharing one object's fields, a private helper imported across
files): give it a public name, or move the code to where the name lives.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ("sdk", "systems")
ALLOWED = {
    # documented in the sys module; no public name gives another thread's current frame (the
    # watchdog reports where an overrunning callback is)
    "sys._current_frames",
}


def _private(name: str) -> bool:
    return (
        name.startswith("_") and not (name.startswith("__") and name.endswith("__")) and name != "_"
    )


def _defined(tree: ast.Module) -> set[str]:
    """Every private name the module defines."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            found.add(node.attr)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, ast.alias) and node.asname:
            found.add(node.asname)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.add(node.value)  # __slots__ = ("_x",)
    return {n for n in found if _private(n)}


def _uses(tree: ast.Module) -> list[tuple[int, str]]:
    """Every private name the module uses, with its line."""
    used: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            used += [(node.lineno, a.name) for a in node.names if _private(a.name)]
            if node.module and any(_private(p) for p in node.module.split(".")):
                used.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            used += [(node.lineno, a.name) for a in node.names if _private(a.name.split(".")[-1])]
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            if ast.unparse(node) not in ALLOWED:
                used.append((node.lineno, node.attr))
        elif isinstance(node, ast.Name) and _private(node.id):
            used.append((node.lineno, node.id))
    return used


def crossings(folders: tuple[str, ...] = CHECKED) -> list[str]:
    """``path:line: name`` for each private name used outside the module defining it."""
    out: list[str] = []
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            mine = _defined(tree)
            rel = path.relative_to(ROOT)
            out += [f"{rel}:{line}: {name}" for line, name in _uses(tree) if name not in mine]
    return out


def test_no_private_name_crosses_a_module():
    found = crossings(tuple(f for f in CHECKED if (ROOT / f).is_dir()))
    assert not found, "private names used outside their module:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from vttbridge.sdk.runtime.consumer import _Step\n", ["_Step"]),
        ("def f(rt):\n    return rt._queue\n", ["_queue"]),
        ("class A:\n    def f(self):\n        return self._task_reg\n", ["_task_reg"]),
        (
            "class A:\n    def __init__(self):\n        self._x = 1\n\n    def f(self):\n"
            "        return self._x\n",
            [],
        ),
        ("def _helper():\n    pass\n\n\n_helper()\n", []),
    ],
)
def test_the_check_finds_what_crosses(source, expected):
    tree = ast.parse(source)
    mine = _defined(tree)
    assert [n for _, n in _uses(tree) if n not in mine] == expected
