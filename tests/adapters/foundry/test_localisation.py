"""The Foundry module is localised: ``module.json`` lists its languages, every string a user
reads goes through ``game.i18n`` by a key of ``lang/en.json``, and no English sentence is left
in the module's code but what goes to the bridge (acks, protocol values) or to the console."""

from __future__ import annotations

import json
import re
from pathlib import Path

from .conftest import ROOT

MODULE = ROOT / "adapters" / "foundry" / "module"
NOT_FOR_USERS = re.compile(
    r"console\.|CommandError\(|throw new Error|message: \"|skipped: \"|reason === \""
)
"""Contexts whose text no user reads in Foundry: logs, and what is sent to the bridge."""


def _keys(tree: dict, prefix: str = "") -> set[str]:
    out: set[str] = set()
    for k, v in tree.items():
        out |= _keys(v, f"{prefix}{k}.") if isinstance(v, dict) else {prefix + k}
    return out


def _code(path: Path) -> str:
    """A source file without its comments."""
    src = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S)
    src = re.sub(r"(?m)^\s*//.*$", "", src)
    return re.sub(r"(?m)\s//[^\"\n`]*$", "", src)


def test_module_json_lists_its_languages() -> None:
    manifest = json.loads((MODULE / "module.json").read_text())
    assert {"lang": "en", "name": "English", "path": "lang/en.json"} in manifest["languages"]
    for lang in manifest["languages"]:
        assert (MODULE / lang["path"]).is_file()


def test_every_key_used_is_in_english_and_every_english_string_is_used() -> None:
    english = _keys(json.loads((MODULE / "lang" / "en.json").read_text()))
    code = "\n".join(_code(p) for p in sorted((MODULE / "src").glob("*.js")))
    # keys in full ("VTTBRIDGE.Settings.Key.Name", which Foundry localises itself) and the
    # short ones t() and notify() prefix ("Notify.Linked")
    used = set(re.findall(r"\"(VTTBRIDGE\.[A-Za-z.]+)\"", code))
    used |= {f"VTTBRIDGE.{k}" for k in re.findall(r"\"([A-Z][a-z]+\.[A-Z][A-Za-z.]*)\"", code)}
    assert used - english == set(), "keys the English file lacks"
    assert english - used == set(), "English strings the module never shows"


def test_no_english_sentence_left_in_user_facing_code() -> None:
    left = []
    for path in sorted((MODULE / "src").glob("*.js")):
        for line in _code(path).splitlines():
            if NOT_FOR_USERS.search(line):
                continue
            for m in re.finditer(r"\"((?:[^\"\\]|\\.)*)\"|`([^`]*)`", line):
                text = m.group(1) if m.group(1) is not None else m.group(2)
                if re.search(r"[A-Za-z]{2,}\s+[A-Za-z]{2,}", text):
                    left.append(f"{path.name}: {line.strip()}")
    assert left == []
