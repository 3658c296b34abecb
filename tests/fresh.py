"""A fresh virtual environment with only vttbridge installed (with its ``testing`` extra), from
a copy of this repository's package sources as a clone has them: where a scripter's files are
checked to work outside this repository."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def fresh_venv(tmp_path: Path) -> str:
    """Make ``tmp_path/venv`` with ``pip install <copy of the repository>[testing]``; return
    its python."""
    source = tmp_path / "vttbridge"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    skip = shutil.ignore_patterns("node_modules", "__pycache__", "*.egg-info")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    for folder in sorted(set(config["tool"]["setuptools"]["package-dir"].values())):
        shutil.copytree(ROOT / folder, source / folder, ignore=skip)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run(
        [python, "-m", "pip", "install", "-q", f"{source}[testing]"], check=True, timeout=900
    )
    return python
