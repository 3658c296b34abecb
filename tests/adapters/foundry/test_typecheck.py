"""The Foundry module and its stand-in are type-checked against Foundry's API as the community's
type definitions declare it (fvtt-types, the newest on npm) plus the module's declarations of what
Foundry v14 adds (``module/types/foundry-v14.ts``): ``npm run typecheck`` finds no error, and a
call the types do not declare, in the module or as a member of the stand-in, fails it.

Needs ``node`` (skipped without it); ``npm ci`` runs when the module's packages are missing.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import ROOT

MODULE = ROOT / "adapters" / "foundry" / "module"
NODE = shutil.which("node")

pytestmark = [
    pytest.mark.skipif(NODE is None, reason="node is not installed"),
    pytest.mark.slow,
]


@pytest.fixture(scope="module")
def tsc(npm_installed: None) -> list[str]:
    assert NODE is not None
    return [NODE, str(MODULE / "node_modules" / "typescript" / "bin" / "tsc"), "-p"]


def _check(tsc: list[str], folder: Path) -> tuple[int, str]:
    res = subprocess.run(
        [*tsc, str(folder / "tsconfig.json")], cwd=folder, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    return res.returncode, res.stdout + res.stderr


def test_the_module_and_its_stand_in_check_clean(tsc: list[str]) -> None:
    code, out = _check(tsc, MODULE)
    assert code == 0 and "error TS" not in out, out


def test_an_undeclared_call_fails_the_check(tsc: list[str], tmp_path: Path) -> None:
    """A copy of the module where the module calls a method Foundry's types do not declare, and
    the stand-in gives its TokenDocument a member they do not declare: both are errors."""
    for name in ("tsconfig.json", "module.json"):
        shutil.copy(MODULE / name, tmp_path / name)
    for folder in ("src", "types", "lang"):
        shutil.copytree(MODULE / folder, tmp_path / folder)
    (tmp_path / "test").mkdir()
    (tmp_path / "node_modules").symlink_to(MODULE / "node_modules", target_is_directory=True)
    module = tmp_path / "src" / "module.js"
    module.write_text(
        module.read_text() + '\nHooks.on("updateToken", (doc) => doc.teleportEverywhere());\n'
    )
    stub = (MODULE / "test" / "foundry-stub.mjs").read_text()
    marker = "  /** v14: the level it stands on. */\n"
    assert marker in stub
    stub = stub.replace(marker, "  teleportEverywhere() {\n    return true;\n  }\n" + marker, 1)
    (tmp_path / "test" / "foundry-stub.mjs").write_text(stub)
    code, out = _check(tsc, tmp_path)
    assert code != 0
    undeclared = r"src/module\.js.*error TS2339: Property 'teleportEverywhere' does not exist"
    assert re.search(undeclared, out), out
    assert re.search(r"foundry-stub\.mjs.*declare\".*teleportEverywhere", out), out
