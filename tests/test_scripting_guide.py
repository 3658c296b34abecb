"""The scripting guide's first script and its first test, copied into an empty folder of a fresh
virtual environment where only vttbridge (with its ``testing`` extra) is installed, pass as
written: what a scripter meets first works outside this repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.fresh import fresh_venv

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "scripting.md"


def first_section() -> str:
    text = GUIDE.read_text()
    start = text.index("## A first script")
    return text[start : text.index("\n## ", start + 1)]


def named_blocks(section: str) -> dict[str, str]:
    """The section's python blocks that start with a ``# <file>.py`` line, by file name."""
    out = {}
    for block in re.findall(r"```python\n(.*?)```", section, re.S):
        first = block.splitlines()[0]
        if re.fullmatch(r"# [\w.]+\.py", first):
            out[first[2:]] = block
    return out


def test_the_guide_names_both_files_and_the_commands():
    section = first_section()
    assert set(named_blocks(section)) == {"corner_ambush.py", "test_corner_ambush.py"}
    (shell,) = re.findall(r"```sh\n(.*?)```", section, re.S)
    assert shell.splitlines() == ["pip install '/path/to/vttbridge[testing]'", "python -m pytest"]


@pytest.mark.slow
def test_the_guides_first_script_and_test_pass_in_a_fresh_project(tmp_path: Path):
    project = tmp_path / "my-scripts"
    project.mkdir()
    for name, code in named_blocks(first_section()).items():
        (project / name).write_text(code)
    # the guide's two commands (the install: fresh_venv's), in the project's folder, with the
    # fresh environment's python
    python = fresh_venv(tmp_path)
    ran = subprocess.run(
        [python, "-m", "pytest", "-p", "no:cacheprovider"],
        cwd=project, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "1 passed" in ran.stdout, ran.stdout
