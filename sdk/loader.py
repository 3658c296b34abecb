"""Finding scripts: ``.py`` files, imported modules, and the ``vttbridge.scripts`` entry point
group (discord.py's ``load_extension`` shape: a module's :class:`Script` objects, or its
``setup(script)`` function).

A file is imported under a private module name (``vttbridge_script_<stem>_<n>``), a new one each
time it is imported again, so a reload really re-executes the file; the worlds share one import
per file through :mod:`vttbridge.sdk.script_host`. An entry point names a module, a
:class:`Script` object or a ``setup`` callable (``my_pkg.triggers:script``).
"""

from __future__ import annotations

import importlib
import importlib.util
import itertools
import logging
import sys
import traceback
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

from vttbridge.sdk.errors import ScriptError
from vttbridge.sdk.script import Script

log = logging.getLogger(__name__)
ENTRY_POINT_GROUP = "vttbridge.scripts"
_seq = itertools.count(1)


@dataclass
class ScriptSource:
    """Where a loaded script came from, so it can be reloaded."""

    kind: str  # "file" | "module" | "object" | "entry_point"
    ref: str
    path: Path | None = None
    """A file's resolved path (the :mod:`vttbridge.sdk.script_host` key)."""


def import_file(path: str | Path) -> ModuleType:
    """Execute a script file as a fresh module. A failure becomes :class:`ScriptError` naming
    the file and line."""
    path = Path(path).resolve()
    if not path.is_file():
        raise ScriptError(f"script file {path} does not exist")
    name = f"vttbridge_script_{path.stem}_{next(_seq)}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ScriptError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and typing resolve names through sys.modules
    try:
        spec.loader.exec_module(module)
    except BaseException as e:
        sys.modules.pop(name, None)
        raise ScriptError(f"{path.name}:{error_line(e, str(path))}: {type(e).__name__}: {e}") from e
    return module


def error_line(exc: BaseException, filename: str) -> int:
    """The line in ``filename`` where ``exc`` was raised (deepest frame in that file)."""
    if isinstance(exc, SyntaxError) and exc.filename and Path(exc.filename) == Path(filename):
        return exc.lineno or 0
    line = 0
    for fs in traceback.extract_tb(exc.__traceback__):
        if Path(fs.filename) == Path(filename):
            line = fs.lineno or 0
    return line


def scripts_of(module: ModuleType, default_name: str | None = None) -> list[Script]:
    """The :class:`Script` objects a module defines, plus one built by its ``setup()``."""
    found = [v for v in vars(module).values() if isinstance(v, Script)]
    setup = getattr(module, "setup", None)
    if callable(setup):
        name = default_name or module.__name__.rsplit(".", 1)[-1]
        script = Script(name, file=getattr(module, "__file__", None))
        setup(script)
        found.append(script)
    if not found:
        raise ScriptError(f"{module.__name__} defines no Script and no setup(script)")
    return found


def scripts_of_object(obj: Any, name: str) -> list[Script]:
    if isinstance(obj, Script):
        return [obj]
    if isinstance(obj, ModuleType):
        return scripts_of(obj, name)
    if callable(obj):
        script = Script(name, file=getattr(getattr(obj, "__code__", None), "co_filename", None))
        obj(script)
        return [script]
    raise ScriptError(f"{name}: not a Script, module or setup callable")


def script_path(source: Any) -> Path | None:
    """The resolved path when a ``scripts=`` item names a ``.py`` file, else None."""
    if isinstance(source, Path) or (isinstance(source, str) and source.endswith(".py")):
        return Path(source).resolve()
    return None


def load_source(source: Any) -> tuple[list[Script], ScriptSource]:
    """Resolve one ``scripts=`` item: a Script, a module, a ``.py`` path or a module name.
    A file is imported afresh (to check it); worlds share theirs through
    :mod:`vttbridge.sdk.script_host`."""
    if isinstance(source, Script):
        return [source], ScriptSource("object", source.name)
    if isinstance(source, ModuleType):
        return scripts_of(source), ScriptSource("module", source.__name__)
    if isinstance(source, Path) or (isinstance(source, str) and source.endswith(".py")):
        path = Path(source).resolve()
        module = import_file(path)
        src = ScriptSource("file", str(path), path)
        return scripts_of(module, path.stem), src
    if isinstance(source, str):
        try:
            module = importlib.import_module(source)
        except Exception as e:
            raise ScriptError(f"cannot import {source}: {type(e).__name__}: {e}") from e
        return scripts_of(module), ScriptSource("module", source)
    raise ScriptError(f"cannot load a script from {source!r}")


def entry_point_sources(group: str = ENTRY_POINT_GROUP) -> list[tuple[str, Any]]:
    """``(name, loaded object)`` for each entry point of ``group``; broken ones are logged."""
    out = []
    for ep in entry_points(group=group):
        try:
            out.append((ep.name, ep.load()))
        except Exception:
            log.exception("cannot load script entry point %s = %s", ep.name, ep.value)
    return out
