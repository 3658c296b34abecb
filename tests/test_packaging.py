"""One import name: installed, vttbridge claims ``vttbridge`` and nothing else. The repository
keeps its folders (``rules/``, ``sdk/``, ``adapters/``, ``systems/``), installed below
``vttbridge``; from a checkout they are also importable under their bare names, so these checks make
sure nothing of ours leans on that."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOPS = ("rules", "sdk", "adapters", "systems")
SOURCES = (
    "rules",
    "sdk",
    "adapters",
    "systems",
    "vttbridge",
    "tests",
    "examples",
    "bench",
    "docs",
    "tools",
)
# a module path written in code or text: `from sdk import`, "adapters.bridge.cli:main"... (not
# `from vttbridge.rules import systems`: the word after an import is no bare import)
BARE = re.compile(
    r"(?<![\w./-])(?<!\w )(?:(?:from|import) (?:rules|sdk|adapters|systems)\b"
    r"|(?:rules|sdk|adapters|systems)\.(?:"
    + "|".join(
        sorted(
            {
                p.relative_to(ROOT / top).parts[0].removesuffix(".py")
                for top in TOPS
                for p in (ROOT / top).iterdir()
                if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()
            }
        )
    )
    + r")\b)"
)


def python_files() -> list[Path]:
    return [
        p
        for folder in SOURCES
        for p in (ROOT / folder).rglob("*.py")
        if "node_modules" not in p.parts
    ]


def test_every_package_folder_is_installed_below_vttbridge():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {"vttbridge"} | {
        "vttbridge." + ".".join(init.parent.relative_to(ROOT).parts)
        for top in TOPS
        for init in (ROOT / top).rglob("__init__.py")
        if "node_modules" not in init.parts
    }
    found |= {  # the root package's own subpackages (vttbridge/vendor/...)
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "vttbridge").rglob("*/__init__.py")
    }
    # folders of data only (the companions' builds), listed so that setuptools installs them
    data = {
        name
        for name in listed - found
        if name in config["package-data"]
        and not list((ROOT / name.split(".")[1]).joinpath(*name.split(".")[2:]).glob("*.py"))
    }
    assert listed - data == found
    assert config["package-dir"] == {"vttbridge": "vttbridge"} | {
        f"vttbridge.{top}": top for top in TOPS
    }


@pytest.mark.slow  # reads every source file
def test_nothing_imports_the_folders_by_their_bare_names():
    bad = []
    for path in python_files():
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                if BARE.search(node.value):
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value[:60]!r}")
                continue
            for name in names:
                if name.split(".")[0] in TOPS:
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: import {name}")
    assert bad == []


def test_entry_points_and_docs_name_installed_modules():
    """Entry points, the README and docs/ write module paths as an installed vttbridge has
    them (a folder path such as ``rules/options.py`` is fine)."""
    texts = [ROOT / "pyproject.toml", ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    texts += list((ROOT / "adapters").glob("*/README.md"))
    bad = [
        f"{p.relative_to(ROOT)}:{n}: {line.strip()[:80]}"
        for p in texts
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if BARE.search(line)
    ]
    assert bad == []
