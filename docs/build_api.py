"""Build the API reference of ``vttbridge.sdk``, ``vttbridge.rules`` and ``vttbridge.systems``
from their docstrings.

    python docs/build_api.py                 # into docs/api/ (not committed)
    python docs/build_api.py --strict DIR    # CI: any warning while rendering is an error

Every module is imported first, so a third-party import's own warnings do not count: only what
our docstrings and annotations make pdoc warn about does.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import warnings
from pathlib import Path

import pdoc
import pdoc.extract
import pdoc.render

PACKAGES = ("vttbridge.sdk", "vttbridge.rules", "vttbridge.systems")
ROOT = Path(__file__).resolve().parent.parent


def modules() -> list[str]:
    """Every module of :data:`PACKAGES`, each named once: a package's ``__all__`` hides its
    submodules from pdoc's own walk, so those are named too."""
    names = list(PACKAGES)
    for name in PACKAGES:
        pkg = importlib.import_module(name)
        names += [m.name for m in pkgutil.walk_packages(pkg.__path__, f"{name}.")]
    specs: list[str] = []
    found: set[str] = set()
    for name in names:
        importlib.import_module(name)
        if name not in found:
            specs.append(name)
            found.update(pdoc.extract.walk_specs([name]))
    return specs


def build(out: Path, *, strict: bool = False) -> None:
    """Render the reference into ``out``; with ``strict``, a warning raises."""
    specs = modules()
    pdoc.render.configure(docformat="restructuredtext", show_source=False)
    with warnings.catch_warnings():
        if strict:
            warnings.simplefilter("error")
            # pydantic's dataclass __init__ (vttbridge.rules.geometry.Cell) is annotated with a
            # name that exists only under TYPE_CHECKING inside pydantic: nothing of ours
            warnings.filterwarnings("ignore", message=r".*PydanticDataclass.*")
        pdoc.pdoc(*specs, output_directory=out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", nargs="?", type=Path, default=ROOT / "docs" / "api")
    parser.add_argument("--strict", action="store_true", help="warnings are errors")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    build(args.out, strict=args.strict)
    print(f"API reference in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
