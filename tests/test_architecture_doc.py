"""docs/architecture.md names real code: every backticked file path exists and every backticked
module, class, function, method or attribute is defined in the installed package.

A bare file name (``polling.py``) is read in the folder of the last path the page named before
it (``adapters/bridge/websocket.py``). A dotted name resolves from ``vttbridge.`` (a module, then
its attributes); a shorter one (``WorldHost.receive``, ``pump()``) resolves when some module of
the package defines it: a class with that attribute, or a top-level function, class or constant.
Words of the wire protocol (error codes, payload fields, roles) are no code names: each must
appear in docs/protocol.md instead.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from functools import cache
from pathlib import Path

import vttbridge

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"

WIRE_WORDS = {"gm", "read_only", "off_scene", "unknown_token", "move_too_long", "id", "seq"}
WIRE_WORDS |= {"last_seq", "command", "updateToken"}
"""Backticked words of the wire protocol (docs/protocol.md names each)."""

FOLDERS = ("rules", "sdk", "adapters", "systems", "vttbridge")
_CODE = re.compile(r"`([^`\n]+)`")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def names_in_doc() -> list[tuple[int, str]]:
    """(line, text) of every backticked span outside fenced code blocks."""
    out: list[tuple[int, str]] = []
    fenced = False
    for n, line in enumerate(DOC.read_text().splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            out += [(n, m.group(1)) for m in _CODE.finditer(line)]
    # a span broken across two lines by the text's wrapping
    text = DOC.read_text()
    for m in re.finditer(r"`([^`\n]+)\n\s*([^`\n]+)`", text):
        out.append((text.count("\n", 0, m.start()) + 1, m.group(1) + m.group(2)))
    return out


def is_path(text: str) -> bool:
    if text.startswith(("/", "-", "!", '"', "{")) or any(c in text for c in " [=,<>:"):
        return False
    return "/" in text or bool(re.search(r"\.(py|js|mjs|md|json|toml)$", text))


@cache
def modules() -> dict[str, object]:
    """Every module of the installed package, by its dotted name."""
    found: dict[str, object] = {"vttbridge": vttbridge}
    for top in ("adapters", "rules", "sdk", "systems"):
        package = importlib.import_module(f"vttbridge.{top}")
        found[package.__name__] = package
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if not info.name.endswith("__main__"):
                found[info.name] = importlib.import_module(info.name)
    return found


@cache
def instance_attributes() -> dict[str, set[str]]:
    """Class name -> what its body defines and the attributes its methods set on ``self``
    (read from the source: what ``dir`` of the class cannot see)."""
    out: dict[str, set[str]] = {}
    for folder in FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            if {"node_modules", "vendor"} & set(path.parts):
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if not isinstance(node, ast.ClassDef):
                    continue
                attrs = out.setdefault(node.name, set())
                for sub in ast.walk(node):
                    if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef):
                        attrs.add(sub.name)
                    elif isinstance(sub, ast.AnnAssign) and isinstance(sub.target, ast.Name):
                        attrs.add(sub.target.id)
                    elif (
                        isinstance(sub, ast.Attribute)
                        and isinstance(sub.ctx, ast.Store)
                        and isinstance(sub.value, ast.Name)
                        and sub.value.id == "self"
                    ):
                        attrs.add(sub.attr)
    return out


def has(obj: object, attr: str) -> bool:
    if hasattr(obj, attr):
        return True
    fields = getattr(obj, "model_fields", None)
    if isinstance(fields, dict) and attr in fields:
        return True
    if isinstance(obj, type):
        return any(attr in instance_attributes().get(k.__name__, ()) for k in obj.__mro__)
    return False


def resolves(name: str) -> bool:
    """Whether the dotted ``name`` is defined in the package (see the module docstring)."""
    parts = name.split(".")
    if parts[0] == "vttbridge":
        for i in range(len(parts), 0, -1):
            module = modules().get(".".join(parts[:i]))
            if module is not None:
                obj: object = module
                for attr in parts[i:]:
                    if not has(obj, attr):
                        return False
                    obj = getattr(obj, attr, None)
                return True
        return False
    head, rest = parts[0], parts[1:]
    for module in modules().values():
        obj = vars(module).get(head)
        if obj is None or getattr(obj, "__module__", module.__name__) != module.__name__:
            continue  # imported here, defined elsewhere (found there)
        for attr in rest:
            if not has(obj, attr):
                break
            obj = getattr(obj, attr, None)
        else:
            return True
    # a method or attribute named alone (``settle``): of some class of the package
    return not rest and any(head in attrs for attrs in instance_attributes().values())


@cache
def companion_sources() -> str:
    """The JavaScript companions' own sources (a name of theirs resolves there)."""
    return "\n".join(
        p.read_text()
        for p in (ROOT / "adapters").rglob("src/*.js")
        if "node_modules" not in p.parts
    )


def in_companions(name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}\b", companion_sources()) is not None


def test_every_backticked_path_exists() -> None:
    missing = []
    folder = ROOT
    for line, text in names_in_doc():
        if not is_path(text):
            continue
        bases = [ROOT, folder, *(p for p in folder.parents if ROOT in p.parents)]
        found = next((b / text for b in bases if (b / text).exists()), None)
        if found is not None and "/" in text and "tests" not in found.parts:
            folder = found if found.is_dir() else found.parent  # where bare names are read
        if found is None and "/" in text.rstrip("/"):
            missing.append(f"docs/architecture.md:{line}: `{text}` is no file or folder")
        elif found is None:
            missing.append(
                f"docs/architecture.md:{line}: `{text}` is not in {folder.relative_to(ROOT)}/"
            )
    assert not missing, "\n".join(missing)


def test_every_backticked_name_is_defined() -> None:
    protocol = (ROOT / "docs" / "protocol.md").read_text()
    missing = []
    for line, text in names_in_doc():
        if is_path(text):
            continue
        name = re.sub(r"\(.*\)$|\[.*\]$", "", text)  # `pump()`, `Script(system=...)`, `x[k]`
        if not _NAME.fullmatch(name):
            continue  # a packet, a chat command, an option, a literal
        if name in WIRE_WORDS:
            if f"`{name}`" not in protocol and f'"{name}"' not in protocol:
                missing.append(f"docs/architecture.md:{line}: `{text}` is not in protocol.md")
        elif f"`{name}`" in protocol:
            continue  # a word of the wire (an error code, a field): protocol.md defines it
        elif not resolves(name) and not in_companions(name):
            missing.append(f"docs/architecture.md:{line}: `{text}` is defined nowhere")
    assert not missing, "\n".join(missing)


def test_the_resolver_can_fail() -> None:
    """The checks above would see a name that is gone."""
    assert resolves("WorldHost.receive")
    assert resolves("vttbridge.rules.systems.System")
    assert not resolves("LogWriter.event")
    assert not resolves("WorldHost.no_such_method")
    assert not resolves("vttbridge.rules.systems.NoSuchThing")
